"""Kill a workflow run at several moments of a mixed fan-out, resume it in a new process, and count
what the provider was asked: every call completed before the kill replays, only the rest run again."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from kernel.crashpoints import CRASH_EXIT_CODE
from kernel.runstore import SCHEMA, RunStore
from kernel.store import open_global
from tests.conftest import script
from tests.kernel.test_crash_recovery import workers_of

AGENTS = 20
FAN_OUT = """
const names = Array.from({length: 20}, (_, i) => i);
const out = await parallel(names, (i) =>
  agent(`task ${i}`, {label: `t${i}`, mode: i % 5 === 0 ? "edit" : "read-only"}));
return out.filter((x) => x !== null).length;
"""


def pallium(repo: Path, *args: str, crash: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PALLIUM_CRASHPOINT"}
    if crash:
        env["PALLIUM_CRASHPOINT"] = crash
    return subprocess.run([script("pallium"), *args], cwd=repo, env=env, capture_output=True, text=True, timeout=180)


def wait_for_workers_to_exit(run_id: str) -> None:
    import time

    deadline = time.monotonic() + 20
    while workers_of(run_id) and time.monotonic() < deadline:
        time.sleep(0.05)


def completed_calls(run_id: str) -> set[str]:
    db = open_global([SCHEMA])
    try:
        return {c.request["prompt"] for c in RunStore(db).calls(run_id, status="completed")}
    finally:
        db.close()


@pytest.mark.parametrize("kill_after", [1, 7, 16])
def test_a_resume_after_a_kill_replays_every_completed_call_of_a_mixed_fan_out(git_repo, fake, monkeypatch, kill_after):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    # replies finish out of call order, and the edit agents (every fifth) in between the reads
    fake.scenario(
        *(
            {"match": f"^task {i}$", "delay": (i * 7 % 5) * 0.04, "reply": f"r{i}"}
            | ({"write": {f"out/f{i}.txt": f"{i}\n"}} if i % 5 == 0 else {})
            for i in range(AGENTS)
        )
    )
    run_id = f"crash-{kill_after}-{git_repo.parent.name}"
    killed = pallium(
        git_repo,
        "workflow",
        "run",
        "fan out",
        "--source",
        FAN_OUT,
        "--id",
        run_id,
        crash=f"after_completion:{kill_after}",
    )
    assert killed.returncode == CRASH_EXIT_CODE, killed.stderr
    wait_for_workers_to_exit(run_id)  # the killed run's workers log their call as they start
    done_before = completed_calls(run_id)
    assert len(done_before) == kill_after
    asked_before = len(fake.calls())

    resumed = pallium(git_repo, "workflow", "resume", run_id, "--json")
    assert resumed.returncode == 0, resumed.stderr
    out = json.loads(resumed.stdout)
    rerun = Counter(c["prompt"] for c in fake.calls()[asked_before:])
    assert out["status"] == "completed" and out["result"] == AGENTS
    assert out["replayed_calls"] == kill_after and out["live_calls"] == AGENTS - kill_after
    assert set(rerun) == {f"task {i}" for i in range(AGENTS)} - done_before and max(rerun.values()) == 1
    assert sorted(p["state"] for p in out["patches"]) == ["staged"] * 4

    applied = pallium(git_repo, "workflow", "apply", run_id, "--json")
    assert applied.returncode == 0, applied.stderr
    assert sorted(p.name for p in (git_repo / "out").iterdir()) == ["f0.txt", "f10.txt", "f15.txt", "f5.txt"]


def test_a_kill_right_after_a_completion_keeps_the_agent_event_of_every_completed_call(git_repo, fake, monkeypatch):
    """The run's own record of an agent (what `workflow report` and the agent counts read) is written in
    the transaction that completes the call in the journal: a kill between the two cannot lose it."""
    from services.workflows.store import SCHEMA as WORKFLOW_SCHEMA
    from services.workflows.store import WorkflowStore

    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario(*({"match": f"^task {i}$", "delay": (i * 7 % 5) * 0.04, "reply": f"r{i}"} for i in range(AGENTS)))
    run_id = f"crash-events-{git_repo.parent.name}"
    argv = ["workflow", "run", "fan out", "--source", FAN_OUT, "--id", run_id]
    killed = pallium(git_repo, *argv, crash="after_completion:5")
    assert killed.returncode == CRASH_EXIT_CODE, killed.stderr
    wait_for_workers_to_exit(run_id)
    db = open_global([SCHEMA, WORKFLOW_SCHEMA])
    try:
        journal = {c.call_key for c in RunStore(db).calls(run_id, status="completed")}
        recorded = {e.detail["call_key"] for e in WorkflowStore(db).events(run_id, kind="agent")}
    finally:
        db.close()
    assert len(journal) == 5
    assert recorded == journal
