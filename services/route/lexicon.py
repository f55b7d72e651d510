"""Words to terms: tokenizing, stemming, synonyms and typo correction for route's lexical ranking.

Pure Python with no model: a task and every phrasing of the catalog pass through `terms`, so they
meet on the same canonical stems; `speller.Speller` maps a misspelt word to the closest known one.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from services.route.speller import Speller

__all__ = [
    "GENERIC",
    "GENERIC_TERMS",
    "OFF_DOMAIN",
    "SOFTWARE",
    "SOFTWARE_TERMS",
    "STOPWORDS",
    "SYNONYMS_OF",
    "SYNONYM_WORDS",
    "stem",
    "terms",
    "words",
]

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")  # letters of any script: "quién" is one word, not "qui" and "n"


def _bag(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOPWORDS = _bag(
    """
    a an the and or but if then so of to in on at by for from with without into onto about as is are was
    were be been being am do does did have has had having i me my mine we us our you your it its
    this that these those there here what which who whom whose when how can could would should will shall
    may might must please pls plz hey hi hello thanks thank ok okay just quickly quick really actually maybe
    kind sort some any all every each one ones thing things stuff something anything get got let lets like
    want wanna need needs help tell give me know also too very much more most now right currently again
    already still yet up out off over under than then them they their he she him her his hers please could
    you would mind im ive id youre gonna gotta bit little lot lots be able way ways use using whats wheres
    hows thats lets dont cant wont far against versus vs sure everything everyone anything something
    somebody anybody isnt arent question
    doesnt didnt theres heres whos ya yeah yes no nope u ur
    quién quien qué que dónde donde cuál qui quoi où quel quelle wer wo welche welcher le la les el los der das
    """
)
# Kept out of STOPWORDS because they carry routing sense: "why" (decisions), "where" (recall, search),
# "not" (unfinished), "last" (the last run), "new", "old".

# Surface word -> canonical word, applied before stemming. Groups of words a person uses for one idea.
_SYNONYM_GROUPS: dict[str, tuple[str, ...]] = {
    "fix": ("fix", "fixes", "fixed", "fixing", "repair", "resolve", "solve", "mend", "correct", "debug", "broken"),
    "delete": ("delete", "remove", "erase", "purge", "wipe", "rm", "discard", "destroy", "trash", "scrub"),
    "show": ("show", "display", "print", "view", "list", "lists", "listing", "enumerate", "see", "inventory"),
    "find": ("find", "search", "locate", "look", "lookup", "grep", "hunt", "seek", "query"),
    "session": ("session", "conversation", "transcript", "chat", "chats", "dialog", "dialogue", "thread"),
    # Claude and Codex are named as themselves: they are the clients `mcp install` registers with, and an
    # "agent" word would make "register pallium with codex" the AGENTS.md files' tool.
    "agent": ("agent", "bot", "bots", "assistant", "assistants", "worker", "workers"),
    "run": ("run", "execute", "launch", "kick", "trigger"),
    "stop": ("stop", "halt", "kill", "cancel", "abort", "terminate", "end", "quit"),
    "start": ("start", "begin", "initiate", "setup", "set", "create", "register", "assemble", "convene"),
    "change": ("change", "modify", "edit", "alter", "touch", "tweak", "modification", "diff", "delta"),
    "file": ("file", "module", "source", "script", "files", "modules", "bestand", "bestanden", "archivo", "archivos"),
    "trust": ("trust", "trusted", "honour", "honor", "honoured", "honored", "honouring", "honoring"),
    "cost": ("cost", "costs", "spend", "spent", "spending", "expense", "expenses", "price"),
    "risk": (
        "risk",
        "risky",
        "danger",
        "dangerous",
        "safe",
        "careful",
        "fragile",
        "nervous",
        "scary",
        "scariest",
        "hazard",
        "rischio",
        "riesgo",
        "risico",
    ),
    "call": (
        "call",
        "calls",
        "caller",
        "callers",
        "use",
        "uses",
        "used",
        "usage",
        "usages",
        "reference",
        "references",
        "referenced",
        "invoke",
        "invokes",
        "invoked",
        "depends",
        "dependent",
        # the same in the languages a user may slip into: Spanish, French, German
        "llama",
        "llaman",
        "appelle",
        "appellent",
        "ruft",
        "aufruft",
    ),
    "approve": ("approve", "approval", "signoff", "greenlight", "allow", "okay", "permit"),
    "reject": ("reject", "deny", "refuse", "decline", "veto"),
    "apply": ("apply", "land", "merge", "accept", "integrate", "incorporate"),
    "revert": ("revert", "undo", "rollback", "unapply", "backout"),
    "resume": ("resume", "continue", "restart", "retry", "rerun", "reattempt"),
    "recall": ("recall", "remember", "remind", "memory", "left", "leave"),
    "status": ("status", "progress", "state", "doing", "going", "health"),
    "test": ("test", "tests", "testing", "spec", "specs", "pytest", "unittest"),
    "verify": ("verify", "verification", "verified", "confirm", "prove", "ensure"),
    "index": ("index", "reindex", "indexing", "indexed", "scan", "crawl"),
    "uncommitted": ("uncommitted", "unstaged", "staged", "untracked", "dirty", "modified", "wip", "unsaved"),
    "tick": ("tick", "cycle", "cycles", "iteration", "iterations", "round", "rounds", "step"),
    "old": ("old", "older", "ancient", "aged", "outdated", "stale"),
    "recent": ("recent", "recently", "latest", "newest", "last", "lately", "today", "yesterday"),
    "finish": ("finish", "finished", "done", "complete", "completed", "ended", "ending", "over", "closed"),
    "live": ("running", "active", "live", "alive", "working", "busy", "ongoing", "underway", "currently"),
    "review": ("review", "audit", "critique", "assess", "evaluate"),
    "scope": ("scope", "preflight", "plan", "planning", "prepare", "prep", "groundwork"),
    "generate": ("generate", "draft", "author", "scaffold", "template", "templates", "boilerplate", "tailor"),
    "explain": (
        "explain",
        "describe",
        "overview",
        "understand",
        "about",
        "walk",
        "story",
        "explica",
        "explícame",
        "explique",
        "expliquer",
        "erklär",
        "erkläre",
        "erklären",
    ),
    "decide": (
        "decide",
        "decided",
        "decision",
        "decisions",
        "choose",
        "chose",
        "chosen",
        "choice",
        "reasoning",
        "rationale",
        "reason",
        "why",
    ),
    "symbol": (
        "symbol",
        "symbols",
        "outline",
        "function",
        "functions",
        "class",
        "classes",
        "method",
        "methods",
        "declaration",
        "declarations",
        "definition",
        "definitions",
        "signature",
        "signatures",
        "sig",
        "sigs",
        "toc",
        "def",
        "defs",
        "func",
        "funcs",
    ),
    "neighbor": (
        "neighbor",
        "neighbors",
        "neighbour",
        "neighbours",
        "together",
        "coupled",
        "coupling",
        "cochange",
        "related",
        "alongside",
        "companion",
    ),
    "handoff": ("handoff", "handover", "hand", "baton"),
    "embed": ("embed", "embedding", "embeddings", "vector", "vectors", "semantic"),
    "clean": ("clean", "cleanup", "tidy", "gc", "garbage", "collect", "reclaim", "free"),
    "prune": ("prune", "trim", "expire"),
    "worktree": ("worktree", "worktrees"),
    "gate": ("gate", "gates", "checkpoint", "checkpoints"),
    "patch": ("patch", "patches", "edits", "changeset", "changesets", "hunks"),
    "workflow": ("workflow", "workflows", "pipeline", "pipelines"),
    "loop": ("loop", "loops", "recurring", "periodic", "repeatedly", "cron"),
    "install": ("install", "installed", "installation", "register", "hook", "wire", "connect", "integrate"),
    "upgrade": ("upgrade", "update", "updated", "newer", "bump"),
    "guide": ("guide", "manual", "docs", "documentation", "instructions", "howto", "tutorial", "handbook"),
    "version": ("version", "versions", "release"),
    "stuck": (
        "stuck",
        "hung",
        "hang",
        "hanging",
        "frozen",
        "wedged",
        "blocked",
        "waiting",
        "pending",
        "idle",
        "inactive",
    ),
    "wrong": (
        "wrong",
        "failing",
        "fail",
        "fails",
        "failed",
        "failure",
        "crash",
        "crashed",
        "crashes",
        "error",
        "errors",
        "bug",
        "bugs",
        "buggy",
        "issue",
        "issues",
        "problem",
        "problems",
        "flaky",
        "mistake",
        "mistakes",
        "junk",
        "nonsense",
        "rubbish",
        "weird",
    ),
    "implement": ("implement", "add", "introduce", "feature", "features"),
    "refactor": ("refactor", "restructure", "rename", "cleanup", "rework", "rewrite", "simplify", "extract"),
    "database": ("database", "db", "sqlite", "store"),
    "configure": ("configure", "config", "configuration", "settings", "setting", "provider"),
}
_SYNONYM_GROUPS["hotspot"] = ("hotspot", "hotspots", "hot", "churn", "churns", "churning", "churny", "churniest")
_SYNONYM_GROUPS["fact"] = ("fact", "facts", "dump", "export")
_SYNONYM_GROUPS["send"] = ("send", "message", "mail", "dm", "notify")
_SYNONYM_GROUPS["link"] = ("link", "record")
_SYNONYM_GROUPS["sync"] = ("sync", "synchronize", "synchronise", "refresh", "ingest", "reimport")
_SYNONYM_GROUPS["validate"] = ("validate", "validation", "lint", "linting", "syntax")
_SYNONYM_GROUPS["runlist"] = ("runs",)  # the plural is the noun: "what runs have I got" lists, it does not run
_SYNONYM_GROUPS["not"] = ("not", "never", "unfinished", "incomplete", "undone")
_SYNONYMS = {word: canon for canon, group in _SYNONYM_GROUPS.items() for word in group}
SYNONYM_WORDS = frozenset(_SYNONYMS)
# Later groups must not silently steal words from earlier ones: a word belongs to its first group.
for _canon, _group in _SYNONYM_GROUPS.items():
    for _word in _group:
        _SYNONYMS.setdefault(_word, _canon)
SYNONYMS_OF = _SYNONYMS  # word -> its group's name, for the speller

# Words any capability might use: they count for little when deciding what fits.
GENERIC = frozenset(
    {
        "show",
        "find",
        "run",
        "start",
        "change",
        "file",
        "status",
        "recent",
        "check",
        "new",
        "work",
        "task",
        "repo",
        "repository",
        "project",
        "thing",
        "make",
        "do",
        "see",
        "look",
        "write",
        "time",
        "name",
        "what",
        "where",
        "when",
        "which",
        "who",
        "how",
        "not",
        "happen",
        "sure",
        "go",
        "keep",
        "tree",
    }
)

GENERIC_TERMS: frozenset[str] = frozenset()  # filled below, once `canonical` exists

# Words of software work: a task holding one is about the repository, even if no capability names it.
SOFTWARE = _bag(
    """
    api endpoint endpoints bug bugs crash race deadlock leak regression test tests build deploy release
    commit commits branch branches merge rebase pr prs pull request diff code codebase repo repository
    function class method module package library dependency dependencies import imports compile compiler
    lint linter type types typing schema migration migrations database query queries sql cache caching auth
    authentication authorization login logout token tokens server client http https request response handler
    handlers route router middleware parser parse parsing config configuration cli flag flags argument
    arguments variable variables null exception exceptions error errors stacktrace traceback log logs
    logging performance slow latency memory cpu thread threads async await concurrency lock locks mutex
    timeout timeouts retry retries queue worker ui frontend backend css html javascript typescript python go
    rust java golang node npm pip pytest jest unittest ci pipeline docker kubernetes script scripts workflow
    agent agents session sessions index symbol symbols callers file files folder directory path paths
    pallium git github checkout payment payments checkout users user pagination webhook webhooks refactor
    refactoring implement feature features fix fixes patch patches review audit security vulnerability flaky
    failing failure lockfile package json yaml toml readme docs doc documentation
    """
)

# Words that mark a task as outside software work when nothing else ties it to the repository.
OFF_DOMAIN = _bag(
    """
    weather forecast rain sunny temperature joke jokes poem poems haiku limerick song songs lyrics music
    playlist movie movies film films recipe recipes cook cooking bake dinner lunch breakfast restaurant
    pizza food coffee flight flights hotel hotels vacation holiday trip travel airport taxi uber capital
    country president election football soccer basketball baseball cricket tennis score scores match game
    games stock stocks crypto bitcoin price prices horoscope birthday anniversary wedding gift gifts love
    dating girlfriend boyfriend wife husband landlord podcast podcasts weekend mom dad mother father alarm
    dentist reminder grandma dog dogs
    cat cats pet pets horse garden plant plants flower
    flowers car cars bike bicycle tire tyre oil doctor medicine headache diet workout gym exercise yoga
    meditation translate translation french spanish german italian chinese japanese poetry novel book books
    story stories fairy tale tales homework essay paris london tokyo moon sun planet planets universe ocean
    sea beach mountain mountains shopping groceries grocery milk
    letter letters email emails tweet tweets toast speech offsite aunt uncle brother sister cousin boss
    miles mile km kilometers kilometres ounces ounce pounds inches feet celsius fahrenheit dollars euros
    plot painted painting painter octopus octopuses dragon dragons rhymes rhyme stretches
    posture marathon closet kitchen tax taxes fun trivia riddle riddles
    slack jira standup meeting meetings calendar zoom trello
    """
)


@functools.lru_cache(maxsize=2048)
def word_start(word: str) -> re.Pattern[str]:
    """`word` where a word starts ("prune" in "pruned", not in "unpruned"), compiled once: the catalog's
    flag words are many, and compiling them per call would push route's own patterns out of `re`'s cache."""
    return re.compile(rf"\b{re.escape(word)}")


@functools.lru_cache(maxsize=2048)
def negated_word(word: str) -> re.Pattern[str]:
    """`word` said not to be done ("without a model", "don't confirm"), compiled once."""
    return re.compile(rf"\b(without|no|not|never|don'?t|do not|skip(?:ping)?)\s+(\w+\s+){{0,2}}{re.escape(word)}")


def words(text: str) -> list[str]:
    """The lowercase words of `text`, with contractions split ("what's" -> "what"), "n't" kept as "not"."""
    out: list[str] = []
    for raw in _WORD.findall(text.lower().replace("’", "'")):
        if raw.endswith("n't"):
            out += [raw[:-3], "not"]
        elif "'" in raw:
            out.append(raw.split("'", 1)[0])
        else:
            out.append(raw)
    return out


def stem(word: str) -> str:
    """A light suffix-stripping stem: `changes`, `changed`, `changing` and `change` all give `chang`."""
    w = word
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 4 and w.endswith(("sses", "xes", "ches", "shes", "zes")):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix, shortest in (("ingly", 8), ("edly", 7), ("ing", 5), ("ed", 4), ("ly", 7)):
        if len(w) >= shortest and w.endswith(suffix):
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


def canonical(word: str) -> str:
    """The term a word stands for: its synonym group's name if it has one, stemmed."""
    direct = _SYNONYMS.get(word)
    if direct is not None:
        return stem(direct)
    stemmed = stem(word)
    for form in (stemmed, stemmed + "e", stemmed + "s"):
        if form in _SYNONYMS:
            return stem(_SYNONYMS[form])
    return stemmed


