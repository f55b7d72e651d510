"""The run journal's keys: each call is named by the content of its request plus an occurrence count.

Position would break under real concurrency (which call starts first depends on which finished
first); content does not. The request holds everything that decides the answer: op, prompt, the
resolved provider, model, mode, isolation, schema hash, network grant, args hash, the native session
to start or resume (when set) and the tree the input was read from. Two identical requests in one
attempt are two calls (`#0`, `#1`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kernel.hashing import stable_hash

__all__ = ["Journal", "request_key"]


def request_key(op: str, request: dict[str, Any]) -> str:
    return f"{op}:{stable_hash(request)[:20]}"


class Journal:
    """Hands out call keys for one attempt of a run (occurrences restart at 0 on every resume)."""

    def __init__(self) -> None:
        self._occurrences: Counter[str] = Counter()
        self.seq = 0

    def peek(self, op: str, request: dict[str, Any]) -> str:
        """The call key `key_for` would hand out for this request now, without counting an occurrence."""
        base = request_key(op, request)
        return f"{base}#{self._occurrences[base]}"

    def key_for(self, op: str, request: dict[str, Any]) -> tuple[str, int]:
        """The call key of this request's next occurrence, and its initiation position (display only)."""
        base = request_key(op, request)
        n = self._occurrences[base]
        self._occurrences[base] += 1
        self.seq += 1
        return f"{base}#{n}", self.seq
