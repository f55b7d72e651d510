"""Throwaway worktrees for workers that must not write: handed out clean, taken back only while clean.

A read-only worker whose provider cannot be trusted to keep its hands off the tree (the fake, a
command wrapper), or one that asked for `isolation: "worktree"`, runs in one of these instead of the
user's tree. Whatever it changed there is discarded with the worktree and reported to the caller;
a worktree it left untouched goes back to the pool, so a fan-out of hundreds of read-only agents
creates only as many worktrees as run at once. Telling "untouched" apart is one `git status` of
the worktree (ignored files included: a tree is lent without any) and its HEAD still at the commit
it was lent at. Edit workers take from the same pool; their trees come back through `recycle`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernel import git
from kernel.runstore import RunStore
from kernel.worktrees import tree

__all__ = ["Lent", "ReadOnlyPool"]


@dataclass
class Lent:
    """A pooled worktree while a worker holds it."""

    path: Path
    commit: str
    dirty: bool = False  # given back by an edit worker: put at a commit and cleaned before it is lent again


class ReadOnlyPool:
    """One run's idle read-only worktrees, by the commit they have checked out."""

    def __init__(self, store: RunStore, *, repo: Path, run_id: str) -> None:
        self.store = store
        self.repo = repo
        self.run_id = run_id
        self._idle: list[Lent] = []
        self._made = 0

    def take(self, commit: str) -> Lent:
        """A clean worktree at `commit`: an idle one at it, an idle one moved to it, or a new one."""
        for i, lent in enumerate(self._idle):
            if lent.commit == commit:
                return self._idle.pop(i)
        if self._idle:
            lent = self._idle.pop(0)
            git.run(["checkout", "-q", "--detach", "--force", commit], lent.path)
            git.run(["clean", "-q", "-f", "-d", "-x"], lent.path)
            lent.commit = commit
            return lent
        self._made += 1
        path = tree.create(
            self.store,
            repo=self.repo,
            run_id=self.run_id,
            name=f"pooled-{self._made}",
            commit=commit,
            purpose="seeded",
        )
        return Lent(path, commit)

    async def take_async(self, commit: str, *, walk: bool = True) -> Lent:
        """`take` with the checkout or the new worktree made off the event loop.

        `walk=False` (an edit worker, whose tree is captured with git, not compared by a walk) skips
        recording what the tree holds.
        """
        from kernel.threads import in_pool

        for i, lent in enumerate(self._idle):
            if lent.commit == commit and not lent.dirty:
                return self._idle.pop(i)
        if self._idle:
            lent = self._idle.pop(0)
            try:
                await in_pool(_move, lent.path, commit, clean=walk)
            except BaseException:
                self.discard(lent)
                raise
            lent.commit, lent.dirty = commit, False
            return lent
        self._made += 1
        path = await tree.create_async(
            self.store,
            repo=self.repo,
            run_id=self.run_id,
            name=f"pooled-{self._made}",
            commit=commit,
            purpose="seeded" if walk else "edit",  # made for an edit worker (it may serve any call after)
        )
        return Lent(path, commit)

    async def give_back_async(self, lent: Lent) -> list[str]:
        """`give_back` with the walk and `git check-ignore` off the event loop."""
        from kernel.threads import in_pool

        dirty, changed = await in_pool(_changed, lent)
        if not dirty:
            self._idle.append(lent)
            return []
        await tree.remove_async(self.store, lent.path)
        return changed

    def recycle(self, lent: Lent) -> None:
        """Take back an edit worker's worktree once its patch is captured, to be lent again once it is put at
        the next call's commit and cleaned (`take_async`). That checkout touches only the files that
        differ, where a fresh worktree writes every file of the repository (most of an edit call's
        cost on a big one)."""
        lent.dirty = True
        self._idle.insert(0, lent)

    def adopt(self, path: Path, commit: str) -> None:
        """Take in a worktree this pool made in an earlier attempt of the run: idle, reset before it is lent."""
        self._idle.append(Lent(path, commit, dirty=True))
        number = path.name.removeprefix("pooled-")
        if number.isdigit():
            self._made = max(self._made, int(number))

    def give_back(self, lent: Lent) -> list[str]:
        """Return what the worker changed (paths git does not ignore); only an untouched worktree is kept."""
        dirty, changed = _changed(lent)
        if not dirty:
            self._idle.append(lent)
            return []
        self.discard(lent)
        return changed

    def discard(self, lent: Lent) -> None:
        tree.remove(self.store, lent.path)

    def close(self) -> None:
        """Remove every idle worktree (the run is ending)."""
        while self._idle:
            self.discard(self._idle.pop())

    async def close_async(self) -> None:
        """`close` with the worktrees deleted side by side, off the event loop."""
        from kernel.threads import all_of

        idle, self._idle = self._idle, []
        await all_of(*(tree.remove_async(self.store, lent.path) for lent in idle))


def _move(path: Path, commit: str, *, clean: bool = True) -> None:
    """Put a pooled worktree at `commit` (cleaned too, unless `clean` is False: for an edit worker).

    What an edit worker left is in the worktree's index (its capture ran `git add -A`), so the forced
    checkout takes all of it out; a tree lent to read-only work is cleaned too, ignored files
    included, since any file git ignores in it counts as the worker's. Files git ignores that an edit worker made
    (build output) stay for the next edit worker of the run, as they would in one checkout.
    """
    git.run(["checkout", "-q", "--detach", "--force", commit], path)
    if clean:
        git.run(["clean", "-q", "-f", "-d", "-x"], path)


def _changed(lent: Lent) -> tuple[bool, list[str]]:
    """Whether a worker changed anything in a lent worktree, and what, but paths git ignores.

    One `git status` of the worktree (tracked files changed or deleted, new files, new ignored files:
    a tree is lent clean, so any ignored file in it is new), where a walk in Python compared every
    file's size and time with those recorded when it was lent, holding the interpreter meanwhile.
    """
    out = git.run(
        ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--ignored=matching", "--no-renames"],
        lent.path,
    ).decode("utf-8", "surrogateescape")
    changed, dirty = [], False
    for entry in out.split("\0"):
        if entry.startswith("# branch.oid "):
            dirty = dirty or entry.removeprefix("# branch.oid ") != lent.commit  # it moved HEAD itself
        elif entry[:2] in ("1 ", "2 "):
            dirty = True
            changed.append(entry.split(" ", 8)[8])
        elif entry.startswith("u "):
            dirty = True
            changed.append(entry.split(" ", 10)[10])
        elif entry[:2] == "? ":
            dirty = True
            changed.append(entry[2:])
        elif entry[:2] == "! ":
            dirty = True  # an ignored file: the worker's (a lent tree has none), not reported
    return dirty, sorted(changed)
