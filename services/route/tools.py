"""The route tools' handlers and declarations: `pallium route` and `pallium route capabilities`."""

from __future__ import annotations

from kernel.authority import LEVELS
from kernel.context import ToolContext
from kernel.tool import CONTEXT_BUDGET, Annotations, Route, Tool
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

    caps = sorted(catalog.load().capabilities, key=lambda c: c.capability)
    by_level: dict[str, list[str]] = {level: [] for level in LEVELS}
    raised: dict[str, str] = {}
    details = []
    for cap in caps:
        by_level[cap.authority].append(cap.capability)
        rises = []
        if cap.escalation:
            rises.append(f"{cap.escalation[1]} with {cap.escalation[0]}")
        rises += [
            f"{level} for {', '.join(words[:3])}, ..."
            for level, words in cap.levels.items()
            if LEVELS.index(level) > LEVELS.index(cap.authority)  # type: ignore[arg-type]
        ]
        if rises:
            raised[cap.capability] = "; ".join(rises)
        if inp.full:
            higher = [lv for lv in cap.levels if LEVELS.index(lv) > LEVELS.index(cap.authority)]  # type: ignore[arg-type]
            level = "/".join([cap.authority, *([cap.escalation[1]] if cap.escalation else []), *higher])
            details.append(
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
        by_level=by_level,
        raised=raised,
        capabilities=details if inp.full else None,
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
    lines = []
    for level, names in out.by_level.items():
        lines.append(f"{level}:")
        lines += [f"  {name}" + (f"  ({out.raised[name]})" if name in out.raised else "") for name in names]
    return "\n".join(lines)


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
            "Use this first when unsure which Pallium tool fits a task (call it first): pass the task in the "
            "user's words; get the capability, tool, grounded arguments, why, alternatives, the level needed, "
            "whether the ceiling blocks it (never a weaker substitute) and preconditions with their commands. "
            "execute runs it through the same ceiling. Not needed when you know the tool. No model calls."
        ),
        authority="observe",
        toolset="route",
        # `execute` runs the chosen tool, which may start a model: open-world (docs/tools.md's rule)
        annotations=Annotations(read_only=False, idempotent=False, open_world=True),
        positional=("task",),
        route=_ROUTE_META,
        budget=CONTEXT_BUDGET,  # an executed answer carries the tool's own answer beside route's fields
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
            "Use to see what Pallium can do and at which level. Not for choosing (pallium_route). Within 4 KB; "
            "full adds phrasings and arguments."
        ),
        authority="observe",
        toolset="route",
        route=Route(
            phrasings=("what can pallium do", "list the capabilities", "which capabilities need admin"),
            routable=False,
        ),
        unbounded_by="full",
        render=_render_capabilities,
    ),
)
