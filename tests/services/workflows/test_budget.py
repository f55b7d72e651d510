"""Budgets and caps seen from a script: what budget.* says, and how a run ends when it is spent."""

from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.workflows.models import RunInput
from services.workflows.tools import run

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    monkeypatch.setenv("PALLIUM_WORKFLOW_AGENT_COST_USD", "0.01")
    return fake


async def _run(repo: Path, source: str, **extra):
    ctx = ToolContext(cwd=repo)
    try:
        return await run(RunInput(task="budget", source=source, **extra), ctx)
    finally:
        ctx.close()


async def test_a_spent_budget_ends_the_run_even_inside_parallel(git_repo: Path, fake):
    fake.scenario({"match": "", "reply": "ok", "usage": {"cost_usd": 0.04}})
    source = "const r = await parallel([1, 2, 3, 4, 5, 6], (i) => agent(`item ${i}`)); return r;"
    out = await _run(git_repo, source, id="spend", max_budget_usd=0.1, max_concurrent_agents=1)
    assert out.status == "failed"
    assert "budget" in out.error
    # Each spawn reserves the $0.01 estimate: the third fits ($0.08 + 0.01 <= 0.10) and its real cost
    # passes the limit, which ends the run; no fourth agent is started.
    assert out.cost["spent_usd"] == pytest.approx(0.12)
    assert len(fake.calls()) == 3


async def test_the_script_sees_its_budget_move(git_repo: Path, fake):
    fake.scenario({"match": "", "reply": "ok", "usage": {"cost_usd": 0.25}})
    source = (
        "const before = [budget.total, budget.spent(), budget.remaining()];\n"
        "await agent('one');\n"
        "return {before, after: [budget.spent(), budget.remaining()]};"
    )
    out = await _run(git_repo, source, id="visible", max_budget_usd=1.0)
    assert out.result == {"before": [1.0, 0, 1.0], "after": [0.25, 0.75]}


async def test_the_agent_cap_ends_the_run(git_repo: Path, fake):
    out = await _run(
        git_repo, "for (let i = 0; i < 5; i++) await agent(`n${i}`); return 'all';", id="capped", max_agents=3
    )
    assert out.status == "failed" and "cap of 3 agents" in out.error
    assert len(fake.calls()) == 3
