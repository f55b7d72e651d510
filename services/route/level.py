"""The level a call needs (invariant 3): the dispatcher's own function on the arguments route passes,
raised only by what a handler checks and by the request's action, never lowered.

`ground` chooses the arguments; this says what they cost, and `mentions` says which of a tool's
words a task uses, for both.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from kernel.errors import PalliumError
from services.route import lexicon

if TYPE_CHECKING:
    from services.route.catalog import Capability

__all__ = ["LEVEL_NAMES", "mentions", "needed_level"]

_NO_EDIT = re.compile(
    r"\b(don'?t|do not|never|without|no)\s+(change|changing|edit|editing|modify|modifying|touch|touching|fix|fixing|"
    r"write|writing|edits|changes)\b|\bread[- ]only\b|\bjust (look|read|review|report)\b",
    re.IGNORECASE,
)
LEVEL_NAMES = frozenset({"consult", "edit", "admin"})


_BARE_LEVELS: dict[str, str] = {}  # the dispatcher's level for a tool called without arguments (alternatives)


def needed_level(cap: Capability, arguments: dict[str, Any], task: str, request: Any = None) -> tuple[str, str | None]:
    """The level this call needs, and why it is above the tool's base level (None when it is not).

    Invariant 3: the floor is the dispatcher's own `needed_authority` on exactly these arguments (so
    `--execute` never meets a refusal route did not predict); fields whose description names a level a
    handler checks, and the task's own words (`start` asked to fix needs edit), may only raise it.
    """
    from kernel.authority import LEVELS
    from kernel.dispatch import needed_authority

    level, reason = cap.authority, None
    dispatcher = _BARE_LEVELS.get(cap.tool) if not arguments else None
    if dispatcher is None:
        try:
            dispatcher = needed_authority(cap.tool, arguments)
        except PalliumError:
            dispatcher = cap.authority  # type: ignore[assignment]
        if not arguments:
            _BARE_LEVELS[cap.tool] = dispatcher  # a tool called with nothing needs the same level every time
    if LEVELS.index(dispatcher) > LEVELS.index(level):  # type: ignore[arg-type]
        field_name = cap.escalation[0] if cap.escalation else "its arguments"
        set_or_default = "set" if arguments.get(field_name) else "left at its default"
        level, reason = dispatcher, f"`{field_name}` {set_or_default} makes {cap.capability} need {dispatcher}"
    for field_name, raised in cap.raised_by:
        value = arguments.get(field_name)
        if value and value is not False and LEVELS.index(raised) > LEVELS.index(level):  # type: ignore[arg-type]
            level, reason = raised, f"`{field_name}` makes {cap.capability} need {raised}"
    for field_name, value in arguments.items():
        # a choice set to a level ("mode": "edit") is checked at that level by the handler, unless the same
        # call holds it back for a plan's approval first
        enum = cap.properties.get(field_name, {}).get("enum") or ()
        if (
            value in enum
            and value in LEVEL_NAMES
            and not arguments.get("plan_required")
            and LEVELS.index(value) > LEVELS.index(level)
        ):
            level, reason = value, f"`{field_name}: {value}` makes {cap.capability} need {value}"
    if (
        request is not None
        and request.action == "change"
        and request.object == "code"
        and not (request.preview or request.no_edit or _NO_EDIT.search(task))
        and "edit" in cap.levels
        and LEVELS.index("edit") > LEVELS.index(level)
    ):
        # the reading's action, not a listed word: "purge the prints from src/app.py" changes a file
        level, reason = "edit", f"the task asks to {request.verb} code, which {cap.capability} can only do at edit"
    reads_only = request is not None and (request.no_edit or request.action in ("review", "research", "question"))
    if not _NO_EDIT.search(task):
        # The task's words raise the level only as its action: "review the changes" reviews, it does not edit.
        words_in = request.body if request is not None and request.body else task
        for wanted, words in cap.levels.items():
            if reads_only and wanted != "consult":
                continue
            hit = mentions(words_in, words)
            if hit and LEVELS.index(wanted) > LEVELS.index(level):
                level, reason = wanted, f"the task asks to {hit}, which {cap.capability} can only do at {wanted}"
    return level, reason


def mentions(task: str, words: tuple[str, ...]) -> str | None:
    """The first of `words` the task uses (as a word or, for one-word entries, any form of it)."""
    lowered = task.lower()
    stems = {lexicon.stem(w) for w in lexicon.words(task)}
    for word in words:
        if " " in word:
            if word in lowered:
                return word
        elif lexicon.stem(word) in stems:
            return word
    return None
