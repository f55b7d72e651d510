"""Model prose for module documents: claims in a fixed JSON schema, every citation checked before storage.

The model never writes Markdown. It answers `{"claims": [{"text", "citations": [{"path", "symbol"?,
"lines"?}]}]}` for one module; each citation is checked against the facts the base was built from
(the path is a described file, the symbol is defined in that path, the lines lie in the file and
overlap the symbol). A claim with an unresolved citation, or none, is dropped and listed, and the
document is marked unverified. A kept citation stores the blob it was checked against. When the
tree changed while the model worked, the whole candidate is rejected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel import git
from kernel.clock import iso_utc
from kernel.errors import PalliumError
from services.knowledge import documents
from services.knowledge.ledger import TIMEOUT_SECONDS, Ledger, attempt
from services.knowledge.materialize import materialize_one
from services.knowledge.rows import CitationRow, DocRow, DroppedRow, NewClaim
from services.knowledge.store import KnowledgeStore

if TYPE_CHECKING:
    from kernel.context import ToolContext
    from services.knowledge.build import Built
    from services.knowledge.models import BuildInput, BuildOutput

__all__ = ["CLAIMS_SCHEMA", "Index", "add_prose", "check_citation", "rerender"]

CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "maxItems": 12,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "minLength": 1, "maxLength": 600},
                    "citations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "path": {"type": "string"},
                                "symbol": {"type": "string"},
                                "lines": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
                            },
                            "required": ["path"],
                        },
                    },
                },
                "required": ["text", "citations"],
            },
        }
    },
    "required": ["claims"],
}


@dataclass(frozen=True)
class Index:
    """What a citation is checked against: described files, their blobs and lengths, and their symbols."""

    blobs: dict[str, str | None]
    lines: dict[str, int]
    symbols: dict[str, list[tuple[str, str, int, int]]]  # path -> (name, qualified, start, end)

    @classmethod
    def from_facts(cls, facts: dict[str, Any], described: set[str]) -> Index:
        symbols: dict[str, list[tuple[str, str, int, int]]] = {}
        for s in facts["symbols"]:
            if s["path"] in described:
                symbols.setdefault(s["path"], []).append((s["name"], s["qualified"], s["start_line"], s["end_line"]))
        files = [f for f in facts["files"] if f["path"] in described]
        return cls({f["path"]: f["blob"] for f in files}, {f["path"]: f["lines"] for f in files}, symbols)


def check_citation(index: Index, citation: dict[str, Any]) -> tuple[CitationRow | None, str | None]:
    """The checked citation, or why it does not resolve."""
    path = str(citation.get("path", "")).strip().removeprefix("./")
    if path not in index.blobs or index.blobs[path] is None:
        return None, f"{path!r} is not a file of the index"
    symbol = citation.get("symbol")
    span: tuple[int, int] | None = None
    if symbol:
        matches = [(a, b) for name, qualified, a, b in index.symbols.get(path, []) if symbol in (name, qualified)]
        if not matches:
            return None, f"{symbol!r} is not defined in {path}"
        span = (min(a for a, _ in matches), max(b for _, b in matches))
    lines = citation.get("lines") or []
    start = end = None
    if lines:
        start, end = int(lines[0]), int(lines[-1])
        if start < 1 or end < start or end > index.lines.get(path, 0):
            return None, f"lines {start}-{end} are outside {path} ({index.lines.get(path, 0)} lines)"
        if span is not None and (end < span[0] or start > span[1]):
            return None, f"lines {start}-{end} do not overlap {symbol} ({span[0]}-{span[1]}) in {path}"
    elif span is not None:
        start, end = span
    return CitationRow(path, symbol or None, start, end, index.blobs[path] or ""), None


async def add_prose(ctx: ToolContext, built: Built, inp: BuildInput, out: BuildOutput) -> None:
    root = built.facts.root
    store = ctx.store(KnowledgeStore, root)
    described = {p for m in built.facts.modules for p in m.files}
    index = Index.from_facts(built.facts.facts, described)
    ledger = Ledger(ctx, str(root))
    try:
        ledger.check_not_paused()
    except PalliumError as exc:
        out.rejected.append(exc.message)
        return
    chosen = sorted(
        (m for m in built.facts.modules if not m.is_tests and (not inp.modules or m.slug in inp.modules)),
        key=lambda m: (-sum(e["imports"] for e in m.used_by) - len(m.files), m.path),
    )[: inp.max_modules]
    for number, module in enumerate(chosen):
        await ctx.progress.update(number, len(chosen), f"model prose for {module.path or '.'}")
        doc = store.doc(module.slug)
        if doc is None:
            continue
        before = _tree_state(root)
        prompt = _prompt(doc)
        try:
            result = await attempt(
                ledger,
                lambda prompt=prompt: _request(prompt, root, inp.provider),
                f"prose:{module.slug}",
            )
        except PalliumError as exc:
            if exc.code in ("budget_exhausted", "unavailable", "conflict"):
                out.rejected.append(f"{module.slug}: {exc.message}")
                break
            raise
        out.model_attempts += 1
        out.model_modules += 1
        now = iso_utc(ctx.clock.now())
        if not result.ok or result.failure is not None:
            failure = result.failure
            out.rejected.append(f"{module.slug}: {failure.error_class if failure else 'failed'}")
            if failure is not None and failure.error_class in ("auth", "quota", "not_configured"):
                break
            continue
        if _tree_state(root) != before:
            store.add_dropped(
                [
                    DroppedRow(
                        module.slug, "(the whole candidate)", "rejected", "the tree changed while the model worked", now
                    )
                ]
            )
            out.rejected.append(f"{module.slug}: the tree changed while the model worked")
            continue
        kept, dropped = _checked_claims(index, result.output, module.slug, now)
        out.claims_kept += len(kept)
        out.claims_dropped += len(dropped)
        _store_claims(store, root, doc, kept, dropped, now)


def _checked_claims(index: Index, output: Any, slug: str, now: str) -> tuple[list[NewClaim], list[DroppedRow]]:
    kept: list[NewClaim] = []
    dropped: list[DroppedRow] = []
    for claim in (output or {}).get("claims", []):
        text = " ".join(str(claim.get("text", "")).split())
        citations = claim.get("citations") or []
        if not citations:
            dropped.append(DroppedRow(slug, text, "unresolved", "the claim cites nothing", now))
            continue
        rows, problems = [], []
        for citation in citations:
            row, problem = check_citation(index, citation)
            if row is None:
                problems.append(problem or "unresolved")
            else:
                rows.append(row)
        if problems:
            dropped.append(DroppedRow(slug, text, "unresolved", "; ".join(problems), now))
        else:
            kept.append(NewClaim("Purpose", text, rows))
    return kept, dropped


def _store_claims(
    store: KnowledgeStore, root: Path, doc: DocRow, kept: list[NewClaim], dropped: list[DroppedRow], now: str
) -> None:
    with store.db.transaction():
        store.replace_claims(doc.slug, kept, now=now)
        store.clear_dropped(doc.slug, "unresolved")
        store.add_dropped(dropped)
        reason = f"{len(dropped)} claim(s) dropped: unresolved citations" if dropped else None
        if not kept and not dropped:
            reason = "the model gave no claims"
        rerender(store, root, doc, reason=reason, now=now)


def rerender(store: KnowledgeStore, root: Path, doc: DocRow, *, reason: str | None, now: str) -> None:
    """Render `doc` again with its current claims, store it (the old one kept as a revision), write its file."""
    claims = store.claims(doc.slug)
    markdown = documents.module_markdown(doc.data, claims, purpose=doc.data["purpose"], built_commit=doc.built_commit)
    updated = DocRow(
        doc.slug,
        doc.kind,
        doc.title,
        doc.module_path,
        doc.data,
        markdown,
        doc.built_commit,
        doc.built_at,
        False,
        reason,
    )
    store.put_doc(updated, fields=documents.module_fields(doc.data, claims), now=now)
    materialize_one(root, doc.slug, markdown)


def _prompt(doc: DocRow) -> str:
    data = doc.data
    surface = "\n".join(
        f"- {s['name']} ({s['kind']}) in {s['path']} lines {s['line']}-{s['end_line']}: {s.get('doc') or ''}"
        for s in data["surface"][:20]
    )
    return (
        "You are documenting one module of a repository for a newcomer. Read its files (read only) and say, in "
        "at most 8 short claims, why the module exists and what it is responsible for. Every claim must cite "
        "the source that shows it: a path from the list below, and where you can a symbol defined in that "
        "path and the line range. Claims whose citations do not resolve are deleted. Answer only JSON: "
        '{"claims": [{"text": "...", "citations": [{"path": "...", "symbol": "...", "lines": [start, end]}]}]}\n\n'
        f"Module: {data['path']}\nFiles:\n"
        + "\n".join(f"- {p}" for p in data["files"][:80])
        + f"\nMost used names:\n{surface}\nDepends on: "
        + ", ".join(e["path"] for e in data["depends_on"][:10])
        + "\nUsed by: "
        + ", ".join(e["path"] for e in data["used_by"][:10])
        + "\n"
    )


def _request(prompt: str, root: Path, provider: str | None):  # a ProviderRequest
    from kernel.providers.contract import ProviderRequest

    return ProviderRequest(
        prompt=prompt,
        cwd=root,
        mode="read-only",
        provider=provider,
        schema=CLAIMS_SCHEMA,
        timeout=TIMEOUT_SECONDS,
        label="knowledge",
    )


def _tree_state(root: Path) -> str:
    """HEAD plus every changed path with its size and mtime: equal before and after when nothing moved."""
    status = git.status(root, untracked=True)
    parts = [status.head or ""]
    for entry in sorted(status.entries, key=lambda e: e.path):
        try:
            info = (root / entry.path).lstat()
            parts.append(f"{entry.path}:{entry.kind}:{info.st_size}:{info.st_mtime_ns}")
        except OSError:
            parts.append(f"{entry.path}:{entry.kind}:gone")
    return json.dumps(parts)
