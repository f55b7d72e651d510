"""Run a route recommendation through the dispatcher, under the same ceiling, never a blocked one.

Unmet preconditions that a tool within the ceiling satisfies (an index, a session sync) run
first; a `needs_input` one stops everything, since only the caller can supply it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kernel import authority
from kernel.errors import PalliumError

if TYPE_CHECKING:
    from kernel.context import ToolContext
    from services.route.logic import Plan
    from services.route.models import RouteInput, RouteOutput

__all__ = ["execute"]


async def execute(answer: RouteOutput, plan: Plan, ctx: ToolContext, inp: RouteInput) -> dict[str, Any]:
    if answer.capability is None or plan.cap is None:
        return _not_run("no capability fits the task, so nothing was run")
    if answer.blocked:
        return _not_run(f"blocked: {answer.blocked_reason}")
    missing = [p for p in answer.preconditions if not p.met and p.kind == "needs_input"]
    if missing:
        return _not_run("needs input: " + "; ".join(p.detail for p in missing))
    ran: list[dict[str, Any]] = []
    for pre in answer.preconditions:
        if pre.met:
            continue
        if pre.tool is None or pre.needed_authority is None:
            return _not_run(f"unmet precondition: {pre.detail} ({pre.command})", ran)
        if not authority.allows(ctx.ceiling, pre.needed_authority):
            return _not_run(f"precondition {pre.command} needs {pre.needed_authority}, above {ctx.ceiling}", ran)
        try:
            await ctx.call(pre.tool, pre.arguments)
        except PalliumError as exc:
            ran.append({"tool": pre.tool, "status": "error", "error": exc.to_dict()["error"]})
            return _not_run(f"precondition {pre.command} failed: {exc.message}", ran)
        pre.met = True
        ran.append({"tool": pre.tool, "status": "ok"})
    grounded = plan.grounded
    if grounded is not None and grounded.pending_symbol is not None:
        from services.route.ground import ground

        recheck = await ground(plan.cap, answer.task, _found(answer.task), plan.state, None)
        if recheck.needs_input:
            answer.preconditions.extend(recheck.needs_input)
            return _not_run("needs input: " + "; ".join(p.detail for p in recheck.needs_input), ran)
    arguments = dict(answer.arguments)
    if "wait_seconds" in plan.cap.properties and ctx.origin == "mcp":
        arguments.setdefault("wait_seconds", inp.wait_seconds)
    try:
        out = await ctx.call(plan.cap.tool, arguments)
    except PalliumError as exc:
        return {"status": "error", "tool": plan.cap.tool, "error": exc.to_dict()["error"], "preconditions_run": ran}
    return {"status": "ok", "tool": plan.cap.tool, "output": out.model_dump(mode="json"), "preconditions_run": ran}


def _found(task: str) -> Any:
    from services.route.extract import find

    return find(task)


def _not_run(reason: str, ran: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"status": "not_run", "reason": reason, "preconditions_run": ran or []}
