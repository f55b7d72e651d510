"""`sessions search`: exact search over every indexed message, paged within 8 KB.

A query is words and "quoted phrases"; a message matches when it holds every one of them (or, with
`any_word`, at least one) as whole words, case aside: `batch failed` does not match "the batch
fails". The full-text index stems words (porter: that is what recall's lenient matching wants), so
the index finds the candidates, best BM25 first, and each candidate's text is then checked for the
exact words; an exact match always matches the stemmed query, so nothing is lost, and a second,
unstemmed index (twice the FTS5 inserts, which dominate a cold sync) is not needed. The cursor is
the position in the candidate list where the next page starts, so pages never repeat a hit.
"""

from __future__ import annotations

import json
import re

from services.sessions.models import Freshness, SearchHit, SearchOutput, SemanticStatus
from services.sessions.recall import SemanticRanker
from services.sessions.rows import Filters, MessageMatch, MessageRow
from services.sessions.store import SessionsStore
from services.sessions.views import summary

__all__ = ["SEARCH_BUDGET", "search", "search_terms"]

SEARCH_BUDGET = 8 * 1024
_QUOTED = re.compile(r'"([^"]*)"')
_TOKEN = re.compile(r"[^\W_]+")  # a token as FTS5's unicode61 splits text: letters and digits
_MAX_TERMS = 32
_MAX_SCANNED = 5000  # candidates checked per page at most; past that the page ends with a cursor
_RRF_K = 60
_SNIPPET = 400
_TIGHT_SNIPPET = 200
_TIGHT_TITLE = 80


def search_terms(query: str) -> list[tuple[str, ...]]:
    """The query's terms, each a sequence of tokens that must appear together: a quoted phrase, or a
    whitespace-separated word (`order-21877` is the two tokens `order 21877` side by side)."""
    chunks = _QUOTED.findall(query) + _QUOTED.sub(" ", query).split()
    terms = [tuple(_TOKEN.findall(chunk.lower())) for chunk in chunks]
    return list(dict.fromkeys(t for t in terms if t))[:_MAX_TERMS]


def _literal_phrases(query: str) -> dict[tuple[str, ...], re.Pattern[str]]:
    """Terms that hold punctuation, quoted (`"ana-ledger-reports"`, `"f(42);"`) or not (`acme-billing-reports`,
    as a shell passes it), each as a pattern of those very characters: the full-text index matches their
    words across any separator, so `ana/ledger/reports` would match too; these patterns keep only the
    characters asked for. A word boundary is asked only where the term starts or ends with a letter or
    digit: `"f(42);"` matches `f(42);return`."""
    literals = {}
    for chunk in _QUOTED.findall(query) + _QUOTED.sub(" ", query).split():
        chunk = chunk.strip()
        tokens = tuple(_TOKEN.findall(chunk.lower()))
        if not tokens or not re.search(r"[^\w\s]|_", chunk):
            continue
        pieces = [r"\s+" if part.isspace() else re.escape(part) for part in re.split(r"(\s+)", chunk)]
        head = r"(?<![^\W_])" if _TOKEN.match(chunk[0]) else ""
        tail = r"(?![^\W_])" if _TOKEN.match(chunk[-1]) else ""
        literals[tokens] = re.compile(head + "".join(pieces) + tail, re.IGNORECASE)
    return literals


def _expression(terms: list[tuple[str, ...]], any_word: bool) -> str:
    return (" OR " if any_word else " AND ").join('"' + " ".join(t) + '"' for t in terms)


def _matcher(terms: list[tuple[str, ...]], any_word: bool, literals: dict[tuple[str, ...], re.Pattern[str]]):
    patterns = [
        literals.get(t)
        or re.compile(r"(?<![^\W_])" + r"[\W_]+".join(re.escape(tok) for tok in t) + r"(?![^\W_])", re.IGNORECASE)
        for t in terms
    ]
    test = any if any_word else all
    return lambda text: test(p.search(text) for p in patterns)


