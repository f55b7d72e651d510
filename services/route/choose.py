"""Choose from the reading first: what a request's action and object allow, and which capability they ask for.

Invariant 1 lives here (`may_choose`, `acts`): a destructive tool only for a request that deletes its
object. Then the object before the words: an id of a kind the task names, the object it names, the
verb that names a capability, a file for a task naming a file; the lexical ranking orders the rest.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from services.route import extract, lexicon, reading, senses

if TYPE_CHECKING:
    from services.route.catalog import Capability, Catalog, Scored

__all__ = ["acts", "may_choose", "names_verb", "object_of", "shape", "wanted"]


# The object each destructive tool deletes, by the first word of its command.
_DELETES_OBJECT = {"sessions": "session", "workflow": "run", "db": "pallium", "team": "team"}
_DATA_OBJECTS = frozenset(_DELETES_OBJECT.values())
_STRUCTURAL_LEAD = 0.001  # a capability the reading asks for leads the ranking, whatever the words


def may_choose(cap: Capability, request: reading.Request) -> bool:
    """Invariant 1: a destructive tool only for a request whose action deletes (or, for a revert tool,
    reverts) and whose object is the tool's object. No other word reaches it."""
    if not cap.destructive:
        return True
    if request.object != _DELETES_OBJECT.get(cap.cli.split()[0]):
        return False
    if "revert" in cap.cli:
        return bool(reading.REVERTS.search(request.body))
    return _deletes_with(cap, request) or _diagnoses_with(cap, request)


def _deletes_with(cap: Capability, request: reading.Request) -> bool:
    return request.deletes or _acting_word(cap, request) is not None


# A health check that can also repair (`sessions doctor`): diagnosing its object reads, it repairs nothing.
_DIAGNOSING = frozenset({"diagnose", "check", "inspect", "troubleshoot", "vet", "examine", "doctor"})


def _diagnoses_with(cap: Capability, request: reading.Request) -> bool:
    return cap.cli.split()[-1] == "doctor" and cap.authority == "observe" and request.verb.lower() in _DIAGNOSING


def acts(cap: Capability, request: reading.Request) -> bool:
    """Whether a destructive tool's escalation (`confirm`) is set: the request deletes and asks no preview;
    a diagnosis that reaches a repairing doctor never sets it."""
    if not cap.destructive or request.preview:
        return False
    return may_choose(cap, request) and ("revert" in cap.cli or _deletes_with(cap, request))


def _own_flag_word(cap: Capability, request: reading.Request) -> bool:
    """Whether the request uses a word of one of the tool's own options other than its escalation."""
    body = request.body.lower()
    escalation = cap.escalation[0] if cap.escalation else None
    return any(
        lexicon.word_start(word).search(body)
        for name, words in cap.flags.items()
        if name != escalation
        for word in words
    )


def _acting_word(cap: Capability, request: reading.Request) -> str | None:
    if not cap.escalation:
        return None
    body = request.body.lower()
    for word in cap.flags.get(cap.escalation[0], ()):
        if lexicon.word_start(word).search(body):
            return word
    return None


