"""Choose a capability for a task within a ceiling, explain it, and run it when asked.

Deterministic: lexical ranking over the catalog's phrasings, nudged by repository state, then
grounding, the level the call needs and its preconditions. Route never recommends a weaker
capability in place of a blocked one; a read-only preparatory step may stand beside the block.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from kernel import authority
from kernel.errors import PalliumError
from services.route import abstain, catalog, extract, lexicon, reading
from services.route import answer as answers
from services.route.choose import _lead, acts, may_choose, object_of, shape
from services.route.ground import Grounded, ground, repo_root, state_preconditions
from services.route.level import needed_level
from services.route.models import Confidence, RouteInput, RouteOutput
from services.route.state import State

if TYPE_CHECKING:
    from kernel.context import ToolContext
    from services.route.catalog import Capability, Scored
    from services.route.speller import Speller

__all__ = ["decide", "route"]

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
    answer, plan = await decide(asked(task), ceiling, rctx, inp.repo)
    answer.task = task
    if inp.execute:
        from services.route.execute import execute

        answer.executed = await execute(answer, plan, rctx, inp)
    return answer


# A question about which tool does X, or a route command typed out, asks for X: "which pallium tool tells me
# what changed in my tree", `pallium route "who calls main"`.
_WHICH_TOOL = re.compile(
    r"^\W*(?:(?:which|what) (?:pallium )?(?:tool|command|capability|subcommand)s?(?: of pallium| in pallium)?|"
    r"is there (?:a |any )?(?:pallium )?(?:tool|command)(?: in pallium)?)\s+(?:that |which |to )?"
    r"(?P<verb>tells?|shows?|gives?|lists?|finds?|does|can|will|would|should i use to|do i use to|lets me)\s+"
    r"(?:(?:tell|show|give|list|find) )?(?P<rest>.+)$",
    re.IGNORECASE,
)
_ROUTE_LINE = re.compile(
    r"^\W*pallium\s+route\s+[\"“'`](?P<task>[^\"”'`]+)[\"”'`](?:\s+--[\w-]+(?:[ =][\w.-]+)?)*\W*$", re.IGNORECASE
)


def asked(task: str) -> str:
    """What the task asks, in English words route reads: the task a typed-out `pallium route "..."` quotes,
    the X of "which pallium tool does X", the glossary's words of other languages read as English."""
    line = _ROUTE_LINE.match(task)
    if line:
        task = line.group("task")
    which = _WHICH_TOOL.match(task)
    if which:
        verb = which.group("verb").lower()
        lead = "show " if verb.startswith(("tell", "show", "give", "list", "does", "lets", "can", "will")) else ""
        task = f"{lead}{which.group('rest')}".rstrip("?").strip() or task
    from services.route import languages

    return languages.english(task)


@dataclasses.dataclass
class Plan:
    """What `execute` needs beyond the answer: the capability, the grounding state and, for a task of
    several requests, each request's own answer and plan, in order."""

    cap: Capability | None
    grounded: Grounded | None
    state: State
    request: reading.Request | None = None
    steps: list[tuple[RouteOutput, Plan]] = dataclasses.field(default_factory=list)


