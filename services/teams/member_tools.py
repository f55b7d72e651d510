"""The team tools for one member: review its plan (approve, reject), stop, restart and steer it.

Split from `tools.py` (the team's set-up and roster) along the seam between the team and one member
of it; the board and mail are in `board_tools.py`.
"""

from __future__ import annotations

from kernel import authority
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.teams import models, views
from services.teams.roster import LEAD, reconcile, require_member, require_team, send_message
from services.teams.tool_kit import _SET, _WRITE, _active, _now, _r_member, _r_send, _store, _team_ceiling, _tool


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


# ---------------------------------------------------------------- declarations


TOOLS = (
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
)
