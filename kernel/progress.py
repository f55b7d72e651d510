"""Progress of long work, reported the same way whoever is listening.

Handlers call `await ctx.progress.update(done, total, message)`. The MCP adapter forwards it as
progress notifications when the client asked for them; the CLI draws a bar on stderr when stderr
is a terminal; otherwise it goes nowhere.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["NullProgress", "Progress", "TerminalProgress"]


class Progress:
    """Receives progress; the base class drops it."""

    async def update(self, done: float, total: float | None = None, message: str | None = None) -> None:
        return None

    def close(self) -> None:
        return None


NullProgress = Progress


class TerminalProgress(Progress):
    """A one-line bar on a terminal's stderr, redrawn at most ten times a second."""

    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream or sys.stderr
        self.width = width
        self._last = 0.0
        self._drawn = False

    async def update(self, done: float, total: float | None = None, message: str | None = None) -> None:
        now = time.monotonic()
        finished = total is not None and done >= total
        if not finished and now - self._last < 0.1:
            return
        self._last = now
        if total:
            filled = int(self.width * min(done / total, 1.0))
            bar = f"[{'#' * filled}{' ' * (self.width - filled)}] {int(done)}/{int(total)}"
        else:
            bar = f"{int(done)}"
        text = f"\r{bar} {message or ''}"[:120]
        self.stream.write(text.ljust(80) if self._drawn else text)
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()
            self._drawn = False


def for_stderr() -> Progress:
    """A terminal bar when stderr is a terminal, else nothing."""
    return TerminalProgress() if sys.stderr.isatty() else Progress()
