"""`sessions find`: questions about sessions' metadata, read into explicit filters and echoed back.

The reading is deliberately plain (a few patterns, no model): "finished a few minutes ago",
"unfinished in this repo", "updated most recently", "inactive for 3 hours". Whatever the question
says, explicit arguments win, and the answer states the filters it applied so automation can pass
them directly next time. Unknown completion is never counted as unfinished.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from kernel.clock import iso_utc
from services.sessions.models import FindInput, FindOutput
from services.sessions.rows import Filters
from services.sessions.store import SessionsStore
from services.sessions.views import freshness, parse_duration, summary

__all__ = ["find", "interpret"]

_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}
_UNITS = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)"
_AMOUNT = r"(\d+|a|an|one|two|three|four|five|ten|few|a few|several)\s*" + _UNITS
_UNIT = {"s": "s", "m": "m", "h": "h", "d": "d", "w": "w"}
# A vague amount ("a few minutes") is read as a generous window of that unit; a stated one is exact.
_VAGUE = {"s": "1m", "m": "30m", "h": "6h", "d": "7d", "w": "4w"}
_NOT_FINISHED = re.compile(
    r"(?i)\b(unfinished|not finished|incomplete|still open|half[- ]done|stopped mid|open work)\b"
)
_FINISHED = re.compile(r"(?i)\b(finished|completed|done|ended)\b")
_UNKNOWN = re.compile(r"(?i)\bunknown\b")
_THIS_REPO = re.compile(r"(?i)\b(this|the current|current) (repo|repository|project)\b")
_CREATED = re.compile(r"(?i)\b(created|started|newest sessions?|began)\b")
_AGO = re.compile(r"(?i)\b" + _AMOUNT + r"\s+ago\b")
_WITHIN = re.compile(r"(?i)\b(?:in|within|during) the (?:last|past)\s+" + _AMOUNT)
_WITHIN_ONE = re.compile(r"(?i)\b(?:in|within|during) the (?:last|past)\s+()" + _UNITS)  # "the past hour"
_INACTIVE = re.compile(
    r"(?i)\b(?:inactive|idle|quiet|untouched|no activity)\s+(?:for|since)\s+(?:over\s+|more than\s+)?" + _AMOUNT
)
_CODEX = re.compile(r"(?i)\bcodex\b")
_CLAUDE = re.compile(r"(?i)\bclaude\b")


def interpret(question: str) -> dict[str, Any]:
    """Filters a question asks for, as explicit-argument values (durations as text like `10m`)."""
    found: dict[str, Any] = {}
    if _NOT_FINISHED.search(question):
        found["completion"] = "not_finished"
    elif _UNKNOWN.search(question):
        found["completion"] = "unknown"
    elif _FINISHED.search(question):
        found["completion"] = "finished"
        window = _AGO.search(question) or _WITHIN.search(question) or _WITHIN_ONE.search(question)
        if window:
            found["finished_within"] = _as_duration(window)
        elif re.search(r"(?i)\b(just|recently|a moment ago)\b", question):
            found["finished_within"] = "1h"
    inactive = _INACTIVE.search(question)
    if inactive:
        found["inactive_for"] = _as_duration(inactive)
    if _THIS_REPO.search(question):
        found["repo"] = "."
    if _CODEX.search(question) and not _CLAUDE.search(question):
        found["source"] = "codex"
    elif _CLAUDE.search(question) and not _CODEX.search(question):
        found["source"] = "claude"
    found["sort"] = "created" if _CREATED.search(question) and "updated" not in question.lower() else "updated"
    return found


def find(store: SessionsStore, inp: FindInput, now: datetime, repo_root: str | None) -> FindOutput:
    asked = interpret(inp.question) if inp.question else {}
    explicit = {
        k: v
        for k, v in {
            "completion": inp.completion,
            "inactive_for": inp.inactive_for,
            "finished_within": inp.finished_within,
            "sort": inp.sort,
            "repo": inp.repo,
            "source": inp.source,
        }.items()
        if v is not None
    }
    applied = {**asked, **explicit}
    named = None
    if inp.question and "repo" not in applied:
        named = _named_repository(inp.question, store.repositories())
        if named is not None:
            applied["repo"] = named
    if applied.get("finished_within") and "completion" not in explicit:
        applied["completion"] = "finished"
    applied.setdefault("sort", "updated")
    repo = named or (repo_root if applied.get("repo") is not None else None)
    if repo is not None:
        applied["repo"] = repo
    filters = Filters(
        repo=repo,
        source=applied.get("source"),
        completion=applied.get("completion"),
        updated_before=iso_utc(now - parse_duration(applied["inactive_for"], "inactive_for"))
        if applied.get("inactive_for")
        else None,
        finished_after=iso_utc(now - parse_duration(applied["finished_within"], "finished_within"))
        if applied.get("finished_within")
        else None,
        top_level=True,
    )
    rows = store.list_sessions(filters, sort=applied["sort"], limit=inp.limit + 1)
    return FindOutput(
        interpretation=_describe(applied, bool(inp.question), named),
        filters=applied,
        sessions=[summary(r) for r in rows[: inp.limit]],
        capsules={r.id: r.capsule for r in rows[: inp.limit]} if inp.details else None,
        truncated=len(rows) > inp.limit,
        freshness=freshness(store),
    )


def _named_repository(question: str, repositories: list[str]) -> str | None:
    """The indexed repository the question names by its folder name ("what is unfinished in web-app?"),
    the most recently active one when several share the name."""
    lowered = question.lower()
    for repo in repositories:
        name = repo.rstrip("/").rsplit("/", 1)[-1].lower()
        if len(name) < 2 or name in _COMMON_WORDS:
            continue
        if re.search(r"(?<![\w./-])" + re.escape(name) + r"(?![\w/-])", lowered):
            return repo
    return None


_COMMON_WORDS = frozenset({"repo", "repository", "project", "code", "src", "app", "work", "home", "this", "the"})


def _as_duration(match: re.Match[str]) -> str:
    """`10 minutes` -> `10m`, `the past hour` -> `1h`; vague amounts (`a few minutes`) a generous window (`30m`)."""
    amount_text, unit_text = match.group(1).lower(), match.group(2).lower()
    unit = _UNIT[unit_text[0]]
    if amount_text.split()[-1:] in (["few"], ["several"]):
        return _VAGUE[unit]
    amount = int(amount_text) if amount_text.isdigit() else _NUMBER_WORDS.get(amount_text, 1)
    return _compact(parse_duration(f"{amount}{unit}", "question"))


def _compact(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0 and seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _describe(applied: dict[str, Any], from_question: bool, named: str | None = None) -> str:
    parts = []
    if applied.get("completion"):
        parts.append(
            {"finished": "finished", "not_finished": "not finished", "unknown": "of unknown completion"}[
                applied["completion"]
            ]
        )
    if applied.get("finished_within"):
        parts.append(f"finished within the last {applied['finished_within']}")
    if applied.get("inactive_for"):
        parts.append(f"with no activity for {applied['inactive_for']}")
    if named:
        folder = named.rstrip("/").rsplit("/", 1)[-1]
        parts.append(f"in {named} (the repository named {folder!r} in the question)")
    elif applied.get("repo"):
        parts.append(f"in {applied['repo']}")
    if applied.get("source"):
        parts.append(f"from {applied['source']}")
    what = "sessions " + ", ".join(parts) if parts else "all sessions"
    order = "most recently created first" if applied["sort"] == "created" else "most recently updated first"
    prefix = "read the question as: " if from_question else ""
    return f"{prefix}{what}, {order}"
