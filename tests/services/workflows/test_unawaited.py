"""What a script never awaited still counts: failures are recorded, the verdict says NOT FINISHED;
phase scopes end with their function; one call's cost past the budget fails the run."""

from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.workflows.models import RunInput, ValidateInput
from services.workflows.tools import run, validate

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


async def _run(repo: Path, source: str, **extra):
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        return await run(RunInput(task="test", source=source, **extra), ctx)
    finally:
        ctx.close()


async def test_a_denied_gate_the_script_never_awaited_fails_the_run(git_repo, fake):
    fake.scenario(
        {"match": "ship", "reply": {"approved": False, "reason": "no tests", "evidence": []}},
        {"match": "slow", "reply": "ok", "delay": 0.3},
    )
    out = await _run(git_repo, 'gate("release", "ship it?"); await agent("slow"); return "done";', id="g-un")
    assert out.status == "failed" and out.verdict.startswith("VERDICT: NOT FINISHED")
    assert any("release" in f.error and "never awaited" in f.error for f in out.failures)


async def test_an_agent_that_failed_while_nothing_awaited_it_is_a_recorded_failure(git_repo, fake):
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "slow", "reply": "ok", "delay": 0.3})
    out = await _run(git_repo, 'const p = agent("bad"); await agent("slow"); return 1;', id="a-un")
    assert out.status == "failed" and out.verdict.startswith("VERDICT: NOT FINISHED")
    assert len(out.failures) == 1 and 'agent "bad"' in out.failures[0].error


async def test_a_failure_the_script_awaits_later_or_catches_is_its_own_business(git_repo, fake):
    fake.scenario({"match": "bad", "exit": 1, "stderr": "boom"}, {"match": "slow", "reply": "ok", "delay": 0.3})
    source = """
const p = agent("bad");
await agent("slow");
try { await p; } catch (err) { return "caught"; }
return "not reached";
"""
    out = await _run(git_repo, source, id="a-caught")
    assert out.status == "completed" and out.result == "caught" and out.failures == []


async def test_phase_scopes_made_together_do_not_leak_into_the_next_call(git_repo, fake):
    fake.scenario({"match": "", "reply": "ok", "delay": 0.05})
    source = """
phase("outer");
await parallel(["a", "b", "c"], (x, i) => phase("p-" + i, () => agent("work " + x, {label: x})));
await agent("after", {label: "after"});
return null;
"""
    out = await _run(git_repo, source, id="phases")
    assert out.status == "completed"
    ctx = ToolContext(ceiling="edit", cwd=git_repo)
    try:
        from services.workflows.runner import open_store

        events = open_store(ctx).events("phases", kind="agent")
    finally:
        ctx.close()
    phases = {e.detail["label"]: e.phase for e in events}
    assert phases == {"a": "p-0", "b": "p-1", "c": "p-2", "after": "outer"}


async def test_one_call_reporting_more_than_the_budget_fails_the_run_and_starts_nothing_after(git_repo, fake):
    fake.scenario({"match": "pricey", "reply": "ok", "usage": {"cost_usd": 5}}, {"match": "", "reply": "ok"})
    source = 'await agent("pricey"); try { await agent("next"); } catch (e) {} return "done";'
    out = await _run(git_repo, source, id="budget-5", max_budget_usd=1)
    assert out.status == "failed" and out.error.startswith("budget_exhausted")
    assert out.verdict.startswith("VERDICT: NOT FINISHED")
    assert [c["prompt"] for c in fake.calls()] == ["pricey"]


async def test_validate_warns_about_a_host_call_whose_promise_is_never_awaited(git_repo):
    source = 'export const meta = {name: "x"};\ngate("release", "ok?");\nconst p = agent("a");\nawait agent("b");\n'
    ctx = ToolContext(ceiling="observe", cwd=git_repo)
    try:
        out = await validate(ValidateInput(source=source), ctx)
    finally:
        ctx.close()
    unawaited = [w for w in out.warnings if "never awaited" in w]
    assert len(unawaited) == 2 and unawaited[0].startswith("line 2") and unawaited[1].startswith("line 3")