def wanted(request: reading.Request) -> tuple[str, ...]:
    """Capabilities the request's action and object ask for, best first; empty leaves it to the ranking."""
    action, obj = request.action, request.object
    if request.deletes and obj in _DATA_OBJECTS and action in (None, reading.CHANGE, reading.QUESTION):
        return ()  # a deletion of Pallium's data: the destructive tools of that object, by rank
    if action == reading.REVERT:
        return ()
    if obj == "knowledge" and (action in (reading.REVIEW, reading.QUESTION, None) and reading.verifies(request.text)):
        return ("knowledge audit",)
    if action == reading.CONTEXT and (obj in ("code", None, "knowledge") or request.stated):
        return ("knowledge context",)
    if (
        obj == "knowledge"
        and action == reading.QUESTION
        and _WHICH_PART.match(request.body)
        and not reading.names_path(request.text)
    ):
        return ("knowledge search",)  # "which module handles payments, per the docs": a search of the docs
    if (
        obj == "loop"
        and action is None
        and request.verb in ("run", "rerun", "execute", "advance", "cycle")
        and not re.search(r"\bloop (?:list|status|stop|start|reset|tick)\b", request.text, re.IGNORECASE)
    ):
        return ("loop tick",)  # a loop runs one tick at a time: "run nightly once more"
    if _SINCE_REF.search(request.text) and obj in ("code", None) and action in (None, reading.QUESTION):
        return ("handoff",)  # "catch a reviewer up on all that's changed since HEAD~3": everything since a base
    located = _located(request)
    if located:
        return (located,)
    if (
        request.verb in _CHECK_VERBS
        and re.search(r"[\w-]+\.js\b", request.text)
        and _VALIDATES.search(request.text)
        and _RUNS.search(request.text)
    ):
        return ("workflow validate",)  # "check flows/x.js for syntax errors before I run it": a script's check
    if action == reading.REVIEW and obj == "run" and re.search(r"\.js\b", request.text):
        return ("workflow validate",)
    if request.verb in _AUTHOR_VERBS and (
        (obj == "run" and re.search(r"\bworkflows?\b", request.text, re.I))
        or re.search(r"\b(?:workflow|script)s?\b.*\b(?:to|into|as|at)\s+[\w./-]+\.js\b", request.text, re.I)
    ):
        return ("workflow generate",)  # "write a research workflow to research.js" writes one, runs none
    if _AS_DECISION.search(request.text):
        return ("knowledge decisions link",)  # "register README.md as an authored decision": one to record
    if _AUTHORED.search(request.text) and action in (None, reading.QUESTION) and not request.deletes:
        return ("knowledge decisions search",)  # "authored decisions about logging?": the records, not commits
    if (
        obj == "team"
        and request.verb
        and lexicon.canonical(request.verb.lower()) == lexicon.canonical("start")
        and not _TEMPLATE.search(request.text)
    ):
        return ("team start",)  # "assemble a few agents to debate X": a team to start, not a template to read
    if not request.deletes and action != reading.REVERT:
        sensed = senses.memory_sense(request) or senses.run_sense(request)
        if sensed:
            return (sensed,)
    if not request.deletes and action in (None, reading.QUESTION):
        listed = _every(request)
        if listed:
            return (listed,)
    if obj == "pallium" and _NEWEST.search(request.text) and request.verb.lower() in _FETCH_VERBS:
        return ("update",)  # "get me the newest pallium": an upgrade, not a health check
    if obj == "knowledge" and request.verb.lower() in _MAKE_VERBS and _KNOWLEDGE_DOCS.search(request.text):
        return ("knowledge build",)  # "generate the knowledge docs without calling any model"
    if (
        obj in ("code", None, "knowledge")
        and _MODULE_GRAPH.search(request.text)
        and not reading.names_path(request.text)
        and action in (None, reading.QUESTION)
    ):
        return ("knowledge map",)  # "the lay of the land: modules and what depends on what"
    if _ALL_YOU_DO.search(request.text):
        return ("agents guide",)  # "list everything you can do", "what can pallium do": the guide to all of it
    if obj == "team" and not request.deletes and action != reading.REVERT:
        sensed = senses.team_sense(request)
        if sensed:
            return (sensed,)
    if action in (reading.CHANGE, reading.REVIEW, reading.RESEARCH) and obj == "code":
        return ("start",)
    if obj is None and (reading.strong_change(request) or action in (reading.REVIEW, reading.RESEARCH)):
        return ("start",)
    if action == reading.CHANGE and obj == "run" and not request.deletes:
        return ("start",)
    return ()


_EVERY = re.compile(
    r"\b(?:every|each|all(?: (?:the|my|of the|of my|our))?) (?P<noun>runs?|workflows?|workflow runs?|loops?|teams?)\b",
    re.I,
)
_LIST_OF = {"run": "workflow list", "workflow": "workflow list", "loop": "loop list", "team": "team list"}


