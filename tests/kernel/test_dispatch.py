"""The dispatcher: the single path by which every tool is called."""

from pathlib import Path

import pytest
from pydantic import Field

from kernel import dispatch
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.models import ToolInput, ToolOutput
from kernel.tool import Tool

pytestmark = pytest.mark.anyio


class EchoInput(ToolInput):
    text: str = Field(description="what to echo")
    times: int = Field(1, ge=1, le=3, description="repetitions")
    confirm: bool = Field(False, description="act for real")


class EchoOutput(ToolOutput):
    text: str


def _echo_tool(cli: str, authority: str, calls: list[str], **extra) -> Tool:
    async def echo(inp: EchoInput, ctx: ToolContext) -> EchoOutput:
        calls.append(inp.text)
        if inp.text == "crash":
            raise ZeroDivisionError("division by zero")
        return EchoOutput(text=inp.text * inp.times)

    tool = Tool(
        cli=cli,
        handler=echo,
        input=EchoInput,
        output=EchoOutput,
        summary="Echo.",
        description="Echo for dispatcher tests.",
        authority=authority,
        toolset="test",
        **extra,
    )
    dispatch.register([tool])
    return tool


async def test_call_within_ceiling_runs_the_handler(tmp_path: Path):
    calls: list[str] = []
    _echo_tool("test echo", "consult", calls)
    out = await dispatch.call("pallium_test_echo", {"text": "ab", "times": 2}, ToolContext(ceiling="edit"))
    assert out == EchoOutput(text="abab")
    assert calls == ["ab"]


async def test_call_above_ceiling_is_refused_with_needed_level_and_runs_nothing():
    calls: list[str] = []
    _echo_tool("test echo admin", "admin", calls)
    with pytest.raises(PalliumError) as raised:
        await dispatch.call("pallium_test_echo_admin", {"text": "x"}, ToolContext(ceiling="edit"))
    assert raised.value.code == "authority_exceeded"
    assert raised.value.details == {"tool": "pallium_test_echo_admin", "needed": "admin", "ceiling": "edit"}
    assert calls == []


async def test_escalating_field_needs_the_higher_level():
    calls: list[str] = []
    _echo_tool("test echo escalate", "observe", calls, escalation=("confirm", "admin"))
    ctx = ToolContext(ceiling="observe")
    assert (await dispatch.call("pallium_test_echo_escalate", {"text": "p"}, ctx)).text == "p"
    with pytest.raises(PalliumError) as raised:
        await dispatch.call("pallium_test_echo_escalate", {"text": "q", "confirm": True}, ctx)
    assert raised.value.details["needed"] == "admin"
    assert calls == ["p"]


async def test_invalid_argument_names_the_field():
    _echo_tool("test echo invalid", "observe", [])
    with pytest.raises(PalliumError) as raised:
        await dispatch.call("pallium_test_echo_invalid", {"text": "x", "times": 9}, ToolContext())
    assert raised.value.code == "invalid_input"
    assert raised.value.details["field"] == "times"


async def test_misspelt_argument_is_refused_not_ignored():
    _echo_tool("test echo extra", "observe", [])
    with pytest.raises(PalliumError) as raised:
        await dispatch.call("pallium_test_echo_extra", {"text": "x", "tmies": 2}, ToolContext())
    assert raised.value.details["field"] == "tmies"


async def test_unknown_tool_suggests_the_closest_name():
    with pytest.raises(PalliumError) as raised:
        await dispatch.call("pallium_changed_nwo", {}, ToolContext())
    assert raised.value.code == "not_found"
    assert raised.value.details["suggestion"] == "pallium_changed_now"


async def test_handler_crash_becomes_an_internal_error():
    _echo_tool("test echo crash", "observe", [])
    with pytest.raises(PalliumError) as raised:
        await dispatch.call("pallium_test_echo_crash", {"text": "crash"}, ToolContext())
    assert raised.value.code == "internal"
    assert raised.value.details["exception"] == "ZeroDivisionError"


async def test_cli_words_find_the_same_tool_through_the_manifest():
    assert dispatch.find("changed-now").name == "pallium_changed_now"
    assert dispatch.find("db reset").name == "pallium_db_reset"


async def test_service_calls_go_through_the_dispatcher_with_the_same_ceiling(git_repo: Path):
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    out = await ctx.call("pallium_changed_now", {})
    assert out.counts.total == 0
    with pytest.raises(PalliumError) as raised:
        await ctx.call("pallium_db_reset", {"confirm": True})
    assert raised.value.code == "authority_exceeded"
