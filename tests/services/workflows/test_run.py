"""Workflow runs end to end: the engine, the kernel's Run and the fake provider, on real repositories."""

import json
from pathlib import Path

import pytest

from kernel.context import ToolContext
from kernel.errors import PalliumError
from pallium_mcp.cli import main
from services.workflows.models import ResumeInput, RunInput, RunRefInput
from services.workflows.tools import apply, resume, revert, run, status
from tests.conftest import git, trusted, write

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def ctx_for(repo: Path, ceiling: str = "edit") -> ToolContext:
    return ToolContext(ceiling=ceiling, cwd=repo)


async def _run(repo: Path, source: str, **extra):
    ctx = ctx_for(repo, extra.pop("ceiling", "edit"))
    try:
        return await run(RunInput(task=extra.pop("task", "test"), source=source, **extra), ctx)
    finally:
        ctx.close()


REVIEW = """export const meta = {name: "review", phases: ["look"]};
phase("look");
const found = await parallel(["a.py", "bad.py", "c.py"], (f) => agent(`review ${f}`, {label: f}));
return found;
"""


async def test_a_run_fans_out_agents_and_records_failures_as_null(git_repo, fake):
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "review", "reply": {"issues": 0}})
    out = await _run(git_repo, REVIEW, id="review-1")
    assert out.status == "completed"
    assert out.result == [{"issues": 0}, None, {"issues": 0}]
    assert [(f.primitive, f.index, f.phase) for f in out.failures] == [("parallel", 1, "look")]
    assert out.agents.model_dump() == {"total": 3, "succeeded": 2, "failed": 1, "replayed": 0}
    assert out.verdict.startswith("VERDICT: NOT FINISHED (completed) — 2/3 agents complete; 1 agent failed")
    assert out.ok is False  # one failed agent and no ok claim: not a success (docs/workflows.md)
    assert sorted(c["prompt"] for c in fake.calls()) == ["review a.py", "review bad.py", "review c.py"]


async def test_resume_replays_completed_calls_without_calling_the_provider(git_repo, fake):
    fake.scenario({"match": "second", "exit": 1, "times": 1}, {"match": "", "reply": "ok"})
    source = 'const a = await agent("first"); const b = await agent("second"); return [a, b];'
    failed = await _run(git_repo, source, id="resume-1")
    assert failed.status == "failed" and "second" in failed.error
    ctx = ctx_for(git_repo)
    resumed = await resume(ResumeInput(run_id="resume"), ctx)
    ctx.close()
    assert resumed.status == "completed" and resumed.result == ["ok", "ok"]
    assert resumed.replayed_calls == 1 and resumed.live_calls == 1
    assert [c["prompt"] for c in fake.calls()] == ["first", "second", "second"]
    assert resumed.attempts == 2 and resumed.script_changed is False


async def test_an_edited_script_tail_runs_only_the_new_calls(git_repo, fake, tmp_path):
    fake.scenario({"match": "", "reply": "ok"})
    first = write(git_repo, "flows/plan.js", 'await agent("one"); throw new Error("stop here");')
    ctx = ctx_for(git_repo)
    await run(RunInput(task="t", script=str(first), id="edit-1"), ctx)
    write(git_repo, "flows/plan.js", 'await agent("one"); return await agent("two");')
    resumed = await resume(ResumeInput(run_id="edit-1", script=str(first)), ctx)
    ctx.close()
    assert resumed.status == "completed" and resumed.result == "ok"
    assert resumed.script_changed is True
    assert [c["prompt"] for c in fake.calls()] == ["one", "two"]


async def test_a_gate_verdict_is_kept_and_a_denial_fails_the_run(git_repo, fake):
    fake.scenario(
        {"match": "ship it", "reply": {"approved": True, "reason": "tests pass", "evidence": ["ci"]}},
        {"match": "risky", "reply": {"approved": False, "reason": "no tests", "evidence": []}},
    )
    approved = await _run(git_repo, 'return await gate("release", "ship it?");', id="gate-1")
    assert approved.result["approved"] is True and approved.result["reason"] == "tests pass"
    denied = await _run(git_repo, 'await gate("risky-change", "risky?"); return "unreachable";', id="gate-2")
    assert denied.status == "failed" and "denied: no tests" in denied.error
    soft = await _run(git_repo, 'return await gate("soft", "risky too", {fail_on_deny: false});', id="gate-3")
    assert soft.result["approved"] is False


async def test_edit_agents_stage_patches_that_apply_and_revert_only_when_asked(git_repo, fake):
    fake.scenario({"match": "fix", "write": {"src/app.py": "def main():\n    return 2\n"}, "reply": "fixed"})
    out = await _run(git_repo, 'return await agent("fix main", {mode: "edit"});', id="edit-run")
    assert out.status == "completed"
    assert [p.state for p in out.patches] == ["staged"]
    assert (git_repo / "src" / "app.py").read_text(encoding="utf-8") == "def main():\n    return 1\n"
    applied = await apply(RunRefInput(run_id="edit-run"), ctx_for(git_repo))
    assert len(applied.applied) == 1
    assert (git_repo / "src" / "app.py").read_text(encoding="utf-8") == "def main():\n    return 2\n"
    again = await apply(RunRefInput(run_id="edit-run"), ctx_for(git_repo))
    assert again.applied == [] and len(again.already) == 1
    await revert(RunRefInput(run_id="edit-run"), ctx_for(git_repo, "admin"))
    assert (git_repo / "src" / "app.py").read_text(encoding="utf-8") == "def main():\n    return 1\n"
    assert git(git_repo, "status", "--porcelain") == ""


