"""Proof that tests never write under the user's `~/.pallium`, watching the test's own process tree.

The suite gives every test a home of its own (`HOME` and `PALLIUM_HOME` point into temporary
folders), so whatever the test and the processes it starts resolve as `~/.pallium` lands in that
home, where a snapshot taken before and after sees it. Nothing else on the machine writes there: a
Pallium the same user runs meanwhile (a resident server, an agent) goes on writing to the real
`~/.pallium` without failing a test. A path to the real folder fixed before the test began (a
module constant, say) is caught in the test's own process by an audit hook (`RealHomeWatch`).
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

__all__ = ["RealHomeWatch", "changes", "snapshot", "watch"]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Audit events that change the file system, and which of their arguments are paths.
_PATH_EVENTS = {
    "os.mkdir": (0,),
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.rename": (0, 1),
    "os.symlink": (1,),
    "os.link": (1,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "shutil.rmtree": (0,),
    "shutil.copyfile": (1,),
}


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under `root` with its size and modification time; empty when `root` is absent."""
    if not root.exists():
        return {}
    state = {".": (0, root.stat().st_mtime_ns)}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            try:
                info = path.lstat()
            except FileNotFoundError:
                continue
            state[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return state


def changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """Paths created, removed or modified between two snapshots.

    An existing SQLite `-shm` file whose size is unchanged is left out: every process that merely
    reads a WAL database touches it, while a write changes the database or its `-wal`.
    """

    def moved(path: str) -> bool:
        old, new = before.get(path), after.get(path)
        if old == new:
            return False
        return not (path.endswith("-shm") and old is not None and new is not None and old[0] == new[0])

    return sorted(p for p in before.keys() | after.keys() if moved(p))


class RealHomeWatch:
    """Writes this process makes under one folder (the real `~/.pallium`), heard by an audit hook.

    Only this process's own calls raise its audit events, so another process writing there, however
    busy, is never counted.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = os.path.abspath(folder)
        self.hits: list[str] = []

    def take(self) -> list[str]:
        hits, self.hits = self.hits, []
        return hits

    def _under(self, path: object) -> str | None:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str | os.PathLike):
            return None
        text = os.path.abspath(os.fspath(path))
        return text if text == self.folder or text.startswith(self.folder + os.sep) else None

    def __call__(self, event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            path, mode, flags = (*tuple(args), None, None, None)[:3]
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS
            )
            hit = self._under(path) if writes else None
        elif event == "socket.bind":
            address = args[1] if len(args) > 1 else None
            hit = self._under(address) if getattr(args[0], "family", None) == socket.AF_UNIX else None
        elif event in _PATH_EVENTS:
            hit = next((h for i in _PATH_EVENTS[event] if i < len(args) and (h := self._under(args[i]))), None)
        else:
            return
        if hit is not None:
            self.hits.append(f"{event} {hit}")


_installed: dict[str, RealHomeWatch] = {}


def watch(folder: Path) -> RealHomeWatch:
    """The watch on `folder` for this process, installed once (an audit hook cannot be removed)."""
    key = os.path.abspath(folder)
    if key not in _installed:
        _installed[key] = RealHomeWatch(folder)
        sys.addaudithook(_installed[key])
    return _installed[key]
