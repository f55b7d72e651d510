"""The team tools: start, roster, run, gates, plan review and patches (the board and mail are in `board_tools.py`).

Each handler works over the store and the kernel; its declaration follows in TOOLS.
"""

from __future__ import annotations

import secrets
import time
import uuid
from pathlib import Path

from kernel import authority, paths
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.runstore import RunStore
from kernel.tool import CONTEXT_BUDGET, SEARCH_BUDGET, Annotations, Tool
from services.teams import models, views
from services.teams.roster import LEAD, reconcile, require_member, require_team, send_message
from services.teams.routes import ROUTES
from services.teams.store import TeamStore
from services.teams.templates import TEMPLATES

INBOX_BUDGET = CONTEXT_BUDGET  # whole messages (up to 2,000 characters each) per page
DEFAULT_MEMBER_CALLS = 20  # the call cap of a member whose provider reports no cost, unless one is given


def _store(ctx: ToolContext) -> TeamStore:
    return ctx.store(TeamStore)


def _now(ctx: ToolContext) -> str:
    return iso_utc(ctx.clock.now())


def _active(store: TeamStore, team_id: str):
    team = require_team(store, team_id)
    if team.status == "stopped":
        raise PalliumError(
            "conflict",
            f"team {team_id} is stopped",
            hint="start a new team with `pallium team start`",
            details={"team": team_id, "status": team.status},
        )
    return team


# ---------------------------------------------------------------- team


async def start(inp: models.StartInput, ctx: ToolContext) -> models.StartOutput:
    folder = Path(inp.cwd).expanduser() if inp.cwd else ctx.cwd
    folder = (folder if folder.is_absolute() else ctx.cwd / folder).resolve()
    paths.find_repo_root(folder, field="cwd")
    store = _store(ctx)
    now = _now(ctx)
    team_id = inp.id or f"team-{secrets.token_hex(5)}"
    if inp.template and inp.provider:
        _check_provider(inp.provider, "provider")
    with store.db.transaction():
        created = store.create_team(
            team_id=team_id, goal=inp.goal, cwd=str(folder), budget_usd=inp.budget_usd, template=inp.template, now=now
        )
        if created:
            store.set_limits(team_id, ceiling=ctx.ceiling, max_calls=inp.max_calls)
            _add_lead(store, team_id, now)
            for member in TEMPLATES[inp.template].members if inp.template else ():
                _add_member(
                    store, team_id, member.name, inp.provider, None, member.role, member.mode, False, None, None, now
                )
                # A template's members start with the goal in their mailbox, so the first `team run`
                # has work for each of them instead of finding nobody eligible.
                send_message(
                    store, team_id, sender=LEAD, recipient=member.name, body=_kickoff(inp.goal, member.role), now=now
                )
    team = require_team(store, team_id)
    warnings = [] if created else _existing(team, inp)
    members = store.members(team_id)
    warnings += [w for m in members if created and not m.external for w in _cost_warnings(team, m)][:1]
    return models.StartOutput(
        team=views.to_team(team),
        members=[views.to_member(store, m) for m in members],
        existed=not created,
        warnings=warnings,
        next_step=views.next_step(store, team),
    )


def _existing(team, inp: models.StartInput) -> list[str]:
    """What a `team start --id` of an existing team did not change, and the command that would."""
    said = []
    if inp.budget_usd is not None and inp.budget_usd != team.budget_usd:
        said.append(
            f"team {team.id} already exists; its budget stays {views.spend_text(team)}: change it with "
            f"`pallium team budget {team.id} --usd {inp.budget_usd:g}`"
        )
    if inp.goal != team.goal:
        said.append(f"team {team.id} already exists with another goal; it keeps its own: {team.goal[:200]}")
    if team.status != "active":
        said.append(f"team {team.id} is {team.status}: `pallium team resume {team.id}` starts it again")
    return said or [f"team {team.id} already exists; answered unchanged"]


def _add_lead(store: TeamStore, team_id: str, now: str) -> None:
    store.add_member(
        team_id=team_id,
        name=LEAD,
        provider="external",
        model=None,
        role="the team's lead",
        mode="read-only",
        requested_mode="read-only",
        external=True,
        session_id=None,
        plan_required=False,
        budget_usd=None,
        heartbeat_at=time.time(),
        now=now,
    )


