"""Finding likely secrets in text: one set of patterns for redacting transcripts and gating patches.

Precision matters more than recall for the generic `password=` style rule (a false positive blocks
a patch or hides a useful line), so it requires a value of some length that is not an obvious
placeholder; the provider-specific patterns are exact formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["SecretMatch", "find_secrets", "redact"]

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY"
            r"(?: BLOCK)?-----|\Z)"
        ),
    ),
    ("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b")),
    ("anthropic_api_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("openai_api_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    ("slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{34,}\b")),
    ("azure_storage_key", re.compile(r"AccountKey=([A-Za-z0-9+/]{80,}={0,2})")),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),
    ("bearer_token", re.compile(r"(?i)\bauthorization:\s*bearer\s+([A-Za-z0-9._~+/\-]{16,}=*)")),
    ("aws_secret_access_key", re.compile(r"(?i)aws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})\b")),
    (
        "assignment",
        re.compile(
            r"(?i)\b[\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
            r"|client[_-]?secret|auth)[\w.-]*[\"']?\s*(?::=|=|:)\s*[\"']?([^\s\"',;`]{8,})"
        ),
    ),
)

# The keyword followed by an assignment, matched on the lowered text and without the pattern's
# leading `[\w.-]*`, both of which make the full pattern slow (about 9 MB/s against 50 MB/s).
_ASSIGNMENT_CUE = re.compile(
    r"(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|client[_-]?secret|auth)[\w.-]*[\"']?\s*(?::=|=|:)"
)

# Text each pattern cannot match without: a pattern whose cues are all absent is not run. Matching a
# dozen regexes over every transcript message dominated indexing time; these substring checks cost
# almost nothing and leave the results unchanged. Cues of case-insensitive patterns are lower case
# and checked against the lowered text.
_CUES: dict[str, tuple[tuple[str, ...] | re.Pattern[str], bool]] = {
    "private_key": (("PRIVATE KEY",), False),
    "aws_access_key_id": (("AKIA", "ASIA", "ABIA", "ACCA"), False),
    "github_token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), False),
    "anthropic_api_key": (("sk-ant-",), False),
    "openai_api_key": (("sk-",), False),
    "slack_token": (("xox",), False),
    "google_api_key": (("AIza",), False),
    "stripe_key": (("_live_", "_test_"), False),
    "jwt": (("eyJ",), False),
    "gitlab_token": (("glpat-",), False),
    "npm_token": (("npm_",), False),
    "huggingface_token": (("hf_",), False),
    "azure_storage_key": (("AccountKey=",), False),
    "bearer_token": (("bearer",), True),
    "aws_secret_access_key": (("aws",), True),
    "assignment": (_ASSIGNMENT_CUE, True),
}

# Words one of which the assignment cue cannot match without: substring checks are ten times
# cheaper than the cue's regular expression, which then runs only on texts holding one of them.
_ASSIGNMENT_WORDS = ("pass", "pwd", "secret", "token", "key", "auth")

# Patterns written as `\b<literal>...`: Python's `re` scans for a literal prefix quickly but tries
# every position when the pattern starts with `\b`, so these run without it and the word
# boundary is checked at each candidate (about 12x faster on long tool outputs).
_WORD_START = frozenset(
    kind for kind, pattern in _PATTERNS if pattern.pattern.startswith("\\b") and kind != "assignment"
)
_UNANCHORED = {
    kind: re.compile(pattern.pattern[2:], pattern.flags) for kind, pattern in _PATTERNS if kind in _WORD_START
}
_WORD_CHAR = re.compile(r"\w")

# Values in `password = ...` lines that are clearly not secrets: references, templates, placeholders.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?[\w.]+\}?|\{\{.*\}\}|<[^>]*>|%\(?\w+\)?s?|(?:os\.)?(?:environ|getenv|env)\b.*"
    r"|x{4,}|\*{4,}|\.{3,}|(?:your|my|some|example|dummy|fake|changeme|placeholder|redacted|none|null|true|false)"
    r"[\w-]*|\w+\(.*|\[REDACTED.*)$"
)


@dataclass(frozen=True)
class SecretMatch:
    kind: str
    start: int
    end: int
    line: int  # 1-based line of the match's start


def find_secrets(text: str) -> list[SecretMatch]:
    """Likely secrets in `text`, in order, without overlaps; the span is the secret value itself."""
    found: list[SecretMatch] = []
    taken: list[tuple[int, int]] = []
    lowered = text.lower()
    assignment_possible = (
        ("=" in text or ":" in text)
        and any(word in lowered for word in _ASSIGNMENT_WORDS)
        and _ASSIGNMENT_CUE.search(lowered) is not None
    )
    for kind, pattern in _PATTERNS:
        cues, folded = _CUES[kind]
        if isinstance(cues, re.Pattern):
            if not assignment_possible:
                continue
        elif not any(cue in (lowered if folded else text) for cue in cues):
            continue
        for match in _matches(kind, pattern, text):
            group = 1 if match.re.groups else 0
            start, end = match.span(group)
            if kind == "assignment" and _PLACEHOLDER.match(match.group(1)):
                continue
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            found.append(SecretMatch(kind, start, end, text.count("\n", 0, start) + 1))
    return sorted(found, key=lambda m: m.start)


def _matches(kind: str, pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The pattern's matches in `text`, as `pattern.finditer` gives them, faster for `\\b`-led ones."""
    if kind not in _WORD_START:
        yield from pattern.finditer(text)
        return
    unanchored, position = _UNANCHORED[kind], 0
    while (match := unanchored.search(text, position)) is not None:
        start = match.start()
        if start > 0 and _WORD_CHAR.match(text, start - 1) is not None:  # `\\b` would not hold here
            position = start + 1
            continue
        yield match
        position = match.end() if match.end() > start else start + 1


def redact(text: str) -> tuple[str, int]:
    """Replace each likely secret with `[REDACTED:<kind>]`; return the new text and how many were replaced."""
    matches = find_secrets(text)
    if not matches:
        return text, 0
    parts, cursor = [], 0
    for m in matches:
        parts.append(text[cursor : m.start])
        parts.append(f"[REDACTED:{m.kind}]")
        cursor = m.end
    parts.append(text[cursor:])
    return "".join(parts), len(matches)
