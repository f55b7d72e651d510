"""Whether anything was written in a lent worktree, told by the kernel (inotify) instead of a walk.

A read-only worker's tree goes back to the pool only if the worker changed nothing in it. Asking
`git status` after every turn costs a process and a walk of the whole tree (12 ms of CPU on redis's
1,600 files, most of a read-only turn's cost beyond the agent). Linux queues an event for every
write made through a watched folder (a file created, written, closed after writing, deleted,
moved, its mode or times changed), so a tree whose watch queued nothing since it was lent was not
written; any event, or a full queue, sends the caller back to `git status`, whose answer decides.
Reading a file makes no event. Each folder of the tree is watched, and the worktree's own git folder
(HEAD and index), and the watch lives as long as the pooled tree does: it is made once, not per turn.

Where inotify is missing (another system, no instances or watches left) `open_watch` returns None
and the caller walks as before. A write made through a hard link from outside the tree is not seen
here (it would not be seen through the tree's stat either until its time changed); the tree is a
throwaway one whose content never reaches the user, so the worst such a write does is go unreported.

A watch made with `paths=True` (an edit worker's tree) also keeps which paths were written, so the
capture adds and diffs those alone instead of walking all the tree (`changed`). Linux names the path
a write went through (a file opened for writing is named when it is closed, a shared memory map
included): a file changed through another name, a hard link made in the tree, makes no event
under its own, so the capture walks the whole tree when a written file has more than one link (a
link made, written through and deleted again in one turn goes unseen). Any git run in the tree
(its index or HEAD written) sends the capture back to the walk too.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import struct
import sys
import weakref
from pathlib import Path

__all__ = ["MAX_PATHS", "Watch", "open_watch"]

# <sys/inotify.h>
_IN_ATTRIB = 0x004
_IN_CLOSE_WRITE = 0x008
_IN_MODIFY = 0x002
_IN_MOVED_FROM = 0x040
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ISDIR = 0x40000000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC
_WRITES = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
)
# more folders than this and the tree is left to `git status` (a watch per folder counts against a
# per-user limit the whole machine shares)
MAX_FOLDERS = 2000
# more paths written than this and `changed` says None: the caller walks the whole tree as before
MAX_PATHS = 200
_MASK = _WRITES | _IN_ONLYDIR | _IN_DONT_FOLLOW
_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len (then `len` bytes of name)


class Watch:
    """An inotify instance watching every folder of one tree; `written()` says whether any event came."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._close = weakref.finalize(self, os.close, fd)  # a watch dropped without `close` still frees its fd
        # watch descriptor -> folder relative to the tree ("" the tree itself, None a git folder): kept only
        # when the watch records paths
        self.folders: dict[int, str | None] | None = None
        self._paths: set[str] | None = set()
        self._admin = False  # a git folder (HEAD, the index) was written

    def written(self) -> bool:
        """Whether anything was written since the last call (the queue is read empty either way)."""
        seen = False
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return seen
            except OSError:
                self._paths = None
                return True  # cannot tell: the caller asks git
            if not chunk:
                return seen
            seen = True
            if self.folders is not None:
                self._note(chunk)

    def changed(self) -> list[str] | None:
        """The paths written in the tree since the watch was made, relative to it and sorted (a folder made,
        moved in or deleted stands for all beneath it), or None when they cannot be told: a git folder
        was written (the worker ran git: its index may say more than its files), the queue overflowed,
        more than `MAX_PATHS` paths, the tree's `.git` file was touched, or the watch records no paths."""
        self.written()
        if self.folders is None or self._paths is None or self._admin:
            return None
        return sorted(self._paths)

    def rearm(self, tree: Path) -> bool:
        """Forget what was written so far (the checkout that moved the tree to its next commit) and watch the
        folders it made, so the next worker's writes are told from a clean slate without a new watch (a
        walk of every folder of the tree). False when that cannot be done: make a new watch."""
        libc = _libc()
        if self.folders is None or libc is None:
            return False
        made: list[str] = []
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                return False
            if not chunk:
                break
            for wd, mask, name in _events(chunk):
                if mask & _IN_Q_OVERFLOW:
                    return False
                if mask & _IN_IGNORED:
                    self.folders.pop(wd, None)  # a folder the checkout deleted
                    continue
                folder = self.folders.get(wd)
                if folder is not None and name and mask & _IN_ISDIR and mask & (_IN_CREATE | _IN_MOVED_TO):
                    made.append(f"{folder}/{name}" if folder else name)
        folders = [str(tree / rel) for rel in made]
        root = str(tree)
        try:
            while folders:
                folder = folders.pop()
                if len(self.folders) >= MAX_FOLDERS:
                    return False
                wd = libc.inotify_add_watch(self.fd, os.fsencode(folder), _MASK)
                if wd < 0:
                    continue  # gone again: nothing of it to hear
                self.folders[wd] = os.path.relpath(folder, root).replace(os.sep, "/")
                with os.scandir(folder) as listing:
                    folders += [e.path for e in listing if e.name != ".git" and e.is_dir(follow_symlinks=False)]
        except OSError:
            return False
        self._paths, self._admin = set(), False
        return True

    def _note(self, chunk: bytes) -> None:
        for wd, mask, name in _events(chunk):
            if mask & _IN_IGNORED or self._paths is None:
                continue
            if mask & _IN_Q_OVERFLOW or self.folders is None or wd not in self.folders:
                self._paths = None
                continue
            folder = self.folders[wd]
            if folder is None:
                self._admin = True
                continue
            path = f"{folder}/{name}" if folder and name else (name or folder)
            if not path or path == ".git" or path.startswith(".git/"):
                self._paths = None  # the tree itself, or its `.git` file: walk it all
                continue
            self._paths.add(path)
            if len(self._paths) > MAX_PATHS:
                self._paths = None

    def close(self) -> None:
        self._close()


