"""The report's per-agent summary: one line per agent with the head of what it said."""

import subprocess
from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.workflows.inspect_models import ReadInput, ReportInput
from services.workflows.inspect_tools import read_call, report_run
from services.workflows.models import RunInput
from services.workflows.tools import run
from tests.conftest import script

pytestmark = pytest.mark.anyio

LONG = "The handler leaks a file descriptor when the parse fails.\n" + " ".join(["detail"] * 200)
SOURCE = """
return await parallel(["a.py", "b.py", "c.py"], (f) => agent("review " + f, {label: f}));
"""


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario(
        {"match": "a.py", "reply": LONG},
        {"match": "b.py", "reply": {"issues": 0}},
        {"match": "c.py", "exit": 1, "stderr": "provider fell over"},
    )
    return fake


async def _call(handler, inp, repo: Path):
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        return await handler(inp, ctx)
    finally:
        ctx.close()


async def test_each_agent_line_carries_a_short_excerpt_of_its_answer(git_repo):
    await _call(run, RunInput(task="review", source=SOURCE, id="excerpts"), git_repo)
    compact = await _call(report_run, ReportInput(run_id="excerpts"), git_repo)
    excerpts = {a.label: a.excerpt for a in compact.agents}
    assert excerpts["a.py"].startswith("The handler leaks a file descriptor when the parse fails. detail")
    assert len(excerpts["a.py"]) == 160 and excerpts["a.py"].endswith("…")
    assert excerpts["b.py"] == '{"issues": 0}'
    assert "provider fell over" in excerpts["c.py"]
    full = await _call(report_run, ReportInput(run_id="excerpts", full=True), git_repo)
    assert len({a.label: a.excerpt for a in full.agents}["a.py"]) == 500
    key = {a.label: a.call_key for a in compact.agents}["a.py"]
    whole = await _call(read_call, ReadInput(run_id="excerpts", call=key), git_repo)
    assert whole.output == LONG  # the key leads to the whole answer
    text = subprocess.run(
        [script("pallium"), "workflow", "report", "excerpts"], cwd=git_repo, capture_output=True, text=True, timeout=60
    ).stdout
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if " b.py " in line)
    assert lines[at + 1].strip() == '{"issues": 0}'