def _every(request: reading.Request) -> str | None:
    """ "see every run and how it ended", "all my loops": the list of that kind, not one grounded instance."""
    match = _EVERY.search(request.text)
    if match is None:
        return None
    if request.action != reading.QUESTION and lexicon.canonical(request.verb) not in _LOOKING:
        return None
    return _LIST_OF.get(match.group("noun").split()[-1].lower().rstrip("s"))


_NEWEST = re.compile(r"\b(?:newest|latest|newer|most recent|new version|new release|current release)\b", re.I)
_FETCH_VERBS = frozenset({"get", "grab", "fetch", "install", "download", "give", "bring", "pull", "upgrade", "update"})
_MAKE_VERBS = frozenset(
    {"generate", "build", "create", "write", "make", "produce", "regenerate", "rebuild", "compile", "draft"}
)
_KNOWLEDGE_DOCS = re.compile(r"\b(?:knowledge (?:docs?|base|documents?)|module docs?|kb)\b", re.I)
_MODULE_GRAPH = re.compile(
    r"\b(?:modules?|parts|components|packages|pieces|layers|subsystems)\b.*\b(?:depends? on|dependencies|depend|"
    r"fit together|relate to each other|connect(?:ed)? to each other|import each other|imports? whom)\b|"
    r"\bwhat depends on what\b.*\bmodules?\b|\bmap of (?:the )?modules\b",
    re.I,
)
_ALL_YOU_DO = re.compile(
    r"\b(?:everything|all|what all|what(?: else)?) (?:you|pallium|it) (?:can|could) do\b|"
    r"\b(?:your|pallium'?s) (?:capabilities|commands|abilities)\b|\ball (?:of )?(?:your|pallium'?s) tools\b",
    re.I,
)
# Where something is, in the present tense ("where's X defined", "where in the code do we ..."); "where did
# the migration stop" asks where work stood, not where code is.
_WHERE = re.compile(r"^(?:where(?:'s|s| is| are| do| does| in)|in which files?)\b", re.IGNORECASE)
# "which file opens the database": which piece of code does something, in the present tense
_WHICH_DOES = re.compile(
    r"^(?:which|what) (?:file|files|module|modules|function|functions|class|classes|code|part of the code)"
    r"\s+(?!(?:is|are|was|were|did|do|does|has|have|had|should|would|can|could|will|changed?)\b)\w+s\b",
    re.IGNORECASE,
)
_POINT_TO = re.compile(
    r"^(?:point me (?:to|at)|take me to|show me where|tell me where|(?:find|search|look|grep|hunt)(?: for| up)? where|"
    r"locate)\b",
    re.IGNORECASE,
)
_CHURN = re.compile(r"\b(?:chang\w*|churn\w*|hot\w*|often|most|edit\w*|touch\w*|active)\b", re.IGNORECASE)
_USED = re.compile(r"\b(?:used|uses|called|calls|referenced|imported|invoked)\b", re.IGNORECASE)
_VALIDATES = re.compile(r"\b(?:syntax|validat\w*|lint\w*|valid)\b", re.IGNORECASE)
_WHICH_PART = re.compile(
    r"^(?:which|what|wich|where)(?:'s|s)?\s+(?:\w+\s+)?(?:modules?|docs?|documents?|files?|parts?|components?|"
    r"packages?|code)\b",
    re.IGNORECASE,
)
_SINCE_REF = re.compile(
    r"\b(?:chang\w*|happened|landed|done|modified|touched)\b.*\bsince\s+(?:HEAD(?:~\d+|\^+)?|[0-9a-f]{7,40}|"
    r"v?\d+\.\d+(?:\.\d+)?|origin/[\w./-]+|(?:the )?(?:main|master|develop) branch|main|master)\b",
    re.IGNORECASE,
)
_AS_DECISION = re.compile(
    r"^\W*(?:please\s+)?(?:register|record|add|log|file|save|store|link|enter)\b.*\bas (?:an? |the )?(?:new )?"
    r"(?:authored )?decision\b",
    re.IGNORECASE,
)
# Decisions written down as records, not read from commits: "authored decisions", "ADRs", "decision records"
_AUTHORED = re.compile(
    r"\bauthored decisions?\b|\bdecisions? records?\b|\badrs?\b|\bdecisions? \(?not (?:from )?(?:the )?commits?\)?",
    re.IGNORECASE,
)
_TEMPLATE = re.compile(r"\b(?:templates?|rosters?|presets?|built-?ins?)\b", re.IGNORECASE)
_CHECK_VERBS = frozenset({"check", "validate", "lint", "verify", "test", "vet"})
_RUNS = re.compile(r"\b(?:run|runs|running|workflow|script|loop)\b", re.IGNORECASE)