# A verb of editing in any form: with "most" or "often" beside it, how often files change is churn.
_EDITED = r"(?:chang|edit|modif|touch|updat|rewrit)(?:e|es|ed|ing|ied|ies|y|s)?"
# Verbs of two or more words, read as the one verb they stand for: the action of a request.
PHRASAL = (
    (
        re.compile(
            r"\bkick(?:ing|ed)? off\b|\bspin(?:ning)? up\b|\bfire off\b|\bput(?:ting)? together\b|\bstand(?:ing)? up\b|"
            r"\bget (?=(?:\S+\s+){1,5}?(?:working|going|started) on\b)",
            re.I,
        ),
        "start ",
    ),
    (
        re.compile(r"\bsiz(?:e|ing) up\b|\bplan(?:ning)? out\b|\bmap(?:ping)? out (?=the (?:change|work|task))", re.I),
        "scope",
    ),
    # phrasal verbs: "shut down the loop" stops it, "check on the run" asks its status
    (
        re.compile(r"\b(?:shut(?:ting)? down|wind(?:ing)? down|put an end to)\b", re.I),
        "stop",
    ),
    (re.compile(r"\b(?:turn(?:ing)?|switch(?:ing)?) off\b", re.I), "disable stop"),
    # freeing something stuck to go on: "let it move again", "get nightly going again", "unwedge it"
    (
        re.compile(
            r"\blet (\S+) (?:move|run|go|tick|proceed|continue|progress) (?:on )?again\b|"
            r"\bget (\S+) (?:moving|going|ticking|running|unstuck) again\b|\b(?:unwedge|unfreeze|unjam)\b",
            re.I,
        ),
        lambda m: f"unstick {m.group(1) or m.group(2) or ''}".rstrip(),
    ),
    (re.compile(r"\b(?:turn(?:ing)?|switch(?:ing)?) on\b", re.I), "enable"),
    (re.compile(r"\bcarry(?:ing)? on\b|\bpick(?:ing)? (?:it |\S+ )?(?:back )?up again\b", re.I), "resume"),
    (re.compile(r"\bcheck(?:ing)? (?:on|in on|up on)\b", re.I), "status of"),
    (re.compile(r"\bwak(?:e|ing) (?:up )?|\bpok(?:e|ing)\b|\bprod(?:ding)?\b", re.I), "nudge "),
)


