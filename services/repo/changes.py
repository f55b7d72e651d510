"""What changed in the working tree right now, from git alone (the index adds risk when it exists)."""

from __future__ import annotations

from pathlib import Path

from kernel import git
from kernel.paths import path_text
from services.repo.models import ChangeCounts, ChangedFile, ChangedNowOutput


def changed_now(repo_root: Path, *, limit: int) -> tuple[ChangedNowOutput, dict[str, str]]:
    """The working tree's changes, and each listed path's filesystem name (they differ for non-UTF-8 names)."""
    state = git.status(repo_root)
    # Conflicts first, then staged work, then the rest, each by path, so the top of a cut list matters most.
    entries = sorted(state.entries, key=lambda e: (e.kind != "conflicted", not e.staged, e.path))
    files = [
        ChangedFile(
            path=path_text(e.path),
            orig_path=path_text(e.orig_path) if e.orig_path else None,
            kind=e.kind,
            staged=e.staged,
            unstaged=e.unstaged,  # type: ignore[arg-type]
            git_status=e.index + e.worktree,
        )
        for e in entries
    ]
    counts = ChangeCounts(
        total=len(files),
        staged=sum(f.staged for f in files),
        unstaged=sum(f.unstaged for f in files),
        untracked=sum(f.kind == "untracked" for f in files),
        renamed=sum(f.kind == "renamed" for f in files),
        deleted=sum(f.kind == "deleted" for f in files),
        conflicted=sum(f.kind == "conflicted" for f in files),
    )
    out = ChangedNowOutput(
        repo=str(repo_root),
        branch=state.branch,
        head=state.head,
        detached=state.detached,
        upstream=state.upstream,
        ahead=state.ahead,
        behind=state.behind,
        summary=_summary(state, counts),
        counts=counts,
        files=files[:limit],
        truncated=len(files) > limit,
        index_status="missing",  # the repository index arrives with `pallium index`
        recommended_next_command=None,
    )
    return out, {path_text(e.path): e.path for e in entries}


def _summary(state: git.WorkingTreeStatus, counts: ChangeCounts) -> str:
    where = state.branch or (f"detached HEAD {state.head[:12]}" if state.head else "detached HEAD")
    if state.head is None:
        where += " (no commits yet)"
    if counts.total == 0:
        return f"{where}: working tree clean"
    parts = [
        f"{n} {label}"
        for n, label in (
            (counts.conflicted, "conflicted"),
            (counts.staged, "staged"),
            (counts.unstaged, "unstaged"),
            (counts.untracked, "untracked"),
        )
        if n
    ]
    noun = "file" if counts.total == 1 else "files"
    return f"{where}: {counts.total} changed {noun} ({', '.join(parts)})"
