"""Read Whispers' own labelled fixtures (github:Skyscanner/whispers) for `python -m benchmarks secrets`.

Whispers, Skyscanner's scanner of structured text, tests each fixture in `tests/fixtures/` the way
`tests/unit/test_secrets.py` names it: `test_detection_by_value` (every value found must hold the word
`hardcoded`, or decode from base64 to it) and `test_detection_by_key` (the keys that must be found).
The fixtures label their own text: a `Compliant` part and a `Noncompliant` part, marked by a comment
(`# Compliant`, `// Noncompliant`, `--- COMPLIANT`), a YAML or INI key (`noncompliant:`, `[compliant]`),
an XML element (`<noncompliant>`), or a name that holds the word (`noncompliant1:` in `.htpasswd`,
`<noncompliantApiToken>`, a Docker registry `.../noncompliant`). A marker labels its own line and the
lines after it, up to the next marker or the end of its XML element. So:

- each line of a noncompliant part that holds a `hardcoded` value is a positive, that value (the token
  holding the word, or a base64 token that decodes to it) being what must go; in a noncompliant part
  that holds no such value (`aws.yml`'s keys, `privatekeys.yml`), each line with a value is a positive
  judged by any redaction; a key `test_detection_by_key` names is a positive whatever its value (its
  line, or its YAML block: CloudFormation's `NoncompliantDBPassword:` with its `Default:`);
- each line with a value in a compliant part, and of a fixture the tests expect nothing of (`count` 0),
  is a negative;
- a line ending in `\\` is read with the lines it continues into, as one case.

Left out, each with a note: fixtures neither test reads, the HTML-comment fixture (its rule finds
comments, not credentials), and payment card numbers (`creditcards.yml`; not credentials). The family is
the fixture's name. Whispers was held out of tuning (`--held-out whispers`): chosen and committed, at
Skyscanner/whispers 5832bf7, before Pallium ran on it, scored once (67.4% recall / 100.0% precision on
487 cases), then used for tuning.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Case", "read_cases", "scored"]


@dataclass(frozen=True)
class Case:
    family: str
    text: str
    positive: bool
    where: str
    secrets: list[str] = field(default_factory=list)


_BY_VALUE = re.compile(r"""\(\s*"([^"]+)"\s*,\s*(\d+)\s*\)""")
_BY_KEY = re.compile(r"""\(\s*"([^"]+)"\s*,\s*\[([^\]]*)\]\s*\)""")
_LEFT_OUT = {  # fixtures read by neither detection test are noted apart
    "language.html": "its rule finds HTML comments, not credentials",
    "creditcards.yml": "payment card numbers are not credentials",
}
# a marker: the word `compliant` or `noncompliant` (`non-compliant`) in a comment, a key or an element
_MARKER = re.compile(r"(?i)(?<![a-z])(non[-_ ]?)?compliant")
_CLOSE = re.compile(r"(?i)</\s*(?:non[-_]?)?compliant\s*>")
_OPENS_BLOCK = re.compile(r"""(?:[:{\[(]|<[\w.:-]*(?:\s[^<>]*)?>|-->)\s*$""")
_SEPARATOR = re.compile(r"[=:>]")
_HARDCODED = re.compile(r"(?i)[A-Za-z0-9+/_.~-]*hardcoded[A-Za-z0-9+/_.~-]*=*")
_NAME_AFTER = re.compile(r"""["']?\s*[:=](?!=)""")
_BASE64 = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")
_VALUE = re.compile(r"""[:=>]\s*\S|^\s*-\s+\S|^\s*\w+\s+\S|["'][^"']+["']""")
_ONLY_MARKER = re.compile(r"""(?i)^[\s#/*<>\[\]{}:-]*(?:non[-_ ]?)?compliant[\s\d:>\]-]*$""")


def _hardcoded(line: str) -> list[str]:
    """The values holding the word: not a key or an element name that does (`01_hardcoded_password:`,
    `<o1_hardcoded_password>`); of a URL, its segment."""
    found = []
    for match in _HARDCODED.finditer(line):
        if _NAME_AFTER.match(line, match.end()):
            continue
        if line[: match.start()].endswith(("<", "</")) and line.startswith(">", match.end()):
            continue
        token = match.group()
        if "//" in token:
            token = next(p for p in reversed(token.split("/")) if "hardcoded" in p.lower())
        found.append(token)
    for token in _BASE64.findall(line):
        try:
            decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=False)
        except (binascii.Error, ValueError):
            continue
        if b"hardcoded" in decoded.lower() and token not in found:
            found.append(token)
    return found


