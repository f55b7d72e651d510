"""The team tools' handlers: start, roster, board, mail, run, gates, plan review and patches.

Declarations are in `declarations.py`; this module holds what each call does, over the store and
the kernel, and nothing about MCP or argv.
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
from kernel.runstore import SCHEMA as RUN_SCHEMA
from kernel.runstore import RunStore
from kernel.tool import Annotations, Route, Tool
from services.teams import models, views
from services.teams.board import add_task, complete_task
from services.teams.roster import LEAD, reconcile, require_member, require_team, send_message
from services.teams.store import SCHEMA, TeamStore
from services.teams.templates import TEMPLATES


def _store(ctx: ToolContext) -> TeamStore:
    return TeamStore(ctx.global_db([SCHEMA, RUN_SCHEMA]))


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
    team_id = f"team-{secrets.token_hex(5)}"
    return _create(store, ctx, team_id, inp.goal, str(folder), inp.budget_usd, inp.template, inp.provider, now)


def _create(
    store: TeamStore,
    ctx: ToolContext,
    team_id: str,
    goal: str,
    cwd: str,
    budget: float | None,
    template: str | None,
    provider: str | None,
    now: str,
) -> models.StartOutput:
    with store.db.transaction():
        if store.create_team(team_id=team_id, goal=goal, cwd=cwd, budget_usd=budget, template=template, now=now):
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
            for member in TEMPLATES[template].members if template else ():
                _add_member(store, team_id, member.name, provider, None, member.role, member.mode, False, None, now)
    team = require_team(store, team_id)
    return models.StartOutput(
        team=views.to_team(team), members=[views.to_member(store, m) for m in store.members(team_id)]
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
    now: str,
) -> bool:
    from kernel.providers.dispatcher import resolve_provider

    resolved = resolve_provider(provider)
    session = str(uuid.uuid4()) if resolved == "claude" else None  # minted before its first turn
    return store.add_member(
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
    if inp.mode == "edit" and not inp.plan_required:
        authority.check("pallium_team_spawn", "edit", ctx.ceiling)
    store = _store(ctx)
    _active(store, inp.team)
    if not _add_member(
        store,
        inp.team,
        inp.name,
        inp.provider,
        inp.model,
        inp.role,
        inp.mode,
        inp.plan_required,
        inp.budget_usd,
        _now(ctx),
    ):
        raise PalliumError(
            "conflict",
            f"{inp.name!r} is already on team {inp.team}'s roster; nothing was spawned",
            hint=f"pick another `name`, or see the roster with `pallium team status {inp.team}`",
            details={"field": "name", "name": inp.name},
        )
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.name)))


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


async def status(inp: models.StatusInput, ctx: ToolContext) -> models.StatusOutput:
    store = _store(ctx)
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
    store.set_team_status(inp.team, "stopped", now=_now(ctx))
    store.log(inp.team, "stopped", {}, now=_now(ctx))
    return models.TeamOutput(team=views.to_team(require_team(store, inp.team)))


async def run(inp: models.RunInput, ctx: ToolContext) -> models.RunOutput:
    from services.teams.scheduler import RunOptions, run_team

    store = _store(ctx)
    team = require_team(store, inp.team)
    if any(m.mode == "edit" for m in store.members(team.id)):
        authority.check("pallium_team_run", "edit", ctx.ceiling)
    if team.status == "parked" and (team.budget_usd is None or team.spend_usd < team.budget_usd):
        store.set_team_status(team.id, "active", now=_now(ctx))
    options = RunOptions(
        agent_timeout=inp.agent_timeout,
        stale_after_minutes=inp.stale_after_minutes,
        max_concurrent=inp.max_concurrent,
        max_rounds=inp.max_rounds,
    )
    result = await run_team(store.db, team.id, options, clock=ctx.clock)
    return models.RunOutput(
        team=views.to_team(require_team(store, team.id)),
        rounds=result.rounds,
        turns_taken=len(result.turns),
        turns=[
            models.TurnSummary(member=t.member, turn_id=t.turn_id, state=t.state, detail=t.detail[:500])
            for t in result.turns[-100:]
        ],
        reconciled_interrupted=result.reconciled_interrupted,
        stopped=result.stopped,
        parked=result.parked,
        reason=result.reason,
    )


# ---------------------------------------------------------------- board


async def tasks_add(inp: models.TaskAddInput, ctx: ToolContext) -> models.TaskOutput:
    store = _store(ctx)
    team = _active(store, inp.team)
    task = await add_task(
        store,
        team,
        title=inp.title,
        description=inp.description,
        depends_on=inp.depends_on,
        requires=list(inp.requires),
        created_by=inp.as_,
        now=_now(ctx),
    )
    return models.TaskOutput(task=views.to_task(task), outcome="created")


async def tasks_list(inp: models.TaskListInput, ctx: ToolContext) -> models.TaskList:
    store = _store(ctx)
    require_team(store, inp.team)
    rows = store.tasks(inp.team, statuses=(inp.status,) if inp.status else (), limit=inp.limit + 1)
    return models.TaskList(tasks=[views.to_task(t) for t in rows[: inp.limit]], truncated=len(rows) > inp.limit)


async def tasks_claim(inp: models.TaskClaimInput, ctx: ToolContext) -> models.TaskOutput:
    store = _store(ctx)
    _active(store, inp.team)
    require_member(store, inp.team, inp.as_, field="as")
    state = store.claim(inp.team, inp.task_id, inp.as_, now=_now(ctx))
    task = store.task(inp.team, inp.task_id)
    if task is None:
        raise PalliumError(
            "not_found",
            f"task {inp.task_id} is not on team {inp.team}'s board",
            hint=f"list the board with `pallium team tasks list {inp.team}`",
            details={"field": "task"},
        )
    if state not in ("claimed", "already_owned"):
        raise PalliumError(
            "conflict",
            f"task {inp.task_id} cannot be claimed by {inp.as_}: {state.replace('_', ' ')}",
            hint="claim a pending task whose dependencies are completed (`pallium team tasks list`)",
            details={"field": "task", "reason": state, "owner": task.owner, "status": task.status},
        )
    return models.TaskOutput(task=views.to_task(task), outcome="claimed")


async def tasks_complete(inp: models.TaskCompleteInput, ctx: ToolContext) -> models.TaskOutput:
    store = _store(ctx)
    team = _active(store, inp.team)
    require_member(store, inp.team, inp.as_, field="as")
    evidence = {k: v for k, v in (("check_result_id", inp.check_result_id), ("patch_id", inp.patch_id)) if v}
    done = await complete_task(store, team, inp.task_id, inp.as_, result=inp.result, evidence=evidence, now=_now(ctx))
    if done.state == "refused" or done.task is None:
        raise PalliumError(
            "conflict",
            done.message,
            hint="only the owner completes an in-progress task; claim it first with `pallium team tasks claim`",
            details={"field": "task"},
        )
    if done.state == "missing_evidence":
        raise PalliumError(
            "invalid_input",
            done.message,
            hint="pass `check_result_id` or `patch_id` (CLI --check-result-id / --patch-id)",
            details={"field": "evidence"},
        )
    return models.TaskOutput(task=views.to_task(done.task), outcome=done.state, message=done.message)


# ---------------------------------------------------------------- mail


async def send(inp: models.SendInput, ctx: ToolContext) -> models.SendOutput:
    store = _store(ctx)
    _active(store, inp.team)
    message_id = send_message(store, inp.team, sender=inp.from_, recipient=inp.to, body=inp.body, now=_now(ctx))
    row = store.messages(inp.team, recipient=None, after=message_id - 1, limit=1)[0]
    return models.SendOutput(message=views.to_message(row))


async def inbox(inp: models.InboxInput, ctx: ToolContext) -> models.InboxOutput:
    store = _store(ctx)
    require_team(store, inp.team)
    if not inp.all and inp.for_ is None:
        raise PalliumError(
            "invalid_input",
            "say whose mailbox to read",
            hint="pass `for` (CLI --for NAME) or `all: true` (CLI --all)",
            details={"field": "for"},
        )
    reader = None if inp.all else require_member(store, inp.team, inp.for_ or "", field="for")
    rows = store.messages(inp.team, recipient=reader.name if reader else None, after=inp.cursor, limit=inp.limit + 1)
    page = rows[: inp.limit]
    if reader is not None and reader.external:
        now = _now(ctx)
        with store.db.transaction():
            store.mark_delivered(
                inp.team, reader.name, [m.id for m in page if m.delivered_turn is None], f"inbox:{now}", now=now
            )
            store.update_member(inp.team, reader.name, heartbeat_at=time.time())
        ids = {m.id for m in page}
        page = [
            m for m in store.messages(inp.team, recipient=reader.name, after=inp.cursor, limit=inp.limit) if m.id in ids
        ]
    more = len(rows) > inp.limit
    return models.InboxOutput(
        messages=[views.to_message(m) for m in page], truncated=more, next_cursor=page[-1].id if more and page else None
    )


# ---------------------------------------------------------------- members


async def nudge(inp: models.MemberInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    _active(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    store.update_member(
        inp.team,
        member.name,
        nudged=True,
        **({"status": "idle", "status_reason": None} if member.status in ("error", "blocked") else {}),
    )
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))


async def approve(inp: models.MemberInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    _active(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    if not member.plan_required or member.plan_status == "approved":
        raise PalliumError(
            "conflict",
            f"{member.name} has no plan waiting for approval",
            hint=f"see plan states with `pallium team status {inp.team}`",
            details={"field": "member"},
        )
    if member.requested_mode == "edit":
        authority.check("pallium_team_approve", "edit", ctx.ceiling)
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
    return models.MemberOutput(member=views.to_member(store, require_member(store, inp.team, inp.member)))


async def reject(inp: models.RejectInput, ctx: ToolContext) -> models.MemberOutput:
    store = _store(ctx)
    _active(store, inp.team)
    member = require_member(store, inp.team, inp.member)
    if not member.plan_required or member.plan_status == "approved":
        raise PalliumError(
            "conflict",
            f"{member.name} has no plan waiting for review",
            hint=f"see plan states with `pallium team status {inp.team}`",
            details={"field": "member"},
        )
    with store.db.transaction():
        store.update_member(inp.team, member.name, status="idle", status_reason="plan rejected; revising")
        store.send(
            team_id=inp.team,
            sender=LEAD,
            recipient=member.name,
            kind="mail",
            now=_now(ctx),
            body=f"Your plan was rejected. Revise it and submit a new one. Feedback: {inp.feedback}",
        )
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
    _active(store, inp.team)
    require_member(store, inp.team, inp.member)
    message_id = send_message(
        store,
        inp.team,
        sender=LEAD,
        recipient=inp.member,
        kind="steer",
        now=_now(ctx),
        body=f"STEERING DIRECTIVE FROM LEAD — {inp.directive}",
    )
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


async def apply(inp: models.TeamInput, ctx: ToolContext) -> models.ApplyOutput:
    from kernel.worktrees.apply import apply_patches

    store = _store(ctx)
    team = require_team(store, inp.team)
    done = apply_patches(RunStore(store.db), team.id, paths.find_repo_root(Path(team.cwd)))
    store.log(team.id, "applied", {"patches": done.applied}, now=_now(ctx))
    return models.ApplyOutput(team=team.id, applied=done.applied, already=done.already, skipped=done.skipped)


async def revert(inp: models.TeamInput, ctx: ToolContext) -> models.ApplyOutput:
    from kernel.worktrees.apply import revert_patches

    store = _store(ctx)
    team = require_team(store, inp.team)
    done = revert_patches(RunStore(store.db), team.id, paths.find_repo_root(Path(team.cwd)))
    store.log(team.id, "reverted", {"patches": done.applied}, now=_now(ctx))
    return models.ApplyOutput(team=team.id, applied=done.applied, already=done.already, skipped=done.skipped)


# ---------------------------------------------------------------- declarations

_WRITE = Annotations(read_only=False, idempotent=False)
_SET = Annotations(read_only=False, idempotent=True)
_PLAIN = Annotations()


def _r_team(out: models.TeamOutput) -> str:
    t = out.team
    gate = f", gate on {', '.join(t.gate_hooks)}" if t.gate_hooks else ""
    unknown = f" + {t.unknown_cost_calls} call(s) of unknown cost" if t.unknown_cost_calls else ""
    return f"team {t.id}: {t.status}{gate}, spend ${t.spend_usd:.4f}{unknown}"


def _r_start(out: models.StartOutput) -> str:
    names = ", ".join(m.name for m in out.members)
    return f"team {out.team.id}: {out.team.status}; roster {names}\n  next: `pallium team spawn {out.team.id} NAME`"


def _r_member(out: models.MemberOutput) -> str:
    m = out.member
    plan = f", plan {m.plan_status}" if m.plan_required else ""
    return f"{m.name}: {m.state}/{m.status}, {m.provider} {m.mode}{plan}, turns {m.turn_count}"


def _r_task(out: models.TaskOutput) -> str:
    t = out.task
    return f"task #{t.id} {t.status} ({out.outcome}){' by ' + t.owner if t.owner else ''}: {t.title}" + (
        f"\n  {out.message}" if out.message else ""
    )


def _r_tasks(out: models.TaskList) -> str:
    if not out.tasks:
        return "no tasks"
    return "\n".join(f"#{t.id:<4} {t.status:<11} {t.owner or '-':<20} {t.title[:70]}" for t in out.tasks)


def _r_send(out: models.SendOutput) -> str:
    m = out.message
    return f"message #{m.id} {m.sender} -> {m.recipient} queued"


def _r_apply(out: models.ApplyOutput) -> str:
    return (
        f"team {out.team}: {len(out.applied)} patch(es) done, {len(out.already)} already, "
        f"{len(out.skipped)} skipped (blocked or conflicted)"
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
    route: Route | None = None,
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
        route=route,
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
        route=Route(
            phrasings=(
                "start an agent team on this bug",
                "convene a team of agents to work on the goal",
                "set up a team with a lead and teammates",
                "create a parallel review team",
                "start an adversarial debate between two agents",
            ),
            arguments={"goal": "task", "template": "name"},
        ),
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
        route=Route(
            phrasings=(
                "list the team templates",
                "which team templates are there",
                "what kinds of agent teams can I start",
            ),
        ),
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
        route=Route(
            phrasings=(
                "show the parallel-review team template",
                "what members does the adversarial-debate template have",
                "describe a team template",
            ),
            arguments={"name": "name"},
        ),
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
        route=Route(
            phrasings=(
                "spawn a teammate on the team",
                "add a reviewer agent to the team",
                "add a new member to my agent team",
                "spawn an edit teammate that fixes the bug",
            ),
            needs=("team",),
            arguments={"name": "name"},
        ),
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
        route=Route(
            phrasings=(
                "join the team as an external member",
                "let me join the agent team myself",
                "register this agent as a teammate",
            ),
            needs=("team",),
        ),
        positional=("team",),
        annotations=_SET,
        render=_r_member,
    ),
    _tool(
        "team tasks add",
        tasks_add,
        models.TaskAddInput,
        models.TaskOutput,
        "Put a task on a team's board, with dependencies and required evidence, through the task_created gate.",
        "Use to give the team work its members can claim. Not for messaging a member (pallium_team_send). With a "
        "gate on task_created, one gate model call decides (a rejected or broken gate creates nothing); "
        "otherwise writes state only.",
        "consult",
        route=Route(
            phrasings=(
                "add a task to the team's board",
                "put a new task on the team task board",
                "create a team task that depends on another",
            ),
            needs=("team",),
            arguments={"title": "quoted"},
        ),
        positional=("team", "title"),
        annotations=_WRITE,
        render=_r_task,
    ),
    _tool(
        "team tasks list",
        tasks_list,
        models.TaskListInput,
        models.TaskList,
        "A team's task board: each task's status, owner, dependencies, result and evidence.",
        "Use to see what is open, claimed and done. Not for members and spend (pallium_team_status). Reads state only.",
        "observe",
        route=Route(
            phrasings=(
                "list the team's tasks",
                "show the team task board",
                "which team tasks are still pending",
            ),
            needs=("team",),
        ),
        positional=("team",),
        render=_r_tasks,
    ),
    _tool(
        "team tasks claim",
        tasks_claim,
        models.TaskClaimInput,
        models.TaskOutput,
        "Claim a pending task for a member: a compare-and-set that fails if someone else holds it or its "
        "dependencies are open.",
        "Use for an external member (or to assign work by hand). Not needed for scheduled members: their turn "
        "decisions claim. Refused with conflict when taken or blocked. Writes state only.",
        "consult",
        route=Route(
            phrasings=(
                "claim a task on the team board",
                "take team task 3",
                "assign myself the next team task",
            ),
            needs=("team",),
        ),
        positional=("team", "task_id"),
        annotations=_WRITE,
        render=_r_task,
    ),
    _tool(
        "team tasks complete",
        tasks_complete,
        models.TaskCompleteInput,
        models.TaskOutput,
        "Complete a task its owner holds, with a result and any required evidence, through the task_completed gate.",
        "Use for an external member's task. Not for scheduled members (their decisions complete). A gate "
        "rejection reopens the task with feedback; a broken gate leaves it with its owner. One gate model call "
        "when the gate covers task_completed.",
        "consult",
        route=Route(
            phrasings=(
                "complete a team task",
                "mark team task 3 done with its result",
                "finish the task I claimed on the team board",
            ),
            needs=("team",),
        ),
        positional=("team", "task_id"),
        annotations=_WRITE,
        render=_r_task,
    ),
    _tool(
        "team send",
        send,
        models.SendInput,
        models.SendOutput,
        "Send a message to a team member's mailbox; a name not on the roster is refused with the roster.",
        "Use to tell a member something; it is delivered at its next turn with a receipt naming that turn. Not "
        "for directives that must come first (pallium_team_member_steer). Writes state only.",
        "consult",
        route=Route(
            phrasings=(
                "send a message to a teammate",
                "tell the reviewer on the team to look at the parser",
                "message the team lead",
            ),
            needs=("team",),
            arguments={"body": "quoted"},
        ),
        positional=("team", "body"),
        annotations=_WRITE,
        render=_r_send,
    ),
    _tool(
        "team inbox",
        inbox,
        models.InboxInput,
        models.InboxOutput,
        "Read a member's mailbox (or the whole team's mail) with each message's delivery receipt.",
        "Use to see what members told each other and what is still unread. Not for the board "
        "(pallium_team_tasks_list). Reading an external member's own inbox marks its mail delivered; otherwise "
        "reads state only. Paged with limit/cursor.",
        "observe",
        route=Route(
            phrasings=(
                "read the team mailbox",
                "what did the teammates tell each other",
                "show the team inbox for the lead",
            ),
            needs=("team",),
        ),
        positional=("team",),
        annotations=_SET,
        render=views.render_inbox,
    ),
    _tool(
        "team nudge",
        nudge,
        models.MemberInput,
        models.MemberOutput,
        "Ask a member to take a turn at the next round even without new mail or work.",
        "Use to wake an idle, blocked or failed member. Not for telling it something (pallium_team_send). "
        "Writes state only.",
        "consult",
        route=Route(
            phrasings=(
                "nudge a teammate to take another turn",
                "wake up the idle team member",
                "poke the reviewer on the team",
            ),
            needs=("team",),
        ),
        positional=("team", "member"),
        annotations=_SET,
        render=_r_member,
    ),
    _tool(
        "team status",
        status,
        models.StatusInput,
        models.StatusOutput,
        "A team's members with evidence-based state (idle, waiting, running, stale, dead), board, patches and spend.",
        "Use to see what each member did and is doing, and what it cost (providers with unknown cost are listed, "
        "never shown as $0). Not for mail (pallium_team_inbox). Closes turns whose process is gone as "
        "interrupted; no model calls.",
        "observe",
        route=Route(
            phrasings=(
                "status of the agent team",
                "what is each teammate doing",
                "is any team member stale or dead",
                "how much has the team spent",
            ),
            needs=("team",),
        ),
        positional=("team",),
        annotations=_SET,
        render=views.render_status,
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
        route=Route(
            phrasings=(
                "run the agent team",
                "let the teammates work for a few rounds",
                "continue the team's work until it is idle",
            ),
            needs=("team",),
        ),
        positional=("team",),
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        render=views.render_run,
    ),
    _tool(
        "team approve",
        approve,
        models.MemberInput,
        models.MemberOutput,
        "Approve a plan-required member's plan: it may now work in the mode it was spawned with.",
        "Use after reading the plan the member sent the lead. Not for feedback on a plan "
        "(pallium_team_reject). Needs edit when the member edits. Writes state only.",
        "consult",
        route=Route(
            phrasings=(
                "approve the teammate's plan",
                "accept the plan of the team member",
                "approve the member so it can start editing",
            ),
            needs=("team",),
        ),
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
        route=Route(
            phrasings=(
                "reject the teammate's plan",
                "send the member's plan back with feedback",
                "do not accept the team member's plan",
            ),
            needs=("team",),
            arguments={"feedback": "quoted"},
        ),
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
        route=Route(
            phrasings=(
                "set a gate on the team's completed tasks",
                "review each team task before it completes",
                "gate teammates going idle",
            ),
            needs=("team",),
            arguments={"prompt": "quoted"},
        ),
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
        route=Route(
            phrasings=(
                "stop the agent team",
                "end the team's work",
                "shut the team down",
            ),
            needs=("team",),
        ),
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
        route=Route(
            phrasings=(
                "attach to the team after a crash",
                "reconcile the team's interrupted turns",
                "reattach to the agent team after a reboot",
            ),
            needs=("team",),
        ),
        positional=("team",),
        annotations=_SET,
        render=views.render_status,
    ),
    _tool(
        "team member stop",
        member_stop,
        models.MemberInput,
        models.MemberOutput,
        "Stop one member at its next turn boundary; its record and session stay.",
        "Use to take a member out of the rounds. Not for the whole team (pallium_team_stop). Writes state only.",
        "consult",
        route=Route(
            phrasings=(
                "stop one teammate",
                "take the zombie hunter off the team",
                "stop a team member but keep the team",
            ),
            needs=("team",),
        ),
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
        route=Route(
            phrasings=(
                "restart a dead teammate",
                "restart the stale team member",
                "bring a team member back",
            ),
            needs=("team",),
        ),
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
        route=Route(
            phrasings=(
                "steer a teammate with a new directive",
                "tell a team member to change focus",
                "redirect the reviewer on the team to the tests",
            ),
            needs=("team",),
            arguments={"directive": "quoted"},
        ),
        positional=("team", "member", "directive"),
        annotations=_WRITE,
        render=_r_send,
    ),
    _tool(
        "team apply",
        apply,
        models.TeamInput,
        models.ApplyOutput,
        "Apply a team's staged, secret-scanned patches to your working tree, once each, under the repository lock.",
        "Use after reviewing the patches listed by pallium_team_status. Not for undoing (pallium_team_revert). "
        "Changes your tree; an already applied patch is skipped; blocked ones never apply.",
        "edit",
        route=Route(
            phrasings=(
                "apply the team's patches",
                "land the teammates' edits in my tree",
                "apply what the edit members changed",
            ),
            needs=("team",),
        ),
        positional=("team",),
        annotations=Annotations(read_only=False, idempotent=True),
        render=_r_apply,
    ),
    _tool(
        "team revert",
        revert,
        models.TeamInput,
        models.ApplyOutput,
        "Take a team's applied patches back out of your working tree, newest first.",
        "Use to undo pallium_team_apply. Not for discarding unapplied patches (they stay staged harmlessly). "
        "Changes your tree.",
        "admin",
        route=Route(
            phrasings=(
                "revert the team's applied patches",
                "undo what the agent team applied",
                "roll back the teammates' edits",
            ),
            needs=("team",),
        ),
        positional=("team",),
        annotations=Annotations(read_only=False, destructive=True, idempotent=True),
        render=_r_apply,
    ),
)
