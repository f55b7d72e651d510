"""The per-run staging worktree where captured patches compose, one commit per call.

Each patch is applied with `git apply --3way` and committed, which is what lets two workers' edits to
different parts of one file compose. A conflict is reported and staging is reset to its last good
commit. Staging composes in its index alone (`apply --cached`, git 2.32 and newer): its files are never
checked out, so making or resetting it costs an index, not a checkout of the whole repository (on an
older git it is a checked-out worktree, `apply --index`). Staging a call is idempotent (its commit
message names the call), so a resumed run can stage again what it staged before the crash. The
composed diff of each commit is written beside the raw patch: that is what later reaches the user's
tree, in order.
"""

from __future__ import annotations

import functools
import os
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
        self._active = False  # known active: staging's git work in a worker thread needs no store read
        self._cached = _index_only()  # composes in its index alone, its files never checked out
        self._staged: dict[str, str] | None = None  # call key -> its staging commit, as read from the log

    @property
    def exists(self) -> bool:
        if self._active and self.path.is_dir():
            return True
        row = self.store.worktree(str(self.path))
        self._active = row is not None and row.state == "active" and self.path.is_dir()
        return self._active

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
                files=not self._cached,
            )
            self._active = True
        return self.path

    async def ensure_async(self) -> Path:
        """`ensure` on the event loop's thread, its checkout off it; after it, `stage` and `head` read no store
        and may run in a worker thread (one at a time: the caller holds a lock)."""
        if not self.exists:
            self._head = None
            await tree.create_async(
                self.store,
                repo=self.repo,
                run_id=self.run_id,
                name="staging",
                commit=self.base_commit,
                purpose="staging",
                files=not self._cached,
            )
            self._active = True
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

    def cached_head(self) -> str | None:
        """The head without asking git: known, and no deferred patch waits to be staged first (else None)."""
        return self._head if not self._deferred else None

    @property
    def has_deferred(self) -> bool:
        return bool(self._deferred)

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

    def stage(self, call_key: str, patch_file: Path, *, compose: bool = True) -> StageResult:
        """Compose one captured patch into staging; a conflict leaves staging at its last good commit.

        With `compose=False` the composed diff is not written (`composed` is None with a `commit`): the
        caller writes it with `composed_patch`, which reads only commits and so needs no hold on staging.
        """
        self.flush()
        return self._stage_now(call_key, patch_file, compose=compose)

    def composed_patch(self, call_key: str, commit: str) -> Path:
        """The diff a staged call's commit made (written once, beside its raw patch)."""
        return self._composed(call_key, commit)

    def _stage_now(self, call_key: str, patch_file: Path, *, compose: bool = True) -> StageResult:
        self.ensure()
        done = self._already_staged(call_key)
        if done is not None:
            return StageResult(True, done, self._composed(call_key, done) if compose else None)
        before = self.head(flush=False)
        where = "--cached" if self._cached else "--index"
        try:
            git.run(["apply", "--3way", where, "--whitespace=nowarn", str(patch_file)], self.path)
        except PalliumError as exc:
            listed = git.run(["ls-files", "-u", "-z"], self.path).decode("utf-8", "surrogateescape")
            unmerged = tuple(dict.fromkeys(e.split("\t", 1)[1] for e in listed.split("\0") if "\t" in e))
            self._reset(before)
            return StageResult(False, conflicts=unmerged, message=exc.message)
        # commit with plumbing: `git commit` re-reads every file of the tree, and apply --index has just
        # brought index and files in line; only the index is written into the commit
        new_tree = git.run(["write-tree"], self.path).decode().strip()
        if new_tree == self.tree_of(before):
            return StageResult(True, None, None, message="the patch changed nothing")
        message = f"pallium: {call_key}".encode()
        commit = (
            git.run(["commit-tree", new_tree, "-p", before], self.path, env=IDENTITY, input=message).decode().strip()
        )
        self._move_head(commit, before)
        self._trees[commit] = new_tree
        self._head = commit
        if self._staged is not None:
            self._staged[call_key] = commit
        return StageResult(True, commit, self._composed(call_key, commit) if compose else None)

    def _move_head(self, commit: str, before: str) -> None:
        """Point staging's detached HEAD at `commit` if it is still at `before`, as `git update-ref` does
        (its lock file, then a rename), without a git process: one fewer for every patch staged."""
        admin = _admin_dir(self.path)
        try:
            if admin is None:
                raise FileNotFoundError(self.path / ".git")
            head, lock = admin / "HEAD", admin / "HEAD.lock"
            fd = writes.open_fd(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, root=admin)
        except (OSError, PalliumError):
            git.run(["update-ref", "--no-deref", "HEAD", commit, before], self.path)
            return
        try:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(commit + "\n")
            if head.read_text(encoding="ascii").strip() != before:
                raise PalliumError(
                    "internal",
                    f"staging for run {self.run_id} moved while a patch was staged",
                    hint="resume the run: staging is rebuilt from its recorded patches",
                )
            writes.move(lock, head, root=admin)
        finally:
            lock.unlink(missing_ok=True)

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
        # always, even with nothing committed: a process killed while it applied a patch leaves that
        # patch half-applied in staging's index and files, and the next patch staged would carry it;
        # and the lock files such a process held (this attempt holds the run's lease: no one else stages)
        admin = _admin_dir(self.path)
        for name in ("HEAD.lock", "index.lock"):
            if admin is not None:
                (admin / name).unlink(missing_ok=True)
        self._reset(self.base_commit)
        return unrecorded

    def rebase(self, commit: str) -> None:
        """Start staging over at `commit` (a newer snapshot of the user's tree); nothing is staged on it yet."""
        self.remove()
        self.base_commit = commit

    def remove(self) -> None:
        self._head = None
        self._staged = None
        self._active = False
        self._deferred.clear()
        if self.store.worktree(str(self.path)) is not None:
            tree.remove(self.store, self.path)

    async def remove_async(self) -> None:
        """`remove` with the deleting off the event loop (the store is read and written on it)."""
        self._head = None
        self._staged = None
        self._active = False
        self._deferred.clear()
        if self.store.worktree(str(self.path)) is not None:
            await tree.remove_async(self.store, self.path)

    def _already_staged(self, call_key: str) -> str | None:
        if self._staged is None:  # read once, then kept as this process stages (see `_reset`)
            log = git.run(["log", "--format=%H %s", f"{self.base_commit}..HEAD"], self.path).decode()
            self._staged = {}
            for line in reversed(log.splitlines()):
                commit, _, subject = line.partition(" ")
                if subject.startswith("pallium: "):
                    self._staged[subject.removeprefix("pallium: ")] = commit
        return self._staged.get(call_key)

    def forget(self, call_key: str) -> None:
        """Drop the composed diff kept for `call_key`, so staging it again writes it anew (`Run.rebase`)."""
        self._composed_path(call_key).unlink(missing_ok=True)

    def _composed_path(self, call_key: str) -> Path:
        return tree.run_dir(self.run_id) / "patches" / f"{_safe(call_key)}.staged.patch"

    def _composed(self, call_key: str, commit: str) -> Path:
        out = self._composed_path(call_key)
        if not out.exists():
            # commits only (no index, no files): safe beside another call's `apply` in staging
            diff = git.run(["diff", "--binary", "--no-color", "--no-ext-diff", f"{commit}^", commit, "--"], self.repo)
            writes.write_bytes(out, diff)
        return out

    def _reset(self, commit: str) -> None:
        self._head = None
        self._staged = None
        try:
            if self._cached:  # the index and HEAD: staging has no files
                git.run(["read-tree", commit], self.path)
                git.run(["update-ref", "--no-deref", "HEAD", commit], self.path)
            else:
                git.run(["reset", "-q", "--hard", commit], self.path)
                git.run(["clean", "-q", "-fd"], self.path)
        except PalliumError as exc:
            raise PalliumError(
                "internal",
                f"cannot reset staging for run {self.run_id}: {exc.message}",
                hint="remove the run's worktrees with `pallium workflow gc --confirm --authority admin`, "
                "then resume the run",
            ) from exc


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def _admin_dir(path: Path) -> Path | None:
    """The git folder of the linked worktree at `path` (what its `.git` file names), or None."""
    try:
        text = (path / ".git").read_text(encoding="utf-8")
    except OSError:
        return None
    return Path(text.removeprefix("gitdir: ").strip()) if text.startswith("gitdir: ") else None


@functools.cache
def _index_only() -> bool:
    """Whether this git composes a three-way apply in the index alone (`apply --3way --cached`, 2.32)."""
    version = git.git_version() or "0"
    try:
        numbers = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return False
    return numbers >= (2, 32)
