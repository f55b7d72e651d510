"""`knowledge maintain`: keep the base fresh under the model budget, supervised by the user's scheduler.

A step compares the tree with the last one it saw. After 10 seconds without a change it refreshes
structure (a `--no-model` build, no model cost); after 60 it queues generation: modules whose
claims went stale get new prose first, then modules with none, then unaudited claims meet the
skeptic, every attempt through the global ledger. Time is the kernel clock's: tests step it.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path

from kernel import git
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.knowledge.freshness import current, is_stale
from services.knowledge.ledger import ATTEMPTS_PER_DAY, TIMEOUT_SECONDS, WINDOW_SECONDS
from services.knowledge.models import MaintainStatus, MaintainStep
from services.knowledge.store import KnowledgeStore, LedgerStore

__all__ = ["GENERATE_AFTER", "REFRESH_AFTER", "set_state", "status", "step"]

REFRESH_AFTER = 10.0
GENERATE_AFTER = 60.0


def _ledger(ctx: ToolContext) -> LedgerStore:
    return ctx.store(LedgerStore)


def set_state(
    ctx: ToolContext, root: Path, *, enabled: bool | None = None, paused: bool | None = None, reason: str | None = None
) -> MaintainStatus:
    ledger = _ledger(ctx)
    row = ledger.upkeep(str(root))
    ledger.set_upkeep(
        str(root),
        enabled=row.enabled if enabled is None and row else bool(enabled),
        paused=row.paused if paused is None and row else bool(paused),
        reason=reason if paused else None,
        now=iso_utc(ctx.clock.now()),
    )
    return status(ctx, root)


def status(ctx: ToolContext, root: Path) -> MaintainStatus:
    ledger = _ledger(ctx)
    row = ledger.upkeep(str(root))
    now = ctx.clock.now().timestamp()
    window = ledger.attempts_since(now - WINDOW_SECONDS)
    active = [a for a in window if a.ended_at is None and a.started_at > now - TIMEOUT_SECONDS - 60]
    state = ctx.store(KnowledgeStore, root).state()
    stale = 0
    if "built_at" in state:
        store = ctx.store(KnowledgeStore, root)
        claims = store.claims()
        here = current(store, root, claims)
        stale = sum(is_stale(c, here.now) for c in claims)
    full = len(window) >= ATTEMPTS_PER_DAY
    return MaintainStatus(
        repo=str(root),
        enabled=bool(row and row.enabled),
        paused=bool(row and row.paused),
        pause_reason=row.pause_reason if row else None,
        attempts_24h=len(window),
        attempt_limit=ATTEMPTS_PER_DAY,
        active_attempts=len(active),
        failed_24h=sum(a.outcome == "failed" for a in window),
        next_free_at=_iso(window[0].started_at + WINDOW_SECONDS) if full and window else None,
        changed_at=_iso_key(state, "maintain.changed_at"),
        structure_at=_iso_key(state, "maintain.structure_at"),
        generation_at=_iso_key(state, "maintain.generation_at"),
        stale_claims=stale,
    )


async def step(ctx: ToolContext, root: Path, *, max_modules: int, provider: str | None) -> MaintainStep:
    """One supervision step for `root`: note changes, refresh structure when quiet, generate when quieter."""
    store = ctx.store(KnowledgeStore, root)
    now = ctx.clock.now().timestamp()
    fingerprint = await asyncio.to_thread(_fingerprint, root)
    state = store.state()
    if state.get("maintain.fingerprint") != fingerprint:
        store.set_state({"maintain.fingerprint": fingerprint, "maintain.changed_at": str(now)})
        state = store.state()
    quiet = now - float(state["maintain.changed_at"])
    out = MaintainStep(repo=str(root), actions=[], quiet_seconds=round(quiet, 1), waiting=None, notes=[])
    if state.get("maintain.structure_for") != fingerprint:
        if quiet < REFRESH_AFTER:
            out.waiting = f"structure refresh after {REFRESH_AFTER:g}s without changes"
            return out
        await ctx.call("pallium_knowledge_build", {"repo": str(root), "model": False})
        store.set_state({"maintain.structure_for": fingerprint, "maintain.structure_at": str(now)})
        out.actions.append("structure")
    if state.get("maintain.generated_for") == fingerprint:
        out.waiting = "a change in the tree"
        return out
    if quiet < GENERATE_AFTER:
        out.waiting = f"generation after {GENERATE_AFTER:g}s without changes"
        return out
    row = _ledger(ctx).upkeep(str(root))
    if row is None or not row.enabled:
        out.waiting = "`pallium knowledge maintain enable` (model work is opt-in per repository)"
        return out
    if row.paused:
        out.waiting = f"`pallium knowledge maintain resume` (paused: {row.pause_reason or 'by hand'})"
        return out
    await _generate(ctx, root, store, out, max_modules=max_modules, provider=provider)
    store.set_state({"maintain.generated_for": fingerprint, "maintain.generation_at": str(now)})
    return out


async def _generate(
    ctx: ToolContext, root: Path, store: KnowledgeStore, out: MaintainStep, *, max_modules: int, provider: str | None
) -> None:
    claims = store.claims()
    here = current(store, root, claims)
    stale_slugs = sorted({c.slug for c in claims if is_stale(c, here.now)})
    with_claims = {c.slug for c in claims}
    # Modules without prose, the most depended-on first (as `knowledge build` picks them).
    missing = [
        d.slug
        for d in sorted(
            store.docs(kind="module"),
            key=lambda d: (
                -sum(e["imports"] for e in d.data.get("used_by", [])) - len(d.data.get("files", [])),
                d.slug,
            ),
        )
        if d.slug not in with_claims and not d.data.get("is_tests")
    ]
    chosen = (stale_slugs + missing)[: max(max_modules, len(stale_slugs))]
    try:
        if chosen:
            built = await ctx.call(
                "pallium_knowledge_build",
                {"repo": str(root), "model": True, "modules": chosen, "max_modules": len(chosen), "provider": provider},
            )
            out.actions.append("generation")
            out.notes += [f"prose for {len(chosen)} module(s), stale first: {', '.join(chosen)}", *built.rejected]
        if any(c.audit == "unaudited" for c in store.claims()):
            audited = await ctx.call("pallium_knowledge_audit", {"repo": str(root), "limit": 10, "provider": provider})
            out.actions.append("audit")
            if audited.stopped:
                out.notes.append(audited.stopped)
    except PalliumError as exc:
        out.notes.append(f"{exc.code}: {exc.message}")


def _fingerprint(root: Path) -> str:
    """HEAD and each changed path with its size and mtime: what the supervisor compares between steps."""
    st = git.status(root, untracked=True)
    parts = [st.head or ""]
    for entry in sorted(st.entries, key=lambda e: e.path):
        if entry.path.startswith(".pallium/"):
            continue
        try:
            info = (root / entry.path).lstat()
            parts.append(f"{entry.path}:{info.st_size}:{info.st_mtime_ns}")
        except OSError:
            parts.append(f"{entry.path}:gone")
    return json.dumps(parts)


def _iso(epoch: float) -> str:
    return iso_utc(datetime.fromtimestamp(epoch, UTC))


def _iso_key(state: dict[str, str], key: str) -> str | None:
    return _iso(float(state[key])) if key in state else None
