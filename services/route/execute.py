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
    if answer.blocked:
        return _not_run(f"blocked: {answer.blocked_reason}")
    if plan.steps:
        return await _steps(plan, ctx, inp)
    if answer.capability is None or plan.cap is None:
        return _not_run("no capability fits the task, so nothing was run")
    if deletes(plan.cap, answer.arguments) and not inp.confirm:
        # Invariant 4: whatever the ceiling, a call that deletes or reverts runs only on the caller's word.
        return _not_run(
            f"{answer.capability} deletes or reverts ({' '.join(answer.argv)}); nothing was run. "
            "Rerun with --confirm (MCP: confirm: true) if the user asked for exactly this"
        )
    missing = [p for p in answer.preconditions if not p.met and p.kind == "needs_input"]
    if missing:
        return _not_run("needs input: " + "; ".join(p.detail for p in missing))
    if plan.cap.tool in _UNTIL_STOPPED and ctx.origin != "mcp":
        # Over MCP these return (a bounded background site, one upkeep step, one frame); on the command line
        # they hold the terminal until Ctrl-C, and a routed call must return.
        return _not_run(
            f"{answer.capability} runs until it is stopped (Ctrl-C); run it yourself: {' '.join(answer.argv)}"
        )
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
        pre.detail = f"satisfied just now by {pre.command} ({pre.detail})"
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


_UNTIL_STOPPED = frozenset({"pallium_knowledge_serve", "pallium_knowledge_maintain_run", "pallium_team_watch"})


def deletes(cap: Any, arguments: dict[str, Any]) -> bool:
    """Whether this call of a destructive tool would act: it has no preview, or its escalation is set."""
    if not cap.destructive:
        return False
    return cap.escalation is None or bool(arguments.get(cap.escalation[0]))


async def _steps(plan: Plan, ctx: ToolContext, inp: RouteInput) -> dict[str, Any]:
    """Each request's call in order; the first that does not run stops the rest."""
    results: list[dict[str, Any]] = []
    for answer, step_plan in plan.steps:
        result = await execute(answer, step_plan, ctx, inp)
        results.append({"request": answer.task, **result})
        if result["status"] != "ok":
            return {
                "status": "not_run" if len(results) == 1 else "partial",
                "reason": f"step {len(results)} did not run: {result.get('reason', result['status'])}",
                "steps": results,
                "preconditions_run": [],
            }
    return {"status": "ok", "steps": results, "preconditions_run": []}


def _found(task: str) -> Any:
    from services.route.extract import find

    return find(task)


def _not_run(reason: str, ran: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"status": "not_run", "reason": reason, "preconditions_run": ran or []}