# Loose idioms that name no object of anyone's ("wipe the slate", "kill the noise", "purge my confusion"):
# they say how the user feels, not what to do, and are read as nothing.
_LOOSE = re.compile(
    r"\b(?:wipe|clean) the slate(?: clean)?\b|\b(?:kill|cut) (?:the|all the) noise\b|"
    r"\b(?:purge|clear|wipe) my (?:confusion|worries|doubts|mind|head|thoughts)\b|\bstart (?:fresh|over)\b|"
    r"\bscrap (?:the|my) old plan\b|\bdrop the old plan\b",
    re.IGNORECASE,
)


def unloose(text: str) -> str:
    """`text` without its loose idioms."""
    return _LOOSE.sub(" ", text)


def phrasal(text: str) -> str:
    """`text` with its phrasal verbs read as one verb ("spin up a team" -> "start a team")."""
    for pattern, word in PHRASAL:
        text = pattern.sub(word, text)
    return text


# Idioms whose words mean something else together: read as the one word they stand for.
_IDIOMS = (
    # the whole repository at a glance: its architecture, not one file's story
    (re.compile(r"\blay of the land\b|\bbig picture\b|\bbird'?s[- ]eye view\b", re.I), "architecture overview"),
    (re.compile(r"\bup to\b(?=\s*(?:[?.!]|$|(?:right )?now\b|lately\b|today\b|these days\b))", re.I), "doing"),
    # bringing patches or changes in is applying them; bringing transcripts in is importing them
    (
        re.compile(
            r"\b(?:pull|bring|get|take)(?:ing)? in(?:to)?\b"
            r"(?=(?:\s+\S+){0,4}?\s+(?:patch\w*|changes?|edits?|diffs?)\b)",
            re.I,
        ),
        "apply",
    ),
    (re.compile(r"\bpull(?:ing)? in\b|\bbring(?:ing)? in\b|\bsuck(?:ing)? in\b", re.I), "import"),
    (re.compile(r"\bclear (?:my|your) head\b", re.I), " "),
    # whether Pallium itself works is its health check
    (
        re.compile(r"\bis (?:pallium|it) (?:working|ok|okay|fine|healthy|broken|alright|all right)\b", re.I),
        "check health",
    ),
    # what earlier work found is where those sessions stood: "what did the agent find out about X last time"
    (
        re.compile(
            r"\bwhat did (?:i|we|you|the agents?|claude|codex) (?:find out|figure out|conclude|learn|discover|"
            r"settle on|end up with)\b",
            re.I,
        ),
        "recall where we left off on",
    ),
    # how often something changes is churn: "the files that change the most", "most often changed"
    (
        re.compile(
            rf"\b{_EDITED} (?:the )?most\b(?!\s+recent)|\bmost (?:often|frequently) {_EDITED}\b|"
            rf"\b{_EDITED} (?:the )?(?:most )?(?:often|frequently)\b|\b(?:often|frequently) {_EDITED}\b",
            re.I,
        ),
        "churn",
    ),
    # conflicts a merge left in the tree are its state, not a merge to make
    # opening a transcript is reading it, line by line
    (re.compile(r"\bopen(?=\s+(?:\S+\s+){0,3}?(?:transcripts?|conversations?|messages)\b)", re.I), "read"),
    (re.compile(r"\bmerge conflicts?\b|\bconflicted files?\b|\bconflict markers?\b", re.I), "conflicted uncommitted"),
    # whether the working tree holds changes: "is my tree clean?", "is the checkout dirty"
    (
        re.compile(
            r"\b(?:my|the|our|this) (?:working )?(?:tree|checkout|working copy|worktree|repo) (?:is )?"
            r"(?:clean|dirty|pristine)\b|\b(?:clean|dirty) (?:working )?(?:tree|checkout|working copy)\b",
            re.I,
        ),
        "uncommitted changes",
    ),
    # "tell the tester to focus on edge cases": a directive to someone, not "tell me"
    (re.compile(r"\btell (?!me\b|us\b|him\b|her\b|them\b)((?:\S+\s+){1,5}?)to\b", re.I), r"steer \1to"),
)


def _idioms(text: str) -> str:
    text = unloose(text)
    for pattern, word in (*PHRASAL, *_IDIOMS):
        text = pattern.sub(word, text)
    return text


def terms(text: str, speller: Speller | None = None) -> list[str]:
    """The content terms of `text` in order: stopwords dropped, synonyms merged, typos corrected."""
    out: list[str] = []
    for word in words(_idioms(text)):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        if word.isdigit():
            continue
        term = canonical(word)
        if (
            speller is not None
            and term not in speller.known
            and word not in _SYNONYMS
            and word not in OFF_DOMAIN
            and word not in SOFTWARE
        ):
            corrected = speller.correct(word)
            if corrected is not None:
                term = corrected
        out.append(term)
    return out


GENERIC_TERMS = frozenset(canonical(w) for w in GENERIC)
# Software nouns; the words a synonym group stands for are routing concepts, not nouns, and stay out.
SOFTWARE_TERMS = frozenset(canonical(w) for w in SOFTWARE) - frozenset(canonical(g) for g in _SYNONYM_GROUPS)
