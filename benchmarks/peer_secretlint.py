"""Read secretlint's own test cases (github:secretlint/secretlint) for `python -m benchmarks secrets`.

Each rule package `packages/@secretlint/secretlint-rule-<family>/test/snapshots/<name>/` holds one input
file and the `output.json` that secretlint's snapshot test requires of it: the messages it reports, each
with the `range` of text it found. So: every reported range of a snapshot is a positive of its family
(caught when that range no longer stands whole after redaction), and every snapshot whose output
reports nothing is a negative (caught when anything in it is redacted).

Left out, each with a note: the rules that find no credential (a `.env` file's name, a home folder's
path, a Kubernetes `kind: Secret` manifest, comment directives, user-written patterns, the example and
internal test rules), the presets (they rerun the rules' own snapshots), binary inputs (PKCS#12 files),
and a snapshot that reports nothing only under options of its own `.secretlintrc.json` (`allows`, a
scan turned off): that text is a negative of the options, not of the text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Case", "read_cases"]

_NOT_CREDENTIALS = {
    "no-dotenv": "reports a `.env` file by its name",
    "no-homedir": "reports a home folder's path",
    "no-k8s-kind-secret": "reports a Kubernetes manifest of kind Secret, whatever its values",
    "filter-comments": "a filter of other rules' findings by comment directives",
    "pattern": "user-written patterns given in each snapshot's options",
    "example": "the example rule of the rule-writing guide",
    "internal-test-cjs": "an internal test rule",
    "internal-test-esm": "an internal test rule",
    "preset-recommend": "a preset rerunning the rules' own snapshots",
    "preset-canary": "a preset rerunning the rules' own snapshots",
}


@dataclass(frozen=True)
class Case:
    family: str
    text: str
    positive: bool
    where: str
    secrets: list[str] = field(default_factory=list)  # the range the peer reports, for a positive


def _span(text: str, start: int, end: int) -> str:
    """The text of a JavaScript range (UTF-16 code units) of `text`."""
    units = text.encode("utf-16-le")
    return units[2 * start : 2 * end].decode("utf-16-le", errors="replace")


def _options_of(snapshot: Path) -> bool:
    """Whether the snapshot's own `.secretlintrc.json` gives its rule any options."""
    config = snapshot / ".secretlintrc.json"
    if not config.is_file():
        return False
    rules = json.loads(config.read_text(encoding="utf-8")).get("rules", [])
    return any(rule.get("options") for rule in rules)


def _named_input(snapshot: Path) -> list[Path]:
    """The input a snapshot's `options.ts` names (`inputFilePath: ".npmrc"`), when it has no `input*`."""
    options = snapshot / "options.ts"
    if not options.is_file():
        return []
    named = re.search(r"""inputFilePath:\s*["']([^"']+)["']""", options.read_text(encoding="utf-8"))
    path = snapshot / named.group(1) if named else None
    return [path] if path is not None and path.is_file() else []


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    base = root / "packages" / "@secretlint"
    cases: list[Case] = []
    notes: list[str] = []
    for package in sorted(base.glob("secretlint-rule-*")):
        family = package.name.removeprefix("secretlint-rule-")
        snapshots = package / "test" / "snapshots"
        if not snapshots.is_dir():
            continue
        if family in _NOT_CREDENTIALS:
            notes.append(f"{family}: {_NOT_CREDENTIALS[family]}")
            continue
        for snapshot in sorted(p for p in snapshots.iterdir() if p.is_dir()):
            output = snapshot / "output.json"
            inputs = sorted(p for p in snapshot.glob("input*") if p.is_file()) or _named_input(snapshot)
            if not output.is_file() or len(inputs) != 1:
                notes.append(f"{family}/{snapshot.name}: no single input and output.json")
                continue
            try:
                text = inputs[0].read_text(encoding="utf-8")
            except UnicodeDecodeError:
                notes.append(f"{family}/{snapshot.name}: binary input ({inputs[0].name})")
                continue
            messages = json.loads(output.read_text(encoding="utf-8")).get("messages", [])
            where = f"{family}/{snapshot.name}"
            if not messages:
                if _options_of(snapshot):
                    notes.append(f"{where}: reports nothing only under its own options")
                    continue
                cases.append(Case(family, text, False, where))
                continue
            for number, message in enumerate(messages, 1):
                start, end = message["range"]
                cases.append(Case(family, text, True, f"{where}#{number}", [_span(text, start, end)]))
    return cases, notes
