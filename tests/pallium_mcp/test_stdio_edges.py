"""Over stdio every line gets an answer: a lone surrogate escape, 5,000-deep nesting, a JSON batch and
plain garbage are JSON-RPC errors (as HTTP answers 400 with -32700), and the server answers on."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import script

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
SURROGATE = (
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"pallium_version","arguments":{"x":"\\ud800"}}}'
)
CASES = [
    ("lone surrogate", SURROGATE, -32600, 7),
    ("deep nesting", "[" * 5000 + "]" * 5000, -32700, None),
    ("batch", json.dumps([{"jsonrpc": "2.0", "id": 8, "method": "ping"}]), -32600, None),
    ("garbage", "not json at all", -32700, None),
    ("deep object", '{"a":' * 5000 + "1" + "}" * 5000, -32700, None),
]


@pytest.mark.parametrize(("name", "line", "code", "request_id"), CASES, ids=[c[0] for c in CASES])
def test_an_unreadable_line_gets_an_error_and_the_server_answers_on(git_repo: Path, name, line, code, request_id):
    server = subprocess.Popen(
        [script("pallium-mcp")],
        cwd=git_repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert server.stdin is not None and server.stdout is not None

    def send(text: str) -> None:
        server.stdin.write(text.encode("utf-8") + b"\n")
        server.stdin.flush()

    try:
        send(json.dumps(INITIALIZE))
        assert json.loads(server.stdout.readline())["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(line)
        answer = json.loads(server.stdout.readline())
        assert answer["error"]["code"] == code and answer["id"] == request_id, answer
        send(json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        assert json.loads(server.stdout.readline()) == {"jsonrpc": "2.0", "id": 9, "result": {}}
    finally:
        server.stdin.close()
        server.wait(timeout=30)
        server.stdout.close()