def _records(text: str) -> list[tuple[int, str]]:
    """The fixture's lines, a line ending in `\\` joined to the ones it continues into."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        pending.append(line)
        if line.rstrip().endswith("\\"):
            continue
        out.append((start, "\n".join(pending)))
        pending = []
    if pending:
        out.append((start, "\n".join(pending)))
    return out


def _labels(records: list[tuple[int, str]]) -> list[bool | None]:
    """Each record's part: True noncompliant, False compliant, None before any marker. A heading (a comment,
    a key or element that opens a block: `# Compliant`, `noncompliant:`, `".../noncompliant": {`) labels the
    records after it; a marker in the name of a record with a value (`noncompliant1:$apr1$...`,
    `NONCOMPLIANT_APITOKEN = "..."`) labels that record alone, and one after its separator (a reference,
    `= NONCOMPLIANT_APITOKEN;`) none."""
    labels: list[bool | None] = []
    current: bool | None = None
    for _, record in records:
        marker = None
        for found in _MARKER.finditer(record):
            marker = found
        label = current
        if marker is not None:
            noncompliant = marker.group(1) is not None
            if _ONLY_MARKER.match(record) or _OPENS_BLOCK.search(record):
                current = label = noncompliant
            elif not _SEPARATOR.search(record, 0, marker.start()):
                label = noncompliant
        labels.append(label)
        if _CLOSE.search(record):
            current = None
    return labels


def _with_parent(records: list[tuple[int, str]], at: int) -> str:
    """A record, after its parent (the nearest line before it indented less) when it has one: a list item's
    or a `value:`'s name is there (`"passwords": [` before `"hardcoded1",`)."""
    line = records[at][1]
    indent = len(line) - len(line.lstrip())
    for _, before in reversed(records[max(0, at - 8) : at]):
        if before.strip() and len(before) - len(before.lstrip()) < indent:
            return before + "\n" + line
    return line


def _element(records: list[tuple[int, str]], at: int) -> str:
    """An XML element opened alone on its line (`<key>`), through the line that closes it."""
    tag = re.match(r"\s*<([\w.:-]+)>\s*$", records[at][1])
    if tag is None:
        return records[at][1]
    lines = [records[at][1]]
    for _, following in records[at + 1 : at + 20]:
        lines.append(following)
        if f"</{tag.group(1)}>" in following:
            break
    return "\n".join(lines)


def _block(records: list[tuple[int, str]], at: int) -> str:
    """A YAML or JSON key's block: its line and the more indented lines after it."""
    line = records[at][1]
    indent = len(line) - len(line.lstrip())
    lines = [line]
    for _, following in records[at + 1 :]:
        if following.strip() and len(following) - len(following.lstrip()) <= indent:
            break
        lines.append(following)
    return "\n".join(lines).rstrip()


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    tests = (root / "tests" / "unit" / "test_secrets.py").read_text(encoding="utf-8")
    by_value = {name: int(count) for name, count in _BY_VALUE.findall(tests)}
    by_key = {name: re.findall(r'"([^"]+)"', keys) for name, keys in _BY_KEY.findall(tests)}
    fixtures = root / "tests" / "fixtures"
    cases: list[Case] = []
    notes = [f"{name}: {why}" for name, why in _LEFT_OUT.items()]
    unread = sorted(
        str(p.relative_to(fixtures))
        for p in fixtures.rglob("*")
        if p.is_file() and str(p.relative_to(fixtures)) not in by_value | by_key and p.name != ".gitkeep"
    )
    if unread:
        notes.append(f"{len(unread)} fixtures neither detection test reads: {', '.join(unread)}")
    for name in sorted(set(by_value) | set(by_key)):
        if name in _LEFT_OUT or not (fixtures / name).is_file():
            continue
        records = _records((fixtures / name).read_text(encoding="utf-8"))
        labels = _labels(records)
        keys = by_key.get(name, [])
        if keys:
            cases += _by_key(name, records, labels, keys)
            continue
        silent = by_value.get(name) == 0
        parts: dict[int, list[int]] = {}  # noncompliant records grouped by the marker that opened them
        part = -1
        for i, label in enumerate(labels):
            if label and (i == 0 or labels[i - 1] is not True or _MARKER.search(records[i][1])):
                part = i
            if label:
                parts.setdefault(part, []).append(i)
        with_values = {
            i for members in parts.values() if any(_hardcoded(records[m][1]) for m in members) for i in members
        }
        for i, (number, record) in enumerate(records):
            if not record.strip() or _ONLY_MARKER.match(record) or not _VALUE.search(record):
                continue
            where = f"{name}:{number}"
            values = _hardcoded(record)
            text = _with_parent(records, i)
            if silent or labels[i] is False:
                cases.append(Case(name, text, False, where))
            elif (labels[i] is True and (values or i not in with_values)) or (labels[i] is None and values):
                cases.append(Case(name, text, True, where, values))
    return cases, notes


def _by_key(name: str, records: list[tuple[int, str]], labels: list[bool | None], keys: list[str]) -> list[Case]:
    cases: list[Case] = []
    for i, (number, record) in enumerate(records):
        if not record.strip() or _ONLY_MARKER.match(record) or record.strip().startswith("</"):
            continue
        named = [k for k in keys if re.search(r"(?<![\w])" + re.escape(k) + r"(?![\w])", record)]
        where = f"{name}:{number}"
        if named and labels[i] is not False:
            text = _block(records, i) if record.rstrip().endswith((":", "{")) else _element(records, i)
            cases.append(Case(name, text, True, where, _hardcoded(text)))
        elif labels[i] is False and _VALUE.search(record):
            cases.append(Case(name, record, False, where))
    return cases


def scored(root: Path) -> tuple[list, list[str]]:
    """The cases as `benchmarks.secrets` scores them."""
    from benchmarks.secret_corpora import Scored

    cases, notes = read_cases(root)
    return [Scored("whispers", c.family, c.text, c.positive, c.secrets, c.where) for c in cases], notes
