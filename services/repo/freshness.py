"""How fresh the index is: the commit it was built at, HEAD now, and which files moved on since.

Checked on every read, cheaply: one `git status`, one `git diff --name-only` when HEAD moved, and
a hash of only the files git reports as changed (plus those indexed from a dirty working tree).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from kernel import git
from kernel.errors import PalliumError
from kernel.paths import path_text
from services.repo.blobs import MAX_BYTES, blob_hash
from services.repo.models import Freshness
from services.repo.store import RepoStore

__all__ = ["PENDING", "check"]

_SHOWN = 20
# Stands in while the real check runs beside a query; tools replace it before answering.
PENDING = Freshness(
    status="missing",
    indexed_commit=None,
    indexed_at=None,
    current_commit=None,
    head_moved=False,
    working_tree_changed=False,
    changed_files=[],
    changed_count=0,
    refresh_command=None,
)


def check(store: RepoStore, root: Path, *, repo_arg: str | None = None) -> Freshness:
    state = store.state()
    current = git.head_commit(root)  # read from `.git`: no git process on the common layout
    refresh = "pallium index" + (f" --repo {repo_arg}" if repo_arg else "")
    if "indexed_at" not in state:
        return Freshness(
            status="missing",
            indexed_commit=None,
            indexed_at=None,
            current_commit=current,
            head_moved=False,
            working_tree_changed=False,
            changed_files=[],
            changed_count=0,
            refresh_command=refresh,
        )
    indexed = state.get("content_head") or None
    changed: set[str] = set()
    if indexed != current and indexed and current:
        try:
            out = git.run(["diff", "--name-only", "--no-renames", "-z", indexed, current], root)
            changed.update(path_text(p) for p in out.split(b"\0") if p)
        except PalliumError:
            pass  # the indexed commit is gone (rewritten history): HEAD moved says enough
    candidates = set(json.loads(state.get("dirty_paths", "[]")))
    status = git.status(root, untracked=state.get("untracked") == "1")
    candidates.update(e.path for e in status.entries)
    candidates.update(e.orig_path for e in status.entries if e.orig_path)
    # Candidates carry their filesystem names (surrogate-escaped); answers show `path_text`.
    worktree = {path_text(p) for p in candidates if _differs(store, root, p)}
    changed |= worktree
    head_moved = indexed != current
    # Both halves are written in one transaction now; an index left half-written by an older run
    # (content at HEAD, history behind) must still not pass for fresh.
    behind = (state.get("git_watermark") or None) != indexed
    stale = head_moved or behind or bool(changed)
    ordered = sorted(changed)
    return Freshness(
        status="stale" if stale else "fresh",
        indexed_commit=indexed,
        indexed_at=state.get("indexed_at"),
        current_commit=current,
        head_moved=head_moved,
        history_behind=behind,
        working_tree_changed=bool(worktree),
        changed_files=ordered[:_SHOWN],
        changed_count=len(ordered),
        refresh_command=refresh if stale else None,
    )


def _differs(store: RepoStore, root: Path, fs: str) -> bool:
    row = store.file(path_text(fs))
    full = root / fs
    try:
        info = os.lstat(full)
    except OSError:  # deleted since it was indexed, unless it was already missing then
        return row is not None and row.skip_reason != "missing"
    if row is None:
        return True
    if row.hash is None or info.st_size > MAX_BYTES:
        return False  # skipped files carry no content to compare
    try:
        return blob_hash(full.read_bytes()) != row.hash
    except OSError:
        return True
