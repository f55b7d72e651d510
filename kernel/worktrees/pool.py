"""Throwaway worktrees for workers that must not write: handed out clean, taken back only while clean.

A read-only worker whose provider cannot be trusted to keep its hands off the tree (the fake, a
command wrapper), or one that asked for `isolation: "worktree"`, runs in one of these instead of the
user's tree. Whatever it changed there is discarded with the worktree and reported to the caller;
a worktree it left untouched goes back to the pool, so a fan-out of hundreds of read-only agents
creates only as many worktrees as run at once. Telling "untouched" apart is, on Linux, the tree's
inotify watch (`kernel.worktrees.watch`, made once per tree): no event since it was made, no write,
and no process or walk at all. Without one, it is a comparison of every
entry's stat, the worktree's HEAD and its index with what they were when it was lent (no process:
a write always changes a file's ctime, and the tree is lent only once the file system's clock has
moved past its newest change, so a write after it cannot keep the old time). A tree too big to walk
cheaply, or one that did not compare equal, is asked of `git status` (ignored files included: a
tree is lent without any), whose answer decides. Edit workers take from the same pool; their trees
come back through `recycle`.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kernel import git, writes
from kernel.runstore import RunStore
from kernel.worktrees import tree
from kernel.worktrees.watch import Watch, open_watch

__all__ = ["Lent", "ReadOnlyPool"]


@dataclass
class Lent:
    """A pooled worktree while a worker holds it."""

    path: Path
    commit: str
    dirty: bool = False  # given back by an edit worker: put at a commit and cleaned before it is lent again
    baseline: Baseline | None = field(default=None, repr=False)  # what it held when lent (read-only work)
    watch: Watch | None = field(default=None, repr=False)  # told of every write in it (and where, for an edit)

    def unwatch(self) -> None:
        if self.watch is not None:
            self.watch.close()
            self.watch = None


class ReadOnlyPool:
    """One run's idle read-only worktrees, by the commit they have checked out."""

    def __init__(self, store: RunStore, *, repo: Path, run_id: str) -> None:
        self.store = store
        self.repo = repo
        self.run_id = run_id
        self._idle: list[Lent] = []
        self._made = 0
        self._makers: asyncio.Semaphore | None = None

    def _making(self) -> asyncio.Semaphore:
        """The right to make a worktree, one per core: a first wave's trees made all at once share the
        cores and are all ready late, while made a few at a time the first calls start at once and take
        on the calls queued behind the others (same total work, the wave's calls start earlier)."""
        if self._makers is None:
            self._makers = asyncio.Semaphore(max(1, os.cpu_count() or 1))
        return self._makers

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
        """`take` with the checkout or the new worktree made off the event loop, in one trip to the thread
        pool with the reading of what the tree holds.

        `walk=False` (an edit worker, whose tree is captured with git, not compared by a walk) skips
        recording what the tree holds; the tree gets a watch that keeps which paths the worker writes
        instead, so its capture adds and diffs only those (`tree.capture`).
        """
        from kernel.threads import in_pool

        read = _watch_or_read if walk else _paths_watch
        for i, lent in enumerate(self._idle):
            if lent.commit == commit and not lent.dirty:
                lent = self._idle.pop(i)
                if not walk:
                    lent.baseline = None  # an edit worker's tree is captured with git, and recycled dirty
                    await in_pool(lent.unwatch)  # closing an inotify instance waits on the kernel: off the loop
                    _hold(lent, await in_pool(_paths_watch, lent.path))
                elif lent.watch is None and lent.baseline is None:
                    _hold(lent, await in_pool(_watch_or_read, lent.path))
                return lent
        if self._idle:
            lent = self._idle.pop(0)
            kept = lent.watch if not walk and lent.watch is not None and lent.watch.folders is not None else None
            if kept is not None:  # an edit worker's watch goes on: the move's writes forgotten, new folders watched
                read = functools.partial(_rearmed, kept)
            try:
                # otherwise the move may make folders the old watch does not cover: it is closed (off the
                # loop, as closing waits on the kernel) and a new one made
                if kept is None:
                    reading = await in_pool(_unwatch_and_move, lent, commit, clean=walk, read=read)
                else:
                    reading = await in_pool(_move, lent.path, commit, clean=walk, read=read)
            except BaseException:
                self.discard(lent)
                raise
            lent.commit, lent.dirty, lent.baseline = commit, False, None
            _hold(lent, reading)
            return lent
        self._made += 1
        name = f"pooled-{self._made}"
        async with self._making():
            path, reading = await tree.create_and_read_async(
                self.store,
                repo=self.repo,
                run_id=self.run_id,
                name=name,
                commit=commit,
                purpose="seeded" if walk else "edit",  # made for an edit worker (it may serve any call after)
                read=read,
            )
        lent = Lent(path, commit)
        _hold(lent, reading)
        return lent

    async def give_back_async(self, lent: Lent) -> list[str]:
        """`give_back` with the walk and `git check-ignore` off the event loop."""
        from kernel.threads import in_pool

        if lent.watch is not None and not lent.watch.written():
            self._idle.append(lent)  # no write was made through it: no walk, no git
            return []
        dirty, changed = await in_pool(_changed, lent)
        if not dirty:
            self._idle.append(lent)
            return []
        await in_pool(lent.unwatch)
        await tree.remove_async(self.store, lent.path)
        return changed

    def recycle(self, lent: Lent) -> None:
        """Take back an edit worker's worktree once its patch is captured, to be lent again once it is put at
        the next call's commit and cleaned (`take_async`). That checkout touches only the files that
        differ, where a fresh worktree writes every file of the repository (most of an edit call's
        cost on a big one)."""
        lent.dirty, lent.baseline = True, None
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
        lent.unwatch()
        tree.remove(self.store, lent.path)

    def close(self) -> None:
        """Remove every idle worktree (the run is ending)."""
        while self._idle:
            self.discard(self._idle.pop())

    async def close_async(self) -> None:
        """`close` with the worktrees deleted side by side, off the event loop."""
        from kernel.threads import all_of, in_pool

        idle, self._idle = self._idle, []

        async def retire(lent: Lent) -> None:
            # Closing an inotify instance waits for the kernel (a grace period, some milliseconds each):
            # done on the event loop one after another, a 16-wide pool's closes held the run's end ~0.3 s.
            # The folder is deleted meanwhile: the watch is no longer read, and nothing waits on both.
            await all_of(in_pool(lent.unwatch), tree.remove_async(self.store, lent.path))

        await all_of(*(retire(lent) for lent in idle))


