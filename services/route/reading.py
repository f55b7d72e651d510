"""Read a task as a structure before choosing: its requests, and for each its action, object and modifiers.

A task splits into requests on `;`, `then` and `and also`. In each request, subordinate clauses
("before I edit it", "that fixes the tests", "if I change it") are set aside, and the first clause
that leads with a verb gives the action; a question asks to read, whatever verbs it contains. The
object is what the action is on: code, a session, a run, a loop, a team, the knowledge base or
Pallium itself. Only recognition lives here; `logic` decides what a reading allows and prefers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.route import lexicon, objects
from services.route.objects import names_path

__all__ = [
    "REVERTS",
    "VOCABULARY",
    "Reading",
    "Request",
    "diagnoses",
    "names_path",
    "read",
    "split",
    "strong_change",
    "verifies",
]

# Actions route acts on; any other lead verb leaves the choice to the ranking ("explain", "list").
DELETE, REVERT, CHANGE, REVIEW, RESEARCH, CONTEXT, QUESTION = (
    "delete",
    "revert",
    "change",
    "review",
    "research",
    "context",
    "question",
)

_SPLIT = re.compile(
    r";|\bthen\b|\band also\b|\balso,|"
    r",?\s*\b(?:after that|afterwards|after which|once (?:that'?s|that is|it'?s) done)\b,?",
    re.IGNORECASE,
)
_NOT_SPLIT_BEFORE = frozenset({"back", "by", "since", "until", "till", "from", "even", "and", "just"})
# A part that only qualifies the request before it ("; just preview", "then no edits") is not a request.
_MODIFIER_PART = re.compile(
    r"^(?:(?:but|and|please|pls|just|only|ok)\s+)*(?:preview\w*|dry[- ]?run|simulate|no edits?|no changes|"
    r"report only|read[- ]only|don'?t (?:change|edit|touch|delete|run)|do not (?:change|edit|touch|delete|run)|"
    r"without (?:changing|editing|deleting)|nothing else|show (?:me )?what would|"
    r"(?:i|we)(?:'ll| will| can| shall) (?:\w+ )*?(?:myself|ourselves|by hand|manually|later))\b",
    re.IGNORECASE,
)
_QUOTE = re.compile(r"\"[^\"]*\"|“[^”]*”|`[^`]*`|(?<![A-Za-z0-9])'[^']*'(?![A-Za-z0-9])")
_CLAUSES = re.compile(r"[,.!?:]+(?:\s+|$)|\s+-\s+|\s+—\s+")
_FILLER = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay|so|um|uh|ugh|well|honestly|quick one|quick question|question|"
    r"alright|right|now|also|and|but|"
    r"pls|plz|please|kindly|just|maybe|actually|go ahead and|let'?s|lets|"
    r"(?:can|could|would|will) (?:you|u)(?: please| kindly| just| maybe| quickly)?(?: mind)?|"
    r"would you be so kind as to|i'?d like (?:you )?to|i would like (?:you )?to|i want (?:you )?to|"
    r"i need (?:you )?to|i wanna|help me(?: to)?|try to|time to|"
    r"have (?:a|the|an) (?:model|llm|agent) |it'?d be (?:great|nice|good) to|"
    r"i just want to|i'?d love to|you should|we should|we need to|i must)\b[\s,]*)+",
    re.IGNORECASE,
)
_SUBORDINATE = re.compile(
    r"\b(?:before|after|if|when|whenever|while|once|unless|because|so that|in case|since i|"
    r"i'?m about to|i am about to|i'?m going to|i plan to|that|which|whom?|whether)\b.*$",
    re.IGNORECASE,
)
# A clause stating a fact ("doctor says the db is corrupt", "recall keeps returning junk") before the request.
_STATEMENT = re.compile(
    r"^(?!(?:what|which|who|whose|where|why|how|is|are|was|were|does|do|did|has|have|can|could|should|would)\b)"
    r"(?:the |my |our |this |that )?[\w.-]+(?:'s)?\s+(?:\w+\s+)?(?:is|are|was|were|keeps|kept|looks|seems|says|"
    r"said|fails|failed|broke|hangs|hung|stagnated|crashed|froze|died|stopped|returns|returned|gives|gave|shows|"
    r"got|gets|went|goes|ran|needs|needed|lost|runs out|ran out|"
    r"showed|doesn'?t|isn'?t|won'?t|can'?t|has|have|had)\b|"
    # "recall's results look broken", "the tests keep failing": a plural subject, then what it does
    r"^(?:the |my |our |these |those )?(?:[\w.-]+'s\s+)?[\w-]+s\s+(?:look|seem|keep|fail|hang|return)\b|"
    # "I reviewed .pallium/workflows, honour them": what the user did, before the request
    r"^(?:i|we)(?: have|'ve| already| just)* (?:reviewed|read|checked|audited|inspected|changed|fixed|edited|"
    r"updated|rewrote|rewritten|tweaked|modified|looked (?:at|over|through)|"
    r"went (?:over|through))\b",
    re.IGNORECASE,
)
# "show what is uncommitted", "tell me which is slower": a verb asking about a clause, not a stated fact
_ASKS_WHAT = re.compile(r"^\w+\s+(?:me\s+|us\s+)?(?:what|which|who|where|how|whether|if)\b", re.IGNORECASE)
_RETRACT = re.compile(
    r"^(?:scrap|forget|ignore|cancel|drop|disregard|take back|never ?mind|nvm)\b\s*(?:that|this|it|all that|"
    r"the last one|my (?:last|previous|earlier) (?:request|message|question|ask)|what i (?:said|asked|wrote))?"
    r"(?:\s+(?:idea|request|question|one))?\s*$",
    re.IGNORECASE,
)
_DIAGNOSE = re.compile(r"^(?:debug\w*|diagnos\w*|troubleshoot\w*)\b", re.IGNORECASE)
_STYLED_START = re.compile(
    r"^(?:start|kick(?:ing)? off|launch|begin|fire off|spin up|run|do)\s+(?:a|an|the|another|one more)?\s*"
    r"(?:quick |full |deep |thorough |security |code )?(research|investigation|analysis|review|audit)\b(?![.\w/-])",
    re.IGNORECASE,
)
_REPEAT_VERBS = frozenset({"run", "keep", "loop", "go", "iterate", "repeat", "continue", "rerun"})
_SUBORDINATE_LEAD = re.compile(r"^(?:before|after|if|when|while|once|since|i'?m about to|i am about to)\b", re.I)
_QUESTION = re.compile(
    r"^(?:what|what's|whats|wat|which|wich|who|whose|where|where's|wheres|why|how|hows|is|are|was|were|"
    r"(?:does|do|did)(?=\s+(?:i|you|we|they|it|he|she|this|that|these|those|my|our|the|any|anything|"
    r"src|tests?)\b)|has|have|had|any|anything|should|would it|"
    r"¿?(?:quién|quien|qué|dónde|donde|cuál|qui|quoi|où|quel|quelle|wer|wo|welche|welcher))\b",
    re.IGNORECASE,
)
_CHANGE_LEAD = re.compile(
    r"^(?:fix\w*|fxi|repair\w*|resolve|solve|mend|correct|debug|implement\w*|add|adding|introduce|"
    r"refactor\w*|restructure|rename\w*|rewrite|rework|simplify|change|changing|modify|edit|alter|tweak|"
    r"update|make\b(?!\s+sure\b)|sort (?:it |this |that |them )?out|clean(?:ing)? ?up|cleanup|tidy|tidying|"
    r"get rid of|strip|drop|remove|delete|erase|nuke|zap|ditch|scrap|axe|optimi[sz]e|convert|migrate|port|bump|upgrade|"
    # a loose deletion verb is a change only of code: "purge the dead code", never "purge my worries"
    r"(?:purge|scrub|wipe|excise|cut out|rip out)(?=.*\b(?:code|print|prints|statements?|imports?|comments?|"
    r"functions?|dead|unused|todos?|debug|logging|logs?|helpers?|tests?|lines?)\b"
    # or out of a source file it names: "scrub the hardcoded value out of src/app.py"
    r"|.*\b(?:from|out of|in|of)\s+[\w./-]*\.(?:py|js|ts|tsx|go|rs|java|rb|c|h|cpp|sh)\b)|"
    # putting an artifact of code on code is giving it one: "put type annotations on everything in src/app.py"
    r"(?:put|insert|sprinkle|slap|stick)\s+(?:\S+\s+){0,3}?(?:docstrings?|type (?:hints?|annotations?)|"
    r"annotations?|comments?|logging|log (?:lines|statements)|asserts?|assertions?|error handling|guards?|"
    r"checks?|tests?)\s+(?:on|in|into|to|around|across|throughout)\b|"
    # "make main print a usage message", "make it accept a path": making code do something changes it
    r"make (?:it|them|this|that|the \w+|[A-Za-z_][\w.]*) (?:\w+ly )?(?:print|accept|take|handle|return|support|use|"
    r"raise|throw|log|emit|read|write|show|exit|fail|retry|parse|validate|ignore|skip|respect|honou?r|default|"
    r"work with)|"
    # giving code an artifact is changing it: "give main a docstring", "annotate src/app.py with type hints"
    r"annotate|give (?!me\b|us\b)(?:\S+\s+){1,4}?(?:a |an |some |proper |better )?(?:docstrings?|type hints?|tests?|"
    r"comments?|logging|error handling|usage message)(?![\w/.])|"
    # writing an artifact of code is a change to it ("write docstrings for ...", "write a test for x")
    r"write (?:a |an |some |the |more |missing |proper )?(?:unit |integration |regression )?"
    r"(?:tests?|docstrings?|comments?|type hints?|types|docs? for|documentation for|code|functions?|a fix))\b",
    re.IGNORECASE,
)
_CHANGE_AFTER_AND = re.compile(
    r"\b(?:and|&|then)\s+(?:then\s+)?(?:fix\w*|repair\w*|implement\w*|refactor\w*|rewrite|change|modify|edit|"
    r"make (?:it|them|the \w+|everything|tests?) (?:pass|green|work)|correct)\b",
    re.IGNORECASE,
)
_MAKE_DO = re.compile(
    r"^make (?:it|them|this|that|the \w+|[A-Za-z_][\w.]*) (?:\w+ly )?(?:print|accept|take|handle|return|support|use|"
    r"raise|throw|log|emit|read|write|show|exit|fail|retry|parse|validate|ignore|skip|respect|honou?r|default|"
    r"work with)\b",
    re.IGNORECASE,
)
_SET_TO = re.compile(
    r"^(?:reset|set|switch|change|turn|put) (?:it|them|this|that|the \w+|[A-Za-z_][\w.]*) (?:back )?to "
    r"(?:return\w*|print\w*|use|using|accept\w*|raise|raising|throw\w*|default\w*|always|never|output\w*|emit\w*|"
    r"log\w*|read\w*|write\w*|exit\w*)\b",
    re.IGNORECASE,
)
_MAKE_PASS = re.compile(r"\bmake\b.*\b(?:pass|passes|green|work|compile|build)\b", re.IGNORECASE)
_REVIEW_LEAD = re.compile(
    r"^(?:give (?!me\b|us\b)(?:\S+\s+){1,4}?(?:a |an )?(?:\w+ )?(?:code )?(?:review|once-over|audit|look-over)\b|"
    r"review\w*|audit\w*|critique|look over|go over|double[- ]check|re-?check|sanity[- ]check|"
    r"check (?:my|the|this|these|over)\b(?=.*\b(?:bugs?|mistakes?|problems?|issues?|security|diff|changes?)\b))",
    re.IGNORECASE,
)
_RESEARCH_LEAD = re.compile(
    r"^(?:research|investigate|analy[sz]e|study|explore|dig into|find out|look into|figure out)\b", re.I
)
_VERIFY = re.compile(
    r"\b(?:verify|double[- ]check|re-?check|audit|check|still (?:true|accurate|correct|right|valid)|"
    r"lying|accurate|correct|true|stale|wrong|outdated|"
    # whether what is written still agrees with the code: "make sure the docs still match the code"
    r"make sure|ensure|still (?:match\w*|hold\w*|appl\w*|reflect\w*|agree\w*)|"
    r"(?:match|matches|agree|agrees) (?:with )?the (?:code|source)|up[- ]to[- ]date|out[- ]of[- ]date|in sync)\b",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"\bcontext\b(?!\s+(?:window|menu))|\bwhat (?:do|would|will) i need to (?:read|know|look at)\b|"
    # what to read first, asked of a change to come: "what should I read before I add retries"
    r"\bwhat (?:do|would|will|should|must) (?:i|we) (?:need to |have to |first )?(?:read|know|look at|study|check|"
    r"understand)(?: first)?\b(?=.*\b(?:before|to|for|if)\b)|"
    r"\bwhat to (?:read|know|look at|study|check)(?: first)?\b(?=.*\b(?:before|to|for|if)\b)|"
    # "which files and tests should I look at": what to read before a change
    r"\b(?:which|what)\s+(?:other\s+)?(?:files|tests|checks|modules|places|parts)\b.*"
    r"\b(?:should|must|do|would) (?:i|we) (?:look at|read|check|watch|touch|mind)\b",
    re.IGNORECASE,
)
_DELETE_WORDS = re.compile(
    r"\b(?:delete\w*|remov\w*|erase\w*|purg\w*|wip\w*|discard\w*|destroy\w*|trash\w*|prun\w*|forget\w*|"
    r"nuk\w*|zap\w*|scrub\w*|ditch\w*|scrap\w*|trim\w*|move (?:\w+ ){0,4}aside|"
    r"get rid of|gc|garbage[- ]collect\w*|clean(?:ing)? ?up|cleanup|tidy up|free (?:up )?(?:disk|space)|"
    r"vacuum\w*|compact\w*|reset\w*|drop\w*|expire\w*|clear (?:out|away))\b",
    re.IGNORECASE,
)
# A run's changes, named: "done-1's patches", "the changes of done-1", "what done-1 applied".
_RUN_CHANGES = (
    r"(?:(?:[\w.-]+'s |the |its |their )(?:patch\w*|changes?|edits?|diffs?)|"
    r"(?:the )?(?:patch\w*|changes?|edits?|diffs?) (?:of|from|by|that) (?:run |workflow )?(?:[a-z]+-\d+|wf-[\w-]+|"
    r"the (?:last |latest )?(?:run|workflow))|what [\w.-]+ (?:applied|put|did|changed|landed|added))"
)
REVERTS = _REVERT_WORDS = re.compile(
    r"\b(?:revert\w*|undo\w*|roll(?:ing)? ?back|rollback|back ?out|unapply|take (?:[\w'.-]+ ){0,4}?back out|"
    # Taking a run's changes out of the tree again is a revert, whichever verb carries it.
    rf"(?:take|pull|get|remove|strip|drop|discard|delete|rip) (?:back )?{_RUN_CHANGES}|"
    r"(?:take|pull|get|remove|strip|rip) (?:[\w'.-]+ ){1,5}?(?:back )?(?:out of|from) (?:my |the |our )?"
    r"(?:working )?(?:tree|checkout|worktree|working copy)|"
    r"take (?:\w+ ){0,3}?(?:patch\w*|changes?|edits?) back|"
    r"take back (?:the |its |their )?(?:patch\w*|changes?|edits?|"
    r"what [\w.-]+ (?:applied|put|did|changed|landed|added)))\b",
    re.I,
)
_PREVIEW = re.compile(
    r"\b(?:preview\w*|dry[- ]?run|what would|which would|would (?:it|that|be)|how (?:much|many) would|simulate|"
    r"just (?:show|list|say|tell)|only (?:show|list|say)|without (?:deleting|removing|actually))\b",
    re.IGNORECASE,
)
_NO_EDIT = re.compile(
    r"\b(?:don'?t|do not|never|without|no)\s+(?:\w+\s+)?(?:change|changing|edit|editing|edits|modify|modifying|"
    r"touch|touching|fix|fixing|write|writing|changes)\b|\bread[- ]only\b|\breport only\b|\bonly (?:a )?report\b|"
    r"\bjust (?:a )?(?:look|read|review|report)\b|\bnothing else\b",
    re.IGNORECASE,
)
_WOULD_YOU = re.compile(
    r"^(?:what would (?:you|pallium|an agent) do to|how would (?:you|pallium) (?:go about )?)\s*(.+)$", re.I
)
_IMPROVE = re.compile(
    r"^(?:speed up|improve|harden|optimi[sz]e|make (?:\S+ )?(?:faster|safer|simpler|cleaner))\b", re.I
)
_UNTIL = re.compile(r"\buntil\b|\btill\b|\bkeep (?:\w+ing)\b|\brepeatedly\b|\bover and over\b", re.IGNORECASE)


@dataclass(frozen=True)
class Request:
    """One request of a task: its text, action, negations, object and modifiers."""

    text: str
    verb: str  # the main clause's first word, once fillers are set aside ("fix", "what", "list")
    body: str  # the main clause, subordinate clauses set aside: where the action's words count
    action: str | None  # one of the constants above, or None: leave the choice to the ranking
    deletes: bool  # a deletion (or revert) word stands in the request's main clause or its question
    no_edit: bool  # "don't change anything", "report only"
    object: str | None  # pallium, knowledge, team, loop, session, run, code; None when it names none
    preview: bool  # "dry run", "what would it delete"
    until: bool  # "until it is green", "keep fixing"
    stated: str = ""  # clauses before the request that state a fact ("recall keeps returning junk")


@dataclass(frozen=True)
class Reading:
    requests: tuple[Request, ...]


def split(task: str, commands: frozenset[str] = frozenset()) -> list[str]:
    """The task's requests, in order; quoted text is never split, and a part of one word joins the last
    unless that word is one of `commands` ("changed-now; handoff": two requests)."""
    masked = _QUOTE.sub(lambda m: "\0" * len(m.group(0)), task)
    parts: list[str] = []
    start = 0
    for match in _SPLIT.finditer(masked):
        before = masked[start : match.start()].split()
        word = before[-1].lower().strip(",") if before else ""
        if match.group(0).lower() == "then" and word in _NOT_SPLIT_BEFORE and word != "and":
            continue
        parts.append(task[start : match.start()])
        start = match.end()
    parts.append(task[start:])
    out: list[str] = []
    pending = ""  # a part that is only a subordinate clause ("I'm about to add a flag;") qualifies the next
    for i, part in enumerate(parts):
        text = re.sub(r"^[\s,;]*(?:and\s+)?|[\s,;]*(?:and)?\s*$", "", part, flags=re.IGNORECASE).strip()
        if not text:
            continue
        if pending:
            text, pending = f"{pending}, {text}", ""
        # "prune sessions older than 1y; then sync": a verb alone acts on the object the part before names
        alone = len(text.split()) == 1 and (
            text.lower() in commands
            or (bool(out) and _is_verb_lead(text) and objects.object_in(out[-1]) not in (None, "code"))
        )
        if out and ((len(text.split()) < 2 and not alone) or _MODIFIER_PART.match(text)):
            out[-1] = f"{out[-1]} {text}"
        elif (_SUBORDINATE_LEAD.match(_FILLER.sub("", text)) or _STATEMENT.match(text)) and not _CLAUSES.search(text):
            pending = text  # "nightly seems wedged; unstick it": the fact qualifies the request after it
        elif _INTENT.match(text) and i + 1 < len(parts) and _asks_of(parts[i + 1]):
            pending = text  # "I want to make main accept a path; what's the context I need": the change to come
        else:
            out.append(text)
    if pending:
        out.append(pending)
    return out or [task.strip()]


def _asks_of(part: str) -> bool:
    """Whether a part asks a question of Pallium or for context ("what should I read first")."""
    lead = _FILLER.sub("", part.strip().lstrip("¿¡")).strip()
    return _lead_action(lead) in (QUESTION, CONTEXT) or bool(_CONTEXT.search(lead))


def read(task: str) -> Reading:
    return Reading(tuple(_request(text) for text in split(task)))


def _request(text: str) -> Request:
    clauses = [c for c in _CLAUSES.split(_QUOTE.sub(" ", text)) if c.strip()]
    action: str | None = None
    main = ""
    stated: list[str] = []
    for i, clause in enumerate(clauses):
        lead = _FILLER.sub("", clause.strip().lstrip("¿¡")).strip()
        if not lead or re.match(
            r"^(?:before|after|if|when|while|once|since|i'?m about to|i am about to)\b", lead, re.I
        ):
            continue
        if i < len(clauses) - 1 and _RETRACT.match(lead):
            continue  # "scrap that idea, explain src/app.py instead": the earlier request is withdrawn
        if i < len(clauses) - 1 and _STATEMENT.match(lead) and not _ASKS_WHAT.match(lead):
            stated.append(lead)
            continue  # "recall keeps returning junk, check the index": the symptom, then the request
        raw = clause.strip().lstrip("¿¡")
        if i < len(clauses) - 1 and (_INTENT.match(raw) or _TASK_LABEL.match(clauses[i - 1].strip() if i else "")):
            later = [_FILLER.sub("", c.strip().lstrip("¿¡")).strip() for c in clauses[i + 1 :]]
            if any(_lead_action(c) in (QUESTION, CONTEXT) or _is_verb_lead(c) for c in later if c):
                # "I need to add a flag to main. What's the context I need?": the change the user means to
                # make, then what they ask of Pallium for it
                stated.append(lead)
                continue
        if _TASK_LABEL.match(lead) and i < len(clauses) - 1:
            continue  # "task: make main accept a path. what should I read first?"
        found = _lead_action(lead)
        if found is not None or _is_verb_lead(lead):
            action, main = found, lead
            break
    if action is None and not main:
        leads = [_FILLER.sub("", c.strip()).strip() for c in clauses]
        leads = [lead for lead in leads if lead and not _SUBORDINATE_LEAD.match(lead)]
        # past a stated fact, the clause after it is the request even when its verb is not one we list
        main = next((lead for lead in leads if lead not in stated), leads[0] if leads else "")
    if (
        stated
        and action == QUESTION
        and re.search(r"\b(?:read|look at|know|checks?|tests?|files?)\b", main, re.I)
        and any(_INTENT.match(st) or _CHANGE_LEAD.match(st) for st in stated)
    ):
        action = CONTEXT  # "task: make main accept a path. what should I read first?": context for that change
    body = _SUBORDINATE.sub("", main) if action != QUESTION else main
    deletes = bool(_DELETE_WORDS.search(body) or _REVERT_WORDS.search(body))
    if action in (QUESTION, None) and _DELETE_WORDS.search(main) and (action == QUESTION or _PREVIEW.search(text)):
        deletes = True  # "preview which sessions a prune would remove": the deletion is in the clause set aside
    if action == CHANGE and _DIAGNOSE.match(main):
        action = None  # "debug its lease": diagnosing a run, a loop or a session reads it; code is fixed below
    if _SET_TO.match(main):
        action, deletes = CHANGE, False  # "reset main to return 0": code made to behave another way
    if action is None and _CHANGE_AFTER_AND.search(body):
        action = CHANGE
    if action in (REVIEW, RESEARCH, None) and _CHANGE_AFTER_AND.search(body):
        action = CHANGE
    no_edit = bool(_NO_EDIT.search(text))
    obj = objects.object_in(text)
    if obj in ("pallium", "session", "run", "loop") and objects.CODE_HEAD.match(main):
        obj = "code"  # "point me to the code that opens the database": the head noun is code, not its clause
    if action == CHANGE and _SET_TO.match(main) and obj is None:
        obj = "code"
    if action is None and _DIAGNOSE.match(main) and obj in ("code", None):
        action = CHANGE
    if _STYLED_START.match(main) and obj in (None, "run"):
        obj = "code"  # "kick off a research run on how logging is done": a run of `start`'s kind, on the repository
    if (
        action is None
        and request_verb(main) in _REPEAT_VERBS
        and re.search(r"\b(?:until|till)\b", text, re.I)
        and re.search(r"\b(?:fix\w*|repair\w*|green|pass(?:es)?)\b", text, re.I)
    ):
        action = CHANGE  # "run the tests until they pass, fixing what fails"
    if action is None and _CONTEXT.search(text):
        action = CONTEXT
    if action == QUESTION and _CONTEXT.search(text):
        action = CONTEXT
    would = _WOULD_YOU.match(main)
    if action == QUESTION and would and (_CHANGE_LEAD.match(would.group(1)) or _IMPROVE.match(would.group(1))):
        action = CHANGE  # "what would you do to speed up the tests?": the change, planned (a preview)
    if _REVERT_WORDS.match(body.strip()):
        action = REVERT
    preview = bool(_PREVIEW.search(text)) or (action == QUESTION and deletes)
    if preview and not deletes and _DELETE_WORDS.search(text):
        deletes = True  # "gc preview for workflow runs: just list what would go": a deletion, previewed
    return Request(
        text=text,
        verb=request_verb(main),
        body=body,
        action=action,
        deletes=deletes,
        no_edit=no_edit,
        object=obj,
        preview=preview,
        until=bool(_UNTIL.search(text)),
        stated=", ".join(stated) if main and stated else "",
    )


def request_verb(main: str) -> str:
    """The request's verb: its first word, a phrasal verb read as the one it stands for ("spin up": start)."""
    return (re.findall(r"[\w'-]+", lexicon.phrasal(main).lower()) or [""])[0]


