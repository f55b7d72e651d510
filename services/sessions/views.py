"""Shared shaping of answers: session summaries, freshness, times and durations given by users."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from kernel.clock import iso_utc, parse_iso
from kernel.errors import PalliumError
from kernel.ids import resolve_prefix
from services.sessions.models import FilterInput, Freshness, SessionSummary
from services.sessions.rows import Filters, SessionRow
from services.sessions.store import SessionsStore

__all__ = ["filters_of", "freshness", "parse_duration", "parse_when", "resolve_id", "summary"]

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d|w)?\s*$", re.I)
_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400, "w": 604800}


def summary(row: SessionRow) -> SessionSummary:
    first = (row.capsule.get("asked") or [{}])[0].get("text")
    return SessionSummary(
        id=row.id,
        source=row.source,  # type: ignore[arg-type]
        title=row.title or (first[:80] if first else None),
        repo=row.repo,
        cwd=row.cwd,
        git_branch=row.git_branch,
        created_at=row.created_at,
        updated_at=row.updated_at,
        completion=row.completion,  # type: ignore[arg-type]
        evidence=row.capsule.get("evidence"),
        parent_id=row.parent_id,
        source_missing=row.source_missing,
    )


def freshness(store: SessionsStore) -> Freshness:
    return Freshness(last_sync_at=store.last_sync_at(), sessions=store.session_count())


def parse_duration(text: str, field: str) -> timedelta:
    match = _DURATION.match(text or "")
    if not match:
        raise PalliumError(
            "invalid_input",
            f"{field}: {text!r} is not a duration",
            hint="write a number and a unit: 45s, 10m, 3h, 7d, 2w",
            details={"field": field},
        )
    return timedelta(seconds=float(match.group(1)) * _UNITS[(match.group(2) or "s").lower()])


def parse_when(text: str | None, now: datetime, field: str) -> str | None:
    """An ISO time, or an age counted back from `now`, as the UTC text stored in the index."""
    if not text:
        return None
    if _DURATION.match(text) and not text.strip().isdigit():
        return iso_utc(now - parse_duration(text, field))
    try:
        return iso_utc(parse_iso(text.strip()))
    except ValueError:
        raise PalliumError(
            "invalid_input",
            f"{field}: {text!r} is neither a date nor an age",
            hint="use 2026-11-20, 2026-11-20T09:00:00Z, or an age like 3h or 7d",
            details={"field": field},
        ) from None


def filters_of(inp: FilterInput, now: datetime, repo: str | None) -> Filters:
    return Filters(
        repo=repo,
        cwd=inp.cwd,
        source=inp.source,
        file=inp.file,
        since=parse_when(inp.since, now, "since"),
        before=parse_when(inp.before, now, "before"),
    )


def resolve_id(store: SessionsStore, given: str) -> SessionRow:
    """The session named by an id or a unique prefix; a prefix shared by a session and its subagents means it."""

    def the_session(matches: list[str]) -> str | None:
        roots = {m.split(":", 1)[0] for m in matches}
        root = next(iter(roots)) if len(roots) == 1 else None
        return root if root in matches else None

    return resolve_prefix(
        given,
        get=store.get,
        starting_with=lambda prefix, limit: store.resolve_prefix(prefix, limit=limit),
        what="indexed session",
        field="id",
        list_hint="run `pallium sessions sync`, or list sessions with `pallium sessions find`",
        choose=the_session,
    )
