"""The team tools that run a team and look at it while it runs: run, status, attach, watch.

Split from `tools.py` (the team's set-up) along the seam between making a team and running it:
these hold a run's lease or read what one left; the others only write the team's record.
"""

from __future__ import annotations

from kernel import authority
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.runstore import RunStore
from kernel.tool import CONTEXT_BUDGET, Annotations
from services.teams import models, views
from services.teams.roster import reconcile, require_team
from services.teams.store import TeamStore
from services.teams.tool_kit import _BOOKKEEPING, _SET, _now, _r_watch, _run_exit, _store, _team_ceiling, _tool


async def status(inp: models.SharedStatusInput | models.StatusInput, ctx: ToolContext) -> models.StatusOutput:
    from kernel.scaleout.credentials import database_url

    store = _store(ctx)
    given = getattr(inp, "database", None)  # (a plain StatusInput from code asking about this home's team)
    url = database_url(given) if given else None
    if url is None:
        try:
            require_team(store, inp.team)
        except PalliumError as exc:  # a team this home does not have: the default shared database may
            if exc.code != "not_found" or (url := database_url(None)) is None:
                raise
    if url is not None:
        import asyncio

        from services.teams import shared

        def read() -> models.StatusOutput:
            with shared.reader(url, inp.team) as (copy, team, note):
                told = views.describe(copy, team, stale_after_minutes=inp.stale_after_minutes, limit=inp.limit)
                return told.model_copy(update={"notes": [note]})

        return await asyncio.to_thread(read)
    team = require_team(store, inp.team)
    done = reconcile(store, inp.team, now=_now(ctx), stale_after_minutes=inp.stale_after_minutes)
    return views.describe(
        store,
        require_team(store, team.id),
        stale_after_minutes=inp.stale_after_minutes,
        limit=inp.limit,
        reconciled=done,
    )


async def attach(inp: models.StatusInput, ctx: ToolContext) -> models.StatusOutput:
    from kernel import leases

    store = _store(ctx)
    require_team(store, inp.team)
    leases.reconcile(RunStore(store.db))  # a dead `team run`: its leftover workers are killed
    done = reconcile(store, inp.team, now=_now(ctx), stale_after_minutes=inp.stale_after_minutes)
    return views.describe(
        store,
        require_team(store, inp.team),
        stale_after_minutes=inp.stale_after_minutes,
        limit=inp.limit,
        reconciled=done,
    )


async def run(inp: models.RunInput, ctx: ToolContext) -> models.RunOutput:
    from kernel.scaleout.credentials import database_url
    from services.teams.scheduler import RunOptions, run_team

    store = _store(ctx)
    team = require_team(store, inp.team)
    if any(m.mode == "edit" for m in store.members(team.id)):
        authority.check("pallium_team_run", "edit", _team_ceiling(team, ctx))
    if team.status == "parked" and (team.budget_usd is None or team.spend_usd < team.budget_usd):
        store.set_team_status(team.id, "active", now=_now(ctx))
    options = RunOptions(
        agent_timeout=inp.agent_timeout,
        stale_after_minutes=inp.stale_after_minutes,
        max_concurrent=inp.max_concurrent,
        max_rounds=inp.max_rounds,
        database=database_url(inp.database),
        git_remote=inp.git_remote,
    )
    result = await run_team(store.db, team.id, options, clock=ctx.clock)
    return models.RunOutput(
        team=views.to_team(require_team(store, team.id)),
        rounds=result.rounds,
        turns_taken=sum(t.state != "skipped" for t in result.turns),  # a turn a limit refused was not taken
        turns=[
            models.TurnSummary(member=t.member, turn_id=t.turn_id, state=t.state, detail=t.detail[:500])
            for t in result.turns[-100:]
        ],
        reconciled_interrupted=result.reconciled_interrupted,
        stopped=result.stopped,
        parked=result.parked,
        reason=result.reason,
        failed_turns=sum(t.state in ("failed", "malformed") for t in result.turns),
        next_step=views.next_step(store, require_team(store, team.id)),
    )


