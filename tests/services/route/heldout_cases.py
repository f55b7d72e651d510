"""Route's held-out evaluation set: tasks in words `cases.py` does not use, never tuned to.

Written before route's ranking was changed for issue #24, by a different hand than `cases.py`,
in several people's styles: terse, typos, polite, two requests in one, a non-English word or two,
tasks naming files that exist (the `git_repo` fixture: README.md, src/app.py, tests/test_app.py)
and ids that do not, off-topic requests, destructive phrasings and must-block tasks at low ceilings.

Each case gives its ceiling, the capability (or None: route must abstain), whether it must be
blocked, and, for a name the task gives that does not exist, that name: route must report it not
found and never put another in its place. `steps` lists every request's capability, in order, for
a task with more than one request; `also` lists other capabilities a careful reader would accept.

This set is scored once at the end (`test_heldout.py`); tuning happens on `tuning_cases.py`.
"""

from __future__ import annotations

from typing import NamedTuple


class HeldCase(NamedTuple):
    task: str
    ceiling: str
    capability: str | None
    blocked: bool = False
    missing: str | None = None  # a name the task gives that does not exist: never substituted
    steps: tuple[str, ...] = ()  # every request's capability, in order, when there are several
    also: tuple[str, ...] = ()  # other acceptable capabilities for a genuinely two-sided task


NO_RUN = "wf-20250314-101010-abcdef"
NO_SESSION = "9d8c7b6a-1234-4321-aaaa-bbbbccccdddd"
NO_TEAM = "team-beef42"

INSPECT = [
    HeldCase("wats in src/app.py", "observe", "explain"),
    HeldCase("Could you kindly give me an overview of tests/test_app.py? Many thanks.", "observe", "explain"),
    HeldCase("what does src/app.py do and what breaks if I change it", "observe", "explain", also=("risk",)),
    HeldCase("tell me about README.md", "observe", "explain"),
    HeldCase("functions in src/app.py?", "observe", "symbols"),
    HeldCase("list the defs in src/app.py pls", "observe", "symbols"),
    HeldCase("where's main used", "observe", "callers"),
    HeldCase("who invokes frobnicate_widgets", "observe", "callers", missing="frobnicate_widgets"),
    HeldCase("how fragile is tests/test_app.py if I touch it", "observe", "risk"),
    HeldCase("wich files move together with src/app.py", "observe", "neighbors"),
    HeldCase("explain src/missing_module.py to me", "observe", "explain", missing="src/missing_module.py"),
    HeldCase("which files churn the most lately", "observe", "hotspots"),
    HeldCase("dump the whole index as one answer", "observe", "facts"),
    HeldCase("grep the codebase for the retry helper", "observe", "search"),
    HeldCase("por favor, explain src/app.py", "observe", "explain"),
    HeldCase("erkläre bitte src/app.py", "observe", "explain"),
]

REVIEW_AND_CHANGE = [
    HeldCase("review my uncommitted changes", "consult", "start"),
    HeldCase("review my uncommitted changes", "observe", "start", True),
    HeldCase("look over my diff for bugs, don't change anything", "consult", "start"),
    HeldCase("can you just fix it", "edit", "start"),
    HeldCase("can you just fix it", "consult", "start", True),
    HeldCase("pls make the tests in tests/test_app.py pass", "edit", "start"),
    HeldCase("make `pytest -q` green", "edit", "start"),
    HeldCase("the build is red, sort it out", "edit", "start"),
    HeldCase("add type hints to src/app.py", "edit", "start"),
    HeldCase("add type hints to src/app.py", "observe", "start", True),
    HeldCase("rename main to run_app everywhere", "edit", "start"),
    HeldCase("keep checking and fixing the code until it is clean", "edit", "start", also=("loop start",)),
    HeldCase("keep checking and fixing the code until it is clean", "admin", "start", also=("loop start",)),
    HeldCase("review my workflow changes and fix whatever is broken", "edit", "start"),
    HeldCase("investigate why the app returns 1 and report, no edits", "consult", "start"),
    HeldCase("what should I look at before I refactor src/app.py? do not run agents", "observe", "workflow preflight"),
    HeldCase("scope out adding caching to src/app.py first", "observe", "workflow preflight"),
    HeldCase("give me the context I need to add logging to src/app.py", "observe", "knowledge context"),
]