# What the user means to do themselves, before what they ask: "I need to add a --name flag", "I'd like to
# stop babysitting the nightly loop", "I want to change the signature of X".
_INTENT = re.compile(
    r"^(?:(?:so|ok|okay|well|honestly|basically)[, ]+)?(?:i|we)(?: (?:really |just )?(?:need|want|have|plan|mean|"
    r"intend|hope)| ?'d (?:like|love)| would like| am going| ?'m going| ?'m about| am about| ?'m trying| am trying)"
    r" to\b",
    re.IGNORECASE,
)
_TASK_LABEL = re.compile(r"^(?:the |my )?task$", re.IGNORECASE)
_WONDER = re.compile(r"^(?:i wonder|i'?m wondering|wondering|i'?m curious|just curious|curious)\b", re.IGNORECASE)


def _lead_action(lead: str) -> str | None:
    if _QUESTION.match(lead) or _WONDER.match(lead):
        return QUESTION
    if _CONTEXT.match(lead) or re.match(r"^(?:give|get|show|find|collect|gather)\b.*\bcontext\b", lead, re.I):
        return CONTEXT
    if _REVERT_WORDS.match(lead):
        return REVERT
    if _REVIEW_LEAD.match(lead):
        return REVIEW
    if _RESEARCH_LEAD.match(lead):
        return RESEARCH
    styled = _STYLED_START.match(lead)
    if styled:  # "kick off a research run", "do a security review of the auth code"
        return RESEARCH if styled.group(1).lower().startswith(("research", "investig", "analys")) else REVIEW
    if _CHANGE_LEAD.match(lead):
        if re.match(r"^make\b", lead, re.I) and not _MAKE_PASS.search(lead) and not _MAKE_DO.match(lead):
            return None
        return CHANGE
    if re.match(r"^keep\s+\w+ing\b", lead, re.I):
        return _lead_action(re.sub(r"^keep\s+", "", lead, flags=re.I))
    return None


