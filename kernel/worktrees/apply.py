"""Bringing a run's patches to the user's tree, and taking them back, one journaled step at a time.

Apply holds the repository lock (a `flock`, so a dead holder's lock is simply taken over), walks
the staged patches in order, and for each one: `git apply --check`, then apply; a patch whose
reverse already applies is recorded as applied, so a repeated or resumed apply is a no-op. A patch
that fits neither stops the walk with `conflict` before anything of it is written: no half-applied
patch. Revert walks the applied patches backwards the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from kernel import git, locks, paths
from kernel.errors import PalliumError
from kernel.runstore import RunStore

__all__ = ["ApplyReport", "apply_patches", "repo_lock", "revert_patches"]

LOCK_WAIT_SECONDS = 30.0


@dataclass
class ApplyReport:
    applied: list[str] = field(default_factory=list)  # call keys newly applied (or reverted)
    already: list[str] = field(default_factory=list)  # call keys found already in that state
    skipped: list[str] = field(default_factory=list)  # blocked or conflicted in staging: never applied


def repo_lock(repo: Path, *, wait_seconds: float = LOCK_WAIT_SECONDS) -> AbstractContextManager[None]:
    """Hold the lock that keeps two runs from applying to one working tree at once."""
    digest = hashlib.sha256(str(repo.resolve()).encode()).hexdigest()[:16]
    return locks.exclusive(
        paths.pallium_home() / "locks" / f"repo-{digest}.lock",
        what=f"another Pallium run applying to {repo}",
        wait_seconds=wait_seconds,
    )


def apply_patches(
    store: RunStore,
    run_id: str,
    repo: Path,
    *,
    step: Callable[[str], None] = lambda _: None,
    epoch: int | None = None,
) -> ApplyReport:
    """Apply the run's staged patches to `repo` in order; `step(name)` marks crash points for tests."""
    report = ApplyReport()
    with repo_lock(repo):
        for row in store.patches(run_id):
            if row.state in ("blocked", "conflicted", "empty"):
                report.skipped.append(row.call_key)
                continue
            if row.state == "applied":
                report.already.append(row.call_key)
                continue
            store.set_patch_state(run_id, row.call_key, "applying", epoch=epoch)
            store.log_event(run_id, "apply_step", {"call_key": row.call_key, "step": "applying"}, epoch=epoch)
            step("mid_apply")
            if _fits(repo, row.path, reverse=False):
                git.run(["apply", "--whitespace=nowarn", row.path], repo)
                report.applied.append(row.call_key)
            elif _fits(repo, row.path, reverse=True):
                report.already.append(row.call_key)
            else:
                store.set_patch_state(run_id, row.call_key, "staged", "does not apply to the current tree", epoch=epoch)
                raise PalliumError(
                    "conflict",
                    f"patch of call {row.call_key} no longer applies to {repo}; nothing of it was written",
                    hint="commit or stash your own edits to those files, then apply again",
                    details={"run_id": run_id, "call_key": row.call_key, "applied": report.applied},
                )
            store.set_patch_state(run_id, row.call_key, "applied", epoch=epoch)
            store.log_event(run_id, "apply_step", {"call_key": row.call_key, "step": "applied"}, epoch=epoch)
            step("between_applies")
    return report


def revert_patches(store: RunStore, run_id: str, repo: Path, *, epoch: int | None = None) -> ApplyReport:
    """Take the run's applied patches back out of `repo`, newest first."""
    report = ApplyReport()
    with repo_lock(repo):
        for row in reversed(store.patches(run_id)):
            if row.state not in ("applied", "applying", "reverting"):
                continue
            store.set_patch_state(run_id, row.call_key, "reverting", epoch=epoch)
            if _fits(repo, row.path, reverse=True):
                git.run(["apply", "--reverse", "--whitespace=nowarn", row.path], repo)
                report.applied.append(row.call_key)
            elif _fits(repo, row.path, reverse=False):
                report.already.append(row.call_key)
            else:
                store.set_patch_state(run_id, row.call_key, "applied", "cannot be reverted cleanly", epoch=epoch)
                raise PalliumError(
                    "conflict",
                    f"patch of call {row.call_key} cannot be reverted: the files changed since it was applied",
                    details={"run_id": run_id, "call_key": row.call_key, "reverted": report.applied},
                )
            store.set_patch_state(run_id, row.call_key, "reverted", epoch=epoch)
            store.log_event(run_id, "revert_step", {"call_key": row.call_key}, epoch=epoch)
    return report


def _fits(repo: Path, patch: str, *, reverse: bool) -> bool:
    args = ["apply", "--check", "--whitespace=nowarn", *(["--reverse"] if reverse else []), patch]
    try:
        git.run(args, repo)
    except PalliumError:
        return False
    return True