def search(
    store: SessionsStore,
    query: str,
    filters: Filters,
    *,
    limit: int,
    offset: int,
    any_word: bool,
    full: bool,
    semantic: SemanticRanker | None,
    semantic_reason: str | None,
    freshness: Freshness,
) -> SearchOutput:
    terms = search_terms(query)
    found: list[tuple[int, MessageMatch]] = []  # (position in the candidate list, hit)
    resume: int | None = None
    if terms:
        found, resume = _exact_hits(store, terms, _literal_phrases(query), any_word, filters, limit + 1, offset)
    page = found[:limit]
    rows = store.sessions_by_ids(h.message.session_id for _, h in page)
    hits = [
        (pos, _hit(h.message, h.snippet, rows[h.message.session_id])) for pos, h in page if h.message.session_id in rows
    ]
    status = SemanticStatus(used=False, reason=semantic_reason)
    out = SearchOutput(query=query, hits=[], semantic=status, truncated=False, freshness=freshness)

    def show(kept: list[tuple[int, SearchHit]]) -> None:
        """Put `kept` on the page; the cursor points at the first candidate not shown."""
        out.hits = [h for _, h in kept]
        last = kept[-1][0] if kept else offset - 1
        later = [pos for pos, _ in found if pos > last]
        next_at = later[0] if later else resume
        out.truncated = next_at is not None
        out.next_cursor = str(next_at) if next_at is not None else None

    show(hits)
    if not full and _size(out) > SEARCH_BUDGET:
        hits = _fit(out, hits)
        show(hits)
        while _size(out) > SEARCH_BUDGET and len(hits) > 1:  # the estimate was short: end the page earlier
            hits.pop()
            show(hits)
    if semantic is not None and out.hits:
        out.hits, out.semantic = _fuse(semantic, query, filters, out.hits)
    return out


def _exact_hits(
    store: SessionsStore,
    terms: list[tuple[str, ...]],
    literals: dict[tuple[str, ...], re.Pattern[str]],
    any_word: bool,
    filters: Filters,
    wanted: int,
    offset: int,
) -> tuple[list[tuple[int, MessageMatch]], int | None]:
    """Up to `wanted` exact matches from candidate position `offset` on, and where to resume when the
    scan stopped at its cap before finding them all (else None)."""
    expression, exact = _expression(terms, any_word), _matcher(terms, any_word, literals)
    found: list[tuple[int, MessageMatch]] = []
    position = offset
    batch = max(wanted * 2, 50)
    while len(found) < wanted:
        if position - offset >= _MAX_SCANNED:
            return found, position
        candidates = store.search(expression, filters, limit=batch, offset=position)
        for i, hit in enumerate(candidates):
            if exact(hit.message.text):
                found.append((position + i, hit))
                if len(found) == wanted:
                    break
        if len(candidates) < batch:
            break
        position += batch
        batch = min(batch * 2, 1000)
    return found, None


def _hit(m: MessageRow, snippet: str, row) -> SearchHit:
    return SearchHit(
        session_id=m.session_id,
        source=row.source,
        title=summary(row).title,
        line=m.line,
        role=m.role,
        kind=m.kind,
        ts=m.ts,
        snippet=snippet[:_SNIPPET],
    )


def _fit(out: SearchOutput, hits: list[tuple[int, SearchHit]]) -> list[tuple[int, SearchHit]]:
    """The hits that fit in 8 KB: snippets and titles shortened, then as many as fit, at least one."""
    for _, h in hits:
        h.snippet = _cut(h.snippet, _TIGHT_SNIPPET)
        h.title = _cut(h.title, _TIGHT_TITLE) if h.title else h.title
    # room for the cursor and `truncated` the shortened page will carry
    budget = SEARCH_BUDGET - len(',"next_cursor":"0000000000"')
    sizes = [len(h.model_dump_json().encode()) + 1 for _, h in hits]
    total = _size(out.model_copy(update={"hits": []}))
    kept = 0
    for size in sizes:
        if total + size > budget and kept >= 1:
            break
        total += size
        kept += 1
    return hits[:kept]


def _fuse(
    semantic: SemanticRanker, query: str, filters: Filters, hits: list[SearchHit]
) -> tuple[list[SearchHit], SemanticStatus]:
    """Reorder one page by reciprocal rank fusion with the sessions' embedding ranks."""
    try:
        nearest = semantic(query, filters, 200)
    except Exception as exc:  # report once; the lexical hits stand
        return hits, SemanticStatus(used=False, reason=f"semantic search failed: {type(exc).__name__}: {exc}"[:300])
    near_rank = {near.session_id: rank for rank, near in enumerate(nearest, 1)}
    fused = {
        id(h): 1 / (_RRF_K + i) + (1 / (_RRF_K + near_rank[h.session_id]) if h.session_id in near_rank else 0)
        for i, h in enumerate(hits, 1)
    }
    return sorted(hits, key=lambda h: -fused[id(h)]), SemanticStatus(used=True)


def _size(out: SearchOutput) -> int:
    return len(json.dumps(out.model_dump(mode="json"), ensure_ascii=False).encode("utf-8"))


def _cut(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - 1] + "…"
