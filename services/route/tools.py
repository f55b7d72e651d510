"""The route tools' handlers and declarations: `pallium route` and `pallium route capabilities`."""

from __future__ import annotations

from kernel.authority import LEVELS
from kernel.context import ToolContext
from kernel.tool import Annotations, Route, Tool
from services.route.models import (
    CapabilitiesInput,
    CapabilitiesOutput,
    CapabilityDetail,
    RouteInput,
    RouteOutput,
)


async def route(inp: RouteInput, ctx: ToolContext) -> RouteOutput:
    from services.route import logic

    return await logic.route(inp, ctx)


async def capabilities(inp: CapabilitiesInput, ctx: ToolContext) -> CapabilitiesOutput:
    from services.route import catalog

    rows: list[CapabilityDetail] = []
    by_level: dict[str, list[str]] = {}
    caps = sorted(catalog.load().capabilities, key=lambda c: c.capability)
    for cap in caps:
        level = cap.authority + (f"/{cap.escalation[1]}" if cap.escalation else "")
        for wanted in cap.levels:
            level += f"/{wanted}"
        by_level.setdefault(level, []).append(cap.capability)
        if inp.full:
            rows.append(
                CapabilityDetail(
                    capability=cap.capability,
                    level=level,
                    summary=cap.summary,
                    tool=cap.tool,
                    phrasings=list(cap.phrasings),
                    arguments=cap.arguments,
                    needs=list(cap.needs),
                )
            )
    return CapabilitiesOutput(
        levels=list(LEVELS),
        by_level=None if inp.full else by_level,
        capabilities=rows if inp.full else None,
        count=len(caps),
        full=inp.full,
    )


def _render_route(out: RouteOutput) -> str:
    lines = []
    if out.capability is None:
        lines.append(f"no capability fits: {out.why}")
    else:
        state = "BLOCKED" if out.blocked else f"needs {out.needed_authority}"
        lines.append(f"{out.capability}  ({state}; ceiling {out.ceiling}; confidence {out.confidence.score:.2f})")
        lines.append("  " + " ".join(_quote(a) for a in out.argv))
        lines.append(f"  why: {out.why}")
        if out.blocked_reason:
            lines.append(f"  blocked: {out.blocked_reason}")
        if out.preparation:
            lines.append(f"  preparatory (read-only): {' '.join(_quote(a) for a in out.preparation.argv)}")
    for pre in out.preconditions:
        mark = "ok" if pre.met else "needed"
        lines.append(
            f"  precondition [{mark}] {pre.kind}: {pre.detail}"
            + (f" -> {pre.command}" if pre.command and not pre.met else "")
        )
    for alt in out.alternatives:
        lines.append(f"  not {alt.capability}: {alt.why_not}")
    if out.executed is not None:
        lines.append(
            f"executed: {out.executed.get('status')}"
            + (f" ({out.executed['reason']})" if out.executed.get("reason") else "")
        )
        if out.executed.get("output") is not None:
            import json

            lines.append(json.dumps(out.executed["output"], indent=2, ensure_ascii=False)[:4000])
    return "\n".join(lines)


def _render_capabilities(out: CapabilitiesOutput) -> str:
    if out.capabilities is not None:
        width = max((len(r.capability) for r in out.capabilities), default=10) + 2
        return "\n".join(f"{r.capability.ljust(width)}{r.level}  {r.summary}" for r in out.capabilities)
    return "\n".join(f"{level}: {', '.join(names)}" for level, names in (out.by_level or {}).items())


def _exit_code(out: RouteOutput) -> int:
    """Under --execute, a recommendation that did not run (blocked, nothing fits, input missing) exits 1."""
    if out.executed is None:
        return 0
    return 0 if out.executed.get("status") == "ok" else 1


def _quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


_ROUTE_META = Route(
    phrasings=("which pallium tool should I use", "route this task", "pick the right capability"),
    routable=False,
)

TOOLS = (
    Tool(
        cli="route",
        handler=route,
        input=RouteInput,
        output=RouteOutput,
        summary="Pick the Pallium capability for a task within an authority ceiling, with arguments and why.",
        description=(
            "When unsure which Pallium tool fits a task, call it first: give the task in the user's words and get "
            "the capability, tool and grounded arguments, why, the level it needs and whether the ceiling blocks it "
            "(never a weaker substitute), and preconditions with their commands. `execute` runs it through the "
            "same dispatcher and ceiling. Not needed when you know the tool. Deterministic, no model calls; reads "
            "state only unless `execute`."
        ),
        authority="observe",
        toolset="route",
        annotations=Annotations(read_only=False, idempotent=False, open_world=False),
        positional=("task",),
        route=_ROUTE_META,
        render=_render_route,
        exit_code=_exit_code,
    ),
    Tool(
        cli="route capabilities",
        handler=capabilities,
        input=CapabilitiesInput,
        output=CapabilitiesOutput,
        summary="Every capability route can choose, with the authority level each needs.",
        description=(
            "Use to see what Pallium can do and at which level (`observe/admin` means it previews at observe and "
            "acts at admin). Not for choosing one (pallium_route does that for a task). Within 4 KB; `full` adds "
            "summaries, example phrasings, arguments and needs. Reads the tool manifest only."
        ),
        authority="observe",
        toolset="route",
        route=Route(
            phrasings=("what can pallium do", "list the capabilities", "which capabilities need admin"),
            routable=False,
        ),
        render=_render_capabilities,
    ),
)
