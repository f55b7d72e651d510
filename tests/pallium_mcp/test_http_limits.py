"""HTTP limits: a client that never finishes its headers is cut off, and an abandoned session is reaped."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.pallium_mcp.test_http_security import INITIALIZE, _start, _stop


def _port(banner: str) -> int:
    return int(banner.rsplit(":", 1)[1].split("/")[0])


def test_half_open_requests_are_closed_before_any_check(git_repo: Path):
    proc, banner = _start(git_repo, env={"PALLIUM_MCP_HEADER_TIMEOUT": "1"})
    try:
        port = _port(banner)
        held = []
        for _ in range(40):
            conn = socket.create_connection(("127.0.0.1", port), timeout=10)
            conn.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
            held.append(conn)
        time.sleep(2.5)
        closed = 0
        for conn in held:
            conn.settimeout(1.0)
            try:
                closed += conn.recv(1024) == b""
            except TimeoutError:  # still held open by the server
                pass
            except OSError:  # reset: closed
                closed += 1
            conn.close()
        assert closed == len(held)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health-of-nothing", timeout=10) as answer:
            raise AssertionError(f"unexpected {answer.status}")
    except urllib.error.HTTPError as refused:  # still answering: a 404 for a path it does not serve
        assert refused.code in (404, 405)
    finally:
        _stop(proc)


def _post(port: int, body: dict, session: str | None = None) -> tuple[int, dict[str, str]]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-06-18"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            answer.read()
            return answer.status, dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


def test_an_abandoned_session_is_reaped(git_repo: Path):
    proc, banner = _start(git_repo, env={"PALLIUM_MCP_SESSION_IDLE": "1"})
    try:
        port = _port(banner)
        status, headers = _post(port, INITIALIZE)
        session = headers.get("mcp-session-id") or headers.get("Mcp-Session-Id")
        assert status == 200 and session
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert _post(port, ping, session)[0] in (200, 202)
        time.sleep(3)
        assert _post(port, ping, session)[0] == 404  # reaped: the session is gone
    finally:
        _stop(proc)
