"""Choose a capability for a task within a ceiling, explain it, and run it when asked.

Deterministic: lexical ranking over the catalog's phrasings, nudged by repository state, then
grounding, the level the call needs and its preconditions. Route never recommends a weaker
capability in place of a blocked one; a read-only preparatory step may stand beside the block.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from kernel import authority
from kernel.errors import PalliumError
from services.route import catalog, extract, lexicon
from services.route.ground import Grounded, ground, needed_level, repo_root, state_preconditions
from services.route.models import Alternative, Confidence, Preparation, RouteInput, RouteOutput
from services.route.state import State

if TYPE_CHECKING:
    from kernel.context import ToolContext
    from services.route.catalog import Capability, Scored

__all__ = ["argv_of", "decide", "route"]

MIN_SCORE = 0.3  # below this, the best candidate shares too little with the task to be offered
SIGNAL_BONUS = 0.06
ABSENT_PENALTY = 0.15
_CONTENDERS = 6
_CLOSE = 0.15  # contenders this close to the best may be reordered by state


async def route(inp: RouteInput, ctx: ToolContext) -> RouteOutput:
    ceiling = _ceiling(ctx.ceiling, inp.ceiling)
    task = " ".join(inp.task.split())
    if not task:
        raise PalliumError(
            "invalid_input",
            "the task is empty",
            hint="describe the task in words: pass `task` (CLI: the text)",
            details={"field": "task"},
        )
    rctx = dataclasses.replace(ctx, ceiling=ceiling)
    answer, plan = await decide(task, ceiling, rctx, inp.repo)
    if inp.execute:
        from services.route.execute import execute

        answer.executed = await execute(answer, plan, rctx, inp)
    return answer


@dataclasses.dataclass
class Plan:
    """What `execute` needs beyond the answer: the capability and the grounding state."""

    cap: Capability | None
    grounded: Grounded | None
    state: State


async def decide(task: str, ceiling: str, ctx: ToolContext, repo: str | None) -> tuple[RouteOutput, Plan]:
    cat = catalog.load()
    found = extract.find(task)
    terms = lexicon.terms(_masked(task, found), cat.speller) + found.markers
    state = State(ctx, repo)
    ranked = await _adjust(cat.rank(terms), state, set(terms))
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None
    margin = round(best.score - (runner.score if runner else 0.0), 3)
    confidence = Confidence(
        score=round(min(best.score, 1.0), 3), margin=margin, runner_up=runner.capability.capability if runner else None
    )
    reason = _unfit(task, terms, best)
    if reason is not None:
        return _nothing(task, ceiling, reason, ranked, confidence, state), Plan(None, None, state)
    cap = best.capability
    root = repo_root(state)
    grounded = await ground(cap, task, found, state, root)
    level, level_reason = needed_level(cap, grounded.arguments, task)
    blocked = not authority.allows(ceiling, level)  # type: ignore[arg-type]
    preconditions = [*(await state_preconditions(cap, state)), *grounded.needs_input]
    why = _why(best, grounded, level_reason)
    answer = RouteOutput(
        task=task,
        ceiling=ceiling,  # type: ignore[arg-type]
        capability=cap.capability,
        tool=cap.tool,
        arguments=grounded.arguments,
        argv=argv_of(cap, grounded.arguments, level),
        why=why,
        alternatives=[_alternative(s, best, ceiling, task) for s in ranked[1:4] if s.score > 0],
        needed_authority=level,  # type: ignore[arg-type]
        blocked=blocked,
        blocked_reason=_blocked_reason(cap, level, ceiling, level_reason) if blocked else None,
        preparation=_preparation(cap, grounded, level, ceiling, cat, task) if blocked else None,
        preconditions=preconditions,
        confidence=confidence,
        state=state.observed(),
    )
    return answer, Plan(cap, grounded, state)


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
        elif isinstance(value, list):
            for item in value:
                flags += [flag, str(item)]
        elif value is not None and value is not False:
            flags += [flag, str(value)]
    return [*argv, *flags, "--authority", level]


async def _adjust(ranked: list[Scored], state: State, terms: set[str]) -> list[Scored]:
    """Raise contenders whose signals hold in the repository's state, probing only when it can change the order."""
    top = ranked[0].score
    close = [i for i, s in enumerate(ranked[:_CONTENDERS]) if s.score > 0 and top - s.score <= _CLOSE]
    if len(close) < 2:
        return ranked  # one clear candidate: no state can change the choice
    out = list(ranked)
    for i in close:
        scored = ranked[i]
        bonus = 0.0
        for signal in scored.capability.signals:
            if signal == "sessions_running" and top - ranked[1].score > SIGNAL_BONUS:
                continue  # listing processes is the costliest probe: only for a near tie
            if await state.signal(signal):
                bonus += SIGNAL_BONUS
        for need, cues in catalog.OBJECT_CUES.items():
            # "stop it" with no run in the store cannot mean a run; only when the task names neither
            if need in scored.capability.needs and not terms & cues and not await _exists(state, need):
                bonus -= ABSENT_PENALTY
        if bonus:
            out[i] = dataclasses.replace(scored, score=scored.score + bonus)
    out.sort(key=lambda s: (-s.score, s.capability.capability))
    return out


