"""The knowledge documents as Markdown: one per module, the incidents candidates and the decisions.

Markdown is rendered here from stored facts and checked claims, never written by a model. Each
generated file starts with `MARKER`, which is how materialization tells generated files from
authored ones.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from services.knowledge.rows import ClaimRow, DecisionRow, DocFields

__all__ = [
    "DECISIONS_SLUG",
    "INCIDENTS_SLUG",
    "MARKER",
    "SECTIONS",
    "decisions_markdown",
    "incidents_markdown",
    "is_peripheral",
    "keyword_fields",
    "module_fields",
    "module_markdown",
    "purpose_from_facts",
    "sections_of",
    "split_terms",
]

MARKER = "<!-- pallium:generated knowledge v2: edit the sources, not this file; it is rebuilt -->"
SECTIONS = ("Purpose", "Surface", "Dependencies", "Tests", "History")
INCIDENTS_SLUG = "@incidents"
DECISIONS_SLUG = "@decisions"
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_QUOTED_NAME = re.compile(r"`[^`\n]*`")
_PERIPHERAL = {
    *("examples", "example", "samples", "sample", "demo", "demos", "playground", "playgrounds"),
    *("fixtures", "__fixtures__", "testdata", "benchmarks", "bench", "e2e", "docs", "doc"),
}
_LEAD = "{files} file(s) ({kinds})"  # how a purpose without a README starts: counts, not words to match
_LEAD_RE = re.compile(r"^\d+ file\(s\) \([^)]*\)(?:, all tests)?\.(?: Its most used names say: )?")


def is_peripheral(path: str) -> bool:
    """Under a folder of examples, playgrounds, fixtures, benchmarks or documentation."""
    return any(part in _PERIPHERAL or part.startswith("fixture") for part in path.lower().split("/")[:-1])


def split_terms(text: str) -> str:
    """`services/repo/index_git.py` -> `services repo index git py`; camelCase splits too."""
    words = []
    for chunk in re.split(r"[^A-Za-z0-9]+", text):
        if not chunk:
            continue
        parts = _WORD.findall(chunk)
        words.append(chunk.lower())
        if len(parts) > 1:
            words.extend(p.lower() for p in parts)
    return " ".join(words)


def module_fields(module: dict[str, Any], claims: Sequence[ClaimRow]) -> DocFields:
    """A module document's search fields: its path and group, its files' names, what it says of
    itself, and its surface's names. Names quoted in the prose (`build`) go to the surface field only,
    so a plain word matches the prose for what the prose says, not for the names it lists."""
    path = module.get("path") or ""
    title = " ".join(filter(None, [path, module.get("group") or ""]))
    prose = [_LEAD_RE.sub("", module.get("purpose") or ""), *(c.text for c in claims)]
    used = sum(e.get("imports", 0) for e in module.get("used_by", []))
    standing = 1.0 + 0.25 * math.log2(1 + used)
    if is_peripheral(path + "/"):
        standing *= 0.4  # examples, playgrounds, fixtures, docs: found by their own words, not before the code
    elif module.get("is_tests"):
        standing *= 0.6
    return DocFields(
        title=split_terms(title),
        path=" ".join(split_terms(p.rsplit("/", 1)[-1]) for p in module.get("files", [])[:200]),
        purpose=" ".join(_QUOTED_NAME.sub(" ", text) for text in prose),
        symbols=" ".join(split_terms(s["name"]) for s in module.get("surface", [])),
        standing=round(standing, 3),
    )


def keyword_fields(title: str, words: str) -> DocFields:
    """The search fields of a document that is not a module's (incidents, decisions)."""
    return DocFields(title=split_terms(title), path="", purpose=words, symbols="")


def purpose_from_facts(module: dict[str, Any], readme: str | None) -> str:
    """A factual purpose line without a model: the folder's README, else what its surface says of itself."""
    if readme:
        return readme
    docs = [f"`{s['name']}`: {s['doc']}" for s in module["surface"] if s.get("doc")][:3]
    kinds = ", ".join(f"{n} {lang}" for lang, n in module["languages"].items())
    lead = _LEAD.format(files=len(module["files"]), kinds=kinds)
    if module["is_tests"]:
        lead += ", all tests"
    if docs:
        return lead + ". Its most used names say: " + "; ".join(docs)
    return lead + "."


