"""A snapshot of a folder tree, to prove that tests never write under the user's real `~/.pallium`."""

from __future__ import annotations

import os
from pathlib import Path


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
    reads a WAL database touches it (another checkout's test suite on the same machine, say),
    while a write changes the database or its `-wal`.
    """

    def moved(path: str) -> bool:
        old, new = before.get(path), after.get(path)
        if old == new:
            return False
        return not (path.endswith("-shm") and old is not None and new is not None and old[0] == new[0])

    return sorted(p for p in before.keys() | after.keys() if moved(p))
