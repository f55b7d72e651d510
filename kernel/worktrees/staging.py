"""The per-run staging worktree where captured patches compose, one commit per call.

Each patch is applied with `git apply --3way` and committed, which is what lets two workers' edits to
different parts of one file compose. A conflict is reported and staging is reset to its last good
commit. Staging a call is idempotent (its commit message names the call), so a resumed run can stage
again what it staged before the crash. The composed diff of each commit is written beside the raw
patch: that is what later reaches the user's tree, in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kernel import git, writes
from kernel.errors import PalliumError
from kernel.runstore import RunStore
from kernel.worktrees import tree
from kernel.worktrees.snapshot import IDENTITY

__all__ = ["StageResult", "Staging"]


@dataclass(frozen=True)
class StageResult:
    ok: bool
    commit: str | None = None  # the staging commit holding this call's change
    composed: Path | None = None  # the patch from the previous staging commit to this one
    conflicts: tuple[str, ...] = ()
    message: str = ""


class Staging:
    """One run's staging worktree, created lazily at the run's base commit."""

    def __init__(self, store: RunStore, *, repo: Path, run_id: str, base_commit: str) -> None:
        self.store = store
        self.repo = repo
        self.run_id = run_id
        self.base_commit = base_commit
        self.path = tree.run_dir(run_id) / "worktrees" / "staging"
        self._head: str | None = None  # cached: journal keys read it for every call
        self._trees: dict[str, str] = {}
        self._deferred: list[tuple[str, Path]] = []  # replayed calls' patches, staged when staging is next read
        self.on_deferred_conflict: Callable[[str, str], None] | None = None  # (call key, message)

    @property
    def exists(self) -> bool:
        row = self.store.worktree(str(self.path))
        return row is not None and row.state == "active" and self.path.is_dir()

    def ensure(self) -> Path:
        if not self.exists:
            self._head = None
            tree.create(
                self.store,
                repo=self.repo,
                run_id=self.run_id,
                name="staging",
                commit=self.base_commit,
                purpose="staging",
            )
        return self.path

    def head(self, *, flush: bool = True) -> str:
        """The last good staging commit, or the base when nothing was staged yet.

        With `flush`, deferred patches are staged first; `flush=False` gives the head as it is now.
        """
        if flush:
            self.flush()
        if self._head is None:
            exists = self.exists
            self._head = git.run(["rev-parse", "HEAD"], self.path).decode().strip() if exists else self.base_commit
        return self._head

    def tree_of(self, commit: str) -> str:
        """The tree id of a staging commit: what a call seeded from it reads, whatever order built it."""
        if commit not in self._trees:
            self._trees[commit] = git.run(["rev-parse", f"{commit}^{{tree}}"], self.repo).decode().strip()
        return self._trees[commit]

    def defer(self, call_key: str, patch_file: Path) -> None:
        """Stage this patch the next time staging is read or written, after the ones deferred before it.

        A resumed run defers the patch of each call it returns from the journal, so a call made at
        the same time as that one can still be keyed on the tree from before it (see `Run.agent`).
        """
        self._deferred.append((call_key, patch_file))

    def flush(self) -> None:
        """Stage the deferred patches, in order; a conflict is reported through `on_deferred_conflict`."""
        while self._deferred:
            call_key, patch_file = self._deferred.pop(0)
            staged = self._stage_now(call_key, patch_file)
            if not staged.ok and self.on_deferred_conflict is not None:
                self.on_deferred_conflict(call_key, staged.message)

    def stage(self, call_key: str, patch_file: Path) -> StageResult:
        """Compose one captured patch into staging; a conflict leaves staging at its last good commit."""
        self.flush()
        return self._stage_now(call_key, patch_file)

    def _stage_now(self, call_key: str, patch_file: Path) -> StageResult:
        self.ensure()
        done = self._already_staged(call_key)
        if done is not None:
            return StageResult(True, done, self._composed(call_key, done))
        before = self.head(flush=False)
        try:
            git.run(["apply", "--3way", "--index", "--whitespace=nowarn", str(patch_file)], self.path)
        except PalliumError as exc:
            status = git.run(["status", "--porcelain", "--untracked-files=no"], self.path).decode()
            unmerged = tuple(line[3:] for line in status.splitlines() if "U" in line[:2] or line[:2] in ("AA", "DD"))
            self._reset(before)
            return StageResult(False, conflicts=unmerged, message=exc.message)
        if not git.run(["diff", "--cached", "--name-only"], self.path).strip():
            return StageResult(True, None, None, message="the patch changed nothing")
        git.run(["commit", "-q", "--no-verify", "-m", f"pallium: {call_key}"], self.path, env=IDENTITY)
        self._head = None
        commit = self.head(flush=False)
        return StageResult(True, commit, self._composed(call_key, commit))

    def restart(self, recorded: set[str]) -> list[str]:
        """Reset staging to the base for a new attempt of the run; return the staged calls nobody recorded.

        A resumed attempt stages each replayed call's patch again as the journal returns it (see
        `defer`), so at every point staging holds what it held at that point of the first attempt,
        and a call seeded from it reads (and is keyed on) the same tree. Staging a patch and recording its row are two
        writes (git, then SQLite); a commit left by a crash between them has no row: its call reruns
        and must not find its own edit already there, nor reuse a diff made against another parent.
        """
        self._deferred.clear()
        if not self.exists:
            return []
        log = git.run(["log", "--format=%s", f"{self.base_commit}..HEAD"], self.path).decode()
        keys = [line.removeprefix("pallium: ") for line in log.splitlines() if line.startswith("pallium: ")]
        unrecorded = [key for key in keys if key not in recorded]
        for key in unrecorded:
            self._composed_path(key).unlink(missing_ok=True)
        if keys:
            self._reset(self.base_commit)
        return unrecorded

    def rebase(self, commit: str) -> None:
        """Start staging over at `commit` (a newer snapshot of the user's tree); nothing is staged on it yet."""
        self.remove()
        self.base_commit = commit

    def remove(self) -> None:
        self._head = None
        self._deferred.clear()
        if self.store.worktree(str(self.path)) is not None:
            tree.remove(self.store, self.path)

    def _already_staged(self, call_key: str) -> str | None:
        log = git.run(["log", "--format=%H %s", f"{self.base_commit}..HEAD"], self.path).decode()
        for line in log.splitlines():
            commit, _, subject = line.partition(" ")
            if subject == f"pallium: {call_key}":
                return commit
        return None

    def forget(self, call_key: str) -> None:
        """Drop the composed diff kept for `call_key`, so staging it again writes it anew (`Run.rebase`)."""
        self._composed_path(call_key).unlink(missing_ok=True)

    def _composed_path(self, call_key: str) -> Path:
        return tree.run_dir(self.run_id) / "patches" / f"{_safe(call_key)}.staged.patch"

    def _composed(self, call_key: str, commit: str) -> Path:
        out = self._composed_path(call_key)
        if not out.exists():
            diff = git.run(["diff", "--binary", "--no-color", "--no-ext-diff", f"{commit}^", commit, "--"], self.path)
            writes.write_bytes(out, diff)
        return out

    def _reset(self, commit: str) -> None:
        self._head = None
        try:
            git.run(["reset", "-q", "--hard", commit], self.path)
            git.run(["clean", "-q", "-fd"], self.path)
        except PalliumError as exc:
            raise PalliumError(
                "internal",
                f"cannot reset staging for run {self.run_id}: {exc.message}",
                hint="remove the run's worktrees with `pallium workflow gc --confirm`, then resume the run",
            ) from exc


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)
