"""One tick of a loop: take the lease, close a dead tick's cycle, run a fresh child workflow, record the cycle.

The child run goes through `pallium_workflow_run`, the workflows service's front door, with a new
run id every cycle; nothing of a run is reused across ticks. Everything a tick learns is written
in the one transaction that ends its cycle (store.finish), fenced on the lease token.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from kernel import authority, threads
from kernel.authority import Authority
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.loops import lease, lifecycle, progress
from services.loops.failure_paths import RepoPaths
from services.loops.models import TickOutput
from services.loops.store import CycleEnd, CycleRow, LoopRow, LoopStore
from services.loops.verdict import Reading, budget_text, budget_verdict, read_result

__all__ = ["tick"]


async def tick(ctx: ToolContext, store: LoopStore, name: str, *, agent_timeout: float) -> TickOutput:
    row = lifecycle.require(store, name, active=True)
    reconciled = None
    if row.lease_token is not None:
        holder = lease.holder_of(row.lease_owner, row.tick_started_at, row.stale_after_minutes)
        now = ctx.clock.now()
        if holder.alive(now):
            return _not_run(
                row,
                "already_running",
                f"cycle {row.cycle} began {holder.minutes_running(now):.0f} min ago in pid {holder.owner_pid} "
                f"and is still running",
            )
        reconciled = await _close_dead_tick(ctx, store, row, holder)
        row = lifecycle.require(store, name, active=True)
        if row.lease_token is not None:  # another tick closed it first and is running now
            return _not_run(row, "already_running", f"cycle {row.cycle} is running in another tick")
    refusal = _refusal(row)
    if refusal is not None:
        return _not_run(row, refusal[0], refusal[1], reconciled=reconciled)
    token = lease.new_token()
    run_id = f"loop-{name}-{row.cycle + 1}-{secrets.token_hex(3)}"
    taken = store.take_lease(
        name,
        seen_token=None,
        seen_cycle=row.cycle,
        token=token,
        owner=lease.current_owner(),
        run_id=run_id,
        now=_now(ctx),
    )
    if taken is None:
        row = lifecycle.require(store, name, active=True)
        return _not_run(row, "already_running", f"cycle {row.cycle} was begun by another tick a moment ago")
    end: CycleEnd | None = None
    try:
        end = await _run_cycle(ctx, taken, run_id=run_id, agent_timeout=agent_timeout)
    finally:
        if end is None:  # a bug or a cancellation: the cycle still ends, as an error, and the lease is freed
            end = _error_end(taken, "the tick stopped before it finished (cancelled or an internal error)", [])
        recorded = store.finish(name, taken.cycle, token=token, end=end, now=_now(ctx))
    if not recorded:
        raise PalliumError(
            "conflict",
            f"loop {name!r}: another tick took this tick's lease over before cycle {taken.cycle} was recorded",
            hint=f"raise staleAfterMinutes if ticks run longer than {taken.stale_after_minutes:g} minutes",
            details={"name": name, "cycle": taken.cycle},
        )
    final = lifecycle.require(store, name)
    return TickOutput(
        loop=name,
        state=end.state,  # type: ignore[arg-type]  # a cycle ends in one of the tick states
        ran=True,
        cycle=taken.cycle,
        run_id=run_id,
        signature=end.signature,
        stagnation_count=final.stagnation_count,
        cost_usd=round(end.cost_usd, 6),
        unknown_cost_calls=end.unknown_cost_calls,
        lifetime_spend_usd=round(final.lifetime_spend_usd, 6),
        reason=end.reason,
        summary=end.summary,
        warnings=end.warnings + ceiling_warning(final, ctx.ceiling),
        reconciled=reconciled,
    )


def loop_ceiling(row: LoopRow, caller: Authority) -> Authority:
    """The lower of the ticking caller's ceiling and the one the loop started with."""
    started = row.ceiling
    if started not in authority.LEVELS or authority.allows(started, caller):
        return caller
    return started  # type: ignore[return-value]  # one of LEVELS, checked above


