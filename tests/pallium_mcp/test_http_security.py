"""The HTTP door against DNS rebinding, and the bearer token kept off the command line."""

import json
import os
import subprocess
from pathlib import Path

import httpx2
import pytest

from pallium_mcp.server import http_app, main
from tests.conftest import script

pytestmark = pytest.mark.anyio

PALLIUM_MCP = script("pallium-mcp")
LOOPBACKS = ["127.0.0.1", "127.0.0.2", "127.255.0.9", "::1", "localhost"]


async def _reached(scope, receive, send):
    """The app behind the guards: answers 200 so a test sees the request got through."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"reached"})


async def _get(app, host_header: str | None, origin: str | None = None, token: str | None = None):
    headers = {}
    if origin is not None:
        headers["Origin"] = origin
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://x") as client:
        request = client.build_request("POST", "/mcp", headers=headers, content=b"{}")
        if host_header is None:
            del request.headers["host"]
        else:
            request.headers["host"] = host_header
        return await client.send(request)


def _error(response) -> dict:
    assert response.headers["content-type"] == "application/json"
    return json.loads(response.text)["error"]


@pytest.mark.parametrize("host", LOOPBACKS)
async def test_every_loopback_bind_refuses_a_foreign_host_and_origin(host):
    app = http_app(_reached, host, 8123, None)
    bound = f"[{host}]:8123" if ":" in host else f"{host}:8123"
    assert (await _get(app, bound)).status_code == 200
    assert (await _get(app, "localhost:8123", origin="http://localhost:8123")).status_code == 200
    for bad_host in ("evil.example", "evil.example:8123", f"{bound[:-4]}9999", "localhost", "127.0.0.1.evil:8123"):
        refused = await _get(app, bad_host)
        assert refused.status_code == 421, bad_host
        error = _error(refused)
        assert error["code"] == "authority_exceeded" and set(error) == {"code", "message", "hint", "details"}
    assert (await _get(app, None)).status_code == 421
    for bad_origin in ("http://evil.example", f"http://{bound}.evil.example", "null", f"https://evil:{8123}"):
        refused = await _get(app, bound, origin=bad_origin)
        assert refused.status_code == 403, bad_origin
        assert _error(refused)["details"]["origin"] == bad_origin


async def test_a_token_keeps_the_host_check_on_loopback_and_answers_401_in_the_error_shape():
    app = http_app(_reached, "127.0.0.2", 8123, "s3cret")
    assert (await _get(app, "127.0.0.2:8123", token="s3cret")).status_code == 200
    assert (await _get(app, "evil.example", token="s3cret")).status_code == 421
    missing = await _get(app, "127.0.0.2:8123")
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    assert _error(missing)["code"] == "authority_exceeded" and _error(missing)["hint"]


async def test_a_non_loopback_bind_behind_a_token_does_not_check_the_host():
    app = http_app(_reached, "0.0.0.0", 8123, "s3cret")
    assert (await _get(app, "my-laptop.lan:8123", token="s3cret")).status_code == 200
    assert (await _get(app, "my-laptop.lan:8123", token="nope")).status_code == 401


def test_a_token_file_readable_by_others_is_refused(tmp_path: Path, capsys):
    token_file = tmp_path / "token"
    token_file.write_text("s3cret\n", encoding="utf-8")
    token_file.chmod(0o644)
    assert main(["--http", "--host", "0.0.0.0", "--token-file", str(token_file)]) == 2
    err = capsys.readouterr().err
    assert "mode 0644" in err and f"chmod 600 {token_file}" in err


@pytest.mark.parametrize("content", ["", "   \n", "two words", "x" * 5000])
def test_a_token_that_cannot_be_sent_is_refused(tmp_path: Path, capsys, content):
    token_file = tmp_path / "token"
    token_file.write_text(content, encoding="utf-8")
    token_file.chmod(0o600)
    assert main(["--http", "--host", "0.0.0.0", "--token-file", str(token_file)]) == 2
    assert "printable ASCII" in capsys.readouterr().err


def test_token_and_token_file_together_are_refused(tmp_path: Path, capsys):
    assert main(["--http", "--token", "a", "--token-file", str(tmp_path / "t")]) == 2
    assert "not both" in capsys.readouterr().err


def _start(cwd: Path, *extra: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [PALLIUM_MCP, "--http", "--port", "0", *extra],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    lines = []
    while True:
        line = proc.stderr.readline()
        lines.append(line)
        if "serving streamable HTTP on" in line or not line:
            break
    return proc, "".join(lines)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=10)
    proc.stderr.close()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


async def test_a_real_server_on_127_0_0_2_refuses_a_rebound_request_and_serves_a_proper_one(git_repo: Path):
    proc, told = _start(git_repo, "--host", "127.0.0.2")
    try:
        url = told.strip().rsplit(" ", 1)[-1]
        port = url.rsplit(":", 1)[1].split("/")[0]
        accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with httpx2.AsyncClient() as http:
            rebound = await http.post(
                url, json=INITIALIZE, headers={**accept, "Host": "evil.example", "Origin": "http://evil.example"}
            )
            proper = await http.post(url, json=INITIALIZE, headers={**accept, "Host": f"127.0.0.2:{port}"})
    finally:
        _stop(proc)
    assert rebound.status_code == 421 and json.loads(rebound.text)["error"]["code"] == "authority_exceeded"
    assert proper.status_code == 200


def test_a_token_on_the_command_line_warns_that_ps_shows_it(git_repo: Path):
    proc, told = _start(git_repo, "--token", "s3cret")
    _stop(proc)
    assert "where `ps` shows it" in told and "--token-file" in told
    quiet, told = _start(git_repo, env={"PALLIUM_MCP_TOKEN": "s3cret"})
    _stop(quiet)
    assert "warning" not in told
