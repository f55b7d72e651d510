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


def choose_style(task: str, *, test_command: str | None) -> tuple[str, str]:
    """The template for a task, and why: test words with a test command, review words, questions, else plan."""
    for style, cue in _STYLE_CUES:
        match = cue.search(task)
        if match is None:
            continue
        if style == "test-fix" and not test_command:
            continue
        return library.STYLES[style], f"the task says {match.group(0).strip()!r}"
    return library.DEFAULT_TEMPLATE, "no more specific plan fits; plan, implement, verify and review"