def ceiling_warning(row: LoopRow, caller: Authority) -> list[str]:
    kept = loop_ceiling(row, caller)
    if kept == caller:
        return []
    return [f"loop {row.name} keeps the authority it started with ({kept}); this tick's {caller} does not raise it"]


async def _run_cycle(ctx: ToolContext, row: LoopRow, *, run_id: str, agent_timeout: float) -> CycleEnd:
    try:
        source = lifecycle.read_script(Path(row.script_path))
    except PalliumError as exc:
        return _error_end(row, f"the script cannot be read any more: {exc.message}", [])
    warnings = lifecycle.change_warnings(
        row, current_hash=lifecycle.script_hash(source), identity=lifecycle.pallium_identity()
    )
    # The file by path, not its text as `source`: the workflows service passes a script file's args
    # through exactly as given, which is what docs/loops.md promises a loop script.
    arguments: dict[str, Any] = {
        "task": row.task or f"tick {row.cycle} of loop {row.name}",
        "script": row.script_path,
        "id": run_id,
        "repo": row.cwd,
        "agent_timeout": agent_timeout,
    }
    if row.args_json is not None:
        arguments["args"] = row.args_json
    limit = _run_budget(row)
    if limit is not None:
        arguments["max_budget_usd"] = limit
    child = ToolContext(ceiling=loop_ceiling(row, ctx.ceiling), cwd=Path(row.cwd), clock=ctx.clock)
    try:
        out = await child.call("pallium_workflow_run", arguments)
        status, result, error, cost = out.status, out.result, out.error, out.cost
    except PalliumError as exc:
        status, result, error = "refused", None, f"{exc.code}: {exc.message}"
        cost = await _run_cost(ctx, row.cwd, run_id)
    finally:
        child.close()
    reading = read_result(status, result, error)
    return await _judge(row, reading, cost=cost, run_error=error, warnings=warnings)


async def _judge(
    row: LoopRow, reading: Reading, *, cost: dict[str, Any], run_error: str | None, warnings: list[str]
) -> CycleEnd:
    """Turn the script's word into the cycle's state: stagnation first, then the budgets, which override."""
    spent = float(cost.get("spent_usd") or 0.0)
    unknown = int(cost.get("unknown_cost_calls") or 0)
    state, reason, signature = reading.state, reading.reason, reading.signature
    if reading.failures is not None:
        tree = reading.tree or await threads.in_thread(progress.working_tree_hash, Path(row.cwd))
        paths = await threads.in_thread(RepoPaths.read, Path(row.cwd))  # once per cycle: files move between cycles
        signature = progress.signature_from_failures(reading.failures, tree, paths)
    counted = state != "error"
    count, history = row.stagnation_count, row.signature_history
    if counted:
        moved = progress.step(
            previous=row.last_signature,
            count=row.stagnation_count,
            history=row.signature_history,
            signature=signature or "",
            threshold=row.stagnation_threshold,
        )
        count, history = moved.count, moved.history
        if moved.stagnated:
            state, reason = "stagnated", moved.stagnated
    over = budget_verdict(
        cost=spent,
        lifetime_spend=row.lifetime_spend_usd,
        cycle_budget=row.cycle_budget_usd,
        lifetime_budget=row.lifetime_budget_usd,
        run_error=run_error,
    )
    if over is not None:
        state, reason = "exhausted", over
    if unknown and (row.cycle_budget_usd is not None or row.lifetime_budget_usd is not None):
        text, _ = budget_text(
            spend=row.lifetime_spend_usd + spent,
            unknown_calls=row.unknown_cost_calls + unknown,
            cycle_budget=row.cycle_budget_usd,
            lifetime_budget=row.lifetime_budget_usd,
        )
        warnings = [*warnings, text]
    return CycleEnd(
        state=state,
        signature=signature if counted else None,
        stagnation_count=count,
        signature_history=history,
        cost_usd=spent,
        unknown_cost_calls=unknown,
        reason=reason,
        summary=reading.summary,
        warnings=warnings,
        touches_signature=counted,
    )


