"""Exclusive cross-process locks for work that must not run twice at once (an index build, a sync).

Built on `flock`, so the kernel releases a lock the moment its holder dies: a crashed process never
leaves a lock to clean up. The holder writes its pid into the file so a refusal can name it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from kernel import writes
from kernel.errors import PalliumError

__all__ = ["exclusive"]


@contextlib.contextmanager
def exclusive(path: Path, *, what: str, wait_seconds: float = 0.0) -> Iterator[None]:
    """Hold the lock at `path` for the block; wait up to `wait_seconds`, then raise `conflict`."""
    fd = writes.open_fd(path, os.O_RDWR | os.O_CREAT, 0o600)  # a committed link here is refused, not truncated
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                    raise PalliumError(
                        "conflict",
                        f"{what} is already running (pid {holder})",
                        hint="wait for it to finish, then retry",
                        details={"lock": str(path), "holder_pid": holder},
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
