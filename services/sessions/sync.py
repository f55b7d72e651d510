"""Index new and changed transcripts into the sessions tables, incrementally and safely.

An unchanged file costs one `stat`. A file that only grew (same inode, same bytes up to the stored
offset) is read from that offset with the parse state the last sync stored; anything else is
reparsed from the start. A last line without its newline may still be being written: it is left
for the next sync. Each file is written in one transaction, so an interrupted sync leaves every
session either as it was or fully updated; a process-wide lock keeps two syncs from interleaving.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel import offload, paths
from kernel.crashpoints import crash_point
from kernel.errors import PalliumError
from kernel.paths import path_text
from services.sessions import capsule as capsules
from services.sessions import parse_claude, parse_codex, transcript
from services.sessions.rows import FileRow, MessageRow
from services.sessions.store import SessionsStore
from services.sessions.transcript import text_safe

__all__ = ["MAX_LINE_BYTES", "SyncReport", "default_homes", "lock_path", "sync"]

MAX_LINE_BYTES = 16 * 1024 * 1024  # a record longer than this is skipped and counted, never parsed
_HEAD_BYTES = 4096
_TAIL_BYTES = 256
_RAW_EVENT_CHARS = 20_000
_GROUP_FILES = 100
_GROUP_BYTES = 16 * 1024 * 1024
# Below this much to read, a child process's start (about 0.1 s) costs more than it saves.
_OFFLOAD_BYTES = 8 * 1024 * 1024
_OFFLOAD_AHEAD = 32  # parsed files a child may have waiting, so it rarely waits on this process
_OFFLOAD_CHILDREN = 2  # with 2 cores: two parsing children and this process writing kept both busy
_PARSERS = {"claude": parse_claude, "codex": parse_codex}
_PATH_FIELDS = ("id", "native_id", "agent_id", "parent_id")


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
    """Index every transcript under `homes` ({source: home}) that is new or changed since the last sync.

    Files are parsed and written one after the other. Parsing in a thread beside the writes was
    slower (a 34 MB corpus: 2.1 s against 1.9 s): apsw takes the GIL back for every row it binds,
    and the parser, pure Python, holds it, so the inserts waited on the parser.
    """
    report = SyncReport()
    found: list[tuple[str, Path]] = []
    for source, home in homes.items():
        exists = home.is_dir()
        files = _PARSERS[source].discover(home) if exists else []
        report.homes.append({"source": source, "path": path_text(home), "exists": exists, "files": len(files)})
        found += [(source, f) for f in files]
    report.files_seen = len(found)
    forgotten = store.forgotten_ids()
    known = {source: store.files(source) for source in homes}
    repos: dict[str, str | None] = {}
    jobs = []
    for source, path in found:
        job = _plan(store, source, path, known[source].get(path_text(path)), forgotten, report, raw_events)
        if job is not None:
            jobs.append(job)
    with _Group(store, store.session_ids()) as group:
        for done, parsed in enumerate(_parsed_in_turn(jobs, raw_events), 1):
            group.write(parsed, repos, now, report)
            if on_progress is not None:
                on_progress(done, len(jobs), path_text(parsed.job.path.name))
    for source, home in homes.items():
        present = {path_text(p) for s, p in found if s == source}
        prefix = path_text(home).rstrip("/") + "/"
        gone = [p for p, row in known[source].items() if p.startswith(prefix) and p not in present and not row.missing]
        if gone:
            with store.db.transaction():
                report.sessions_marked_missing += store.mark_files_missing(gone)
    read = report.files_new + report.files_appended + report.files_reparsed
    store.record_run(now, report.files_seen, read)
    store.finish_purge()  # a forget that another reader held back is completed by the next write
    return report


class _Group:
    """Commit written files in groups: each file in its own savepoint (so a failure rolls back that file
    alone), the group in one transaction, because each commit flushes a new FTS5 segment and a commit
    per small file cost more than the file's parse. A group is kept short (files and bytes) so that
    other writers wait at most about a second.

    The group's new messages enter the full-text index in one statement just before it commits: FTS5
    writes a segment at the end of every statement that changes it, and one per file (or per row)
    cost about four times the indexing itself in merges. Every message up to `indexed_to` is indexed;
    a file that replaces a session's indexed messages first indexes what is pending, so the delete
    never meets a message the index does not hold, and is then indexed at once."""

    def __init__(self, store: SessionsStore, sessions: set[str]) -> None:
        self.store = store
        self.sessions = sessions  # ids that may hold messages already; a new one needs no delete
        self.stack = contextlib.ExitStack()
        self.files = 0
        self.bytes = 0
        self.indexed_to = 0

    def write(self, parsed: _Parsed, repos: dict[str, str | None], now: str, report: SyncReport) -> None:
        if self.files == 0:
            self.stack.enter_context(self.store.db.transaction())
            self.indexed_to = self.store.message_id_span()
        job = parsed.job
        known = job.session_id in self.sessions
        replaces = job.resume_from is None and known and self.store.has_messages(job.session_id)
        if replaces:
            self.flush()
        _write(self.store, parsed, repos, now, report, index_now=replaces, clear=job.resume_from is None and known)
        self.sessions.add(job.session_id)
        if replaces:
            self.indexed_to = self.store.message_id_span()  # the delete may have lowered the highest id
        self.files += 1
        self.bytes += parsed.bytes_read
        if self.files >= _GROUP_FILES or self.bytes >= _GROUP_BYTES:
            self.close()

    def flush(self) -> None:
        """Index the messages written since `indexed_to`."""
        if self.store.message_id_span() > self.indexed_to:
            self.store.index_messages_after(self.indexed_to)
        self.indexed_to = self.store.message_id_span()

    def close(self) -> None:
        with self.stack:  # commits; rolls the whole group back if indexing it fails
            if self.files:
                self.flush()
        self.files = self.bytes = 0

    def __enter__(self) -> _Group:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is None:
            self.close()
        else:  # the group's transaction rolls back, messages and index alike
            self.stack.__exit__(kind, *exc)


@dataclass
class _Job:
    """A file to read: where from, and the parse state to continue with."""

    source: str
    path: Path
    session_id: str
    identity: dict[str, Any]
    state: dict[str, Any] | None  # None: parse from the start
    resume_from: FileRow | None
    kind: str  # new, appended, reparsed
    pending_bytes: int = 0  # what there is to read, at most


@dataclass
class _Parsed:
    job: _Job
    state: dict[str, Any] = field(default_factory=dict)
    rows: list[MessageRow] = field(default_factory=list)
    raws: list[tuple[int, str]] = field(default_factory=list)
    file: FileRow | None = None
    error: str | None = None
    bytes_read: int = 0
    malformed: int = 0
    oversized: int = 0
    partial: int = 0
    redactions: int = 0


def _plan(
    store: SessionsStore,
    source: str,
    path: Path,
    previous: FileRow | None,
    forgotten: set[str],
    report: SyncReport,
    raw_events: bool = False,
) -> _Job | None:
    """Decide with one stat whether a file needs reading, and from where. With `raw_events`, an
    unchanged file whose session has no raw events yet is read again, so the flag keeps its word."""
    try:
        st = path.stat()
    except OSError as exc:
        report.files_unreadable.append({"path": path_text(path), "reason": exc.strerror or type(exc).__name__})
        return None
    unchanged = previous is not None and (previous.size, previous.mtime_ns, previous.inode) == (
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
    )
    reread = False
    if unchanged and not previous.missing:
        reread = raw_events and previous.session_id not in forgotten and not store.has_raw_events(previous.session_id)
        if not reread:
            report.files_unchanged += 1
            return None
    identity = _PARSERS[source].identify(path)
    for key in _PATH_FIELDS:  # taken from the file's name: text even when the name is not UTF-8
        if isinstance(identity.get(key), str):
            identity[key] = path_text(identity[key])
    session_id = previous.session_id if previous is not None else identity["id"]
    if session_id in forgotten:
        report.files_skipped_forgotten += 1
        return None
    state = store.session_state(session_id) if previous is not None else None
    if previous is None:
        return _Job(source, path, session_id, identity, None, None, "new", st.st_size)
    if reread:
        return _Job(source, path, session_id, identity, None, None, "reparsed", st.st_size)
    return _Job(source, path, session_id, identity, state, previous, "grown?", st.st_size - previous.offset)


def _parsed_in_turn(jobs: list[_Job], raw_events: bool) -> Iterator[_Parsed]:
    """Each job parsed, in order. On a large sync child processes parse the files (kernel.offload),
    one share each, while this process writes: parsing is pure Python, so threads cannot share it,
    and it is most of a cold sync's time. A child that fails leaves the rest of its share to this
    process; nothing is lost or written twice."""
    if sum(job.pending_bytes for job in jobs) < _OFFLOAD_BYTES or len(jobs) < 4 or not offload.worth_a_child():
        for job in jobs:
            yield _parse(job, raw_events)
        return
    count = min(_OFFLOAD_CHILDREN, os.cpu_count() or 1)
    with contextlib.ExitStack() as stack:
        answers: list[Iterator[_Parsed] | None] = []
        for share in range(count):
            try:
                work = [(job, raw_events) for job in jobs[share::count]]
                child = offload.Offload("services.sessions.sync:parse_job", work, ahead=_OFFLOAD_AHEAD)
            except offload.OffloadFailed:
                answers.append(None)
                continue
            answers.append(iter(stack.enter_context(child)))
        for number, job in enumerate(jobs):
            share = answers[number % count]
            if share is not None:
                try:
                    yield next(share)
                    continue
                except (offload.OffloadFailed, StopIteration):
                    answers[number % count] = None  # that child stopped: the rest of its share is parsed here
            yield _parse(job, raw_events)


def parse_job(work: tuple[_Job, bool]) -> _Parsed:
    """`_parse` for a child process (kernel.offload), which passes one argument."""
    job, raw_events = work
    crash_point("offloaded_parse")
    return _parse(job, raw_events)


def _parse(job: _Job, raw_events: bool) -> _Parsed:
    """Read and parse the new part of one file (no database access)."""
    out = _Parsed(job)
    try:
        with job.path.open("rb") as handle:
            st = os.fstat(handle.fileno())
            resume = job.resume_from
            if resume is not None and not (job.state and "session" in job.state and _only_grew(handle, resume, st)):
                resume = None
            if job.kind == "grown?":
                job.kind = "appended" if resume is not None else "reparsed"
            offset, lines = _read(handle, job, resume, raw_events, out)
            out.file = FileRow(
                path=path_text(job.path),
                session_id=job.session_id,
                source=job.source,
                size=st.st_size,
                mtime_ns=st.st_mtime_ns,
                inode=st.st_ino,
                offset=offset,
                lines=lines,
                head_hash=_fingerprint(handle, offset),
                malformed=out.malformed,
                missing=False,
            )
    except OSError as exc:  # vanished or unreadable mid-read: nothing of this file is written
        out.error = exc.strerror or type(exc).__name__
    return out


def _read(handle: Any, job: _Job, resume: FileRow | None, raw_events: bool, out: _Parsed) -> tuple[int, int]:
    """Parse complete lines from the resume point; return the offset and line count reached."""
    parser = _PARSERS[job.source]
    if resume is None:
        state = transcript.new_state({k: v for k, v in job.identity.items() if k != "id"})
        job.resume_from = None
    else:
        state = job.state or {}
    offset = resume.offset if resume else 0
    line_no = resume.lines if resume else 0
    out.malformed = resume.malformed if resume else 0
    redactions_before = state["redactions"]
    handle.seek(offset)
    while True:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        if not raw.endswith(b"\n"):
            if len(raw) <= MAX_LINE_BYTES:
                out.partial += 1  # still being written: the next sync reads it whole
                break
            while raw and not raw.endswith(b"\n"):  # skip the rest of an oversized record
                offset += len(raw)
                raw = handle.readline(MAX_LINE_BYTES)
            offset += len(raw)
            line_no += 1
            out.oversized += 1
            continue
        offset += len(raw)
        line_no += 1
        out.bytes_read += len(raw)
        try:
            record = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            record = None
        if not isinstance(record, dict):
            if raw.strip():
                out.malformed += 1
            continue
        for m in parser.feed(state, line_no, record):
            out.rows.append(
                MessageRow(job.session_id, m.line, m.ts, m.role, m.kind, m.text, m.tool_name, m.call_id, m.is_error)
            )
        if raw_events:
            text = json.dumps(transcript.redacted(record)[0], ensure_ascii=False, separators=(",", ":"))
            out.raws.append((line_no, text[:_RAW_EVENT_CHARS]))
    transcript.clean_session(state)
    state["messages"] += len(out.rows)
    out.redactions = state["redactions"] - redactions_before
    out.state = state
    return offset, line_no


def _write(
    store: SessionsStore,
    parsed: _Parsed,
    repos: dict[str, str | None],
    now: str,
    report: SyncReport,
    *,
    index_now: bool,
    clear: bool,
) -> None:
    """Store one parsed file in one savepoint: its messages, its session and its file row, or nothing."""
    job = parsed.job
    if parsed.error is not None or parsed.file is None:
        report.files_unreadable.append({"path": path_text(job.path), "reason": parsed.error or "unreadable"})
        return
    try:
        _store_file(store, parsed, repos, now, index_now, clear)
    except UnicodeEncodeError:  # a lone surrogate escaped in a record (`\udcff`): store it as U+FFFD
        parsed.rows = [dataclasses.replace(m, text=text_safe(m.text)) for m in parsed.rows]
        parsed.raws = [(line, text_safe(text)) for line, text in parsed.raws]
        parsed.state = text_safe(parsed.state)
        try:
            _store_file(store, parsed, repos, now, index_now, clear)
        except UnicodeEncodeError as exc:
            report.files_unreadable.append({"path": path_text(job.path), "reason": f"text not storable: {exc.reason}"})
            return
    report.bytes_read += parsed.bytes_read
    report.malformed_lines += parsed.malformed - (job.resume_from.malformed if job.resume_from else 0)
    report.oversized_lines += parsed.oversized
    report.partial_lines_left += parsed.partial
    report.redactions += parsed.redactions
    report.messages_added += len(parsed.rows)
    setattr(report, f"files_{job.kind}", getattr(report, f"files_{job.kind}") + 1)
    report.sessions_updated.append(job.session_id)


def _store_file(
    store: SessionsStore, parsed: _Parsed, repos: dict[str, str | None], now: str, index_now: bool, clear: bool
) -> None:
    job = parsed.job
    with store.db.transaction():  # a savepoint inside the group: a failure rolls back this file alone
        if clear:  # read from the start: what an earlier sync stored of this session goes
            store.clear_messages(job.session_id)
        store.add_messages(parsed.rows, index=index_now)
        if parsed.raws:
            store.add_raw_events(job.session_id, parsed.raws)
        _save_session(store, job.source, job.session_id, parsed.state, repos, now, parsed.rows)
        store.put_file(parsed.file, now)


def _save_session(
    store: SessionsStore,
    source: str,
    session_id: str,
    state: dict[str, Any],
    repos: dict[str, str | None],
    now: str,
    rows: Sequence[MessageRow] = (),
) -> None:
    session = state["session"]
    usage = _PARSERS[source].usage_totals(state)
    status, _, finished_at = capsules.completion(state)
    cwd = session.get("cwd")
    if cwd not in repos:
        repos[cwd] = _repo_of(cwd)
    repo = repos[cwd]
    if cwd and repo == cwd and not os.path.isdir(cwd):  # the checkout is gone: what the transcript recorded
        repo = _recorded_elsewhere(store, cwd, session.get("repository_url"), rows, repos) or repo
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
            "repo": repo,
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
    """The repository a session belongs to: the git root holding `cwd`, or for a linked worktree the
    main checkout its common git dir belongs to; when `cwd` is gone, what the path itself records (a
    worktree folder convention such as `<repo>/.claude/worktrees/<name>`), else `cwd`."""
    if not cwd:
        return None
    try:
        root = paths.find_repo_root(cwd)
    except PalliumError:
        return _recorded_repo(cwd)
    return str(_main_checkout(root))


_GITDIR = re.compile(r"gitdir:\s*(/[^\s\"'`]+?)/\.git/worktrees/[^\s/\"'`]+")
_REMOTE_URL = re.compile(r"^\s*url\s*=\s*(\S+)", re.M)


def _recorded_elsewhere(
    store: SessionsStore, cwd: str, remote: str | None, rows: Sequence[MessageRow], repos: dict[Any, str | None]
) -> str | None:
    """The main repository of a worktree whose folder is gone, from what was recorded: an earlier sync
    that saw the folder (another session in the same folder), a `gitdir: <repo>/.git/worktrees/<name>`
    the transcript shows, or the remote URL the session recorded (Codex's `git.repository_url`) matching
    the remote of a repository whose checkout is still here."""
    earlier = store.repo_recorded_for(cwd)
    if earlier:
        return earlier
    for row in rows:
        if row.text and "gitdir:" in row.text:
            found = _GITDIR.search(row.text)
            if found:
                return found.group(1)
    if not remote:
        return None
    key = ("remote", _normal_remote(remote))
    if key not in repos:
        repos[key] = None
        for known in store.repositories():
            config = Path(known) / ".git" / "config"
            try:
                text = config.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if any(_normal_remote(url) == key[1] for url in _REMOTE_URL.findall(text)):
                repos[key] = known
                break
    return repos[key]


def _normal_remote(url: str) -> str:
    """`git@github.com:acme/shop.git`, `https://github.com/acme/shop` and `ssh://git@github.com/acme/shop.git`
    are one remote: host and path, lowercase, without scheme, user or `.git`."""
    url = url.strip().rstrip("/")
    url = re.sub(r"^[a-z][a-z0-9+.-]*://", "", url, flags=re.I)
    url = re.sub(r"^[^@/]+@", "", url)
    url = re.sub(r"^([^/:]+):(?!\d+/)", r"\1/", url)  # scp-like `host:path`
    url = re.sub(r":\d+/", "/", url)
    return url.removesuffix(".git").lower()


_WORKTREE_FOLDERS = ("/.claude/worktrees/", "/.worktrees/", "/.git/worktrees/")


def _recorded_repo(cwd: str) -> str:
    for marker in _WORKTREE_FOLDERS:
        head, found, _ = cwd.partition(marker)
        if found and head:
            return head
    return cwd


def _main_checkout(root: Path) -> Path:
    """`root` itself, or the main working tree when `root` is a linked worktree (`.git` is a file whose
    git dir has a `commondir`; a submodule's has none and stays its own repository)."""
    marker = root / ".git"
    if not marker.is_file():
        return root
    try:
        line = marker.read_text(encoding="utf-8", errors="replace").strip()
        gitdir = (root / line.removeprefix("gitdir:").strip()).resolve()
        common = (gitdir / (gitdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return root
    return common.parent if common.name == ".git" else root
