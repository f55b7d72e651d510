"""A team on a shared database: its record for other machines, and `team status --database` from any of them.

While `team run --database` schedules the team's turns (their agents run on `pallium worker`s),
it publishes the team's rows (the team, members, tasks, its newest mail, turns and events) to the
run record (kernel/scaleout/records.py) within half a second of each change `team status` shows.
`team status --database` on any machine loads that record into a throwaway database and answers
from it with the same code as for a local team, saying how old the record is and whether a
`team run` holds the team now.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernel.ids import resolve_prefix
from kernel.runstore import RunStore
from kernel.scaleout.records import Record, RecordWriter, open_copy, open_records
from services.teams.rows import TeamRow
from services.teams.store import TeamStore

__all__ = ["TeamPublisher", "reader"]

KIND = "team"
LOOK_EVERY = 0.5  # seconds between looks at whether the team changed


class TeamPublisher:
    def __init__(self, url: str, store: TeamStore, team_id: str) -> None:
        self.store, self.team_id = store, team_id
        self.writer = RecordWriter(url, team_id, KIND)
        self._stamp: tuple[Any, ...] | None = None
        self._ticker: asyncio.Task[None] | None = None

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
            await asyncio.sleep(LOOK_EVERY)
            self.flush()

    async def close(self, *, wait: float = 60.0) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        self.flush()
        await asyncio.to_thread(self.writer.close, wait)


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
            list_hint="a team is published there once `team run --database` ran it",
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
