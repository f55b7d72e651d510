"""Read Nosey Parker's own labelled cases from a fetched copy: its rules' `examples`.

Each rule in `crates/noseyparker/data/default/builtin/rules/*.yml` carries a `pattern` (a Rust
regex whose capture groups are the secret and its companions), `examples:` (texts the rule must
match) and often `negative_examples:` (texts it must not). The rulesets beside them
(`rulesets/*.yml`) say which rules find secrets (`default`, `np.hashes`) and which find public
identifiers (`np.assets`: bucket names, client ids, public keys); an asset rule's examples are not
secrets and are left out (counted in the notes).

A positive's secrets are the pattern's capture groups on the example, when Python's `re` reads the
pattern (a few Rust-only spellings are translated) and it matches; a rule of several groups (an id
and its secret) gives them as parts, and the scorer decides which part must be gone. When the
pattern cannot be read or does not match, the case has no named value and counts as caught when
anything in it is redacted.

The files are YAML; the project has no YAML library, so `_parse_rules` reads the subset these
files use (block sequences of mappings, literal block scalars, single- and double-quoted scalars
over several lines, plain scalars). The family is the rule's id (`np.jenkins.1`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Case", "read_cases"]

_SECRET_RULESETS = ("default", "np.hashes")


@dataclass
class Case:
    family: str
    text: str
    positive: bool
    secrets: list[str]  # one capture group's value, when the pattern has a single group
    where: str
    parts: list[list[str]] = field(default_factory=list)  # several groups: the parts of one credential


# --- the YAML subset -------------------------------------------------------------------------------


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_scalar(lines: list[str], i: int, parent: int, header: str) -> tuple[str, int]:
    """A literal (`|`) or folded (`>`) block starting after line i-1; returns its text and the next line."""
    chomp = "+" if "+" in header else "-" if "-" in header else ""
    body: list[str] = []
    content = None
    while i < len(lines):
        line = lines[i]
        if line.strip() == "":
            body.append("")
            i += 1
            continue
        if _indent(line) <= parent:
            break
        if content is None:
            content = _indent(line)
        if _indent(line) < content:
            break
        body.append(line[content:])
        i += 1
    text = re.sub(r"(?<=\S)\n(?=\S)", " ", "\n".join(body)) if header.startswith(">") else "\n".join(body)
    stripped = text.rstrip("\n")
    if chomp == "-":
        return stripped, i
    if chomp == "+":
        return text + "\n", i
    return (stripped + "\n") if stripped else "", i


_DOUBLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\", "/": "/", " ": " ", "e": "\x1b"}


def _unescape_double(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            out.append(chr(int(text[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:
            out.append(_DOUBLE_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
    return "".join(out)


def _fold(raw_lines: list[str]) -> str:
    """Join a flow scalar's lines as YAML does: a break between lines is a space, an empty line a newline."""
    out = raw_lines[0].rstrip(" ")
    pending_breaks = 0
    for line in raw_lines[1:]:
        piece = line.strip(" ")
        if piece == "":
            pending_breaks += 1
            continue
        out += ("\n" * pending_breaks) if pending_breaks else " "
        pending_breaks = 0
        out += piece
    return out


def _quoted(lines: list[str], i: int, start: str) -> tuple[str, int]:
    """A quoted scalar whose opening quote begins `start` (the rest of line i), maybe over several lines."""
    quote = start[0]
    raw = [start[1:]]
    j = i
    closing = re.compile(r"(?:''|[^'])*'" if quote == "'" else r'(?:\\.|[^"\\])*"')
    while True:
        m = closing.match(raw[-1])
        if m:
            raw[-1] = raw[-1][: m.end() - 1]
            break
        j += 1
        raw.append(lines[j])
    if quote == "'":
        return _fold(raw).replace("''", "'"), j + 1
    # in a double-quoted scalar a backslash at a line's end joins the lines with nothing between
    joined = [raw[0]]
    for line in raw[1:]:
        if joined[-1].endswith("\\") and not joined[-1].endswith("\\\\"):
            joined[-1] = joined[-1][:-1] + line.lstrip(" ")
        else:
            joined.append(line)
    return _unescape_double(_fold(joined)), j + 1


def _scalar(lines: list[str], i: int, rest: str, parent: int) -> tuple[object, int]:
    """The value that begins as `rest` on line i (after `key:` or `- `)."""
    rest = rest.strip()
    if rest.startswith(("|", ">")):
        return _block_scalar(lines, i + 1, parent, rest)
    if rest.startswith(("'", '"')):
        return _quoted(lines, i, rest)
    if rest.startswith("["):
        return [part.strip() for part in rest.strip("[]").split(",") if part.strip()], i + 1
    value = re.sub(r"\s+#.*$", "", rest)
    # a plain scalar may continue on more-indented lines
    j = i + 1
    more = [value]
    while j < len(lines) and lines[j].strip() and _indent(lines[j]) > parent and not lines[j].lstrip().startswith("- "):
        if re.match(r"\s*[\w-]+:(?:\s|$)", lines[j]):
            break
        more.append(lines[j])
        j += 1
    return _fold(more), j


