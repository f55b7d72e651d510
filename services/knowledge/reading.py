"""Reading the base: search and get, with freshness (what changed since the build, `freshness.py`)
reported apart from evidence (how the claims were checked)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kernel.errors import PalliumError
from services.knowledge import documents
from services.knowledge.freshness import current, is_stale
from services.knowledge.models import ClaimOut, Evidence, GetOutput, SearchHit, SearchOutput
from services.knowledge.rows import ClaimRow, DocRow
from services.knowledge.store import KnowledgeStore

__all__ = ["DocQuery", "doc_query", "evidence_of", "fts_query", "get", "search"]

SEARCH_BUDGET = 8 * 1024
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_QUOTED = re.compile(r"`([^`\n]+)`")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
_PROSE_COLUMNS = "{title path purpose}"
_DEFINERS = 5  # a name defined in more modules than this is too common to say which one is meant
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


@dataclass(frozen=True)
class DocQuery:
    """A query over the module documents, its words told apart: names and plain words.

    A name (`resolveConfig`, `parse_config`, `Session.merge`, a word in backticks, or a capitalised
    word spelled exactly as a symbol the repository defines) may match anywhere, the surface's names
    weighing most. A plain word (`config`, `build`) matches what a module is called and says of
    itself: its path, its files' names, its purpose; a method of that name on its surface is no
    sign the module is about the word.
    """

    match: str  # names anywhere, plain words in title, file names and purpose only
    loose: str  # every word anywhere: for more results when `match` finds too few, and for snippets
    names: frozenset[str]  # the names, lowered: what the surface prior counts


def doc_query(store: KnowledgeStore, text: str) -> DocQuery | None:
    loose = fts_query(text)
    if loose is None:
        return None
    quoted = {w for chunk in _QUOTED.findall(text) for w in _IDENT.findall(chunk)}
    names: list[str] = []
    plain: list[str] = []
    for ident in _IDENT.findall(text):
        parts = [p for p in ident.split(".") if p]
        dotted = len(parts) > 1 and all(len(p) > 1 for p in parts)
        for part in parts:
            if ident in quoted or dotted or _looks_like_name(part) or _is_exact_symbol(store, part):
                names.append(part.lower())
                plain += _split(part)
            else:
                plain.append(part.lower())
    names = list(dict.fromkeys(n for n in names if len(n) > 1))[:20]
    plain = list(dict.fromkeys(w for w in plain if len(w) > 1 and w not in STOPWORDS and w not in names))[:20]
    terms = [f'"{n}"' for n in names]
    if plain:
        terms.append(_PROSE_COLUMNS + " : (" + " OR ".join(f'"{w}"' for w in plain) + ")")
    return DocQuery(" OR ".join(terms) if terms else loose, loose, frozenset(names))


def _looks_like_name(word: str) -> bool:
    """snake_case or camelCase: how code spells a name, not how prose spells a word."""
    return "_" in word.strip("_") or bool(_CAMEL.search(word))


def _is_exact_symbol(store: KnowledgeStore, word: str) -> bool:
    """A word with a capital spelled exactly as a symbol here (`Engine`, `Plugin`); lowercase words never are."""
    return word != word.lower() and len(word) > 2 and store.symbol_spelled(word)


def search(store: KnowledgeStore, root: Path, query: str, *, limit: int, full: bool) -> SearchOutput:
    q = doc_query(store, query)
    if q is None:
        raise PalliumError(
            "invalid_input",
            f"the query {query!r} has no searchable words",
            hint="pass `query` (CLI: the words after `knowledge search`) with at least one word of two letters",
            details={"field": "query"},
        )
    loaded: dict[str, DocRow | None] = {}
    hits = _rerank(store, store.search_docs(q.match, limit=25), q, loaded)
    if len(hits) < limit and q.loose != q.match:  # then the documents that only mention the words
        seen = {slug for slug, _ in hits}
        more = [h for h in store.search_docs(q.loose, limit=25) if h.slug not in seen]
        hits += _rerank(store, more[: limit - len(hits)], q, loaded)
    hits = _defining_first(store, hits, q)[:limit]
    claims_all = store.claims()
    here = current(store, root, claims_all)
    by_slug: dict[str, list[ClaimRow]] = {}
    for c in claims_all:
        by_slug.setdefault(c.slug, []).append(c)
    results, docs = [], []
    snippets = store.snippets([slug for slug, _ in hits], q.loose)
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
    store: KnowledgeStore, hits: list[tuple[str, float]], q: DocQuery, loaded: dict[str, DocRow | None]
) -> list[tuple[str, float]]:
    """Scores (BM25 times the module's standing, from the store) times how much the repository leans on the
    names the query uses: a module whose named symbols many files reference comes before one that repeats them."""
    ranked = []
    for slug, score in hits:
        doc = loaded[slug] = store.doc(slug)  # kept: the results read them again
        data = doc.data if doc else {}
        named = sum(s.get("referencing_files", 0) for s in data.get("surface", []) if s["name"].lower() in q.names)
        ranked.append((slug, score * (1.0 + math.log2(1 + named) * 0.5)))
    ranked.sort(key=lambda h: (h[1], h[0]))
    return ranked


def _defining_first(store: KnowledgeStore, hits: list[tuple[str, float]], q: DocQuery) -> list[tuple[str, float]]:
    """A name the query uses leads to the modules that define it, whether or not their documents list
    it: each of at most `_DEFINERS` such modules scores at least as well as the best match."""
    defining: set[str] = set()
    for slugs in store.modules_defining(sorted(q.names)).values():
        if len(slugs) <= _DEFINERS:
            defining |= slugs
    if not defining:
        return hits
    best = min([score for _, score in hits] + [-1.0])
    scores = dict(hits)
    for slug in defining:  # past the best text match, in the order of their own
        scores[slug] = best * 1.01 + scores.get(slug, 0.0) * 0.01
    return sorted(scores.items(), key=lambda h: (h[1], h[0]))


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
