"""Reading the base: search and get, with freshness (what changed since the build, `freshness.py`)
reported apart from evidence (how the claims were checked)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path

from kernel.errors import PalliumError
from services.knowledge import documents
from services.knowledge.freshness import current, is_stale
from services.knowledge.models import ClaimOut, Evidence, GetOutput, SearchHit, SearchOutput
from services.knowledge.store import ClaimRow, DocRow, KnowledgeStore

__all__ = ["evidence_of", "fts_query", "get", "search"]

SEARCH_BUDGET = 8 * 1024
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_STOP = (
    "a an and are as at be but by can do does for from has have how i if in into is it its make me my of on "
    "or so should that the their them then there these this to was we what when where which who why will "
    "with without you your add fix change update use make new get set all any not no"
)
STOPWORDS = frozenset(_STOP.split())


def evidence_of(doc: DocRow | None, claims: list[ClaimRow], dropped: int, now: Mapping[str, str | None]) -> Evidence:
    supported = sum(c.audit == "supported" for c in claims)
    uncertain = sum(c.audit == "uncertain" for c in claims)
    stale = any(is_stale(c, now) for c in claims)
    verified = bool(
        doc is not None
        and doc.kind == "module"
        and claims
        and supported == len(claims)
        and not stale
        and not (doc.unverified_reason or "").strip()
    )
    return Evidence(
        claims=len(claims),
        citations_checked=sum(len(c.citations) for c in claims),
        audit_supported=supported,
        audit_uncertain=uncertain,
        unaudited=sum(c.audit == "unaudited" for c in claims),
        removed=dropped,
        verified=verified,
    )


def fts_query(text: str) -> str | None:
    """An FTS5 OR-query of the text's words (stopwords out), each quoted so no word is an operator."""
    words = []
    for token in _TOKEN.findall(text):
        for part in {token.lower(), *_split(token)}:
            if len(part) > 1 and part not in STOPWORDS and part not in words:
                words.append(part)
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in words[:40])


def search(store: KnowledgeStore, root: Path, query: str, *, limit: int, full: bool) -> SearchOutput:
    match = fts_query(query)
    if match is None:
        raise PalliumError(
            "invalid_input",
            f"the query {query!r} has no searchable words",
            hint="pass `query` (CLI: the words after `knowledge search`) with at least one word of two letters",
            details={"field": "query"},
        )
    loaded: dict[str, DocRow | None] = {}
    hits = _rerank(store, store.search_docs(match, limit=25), query, loaded)[:limit]
    claims_all = store.claims()
    here = current(store, root, claims_all)
    by_slug: dict[str, list[ClaimRow]] = {}
    for c in claims_all:
        by_slug.setdefault(c.slug, []).append(c)
    results, docs = [], []
    snippets = store.snippets([slug for slug, _ in hits], match)
    for slug, score in hits:
        doc = loaded.get(slug) or store.doc(slug)
        if doc is None:
            continue
        claims = by_slug.get(slug, [])
        results.append(
            SearchHit(
                slug=slug,
                title=doc.title,
                kind=doc.kind,
                score=round(score, 3),
                snippet=snippets.get(slug, "")[:300] or None,
                purpose=(doc.data.get("purpose") or None) and doc.data["purpose"][:300],
                surface=[s["name"] for s in doc.data.get("surface", [])[:8]],
                evidence=evidence_of(doc, claims, len(store.dropped(slug)), here.now),
            )
        )
        if full:
            docs.append({"slug": slug, "markdown": doc.markdown, "data": doc.data})
    out = SearchOutput(query=query, results=results, truncated=False, freshness=here.freshness)
    if full:
        out.documents = docs
        return out
    while len(out.model_dump_json()) > SEARCH_BUDGET and out.results:
        last = out.results[-1]
        if last.snippet or last.purpose:
            last.snippet, last.purpose = None, (last.purpose or "")[:80] or None
            if len(out.model_dump_json()) <= SEARCH_BUDGET:
                break
        out.results.pop()
        out.truncated = True
    return out