def module_markdown(module: dict[str, Any], claims: list[ClaimRow], *, purpose: str, built_commit: str | None) -> str:
    # No build commit here: a document changes (and leaves a revision) only when its module's facts do.
    lines = [MARKER, f"# {module['path']}", ""]
    lines += ["## Purpose", "", purpose, ""]
    for claim in claims:
        marks = "" if claim.audit in ("unaudited", "supported") else f" _({claim.audit})_"
        cites = ", ".join(_cite(c.path, c.symbol, c.start_line, c.end_line) for c in claim.citations)
        lines.append(f"- {claim.text}{marks} [{cites}]")
    if claims:
        lines.append("")
    lines += ["## Surface", ""]
    if module["surface"]:
        lines += ["| name | kind | where | referencing files |", "|---|---|---|---|"]
        for s in module["surface"]:
            lines.append(f"| `{s['name']}` | {s['kind']} | `{s['path']}:{s['line']}` | {s['referencing_files']} |")
    else:
        lines.append("No symbols are indexed for these files.")
    lines += ["", "## Dependencies", ""]
    lines.append("Depends on: " + (_edges(module["depends_on"]) or "no other module."))
    lines.append("")
    lines.append("Used by: " + (_edges(module["used_by"]) or "no other module."))
    lines.append("")
    lines.append("External packages: " + (", ".join(f"`{p}`" for p in module["external"]) or "none found."))
    lines += ["", "## Tests", ""]
    lines += [f"- `{t}`" for t in module["tests"][:30]] or ["No tests are paired with these files."]
    if module.get("checks"):
        lines += ["", "Suggested checks:"] + [f"- `{c}`" for c in module["checks"]]
    lines += ["", "## History", ""]
    lines.append(f"{module['commit_count']} of the recent commits read touched this module.")
    lines += [f"- `{c['sha'][:10]}` {c['committed_at'][:10]} {c['subject']}" for c in module["history"]]
    lines += ["", "## Files", ""]
    lines += [f"- `{p}`" for p in module["files"][:200]]
    if len(module["files"]) > 200:
        lines.append(f"- ... and {len(module['files']) - 200} more")
    return "\n".join(lines) + "\n"


def incidents_markdown(items: list[dict[str, Any]], *, built_commit: str | None) -> str:
    lines = [MARKER, "# Incident candidates", ""]
    lines.append(
        "Mined from commit subjects that announce a revert, rollback, hotfix or outage. Every entry is "
        "**unconfirmed**: a real commit with its real files, not a verified incident."
    )
    lines.append("")
    if not items:
        lines.append("No commit subject in the history read announces one.")
    for item in items:
        lines.append(f"## `{item['sha'][:12]}` {item['subject']}")
        lines.append("")
        lines.append(f"- commit: `{item['sha']}` ({item['committed_at']}), status: unconfirmed")
        shown = ", ".join(f"`{p}`" for p in item["files"][:20])
        more = f" and {len(item['files']) - 20} more" if len(item["files"]) > 20 else ""
        lines.append(f"- files: {shown or 'none recorded'}{more}")
        lines.append("")
    return "\n".join(lines) + "\n"


def decisions_markdown(rows: list[DecisionRow]) -> str:
    lines = [MARKER, "# Decisions", ""]
    lines.append(
        "Authored intent, recorded with `pallium knowledge decisions link`. Superseded decisions stay listed; "
        "decisions sharing a title without one superseding the other are conflicts, shown side by side."
    )
    lines.append("")
    if not rows:
        lines.append("No decision has been linked yet.")
    titles: dict[str, int] = {}
    for row in rows:
        if row.superseded_by is None:
            titles[row.title.lower()] = titles.get(row.title.lower(), 0) + 1
    for row in rows:
        status = decision_status(row, titles)
        lines.append(f"## {row.title} (`{row.slug}`)")
        lines.append("")
        lines.append(f"- status: {status}; source: {row.source}; file: `{row.file}`; linked {row.created_at}")
        if row.supersedes:
            lines.append(f"- supersedes `{row.supersedes}`")
        if row.superseded_by:
            lines.append(f"- superseded by `{row.superseded_by}`")
        lines += ["", row.text.strip(), ""]
    return "\n".join(lines) + "\n"


def decision_status(row: DecisionRow, active_titles: dict[str, int]) -> str:
    if row.superseded_by:
        return "superseded"
    return "conflicting" if active_titles.get(row.title.lower(), 0) > 1 else "active"


def sections_of(markdown: str) -> dict[str, str]:
    """`## Name` sections of a rendered document, by name."""
    out: dict[str, str] = {}
    current = None
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = ""
        elif current is not None:
            out[current] += line + "\n"
    return {k: v.strip() + "\n" for k, v in out.items()}


def _edges(edges: list[dict[str, Any]]) -> str:
    return ", ".join(f"`{e['path']}` ({e['imports']})" for e in edges[:15])


def _cite(path: str, symbol: str | None, start: int | None, end: int | None) -> str:
    where = path
    if start is not None:
        where += f":{start}" + (f"-{end}" if end and end != start else "")
    return f"`{where}`" + (f" `{symbol}`" if symbol else "")
