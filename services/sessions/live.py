"""`sessions live`: running claude and codex processes, matched to their sessions, with a lifecycle.

A process is matched to its session by Claude Code's registry (`<home>/sessions/<pid>.json`), by a
rollout file Codex holds open, or else by the newest session indexed for its working folder. The
lifecycle comes from the indexed transcript (open tool calls, the end of the last turn, the age of
the last record) and the process state: `stuck` needs long silence AND a stopped or
uninterruptible process, never silence alone.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from kernel.clock import iso_utc, parse_iso
from services.sessions import parse_codex
from services.sessions.models import LiveOutput, LiveSession
from services.sessions.rows import Filters, SessionRow
from services.sessions.store import SessionsStore

__all__ = ["classify", "snapshot"]

ACTIVE_SECONDS = 60  # a record this recent means the agent is working
BLOCKED_SECONDS = 30  # an unanswered tool call quiet for longer is probably waiting for a human
WAITING_SECONDS = 30 * 60  # after a finished turn, waiting for the next prompt; later, idle
RECENT_HOURS = 24  # sessions without a process shown (unless running_only) when active this recently
COVERAGE = [
    "processes named claude or codex (and node/bun running their CLIs), via psutil",
    "Claude Code's session registry <claude home>/sessions/<pid>.json",
    "rollout files held open by codex processes",
    "the indexed transcripts (synced before answering)",
]
EXCLUSIONS = [
    "shells, tmux or screen sessions, SSH sessions and browsers are not inventoried",
    "agents other than Claude Code and Codex are not detected",
    "processes of other users may be invisible",
]
_HALTED = {"stopped", "tracing-stop", "disk-sleep"}


def snapshot(
    store: SessionsStore,
    homes: dict[str, Path],
    *,
    now: datetime,
    running_only: bool,
    details: bool,
    stuck_after: float,
) -> LiveOutput:
    found: list[LiveSession] = []
    matched: set[str] = set()
    for source, proc in _agent_processes():
        info = proc.info
        row, how, registry = _match(store, homes, source, proc)
        if row is not None:
            matched.add(row.id)
        lifecycle, why = classify(row, info.get("status"), now, stuck_after, registry.get("status"))
        found.append(_entry(source, info, row, how, lifecycle, why, now, details))
    if not running_only:
        recent = store.list_sessions(Filters(since=iso_utc(now - timedelta(hours=RECENT_HOURS))), limit=50)
        for row in recent:
            if row.id in matched or row.parent_id is not None:
                continue
            lifecycle, why = classify(row, None, now, stuck_after, None)
            found.append(_entry(row.source, {}, row, None, lifecycle, why, now, details))
    return LiveOutput(generated_at=iso_utc(now), sessions=found, coverage=COVERAGE, exclusions=EXCLUSIONS)


def classify(
    row: SessionRow | None, process_status: str | None, now: datetime, stuck_after: float, registry_status: Any
) -> tuple[str, str]:
    """(lifecycle, why) of a session given its process state (None when no process runs)."""
    if row is None:
        return "idle", "process found, but no indexed session matches it yet"
    silent = _silent(row, now)
    evidence = row.capsule.get("evidence") or row.completion
    if process_status is None:
        note = " (ended mid-task)" if row.completion == "not_finished" else ""
        return "finished", f"no process{note}: {evidence}"
    if process_status in _HALTED and silent is not None and silent >= stuck_after:
        return "stuck", f"process is {process_status} and the transcript has been silent for {int(silent)}s"
    open_calls = row.capsule.get("open_calls") or []
    end = row.capsule.get("end_state")
    if registry_status == "waiting":
        return "blocked", "Claude's registry says it is waiting (a permission prompt)"
    if end in ("turn_aborted", "interrupted"):
        open_calls = []  # the interrupt ended those calls: the agent waits for the user
    if open_calls:
        if silent is not None and silent < BLOCKED_SECONDS:
            return "active", f"running {open_calls[-1]['tool']} (line {open_calls[-1]['line']})"
        return (
            "blocked",
            f"{open_calls[-1]['tool']} call at line {open_calls[-1]['line']} has had no result for "
            f"{int(silent or 0)}s: probably waiting for approval or a long command",
        )
    if row.completion == "not_finished" and end not in ("turn_aborted", "interrupted"):
        if silent is not None and silent < ACTIVE_SECONDS:
            return "active", "a turn is in progress"
        silent_for = int(silent or 0)
        return "idle", f"a turn is open but silent for {silent_for}s: nothing shows it working (silence alone is idle)"
    if silent is not None and silent < WAITING_SECONDS:
        return "waiting", f"turn ended ({evidence}); waiting for the next prompt"
    return "idle", f"turn ended ({evidence}); nothing for {int(silent or 0)}s"


def _agent_processes() -> list[tuple[str, Any]]:
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "name", "cmdline", "status", "cwd", "create_time"]):
        source = _source_of(proc.info.get("name") or "", proc.info.get("cmdline") or [])
        if source is not None and proc.info["pid"] != os.getpid():
            found.append((source, proc))
    return found


def _source_of(name: str, cmdline: list[str]) -> str | None:
    name = name.lower()
    if name in ("claude", "codex"):
        return name
    if name in ("node", "bun") and len(cmdline) > 1:
        for arg in cmdline[1:3]:
            base = os.path.basename(arg)
            if base in ("codex", "codex.js") or "@openai/codex" in arg:
                return "codex"
            if base in ("claude", "cli.js") and "claude" in arg:
                return "claude"
    return None


def _match(
    store: SessionsStore, homes: dict[str, Path], source: str, proc: Any
) -> tuple[SessionRow | None, str | None, dict[str, Any]]:
    pid = proc.info["pid"]
    registry: dict[str, Any] = {}
    if source == "claude":
        try:
            registry = json.loads((homes["claude"] / "sessions" / f"{pid}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            registry = {}
        if not isinstance(registry, dict) or _stale(registry, proc.info.get("create_time")):
            registry = {}
        session_id = registry.get("sessionId")
        row = store.get(session_id) if isinstance(session_id, str) else None
        if row is not None:
            return row, "registry", registry
    else:
        for path in _open_rollouts(proc, homes["codex"]):
            row = store.get(parse_codex.identify(path)["id"])
            if row is not None:
                return row, "open_file", registry
    cwd = proc.info.get("cwd") or registry.get("cwd")
    if cwd:
        rows = store.list_sessions(Filters(cwd=cwd, source=source), limit=5)
        row = next((r for r in rows if r.parent_id is None), None)
        if row is not None:
            return row, "cwd", registry
    return None, None, registry


def _stale(registry: dict[str, Any], create_time: float | None) -> bool:
    """A registry file left by a crashed claude whose pid now belongs to a newer process.

    The process starts before it registers its session, so a process that started well after the
    registry's `startedAt` is not the one that wrote it.
    """
    started = registry.get("startedAt")
    if not isinstance(started, (int, float)) or create_time is None:
        return False
    return create_time * 1000 > started + 60_000


def _open_rollouts(proc: Any, home: Path) -> list[Path]:
    try:
        files = proc.open_files()
    except Exception:  # psutil.AccessDenied / NoSuchProcess: nothing to learn from this process
        return []
    prefix = str(home)
    return [Path(f.path) for f in files if f.path.startswith(prefix) and "rollout-" in f.path]


def _silent(row: SessionRow, now: datetime) -> float | None:
    if not row.updated_at:
        return None
    return max(0.0, (now - parse_iso(row.updated_at)).total_seconds())


def _entry(
    source: str,
    info: dict[str, Any],
    row: SessionRow | None,
    how: str | None,
    lifecycle: str,
    why: str,
    now: datetime,
    details: bool,
) -> LiveSession:
    silent = _silent(row, now) if row is not None else None
    return LiveSession(
        source=source,  # type: ignore[arg-type]
        pid=info.get("pid"),
        process_status=info.get("status"),
        cwd=info.get("cwd") or (row.cwd if row else None),
        session_id=row.id if row else None,
        matched_by=how,
        title=(row.title if row else None),
        lifecycle=lifecycle,  # type: ignore[arg-type]
        why=why,
        silent_seconds=int(silent) if silent is not None else None,
        last_activity_at=row.updated_at if row else None,
        completion=row.completion if row else None,  # type: ignore[arg-type]
        capsule=row.capsule if (row is not None and details) else None,
        cmdline=info.get("cmdline") if details else None,
    )
