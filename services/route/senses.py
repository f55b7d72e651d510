"""The senses of a request on one object of Pallium's, by its verb and nouns: session memory, a run, a team.

`choose.wanted` asks these after the reading's own choices (a deletion, a revert, a context request):
each returns the capability a request on its object names ("pull my chats into memory" is
`sessions sync`, "how is done-1 doing" is `workflow status`, "tell the tester to ..." is
`team send`), or None to leave the choice to the words.
"""

from __future__ import annotations

import re

from services.route import reading

__all__ = ["brings_changes_in", "memory_sense", "run_sense", "team_sense"]

_EMBEDDING = re.compile(r"\bembedd?ings?\b|\bsemantic (?:recall|search|memory)\b|\bvectors?\b", re.I)
_WORKS = re.compile(
    r"\b(?:works?|working|answers?|respond\w*|reachable|valid|functional)\b|\b(?:check|verify|test)(?:ing)? "
    r"(?:that|whether|if)\b",
    re.I,
)
_SESSION_INDEX = re.compile(r"\b(?:session )?(?:index|database|db|memory)\b", re.I)
_TROUBLE_VERBS = frozenset({"diagnose", "check", "repair", "fix", "debug", "troubleshoot", "doctor", "heal", "vet"})
_IMPORT_VERBS = frozenset({"pull", "import", "bring", "fetch", "load", "ingest", "sync", "grab", "suck"})
_SESSION_WORDS = re.compile(r"\b(?:chats?|transcripts?|sessions?|conversations?|history)\b", re.I)
_INTO_MEMORY = re.compile(r"\b(?:in|into|to) (?:pallium'?s |the |my )?(?:session )?(?:memory|index)\b", re.I)
_TRANSCRIPT = re.compile(r"\btranscripts?\b|\bmessages of\b|\bfrom line \d+\b", re.I)
# What we settled in conversation, with a time: "what did we decide last week about X" recalls sessions;
# "why was X added" (no we, no time) reads the commits (`decisions`).
_TALKED = re.compile(
    r"\b(?:(?:we|i|you) (?:decide|decided|agree|agreed|settle|settled|conclude|concluded|say|said|discuss|"
    r"discussed)|was (?:decided|agreed|settled|concluded|discussed))\b",
    re.I,
)
_AGO = re.compile(
    r"\b(?:last (?:time|week|month|session|night|sprint)|yesterday|earlier|the other day|previously|"
    r"\d+ (?:days?|weeks?) ago)\b",
    re.I,
)


def memory_sense(request: reading.Request) -> str | None:
    """Session memory by verb and noun: the embedding set up, checked or shown; the index diagnosed;
    transcripts imported or read; what was decided in conversation recalled."""
    text, verb = request.text, request.verb.lower()
    if _EMBEDDING.search(text) and request.object in ("pallium", "session", None):
        if request.action != reading.QUESTION and (
            verb in ("set", "configure", "switch", "change", "use", "point", "enable")
            or re.search(r"\bset ?up\b", text, re.I)
        ):
            return "sessions embedding configure"
        if verb in ("check", "verify", "test", "validate", "probe", "ping") and _WORKS.search(text):
            return "sessions embedding check"
        return None
    if request.object not in ("session", "pallium"):
        if request.action == reading.QUESTION and _TALKED.search(text) and _AGO.search(text):
            return "sessions recall"
        return None
    if request.action == reading.QUESTION and _WHERE_STOOD.search(text):
        return "sessions recall"  # "where did the last agent stop on the parser rewrite?"
    if request.object == "session" and (_MENTIONED.search(text) or _ON_FILE.search(text)):
        return "sessions search"  # "every session where 'ModuleNotFoundError' came up", "the chat that touched x"
    if verb in _TROUBLE_VERBS and _SESSION_INDEX.search(request.body) and request.object == "session":
        return "sessions doctor"  # "session search is acting up, diagnose the index"
    if verb in _IMPORT_VERBS and _SESSION_WORDS.search(text) and (verb == "sync" or _INTO_MEMORY.search(text)):
        return "sessions sync"  # "pull my newest codex chats into pallium's memory"
    if (
        request.object == "session"
        and _TRANSCRIPT.search(text)
        and (verb in _READ_VERBS or request.action == reading.QUESTION or _TRANSCRIPT.match(_bare(request.body)))
        and not re.search(r"\b(?:search|grep|find|mention\w*|which)\b", text, re.I)
    ):
        return "sessions read"  # "transcript of <id>", "read it from line 120"
    return None