def _unwatch_and_move(
    lent: Lent, commit: str, *, clean: bool, read: Callable[[Path], Watch | Baseline | None] | None
) -> Watch | Baseline | None:
    lent.unwatch()
    return _move(lent.path, commit, clean=clean, read=read)


def _move(
    path: Path,
    commit: str,
    *,
    clean: bool = True,
    read: Callable[[Path], Watch | Baseline | None] | None = None,
) -> Watch | Baseline | None:
    """Put a pooled worktree at `commit` (cleaned too, unless `clean` is False: for an edit worker).

    What an edit worker left is in the worktree's index (its capture ran `git add -A`), so the forced
    checkout takes all of it out; a tree lent to read-only work is cleaned too, ignored files
    included, since any file git ignores in it counts as the worker's. Files git ignores that an edit worker made
    (build output) stay for the next edit worker of the run, as they would in one checkout. What
    `read(path)` gives after it, in the same thread (the tree's watch or baseline), is returned.
    """
    git.run(["checkout", "-q", "--detach", "--force", commit], path)
    if clean:
        git.run(["clean", "-q", "-f", "-d", "-x"], path)
    return read(path) if read is not None else None


def _watch_or_read(path: Path) -> Watch | Baseline | None:
    """A watch on the tree, made once with it (a write at any time after, between lendings too, is in
    its queue), or where none can be made what the tree holds, to walk against when it comes back."""
    watch = _watch(path)
    return watch if watch is not None else baseline_of(path)


def _paths_watch(path: Path) -> Watch | None:
    """A watch on an edit worker's tree that keeps which paths it writes (None: its capture walks it all)."""
    return _watch(path, paths=True)


def _rearmed(watch: Watch, path: Path) -> Watch | None:
    """`watch` again for the tree at `path` once moved (`Watch.rearm`), else a new one."""
    if watch.rearm(path):
        return watch
    watch.close()
    return _paths_watch(path)


