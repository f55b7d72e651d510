"""Ticks end to end with the fake provider: states, stagnation, oscillation, errors, budgets, warnings."""

import json

import pytest

from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.loops.models import NameInput, StartInput, StatusInput
from services.loops.tools import reset, start, status, stop
from tests.conftest import write
from tests.services.loops.conftest import loop_script, replies, start_loop, tick_loop

pytestmark = pytest.mark.anyio


async def _status(repo, name="work"):
    ctx = ToolContext(cwd=repo)
    try:
        return await status(StatusInput(name=name), ctx)
    finally:
        ctx.close()


async def test_each_tick_is_a_fresh_child_run_recorded_as_a_cycle(git_repo, loop_env):
    await start_loop(git_repo)
    replies(loop_env, {"state": "success", "signature": "", "summary": "all good"}, {"state": "blocked"})
    first = await tick_loop(git_repo)
    second = await tick_loop(git_repo)
    assert (first.state, first.cycle, first.summary, first.ran) == ("success", 1, "all good", True)
    assert (second.state, second.cycle) == ("blocked", 2)
    assert first.run_id != second.run_id and first.run_id.startswith("loop-work-1-")
    assert [c["prompt"] for c in loop_env.calls()] == ["cycle", "cycle"]
    seen = await _status(git_repo)
    assert [(c.cycle, c.state, c.run_id) for c in seen.cycles] == [
        (2, "blocked", second.run_id),
        (1, "success", first.run_id),
    ]
    assert seen.verdict == "ACTIVE: loop work, cycle 2; last state blocked; the next tick runs"


ECHO_ARGS = 'export const meta = {kind: "loop"};\nreturn {state: "success", summary: JSON.stringify(args)};\n'


@pytest.mark.parametrize(
    ("given", "seen"),
    [
        (None, "null"),
        ('{"path": "src"}', '{"path":"src"}'),
        ('["a", 2]', '["a",2]'),
        ('"just text"', '"just text"'),
        ("7", "7"),
    ],
)
async def test_the_script_sees_args_exactly_as_given_on_every_tick(given, seen, git_repo, loop_env):
    script = write(git_repo, "loops/echo.loop.js", ECHO_ARGS)
    ctx = ToolContext(cwd=git_repo)
    try:
        await start(StartInput(name="echo", script=str(script), args=given), ctx)
    finally:
        ctx.close()
    ticks = [await tick_loop(git_repo, "echo") for _ in range(2)]
    assert [(t.state, t.summary) for t in ticks] == [("success", seen), ("success", seen)]


async def test_a_result_without_a_state_is_an_error_and_an_empty_state_is_no_op(git_repo, loop_env):
    await start_loop(git_repo)
    replies(loop_env, {"signature": "x", "summary": "forgot"}, {"state": None}, {"state": "", "signature": "y"})
    missing, null, empty = [await tick_loop(git_repo) for _ in range(3)]
    assert (missing.state, missing.summary, missing.signature) == ("error", "forgot", None)
    assert missing.reason == (
        "the script returned an object without a state (keys: signature, summary), not {state, ...}"
    )
    assert null.state == "error" and null.reason.startswith("the script returned an object without a state")
    assert (empty.state, empty.signature, empty.stagnation_count) == ("no_op", "y", 1)


async def test_the_same_signature_stagnates_at_the_threshold_and_later_ticks_refuse_until_reset(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 3})
    replies(loop_env, *[{"state": "no_op", "signature": "A"}] * 4)
    counts = [(t.state, t.stagnation_count) for t in [await tick_loop(git_repo) for _ in range(3)]]
    assert counts == [("no_op", 1), ("no_op", 2), ("stagnated", 3)]
    refused = await tick_loop(git_repo)
    assert (refused.state, refused.ran, refused.cycle) == ("stagnated", False, None)
    assert "pallium loop reset work" in refused.reason
    assert len(loop_env.calls()) == 3
    ctx = ToolContext(cwd=git_repo)
    cleared = await reset(NameInput(name="work"), ctx)
    ctx.close()
    assert cleared.changed and cleared.loop.stagnation_count == 0 and cleared.loop.last_signature is None
    assert cleared.loop.cycle == 3
    again = await tick_loop(git_repo)
    assert (again.state, again.cycle, again.stagnation_count) == ("no_op", 4, 1)


