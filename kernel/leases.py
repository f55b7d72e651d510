"""Run ownership without a daemon: who holds a run, whether that holder is provably alive, and reconcile.

An owner is its pid, the process start time (clock ticks since boot) and the boot id, so a reused pid
is not mistaken for the dead owner. On another host or after a reboot, only lease expiry can tell.
Each takeover bumps the lease epoch; journal writes are fenced on it (see `runstore.fenced`).
`reconcile` is what every reading command runs first: a run whose owner is dead becomes
`interrupted`, and the provider process groups it left running are killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from kernel.providers.process import kill_group, process_start_ticks
from kernel.runstore import RunRow, RunStore

__all__ = ["DEFAULT_TTL_SECONDS", "Lease", "Owner", "acquire", "is_owner_alive", "leftover_groups", "reconcile"]

DEFAULT_TTL_SECONDS = 60.0


@dataclass(frozen=True)
class Owner:
    pid: int
    start: int | None
    boot: str | None
    host: str

    @classmethod
    def current(cls) -> Owner:
        return cls(os.getpid(), process_start_ticks(os.getpid()), boot_id(), socket.gethostname())

    def to_dict(self) -> dict[str, Any]:
        return {"pid": self.pid, "start": self.start, "boot": self.boot, "host": self.host}


@cache
def boot_id() -> str | None:
    """This boot's id (Linux), else the boot time where psutil knows it (macOS), else None."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()
    except OSError:
        pass
    try:
        import psutil

        return f"boot-{int(psutil.boot_time())}"
    except Exception:  # no psutil, or it cannot read the boot time here
        return None


def is_owner_alive(row: RunRow, *, now: float | None = None) -> bool:
    """Certain on this host and boot (pid and start time match); otherwise alive until the lease expires."""
    if row.owner_pid is None:
        return False
    if row.owner_boot is not None and row.owner_boot == boot_id() and row.owner_host == socket.gethostname():
        started = process_start_ticks(row.owner_pid)
        return started is not None and started == row.owner_start
    return (row.lease_expires_at or 0.0) > (time.time() if now is None else now)


class Lease:
    """A held run: its epoch, and a heartbeat that notices when someone else took the run over."""

    def __init__(self, store: RunStore, run_id: str, epoch: int, ttl: float) -> None:
        self.store = store
        self.run_id = run_id
        self.epoch = epoch
        self.ttl = ttl
        self.fenced = False
        self.on_fenced: Callable[[], None] | None = None  # what the holder stops when the heartbeat finds it fenced
        self._task: asyncio.Task[None] | None = None

    def beat(self) -> bool:
        alive = self.store.heartbeat(self.run_id, self.epoch, ttl=self.ttl)
        self.fenced = self.fenced or not alive
        return alive

    def start_heartbeat(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop_heartbeat(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while not self.fenced:
            await asyncio.sleep(self.ttl / 3)
            self.beat()
        if self.on_fenced is not None:
            self.on_fenced()  # another process owns the run now: whatever this one still runs must stop


def acquire(store: RunStore, run_id: str, *, ttl: float = DEFAULT_TTL_SECONDS) -> Lease:
    """Take the run for this process; `conflict` when a live owner holds it."""
    epoch = store.take_lease(run_id, Owner.current().to_dict(), ttl=ttl, holder_alive=is_owner_alive)
    return Lease(store, run_id, epoch, ttl)


def leftover_groups(run_id: str, owner_pid: int) -> set[int]:
    """Process groups of workers that the dead orchestrator `owner_pid` started for `run_id`.

    Found by the environment every worker (and every child it starts) inherits, so a worker is
    found even when its orchestrator died before recording its process group (the spawn and the
    journal write are not one step). This process's own group is never in the answer.
    """
    wanted = {
        f"PALLIUM_WORKFLOW_RUN_ID={run_id}".encode(),
        f"PALLIUM_WORKFLOW_ORCHESTRATOR_PID={owner_pid}".encode(),
    }
    groups: set[int] = set()
    for pid, environ in _environments():
        if wanted <= environ:
            with contextlib.suppress(OSError):
                groups.add(os.getpgid(pid))
    return groups - {os.getpgrp()}


def _environments() -> Iterator[tuple[int, set[bytes]]]:
    proc = Path("/proc")
    if proc.is_dir():
        for entry in proc.iterdir():
            if entry.name.isdigit():
                try:
                    yield int(entry.name), set((entry / "environ").read_bytes().split(b"\0"))
                except OSError:  # gone meanwhile, or another user's
                    continue
        return
    try:
        import psutil
    except ImportError:
        return
    for process in psutil.process_iter():
        try:
            yield process.pid, {f"{k}={v}".encode() for k, v in process.environ().items()}
        except psutil.Error:
            continue


def reconcile(store: RunStore) -> list[str]:
    """Mark runs with a dead owner `interrupted` and kill their leftover workers; return those run ids."""
    interrupted = []
    for row in store.runs_with_status("running"):
        if is_owner_alive(row):
            continue
        for call in store.calls(row.id, status="started"):
            if call.pgid is not None:
                killed = kill_group(call.pgid, call.pgid_start)
                store.log_event(
                    row.id, "reconcile_kill", {"call_key": call.call_key, "pgid": call.pgid, "killed": killed}
                )
        if row.owner_pid is not None:
            for pgid in leftover_groups(row.id, row.owner_pid):
                killed = kill_group(pgid, None)
                store.log_event(row.id, "reconcile_kill", {"call_key": None, "pgid": pgid, "killed": killed})
        if store.mark_interrupted(row.id, row.lease_epoch):
            store.log_event(row.id, "interrupted", {"owner_pid": row.owner_pid, "epoch": row.lease_epoch})
            interrupted.append(row.id)
    return interrupted
