"""History beyond the working tree: a file's life across renames and deletion, and hotspots.

The git half records what each commit did to each path (added, modified, deleted, renamed from
an old path), so a path that is gone still has an answer: the commits that touched it, the one
that deleted or renamed it, and its new name. Hotspots rank the files of the tree by how often
they changed in a window, with the lines changed read once per commit (`git log --numstat`,
stored, so a second ask reads only newer commits) and weighted by how many files import them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kernel import clock
from kernel.errors import PalliumError
from kernel.paths import path_text
from services.repo.history_read import read_log
from services.repo.index_git import MAX_CHANGESET, is_noise, partial_clone
from services.repo.models import FileHistory, Hotspot, HotspotsOutput, RecentCommit
from services.repo.resolve import resolve_imports
from services.repo.rows import CommitRow, ExitRow
from services.repo.store import RepoStore

__all__ = [
    "Forward",
    "current_name",
    "earlier_file",
    "file_history",
    "former_names",
    "hotspots",
    "old_path_importers",
    "parse_since",
    "scored_path",
]

_METRIC = "commits x (1 + log2(1 + fan_in)), then lines changed: how often a file changes, weighted by its reach"


def _commit(c: CommitRow | None) -> RecentCommit | None:
    if c is None:
        return None
    when = clock.iso_utc(datetime.fromtimestamp(c.committed_at, UTC))
    return RecentCommit(sha=c.sha, committed_at=when, author=c.author, subject=c.subject)


def file_history(store: RepoStore, path: str, *, present: bool) -> FileHistory:
    """Where `path` came from, and, when it is no longer in the tree, how it left."""
    lineage = store.lineage(path)
    commits = store.history_of(path, since=0, max_files=10**9)["revisions"]
    added = _commit(store.added_in(path))
    former = [life.name for life in lineage[1:]]
    earlier = earlier_file(store, path)
    before = _commit(earlier.commit) if earlier is not None else None
    if present:
        into = store.rename_into(path) if former else None
        renamed = _commit(into[0]) if into is not None else None
        return FileHistory(
            state="present",
            added_in=added,
            renamed_in=renamed,
            former_names=former,
            commits=commits,
            earlier_file_removed_in=before,
        )
    touches = store.touches_of(path)
    moved = store.renamed_to(path)
    last = touches[-1] if touches else None
    if moved is not None and (last is None or moved[0].committed_at >= last.commit.committed_at):
        # The commit that renamed this path away, and the name the file has now, at the end of the chain.
        hop, new, seen = moved, moved[1], {path}
        while (further := store.renamed_to(new)) is not None and further[0].committed_at >= hop[0].committed_at:
            if further[1] in seen:
                break
            seen.add(new)
            hop, new = further, further[1]
        return FileHistory(
            state="renamed",
            added_in=added,
            removed_in=_commit(moved[0]),
            renamed_to=new,
            former_names=former,
            commits=commits,
            earlier_file_removed_in=before,
        )
    deleted = next((t.commit for t in reversed(touches) if t.change == "D"), None)
    return FileHistory(
        state="deleted",
        added_in=added,
        removed_in=_commit(deleted),
        former_names=former,
        commits=commits,
        earlier_file_removed_in=before,
    )


def earlier_file(store: RepoStore, path: str) -> ExitRow | None:
    """How the last earlier, unrelated file at `path` left it (deleted, or renamed away) before the
    file there now (or last) was added; None when no other file held the path first."""
    born = store.lineage(path)[0].since
    if born is None:
        return None
    return next((e for e in reversed(store.exits_of(path)) if e.position < born), None)


@dataclass
class Forward:
    """What `current_name` read, kept across calls: each path's exits and whether it is indexed now."""

    exits: dict[str, list[ExitRow]] = field(default_factory=dict)
    present: dict[str, bool] = field(default_factory=dict)


def current_name(store: RepoStore, path: str, position: int, seen: Forward | None = None) -> str | None:
    """The path that the file at `path` in the commit at `position` has now, following its renames
    forward; None when it was deleted since (or its last name is not in the index)."""
    seen = seen or Forward()
    name, at = path, position
    for _hop in range(20):
        if name not in seen.exits:
            seen.exits[name] = store.exits_of(name)
        # A deletion in that very commit ends it; a rename away must come later (it may have been born by one).
        left = next((e for e in seen.exits[name] if e.position > at or (e.new is None and e.position == at)), None)
        if left is None:
            if name not in seen.present:
                seen.present[name] = store.file(name) is not None
            return name if seen.present[name] else None
        if left.new is None:
            return None
        name, at = left.new, left.position
    return None


def old_path_importers(store: RepoStore, root: Path, old: str | list[str]) -> list[str]:
    """Indexed files whose imports would resolve to `old` (or any of several old paths) if it were
    still there: what a rename or deletion leaves pointing at nothing. A path the index still holds
    (a rename not indexed yet) answers from its stored edges."""
    olds = [old] if isinstance(old, str) else list(dict.fromkeys(old))
    paths = set(store.files())
    found = {src for o in olds if o in paths for src in store.importers_of(o)}
    gone = {o for o in olds if o not in paths}
    if gone:
        edges = resolve_imports(root, paths | gone, store.all_imports(), store.namespace_files())
        found |= {src for src, dst, _raw, _names in edges if dst in gone and src in paths}
    return sorted(found)


def scored_path(store: RepoStore, path: str, old: str | None) -> str:
    """The path whose history scores `path`: its old name when this change renamed it and the index
    has no history under the new one yet."""
    if old and (store.file(path) is None or not store.touches_of(path)):
        return old
    return path


