"""A team on a shared database: its record for other machines, and `team status --database` from any of them.

While `team run --database` schedules the team's turns (their agents run on `pallium worker`s),
it publishes the team's rows (the team, members, tasks, its newest mail, turns and events) to the
run record (kernel/scaleout/records.py) within half a second of each change `team status` shows.
`team status --database` on any machine loads that record into a throwaway database and answers
from it with the same code as for a local team, saying how old the record is and whether a
`team run` holds the team now.

The board is edited from any machine too: `post_edit` appends a task or a message to the record's
inbox under the row's lock (two machines posting at once both land; neither overwrites the other),
and the `team run` holding the team takes each in within half a second, once: it applies the edit
under the edit's id as a request id (a retried or re-read edit finds its request and does nothing)
and drops it from the inbox as it publishes the board that shows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernel.errors import PalliumError
from kernel.ids import resolve_prefix
from kernel.runstore import RunStore
from kernel.scaleout.records import Record, RecordWriter, open_copy, open_records
from services.teams.rows import TeamRow
from services.teams.store import TeamStore

__all__ = ["TeamPublisher", "post_edit", "reader"]
EDITS = ("task", "message")

KIND = "team"
LOOK_EVERY = 0.5  # seconds between looks at whether the team changed


class TeamPublisher:
    def __init__(self, url: str, store: TeamStore, team_id: str) -> None:
        self.url, self.store, self.team_id = url, store, team_id
        self.applied: set[str] = set()  # inbox edits taken in: dropped from the inbox as the board is published
        self.writer = RecordWriter(url, team_id, KIND, merge=self._keep_inbox)
        self._stamp: tuple[Any, ...] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._reader: Any = None

    def _keep_inbox(self, current: Record | None, body: dict[str, Any]) -> dict[str, Any]:
        """The edits other machines posted and this run has not taken in yet stay in the inbox."""
        waiting = current.body.get("inbox", []) if current else []
        return dict(body, inbox=[e for e in waiting if e.get("id") not in self.applied])

    async def take_in(self) -> int:
        """Apply the edits waiting in the record's inbox to this home's board; how many were new."""
        from services.teams import board, roster

        if self._reader is None:
            self._reader = await asyncio.to_thread(open_records, self.url)
        record = await asyncio.to_thread(self._reader.get, self.team_id)
        edits = [e for e in (record.body.get("inbox", []) if record else []) if e.get("id") not in self.applied]
        team = self.store.team(self.team_id)
        took = 0
        for edit in edits:
            self.applied.add(edit["id"])
            if team is None or self.store.recall(self.team_id, edit["id"]):
                continue  # taken in before (an earlier run of the team): once is enough
            given, now = edit.get("input", {}), str(edit.get("at", ""))
            with contextlib.suppress(PalliumError):  # refused (a gate, an unknown member): as it would be here
                if edit.get("what") == "task":
                    await board.add_task(
                        self.store, team, title=str(given["title"]), description=str(given.get("description", "")),
                        depends_on=list(given.get("depends_on", [])), requires=list(given.get("requires", [])),
                        created_by=str(given.get("as", "lead")), now=now, request_id=edit["id"],
                    )  # fmt: skip
                    took += 1
                elif edit.get("what") == "message":
                    with self.store.db.transaction():
                        sent = roster.send_message(
                            self.store, self.team_id, sender=str(given.get("from", "lead")),
                            recipient=str(given["to"]), body=str(given["body"]), now=now,
                        )  # fmt: skip
                        self.store.remember(self.team_id, edit["id"], tool="send", ref=str(sent), now=now)
                    took += 1
        if edits:
            self._stamp = None  # publish: the inbox shrinks even when every edit was refused
        return took

    def start(self, epoch: int) -> None:
        self.writer.start(epoch)
        self.flush()
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    def flush(self) -> None:
        with contextlib.suppress(Exception):  # the record serves readers elsewhere: it never fails the team run
            stamp = self.store.change_stamp(self.team_id)
            if stamp == self._stamp:
                return
            self._stamp = stamp
            team = self.store.team(self.team_id)
            body = {
                "team": self.store.export_team(self.team_id),
                "kernel": RunStore(self.store.db).export_run(self.team_id),
                "host": socket.gethostname(),
            }
            self.writer.offer(team.status if team else None, body)

    async def _tick(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # a database away for a while: the next look tries again
                await self.take_in()
            self.flush()
            await asyncio.sleep(LOOK_EVERY)

    async def close(self, *, wait: float = 60.0) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        self.flush()
        await asyncio.to_thread(self.writer.close, wait)
        if self._reader is not None:
            self._reader.close()


def post_edit(url: str, team_id: str, what: str, given: dict[str, Any], *, now: str) -> str:
    """Put a task or a message (`what`) for the team's board in its record's inbox; the edit's id.

    Under the record's row lock: edits two machines post at once both land. The `team run` that holds
    the team takes it in within half a second; with none, the next `team run` does.
    """
    if what not in EDITS:
        raise ValueError(what)
    edit_id = f"edit-{uuid.uuid4().hex}"
    records = open_records(url)
    try:

        def change(current: Record | None) -> tuple[str, str | None, dict[str, Any]]:
            if current is None or current.kind != KIND:
                raise PalliumError(
                    "not_found",
                    f"no team {team_id!r} in the shared database",
                    hint="a team is published there once `team run --database` ran it (see `team status --database`)",
                    details={"field": "team"},
                )
            edit = {"id": edit_id, "what": what, "input": given, "at": now, "host": socket.gethostname()}
            return current.kind, current.status, dict(current.body, inbox=[*current.body.get("inbox", []), edit])

        records.edit(team_id, change)
    finally:
        records.close()
    return edit_id


@contextlib.contextmanager
def reader(url: str, given: str) -> Iterator[tuple[TeamStore, TeamRow, str]]:
    """The team `given` (id or prefix) as the record has it, in a throwaway store, and a note of its freshness."""
    records = open_records(url)
    try:
        record: Record = resolve_prefix(
            given,
            get=lambda team_id: found if (found := records.get(team_id)) and found.kind == KIND else None,
            starting_with=lambda prefix, limit: records.ids_starting_with(prefix, KIND, limit=limit),
            what="team in the shared database",
            field="team",
            list_hint="a team is published there once `team run --database` ran it (see `team status --database`)",
        )
        holder = records.queue.run_holder(record.run_id)
    finally:
        records.close()
    with tempfile.TemporaryDirectory(prefix="pallium-record-") as folder:
        store = open_copy(TeamStore, Path(folder))
        try:
            kernel = record.body.get("kernel", {})
            for row in kernel.get("run", []):  # this machine cannot see the owner's process
                row.update(owner_pid=None, owner_start=None, owner_boot=None, owner_host=None, base_tree=None)
            RunStore(store.db).import_run(kernel)
            store.import_team(record.body.get("team", {}))
            team = store.team(record.run_id)
            assert team is not None
            held = f"a `team run` holds it ({holder})" if holder else "no `team run` holds it now"
            note = (
                f"from the shared database: published {record.age:.1f}s ago by {record.body.get('host', '?')} "
                f"(record version {record.version}); {held}"
            )
            yield store, team, note
        finally:
            store.db.close()
