"""The annotation rule of docs/tools.md ("How the annotations are decided"), applied to every tool, and
what the MCP server publishes follows it."""

from pathlib import Path

import pytest
from mcp import Client

from kernel.authority import LEVELS
from pallium_mcp.registry import all_tools
from pallium_mcp.server import build_server

pytestmark = pytest.mark.anyio

TOOLS = all_tools()
# Input fields that hand the call to other tools (route's `execute`): any level, up to the ceiling.
RUNS_OTHER_TOOLS = ("execute",)


def highest_level(tool) -> str:
    """The most any call of `tool` can need: its level, an escalation, or the ceiling for one that runs others."""
    if any(name in tool.input.model_fields for name in RUNS_OTHER_TOOLS):
        return LEVELS[-1]
    levels = [tool.authority] + ([tool.escalation[1]] if tool.escalation else [])
    return max(levels, key=LEVELS.index)


def spending_arguments(tool) -> list[str]:
    """Arguments that raise a call to `consult` or more (it may then start a model): the rule's open-world cue."""
    named = [name for name in RUNS_OTHER_TOOLS if name in tool.input.model_fields]
    if tool.escalation and tool.escalation[1] == "consult":
        named.append(tool.escalation[0])
    return named


def test_the_rule_is_written_in_the_tool_reference():
    text = (Path(__file__).resolve().parents[2] / "docs" / "tools.md").read_text(encoding="utf-8")
    assert "How the annotations are decided" in text and "readOnlyHint" in text and "openWorldHint" in text


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_read_only_exactly_when_no_call_can_need_more_than_observe(tool):
    assert tool.annotations.read_only == (highest_level(tool) == "observe"), highest_level(tool)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_open_world_only_where_a_call_can_spend_and_wherever_an_argument_makes_it(tool):
    if tool.annotations.open_world:
        assert highest_level(tool) != "observe", "a call that needs only observe never spends"
    for argument in spending_arguments(tool):
        assert tool.annotations.open_world, f"`{argument}` lets a call start a model"


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_a_destructive_tool_is_never_read_only(tool):
    assert not (tool.annotations.destructive and tool.annotations.read_only)


async def test_the_server_publishes_the_rules_answer(git_repo):
    declared = {t.name: t.annotations for t in TOOLS}
    async with Client(build_server(toolsets="all", ceiling="admin", cwd=git_repo)) as client:
        listed = (await client.list_tools()).tools
    assert len(listed) == len(TOOLS)
    for tool in listed:
        want = declared[tool.name]
        got = tool.annotations
        assert (got.read_only_hint, got.open_world_hint, got.destructive_hint) == (
            want.read_only,
            want.open_world,
            want.destructive,
        ), tool.name