async def test_a_new_signature_resets_the_counter(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 3})
    replies(loop_env, *[{"state": "no_op", "signature": s} for s in ("A", "A", "B", "B")])
    counts = [(await tick_loop(git_repo)).stagnation_count for _ in range(4)]
    assert counts == [1, 2, 1, 2]


async def test_an_empty_signature_opts_out_of_stagnation(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 2})
    replies(loop_env, *[{"state": "success", "signature": ""}] * 3)
    states = [(await tick_loop(git_repo)).state for _ in range(3)]
    assert states == ["success"] * 3


async def test_returning_to_an_earlier_signature_is_an_oscillation(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 5})
    replies(loop_env, *[{"state": "no_op", "signature": s} for s in ("A", "B", "A")])
    states = [(await tick_loop(git_repo)) for _ in range(3)]
    assert [t.state for t in states] == ["no_op", "no_op", "stagnated"]
    assert states[-1].reason.startswith("oscillation: signature A came back after 2 cycle(s)")


async def test_error_ticks_neither_raise_nor_reset_the_counter(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 3})
    replies(
        loop_env,
        {"state": "no_op", "signature": "A"},
        {"state": "no_op", "signature": "A"},
        {"state": "weird", "signature": "B"},
        {"state": "no_op", "signature": "A"},
    )
    ticks = [await tick_loop(git_repo) for _ in range(4)]
    assert [(t.state, t.stagnation_count) for t in ticks] == [
        ("no_op", 1),
        ("no_op", 2),
        ("error", 2),
        ("stagnated", 3),
    ]
    assert (
        ticks[2].reason
        == "the script returned unknown state 'weird' (known: success, no_op, blocked, exhausted, stagnated, error)"
    )
    assert ticks[2].signature is None


async def test_a_child_run_that_throws_or_returns_no_object_is_an_error_tick(git_repo, loop_env):
    await start_loop(git_repo)
    replies(loop_env, "just text")
    not_object = await tick_loop(git_repo)
    assert not_object.state == "error" and "not an object {state, signature, summary}" in not_object.reason
    write(git_repo, "loops/work.loop.js", 'export const meta = {kind: "loop"};\nthrow new Error("broken cycle");\n')
    thrown = await tick_loop(git_repo)
    assert thrown.state == "error" and "broken cycle" in thrown.reason and "failed" in thrown.reason