def _kickoff(goal: str, role: str) -> str:
    """The first mail of a member spawned on a team with a goal: what makes its first `team run` turn do work."""
    yours = f"Your role: {role}\n\n" if role.strip() else ""
    return (
        f"The team's goal: {goal}\n\n{yours}Work on it in your role: claim a task on the board that fits it, or "
        "add the tasks the goal needs (`add_tasks`) and claim one. Send your findings to lead (and to a teammate "
        "when they concern its part), then go idle."
    )


def _add_member(
    store: TeamStore,
    team_id: str,
    name: str,
    provider: str | None,
    model: str | None,
    role: str,
    mode: str,
    plan_required: bool,
    budget: float | None,
    max_calls: int | None,
    now: str,
) -> bool:
    from kernel.providers.dispatcher import resolve_provider

    resolved = resolve_provider(provider)
    session = str(uuid.uuid4()) if resolved == "claude" else None  # minted before its first turn
    if max_calls is None and not reports_cost(resolved):
        max_calls = DEFAULT_MEMBER_CALLS
    added = store.add_member(
        team_id=team_id,
        name=name,
        provider=resolved,
        model=model,
        role=role,
        mode="read-only" if plan_required else mode,
        requested_mode=mode,
        external=False,
        session_id=session,
        plan_required=plan_required,
        budget_usd=budget,
        heartbeat_at=None,
        now=now,
    )
    if added:
        store.update_member(team_id, name, max_calls=max_calls)
    return added


def reports_cost(provider: str) -> bool:
    """Whether the provider's calls say what they cost (claude's envelope does; codex never does, and a
    wrapper only when it writes a usage file, which cannot be known before it runs)."""
    return provider == "claude"


def _cost_warnings(team, member) -> list[str]:
    if reports_cost(member.provider):
        return []
    cap = f"capped at {member.max_calls} calls" if member.max_calls else "not capped"
    budget = " budgets in USD cannot bind on it;" if team.budget_usd is not None or member.budget_usd else ""
    return [
        f"{member.provider} reports no cost:{budget} {member.name} is {cap} "
        f"(change with `pallium team budget {team.id} --member {member.name} --calls N`)"
    ]


def _check_provider(provider: str, field: str) -> None:
    """Refuse a provider no call could reach: not built in and no wrapper command configured."""
    import os

    from kernel.providers.dispatcher import BUILT_IN, resolve_provider, wrapper_variable

    resolved = resolve_provider(provider)
    if resolved in BUILT_IN or os.environ.get(wrapper_variable(resolved)):
        return
    raise PalliumError(
        "invalid_input",
        f"unknown provider {resolved!r}: not one of {', '.join(BUILT_IN)} and no {wrapper_variable(resolved)} is set",
        hint=f"pass `provider` as one of {', '.join(BUILT_IN)}, or set {wrapper_variable(resolved)} to the "
        "wrapper's command line",
        details={"field": field, "provider": resolved},
    )


async def template_list(inp: models.EmptyInput, ctx: ToolContext) -> models.TemplateList:
    return models.TemplateList(templates=[_template(name) for name in TEMPLATES])


async def template_show(inp: models.TemplateShowInput, ctx: ToolContext) -> models.Template:
    if inp.name not in TEMPLATES:
        raise PalliumError(
            "not_found",
            f"no team template {inp.name!r}",
            hint=f"pass one of {', '.join(TEMPLATES)} as `name`; list them with `pallium team template list`",
            details={"field": "name"},
        )
    return _template(inp.name)


def _template(name: str) -> models.Template:
    t = TEMPLATES[name]
    return models.Template(
        name=t.name,
        description=t.description,
        members=[models.TemplateMember(name=m.name, role=m.role, mode=m.mode) for m in t.members],
    )


