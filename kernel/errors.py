"""The one error type of Pallium, and the codes it carries.

Every failure a caller can act on is a `PalliumError`. The MCP adapter returns it as an
`isError` result whose text is `to_json()`; the CLI prints it to stderr and exits with
`exit_code`. Foreign errors (git, apsw, the file system) are translated where they arise.
"""

from __future__ import annotations

import json
from typing import Any, Literal

__all__ = ["CODES", "EX_USAGE", "ErrorCode", "PalliumError"]

ErrorCode = Literal[
    "invalid_input",
    "not_found",
    "authority_exceeded",
    "conflict",
    "unavailable",
    "stale",
    "budget_exhausted",
    "internal",
]
CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]  # Literal keeps its members here

# Bad arguments exit 2, like click's UsageError; everything else a caller could not get (a missing
# file, run or loop included) exits 1; a bug exits 70 (EX_SOFTWARE) so scripts can tell it apart.
# Under `pallium loop`, whose `tick` answers its states with 0 to 6 (no_op is 2), bad input exits 64
# (sysexits' EX_USAGE) instead, so a misspelt cron or CI line never reads as a tick state (the CLI
# applies it).
EX_USAGE = 64
_EXIT_CODES = {"invalid_input": 2, "internal": 70}


# An error echoes ids, paths and queries it was given; a hostile 100 KB one must not make a 200 KB error.
MAX_MESSAGE = 1000
MAX_DETAIL = 300
MAX_DETAIL_ITEMS = 50


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


def _cut_details(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return _cut(value, MAX_DETAIL)
    if depth > 6:
        return "..."
    if isinstance(value, dict):
        return {_cut(str(k), MAX_DETAIL): _cut_details(v, depth + 1) for k, v in list(value.items())[:MAX_DETAIL_ITEMS]}
    if isinstance(value, list | tuple):
        items = [_cut_details(v, depth + 1) for v in value[:MAX_DETAIL_ITEMS]]
        return items + ([f"... and {len(value) - MAX_DETAIL_ITEMS} more"] if len(value) > MAX_DETAIL_ITEMS else [])
    return value


class PalliumError(Exception):
    """A failure with a stable `code`, a message naming what went wrong, and a hint saying what to do."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        hint: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        if code not in CODES:
            raise ValueError(f"unknown error code {code!r}")
        message = _cut(message, MAX_MESSAGE)
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = None if hint is None else _cut(hint, MAX_MESSAGE)
        self.details = _cut_details(details or {}, 0)

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES.get(self.code, 1)

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "hint": self.hint, "details": self.details}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)

    def __repr__(self) -> str:
        return f"PalliumError({self.code!r}, {self.message!r})"
