"""Running a workflow: one attempt of a run, from opening its kernel run to recording the result.

A first attempt and a resume are the same code: the script replays from the top and the kernel's
journal answers every call it has already completed, so only new or unfinished calls spawn work.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel import authority
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.execution import Limits, Run
from kernel.hashing import stable_hash
from kernel.ids import resolve_prefix
from kernel.progress import Progress
from services.workflows.checks import CommandPolicy, allowed_commands, ignored_entries, may_run_repo_commands
from services.workflows.engine import ScriptFailed, run_script, unawaited_failure_message, unawaited_message
from services.workflows.host import WorkflowHost
from services.workflows.preflight import inferred_commands
from services.workflows.store import RunRow, WorkflowStore

__all__ = ["Attempt", "create_run", "new_run_id", "open_store", "reconcile", "resolve_run", "run_attempt"]


@dataclass(frozen=True)
class Attempt:
    run: RunRow
    live_calls: int
    cached_calls: int


def open_store(ctx: ToolContext) -> WorkflowStore:
    return ctx.store(WorkflowStore)


def new_run_id(ctx: ToolContext) -> str:
    stamp = iso_utc(ctx.clock.now()).replace("-", "").replace(":", "").replace("T", "-").rstrip("Z")
    return f"wf-{stamp}-{secrets.token_hex(3)}"


def reconcile(store: WorkflowStore) -> None:
    """Mark runs whose owning process died `interrupted` in the kernel (killing their leftover agents),
    so what is shown of them (`report.shown_status`) is not `running`."""
    from kernel import leases
    from kernel.runstore import RunStore

    leases.reconcile(RunStore(store.db))


def resolve_run(store: WorkflowStore, given: str) -> RunRow:
    """The run whose id is `given`, or the one run whose id starts with it (after a `reconcile`)."""
    reconcile(store)
    return resolve_prefix(
        given,
        get=store.run,
        starting_with=lambda prefix, limit: store.ids_starting_with(prefix, limit=limit),
        what="workflow run",
        field="run_id",
        list_hint="list runs with `pallium workflow list`",
    )


def create_run(
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
    allow_commands: list[str],
    allow_network: bool = False,
    source_label: str = "inline",
    allow_repo_commands: bool = False,
) -> RunRow:
    """Record a new run as `queued`: `run_attempt` starts it, here or in a worker process.

    The run keeps the ceiling it starts with (`limits.ceiling`): no later resume, gate decision or
    worker raises it. Where its script came from and what the untrusted repository shipped that it
    ignores are recorded beside, so every answer about the run can say them.
    """
    existing = store.run(run_id)
    if existing is not None:
        # a hint that works as given: a completed run has nothing to resume
        hint = (
            f"see it with `pallium workflow report {run_id}`, or choose another --id"
            if existing.status == "completed"
            else f"resume it with `pallium workflow resume {run_id}` or choose another --id"
        )
        raise PalliumError(
            "conflict",
            f"workflow run {run_id!r} exists already ({existing.status})",
            hint=hint,
            details={"field": "id"},
        )
    return store.create_run(
        run_id=run_id,
        task=task,
        repo=str(repo),
        script_path=script_path,
        script=source,
        script_hash=stable_hash(source),
        args=args,
        limits={
            **_limits_record(limits),
            "allow_commands": list(allow_commands),
            "allow_network": allow_network,
            "allow_repo_commands": allow_repo_commands,
            "ceiling": ctx.ceiling,
            "source": source_label,
            "ignored": ignored_entries(repo),
        },
        now=iso_utc(ctx.clock.now()),
    )


async def run_attempt(ctx: ToolContext, store: WorkflowStore, run_id: str, *, source: str | None = None) -> Attempt:
    """Run `run_id` (first attempt or resume) to its end and record how it ended.

    `source` replaces the recorded script (a resume after an edit). Stopping the process (SIGTERM,
    `pallium workflow stop`) cancels the attempt: it is recorded as `stopped` and its workers killed.
    """
    row = store.run(run_id)
    if row is None:
        raise PalliumError(
            "not_found",
            f"no workflow run {run_id!r}",
            details={"field": "run_id"},
            hint="list the runs with `pallium workflow list` (MCP `pallium_workflow_list`)",
        )
    if row.status == "running" and _lease_held(store, run_id):
        raise PalliumError(
            "conflict",
            f"workflow run {run_id} is still running in another process",
            details={"run_id": run_id},
            hint=f"follow it with `pallium workflow status {run_id}`, or stop it with `pallium workflow stop {run_id}`",
        )
    saved_ceiling = ctx.ceiling
    ctx.ceiling = run_ceiling(row, ctx.ceiling)
    try:
        return await _run_attempt(ctx, store, row, source)
    finally:
        ctx.ceiling = saved_ceiling


def run_ceiling(row: RunRow, caller: authority.Authority) -> authority.Authority:
    """The lower of the caller's ceiling and the run's own (a run recorded before runs kept one: the caller's)."""
    started = row.limits.get("ceiling")
    if started not in authority.LEVELS or authority.allows(started, caller):
        return caller
    return started  # type: ignore[no-any-return]  # one of LEVELS, checked above


async def _run_attempt(ctx: ToolContext, store: WorkflowStore, row: RunRow, source: str | None) -> Attempt:
    run_id = row.id
    publisher = None
    if row.limits.get("database"):
        from services.workflows import shared

        # another machine may have taken the run further (a gate decided, an attempt there): go on from that
        row = await asyncio.to_thread(shared.take_in_if_recorded, str(row.limits["database"]), row, store)
        publisher = shared.Publisher(str(row.limits["database"]), store, run_id)
        store.on_change = publisher.changed
    source = row.script if source is None else source
    script_hash = stable_hash(source)
    repo, limits = Path(row.repo), limits_from_record(row.limits)
    allowed = allowed_commands(repo, list(row.limits.get("allow_commands", [])))
    attempt = store.begin_attempt(
        run_id,
        script=source,
        script_hash=script_hash,
        script_changed=row.script_hash != script_hash,
        now=iso_utc(ctx.clock.now()),
    )
    try:
        execution = await Run.open(run_id, repo, limits, db=store.db)
    except BaseException:
        store.on_change = None
        raise
    if publisher is not None and execution.remote is not None:
        publisher.start(execution.remote.epoch)
    commands = CommandPolicy(
        allowed,
        infer=lambda: inferred_commands(ctx, repo, row.task),
        run_inferred=may_run_repo_commands(repo, bool(row.limits.get("allow_repo_commands", False))),
        repo=repo,
    )
    host = WorkflowHost(
        run=execution,
        store=store,
        ctx=ctx,
        attempt=attempt,
        args_hash=stable_hash(row.args),
        commands=commands,
        allow_network=bool(row.limits.get("allow_network", False)),
    )
    status, result, error = "failed", None, None
    try:
        outcome = await run_script(source, host=host, args=row.args, budget=host.budget)
        result = outcome.value
        execution.check_budget()  # one call may have reported more than the whole budget
        status = "completed"
        if outcome.unawaited_failures:  # failures the script never saw still mean the run did not finish
            host.record_unawaited_failures(outcome.unawaited_failures)
            status, error = "failed", f"unawaited: {unawaited_failure_message(outcome.unawaited_failures)}"
        if outcome.abandoned:  # a bug in the script: work it started was thrown away, so the run did not finish
            host.record_abandoned(outcome.abandoned)
            status, error = "failed", f"unawaited: {unawaited_message(outcome.abandoned)}"
    except ScriptFailed as exc:
        error = f"{exc.kind}: {exc.message}"
        if host.awaiting_gate is not None:
            status = "awaiting_approval"
    except PalliumError as exc:
        error = f"{exc.code}: {exc.message}"
    except asyncio.CancelledError:
        # A pause and a stop end the attempt the same way; what was asked decides how it is recorded.
        asked = store.events(run_id, kind="control", attempt=attempt)
        status = "paused" if asked and asked[-1].detail.get("intent") == "pause" else "stopped"
        error = f"{status} on request"
        raise
    finally:
        _close_cancelled_calls(execution, reason=error or "the attempt ended while the call ran")
        store.finish(run_id, status=status, result=result, error=error, now=iso_utc(ctx.clock.now()))
        await execution.close(status)
        if publisher is not None:
            store.on_change = None
            await publisher.close()
    finished = store.run(run_id)
    assert finished is not None
    return Attempt(run=finished, live_calls=execution.stats["live"], cached_calls=execution.stats["cached"])


def start_worker(store: WorkflowStore, run_id: str, *, ceiling: str, script_path: Path | None = None) -> int:
    """Start the next attempt of `run_id` in a detached worker process; return its pid."""
    from kernel.background import start_detached
    from kernel.worktrees.tree import run_dir

    row = store.run(run_id)
    assert row is not None
    args = [run_id, "--authority", ceiling] + (["--script", str(script_path)] if script_path else [])
    return start_detached(
        "services.workflows.worker", args, cwd=Path(row.repo), log_path=run_dir(run_id) / "worker.log"
    )


async def wait_for_end(store: WorkflowStore, run_id: str, *, seconds: float, progress: Progress) -> RunRow:
    """Wait up to `seconds` for the run to leave queued/running, reporting finished agents as progress."""
    deadline = time.monotonic() + seconds
    while True:
        row = store.run(run_id)
        assert row is not None
        if row.status not in ("queued", "running") or time.monotonic() >= deadline:
            return row
        done = len(store.events(run_id, kind="agent", attempt=row.attempts))
        await progress.update(done, None, f"{done} agent(s) finished")
        await asyncio.sleep(0.25)


def stop_run(store: WorkflowStore, run_id: str, *, intent: str = "stop", now: str) -> None:
    """Ask the process running `run_id` to stop or pause (SIGTERM): it records `stopped` or `paused`
    and kills its workers; completed calls stay in the journal for a resume."""
    from kernel import leases
    from kernel.runstore import RunStore

    runs = RunStore(store.db)
    leases.reconcile(runs)
    row = runs.run(run_id)
    if row is None or row.status != "running" or row.owner_pid is None:
        raise PalliumError(
            "conflict",
            f"workflow run {run_id} is not running",
            details={"run_id": run_id},
            hint=f"only a running run can be paused or stopped; see its state with `pallium workflow status {run_id}`",
        )
    if not leases.is_owner_alive(row):
        raise PalliumError(
            "conflict",
            f"workflow run {run_id} has no live owner",
            details={"run_id": run_id},
            hint=f"its process is gone: resume it with `pallium workflow resume {run_id}`",
        )
    current = store.run(run_id)
    store.add_event(
        run_id,
        attempt=current.attempts if current else 0,
        kind="control",
        phase=None,
        detail={"intent": intent},
        now=now,
    )
    os.kill(row.owner_pid, signal.SIGTERM)


def _limits_record(limits: Limits) -> dict[str, Any]:
    return {
        "budget_usd": limits.budget_usd,
        "max_agents": limits.max_agents,
        "concurrency": limits.concurrency,
        "agent_timeout": limits.agent_timeout,
        # only when set: a one-machine run's record stays what it was
        **({"database": limits.database, "git_remote": limits.git_remote} if limits.database else {}),
    }


def limits_from_record(record: dict[str, Any]) -> Limits:
    return Limits(
        budget_usd=record.get("budget_usd"),
        max_agents=record.get("max_agents", 1000),
        concurrency=record.get("concurrency", 16),
        agent_timeout=record.get("agent_timeout", 600.0),
        database=record.get("database"),
        git_remote=record.get("git_remote"),
    )


def _lease_held(store: WorkflowStore, run_id: str) -> bool:
    from kernel import leases
    from kernel.runstore import RunStore

    runs = RunStore(store.db)
    leases.reconcile(runs)
    row = runs.run(run_id)
    return row is not None and row.status == "running"


def _close_cancelled_calls(execution: Run, *, reason: str) -> None:
    """Close the journal rows of calls the attempt cancelled (their processes are gone by now) as
    `cancelled`: they rerun on a resume, and nothing reads them as still running."""
    for call in execution.store.calls(execution.run_id, status="started"):
        try:
            execution.store.record_completion(
                execution.run_id,
                execution.lease.epoch,
                call_key=call.call_key,
                status="cancelled",
                result={"cancelled": reason[:500]},
                cost_usd=None,
                spent=False,
            )
        except PalliumError:  # fenced: another process took the run over and owns its rows now
            return
