"""Runs at the edges: soft gate denials on resume, promises never awaited, runaway host calls, args."""

from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.workflows.models import ResumeInput, RunInput
from services.workflows.tools import resume, run

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _run(repo: Path, source: str, **extra):
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        return await run(RunInput(task=extra.pop("task", "test"), source=source, **extra), ctx)
    finally:
        ctx.close()


async def _resume(repo: Path, run_id: str):
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        return await resume(ResumeInput(run_id=run_id), ctx)
    finally:
        ctx.close()


SOFT_GATE = """
const verdict = await gate("clean", "is the change clean?", {fail_on_deny: false});
const next = await agent("follow up: " + verdict.reason);
return {approved: verdict.approved, next};
"""


async def test_a_run_with_a_soft_gate_denial_resumes_past_the_gate(git_repo, fake):
    fake.scenario(
        {"match": "is the change clean", "reply": {"approved": False, "reason": "dirty", "evidence": []}},
        {"match": "follow up", "exit": 1, "times": 1},
        {"match": "follow up", "reply": "cleaned"},
    )
    failed = await _run(git_repo, SOFT_GATE, id="soft-gate")
    assert failed.status == "failed"
    resumed = await _resume(git_repo, "soft-gate")
    assert resumed.status == "completed", resumed.error
    assert resumed.result == {"approved": False, "next": "cleaned"}
    prompts = [c["prompt"] for c in fake.calls()]
    assert len([p for p in prompts if "is the change clean" in p]) == 1  # the verdict was kept, not asked again


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def test_a_call_never_awaited_fails_the_run_and_its_agent_is_killed(git_repo, fake):
    from kernel.runstore import RunStore
    from services.workflows import runner

    # the quick agent takes a moment, so the forgotten one is surely running when the script returns
    fake.scenario({"match": "forgotten", "hang": 120}, {"match": "quick", "delay": 1, "reply": "ok"})
    source = 'agent("forgotten work", {label: "forgotten"}); await agent("quick"); log("done"); return 1;'
    out = await _run(git_repo, source, id="unawaited")
    assert out.status == "failed" and out.error.startswith("unawaited:")
    assert out.verdict.startswith("VERDICT: NOT FINISHED (failed)")
    assert [(f.primitive, "agent forgotten was started but never awaited" in f.error) for f in out.failures] == [
        ("agent", True)
    ]
    forgotten = [c for c in fake.calls() if c["prompt"] == "forgotten work"]
    assert len(forgotten) == 1 and not _running(forgotten[0]["pid"])
    ctx = ToolContext(cwd=git_repo)
    calls = RunStore(runner.open_store(ctx).db).calls("unawaited")
    ctx.close()
    assert sorted(c.status for c in calls) == ["cancelled", "completed"]


async def test_a_log_not_awaited_before_return_is_written_and_the_run_completes(git_repo, fake):
    fake.scenario({"match": "", "reply": "ok"})
    out = await _run(git_repo, 'const a = await agent("one"); log("finished with", a); return a;', id="log-tail")
    assert out.status == "completed" and out.failures == []
    from services.workflows.inspect_models import ShowInput
    from services.workflows.inspect_tools import show_run

    ctx = ToolContext(cwd=git_repo)
    events = await show_run(ShowInput(run_id="log-tail", kind="log"), ctx)
    ctx.close()
    assert len(events.events) == 1


async def test_an_inline_or_file_script_sees_args_exactly_as_given(git_repo, fake):
    from tests.conftest import trusted, write

    listed = await _run(git_repo, "return args;", id="args-list", args="[1, 2]")
    assert listed.status == "completed" and listed.result == [1, 2]
    inline = await _run(git_repo, "return args;", id="args-inline", args='{"a": 1}')
    assert inline.result == {"a": 1}  # no task merged in
    path = write(git_repo, "flows/echo.js", "return args;")
    write(git_repo, ".pallium/workflows/echo.js", "return args;")
    trusted(git_repo)
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        from_file = await run(RunInput(task="t", script=str(path), id="args-file", args='{"b": 2}'), ctx)
        saved = await run(RunInput(task="the task", workflow="echo", id="args-saved", args='{"files": []}'), ctx)
    finally:
        ctx.close()
    assert from_file.result == {"b": 2}
    assert saved.result == {"task": "the task", "files": []}  # a saved workflow still gets the task in args


async def test_a_fan_out_whose_every_item_fails_before_any_agent_starts_is_not_finished(git_repo, fake):
    import subprocess

    from tests.conftest import script

    fake.scenario({"match": "", "reply": "ok"})
    source = 'return await parallel(["a", "b", "c"], (f) => agent("review " + f, {schema: {type: "nonsense"}}));'
    out = await _run(git_repo, source, id="bad-schema")
    assert out.result == [None, None, None] and len(out.failures) == 3
    assert out.verdict.startswith("VERDICT: NOT FINISHED (completed) — 0/0 agents complete; 3 failures recorded")
    assert fake.calls() == []
    done = subprocess.run(
        [script("pallium"), "workflow", "run", "t", "--source", source, "--id", "bad-schema-cli"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and done.stdout.startswith("VERDICT: NOT FINISHED")


async def test_a_saved_workflow_that_leaves_a_call_unawaited_fails_the_workflow_call(git_repo, fake):
    from tests.conftest import trusted, write

    fake.scenario({"match": "forgotten", "hang": 120}, {"match": "quick", "delay": 1, "reply": "ok"})
    write(git_repo, ".pallium/workflows/inner.js", 'agent("forgotten inner"); await agent("quick"); return 1;')
    trusted(git_repo)
    source = 'try { return await workflow("inner"); } catch (e) { return "caught: " + e.message; }'
    out = await _run(git_repo, source, id="nested-unawaited")
    assert out.status == "completed"
    assert out.result.startswith("caught: workflow repo:inner failed: the script returned")
    assert [f.primitive for f in out.failures] == ["agent"]
    forgotten = [c for c in fake.calls() if c["prompt"] == "forgotten inner"]
    assert len(forgotten) == 1 and not _running(forgotten[0]["pid"])