async def decide(task: str, ceiling: str, ctx: ToolContext, repo: str | None) -> tuple[RouteOutput, Plan]:
    """Route a whole task: one answer per request, combined when there are several."""
    state = State(ctx, repo)
    speller = catalog.load().reading_speller
    parts = reading.split(task, _one_word_commands())
    if len(parts) == 1:
        return await _decide_one(task, task, ceiling, state, _read(task, speller), None)
    decided: list[tuple[RouteOutput, Plan]] = []
    texts: list[str] = []
    carried: list[str] = []  # paths named by an earlier request, for "add a test for it"
    ids: dict[str, list[str]] = {}  # runs, teams and sessions named by an earlier request, for "its diff"
    loops: list[str] = []  # the loop an earlier request named
    for part in parts:
        if decided and _TAIL.match(part):  # "... then report back": what to do with the result, not a request
            texts[-1] = f"{texts[-1]} {part}"
            decided[-1] = await _decide_one(texts[-1], task, ceiling, state, _read(texts[-1], speller), carried)
            continue
        quoted = extract.find(texts[-1]).quoted if texts else []
        previewed = decided[-1][1].request if decided else None
        if quoted and _DO_IT.match(part):
            # "preflight 'add caching to main'; then do it": "it" is the task quoted before
            part = f"implement this: {quoted[0]}"
        elif previewed is not None and previewed.preview and _DO_IT.match(part):
            # "preview the session prune for 180d; then do it": the same request, without the preview
            part = " ".join(_PREVIEWING.sub(" ", texts[-1]).split())
            request = dataclasses.replace(previewed, text=part, body=part, preview=False)
            answer, plan = await _decide_one(part, task, ceiling, state, request, carried)
            decided.append((answer, plan))
            texts.append(part)
            continue
        request = _read(part, speller)
        before = decided[-1][1].request if decided else None
        points = bool(_POINTS.search(part))
        if before is not None and (request.object is None or (points and before.object not in (None, "code"))):
            # "list the runs, then apply the last one", "show the team's status and also its diff": the
            # object carries over from the request before, and with a pronoun, the ids it named
            request = dataclasses.replace(request, object=before.object)
        answer, plan = await _decide_one(
            part,
            task,
            ceiling,
            state,
            request,
            carried,
            ids if points else None,
            loops[0] if points and loops else None,
        )
        carried += [p for p in extract.find(part).paths if p not in carried]
        named = extract.find(part)
        for kind in ("run_ids", "team_ids", "session_ids"):
            ids[kind] = getattr(named, kind) or ids.get(kind, [])
        if plan.grounded is not None and (loop := plan.grounded.arguments.get("name")) and request.object == "loop":
            loops[0:] = [loop]  # "tick nightly then show its status": "its" is the loop named before
        decided.append((answer, plan))
        texts.append(part)
    if len(decided) == 1:
        answer, plan = decided[0]
        answer.task = task
        return answer, plan
    return answers.combined(task, ceiling, decided, state), Plan(None, None, state, steps=decided)


_DO_IT = re.compile(
    r"^(?:(?:and|please|pls|now|then|go ahead and|ok)\s+)*"
    r"(?:(?:do|implement|make|carry out|build|run) (?:it|that|this)\b|go ahead\b|for real\b|proceed\b)"
    r"(?:\s+(?:for real|now|then|please))?\s*[.!?]*$",
    re.IGNORECASE,
)
_PREVIEWING = re.compile(
    r"\b(?:preview(?:ing)?|dry[- ]?run(?: of)?|simulate|just (?:show|list)|what would)\b", re.IGNORECASE
)
_POINTS = re.compile(r"\b(?:it|its|them|their|theirs|those|these)\b", re.IGNORECASE)

# A part that only says what to do with the result of the one before ("report back", "tell me").
_TAIL = re.compile(
    r"^(?:(?:and|please|pls|just)\s+)*(?:report(?: back| to me| it| the findings)?|"
    r"tell me(?: what you find| about it)?|"
    r"let me know|summari[sz]e (?:it|them|the findings)|write it up)\s*[.!?]*$",
    re.IGNORECASE,
)


def _read(text: str, speller: Speller) -> reading.Request:
    """The request's reading, over its words with typos corrected ("wokrflow" reads as "workflow")."""
    return reading.read(lexicon.unloose(speller.fix_text(text, reading.VOCABULARY))).requests[0]


