"""What the team tool modules share: the store opener, the clock, the active-team check, the team's
authority ceiling, the annotations, the one-line renderers and the tool template.

`tools.py` (the team and its roster, budget and gate), `run_tools.py` (running and watching it),
`member_tools.py` (plan review and one member's control), `board_tools.py` (board and mail),
`patch_tools.py` and `list_tools.py` declare their tools with `_tool` from here.
"""

from __future__ import annotations

from kernel import authority
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.tool import CONTEXT_BUDGET, SEARCH_BUDGET, Annotations, Tool
from services.teams import models
from services.teams.roster import require_team
from services.teams.routes import ROUTES
from services.teams.store import TeamStore

INBOX_BUDGET = CONTEXT_BUDGET  # whole messages (up to 2,000 characters each) per page


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


def _team_ceiling(team, ctx: ToolContext) -> str:
    """The lower of this call's ceiling and the one the team was started under: a later call never raises it."""
    if team.ceiling is None or not authority.allows(ctx.ceiling, team.ceiling):
        return ctx.ceiling
    return team.ceiling


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
