"""What a run looks like from outside: its status, agents, failures, cost and patches, in one answer."""

from __future__ import annotations

from pathlib import Path

from kernel.runstore import RunRow as KernelRunRow
from kernel.runstore import RunStore
from kernel.trust import trust_command
from services.workflows.models import AgentCounts, FailureEntry, GateEntry, PatchEntry, RunOutput
from services.workflows.store import RunRow, WorkflowStore


def describe(
    store: WorkflowStore, row: RunRow, *, live: int | None = None, replayed: int | None = None, note: str | None = None
) -> RunOutput:
    agents = [e.detail for e in store.events(row.id, kind="agent", attempt=row.attempts)]
    counts = AgentCounts(
        total=len(agents),
        succeeded=sum(1 for a in agents if a.get("ok")),
        failed=sum(1 for a in agents if not a.get("ok")),
        replayed=sum(1 for a in agents if a.get("cached")),
    )
    failures = [
        FailureEntry(
            primitive=e.detail.get("primitive"),
            index=e.detail.get("index"),
            stage=e.detail.get("stage"),
            phase=e.phase,
            error=str(e.detail.get("error")),
        )
        for e in store.events(row.id, kind="failure", attempt=row.attempts)
    ]
    kernel = RunStore(store.db)
    kernel_row = kernel.run(row.id)
    status = shown_status(row, kernel_row)
    cost = {
        "spent_usd": kernel_row.spent_usd if kernel_row else 0.0,
        "unknown_cost_calls": kernel_row.unknown_cost_calls if kernel_row else 0,
        "limit_usd": kernel_row.budget_usd if kernel_row else None,
    }
    patches = [PatchEntry(call_key=p.call_key, state=p.state, detail=p.detail) for p in kernel.patches(row.id)]
    gates = gate_entries(store, row.id)
    # Finished: the script completed, and some agent succeeded or none was needed; a run where nothing
    # succeeded and something failed (every item of a fan-out refused before its agent started) is not.
    nothing_needed = counts.total == 0 and not failures
    finished = status == "completed" and (counts.succeeded > 0 or nothing_needed)
    verdict = (
        f"VERDICT: {'FINISHED' if finished else 'NOT FINISHED'} ({status}) — "
        f"{counts.succeeded}/{counts.total} agents complete"
    )
    return RunOutput(
        id=row.id,
        task=row.task,
        status=status,
        verdict=verdict,
        repo=row.repo,
        result=row.result,
        error=row.error,
        agents=counts,
        failures=failures,
        cost=cost,
        patches=patches,
        gates=gates,
        script_changed=row.script_changed,
        attempts=row.attempts,
        created_at=row.created_at,
        updated_at=row.updated_at,
        live_calls=live,
        replayed_calls=replayed,
        source=row.limits.get("source"),
        ceiling=row.limits.get("ceiling"),
        ignored=list(row.limits.get("ignored") or []),
        trust_hint=trust_command(Path(row.repo)) if row.limits.get("ignored") else None,
        notes=[note] if note else [],
    )


def shown_status(row: RunRow, kernel_row: KernelRunRow | None) -> str:
    """The run's status as told: `interrupted` when it says running but the kernel found its process dead."""
    if row.status == "running" and kernel_row is not None and kernel_row.status == "interrupted":
        return "interrupted"
    return row.status


def gate_entries(store: WorkflowStore, run_id: str) -> list[GateEntry]:
    return [
        GateEntry(name=g.name, state=g.state, approved=g.approved, reason=g.reason, decided_by=g.decided_by)
        for g in store.gates(run_id)
    ]
