"""Starting loops (meta, duplicates, bad input), listing them, and every command through the CLI."""

import json

import pytest

from kernel.context import ToolContext
from kernel.errors import EX_USAGE, PalliumError
from kernel.store import open_global
from pallium_mcp.cli import main
from services.loops.lifecycle import pallium_identity
from services.loops.models import ListInput, StartInput
from services.loops.store import SCHEMA, LoopStore
from services.loops.tools import list_loops, start
from services.loops.verdict import EXIT_CODES
from tests.conftest import write
from tests.services.loops.conftest import replies, start_loop, tick_loop

pytestmark = pytest.mark.anyio


async def _start(repo, source, name="work", **extra):
    write(repo, "loops/x.loop.js", source)
    ctx = ToolContext(cwd=repo)
    try:
        return await start(StartInput(name=name, script="loops/x.loop.js", **extra), ctx)
    finally:
        ctx.close()


async def test_start_records_the_meta_the_script_hash_and_pallium_version(git_repo):
    loop = await start_loop(
        git_repo,
        settings={
            "stagnationThreshold": 4,
            "cycleBudgetUsd": 0.5,
            "lifetimeBudgetUsd": 3,
            "staleAfterMinutes": 20,
            "maxCycles": 40,
        },
        args='{"path": "src"}',
    )
    assert (loop.name, loop.status, loop.cycle, loop.stagnation_threshold) == ("work", "active", 0, 4)
    assert (loop.cycle_budget_usd, loop.lifetime_budget_usd, loop.stale_after_minutes) == (0.5, 3.0, 20.0)
    assert loop.max_cycles == 40
    assert loop.script_path == str(git_repo / "loops" / "work.loop.js")
    assert loop.cwd == str(git_repo) and loop.args == '{"path": "src"}'
    assert loop.started_version == pallium_identity() and len(loop.started_script_hash) == 64
    assert loop.budget_enforceable is True and loop.tick_in_flight is False


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("return {state: 'success'};", "the script has no meta"),
        ("export const meta = {name: 'x'};\nreturn 1;", "meta.kind is missing;"),
        ("export const meta = {kind: 'workflow'};\nreturn 1;", 'meta.kind is "workflow", not "loop"'),
        ("export const meta = {kind: 'loop', loop: {lifetimeBudgetUsd: true}};\nreturn 1;", "no limit, not true"),
        ("export const meta = {kind: 'loop', loop: {stagnationThreshold: true}};\nreturn 1;", "1000, not true"),
        ("export const meta = {kind: 'loop', loop: {cycleBudget: 1}};\nreturn 1;", "unknown field(s) cycleBudget"),
        ("export const meta = {kind: 'loop', loop: {stagnationThreshold: 0}};\nreturn 1;", "from 1 to 1000"),
        ("export const meta = {kind: 'loop', loop: {cycleBudgetUsd: -1}};\nreturn 1;", "positive number"),
        ("export const meta = {kind: 'loop', loop: {maxCycles: 1.5}};\nreturn 1;", "maxCycles must be a whole number"),
        ("export const meta = {kind: 'loop'};\nreturn Date.now();", "the loop script is not valid"),
    ],
)
async def test_a_missing_or_wrong_meta_is_a_clear_error(git_repo, source, says):
    with pytest.raises(PalliumError) as refused:
        await _start(git_repo, source)
    assert refused.value.code == "invalid_input" and refused.value.details["field"] == "script"
    assert says in refused.value.message
    assert "None" not in refused.value.message and "True" not in refused.value.message  # never a Python value


async def test_bad_start_input_is_refused_and_a_duplicate_name_too(git_repo, tmp_path):
    good = "export const meta = {kind: 'loop'};\nreturn {state: 'success'};"
    with pytest.raises(PalliumError) as not_json:
        await _start(git_repo, good, args="{nope")
    assert not_json.value.details["field"] == "args"
    outside = tmp_path / "outside.loop.js"
    outside.write_text(good, encoding="utf-8")
    with pytest.raises(PalliumError) as escaped:
        await start(StartInput(name="work", script=str(outside)), ToolContext(cwd=git_repo))
    assert escaped.value.details["field"] == "script"
    with pytest.raises(PalliumError) as missing:
        await start(StartInput(name="work", script="nope.js"), ToolContext(cwd=git_repo))
    assert missing.value.code == "not_found"
    await _start(git_repo, good)
    with pytest.raises(PalliumError) as taken:
        await _start(git_repo, good)
    assert taken.value.code == "conflict" and taken.value.details["field"] == "name"


