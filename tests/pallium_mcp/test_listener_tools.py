"""A listener an agent can open: over MCP, serve returns its URL at once, maintain takes one step.

No call may stop the MCP server: a port in use is that call's error, a LAN address is refused over
MCP, and a handler that raises SystemExit or KeyboardInterrupt fails only its own call.
"""

from __future__ import annotations

import json
import socket
import urllib.request
from pathlib import Path

import anyio
import pytest
from mcp import Client

from kernel import dispatch
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.models import ToolInput, ToolOutput
from kernel.tool import Tool
from pallium_mcp.server import build_server
from services.knowledge import serve_background

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_sites_left():
    yield
    serve_background.stop_all()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_serve_over_mcp_returns_a_loopback_url_that_answers(git_repo: Path):
    port = free_port()
    async with Client(build_server(toolsets="all", cwd=git_repo)) as client:
        with anyio.fail_after(30):
            result = await client.call_tool("pallium_knowledge_serve", {"port": port})
        assert not result.is_error, result.content[0].text
        answer = json.loads(result.content[0].text)
        assert answer["url"] == f"http://127.0.0.1:{port}/" and answer["background"] is True
        assert 0 < answer["stops_in_seconds"] <= serve_background.MAX_SECONDS
        page = await anyio.to_thread.run_sync(lambda: urllib.request.urlopen(answer["url"], timeout=10).read())
        assert b"<html" in page.lower()
        again = await client.call_tool("pallium_knowledge_serve", {"port": 0})
        assert json.loads(again.content[0].text)["url"] == answer["url"]  # one site per repository
        alive = await client.call_tool("pallium_version", {})
        assert not alive.is_error


async def test_a_port_in_use_is_an_error_of_that_call_and_the_server_stays_up(git_repo: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        async with Client(build_server(toolsets="all", cwd=git_repo)) as client:
            with anyio.fail_after(30):
                result = await client.call_tool("pallium_knowledge_serve", {"port": port})
            assert result.is_error
            error = json.loads(result.content[0].text)["error"]
            assert error["code"] == "conflict" and error["details"]["port"] == port
            alive = await client.call_tool("pallium_version", {})
            assert not alive.is_error


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
async def test_a_lan_bind_is_refused_over_mcp_even_with_a_token(git_repo: Path, host: str):
    async with Client(build_server(toolsets="all", ceiling="admin", cwd=git_repo)) as client:
        result = await client.call_tool("pallium_knowledge_serve", {"host": host, "token": "chosen-by-the-agent"})
        assert result.is_error
        assert json.loads(result.content[0].text)["error"]["code"] == "authority_exceeded"
    assert serve_background.running(git_repo.resolve()) is None


async def test_a_lan_bind_on_the_cli_needs_admin(git_repo: Path):
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    with pytest.raises(PalliumError) as refused:
        await dispatch.call("pallium_knowledge_serve", {"host": "0.0.0.0", "token": "t"}, ctx)
    assert refused.value.code == "authority_exceeded"


async def test_maintain_run_over_mcp_takes_one_step_and_returns(git_repo: Path):
    async with Client(build_server(toolsets="all", ceiling="admin", cwd=git_repo)) as client:
        for arguments in ({}, {"repo": str(git_repo)}, {"poll_seconds": 0.1}, {"once": False}):
            with anyio.fail_after(60):
                result = await client.call_tool("pallium_knowledge_maintain_run", arguments)
            assert not result.is_error, result.content[0].text
            assert "steps" in json.loads(result.content[0].text)


class _In(ToolInput):
    what: str = "exit"


class _Out(ToolOutput):
    ok: bool


async def _ends_the_process(inp: _In, ctx: ToolContext) -> _Out:
    if inp.what == "exit":
        raise SystemExit(3)
    raise KeyboardInterrupt


async def test_system_exit_and_keyboard_interrupt_fail_only_their_call(git_repo: Path):
    tool = Tool(
        cli="zz ends process",
        handler=_ends_the_process,
        input=_In,
        output=_Out,
        summary="A handler that tries to end the process.",
        description="Test only.",
        authority="observe",
        toolset="core",
    )
    dispatch.register([tool])
    ctx = ToolContext(cwd=git_repo)
    for what, code in (("exit", "internal"), ("interrupt", "unavailable")):
        with pytest.raises(PalliumError) as failed:
            await dispatch.call(tool.name, {"what": what}, ctx)
        assert failed.value.code == code
    assert (await dispatch.call("pallium_version", {}, ctx)) is not None