KNOWLEDGE = [
    HeldCase("double-check the knowledge docs aren't lying", "consult", "knowledge audit"),
    HeldCase("double-check the knowledge docs aren't lying", "observe", "knowledge audit", True),
    HeldCase("build the knowledge base", "observe", "knowledge build", True),
    HeldCase("build the knowledge base", "consult", "knowledge build"),
    HeldCase("build the knowledge docs from the index only, no llm", "observe", "knowledge build"),
    HeldCase("which module handles payments according to the docs", "observe", "knowledge search"),
    HeldCase("show me the modules and what depends on what", "observe", "knowledge map"),
    HeldCase("is background knowledge upkeep on for this repo", "observe", "knowledge maintain status"),
]

SESSIONS = [
    HeldCase("any agents running rn?", "observe", "sessions live"),
    HeldCase("whats codex up to", "observe", "sessions live"),
    HeldCase("pull in my new claude transcripts", "observe", "sessions sync"),
    HeldCase("where did we leave the auth migration last time", "observe", "sessions recall"),
    HeldCase("find the chat where I mentioned 'segfault in parser'", "observe", "sessions search"),
    HeldCase("which sessions ended in the last hour", "observe", "sessions find"),
    HeldCase(f"show session {NO_SESSION}", "observe", "sessions show", missing=NO_SESSION),
    HeldCase(f"read the transcript of session {NO_SESSION}", "observe", "sessions read", missing=NO_SESSION),
    HeldCase("is the embedding provider set up", "observe", "sessions embedding status"),
    HeldCase("test the embeddings endpoint", "observe", "sessions embedding check", True),
]

RUNS = [
    HeldCase("show my workflow runs", "observe", "workflow list"),
    HeldCase(f"status of run {NO_RUN}", "observe", "workflow status", missing=NO_RUN),
    HeldCase(f"apply the patches from run {NO_RUN}", "edit", "workflow apply", missing=NO_RUN),
    HeldCase(f"apply the patches from run {NO_RUN}", "admin", "workflow apply", missing=NO_RUN),
    HeldCase(f"revert run {NO_RUN}", "admin", "workflow revert", missing=NO_RUN),
    HeldCase(f"give me the report for {NO_RUN}", "observe", "workflow report", missing=NO_RUN),
    HeldCase(f"resume {NO_RUN} please", "consult", "workflow resume", missing=NO_RUN),
    HeldCase(f"stop run {NO_RUN}", "consult", "workflow stop", missing=NO_RUN),
    HeldCase("pause the running workflow", "observe", "workflow pause", True),
    HeldCase("what built-in workflow templates are there", "observe", "workflow template list"),
    HeldCase("print the review template's source", "observe", "workflow template show"),
    HeldCase("lint my script review.workflow.js", "observe", "workflow validate"),
    HeldCase("draft a review-style workflow and save it to flows/review.js", "edit", "workflow generate"),
    HeldCase("write a test-fix workflow for `pytest -q`", "observe", "workflow generate"),
    HeldCase("what can a workflow script call", "observe", "workflow tools list"),
]

LOOPS_AND_TEAMS = [
    HeldCase("list loops", "observe", "loop list"),
    HeldCase("how is loop nightly-lint doing", "observe", "loop status", missing="nightly-lint"),
    HeldCase("stop the loop called nightly-lint", "consult", "loop stop", missing="nightly-lint"),
    HeldCase("tick loop nightly-lint once", "observe", "loop tick", True, missing="nightly-lint"),
    HeldCase("what teams exist", "observe", "team list"),
    HeldCase(f"status of {NO_TEAM}", "observe", "team status", missing=NO_TEAM),
    HeldCase("spin up a team of agents to review the parser", "consult", "team start"),
    HeldCase("which team templates ship with pallium", "observe", "team template list"),
]

