"""Metamorphic tests: a task and its paraphrases (case, a typo, filler words, reordering) route the same.

Base tasks are the project's own set and the tuning set (never the held-out set); each example applies
one generated transformation and compares capability and blocked flag with the untouched task's.
Names (paths, ids, symbols, quoted text) are left alone: changing them changes the task.
"""

from __future__ import annotations

import re
from pathlib import Path

import anyio
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.services.route.cases import CASES, TERSE
from tests.services.route.conftest import route
from tests.services.route.tuning_cases import TUNING

BASES = [c for c in CASES if c.capability is not None] + [c for c in TUNING if c.capability is not None]
SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture], derandomize=True
)
_PLAIN = re.compile(r"^[A-Za-z]+$")
_QUOTED = re.compile(r"\"[^\"]*\"|`[^`]*`|'[^']*'")


def _words(task: str) -> list[tuple[int, int]]:
    """Spans of plain words outside quotes, which a paraphrase may touch."""
    quoted = [m.span() for m in _QUOTED.finditer(task)]
    spans = []
    for match in re.finditer(r"\S+", task):
        if any(a <= match.start() < b for a, b in quoted):
            continue
        core = match.group(0).strip(",.?!:;")
        if _PLAIN.match(core):
            spans.append((match.start(), match.start() + len(core)))
    return spans


def recase(task: str, how: str) -> str:
    out = task
    for start, end in _words(task):
        word = out[start:end]
        out = out[:start] + (word.upper() if how == "upper" else word.capitalize()) + out[end:]
    return out


def typo(task: str, pick: int) -> str:
    """Swap two neighbouring letters inside one long word (a typing slip: "explian")."""
    long = [(a, b) for a, b in _words(task) if b - a >= 7]
    if not long:
        return task
    start, _end = long[pick % len(long)]
    i = start + 2
    return task[:i] + task[i + 1] + task[i] + task[i + 2 :]


PREFIXES = ["please ", "hey, ", "ok so ", "could you ", "hi! ", "quick question: "]
SUFFIXES = [" please", ", thanks", "!", " thank you", " asap"]


def fill(task: str, prefix: str, suffix: str) -> str:
    return prefix + task.rstrip("?!.") + suffix


def reorder(task: str) -> str:
    """Move politeness from the front to the back, or a trailing "before ..." clause to the front."""
    match = re.match(r"^(please|pls|hey,?|could you)\s+(.*)$", task, re.IGNORECASE)
    if match:
        return f"{match.group(2)}, {match.group(1).rstrip(',')}"
    match = re.match(r"^(.*?)\s+(before [^,;]+)$", task)
    if match:
        return f"{match.group(2)}, {match.group(1)}"
    return f"{task.rstrip('?!.')}, please"


TRANSFORMS = st.one_of(
    st.tuples(st.just("case"), st.sampled_from(["upper", "title"])),
    st.tuples(st.just("typo"), st.integers(0, 20)),
    st.tuples(st.just("fill"), st.tuples(st.sampled_from(PREFIXES), st.sampled_from(SUFFIXES))),
    st.tuples(st.just("reorder"), st.just(None)),
)


def paraphrase(task: str, transform: tuple) -> str:
    kind, arg = transform
    if kind == "case":
        return recase(task, arg)
    if kind == "typo":
        return typo(task, arg)
    if kind == "fill":
        return fill(task, *arg)
    return reorder(task)


@SETTINGS
@given(case=st.sampled_from(BASES), transform=TRANSFORMS)
def test_a_paraphrase_routes_like_the_task(git_repo: Path, case, transform):
    assume(not (transform[0] == "typo" and case in TERSE))  # a second slip in a word already misspelt
    changed = paraphrase(case.task, transform)
    base = anyio.run(lambda: route(case.task, git_repo, ceiling=case.ceiling))
    other = anyio.run(lambda: route(changed, git_repo, ceiling=case.ceiling))
    assert (other.capability, other.blocked) == (base.capability, base.blocked), (case.task, changed)


def test_the_paraphrases_do_change_the_text():
    task = "explain src/app.py before I edit it"
    assert recase(task, "upper") == "EXPLAIN src/app.py BEFORE I EDIT IT"
    assert typo("please explain the function", 0) == "please exlpain the function"
    assert reorder(task) == "before I edit it, explain src/app.py"
    assert fill(task, "hey, ", "!") == "hey, explain src/app.py before I edit it!"
