"""Finding likely secrets in text: one set of patterns for redacting transcripts and gating patches.

Precision matters more than recall for the generic `password=` style rule (a false positive blocks
a patch or hides a useful line), so it requires a value of some length that is not an obvious
placeholder; the provider-specific patterns are exact formats.
"""

from __future__ import annotations

import re
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
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            group = 1 if match.re.groups else 0
            start, end = match.span(group)
            if kind == "assignment" and _PLACEHOLDER.match(match.group(1)):
                continue
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            found.append(SecretMatch(kind, start, end, text.count("\n", 0, start) + 1))
    return sorted(found, key=lambda m: m.start)


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