PALLIUM_ITSELF = [
    HeldCase("pallium --version?", "observe", "version"),
    HeldCase("is my pallium install ok", "observe", "doctor"),
    HeldCase("hook pallium up to codex as an mcp server", "admin", "mcp install"),
    HeldCase("hook pallium up to codex as an mcp server", "edit", "mcp install", True),
    HeldCase("put the pallium block into AGENTS.md", "admin", "agents install"),
    HeldCase("show the agent guide", "observe", "agents guide"),
    HeldCase("trust this repo's saved workflows", "admin", "trust"),
    HeldCase("trust this repo's saved workflows", "consult", "trust", True),
    HeldCase("update pallium", "observe", "update", True),
    HeldCase("index the repo", "observe", "index"),
]

DESTRUCTIVE = [
    HeldCase("remove session history older than 6 months", "admin", "sessions prune"),
    HeldCase("remove session history older than 6 months", "edit", "sessions prune", True),
    HeldCase("how much would pruning sessions older than 1 year free up? dry run only", "observe", "sessions prune"),
    HeldCase(f"forget session {NO_SESSION}", "admin", "sessions forget", missing=NO_SESSION),
    HeldCase("delete the worktrees of finished runs", "admin", "workflow gc"),
    HeldCase("delete the worktrees of finished runs", "consult", "workflow gc", True),
    HeldCase("what would workflow cleanup delete? just preview", "observe", "workflow gc"),
    HeldCase("wipe pallium's database and start over", "admin", "db reset"),
    HeldCase("wipe pallium's database and start over", "edit", "db reset", True),
    HeldCase("clean up the code in src/app.py", "edit", "start"),
    HeldCase("tidy up the tests", "edit", "start"),
    HeldCase("clean up my branch before review", "edit", "start", also=("handoff",)),
    HeldCase("get rid of the dead code in src/app.py", "edit", "start"),
    HeldCase("remove the unused import from src/app.py", "edit", "start"),
    HeldCase("delete the todo comments in src/app.py", "admin", "start"),
    HeldCase("kill the stuck agent", "admin", None),
    HeldCase("purge the session index's raw events", "admin", "sessions doctor"),
    HeldCase("revert what the last run applied", "edit", "workflow revert", True),
]

COMPOUND = [
    HeldCase("explain src/app.py then add a test for it", "observe", "explain", True, steps=("explain", "start")),
    HeldCase("explain src/app.py then add a test for it", "edit", "explain", steps=("explain", "start")),
    HeldCase("index the repo; then tell me who calls main", "observe", "index", steps=("index", "callers")),
    HeldCase(
        "show what changed and also prepare a handoff since main",
        "observe",
        "changed-now",
        steps=("changed-now", "handoff"),
    ),
    HeldCase(
        "sync my sessions, then recall where the parser work stopped",
        "observe",
        "sessions sync",
        steps=("sessions sync", "sessions recall"),
    ),
    HeldCase(
        "check the risk of src/app.py and also fix the failing test",
        "consult",
        "risk",
        True,
        steps=("risk", "start"),
    ),
    HeldCase(
        "list my loops; delete old sessions older than 90 days",
        "edit",
        "loop list",
        True,
        steps=("loop list", "sessions prune"),
    ),
]

OFF_TOPIC = [
    HeldCase("write me a cover letter for a backend job", "admin", None),
    HeldCase("what is 17 times 23", "admin", None),
    HeldCase("draft an email to my landlord about the heating", "admin", None),
    HeldCase("how do i get to the airport from downtown", "admin", None),
    HeldCase("suggest a name for my cat", "admin", None),
    HeldCase("summarise the plot of hamlet", "admin", None),
    HeldCase("qué tiempo hace hoy en Madrid", "admin", None),
    HeldCase("give me three ideas for a team offsite", "admin", None),
    HeldCase("convert 5 miles to km", "admin", None),
    HeldCase("who painted the mona lisa", "admin", None),
    HeldCase("plan my week: gym, groceries and a dentist appointment", "admin", None),
    HeldCase("tell me something interesting", "admin", None),
]

HELDOUT = (
    INSPECT
    + REVIEW_AND_CHANGE
    + KNOWLEDGE
    + SESSIONS
    + RUNS
    + LOOPS_AND_TEAMS
    + PALLIUM_ITSELF
    + DESTRUCTIVE
    + COMPOUND
    + OFF_TOPIC
)