_OTHER_VERBS = re.compile(
    r"^(?:show|shw|list|lsit|find|search|serch|explain|explian|tell|give|get|start|run|apply|save|approve|reject|"
    r"generate|draft|write|create|build|rebuild|index|reindex|sync|import|pull|read|print|open|display|map|"
    r"validate|lint|check|verify|test|configure|install|register|hook|put|trust|upgrade|stop|halt|pause|"
    r"resume|continue|retry|restart|spawn|send|summari[sz]e|prepare|scope|preflight|recall|remind|dump|grep|"
    r"look|see|know|tick|set|enable|disable|watch|describe|walk|compare|tell|report|inspect|analyse|vacuum|"
    r"prune|purge|forget|wipe|kill|cancel|abort|attach|join|claim|complete|nudge|steer|serve|spin|move|unstick|"
    r"unblock|assemble|record|link|message|ping|step|refresh|dump|export|fact-check|trim|shrink|archive|reattach|"
    r"rejoin|reconnect|annotate|nudge|wake|poke)\b",
    re.IGNORECASE,
)


def _is_verb_lead(lead: str) -> bool:
    return bool(_OTHER_VERBS.match(lead))


is_verb_lead = _is_verb_lead


def diagnoses(request: Request) -> bool:
    """Whether the request's verb asks to diagnose ("debug its lease"): a reading of a run, a loop or a session."""
    return bool(_DIAGNOSE.match(request.verb))