def _located(request: reading.Request) -> str | None:
    """A question asking where something is in the code: where it is used is `callers`, where it is
    defined or done is `search`; where the code changes most is left to the words (`hotspots`)."""
    if request.object not in ("code", None):
        return None
    text = request.body
    if request.action != reading.QUESTION:
        # "point me to the code that opens the database", "take me to where retries happen": a request to locate
        if not _POINT_TO.match(text):
            return None
    elif not (_WHERE.match(text) or _WHICH_DOES.match(text)):
        return None
    if _CHURN.search(text) or reading.names_path(text):
        return None
    return "callers" if _USED.search(text) else "search"


def shape(
    ranked: list[Scored], request: reading.Request, cat: Catalog, found: extract.Found | None = None
) -> list[Scored]:
    """The ranking as the reading allows and prefers it: destructive tools out unless asked for, the
    capability the action and object name first; words only order what is left."""
    allowed = [s for s in ranked if may_choose(s.capability, request)]
    if request.deletes and request.object in _DATA_OBJECTS and request.action != reading.REVERT:
        deleting = [s for s in allowed if s.capability.destructive and "revert" not in s.capability.cli]
        # The tool whose own words the request uses ("raw events", "vacuum") before the rank's choice.
        # A tool whose required argument the task cannot give ("forget old sessions" names no session id)
        # yields to the one it can (`sessions prune`): the narrowest deletion the task can ground, never a
        # wider one in its place.
        deleting.sort(
            key=lambda s: (
                found is not None and _needs_missing(s.capability, found),
                not _own_flag_word(s.capability, request),
            )
        )
        if deleting:
            allowed = [*deleting, *(s for s in allowed if not s.capability.destructive)]
            return _lead(allowed, deleting[0].capability.capability, structural=True)
    if request.action == reading.REVERT:
        reverting = [s for s in allowed if "revert" in s.capability.cli and s.capability.destructive]
        if reverting:
            return _lead(allowed, reverting[0].capability.capability, structural=True)
    for name in (*_named(request, found, cat), *wanted(request)):
        if name in cat.by_name:
            return _lead(allowed, name, structural=True)
    return _sibling(_by_object(allowed, request, found), request)


# What breaks when a named thing changes: "if I change main's return type, what breaks?", "what depends on x"
_BREAKS = re.compile(
    r"\bwhat (?:(?:would|will|could|might|can|is going to|else) )?(?:breaks?|fails?|be affected|is affected|"
    r"gets? affected|goes wrong|go wrong|depends on (?:it|this|that|them))\b|\bwho (?:would|will) (?:break|notice)\b",
    re.IGNORECASE,
)
# A ranking of the repository's files, asked with no file named: "which file is the scariest to touch",
# "the riskiest modules", "churn ranking for the last 12 weeks", "top files by churn".
_RANKING = re.compile(
    r"\b(?:which|what|the|top|most)\b.*\b(?:files?|modules?|parts?|places?|areas?|code)\b.*"
    r"\b(?:\w+iest|most (?:\w+)|hottest|worst)\b|"
    r"\b(?:\w+iest|hottest|most (?:dangerous|fragile|risky|changed|edited|touched|active|volatile))\s+"
    r"(?:\w+\s+)?(?:files?|modules?|parts?|places?|areas?|code)\b|"
    r"\b(?:churn|hotspots?) (?:ranking|rank|list|leaders?|table|top)\b|\btop (?:\d+ )?files? by\b",
    re.IGNORECASE,
)
_BARE_NAME = re.compile(r"^\W*[A-Za-z_][\w.]*\s*\?+\s*$")
_POLITE = lexicon.STOPWORDS | {"asap", "pls", "plz", "thx", "ty", "cheers"}


