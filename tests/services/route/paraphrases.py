"""Generators of paraphrases for each capability's intent, written from docs/tools.md as a user reads it.

Each family is one intent (explain a file, find a name's callers, review the changes, delete old
sessions, an off-topic request), given as templates over slots: the verbs and nouns a person would
use for it, in several registers (terse, polite, a question, a request with a reason). Every filling
of a family must route alike: the same capability (or one of `also`), blocked or not as the ceiling
says. The fixture is `populated` (src/app.py with `main`, tests/test_app.py, README.md, the finished
run `done-1`, the loop `nightly`).

Route never sees these words while it is tuned on them: they probe whether its reading follows the
structure of a request (verb, object, question shape, negation) rather than the phrasings of its own
catalog. A family is a generator, not a list of cases: `expand` yields every filling.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["FAMILIES", "Family", "expand"]

POLITE = ("", "please ", "could you ", "can you ", "hey, ", "I'd like you to ", "pls ")
ENDS = ("", "?", " please", ", thanks", " for me")


@dataclass(frozen=True)
class Family:
    name: str
    ceiling: str
    capability: str | None
    templates: tuple[str, ...]
    slots: dict[str, tuple[str, ...]] = field(default_factory=dict)
    blocked: bool = False
    also: tuple[str, ...] = ()


def expand(family: Family) -> Iterator[str]:
    """Every filling of the family's templates (slots `{polite}` and `{end}` are always known)."""
    slots = {"polite": POLITE, "end": ENDS, **family.slots}
    for template in family.templates:
        names = re.findall(r"\{(\w+)\}", template)
        for values in itertools.product(*(slots[n] for n in names)):
            text = template.format(**dict(zip(names, values, strict=True)))
            yield " ".join(text.split())


FILES = ("src/app.py", "tests/test_app.py")

