"""Running a workflow: one attempt of a run, from opening its kernel run to recording the result.

A first attempt and a resume are the same code: the script replays from the top and the kernel's
journal answers every call it has already completed, so only new or unfinished calls spawn work.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.execution import Limits, Run
from kernel.hashing import stable_hash
from kernel.runstore import SCHEMA as RUNS_SCHEMA
from services.workflows.checks import allowed_commands
from services.workflows.engine import ScriptFailed, run_script
from services.workflows.host import WorkflowHost
from services.workflows.store import SCHEMA, RunRow, WorkflowStore

__all__ = ["Attempt", "new_run_id", "open_store", "resolve_run", "run_attempt"]


@dataclass(frozen=True)
class Attempt:
    run: RunRow
    live_calls: int
    cached_calls: int


def open_store(ctx: ToolContext) -> WorkflowStore:
    return WorkflowStore(ctx.global_db([RUNS_SCHEMA, SCHEMA]))


def new_run_id(ctx: ToolContext) -> str:
    stamp = iso_utc(ctx.clock.now()).replace("-", "").replace(":", "").replace("T", "-").rstrip("Z")
    return f"wf-{stamp}-{secrets.token_hex(3)}"


def resolve_run(store: WorkflowStore, given: str) -> RunRow:
    """The run whose id is `given`, or the one run whose id starts with it."""
    row = store.run(given)
    if row is not None:
        return row
    matches = store.ids_starting_with(given)
    if len(matches) == 1:
        return store.run(matches[0])  # type: ignore[return-value]  # it was just listed
    if not matches:
        raise PalliumError(
            "not_found",
            f"no workflow run {given!r}",
            hint="list runs with `pallium workflow list`",
            details={"field": "run_id", "run_id": given},
        )
    raise PalliumError(
        "invalid_input",
        f"{given!r} matches several runs ({', '.join(matches)}); give more of the id",
        details={"field": "run_id", "matches": matches},
    )


async def run_attempt(
    ctx: ToolContext,
    store: WorkflowStore,
    *,
    run_id: str,
    repo: Path,
    source: str,
    args: Any,
    limits: Limits,
    task: str,
    script_path: str | None,
    resume: bool,
    allow_commands: list[str] | None = None,
) -> Attempt:
    """Run (or resume) `run_id` to its end and record how it ended."""
    now = iso_utc(ctx.clock.now())
    script_hash = stable_hash(source)
    existing = store.run(run_id)
    if existing is None:
        if resume:
            raise PalliumError("not_found", f"no workflow run {run_id!r} to resume", details={"field": "run_id"})
        store.create_run(
            run_id=run_id,
            task=task,
            repo=str(repo),
            script_path=script_path,
            script=source,
            script_hash=script_hash,
            args=args,
            limits={**_limits_record(limits), "allow_commands": list(allow_commands or [])},
            now=now,
        )
        attempt = 1
    else:
        if not resume:
            raise PalliumError(
                "conflict",
                f"workflow run {run_id!r} exists already",
                hint=f"resume it with `pallium workflow resume {run_id}` or choose another --id",
                details={"field": "id"},
            )
        if existing.status == "running" and _lease_held(store, run_id):
            raise PalliumError(
                "conflict", f"workflow run {run_id} is still running in another process", details={"run_id": run_id}
            )
        allow_commands = existing.limits.get("allow_commands", [])
        attempt = store.begin_attempt(
            run_id, script=source, script_hash=script_hash, script_changed=existing.script_hash != script_hash, now=now
        )
    allowed = allowed_commands(repo, list(allow_commands or []))
    execution = await Run.open(run_id, repo, limits, db=store.db)
    host = WorkflowHost(
        run=execution, store=store, ctx=ctx, attempt=attempt, args_hash=stable_hash(args), allowed_commands=allowed
    )
    status, result, error = "failed", None, None
    try:
        outcome = await run_script(source, host=host, args=args, budget=host.budget)
        result = outcome.value
        status = "completed"
    except ScriptFailed as exc:
        error = f"{exc.kind}: {exc.message}"
    except PalliumError as exc:
        error = f"{exc.code}: {exc.message}"
    finally:
        store.finish(run_id, status=status, result=result, error=error, now=iso_utc(ctx.clock.now()))
        await execution.close(status)
    row = store.run(run_id)
    assert row is not None
    return Attempt(run=row, live_calls=execution.stats["live"], cached_calls=execution.stats["cached"])


def _limits_record(limits: Limits) -> dict[str, Any]:
    return {
        "budget_usd": limits.budget_usd,
        "max_agents": limits.max_agents,
        "concurrency": limits.concurrency,
        "agent_timeout": limits.agent_timeout,
    }


def limits_from_record(record: dict[str, Any]) -> Limits:
    return Limits(
        budget_usd=record.get("budget_usd"),
        max_agents=record.get("max_agents", 1000),
        concurrency=record.get("concurrency", 16),
        agent_timeout=record.get("agent_timeout", 600.0),
    )


def _lease_held(store: WorkflowStore, run_id: str) -> bool:
    from kernel import leases
    from kernel.runstore import RunStore

    runs = RunStore(store.db)
    leases.reconcile(runs)
    row = runs.run(run_id)
    return row is not None and row.status == "running"
