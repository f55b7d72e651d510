"""Kill the orchestrator at each named crash point, resume in a new process, and compare with a clean run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kernel.crashpoints import CRASH_EXIT_CODE
from kernel.execution import collect_garbage
from kernel.runstore import SCHEMA, RunStore
from kernel.store import open_global
from tests.conftest import git, write
from tests.kernel.test_providers import living_members

ROOT = Path(__file__).resolve().parents[2]
LINES = "".join(f"line {i}\n" for i in range(20))


def make_repo(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    write(path, "lines.txt", LINES)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "start")
    return path


def drive(repo: Path, run_id: str, crash: str | None = None, plan: str = "parallel") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PALLIUM_CRASHPOINT", None)
    if crash:
        env["PALLIUM_CRASHPOINT"] = crash
    return subprocess.run(
        [sys.executable, "-m", "tests.kernel.crash_driver", str(repo), run_id, plan],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def scenario(fake):
    fake.scenario(
        {
            "match": "edit the top",
            "replace": {"lines.txt": ["line 1\n", "TOP\n"]},
            "reply": "top done",
            "usage": {"cost_usd": 0.01},
        },
        {
            "match": "edit the bottom",
            "replace": {"lines.txt": ["line 18\n", "BOTTOM\n"]},
            "reply": "bottom done",
            "usage": {"cost_usd": 0.01},
        },
        {"match": "review", "reply": "reviewed", "usage": {"cost_usd": 0.01}},
    )
    return fake


@pytest.mark.parametrize(
    "crash",
    [
        "after_intent:1",
        "after_provider_exit:2",
        "after_stage:1",
        "after_stage:2",
        "after_completion:1",
        "after_completion:3",
        "mid_apply:1",
        "between_applies:1",
    ],
)
def test_a_killed_orchestrator_resumes_to_the_same_tree_with_nothing_left_behind(scenario, tmp_path, crash):
    clean_repo, crashed_repo = make_repo(tmp_path / "clean"), make_repo(tmp_path / "crashed")
    clean = drive(clean_repo, "clean-run")
    assert clean.returncode == 0, clean.stderr
    calls_before = len(scenario.calls())

    killed = drive(crashed_repo, "crashed-run", crash)
    assert killed.returncode == CRASH_EXIT_CODE, killed.stderr
    resumed = drive(crashed_repo, "crashed-run")
    assert resumed.returncode == 0, resumed.stderr

    assert (crashed_repo / "lines.txt").read_text() == (clean_repo / "lines.txt").read_text()
    assert "TOP\n" in (clean_repo / "lines.txt").read_text() and "BOTTOM\n" in (clean_repo / "lines.txt").read_text()
    assert git(crashed_repo, "status", "--porcelain") == git(clean_repo, "status", "--porcelain")
    runs = Counter(c["prompt"] for c in scenario.calls()[calls_before:])
    assert max(runs.values()) <= 2, runs
    assert git(crashed_repo, "worktree", "list").count("\n") == 1, "only the main worktree remains"
    db = open_global([SCHEMA])
    try:
        store = RunStore(db)
        assert store.run("crashed-run").status == "completed"
        assert store.worktrees(run_id="crashed-run", states=("creating", "active", "captured", "kept")) == []
        assert [p.state for p in store.patches("crashed-run")] == ["applied", "applied"]
    finally:
        db.close()
    for call in scenario.calls():
        assert living_members(call["pid"]) == []


def test_resume_of_a_finished_run_replays_every_call_without_spawning(scenario, tmp_path):
    repo = make_repo(tmp_path / "repo")
    first = drive(repo, "run-a")
    spawned = len(scenario.calls())
    again = drive(repo, "run-a")
    assert first.returncode == again.returncode == 0
    assert len(scenario.calls()) == spawned
    summary = json.loads(again.stdout)
    assert summary["stats"] == {"live": 0, "cached": 3} and summary["applied"] == []
    assert len(summary["already"]) == 2 and summary["patch_states"] == ["staged", "staged"]


def test_a_resumed_run_whose_staging_was_garbage_collected_still_composes_its_edits(fake, tmp_path):
    fake.scenario(
        {"match": "line five", "replace": {"lines.txt": ["line 5\n", "FIVE\n"]}},
        {"match": "line six", "replace": {"lines.txt": ["line 6\n", "SIX\n"]}},
    )
    repo = make_repo(tmp_path / "repo")
    killed = drive(repo, "gc-run", "after_intent:2", plan="sequential")
    assert killed.returncode == CRASH_EXIT_CODE, killed.stderr
    db = open_global([SCHEMA])
    try:
        swept = collect_garbage(RunStore(db))
    finally:
        db.close()
    assert any(path.endswith("staging") for path in swept.removed)

    resumed = drive(repo, "gc-run", plan="sequential")
    assert resumed.returncode == 0, resumed.stderr
    assert (repo / "lines.txt").read_text() == LINES.replace("line 5\n", "FIVE\n").replace("line 6\n", "SIX\n")
    assert json.loads(resumed.stdout)["patch_states"] == ["staged", "staged"]


def workers_of(run_id: str) -> list[int]:
    """Running processes started for `run_id` (their environment names it), grandchildren included."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            env = (entry / "environ").read_bytes().split(b"\0") if entry.name.isdigit() else []
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] if env else "Z"
        except OSError:
            continue
        if f"PALLIUM_WORKFLOW_RUN_ID={run_id}".encode() in env and state != "Z":
            found.append(int(entry.name))
    return found


def test_an_orchestrator_killed_while_its_workers_run_resumes_with_no_worker_left_running(scenario, tmp_path):
    clean_repo, crashed_repo = make_repo(tmp_path / "clean"), make_repo(tmp_path / "crashed")
    assert drive(clean_repo, "clean-run").returncode == 0
    rules = json.loads((scenario.root / "scenario.json").read_text())["rules"]
    # the top worker kills its orchestrator at once, then hangs with a grandchild: a worker whose
    # orchestrator the user killed, possibly before its process group was even recorded
    scenario.scenario(
        {"match": "edit the top", "times": 1, "kill_orchestrator": True, "hang": 60, "spawn_child": True}, *rules
    )
    calls_before = len(scenario.calls())
    run_id = "working-" + tmp_path.name  # its own id: the worker scan below must not see other tests' runs

    killed = drive(crashed_repo, run_id)
    try:
        assert killed.returncode == -9, killed.stderr
        assert workers_of(run_id), "the hung worker outlived its orchestrator"
        resumed = drive(crashed_repo, run_id)
        assert resumed.returncode == 0, resumed.stderr
        assert workers_of(run_id) == []
    finally:
        for pid in workers_of(run_id):  # whatever a failure left: never let it outlive the test
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)
    assert (crashed_repo / "lines.txt").read_text() == (clean_repo / "lines.txt").read_text()
    runs = Counter(c["prompt"] for c in scenario.calls()[calls_before:])
    assert runs["edit the top"] == 2 and max(runs.values()) <= 2, runs
    assert git(crashed_repo, "worktree", "list").count("\n") == 1
    db = open_global([SCHEMA])
    try:
        assert [p.state for p in RunStore(db).patches(run_id)] == ["applied", "applied"]
    finally:
        db.close()