FAMILIES: tuple[Family, ...] = (
    Family(
        "explain a file",
        "observe",
        "explain",
        (
            "{polite}{verb} {file}{end}",
            "what does {file} do{end}",
            "how does {file} work{end}",
            "what is {file} for{end}",
        ),
        {
            "verb": (
                "explain",
                "walk me through",
                "describe",
                "give me an overview of",
                "break down",
                "tell me about",
                "summarize",
                "help me understand",
            ),
            "file": FILES,
        },
        also=("symbols",),
    ),
    Family(
        "a file's symbols",
        "observe",
        "symbols",
        (
            "{polite}{verb} the {what} in {file}{end}",
            "which {what} does {file} define{end}",
            "what {what} are in {file}{end}",
        ),
        {
            "verb": ("list", "show", "enumerate", "give me"),
            "what": ("functions", "classes", "symbols", "definitions"),
            "file": FILES,
        },
    ),
    Family(
        "a name's callers",
        "observe",
        "callers",
        (
            "{polite}{verb} {name}{end}",
            "who calls {name}{end}",
            "where is {name} {used}{end}",
            "what {refs} {name}{end}",
        ),
        {
            "verb": (
                "find the callers of",
                "show me every caller of",
                "list the call sites of",
                "find usages of",
                "find all references to",
                "show who calls",
            ),
            "name": ("main",),
            "used": ("used", "called", "referenced", "invoked"),
            "refs": ("calls", "uses", "references", "depends on"),
        },
    ),
    Family(
        "the working tree's changes",
        "observe",
        "changed-now",
        (
            "{polite}{verb} {what}{end}",
            "what have I {change} so far{end}",
            "which files have I {change}{end}",
        ),
        {
            "verb": ("show", "list", "show me", "give me"),
            "what": (
                "my uncommitted changes",
                "what changed in the working tree",
                "the modified files",
                "what I have changed",
                "the files I touched",
            ),
            "change": ("changed", "modified", "touched", "edited"),
        },
    ),
    Family(
        "where the code churns",
        "observe",
        "hotspots",
        (
            "{polite}{verb} {what}{end}",
            "which files {churn}{end}",
        ),
        {
            "verb": ("show", "list", "find", "give me"),
            "what": (
                "the hotspots",
                "the churn hotspots",
                "the files that change most often",
                "the most frequently edited files",
            ),
            "churn": ("change the most", "get edited most often", "churn the most", "are touched most"),
        },
    ),
    Family(
        "a file's risk",
        "observe",
        "risk",
        (
            "how risky is {doing} {file}{end}",
            "is it risky to {change} {file}{end}",
            "{polite}{verb} the risk of {doing} {file}{end}",
        ),
        {
            "doing": ("editing", "changing", "touching"),
            "change": ("edit", "change", "touch"),
            "verb": ("assess", "rate", "tell me"),
            "file": FILES,
        },
    ),
    Family(
        "review, no change",
        "consult",
        "start",
        (
            "{polite}{verb} {what}{end}",
            "{polite}{verb} {what} but don't change anything{end}",
        ),
        {
            "verb": ("review", "look over", "critique", "audit", "double-check", "go over"),
            "what": (
                "my uncommitted changes",
                "my diff",
                "src/app.py for bugs",
                "the changes in the working tree",
            ),
        },
    ),
    Family(
        "a change to code, at edit",
        "edit",
        "start",
        (
            "{polite}{verb} {what}{end}",
            "I need you to {verb} {what}",
        ),
        {
            "verb": ("fix", "repair", "refactor", "rewrite", "clean up"),
            "what": ("the failing test", "main in src/app.py", "the bug in src/app.py", "the error handling"),
        },
    ),
    Family(
        "a change to code, above the ceiling",
        "consult",
        "start",
        (
            "{polite}{verb} {what}{end}",
            "{polite}{verb} {what} and make the tests pass{end}",
        ),
        {
            "verb": ("fix", "repair", "implement", "add", "refactor"),
            "what": ("a --verbose flag for main", "the bug in src/app.py", "retries in the http client"),
        },
        blocked=True,
    ),
    Family(
        "agents running now",
        "observe",
        "sessions live",
        (
            "{polite}{verb} {what}{end}",
            "which {agents} are running right now{end}",
            "is any {agents} running{end}",
        ),
        {
            "verb": ("show", "list", "show me"),
            "what": ("the running agents", "live agent sessions", "the agents running right now"),
            "agents": ("agents", "claude sessions", "codex sessions", "agent"),
        },
    ),
    Family(
        "index transcripts",
        "observe",
        "sessions sync",
        ("{polite}{verb} {what}{end}",),
        {
            "verb": ("sync", "index", "import", "pull in", "ingest", "refresh"),
            "what": (
                "my claude transcripts",
                "the latest codex sessions",
                "new agent transcripts",
                "my session history",
            ),
        },
    ),
    Family(
        "delete old sessions",
        "admin",
        "sessions prune",
        (
            "{polite}{verb} {what} older than {age}{end}",
            "{polite}{verb} {what} from before {age} ago{end}",
        ),
        {
            "verb": ("delete", "remove", "prune", "purge", "get rid of", "clear out"),
            "what": ("sessions", "old sessions", "session history", "transcripts"),
            "age": ("90 days", "6 months", "a year"),
        },
    ),
    Family(
        "list runs",
        "observe",
        "workflow list",
        (
            "{polite}{verb} {what}{end}",
            "what {what} are there{end}",
        ),
        {
            "verb": ("list", "show", "show me"),
            "what": ("the workflow runs", "my recent runs", "the runs", "past workflow runs"),
        },
    ),
    Family(
        "a run's status",
        "observe",
        "workflow status",
        (
            "{polite}{verb} done-1{end}",
            "how did done-1 go{end}",
            "did done-1 {succeed}{end}",
        ),
        {
            "verb": ("what's the status of", "show the status of", "check on"),
            "succeed": ("succeed", "pass", "finish", "work"),
        },
        also=("workflow report", "workflow show", "workflow inspect"),
    ),
    Family(
        "apply a run's patches",
        "edit",
        "workflow apply",
        ("{polite}{verb} {what}{end}",),
        {
            "verb": ("apply", "bring in", "land", "merge in"),
            "what": ("done-1's patches", "the patches from done-1", "the changes from run done-1"),
        },
    ),
    Family(
        "revert a run's patches",
        "admin",
        "workflow revert",
        ("{polite}{verb} {what}{end}",),
        {
            "verb": ("revert", "undo", "roll back", "back out"),
            "what": ("done-1's patches", "the patches from done-1", "what done-1 applied"),
        },
    ),
    Family(
        "a loop's status",
        "observe",
        "loop status",
        (
            "how is {loop} doing{end}",
            "{polite}{verb} {loop}{end}",
        ),
        {
            "loop": ("nightly", "the nightly loop", "loop nightly"),
            "verb": ("what's the status of", "check on", "show the state of"),
        },
    ),
    Family(
        "stop a loop",
        "consult",
        "loop stop",
        ("{polite}{verb} {loop}{end}",),
        {
            "verb": ("stop", "halt", "shut down", "turn off"),
            "loop": ("nightly", "the nightly loop", "loop nightly"),
        },
    ),
    Family(
        "Pallium's health",
        "observe",
        "doctor",
        (
            "{polite}{verb}{end}",
            "is pallium {ok}{end}",
        ),
        {
            "verb": ("check my pallium install", "diagnose pallium", "run pallium's health check"),
            "ok": ("set up correctly", "installed properly", "working", "healthy"),
        },
    ),
    Family(
        "the docs are still true",
        "consult",
        "knowledge audit",
        (
            "{polite}{verb} the knowledge {docs} {true}{end}",
            "are the knowledge {docs} {true}{end}",
        ),
        {
            "verb": ("verify", "check", "make sure", "double-check"),
            "docs": ("docs", "base", "documents"),
            "true": ("are still accurate", "are not lying", "still match the code", "are correct"),
        },
    ),
    Family(
        "the context for a change",
        "observe",
        "knowledge context",
        (
            "what do I need to know before {change}{end}",
            "{polite}give me the context for {change}{end}",
            "what should I read before {change}{end}",
        ),
        {
            "change": ("adding caching to main", "changing the config loader", "I add retries to the client"),
        },
        also=("workflow preflight",),
    ),
    Family(
        "where earlier sessions stood",
        "observe",
        "sessions recall",
        (
            "where did {who} leave off on {topic}{end}",
            "{polite}remind me what {who} concluded about {topic}{end}",
            "what did {who} find out about {topic} last time{end}",
        ),
        {"who": ("I", "we", "the agent", "claude"), "topic": ("the auth refactor", "the flaky test", "caching")},
        also=("sessions search", "sessions find"),
    ),
    Family(
        "why the code is as it is",
        "observe",
        "decisions",
        (
            "why did we {choose} {what}{end}",
            "{polite}find the reasoning behind {what}{end}",
            "what was the rationale for {what}{end}",
        ),
        {"choose": ("choose", "pick", "go with", "switch to"), "what": ("sqlite", "the retry policy", "apsw")},
        also=("knowledge decisions search",),
    ),
    Family(
        "where something is done in the code",
        "observe",
        "search",
        (
            "where is {thing} {done}{end}",
            "{polite}{verb} the code that {does}{end}",
            "which file {does}{end}",
        ),
        {
            "thing": ("the config", "retry logic", "the http client"),
            "done": ("defined", "implemented", "set up", "handled"),
            "verb": ("find", "locate", "search for", "point me to"),
            "does": ("parses the config", "handles retries", "opens the database"),
        },
    ),
    Family(
        "a run's report",
        "observe",
        "workflow report",
        (
            "{polite}{verb} done-1{end}",
            "what did done-1 find{end}",
            "what were the findings of done-1{end}",
        ),
        {"verb": ("show me the report of", "summarize the findings of", "give me the report for", "read out")},
        also=("workflow status", "workflow read"),
    ),
    Family(
        "search the knowledge base",
        "observe",
        "knowledge search",
        (
            "{polite}{verb} the knowledge base for {topic}{end}",
            "what does the knowledge base say about {topic}{end}",
        ),
        {
            "verb": ("search", "look up", "look through", "query"),
            "topic": ("auth", "the retry policy", "payments"),
        },
    ),
    Family(
        "start a team of agents",
        "consult",
        "team start",
        (
            "{polite}{verb} {team} to {goal}{end}",
            "{polite}get {team} working on {topic}{end}",
        ),
        {
            "verb": ("start", "spin up", "assemble", "set up", "put together"),
            "team": ("a team of agents", "an agent team", "a few agents", "three agents"),
            "goal": ("review the request handling", "debate the caching design"),
            "topic": ("the request handling", "the caching design"),
        },
    ),
    Family(
        "index the repository",
        "observe",
        "index",
        ("{polite}{verb} {what}{end}",),
        {
            "verb": ("index", "reindex", "rebuild the index of", "scan", "refresh the index of"),
            "what": ("the repo", "this repository", "the codebase", "the project"),
        },
    ),
    Family(
        "Pallium's version",
        "observe",
        "version",
        ("which version of pallium {is}{end}", "{polite}{verb}{end}"),
        {
            "is": ("is this", "is installed", "am I running", "do I have"),
            "verb": ("show pallium's version", "print the pallium version", "tell me the pallium version"),
        },
    ),
    Family(
        "register with an agent client",
        "admin",
        "mcp install",
        ("{polite}{verb} {client}{end}",),
        {
            "verb": (
                "register pallium's mcp server with",
                "hook pallium up to",
                "connect pallium to",
                "add pallium as an mcp server for",
                "install the pallium mcp server into",
            ),
            "client": ("claude code", "codex"),
        },
    ),
    Family(
        "scope a change before running agents",
        "observe",
        "workflow preflight",
        ("{polite}{verb} {change}{end}",),
        {
            "verb": ("preflight", "scope", "plan out", "size up"),
            "change": ("adding caching to main", "the change to add retries", "a --verbose flag for main"),
        },
        also=("knowledge context",),
    ),
    Family(
        "a review with a negation",
        "observe",
        "start",
        ("{polite}{verb} {what}, {no}{end}",),
        {
            "verb": ("review", "look over", "critique"),
            "what": ("my changes", "src/app.py"),
            "no": ("don't change anything", "no edits", "read only", "just report"),
        },
        blocked=True,
    ),
    Family(
        "off-topic with loose words",
        "admin",
        None,
        ("{polite}{ask}{end}",),
        {
            "ask": (
                "kill the noise in my kitchen",
                "purge my confusion about tax law",
                "help me clean up my closet",
                "delete the awkward silence at dinner",
                "reset my sleep schedule",
                "run a marathon plan for me",
                "fix my posture",
                "review this restaurant for me",
                "explain quantum entanglement",
                "find me a cheap flight",
            ),
        },
    ),
    Family(
        "off-topic",
        "admin",
        None,
        ("{polite}{ask}{end}",),
        {
            "ask": (
                "write a haiku about autumn",
                "what's the capital of France",
                "convert 5 miles to kilometres",
                "draft an email to my landlord",
                "tell me a joke",
                "what is 17 times 23",
                "recommend a good pizza place",
                "kill some time with a riddle",
                "clear my head with a short poem",
                "wipe the slate clean with a fun fact",
            ),
        },
    ),
    # A member named by name or role on a team that does not exist: the mailbox, never another tool.
    Family(
        "tell a team member",
        "consult",
        "team send",
        (
            "{polite}tell {member} on {team} to {directive}{end}",
            "{polite}ask {member} on {team} to {directive}{end}",
            "{polite}message {member} in {team}: {directive}{end}",
        ),
        {
            "member": ("alice", "the reviewer", "the tester", "member bob", "our fixer"),
            "team": ("team-9a8b7c", "team-0f1e2d"),
            "directive": ("focus on the tests", "leave README.md alone", "look at main first"),
        },
        also=("team member steer",),
    ),
    # A team's parts named with no verb: the view of them.
    Family(
        "a team's mail, board or members, by noun",
        "observe",
        "team inbox",
        ("{pre}{part} {of} {team}{end}",),
        {
            "pre": ("", "all ", "the "),
            "part": ("mail", "inbox", "messages", "unread mail"),
            "of": ("of", "for", "on", "in"),
            "team": ("team-9a8b7c", "team-0f1e2d"),
        },
    ),
    Family(
        "a team's board, by noun",
        "observe",
        "team tasks list",
        ("{pre}{part} {of} {team}{end}", "{team} {part}{end}"),
        {
            "pre": ("", "open ", "all ", "the "),
            "part": ("tasks", "board"),
            "of": ("of", "on", "for"),
            "team": ("team-9a8b7c", "team-0f1e2d"),
        },
    ),
    # A change the user means to make, then what to read for it: the context, not the change.
    Family(
        "a change to come, then what to read",
        "observe",
        "knowledge context",
        (
            "I need to {change}. {ask}{end}",
            "I want to {change}; {ask}{end}",
            "task: {change}. {ask}{end}",
            "I'm going to {change} — {ask}{end}",
        ),
        {
            "change": ("add a --verbose flag to main", "make main accept a config path", "rename main to run"),
            "ask": ("what should I read first", "what's the context I need", "what do I need to know before"),
        },
        also=("workflow preflight",),
    ),
    # Which Pallium tool does X asks for X.
    Family(
        "which pallium tool shows what changed",
        "observe",
        "changed-now",
        ("{which} {does} {what}{end}",),
        {
            "which": ("which pallium tool", "what pallium command", "which tool"),
            "does": ("tells me", "shows me", "shows", "lists"),
            "what": ("what changed in my tree", "what is uncommitted right now", "my uncommitted changes"),
        },
    ),
    # How a named run is doing is its status.
    Family(
        "how a named run is doing",
        "observe",
        "workflow status",
        ("{how} done-1{doing}{end}",),
        {"how": ("how's", "how is", "hows"), "doing": ("", " doing", " going", " coming along")},
    ),
    # Pallium named as the one who forgets: the sessions are the object, never the whole store (`db reset`);
    # asked how, the answer is a guide or a preview, never the act.
    Family(
        "make pallium forget old sessions",
        "admin",
        "sessions prune",
        (
            "how do I make pallium {forget} {old} sessions{end}",
            "how can I get pallium to {forget} {old} sessions{end}",
            "how would I have pallium {forget} its {old} sessions{end}",
        ),
        {
            "forget": ("forget", "drop", "purge", "wipe", "remove"),
            "old": ("old", "stale", "ancient", "last year's"),
        },
        also=("sessions forget", "agents guide"),
    ),
    # A thing of one's own that is not Pallium's, with a word Pallium knows before its head noun ("home",
    # "work", "settings"): off-topic, whatever the verb; no loop, run or team put in its place.
    Family(
        "off-topic thing of one's own",
        "admin",
        None,
        ("{polite}{verb} my {thing}{end}", "{polite}{verb} my {thing} to factory settings{end}"),
        {
            "verb": ("reset", "restart", "wipe", "reboot", "clean up"),
            "thing": ("home wifi router", "home router", "work laptop", "home thermostat", "work phone"),
        },
    ),
    # Taking something out of, or putting something on, a named source file changes it: `start`, which
    # needs edit, so it is blocked at consult whatever the verb.
    Family(
        "change a named file with a loose verb",
        "consult",
        "start",
        (
            "{polite}{out} the {what} {from} {file}{end}",
            "{polite}put {artifact} on everything in {file}{end}",
        ),
        {
            "out": ("purge", "scrub", "strip", "excise", "rip out", "cut out"),
            "what": ("print statements", "hardcoded value", "magic number", "stray semicolons"),
            "from": ("from", "out of"),
            "file": FILES,
            "artifact": ("type annotations", "docstrings", "type hints", "comments"),
        },
        blocked=True,
    ),
)
