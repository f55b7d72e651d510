"""History beyond the working tree: a file's life across renames and deletion, and hotspots.

The git half records what each commit did to each path (added, modified, deleted, renamed from
an old path), so a path that is gone still has an answer: the commits that touched it, the one
that deleted or renamed it, and its new name. Hotspots rank the files of the tree by how often
they changed in a window, with the lines changed read once per commit (`git log --numstat`,
stored, so a second ask reads only newer commits) and weighted by how many files import them.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kernel import clock, git
from kernel.errors import PalliumError
from kernel.paths import path_text
from services.repo.index_git import MAX_CHANGESET
from services.repo.models import FileHistory, Hotspot, HotspotsOutput, RecentCommit
from services.repo.resolve import resolve_imports
from services.repo.store import CommitRow, RepoStore

__all__ = ["file_history", "hotspots", "old_path_importers", "parse_since"]

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
    former = [name for name, _until in lineage[1:]]
    if present:
        return FileHistory(state="present", added_in=added, former_names=former, commits=commits)
    touches = store.touches_of(path)
    moved = store.renamed_to(path)
    last = touches[-1] if touches else None
    if moved is not None and (last is None or moved[0].committed_at >= last.commit.committed_at):
        new = moved[1]
        while (further := store.renamed_to(new)) is not None and further[0].committed_at >= moved[0].committed_at:
            moved, new = further, further[1]
            if new == path:
                break
        return FileHistory(
            state="renamed",
            added_in=added,
            removed_in=_commit(moved[0]),
            renamed_to=new,
            former_names=former,
            commits=commits,
        )
    deleted = next((t.commit for t in reversed(touches) if t.change == "D"), None)
    return FileHistory(
        state="deleted", added_in=added, removed_in=_commit(deleted), former_names=former, commits=commits
    )


def old_path_importers(store: RepoStore, root: Path, old: str) -> list[str]:
    """Indexed files whose imports would resolve to `old` if it were still there: what a rename or
    deletion leaves pointing at nothing."""
    paths = set(store.files())
    if old in paths:
        return store.importers_of(old)
    imports = store.all_imports()
    edges = resolve_imports(root, paths | {old}, imports, store.namespace_files())
    return sorted({src for src, dst, _raw, _names in edges if dst == old and src in paths})


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
    missing = store.churn_missing(since)
    if not missing:
        return
    head = store.state().get("git_watermark")
    if not head:
        return
    wanted = set(missing)
    out = git.run(
        ["log", "--no-merges", "--no-renames", "--numstat", "-z", "--format=%x1e%H", f"--since=@{since}", head],
        root,
        timeout=600,
    )
    rows: list[tuple[str, str, int, int]] = []
    for chunk in out.split(b"\x1e"):
        if not chunk:
            continue
        sha_bytes, _, rest = chunk.partition(b"\0")
        sha = sha_bytes.strip().decode()
        if sha not in wanted:
            continue
        for token in rest.split(b"\0"):
            parts = token.strip(b"\n").split(b"\t", 2)
            if len(parts) != 3 or not parts[2]:
                continue
            added = int(parts[0]) if parts[0].isdigit() else 0  # `-` for binary files
            deleted = int(parts[1]) if parts[1].isdigit() else 0
            rows.append((sha, path_text(parts[2]), added, deleted))
    with store.db.transaction():
        store.add_churn(missing, rows)


def hotspots(store: RepoStore, root: Path, *, since: str, limit: int, now: datetime) -> HotspotsOutput:
    start = parse_since(since, now)
    epoch = int(start.timestamp())
    _read_churn(store, root, epoch)
    found = store.hotspots(since=epoch, max_files=MAX_CHANGESET)
    files = store.files()
    scored = []
    for h in found:
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
                lines=info[2] if info else None,
                last_changed_at=clock.iso_utc(datetime.fromtimestamp(h.last_at, UTC)),
            )
        )
    scored.sort(key=lambda h: (-h.score, -(h.lines_added + h.lines_deleted), h.path))
    from services.repo import freshness

    return HotspotsOutput(
        since=clock.iso_utc(start),
        metric=_METRIC,
        files=scored[:limit],
        total=len(scored),
        truncated=len(scored) > limit,
        freshness=freshness.PENDING,
    )
