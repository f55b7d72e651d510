"""The run record: what a workflow run or a team is, in the shared database, for any machine to read and act on.

The queue (kernel/scaleout/store.py) holds a run's agent calls; this holds the rest a reader on
another machine needs: the service's own rows of the run (its status, attempts, events, gates,
decisions; a team's members, board, mail and turns), as the service exported them, in one
versioned document per run in `pallium_run_record`. The orchestrator writes it at each change a
reader acts on (status, attempt, gate, board), so `workflow status --database` on any machine is
as fresh as the last change, and `updated_at` (the database's clock) says how fresh.

Two machines may write one record at once: a person decides a gate on one while the run's
orchestrator publishes on another, or two people edit a team's board. Every write is a
read-modify-write under the row's lock (`SELECT ... FOR UPDATE`; on SQLite `BEGIN IMMEDIATE`), so
no write is lost, or a compare-and-set on the version the writer read (`put_if`), refused when
another write came between. An orchestrator's writes also carry its run epoch (its lease in
the queue's run lease): one that was taken over cannot write over its successor's record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kernel.errors import PalliumError
from kernel.scaleout.store import QueueStore

if TYPE_CHECKING:
    from kernel.store import ServiceStore

StoreT = TypeVar("StoreT", bound="ServiceStore")

__all__ = ["Record", "RecordStore", "RecordWriter", "open_copy", "open_records"]

_DDL = """
CREATE TABLE IF NOT EXISTS pallium_run_record (
    run_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    version INTEGER NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 0,
    status TEXT,
    body TEXT NOT NULL,
    updated_at {real} NOT NULL
)
"""
_FIELDS = "run_id, kind, version, epoch, status, body, updated_at"


@dataclass(frozen=True)
class Record:
    run_id: str
    kind: str  # workflow | team
    version: int  # bumped by every write: a compare-and-set names the one it read
    epoch: int  # the run epoch of the orchestrator that last published it
    status: str | None
    body: dict[str, Any]
    updated_at: float  # the database's clock, seconds since the epoch
    age: float = 0.0  # seconds since updated_at, on the database's clock


class RecordStore:
    """Run records on the queue's connection (one connection, one thread at a time: the queue's lock)."""

    def __init__(self, queue: QueueStore) -> None:
        self.queue = queue
        self.backend = queue.backend

    def migrate(self) -> None:
        def step() -> None:
            try:  # a worker's role may not create tables: look first
                self.backend.execute("SELECT run_id FROM pallium_run_record WHERE 1=0")
                return
            except self.backend.missing:
                pass
            with self.backend.transaction():
                if self.backend.migration_lock:
                    self.backend.execute(self.backend.migration_lock)
                self.backend.execute(_DDL.format(real=self.backend.real))

        self.queue._retrying(step)

    def get(self, run_id: str) -> Record | None:
        now = self.backend.now
        rows = self.queue._retrying(
            lambda: self.backend.execute(f"SELECT {_FIELDS}, {now} FROM pallium_run_record WHERE run_id=?", (run_id,))
        )
        return _record(rows[0]) if rows else None

    def ids_starting_with(self, prefix: str, kind: str, limit: int = 2) -> list[str]:
        rows = self.queue._retrying(
            lambda: self.backend.execute(
                "SELECT run_id FROM pallium_run_record WHERE kind=? AND substr(run_id, 1, ?)=? ORDER BY run_id LIMIT ?",
                (kind, len(prefix), prefix, limit),
            )
        )
        return [str(r[0]) for r in rows]

    def edit(
        self,
        run_id: str,
        change: Callable[[Record | None], tuple[str, str | None, dict[str, Any]] | None],
        *,
        epoch: int | None = None,
    ) -> Record | None:
        """Read the record under its row's lock, let `change` make the next one, write it; the new record.

        `change` gets the current record (None when there is none) and returns (kind, status, body),
        or None to leave it as it is; it may raise (a `conflict` it finds) and nothing is written.
        With `epoch` (an orchestrator's), a record another orchestrator published under a later
        epoch is left alone and None comes back: this one was taken over.
        """
        now = self.backend.now

        def step() -> Record | None:
            with self.backend.transaction():
                rows = self.backend.execute(
                    f"SELECT {_FIELDS}, {now} FROM pallium_run_record WHERE run_id=?{self.backend.row_lock}",
                    (run_id,),
                )
                current = _record(rows[0]) if rows else None
                if epoch is not None and current is not None and current.epoch > epoch:
                    return None
                made = change(current)
                if made is None:
                    return current
                kind, status, body = made
                kept_epoch = max(epoch or 0, current.epoch if current else 0)
                text = json.dumps(body, sort_keys=True, default=str)
                if current is None:
                    self.backend.execute(
                        f"INSERT INTO pallium_run_record({_FIELDS}) VALUES (?, ?, 1, ?, ?, ?, {now})",
                        (run_id, kind, kept_epoch, status, text),
                    )
                else:
                    self.backend.execute(
                        f"UPDATE pallium_run_record SET kind=?, version=version+1, epoch=?, status=?, body=?, "
                        f"updated_at={now} WHERE run_id=?",
                        (kind, kept_epoch, status, text, run_id),
                    )
                written = self.backend.execute(
                    f"SELECT {_FIELDS}, {now} FROM pallium_run_record WHERE run_id=?", (run_id,)
                )
            return _record(written[0])

        result: Record | None = self.queue._retrying(step)
        return result

    def put_if(self, run_id: str, version: int, *, status: str | None, body: dict[str, Any]) -> Record:
        """Write `body` only if the record is still at `version` (compare-and-set); `conflict` otherwise."""
        now = self.backend.now
        text = json.dumps(body, sort_keys=True, default=str)
        rows = self.queue._retrying(
            lambda: self.backend.execute(
                f"UPDATE pallium_run_record SET version=version+1, status=?, body=?, updated_at={now} "
                "WHERE run_id=? AND version=? RETURNING version",
                (status, text, run_id, version),
            )
        )
        if not rows:
            found = self.get(run_id)
            raise PalliumError(
                "conflict",
                f"run {run_id} changed in the shared database since it was read (version "
                f"{found.version if found else 'none'}, not {version})",
                details={"run_id": run_id, "version": found.version if found else None, "expected": version},
                hint="read it again and redo the change on what it is now",
            )
        record = self.get(run_id)
        assert record is not None
        return record

    def close(self) -> None:
        self.queue.close()


def open_records(url: str) -> RecordStore:
    """The run records of the database at `url` (a connection of their own), migrated."""
    from kernel.scaleout.store import connect

    records = RecordStore(connect(url))
    try:
        records.migrate()
    except BaseException:
        records.close()
        raise
    return records


def _record(row: tuple[Any, ...]) -> Record:
    run_id, kind, version, epoch, status, body, updated_at, now = row
    return Record(
        str(run_id), str(kind), int(version), int(epoch), status, json.loads(body), float(updated_at),
        max(0.0, float(now) - float(updated_at)),
    )  # fmt: skip


def open_copy(kind: type[StoreT], folder: Path) -> StoreT:
    """A throwaway database in `folder` with `kind`'s schemas: a reader loads a record into it and asks
    the service's own code about it, so a run on another machine is told exactly as a local one."""
    from kernel.store import open_database

    return kind(open_database(folder / "record.sqlite", kind.SCHEMAS))


class RecordWriter:
    """Writes one run's record from a thread of its own, so a slow or restarting database never holds up
    the run: the run offers its newest snapshot and goes on; the thread writes the newest it has (older
    ones not yet written are dropped: the newest says all they said). `merge(current, body)` makes the
    body written from the one offered and what the record holds (edits made on other machines)."""

    def __init__(self, url: str, run_id: str, kind: str,
                 merge: Callable[[Record | None, dict[str, Any]], dict[str, Any]] | None = None) -> None:  # fmt: skip
        import threading

        self.url, self.run_id, self.kind = url, run_id, kind
        self.merge = merge or (lambda current, body: body)
        self.epoch = 0
        self.taken_over = False
        self.written = 0
        self.last: Record | None = None
        self._slot: tuple[str | None, dict[str, Any]] | None = None
        self._closing = False
        self._cv = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name=f"record-{run_id}", daemon=True)

    def start(self, epoch: int) -> None:
        self.epoch = epoch
        self._thread.start()

    def offer(self, status: str | None, body: dict[str, Any]) -> None:
        with self._cv:
            self._slot = (status, body)
            self._cv.notify()

    def _loop(self) -> None:
        records: RecordStore | None = None
        try:
            while True:
                with self._cv:
                    while self._slot is None and not self._closing:
                        self._cv.wait()
                    taken, self._slot = self._slot, None
                if taken is None:
                    return
                if records is None:
                    records = open_records(self.url)
                status, body = taken

                def change(
                    current: Record | None, s: str | None = status, b: dict[str, Any] = body
                ) -> tuple[str, str | None, dict[str, Any]]:
                    return self.kind, s, self.merge(current, b)

                wrote = records.edit(self.run_id, change, epoch=self.epoch)
                if wrote is None or wrote.epoch != self.epoch:
                    self.taken_over = True  # a later orchestrator's record: never written over
                self.last = wrote
                self.written += 1
        except Exception:  # the record serves readers; the run's own state is in its home and the queue
            return
        finally:
            if records is not None:
                records.close()

    def close(self, wait: float = 60.0) -> None:
        """Stop after writing what was offered last (waiting up to `wait` seconds)."""
        with self._cv:
            self._closing = True
            self._cv.notify()
        if self._thread.is_alive():
            self._thread.join(wait)
