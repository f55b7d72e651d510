"""The loop tools' handlers and declarations."""

from __future__ import annotations

from pathlib import Path

from kernel import paths
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import EX_USAGE, PalliumError
from kernel.tool import CONTEXT_BUDGET, Annotations, Route, Tool
from services.loops import lease, lifecycle, render, ticking
from services.loops.models import (
    ChangeOutput,
    ListInput,
    ListOutput,
    Loop,
    NameInput,
    StartInput,
    StatusInput,
    StatusOutput,
    TickInput,
    TickOutput,
)
from services.loops.store import LoopStore
from services.loops.verdict import exit_code


def _store(ctx: ToolContext) -> LoopStore:
    return ctx.store(LoopStore)


async def start(inp: StartInput, ctx: ToolContext) -> Loop:
    cwd = _cwd(ctx, inp.cwd)
    repo = paths.find_repo_root(cwd, field="cwd")
    location = lifecycle.script_location(ctx, inp.script, repo)
    source = lifecycle.read_script(location)
    args = lifecycle.args_text(inp.args)
    checked = await ctx.call("pallium_workflow_validate", {"source": source})
    if not checked.valid:
        errors = checked.errors
        raise PalliumError(
            "invalid_input",
            f"the loop script is not valid: {errors[0]}",
            hint="see every problem with `pallium workflow validate`",
            details={"field": "script", "errors": errors},
        )
    config = lifecycle.loop_config(checked.meta)
    store = _store(ctx)
    created = store.create(
        name=inp.name,
        script_path=str(location),
        cwd=str(cwd),
        args_json=args,
        threshold=config.threshold,
        cycle_budget_usd=config.cycle_budget_usd,
        lifetime_budget_usd=config.lifetime_budget_usd,
        stale_after_minutes=config.stale_after_minutes,
        max_cycles=config.max_cycles,
        version=lifecycle.pallium_identity(),
        script_hash=lifecycle.script_hash(source),
        now=iso_utc(ctx.clock.now()),
        ceiling=ctx.ceiling,
        task=inp.task.strip() if inp.task and inp.task.strip() else None,
    )
    if not created:
        raise PalliumError(
            "conflict",
            f"a loop named {inp.name!r} exists already",
            hint="choose another name, or see it with `pallium loop status`",
            details={"field": "name", "name": inp.name},
        )
    return lifecycle.to_loop(lifecycle.require(store, inp.name))


async def tick(inp: TickInput, ctx: ToolContext) -> TickOutput:
    return await ticking.tick(ctx, _store(ctx), inp.name, agent_timeout=inp.agent_timeout)


async def status(inp: StatusInput, ctx: ToolContext) -> StatusOutput:
    store = _store(ctx)
    row = lifecycle.require(store, inp.name)
    current = None
    try:
        current = lifecycle.script_hash(lifecycle.read_script(Path(row.script_path)))
        warnings = lifecycle.change_warnings(row, current_hash=current, identity=lifecycle.pallium_identity())
    except PalliumError as exc:
        warnings = [f"the script cannot be read: {exc.message}; the next tick will be an error"]
    return lifecycle.describe(store, row, limit=inp.limit, now=ctx.clock.now(), warnings=warnings)


async def list_loops(inp: ListInput, ctx: ToolContext) -> ListOutput:
    rows = _store(ctx).loops(limit=inp.limit + 1, after=inp.cursor)
    page = rows[: inp.limit]
    more = len(rows) > inp.limit
    return ListOutput(
        loops=[lifecycle.to_loop(r) for r in page], truncated=more, next_cursor=page[-1].name if more else None
    )


async def stop(inp: NameInput, ctx: ToolContext) -> ChangeOutput:
    store = _store(ctx)
    row = lifecycle.require(store, inp.name)
    if row.status != "stopped":
        store.set_status(inp.name, "stopped", now=iso_utc(ctx.clock.now()))
    return ChangeOutput(loop=lifecycle.to_loop(lifecycle.require(store, inp.name)), changed=row.status != "stopped")


async def reset(inp: NameInput, ctx: ToolContext) -> ChangeOutput:
    store = _store(ctx)
    row = lifecycle.require(store, inp.name)
    now = ctx.clock.now()
    # A live tick ends by writing the counters it read when it began, which would undo the reset
    # without a word; a dead tick's cycle is closed without touching them, so that one may go ahead.
    if row.lease_token is not None:
        holder = lease.holder_of(row.lease_owner, row.tick_started_at, row.stale_after_minutes)
        if holder.alive(now):
            raise _tick_in_flight(row.name, row.cycle, holder.owner_pid)
    changed = row.stagnation_count != 0 or row.last_signature is not None or bool(row.signature_history)
    if not store.reset(inp.name, seen_token=row.lease_token, now=iso_utc(now)):
        raise _tick_in_flight(row.name, row.cycle + 1, None)
    return ChangeOutput(loop=lifecycle.to_loop(lifecycle.require(store, inp.name)), changed=changed)


def _tick_in_flight(name: str, cycle: int, pid: int | None) -> PalliumError:
    return PalliumError(
        "conflict",
        f"loop {name!r}: cycle {cycle} is being ticked" + (f" in pid {pid}" if pid else "") + "; nothing was reset",
        hint=f"reset once the tick has ended (`pallium loop status {name}` shows it), before the next one",
        details={"name": name, "cycle": cycle, "pid": pid},
    )


def _cwd(ctx: ToolContext, given: str | None) -> Path:
    if given is None:
        return ctx.cwd.resolve()
    folder = Path(given).expanduser()
    folder = (folder if folder.is_absolute() else ctx.cwd / folder).resolve()
    if not folder.is_dir():
        raise PalliumError(
            "invalid_input",
            f"--cwd {given!r} is not a folder",
            details={"field": "cwd"},
            hint="pass `cwd` (CLI `--cwd`) as an existing folder, or leave it out to use the current one",
        )
    return folder


