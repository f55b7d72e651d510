"""Read Kingfisher's own labelled cases (github:mongodb/kingfisher) for `python -m benchmarks secrets`.

Kingfisher, MongoDB's scanner grown from Nosey Parker, writes its rules in the same YAML shape:
each rule in `data/rules/*.yml` carries a `pattern` (a Rust regex whose capture groups are the secret
and its companions), `examples:` that the rule must match and, for a few, `negative_examples:` that it
must not. A rule marked `visible: false` finds a companion that another rule depends on (an id, a
URL, a user name), not a secret: its examples are left out with a note, as Nosey Parker's
`np.assets` are. The values are read as for Nosey Parker (`benchmarks/peer_noseyparker.py`, whose
YAML-subset reader and pattern translation this uses): a pattern of one group names the secret, of
several the parts of one credential; an example the pattern does not match counts as caught when
anything in it is redacted. The family is the rule's id (`kingfisher.lob.1`).

Kingfisher was held out of tuning (`--held-out kingfisher`): chosen and committed before Pallium ran on it,
scored once (76.2% recall / 100.0% precision), then used for tuning.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.peer_noseyparker import Case, _parse_rules, _python_pattern, _values

__all__ = ["Case", "read_cases"]


_SKIPPED_KEYS = re.compile(r"^(\s+)(?:validation|depends_on_rule|references|categories|description):")


def _without_unread_keys(text: str) -> str:
    """The rules' text without the keys the benchmark does not read (`validation` requests with their
    templates, `depends_on_rule` lists): the YAML-subset reader need not follow their shapes."""
    out: list[str] = []
    skip_under: int | None = None
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if skip_under is not None and (not line.strip() or indent > skip_under):
            continue
        skip_under = None
        if found := _SKIPPED_KEYS.match(line):
            skip_under = len(found.group(1))
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    """Every example and negative example of every visible rule, and notes for what was left out."""
    cases: list[Case] = []
    hidden: list[str] = []
    unread: list[str] = []
    unmatched = 0
    for path in sorted((root / "data" / "rules").glob("*.yml")):
        for rule in _parse_rules(_without_unread_keys(path.read_text(encoding="utf-8"))).get("rules") or []:
            rule_id = str(rule.get("id"))
            examples = rule.get("examples") or []
            negatives = rule.get("negative_examples") or []
            if str(rule.get("visible", "true")).lower() == "false":
                hidden.append(f"{rule_id} ({len(examples)}+{len(negatives)})")
                continue
            rule_re = _python_pattern(str(rule.get("pattern") or ""))
            if rule_re is None:
                unread.append(rule_id)
            for n, example in enumerate(examples):
                example = str(example)
                secrets, parts = _values(rule_re, example)
                unmatched += not (secrets or parts)
                cases.append(Case(rule_id, example, True, secrets, f"{path.name}#{n}", parts))
            for n, example in enumerate(negatives):
                cases.append(Case(rule_id, str(example), False, [], f"{path.name}#neg{n}"))
    notes = []
    if hidden:
        notes.append(f"{len(hidden)} companion rules (visible: false, not secrets): {', '.join(hidden)}")
    if unread:
        notes.append(
            f"{len(unread)} patterns Python's re does not read (their cases judged by any redaction): "
            + ", ".join(unread)
        )
    if unmatched:
        notes.append(f"{unmatched} examples without a value the pattern names (judged by any redaction)")
    return cases, notes
