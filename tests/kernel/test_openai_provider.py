"""The `openai` provider against a local OpenAI-compatible server (loopback only, no model)."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import keyring
import pytest

from kernel.providers.contract import ProviderRequest
from kernel.providers.dispatcher import dispatch
from kernel.providers.openai_chat import KEYRING_SERVICE

pytestmark = pytest.mark.anyio


def serve(status: int, body: dict, hold: threading.Event | None = None) -> tuple[ThreadingHTTPServer, list[dict]]:
    """A chat endpoint answering every POST with `status` and `body`; with `hold`, only once it is set."""
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
            if hold is not None:
                hold.wait(30)
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up waiting
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


@pytest.fixture
def endpoint(monkeypatch):
    servers, holds = [], []

    def start(status: int, body: dict, *, hold: bool = False, key: str | None = "test-key-not-secret") -> list[dict]:
        event = threading.Event() if hold else None
        server, seen = serve(status, body, event)
        servers.append(server)
        holds.extend([event] if event else [])
        monkeypatch.setenv("PALLIUM_OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
        for name in ("PALLIUM_OPENAI_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "PALLIUM_OPENAI_MODEL"):
            monkeypatch.delenv(name, raising=False)
        if key:
            monkeypatch.setenv("OPENAI_API_KEY", key)
        return seen

    yield start
    for event in holds:
        event.set()
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


def ask(tmp_path, **kw) -> ProviderRequest:
    return ProviderRequest("is it ok?", tmp_path, provider="openai", **{"model": "local", **kw})


async def test_openai_endpoint_answers_read_only_work_with_unknown_cost(endpoint, tmp_path):
    seen = endpoint(200, COMPLETION)
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    result = await dispatch(ask(tmp_path, schema=schema))
    assert result.ok and result.output == {"ok": True}
    assert result.usage.to_dict() == {"input_tokens": 9, "output_tokens": 4, "cost_usd": None}
    assert seen[0]["auth"] == "Bearer test-key-not-secret" and seen[0]["body"]["model"] == "local"


async def test_openai_refuses_edit_work_and_classifies_auth_failures(endpoint, tmp_path):
    endpoint(401, {"error": {"message": "bad key", "type": "invalid_request_error", "code": "invalid_api_key"}})
    edit = await dispatch(ask(tmp_path, model="m", mode="edit"))
    auth = await dispatch(ask(tmp_path, model="m"))
    assert (edit.failure.error_class, edit.failure.reason) == ("not_configured", "mode_unsupported")
    assert auth.failure.error_class == "auth"


async def test_openai_key_comes_from_the_keyring_when_the_environment_has_none(endpoint, memory_keyring, tmp_path):
    seen = endpoint(200, COMPLETION, key=None)
    keyring.set_password(KEYRING_SERVICE, "default", "key-from-the-keyring")
    result = await dispatch(ask(tmp_path))
    assert result.ok
    assert seen[0]["auth"] == "Bearer key-from-the-keyring"


async def test_openai_without_a_key_anywhere_is_not_configured(memory_keyring, tmp_path, monkeypatch):
    for name in ("PALLIUM_OPENAI_API_KEY", "OPENAI_API_KEY", "PALLIUM_OPENAI_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = await dispatch(ask(tmp_path))
    assert (result.failure.error_class, result.failure.reason) == ("not_configured", "missing_key")


async def test_openai_endpoint_that_does_not_answer_in_time_is_a_timeout(endpoint, tmp_path):
    seen = endpoint(200, COMPLETION, hold=True)
    result = await dispatch(ask(tmp_path, timeout=0.5))
    assert result.failure.error_class == "timeout"
    assert len(seen) == 1, "one request, no retries"


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"},
            "quota",
        ),
        (
            {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"},
            "rate_limit",
        ),
    ],
)
async def test_openai_429_is_quota_or_rate_limit_by_what_the_endpoint_says(endpoint, tmp_path, error, expected):
    seen = endpoint(429, {"error": error})
    result = await dispatch(ask(tmp_path))
    assert result.failure.error_class == expected
    assert len(seen) == 1, "rate limits are not retried here; the caller decides"


async def test_openai_endpoint_nobody_listens_on_is_unreachable(tmp_path, monkeypatch):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("PALLIUM_OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-secret")
    result = await dispatch(ask(tmp_path, timeout=10))
    assert (result.failure.error_class, result.failure.reason) == ("not_configured", "unreachable")


async def test_openai_call_without_a_model_or_with_an_unknown_one_is_not_configured(endpoint, tmp_path):
    endpoint(
        404,
        {
            "error": {
                "message": "The model `nope` does not exist",
                "type": "invalid_request_error",
                "code": "model_not_found",
            }
        },
    )
    no_model = await dispatch(ask(tmp_path, model=None))
    unknown = await dispatch(ask(tmp_path, model="nope"))
    assert (no_model.failure.error_class, no_model.failure.reason) == ("not_configured", "missing_model")
    assert (unknown.failure.error_class, unknown.failure.reason) == ("not_configured", "model_not_found")
