"""Spend survives a killed `team run`: a call the kernel journaled is charged once, a cut-off one is counted."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

import pytest

from kernel.crashpoints import CRASH_EXIT_CODE
from tests.conftest import script
from tests.kernel.test_crash_recovery import workers_of
from tests.services.teams.conftest import decision, turn_of
from tests.services.teams.test_crash import _wait_for, store, team_run

pytestmark = pytest.mark.anyio

PAID = {"cost_usd": 0.25, "input_tokens": 10, "output_tokens": 5}


async def test_a_turn_paid_before_the_kill_is_charged_once_and_its_rerun_again(team_env, call, git_repo):
    team_env.scenario({"match": "You are ", "usage": PAID, "reply": decision("idle", summary="read it")})
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    await call("send", team=team, to="alice", body="look")

    died = team_run(git_repo, team, crash="after_completion:1")  # the kernel journaled the call and its cost
    assert died.returncode == CRASH_EXIT_CODE, died.stderr
    again = team_run(git_repo, team)
    assert again.returncode == 0, again.stderr

    status = await call("status", team=team)
    assert len([c for c in team_env.calls() if c["prompt"].startswith("You are alice,")]) == 2
    assert status.team.spend_usd == pytest.approx(0.50)  # both calls were paid for, each counted once
    assert status.team.unknown_cost_calls == 0
    alice = {m.name: m for m in status.members}["alice"]
    assert alice.spend_usd == pytest.approx(0.50) and alice.unknown_cost_calls == 0


async def test_a_turn_cut_off_mid_call_counts_as_one_call_of_unknown_cost(team_env, call, git_repo):
    team_env.scenario(
        {"match": turn_of("alice"), "times": 1, "hang": 60},
        {"match": "You are ", "usage": PAID, "reply": decision("idle", summary="done")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    await call("send", team=team, to="alice", body="look")
    running = subprocess.Popen(
        [script("pallium"), "team", "run", team, "--json"],
        cwd=git_repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for(lambda: bool(team_env.calls()), "alice's worker started")
        os.kill(running.pid, signal.SIGKILL)
        running.wait(timeout=30)
    finally:
        if running.poll() is None:
            running.kill()
        for pid in workers_of(team):
            with contextlib.suppress(OSError):
                os.killpg(os.getpgid(pid), signal.SIGKILL)
    cut = await call("status", team=team)
    assert (cut.team.spend_usd, cut.team.unknown_cost_calls) == (0.0, 1)  # it may have spent: never shown as $0
    assert "unknown" in cut.spend

    again = team_run(git_repo, team)
    assert again.returncode == 0, again.stderr
    done = await call("status", team=team)
    assert (done.team.spend_usd, done.team.unknown_cost_calls) == (pytest.approx(0.25), 1)
    assert [t.state for t in reversed(store().turns(team, member="alice"))] == ["interrupted", "completed"]
