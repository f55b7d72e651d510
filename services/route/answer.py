"""Route's answer, put together: the call as a command line, why it was chosen, the alternatives, the
block and its preparatory step, and one answer for a task of several requests."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kernel import authority
from services.route.level import needed_level
from services.route.models import Alternative, Confidence, Preparation, RouteOutput, Step

if TYPE_CHECKING:
    from services.route.catalog import Capability, Catalog, Scored
    from services.route.ground import Grounded
    from services.route.state import State

__all__ = ["alternative", "argv_of", "blocked_reason", "combined", "nothing", "preparation", "why"]


def combined(task: str, ceiling: str, decided: list[tuple[RouteOutput, Any]], state: State) -> RouteOutput:
    """One answer for several requests: the first request's call leads, every step is listed in order, and
    the whole is blocked when any step needs more than the ceiling."""
    answers = [a for a, _ in decided]
    first = answers[0]
    steps = [
        Step(
            request=a.task,
            capability=a.capability,
            tool=a.tool,
            arguments=a.arguments,
            argv=a.argv,
            needed_authority=a.needed_authority,
            blocked=a.blocked,
            why=a.why,
        )
        for a in answers
    ]
    levels = [a.needed_authority for a in answers if a.needed_authority]
    needed = max(levels, key=authority.LEVELS.index) if levels else None
    blocked_steps = [f"step {i + 1} ({a.capability}: {a.blocked_reason})" for i, a in enumerate(answers) if a.blocked]
    unfit = [f"step {i + 1} ({a.task!r}): {a.why}" for i, a in enumerate(answers) if a.capability is None]
    blocked = bool(blocked_steps) or bool(unfit)
    reason = None
    if blocked:
        reason = "the task is planned whole and one part cannot run: " + "; ".join(blocked_steps + unfit)
    why = f"{len(answers)} requests, planned in order: " + "; then ".join(
        f"{a.capability or 'nothing fits'} for {a.task!r}" for a in answers
    )
    return RouteOutput(
        task=task,
        ceiling=ceiling,  # type: ignore[arg-type]
        capability=first.capability,
        tool=first.tool,
        arguments=first.arguments,
        argv=first.argv,
        why=why,
        alternatives=first.alternatives,
        needed_authority=needed,  # type: ignore[arg-type]
        blocked=blocked,
        blocked_reason=reason,
        preparation=next((a.preparation for a in answers if a.preparation), None),
        preconditions=[p for a in answers for p in a.preconditions],
        confidence=min((a.confidence for a in answers), key=lambda c: c.score),
        state=state.observed(),
        steps=steps,
    )


def argv_of(cap: Capability, arguments: dict[str, Any], level: str) -> list[str]:
    argv = ["pallium", *cap.cli.split()]
    flags: list[str] = []
    for name, value in arguments.items():
        if name in cap.positional:
            argv.append(str(value))
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is False and cap.properties.get(name, {}).get("default") is True:
            flags.append("--no-" + name.replace("_", "-"))  # `model: false` is `--no-model`
        elif isinstance(value, list):
            for item in value:
                flags += [flag, str(item)]
        elif value is not None and value is not False:
            flags += [flag, str(value)]
    return [*argv, *flags, "--authority", level]


def nothing(
    task: str, ceiling: str, reason: str, ranked: list[Scored], confidence: Confidence, state: State
) -> RouteOutput:
    closest = [s for s in ranked[:3] if s.score > 0]
    return RouteOutput(
        task=task,
        ceiling=ceiling,  # type: ignore[arg-type]
        capability=None,
        tool=None,
        arguments={},
        argv=[],
        why=f"no capability fits: {reason}; nothing was run",
        alternatives=[
            Alternative(
                capability=s.capability.capability,
                tool=s.capability.tool,
                score=round(s.score, 3),
                needed_authority=s.capability.authority,  # type: ignore[arg-type]
                why_not=f"it is for: {s.capability.summary[0].lower() + s.capability.summary[1:]}",
            )
            for s in closest
        ],
        needed_authority=None,
        blocked=False,
        blocked_reason=None,
        preconditions=[],
        confidence=confidence,
        state=state.observed(),
    )


def why(best: Scored, grounded: Grounded, level_reason: str | None) -> str:
    cap = best.capability
    words = ", ".join(t for t in best.matched if not t.startswith("<")) or "the kind of argument named"
    parts = [
        f"{cap.capability}: {cap.summary[0].lower() + cap.summary[1:].rstrip('.')}",
        f"the task matches it on {words} (closest phrasing: {best.best_phrasing!r})",
    ]
    parts += grounded.notes
    if level_reason:
        parts.append(level_reason)
    return "; ".join(parts)


def alternative(scored: Scored, best: Scored, ceiling: str, task: str) -> Alternative:
    cap = scored.capability
    level, _ = needed_level(cap, {}, task)
    gap = best.score - scored.score
    why_not = (
        f"fits the task less well ({scored.score:.2f} vs {best.score:.2f}); it is for: "
        f"{cap.summary[0].lower() + cap.summary[1:]}"
    )
    if gap < 0.05:
        why_not = f"a near tie ({scored.score:.2f} vs {best.score:.2f}); it is for: {cap.summary}"
    if not authority.allows(ceiling, level):  # type: ignore[arg-type]
        why_not += f" It also needs {level}, above the {ceiling} ceiling."
    return Alternative(
        capability=cap.capability, tool=cap.tool, score=round(scored.score, 3), needed_authority=level, why_not=why_not
    )  # type: ignore[arg-type]


def blocked_reason(cap: Capability, level: str, ceiling: str, level_reason: str | None) -> str:
    because = f" ({level_reason})" if level_reason else ""
    return (
        f"{cap.capability} needs {level}{because}; the ceiling is {ceiling}. Nothing weaker does this task: "
        f"rerun with --authority {level} (MCP: a server started with --authority {level}) if the user grants it"
    )


def preparation(
    cap: Capability, grounded: Grounded, level: str, ceiling: str, cat: Catalog, task: str
) -> Preparation | None:
    if cap.escalation and grounded.arguments.get(cap.escalation[0]) and authority.allows(ceiling, cap.authority):  # type: ignore[arg-type]
        preview = {k: v for k, v in grounded.arguments.items() if k != cap.escalation[0]}
        return Preparation(
            capability=cap.capability,
            tool=cap.tool,
            arguments=preview,
            argv=argv_of(cap, preview, cap.authority),
            needed_authority=cap.authority,  # type: ignore[arg-type]
            why=f"a preview of what {cap.capability} would do, without `{cap.escalation[0]}`; it does not do the task",
        )
    prep = cat.by_name.get(cap.prepare or "")
    if prep is None or not authority.allows(ceiling, prep.authority):  # type: ignore[arg-type]
        return None
    arguments: dict[str, Any] = {}
    for name, source in prep.arguments.items():
        if source == "task" and name in prep.properties:
            arguments[name] = task
        elif name in grounded.arguments and name in prep.properties:
            arguments[name] = grounded.arguments[name]
    return Preparation(
        capability=prep.capability,
        tool=prep.tool,
        arguments=arguments,
        argv=argv_of(prep, arguments, prep.authority),
        needed_authority=prep.authority,  # type: ignore[arg-type]
        why=f"read-only preparation for {cap.capability}: {prep.summary[0].lower() + prep.summary[1:]} "
        "It does not do the task.",
    )
