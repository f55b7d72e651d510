"""Leases without a daemon: dead owners, reused pids, fenced zombies, races, and reconcile killing leftovers."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from kernel import leases
from kernel.errors import PalliumError
from kernel.execution import AgentCall, Limits, Run
from kernel.providers.process import process_start_ticks
from kernel.runstore import SCHEMA, RunStore
from kernel.store import open_global
from tests.kernel.test_providers import living_members

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store():
    db = open_global([SCHEMA])
    yield RunStore(db)
    db.close()


def python(code: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        **kw,
    )


TAKE_AND_DIE = """
    import os
    from kernel import leases
    from kernel.runstore import SCHEMA, RunStore
    from kernel.store import open_global
    store = RunStore(open_global([SCHEMA]))
    leases.acquire(store, "r1")
    os._exit(0)
"""


def test_a_run_whose_owner_died_is_taken_over_with_a_new_epoch(store):
    store.ensure_run("r1", repo=None, budget_usd=None, max_agents=10)
    assert python(TAKE_AND_DIE).wait() == 0
    assert store.run("r1").status == "running" and store.run("r1").lease_epoch == 1
    assert leases.reconcile(store) == ["r1"]
    assert store.run("r1").status == "interrupted"
    lease = leases.acquire(store, "r1")
    assert lease.epoch == 2 and store.run("r1").owner_pid == os.getpid()


def test_a_live_owner_keeps_its_run(store):
    store.ensure_run("r1", repo=None, budget_usd=None, max_agents=10)
    leases.acquire(store, "r1")
    with pytest.raises(PalliumError) as raised:
        leases.acquire(store, "r1")
    assert raised.value.code == "conflict" and leases.reconcile(store) == []


def test_an_owner_whose_pid_was_reused_by_another_process_is_dead(store):
    store.ensure_run("r1", repo=None, budget_usd=None, max_agents=10)
    parent = os.getppid()  # a live pid, but not the process that took the lease
    impostor = {
        "pid": parent,
        "start": (process_start_ticks(parent) or 0) + 1,
        "boot": leases.boot_id(),
        "host": socket.gethostname(),
    }
    store.take_lease("r1", impostor, ttl=60, holder_alive=lambda _row: False)
    assert not leases.is_owner_alive(store.run("r1"))
    assert leases.acquire(store, "r1").epoch == 2


def test_an_owner_on_another_host_is_alive_until_its_lease_expires(store):
    store.ensure_run("r1", repo=None, budget_usd=None, max_agents=10)
    remote = {"pid": 1, "start": 1, "boot": "other-boot", "host": "elsewhere"}
    store.take_lease("r1", remote, ttl=60, holder_alive=lambda _row: False)
    row = store.run("r1")
    assert leases.is_owner_alive(row)
    assert not leases.is_owner_alive(row, now=row.lease_expires_at + 1)


def test_a_fenced_zombie_cannot_write_after_a_takeover(store):
    store.ensure_run("r1", repo=None, budget_usd=None, max_agents=10)
    zombie = leases.acquire(store, "r1")
    successor = {"pid": 1, "start": 1, "boot": "b", "host": "h"}
    store.take_lease("r1", successor, ttl=60, holder_alive=lambda _row: False)  # it judged the zombie dead
    with pytest.raises(PalliumError) as raised:
        store.record_intent(
            "r1", zombie.epoch, call_key="agent:x#0", op="agent", request={}, seq=1, counts_as_agent=True
        )
    with pytest.raises(PalliumError) as event:
        store.log_event("r1", "late", {}, epoch=zombie.epoch)
    assert raised.value.code == event.value.code == "stale"
    assert zombie.beat() is False and zombie.fenced
    assert store.calls("r1") == [] and store.run("r1").agents_started == 0 and store.events("r1") == []


RACE = """
    import sys
    from kernel import leases
    from kernel.errors import PalliumError
    from kernel.runstore import SCHEMA, RunStore
    from kernel.store import open_global
    store = RunStore(open_global([SCHEMA]))
    try:
        leases.acquire(store, "race")
    except PalliumError as exc:
        print(exc.code, flush=True)
        sys.exit(0)
    print("won", flush=True)
    sys.stdin.read()
"""


def test_two_processes_racing_for_one_lease_leave_exactly_one_winner(store):
    store.ensure_run("race", repo=None, budget_usd=None, max_agents=10)
    racers = [python(RACE, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(2)]
    answers = sorted(r.stdout.readline().strip() for r in racers)
    for racer in racers:
        racer.stdin.close()
        racer.wait()
        racer.stdout.close()
    assert answers == ["conflict", "won"]


ORPHANING = """
    import asyncio, sys
    from pathlib import Path
    from kernel.execution import AgentCall, Run
    async def main():
        run = await Run.open("orphan-run", Path(sys.argv[1]))
        await run.agent(AgentCall("hang and kill me", provider="fake"))
    asyncio.run(main())
"""


def test_reconcile_kills_the_workers_a_dead_orchestrator_left_running(fake, git_repo, store):
    fake.scenario({"match": "", "kill_orchestrator": True, "hang": 60})
    orchestrator = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(ORPHANING), str(git_repo)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert orchestrator.wait() == -9
    [call] = store.calls("orphan-run", status="started")
    assert call.pgid is not None and living_members(call.pgid) != []
    assert leases.reconcile(store) == ["orphan-run"]
    assert living_members(call.pgid) == []
    assert store.calls("orphan-run")[0].status == "interrupted"
    assert store.events("orphan-run", "reconcile_kill")[0]["killed"] is True


SUCCESSOR = {"pid": 1, "start": 1, "boot": "b", "host": "h"}


async def wait_for(predicate) -> None:
    with anyio.fail_after(10):
        while not predicate():
            await anyio.sleep(0.02)  # a poll under a deadline: the worker runs in another process


@pytest.mark.anyio
async def test_a_zombie_run_writes_no_event_after_a_takeover(fake, git_repo):
    fake.scenario({"match": "", "delay": 1, "write": {str(git_repo / "README.md"): "escaped\n"}})
    run = await Run.open("zombie-events", git_repo)
    task = asyncio.create_task(run.agent(AgentCall("edit", mode="edit", provider="fake")))
    await wait_for(lambda: fake.calls() != [])
    run.store.take_lease(run.run_id, SUCCESSOR, ttl=60, holder_alive=lambda _row: False)
    with pytest.raises(PalliumError) as raised:
        await task
    events = run.store.events(run.run_id, "outside_write")
    await run.lease.stop_heartbeat()
    run.store.db.close()
    assert raised.value.code == "stale" and events == []


@pytest.mark.anyio
async def test_a_run_that_finds_itself_taken_over_kills_the_workers_it_still_runs(fake, git_repo):
    fake.scenario({"match": "", "hang": 30, "spawn_child": True})
    run = await Run.open("zombie-workers", git_repo, Limits(lease_ttl=0.3))
    task = asyncio.create_task(run.agent(AgentCall("hang", provider="fake")))
    await wait_for(lambda: fake.calls() != [] and run.store.calls(run.run_id)[0].pgid is not None)
    pgid = run.store.calls(run.run_id)[0].pgid
    run.store.take_lease(run.run_id, SUCCESSOR, ttl=60, holder_alive=lambda _row: False)
    with anyio.fail_after(10), pytest.raises(PalliumError) as raised:
        await task
    await run.lease.stop_heartbeat()
    run.store.db.close()
    assert raised.value.code == "stale" and run.lease.fenced
    assert living_members(pgid) == []