def _named(request: reading.Request, found: extract.Found | None, cat: Catalog) -> tuple[str, ...]:
    """What a task asks of a thing it names, or of the files as a whole, before the words' rank: what breaks
    when a named symbol changes is its callers; a ranking of files with none named is `hotspots`; a name
    alone ("main?", "parse_config, please") is a search for it."""
    if request.deletes or request.action not in (None, reading.QUESTION) or found is None:
        return ()
    if request.object not in (None, "code"):
        return ()
    if _BREAKS.search(request.text) and found.symbols and not found.paths:
        return ("callers",)
    if _RANKING.search(request.text) and not found.paths and not found.symbols:
        return ("hotspots",)
    said = [w for w in re.findall(r"[A-Za-z_][\w.]*", request.text) if w.lower() not in _POLITE]
    alone = len(said) == 1 and not found.paths and not re.search(r"[^\w\s.,:!?'-]|\d", request.text)
    # a name shaped like code ("handle_request, please"), or any word asked of alone ("main?")
    if alone and (extract.is_identifier(said[0].rstrip(".")) or _BARE_NAME.match(request.text)):
        word = said[0].lower().rstrip(".")
        commands = {w for name in cat.by_name for w in lexicon.words(name)}
        known = word in commands or word in lexicon.STOPWORDS or word in lexicon.OFF_DOMAIN
        if not known and word not in lexicon.SYNONYM_WORDS and word not in lexicon.GENERIC:
            return ("search",)
    return ()


_SIBLING_REACH = 0.15
_PLURAL_QUESTION = re.compile(
    r"^(?:what|which|wat|any)\s+(?:\w+\s+)?\w+s\b\s+(?:can|could|do|does|are|exist|is there|are there|have|"
    r"did|should|there)\b",
    re.IGNORECASE,
)


def _sibling(ranked: list[Scored], request: reading.Request) -> list[Scored]:
    """Between commands of one noun ("workflow template show" and "... list"), the request's own word
    decides: a question asking which things there are lists them, and a verb that is one command's
    own name ("resume") picks it over the sibling a synonym merges with it ("retry")."""
    if len(ranked) < 2 or ranked[0].structural or not request.verb:
        return ranked
    best = ranked[0]
    stem = best.capability.cli.rsplit(" ", 1)[0] if " " in best.capability.cli else None
    if stem is None:
        return ranked
    siblings = [
        s
        for s in ranked[1:8]
        if s.capability.cli.rsplit(" ", 1)[0] == stem and best.score - s.score <= _SIBLING_REACH and s.score > 0
    ]
    own = best.capability.cli.rsplit(" ", 1)[1]
    if (
        request.text.rstrip().endswith("?")
        and not reading.is_verb_lead(request.body)
        and request.action in (None, reading.QUESTION)
        and not _reads(best.capability)
    ):
        # "vectors configured for recall?": a question of nouns and participles asks to see, not to act
        noun = best.capability.cli.split()[0]
        looking = [
            s
            for s in ranked[1:8]
            if s.capability.cli.split()[0] == noun and _reads(s.capability) and best.score - s.score <= _SIBLING_REACH
        ]
        if looking:
            return _lead(ranked, looking[0].capability.capability)
    if _WRITES_INTO.match(request.body) and _reads(best.capability):
        # "write the pallium block into CLAUDE.md": writing into a file is the sibling that writes, not a print
        writing = [s for s in siblings if not _reads(s.capability) and not s.capability.destructive]
        if writing:
            return _lead(ranked, writing[0].capability.capability)
    if request.action == reading.QUESTION and _PLURAL_QUESTION.match(request.body) and own != "list":
        listing = [s for s in siblings if s.capability.cli.endswith(" list")]
        if listing:
            return _lead(ranked, listing[0].capability.capability)
    # "double-check my key": the check; a generic verb ("show me the templates") leaves the words to decide
    doubled = bool(re.match(r"^(?:double|re|sanity|cross)[- ]?check", request.body, re.I))
    verb = "check" if doubled else request.verb.lower()
    if own != verb and (doubled or lexicon.canonical(verb) not in lexicon.GENERIC_TERMS):
        verbatim = [s for s in siblings if s.capability.cli.rsplit(" ", 1)[1] == verb]
        if verbatim:
            return _lead(ranked, verbatim[0].capability.capability)
    return ranked


