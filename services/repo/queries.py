"""Lookups over the content half: a file's symbols, symbol search, decision notes, and the cursors
every paged answer uses. The callers of a name are `callers`."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from kernel import clock, paths
from kernel.errors import PalliumError
from services.repo.models import (
    Decision,
    DecisionsOutput,
    Freshness,
    SearchHit,
    SearchOutput,
    Symbol,
    SymbolsOutput,
)
from services.repo.rows import FileRow, SearchCandidate, SymbolRow
from services.repo.store import RepoStore
from services.repo.text import fts_query, query_words, split_terms

__all__ = ["decisions", "decode_cursor", "encode_cursor", "indexed_file", "search", "symbols", "to_symbol"]

SEARCH_BUDGET = 8 * 1024
_RERANK_WINDOW = 200


def indexed_file(store: RepoStore, root: Path, user_path: str, cwd: Path) -> tuple[str, FileRow]:
    """Confine `user_path` to the repository and find it in the index, or say precisely why not."""
    resolved = paths.confine(root, user_path, base=cwd)
    relative = paths.path_text(paths.relative_to_repo(root, resolved))  # real bytes of an odd name find it too
    row = store.file(relative)
    if row is not None:
        return relative, row
    if resolved.is_dir():
        raise PalliumError(
            "invalid_input",
            f"{relative!r} is a folder, not a file",
            hint="pass one file as `path` (the CLI's positional PATH); list a folder's files with `git ls-files`",
            details={"field": "path", "path": relative},
        )
    if not resolved.exists():
        raise PalliumError(
            "not_found",
            f"file {relative!r} does not exist",
            hint="pass `path` relative to the current folder or the repository root; list files with `git ls-files`",
            details={"field": "path", "path": relative},
        )
    raise PalliumError(
        "not_found",
        f"file {relative!r} is not in the index (untracked, ignored, or added after the last index)",
        hint="`git add` it (`git status` lists untracked files), then ask again with --refresh (or `pallium index`); "
        "untracked files need `pallium index --untracked`",
        details={"field": "path", "path": relative},
    )


def to_symbol(row: SymbolRow) -> Symbol:
    return Symbol(
        name=row.name,
        kind=row.kind,
        qualified=row.qualified,
        signature=row.signature,
        start_line=row.start_line,
        end_line=row.end_line,
        doc=row.doc,
        parent=row.parent,
        decorators=row.decorators.split("\n") if row.decorators else [],
        overload=any(
            d.lstrip("@").split("(", 1)[0].rsplit(".", 1)[-1] == "overload" for d in row.decorators.split("\n")
        ),
    )


def file_status(store: RepoStore, row: FileRow) -> str:
    if row.skip_reason:
        return f"skipped:{row.skip_reason}"
    info = store.content_info(row.hash) if row.hash else None
    return info.status if info else "unparsed"


def symbols(
    store: RepoStore, relative: str, row: FileRow, *, limit: int, freshness: Freshness, cursor: str | None = None
) -> SymbolsOutput:
    found = store.symbols_in(relative)
    offset = decode_cursor(cursor)
    more = len(found) > offset + limit
    return SymbolsOutput(
        path=relative,
        language=row.language,
        status=file_status(store, row),
        symbols=[to_symbol(s) for s in found[offset : offset + limit]],
        truncated=more,
        next_cursor=encode_cursor(offset + limit) if more else None,
        freshness=freshness,
    )


def search(
    store: RepoStore, query: str, *, limit: int, cursor: str | None, freshness: Freshness, root: Path | None = None
) -> SearchOutput:
    """Definitions ranked by BM25 and reranked (see below), and the strings registration calls register
    (`add_option("max_conns")`, `@app.route("/x")`), whose hit is the registering line."""
    match = fts_query(query)
    if match is None:
        raise PalliumError(
            "invalid_input",
            "the query holds no word to search for",
            hint="pass `query` with at least one letter or digit (the CLI's positional QUERY)",
            details={"field": "query"},
        )
    offset = decode_cursor(cursor)
    words = query_words(query)
    # BM25 alone lets one frequent word outrank a symbol that has every word; rerank the best
    # candidates by how many query words their name and path hold, then by BM25.
    window = max(_RERANK_WINDOW, offset + limit + 1)
    candidates = store.search_candidates(match, limit=window)
    # A definition named exactly as asked comes first (same case before any case), then coverage, then BM25.
    asked = query.strip()
    if asked.isidentifier():  # an exact definition beyond BM25's window still comes first
        have = {c.symbol_id for c in candidates}
        best = min((c.score for c in candidates), default=0.0)
        for d in store.definitions(asked):
            if d.id not in have:
                candidates.append(SearchCandidate(d.id, d.path, best, f"{d.name} {d.qualified}", split_terms(d.path)))
    exact = {sid for sid, _path, _score, terms, _pt in candidates if terms.split(" ", 1)[0].lower() == asked.lower()}
    names = {sid: store.symbol(sid, path) for sid, path, *_rest in candidates if sid in exact}
    registered = _registrations(store, query, window, min((c.score for c in candidates), default=0.0))
    candidates += [c for c, _key, _exact in registered.values()]

    def rank(c: SearchCandidate) -> tuple[int, int, float, str, int]:
        if c.symbol_id in registered:
            closeness = 0 if registered[c.symbol_id][2] else 2
        else:
            symbol = names.get(c.symbol_id)
            closeness = 0 if symbol is not None and symbol.name == asked else 1 if symbol is not None else 2
        return (closeness, -_coverage(words, c.terms + " " + c.path_terms), c.score, c.path, c.symbol_id)

    candidates.sort(key=rank)
    hits, size = [], 0
    shown = float("inf")
    lines: dict[str, list[str]] = {}
    for sid, path, score, terms, path_terms in candidates[offset : offset + limit]:
        if sid in registered:
            shown = min(shown, round(-score, 3))
            hit = _registration_hit(registered[sid][1], path, terms, words, path_terms, shown, root, lines)
            size += len(hit.model_dump_json())
            if hits and size > SEARCH_BUDGET - 1024:
                break
            hits.append(hit)
            continue
        symbol = store.symbol(sid, path)
        if symbol is None:
            continue
        shown = min(shown, round(-score, 3))  # the score never rises down the list: it follows the rank
        hit = SearchHit(
            path=symbol.path,
            line=symbol.start_line,
            kind=symbol.kind,
            qualified=symbol.qualified,
            signature=symbol.signature,
            doc=symbol.doc,
            matched=_why(words, terms, symbol.signature, symbol.doc or "", path_terms),
            score=shown,
        )
        size += len(hit.model_dump_json())
        if hits and size > SEARCH_BUDGET - 1024:
            break
        hits.append(hit)
    more = len(candidates) > offset + len(hits)
    return SearchOutput(
        query=query,
        results=hits,
        truncated=more,
        next_cursor=encode_cursor(offset + len(hits)) if more else None,
        freshness=freshness,
    )


def _registrations(
    store: RepoStore, query: str, limit: int, score: float
) -> dict[int, tuple[SearchCandidate, str, bool]]:
    """Registered strings whose words hold every word of the query, as candidates under ids no
    symbol has (negative), with their key and whether the key is the query in other spelling
    (`max-conns` for `max_conns`); they score as the best definition found."""
    wanted = split_terms(query).split()
    if not wanted:
        return {}
    out: dict[int, tuple[SearchCandidate, str, bool]] = {}
    for key, path, line in store.registrations_like(max(wanted, key=len), limit=limit * 4):
        terms = split_terms(key)
        tokens = terms.split()
        if not all(any(t.startswith(w) for t in tokens) for w in wanted):
            continue
        sid = -(len(out) + 1)
        # the line rides in `terms`' slot after the key's words, for the hit to name it
        out[sid] = (SearchCandidate(sid, path, score, f"{terms}\0{line}", split_terms(path)), key, tokens == wanted)
        if len(out) >= limit:
            break
    return out


def _registration_hit(
    key: str,
    path: str,
    terms: str,
    words: list[str],
    path_terms: str,
    score: float,
    root: Path | None,
    lines: dict[str, list[str]],
) -> SearchHit:
    """A registered string as a hit: where it is registered, and the registering line as its signature."""
    key_terms, _, line_text = terms.partition("\0")
    line = int(line_text)
    if root is not None and path not in lines:
        try:
            lines[path] = (root / path).read_text("utf-8", "replace").splitlines()
        except OSError:
            lines[path] = []
    source = lines.get(path, [])
    signature = source[line - 1].strip()[:200] if 0 < line <= len(source) else key
    found = [w for w in words if any(t.startswith(w) for t in key_terms.split())]
    where = [w for w in words if any(t.startswith(w) for t in path_terms.split())]
    matched = "; ".join(
        p
        for p in (f"registration: {', '.join(found)}" if found else "", f"path: {', '.join(where)}" if where else "")
        if p
    )
    return SearchHit(
        path=path,
        line=line,
        kind="registration",
        qualified=key,
        signature=signature,
        doc=None,
        matched=matched or "registration",
        score=score,
    )


def _coverage(words: list[str], text: str) -> int:
    tokens = text.lower().split()
    return sum(1 for w in words if any(t.startswith(w) for t in tokens))


def _why(words: list[str], name: str, signature: str, doc: str, path: str) -> str:
    """Which query words matched where: `name: parse, config; path: config`."""
    parts = []
    for label, text in (
        ("name", name),
        ("signature", split_terms(signature)),
        ("doc", split_terms(doc)),
        ("path", path),
    ):
        tokens = text.lower().split()
        found = [w for w in words if any(t.startswith(w) for t in tokens)]
        if found:
            parts.append(f"{label}: {', '.join(found)}")
    return "; ".join(parts)[:200] or "prefix match"


def decisions(store: RepoStore, query: str, *, limit: int, cursor: str | None, freshness: Freshness) -> DecisionsOutput:
    match = fts_query(query)
    if match is None:
        raise PalliumError(
            "invalid_input",
            "the query holds no word to search for",
            hint="pass `query` with at least one letter or digit (the CLI's positional QUERY)",
            details={"field": "query"},
        )
    offset = decode_cursor(cursor)
    rows = store.search_decisions(match, limit=limit + 1, offset=offset)
    notes = [
        Decision(sha=r.sha, committed_at=_iso(r.committed_at), subject=r.subject, body=r.body[:600])
        for r in rows[:limit]
    ]
    more = len(rows) > limit
    return DecisionsOutput(
        query=query,
        decisions=notes,
        truncated=more,
        next_cursor=encode_cursor(offset + limit) if more else None,
        freshness=freshness,
    )


def _iso(epoch: int) -> str:
    from datetime import UTC, datetime

    return clock.iso_utc(datetime.fromtimestamp(epoch, UTC))


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        offset = json.loads(base64.urlsafe_b64decode(padded))["o"]
        if isinstance(offset, int) and offset >= 0:
            return offset
    except (ValueError, KeyError, TypeError):
        pass
    raise PalliumError(
        "invalid_input",
        "cursor is not one this tool returned",
        hint="pass the `next_cursor` of the previous page as `cursor` (CLI `--cursor`), or leave it out to start over",
        details={"field": "cursor"},
    )