def _rerank(
    store: KnowledgeStore, hits: list[tuple[str, float]], query: str, loaded: dict[str, DocRow | None]
) -> list[tuple[str, float]]:
    """BM25 times how much the repository leans on what matched: a module whose matching names many files
    reference, or that many modules import, comes before a small one that merely repeats the word."""
    words = {w.lower() for w in _TOKEN.findall(query) if len(w) > 1}
    ranked = []
    for slug, score in hits:
        doc = loaded[slug] = store.doc(slug)  # kept: the results read them again
        data = doc.data if doc else {}
        named = sum(
            s.get("referencing_files", 0) for s in data.get("surface", []) if any(w in s["name"].lower() for w in words)
        )
        used = sum(e.get("imports", 0) for e in data.get("used_by", []))
        prior = 1.0 + math.log2(1 + named) * 0.5 + math.log2(1 + used) * 0.25
        ranked.append((slug, score * prior))
    ranked.sort(key=lambda h: (h[1], h[0]))
    return ranked


def get(store: KnowledgeStore, root: Path, slug: str, *, section: str | None, full: bool) -> GetOutput:
    doc = store.doc(slug)
    for candidate in [] if doc else _slug_candidates(slug):
        doc = store.doc(candidate)
        if doc is not None:
            break
    if doc is None:
        raise PalliumError(
            "not_found",
            f"no knowledge document {slug!r}",
            hint="list the modules with `pallium knowledge map` (MCP pallium_knowledge_map) or find one with "
            "`pallium knowledge search`; build the base with `pallium knowledge build --no-model`",
            details={"slug": slug},
        )
    claims = store.claims(doc.slug)
    dropped = store.dropped(doc.slug)
    here = current(store, root, claims)
    sections = documents.sections_of(doc.markdown)
    if section is not None:
        wanted = next((name for name in sections if name.lower() == section.strip().lower()), None)
        if wanted is None:
            raise PalliumError(
                "not_found",
                f"document {doc.slug!r} has no section {section!r}",
                hint=f"pass `section` (CLI `--section`) as one of: {', '.join(sections)}",
                details={"slug": doc.slug, "section": section, "sections": list(sections)},
            )
        sections = {wanted: sections[wanted]}
    out = GetOutput(
        slug=doc.slug,
        title=doc.title,
        kind=doc.kind,
        sections=sections,
        claims=[_claim_out(c, here.now) for c in claims],
        dropped_claims=[{"text": d.text, "outcome": d.outcome, "reason": d.reason, "at": d.at} for d in dropped],
        unverified_reason=doc.unverified_reason,
        truncated=False,
        evidence=evidence_of(doc, claims, len(dropped), here.now),
        freshness=here.freshness,
        data=doc.data if full else None,
    )
    if not full:
        _fit_get(out)
    return out


def _fit_get(out: GetOutput) -> None:
    """Cut the longest sections first (Files, then History) until the answer is within 8 KB."""
    for name in ("Files", "History", "Surface", "Dependencies", "Tests", "Purpose"):
        if len(out.model_dump_json()) <= SEARCH_BUDGET:
            return
        if name in out.sections:
            text = out.sections[name]
            over = len(out.model_dump_json()) - SEARCH_BUDGET
            keep = max(200, len(text) - over - 200)
            if keep < len(text):
                out.sections[name] = text[:keep].rsplit("\n", 1)[0] + "\n... (cut; pass `full` for the rest)\n"
                out.truncated = True
    while len(out.model_dump_json()) > SEARCH_BUDGET and out.dropped_claims:
        out.dropped_claims.pop()
        out.truncated = True
    while len(out.model_dump_json()) > SEARCH_BUDGET and out.claims:
        out.claims.pop()
        out.truncated = True


def _claim_out(claim: ClaimRow, now: Mapping[str, str | None]) -> ClaimOut:
    return ClaimOut(
        text=claim.text,
        section=claim.section,
        audit=claim.audit,
        audit_reason=claim.audit_reason,
        stale=is_stale(claim, now),
        citations=[
            {
                "path": c.path,
                "symbol": c.symbol,
                "lines": [c.start_line, c.end_line] if c.start_line else None,
                "blob": c.blob,
            }
            for c in claim.citations
        ],
    )


def _slug_candidates(slug: str) -> list[str]:
    """The slugs a plain path may mean: `src/core`, or `src/core@loading` for a group of a split folder."""
    from urllib.parse import quote, unquote

    path = unquote(slug).strip().strip("/")
    out = []
    folder, at, group = path.rpartition("@")
    if at and group and "/" not in group:
        base = quote(folder, safe="") if folder and folder != "." else "@root"
        out.append(f"{base}@{quote(group, safe='')}")
    out.append(quote(path, safe="") if path and path != "." else "@root")
    return out


def _split(token: str) -> list[str]:
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", token)
    return [p.lower() for p in parts if len(parts) > 1] + [p for p in token.lower().split("_") if p and "_" in token]


def dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True)