async def test_an_edit_agent_needs_edit_authority(git_repo, fake):
    out = await _run(git_repo, 'return await agent("fix", {mode: "edit"});', id="consult-run", ceiling="consult")
    assert out.status == "failed" and "authority" in out.error
    assert fake.calls() == []


async def test_pallium_helpers_go_through_the_dispatcher(git_repo):
    write(git_repo, "new.txt", "x\n")
    out = await _run(git_repo, "const c = await pallium.changedNow(); return c.counts.untracked;", id="helper")
    assert out.result == 1


async def test_bad_input_is_refused_before_anything_runs(git_repo, fake):
    with pytest.raises(PalliumError) as not_json:
        await _run(git_repo, "return 1;", args="{nope")
    assert not_json.value.details["field"] == "args"
    with pytest.raises(PalliumError) as invalid:
        await _run(git_repo, "return Date.now();")
    assert invalid.value.details["field"] == "script"
    await _run(git_repo, "return 1;", id="taken")
    with pytest.raises(PalliumError) as taken:
        await _run(git_repo, "return 2;", id="taken")
    assert taken.value.code == "conflict"
    with pytest.raises(PalliumError) as unknown:
        await status(RunRefInput(run_id="nope"), ctx_for(git_repo))
    assert unknown.value.code == "not_found"
    assert fake.calls() == []


def test_cli_run_status_and_list(git_repo, capsys, monkeypatch, fake):
    fake.scenario({"match": "", "reply": {"n": 1}})
    monkeypatch.chdir(git_repo)
    code = main(
        [
            "workflow",
            "run",
            "count things",
            "--source",
            "return await agent('count');",
            "--id",
            "cli-1",
            "--args",
            '{"k": 1}',
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("VERDICT: FINISHED (completed) — 1/1 agents complete")
    assert main(["workflow", "status", "cli", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == {"n": 1}
    assert main(["workflow", "list"]) == 0
    assert "cli-1" in capsys.readouterr().out
    assert main(["workflow", "run", "fails", "--source", "throw new Error('x');", "--id", "cli-2"]) == 1


FAILING_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


def _python_project(repo: Path) -> None:
    write(repo, "calc.py", "def add(a, b):\n    return a - b\n")
    write(repo, "test_calc.py", FAILING_TEST)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "calc with a bug")


async def test_check_runs_an_allowed_command_itself_and_names_the_failing_test(git_repo, fake):
    import sys

    _python_project(git_repo)
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"
    out = await _run(git_repo, f"return await check({json.dumps(command)});", id="check-1", allow_command=[command])
    assert out.status == "completed"
    assert out.result["ok"] is False and out.result["exit_code"] == 1
    assert [f["name"] for f in out.result["failures"]] == ["test_calc.py::test_add"]
    assert fake.calls() == []
    assert git(git_repo, "status", "--porcelain") == ""


async def test_check_refuses_a_command_the_run_did_not_allow(git_repo, fake):
    out = await _run(git_repo, 'return await check("rm -rf /");', id="check-2")
    assert out.status == "failed" and "not an allowed command" in out.error


async def test_until_green_lets_a_fix_agent_repair_a_really_failing_test(git_repo, fake):
    import sys

    _python_project(git_repo)
    fake.scenario({"match": "fails", "write": {"calc.py": "def add(a, b):\n    return a + b\n"}, "reply": "fixed"})
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"
    write(git_repo, ".pallium/config.toml", f"[workflows]\nallow_commands = [{json.dumps(command)}]\n")
    trusted(git_repo)
    source = f"return await verify.untilGreen({json.dumps(command)}, {{maxRounds: 2}});"
    out = await _run(git_repo, source, id="green-1")
    assert out.status == "completed"
    assert out.result["ok"] is True and out.result["stalled"] is False
    assert [r["check"]["ok"] for r in out.result["rounds"]] == [False, True]
    assert [p.state for p in out.patches] == ["staged"]
    assert len(fake.calls()) == 1


async def test_until_green_stops_when_the_fix_changes_nothing(git_repo, fake):
    import sys

    _python_project(git_repo)
    fake.scenario({"match": "fails", "reply": "I tried"})
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"
    source = f"return await verify.untilGreen({json.dumps(command)}, {{maxRounds: 5}});"
    out = await _run(git_repo, source, id="green-2", allow_command=[command])
    assert out.result["ok"] is False and out.result["stalled"] is True
    assert len(out.result["rounds"]) == 2 and len(fake.calls()) == 1


async def test_an_edit_agent_whose_report_fails_the_schema_keeps_its_patch_and_is_not_retried(git_repo, fake):
    fake.scenario({"match": "fix", "write": {"src/app.py": "def main():\n    return 2\n"}, "reply": "not json"})
    source = (
        'try { await agent("fix main", {mode: "edit", schema: {type: "object", required: ["done"]}}); }\n'
        'catch (e) { return "report failed: " + e.message; }'
    )
    out = await _run(git_repo, source, id="edit-schema")
    assert out.result.startswith("report failed:")
    assert [p.state for p in out.patches] == ["staged"]
    assert len(fake.calls()) == 1
