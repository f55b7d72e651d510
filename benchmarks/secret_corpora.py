"""The peers' labelled cases for `python -m benchmarks secrets`, read into one shape (`Scored`).

Each peer has its reader (`benchmarks/peer_<name>.py`) that knows its repository's layout; here each one's
cases become `Scored` rows, the peer of a checkout is recognised by its layout (`peer_of`), and the values a
peer's own positives report are kept per family (`REPORTED`, `SIBLING_POSITIVES`, `IGNORED`), for the
scoring's differences on purpose to consult. `secret_part` reads a credential of several parts the way the
peers label it: which part must not survive. Scoring and reporting are `benchmarks/secrets.py`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "ID_NAMED_BEFORE",
    "IGNORED",
    "READERS",
    "REPORTED",
    "SIBLING_POSITIVES",
    "Scored",
    "named_before",
    "peer_of",
    "secret_part",
]


@dataclass
class Scored:
    peer: str
    family: str
    text: str
    positive: bool
    secrets: list[str]  # the values the peer reports; empty when its test does not name them
    where: str
    difference: str | None = None  # why Pallium decides otherwise on purpose
    caught: bool = False  # positive: every secret gone; negative: something redacted
    parts: list[list[str]] = field(default_factory=list)  # credentials of several parts (TruffleHog's RawV2)


# Per peer, the values its own ignore file lists (ripsecrets' `.secretsignore`)
IGNORED: dict[str, set[str]] = {}
# Per (peer, family): the values the peer's own positives report as secrets.
REPORTED: dict[tuple[str, str], set[str]] = {}
# gitleaks' true positives, all rules together: a rule's negative may be a sibling rule's positive
SIBLING_POSITIVES: set[str] = set()


def _read_gitleaks(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_gitleaks import read_rules, secrets_in

    rules, notes = read_rules(root)
    out: list[Scored] = []
    for rule in rules:
        for tp in rule.tps:
            SIBLING_POSITIVES.add(tp)
            reported = secrets_in(rule, tp)
            REPORTED.setdefault(("gitleaks", rule.family), set()).update(v for v in reported if len(v) >= 12)
            out.append(Scored("gitleaks", rule.family, tp, True, reported, rule.rule_id))
        for fp in rule.fps:
            out.append(Scored("gitleaks", rule.family, fp, False, [], rule.rule_id))
    return out, notes


def _read_detect_secrets(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_detect_secrets import read_cases

    cases, notes = read_cases(root)
    out = [
        Scored("detect-secrets", c.family, c.text, c.positive, [c.secret] if c.secret else [], c.where) for c in cases
    ]
    for c in cases:
        if c.positive and c.secret and len(c.secret) >= 12:
            REPORTED.setdefault(("detect-secrets", c.family), set()).add(c.secret)
    return out, notes


def _read_trufflehog(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_trufflehog import read_cases

    cases, notes = read_cases(root)
    out = []
    for c in cases:
        out.append(Scored("trufflehog", c.family, c.text, c.positive, c.secrets, c.where, parts=c.parts))
        if c.positive:
            secret_parts = [secret_part(parts, c.text) for parts in c.parts]
            REPORTED.setdefault(("trufflehog", c.family), set()).update(
                [*c.secrets, *(part for part in secret_parts if part and len(part) >= 12)]
            )
    return out, notes


def _read_noseyparker(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_noseyparker import read_cases

    cases, notes = read_cases(root)
    out = []
    for c in cases:
        out.append(Scored("noseyparker", c.family, c.text, c.positive, c.secrets, c.where, parts=c.parts))
        if c.positive:
            secret_parts = [secret_part(parts, c.text, last=True) for parts in c.parts]
            REPORTED.setdefault(("noseyparker", c.family), set()).update(
                [*(s for s in c.secrets if len(s) >= 12), *(part for part in secret_parts if part and len(part) >= 12)]
            )
    return out, notes


def _read_ripsecrets(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_ripsecrets import read_cases

    cases, notes = read_cases(root)
    ignore = root / ".secretsignore"
    if ignore.is_file():  # its `[secrets]` section: one ignored value a line
        section = ignore.read_text(encoding="utf-8").split("[secrets]", 1)[-1]
        IGNORED["ripsecrets"] = {line.strip() for line in section.splitlines() if len(line.strip()) >= 8}
    return [Scored("ripsecrets", c.family, c.text, c.positive, [], c.where) for c in cases], notes


def _read_secretlint(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_secretlint import read_cases

    cases, notes = read_cases(root)
    for c in cases:
        if c.positive:
            REPORTED.setdefault(("secretlint", c.family), set()).update(s for s in c.secrets if len(s) >= 12)
    return [Scored("secretlint", c.family, c.text, c.positive, c.secrets, c.where) for c in cases], notes


def _read_semgrep(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_semgrep import read_cases

    cases, notes = read_cases(root)
    return [Scored("semgrep", c.family, c.text, c.positive, [], c.where) for c in cases], notes


def _read_kingfisher(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_kingfisher import read_cases

    cases, notes = read_cases(root)
    out = []
    for c in cases:
        out.append(Scored("kingfisher", c.family, c.text, c.positive, c.secrets, c.where, parts=c.parts))
        if c.positive:
            secret_parts = [secret_part(parts, c.text, last=True) for parts in c.parts]
            REPORTED.setdefault(("kingfisher", c.family), set()).update(
                [*(s for s in c.secrets if len(s) >= 12), *(part for part in secret_parts if part and len(part) >= 12)]
            )
    return out, notes


def peer_of(root: Path) -> str:
    if (root / "cmd" / "generate" / "config" / "rules").is_dir():
        return "gitleaks"
    if (root / "detect_secrets").is_dir() and (root / "tests" / "plugins").is_dir():
        return "detect-secrets"
    if (root / "pkg" / "detectors").is_dir():
        return "trufflehog"
    if (root / "crates" / "noseyparker" / "data" / "default" / "builtin" / "rules").is_dir():
        return "noseyparker"
    if (root / "test" / "one_per_line").is_dir() and (root / "src" / "matcher").is_dir():
        return "ripsecrets"
    if (root / "packages" / "@secretlint").is_dir():
        return "secretlint"
    if (root / "generic" / "secrets" / "security").is_dir():
        return "semgrep"
    if (root / "data" / "rules").is_dir() and (root / "src").is_dir():
        return "kingfisher"
    if (root / "whispers").is_dir() and (root / "tests" / "fixtures").is_dir():
        return "whispers"
    if (root / "config" / "rules").is_dir() and (root / "pkg" / "postprocess").is_dir():
        return "earlybird"
    raise SystemExit(f"{root}: not a checkout of a peer this benchmark reads (see its docstring)")


def _read_earlybird(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_earlybird import read_cases

    cases, notes = read_cases(root)
    return [Scored("earlybird", c.family, c.text, c.positive, [], c.where) for c in cases], notes


def _read_whispers(root: Path) -> tuple[list[Scored], list[str]]:
    from benchmarks.peer_whispers import scored

    return scored(root)


READERS: dict[str, Callable[[Path], tuple[list[Scored], list[str]]]] = {
    "gitleaks": _read_gitleaks,
    "detect-secrets": _read_detect_secrets,
    "trufflehog": _read_trufflehog,
    "noseyparker": _read_noseyparker,
    "ripsecrets": _read_ripsecrets,
    "secretlint": _read_secretlint,
    "semgrep": _read_semgrep,
    "kingfisher": _read_kingfisher,
    "whispers": _read_whispers,
    "earlybird": _read_earlybird,
}

# A URL without credentials, a host name, an e-mail address or a number: never a credential's secret part
_HOSTLIKE = re.compile(
    r"(?i)^(?!.*://[^/\s]*:[^/\s]*@)(?:(?:[a-z][a-z0-9+.-]*:)?//\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:[\w-]+\.)+[a-z]{2,}(?:[:/]\S*)?|\d+)$"
)

# What stands just before a part the text itself names as the password (`Password=`, `password `, `-p `)
_PASSWORD_BEFORE = re.compile(
    r"(?i)(?:(?:password|passwd|pwd|-p)[\"']?[ \t]*[:=]?|\bpassword\b[^\n]{0,40}?[ \t]is)[ \t]*[\"'`]?$"
)
# How a part is assigned: `name = "`, `name := '`, `"name": "`, `name: ` (never `user:password`, in a URL)
_ASSIGNED = r"""\d{0,2}[\"']?(?:[ \t]*:?=[ \t]*|:[ \t]+|:(?=[\"'`]))[\"'`]?$"""
# A part assigned to a name that ends in a secret noun (`caspio_secret: "`, `"fmfw_key": "`, `secret_id = '`);
# a bare `key` is an attribute that names a setting (`<add key="FromEmailPassword"`), not a secret
_SECRET_NAMED_BEFORE = re.compile(r"(?i)(?:secret|token|password|passwd|pwd|[a-z0-9][_-]?key)(?:[_-]?id)?" + _ASSIGNED)
# A part assigned to, or wrapped in, a name of an identifier (`caspio_id: "`, `"guru_user": "`, `<id>{`)
ID_NAMED_BEFORE = re.compile(
    r"(?i)(?:(?<![a-z])id|_id|user(?:name)?|email|account|domain|host|url)(?:" + _ASSIGNED[:-1] + r"|>\{?(?:[a-z]+ )?)$"
)


def named_before(text: str, at: int, pattern: re.Pattern[str]) -> bool:
    return pattern.search(text, max(0, at - 64), at) is not None


def secret_part(parts: list[str], text: str | None = None, *, last: bool = False) -> str | None:
    """Of a credential's parts that stand in the text (an id and its secret, a user, a host), the one that
    must not survive: the one the text names as the password (`login <user> password <value>`), else the
    one assigned to a secret-named name (`caspio_secret: "<value>"`), else, leaving out the parts the text
    names as an id or user (`caspio_id: "<value>"`, `<id>{<value>}</id>`) while another part remains, the
    longest (with `last`, the last: Nosey Parker's groups follow the text, the id or user before the
    secret) that is not a URL, host name, e-mail address or number (ids, users and endpoints are not
    secrets; when every part is one of those, the longest part)."""
    if not parts:
        return None
    if text is not None:
        named = [
            p for p in parts if p and (at := text.find(p)) > 0 and _PASSWORD_BEFORE.search(text[max(0, at - 64) : at])
        ]
        if named:
            return max(named, key=len)
        named = [p for p in parts if p and (at := text.find(p)) > 0 and named_before(text, at, _SECRET_NAMED_BEFORE)]
        if named:
            return max(named, key=len)
        ids = [p for p in parts if p and (at := text.find(p)) > 0 and named_before(text, at, ID_NAMED_BEFORE)]
        if len(ids) < len(parts):
            parts = [p for p in parts if p not in ids]
    secret = [p for p in parts if not _HOSTLIKE.match(p)]
    if last and secret:  # the peer captures in text order, a credential's id or user before its secret
        return secret[-1]
    return max(secret or parts, key=len)
