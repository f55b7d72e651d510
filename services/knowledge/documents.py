"""The knowledge documents as Markdown: one per module, the incidents candidates and the decisions.

Markdown is rendered here from stored facts and checked claims, never written by a model. Each
generated file starts with `MARKER`, which is how materialization tells generated files from
authored ones.
"""

from __future__ import annotations

from typing import Any

from services.knowledge.store import ClaimRow, DecisionRow

__all__ = [
    "DECISIONS_SLUG",
    "INCIDENTS_SLUG",
    "MARKER",
    "SECTIONS",
    "decisions_markdown",
    "incidents_markdown",
    "module_markdown",
    "purpose_from_facts",
    "sections_of",
]

MARKER = "<!-- pallium:generated knowledge v2: edit the sources, not this file; it is rebuilt -->"
SECTIONS = ("Purpose", "Surface", "Dependencies", "Tests", "History")
INCIDENTS_SLUG = "@incidents"
DECISIONS_SLUG = "@decisions"


def purpose_from_facts(module: dict[str, Any], readme: str | None) -> str:
    """A factual purpose line without a model: the folder's README, else what its surface says of itself."""
    if readme:
        return readme
    docs = [f"`{s['name']}`: {s['doc']}" for s in module["surface"] if s.get("doc")][:3]
    kinds = ", ".join(f"{n} {lang}" for lang, n in module["languages"].items())
    lead = f"{len(module['files'])} file(s) ({kinds})"
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
