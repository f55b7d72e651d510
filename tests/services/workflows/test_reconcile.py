"""Runs whose process died: `list` and `gc` see them as interrupted, and gc keeps what can be resumed."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from kernel.context import ToolContext
from kernel.worktrees.tree import run_dir
from services.workflows.inspect_models import GcInput
from services.workflows.models import ListInput
from services.workflows.tools import list_runs
from services.workflows.upkeep_tools import gc
from tests.conftest import script

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


def _orphaned_run(repo: Path, fake, run_id: str) -> None:
    """A foreground run killed (SIGKILL, no clean-up) while its agent works: its status says running."""
    fake.scenario({"match": "hold", "hang": 120})
    child = subprocess.Popen(
        [script("pallium"), "workflow", "run", "t", "--source", 'return await agent("hold");', "--id", run_id],
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not fake.calls():
        assert child.poll() is None and time.monotonic() < deadline, "the agent did not start"
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    (run_dir(run_id) / "patches").mkdir(parents=True, exist_ok=True)  # what a resume would need


async def _call(handler, inp, repo: Path, ceiling: str = "edit"):
    ctx = ToolContext(ceiling=ceiling, cwd=repo)
    try:
        return await handler(inp, ctx)
    finally:
        ctx.close()


async def test_list_shows_a_run_whose_process_died_as_interrupted(git_repo, fake):
    _orphaned_run(git_repo, fake, "dead-list")
    listed = await _call(list_runs, ListInput(), git_repo)
    assert [(r.id, r.status) for r in listed.runs] == [("dead-list", "interrupted")]
    done = subprocess.run(
        [script("pallium"), "workflow", "list", "--json"], cwd=git_repo, capture_output=True, text=True, timeout=60
    )
    assert json.loads(done.stdout)["runs"][0]["status"] == "interrupted"


async def test_gc_keeps_a_resumable_run_folder_unless_asked_and_never_keeps_a_dead_owner_forever(git_repo, fake):
    _orphaned_run(git_repo, fake, "dead-gc")
    folder = run_dir("dead-gc")
    kept = await _call(gc, GcInput(older_than=0, confirm=True), git_repo, ceiling="admin")
    assert kept.run_dirs == [] and folder.is_dir()
    assert [k for k in kept.kept if k.startswith("dead-gc")] == [
        "dead-gc: interrupted, resumable (--include-resumable deletes it)"
    ]
    gone = await _call(gc, GcInput(older_than=0, confirm=True, include_resumable=True), git_repo, ceiling="admin")
    assert [(d.run_id, d.status) for d in gone.run_dirs] == [("dead-gc", "interrupted")]
    assert not folder.exists()