async def test_cwd_chooses_the_folder_the_loop_works_in_and_the_script_stays_relative_to_the_caller(git_repo, loop_env):
    write(git_repo, "loops/work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "success"};\n')
    (git_repo / "src").mkdir(exist_ok=True)
    ctx = ToolContext(cwd=git_repo)
    try:
        loop = await start(StartInput(name="work", script="loops/work.loop.js", cwd="src"), ctx)
    finally:
        ctx.close()
    assert loop.cwd == str((git_repo / "src").resolve())
    assert loop.script_path == str(git_repo / "loops" / "work.loop.js")
    ticked = await tick_loop(git_repo)
    assert (ticked.state, ticked.cycle) == ("success", 1)


async def test_a_cwd_outside_any_repository_or_not_a_folder_is_refused_naming_cwd(git_repo, tmp_path):
    script = write(git_repo, "loops/work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "success"};\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    a_file = write(tmp_path, "a-file", "x")
    ctx = ToolContext(cwd=git_repo)
    try:
        with pytest.raises(PalliumError) as outside:
            await start(StartInput(name="work", script=str(script), cwd=str(elsewhere)), ctx)
        with pytest.raises(PalliumError) as not_folder:
            await start(StartInput(name="work", script=str(script), cwd=str(a_file)), ctx)
    finally:
        ctx.close()
    assert outside.value.code == "invalid_input"
    assert outside.value.details == {"path": str(elsewhere.resolve()), "field": "cwd"}
    assert outside.value.hint == "run the command from inside a repository, or pass --cwd PATH"
    assert (not_folder.value.code, not_folder.value.details["field"]) == ("invalid_input", "cwd")


async def test_list_pages_by_name(git_repo):
    for name in ("c", "a", "b"):
        await start_loop(git_repo, name=name)
    ctx = ToolContext(cwd=git_repo)
    first = await list_loops(ListInput(limit=2), ctx)
    rest = await list_loops(ListInput(limit=2, cursor=first.next_cursor), ctx)
    ctx.close()
    assert [lp.name for lp in first.loops] == ["a", "b"] and first.truncated and first.next_cursor == "b"
    assert [lp.name for lp in rest.loops] == ["c"] and not rest.truncated


def test_each_tick_state_is_its_own_cli_exit_code(git_repo, loop_env, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    write(git_repo, "loops/work.loop.js", 'export const meta = {kind: "loop"};\nreturn await agent("cycle");\n')
    assert main(["loop", "start", "work", "--script", "loops/work.loop.js"]) == 0
    assert capsys.readouterr().out.startswith("loop work: active, cycle 0, threshold 3")
    answers = {
        "success": {"state": "success"},
        "error": {"state": "nope"},
        "no_op": {"state": "no_op", "signature": "A"},
        "blocked": {"state": "blocked", "summary": "needs a key"},
        "stagnated": {"state": "stagnated", "summary": "the script says so"},
    }
    replies(loop_env, *answers.values())
    codes = {}
    for state in answers:
        codes[state] = main(["loop", "tick", "work"])
        assert capsys.readouterr().out.startswith(f"{state}: loop work cycle")
    assert codes == {"success": 0, "error": 1, "no_op": 2, "blocked": 3, "stagnated": 5}
    assert main(["loop", "reset", "work"]) == 0
    assert capsys.readouterr().out == "loop work: active, stagnation 0 (changed)\n"
    with open_global([SCHEMA]) as db:
        LoopStore(db).take_lease(
            "work",
            seen_token=None,
            seen_cycle=5,
            token="t",
            owner={"pid": 1, "host": "far"},
            run_id="r",
            now="2099-01-01T00:00:00Z",
        )
    assert main(["loop", "tick", "work"]) == 6
    assert capsys.readouterr().out.startswith("already_running: loop work (nothing ran)")
    assert main(["loop", "status", "work", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [c["state"] for c in shown["cycles"]][:3] == ["running", "stagnated", "blocked"]
    assert main(["loop", "list"]) == 0
    assert capsys.readouterr().out.startswith("work ")
    assert main(["loop", "stop", "work"]) == 0
    assert main(["loop", "tick", "work"]) == 1
    assert "is stopped" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["loop", "tick"],
        ["loop", "tick", "work", "--agent-timout", "5"],
        ["loop", "tick", "work", "--agent-timeout", "-1"],
        ["loop", "tikc", "work"],
    ],
    ids=["no name", "misspelt flag", "bad value", "misspelt command"],
)
def test_a_misspelt_tick_line_exits_apart_from_every_tick_state(argv, git_repo, loop_env, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    write(git_repo, "loops/work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "no_op"};\n')
    assert main(["loop", "start", "work", "--script", "loops/work.loop.js"]) == 0
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == EX_USAGE == 64 and code not in EXIT_CODES.values()
    assert err.startswith("error: ")
    assert main(["loop", "status", "work", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["loop"]["cycle"] == 0


def test_bad_input_outside_the_loop_group_still_exits_two(git_repo, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    assert main(["changed-now", "--limit", "0"]) == 2
    assert main(["lop", "tick", "work"]) == 2  # not recognisably a loop line: the house's usage code


def test_a_cycle_over_budget_exits_four(git_repo, loop_env, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    write(
        git_repo,
        "w.loop.js",
        'export const meta = {kind: "loop", loop: {cycleBudgetUsd: 0.1}};\nreturn await agent("cycle");\n',
    )
    assert main(["loop", "start", "w", "--script", "w.loop.js"]) == 0
    replies(loop_env, {"state": "success"}, cost=0.2)
    assert main(["loop", "tick", "w"]) == 4
    assert "over the cycle budget of $0.10" in capsys.readouterr().out


def test_the_cli_never_shows_zero_dollars_for_calls_of_unknown_cost(git_repo, loop_env, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    write(
        git_repo,
        "w.loop.js",
        'export const meta = {kind: "loop"};\nreturn await agent("cycle", {provider: "codex"});\n',
    )
    assert main(["loop", "start", "w", "--script", "w.loop.js"]) == 0
    loop_env.scenario({"match": "cycle", "reply": {"state": "success"}})
    assert main(["loop", "tick", "w"]) == 0
    assert main(["loop", "status", "w"]) == 0
    shown = capsys.readouterr().out
    assert "cost unknown (1 call(s) reported no cost)" in shown
    assert "budget: spend unknown: 1 agent call(s) reported no cost; no budget set" in shown
    assert "$0.0000" not in shown
