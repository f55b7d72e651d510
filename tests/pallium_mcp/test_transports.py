"""`pallium-mcp` as a real program: stdio with raw JSON-RPC and the SDK client, and streamable HTTP."""

import json
import os
import subprocess
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.types import LATEST_PROTOCOL_VERSION

from tests.conftest import script

pytestmark = pytest.mark.anyio

PALLIUM_MCP = script("pallium-mcp")
PALLIUM = script("pallium")


def _rpc(proc: subprocess.Popen, message: dict) -> dict:
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == message["id"]:
            return reply


def test_stdio_answers_initialize_at_2025_06_18_then_lists_and_calls(git_repo: Path):
    proc = subprocess.Popen(
        [PALLIUM_MCP],
        cwd=git_repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        init = _rpc(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw-test", "version": "1"},
                },
            },
        )
        assert init["result"]["protocolVersion"] == "2025-06-18"
        assert init["result"]["serverInfo"]["name"] == "pallium"
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        listed = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        names = {t["name"] for t in listed["result"]["tools"]}
        assert {"pallium_changed_now", "pallium_explain", "pallium_search"} <= names
        called = _rpc(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "pallium_changed_now", "arguments": {}},
            },
        )
        assert called["result"]["isError"] is False
        assert called["result"]["structuredContent"]["repo"] == str(git_repo.resolve())
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0


async def test_stdio_negotiates_the_newest_protocol_the_sdk_knows(git_repo: Path):
    # The SDK passes a server only a few safe variables; the test's PALLIUM_HOME must go too, or
    # the server would read the user's real ~/.pallium.
    env = {**get_default_environment(), "PALLIUM_HOME": os.environ["PALLIUM_HOME"]}
    params = StdioServerParameters(command=PALLIUM_MCP, args=["--toolsets", "all"], cwd=str(git_repo), env=env)
    with anyio.fail_after(30):
        async with Client(params) as client:
            assert client.protocol_version == LATEST_PROTOCOL_VERSION
            names = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool("pallium_version", {})
    assert "pallium_db_reset" in names
    assert result.structured_content["python"]


def _start_http(cwd: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [PALLIUM, "mcp", "serve", "--http", "--port", "0", *extra],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stderr.readline()
    while line.startswith("pallium-mcp: warning:"):  # --token warns that `ps` shows it
        line = proc.stderr.readline()
    assert "serving streamable HTTP on" in line, line
    return proc, line.strip().rsplit(" ", 1)[-1]


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    proc.stdout.close()
    proc.stderr.close()


async def test_streamable_http_on_loopback_lists_and_calls(git_repo: Path):
    proc, url = _start_http(git_repo)
    try:
        assert url.startswith("http://127.0.0.1:")
        with anyio.fail_after(30):
            async with Client(url) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                result = await client.call_tool("pallium_changed_now", {})
        assert "pallium_changed_now" in names
        assert result.structured_content["branch"] == "main"
    finally:
        _stop(proc)


async def test_http_with_a_token_rejects_requests_without_it(git_repo: Path):
    proc, url = _start_http(git_repo, "--token", "s3cret")
    try:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as http:
            missing = await http.post(url, json=body, headers=headers)
            wrong = await http.post(url, json=body, headers={**headers, "Authorization": "Bearer nope"})
            right = await http.post(url, json=body, headers={**headers, "Authorization": "Bearer s3cret"})
        assert missing.status_code == 401
        assert wrong.status_code == 401
        assert right.status_code == 200
    finally:
        _stop(proc)


def test_non_loopback_bind_without_a_token_is_refused(git_repo: Path):
    done = subprocess.run(
        [PALLIUM, "mcp", "serve", "--http", "--host", "0.0.0.0", "--port", "0"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "without a bearer token" in done.stderr