async def _exists(state: State, need: str) -> bool:
    if need == "team":
        return False  # team tools take a team id the task must name; a task naming no team is not for them
    if need == "run":
        return bool(await state.workflow_runs())
    return bool(await state.loop_names())


def _unfit(task: str, terms: list[str], best: Scored) -> str | None:
    """Why nothing fits the task, or None when the best candidate does."""
    content = [t for t in terms if not t.startswith("<")]
    task_words = set(lexicon.words(task))
    software = task_words & lexicon.SOFTWARE
    off = task_words & lexicon.OFF_DOMAIN
    if best.score <= 0 or not best.matched:
        return "no capability shares a word with the task"
    strong = [t for t in best.matched if t not in lexicon.GENERIC_TERMS]
    if not strong and best.score < 0.5:
        return f"the task shares only general words ({', '.join(best.matched)}) with any capability"
    if off and not software and len(off) >= len(strong):
        return f"the task is about {', '.join(sorted(off))}, which no Pallium capability covers"
    if best.score < MIN_SCORE:
        return f"the closest capability covers too little of the task ({best.score:.2f} < {MIN_SCORE})"
    if content and len(best.matched) == 1 and not software and best.score < MIN_SCORE + 0.15:
        return "only one word of the task matches a capability, and nothing else ties it to software work"
    return None


def _nothing(
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


def _why(best: Scored, grounded: Grounded, level_reason: str | None) -> str:
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


def _alternative(scored: Scored, best: Scored, ceiling: str, task: str) -> Alternative:
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


def _blocked_reason(cap: Capability, level: str, ceiling: str, level_reason: str | None) -> str:
    because = f" ({level_reason})" if level_reason else ""
    return (
        f"{cap.capability} needs {level}{because}; the ceiling is {ceiling}. Nothing weaker does this task: "
        f"rerun with --authority {level} (MCP: a server started with --authority {level}) if the user grants it"
    )


def _preparation(
    cap: Capability, grounded: Grounded, level: str, ceiling: str, cat: catalog.Catalog, task: str
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


def _masked(task: str, found: extract.Found) -> str:
    """The task with recognised arguments blanked out, so ids and paths do not count as words."""
    out = task
    code = [s for s in found.symbols if extract.is_identifier(s)]  # plain words ("main") stay words
    spans = [*found.paths, *found.run_ids, *found.session_ids, *found.refs, *code]
    if found.test_command:
        spans.append(found.test_command)
    for span in sorted(spans, key=len, reverse=True):
        out = out.replace(span, " ")
    return out


def _ceiling(ctx_ceiling: str, asked: str | None) -> str:
    if asked is None:
        return ctx_ceiling
    return asked if authority.LEVELS.index(asked) < authority.LEVELS.index(ctx_ceiling) else ctx_ceiling  # type: ignore[arg-type]