async def _decide_one(
    task: str,
    whole: str,
    ceiling: str,
    state: State,
    request: reading.Request,
    carried: list[str] | None,
    ids: dict[str, list[str]] | None = None,
    loop: str | None = None,
) -> tuple[RouteOutput, Plan]:
    cat = catalog.load()
    found = extract.find(task)
    if loop and found.loop_name is None and not (found.run_ids or found.team_ids or found.session_ids):
        found.loop_name = loop
    if carried and not found.paths:
        found.paths = list(carried)
    if ids and not (found.run_ids or found.team_ids or found.session_ids):
        for kind, values in ids.items():
            setattr(found, kind, list(values))
    typed = _command_line(task, cat)
    if typed is not None:
        # `pallium workflow gc --confirm`: the command typed out says its object, whatever word leads it
        request = dataclasses.replace(request, object=object_of(cat.by_name[typed]))
    request, named_loop = await _known_names(found, request, state)
    markers = found.markers
    if lexicon.canonical(request.verb) == lexicon.canonical("search") and set(found.symbols) <= set(found.quoted):
        markers = [m for m in markers if m != "<symbol>"]  # "search them for 'TimeoutError'": text, not a name
    terms = _rank_terms(task, request, found, cat) + markers
    if not found.refs:
        terms = [t for t in terms if t not in _BRANCH_WORDS]  # "search for main": a branch only where a ref stands
    if request.object == "loop" and _AGAIN.search(task):
        terms.append(lexicon.canonical("tick"))  # "hit the nightly loop once more": another cycle
    if named_loop:
        terms.append(lexicon.canonical("loop"))  # "tick nightly": the loop's name says "loop"
        if request.verb.lower() in ("how", "how's", "hows"):
            terms.append(lexicon.canonical("status"))  # "how's nightly": how a thing is doing is its status
    hints = frozenset(lexicon.canonical(w) for path in found.paths for w in lexicon.words(path))
    ranked = await _adjust(cat.rank(terms, hints), state, set(terms) | hints)
    ranked = shape(ranked, request, cat, found)
    if typed is not None and may_choose(cat.by_name[typed], request):
        ranked = _lead(ranked, typed, structural=True)  # the command typed out is the one asked for
    best = ranked[0]
    runner = ranked[1] if len(ranked) > 1 else None
    margin = round(best.score - (runner.score if runner else 0.0), 3)
    confidence = Confidence(
        score=round(min(max(best.score, 0.0), 1.0), 3),
        margin=max(margin, 0.0),
        runner_up=runner.capability.capability if runner else None,
    )
    root = repo_root(state)
    reason = abstain.unfit(task, terms, best, request, found, state, root)
    idle = None
    for _ in range(3):  # a tool with nothing to act on is no candidate: the next may fit ("stop it": the loop)
        if reason is not None or best.structural:
            break
        nothing = await abstain.nothing_to_act_on(best.capability, found, terms, state)
        if nothing is None:
            break
        idle = idle or nothing
        ranked = [s for s in ranked if s is not best]
        best, runner = ranked[0], (ranked[1] if len(ranked) > 1 else None)
        reason = abstain.unfit(task, terms, best, request, found, state, root)
    else:
        reason = reason or idle
    if idle is not None and reason is not None and reason != idle:
        reason = f"{idle}; {reason}"
    if reason is not None:
        return answers.nothing(task, ceiling, reason, ranked, confidence, state), Plan(None, None, state, request)
    cap = best.capability
    acting = acts(cap, request)
    if acting and typed == cap.capability and cap.escalation:
        # a command line typed out deletes only with its escalation typed too (`--confirm`)
        acting = f"--{cap.escalation[0].replace('_', '-')}" in task
    grounded = await ground(cap, task, found, state, root, acts=acting)
    said, said_request = task, request
    if (
        typed == cap.capability
        and found.quoted
        and cap.arguments.get("task") == "task"
        and "task" in grounded.arguments
    ):
        # `pallium start "add a docstring to main"`: the quoted task is the task, and its words set the level
        said = found.quoted[0]
        said_request = _read(said, catalog.load().reading_speller)
        grounded.arguments["task"] = said
    level, level_reason = needed_level(cap, grounded.arguments, said, said_request)
    blocked = not authority.allows(ceiling, level)  # type: ignore[arg-type]
    preconditions = [*(await state_preconditions(cap, state)), *grounded.needs_input]
    why = answers.why(best, grounded, level_reason)
    answer = RouteOutput(
        task=task,
        ceiling=ceiling,  # type: ignore[arg-type]
        capability=cap.capability,
        tool=cap.tool,
        arguments=grounded.arguments,
        argv=answers.argv_of(cap, grounded.arguments, level),
        why=why,
        alternatives=[answers.alternative(s, best, ceiling, task) for s in ranked[1:4] if s.score > 0],
        needed_authority=level,  # type: ignore[arg-type]
        blocked=blocked,
        blocked_reason=answers.blocked_reason(cap, level, ceiling, level_reason) if blocked else None,
        preparation=answers.preparation(cap, grounded, level, ceiling, cat, task) if blocked else None,
        preconditions=preconditions,
        confidence=confidence,
        state=state.observed(),
    )
    return answer, Plan(cap, grounded, state, request)