# Where earlier work stood: "where did the last agent stop", "where had claude got to on the parser"
_WHERE_STOOD = re.compile(
    r"\bwhere (?:was|were|did|had) (?:i|we|you|they|(?:the |my |our )?(?:last |previous |earlier |other )?"
    r"(?:agents?|sessions?|claude|codex|bots?|assistants?))\s+(?:\w+\s+)?(?:stop|leave|left|get|got|end|stand|"
    r"stood|finish)\w*\b",
    re.I,
)
# Sessions picked by what was said in them or which files they touched: a search of transcripts.
_MENTIONED = re.compile(
    r"(?:\bsessions?|\bchats?|\bconversations?|\btranscripts?)\b.*(?:'[^']+'|\"[^\"]+\"|`[^`]+`).*"
    r"\b(?:came up|comes up|come up|appear\w*|mention\w*|show\w* up|was said|said|occur\w*|happen\w*)\b|"
    r"\b(?:came up|comes up|mention\w*|show(?:s|ed)? up|appear\w*)\b.*(?:'[^']+'|\"[^\"]+\"|`[^`]+`)",
    re.I,
)
_ON_FILE = re.compile(
    r"\b(?:sessions?|chats?|conversations?|transcripts?)\s+(?:that|which|where|in which)\s+(?:\w+\s+)?"
    r"(?:touched|edited|changed|modified|opened|worked on|mentioned)\s+(?:[\w.-]+/[\w./-]*[\w-]|[\w-]+\.[a-z]{1,5})\b",
    re.I,
)


def _bare(text: str) -> str:
    return re.sub(r"^(?:the|a|an|that|this|its)\s+", "", text, flags=re.I)


_READ_VERBS = frozenset({"read", "show", "print", "open", "display", "view", "dump", "give", "get", "see", "cat"})
_HOW = frozenset({"how", "how's", "hows"})
_RUN_RECORD = re.compile(r"\b(?:lease|leases|record|attempts?|heartbeat|base commit|worktrees?)\b", re.I)
_INTO_TREE = re.compile(
    r"\b(?:in|into|onto) (?:my|the|our) (?:working )?(?:tree|checkout|worktree|working copy|branch)\b", re.I
)


_CHANGES = re.compile(r"\b(?:patch\w*|changes?|edits?|diffs?)\b", re.I)
_OUT_OF_TREE = re.compile(r"\b(?:out of|from) (?:my|the|our)\b", re.I)


def brings_changes_in(text: str) -> bool:
    """Whether the text wants a run's or a team's changes in my tree ("land its patches in my checkout"),
    not out of it again (a revert)."""
    return bool(
        _INTO_TREE.search(text)
        and _CHANGES.search(text)
        and not reading.REVERTS.search(text)
        and not _OUT_OF_TREE.search(text)
    )


def run_sense(request: reading.Request) -> str | None:
    """A named run by verb and noun: how it is doing is its status, why it will not resume (its lease, its
    record) is its inspection, its patches wanted in my tree are applied."""
    if request.object != "run":
        return None
    text, verb = request.text, request.verb.lower()
    if (
        verb in _HOW
        and not re.search(r"\bhow (?:do|can|should|would) (?:i|we|you)\b", text, re.I)
        and not re.search(r"\b(?:find\w*|report|verdict|cost|decid\w*|gates?)\b", text, re.I)
    ):
        return "workflow status"
    if _RUN_RECORD.search(text) and (
        verb in ("why", "debug", "diagnose", "check", "inspect") or reading.diagnoses(request)
    ):
        return "workflow inspect"
    if brings_changes_in(text):
        return "workflow apply"
    return None


