"""`team run` killed (kill -9, a crash point, a worker that kills it) and run again: nothing lost or doubled."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from kernel.context import ToolContext
from kernel.crashpoints import CRASH_EXIT_CODE
from kernel.runstore import SCHEMA as RUN_SCHEMA
from services.teams.store import SCHEMA, TeamStore
from tests.conftest import script
from tests.kernel.test_crash_recovery import workers_of
from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio


def team_run(repo: Path, team: str, *, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    """`pallium team run TEAM --json` in its own process, optionally armed to die at a crash point."""
    env = dict(os.environ)
    env.pop("PALLIUM_CRASHPOINT", None)
    if crash:
        env["PALLIUM_CRASHPOINT"] = crash
    return subprocess.run(
        [script("pallium"), "team", "run", team, "--json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def store() -> TeamStore:
    return TeamStore(ToolContext().global_db([SCHEMA, RUN_SCHEMA]))


def assert_each_message_delivered_once(team: str) -> None:
    s = store()
    messages = s.messages(team, recipient=None, after=0, limit=100_000)
    completed = {t.id: t for t in s.turns(team, states=("completed",), limit=100_000)}
    seen: dict[int, str] = {}
    for turn in completed.values():
        for message_id in turn.mail_ids:
            assert message_id not in seen, f"message {message_id} read by {seen[message_id]} and {turn.id}"
            seen[message_id] = turn.id
    for m in messages:
        if m.recipient == "lead":  # the lead is external: it reads its inbox when it likes
            continue
        assert m.delivered_turn in completed, f"message {m.id} to {m.recipient} has receipt {m.delivered_turn}"
        assert seen.get(m.id) == m.delivered_turn
    assert s.turns(team, states=("started",)) == []


@pytest.mark.parametrize(
    "crash", ["team_turn_started:2", "after_provider_exit:2", "team_before_decision:2", "after_completion:2"]
)
async def test_team_run_killed_then_run_again_resumes_the_interrupted_member_without_duplicates(
    team_env, call, git_repo, crash
):
    team_env.scenario({"match": "You are ", "reply": decision("idle", summary="read my mail")})
    team = (await call("start", goal="answer mail")).team.id
    for name, provider in (("alice", "claude"), ("bob", "codex")):
        await call("spawn", team=team, name=name, provider=provider)
    for i in range(4):
        await call("send", team=team, to="alice" if i % 2 else "bob", body=f"note {i}")

    died = team_run(git_repo, team, crash=crash)
    assert died.returncode == CRASH_EXIT_CODE, died.stderr
    interrupted = {t.member for t in store().turns(team, states=("started",))}
    assert interrupted, "the crash left a turn in flight"

    again = team_run(git_repo, team)
    assert again.returncode == 0, again.stderr
    out = json.loads(again.stdout)
    assert set(out["reconciled_interrupted"]) == interrupted
    assert_each_message_delivered_once(team)
    status = await call("status", team=team)
    sessions = {m.name: m.session_id for m in status.members}
    # every claude call ran on alice's one session (minted before her first turn); every codex call that
    # resumed, resumed bob's recorded thread (recorded as codex streams it: see the kill -9 test below)
    for c in team_env.calls():
        if c["dialect"] == "claude":
            assert c["session"] == sessions["alice"]
        elif "resume" in c["argv"]:
            assert c["session"] == sessions["bob"]
    later = [c for c in team_env.calls() if c["prompt"].startswith("You are alice,")][-1]
    if any(t.member == "alice" and t.session_mode == "resume" for t in store().turns(team)):
        assert "--resume" in later["argv"]


async def test_a_worker_that_kills_its_team_run_leaves_no_process_and_its_member_resumes(team_env, call, git_repo):
    team_env.scenario(
        {"match": turn_of("alice"), "times": 1, "kill_orchestrator": True, "hang": 30, "spawn_child": True},
        {"match": "You are ", "reply": decision("idle", summary="done")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    await call("send", team=team, to="alice", body="please look")

    died = team_run(git_repo, team)
    try:
        assert died.returncode == -9
        assert workers_of(team), "the hung worker outlived its team run"
        attached = await call("attach", team=team)
        assert attached.reconciled_interrupted == ["alice"]
        assert workers_of(team) == []
    finally:
        for pid in workers_of(team):  # whatever a failure left: never let it outlive the test
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)
    out = await call("run", team=team)
    assert [t.member for t in out.turns] == ["alice"]
    assert_each_message_delivered_once(team)
    alice = [c for c in team_env.calls() if c["prompt"].startswith("You are alice,")]
    assert "--session-id" in alice[0]["argv"] and "--session-id" in alice[1]["argv"]  # the first turn never ended
    assert alice[0]["session"] == alice[1]["session"]


async def test_a_second_team_run_while_one_is_live_is_refused(team_env, call, git_repo):
    team_env.scenario({"match": "You are ", "hang": 20, "reply": decision("idle")})
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    await call("nudge", team=team, member="alice")
    env = dict(os.environ)
    first = subprocess.Popen(
        [script("pallium"), "team", "run", team, "--json"],
        cwd=git_repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import time

        for _ in range(200):  # wait for the turn to be in flight (evidence, not a timed sleep)
            if store().turns(team, states=("started",)):
                break
            time.sleep(0.05)
        second = team_run(git_repo, team)
        assert second.returncode == 1
        assert json.loads(second.stderr)["error"]["code"] == "conflict"
        state = {m.name: m.state for m in (await call("status", team=team)).members}
        assert state["alice"] == "running"
    finally:
        first.kill()
        first.wait()
        for pid in workers_of(team):
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)
    state = {m.name: m.state for m in (await call("status", team=team)).members}
    assert state["alice"] in ("waiting", "idle")  # status reconciled the dead run's turn


def _wait_for(predicate, what: str) -> None:
    """Poll the store for evidence (never a timed sleep standing in for it), failing after 30 s."""
    import time

    deadline = time.monotonic() + 30
    while not predicate():
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.05)


async def test_kill_9_of_team_run_mid_first_codex_turn_keeps_the_streamed_thread_and_resumes_it(
    team_env, call, git_repo
):
    team_env.scenario(
        {"match": turn_of("bob"), "times": 1, "hang": 60},
        {"match": "You are ", "reply": decision("idle", summary="done")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="bob", provider="codex")
    await call("send", team=team, to="bob", body="look at main()")
    assert store().member(team, "bob").session_id is None  # codex mints its thread id in the first turn

    running = subprocess.Popen(
        [script("pallium"), "team", "run", team, "--json"],
        cwd=git_repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: store().member(team, "bob").session_id is not None, "bob's thread id recorded")
        os.kill(running.pid, signal.SIGKILL)  # mid-turn: the worker still hangs, nothing was parsed
        assert running.wait(timeout=30) == -signal.SIGKILL
    finally:
        if running.poll() is None:
            running.kill()
        for pid in workers_of(team):
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)
    first = [c for c in team_env.calls() if c["prompt"].startswith("You are bob,")]
    assert len(first) == 1 and "resume" not in first[0]["argv"]
    thread = store().member(team, "bob").session_id
    assert thread == first[0]["session"]

    again = team_run(git_repo, team)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["reconciled_interrupted"] == ["bob"]
    bob = [c for c in team_env.calls() if c["prompt"].startswith("You are bob,")]
    assert len(bob) == 2
    argv = bob[1]["argv"]
    assert argv[argv.index("resume") + 1] == thread and bob[1]["session"] == thread
    assert [t.state for t in reversed(store().turns(team, member="bob"))] == ["interrupted", "completed"]
    assert [m.name for m in (await call("status", team=team)).members] == ["lead", "bob"]  # nobody spawned twice
    assert_each_message_delivered_once(team)


async def test_a_patch_staged_by_a_turn_killed_before_its_decision_stays_staged_and_the_lead_is_told(
    team_env, call, git_repo
):
    team_env.scenario(
        {"match": turn_of("ed"), "times": 1, "replace": {"src/app.py": ["return 1", "return 2"]},
         "reply": decision("idle", summary="changed main")},
        {"match": "You are ", "reply": decision("idle", summary="nothing more")},
    )  # fmt: skip
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="ed", provider="claude", mode="edit")
    await call("nudge", team=team, member="ed")
    died = team_run(git_repo, team, crash="after_completion:1")  # staged and journaled; the turn never closed
    assert died.returncode == CRASH_EXIT_CODE, died.stderr
    again = team_run(git_repo, team)
    assert again.returncode == 0, again.stderr
    status = await call("status", team=team)
    assert [p.state for p in status.patches] == ["staged"]  # kept, not superseded by the next run
    lead = [m.body for m in (await call("inbox", team=team, **{"for": "lead"})).messages]
    assert sum("was interrupted after its patch" in b for b in lead) == 1
    await call("apply", team=team)
    assert (git_repo / "src/app.py").read_text() == "def main():\n    return 2\n"