async def spawn(inp: models.SpawnInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    team = _active(store, inp.team)
    ceiling = _team_ceiling(team, ctx)
    if inp.mode == "edit" and not inp.plan_required:
        authority.check("pallium_team_spawn", "edit", ceiling)
    _check_provider(inp.provider or "", "provider")
    if inp.budget_usd is not None and team.budget_usd is not None and inp.budget_usd > team.budget_usd:
        raise PalliumError(
            "invalid_input",
            f"a member budget of ${inp.budget_usd:g} is above team {team.id}'s ${team.budget_usd:g}",
            hint=f"pass `budget_usd` of at most {team.budget_usd:g}, or raise the team's with "
            f"`pallium team budget {team.id} --usd N`",
            details={"field": "budget_usd", "team_budget_usd": team.budget_usd},
        )
    now = _now(ctx)
    with store.db.transaction():
        added = _add_member(
            store,
            inp.team,
            inp.name,
            inp.provider,
            inp.model,
            inp.role,
            inp.mode,
            inp.plan_required,
            inp.budget_usd,
            inp.max_calls,
            now,
        )
    if not added:
        raise PalliumError(
            "conflict",
            f"{inp.name!r} is already on team {inp.team}'s roster; nothing was spawned",
            hint=f"pick another `name`, or see the roster with `pallium team status {inp.team}`",
            details={"field": "name", "name": inp.name},
        )
    member = require_member(store, inp.team, inp.name)
    return models.MemberOutput(
        member=views.to_member(store, member),
        warnings=_cost_warnings(team, member),
        next_step=views.next_step(store, require_team(store, team.id)),
    )


def _team_ceiling(team, ctx: ToolContext) -> str:
    """The lower of this call's ceiling and the one the team was started under: a later call never raises it."""
    if team.ceiling is None or not authority.allows(ctx.ceiling, team.ceiling):
        return ctx.ceiling
    return team.ceiling


async def join(inp: models.JoinInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    _active(store, inp.team)
    existing = store.member(inp.team, inp.as_)
    if existing is not None and not existing.external:
        raise PalliumError(
            "conflict",
            f"{inp.as_!r} is a scheduled member of team {inp.team}; join under another name",
            hint="pass another name as `as` (CLI --as)",
            details={"field": "as"},
        )
    if existing is None:
        store.add_member(
            team_id=inp.team,
            name=inp.as_,
            provider="external",
            model=None,
            role=inp.role,
            mode="read-only",
            requested_mode="read-only",
            external=True,
            session_id=None,
            plan_required=False,
            budget_usd=None,
            heartbeat_at=time.time(),
            now=_now(ctx),
        )
    else:
        store.update_member(inp.team, inp.as_, heartbeat_at=time.time())
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.as_)))


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


async def stop(inp: models.TeamInput, ctx: ToolContext) -> models.TeamOutput:
    store = _store(ctx)
    require_team(store, inp.team)
    with store.db.transaction():
        store.set_team_status(inp.team, "stopped", now=_now(ctx))
        store.log(inp.team, "stopped", {}, now=_now(ctx))
    return models.TeamOutput(team=views.to_team(require_team(store, inp.team)))


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


# ---------------------------------------------------------------- board


async def approve(inp: models.ApproveInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    if store.recall(inp.team, inp.request_id):
        return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))
    _active(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    waiting = member.turn_count > 0  # it has taken a turn, and a plan-required member's turns send its plan
    if not member.plan_required or member.plan_status == "approved" or not waiting:
        raise PalliumError(
            "conflict",
            f"{member.name} has no plan waiting for approval"
            + ("" if not member.plan_required or member.plan_status == "approved" else " (it has not sent one yet)"),
            hint=f"see plan states with `pallium team status {inp.team}`",
            details={"field": "member"},
        )
    if member.requested_mode == "edit":
        authority.check("pallium_team_approve", "edit", _team_ceiling(require_team(store, inp.team), ctx))
    now = _now(ctx)
    with store.db.transaction():
        store.update_member(
            inp.team,
            member.name,
            plan_status="approved",
            mode=member.requested_mode,
            status="idle",
            status_reason=None,
            nudged=True,
        )
        store.send(
            team_id=inp.team,
            sender=LEAD,
            recipient=member.name,
            kind="mail",
            now=now,
            body=f"Your plan is approved; go ahead (mode: {member.requested_mode}).",
        )
        store.remember(inp.team, inp.request_id, tool="approve", ref=member.name, now=now)
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))


