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
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys
import weakref
from pathlib import Path

__all__ = ["Watch", "open_watch"]

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


class Watch:
    """An inotify instance watching every folder of one tree; `written()` says whether any event came."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._close = weakref.finalize(self, os.close, fd)  # a watch dropped without `close` still frees its fd

    def written(self) -> bool:
        """Whether anything was written since the last call (the queue is read empty either way)."""
        seen = False
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return seen
            except OSError:
                return True  # cannot tell: the caller asks git
            if not chunk:
                return seen
            seen = True

    def close(self) -> None:
        self._close()


def open_watch(tree: Path, *admin: Path) -> Watch | None:
    """A watch on every folder of `tree` (not following links, not into a `.git` folder) and on the git
    folders `admin` themselves (not their subfolders: HEAD, the index, info/exclude), or None where
    inotify cannot be had (then the caller compares the tree with git as before)."""
    libc = _libc()
    if libc is None:
        return None
    fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        return None
    watch = Watch(fd)
    flat = {str(folder) for folder in admin}
    folders: list[str] = [str(tree), *flat]
    mask = _WRITES | _IN_ONLYDIR | _IN_DONT_FOLLOW
    try:
        for count in range(MAX_FOLDERS + 1):
            if not folders:
                break
            folder = folders.pop()
            if count == MAX_FOLDERS or libc.inotify_add_watch(fd, os.fsencode(folder), mask) < 0:
                watch.close()
                return None
            if folder not in flat:
                with os.scandir(folder) as listing:
                    folders += [e.path for e in listing if e.name != ".git" and e.is_dir(follow_symlinks=False)]
    except OSError:
        watch.close()
        return None
    watch.written()  # what the checkout still had queued is not the worker's
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