def former_names(store: RepoStore, path: str) -> list[str]:
    """The names `path` had before renames, newest first, that no indexed file holds now."""
    names = [life.name for life in store.lineage(path)[1:]]
    return [n for n in names if store.file(n) is None]


def parse_since(text: str, now: datetime) -> datetime:
    """`90d`, `12w`, `6m` (30-day months), `1y`, or an ISO date, as a UTC time."""
    value = text.strip().lower()
    match = re.fullmatch(r"(\d+)\s*([dwmy])", value)
    if match:
        days = int(match.group(1)) * {"d": 1, "w": 7, "m": 30, "y": 365}[match.group(2)]
        return now - timedelta(days=days)
    try:
        parsed = datetime.fromisoformat(value.upper().replace("Z", "+00:00") if "t" in value else value)
    except ValueError as exc:
        raise PalliumError(
            "invalid_input",
            f"since {text!r} is neither a span like 90d, 12w, 6m, 1y nor a date",
            hint="pass `since` as `90d` or `2026-01-01` (CLI `--since 90d`)",
            details={"field": "since"},
        ) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _read_churn(store: RepoStore, root: Path, since: int) -> None:
    """Read and store the line counts of every commit in the window not read before."""
    # Counts read without rename detection (before it was used, or in a blob-less clone that has since
    # fetched its blobs) disagree with the stored renames: read them again in the current mode.
    renames = "--no-renames" if partial_clone(root) else "-M"
    if store.state().get("churn_renames") != renames:
        with store.db.transaction():
            store.clear_churn()
            store.set_state({"churn_renames": renames})
    missing = store.churn_missing(since)
    if not missing:
        return
    head = store.state().get("git_watermark")
    if not head:
        return
    wanted = set(missing)
    # With rename detection, as the stored history has it: a rename counts the lines it changed under the
    # new name, not the whole file added again (and deleted under the old name).
    read = read_log(root, ["--numstat", "-z"], [f"--since=@{since}", head], fmt="%x1e%H", renames=renames == "-M")
    out = read.raw
    store_notes = json.dumps(read.notes) if read.notes else None
    rows: list[tuple[str, str, int, int]] = []
    for chunk in out.split(b"\x1e"):
        if not chunk:
            continue
        sha_bytes, _, rest = chunk.partition(b"\0")
        sha = sha_bytes.strip().decode()
        if sha not in wanted:
            continue
        tokens = rest.split(b"\0")
        i = 0
        while i < len(tokens):
            parts = tokens[i].strip(b"\n").split(b"\t", 2)
            i += 1
            if len(parts) != 3:
                continue
            path = parts[2]
            if not path:  # a rename: `added<TAB>deleted<TAB>` then the old and the new path
                if i + 1 >= len(tokens):
                    break
                path, i = tokens[i + 1], i + 2
            added = int(parts[0]) if parts[0].isdigit() else 0  # `-` for binary files
            deleted = int(parts[1]) if parts[1].isdigit() else 0
            rows.append((sha, path_text(path), added, deleted))
    with store.db.transaction():
        store.add_churn(missing, rows)
        store.set_state({"churn_notes": store_notes})


def hotspots(
    store: RepoStore, root: Path, *, since: str, limit: int, now: datetime, cursor: str | None = None
) -> HotspotsOutput:
    start = parse_since(since, now)
    epoch = int(start.timestamp())
    _read_churn(store, root, epoch)
    files = store.files()
    found = {h.path: h for h in store.hotspots(since=epoch, max_files=MAX_CHANGESET)}
    formers: dict[str, list[str]] = {}
    # A renamed file counts its commits under every earlier name too (each up to its rename), and a
    # file at a path an earlier file left counts only its own: both are counted over the file's life.
    for path in sorted(store.renamed_paths() | store.reused_paths()):
        row = files.get(path)
        if row is None or row.skip_reason is not None:
            continue
        exact = store.hotspot_of(path, since=epoch, max_files=MAX_CHANGESET)
        if exact is not None:
            found[path] = exact
            formers[path] = [life.name for life in store.lineage(path)[1:]]
        else:  # the commits in the window were an earlier file's
            found.pop(path, None)
    scored = []
    for h in found.values():
        if is_noise(h.path):  # a changelog changes with every release: no hotspot
            continue
        score = round(h.commits * (1 + math.log2(1 + h.fan_in)), 2)
        row = files.get(h.path)
        info = store.content_info(row.hash) if row is not None and row.hash else None
        scored.append(
            Hotspot(
                path=h.path,
                score=score,
                commits=h.commits,
                lines_added=h.added,
                lines_deleted=h.deleted,
                authors=h.authors,
                fan_in=h.fan_in,
                lines=info.lines if info else None,
                last_changed_at=clock.iso_utc(datetime.fromtimestamp(h.last_at, UTC)),
                former_names=formers.get(h.path, []),
            )
        )
    scored.sort(key=lambda h: (-h.score, -(h.lines_added + h.lines_deleted), h.path))
    from services.repo import freshness
    from services.repo.queries import decode_cursor, encode_cursor

    offset = decode_cursor(cursor)
    more = offset + limit < len(scored)
    return HotspotsOutput(
        since=clock.iso_utc(start),
        metric=_METRIC,
        files=scored[offset : offset + limit],
        total=len(scored),
        truncated=more,
        next_cursor=encode_cursor(offset + limit) if more else None,
        freshness=freshness.PENDING,
    )
