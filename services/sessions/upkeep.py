"""Safe upkeep of the session index: doctor, forget and prune, each a preview unless confirmed.

Forgetting keeps a tombstone row (no text) so the next sync does not index the transcript again;
the transcript files themselves are never touched.
"""

from __future__ import annotations

import os
from datetime import datetime

from kernel.clock import iso_utc
from services.sessions.models import DoctorInput, DoctorOutput, ForgetOutput, PruneInput, PruneOutput
from services.sessions.rows import SessionRow
from services.sessions.store import SessionsStore
from services.sessions.views import parse_duration, summary

__all__ = ["doctor", "forget", "prune"]

_PRUNE_LIST = 50


def doctor(store: SessionsStore, inp: DoctorInput) -> DoctorOutput:
    counts = store.counts()
    orphans = store.orphans()
    problems = []
    fts_ok = store.fts_integrity_ok()
    if not fts_ok:
        problems.append("the full-text index does not match the messages")
    problems += [f"{n} {what.replace('_', ' ')}" for what, n in orphans.items() if n]
    planned = []
    if inp.repair or not fts_ok:
        planned.append("rebuild the full-text index")
    if inp.repair and any(orphans.values()):
        planned.append("delete orphaned messages and file rows")
    if inp.prune_raw_events and counts["raw_events"]:
        planned.append(f"delete {counts['raw_events']} raw events")
    if inp.vacuum:
        planned.append("vacuum the database")
    done: list[str] = []
    if inp.confirm:
        with store.db.transaction():
            if "rebuild the full-text index" in planned:
                store.rebuild_fts()
                done.append("rebuilt the full-text index")
            if inp.repair and any(orphans.values()):
                store.delete_orphans()
                done.append("deleted orphaned rows")
            if inp.prune_raw_events and counts["raw_events"]:
                done.append(f"deleted {store.prune_raw_events()} raw events")
        if inp.vacuum:
            store.vacuum()
            done.append("vacuumed the database")
        counts = store.counts()
        problems = [] if store.fts_integrity_ok() and not any(store.orphans().values()) else problems
    return DoctorOutput(
        healthy=not problems,
        problems=problems,
        counts=counts,
        database_bytes=_size(store),
        planned=planned,
        done=done,
        confirmed=inp.confirm,
    )


def forget(store: SessionsStore, row: SessionRow, *, confirm: bool) -> ForgetOutput:
    targets = [row, *store.children(row.id)]
    messages = sum(r.message_count for r in targets)
    purged = False
    if confirm:
        with store.erasing() as erased, store.db.transaction():
            for target in targets:
                store.forget(target.id)
        purged = erased["purged"]
    return ForgetOutput(sessions=[t.id for t in targets], messages=messages, confirmed=confirm, purged=purged)


def prune(store: SessionsStore, inp: PruneInput, *, now: datetime) -> PruneOutput:
    cutoff = iso_utc(now - parse_duration(inp.older_than, "older_than"))
    rows = store.sessions_older_than(cutoff)
    messages = sum(r.message_count for r in rows)
    purged = False
    if inp.confirm:
        with store.erasing() as erased, store.db.transaction():
            for r in rows:
                store.forget(r.id)
        purged = erased["purged"]
    return PruneOutput(
        purged=purged,
        cutoff=cutoff,
        sessions=[summary(r) for r in rows[:_PRUNE_LIST]],
        count=len(rows),
        messages=messages,
        confirmed=inp.confirm,
        truncated=len(rows) > _PRUNE_LIST,
    )


def _size(store: SessionsStore) -> int:
    path = store.db.path
    return sum(os.path.getsize(p) for p in (path, path.with_name(path.name + "-wal")) if os.path.exists(p))