# What a stated fact lends the request after it: the object it is about and that something is wrong.
_STATED_TERMS = frozenset(
    lexicon.canonical(w)
    for w in ("session", "loop", "run", "workflow", "team", "knowledge", "database", "index", "gate", "patch",
              "template", "pallium", "wrong", "stuck", "stagnation", "stagnated", "stagnating")
)  # fmt: skip


def _rank_terms(task: str, request: reading.Request, found: extract.Found, cat: catalog.Catalog) -> list[str]:
    """The words the ranking weighs: after a stated fact ("doctor says the db is corrupt, move it aside",
    "recall keeps returning junk, check the index"), the request's own clause, with only the objects and
    the trouble the fact names; otherwise the whole request."""
    whole = lexicon.terms(_unsaid(_sought(_masked(task, found), request)), cat.speller)
    body = request.body.strip()
    at = task.lower().find(body.lower()) if body and request.stated else -1
    if at <= 0:
        return whole
    before = [lexicon.canonical(w) for w in lexicon.words(_masked(task[:at], found))]  # as written, no speller
    own = lexicon.terms(_unsaid(_masked(task[at:], found)), cat.speller)
    return [t for t in before if t in _STATED_TERMS] + own


_SEARCH_VERBS = frozenset(lexicon.canonical(w) for w in ("search", "find", "query", "grep", "look"))
_SOUGHT = re.compile(r"^(?P<head>.*?)\s(?:for|about)\s(?P<topic>.+)$", re.IGNORECASE)


def _sought(text: str, request: reading.Request) -> str:
    """A search of a named place ("search the knowledge base for the retry policy") without what is sought:
    the topic says what to look for, not which capability looks ("retry" is no resume). A search that
    names no place ("search for main") keeps its words: there the topic is all the task says."""
    if lexicon.canonical(request.verb) not in _SEARCH_VERBS:
        return text
    match = _SOUGHT.match(text)
    if match is None:
        return text
    head = [w for w in lexicon.words(match.group("head")) if w not in lexicon.STOPWORDS]
    if len(head) < 2:
        return text
    return match.group("head")


_AGAIN = re.compile(r"\b(?:once more|one more time|another (?:go|time|round|cycle|pass))\b", re.IGNORECASE)
_RUN_WORDS = frozenset(
    lexicon.canonical(w) for w in ("report", "resume", "apply", "revert", "inspect", "gates", "findings", "verdict")
)
_BRANCH_WORDS = frozenset(lexicon.canonical(w) for w in ("main", "master", "trunk", "develop"))
_NAME_LIKE = re.compile(r"[A-Za-z][\w.]*[-_][\w.-]*\d[\w.-]*|[A-Za-z]+\d[\w-]*|[A-Za-z][\w.]*[-_][\w.-]+")


