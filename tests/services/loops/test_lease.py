"""The tick lease under real processes: a concurrent tick, a killed tick, a stale holder on another host."""

import os
import signal
import subprocess
from datetime import UTC, datetime

import anyio
import pytest

from kernel.clock import FixedClock, iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.store import open_global
from services.loops.models import NameInput, StatusInput
from services.loops.store import SCHEMA, LoopStore
from services.loops.tools import reset, status
from tests.conftest import script
from tests.services.loops.conftest import start_loop, tick_loop

pytestmark = pytest.mark.anyio


def _tick_in_another_process(repo):
    return subprocess.Popen(
        [script("pallium"), "loop", "tick", "work"],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


async def _wait_for_calls(fake, count):
    with anyio.fail_after(30):
        while len(fake.calls()) < count:
            await anyio.sleep(0.05)


async def _reset(repo):
    ctx = ToolContext(cwd=repo)
    try:
        return await reset(NameInput(name="work"), ctx)
    finally:
        ctx.close()


async def _verdict(repo):
    ctx = ToolContext(cwd=repo)
    try:
        return await status(StatusInput(name="work"), ctx)
    finally:
        ctx.close()


async def test_a_tick_while_another_process_ticks_is_already_running_and_changes_nothing(git_repo, loop_env):
    await start_loop(git_repo)
    loop_env.scenario(
        {"match": "cycle", "times": 1, "hang": 60},
        {"match": "cycle", "reply": {"state": "success", "summary": "after the kill"}},
    )
    other = _tick_in_another_process(git_repo)
    try:
        await _wait_for_calls(loop_env, 1)
        before = await _verdict(git_repo)
        busy = await tick_loop(git_repo)
        after = await _verdict(git_repo)
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.communicate()
    assert (busy.state, busy.ran, busy.cycle) == ("already_running", False, None)
    assert f"in pid {other.pid}" in busy.reason
    assert before.verdict.startswith(f"TICKING: loop work, cycle 1 began 0 min ago in pid {other.pid}")
    assert after.model_dump() == before.model_dump()
    assert len(loop_env.calls()) == 1
    dead = await _verdict(git_repo)
    assert dead.verdict.startswith(f"DEAD TICK: loop work, cycle 1: pid {other.pid} died mid-tick")
    assert [(c.cycle, c.state) for c in dead.cycles] == [(1, "running")]
    good = await tick_loop(git_repo)
    assert (good.state, good.cycle, good.summary) == ("success", 2, "after the kill")
    assert good.reconciled.cycle == 1 and good.reconciled.state == "error"
    assert good.reconciled.reason == f"interrupted: the tick in pid {other.pid} died before recording this cycle"
    final = await _verdict(git_repo)
    assert [(c.cycle, c.state) for c in final.cycles] == [(2, "success"), (1, "error")]
    assert final.loop.tick_in_flight is False


async def test_reset_is_refused_while_another_process_ticks_and_holds_once_that_tick_is_gone(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 5})
    loop_env.scenario(
        {"match": "cycle", "times": 2, "reply": {"state": "no_op", "signature": "A"}},
        {"match": "cycle", "times": 1, "hang": 60},
        {"match": "cycle", "reply": {"state": "no_op", "signature": "A"}},
    )
    assert [(await tick_loop(git_repo)).stagnation_count for _ in range(2)] == [1, 2]
    other = _tick_in_another_process(git_repo)
    try:
        await _wait_for_calls(loop_env, 3)
        before = await _verdict(git_repo)
        with pytest.raises(PalliumError) as refused:
            await _reset(git_repo)
        after = await _verdict(git_repo)
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.communicate()
    assert refused.value.code == "conflict"
    assert refused.value.details == {"name": "work", "cycle": 3, "pid": other.pid}
    assert after.model_dump() == before.model_dump() and after.loop.stagnation_count == 2
    cleared = await _reset(git_repo)  # the ticking process is dead: its cycle cannot write counters back
    assert cleared.changed and cleared.loop.stagnation_count == 0
    good = await tick_loop(git_repo)
    assert (good.cycle, good.reconciled.cycle, good.signature, good.stagnation_count) == (4, 3, "A", 1)


async def test_a_tick_killed_mid_cycle_is_closed_by_the_next_tick_which_goes_on(git_repo, loop_env):
    await start_loop(git_repo, settings={"stagnationThreshold": 2})
    loop_env.scenario(
        {"match": "cycle", "times": 1, "reply": {"state": "no_op", "signature": "A"}},
        {"match": "cycle", "times": 1, "kill_orchestrator": True},
        {"match": "cycle", "reply": {"state": "no_op", "signature": "B"}},
    )
    assert (await tick_loop(git_repo)).stagnation_count == 1
    killed = _tick_in_another_process(git_repo)
    killed.communicate()
    assert killed.returncode == -signal.SIGKILL
    good = await tick_loop(git_repo)
    assert (good.state, good.cycle, good.signature, good.stagnation_count) == ("no_op", 3, "B", 1)
    assert good.reconciled.cycle == 2 and good.reconciled.run_id.startswith("loop-work-2-")
    assert [c["prompt"] for c in loop_env.calls()] == ["cycle", "cycle", "cycle"]


async def test_a_lease_held_on_another_host_is_taken_over_only_after_stale_after_minutes(git_repo, loop_env):
    await start_loop(git_repo, settings={"staleAfterMinutes": 10})
    loop_env.scenario({"match": "cycle", "reply": {"state": "success"}})
    clock = FixedClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    elsewhere = {"pid": 4242, "start": 1, "boot": "another-boot", "host": "another-host"}
    with open_global([SCHEMA]) as db:
        taken = LoopStore(db).take_lease(
            "work",
            seen_token=None,
            seen_cycle=0,
            token="t0",
            owner=elsewhere,
            run_id="loop-work-1-x",
            now=iso_utc(clock.now()),
        )
    assert taken is not None and taken.cycle == 1
    clock.advance(minutes=9)
    early = await tick_loop(git_repo, clock=clock)
    assert (early.state, early.ran) == ("already_running", False)
    assert early.reason == "cycle 1 began 9 min ago in pid 4242 and is still running"
    clock.advance(minutes=2)
    late = await tick_loop(git_repo, clock=clock)
    assert (late.state, late.cycle) == ("success", 2)
    assert late.reconciled.cycle == 1 and late.reconciled.cost_usd == 0.0


async def test_a_cancelled_tick_still_records_its_cycle_and_frees_the_lease(git_repo, loop_env):
    await start_loop(git_repo)
    loop_env.scenario({"match": "cycle", "times": 1, "hang": 60}, {"match": "cycle", "reply": {"state": "success"}})
    with anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(tick_loop, git_repo)
            await _wait_for_calls(loop_env, 1)
            tasks.cancel_scope.cancel()
    seen = await _verdict(git_repo)
    assert seen.loop.tick_in_flight is False
    assert [(c.cycle, c.state, c.reason) for c in seen.cycles] == [
        (1, "error", "the tick stopped before it finished (cancelled or an internal error)")
    ]
    assert (await tick_loop(git_repo)).state == "success"
