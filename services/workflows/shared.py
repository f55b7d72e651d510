"""A workflow run on a shared database: its record for other machines, and reading or acting on one from here.

The run's orchestrator publishes the run's rows (status, attempts, events of the attempt, gates,
decisions, spend and patch states) to the run record (kernel/scaleout/records.py) at each change
a reader acts on: at once for a status or a gate, at most once a second for agents finishing.
`workflow status|report|gate list --database` on any machine load that record into a throwaway
database and answer from it with the same code as for a local run, saying how old it is and
whether an orchestrator holds the run. `gate approve|reject --database` decides a pending gate
in the record under its row's lock (two people deciding at once: one wins, the other is told),
and `resume --database` takes the run into this home from the record; either then goes on here,
its finished agent calls replayed from the shared queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernel.errors import PalliumError
from kernel.ids import resolve_prefix
from kernel.runstore import RunStore
from kernel.scaleout.records import Record, RecordStore, RecordWriter, open_copy, open_records
from services.workflows.store import RunRow, WorkflowStore

__all__ = ["Publisher", "decide_gate", "reader", "take_in", "take_in_if_recorded"]

KIND = "workflow"
EVENTS_EVERY = 1.0  # seconds: agents finishing are published at most this often (a status or gate at once)


def snapshot(store: WorkflowStore, run_id: str) -> tuple[str | None, dict[str, Any]]:
    dump = store.export_run(run_id)
    runs = dump.get("run") or [{}]
    body = {"workflow": dump, "kernel": RunStore(store.db).export_run(run_id), "host": socket.gethostname()}
    return runs[0].get("status"), body


def _keep_people(current: Record | None, body: dict[str, Any]) -> dict[str, Any]:
    """A gate a person decided in the record stays decided, whatever an older copy publishing says."""
    if current is None:
        return body
    decided = {
        g["name"]: g
        for g in current.body.get("workflow", {}).get("gates", [])
        if g.get("decided_by") == "person" and g.get("state") == "decided"
    }
    gates = body["workflow"].get("gates", [])
    body["workflow"]["gates"] = [decided.get(g["name"], g) if g.get("state") == "pending" else g for g in gates]
    return body


class Publisher:
    """Publishes one run's record as it changes (a status or gate at once, agents at most once a second),
    through a `RecordWriter` thread, so a slow or restarting database never holds up the run."""

    def __init__(self, url: str, store: WorkflowStore, run_id: str) -> None:
        self.url, self.store, self.run_id = url, store, run_id
        self.writer = RecordWriter(url, run_id, KIND, merge=_keep_people)
        self.started = False
        self._dirty = False
        self._last = 0.0
        self._ticker: asyncio.Task[None] | None = None
        self.failed: str | None = None  # why the last snapshot could not be taken

    def changed(self, run_id: str, what: str) -> None:
        if run_id != self.run_id:
            return
        self._dirty = True
        if not self.started:
            return  # published as soon as the run holds its epoch (`start`)
        if what in ("status", "gate") or time.monotonic() - self._last >= EVENTS_EVERY:
            self.flush()

    def start(self, epoch: int) -> None:
        """The run holds the shared run lease under `epoch`: publish what changed so far, and from now on."""
        self.writer.start(epoch)
        self.started = True
        with contextlib.suppress(RuntimeError):  # no loop: changes are published as they come, none trail
            self._ticker = asyncio.get_running_loop().create_task(self._tick())
        self.flush()

    def flush(self) -> None:
        if not self.started or not self._dirty:
            return
        self._dirty = False
        self._last = time.monotonic()
        try:
            status, body = snapshot(self.store, self.run_id)
        except Exception as exc:  # the record serves readers elsewhere: it never fails the run itself
            self.failed = f"{type(exc).__name__}: {exc}"
            return
        self.writer.offer(status, body)

    async def _tick(self) -> None:
        """Publish a change the throttle held back (the last agents of a wave) within a second."""
        while True:
            await asyncio.sleep(EVENTS_EVERY)
            self.flush()

    async def close(self, *, wait: float = 60.0) -> None:
        """Publish the last state and wait (up to `wait` seconds) for it to be written."""
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        self.flush()
        if self.started:
            await asyncio.to_thread(self.writer.close, wait)


def _find(records: RecordStore, given: str) -> Record:
    found: Record = resolve_prefix(
        given,
        get=records.get,
        starting_with=lambda prefix, limit: records.ids_starting_with(prefix, KIND, limit=limit),
        what="workflow run in the shared database",
        field="run_id",
        list_hint="the run's orchestrator publishes it once it started with --database",
    )
    return found


@contextlib.contextmanager
def reader(url: str, given: str) -> Iterator[tuple[WorkflowStore, RunRow, str]]:
    """The run `given` (id or prefix) as the record has it, in a throwaway store, and a note of its freshness."""
    records = open_records(url)
    try:
        record = _find(records, given)
        holder = records.queue.run_holder(record.run_id)
    finally:
        records.close()
    with tempfile.TemporaryDirectory(prefix="pallium-record-") as folder:
        store = open_copy(WorkflowStore, Path(folder))
        try:
            store.import_run(record.body.get("workflow", {}))
            kernel = record.body.get("kernel", {})
            status = record.status
            for row in kernel.get("run", []):
                # this machine cannot see the owner's process: the shared run lease says whether it lives
                row.update(owner_pid=None, owner_start=None, owner_boot=None, owner_host=None)
                if status == "running":
                    row["status"] = "remote" if holder else "interrupted"
            RunStore(store.db).import_run(kernel)
            row = store.run(record.run_id)
            assert row is not None
            held = f"held by {holder}" if holder else "no orchestrator holds it now"
            note = (
                f"from the shared database: published {record.age:.1f}s ago by {record.body.get('host', '?')} "
                f"(record version {record.version}); {held}"
            )
            yield store, row, note
        finally:
            store.db.close()


def decide_gate(url: str, given: str, name: str, *, approved: bool, reason: str | None, now: str) -> Record:
    """Decide the pending gate `name` in the record, under its row's lock: one decision wins."""
    records = open_records(url)
    try:
        record = _find(records, given)

        def change(current: Record | None) -> tuple[str, str | None, dict[str, Any]]:
            assert current is not None
            body = current.body
            gates = body.get("workflow", {}).get("gates", [])
            gate = next((g for g in gates if g["name"] == name), None)
            if gate is None or gate.get("state") != "pending":
                pending = [g["name"] for g in gates if g.get("state") == "pending"]
                raise PalliumError(
                    "not_found" if gate is None else "conflict",
                    f"run {current.run_id} has no gate {name!r} waiting for a decision in the shared database"
                    + ("" if gate is None else f" (it was decided by {gate.get('decided_by')})"),
                    hint=f"pending gates: {', '.join(pending)}" if pending else "this run waits at no gate",
                    details={"field": "name", "pending": pending},
                )
            gate.update(state="decided", approved=int(approved), reason=reason, decided_by="person", at=now)
            return current.kind, current.status, body

        decided = records.edit(record.run_id, change)
        assert decided is not None
        return decided
    finally:
        records.close()