async def test_a_script_that_vanished_or_no_longer_parses_is_an_error_tick(git_repo, loop_env):
    await start_loop(git_repo)
    write(git_repo, "loops/work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "success"')
    broken = await tick_loop(git_repo)
    assert broken.state == "error" and broken.reason.startswith(
        "the workflow run was refused: invalid_input: the script is not valid"
    )
    (git_repo / "loops" / "work.loop.js").unlink()
    gone = await tick_loop(git_repo)
    assert gone.state == "error" and "no script at" in gone.reason
    assert (gone.cycle, gone.ran) == (2, True)
    seen = await _status(git_repo)
    assert "the script cannot be read" in seen.warnings[0]
    assert loop_env.calls() == []


async def test_an_edited_script_runs_with_a_warning(git_repo, loop_env):
    await start_loop(git_repo)
    replies(loop_env, {"state": "success"})
    write(git_repo, "loops/work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "no_op"};\n')
    out = await tick_loop(git_repo)
    assert out.state == "no_op"
    assert out.warnings[0].startswith("the script changed since the loop started")
    assert (await _status(git_repo)).warnings[0].startswith("the script changed")


async def test_a_cycle_over_its_budget_is_exhausted(git_repo, loop_env):
    await start_loop(git_repo, settings={"cycleBudgetUsd": 0.5})
    replies(loop_env, {"state": "success"}, cost=0.8)
    out = await tick_loop(git_repo)
    assert (out.state, out.cost_usd) == ("exhausted", 0.8)
    assert out.reason == "the cycle cost $0.8000, over the cycle budget of $0.50"


async def test_a_spent_lifetime_budget_ends_exhausted_and_refuses_later_ticks(git_repo, loop_env):
    await start_loop(git_repo, settings={"lifetimeBudgetUsd": 1.0})
    replies(loop_env, *[{"state": "success"}] * 4, cost=0.4)
    states = [(await tick_loop(git_repo)) for _ in range(4)]
    assert [(t.state, t.ran) for t in states] == [
        ("success", True),
        ("success", True),
        ("exhausted", True),
        ("exhausted", False),
    ]
    assert states[-1].lifetime_spend_usd == pytest.approx(1.2)
    assert len(loop_env.calls()) == 3
    seen = await _status(git_repo)
    assert seen.verdict.startswith("EXHAUSTED: loop work, cycle 3: spent $1.2000 of $1.00")


async def test_a_provider_without_cost_makes_the_budget_unenforceable_and_never_shows_zero(git_repo, loop_env):
    await start_loop(git_repo, settings={"cycleBudgetUsd": 0.5}, args='{"provider": "codex"}')
    loop_env.scenario({"match": "cycle", "reply": {"state": "success"}})
    out = await tick_loop(git_repo)
    assert out.state == "success" and out.unknown_cost_calls == 1
    assert "NOT enforceable" in out.warnings[-1]
    seen = await _status(git_repo)
    assert seen.budget == (
        "spend unknown: 1 agent call(s) reported no cost; budget ($0.50 a cycle) NOT enforceable: "
        "a provider reports no cost"
    )
    assert seen.loop.budget_enforceable is False and "$0.0000" not in seen.budget


async def test_failing_tests_become_a_signature_that_ignores_noise_and_follows_the_tree(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 5})
    replies(
        loop_env,
        {"state": "no_op", "failing": ["tests/test_a.py::test_x - AssertionError at /tmp/run1/a.py:12", "t::y"]},
        {"state": "no_op", "failing": ["t::y", "tests/test_a.py::test_x - AssertionError at /tmp/run2/a.py:40"]},
        {"state": "no_op", "failing": ["t::y", "tests/test_a.py::test_x - AssertionError at /tmp/run2/a.py:40"]},
    )
    first, second = await tick_loop(git_repo), await tick_loop(git_repo)
    assert first.signature == second.signature and first.signature.startswith("f2:")
    assert second.stagnation_count == 2
    write(git_repo, "src/app.py", "def main():\n    return 2\n")
    third = await tick_loop(git_repo)
    assert third.signature != second.signature and third.stagnation_count == 1
    assert third.signature.split("+")[0] == second.signature.split("+")[0]


async def test_a_stopped_or_unknown_loop_refuses_to_tick(git_repo, loop_env):
    await start_loop(git_repo)
    ctx = ToolContext(cwd=git_repo)
    stopped = await stop(NameInput(name="work"), ctx)
    again = await stop(NameInput(name="work"), ctx)
    ctx.close()
    assert (stopped.changed, again.changed, stopped.loop.status) == (True, False, "stopped")
    with pytest.raises(PalliumError) as refused:
        await tick_loop(git_repo)
    assert refused.value.code == "conflict" and refused.value.details["status"] == "stopped"
    with pytest.raises(PalliumError) as unknown:
        await tick_loop(git_repo, name="nope")
    assert unknown.value.code == "not_found"
    assert (await _status(git_repo)).verdict.startswith("STOPPED: loop work, cycle 0")
    assert loop_script(git_repo).exists() and loop_env.calls() == []


async def test_the_cycle_budget_stops_the_child_run_mid_cycle(git_repo, loop_env):
    three_calls = 'await agent("cycle 1"); await agent("cycle 2"); await agent("cycle 3"); return {state: "success"};'
    write(git_repo, "b.loop.js", 'export const meta = {kind: "loop", loop: {cycleBudgetUsd: 0.5}};\n' + three_calls)
    ctx = ToolContext(cwd=git_repo)
    await start(StartInput(name="b", script="b.loop.js"), ctx)
    ctx.close()
    loop_env.scenario({"match": "cycle", "reply": "ok", "usage": {"cost_usd": 0.3}})
    out = await tick_loop(git_repo, "b")
    assert (out.state, out.cost_usd) == ("exhausted", 0.6)
    assert [c["prompt"] for c in loop_env.calls()] == ["cycle 1", "cycle 2"]


async def test_max_cycles_caps_a_loop_even_when_cost_is_unknown(git_repo, loop_env):
    await start_loop(git_repo, settings={"maxCycles": 2}, args='{"provider": "codex"}')
    loop_env.scenario({"match": "cycle", "reply": {"state": "no_op"}})
    ticks = [await tick_loop(git_repo) for _ in range(3)]
    assert [(t.state, t.ran) for t in ticks] == [("no_op", True), ("no_op", True), ("exhausted", False)]
    assert ticks[-1].reason == "the loop has begun all 2 of its cycles (maxCycles)"
    assert len(loop_env.calls()) == 2
    assert (await _status(git_repo)).verdict.startswith("EXHAUSTED: loop work, cycle 2: all 2 cycles (maxCycles)")


async def test_zero_budgets_mean_no_limit_as_in_the_original(git_repo, loop_env):
    started = await start_loop(git_repo, settings={"cycleBudgetUsd": 0, "lifetimeBudgetUsd": 0})
    assert (started.cycle_budget_usd, started.lifetime_budget_usd) == (None, None)
    replies(loop_env, {"state": "success"}, cost=3.0)
    out = await tick_loop(git_repo)
    assert (out.state, out.ran) == ("success", True)


async def test_one_call_past_the_lifetime_cap_ends_the_cycle_exhausted_and_starts_nothing_after(git_repo, loop_env):
    two_calls = 'await agent("cycle 1"); await agent("cycle 2"); return {state: "success"};'
    write(git_repo, "c.loop.js", 'export const meta = {kind: "loop", loop: {lifetimeBudgetUsd: 1}};\n' + two_calls)
    ctx = ToolContext(cwd=git_repo)
    await start(StartInput(name="c", script="c.loop.js"), ctx)
    ctx.close()
    loop_env.scenario({"match": "cycle", "reply": "ok", "usage": {"cost_usd": 5}})
    first = await tick_loop(git_repo, "c")
    again = await tick_loop(git_repo, "c")
    assert (first.state, first.cost_usd) == ("exhausted", 5)
    assert "budget" in first.reason
    assert (again.state, again.ran) == ("exhausted", False)
    assert [c["prompt"] for c in loop_env.calls()] == ["cycle 1"]


def test_loop_start_takes_the_task_as_a_positional_and_each_tick_runs_with_it(git_repo, loop_env, capsys, monkeypatch):
    from pallium_mcp.cli import main

    write(
        git_repo,
        "t.loop.js",
        'export const meta = {kind: "loop", args: {task: "the goal"}};\n'
        'return {state: "success", summary: await agent("work on: " + args.task)};\n',
    )
    loop_env.scenario({"match": "work on", "reply": "done"})
    monkeypatch.chdir(git_repo)
    assert main(["loop", "start", "t", "--script", "t.loop.js", "tidy the parser", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["task"] == "tidy the parser"
    assert main(["loop", "tick", "t", "--json"]) == 0
    assert [c["prompt"] for c in loop_env.calls()] == ["work on: tidy the parser"]


async def test_a_failure_printed_at_another_depth_stagnates_and_one_moving_between_packages_does_not(
    git_repo, loop_env
):
    for package in ("a", "b"):
        write(git_repo, f"src/{package}/mod_test.go", "package m\n")
    await start_loop(git_repo, settings={"stagnationThreshold": 3})
    root = git_repo.as_posix()
    replies(
        loop_env,
        {"state": "no_op", "failing": ["tests/test_app.py::test_main - assert 2 == 1"]},
        {"state": "no_op", "failing": ["test_app.py::test_main - assert 2 == 1"]},  # run inside tests/
        {"state": "no_op", "failing": [f"{root}/tests/test_app.py::test_main - assert 2 == 1"]},
        {"state": "no_op", "failing": ["src/a/mod_test.go:41: want 1"]},
        {"state": "no_op", "failing": [f"{root}/src/b/mod_test.go:41: want 1"]},
    )
    ticks = [await tick_loop(git_repo) for _ in range(3)]
    assert [(t.state, t.stagnation_count) for t in ticks] == [("no_op", 1), ("no_op", 2), ("stagnated", 3)]
    await start_loop(git_repo, name="moving", settings={"stagnationThreshold": 2})
    moved = [await tick_loop(git_repo, "moving") for _ in range(2)]
    assert [(t.state, t.stagnation_count) for t in moved] == [("no_op", 1), ("no_op", 1)]
    assert moved[0].signature != moved[1].signature