def _sequence(lines: list[str], i: int, indent: int) -> tuple[list, int]:
    items: list = []
    while i < len(lines):
        line = lines[i]
        if line.strip() == "" or line.lstrip().startswith("#"):
            i += 1
            continue
        if _indent(line) != indent or not line.lstrip().startswith("-"):
            break
        after = line[indent + 1 :]
        if re.match(r"\s*[\w-]+:(?:\s|$)", after):
            item, i = _mapping(lines, i, indent + 1 + _indent(after), first=after.lstrip())
        else:
            item, i = _scalar(lines, i, after, indent)
        items.append(item)
    return items, i


def _mapping(lines: list[str], i: int, indent: int, first: str | None = None) -> tuple[dict, int]:
    out: dict = {}
    while i < len(lines):
        line = first if first is not None else lines[i]
        at = indent if first is not None else _indent(line)
        first = None
        if line.strip() == "" or line.lstrip().startswith("#"):
            i += 1
            continue
        if at != indent:
            break
        m = re.match(r"\s*([\w-]+):(.*)$", line)
        if not m:
            break
        key, rest = m.group(1), m.group(2)
        if rest.strip() == "" or rest.strip().startswith("#"):
            j = i + 1
            while j < len(lines) and (lines[j].strip() == "" or lines[j].lstrip().startswith("#")):
                j += 1
            if j < len(lines) and lines[j].lstrip().startswith("-") and _indent(lines[j]) >= indent:
                out[key], i = _sequence(lines, j, _indent(lines[j]))
            else:
                out[key], i = None, i + 1
        else:
            out[key], i = _scalar(lines, i, rest, indent)
    return out, i


def _parse_rules(text: str) -> dict:
    """The top-level mapping of one rules or rulesets file."""
    lines = text.replace("\r\n", "\n").split("\n")
    parsed, _ = _mapping(lines, 0, 0)
    return parsed


# --- the patterns ----------------------------------------------------------------------------------

_POSIX = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "xdigit": "0-9A-Fa-f",
    "upper": "A-Z",
    "lower": "a-z",
    "space": r"\s",
    "punct": r"!-/:-@\[-`{-~",
    "word": r"\w",
}


def _python_pattern(pattern: str) -> re.Pattern | None:
    """Nosey Parker's Rust regex as Python's `re`, or None when it uses what `re` does not read."""
    text = pattern.replace(r"\z", r"\Z")
    text = re.sub(r"\[:(\w+):\]", lambda m: _POSIX.get(m.group(1), m.group(0)), text)
    text = re.sub(r"\(\?-u\)|\(\?u\)", "", text)
    text = re.sub(r"\(\?P?<(\w+)>", r"(?P<\1>", text)
    # Rust's verbose mode ignores whitespace inside classes too; Python's keeps it
    if "(?x)" in text:
        text = re.sub(r"\[(?:\\.|[^\]\\])*\]", lambda m: re.sub(r"(?<!\\) ", "", m.group(0)), text)
    flags = "".join(sorted(set("".join(re.findall(r"\(\?([imsx]+)\)", text)))))
    text = re.sub(r"\(\?[imsx]+\)", "", text)
    try:
        return re.compile((f"(?{flags})" if flags else "") + text)
    except re.error:
        return None


def _values(rule_re: re.Pattern | None, example: str) -> tuple[list[str], list[list[str]]]:
    if rule_re is None:
        return [], []
    m = rule_re.search(example)
    if m is None:
        return [], []
    groups = [g for g in m.groups() if g]
    if len(groups) == 1:
        return groups, []
    return [], [groups] if groups else []


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    """Every example and negative example of every secret rule, and notes for what was left out."""
    base = root / "crates" / "noseyparker" / "data" / "default" / "builtin"
    secret_ids: set[str] = set()
    for path in sorted((base / "rulesets").glob("*.yml")):
        for ruleset in _parse_rules(path.read_text(encoding="utf-8")).get("rulesets") or []:
            if ruleset.get("id") in _SECRET_RULESETS:
                secret_ids.update(ruleset.get("include_rule_ids") or [])
    cases: list[Case] = []
    left_out: list[str] = []
    unread: list[str] = []
    unmatched = 0
    for path in sorted((base / "rules").glob("*.yml")):
        for rule in _parse_rules(path.read_text(encoding="utf-8")).get("rules") or []:
            rule_id = str(rule.get("id"))
            examples = rule.get("examples") or []
            negatives = rule.get("negative_examples") or []
            if rule_id not in secret_ids:
                left_out.append(f"{rule_id} ({len(examples)}+{len(negatives)})")
                continue
            rule_re = _python_pattern(str(rule.get("pattern") or ""))
            if rule_re is None:
                unread.append(rule_id)
            for n, example in enumerate(examples):
                secrets, parts = _values(rule_re, example)
                unmatched += not (secrets or parts)
                cases.append(Case(rule_id, example, True, secrets, f"{path.name}#{n}", parts))
            for n, example in enumerate(negatives):
                cases.append(Case(rule_id, example, False, [], f"{path.name}#neg{n}"))
    notes = []
    if left_out:
        notes.append(f"{len(left_out)} identifier rules (the np.assets ruleset, not secrets): {', '.join(left_out)}")
    if unread:
        notes.append(
            f"{len(unread)} patterns Python's re does not read (their cases judged by any redaction): "
            + ", ".join(unread)
        )
    if unmatched:
        notes.append(f"{unmatched} examples without a value the pattern names (judged by any redaction)")
    return cases, notes
