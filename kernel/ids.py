"""Finding a record from its id or a unique prefix of it: one rule, one wording, for every service.

People and agents copy ids by their first characters (`pallium workflow status 3f9c`). A service
passes how to read one record by its whole id and how to list the ids starting with a prefix;
this module applies the rule (the whole id first, then a single match) and raises the errors
both doors show: `not_found` saying how to list what exists, `invalid_input` naming the matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from kernel.errors import PalliumError

__all__ = ["resolve_prefix"]

T = TypeVar("T")
_SHOWN = 10


def resolve_prefix(
    given: str,
    *,
    get: Callable[[str], T | None],
    starting_with: Callable[[str, int], list[str]],
    what: str,
    field: str,
    list_hint: str,
    choose: Callable[[list[str]], str | None] | None = None,
) -> T:
    """The record whose id is `given`, else the only one whose id starts with it.

    `get(id)` reads one record; `starting_with(prefix, limit)` lists matching ids. `choose` may
    settle a prefix that several ids share (a session and its subagents: the session). `what`
    names the kind of record ("workflow run"), `field` the argument it came from, and
    `list_hint` how to list what exists (for the not_found hint).
    """
    found = get(given)
    if found is not None:
        return found
    matches = starting_with(given, _SHOWN + 1)
    chosen = matches[0] if len(matches) == 1 else (choose(matches) if choose is not None and matches else None)
    if chosen is not None:
        row = get(chosen)
        if row is not None:
            return row
    flag = "--" + field.replace("_", "-")
    if not matches:
        raise PalliumError(
            "not_found",
            f"no {what} has an id starting with {given!r}",
            hint=list_hint,
            details={"field": field, field: given},
        )
    shown = matches[:_SHOWN]
    more = " and more" if len(matches) > _SHOWN else ""
    raise PalliumError(
        "invalid_input",
        f"{given!r} matches several {what}s: {', '.join(shown)}{more}",
        hint=f"give more characters of the id as `{field}` (CLI {flag} or the positional id)",
        details={"field": field, "matches": shown},
    )
