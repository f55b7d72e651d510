"""The tick lease: at most one tick of a loop at a time, and a dead tick's lease taken over.

Why a row in the loop's own record rather than a `flock` (kernel/locks.py): a flock dies with its
holder, which is what we want for a crash, but it says nothing to `loop status` (who holds it, since
when), it cannot be part of the transaction that begins the cycle, and it does not cross hosts
sharing a home. So the lease is a compare-and-set on `lease_token` under `BEGIN IMMEDIATE`
(store.take_lease), and its holder is identified the way the kernel identifies a run's owner
(kernel/leases.py): pid, process start ticks and boot id. On this host and boot that answers for
certain whether the holder still lives, so a tick killed a second ago is taken over at once; a
holder on another host (or before a reboot) counts as alive until `staleAfterMinutes` have passed
since its tick began. A live local holder is never taken over, however long it runs: a hung tick is
reported as running for N minutes, and killing it is the operator's call.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from kernel.clock import parse_iso
from kernel.leases import Owner, is_owner_alive

__all__ = ["Holder", "current_owner", "holder_of", "new_token"]


@dataclass(frozen=True)
class Holder:
    """Who holds a loop's tick lease, in the shape `kernel.leases.is_owner_alive` reads."""

    owner_pid: int | None
    owner_start: int | None
    owner_boot: str | None
    owner_host: str | None
    lease_expires_at: float
    started_at: datetime

    def alive(self, now: datetime) -> bool:
        return is_owner_alive(self, now=now.timestamp())  # type: ignore[arg-type]  # reads only these fields

    def minutes_running(self, now: datetime) -> float:
        return max(0.0, (now - self.started_at).total_seconds() / 60)


def current_owner() -> dict[str, Any]:
    return Owner.current().to_dict()


def new_token() -> str:
    return secrets.token_hex(8)


def holder_of(owner: dict[str, Any] | None, tick_started_at: str | None, stale_after_minutes: float) -> Holder:
    """The lease holder recorded on a loop; a record with no owner is a holder that is not alive."""
    owner = owner or {}
    started = parse_iso(tick_started_at) if tick_started_at else datetime.fromtimestamp(0).astimezone()
    expires = started + timedelta(minutes=stale_after_minutes)
    return Holder(
        owner_pid=owner.get("pid"),
        owner_start=owner.get("start"),
        owner_boot=owner.get("boot"),
        owner_host=owner.get("host"),
        lease_expires_at=expires.timestamp(),
        started_at=started,
    )
