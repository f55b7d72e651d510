"""The dispatcher keeps each answer within its tool's byte budget: the tool's own trim, then the generic cut."""

from __future__ import annotations

import pytest
from pydantic import Field

from kernel import dispatch, fitting
from kernel.context import ToolContext
from kernel.models import ToolInput, ToolOutput
from kernel.tool import CONTEXT_BUDGET, SEARCH_BUDGET, Tool
from pallium_mcp.registry import all_tools

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _forget_test_tools():
    before = dict(dispatch._registered)
    yield
    dispatch._registered.clear()
    dispatch._registered.update(before)


class Inp(ToolInput):
    items: int = Field(10, description="how many items")
    text: int = Field(0, description="characters of text")
    full: bool = Field(False, description="skip the budget")


class Item(ToolOutput):
    name: str


class Out(ToolOutput):
    items: list[Item]
    text: str
    truncated: bool = False
    trimmed_by_tool: bool = False


async def _handler(inp: Inp, ctx: ToolContext) -> Out:
    return Out(items=[Item(name=f"item-{i:05d}-" + "x" * 40) for i in range(inp.items)], text="t" * inp.text)


def _tool(cli: str, **extra) -> Tool:
    tool = Tool(
        cli=cli,
        handler=_handler,
        input=Inp,
        output=Out,
        summary="A test tool.",
        description="Used by the tests of the budget.",
        authority="observe",
        toolset="test",
        **extra,
    )
    dispatch.register([tool])
    return tool


async def _call(cli: str, **arguments) -> Out:
    ctx = ToolContext()
    try:
        return await dispatch.call(cli, arguments, ctx)
    finally:
        ctx.close()


async def test_an_answer_over_budget_loses_the_tail_of_its_biggest_list_and_says_truncated():
    _tool("budget-lists")
    out = await _call("budget-lists", items=1000)
    assert fitting.size(out) <= SEARCH_BUDGET
    assert out.truncated and 1 < len(out.items) < 1000
    assert out.items[0].name.startswith("item-00000")  # the head is kept, the tail goes
    assert fitting.size(out) > SEARCH_BUDGET - 200  # not cut far below what fits


async def test_a_long_text_is_cut_with_a_marker_naming_the_flag_that_lifts_the_budget():
    _tool("budget-text", unbounded_by="full")
    out = await _call("budget-text", items=1, text=50_000)
    assert fitting.size(out) <= SEARCH_BUDGET and out.truncated
    assert "cut" in out.text and "pass `full: true` (CLI `--full`)" in out.text
    whole = await _call("budget-text", items=1, text=50_000, full=True)
    assert len(whole.text) == 50_000 and not whole.truncated


async def test_the_tools_own_trim_runs_first_on_the_finished_answer():
    seen: list[int] = []

    def trim(out: Out, inp: Inp, budget: int) -> Out:
        seen.append(fitting.size(out))
        return out.model_copy(update={"items": out.items[:3], "trimmed_by_tool": True})

    _tool("budget-trim", trim=trim, budget=CONTEXT_BUDGET)
    out = await _call("budget-trim", items=1000)
    assert out.trimmed_by_tool and len(out.items) == 3 and not out.truncated
    assert seen and seen[0] > CONTEXT_BUDGET  # it saw the whole answer
    small = await _call("budget-trim", items=3)
    assert not small.trimmed_by_tool and len(seen) == 1  # an answer within budget is left alone


async def test_a_trim_that_is_not_enough_is_finished_by_the_generic_cut():
    _tool("budget-weak-trim", trim=lambda out, inp, budget: out)
    out = await _call("budget-weak-trim", items=1000)
    assert fitting.size(out) <= SEARCH_BUDGET and out.truncated


async def test_an_unbounded_tool_is_never_cut():
    _tool("budget-none", budget=None)
    out = await _call("budget-none", items=1000)
    assert len(out.items) == 1000 and fitting.size(out) > SEARCH_BUDGET


class EchoInp(ToolInput):
    query: str = Field(description="words to look for")
    items: int = Field(100, description="how many items")


class EchoOut(ToolOutput):
    query: str
    note: str
    items: list[Item]
    truncated: bool = False


async def _echo(inp: EchoInp, ctx: ToolContext) -> EchoOut:
    return EchoOut(
        query=inp.query,
        note=f"looked for {inp.query!r} in 3 places",  # an echo inside the tool's own sentence
        items=[Item(name=f"hit-{i:03d}") for i in range(inp.items)],
    )


async def test_an_echo_of_a_long_argument_is_cut_before_any_result():
    tool = Tool(
        cli="budget-echo",
        handler=_echo,
        input=EchoInp,
        output=EchoOut,
        summary="A test tool.",
        description="Echoes its query.",
        authority="observe",
        toolset="test",
    )
    dispatch.register([tool])
    query = "parse config " + "x" * 3_000
    small = await _call("budget-echo", query=query, items=3)
    assert small.query == query  # within budget: nothing is touched
    out = await _call("budget-echo", query="parse config " + "x" * 90_000)
    assert fitting.size(out) <= SEARCH_BUDGET
    assert out.query.startswith("parse config x") and out.query.endswith("of the `query` you sent]")
    assert len(out.query) < 300 and out.note.startswith("looked for 'parse config x")
    assert out.note.endswith("you sent]' in 3 places")
    # Only the echoes shrink: the results the caller asked for stay whole.
    assert len(out.items) == 100


def test_drop_tail_returns_what_it_dropped_in_order():
    out = Out(items=[Item(name=f"n{i}" * 50) for i in range(100)], text="")
    kept, dropped = fitting.drop_tail(out, 2048, "items")
    assert fitting.size(kept) <= 2048
    assert [i.name for i in kept.items + dropped] == [i.name for i in out.items]


def test_a_budget_under_one_kilobyte_is_refused_at_declaration():
    with pytest.raises(ValueError, match="budget"):
        _tool("budget-tiny", budget=100)


def test_every_tool_declares_a_search_or_context_budget_or_none_on_purpose():
    unbounded = set()
    for tool in all_tools():
        assert tool.budget in (SEARCH_BUDGET, CONTEXT_BUDGET, None), tool.name
        if tool.budget is None:
            unbounded.add(tool.name)
        if tool.unbounded_by is not None:
            field = tool.input.model_fields.get(tool.unbounded_by)
            assert field is not None and field.annotation is bool, f"{tool.name}: {tool.unbounded_by} is no flag"
    # Tools whose answer is a script or a template, which a cut would make useless; the whole index's
    # facts, which the knowledge build reads whole; the build's list of every file it wrote; and the
    # agent guide, a manual read whole (their descriptions say so).
    assert unbounded == {
        "pallium_workflow_generate",
        "pallium_workflow_template_show",
        "pallium_facts",
        "pallium_agents_guide",
        "pallium_knowledge_build",
    }