async def _close_dead_tick(ctx: ToolContext, store: LoopStore, row: LoopRow, holder: lease.Holder) -> Any:
    """End the cycle a dead tick left `running`, as an error that costs what its run spent; free the lease.

    The kernel's reconcile runs first: it marks the abandoned child run interrupted and kills the
    provider workers it left behind, which would otherwise go on spending.
    """
    from kernel import leases
    from kernel.runstore import RunStore

    await threads.in_thread(leases.reconcile, ctx.store(RunStore))
    dead: CycleRow | None = store.cycle(row.name, row.cycle)
    cost = await _run_cost(ctx, row.cwd, dead.run_id) if dead and dead.run_id else {}
    reason = f"interrupted: the tick in pid {holder.owner_pid} died before recording this cycle"
    end = CycleEnd(
        state="error",
        signature=None,
        stagnation_count=row.stagnation_count,
        signature_history=row.signature_history,
        cost_usd=float(cost.get("spent_usd") or 0.0),
        unknown_cost_calls=int(cost.get("unknown_cost_calls") or 0),
        reason=reason,
        summary=None,
        warnings=[],
        touches_signature=False,
    )
    if not store.finish(row.name, row.cycle, token=row.lease_token, end=end, now=_now(ctx)):
        return None  # someone else closed it
    closed = store.cycle(row.name, row.cycle)
    return lifecycle.to_cycle(closed) if closed else None


async def _run_cost(ctx: ToolContext, cwd: str, run_id: str) -> dict[str, Any]:
    """What a child run spent, from `pallium_workflow_status`; nothing when the run was never created."""
    child = ToolContext(ceiling="observe", cwd=Path(cwd), clock=ctx.clock)
    try:
        out = await child.call("pallium_workflow_status", {"run_id": run_id})
        return dict(out.cost)
    except PalliumError:
        return {}
    finally:
        child.close()


def _refusal(row: LoopRow) -> tuple[str, str] | None:
    """Why the next tick must not spend anything: the loop stagnated, or its lifetime budget is gone."""
    if row.stagnation_count >= row.stagnation_threshold and row.last_signature:
        return (
            "stagnated",
            f"the loop stagnated ({row.stagnation_count} cycles on signature {progress.short(row.last_signature)}); "
            f"run `pallium loop reset {row.name}` to let it tick again",
        )
    if row.lifetime_budget_usd is not None and row.lifetime_spend_usd >= row.lifetime_budget_usd:
        return (
            "exhausted",
            f"the lifetime budget is spent (${row.lifetime_spend_usd:.4f} of ${row.lifetime_budget_usd:.2f})",
        )
    if row.max_cycles is not None and row.cycle >= row.max_cycles:
        return "exhausted", f"the loop has begun all {row.max_cycles} of its cycles (maxCycles)"
    return None


def _run_budget(row: LoopRow) -> float | None:
    """The child run's own limit, so the kernel stops it mid-cycle instead of after: the tighter budget."""
    limits = []
    if row.cycle_budget_usd is not None:
        limits.append(row.cycle_budget_usd)
    if row.lifetime_budget_usd is not None:
        limits.append(max(row.lifetime_budget_usd - row.lifetime_spend_usd, 1e-6))
    return min(limits) if limits else None


def _error_end(row: LoopRow, reason: str, warnings: list[str]) -> CycleEnd:
    return CycleEnd(
        state="error",
        signature=None,
        stagnation_count=row.stagnation_count,
        signature_history=row.signature_history,
        cost_usd=0.0,
        unknown_cost_calls=0,
        reason=reason,
        summary=None,
        warnings=warnings,
        touches_signature=False,
    )


def _not_run(row: LoopRow, state: str, reason: str, *, reconciled: Any = None) -> TickOutput:
    return TickOutput(
        loop=row.name,
        state=state,  # type: ignore[arg-type]  # one of the tick states
        ran=False,
        cycle=None,
        run_id=None,
        signature=row.last_signature,
        stagnation_count=row.stagnation_count,
        cost_usd=None,
        unknown_cost_calls=0,
        lifetime_spend_usd=round(row.lifetime_spend_usd, 6),
        reason=reason,
        summary=None,
        warnings=[],
        reconciled=reconciled,
    )


def _now(ctx: ToolContext) -> str:
    return iso_utc(ctx.clock.now())