async def reject(inp: models.RejectInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    if store.recall(inp.team, inp.request_id):
        return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))
    _active(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    if not member.plan_required or member.plan_status == "approved":
        raise PalliumError(
            "conflict",
            f"{member.name} has no plan waiting for review",
            hint=f"see plan states with `pallium team status {inp.team}`",
            details={"field": "member"},
        )
    now = _now(ctx)
    with store.db.transaction():
        store.update_member(inp.team, member.name, status="idle", status_reason="plan rejected; revising")
        store.send(
            team_id=inp.team,
            sender=LEAD,
            recipient=member.name,
            kind="mail",
            now=now,
            body=f"Your plan was rejected. Revise it and submit a new one. Feedback: {inp.feedback}",
        )
        store.remember(inp.team, inp.request_id, tool="reject", ref=member.name, now=now)
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))


async def member_stop(inp: models.MemberInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    require_team(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    busy = store.turns(inp.team, member=member.name, states=("started",), limit=1)
    store.update_member(
        inp.team,
        member.name,
        **({"stop_requested": True} if busy else {"status": "stopped", "status_reason": "stopped by the lead"}),
    )
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))


async def member_restart(inp: models.RestartInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    _active(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    reconcile(store, inp.team, now=_now(ctx), stale_after_minutes=inp.stale_after_minutes, force_member=member.name)
    store.update_member(inp.team, member.name, status="idle", status_reason=None, stop_requested=False, nudged=True)
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))


async def member_steer(inp: models.SteerInput, ctx: ToolContext) -> models.SendOutput:
    store = _store(ctx)
    if done := store.recall(inp.team, inp.request_id):
        row = store.messages(inp.team, recipient=None, after=int(done.ref) - 1, limit=1)[0]
        return models.SendOutput(message=views.to_message(row))
    _active(store, inp.team)
    require_member(store, inp.team, inp.member)
    now = _now(ctx)
    with store.db.transaction():
        message_id = send_message(
            store,
            inp.team,
            sender=LEAD,
            recipient=inp.member,
            kind="steer",
            now=now,
            body=f"STEERING DIRECTIVE FROM LEAD — {inp.directive}",
        )
        store.remember(inp.team, inp.request_id, tool="member_steer", ref=str(message_id), now=now)
    if (m := store.member(inp.team, inp.member)) and m.status in ("blocked", "error"):
        store.update_member(inp.team, inp.member, status="idle", status_reason=None)
    row = store.messages(inp.team, recipient=None, after=message_id - 1, limit=1)[0]
    return models.SendOutput(message=views.to_message(row))


# ---------------------------------------------------------------- gate and patches


async def gate_set(inp: models.GateSetInput, ctx: ToolContext) -> models.TeamOutput:
    store = _store(ctx)
    _active(store, inp.team)
    hooks = list(dict.fromkeys(inp.hooks))
    if hooks and not (inp.prompt or "").strip():
        raise PalliumError(
            "invalid_input",
            "a gate needs the rule it applies",
            hint="pass `prompt` (CLI: the argument after the team), or `hooks: []` to clear the gate",
            details={"field": "prompt"},
        )
    if inp.auto_apply:
        authority.check("pallium_team_gate_set", "edit", ctx.ceiling)
    store.set_gate(
        inp.team,
        prompt=inp.prompt if hooks else None,
        hooks=hooks,
        provider=inp.provider,
        auto_apply=inp.auto_apply,
        now=_now(ctx),
    )
    return models.TeamOutput(team=views.to_team(require_team(store, inp.team)))