async def watch(inp: models.WatchInput, ctx: ToolContext) -> models.WatchOutput:
    import asyncio
    import sys

    store = _store(ctx)
    team = require_team(store, inp.team)
    terminal = ctx.origin == "cli" and sys.stdout.isatty()
    frames = inp.frames or (1_000_000 if terminal else 1)
    shown: list[str] = []
    view, done = "", 0
    while done < frames:
        team = require_team(store, inp.team)
        view = views.watch_view(store, team)
        done += 1
        if ctx.origin == "cli" and frames > 1:
            if terminal:
                sys.stdout.write("\x1b[H\x1b[2J" + view + "\n")
            else:  # piped: each line once, when it first appears (a log, not a screen)
                new = [line for line in view.splitlines() if line not in shown]
                shown = view.splitlines()
                sys.stdout.write("".join(line + "\n" for line in new))
            sys.stdout.flush()
        await ctx.progress.update(done, frames if inp.frames else None, message=view)
        if done >= frames or (not inp.frames and terminal and _settled(store, team)):
            break
        await asyncio.sleep(inp.interval)
    return models.WatchOutput(team=team.id, frames=done, view=view, next_step=views.next_step(store, team))


def _settled(store: TeamStore, team) -> bool:
    """Nothing left to watch: no turn running and nobody eligible for one."""
    from services.teams.scheduler import eligible_members

    return not store.turns(team.id, states=("started",), limit=1) and not eligible_members(store, team)


# ---------------------------------------------------------------- declarations


TOOLS = (
    _tool(
        "team status",
        status,
        models.SharedStatusInput,
        models.StatusOutput,
        "A team's members with evidence-based state (idle, waiting, running, stale, dead), board, patches and spend.",
        "Use to see what each member did and is doing, and what it cost (providers with unknown cost are listed, "
        "never shown as $0). Not for mail (pallium_team_inbox). Closes turns whose process is gone as "
        "interrupted; no model calls.",
        "observe",
        positional=("team",),
        annotations=_BOOKKEEPING,
        render=views.render_status,
        budget=CONTEXT_BUDGET,
    ),
    _tool(
        "team run",
        run,
        models.RunInput,
        models.RunOutput,
        "Run a team's rounds: eligible members take turns concurrently until none is eligible, it stops, parks "
        "or reaches --max-rounds.",
        "Use to let the team work; run it again after a crash or kill to resume interrupted members on their own "
        "sessions (no duplicate is spawned). Not for a look (pallium_team_status). Spends: one provider call per "
        "turn plus gate calls; needs edit when a member edits. Waits for the rounds to end.",
        "consult",
        positional=("team",),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=views.render_run,
        budget=CONTEXT_BUDGET,
        exit_code=_run_exit,
    ),
    _tool(
        "team attach",
        attach,
        models.StatusInput,
        models.StatusOutput,
        "Reattach to a team after a crash: reconcile interrupted turns, kill leftover workers, show the status.",
        "Use after a `team run` died (kill -9, reboot) to see who was interrupted; then pallium_team_run resumes "
        "them. Not for a plain look (pallium_team_status). Kills process groups the dead run left; no model "
        "calls.",
        "consult",
        positional=("team",),
        annotations=_SET,
        render=views.render_status,
        budget=CONTEXT_BUDGET,
    ),
    _tool(
        "team watch",
        watch,
        models.WatchInput,
        models.WatchOutput,
        "A live view of a team: members, their turns, board, patches and spend, refreshed until the team "
        "settles (plain lines when piped).",
        "Use in a second terminal while pallium_team_run works, as split panes would show it. Not for one "
        "look from an agent (pallium_team_status is smaller). Reads state only; over MCP each refresh is a "
        "progress message.",
        "observe",
        positional=("team",),
        render=_r_watch,
        budget=CONTEXT_BUDGET,
    ),
)
