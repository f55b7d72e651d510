"""The `openai` provider against a local OpenAI-compatible server (loopback only, no model)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kernel.providers.contract import ProviderRequest
from kernel.providers.dispatcher import dispatch

pytestmark = pytest.mark.anyio


def serve(status: int, body: dict) -> tuple[ThreadingHTTPServer, list[dict]]:
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(
                {
                    "path": self.path,
                    "auth": self.headers.get("Authorization"),
                    "body": json.loads(self.rfile.read(int(self.headers["Content-Length"]))),
                }
            )
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


@pytest.fixture
def endpoint(monkeypatch):
    servers = []

    def start(status: int, body: dict) -> list[dict]:
        server, seen = serve(status, body)
        servers.append(server)
        monkeypatch.setenv("PALLIUM_OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-secret")
        return seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


COMPLETION = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "local",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": '{"ok": true}'}}],
    "usage": {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13},
}


async def test_openai_endpoint_answers_read_only_work_with_unknown_cost(endpoint, tmp_path):
    seen = endpoint(200, COMPLETION)
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    result = await dispatch(ProviderRequest("is it ok?", tmp_path, provider="openai", model="local", schema=schema))
    assert result.ok and result.output == {"ok": True}
    assert result.usage.to_dict() == {"input_tokens": 9, "output_tokens": 4, "cost_usd": None}
    assert seen[0]["auth"] == "Bearer test-key-not-secret" and seen[0]["body"]["model"] == "local"


async def test_openai_refuses_edit_work_and_classifies_auth_failures(endpoint, tmp_path):
    endpoint(401, {"error": {"message": "bad key", "type": "invalid_request_error", "code": "invalid_api_key"}})
    edit = await dispatch(ProviderRequest("x", tmp_path, provider="openai", model="m", mode="edit"))
    auth = await dispatch(ProviderRequest("x", tmp_path, provider="openai", model="m"))
    assert (edit.failure.error_class, edit.failure.reason) == ("not_configured", "mode_unsupported")
    assert auth.failure.error_class == "auth"