async def budget(inp: models.BudgetInput, ctx: ToolContext) -> models.TeamOutput:
    store = _store(ctx)
    team = require_team(store, inp.team)
    if inp.usd is None and inp.calls is None:
        raise PalliumError(
            "invalid_input",
            "say what to change: `usd` (CLI --usd) and/or `calls` (CLI --calls)",
            hint=f"e.g. `pallium team budget {team.id} --usd 2 --calls 100`",
            details={"field": "usd"},
        )
    now = _now(ctx)
    with store.db.transaction():
        if inp.member is not None:
            member = require_member(store, team.id, inp.member)
            if inp.usd is not None and team.budget_usd is not None and inp.usd > team.budget_usd:
                raise PalliumError(
                    "invalid_input",
                    f"a member budget of ${inp.usd:g} is above team {team.id}'s ${team.budget_usd:g}",
                    hint=f"raise the team's first: `pallium team budget {team.id} --usd N`",
                    details={"field": "usd", "team_budget_usd": team.budget_usd},
                )
            changes = {k: v for k, v in (("budget_usd", inp.usd), ("max_calls", inp.calls)) if v is not None}
            store.update_member(team.id, member.name, **changes)
            if member.status == "error" and "budget" in (member.status_reason or ""):
                store.update_member(team.id, member.name, status="idle", status_reason=None)
        else:
            changes = {k: v for k, v in (("budget_usd", inp.usd), ("max_calls", inp.calls)) if v is not None}
            store.set_limits(team.id, **changes)
        store.log(team.id, "budget_set", {"member": inp.member, "usd": inp.usd, "calls": inp.calls}, now=now)
        team = require_team(store, team.id)
        if team.status == "parked" and not views.spent(team):
            store.set_team_status(team.id, "active", now=now)  # more budget: the team may run again
    return models.TeamOutput(team=views.to_team(require_team(store, team.id)))


async def resume(inp: models.TeamInput, ctx: ToolContext) -> models.TeamOutput:
    store = _store(ctx)
    team = require_team(store, inp.team)
    if team.status == "active":
        return models.TeamOutput(team=views.to_team(team))
    if views.spent(team):
        raise PalliumError(
            "budget_exhausted",
            f"team {team.id} is {team.status} and its budget is spent ({views.spend_text(team)}, "
            f"{team.calls} of {team.max_calls or 'unlimited'} calls)",
            hint=f"give it more first: `pallium team budget {team.id} --usd N --calls N`",
            details={"team": team.id, "status": team.status},
        )
    now = _now(ctx)
    with store.db.transaction():
        store.set_team_status(team.id, "active", now=now)
        for m in store.members(team.id):
            if not m.external and m.status == "stopped" and m.status_reason == "the team was stopped":
                store.update_member(team.id, m.name, status="idle", status_reason=None, nudged=True)
        store.log(team.id, "resumed", {"from": team.status}, now=now)
    return models.TeamOutput(team=views.to_team(require_team(store, team.id)))


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


_WRITE = Annotations(read_only=False, idempotent=False)
_SET = Annotations(read_only=False, idempotent=True)
# Observe-level reads that keep Pallium's own bookkeeping (closing dead turns, delivery receipts):
# read-only by the annotation rule (docs/tools.md), as `workflow status` reconciling leases is.
_BOOKKEEPING = Annotations(read_only=True, idempotent=True)
_PLAIN = Annotations()


def _run_exit(out: models.RunOutput) -> int:
    """1 when turns were taken and every one failed: a scheduler branching on `team run` sees the failure."""
    return 1 if out.turns_taken and out.failed_turns == out.turns_taken else 0


def _r_team(out: models.TeamOutput) -> str:
    t = out.team
    gate = f", gate on {', '.join(t.gate_hooks)}" if t.gate_hooks else ""
    unknown = f" + {t.unknown_cost_calls} call(s) of unknown cost" if t.unknown_cost_calls else ""
    return f"team {t.id}: {t.status}{gate}, spend ${t.spend_usd:.4f}{unknown}"


def _r_start(out: models.StartOutput) -> str:
    names = ", ".join(m.name for m in out.members)
    scheduled = [m for m in out.members if not m.external]
    step = (
        f"pallium team run {out.team.id}"
        if scheduled
        else f'pallium team spawn {out.team.id} NAME --role "what it does"'
    )
    lines = [f"team {out.team.id}: {out.team.status}; roster {names}", *(f"  warning: {w}" for w in out.warnings)]
    return "\n".join([*lines, f"  next: {out.next_step or step}"])


