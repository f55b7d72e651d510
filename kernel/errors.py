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
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.details = details or {}

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES.get(self.code, 1)

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "hint": self.hint, "details": self.details}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)

    def __repr__(self) -> str:
        return f"PalliumError({self.code!r}, {self.message!r})"
