"""`knowledge audit`: a skeptic reads each stored claim beside the source it cites and tries to refute it.

Verdicts are `supported`, `refuted` or `unclear`; unclear is a verdict of its own, because forcing
a yes or no on thin evidence either deletes good knowledge or keeps bad. Refuted claims leave the
document and its Markdown and are recorded with the reason; unclear ones stay, marked uncertain.
Claims whose cited files changed since their check go first. This judges claims; it proves nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel.clock import iso_utc
from kernel.errors import PalliumError
from services.knowledge.freshness import current, is_stale
from services.knowledge.ledger import TIMEOUT_SECONDS, Ledger, attempt
from services.knowledge.prose import rerender
from services.knowledge.rows import ClaimRow, DroppedRow
from services.knowledge.store import KnowledgeStore

if TYPE_CHECKING:
    from kernel.context import ToolContext
    from services.knowledge.models import AuditInput, AuditOutput

__all__ = ["VERDICT_SCHEMA", "audit", "cited_source"]

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"enum": ["supported", "refuted", "unclear"]},
        "reason": {"type": "string", "minLength": 1, "maxLength": 800},
    },
    "required": ["verdict", "reason"],
}
PER_CITATION = 4000
PER_CLAIM = 12000


def cited_source(root: Path, claim: ClaimRow) -> str:
    """The text of everything the claim cites, as it is in the tree now, bounded per citation and in all."""
    parts = []
    for c in claim.citations:
        try:
            lines = (root / c.path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            parts.append(f"--- {c.path}: (the file is gone)")
            continue
        start, end = (c.start_line or 1), (c.end_line or min(len(lines), 120))
        body = "\n".join(f"{n:>5}  {lines[n - 1]}" for n in range(start, min(end, len(lines)) + 1))
        label = f"{c.path}:{start}-{end}" + (f" ({c.symbol})" if c.symbol else "")
        parts.append(f"--- {label}\n{body[:PER_CITATION]}")
    return "\n".join(parts)[:PER_CLAIM]


async def audit(inp: AuditInput, ctx: ToolContext) -> AuditOutput:
    from services.knowledge.models import AuditOutput

    root = ctx.repo_root(inp.repo)
    store = ctx.store(KnowledgeStore, root)
    claims = store.claims()
    if inp.slug:
        claims = [c for c in claims if c.slug == inp.slug]
    here = current(store, root, claims)
    order = {"unaudited": 1, "uncertain": 2, "supported": 3}
    queue = sorted(claims, key=lambda c: (0 if is_stale(c, here.now) else order.get(c.audit, 4), c.checked_at, c.id))
    out = AuditOutput(repo=str(root), audited=0, supported=0, refuted=0, unclear=0, attempts=0, removed=[])
    ledger = Ledger(ctx, str(root))
    touched: dict[str, str] = {}
    for claim in queue[: inp.limit]:
        prompt = _prompt(claim, cited_source(root, claim))
        try:
            result = await attempt(ledger, lambda prompt=prompt: _request(prompt, root, inp.provider), "audit")
        except PalliumError as exc:
            if exc.code in ("budget_exhausted", "unavailable", "conflict"):
                out.stopped = exc.message
                break
            raise
        out.attempts += 1
        if not result.ok or not isinstance(result.output, dict):
            out.stopped = f"the skeptic failed: {result.failure.error_class if result.failure else 'no verdict'}"
            if result.failure is not None and result.failure.error_class in ("auth", "quota", "not_configured"):
                break
            continue
        verdict, reason = result.output["verdict"], " ".join(str(result.output["reason"]).split())
        now = iso_utc(ctx.clock.now())
        out.audited += 1
        if verdict == "refuted":
            with store.db.transaction():
                store.remove_claim(claim.id)
                store.add_dropped([DroppedRow(claim.slug, claim.text, "refuted", reason, now)])
            out.refuted += 1
            out.removed.append({"slug": claim.slug, "text": claim.text, "reason": reason})
        else:
            store.set_audit(claim.id, "supported" if verdict == "supported" else "uncertain", reason)
            out.supported += verdict == "supported"
            out.unclear += verdict == "unclear"
        touched[claim.slug] = now
    for slug, now in touched.items():
        doc = store.doc(slug)
        if doc is not None:
            dropped = [d for d in store.dropped(slug) if d.outcome == "unresolved"]
            reason = f"{len(dropped)} claim(s) dropped: unresolved citations" if dropped else None
            rerender(store, root, doc, reason=reason, now=now)
    return out


def _prompt(claim: ClaimRow, source: str) -> str:
    return (
        "You are a skeptical reviewer. Below is one claim about a repository and the source it cites. Try to "
        "refute it from that source alone. Answer `refuted` when the source contradicts the claim, `supported` "
        "only when the source clearly shows it, and `unclear` when the source is not enough to tell. Answer "
        'only JSON: {"verdict": "supported" | "refuted" | "unclear", "reason": "..."}\n\n'
        f"Claim: {claim.text}\n\nCited source:\n{source}\n"
    )


def _request(prompt: str, root: Path, provider: str | None):  # a ProviderRequest
    from kernel.providers.contract import ProviderRequest

    return ProviderRequest(
        prompt=prompt,
        cwd=root,
        mode="read-only",
        provider=provider,
        schema=VERDICT_SCHEMA,
        timeout=TIMEOUT_SECONDS,
        label="knowledge-audit",
    )
