"""Why nothing fits a task: off-topic requests, things Pallium does not have, and tools with nothing to act on.

Route abstains rather than guess: a task about another world (a letter, a router, arithmetic), a verb
whose object no catalog word stands for, or a run's tool when no run is in the state it acts on,
answers null with the nearest capabilities. A capability the reading asks for, or a task naming a
path, an id or a name of the repository's, is never off-topic.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from kernel.errors import PalliumError
from services.route import catalog, choose, extract, lexicon, reading

if TYPE_CHECKING:
    from services.route.catalog import Capability, Scored
    from services.route.state import State

__all__ = ["MIN_SCORE", "nothing_to_act_on", "unfit"]

_COMMAND_WORDS = frozenset(w for name in catalog.load().by_name for w in lexicon.words(name))  # "run doctor"
MIN_SCORE = 0.3  # below this, the best candidate shares too little with the task to be offered

# Terms that name an action, not a thing: a task whose only match is one of them names nothing Pallium has.
_ACTION_TERMS = frozenset(
    lexicon.canonical(w)
    for w in (
        "generate", "show", "find", "explain", "fix", "delete", "run", "start", "stop", "change", "review",
        "verify", "apply", "revert", "resume", "recall", "approve", "reject", "clean", "prune", "install",
        "upgrade", "implement", "refactor", "test", "check", "make", "write", "configure",
    )
)  # fmt: skip


def unfit(
    task: str,
    terms: list[str],
    best: Scored,
    request: reading.Request,
    found: extract.Found,
    state: State,
    root: Any,
) -> str | None:
    """Why nothing fits the task, or None when the best candidate does.

    A capability the reading itself asks for always fits; so does any task that names a path in the
    repository (it is about the repository, even when its words are not Pallium's)."""
    if best.structural or reading.is_verb_lead(request.body):
        # "fix my bike", "review this restaurant", "open a jira ticket for the login bug": the verb is one
        # Pallium knows, its object another world's
        worldly = _worldly(request, found)
        if worldly is not None or best.structural:
            return worldly
    content = [t for t in terms if not t.startswith("<")]
    task_words = set(lexicon.words(task))
    software = task_words & lexicon.SOFTWARE
    off = task_words & lexicon.OFF_DOMAIN
    names_repo = bool(found.paths) or bool(found.run_ids) or bool(found.session_ids) or bool(found.team_ids)
    command = set(lexicon.words(best.capability.cli))
    if command <= task_words and (request.verb in ("run", "pallium", "try") or len(task_words) <= 3):
        off -= command  # "run doctor": Pallium's own command by its name, not a physician
    if (
        request.object is not None
        and best.score > 0
        and choose.object_of(best.capability) == request.object
        and choose.names_verb(best.capability, lexicon.canonical(request.verb))
    ):
        return None  # the verb names a command of the object the task names ("assemble a team of agents")
    if not names_repo and not software and _ARITHMETIC.search(task):
        return "the task is arithmetic or a unit conversion, which no Pallium capability covers"
    if best.score <= 0 or not best.matched:
        return "no capability shares a word with the task"
    if names_repo:
        return None
    authoring = request.verb in _WRITING_VERBS
    personal = [w for w in _object_nouns(request) if w in lexicon.OFF_DOMAIN] if authoring else []
    if personal and not set(_object_nouns(request)) & lexicon.SOFTWARE:
        # "write me a cover letter for a backend job": what is written is a letter, whatever it is about
        return f"the task asks for {' '.join(personal)}, which no Pallium capability covers"
    snippet = [w for w in _object_nouns(request) if w in _SNIPPETS] if authoring else []
    if snippet and not (found.symbols or _THIS_REPO.search(task)):
        # "write a SQL query that finds duplicate emails": a stand-alone snippet, nothing of this repository
        return f"the task asks for a stand-alone {' '.join(snippet)}, which is not about this repository"
    strong = [t for t in best.matched if t not in lexicon.GENERIC_TERMS]
    if not strong and best.score < 0.5:
        return f"the task shares only general words ({', '.join(best.matched)}) with any capability"
    if off and not software and (len(off) >= len(strong) or best.score < 0.75):
        return f"the task is about {', '.join(sorted(off))}, which no Pallium capability covers"
    if best.score < MIN_SCORE:
        return f"the closest capability covers too little of the task ({best.score:.2f} < {MIN_SCORE})"
    if content and len(best.matched) == 1 and not software and best.score < MIN_SCORE + 0.15:
        return "only one word of the task matches a capability, and nothing else ties it to software work"
    # "stop it", "resume that": a pronoun points at something the user and Pallium both see
    points = bool(re.search(r"\b(?:it|this|that|them|these|those)\b", task, re.IGNORECASE))
    names_thing = request.object is not None or points or bool(found.symbols or found.test_command or found.refs)
    if lexicon.canonical(request.verb) == lexicon.canonical("search") and not off:
        # "search for main": what is sought is a thing of the repository's text, unless it is of another world
        sought = [w for w in lexicon.words(request.body)[1:] if w not in lexicon.STOPWORDS and w not in _DETERMINERS]
        names_thing = names_thing or bool(sought)
    foreign = _foreign_object(request, found)
    if foreign and (best.capability.needs or choose.object_of(best.capability) in _OWN_OBJECTS):
        return (
            f"the task asks to {request.verb} {foreign}, which is nothing Pallium has (its runs, loops, teams, "
            "sessions, knowledge base or itself)"
        )
    if not names_thing and not software and set(best.matched) <= _ACTION_TERMS:
        return (
            f"the task asks to {', '.join(best.matched)} but names nothing Pallium acts on (code, a session, a run, "
            "a loop, a team, the knowledge base, Pallium itself)"
        )
    if not names_thing and request.action is None and not software and best.score < _NO_OBJECT_FLOOR:
        return "the task names nothing Pallium acts on (code, a session, a run, a loop, a team, the knowledge base)"
    return None


_ACTS_ON = {
    "runs_active": ("running", {"queued", "running", "paused"}),
    "runs_interrupted": ("interrupted or failed", {"interrupted", "failed"}),
    "runs_awaiting_approval": ("waiting at a gate", {"awaiting_approval"}),
}
_RUN_NOUNS = frozenset(lexicon.canonical(w) for w in ("run", "runs", "workflow", "gate", "patch")) | {"<run>"}


async def nothing_to_act_on(cap: Capability, found: extract.Found, terms: list[str], state: State) -> str | None:
    """A run's tool that acts on a run in one state ("stop", "resume"), for a task that names no run, when
    no stored run is in that state: "kill the stuck agent" with only a finished run means no run at all,
    and the finished one must not be grounded in its place."""
    if "team" in cap.needs and not found.team_ids and not set(terms) & catalog.OBJECT_CUES["team"]:
        try:
            teams = (await state.ctx.call("pallium_team_list", {})).teams
        except PalliumError:
            return None
        return None if teams else f"{cap.capability} acts on a team; there is none, and the task names none"
    wanted = [_ACTS_ON[s] for s in cap.signals if s in _ACTS_ON]
    if "run" not in cap.needs or not wanted or len(wanted) != len(cap.signals):
        return None
    if found.run_ids or found.last_run or set(terms) & _RUN_NOUNS:
        return None
    runs = await state.workflow_runs()
    if any(r["status"] in states for _, states in wanted for r in runs):
        return None
    what = " or ".join(name for name, _ in wanted)
    return f"{cap.capability} acts on a workflow run that is {what}; none is, and the task names no run"


_NO_OBJECT_FLOOR = 0.6
_POSSESSED = re.compile(r"(?:my|our|your|his|her|their)\s", re.IGNORECASE)
_OWN_OBJECTS = frozenset({"pallium", "loop", "run", "team", "session"})  # a tool of these acts on its own thing only
_DETERMINERS = frozenset(
    ("a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these", "those", "some",
     "all", "every", "any")
)  # fmt: skip
_NOUN_PHRASE_END = re.compile(
    r"\b(?:to|on|in|at|for|from|with|by|of|so|and|but|because|it|its|about|like|as|into|than|that|which|who|"
    r"asking|telling|saying|announcing)\b|[,.;:!?]"
)


_SNIPPETS = frozenset({"query", "regex", "regexp", "oneliner", "one-liner", "snippet", "sql"})
_THIS_REPO = re.compile(
    r"\b(?:this|our|my|the) (?:repo|repository|project|codebase|code|app|schema|database|store|tests?)\b|"
    r"\bin (?:here|this)\b",
    re.IGNORECASE,
)
_WRITING_VERBS = frozenset({"write", "draft", "compose", "pen", "author", "prepare", "create", "make", "generate"})


def _worldly(request: reading.Request, found: extract.Found) -> str | None:
    nouns = _object_nouns(request)
    if found.paths or found.run_ids or found.session_ids or found.team_ids or found.symbols:
        return None
    worldly = [w for w in nouns if w in lexicon.OFF_DOMAIN and w not in _COMMAND_WORDS]
    if worldly and not set(nouns) & lexicon.SOFTWARE:
        return f"the task is about {' '.join(worldly)}, which no Pallium capability covers"
    return None


def _object_nouns(request: reading.Request) -> list[str]:
    """The words of the verb's direct object: after the verb, up to a preposition or a clause's end."""
    parts = request.body.split(None, 1)
    rest = parts[1] if len(parts) > 1 and request.action != reading.QUESTION else ""
    phrase = _NOUN_PHRASE_END.split(rest, maxsplit=1)[0]
    return [w for w in lexicon.words(phrase) if w not in _DETERMINERS and w not in lexicon.STOPWORDS]


def _foreign_object(request: reading.Request, found: extract.Found) -> str | None:
    """The verb's direct object when it is a thing no catalog word, path, id or name stands for ("restart
    docker desktop", "reset my wifi router"): a tool of a run, a loop, a team or Pallium itself acts on
    its own object, never on that. None when the request names any of Pallium's things or points ("it")."""
    if request.action not in (None, reading.CHANGE) or request.object is not None or not request.verb:
        return None
    if found.paths or found.run_ids or found.team_ids or found.session_ids or found.loop_name or found.symbols:
        return None
    nouns = _object_nouns(request)
    known = catalog.load().surfaces
    if not nouns or any(w in lexicon.STOPWORDS for w in nouns):
        return None
    if any(w in known for w in nouns):
        # one's own thing is named by its head noun, the last: "my home wifi router" is a router, whatever
        # "home" may name; Pallium's things are never "my" anything but its own words ("my loop")
        owned = _POSSESSED.match(request.body.split(None, 1)[1] if " " in request.body else "")
        if not owned or nouns[-1] in known or not nouns[-1].isalpha():
            return None
    return " ".join(nouns)


_ARITHMETIC = re.compile(
    r"\b\d+(?:\.\d+)?\s*(?:[+*/x×^]|times|plus|minus|divided by|to the power of)\s*\d|"
    r"\b\d+(?:\.\d+)?\s*(?:squared|cubed|percent)\b|\b(?:square root|factorial) of\b|\bconvert \d",
    re.IGNORECASE,
)
