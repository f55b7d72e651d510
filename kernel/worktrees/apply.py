"""Bringing a run's patches to the user's tree, and taking them back, one journaled step at a time.

Apply holds the repository lock (a `flock`, so a dead holder's lock is simply taken over) and brings
the staged patches over as one `git apply`, so they land together or not at all; when their reverse
already applies they are recorded as applied, so a repeated or resumed apply is a no-op. Patches an
attempt superseded (see `Run.supersede`) never apply. Revert walks the applied patches backwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

from kernel import git, locks, paths
from kernel.errors import PalliumError
from kernel.runstore import PatchRow, RunStore

__all__ = ["ApplyReport", "apply_patches", "repo_lock", "revert_patches"]

LOCK_WAIT_SECONDS = 30.0
NEVER_APPLIED = ("blocked", "conflicted", "empty", "superseded")  # left out of apply, reported as skipped


@dataclass
class ApplyReport:
    applied: list[str] = field(default_factory=list)  # call keys newly applied (or reverted)
    already: list[str] = field(default_factory=list)  # call keys found already in that state
    skipped: list[str] = field(default_factory=list)  # blocked, conflicted or superseded: never applied


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
    only: set[str] | None = None,
) -> ApplyReport:
    """Apply the run's staged patches to `repo` as one change; `step(name)` marks crash points for tests.

    `only` names the calls whose patches to apply (the others are left as they are, unreported);
    a patch that builds on one left out may no longer fit, and then none is written.

    All of them are written by one `git apply` of their concatenation, which checks every hunk
    before it writes any file: either every patch lands or none does. A resumed apply (a crash
    after the write, before the rows said so) finds the whole set's reverse applying and records
    it as applied.
    """
    report = ApplyReport()
    with repo_lock(repo):
        pending = []
        for row in store.patches(run_id):
            if only is not None and row.call_key not in only:
                continue
            if row.state in NEVER_APPLIED:
                report.skipped.append(row.call_key)
            elif row.state == "applied":
                report.already.append(row.call_key)
            elif row.state in ("staged", "applying"):
                pending.append(row)
        if not pending:
            return report
        keys = [row.call_key for row in pending]
        for key in keys:
            store.set_patch_state(run_id, key, "applying", epoch=epoch)
        store.log_event(run_id, "apply_step", {"call_keys": keys, "step": "applying"}, epoch=epoch)
        step("mid_apply")
        forward = _joined([row.path for row in pending])
        if _fits(repo, forward, reverse=False):
            git.run(["apply", "--whitespace=nowarn", "-"], repo, input=forward)
            report.applied += keys
        elif _fits(repo, _joined([row.path for row in reversed(pending)]), reverse=True):
            report.already += keys
        else:
            culprit = _first_misfit(repo, pending)
            for key in keys:
                store.set_patch_state(run_id, key, "staged", epoch=epoch)
            store.set_patch_state(run_id, culprit, "staged", "does not apply to the current tree", epoch=epoch)
            raise PalliumError(
                "conflict",
                f"patch of call {culprit} no longer applies to {repo}; none of the run's {len(keys)} patch(es) "
                "was written",
                hint="commit or stash your own edits to those files, then apply again",
                details={"run_id": run_id, "call_key": culprit, "applied": []},
            )
        step("between_applies")
        for key in keys:
            store.set_patch_state(run_id, key, "applied", epoch=epoch)
        store.log_event(run_id, "apply_step", {"call_keys": keys, "step": "applied"}, epoch=epoch)
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
                    hint="undo those files by hand; `pallium workflow report <run-id>` shows what the run changed",
                )
            store.set_patch_state(run_id, row.call_key, "reverted", epoch=epoch)
            store.log_event(run_id, "revert_step", {"call_key": row.call_key}, epoch=epoch)
    return report


def _fits(repo: Path, patch: str | bytes, *, reverse: bool) -> bool:
    """Whether a patch (a file, or the bytes of several joined) applies to `repo` as it is now."""
    given = patch if isinstance(patch, str) else "-"
    args = ["apply", "--check", "--whitespace=nowarn", *(["--reverse"] if reverse else []), given]
    try:
        git.run(args, repo, input=patch if isinstance(patch, bytes) else None)
    except PalliumError:
        return False
    return True


def _joined(files: list[str]) -> bytes:
    """Several patches as one `git apply` input: within one input git applies hunks to a path in turn."""
    parts = [Path(f).read_bytes() for f in files]
    return b"".join(part if part.endswith(b"\n") or not part else part + b"\n" for part in parts)


def _first_misfit(repo: Path, rows: list[PatchRow]) -> str:
    """The call whose patch first fails when the run's patches are checked in order."""
    for end in range(1, len(rows) + 1):
        if not _fits(repo, _joined([row.path for row in rows[:end]]), reverse=False):
            return rows[end - 1].call_key
    return rows[-1].call_key