def take_in(url: str, given: str, store: WorkflowStore, *, repo: Path) -> RunRow:
    """Make this home's copy of the run what the record says (unless this home's is as far along), for an
    attempt here; the run's database is `url` as this machine names it (its password file is this one's)."""
    records = open_records(url)
    try:
        record = _find(records, given)
    finally:
        records.close()
    dump = record.body.get("workflow", {})
    theirs = (dump.get("run") or [None])[0]
    if theirs is None:
        raise PalliumError(
            "not_found",
            f"the shared record of run {record.run_id} holds no run",
            hint="a run is published there once its orchestrator ran it with --database; "
            "`pallium workflow status RUN --database URL` shows what the record holds",
            details={"field": "run"},
        )
    mine = store.run(record.run_id)
    decided_there = {
        g["name"] for g in dump.get("gates", []) if g.get("state") == "decided" and g.get("decided_by") == "person"
    }
    pending_here = {g.name for g in store.gates(record.run_id) if g.state == "pending"} if mine else set()
    if mine is None or theirs["attempts"] > mine.attempts or decided_there & pending_here:
        import json

        limits = json.loads(theirs["limits_json"])
        limits["database"] = url
        if mine is None:
            # what a record written elsewhere allows this machine to execute counts for nothing here: commands,
            # the repository's own commands and the network are what this home's config and trust allow
            limits.update(allow_commands=[], allow_repo_commands=False, allow_network=False)
        else:
            limits.update({k: mine.limits[k] for k in ("allow_commands", "allow_repo_commands", "allow_network")
                           if k in mine.limits})  # fmt: skip
        theirs = dict(theirs, limits_json=json.dumps(limits))
        store.import_run(dict(dump, run=[theirs]), repo=str(repo if mine is None else Path(mine.repo)))
    row = store.run(record.run_id)
    assert row is not None
    return row


def take_in_if_recorded(url: str, row: RunRow, store: WorkflowStore) -> RunRow:
    """`take_in` for a run about to attempt: a run the record does not hold yet (its first attempt) stays as it is."""
    try:
        return take_in(url, row.id, store, repo=Path(row.repo))
    except PalliumError as exc:
        if exc.code == "not_found":
            return row
        raise
