"""The idle clock of a script: how long it has gone without progress, counted by what its V8 thread did.

A script that makes no host call is idle in one of two ways: it waits (a promise nothing will settle,
V8's thread asleep), or it computes (an endless loop, V8's thread runnable). Waiting is counted in
wall time. Computing is counted in the CPU time V8's threads were given, not in wall time: on a
loaded machine a script that allocates until it meets its memory limit gets a fraction of a core,
and counted in wall time it would pass the idle limit first and be called a runaway. Counted in CPU
it meets the limit its work reaches first, whatever the load: the memory limit after the CPU it
takes to allocate that much, the idle limit after `idle_seconds` of computing.

V8's threads are the ones that appear while the isolate is created (Linux, `/proc/self/task`). Where
they cannot be seen, every tick counts in wall time, as before.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

_TASKS = "/proc/self/task"
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

T = TypeVar("T")


def _threads() -> set[str]:
    try:
        return set(os.listdir(_TASKS))
    except OSError:
        return set()


def _state(tid: str) -> tuple[bool, float] | None:
    """Whether the thread is runnable, and the CPU seconds it has used; None once it is gone."""
    try:
        with open(f"{_TASKS}/{tid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0] == "R", (int(fields[11]) + int(fields[12])) / _TICK


def created_with(make: Callable[[], T]) -> tuple[T, IdleClock]:
    """Make the isolate with `make()`, and an idle clock that watches the threads it started."""
    before = _threads()
    made = make()
    return made, IdleClock(_threads() - before)


class IdleClock:
    """Seconds of idleness since the last reset: wall time while V8 sleeps, its CPU time while it runs."""

    def __init__(self, threads: set[str]) -> None:
        self.threads = threads
        self.idle = 0.0
        self._at = time.monotonic()
        self._cpu = self._sample()[1]

    def _sample(self) -> tuple[bool, float]:
        running, cpu = False, 0.0
        for tid in list(self.threads):
            seen = _state(tid)
            if seen is None:
                self.threads.discard(tid)
                continue
            running = running or seen[0]
            cpu += seen[1]
        return running, cpu

    def reset(self) -> None:
        self.idle = 0.0
        self._at = time.monotonic()
        self._cpu = self._sample()[1]

    def tick(self) -> float:
        """Advance the clock to now; the idle seconds so far."""
        now = time.monotonic()
        running, cpu = self._sample() if self.threads else (False, 0.0)
        wall = now - self._at
        self.idle += min(wall, max(cpu - self._cpu, 0.0)) if running else wall
        self._at, self._cpu = now, cpu
        return self.idle