def _events(chunk: bytes):
    """(watch descriptor, mask, name) of each `struct inotify_event` in what one read of the queue gave."""
    at = 0
    while at + _EVENT.size <= len(chunk):
        wd, mask, _cookie, size = _EVENT.unpack_from(chunk, at)
        raw = chunk[at + _EVENT.size : at + _EVENT.size + size].split(b"\0", 1)[0]
        at += _EVENT.size + size
        yield wd, mask, os.fsdecode(raw)


def open_watch(tree: Path, *admin: Path, paths: bool = False) -> Watch | None:
    """A watch on every folder of `tree` (not following links, not into a `.git` folder) and on the git
    folders `admin` themselves (not their subfolders: HEAD, the index, info/exclude), or None where
    inotify cannot be had (then the caller compares the tree with git as before). With `paths` it
    keeps which paths were written (`Watch.changed`)."""
    libc = _libc()
    if libc is None:
        return None
    fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        return None
    watch = Watch(fd)
    known: dict[int, str | None] = {}
    root = str(tree)
    flat = {str(folder) for folder in admin}
    folders: list[str] = [str(tree), *flat]
    mask = _MASK
    try:
        for count in range(MAX_FOLDERS + 1):
            if not folders:
                break
            folder = folders.pop()
            wd = -1 if count == MAX_FOLDERS else libc.inotify_add_watch(fd, os.fsencode(folder), mask)
            if wd < 0:
                watch.close()
                return None
            if paths:
                known[wd] = None if folder in flat else os.path.relpath(folder, root).replace(os.sep, "/")
            if folder not in flat:
                with os.scandir(folder) as listing:
                    folders += [e.path for e in listing if e.name != ".git" and e.is_dir(follow_symlinks=False)]
    except OSError:
        watch.close()
        return None
    watch.written()  # what the checkout still had queued is not the worker's
    if paths:
        watch.folders = {wd: ("" if rel == "." else rel) for wd, rel in known.items()}
    return watch


@functools.cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return libc