async def _known_names(found: extract.Found, request: reading.Request, state: State) -> tuple[reading.Request, bool]:
    """A word the stores know as a run id or a loop name names that run or loop, with no "run" or "loop"
    beside it ("undo what done-1 applied", "tick nightly"): the request's object is that run or loop.
    Runs are asked only for a word shaped like a name (a hyphen, an underscore or a digit); loops only
    when the request names no other object, so a plain task pays for neither."""
    words = [w.rstrip(".") for w in found.words]
    if not found.run_ids and any(_NAME_LIKE.fullmatch(w) for w in words):
        known = {r["id"] for r in await state.workflow_runs()}
        named = [w for w in words if w in known]
        if named:
            found.run_ids = named
            found.last_run = False
            if request.object in (None, "code"):
                request = dataclasses.replace(request, object="run")
            if request.action == reading.CHANGE and reading.diagnoses(request):
                request = dataclasses.replace(request, action=None)  # "debug done-1's lease" reads the run
        elif request.object in (None, "code") and not found.paths and request.action in (None, reading.QUESTION):
            # "report for fix-auth-7", "resume fix-auth-7": a run's own word beside a name shaped like an id
            # names a run, one that does not exist; it is reported not found, never read as code
            shaped = [w for w in words if "-" in w and re.search(r"\d", w) and _NAME_LIKE.fullmatch(w)]
            said = {lexicon.canonical(w) for w in lexicon.words(request.body)}
            if shaped and said & _RUN_WORDS:
                found.run_ids = shaped[:1]
                found.last_run = False
                request = dataclasses.replace(request, object="run", action=None)
    verb_run = request.object == "run" and request.verb == "run"  # "run nightly once more": the loop's tick
    known = catalog.load().surfaces
    # A loop's name is a word no catalog phrasing, synonym or vocabulary list uses ("nightly"), so a task
    # made only of such words ("fix the checkout race") asks the loop store nothing.
    candidates = [
        w
        for w in words
        if len(w) >= 3
        and (low := w.lower()) not in known
        and low not in lexicon.STOPWORDS
        and low not in lexicon.SOFTWARE
        and low not in lexicon.OFF_DOMAIN
    ]
    if candidates and (request.object in (None, "code", "loop") or verb_run) and not found.run_ids and not found.paths:
        loops = {n.lower(): n for n in await state.loop_names()}
        named = [loops[w.lower()] for w in candidates if w.lower() in loops]
        if named:
            found.loop_name = named[0]
            # the name says "loop" only where the task's own words did not
            return dataclasses.replace(request, object="loop"), request.object != "loop"
    return request, False


def _one_word_commands() -> frozenset[str]:
    """Commands of one word ("handoff", "changed-now"): alone after a `;` they are a request of their own."""
    return frozenset(n for n in catalog.load().by_name if " " not in n)


_COMMAND_LINE = re.compile(r"^\W*(pallium\s+)?([a-z][a-z -]*)", re.IGNORECASE)


def _command_line(task: str, cat: catalog.Catalog) -> str | None:
    """The capability a task typed as a Pallium command line names (`pallium symbols src/app.py`): the
    longest run of its words that is a command."""
    match = _COMMAND_LINE.match(task.strip().strip("`"))
    if match is None:
        return None
    words = match.group(2).lower().split()
    # without "pallium" before it, only a command of two words or more reads as typed ("sessions search x
    # --source codex"); one word ("search for main", "start a team") is the task's own verb
    shortest = 1 if match.group(1) else 2
    for n in range(min(len(words), 4), shortest - 1, -1):
        name = " ".join(words[:n])
        if name in cat.by_name:
            return name
    return None


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
        return True  # no tool lists teams; the missing cue alone counts against a team's tool
    if need == "run":
        return bool(await state.workflow_runs())
    return bool(await state.loop_names())


_NEGATED = re.compile(
    r"\b(?:don'?t|do not|never|without|no)\s+(?:\w+\s+){0,2}?(?:run(?:ning)?|spend\w*|call(?:ing)?|use|using|"
    r"delete|deleting|touch(?:ing)?)\s+(?:any\s+|the\s+)?(?:agents?|models?|llms?|anything|providers?)\b",
    re.IGNORECASE,
)


def _unsaid(text: str) -> str:
    """The task without what it says not to do: "do not run agents" must not count for `workflow run`."""
    return _NEGATED.sub(" ", text)


def _masked(task: str, found: extract.Found) -> str:
    """The task with recognised arguments blanked out, so ids and paths do not count as words."""
    out = task
    code = [s for s in found.symbols if extract.is_identifier(s)]  # plain words ("main") stay words
    spans = [*found.paths, *found.run_ids, *found.session_ids, *found.team_ids, *found.refs, *code]
    if found.test_command:
        spans.append(found.test_command)
    for span in sorted(spans, key=len, reverse=True):
        out = out.replace(span, " ")
    return out


def _ceiling(ctx_ceiling: str, asked: str | None) -> str:
    if asked is None:
        return ctx_ceiling
    return asked if authority.LEVELS.index(asked) < authority.LEVELS.index(ctx_ceiling) else ctx_ceiling  # type: ignore[arg-type]
