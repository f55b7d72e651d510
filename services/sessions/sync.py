"""Index new and changed transcripts into the sessions tables, incrementally and safely.

An unchanged file costs one `stat`. A file that only grew (same inode, same bytes up to the stored
offset) is read from that offset with the parse state the last sync stored; anything else is
reparsed from the start. A last line without its newline may still be being written: it is left
for the next sync. Each file is written in one transaction, so an interrupted sync leaves every
session either as it was or fully updated; a process-wide lock keeps two syncs from interleaving.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel import paths
from kernel.errors import PalliumError
from kernel.secrets import redact
from services.sessions import capsule as capsules
from services.sessions import parse_claude, parse_codex, transcript
from services.sessions.store import FileRow, MessageRow, SessionsStore

__all__ = ["MAX_LINE_BYTES", "SyncReport", "default_homes", "lock_path", "sync"]

MAX_LINE_BYTES = 16 * 1024 * 1024  # a record longer than this is skipped and counted, never parsed
_HEAD_BYTES = 4096
_TAIL_BYTES = 256
_RAW_EVENT_CHARS = 20_000
_PARSERS = {"claude": parse_claude, "codex": parse_codex}


@dataclass
class SyncReport:
    homes: list[dict[str, Any]] = field(default_factory=list)
    files_seen: int = 0
    files_unchanged: int = 0
    files_new: int = 0
    files_appended: int = 0
    files_reparsed: int = 0
    files_skipped_forgotten: int = 0
    files_unreadable: list[dict[str, str]] = field(default_factory=list)
    sessions_updated: list[str] = field(default_factory=list)
    sessions_marked_missing: list[str] = field(default_factory=list)
    messages_added: int = 0
    bytes_read: int = 0
    malformed_lines: int = 0
    oversized_lines: int = 0
    partial_lines_left: int = 0
    redactions: int = 0


def lock_path() -> Path:
    """The lock two syncs (from any process) share."""
    return paths.pallium_home() / "locks" / "sessions-sync.lock"


def default_homes(claude_home: str | None, codex_home: str | None) -> dict[str, Path]:
    """The transcript homes: explicit arguments, then the tools' own variables, then ~/.claude and ~/.codex."""
    claude = claude_home or os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    codex = codex_home or os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")
    return {"claude": Path(claude).expanduser(), "codex": Path(codex).expanduser()}


def sync(
    store: SessionsStore,
    homes: dict[str, Path],
    *,
    now: str,
    raw_events: bool = False,
    on_progress: Callable[[int, int, str], None] | None = None,
) -> SyncReport:
    """Index every transcript under `homes` ({source: home}) that is new or changed since the last sync."""
    report = SyncReport()
    found: list[tuple[str, Path]] = []
    for source, home in homes.items():
        exists = home.is_dir()
        files = _PARSERS[source].discover(home) if exists else []
        report.homes.append({"source": source, "path": str(home), "exists": exists, "files": len(files)})
        found += [(source, f) for f in files]
    report.files_seen = len(found)
    forgotten = store.forgotten_ids()
    known = {source: store.files(source) for source in homes}
    repos: dict[str, str | None] = {}
    for done, (source, path) in enumerate(found, 1):
        _sync_file(store, source, path, known[source].get(str(path)), forgotten, repos, raw_events, now, report)
        if on_progress is not None:
            on_progress(done, len(found), path.name)
    for source, home in homes.items():
        present = {str(p) for s, p in found if s == source}
        prefix = str(home).rstrip("/") + "/"
        gone = [p for p, row in known[source].items() if p.startswith(prefix) and p not in present and not row.missing]
        if gone:
            with store.db.transaction():
                report.sessions_marked_missing += store.mark_files_missing(gone)
    return report


def _sync_file(
    store: SessionsStore,
    source: str,
    path: Path,
    previous: FileRow | None,
    forgotten: set[str],
    repos: dict[str, str | None],
    raw_events: bool,
    now: str,
    report: SyncReport,
) -> None:
    try:
        st = path.stat()
    except OSError as exc:
        report.files_unreadable.append({"path": str(path), "reason": exc.strerror or type(exc).__name__})
        return
    if (
        previous is not None
        and not previous.missing
        and (previous.size, previous.mtime_ns, previous.inode)
        == (
            st.st_size,
            st.st_mtime_ns,
            st.st_ino,
        )
    ):
        report.files_unchanged += 1
        return
    identity = _PARSERS[source].identify(path)
    session_id = previous.session_id if previous is not None else identity["id"]
    if session_id in forgotten:
        report.files_skipped_forgotten += 1
        return
    try:
        with path.open("rb") as handle:
            resume = previous is not None and _only_grew(handle, previous, st)
            with store.db.transaction():
                _read_into(
                    store,
                    source,
                    handle,
                    path,
                    st,
                    identity,
                    session_id,
                    previous if resume else None,
                    repos,
                    raw_events,
                    now,
                    report,
                )
    except OSError as exc:  # vanished or unreadable mid-read: the transaction rolled back, nothing half-written
        report.files_unreadable.append({"path": str(path), "reason": exc.strerror or type(exc).__name__})
        return
    if previous is None:
        report.files_new += 1
    elif resume:
        report.files_appended += 1
    else:
        report.files_reparsed += 1
    report.sessions_updated.append(session_id)