_WRITES_INTO = re.compile(
    r"^(?:write|put|insert|add|paste|drop)\b.*\b(?:into|in to|to|in)\s+(?:the |my |our )?"
    r"[\w.-]+\.(?:md|toml|json|ya?ml)\b",
    re.IGNORECASE,
)
_AUTHOR_VERBS = frozenset({"write", "create", "draft", "generate", "scaffold", "author", "make", "tailor"})
_OBJECT_OF_NOUN = {"sessions": "session", "workflow": "run", "loop": "loop", "team": "team", "knowledge": "knowledge"}
_PALLIUM_ITSELF = frozenset({"doctor", "version", "update", "trust", "mcp", "agents", "db", "worker"})
_OBJECT_REACH = 0.25  # how far below the best a candidate on the task's object may be and still lead
# A thing the task names, by kind: a tool that takes it answers before one that takes none ("check on
# nightly" is that loop's status, not the list of loops).
# Words that lead a request made of nouns alone ("unread mail for bob", "members and spend of team-x"):
# such a request asks to see the thing, not to act on it.
_LEADING_NOUNS = frozenset(
    {
        "members", "member's", "inbox", "unread", "spend", "spending", "costs", "board", "roster", "diffs", "tasks",
        "history", "events", "cycles", "verdict", "findings", "mailbox", "messages", "status",
    }
)  # fmt: skip
_SHOW = lexicon.canonical("show")
_LOOKING = frozenset(lexicon.canonical(w) for w in ("show", "find", "see", "look"))  # verbs that name no one tool
_ID_SOURCES = (("team_ids", "team"), ("session_ids", "session_id"), ("run_ids", "run_id"), ("loop_name", "loop_name"))


def _reads(cap: Capability) -> bool:
    """A tool that answers at observe and is no preview of a destructive act."""
    return cap.authority == "observe" and not cap.destructive and not cap.levels.get("edit")


def object_of(cap: Capability) -> str:
    noun = cap.cli.split()[0]
    if noun in _PALLIUM_ITSELF:
        return "pallium"
    return _OBJECT_OF_NOUN.get(noun, "code")


