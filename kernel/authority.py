"""Authority levels, each including the ones before it: observe < consult < edit < admin."""

from __future__ import annotations

from typing import Literal

from kernel.errors import PalliumError

__all__ = ["LEVELS", "Authority", "check", "parse"]

Authority = Literal["observe", "consult", "edit", "admin"]
LEVELS: tuple[Authority, ...] = ("observe", "consult", "edit", "admin")

WHAT_EACH_MAY = {
    "observe": "read the repo, history, sessions and Pallium's state; write only Pallium's caches",
    "consult": "also call model providers for read-only work",
    "edit": "also change the working tree through captured, reviewable patches",
    "admin": "also delete data, revert work, change configuration, install hooks",
}


def parse(value: str) -> Authority:
    """Return `value` as an authority level, or raise `invalid_input` listing the levels."""
    level = value.strip().lower()
    if level not in LEVELS:
        raise PalliumError(
            "invalid_input",
            f"unknown authority level {value!r}",
            hint=f"use one of: {', '.join(LEVELS)}",
            details={"field": "authority", "allowed": list(LEVELS)},
        )
    return level  # checked against LEVELS just above


def allows(ceiling: Authority, needed: Authority) -> bool:
    return LEVELS.index(needed) <= LEVELS.index(ceiling)


def check(tool_name: str, needed: Authority, ceiling: Authority) -> None:
    """Refuse, whole and before anything runs, a call that needs more than the ceiling allows."""
    if not allows(ceiling, needed):
        raise PalliumError(
            "authority_exceeded",
            f"{tool_name} needs authority {needed!r}; the ceiling is {ceiling!r}",
            hint=f"rerun with --authority {needed} if you mean it ({needed} may {WHAT_EACH_MAY[needed]})",
            details={"tool": tool_name, "needed": needed, "ceiling": ceiling},
        )
