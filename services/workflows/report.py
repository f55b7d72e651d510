"""What a run looks like from outside: its status, agents, failures, cost and patches, in one answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    finished, verdict = run_verdict(status, counts, failures, row.result)
    return RunOutput(
        id=row.id,
        task=row.task,
        status=status,
        verdict=verdict,
        ok=finished,
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


# Words a result's `verdict` may use instead of `ok` (matched on the start of the lowered text).
_SAYS_NO = ("not finished", "not ok", "fail", "red", "stalled", "denied", "rejected", "blocked", "error", "incomplete")
_SAYS_YES = ("finished", "ok", "pass", "success", "succeeded", "green", "approved", "done", "complete")


def script_outcome(result: Any) -> tuple[bool | None, str | None]:
    """What a script's result says of its own outcome: `(ok, words)`.

    The convention (docs/workflows.md): a script that checks its own work returns an object with
    `ok` (a boolean) and, optionally, `verdict` (what happened, in words). Without a boolean `ok`,
    a `verdict` starting with a plain word of success or failure decides; anything else claims
    nothing (`None`), and the run is judged by its status and agents alone.
    """
    if not isinstance(result, dict):
        return None, None
    words = result.get("verdict")
    words = words.strip() if isinstance(words, str) and words.strip() else None
    ok = result.get("ok")
    if isinstance(ok, bool):
        return ok, words
    if words is not None:
        lowered = words.lower()
        if lowered.startswith(_SAYS_NO):
            return False, words
        if lowered.startswith(_SAYS_YES):
            return True, words
    return None, words


def run_verdict(status: str, counts: AgentCounts, failures: list[FailureEntry], result: Any) -> tuple[bool, str]:
    """Whether the run finished, and the verdict line that says so: the one rule every channel uses.

    Not finished unless the script completed. Then the script's own claim (`script_outcome`) decides:
    `ok: false` is not finished; `ok: true` is finished, failures and all, because a script that
    returns it has seen what failed (a failure no handler observed already failed the run). A script
    that claims nothing is finished only when nothing failed: no agent that did not complete and no
    recorded failure (a `parallel` item turned to null, a refused item). One failed agent of 64 with
    no claim is NOT FINISHED, so a scheduler branching on the exit code never mistakes it for success.
    """
    claimed, words = script_outcome(result) if status == "completed" else (None, None)
    unexplained = claimed is None and (counts.failed > 0 or bool(failures))
    finished = status == "completed" and claimed is not False and not unexplained
    verdict = (
        f"VERDICT: {'FINISHED' if finished else 'NOT FINISHED'} ({status}) — "
        f"{counts.succeeded}/{counts.total} agents complete"
    )
    if claimed is False:
        verdict += f"; the script says not ok{': ' + words[:160] if words else ''}"
    elif unexplained and status == "completed":
        what = (
            f"{counts.failed} agent{'s' if counts.failed != 1 else ''} failed"
            if counts.failed
            else (f"{len(failures)} failure{'s' if len(failures) != 1 else ''} recorded")
        )
        verdict += f"; {what} and the script makes no ok claim (return {{ok: true}} once it has handled them)"
    return finished, verdict


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
