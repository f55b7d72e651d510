"""Authored decisions: `knowledge decisions link` records intent; rebuilds and reindexing never touch it.

Two decisions with the same title stay visible side by side (`conflicting`) until one supersedes
the other; `supersedes` retires the older one explicitly, and the retired one stays listed.
"""

from __future__ import annotations

import asyncio
import re

from kernel import paths
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.tool import Annotations, Route, Tool
from services.knowledge import documents
from services.knowledge.materialize import materialize_one
from services.knowledge.models import (
    AuthoredDecision,
    DecisionSearchInput,
    DecisionSearchOutput,
    LinkInput,
    LinkOutput,
)
from services.knowledge.reading import fts_query
from services.knowledge.rows import DecisionRow, DocRow
from services.knowledge.store import KnowledgeStore

__all__ = ["TOOLS"]

MAX_TEXT = 64 * 1024


def _active_titles(rows: list[DecisionRow]) -> dict[str, int]:
    active: dict[str, int] = {}
    for row in rows:
        if row.superseded_by is None:
            active[row.title.lower()] = active.get(row.title.lower(), 0) + 1
    return active


def _out(row: DecisionRow, active: dict[str, int], score: float | None = None) -> AuthoredDecision:
    return AuthoredDecision(
        slug=row.slug,
        title=row.title,
        status=documents.decision_status(row, active),  # type: ignore[arg-type]  # one of the three
        source=row.source,
        file=row.file,
        supersedes=row.supersedes,
        superseded_by=row.superseded_by,
        created_at=row.created_at,
        text=row.text[:600],
        score=None if score is None else round(score, 3),
    )


def _slug(title: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60] or "decision"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


async def link(inp: LinkInput, ctx: ToolContext) -> LinkOutput:
    root = ctx.repo_root(inp.repo)
    target = paths.confine(root, inp.file, base=ctx.cwd)
    if not target.is_file():
        raise PalliumError(
            "not_found",
            f"no decision file {inp.file!r}",
            hint="pass `file` (CLI `--file`) as the repository file of the decision's text; `git ls-files` lists them",
            details={"field": "file", "path": inp.file},
        )
    text = target.read_text(encoding="utf-8", errors="replace")[:MAX_TEXT]
    store = ctx.store(KnowledgeStore, root)
    now = iso_utc(ctx.clock.now())

    def work() -> LinkOutput:
        with store.db.transaction():
            rows = store.decisions()
            if inp.supersedes is not None:
                old = store.decision(inp.supersedes)
                if old is None:
                    raise PalliumError(
                        "not_found",
                        f"no decision {inp.supersedes!r} to supersede",
                        hint="list decisions with `pallium knowledge decisions search` or `pallium knowledge get "
                        "@decisions`, then pass its slug as `supersedes` (CLI `--supersedes`)",
                        details={"field": "supersedes", "slug": inp.supersedes},
                    )
                if old.superseded_by is not None:
                    raise PalliumError(
                        "conflict",
                        f"decision {old.slug!r} was already superseded by {old.superseded_by!r}",
                        hint=f"supersede {old.superseded_by!r} instead (CLI `--supersedes {old.superseded_by}`)",
                        details={"field": "supersedes", "slug": old.slug, "superseded_by": old.superseded_by},
                    )
            row = DecisionRow(
                slug=_slug(inp.title, {r.slug for r in rows}),
                title=inp.title.strip(),
                text=text,
                file=paths.relative_to_repo(root, target),
                source=inp.source.strip(),
                supersedes=inp.supersedes,
                superseded_by=None,
                created_at=now,
            )
            store.add_decision(row)
            rows = store.decisions()
            markdown = documents.decisions_markdown(rows)
            store.put_doc(
                DocRow(
                    documents.DECISIONS_SLUG,
                    "decisions",
                    "Decisions",
                    None,
                    {"decisions": [r.slug for r in rows]},
                    markdown,
                    store.state().get("built_commit") or None,
                    now,
                    False,
                    "authored decisions are not audited",
                ),
                fields=documents.keyword_fields(
                    "Decisions", "decision decisions why intent " + " ".join(r.title for r in rows)
                ),
                now=now,
            )
        materialize_one(root, documents.DECISIONS_SLUG, markdown)
        active = _active_titles(rows)
        mine = next(r for r in rows if r.slug == row.slug)
        conflicts = [
            r.slug for r in rows if r.slug != row.slug and r.title.lower() == row.title.lower() and not r.superseded_by
        ]
        return LinkOutput(decision=_out(mine, active), conflicts=conflicts)

    return await asyncio.to_thread(work)


