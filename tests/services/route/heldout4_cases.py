"""Route's fourth held-out set (used for tuning): tasks as real users type them to a coding agent.

Written by an independent hand (a helper session, not the engineer who wrote route), from the
documentation only (docs/tools.md, docs/*.md, README.md, the product description), before seeing
any of route's answers and without reading route's code or its other case files. Only the format
and labelling conventions of `heldout_cases.py` were taken from it; no task is copied from it.

The fixture: a git repository with README.md, src/app.py (a function `main`) and
tests/test_app.py; one finished workflow run `done-1`; one loop `nightly`. Nothing else exists:
any other run id, session id, team, loop, path or symbol a task names is labelled `missing=`.

Conventions (from `heldout_cases.py`): a review, research or code change is `start` (consult for a
review or research, edit for a change); a preview of a destructive command is labelled with the
destructive capability at the level the preview needs; a compound task lists `steps` in order,
`capability` is the first step's, and the whole is `blocked` when any step needs more than the
ceiling. Loose words like "clean", "wipe", "purge" in a task that deletes nothing of Pallium's are
never a destructive tool.
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

NO_RUN = "wf-20240607-083015-1a2b3c"
NO_RUN_B = "wf-20241102-221530-9f8e7d"
NO_SESSION = "3f2a9c1e-7b4d-4e8a-9c2f-5d6e7f8a9b0c"
NO_TEAM = "team-7c3e91"
NO_LOOP = "weekly-deps"

INSPECT = [
    HeldCase("whats src/app.py for", "observe", "explain"),
    HeldCase("gimme the lowdown on tests/test_app.py before i touch it", "observe", "explain", also=("risk",)),
    HeldCase("I'd be grateful if you could outline the functions declared in src/app.py.", "observe", "symbols"),
    HeldCase("any classes or defs in tests/test_app.py?", "observe", "symbols"),
    HeldCase("who calls main()", "observe", "callers"),
    HeldCase("find every reference to `load_config`", "observe", "callers", missing="load_config"),
    HeldCase("callers of App.handle_request pls", "observe", "callers", missing="App.handle_request"),
    HeldCase("how risky is editing README.md", "observe", "risk"),
    HeldCase("on a scale of low to high, how dangerous is a change to src/app.py", "observe", "risk"),
    HeldCase("if i change src/app.py what else usually changes with it", "observe", "neighbors"),
    HeldCase("co-change partners of tests/test_app.py", "observe", "neighbors"),
    HeldCase("where's the code that prints the greeting defined?", "observe", "search", also=("knowledge search",)),
    HeldCase("search the symbols for something like 'config loader'", "observe", "search"),
    HeldCase("what are the churniest files over the last 90 days", "observe", "hotspots"),
    HeldCase("hotspots since 2024-01-01", "observe", "hotspots"),
    HeldCase("what have i changed so far, staged or not", "observe", "changed-now"),
    HeldCase("git status but smarter", "observe", "changed-now"),
    HeldCase("brief the reviewer on everything since HEAD~3", "observe", "handoff"),
    HeldCase("wrapping up: prepare a handoff note for whoever picks this up next", "observe", "handoff"),
    HeldCase("why did we pick argparse? dig through the commit messages", "observe", "decisions"),
    HeldCase("refresh the index, a lot changed since this morning", "observe", "index"),
    HeldCase("index untracked files too", "observe", "index"),
    HeldCase(
        "give me the entire content index (files, symbols, edges, commits) as one dump, I'm feeding a graph tool",
        "observe",
        "facts",
    ),
    HeldCase("explain src/server.py", "observe", "explain", missing="src/server.py"),
    HeldCase("risk of src/utils/helpers.py?", "observe", "risk", missing="src/utils/helpers.py"),
    HeldCase("symbols in lib/core.py", "observe", "symbols", missing="lib/core.py"),
    HeldCase("explique-moi le fichier src/app.py s'il te plaît", "observe", "explain"),
    HeldCase("¿quién llama a main?", "observe", "callers"),
    HeldCase("run `pallium hotspots --since 30d`", "observe", "hotspots"),
    HeldCase("what does ./src/app.py import and what imports it", "observe", "explain"),
]

KNOWLEDGE = [
    HeldCase("generate the knowledge base with model-written purpose claims", "consult", "knowledge build"),
    HeldCase("generate the knowledge base with model-written purpose claims", "observe", "knowledge build", True),
    HeldCase("quick knowledge build, index only, no model calls", "observe", "knowledge build"),
    HeldCase("fact-check the knowledge base claims against the code they cite", "consult", "knowledge audit"),
    HeldCase("audit the claims in the src/app doc", "observe", "knowledge audit", True),
    HeldCase("which module deals with the command line entry, per the knowledge docs", "observe", "knowledge search"),
    HeldCase("show me the lay of the land: modules, what depends on what, their tests", "observe", "knowledge map"),
    HeldCase(
        "I'm about to add a --verbose flag; which files, tests and checks should I look at?",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase("open the knowledge doc for src/app and show only its Tests section", "observe", "knowledge get"),
    HeldCase("let me browse the knowledge base in my browser", "observe", "knowledge serve"),
    HeldCase(
        "find the recorded design decision about error handling",
        "observe",
        "knowledge decisions search",
        also=("decisions",),
    ),
    HeldCase(
        "record README.md as the decision 'Single entrypoint', source PAL-88",
        "edit",
        "knowledge decisions link",
    ),
    HeldCase(
        "record README.md as the decision 'Single entrypoint', source PAL-88",
        "consult",
        "knowledge decisions link",
        True,
    ),
    HeldCase(
        "link docs/adr/0007-caching.md as decision 'No caching layer' from ADR-7",
        "edit",
        "knowledge decisions link",
        missing="docs/adr/0007-caching.md",
    ),
    HeldCase("keep the knowledge base fresh in the background for this repo", "admin", "knowledge maintain enable"),
    HeldCase(
        "keep the knowledge base fresh in the background for this repo", "edit", "knowledge maintain enable", True
    ),
    HeldCase("pause knowledge upkeep's model spending for a while", "admin", "knowledge maintain pause"),
    HeldCase("how much of the daily model budget has knowledge upkeep burned", "observe", "knowledge maintain status"),
    HeldCase(
        "install the systemd unit so knowledge upkeep survives reboots", "edit", "knowledge maintain install", True
    ),
    HeldCase("turn off background knowledge maintenance here for good", "admin", "knowledge maintain disable"),
]

SESSIONS = [
    HeldCase("which agents are running right now and is any of them stuck", "observe", "sessions live"),
    HeldCase("is codex waiting on me?", "observe", "sessions live"),
    HeldCase("index my latest claude code transcripts", "observe", "sessions sync"),
    HeldCase("where did we get to on the flaky test last week", "observe", "sessions recall"),
    HeldCase("what did the previous agent decide about the log format", "observe", "sessions recall"),
    HeldCase('search old chats for the exact phrase "connection reset by peer"', "observe", "sessions search"),
    HeldCase("which sessions in this repo never finished", "observe", "sessions find"),
    HeldCase(f"show me session {NO_SESSION}", "observe", "sessions show", missing=NO_SESSION),
    HeldCase(f"read session {NO_SESSION} from line 40", "observe", "sessions read", missing=NO_SESSION),
    HeldCase(
        "is semantic recall configured, and how many sessions have vectors", "observe", "sessions embedding status"
    ),
    HeldCase("ping the embedding endpoint to make sure the key works", "consult", "sessions embedding check"),
    HeldCase("ping the embedding endpoint to make sure the key works", "observe", "sessions embedding check", True),
    HeldCase("configure voyage embeddings for session recall", "admin", "sessions embedding configure"),
    HeldCase("configure voyage embeddings for session recall", "consult", "sessions embedding configure", True),
    HeldCase("recall keeps returning junk, check the session index", "observe", "sessions doctor"),
]

RUNS = [
    HeldCase("list recent workflow runs", "observe", "workflow list"),
    HeldCase("how'd done-1 go", "observe", "workflow status", also=("workflow report",)),
    HeldCase("full report for done-1 please: findings, cost, patches", "observe", "workflow report"),
    HeldCase(f"status of {NO_RUN}", "observe", "workflow status", missing=NO_RUN),
    HeldCase("land the patches from done-1 in my working tree", "edit", "workflow apply"),
    HeldCase("land the patches from done-1 in my working tree", "consult", "workflow apply", True),
    HeldCase(f"apply {NO_RUN_B}", "edit", "workflow apply", missing=NO_RUN_B),
    HeldCase(f"resume {NO_RUN} from where it crashed", "consult", "workflow resume", missing=NO_RUN),
    HeldCase(f"resume {NO_RUN}", "observe", "workflow resume", True, missing=NO_RUN),
    HeldCase(f"stop run {NO_RUN_B}, it's burning money", "consult", "workflow stop", missing=NO_RUN_B),
    HeldCase(f"pause {NO_RUN} till tomorrow", "consult", "workflow pause", missing=NO_RUN),
    HeldCase(
        "what exactly was the reviewer agent in done-1 asked, and what did it answer",
        "observe",
        "workflow read",
    ),
    HeldCase("step me through done-1's events in order", "observe", "workflow show"),
    HeldCase("done-1 looks weird, debug its lease, base commit and worktrees", "observe", "workflow inspect"),
    HeldCase("save done-1's script as nightly-review", "edit", "workflow save"),
    HeldCase("save done-1's script as nightly-review", "consult", "workflow save", True),
    HeldCase(f"which gates is {NO_RUN} waiting on", "observe", "workflow gate list", missing=NO_RUN),
    HeldCase(f"approve the 'deploy' gate on {NO_RUN}", "admin", "workflow gate approve", missing=NO_RUN),
    HeldCase(f"approve the 'deploy' gate on {NO_RUN}", "edit", "workflow gate approve", True, missing=NO_RUN),
    HeldCase("what templates can i run", "observe", "workflow template list"),
    HeldCase("show me the test-fix template's code", "observe", "workflow template show"),
    HeldCase(
        "check flows/triage.js for syntax errors before I run it",
        "observe",
        "workflow validate",
        missing="flows/triage.js",
    ),
    HeldCase("scaffold a research workflow comparing json libraries", "observe", "workflow generate"),
    HeldCase("generate a review workflow and have claude tailor it to this repo", "consult", "workflow generate"),
    HeldCase("generate a review workflow and have claude tailor it to this repo", "observe", "workflow generate", True),
    HeldCase("generate a plan workflow and write it to flows/plan.js", "consult", "workflow generate", True),
    HeldCase("scope 'add retries to main' before any agents run", "observe", "workflow preflight"),
    HeldCase("what host calls can a workflow script make", "observe", "workflow tools list"),
    HeldCase("run the workflow script flows/fanout.js", "consult", "workflow run", missing="flows/fanout.js"),
    HeldCase("what did earlier workflow runs decide about retries", "observe", "workflow decisions"),
]

START = [
    HeldCase("review my staged changes for security issues", "consult", "start"),
    HeldCase("review my staged changes for security issues", "observe", "start", True),
    HeldCase("fix the failing test in tests/test_app.py", "edit", "start"),
    HeldCase("fix the failing test in tests/test_app.py", "consult", "start", True),
    HeldCase("add input validation to main", "edit", "start"),
    HeldCase("research how we could support plugins, no code changes", "consult", "start"),
    HeldCase("implement a --quiet flag in src/app.py", "edit", "start"),
    HeldCase("implement a --quiet flag in src/app.py", "observe", "start", True),
    HeldCase("make pytest pass pls", "edit", "start"),
    HeldCase("refactor main into smaller functions", "consult", "start", True),
    HeldCase("bump test coverage for src/app.py", "edit", "start"),
]

LOOPS_AND_TEAMS = [
    HeldCase("what loops exist", "observe", "loop list"),
    HeldCase("is the nightly loop making progress or stuck", "observe", "loop status"),
    HeldCase("tick nightly once", "consult", "loop tick"),
    HeldCase("tick nightly once", "observe", "loop tick", True),
    HeldCase("nightly stagnated, I changed its script, unstick it", "consult", "loop reset"),
    HeldCase(f"stop loop {NO_LOOP}", "consult", "loop stop", missing=NO_LOOP),
    HeldCase("start a loop called lint-sweep from loops/lint.js", "consult", "loop start", missing="loops/lint.js"),
    HeldCase("team list", "observe", "team list"),
    HeldCase(f"what's {NO_TEAM} up to", "observe", "team status", missing=NO_TEAM),
    HeldCase(f"show the diffs {NO_TEAM} produced", "observe", "team diff", missing=NO_TEAM),
    HeldCase(f"apply {NO_TEAM}'s patches", "edit", "team apply", missing=NO_TEAM),
    HeldCase(f"apply {NO_TEAM}'s patches", "consult", "team apply", True, missing=NO_TEAM),
    HeldCase(f"roll back the patches {NO_TEAM} applied", "admin", "team revert", missing=NO_TEAM),
    HeldCase(f"roll back the patches {NO_TEAM} applied", "edit", "team revert", True, missing=NO_TEAM),
    HeldCase("assemble a few agents to debate whether we should move to asyncio", "consult", "team start"),
    HeldCase("assemble a few agents to debate whether we should move to asyncio", "observe", "team start", True),
    HeldCase(
        f"tell the tester on {NO_TEAM} to focus on edge cases",
        "consult",
        "team send",
        missing=NO_TEAM,
        also=("team member steer",),
    ),
    HeldCase("show me the parallel-review team template", "observe", "team template show"),
    HeldCase(f"let {NO_TEAM} get on with it, run its rounds", "consult", "team run", missing=NO_TEAM),
    HeldCase(f"check {NO_TEAM}'s inbox", "observe", "team inbox", missing=NO_TEAM),
    HeldCase(f"raise {NO_TEAM}'s budget to 5 dollars", "consult", "team budget", missing=NO_TEAM),
]

PALLIUM_ITSELF = [
    HeldCase("pallium version", "observe", "version"),
    HeldCase("pallium keeps failing with weird errors, check my setup", "observe", "doctor"),
    HeldCase("register pallium's mcp server with claude code for this project", "admin", "mcp install"),
    HeldCase("register pallium's mcp server with claude code for this project", "edit", "mcp install", True),
    HeldCase("add the pallium instructions to AGENTS.md and CLAUDE.md", "admin", "agents install"),
    HeldCase("add the pallium instructions to AGENTS.md and CLAUDE.md", "consult", "agents install", True),
    HeldCase("print the agents block so I can paste it in myself", "observe", "agents block"),
    HeldCase("how am I supposed to drive pallium as an agent? give me the manual", "observe", "agents guide"),
    HeldCase("I've read .pallium/config.toml, go ahead and trust this repository", "admin", "trust"),
    HeldCase("I've read .pallium/config.toml, go ahead and trust this repository", "edit", "trust", True),
    HeldCase("revoke trust for this repo", "admin", "trust"),
    HeldCase("upgrade pallium", "admin", "update"),
    HeldCase("upgrade pallium", "edit", "update", True),
    HeldCase("doctor says the db is corrupt, move it aside", "admin", "db reset"),
    HeldCase("doctor says the db is corrupt, move it aside", "edit", "db reset", True),
    HeldCase("what would db reset do? preview only", "observe", "db reset"),
]

DESTRUCTIVE = [
    HeldCase("delete all session history older than 90 days", "admin", "sessions prune"),
    HeldCase("delete all session history older than 90 days", "consult", "sessions prune", True),
    HeldCase("preview which sessions a 1-year prune would remove", "observe", "sessions prune"),
    HeldCase(
        f"permanently forget session {NO_SESSION}, it has my api key in it",
        "admin",
        "sessions forget",
        missing=NO_SESSION,
    ),
    HeldCase("clear out workflow worktrees and run folders older than 2 weeks", "admin", "workflow gc"),
    HeldCase("clear out workflow worktrees and run folders older than 2 weeks", "edit", "workflow gc", True),
    HeldCase("what would workflow gc remove? don't delete anything", "observe", "workflow gc"),
    HeldCase("undo the changes done-1 applied", "admin", "workflow revert"),
    HeldCase("undo the changes done-1 applied", "edit", "workflow revert", True),
    HeldCase("drop every raw event from the session store", "admin", "sessions doctor"),
    HeldCase("clean up src/app.py", "edit", "start"),
    HeldCase("wipe the slate and give me a fresh overview of the modules", "observe", "knowledge map"),
    HeldCase("purge my worries — how risky is src/app.py really?", "observe", "risk"),
    HeldCase("nuke the commented-out code in src/app.py", "edit", "start"),
    HeldCase("forget my previous request, just list the loops", "observe", "loop list"),
    HeldCase("delete tests/test_app.py, it's obsolete", "edit", "start"),
    HeldCase("clear my head: who calls main?", "observe", "callers"),
    HeldCase("reset everything I thought I knew and explain README.md from scratch", "observe", "explain"),
]

COMPOUND = [
    HeldCase(
        "explain tests/test_app.py and also tell me its risk",
        "observe",
        "explain",
        steps=("explain", "risk"),
    ),
    HeldCase(
        "sync sessions; then search them for 'TimeoutError'",
        "observe",
        "sessions sync",
        steps=("sessions sync", "sessions search"),
    ),
    HeldCase(
        "show the report for done-1 then apply it",
        "edit",
        "workflow report",
        steps=("workflow report", "workflow apply"),
    ),
    HeldCase(
        "show the report for done-1 then apply it",
        "consult",
        "workflow report",
        True,
        steps=("workflow report", "workflow apply"),
    ),
    HeldCase("index the repo, then show hotspots", "observe", "index", steps=("index", "hotspots")),
    HeldCase(
        "list my loops and also tick nightly",
        "observe",
        "loop list",
        True,
        steps=("loop list", "loop tick"),
    ),
    HeldCase(
        "check what changed then review it",
        "consult",
        "changed-now",
        steps=("changed-now", "start"),
    ),
    HeldCase(
        "who calls main; then rename it to entry everywhere",
        "edit",
        "callers",
        steps=("callers", "start"),
    ),
    HeldCase(
        "who calls main; then rename it to entry everywhere",
        "consult",
        "callers",
        True,
        steps=("callers", "start"),
    ),
    HeldCase(
        "build the knowledge base without a model and then audit it",
        "consult",
        "knowledge build",
        steps=("knowledge build", "knowledge audit"),
    ),
    HeldCase(
        f"show {NO_TEAM}'s status and also its diff",
        "observe",
        "team status",
        missing=NO_TEAM,
        steps=("team status", "team diff"),
    ),
    HeldCase("run doctor, then print the version", "observe", "doctor", steps=("doctor", "version")),
    HeldCase(
        "revert done-1 and also stop the nightly loop",
        "edit",
        "workflow revert",
        True,
        steps=("workflow revert", "loop stop"),
    ),
    HeldCase(
        "what are the hotspots; then explain src/app.py",
        "observe",
        "hotspots",
        steps=("hotspots", "explain"),
    ),
]

OFF_TOPIC = [
    HeldCase("what's 48 divided by 6", "admin", None),
    HeldCase("write an email asking my manager for friday off", "admin", None),
    HeldCase("kill the process hogging port 3000 on my laptop", "admin", None),
    HeldCase("how tall is mount everest", "observe", None),
    HeldCase("recommend a good sci-fi novel", "admin", None),
    HeldCase("translate 'see you tomorrow' into italian", "admin", None),
    HeldCase("update my macbook to the latest macos", "admin", None),
    HeldCase("reset my wifi router", "admin", None),
    HeldCase("delete my old tweets", "admin", None),
    HeldCase("what's the difference between tcp and udp", "consult", None),
    HeldCase("explain quantum entanglement like I'm five", "observe", None),
    HeldCase("search the web for cheap flights to Lisbon", "admin", None),
    HeldCase("write a LinkedIn post announcing my new job", "admin", None),
    HeldCase("Wie spät ist es gerade in Tokio?", "admin", None),
    HeldCase("list the planets in order from the sun", "observe", None),
    HeldCase("restart docker desktop, it froze", "admin", None),
]

MORE_BLOCKED = [
    HeldCase("kick off a research run on how logging is done here", "observe", "start", True),
    HeldCase("stop the nightly loop", "observe", "loop stop", True),
    HeldCase(f"spawn a second reviewer on {NO_TEAM}", "observe", "team spawn", True, missing=NO_TEAM),
    HeldCase("resume done-1", "observe", "workflow resume", True),
    HeldCase(f"message the lead of {NO_TEAM}: done for today", "observe", "team send", True, missing=NO_TEAM),
    HeldCase("nightly is stuck on stagnation, let it tick again", "observe", "loop reset", True),
    HeldCase("apply the last run's patches", "consult", "workflow apply", True),
    HeldCase("write docstrings for every function in src/app.py", "consult", "start", True),
    HeldCase(f"forget session {NO_SESSION}", "consult", "sessions forget", True, missing=NO_SESSION),
    HeldCase("revoke trust for this repo", "consult", "trust", True),
    HeldCase("purge the raw events from the session database", "edit", "sessions doctor", True),
    HeldCase("what would `pallium update` run? dry run", "edit", "update", True),
    HeldCase(f"reject gate 'qa' on {NO_RUN_B}", "edit", "workflow gate reject", True, missing=NO_RUN_B),
    HeldCase("configure cohere embeddings for recall", "edit", "sessions embedding configure", True),
    HeldCase("resume knowledge upkeep now", "edit", "knowledge maintain resume", True),
]

HELDOUT4 = (
    INSPECT
    + KNOWLEDGE
    + SESSIONS
    + RUNS
    + START
    + LOOPS_AND_TEAMS
    + PALLIUM_ITSELF
    + DESTRUCTIVE
    + COMPOUND
    + OFF_TOPIC
    + MORE_BLOCKED
)