def _r_member(out: models.MemberOutput) -> str:
    m = out.member
    plan = f", plan {m.plan_status}" if m.plan_required else ""
    lines = [f"{m.name}: {m.state}/{m.status}, {m.provider} {m.mode}{plan}, turns {m.turn_count}"]
    lines += [f"  warning: {w}" for w in out.warnings]
    if out.next_step:
        lines.append(f"  next: {out.next_step}")
    return "\n".join(lines)


def _r_send(out: models.SendOutput) -> str:
    m = out.message
    return f"message #{m.id} {m.sender} -> {m.recipient} queued"


def _r_watch(out: models.WatchOutput) -> str:
    return (out.view if out.frames <= 1 else f"watched team {out.team}: {out.frames} refresh(es)") + (
        f"\n  next: {out.next_step}" if out.next_step else ""
    )


def _r_templates(out: models.TemplateList) -> str:
    return "\n".join(f"{t.name:<20} {t.description}" for t in out.templates)


def _r_template(out: models.Template) -> str:
    return "\n".join([f"{out.name}: {out.description}", *(f"  {m.name} ({m.mode}): {m.role}" for m in out.members)])


def _tool(
    cli: str,
    handler,
    inp,
    out,
    summary: str,
    description: str,
    level: str,
    *,
    positional=(),
    annotations: Annotations = _PLAIN,
    render=None,
    budget: int | None = SEARCH_BUDGET,
    trim=None,
    exit_code=None,
) -> Tool:
    return Tool(
        cli=cli,
        handler=handler,
        input=inp,
        output=out,
        summary=summary,
        description=description,
        authority=level,
        toolset="teams",
        positional=positional,
        annotations=annotations,  # type: ignore[arg-type]
        render=render,
        budget=budget,
        trim=trim,
        exit_code=exit_code,
        route=ROUTES[cli],
    )


