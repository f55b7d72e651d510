"""Sample a string that a regular expression matches, for peers' test cases made from a rule's pattern.

gitleaks builds many of its true positives at test time from a pattern (`secrets.NewSecret(...)`);
the conformance benchmark rebuilds them here by walking Python's parse of the same pattern. Repeats
without an upper bound take a few extra characters; alternatives and classes are drawn at random.
"""

from __future__ import annotations

import random
import string

try:  # Python 3.11 moved the parser under `re`
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

__all__ = ["go_to_python", "sample"]

_PRINTABLE = string.ascii_letters + string.digits + "_-+/=."
_CATEGORIES = {
    sre_constants.CATEGORY_DIGIT: string.digits,
    sre_constants.CATEGORY_NOT_DIGIT: string.ascii_letters,
    sre_constants.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre_constants.CATEGORY_NOT_WORD: " -.",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
}
_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None)}
_ATOMIC = getattr(sre_constants, "ATOMIC_GROUP", object())
_POSIX = {
    "[:alnum:]": "a-zA-Z0-9",
    "[:alpha:]": "a-zA-Z",
    "[:digit:]": "0-9",
    "[:lower:]": "a-z",
    "[:upper:]": "A-Z",
    "[:xdigit:]": "0-9A-Fa-f",
    "[:space:]": r"\s",
    "[:word:]": r"\w",
    "[:punct:]": r"!-/:-@\[-`{-~",
}


def go_to_python(pattern: str) -> str:
    """The few RE2 spellings Python's `re` reads differently: `\\z`, POSIX classes, flags after the start."""
    for posix, chars in _POSIX.items():
        pattern = pattern.replace(posix, chars)
    pattern = pattern.replace(r"\z", r"\Z")
    if "(?i)" in pattern[1:]:  # merged rules each start with (?i): one global flag for the whole
        pattern = "(?i)" + pattern.replace("(?i)", "")
    return pattern


def sample(pattern: str, rnd: random.Random) -> str:
    parsed = sre_parse.parse(go_to_python(pattern))
    return "".join(_emit(parsed, rnd))


def _class(items, rnd: random.Random) -> str:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        if op is sre_constants.NEGATE:
            negate = True
        elif op is sre_constants.LITERAL:
            chars.append(chr(arg))
        elif op is sre_constants.RANGE:
            chars.extend(chr(c) for c in range(arg[0], arg[1] + 1))
        elif op is sre_constants.CATEGORY:
            chars.extend(_CATEGORIES.get(arg, "a"))
    if negate:
        chars = [c for c in _PRINTABLE if c not in chars] or ["a"]
    return rnd.choice(chars)


def _emit(parsed, rnd: random.Random) -> list[str]:
    out: list[str] = []
    for op, arg in parsed:
        if op is sre_constants.LITERAL:
            out.append(chr(arg))
        elif op is sre_constants.NOT_LITERAL:
            out.append(rnd.choice([c for c in _PRINTABLE if ord(c) != arg]))
        elif op is sre_constants.ANY:
            out.append(rnd.choice(string.ascii_letters + string.digits))
        elif op is sre_constants.IN:
            out.append(_class(arg, rnd))
        elif op is sre_constants.CATEGORY:
            out.append(rnd.choice(_CATEGORIES.get(arg, "a")))
        elif op is sre_constants.BRANCH:
            out += _emit(rnd.choice(arg[1]), rnd)
        elif op is sre_constants.SUBPATTERN:
            out += _emit(arg[-1], rnd)
        elif op in _REPEATS:
            low, high, body = arg
            high = low + 3 if high is sre_constants.MAXREPEAT else high
            for _ in range(rnd.randint(low, max(low, high))):
                out += _emit(body, rnd)
        elif op is _ATOMIC:
            out += _emit(arg, rnd)
        # AT (anchors), ASSERT / ASSERT_NOT (lookarounds), GROUPREF: nothing to emit
    return out