def _by_object(ranked: list[Scored], request: reading.Request, found: extract.Found | None) -> list[Scored]:
    """Object before words: an id of a kind the task names, else the object it names, picks among the close."""
    if not ranked or ranked[0].score <= 0:
        return ranked
    best = ranked[0]
    if found is not None:
        for attr, source in _ID_SOURCES:
            if getattr(found, attr):
                taking = [s for s in ranked if source in s.capability.arguments.values() and s.score > 0]
                # ... unless the verb names the best ("start a loop called lint-sweep": a new loop's name)
                verb = lexicon.canonical(request.verb)
                verb_names_best = source == "loop_name" and verb not in _LOOKING and names_verb(best.capability, verb)
                if taking and source not in best.capability.arguments.values() and not verb_names_best:
                    return _lead(ranked, taking[0].capability.capability)
                break
    verbless = request.action is None and request.verb.lower() in _LEADING_NOUNS
    # "show me its cycles": a verb of looking reads, unless what it would show is what a deletion removes
    looking = lexicon.canonical(request.verb) == _SHOW and not request.deletes and not request.preview
    if (request.action == reading.QUESTION or verbless or looking) and not _reads(best.capability):
        # "is the provider set up?", "is my install ok?": a question reads state, it does not act; nor does
        # a request of nouns alone ("unread mail for bob in team-x", "members and spend of team-y")
        readers = [s for s in ranked[1:] if _reads(s.capability) and s.score >= best.score - _OBJECT_REACH]
        if request.object is not None:
            readers = [s for s in readers if object_of(s.capability) == request.object] or readers
        if readers:
            return _lead(ranked, readers[0].capability.capability)
    if request.object is None or object_of(best.capability) == request.object:
        return _argument_fit(ranked, request, found)
    verb = lexicon.canonical(request.verb)
    # "refresh the index": the verb is a session tool's (sync), the object the repository's; a close
    # candidate on the object that also takes the verb's sense wins, else one that shares the verb. A
    # thing of Pallium's named outright ("index my session history") reaches further than code does.
    named_verb = names_verb(best.capability, verb)
    reach = _VERB_OBJECT_REACH_FAR if named_verb and request.object != "code" else _OBJECT_REACH
    near = [
        s for s in ranked if object_of(s.capability) == request.object and s.score > 0 and s.score >= best.score - reach
    ]
    if near and named_verb:
        near = [s for s in near if verb in s.matched]
        if request.object != "code":
            # "create a team": the team's start; "index my session history": the tool phrased with that verb first
            near.sort(key=lambda s: (not names_verb(s.capability, verb), not _leads_with(s.capability, request.verb)))
    return _lead(ranked, near[0].capability.capability) if near else _argument_fit(ranked, request, found)


def _leads_with(cap: Capability, verb: str) -> bool:
    return any(p.split()[0].lower() == verb.lower() for p in cap.phrasings if p)


def _argument_fit(ranked: list[Scored], request: reading.Request, found: extract.Found | None) -> list[Scored]:
    """A candidate whose argument the task cannot supply yields to one it can: "how does src/app.py work
    and who depends on it" names a file, not a symbol, so a file's capability answers it."""
    if found is None or ranked[0].structural:
        return _verb_fit(ranked, request)
    ranked = _quoted_fit(ranked, found)
    best = ranked[0]
    if not found.paths:
        if _needs_missing(best.capability, found):
            # "what depends on what": a name's tool with no name; a close one the task can supply answers
            for s in ranked[1:4]:
                if s.score >= best.score - _OBJECT_REACH and not _needs_missing(s.capability, found):
                    return _lead(ranked, s.capability.capability)
        return _verb_fit(ranked, request)
    sources = set(best.capability.arguments.values())
    lacks_symbol = "symbol" in sources and not found.symbols
    if sources & {"path", "paths", "script"} and not lacks_symbol:
        return _verb_fit(ranked, request)
    if not lacks_symbol and request.object != "code":
        return _verb_fit(ranked, request)
    # the best cannot be grounded at all, or the question is about the file itself ("what does
    # tests/test_api.py cover"): any file capability
    reach = 1.0 if lacks_symbol or _ABOUT_FILE.match(request.body) else _OBJECT_REACH
    for s in ranked[1:]:
        if s.score > 0 and s.score >= best.score - reach and "path" in s.capability.arguments.values():
            if request.action == reading.QUESTION and not _reads(s.capability) and _reads(best.capability):
                continue  # "why did someone add tests/x.py?": a question about a file records nothing
            return _lead(ranked, s.capability.capability)
    return _verb_fit(ranked, request)


