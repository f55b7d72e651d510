"""`pallium start`: scope the repository, choose a plan for the task, and run it.

The plan is a saved workflow or template named by the caller, or one chosen from the task's words;
the choice and the reason are part of the answer, so a person can see why before anything runs
(`--dry-run`).
"""

from __future__ import annotations

import re

from services.workflows import library

__all__ = ["choose_style"]

_STYLE_CUES = (
    (
        "test-fix",
        re.compile(r"\b(fail\w*|failing|broken|red|green|fix(es|ing)? (the )?tests?|make .*tests? pass)\b", re.I),
    ),
    ("review", re.compile(r"\b(review\w*|audit\w*|critique|look over|check my (change|diff|pr))\b", re.I)),
    ("research", re.compile(r"^(how|why|what|where|which|who|explain|find out)\b|\?\s*$|\bresearch\b", re.I)),
)


# A task that asks to fix or change code gets a plan that edits, even when it also says "review".
_ASKS_TO_FIX = re.compile(
    r"\b(fix|fixes|fixing|fxi|repair\w*|implement\w*|refactor\w*|rewrite|debug|make (?:\w+ ){0,3}(?:pass|green))\b",
    re.I,
)
# ...or that leads with a verb that changes code ("clean up my branch before review").
_LEADS_WITH_CHANGE = re.compile(
    r"^(?:(?:please|pls|can you|could you|would you|just|hey,?|ok,?)\s+)*(add|change|modify|edit|update|"
    r"clean ?up|tidy|remove|delete|get rid of|sort (?:it |this )?out|rename|rewrite|simplify|migrate)\b",
    re.I,
)
_NO_EDIT = re.compile(
    r"\b(don'?t|do not|never|without|no)\s+(\w+\s+)?(chang\w*|edit\w*|modif\w*|fix\w*|touch\w*)\b|"
    r"\bread[- ]only\b|\breport only\b",
    re.I,
)
_EDITS = frozenset({"test-fix", "plan"})  # the styles whose templates have a fix or implement phase


def choose_style(task: str, *, test_command: str | None) -> tuple[str, str]:
    """The template for a task, and why: test words with a test command, review words, questions, else plan.

    A task that asks to fix (and does not forbid edits) never gets a plan without a fix phase."""
    fix = (_ASKS_TO_FIX.search(task) or _LEADS_WITH_CHANGE.search(task.strip())) if not _NO_EDIT.search(task) else None
    for style, cue in _STYLE_CUES:
        match = cue.search(task)
        if match is None:
            continue
        if style == "test-fix" and not test_command:
            continue
        if fix is not None and style not in _EDITS:
            continue
        return library.STYLES[style], f"the task says {match.group(0).strip()!r}"
    if fix is not None:
        return (
            library.DEFAULT_TEMPLATE,
            f"the task asks to {fix.group(0).strip()!r}: plan, implement, verify and review",
        )
    return library.DEFAULT_TEMPLATE, "no more specific plan fits; plan, implement, verify and review"
