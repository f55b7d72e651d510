"""The workflow tools' handlers and declarations."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kernel import authority
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.execution import Limits
from kernel.tool import CONTEXT_BUDGET, Annotations, Route, Tool
from services.workflows import render, report, runner, sources
from services.workflows.models import (
    ApplyOutput,
    GateDecisionInput,
    GateListOutput,
    ListInput,
    ListOutput,
    ResumeInput,
    RunInput,
    RunOutput,
    RunRefInput,
    RunSummary,
    SharedRunRefInput,
    ValidateInput,
    ValidateOutput,
)
from services.workflows.store import WorkflowStore
from services.workflows.validate import declared_args, validate_source


async def validate(inp: ValidateInput, ctx: ToolContext) -> ValidateOutput:
    if (inp.script is None) == (inp.source is None):
        raise PalliumError(
            "invalid_input",
            "give exactly one of `script` (a path) or `source` (the text)",
            details={"field": "script"},
            hint="pass just one of `script` (CLI `--script`, a path) or `source` (CLI `--source`, the text)",
        )
    location = None
    source = inp.source
    if inp.script is not None:
        # The same places a run may read a script from: an answer quoting any file's tokens and hash
        # would read outside the repository (pass other text as `source`).
        location = sources.script_path(inp.script, ctx)
        source = sources.read_script(location)
    checked = await validate_source(source or "")
    return ValidateOutput(
        valid=checked.valid,
        errors=checked.errors,
        warnings=checked.warnings,
        meta=checked.meta,
        script=str(location) if location else None,
        script_hash=checked.script_hash,
    )


async def run(inp: RunInput, ctx: ToolContext) -> RunOutput:
    from kernel.scaleout.credentials import database_url

    inp = sources.default_task(inp)
    repo = ctx.repo_root(inp.repo)
    chosen = sources.choose(ctx, repo, script=inp.script, source=inp.source, workflow=inp.workflow)
    args = sources.parse_args(inp.args)
    checked = await sources.require_valid(chosen.text)
    # Saved workflows and templates read the task from args, as does a script whose meta.args lists
    # `task` (a generated one); any other script given by path or inline sees args exactly as given.
    if chosen.origin in ("repo", "user", "template") or "task" in declared_args(checked.meta):
        args = sources.with_task(args, inp.task)
    limits = Limits(
        budget_usd=inp.max_budget_usd,
        max_agents=inp.max_agents,
        concurrency=inp.max_concurrent_agents,
        agent_timeout=inp.agent_timeout,
        database=database_url(inp.database),
        git_remote=inp.git_remote,
    )
    return await launch(
        ctx,
        repo=repo,
        run_id=inp.id,
        source=chosen.text,
        script_path=chosen.path,
        args=args,
        limits=limits,
        task=inp.task,
        allow_commands=inp.allow_command,
        allow_network=inp.allow_network,
        allow_repo_commands=inp.allow_repo_commands,
        background=inp.background,
        wait=inp.wait_seconds,
        source_label=f"script:{chosen.label}" if chosen.origin == "script" else chosen.label,
    )


async def launch(
    ctx: ToolContext,
    *,
    repo: Path,
    run_id: str | None,
    source: str,
    script_path: Path | None,
    args: Any,
    limits: Limits,
    task: str,
    allow_commands: list[str],
    background: bool,
    wait: float,
    allow_network: bool = False,
    source_label: str = "inline",
    allow_repo_commands: bool = False,
) -> RunOutput:
    """Record a new run and run it here, or in a worker process when in the background or over MCP."""
    store = runner.open_store(ctx)
    run_id = run_id or runner.new_run_id(ctx)
    runner.create_run(
        ctx,
        store,
        run_id=run_id,
        repo=repo,
        source=source,
        args=args,
        limits=limits,
        task=task,
        script_path=str(script_path) if script_path else None,
        allow_commands=allow_commands,
        allow_network=allow_network,
        source_label=source_label,
        allow_repo_commands=allow_repo_commands,
    )
    return await _attempt(ctx, store, run_id, source=None, background=background, wait=wait)


def shared_url(given: str | None, store: WorkflowStore, run_id: str) -> str | None:
    """The shared database to read a run from: the one asked for; else, for a run this home does not
    have, the default one (PALLIUM_DATABASE_URL, the home's config); None for a run of this home."""
    from kernel.scaleout.credentials import database_url

    if given:
        return database_url(given)
    try:
        runner.resolve_run(store, run_id)
        return None
    except PalliumError as exc:
        if exc.code != "not_found" or (url := database_url(None)) is None:
            raise
        return url


async def resume(inp: ResumeInput, ctx: ToolContext) -> RunOutput:
    store = runner.open_store(ctx)
    url = shared_url(inp.database, store, inp.run_id)
    if url is not None:  # the run as the shared record has it, taken into this home to go on here
        from services.workflows import shared

        await asyncio.to_thread(shared.take_in, url, inp.run_id, store, repo=ctx.repo_root())
    row = runner.resolve_run(store, inp.run_id)
    if row.status == "completed":
        raise PalliumError(
            "conflict",
            f"workflow run {row.id} already completed; nothing to resume",
            details={"run_id": row.id},
            hint=f"see its result with `pallium workflow report {row.id}`; start a new run to do it again",
        )
    source, new_script = None, None
    if inp.script is not None:
        new_script = sources.script_path(inp.script, ctx)
        source = sources.read_script(new_script)
        await sources.require_valid(source)
    return await _attempt(
        ctx, store, row.id, source=source, background=inp.background, wait=inp.wait_seconds, script_path=new_script
    )


async def gate_list(inp: SharedRunRefInput | RunRefInput, ctx: ToolContext) -> GateListOutput:
    store = runner.open_store(ctx)
    url = shared_url(getattr(inp, "database", None), store, inp.run_id)
    if url is not None:
        from services.workflows import shared

        def read() -> GateListOutput:
            with shared.reader(url, inp.run_id) as (copy, row, _note):
                return GateListOutput(run_id=row.id, gates=report.gate_entries(copy, row.id))

        return await asyncio.to_thread(read)
    row = runner.resolve_run(store, inp.run_id)
    return GateListOutput(run_id=row.id, gates=report.gate_entries(store, row.id))


async def gate_approve(inp: GateDecisionInput, ctx: ToolContext) -> RunOutput:
    return await _decide(inp, ctx, approved=True)


async def gate_reject(inp: GateDecisionInput, ctx: ToolContext) -> RunOutput:
    return await _decide(inp, ctx, approved=False)


async def _decide(inp: GateDecisionInput, ctx: ToolContext, *, approved: bool) -> RunOutput:
    """Record a person's answer at a pending gate, then let the run go on from where it stopped.

    With a shared database the answer is decided in the run's record first (one of two people deciding
    at once wins; the other is told it was decided), then the run goes on here.
    """
    store = runner.open_store(ctx)
    url = shared_url(inp.database, store, inp.run_id)
    if url is not None:
        from services.workflows import shared

        now = iso_utc(ctx.clock.now())
        await asyncio.to_thread(
            shared.decide_gate, url, inp.run_id, inp.name, approved=approved, reason=inp.reason, now=now
        )
        taken = await asyncio.to_thread(shared.take_in, url, inp.run_id, store, repo=ctx.repo_root())
        return await _attempt(ctx, store, taken.id, source=None, background=inp.background, wait=inp.wait_seconds)
    row = runner.resolve_run(store, inp.run_id)
    gate = store.gate(row.id, inp.name)
    if gate is None or gate.state != "pending":
        pending = [g.name for g in store.gates(row.id) if g.state == "pending"]
        raise PalliumError(
            "not_found",
            f"run {row.id} has no gate {inp.name!r} waiting for a decision",
            hint=f"pending gates: {', '.join(pending)}" if pending else "this run waits at no gate",
            details={"field": "name", "pending": pending},
        )
    store.record_gate(
        row.id,
        name=inp.name,
        approved=approved,
        reason=inp.reason,
        evidence=[],
        now=iso_utc(ctx.clock.now()),
        decided_by="person",
    )
    return await _attempt(ctx, store, row.id, source=None, background=inp.background, wait=inp.wait_seconds)


async def stop(inp: RunRefInput, ctx: ToolContext) -> RunOutput:
    return await _interrupt(inp, ctx, intent="stop")


async def pause(inp: RunRefInput, ctx: ToolContext) -> RunOutput:
    return await _interrupt(inp, ctx, intent="pause")


async def _interrupt(inp: RunRefInput, ctx: ToolContext, *, intent: str) -> RunOutput:
    store = runner.open_store(ctx)
    row = runner.resolve_run(store, inp.run_id)
    runner.stop_run(store, row.id, intent=intent, now=iso_utc(ctx.clock.now()))
    finished = await runner.wait_for_end(store, row.id, seconds=15, progress=ctx.progress)
    return report.describe(store, finished)


async def _attempt(
    ctx: ToolContext,
    store: WorkflowStore,
    run_id: str,
    *,
    source: str | None,
    background: bool,
    wait: float,
    script_path: Path | None = None,
) -> RunOutput:
    """Run here and wait, or (in the background, and always over MCP) in a worker process.

    Either way under the run's own ceiling: a caller's higher one is not lent to it, and the answer says so.
    """
    row = store.run(run_id)
    assert row is not None
    ceiling = runner.run_ceiling(row, ctx.ceiling)
    note = None
    if ceiling != ctx.ceiling:
        note = (
            f"run {run_id} keeps the authority it started with ({ceiling}); this call's {ctx.ceiling} does not raise it"
        )
    if background or ctx.origin == "mcp":
        store.set_status(run_id, "queued", now=iso_utc(ctx.clock.now()))  # so the wait below sees the new attempt
        runner.start_worker(store, run_id, ceiling=ceiling, script_path=script_path)
        row = await runner.wait_for_end(store, run_id, seconds=wait, progress=ctx.progress)
        return report.describe(store, row, note=note)
    attempt = await runner.run_attempt(ctx, store, run_id, source=source)
    return report.describe(store, attempt.run, live=attempt.live_calls, replayed=attempt.cached_calls, note=note)


async def status(inp: SharedRunRefInput | RunRefInput, ctx: ToolContext) -> RunOutput:
    """(Called with a `RunRefInput` too, by code that asks about a run of this home.)"""
    store = runner.open_store(ctx)
    url = shared_url(getattr(inp, "database", None), store, inp.run_id)
    if url is not None:
        from services.workflows import shared

        def read() -> RunOutput:
            with shared.reader(url, inp.run_id) as (copy, row, note):
                return report.describe(copy, row, note=note)

        return await asyncio.to_thread(read)
    return report.describe(store, runner.resolve_run(store, inp.run_id))


async def list_runs(inp: ListInput, ctx: ToolContext) -> ListOutput:
    from kernel.runstore import RunStore

    store = runner.open_store(ctx)
    runner.reconcile(store)
    kernel = RunStore(store.db)
    rows = store.runs(limit=inp.limit + 1, before=inp.cursor)
    page = rows[: inp.limit]
    more = len(rows) > inp.limit
    return ListOutput(
        runs=[
            RunSummary(id=r.id, task=r.task, status=report.shown_status(r, kernel.run(r.id)), updated_at=r.updated_at)
            for r in page
        ],
        truncated=more,
        next_cursor=f"{page[-1].updated_at}|{page[-1].id}" if more else None,
    )


async def apply(inp: RunRefInput, ctx: ToolContext) -> ApplyOutput:
    from kernel.crashpoints import crash_point
    from kernel.runstore import RunStore
    from kernel.worktrees.apply import apply_patches

    store = runner.open_store(ctx)
    row = runner.resolve_run(store, inp.run_id)
    _require_run_edit(row, ctx, "apply")
    # the same crash points a run's own apply passes, so recovery is tested on the path users take
    done = apply_patches(RunStore(store.db), row.id, Path(row.repo), step=crash_point)
    return ApplyOutput(run_id=row.id, applied=done.applied, already=done.already, skipped=done.skipped)


async def revert(inp: RunRefInput, ctx: ToolContext) -> ApplyOutput:
    from kernel.runstore import RunStore
    from kernel.worktrees.apply import revert_patches

    store = runner.open_store(ctx)
    row = runner.resolve_run(store, inp.run_id)
    _require_run_edit(row, ctx, "revert")
    done = revert_patches(RunStore(store.db), row.id, Path(row.repo))
    return ApplyOutput(run_id=row.id, applied=done.applied, already=done.already, skipped=done.skipped)


def _require_run_edit(row: Any, ctx: ToolContext, verb: str) -> None:
    """A run that started below `edit` changes nothing in the tree, whoever asks later."""
    kept = runner.run_ceiling(row, ctx.ceiling)
    if not authority.allows(kept, "edit"):
        raise PalliumError(
            "authority_exceeded",
            f"workflow run {row.id} started at authority {kept!r}; its patches cannot {verb} under a higher "
            "ceiling given later",
            hint="start a new run at --authority edit to make edits",
            details={"run_id": row.id, "needed": "edit", "ceiling": kept},
        )


def _run_exit(out: RunOutput) -> int:
    return 0 if out.ok else 1


TOOLS = (
    Tool(
        cli="workflow validate",
        handler=validate,
        input=ValidateInput,
        output=ValidateOutput,
        summary="Check a workflow script without running it: syntax, meta, guard violations, unknown primitives.",
        description=(
            "Use after writing or editing a workflow script and before running it. Not for running "
            "(use pallium_workflow_run once available). Compiles the script in the sandbox without "
            "executing it: no model calls, no writes; the answer lists errors and warnings with line numbers."
        ),
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "validate review.workflow.js",
                "check my workflow script for errors",
                "lint a workflow script without running it",
                "is this workflow script valid",
                "find guard violations in a script",
            ),
            arguments={"script": "script"},
        ),
        positional=("script",),
        render=render.validate,
        exit_code=lambda out: 0 if out.valid else 1,
    ),
    Tool(
        cli="workflow run",
        handler=run,
        input=RunInput,
        output=RunOutput,
        summary="Run a workflow script: sandboxed JavaScript that fans out agents, with a durable journal.",
        description=(
            "Use for multi-agent work a script describes (reviews, research panels, fan-out edits). Not for "
            "one question (ask the relevant pallium tool) and not for checking a script (pallium_workflow_validate). "
            "Spawns provider agents and spends up to max_budget_usd; edit agents work in isolated worktrees "
            "and their patches reach the tree only through pallium_workflow_apply. Over MCP the run goes on in "
            "its own process: the call waits up to wait_seconds, then returns the id and status to poll with "
            "pallium_workflow_status."
        ),
        authority="consult",
        toolset="workflows",
        route=Route(
            phrasings=(
                "run the workflow script review.workflow.js",
                "execute my workflow with this task",
                "run a multi-agent script",
                "fan out reviewers with a script",
                "run the saved review workflow",
            ),
            arguments={"script": "script", "task": "task"},
            needs=("git",),
            prepare="workflow validate",
        ),
        positional=("task",),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=render.run,
        exit_code=_run_exit,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="workflow resume",
        handler=resume,
        input=ResumeInput,
        output=RunOutput,
        summary="Resume an interrupted or failed workflow run: completed calls replay from the journal.",
        description=(
            "Use after a run was interrupted, crashed or failed part-way. Not for a new run (pallium_workflow_run). "
            "Replays the script from the top; calls completed before are answered from the journal at no cost, "
            "only new or unfinished calls spawn agents. A new script version may be given."
        ),
        authority="consult",
        toolset="workflows",
        route=Route(
            phrasings=(
                "resume the interrupted run",
                "continue the workflow run that failed",
                "pick the crashed run back up",
                "restart the workflow from where it stopped",
                "resume run wf-20260101-120000-abc123",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            signals=("runs_interrupted",),
        ),
        positional=("run_id",),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=render.run,
        exit_code=_run_exit,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="workflow stop",
        handler=stop,
        input=RunRefInput,
        output=RunOutput,
        summary="Stop a running workflow run: its agents are killed and it is recorded as stopped.",
        description=(
            "Use when a run is going the wrong way or spending too much. Not for undoing its edits "
            "(pallium_workflow_revert) or for a run that already ended. Signals the process holding the run; "
            "completed calls stay in the journal, so pallium_workflow_resume can go on later."
        ),
        authority="consult",
        toolset="workflows",
        route=Route(
            phrasings=(
                "stop the running workflow",
                "kill the workflow run and its agents",
                "cancel the workflow run",
                "abort the run that is going",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            signals=("runs_active",),
        ),
        positional=("run_id",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=render.run,
        exit_code=lambda out: 0 if out.status == "stopped" else 1,
    ),
    Tool(
        cli="workflow pause",
        handler=pause,
        input=RunRefInput,
        output=RunOutput,
        summary="Pause a running workflow run; resume it later from where it stopped.",
        description=(
            "Use to stop spending for now without giving up the run (pallium_workflow_resume goes on; "
            "completed calls replay free). Not for abandoning it (pallium_workflow_stop says so more plainly). "
            "Signals the process holding the run; its in-flight agents are killed and will rerun on resume."
        ),
        authority="consult",
        toolset="workflows",
        route=Route(
            phrasings=(
                "pause the run",
                "pause the workflow so I can resume it later",
                "suspend the running workflow",
                "hold the run for now",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            signals=("runs_active",),
        ),
        positional=("run_id",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=render.run,
        exit_code=lambda out: 0 if out.status == "paused" else 1,
    ),
    Tool(
        cli="workflow gate list",
        handler=gate_list,
        input=SharedRunRefInput,
        output=GateListOutput,
        summary="A workflow run's gates: which were decided, by whom, and which wait for a person.",
        description="Use when a run is awaiting_approval. Not for deciding (pallium_workflow_gate_approve).",
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "which gates are waiting for approval",
                "show the gates of the run",
                "what is the run waiting for",
                "list pending human gates",
                "which approvals does the workflow need",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            signals=("runs_awaiting_approval",),
        ),
        positional=("run_id",),
        render=render.gates,
    ),
    Tool(
        cli="workflow gate approve",
        handler=gate_approve,
        input=GateDecisionInput,
        output=RunOutput,
        summary="Approve a human gate and let the waiting run continue.",
        description=(
            "Use when you, the person, have checked what a run's human gate asks. Not for agents: the "
            "decision is the user's, which is why it needs admin authority. Records the answer and resumes "
            "the run; completed calls replay from the journal."
        ),
        authority="admin",
        toolset="workflows",
        route=Route(
            phrasings=(
                "approve the deploy gate of the run",
                "let the waiting run continue",
                "sign off on the human gate",
                "approve the pending approval",
                "give the go-ahead to the gate",
            ),
            arguments={"run_id": "run_id", "name": "gate"},
            needs=("run",),
            signals=("runs_awaiting_approval",),
            prepare="workflow gate list",
        ),
        positional=("run_id", "name"),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=render.run,
        exit_code=_run_exit,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="workflow gate reject",
        handler=gate_reject,
        input=GateDecisionInput,
        output=RunOutput,
        summary="Reject a human gate; the waiting run continues and sees the rejection.",
        description=(
            "Use when a run's human gate asks for something you do not accept. Not for stopping a run "
            "(pallium_workflow_stop). Needs admin authority; the script sees approved=false (and fails "
            "unless it passed fail_on_deny: false)."
        ),
        authority="admin",
        toolset="workflows",
        route=Route(
            phrasings=(
                "reject the gate",
                "deny the approval the run asks for",
                "refuse the human gate of the run",
                "say no to the waiting gate",
            ),
            arguments={"run_id": "run_id", "name": "gate"},
            needs=("run",),
            signals=("runs_awaiting_approval",),
            prepare="workflow gate list",
        ),
        positional=("run_id", "name"),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=render.run,
        exit_code=_run_exit,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="workflow status",
        handler=status,
        input=SharedRunRefInput,
        output=RunOutput,
        summary="A workflow run's verdict, agents, failures, cost and patches.",
        description=(
            "Use to see how a run went or is going. Not for the list of runs (pallium_workflow_list). "
            "Reads Pallium's state only; no model calls."
        ),
        authority="observe",
        toolset="start",
        route=Route(
            phrasings=(
                "status of run wf-20260101-120000-abc123",
                "is my workflow done",
                "how is the run going",
                "what patches did the run stage",
                "check on the workflow run",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            signals=("runs_active", "runs_finished", "runs_interrupted"),
        ),
        positional=("run_id",),
        render=render.run,
        exit_code=_run_exit,
        budget=CONTEXT_BUDGET,
    ),
    Tool(
        cli="workflow list",
        handler=list_runs,
        input=ListInput,
        output=ListOutput,
        summary="Workflow runs, newest first.",
        description="Use to find a run's id. Not for one run's details (pallium_workflow_status). Reads state only.",
        authority="observe",
        toolset="workflows",
        route=Route(
            phrasings=(
                "list workflow runs",
                "show recent runs",
                "what runs exist",
                "history of workflow runs",
                "which runs did I start today",
            ),
        ),
        render=render.list_,
    ),
    Tool(
        cli="workflow apply",
        handler=apply,
        input=RunRefInput,
        output=ApplyOutput,
        summary="Bring a workflow run's staged patches into the working tree.",
        description=(
            "Use after reviewing a run's patches (pallium_workflow_status lists them). Not for undoing "
            "(pallium_workflow_revert). Applies each staged patch once under the repository lock; an already "
            "applied patch is left alone; blocked or conflicted patches are skipped."
        ),
        authority="edit",
        toolset="start",
        route=Route(
            phrasings=(
                "apply the patches from the run",
                "bring the run's changes into my working tree",
                "land the staged edits",
                "accept the workflow's patches",
                "merge the run's patches into the tree",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            signals=("runs_finished",),
            prepare="workflow status",
        ),
        positional=("run_id",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=render.apply,
    ),
    Tool(
        cli="workflow revert",
        handler=revert,
        input=RunRefInput,
        output=ApplyOutput,
        summary="Take a workflow run's applied patches back out of the working tree.",
        description=(
            "Use to undo pallium_workflow_apply. Not for discarding unapplied work (it stays staged harmlessly). "
            "Reverses applied patches newest first under the repository lock."
        ),
        authority="admin",
        toolset="workflows",
        route=Route(
            phrasings=(
                "revert the applied patches of the run",
                "undo what the workflow applied",
                "take the run's changes back out",
                "roll back the patches the run applied",
            ),
            arguments={"run_id": "run_id"},
            needs=("run",),
            prepare="workflow status",
        ),
        positional=("run_id",),
        annotations=Annotations(read_only=False, destructive=True, idempotent=True),
        render=render.apply,
    ),
)
