"""Find argument values in a task's text: quoted text, paths, identifiers, ids, ages, refs, test commands.

Only recognition lives here; whether a path exists, a symbol is indexed or a run is stored is
checked by `ground`, which asks the file system and the other services.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.route.lexicon import STOPWORDS

__all__ = ["Found", "find", "is_identifier"]

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|`([^`]+)`|(?<![A-Za-z0-9])'([^']+)'(?![A-Za-z0-9])")
_RUN_ID = re.compile(r"\bwf-\d{8}-\d{6}-[0-9a-f]{6}\b|\bwf-[0-9][0-9a-f-]{3,}\b", re.IGNORECASE)
_RUN_NAMED = re.compile(r"\bruns?\s+(?:id\s+)?([A-Za-z][\w-]*\d[\w-]*|\d+[A-Za-z-][\w-]*)\b", re.IGNORECASE)
_LOOP_NAMED = re.compile(
    r"\b(?:loop|called|named)\s+[\"'`“]?([A-Za-z0-9][\w.-]*[-_\d][\w.-]*)|\b([A-Za-z0-9][\w.-]*[-_\d][\w.-]*)\s+loop\b",
    re.IGNORECASE,
)
_TEAM_ID = re.compile(r"\bteam-[0-9a-f]{4,}\b", re.IGNORECASE)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
_SESSION_NEAR = re.compile(
    r"\b(?:sessions?|transcripts?|conversations?|chats?)\s+(?:(?:id|of)\s+)?([0-9a-z][0-9a-z_-]{5,})\b|"
    # forgetting is of sessions only: "forget 7e19ab", "preview forgetting 3f0c2d1e"
    r"\bforget(?:ting|s)?\s+(?:about\s+)?([0-9a-f]{6,})\b",
    re.IGNORECASE,
)
_PATH = re.compile(
    r"(?<![\w@:/.-])((?:\.{1,2}/)?[\w@.+-]+(?:/[\w@.+-]+)+/?|[\w@+-][\w@.+-]*\.[A-Za-z][\w]{0,7})(?![\w/])"
)
_IDENT = re.compile(r"(?<![\w./-])([A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*)(?![\w/-])")
_AGE = re.compile(
    r"\b(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?|w|wk|wks|weeks?|"
    r"mo|months?|y|yr|yrs|years?)\b",
    re.IGNORECASE,
)
_VAGUE_AGE = (
    (re.compile(r"\b(a few|few|couple of|a couple of|several) (seconds|secs)\b"), "30s"),
    (re.compile(r"\b(a few|few|couple of|a couple of|several) (minutes|mins)\b"), "10m"),
    (re.compile(r"\b(a|one) (minute|min)\b"), "1m"),
    (re.compile(r"\b(a few|few|couple of|a couple of|several) hours\b"), "3h"),
    (re.compile(r"\b(an|one) hour\b|\bthe last hour\b"), "1h"),
    (re.compile(r"\b(a few|few|couple of|a couple of|several) days\b"), "3d"),
    (re.compile(r"\b(a|one) day\b|\byesterday\b"), "1d"),
    (re.compile(r"\b(a|one) week\b|\blast week\b"), "1w"),
    (re.compile(r"\b(a few|few|couple of|a couple of|several) weeks\b"), "3w"),
    (re.compile(r"\b(a|one) month\b|\blast month\b"), "30d"),
    (re.compile(r"\b(a few|few|couple of|a couple of|several) months\b|\bmonths\b"), "90d"),
    (re.compile(r"\b(a|one) year\b|\blast year\b"), "365d"),
)
_UNITS = {"s": "s", "m": "m", "h": "h", "d": "d", "w": "w", "mo": "mo", "y": "y"}
_TEST_RUNNERS = re.compile(
    r"(?<![\w-])((?:python3? -m )?pytest\b[^,;\n]*?|(?:npm|pnpm|yarn|bun) (?:run )?test\b[^,;\n]*?|go test\b[^,;\n]*?|"
    r"cargo test\b[^,;\n]*?|make (?:test|check)\b[^,;\n]*?|tox\b[^,;\n]*?|mvn test\b[^,;\n]*?|gradle test\b[^,;\n]*?|"
    r"ruff check\b[^,;\n]*?|\./[\w./-]*test[\w./-]*)"
    r"(?=\s+(?:and|then|until|to|so|but|passes|pass|is|are)\b|[,;.]?\s*$|[,;])",
    re.IGNORECASE,
)
_REF = re.compile(
    r"\b(?:since|from|against|versus|vs\.?|compared (?:to|with)|relative to|off|on top of|base(?:d on)?)\s+"
    r"((?:origin|upstream)/[\w./-]+|[\w.-]*(?:main|master|develop|trunk|release)[\w./-]*|HEAD(?:~\d+|\^+)?|[0-9a-f]{7,40})\b",
    re.IGNORECASE,
)
_BARE_REF = re.compile(r"\b((?:origin|upstream)/[\w./-]+|HEAD~\d+)\b")
_NAME_AFTER = re.compile(  # a lookahead, so "loop called x" yields "called" and then "x"
    r"(?=\b(?:called|named|name it|as|gate|template|workflow|loop)\s+[\"'`“]?([A-Za-z0-9][\w.-]*))", re.IGNORECASE
)
_GATE = re.compile(r"(?=\b([A-Za-z0-9][\w.-]*)\s+gates?\b|\bgate\s+[\"'`“]?([A-Za-z0-9][\w.-]*))", re.IGNORECASE)
_NOT_GATES = frozenset(
    {
        "the",
        "a",
        "an",
        "this",
        "that",
        "its",
        "his",
        "her",
        "our",
        "my",
        "human",
        "waiting",
        "pending",
        "open",
        "of",
        "for",
        "on",
        "is",
        "to",
        "so",
        "and",
        "it",
        "in",
        "reject",
        "approve",
        "deny",
        "list",
        "show",
        "which",
        "what",
    }
)
# A plain word is a symbol only where the sentence says so: "who calls main", "callers of run", "is x used".
_SYMBOL_AFTER = re.compile(
    r"\b(?:cal+s?|call(?:ed|ing)?|invokes?|invoking|uses?|using|references?|referencing|"
    # a noun of use before its name: "every caller of main", "the call sites of x", "references to y"
    r"(?:callers?|call[- ]?sites?|usages?|users|uses|references?|refs|invocations?|definitions?|importers?)"
    r"\s+(?:of|to|for)|rename|renaming|depends on|defined|"
    r"llaman? a|appellent|appelle|ruft|aufruft)\s+(?:the\s+)?"
    r"(?:(?:function|method|class|symbol|variable|constant|type)\s+)?[`'\"]?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)",
    re.IGNORECASE,
)
# A part of a name's interface, with the name before it: "main's return type", "parse_config's signature"
_SYMBOL_PART = re.compile(
    r"\b([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)'s\s+(?:return(?: type| value)?|signature|arguments?|parameters?|"
    r"params?|args?|type|behaviou?r|name|body|default)\b",
    re.IGNORECASE,
)
_SYMBOL_USED = re.compile(r"\b(?:is|are)\s+([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*)\s+(?:used|called|defined|referenced)\b")
_NOT_SYMBOLS = frozenset({"it", "this", "that", "function", "method", "class", "symbol", "them", "me", "every", "all"})
_LAST_RUN = re.compile(r"\b(?:last|latest|newest|previous|recent|most recent|that|the) (?:workflow )?run\b", re.I)
_SOURCES = re.compile(r"\b(claude|codex)\b", re.IGNORECASE)
_FILE_EXT = re.compile(
    r"\.(py|js|ts|tsx|jsx|go|rs|java|rb|c|h|cc|cpp|hpp|cs|kt|swift|md|json|toml|yaml|yml|sql|sh|txt|"
    r"cfg|ini|lock|html|css|scss|vue|php|ex|exs|scala|lua|pl|r|m|mm|proto|gradle|xml)$"
)
_NOT_NAMES = frozenset(
    {
        "the",
        "a",
        "an",
        "my",
        "this",
        "that",
        "it",
        "run",
        "loop",
        "gate",
        "workflow",
        "template",
        "called",
        "named",
        "is",
    }
)


@dataclass
class Found:
    """Everything recognisable in a task, before grounding."""

    quoted: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    run_ids: list[str] = field(default_factory=list)
    last_run: bool = False
    session_ids: list[str] = field(default_factory=list)
    team_ids: list[str] = field(default_factory=list)
    ages: list[str] = field(default_factory=list)
    test_command: str | None = None
    refs: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)  # bare words a loop or gate name could be
    gates: list[str] = field(default_factory=list)  # "the deploy gate", "gate ship"
    source: str | None = None
    loop_name: str | None = None  # a loop the task names by name ("loop nightly-lint"), existing or not

    @property
    def markers(self) -> list[str]:
        """Pseudo-terms for the kinds of argument present, so `explain <path>` matches "explain src/a.py"."""
        out = []
        if self.paths:
            out.append("<path>")
        if any(is_identifier(s) for s in self.symbols):
            out.append("<symbol>")
        if self.run_ids or self.last_run:
            out.append("<run>")
        if self.session_ids:
            out.append("<session>")
        if self.team_ids:
            out.append("<team>")
        if self.ages:
            out.append("<age>")
        return out


def is_identifier(token: str) -> bool:
    """Whether `token` reads as code (`parse_config`, `Store.open`, `loadSettings`) rather than as a word."""
    return not re.fullmatch(r"[A-Za-z][a-z]*", token)


def find(task: str) -> Found:
    found = Found()
    for match in _QUOTED.finditer(task):
        text = next(g for g in match.groups() if g is not None).strip()
        if text:
            found.quoted.append(text)
    found.run_ids = _unique(
        [m.group(0) for m in _RUN_ID.finditer(task)]
        + [m.group(1) for m in _RUN_NAMED.finditer(task) if not _FILE_EXT.search(m.group(1).lower())]
    )
    found.last_run = bool(_LAST_RUN.search(task)) and not found.run_ids
    found.session_ids = _unique(m.group(0) for m in _UUID.finditer(task))
    found.team_ids = _unique(m.group(0) for m in _TEAM_ID.finditer(task))
    for match in _SESSION_NEAR.finditer(task):
        token = match.group(1) or match.group(2)
        if any(ch.isdigit() for ch in token) and token not in found.session_ids and not _RUN_ID.fullmatch(token):
            found.session_ids.append(token)
    ids = set(found.run_ids) | set(found.session_ids) | set(found.team_ids)
    found.test_command = _test_command(task, found.quoted)
    found.refs = _unique([m.group(1) for m in _REF.finditer(task)] + [m.group(1) for m in _BARE_REF.finditer(task)])
    for match in _PATH.finditer(task):
        token = match.group(1).rstrip(".,;:")
        if token in ids or token in found.refs or _is_not_path(token):
            continue
        found.paths.append(token)
    found.paths = _unique(found.paths)
    found.ages = _ages(task)
    found.symbols = _symbols(task, found)
    found.names = _unique(
        [q for q in found.quoted if re.fullmatch(r"[\w.-]+", q)]
        + [m.group(1) for m in _NAME_AFTER.finditer(task) if m.group(1).lower() not in _NOT_NAMES]
    )
    found.words = _unique(w for w in re.findall(r"[A-Za-z0-9][\w.-]*", task) if w.lower() not in STOPWORDS)
    found.gates = _unique(
        [q for q in found.quoted if re.fullmatch(r"[\w.-]+", q)]
        + [g for m in _GATE.finditer(task) for g in m.groups() if g and g.lower() not in _NOT_GATES]
    )
    loop = _LOOP_NAMED.search(task) if re.search(r"\bloops?\b", task, re.IGNORECASE) else None
    if loop:
        found.loop_name = loop.group(1) or loop.group(2)
    quoted_names = [q for q in found.quoted if re.fullmatch(r"[\w.-]+", q)]
    if found.loop_name is None and quoted_names and re.search(r"\bloops?\b", task, re.IGNORECASE):
        found.loop_name = quoted_names[0]
    source = _SOURCES.search(task)
    found.source = source.group(1).lower() if source else None
    return found


def _test_command(task: str, quoted: list[str]) -> str | None:
    for text in quoted:
        if _TEST_RUNNERS.fullmatch(text + "") or re.match(
            r"(python3? -m )?pytest|npm|pnpm|yarn|go test|cargo|make|tox", text
        ):
            return text
    match = _TEST_RUNNERS.search(task)
    return match.group(1).strip() if match else None


def _is_not_path(token: str) -> bool:
    if "://" in token or token.startswith("www."):
        return True
    if re.fullmatch(r"v?\d+(\.\d+)+", token):  # a version number
        return True
    if "/" not in token and not _FILE_EXT.search(token.lower()):
        return True  # `e.g.`, `Store.open`, `i.e`: only a known extension makes a bare dotted word a file
    return bool(re.fullmatch(r"(and|or|either)/(or|and)", token))


def _ages(task: str) -> list[str]:
    out = []
    for match in _AGE.finditer(task):
        number, unit = match.group(1), match.group(2).lower()
        key = "mo" if unit.startswith("mo") else unit[0]
        value = float(number)
        if key == "mo":
            out.append(f"{int(value * 30)}d")
        elif key == "y":
            out.append(f"{int(value * 365)}d")
        else:
            out.append(f"{number}{_UNITS[key]}")
    lowered = task.lower()
    for pattern, value in _VAGUE_AGE:
        if pattern.search(lowered):
            out.append(value)
    return _unique(out)


def _symbols(task: str, found: Found) -> list[str]:
    taken = set(found.paths) | set(found.run_ids) | set(found.session_ids) | set(found.team_ids) | set(found.refs)
    out = []
    for text in found.quoted:
        if re.fullmatch(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*", text) and text not in taken:
            out.append(text)
    for match in _IDENT.finditer(task):
        token = match.group(1)
        if token in taken or token.lower() in STOPWORDS:
            continue
        snake = "_" in token.strip("_")
        camel = bool(re.search(r"[a-z][A-Z]", token)) or bool(re.fullmatch(r"[A-Z][a-z0-9]+[A-Z]\w*", token))
        dotted = ("." in token or "::" in token) and not _FILE_EXT.search(token.lower())
        call = f"{token}()" in task
        if snake or camel or dotted or call:
            out.append(token)
    for pattern in (_SYMBOL_AFTER, _SYMBOL_USED, _SYMBOL_PART):
        for match in pattern.finditer(task):
            token = match.group(1)
            if token.lower() not in STOPWORDS and token.lower() not in _NOT_SYMBOLS and token not in taken:
                out.append(token)
    return _unique(out)


def _unique(items) -> list[str]:
    seen: list[str] = []
    for item in items:
        if item and item not in seen:
            seen.append(item)
    return seen
