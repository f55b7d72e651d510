"""The shared call queue: what orchestrators and workers on many machines agree through, and nothing else.

Four tables. `pallium_call_queue` holds one row per agent call of a run, keyed like the journal
(run id, call key): the request, where its tree comes from (a git remote, a commit it can reach
there, and the diff from that commit to the tree the call runs in), its state (`queued`, `claimed`,
`done`), the fencing token of the claim that holds it and that claim's lease, and the result.
`pallium_run_lease` says which orchestrator holds a run, so two homes never drive one run at once.
`pallium_queue_event` records what the fencing refused (a late result, a lost heartbeat).
`pallium_worker` lists the workers alive (each renews its row as it renews its leases), so a run
can tell a call no live worker can take from one that waits its turn.

Both backends run the same SQL; what differs is a handful of methods of `Backend`: how a
connection opens and reconnects, the claim's row lock (`FOR UPDATE SKIP LOCKED` on Postgres,
`BEGIN IMMEDIATE` on SQLite, which has one writer anyway), the database's clock, and how a waiter
is woken (`LISTEN/NOTIFY` on Postgres, a short poll on SQLite). Leases run on the database's clock,
so workers on machines whose clocks disagree still agree on when a lease expired.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kernel.errors import PalliumError
from kernel.scaleout.backends import Backend, check_url, connect

__all__ = ["Claim", "Done", "QueueStore", "check_url", "connect"]

SCHEMA_VERSION = 2
WAKE_QUEUE = "pallium_queue"  # a call was queued (payload: its provider)
WAKE_DONE = "pallium_done"  # a call finished (payload: its run id)

_DDL = """
CREATE TABLE IF NOT EXISTS pallium_call_queue (
    run_id TEXT NOT NULL,
    call_key TEXT NOT NULL,
    provider TEXT NOT NULL,
    request_json TEXT NOT NULL,
    remote TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    overlay {blob},
    state TEXT NOT NULL,
    token INTEGER NOT NULL DEFAULT 0,
    worker TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    lease_expires_at {real},
    result_json TEXT,
    ok INTEGER,
    patch {blob},
    enqueued_at {real} NOT NULL,
    claimed_at {real},
    done_at {real},
    PRIMARY KEY (run_id, call_key)
);
CREATE INDEX IF NOT EXISTS pallium_call_queue_open ON pallium_call_queue(state, provider, enqueued_at);
CREATE TABLE IF NOT EXISTS pallium_run_lease (
    run_id TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL DEFAULT 0,
    holder TEXT,
    expires_at {real}
);
CREATE TABLE IF NOT EXISTS pallium_queue_event (
    run_id TEXT NOT NULL,
    call_key TEXT,
    kind TEXT NOT NULL,
    worker TEXT,
    token INTEGER,
    at {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS pallium_queue_schema (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS pallium_worker (
    worker_id TEXT PRIMARY KEY,
    providers TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    started_at {real} NOT NULL,
    seen_at {real} NOT NULL,
    expires_at {real} NOT NULL
)
"""
_COLUMNS = {
    "pallium_call_queue": {
        "run_id", "call_key", "provider", "request_json", "remote", "commit_id", "overlay", "state", "token",
        "worker", "attempts", "lease_expires_at", "result_json", "ok", "patch", "enqueued_at", "claimed_at", "done_at",
    },
    "pallium_run_lease": {"run_id", "epoch", "holder", "expires_at"},
    "pallium_queue_event": {"run_id", "call_key", "kind", "worker", "token", "at"},
    "pallium_worker": {"worker_id", "providers", "concurrency", "started_at", "seen_at", "expires_at"},
}  # fmt: skip


@dataclass(frozen=True)
class Claim:
    """One call a worker holds: its request, where its tree comes from, and the token that fences it."""

    run_id: str
    call_key: str
    token: int
    request: dict[str, Any]
    remote: str
    commit: str
    overlay: bytes
    attempts: int


@dataclass(frozen=True)
class Done:
    call_key: str
    result: dict[str, Any]
    patch: bytes
    token: int
    worker: str | None


class QueueStore:
    """The queue's operations, in SQL both dialects share; every one reconnects and retries on a lost connection.

    One store is one connection, used from one thread at a time (a lock guards it): callers on an
    event loop run these in a worker thread.
    """

    def __init__(self, backend: Backend, *, reconnect_for: float = 300.0) -> None:
        self.backend = backend
        self.reconnect_for = reconnect_for
        self._lock = threading.Lock()
        self._wait_lock = threading.Lock()  # the listener is a connection of its own: waiting blocks no query
        self.reconnects = 0

    def _retrying(self, step: Callable[[], Any]) -> Any:
        deadline = time.monotonic() + self.reconnect_for
        delay = 0.05
        with self._lock:
            while True:
                try:
                    return step()
                except self.backend.lost:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(delay)
                    delay = min(delay * 2, 1.0)
                    with contextlib.suppress(*self.backend.lost):
                        self.backend.reconnect()
                        self.reconnects += 1

    def migrate(self) -> None:
        ddl = _DDL.format(blob=self.backend.blob, real=self.backend.real)

        def step() -> None:
            # a worker's role may read and write the queue but not create tables: look before creating
            if (self._version() or 0) < SCHEMA_VERSION:
                with self.backend.transaction():
                    if self.backend.migration_lock:
                        self.backend.execute(self.backend.migration_lock)
                    for statement in ddl.split(";"):
                        if statement.strip():
                            self.backend.execute(statement)
                    if not self.backend.execute("SELECT version FROM pallium_queue_schema"):
                        self.backend.execute("INSERT INTO pallium_queue_schema(version) VALUES (?)", (SCHEMA_VERSION,))
                    else:  # each version only adds tables (IF NOT EXISTS above): the older rows stay as they are
                        self.backend.execute(
                            "UPDATE pallium_queue_schema SET version=? WHERE version < ?",
                            (SCHEMA_VERSION, SCHEMA_VERSION),
                        )
            found = self._version()
            if found is not None and found > SCHEMA_VERSION:
                raise PalliumError(
                    "conflict",
                    f"the queue's schema is version {found}, newer than this Pallium's {SCHEMA_VERSION}",
                    hint="upgrade Pallium on this machine to the version the other machines run",
                )
            for table, wanted in _COLUMNS.items():  # a missing column fails here, loudly, not half-way through a call
                self.backend.execute(f"SELECT {', '.join(sorted(wanted))} FROM {table} WHERE 1=0")

        self._retrying(step)

    def _version(self) -> int | None:
        try:
            rows = self.backend.execute("SELECT version FROM pallium_queue_schema")
        except self.backend.missing:
            return None
        return int(rows[0][0]) if rows else None

    # ------------------------------------------------------------ the run's orchestrator

    def take_run(self, run_id: str, holder: str, ttl: float) -> int | None:
        """Hold `run_id` for `holder` unless another live holder has it; the new epoch, or None."""
        now = self.backend.now

        def step() -> int | None:
            with self.backend.transaction():
                self.backend.execute(
                    "INSERT INTO pallium_run_lease(run_id, epoch) VALUES (?, 0) ON CONFLICT(run_id) DO NOTHING",
                    (run_id,),
                )
                rows = self.backend.execute(
                    f"UPDATE pallium_run_lease SET epoch=epoch+1, holder=?, expires_at={now}+? WHERE run_id=? "
                    f"AND (holder IS NULL OR holder=? OR expires_at < {now}) RETURNING epoch",
                    (holder, ttl, run_id, holder),
                )
            return int(rows[0][0]) if rows else None

        result: int | None = self._retrying(step)
        return result

    def beat_run(self, run_id: str, epoch: int, ttl: float) -> bool:
        now = self.backend.now
        return bool(
            self._retrying(
                lambda: self.backend.execute(
                    f"UPDATE pallium_run_lease SET expires_at={now}+? WHERE run_id=? AND epoch=? RETURNING epoch",
                    (ttl, run_id, epoch),
                )
            )
        )

    def run_holder(self, run_id: str) -> str | None:
        """Who holds the run now (an orchestrator whose lease has not lapsed), or None."""
        now = self.backend.now
        rows = self._retrying(
            lambda: self.backend.execute(
                f"SELECT holder FROM pallium_run_lease WHERE run_id=? AND holder IS NOT NULL AND expires_at >= {now}",
                (run_id,),
            )
        )
        return str(rows[0][0]) if rows else None

    def release_run(self, run_id: str, epoch: int) -> None:
        self._retrying(
            lambda: self.backend.execute(
                "UPDATE pallium_run_lease SET holder=NULL, expires_at=NULL WHERE run_id=? AND epoch=?", (run_id, epoch)
            )
        )

    def enqueue(
        self,
        run_id: str,
        call_key: str,
        *,
        provider: str,
        request: dict[str, Any],
        remote: str,
        commit: str,
        overlay: bytes,
    ) -> bool:
        """Queue a call unless the run already queued it (a resumed orchestrator); True when it is (queued) anew.

        A call that was cancelled, or that finished with a failure, is queued again: a resumed run
        reruns what failed, as the journal does on one machine, and replays only what succeeded.
        """
        now = self.backend.now

        def step() -> bool:
            rows = self.backend.execute(
                "INSERT INTO pallium_call_queue(run_id, call_key, provider, request_json, remote, commit_id, "
                f"overlay, state, enqueued_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', {now}) "
                "ON CONFLICT(run_id, call_key) DO UPDATE SET state='queued', provider=excluded.provider, "
                "request_json=excluded.request_json, remote=excluded.remote, commit_id=excluded.commit_id, "
                "overlay=excluded.overlay, enqueued_at=excluded.enqueued_at, result_json=NULL, ok=NULL, patch=NULL, "
                "worker=NULL, lease_expires_at=NULL WHERE pallium_call_queue.state='cancelled' OR "
                "(pallium_call_queue.state='done' AND pallium_call_queue.ok=0) RETURNING call_key",
                (run_id, call_key, provider, json.dumps(request, sort_keys=True), remote, commit, overlay),
            )
            if rows:
                self.backend.notify(WAKE_QUEUE, provider)
            return bool(rows)

        return bool(self._retrying(step))

    def release(self, claim: Claim) -> None:
        """Give a claimed call back to the queue at once (a worker stopping), rather than at its lease's end."""

        def step() -> None:
            self.backend.execute(
                "UPDATE pallium_call_queue SET state='queued', worker=NULL, lease_expires_at=NULL "
                "WHERE run_id=? AND call_key=? AND token=? AND state='claimed'",
                (claim.run_id, claim.call_key, claim.token),
            )
            self.backend.notify(WAKE_QUEUE, str(claim.request.get("provider")))

        self._retrying(step)

    def cancel(self, run_id: str, call_key: str) -> None:
        """Withdraw a call its run no longer waits for: unclaimed, it is never taken; claimed, its worker's
        next heartbeat fails and the agent is stopped."""
        self._retrying(
            lambda: self.backend.execute(
                "UPDATE pallium_call_queue SET state='cancelled', lease_expires_at=NULL "
                "WHERE run_id=? AND call_key=? AND state IN ('queued', 'claimed')",
                (run_id, call_key),
            )
        )

    def withdraw(self, run_id: str, call_keys: Sequence[str]) -> list[str]:
        """Cancel those of `call_keys` no worker holds (queued, or claimed under a lapsed lease); the ones cancelled."""
        if not call_keys:
            return []
        now = self.backend.now
        marks = ", ".join("?" * len(call_keys))
        rows = self._retrying(
            lambda: self.backend.execute(
                f"UPDATE pallium_call_queue SET state='cancelled', lease_expires_at=NULL WHERE run_id=? AND "
                f"call_key IN ({marks}) AND (state='queued' OR (state='claimed' AND lease_expires_at < {now})) "
                "RETURNING call_key",
                (run_id, *call_keys),
            )
        )
        return [str(k) for (k,) in rows]

    def live_providers(self) -> dict[str, int]:
        """Providers the live workers serve, each with how many workers serve it."""
        now = self.backend.now
        rows = self._retrying(
            lambda: self.backend.execute(f"SELECT providers FROM pallium_worker WHERE expires_at >= {now}")
        )
        served: dict[str, int] = {}
        for (providers,) in rows:
            for provider in str(providers).split(","):
                served[provider] = served.get(provider, 0) + 1
        return served

    def results(self, run_id: str, call_keys: Sequence[str]) -> list[Done]:
        if not call_keys:
            return []
        marks = ", ".join("?" * len(call_keys))
        rows = self._retrying(
            lambda: self.backend.execute(
                "SELECT call_key, result_json, patch, token, worker FROM pallium_call_queue "
                f"WHERE run_id=? AND state='done' AND call_key IN ({marks})",
                (run_id, *call_keys),
            )
        )
        return [Done(k, json.loads(r), bytes(p or b""), int(t), w) for k, r, p, t, w in rows]

    # ------------------------------------------------------------ workers

    def register(self, worker: str, providers: Sequence[str], concurrency: int, ttl: float) -> None:
        """Say (again) that `worker` is alive and serves `providers`, until `ttl` seconds from now."""
        now = self.backend.now
        self._retrying(
            lambda: self.backend.execute(
                "INSERT INTO pallium_worker(worker_id, providers, concurrency, started_at, seen_at, expires_at) "
                f"VALUES (?, ?, ?, {now}, {now}, {now}+?) ON CONFLICT(worker_id) DO UPDATE SET "
                "seen_at=excluded.seen_at, expires_at=excluded.expires_at",
                (worker, ",".join(providers), concurrency, ttl),
            )
        )

    def forget_dead_workers(self, after: float = 86400.0) -> None:
        """Drop the rows of workers gone for `after` seconds (killed ones never unregister)."""
        now = self.backend.now
        self._retrying(lambda: self.backend.execute(f"DELETE FROM pallium_worker WHERE expires_at < {now}-?", (after,)))

    def unregister(self, worker: str) -> None:
        self._retrying(lambda: self.backend.execute("DELETE FROM pallium_worker WHERE worker_id=?", (worker,)))

    def claim(self, worker: str, providers: Sequence[str], limit: int, ttl: float) -> list[Claim]:
        """Take up to `limit` calls for providers this worker has: queued ones, or ones whose claim's lease
        expired (its worker died or was cut off). Each claim bumps the row's fencing token."""
        if limit <= 0 or not providers:
            return []
        now = self.backend.now
        marks = ", ".join("?" * len(providers))

        def step() -> list[Claim]:
            with self.backend.transaction():
                rows = self.backend.execute(
                    f"UPDATE pallium_call_queue SET state='claimed', token=token+1, worker=?, attempts=attempts+1, "
                    f"lease_expires_at={now}+?, claimed_at={now} WHERE (run_id, call_key) IN ("
                    f"SELECT run_id, call_key FROM pallium_call_queue WHERE provider IN ({marks}) AND "
                    f"(state='queued' OR (state='claimed' AND lease_expires_at < {now})) "
                    f"ORDER BY enqueued_at LIMIT ?{self.backend.claim_lock}) "
                    "RETURNING run_id, call_key, token, request_json, remote, commit_id, overlay, attempts",
                    (worker, ttl, *providers, limit),
                )
            return [
                Claim(r, k, int(t), json.loads(q), rem, c, bytes(o or b""), int(a)) for r, k, t, q, rem, c, o, a in rows
            ]

        claims: list[Claim] = self._retrying(step)
        return claims

    def heartbeat(self, claim: Claim, ttl: float) -> bool:
        """Extend the claim's lease; False when it was lost (another worker holds the call now)."""
        now = self.backend.now
        rows = self._retrying(
            lambda: self.backend.execute(
                f"UPDATE pallium_call_queue SET lease_expires_at={now}+? WHERE run_id=? AND call_key=? AND token=? "
                "AND state='claimed' RETURNING token",
                (ttl, claim.run_id, claim.call_key, claim.token),
            )
        )
        if not rows:
            self.record(claim, "heartbeat_refused")
        return bool(rows)

    def complete(self, claim: Claim, worker: str, result: dict[str, Any], patch: bytes, *, ok: bool = True) -> bool:
        """Store the call's result if this claim still holds it; a late or fenced result is refused (False)."""
        now = self.backend.now

        def step() -> bool:
            rows = self.backend.execute(
                f"UPDATE pallium_call_queue SET state='done', result_json=?, ok=?, patch=?, done_at={now}, "
                "lease_expires_at=NULL WHERE run_id=? AND call_key=? AND token=? AND state='claimed' RETURNING token",
                (json.dumps(result, sort_keys=True), int(ok), patch, claim.run_id, claim.call_key, claim.token),
            )
            if rows:
                self.backend.notify(WAKE_DONE, claim.run_id)
                return True
            # the retry of a completion whose answer the connection lost finds its own row done
            mine = self.backend.execute(
                "SELECT 1 FROM pallium_call_queue WHERE run_id=? AND call_key=? AND token=? AND state='done'",
                (claim.run_id, claim.call_key, claim.token),
            )
            return bool(mine)

        accepted = bool(self._retrying(step))
        if not accepted:
            self.record(claim, "result_refused", worker)
        return accepted

    def record(self, claim: Claim, kind: str, worker: str | None = None) -> None:
        now = self.backend.now
        self._retrying(
            lambda: self.backend.execute(
                "INSERT INTO pallium_queue_event(run_id, call_key, kind, worker, token, at) "
                f"VALUES (?, ?, ?, ?, ?, {now})",
                (claim.run_id, claim.call_key, kind, worker, claim.token),
            )
        )

    # ------------------------------------------------------------ reading, for status and tests

    def calls(self, run_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT run_id, call_key, provider, state, token, worker, attempts FROM pallium_call_queue"
        rows = self._retrying(
            lambda: self.backend.execute(sql + (" WHERE run_id=?" if run_id else ""), (run_id,) if run_id else ())
        )
        names = ("run_id", "call_key", "provider", "state", "token", "worker", "attempts")
        return [dict(zip(names, row, strict=True)) for row in rows]

    def timings(self, run_id: str) -> list[tuple[float, float, float, dict[str, Any]]]:
        """(queued, claimed, done) on the database's clock, and the result, of each finished call of a run."""
        rows = self._retrying(
            lambda: self.backend.execute(
                "SELECT enqueued_at, claimed_at, done_at, result_json FROM pallium_call_queue "
                "WHERE run_id=? AND state='done'",
                (run_id,),
            )
        )
        return [(float(q), float(c), float(d), json.loads(r)) for q, c, d, r in rows]

    def events(self, run_id: str) -> list[dict[str, Any]]:
        rows = self._retrying(
            lambda: self.backend.execute(
                "SELECT call_key, kind, worker, token FROM pallium_queue_event WHERE run_id=? ORDER BY at", (run_id,)
            )
        )
        return [{"call_key": k, "kind": kind, "worker": w, "token": t} for k, kind, w, t in rows]

    def wake(self, channel: str, payload: str) -> None:
        self._retrying(lambda: self.backend.notify(channel, payload))

    def wait(self, channels: Sequence[str], timeout: float) -> bool:
        """Block until woken on `channels` or `timeout` passes (a lost connection counts as woken: re-read)."""
        try:
            with self._wait_lock:
                return self.backend.wait(channels, timeout)
        except self.backend.lost:
            time.sleep(min(timeout, 0.2))
            return True

    def close(self) -> None:
        self.backend.close()
