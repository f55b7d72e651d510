"""Read Earlybird's own labelled cases (github:americanexpress/earlybird) for `python -m benchmarks secrets`.

Earlybird, American Express's scanner, labels text in two places:

- each rule in `config/rules/*.yaml` carries an `Example` its pattern must find: a positive when the
  rule's `Category` is a credential's (`key`, `password-secret`), the family being that category;
- its post-processing and false-positive filters are tested on literal lines with the verdict: in
  `pkg/scan/falsePositives_test.go` (`MatchValue`, `wantIsFP`), `pkg/postprocess/skipSameKeyValue_test.go`
  (`lineValue`, `wantIgnore`), `validatePassword_test.go` (`testPD` or `password`, `wantIgnore`),
  `basicAuthHeader_test.go` and `jwt_test.go` (a text and `isSecret`) and `pem_test.go` (bytes and
  `isSecret`). A kept line (`wantIsFP: false`, `wantIgnore: false`, `isSecret: true`) is a positive, a
  dropped one a negative; the family is the test file's subject.

A positive names no value of its own, so any redaction of it counts. Left out, each with a note: the
rules that match file names (`filename.yaml`), the other rule categories (personal data, phone numbers
and addresses, deprecated crypto, comments, inclusive language, card numbers: not credentials) and a
filter's input that is a bare value with no name beside it (`"fo"`, `"VeryStrong857#"`: the filter
judges it after a password rule has already matched, so the text alone says nothing of what it is).

Earlybird is held out of tuning (`--held-out earlybird`): chosen and its labels committed, at
americanexpress/earlybird 573753e, before Pallium ran on it.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Case", "read_cases"]


@dataclass(frozen=True)
class Case:
    family: str
    text: str
    positive: bool
    where: str


_CREDENTIAL_CATEGORIES = ("key", "password-secret")
_RULE = re.compile(r"(?m)^  - Code: *(\d+)\s*$")
_FIELD = re.compile(r"(?m)^    (Category|Example): *(.*)$")
# a Go string: interpreted ("...") or raw (`...`)
_GO_STRING = r"""(?:"(?:\\.|[^"\\\n])*"|`[^`]*`)"""
_LABELLED = {  # test file -> (family, the field holding the text, the verdict's field, verdict meaning "kept")
    "pkg/scan/falsePositives_test.go": ("false-positive-filter", "MatchValue", "wantIsFP", "false"),
    "pkg/postprocess/skipSameKeyValue_test.go": ("same-key-value", "lineValue", "wantIgnore", "false"),
    "pkg/postprocess/validatePassword_test.go": ("password-filter", "(?:testPD|password)", "wantIgnore", "false"),
}
_POSITIONAL = {  # test file -> family: rows `{"name", "text", isSecret}`
    "pkg/postprocess/basicAuthHeader_test.go": "basic-auth",
    "pkg/postprocess/jwt_test.go": "jwt",
}
# a filter's input that names what it holds: a name and a separator before a value
_A_NAMED_LINE = re.compile(r"""^\s*["'<]?[A-Za-z_][\w.-]*["'>]?\s*[:=]""")


def _go_string(literal: str) -> str:
    if literal.startswith("`"):
        return literal[1:-1]
    return json.loads(literal.replace("\\'", "'"))


def _yaml_scalar(raw: str, rest: list[str]) -> str:
    """A YAML scalar as Earlybird writes its examples: quoted, plain, or a `|-` block (the lines after)."""
    raw = raw.strip()
    if raw in ("|-", "|", ">-", ">"):
        block = []
        for line in rest:
            if line.strip() and not line.startswith("      "):
                break
            block.append(line[6:])
        return "\n".join(block).rstrip("\n")
    if raw.startswith("'") and raw.endswith("'"):
        return raw[1:-1].replace("''", "'")
    if raw.startswith('"') and raw.endswith('"'):
        return json.loads(raw)
    return raw


def _rule_examples(root: Path, notes: list[str]) -> list[Case]:
    out: list[Case] = []
    left_out: dict[str, int] = {}
    for path in sorted((root / "config" / "rules").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if re.search(r"(?m)^Searcharea: *filename", text):  # its examples are file names, not file contents
            notes.append(f"{path.name}: its rules match file names (`file.pem`), not text")
            continue
        starts = [m.start() for m in _RULE.finditer(text)] + [len(text)]
        for start, end in itertools.pairwise(starts):
            block = text[start:end]
            code = _RULE.match(text, start).group(1)
            fields: dict[str, str] = {}
            lines = block.splitlines()
            for i, line in enumerate(lines):
                if m := _FIELD.match(line):
                    fields[m.group(1)] = _yaml_scalar(m.group(2), lines[i + 1 :])
            category, example = fields.get("Category", ""), fields.get("Example", "")
            if not example:
                continue
            if category not in _CREDENTIAL_CATEGORIES:
                left_out[category] = left_out.get(category, 0) + 1
                continue
            out.append(Case(category, example, True, f"{path.name}:{code}"))
    for category, n in sorted(left_out.items()):
        notes.append(f"{n} rule examples of category {category!r}: not credentials")
    return out


def _filter_tests(root: Path, notes: list[str]) -> list[Case]:
    out: list[Case] = []
    for rel, (family, text_field, verdict_field, kept) in _LABELLED.items():
        path = root / rel
        if not path.is_file():
            notes.append(f"{rel}: missing")
            continue
        source = path.read_text(encoding="utf-8")
        row = re.compile(rf"\b{text_field}:\s*({_GO_STRING}),?[\s\S]*?\b{verdict_field}:\s*(true|false)")
        bare = 0
        for m in row.finditer(source):
            text = _go_string(m.group(1))
            if not _A_NAMED_LINE.match(text):
                bare += 1
                continue
            line = source.count("\n", 0, m.start()) + 1
            out.append(Case(family, text, m.group(2) == kept, f"{path.name}:{line}"))
        if bare:
            notes.append(f"{bare} inputs of {path.name} that are a bare value with no name beside it")
    for rel, family in _POSITIONAL.items():
        path = root / rel
        source = path.read_text(encoding="utf-8") if path.is_file() else ""
        row = re.compile(rf"\{{\s*{_GO_STRING},\s*({_GO_STRING}),\s*(true|false),?\s*\}}")
        for m in row.finditer(source):
            line = source.count("\n", 0, m.start()) + 1
            out.append(Case(family, _go_string(m.group(1)), m.group(2) == "true", f"{path.name}:{line}"))
    pem = root / "pkg" / "postprocess" / "pem_test.go"
    if pem.is_file():
        source = pem.read_text(encoding="utf-8")
        row = re.compile(
            rf"\{{\s*{_GO_STRING},\s*\[\]byte(?:\(({_GO_STRING})\)|\{{([\d,\s]+)\}}),\s*(true|false),?\s*\}}"
        )
        for m in row.finditer(source):
            text = (
                _go_string(m.group(1)) if m.group(1) else bytes(int(b) for b in re.findall(r"\d+", m.group(2))).decode()
            )
            line = source.count("\n", 0, m.start()) + 1
            out.append(Case("pem", text, m.group(3) == "true", f"{pem.name}:{line}"))
    return out


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    """Every labelled case of an Earlybird checkout, and notes on what was left out."""
    notes: list[str] = []
    return [*_rule_examples(root, notes), *_filter_tests(root, notes)], notes