TOOLS = (
    Tool(
        cli="loop start",
        handler=start,
        input=StartInput,
        output=Loop,
        summary="Start a named loop from a script that declares `meta.kind = 'loop'`; nothing runs yet.",
        description=(
            "Use to set up recurring work that a scheduler (cron, CI, an agent) will tick until it reaches a "
            "terminal state. Not for running a script once (use pallium_workflow_run). Validates the script "
            "through pallium_workflow_validate and records its hash, budgets and Pallium's version; no model calls."
        ),
        authority="consult",
        toolset="loops",
        route=Route(
            phrasings=(
                "start a loop called review-until-clean from review.loop.js",
                "set up a recurring review loop",
                "create a loop that runs until the tests pass",
                "begin a fix-until-green loop with a script",
                "register a loop a scheduler will tick",
            ),
            arguments={"name": "name", "script": "script"},
        ),
        positional=("name", "task"),
        annotations=Annotations(read_only=False, idempotent=False),
        render=render.loop,
        usage_exit=EX_USAGE,
    ),
    Tool(
        cli="loop tick",
        handler=tick,
        input=TickInput,
        output=TickOutput,
        summary="Run one cycle of a loop as a fresh workflow run and record its terminal state.",
        description=(
            "Use from a scheduler or an agent to advance a loop by one observe-act-verify cycle; branch on the "
            "state (exit code: success 0, error 1, no_op 2, blocked 3, exhausted 4, stagnated 5, "
            "already_running 6; a bad command line exits 64). Not for a one-off run (pallium_workflow_run) or a "
            "look (pallium_loop_status). "
            "Spawns the script's agents and spends up to the loop's cycle budget; waits for the cycle to end."
        ),
        authority="consult",
        toolset="loops",
        route=Route(
            phrasings=(
                "tick the loop",
                "run one cycle of review-until-clean",
                "advance the loop by one iteration",
                "run the next iteration of the loop",
                "keep the loop going one more round",
            ),
            arguments={"name": "loop_name"},
            needs=("loop",),
            signals=("loops",),
        ),
        positional=("name",),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=render.tick,
        exit_code=lambda out: exit_code(out.state),
        budget=CONTEXT_BUDGET,
        usage_exit=EX_USAGE,
    ),
    Tool(
        cli="loop status",
        handler=status,
        input=StatusInput,
        output=StatusOutput,
        summary="A loop's verdict, budget and recent cycles with their states, signatures, costs and run ids.",
        description=(
            "Use to see whether a loop is making progress, stuck, spent or mid-tick. Not for the list of loops "
            "(pallium_loop_list) or a child run's details (pallium_workflow_status). Reads Pallium's state only."
        ),
        authority="observe",
        toolset="loops",
        route=Route(
            phrasings=(
                "status of the loop",
                "how is review-until-clean doing",
                "show the loop's recent cycles",
                "did the loop stagnate",
                "the loop's verdict and remaining budget",
            ),
            arguments={"name": "loop_name"},
            needs=("loop",),
            signals=("loops",),
        ),
        positional=("name",),
        render=render.status,
        budget=CONTEXT_BUDGET,
        usage_exit=EX_USAGE,
    ),
    Tool(
        cli="loop list",
        handler=list_loops,
        input=ListInput,
        output=ListOutput,
        summary="Loops by name, with status, cycle and stagnation.",
        description="Use to find a loop. Not for one loop's cycles (pallium_loop_status). Reads state only.",
        authority="observe",
        toolset="loops",
        route=Route(
            phrasings=(
                "list my loops",
                "what loops exist",
                "show all loops with their status",
                "which loops are set up here",
                "find a loop by name",
            ),
            signals=("loops",),
        ),
        render=render.list_,
        usage_exit=EX_USAGE,
    ),
    Tool(
        cli="loop stop",
        handler=stop,
        input=NameInput,
        output=ChangeOutput,
        summary="Stop a loop: later ticks are refused; its record and cycles stay.",
        description=(
            "Use when a loop's work is done or should not go on. Not for clearing a stagnation "
            "(pallium_loop_reset). A tick already in flight finishes and is recorded. Writes state only."
        ),
        authority="consult",
        toolset="loops",
        route=Route(
            phrasings=(
                "stop the loop",
                "halt review-until-clean",
                "end the loop, its work is done",
                "cancel the recurring loop",
                "stop ticking the loop for good",
            ),
            arguments={"name": "loop_name"},
            needs=("loop",),
            signals=("loops",),
        ),
        positional=("name",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=render.change,
        usage_exit=EX_USAGE,
    ),
    Tool(
        cli="loop reset",
        handler=reset,
        input=NameInput,
        output=ChangeOutput,
        summary="Clear a loop's stagnation counter and signatures so it ticks again; the cycle count stays.",
        description=(
            "Use after a loop stagnated and you changed something (the script, the task, the code) that should "
            "let it move. Not for stopping a loop (pallium_loop_stop); spend is not reset. Refused with conflict "
            "while a tick is in flight (that tick would write its counters back). Writes state only."
        ),
        authority="consult",
        toolset="loops",
        route=Route(
            phrasings=(
                "reset the loop's stagnation",
                "the loop stagnated, let it tick again",
                "clear the stagnation counter of a loop",
                "unstick the stagnated loop",
            ),
            arguments={"name": "loop_name"},
            needs=("loop",),
            signals=("loops",),
        ),
        positional=("name",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=render.change,
        usage_exit=EX_USAGE,
    ),
)
