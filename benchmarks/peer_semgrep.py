"""Read semgrep's secret rules' own test files (github:semgrep/semgrep-rules) for `python -m benchmarks secrets`.

Each rule `generic/secrets/security/<id>.yaml` has a test file beside it of the same name (`.txt`, `.php`,
`.jsx`, `.npmrc`, `.generic`), read by `semgrep --test`: a comment `ruleid: <id>` says the next line
must be reported, `ok: <id>` that it must not (`todoruleid` and `todook` say the same of cases the rule
still gets wrong; their label is what the authors intend, so they count as positive and negative). So:
each annotated line is a case of its rule's family (the id without `detected-`); a line that opens a
PEM block (`-----BEGIN`) takes the block's lines through its `-----END` (PGP's armor holds a blank line),
or, unterminated, up to a blank line or the next annotation.
Semgrep states no expected value, so a case counts as caught when Pallium redacts anything in it. Lines
with no annotation (context such as `<?php`, the rest of a multi-line block) are not cases.

Semgrep-rules is held out of tuning (`--held-out semgrep`): chosen and committed before Pallium ran on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Case", "read_cases"]

_ANNOTATION = re.compile(
    r"^\s*(?:#|//|<!--|/\*|--|;)\s*(todoruleid|ruleid|todook|ok)\s*:\s*([\w.,\s-]+?)\s*(?:-->|\*/)?\s*$"
)


@dataclass(frozen=True)
class Case:
    family: str
    text: str
    positive: bool
    where: str


def _block(lines: list[str], at: int) -> str:
    """The case that starts at line `at`: that line, or a PEM block's lines when it opens one (through its
    `-----END` line when one comes before the next annotation, blank lines and all, as PGP's armor has;
    else up to a blank line)."""
    if "-----BEGIN" not in lines[at]:
        return lines[at]
    for end in range(at + 1, len(lines)):
        if _ANNOTATION.match(lines[end]):
            break
        if "-----END" in lines[end]:
            return "\n".join(lines[at : end + 1])
    end = at + 1
    while end < len(lines) and lines[end].strip() and not _ANNOTATION.match(lines[end]):
        end += 1
    return "\n".join(lines[at:end])


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    base = root / "generic" / "secrets" / "security"
    cases: list[Case] = []
    notes: list[str] = []
    for rule in sorted(base.glob("*.yaml")):
        rule_id = rule.stem
        tests = [p for p in sorted(base.glob(f"{rule_id}.*")) if p.suffix != ".yaml"]
        if not tests:
            notes.append(f"{rule_id}: no test file")
            continue
        family = rule_id.removeprefix("detected-")
        for test in tests:
            lines = test.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines):
                found = _ANNOTATION.match(line)
                if not found or rule_id not in re.split(r"[,\s]+", found.group(2)):
                    continue
                target = number + 1
                while target < len(lines) and _ANNOTATION.match(lines[target]):
                    target += 1  # several annotations may stand above one line
                if target >= len(lines) or not lines[target].strip():
                    notes.append(f"{test.name}:{number + 1}: an annotation with no line under it")
                    continue
                positive = found.group(1) in ("ruleid", "todoruleid")
                where = f"{test.name}:{target + 1}" + (f" ({found.group(1)})" if "todo" in found.group(1) else "")
                cases.append(Case(family, _block(lines, target), positive, where))
    return cases, notes
