"""`team.*` in workflow scripts: convene an agent team through the team tools (the dispatcher's door).

`team.create(goal, {cwd, budgetUsd})` names its team `team-<run id>-<n>` (the n-th create of the
attempt), so a resumed run finds the team it made instead of making another; `team.spawn` of a member
already on the roster answers that member, for the same reason. Every other call is one team tool.
The calls in `MUTATING` are journaled by the host (`WorkflowHost._team`) and carry its journal key
as the tool's `request_id`, so none repeats on resume.
"""

from __future__ import annotations

from typing import Any

from kernel.context import ToolContext
from kernel.errors import PalliumError

__all__ = ["TEAM_FUNCTIONS", "team_call"]

TEAM_FUNCTIONS = (
    "create",
    "spawn",
    "send",
    "status",
    "wait",
    "stop",
    "approve",
    "reject",
    "gate",
    "tasks.create",
    "tasks.list",
    "tasks.claim",
    "tasks.complete",
    "member.stop",
    "member.restart",
    "member.steer",
)


# every primitive that changes a team (`status` and `tasks.list` only read)
MUTATING = frozenset(TEAM_FUNCTIONS) - {"status", "tasks.list"}
# the team tools that take a `request_id` (the rest are idempotent by themselves)
_REQUEST_IDS = frozenset({"send", "tasks.create", "tasks.claim", "tasks.complete", "approve", "reject", "member.steer"})


def request_of(fn: str, args: list[Any]) -> list[Any]:
    """The arguments as the journal keys them: the team by its id, not by whatever object named it."""
    if fn == "create" or not args:
        return list(args)
    try:
        return [_team_id(args[0]), *args[1:]]
    except PalliumError:
        return list(args)  # the call itself will say what is wrong


async def team_call(
    ctx: ToolContext,
    run_id: str,
    repo: str,
    creates: int,
    fn: str,
    args: list[Any],
    *,
    request_id: str | None = None,
) -> Any:
    """Answer `team.<fn>(...args)`; `creates` is how many creates this attempt made before this one.

    `request_id` goes to the tools that take one, so a retried request answers the first one's result.
    """
    once = {"request_id": request_id} if request_id is not None and fn in _REQUEST_IDS else {}
    if fn not in TEAM_FUNCTIONS:
        raise PalliumError(
            "invalid_input",
            f"team.{fn}() is not a team primitive",
            hint=f"use one of {', '.join('team.' + f for f in TEAM_FUNCTIONS)}",
        )
    a = list(args) + [None] * 4
    if fn == "create":
        opts = _opts(a[1])
        arguments = {"goal": str(a[0] or ""), "id": f"team-{run_id}-{creates + 1}", "cwd": opts.get("cwd") or repo}
        if opts.get("budgetUsd") is not None:
            arguments["budget_usd"] = opts["budgetUsd"]
        return await _call(ctx, "start", arguments)
    team = _team_id(a[0])
    if fn == "spawn":
        opts = _opts(a[2])
        arguments = {"team": team, "name": str(a[1])}
        for key, field in (
            ("provider", "provider"),
            ("model", "model"),
            ("role", "role"),
            ("mode", "mode"),
            ("planRequired", "plan_required"),
            ("budgetUsd", "budget_usd"),
        ):
            if opts.get(key) is not None:
                arguments[field] = opts[key]
        try:
            return await _call(ctx, "spawn", arguments)
        except PalliumError as exc:
            if exc.code != "conflict":
                raise
            status = await _call(ctx, "status", {"team": team})
            return {"member": next(m for m in status["members"] if m["name"] == arguments["name"])}
    if fn == "send":
        arguments = {"team": team, "to": str(a[1]), "body": str(a[2]), "from": a[3] or "lead"}
        return await _call(ctx, "send", arguments | once)
    if fn == "wait":
        opts = _opts(a[1])
        arguments = {"team": team}
        for key, field in (
            ("agentTimeoutSeconds", "agent_timeout"),
            ("staleAfterMinutes", "stale_after_minutes"),
            ("maxConcurrent", "max_concurrent"),
            ("maxRounds", "max_rounds"),
        ):
            if opts.get(key) is not None:
                arguments[field] = opts[key]
        return await _call(ctx, "run", arguments)
    if fn in ("status", "stop"):
        return await _call(ctx, fn, {"team": team})
    if fn in ("approve", "member.stop"):
        return await _call(ctx, fn.replace(".", "_"), {"team": team, "member": str(a[1])} | once)
    if fn == "reject":
        return await _call(ctx, "reject", {"team": team, "member": str(a[1]), "feedback": str(a[2] or "")} | once)
    if fn == "gate":
        return await _call(ctx, "gate_set", {"team": team, "prompt": a[1], "hooks": list(a[2] or [])})
    if fn == "tasks.create":
        opts = _opts(a[2])
        arguments = {"team": team, "title": str(a[1]), "description": opts.get("description") or ""}
        if opts.get("dependsOn"):
            arguments["depends_on"] = list(opts["dependsOn"])
        if opts.get("requires"):
            arguments["requires"] = list(opts["requires"])
        return await _call(ctx, "tasks_add", arguments | once)
    if fn == "tasks.list":
        return await _call(ctx, "tasks_list", {"team": team})
    if fn == "tasks.claim":
        return await _call(ctx, "tasks_claim", {"team": team, "task_id": a[1], "as": str(a[2])} | once)
    if fn == "tasks.complete":
        arguments = {"team": team, "task_id": a[1], "as": str(a[2])}
        if a[3] is not None:
            arguments["result"] = str(a[3])
        return await _call(ctx, "tasks_complete", arguments | once)
    if fn == "member.restart":
        opts = _opts(a[2])
        arguments = {"team": team, "member": str(a[1])}
        if opts.get("staleAfterMinutes") is not None:
            arguments["stale_after_minutes"] = opts["staleAfterMinutes"]
        return await _call(ctx, "member_restart", arguments)
    arguments = {"team": team, "member": str(a[1]), "directive": str(a[2] or "")}
    return await _call(ctx, "member_steer", arguments | once)


async def _call(ctx: ToolContext, tool: str, arguments: dict[str, Any]) -> Any:
    out = await ctx.call(f"pallium_team_{tool}", arguments)
    return out.model_dump(mode="json")


def _team_id(value: Any) -> str:
    """A team id, or the object `team.create` answered (its `team.id`)."""
    if isinstance(value, dict):
        value = (value.get("team") or {}).get("id") if "team" in value else value.get("id")
    if not isinstance(value, str) or not value:
        raise PalliumError(
            "invalid_input",
            "team.*(): the first argument must be a team id or what team.create returned",
            hint="pass the value `await team.create(goal)` answered, or its `team.id`",
        )
    return value


def _opts(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