# A team's member, by the word for one or a role noun ("the reviewer", "member heidi", "a codex tester named x").
_MEMBER = re.compile(
    r"\b(?:members?|teammates?|reviewers?|testers?|fixers?|editors?|planners?|researchers?|hunters?|writers?|"
    r"critics?|skeptics?|advocates?|judges?)\b|\bnamed [\w-]+|'[\w-]+'",
    re.IGNORECASE,
)
# Verbs that act on a team or a member; a request led by any other word ("all mail of X", "open tasks on X",
# "members and spend of X") names what to see.
_TEAM_ACTS = frozenset(
    {
        "send", "tell", "ask", "message", "mail", "ping", "write", "add", "put", "create", "claim", "complete",
        "mark", "finish", "release", "unclaim", "spawn", "restart", "revive", "stop", "halt", "steer", "redirect",
        "nudge", "wake", "poke", "approve", "accept", "reject", "refuse", "resume", "run", "start", "raise",
        "budget", "join", "attach", "reattach", "apply", "merge", "land", "revert", "undo", "take", "gate", "set",
        "watch", "follow", "let", "give", "cap", "bring", "hire", "recruit", "kick", "spin", "assemble", "form",
        "continue", "reconnect", "recover", "unstick", "make", "pull", "assign", "require", "hold", "clear",
    }
)  # fmt: skip
# What a request of nouns alone asks to see on a team, in this order: its diffs, its mail, its board, its status.
_TEAM_VIEWS = (
    ("team diff", re.compile(r"\b(?:diffs?|changed?|patches)\b", re.I)),
    ("team inbox", re.compile(r"\b(?:mail|inbox|mailbox|messages)\b", re.I)),
    ("team tasks list", re.compile(r"\b(?:tasks|board)\b", re.I)),
    ("team status", re.compile(r"\b(?:members|spend\w*|costs?|cost so far|stuck|idle|doing)\b", re.I)),
)


# Money for a team: an amount, or its budget or spending limit, with a verb that gives or sets it.
_MONEY = re.compile(
    r"\$\s?\d|\b\d+(?:\.\d+)?\s?(?:dollars?|usd|bucks|euros?|eur)\b|\b(?:budget|spending (?:limit|cap)|allowance)\b",
    re.I,
)
_FUNDING_VERBS = frozenset(
    {
        "give",
        "add",
        "raise",
        "top",
        "increase",
        "bump",
        "allow",
        "grant",
        "set",
        "cap",
        "lift",
        "extend",
        "fund",
        "lower",
    }
)


def team_sense(request: reading.Request) -> str | None:
    """The team command a request's verb and nouns name, before the words' rank: tell a member is the
    mailbox, a role noun beside "add" is a new member, "restart" with a member restarts it and without one
    resumes the team, "take M off" stops that member; a request of nouns alone is the view they name."""
    text = request.body or request.text
    verb = request.verb.lower()
    member = bool(_MEMBER.search(text))
    if verb in ("steer", "redirect"):
        return "team member steer"
    if _MONEY.search(text) and (verb in _FUNDING_VERBS or request.action is None):
        return "team budget"  # "give team-x another 10 dollars", "top the team up by $5"
    if verb in ("tell", "ask", "message", "ping") and not re.search(r"\bplans?\b", text, re.I):
        return "team send"
    if verb == "spawn" or (
        verb in ("add", "bring", "hire", "recruit")
        and member
        and not re.search(r"\b(?:tasks?|board|me|myself)\b", text, re.I)
    ):
        return "team spawn"
    if verb in ("restart", "revive", "reboot"):
        return "team member restart" if member else "team resume"
    if (
        verb in ("take", "pull", "remove")
        and member
        and re.search(r"\b(?:off|out)\b", text, re.I)
        and not re.search(r"\b(?:patch\w*|changes?|edits?)\b", text, re.I)
    ):
        return "team member stop"
    if brings_changes_in(text):
        return "team apply"
    if re.search(r"\b(?:make (?:it|them|the team) active( again)?|reactivate|un-?park)\b", text, re.I):
        return "team resume"
    if re.search(r"\b(?:get (?:to )?work|get going|start working|go to work)\b", text, re.I):
        return "team run"
    if (
        request.action is None
        and verb not in _TEAM_ACTS
        and re.match(r"^(?:an? |the |one )?[\w-]+ team (?:on|about|to|for|over)\b", text, re.I)
    ):
        return "team start"  # "an adversarial-debate team on whether to drop python 3.10": one to start
    # "mail for team-x": a verb's word used as a noun, with a preposition after it
    as_noun = verb not in _TEAM_ACTS or re.match(r"^\S+ (?:of|for|in|on|from)\b", text, re.I)
    if request.action in (None, reading.QUESTION) and as_noun:
        for name, pattern in _TEAM_VIEWS:
            if pattern.search(text):
                return name
    return None
