"""The server's instructions and the AGENTS.md block come from one source and name only tools the
server serves: following either never meets `not served by this server`."""

import re

import pytest
from mcp import Client

from kernel.guidance import HABITS, agents_block_body
from pallium_mcp.registry import all_tools, select_toolsets
from pallium_mcp.server import build_server
from services.adoption.agents_files import BLOCK

pytestmark = pytest.mark.anyio

TOOL_NAME = re.compile(r"\bpallium_[a-z_]+\b")


def _named(text: str) -> list[str]:
    return list(dict.fromkeys(TOOL_NAME.findall(text)))


def test_every_habit_names_a_declared_tool():
    declared = {t.name for t in all_tools()}
    assert [tool for tool, _ in HABITS if tool not in declared] == []


def test_the_agents_block_names_only_tools_the_default_server_serves():
    served = {t.name for t in select_toolsets(all_tools(), "default")}
    named = _named(BLOCK)
    assert named and [name for name in named if name not in served] == []
    assert named[0] == "pallium_route"  # route first, as the block says


@pytest.mark.parametrize(("toolsets", "ceiling"), [("default", "edit"), ("default", "observe"), ("all", "admin")])
async def test_the_server_instructions_name_only_tools_it_lists_in_the_blocks_order(git_repo, toolsets, ceiling):
    async with Client(build_server(toolsets=toolsets, ceiling=ceiling, cwd=git_repo)) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        instructions = client.instructions or ""
        named = _named(instructions)
        assert named and [name for name in named if name not in listed] == []
        for name in named[:2]:  # a named tool answers (no `not served by this server`)
            result = await client.call_tool(name, {"task": "review my change"} if name == "pallium_route" else {})
            assert "not served" not in result.content[0].text
    assert named == _named(agents_block_body(listed))  # one source, same habits, same order
    assert named[0] == "pallium_route"
