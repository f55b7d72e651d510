"""Scripts `workflow generate --output` wrote into a repository, kept out of what a run reviews.

A generated script is Pallium's file, not the user's change: a review started right after
`workflow generate --output review.workflow.js` must not review that script too. Each write is
remembered with the hash of its text; while the file still holds that text it is left out of the
changed files a run sees (`pallium.changedNow()`, the preflight). Once the user edits it, it is
their change and is reviewed like any other.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from kernel.clock import iso_utc
from kernel.context import ToolContext
from services.workflows.store import WorkflowStore

__all__ = ["remember", "untouched"]


def remember(ctx: ToolContext, repo: Path, target: Path, text: str) -> None:
    store = ctx.store(WorkflowStore)
    relative = target.resolve().relative_to(repo.resolve()).as_posix()
    store.remember_generated(str(repo.resolve()), relative, _hash(text.encode("utf-8")), now=iso_utc(ctx.clock.now()))


def untouched(ctx: ToolContext, repo: Path) -> set[str]:
    """The repository-relative paths of generated scripts that still hold what was generated."""
    root = repo.resolve()
    written = ctx.store(WorkflowStore).generated(str(root))
    kept = set()
    for relative, content_hash in written.items():
        path = root / relative
        try:
            if not path.is_symlink() and path.is_file() and _hash(path.read_bytes()) == content_hash:
                kept.add(relative)
        except OSError:
            continue
    return kept


def _hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