TOOLS = (
    _tool(
        "team start",
        start,
        models.StartInput,
        models.StartOutput,
        "Start an agent team for a goal: a lead, an empty board and mailbox, optionally a template's roster.",
        "Use when several agents should work on one goal over many turns and talk to each other (reviews from "
        "several angles, a debate, a bug hunt overnight). Not for one-off fan-out of agents (use "
        "pallium_workflow_run) or a recurring job (pallium_loop_start). Writes state only; no model calls until "
        "pallium_team_run.",
        "consult",
        positional=("goal",),
        annotations=_WRITE,
        render=_r_start,
    ),
    _tool(
        "team template list",
        template_list,
        models.EmptyInput,
        models.TemplateList,
        "The team templates: parallel-review and adversarial-debate, with their rosters.",
        "Use to pick `template` for pallium_team_start. Not for a team's own roster (pallium_team_status). "
        "Reads built-in data only.",
        "observe",
        render=_r_templates,
    ),
    _tool(
        "team template show",
        template_show,
        models.TemplateShowInput,
        models.Template,
        "One team template's members, roles and modes.",
        "Use before starting a team from a template. Not for listing them all (pallium_team_template_list). "
        "Reads built-in data only.",
        "observe",
        positional=("name",),
        render=_r_template,
    ),
    _tool(
        "team spawn",
        spawn,
        models.SpawnInput,
        models.MemberOutput,
        "Add a scheduled member to a team: a provider session that takes turns on the board and mailbox.",
        "Use to give a team another agent with its own role. Not for joining yourself (pallium_team_join: "
        "external, never scheduled). A claude member's session id is minted now; an edit member needs authority "
        "edit and works in its own worktree. Writes state only; its turns spend at pallium_team_run.",
        "consult",
        positional=("team", "name"),
        annotations=_WRITE,
        render=_r_member,
    ),
    _tool(
        "team join",
        join,
        models.JoinInput,
        models.MemberOutput,
        "Join a team as an external member (you): on the roster, able to send and read mail, never scheduled.",
        "Use when you, the calling agent, take part in a team beside its scheduled members; join again to refresh "
        "your heartbeat (external members show stale after 15 minutes). Not for adding an agent Pallium runs "
        "(pallium_team_spawn). Writes state only.",
        "consult",
        positional=("team",),
        annotations=_SET,
        render=_r_member,
    ),
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
        "team approve",
        approve,
        models.ApproveInput,
        models.MemberOutput,
        "Approve a plan-required member's plan: it may now work in the mode it was spawned with.",
        "Use after reading the plan the member sent the lead. Not for feedback on a plan "
        "(pallium_team_reject). Needs edit when the member edits. Writes state only.",
        "consult",
        positional=("team", "member"),
        annotations=_SET,
        render=_r_member,
    ),
    _tool(
        "team reject",
        reject,
        models.RejectInput,
        models.MemberOutput,
        "Reject a member's plan with feedback, mailed to it; it stays read-only and revises.",
        "Use when a plan is wrong or incomplete. Not for approving (pallium_team_approve). Writes state only.",
        "consult",
        positional=("team", "member", "feedback"),
        annotations=_WRITE,
        render=_r_member,
    ),
    _tool(
        "team gate set",
        gate_set,
        models.GateSetInput,
        models.TeamOutput,
        "Set (or clear) a team's gate: a model that approves tasks created, tasks completed, members going idle.",
        "Use to hold a team to a rule (tests must pass, evidence cited). Not for a workflow's gate "
        "(pallium_workflow_gate_list). Each judged event costs one gate model call, added to spend; "
        "`auto_apply` needs edit.",
        "consult",
        positional=("team", "prompt"),
        annotations=_SET,
        render=_r_team,
    ),
    _tool(
        "team stop",
        stop,
        models.TeamInput,
        models.TeamOutput,
        "Stop a team: a running `team run` ends at the next round; its record, mail and patches stay.",
        "Use when the team's work is done or should not go on. Not for one member (pallium_team_member_stop). "
        "Writes state only.",
        "consult",
        positional=("team",),
        annotations=_SET,
        render=_r_team,
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
        "team member stop",
        member_stop,
        models.MemberInput,
        models.MemberOutput,
        "Stop one member at its next turn boundary; its record and session stay.",
        "Use to take a member out of the rounds. Not for the whole team (pallium_team_stop). Writes state only.",
        "consult",
        positional=("team", "member"),
        annotations=_SET,
        render=_r_member,
    ),
    _tool(
        "team member restart",
        member_restart,
        models.RestartInput,
        models.MemberOutput,
        "Restart a stopped, failed or stuck member: a stale turn is taken back and it takes a new turn.",
        "Use when a member is stopped, in error, or its turn is stale. Not for a nudge to a healthy member "
        "(pallium_team_nudge). Writes state only.",
        "consult",
        positional=("team", "member"),
        annotations=_SET,
        render=_r_member,
    ),
    _tool(
        "team member steer",
        member_steer,
        models.SteerInput,
        models.SendOutput,
        "Send a member a steering directive from the lead, delivered before its other mail.",
        "Use to change a member's course. Not for ordinary messages (pallium_team_send). Writes state only.",
        "consult",
        positional=("team", "member", "directive"),
        annotations=_WRITE,
        render=_r_send,
    ),
    _tool(
        "team budget",
        budget,
        models.BudgetInput,
        models.TeamOutput,
        "Set a team's (or one member's) budget in USD and its cap on provider calls; a parked team with room "
        "again becomes active.",
        "Use when a team parked on its budget or call cap, or to bound a provider that reports no cost. Not "
        "for stopping a team (pallium_team_stop). Writes state only.",
        "consult",
        positional=("team",),
        annotations=_SET,
        render=_r_team,
    ),
    _tool(
        "team resume",
        resume,
        models.TeamInput,
        models.TeamOutput,
        "Make a parked or stopped team active again, with its board, mail, sessions and staged patches.",
        "Use after pallium_team_stop, or once pallium_team_budget gave a parked team room; then "
        "pallium_team_run. Not for a member in error (pallium_team_member_restart). Refused while the budget "
        "is still spent. Writes state only.",
        "consult",
        positional=("team",),
        annotations=_SET,
        render=_r_team,
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
