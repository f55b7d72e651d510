"""The team tools: start, templates, roster, stop, gate, budget and resume.

Running and watching a team are in `run_tools.py`, plan review and one member's control in
`member_tools.py`, the board and mail in `board_tools.py`, the shared template in `tool_kit.py`.
Each handler works over the store and the kernel; its declaration follows in TOOLS.
"""

from __future__ import annotations

import secrets
import time
import uuid
from pathlib import Path

from kernel import authority, paths
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.teams import models, views
from services.teams.roster import LEAD, require_member, require_team, send_message
from services.teams.store import TeamStore
from services.teams.templates import TEMPLATES
from services.teams.tool_kit import (
    _SET,
    _WRITE,
    _active,
    _now,
    _r_member,
    _r_start,
    _r_team,
    _r_template,
    _r_templates,
    _store,
    _team_ceiling,
    _tool,
)

DEFAULT_MEMBER_CALLS = 20  # the call cap of a member whose provider reports no cost, unless one is given


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


# ---------------------------------------------------------------- board


async def stop(inp: models.TeamInput, ctx: ToolContext) -> models.TeamOutput:
    store = _store(ctx)
    require_team(store, inp.team)
    with store.db.transaction():
        store.set_team_status(inp.team, "stopped", now=_now(ctx))
        store.log(inp.team, "stopped", {}, now=_now(ctx))
    return models.TeamOutput(team=views.to_team(require_team(store, inp.team)))


# ---------------------------------------------------------------- gate, budget, resume


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


# ---------------------------------------------------------------- declarations


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
)