def _read_into(
    store: SessionsStore,
    source: str,
    handle: Any,
    path: Path,
    st: os.stat_result,
    identity: dict[str, Any],
    session_id: str,
    resume_from: FileRow | None,
    repos: dict[str, str | None],
    raw_events: bool,
    now: str,
    report: SyncReport,
) -> None:
    parser = _PARSERS[source]
    state = store.session_state(session_id) if resume_from is not None else None
    if not state or "session" not in state:
        resume_from = None
        state = transcript.new_state({k: v for k, v in identity.items() if k != "id"})
        store.clear_messages(session_id)
    offset = resume_from.offset if resume_from else 0
    line_no = resume_from.lines if resume_from else 0
    malformed = resume_from.malformed if resume_from else 0
    redactions_before = state["redactions"]
    handle.seek(offset)
    rows: list[MessageRow] = []
    raws: list[tuple[int, str]] = []
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        if not raw.endswith(b"\n"):
            if len(raw) <= MAX_LINE_BYTES:
                report.partial_lines_left += 1  # still being written: the next sync reads it whole
                break
            while raw and not raw.endswith(b"\n"):  # skip the rest of an oversized record
                offset += len(raw)
                raw = handle.readline(MAX_LINE_BYTES)
            offset += len(raw)
            line_no += 1
            report.oversized_lines += 1
            continue
        offset += len(raw)
        line_no += 1
        report.bytes_read += len(raw)
        try:
            record = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            record = None
        if not isinstance(record, dict):
            if raw.strip():
                malformed += 1
                report.malformed_lines += 1
            continue
        for m in parser.feed(state, line_no, record):
            rows.append(
                MessageRow(session_id, m.line, m.ts, m.role, m.kind, m.text, m.tool_name, m.call_id, m.is_error)
            )
        if raw_events:
            text, _ = redact(raw.decode("utf-8", errors="replace").rstrip("\n"))
            raws.append((line_no, text[:_RAW_EVENT_CHARS]))
    store.add_messages(rows)
    if raws:
        store.add_raw_events(session_id, raws)
    state["messages"] += len(rows)
    report.messages_added += len(rows)
    report.redactions += state["redactions"] - redactions_before
    _save_session(store, source, session_id, state, repos, now)
    store.put_file(
        FileRow(
            path=str(path),
            session_id=session_id,
            source=source,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            inode=st.st_ino,
            offset=offset,
            lines=line_no,
            head_hash=_fingerprint(handle, offset),
            malformed=malformed,
            missing=False,
        ),
        now,
    )


def _save_session(
    store: SessionsStore, source: str, session_id: str, state: dict[str, Any], repos: dict[str, str | None], now: str
) -> None:
    session = state["session"]
    usage = _PARSERS[source].usage_totals(state)
    status, _, finished_at = capsules.completion(state)
    cwd = session.get("cwd")
    if cwd not in repos:
        repos[cwd] = _repo_of(cwd)
    capsule = capsules.build(state, usage)
    store.put_session(
        {
            "id": session_id,
            "source": source,
            "native_id": session.get("native_id") or session_id,
            "agent_id": session.get("agent_id"),
            "parent_id": session.get("parent_id"),
            "parent_tool_use_id": session.get("parent_tool_use_id"),
            "agent_type": session.get("agent_type"),
            "cwd": cwd,
            "repo": repos[cwd],
            "git_branch": session.get("git_branch"),
            "title": session.get("title"),
            "model": session.get("model"),
            "cli_version": session.get("cli_version"),
            "created_at": session.get("created_at"),
            "updated_at": session.get("updated_at"),
            "finished_at": finished_at,
            "message_count": state["messages"],
            "completion": status,
            "source_missing": 0,
            "indexed_at": now,
        },
        state,
        capsule,
    )


def _only_grew(handle: Any, previous: FileRow, st: os.stat_result) -> bool:
    """True when the file still starts with the bytes the last sync read (so only new bytes follow)."""
    if st.st_ino != previous.inode or st.st_size < previous.offset:
        return False
    return _fingerprint(handle, previous.offset) == previous.head_hash


def _fingerprint(handle: Any, offset: int) -> str:
    """A hash of the first 4 KB and the 256 bytes before `offset`: cheap, and changes when a file is rewritten."""
    handle.seek(0)
    head = handle.read(min(offset, _HEAD_BYTES))
    start = max(0, offset - _TAIL_BYTES)
    handle.seek(start)
    tail = handle.read(offset - start)
    handle.seek(offset)
    return hashlib.sha1(head + b"\0" + tail, usedforsecurity=False).hexdigest()


def _repo_of(cwd: str | None) -> str | None:
    """The git root holding `cwd` when it still exists on this machine, else `cwd` itself."""
    if not cwd:
        return None
    try:
        return str(paths.find_repo_root(cwd))
    except PalliumError:
        return cwd