def _hold(lent: Lent, reading: Watch | Baseline | None) -> None:
    if isinstance(reading, Watch):
        lent.watch = reading
    elif reading is not None:
        lent.baseline = reading


def _watch(path: Path, *, paths: bool = False) -> Watch | None:
    """A watch on the tree at `path` and its git folder (HEAD, index), or None (then it is walked); with
    `paths` it keeps which paths were written."""
    try:
        text = (path / ".git").read_text(encoding="utf-8")
    except OSError:
        return None
    admin = Path(text.removeprefix("gitdir: ").strip()) if text.startswith("gitdir: ") else None
    return open_watch(path, admin, paths=paths) if admin is not None and admin.is_dir() else None


def _changed(lent: Lent) -> tuple[bool, list[str]]:
    """Whether a worker changed anything in a lent worktree, and what, but paths git ignores.

    Nothing, without git, when every entry, HEAD and the index compare equal with the tree's baseline;
    otherwise one `git status` of the worktree decides (tracked files changed or deleted, new files,
    new ignored files: a tree is lent clean, so any ignored file in it is new).
    """
    if lent.baseline is not None:
        if baseline_of(lent.path, settle=False) == lent.baseline:
            return False, []
        lent.baseline = None  # something changed, if only a file's time: git says what, and a new one is taken
    out = git.run(
        ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--ignored=matching", "--no-renames"],
        lent.path,
    ).decode("utf-8", "surrogateescape")
    changed, dirty = [], False
    for entry in out.split("\0"):
        if entry.startswith("# branch.oid "):
            if entry.removeprefix("# branch.oid ") != lent.commit:  # it moved HEAD itself: said as `HEAD`
                dirty = True
                changed.append("HEAD")
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


# Entries past which a tree is compared by `git status` (in C, off the interpreter) rather than walked:
# on redis (3,400 entries) a walk holds the interpreter about as long as git takes in its own process.
WALK_LIMIT = 1000


@dataclass(frozen=True)
class Baseline:
    """Every entry of a lent tree (path -> inode, size, mtime, ctime, mode), its HEAD and its index's stat."""

    entries: dict[str, tuple[int, int, int, int, int]]
    head: bytes
    index: tuple[int, int, int, int]


def baseline_of(path: Path, *, settle: bool = True) -> Baseline | None:
    """What `path` holds now, or None when a later write could not be told apart by its stat alone: more
    than `WALK_LIMIT` entries, an unreadable git entry, or (with `settle`) a clock that does not move
    past the tree's newest change within a few milliseconds (a file system with coarse times)."""
    entries: dict[str, tuple[int, int, int, int, int]] = {}
    folders: list[str | Path] = [path]
    try:
        while folders:
            with os.scandir(folders.pop()) as listing:
                for entry in listing:
                    st = entry.stat(follow_symlinks=False)
                    entries[entry.path] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)
                    if len(entries) > WALK_LIMIT:
                        return None
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(entry.path)
        text = (path / ".git").read_text(encoding="utf-8")
        admin = Path(text.removeprefix("gitdir: ").strip())
        head = (admin / "HEAD").read_bytes()
        try:
            st = os.stat(admin / "index")
            index = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        except FileNotFoundError:
            index = (-1, -1, -1, -1)
    except OSError:
        return None
    # the probe sits in the run's folder, not beside the trees: an entry there would read as an edit
    # worker's write outside its worktree (`live_call._outside_writes`)
    if settle and not _clock_past(path.parent.parent, max([v[3] for v in entries.values()] + [index[3]])):
        return None
    return Baseline(entries, head, index)


def _clock_past(folder: Path, newest_ns: int) -> bool:
    """Whether a change made now gets a ctime after `newest_ns`, as a probe file in `folder` shows."""
    probe = folder / ".clock"
    try:
        os.close(writes.open_fd(probe, os.O_WRONLY | os.O_CREAT))
        for _ in range(30):
            os.utime(probe)
            if os.stat(probe).st_ctime_ns > newest_ns:
                return True
            time.sleep(0.001)
    except OSError:
        pass
    return False