# A question whose subject is a named file: "what does tests/test_api.py cover", "how is src/app.py used"
_ABOUT_FILE = re.compile(
    r"^\W*(?:what|how|why)(?:'s)?\s+(?:does|do|did|is|are|was)\s+(?:the\s+)?(?:file\s+)?"
    r"(?:[\w.-]+/[\w./-]*[\w-]|[\w-]+\.[a-z]{1,5})\b",
    re.IGNORECASE,
)


def _quoted_fit(ranked: list[Scored], found: extract.Found) -> list[Scored]:
    """A task quoting a phrase ("'connection reset'") is a search for it: among near ties, the tool that
    takes quoted text."""
    best = ranked[0]
    if not found.quoted or {"text", "quoted"} & set(best.capability.arguments.values()):
        return ranked
    if "name" in best.capability.arguments.values() and all(len(q.split()) == 1 for q in found.quoted):
        return ranked  # "take the 'docs' member off": a quoted name, not a phrase to search for
    for s in ranked[1:4]:
        if best.score - s.score <= 0.1 and {"text", "quoted"} & set(s.capability.arguments.values()):
            return _lead(ranked, s.capability.capability)
    return ranked


def _needs_missing(cap: Capability, found: extract.Found) -> bool:
    """Whether a required argument of `cap` has a source the task does not supply."""
    present = {
        "path": bool(found.paths),
        "paths": bool(found.paths),
        "symbol": bool(found.symbols),
        "session_id": bool(found.session_ids),
        "team": bool(found.team_ids),
    }
    return any(not present.get(cap.arguments.get(name, ""), True) for name in cap.required)


_VERB_REACH = 0.05
_VERB_OBJECT_REACH = 0.35  # a capability naming both the task's verb and its object may be this far behind
_VERB_OBJECT_REACH_FAR = 0.4  # one on a named thing of Pallium's that shares the verb another tool is named for


def _verb_fit(ranked: list[Scored], request: reading.Request) -> list[Scored]:
    """The action before the words: a close capability whose own command is the task's verb ("start an
    agent team", "scope the change") leads one that only shares its words; in a near tie, any that is."""
    if len(ranked) < 2 or ranked[0].structural or not request.verb:
        return ranked
    best = ranked[0]
    verb = lexicon.canonical(request.verb)
    if names_verb(best.capability, verb):
        if request.object is None or object_of(best.capability) == request.object:
            return ranked
        for s in ranked[1:6]:  # "start a team": the team's start, not the task's
            if (
                s.score > 0
                and best.score - s.score <= _VERB_OBJECT_REACH
                and names_verb(s.capability, verb)
                and object_of(s.capability) == request.object
            ):
                return _lead(ranked, s.capability.capability)
        return ranked
    for s in ranked[1:6]:
        if s.score <= 0 or not names_verb(s.capability, verb):
            continue
        on_object = request.object is not None and object_of(s.capability) == request.object
        if verb in lexicon.GENERIC_TERMS:
            continue  # "find", "show", "run": too common a verb to tell two capabilities apart
        if best.score - s.score <= (_OBJECT_REACH if on_object else _VERB_REACH):
            return _lead(ranked, s.capability.capability)
    return ranked


def names_verb(cap: Capability, verb: str) -> bool:
    words = cap.cli.replace("-", " ").split()
    return verb in {lexicon.canonical(w) for w in words[1:] or words}


def _lead(ranked: list[Scored], name: str, structural: bool = False) -> list[Scored]:
    """`name` first; `structural` when the reading itself asks for it (then it always fits the task)."""
    chosen = next((s for s in ranked if s.capability.capability == name), None)
    if chosen is None:
        return ranked
    top = max(s.score for s in ranked)
    lifted = dataclasses.replace(chosen, score=max(chosen.score, top) + _STRUCTURAL_LEAD, structural=structural)
    rest = [s for s in ranked if s is not chosen]
    return [lifted, *rest]
