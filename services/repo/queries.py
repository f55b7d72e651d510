"""Lookups over the content half: a file's symbols, the callers of a name, symbol search, decision notes.

Callers are resolved per referencing file: a definition in the same file wins, then one the file
imports (through the resolved import edges; among several, the one an import names), then the
only definition there is; otherwise the reference is `ambiguous` and says so rather than guessing.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from kernel import clock, paths
from kernel.errors import PalliumError
from services.repo.models import (
    CallersOutput,
    Decision,
    DecisionsOutput,
    Definition,
    Freshness,
    Reference,
    SearchHit,
    SearchOutput,
    Symbol,
    SymbolsOutput,
)
from services.repo.store import FileRow, RepoStore, SymbolRow
from services.repo.text import fts_query, query_words, split_terms

__all__ = ["callers", "decisions", "decode_cursor", "encode_cursor", "indexed_file", "search", "symbols", "to_symbol"]

SEARCH_BUDGET = 8 * 1024
CALLERS_BUDGET = 8 * 1024
_ENVELOPE = 1024  # room kept for the name, counts, cursor and freshness around the lists
_MAX_DEFINITIONS = 50
_RERANK_WINDOW = 200
_REEXPORT_HOPS = 3


def indexed_file(store: RepoStore, root: Path, user_path: str, cwd: Path) -> tuple[str, FileRow]:
    """Confine `user_path` to the repository and find it in the index, or say precisely why not."""
    resolved = paths.confine(root, user_path, base=cwd)
    relative = paths.path_text(paths.relative_to_repo(root, resolved))  # real bytes of an odd name find it too
    row = store.file(relative)
    if row is not None:
        return relative, row
    if resolved.is_dir():
        raise PalliumError(
            "invalid_input", f"{relative!r} is a folder, not a file", details={"field": "path", "path": relative}
        )
    if not resolved.exists():
        raise PalliumError(
            "not_found", f"file {relative!r} does not exist", details={"field": "path", "path": relative}
        )
    raise PalliumError(
        "not_found",
        f"file {relative!r} is not in the index (untracked, ignored, or added after the last index)",
        hint="`git add` it, then ask again with --refresh (or run `pallium index`); "
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
    )


def file_status(store: RepoStore, row: FileRow) -> str:
    if row.skip_reason:
        return f"skipped:{row.skip_reason}"
    info = store.content_info(row.hash) if row.hash else None
    return info[1] if info else "unparsed"


def symbols(store: RepoStore, relative: str, row: FileRow, *, limit: int, freshness: Freshness) -> SymbolsOutput:
    found = store.symbols_in(relative)
    return SymbolsOutput(
        path=relative,
        language=row.language,
        status=file_status(store, row),
        symbols=[to_symbol(s) for s in found[:limit]],
        truncated=len(found) > limit,
        freshness=freshness,
    )


def callers(store: RepoStore, name: str, *, limit: int, cursor: str | None, freshness: Freshness) -> CallersOutput:
    name = name.strip()
    if not name:
        raise PalliumError("invalid_input", "name must not be empty", details={"field": "name"})
    owner, _, member = name.rpartition(".")
    every = store.definitions(member)
    defs = [d for d in every if d.qualified == name or d.qualified.endswith("." + name)] if owner else every
    # Resolve against every same-named definition, so an import of another `load` is not taken
    # for `Store.load`; then keep what may reach the asked one.
    all_paths = sorted({d.path for d in every})
    wanted = {d.path for d in defs}
    imports_cache: dict[str, list[tuple[str, str]]] = {}
    offset = decode_cursor(cursor)

    def reference(path: str, line: int, enclosing: str | None) -> Reference:
        resolution, target = _resolve(store, path, member, all_paths, imports_cache)
        return Reference(path=path, line=line, enclosing=enclosing, resolution=resolution, target=target)

    if owner:  # filtering needs every reference resolved
        refs = [reference(*r) for r in store.references(member)]
        refs = [r for r in refs if r.target in wanted or (r.resolution == "ambiguous" and wanted)]
        total, page = len(refs), refs[offset : offset + limit]
    else:  # only the page is read and resolved, so a name used 100,000 times stays cheap
        total = store.reference_count(member)
        page = [reference(*r) for r in store.references(member, limit=limit, offset=offset)]
    definitions, page = _fit_callers(defs, page)
    more = offset + len(page) < total
    return CallersOutput(
        name=name,
        definitions=definitions,
        definition_count=len(defs),
        references=page,
        total=total,
        truncated=more,
        next_cursor=encode_cursor(offset + len(page)) if more else None,
        freshness=freshness,
    )


def _fit_callers(defs: list[SymbolRow], page: list[Reference]) -> tuple[list[Definition], list[Reference]]:
    """Cut definitions to half the byte budget and the page to the rest, keeping at least one of each.

    The page then ends early and the cursor continues after its last reference, so nothing is lost.
    """
    budget = CALLERS_BUDGET - _ENVELOPE
    definitions: list[Definition] = []
    size = 0
    for d in defs[:_MAX_DEFINITIONS]:
        item = Definition(path=d.path, line=d.start_line, kind=d.kind, qualified=d.qualified, signature=d.signature)
        cost = len(item.model_dump_json()) + 1
        if definitions and size + cost > budget // 2:
            break
        definitions.append(item)
        size += cost
    kept: list[Reference] = []
    for ref in page:
        cost = len(ref.model_dump_json()) + 1
        if kept and size + cost > budget:
            break
        kept.append(ref)
        size += cost
    return definitions, kept


def _resolve(
    store: RepoStore, path: str, name: str, defining: list[str], cache: dict[str, list[tuple[str, str]]]
) -> tuple[str, str | None]:
    if not defining:
        return "unresolved", None
    if path in defining:
        return "same-file", path
    edges = _edges(store, path, cache)
    direct = {dst for dst, _names in edges}
    imported = [d for d in defining if d in direct]
    if len(imported) > 1:  # Rust `mod a; mod b; use crate::a::run;`: the import that names it decides
        named = {dst for dst, names in edges if name in names.split()}
        imported = [d for d in imported if d in named] or imported
    if not imported:  # `from pkg import run` where pkg/__init__.py re-exports run from pkg/impl.py
        reexported = _reexports(store, direct, name, cache)
        imported = [d for d in defining if d in reexported]
    if len(imported) == 1:
        return "import", imported[0]
    if len(defining) == 1:
        return "unique", defining[0]
    return "ambiguous", None


def _edges(store: RepoStore, path: str, cache: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    if path not in cache:
        cache[path] = store.import_names_of(path)
    return cache[path]


def _reexports(store: RepoStore, start: set[str], name: str, cache: dict[str, list[tuple[str, str]]]) -> set[str]:
    """Files reachable from `start` through imports that pass `name` on (by name, `*`, or whole module)."""
    seen, frontier = set(start), list(start)
    for _hop in range(_REEXPORT_HOPS):
        found = []
        for current in frontier:
            for dst, names in _edges(store, current, cache):
                words = names.split()
                if dst not in seen and (not words or name in words or "*" in words):
                    seen.add(dst)
                    found.append(dst)
        frontier = found
    return seen - start


def search(store: RepoStore, query: str, *, limit: int, cursor: str | None, freshness: Freshness) -> SearchOutput:
    match = fts_query(query)
    if match is None:
        raise PalliumError("invalid_input", "the query holds no word to search for", details={"field": "query"})
    offset = decode_cursor(cursor)
    words = query_words(query)
    # BM25 alone lets one frequent word outrank a symbol that has every word; rerank the best
    # candidates by how many query words their name and path hold, then by BM25.
    window = max(_RERANK_WINDOW, offset + limit + 1)
    candidates = store.search_candidates(match, limit=window)
    candidates.sort(key=lambda c: (-_coverage(words, c[3] + " " + c[4]), c[2], c[1]))
    hits, size = [], 0
    for sid, path, score, terms, path_terms in candidates[offset : offset + limit]:
        symbol = store.symbol(sid, path)
        if symbol is None:
            continue
        hit = SearchHit(
            path=symbol.path,
            line=symbol.start_line,
            kind=symbol.kind,
            qualified=symbol.qualified,
            signature=symbol.signature,
            doc=symbol.doc,
            matched=_why(words, terms, symbol.signature, symbol.doc or "", path_terms),
            score=round(-score, 3),
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
        raise PalliumError("invalid_input", "the query holds no word to search for", details={"field": "query"})
    offset = decode_cursor(cursor)
    rows = store.search_decisions(match, limit=limit + 1, offset=offset)
    notes = [
        Decision(sha=sha, committed_at=_iso(when), subject=subject, body=body[:600])
        for sha, when, subject, body, _score in rows[:limit]
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
    raise PalliumError("invalid_input", "cursor is not one this tool returned", details={"field": "cursor"})