def verifies(text: str) -> bool:
    """Whether the text asks if something is still true ("are the docs lying", "verify the claims")."""
    return bool(_VERIFY.search(text))


_STRONG_CHANGE = re.compile(
    r"^(?:fix\w*|fxi|repair\w*|debug\w*|implement\w*|refactor\w*|rename\w*|sort|make|keep)$", re.IGNORECASE
)


def strong_change(request: Request) -> bool:
    """Whether the request's verb asks to change code even when it names no code ("can you just fix it")."""
    return request.action == CHANGE and bool(
        _STRONG_CHANGE.match(request.verb) or _CHANGE_AFTER_AND.search(request.body)
    )


def _vocabulary() -> frozenset[str]:
    """Every word the reading's patterns spell out, which a speller must leave as it is ("preview")."""
    words: set[str] = set()
    for value in [*globals().values(), *vars(objects).values()]:
        patterns = [value] if isinstance(value, re.Pattern) else []
        if isinstance(value, tuple):
            patterns = [p for item in value if isinstance(item, tuple) for p in item if isinstance(p, re.Pattern)]
        for pattern in patterns:
            words.update(w.lower() for w in re.findall(r"[A-Za-z]{3,}", pattern.pattern))
    return frozenset(words)


VOCABULARY = _vocabulary()