async def search(inp: DecisionSearchInput, ctx: ToolContext) -> DecisionSearchOutput:
    root = ctx.repo_root(inp.repo)
    store = ctx.store(KnowledgeStore, root)
    match = fts_query(inp.query)
    if match is None:
        return DecisionSearchOutput(query=inp.query, decisions=[])
    active = _active_titles(store.decisions())
    found = [
        _out(row, active, score)
        for row, score in store.search_decisions(match, limit=inp.limit * 3)
        if inp.superseded or row.superseded_by is None
    ]
    return DecisionSearchOutput(query=inp.query, decisions=found[: inp.limit])


def _render_link(out: LinkOutput) -> str:
    d = out.decision
    lines = [f"linked {d.slug}: {d.title} ({d.status}; source {d.source}; file {d.file})"]
    if d.supersedes:
        lines.append(f"supersedes {d.supersedes}")
    if out.conflicts:
        lines.append(f"conflicts with: {', '.join(out.conflicts)} (same title; pass --supersedes to retire one)")
    return "\n".join(lines)


def _render_search(out: DecisionSearchOutput) -> str:
    if not out.decisions:
        return f"no authored decision matches {out.query!r}"
    return "\n".join(f"{d.slug}  {d.title}  ({d.status}, {d.source})" for d in out.decisions)


TOOLS = (
    Tool(
        cli="knowledge decisions link",
        handler=link,
        input=LinkInput,
        output=LinkOutput,
        summary="Record an authored decision (title, file with its text, source), optionally retiring an older one.",
        description=(
            "Use when a decision was made outside the code (an ADR, a design note) and agents should find it: "
            "`pallium decisions` and `knowledge context` then show it. Same-title decisions stay visible as "
            "conflicting until `supersedes` retires one. Not for commit notes (they are indexed already). Reads "
            "one file in the repository; writes the knowledge base and .pallium/knowledge/@decisions.md; no model."
        ),
        authority="edit",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "record the decision in decision.md titled why sqlite",
                "link an architecture decision record to the knowledge base",
                "add ADR-12 as an authored decision",
                "save this design decision with its source",
            ),
            arguments={"file": "path", "title": "quoted"},
        ),
        annotations=Annotations(read_only=False, destructive=False, idempotent=False, open_world=False),
        render=_render_link,
    ),
    Tool(
        cli="knowledge decisions search",
        handler=search,
        input=DecisionSearchInput,
        output=DecisionSearchOutput,
        summary="BM25 search over authored decisions, superseded ones left out unless asked.",
        description=(
            "Use to find recorded intent by words. Not for commit notes and workflow decisions together (use "
            "pallium_decisions, which ranks all three). Reads the local knowledge base only; a few hundred bytes "
            "per decision."
        ),
        authority="observe",
        toolset="knowledge",
        route=Route(
            phrasings=(
                "search the authored decision records (ADRs)",
                "which ADRs mention caching",
                "find architecture decision records about worktrees",
                "look up recorded design decisions",
            ),
            arguments={"query": "text"},
        ),
        annotations=Annotations(read_only=True, destructive=False, idempotent=True, open_world=False),
        positional=("query",),
        render=_render_search,
    ),
)
