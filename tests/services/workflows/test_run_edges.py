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
