"""Route's fifth held-out set: kept apart, scored once at the very end, never tuned to.

Written by an independent hand (a helper session, not the engineer who wrote route), from the
documentation only (docs/tools.md, docs/*.md, README.md, the product description), before seeing
any of route's answers and without reading route's code or its other case files. Only the format
and labelling conventions of `heldout_cases.py` were taken from it; no task is copied from it or
from `heldout4_cases.py` (written at the same time, for tuning).

The fixture: a git repository with README.md, src/app.py (a function `main`) and
tests/test_app.py; one finished workflow run `done-1`; one loop `nightly`. Nothing else exists:
any other run id, session id (or prefix), team, loop, path or symbol a task names is labelled
`missing=` (route must say not found and never substitute, e.g. `nightly` for `nightly-docs`).

Conventions (from `heldout_cases.py`): a review, research or code change is `start` (consult for a
review or research, edit for a change, whatever the files); a preview of a destructive command is
labelled with the destructive capability at the level the preview needs; a compound task lists
`steps` in order, `capability` is the first step's, and the whole is `blocked` when any step needs
more than the ceiling. Loose words ("wipe the slate", "kill the noise", "purge my confusion") in a
task that deletes nothing of Pallium's are never a destructive tool. A tool whose level does not
drop with `--dry-run` (update, mcp install) stays at its level for a dry run.

Scored once, on main at a744e01 (issue #24's fourth round merged), before any change made in the light
of it: right 186/233 (79.8%), blocked 46/51, abstained 17/18, destructive not asked for 2 ("take
done-1's patches back out of my tree" chose `workflow gc --confirm`), substituted 0/54.

Since then it is tuning (issue #24's fifth round): after changes by class, right 214/233 (91.8%),
blocked 51/51, abstained 18/18, destructive 0, substituted 0. Not a held-out figure.
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

NO_RUN = "wf-20250921-140233-c0ffee"
NO_RUN_B = "wf-20250103-071204-5e6f7a"
NO_SESSION = "b7e4d2a0-91c3-4f6e-8a5b-2c1d0e9f8a7b"
NO_SESSION_PREFIX = "e41c09aa"
NO_TEAM = "team-41f0ab"
NO_TEAM_B = "team-d00d12"

INSPECT = [
    HeldCase("yo what's in src/app.py lol", "observe", "explain"),
    HeldCase(
        "Before I start hacking on src/app.py, could you walk me through what it declares, what it pulls in, "
        "what depends on it and which tests cover it? No rush, I just want to be careful because last time "
        "I broke production on a Friday.",
        "observe",
        "explain",
    ),
    HeldCase("expalin tests/test_app.py", "observe", "explain"),
    HeldCase("o que faz o arquivo src/app.py?", "observe", "explain"),
    HeldCase("src/app.py を説明して", "observe", "explain"),
    HeldCase("what's in src/app/__init__.py", "observe", "explain", missing="src/app/__init__.py"),
    HeldCase("what does tests/test_api.py cover", "observe", "explain", missing="tests/test_api.py"),
    HeldCase("`pallium symbols src/app.py`", "observe", "symbols"),
    HeldCase("list teh functoins in tests/test_app.py", "observe", "symbols"),
    HeldCase("outline of src/app.py without reading the whole thing", "observe", "symbols", also=("explain",)),
    HeldCase("symbols of src/cli/commands.py", "observe", "symbols", missing="src/cli/commands.py"),
    HeldCase("every call site of main", "observe", "callers"),
    HeldCase("Wer ruft main auf?", "observe", "callers"),
    HeldCase("who imports or calls `render_template`", "observe", "callers", missing="render_template"),
    HeldCase(
        "I want to change the signature of Config.from_env, show me its usages",
        "observe",
        "callers",
        missing="Config.from_env",
    ),
    HeldCase("how careful do I need to be reviewing tests/test_app.py", "observe", "risk"),
    HeldCase("rischio di modificare src/app.py?", "observe", "risk"),
    HeldCase("risk score for src/db/session.py", "observe", "risk", missing="src/db/session.py"),
    HeldCase("what files tend to get edited alongside README.md", "observe", "neighbors"),
    HeldCase("neighbors of src/models/user.py", "observe", "neighbors", missing="src/models/user.py"),
    HeldCase("where do we handle exit codes", "observe", "search"),
    HeldCase("find where the greeting text is built, I don't know the function name", "observe", "search"),
    HeldCase("which files have the most churn times fan-in this year", "observe", "hotspots"),
    HeldCase("welke bestanden veranderen het vaakst?", "observe", "hotspots"),
    HeldCase("what's dirty in my working tree", "observe", "changed-now"),
    HeldCase("any merge conflicts right now?", "observe", "changed-now"),
    HeldCase("summarize everything on this branch for the PR description", "observe", "handoff"),
    HeldCase("write the end-of-task brief for the next agent, base HEAD~2", "observe", "handoff"),
    HeldCase("is there a commit explaining why main returns 0", "observe", "decisions"),
    HeldCase("rebuild the whole index from scratch, it seems confused", "observe", "index"),
    HeldCase("pallium index --full", "observe", "index"),
    HeldCase(
        "I'm writing a dependency visualizer; just give me every import edge and external package in the repo at once",
        "observe",
        "facts",
    ),
]

KNOWLEDGE = [
    HeldCase("fill in the knowledge docs from the index only, skip the LLM", "observe", "knowledge build"),
    HeldCase("write knowledge docs for every module using codex", "consult", "knowledge build"),
    HeldCase("write knowledge docs for every module using codex", "observe", "knowledge build", True),
    HeldCase("are the knowledge base's claims still true? re-verify the stale ones", "consult", "knowledge audit"),
    HeldCase(
        "are the knowledge base's claims still true? re-verify the stale ones", "observe", "knowledge audit", True
    ),
    HeldCase("according to the knowledge base, which module owns the tests", "observe", "knowledge search"),
    HeldCase("high-level map of this repo's modules", "observe", "knowledge map"),
    HeldCase(
        "new here. task: make main accept a config file path. what should I read first and which checks apply?",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase("pull up the Purpose section of the src/app knowledge doc", "observe", "knowledge get"),
    HeldCase("spin up the knowledge site locally so I can click around", "observe", "knowledge serve"),
    HeldCase(
        "serve the knowledge base on 0.0.0.0 port 9000 with a token so my teammate can look",
        "admin",
        "knowledge serve",
    ),
    HeldCase(
        "serve the knowledge base on 0.0.0.0 port 9000 with a token so my teammate can look",
        "edit",
        "knowledge serve",
        True,
    ),
    HeldCase("any authored decisions (not commits) about the database?", "observe", "knowledge decisions search"),
    HeldCase(
        "record docs/decisions/logging.md as the decision 'Structured logs', source RFC-3",
        "edit",
        "knowledge decisions link",
        missing="docs/decisions/logging.md",
    ),
    HeldCase(
        "register tests/test_app.py as the text of the decision 'Tests are the spec', from ticket QA-1",
        "edit",
        "knowledge decisions link",
    ),
    HeldCase(
        "register tests/test_app.py as the text of the decision 'Tests are the spec', from ticket QA-1",
        "consult",
        "knowledge decisions link",
        True,
    ),
    HeldCase("resume knowledge upkeep, I fixed the quota problem", "admin", "knowledge maintain resume"),
    HeldCase("resume knowledge upkeep, I fixed the quota problem", "consult", "knowledge maintain resume", True),
    HeldCase("retry the knowledge generation step right now", "admin", "knowledge maintain retry"),
    HeldCase("run one step of the knowledge upkeep supervisor", "edit", "knowledge maintain run", True),
    HeldCase("is upkeep paused here?", "observe", "knowledge maintain status"),
    HeldCase("register this repo for background knowledge upkeep", "admin", "knowledge maintain enable"),
]

SESSIONS = [
    HeldCase("what are my agents doing rn", "observe", "sessions live"),
    HeldCase("claude seems frozen, is it blocked on a tool call?", "observe", "sessions live"),
    HeldCase("pull the newest codex transcripts into memory", "observe", "sessions sync"),
    HeldCase("last time, where did we stop on the retry refactor?", "observe", "sessions recall"),
    HeldCase("why did the migration attempt fail in an earlier session", "observe", "sessions recall"),
    HeldCase("ayer, ¿dónde nos quedamos con el parser?", "observe", "sessions recall"),
    HeldCase("grep my transcripts for `pytest -k slow`", "observe", "sessions search"),
    HeldCase("every past message that mentions ECONNREFUSED", "observe", "sessions search"),
    HeldCase("sessions that finished in the last 10 minutes", "observe", "sessions find"),
    HeldCase("which session was updated most recently?", "observe", "sessions find"),
    HeldCase(
        f"what did session {NO_SESSION_PREFIX} ask and where did it stop",
        "observe",
        "sessions show",
        missing=NO_SESSION_PREFIX,
    ),
    HeldCase(f"open the transcript of {NO_SESSION}", "observe", "sessions read", missing=NO_SESSION),
    HeldCase("vectors configured for recall?", "observe", "sessions embedding status"),
    HeldCase("verify my embedding key and dimension with one request", "consult", "sessions embedding check"),
    HeldCase("verify my embedding key and dimension with one request", "observe", "sessions embedding check", True),
    HeldCase("switch session recall to openai text-embedding-3-small", "admin", "sessions embedding configure"),
    HeldCase("switch session recall to openai text-embedding-3-small", "edit", "sessions embedding configure", True),
    HeldCase("repair the session search index", "admin", "sessions doctor"),
    HeldCase("repair the session search index", "edit", "sessions doctor", True),
    HeldCase("vacuum the session database to get some disk back", "admin", "sessions doctor"),
]

RUNS = [
    HeldCase("show my last 5 workflow runs", "observe", "workflow list"),
    HeldCase("is done-1 finished? what was the verdict", "observe", "workflow status", also=("workflow report",)),
    HeldCase("done-1: findings and next steps", "observe", "workflow report"),
    HeldCase(f"report on {NO_RUN}", "observe", "workflow report", missing=NO_RUN),
    HeldCase("merge done-1's staged patches into my tree", "edit", "workflow apply"),
    HeldCase("merge done-1's staged patches into my tree", "consult", "workflow apply", True),
    HeldCase("merge done-1's staged patches into my tree", "observe", "workflow apply", True),
    HeldCase(f"carry on with {NO_RUN} after the crash", "consult", "workflow resume", missing=NO_RUN),
    HeldCase(f"kill {NO_RUN_B}, it's going in circles", "consult", "workflow stop", missing=NO_RUN_B),
    HeldCase(f"kill {NO_RUN_B}, it's going in circles", "observe", "workflow stop", True, missing=NO_RUN_B),
    HeldCase(f"pause {NO_RUN} so it stops spending for now", "consult", "workflow pause", missing=NO_RUN),
    HeldCase(f"pause {NO_RUN} so it stops spending for now", "observe", "workflow pause", True, missing=NO_RUN),
    HeldCase("what prompt did the skeptic agent in done-1 get", "observe", "workflow read"),
    HeldCase("show only the failure events of done-1", "observe", "workflow show"),
    HeldCase("why won't done-1 resume? check its lease", "observe", "workflow inspect"),
    HeldCase("keep done-1's script around as weekly-audit, user scope", "edit", "workflow save"),
    HeldCase("gates on done-1?", "observe", "workflow gate list"),
    HeldCase(
        f"reject the 'migrate' gate on {NO_RUN_B}, I don't accept dropping the table",
        "admin",
        "workflow gate reject",
        missing=NO_RUN_B,
    ),
    HeldCase(
        f"reject the 'migrate' gate on {NO_RUN_B}, I don't accept dropping the table",
        "edit",
        "workflow gate reject",
        True,
        missing=NO_RUN_B,
    ),
    HeldCase("saved workflows and built-in templates?", "observe", "workflow template list"),
    HeldCase("cat the review template", "observe", "workflow template show"),
    HeldCase(
        "validate .pallium/workflows/release.js",
        "observe",
        "workflow validate",
        missing=".pallium/workflows/release.js",
    ),
    HeldCase("write me a test-fix workflow for `make test` with 5 rounds", "observe", "workflow generate"),
    HeldCase("write a review workflow out to flows/review.js", "edit", "workflow generate"),
    HeldCase("write a review workflow out to flows/review.js", "consult", "workflow generate", True),
    HeldCase("preflight: migrate main to click", "observe", "workflow preflight"),
    HeldCase("which workflow host calls of kind verification are available", "observe", "workflow tools list"),
    HeldCase("run the built-in review template against src/app.py", "consult", "workflow run", also=("start",)),
    HeldCase("run my script flows/bughunt.js with a $2 budget", "consult", "workflow run", missing="flows/bughunt.js"),
    HeldCase(
        "run my script flows/bughunt.js with a $2 budget", "observe", "workflow run", True, missing="flows/bughunt.js"
    ),
    HeldCase("what decisions did previous workflow runs record", "observe", "workflow decisions"),
]

START = [
    HeldCase("look over my diff like a senior engineer would, but don't touch anything", "consult", "start"),
    HeldCase("look over my diff like a senior engineer would, but don't touch anything", "observe", "start", True),
    HeldCase("tests are red, fix em", "edit", "start"),
    HeldCase("tests are red, fix em", "consult", "start", True),
    HeldCase("add a docstring to main", "edit", "start"),
    HeldCase("add a docstring to main", "observe", "start", True),
    HeldCase("investigate why tests/test_app.py is slow and report back", "consult", "start"),
    HeldCase("Could you please write unit tests for main? Thanks so much!", "edit", "start"),
    HeldCase("make `python -m pytest` green", "edit", "start"),
    HeldCase("security review of src/app.py", "consult", "start"),
    HeldCase("corrige el test que falla en tests/test_app.py", "edit", "start"),
    HeldCase("port src/app.py to pathlib", "consult", "start", True),
    HeldCase("keep fixing until the tests pass", "edit", "start", also=("loop start",)),
]

LOOPS = [
    HeldCase("loops?", "observe", "loop list"),
    HeldCase("how's nightly", "observe", "loop status"),
    HeldCase("advance nightly by one cycle", "consult", "loop tick"),
    HeldCase("clear nightly's stagnation counter", "consult", "loop reset"),
    HeldCase("clear nightly's stagnation counter", "observe", "loop reset", True),
    HeldCase("stop the nightly loop, its work is done", "consult", "loop stop"),
    HeldCase("stop the nightly loop, its work is done", "observe", "loop stop", True),
    HeldCase("status of loop nightly-docs", "observe", "loop status", missing="nightly-docs"),
    HeldCase("tick lint-sweep", "consult", "loop tick", missing="lint-sweep"),
    HeldCase(
        "set up a recurring loop named dep-bumps from loops/deps.js to keep dependencies current",
        "consult",
        "loop start",
        missing="loops/deps.js",
    ),
]

TEAMS = [
    HeldCase("any agent teams around?", "observe", "team list"),
    HeldCase(f"members and spend of {NO_TEAM}", "observe", "team status", missing=NO_TEAM),
    HeldCase(f"watch {NO_TEAM} live in this terminal", "observe", "team watch", missing=NO_TEAM),
    HeldCase(f"{NO_TEAM} died after a reboot, reattach to it", "consult", "team attach", missing=NO_TEAM),
    HeldCase(f"{NO_TEAM} died after a reboot, reattach to it", "observe", "team attach", True, missing=NO_TEAM),
    HeldCase(f"approve the planner's plan on {NO_TEAM}", "consult", "team approve", missing=NO_TEAM),
    HeldCase(
        f"reject the reviewer's plan on {NO_TEAM}: it needs tests first", "consult", "team reject", missing=NO_TEAM
    ),
    HeldCase(f"add a task 'write fuzz tests' to {NO_TEAM}'s board", "consult", "team tasks add", missing=NO_TEAM),
    HeldCase(f"what's on {NO_TEAM}'s board", "observe", "team tasks list", missing=NO_TEAM),
    HeldCase(f"claim task 2 on {NO_TEAM} for me", "consult", "team tasks claim", missing=NO_TEAM),
    HeldCase(
        f"mark task 2 on {NO_TEAM} done, result: fuzz tests added", "consult", "team tasks complete", missing=NO_TEAM
    ),
    HeldCase(f"release task 3 on {NO_TEAM}, its owner died", "consult", "team tasks release", missing=NO_TEAM),
    HeldCase(f"spawn a codex security reviewer on {NO_TEAM}", "consult", "team spawn", missing=NO_TEAM),
    HeldCase(
        f"steer the coder on {NO_TEAM}: stop refactoring and fix the bug",
        "consult",
        "team member steer",
        missing=NO_TEAM,
    ),
    HeldCase(f"nudge the idle tester on {NO_TEAM}", "consult", "team nudge", missing=NO_TEAM),
    HeldCase(f"restart the crashed member 'docs' on {NO_TEAM}", "consult", "team member restart", missing=NO_TEAM),
    HeldCase(f"take the 'docs' member off {NO_TEAM}", "consult", "team member stop", missing=NO_TEAM),
    HeldCase(
        f"put a gate on {NO_TEAM}: tests must pass before a task counts as complete",
        "consult",
        "team gate set",
        missing=NO_TEAM,
    ),
    HeldCase(f"join {NO_TEAM} as an external member", "consult", "team join", missing=NO_TEAM),
    HeldCase(f"resume {NO_TEAM} now that it has budget again", "consult", "team resume", missing=NO_TEAM),
    HeldCase(f"stop {NO_TEAM}", "observe", "team stop", True, missing=NO_TEAM),
    HeldCase("get a parallel review going with several agents on the request handling", "consult", "team start"),
    HeldCase("team templates?", "observe", "team template list"),
    HeldCase(f"merge {NO_TEAM_B}'s patches into my tree", "edit", "team apply", missing=NO_TEAM_B),
    HeldCase(f"merge {NO_TEAM_B}'s patches into my tree", "consult", "team apply", True, missing=NO_TEAM_B),
    HeldCase(f"undo what {NO_TEAM_B} applied", "edit", "team revert", True, missing=NO_TEAM_B),
]

PALLIUM_ITSELF = [
    HeldCase("which pallium am I on, and which schema versions", "observe", "version"),
    HeldCase("`pallium doctor`", "observe", "doctor"),
    HeldCase("is sqlite-vec working for pallium here?", "observe", "doctor"),
    HeldCase("set up pallium in codex", "admin", "mcp install"),
    HeldCase("set up pallium in codex", "consult", "mcp install", True),
    HeldCase("dry-run registering pallium with claude at user scope", "observe", "mcp install", True),
    HeldCase("write the pallium block into CLAUDE.md", "admin", "agents install"),
    HeldCase("write the pallium block into CLAUDE.md", "edit", "agents install", True),
    HeldCase("show me the workflow authoring guide", "observe", "agents guide"),
    HeldCase("trust this repo so its pytest conftest is honoured", "admin", "trust"),
    HeldCase("trust this repo so its pytest conftest is honoured", "observe", "trust", True),
    HeldCase("how would pallium upgrade itself? dry run, don't actually do it", "observe", "update", True),
    HeldCase("pallium update pls", "admin", "update"),
    HeldCase("reset the global pallium database", "admin", "db reset"),
    HeldCase("reset the global pallium database", "consult", "db reset", True),
    HeldCase("preview what resetting this repo's pallium database would move", "observe", "db reset"),
]

DESTRUCTIVE = [
    HeldCase("purge sessions untouched for 6 weeks", "admin", "sessions prune"),
    HeldCase("purge sessions untouched for 6 weeks", "observe", "sessions prune", True),
    HeldCase("how many sessions are older than 30d? preview the prune", "observe", "sessions prune"),
    HeldCase(
        f"scrub session {NO_SESSION} from memory, it's misleading", "admin", "sessions forget", missing=NO_SESSION
    ),
    HeldCase(
        f"scrub session {NO_SESSION} from memory, it's misleading",
        "edit",
        "sessions forget",
        True,
        missing=NO_SESSION,
    ),
    HeldCase(
        f"what would forgetting session {NO_SESSION} remove? preview", "observe", "sessions forget", missing=NO_SESSION
    ),
    HeldCase("gc every ended run, failed ones included, older than 0 days", "admin", "workflow gc"),
    HeldCase("the workflow-runs folder is huge, free up the space", "admin", "workflow gc"),
    HeldCase("the workflow-runs folder is huge, free up the space", "consult", "workflow gc", True),
    HeldCase("take done-1's patches back out of my tree", "admin", "workflow revert"),
    HeldCase("take done-1's patches back out of my tree", "consult", "workflow revert", True),
    HeldCase(f"revert {NO_RUN}", "admin", "workflow revert", missing=NO_RUN),
    HeldCase("clean up the wording in README.md", "edit", "start"),
    HeldCase("wipe the slate clean: what's changed in my tree?", "observe", "changed-now"),
    HeldCase("kill the noise and just show me the hotspots", "observe", "hotspots"),
    HeldCase("get rid of the print statements in src/app.py", "edit", "start"),
    HeldCase("erase the flaky assertion from tests/test_app.py", "edit", "start"),
    HeldCase("purge my confusion about main: who calls it?", "observe", "callers"),
    HeldCase(
        "drop the old plan and start fresh: what context do I need to add auth to main?",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase("forget about tests for now and tell me what README.md is for", "observe", "explain"),
]

COMPOUND = [
    HeldCase(
        "explain src/app.py, then add a docstring to main",
        "edit",
        "explain",
        steps=("explain", "start"),
    ),
    HeldCase(
        "explain src/app.py, then add a docstring to main",
        "observe",
        "explain",
        True,
        steps=("explain", "start"),
    ),
    HeldCase(
        "sync my sessions and also show which ones are unfinished",
        "observe",
        "sessions sync",
        steps=("sessions sync", "sessions find"),
    ),
    HeldCase(
        "preflight 'add caching to main'; then do it",
        "edit",
        "workflow preflight",
        steps=("workflow preflight", "start"),
    ),
    HeldCase(
        "preflight 'add caching to main'; then do it",
        "consult",
        "workflow preflight",
        True,
        steps=("workflow preflight", "start"),
    ),
    HeldCase(
        "list runs then show the report of the newest one",
        "observe",
        "workflow list",
        steps=("workflow list", "workflow report"),
    ),
    HeldCase(
        "apply done-1 and then revert it again",
        "admin",
        "workflow apply",
        steps=("workflow apply", "workflow revert"),
    ),
    HeldCase(
        "apply done-1 and then revert it again",
        "edit",
        "workflow apply",
        True,
        steps=("workflow apply", "workflow revert"),
    ),
    HeldCase("changed-now; handoff", "observe", "changed-now", steps=("changed-now", "handoff")),
    HeldCase(
        "check the risk of src/app.py then its co-change neighbours",
        "observe",
        "risk",
        steps=("risk", "neighbors"),
    ),
    HeldCase(
        "status of nightly and also tick it",
        "consult",
        "loop status",
        steps=("loop status", "loop tick"),
    ),
    HeldCase(
        "run doctor; then reset the repo database",
        "edit",
        "doctor",
        True,
        steps=("doctor", "db reset"),
    ),
    HeldCase(
        f"show {NO_TEAM_B}'s diff then apply it",
        "edit",
        "team diff",
        missing=NO_TEAM_B,
        steps=("team diff", "team apply"),
    ),
    HeldCase(
        "prune sessions older than 1y; then sync",
        "consult",
        "sessions prune",
        True,
        steps=("sessions prune", "sessions sync"),
    ),
    HeldCase(
        "build the knowledge base with a model, then serve it",
        "observe",
        "knowledge build",
        True,
        steps=("knowledge build", "knowledge serve"),
    ),
    HeldCase(
        "hotspots over 30 days; then review the hottest file",
        "consult",
        "hotspots",
        steps=("hotspots", "start"),
    ),
]

OFF_TOPIC = [
    HeldCase("what's 2 to the power of 16", "admin", None),
    HeldCase("draft a cover letter for a data engineer role at a bank", "admin", None),
    HeldCase("force quit chrome on my mac", "admin", None),
    HeldCase("who won the 2018 world cup", "observe", None),
    HeldCase("write a haiku about autumn rain", "admin", None),
    HeldCase("how many ounces in a pound", "consult", None),
    HeldCase("kill -9 the zombie process on my desktop", "admin", None),
    HeldCase("reset my gmail password", "admin", None),
    HeldCase("clean up my downloads folder", "admin", None),
    HeldCase("update the graphics drivers on my gaming pc", "admin", None),
    HeldCase("explain how vaccines work", "observe", None),
    HeldCase("search amazon for a usb-c hub under 30 euros", "admin", None),
    HeldCase("book a table for two at 8pm on saturday", "admin", None),
    HeldCase("qu'est-ce qu'on mange ce soir ?", "admin", None),
    HeldCase("what is the big-O of binary search", "observe", None),
    HeldCase("list five fun facts about octopuses", "observe", None),
    HeldCase("write a SQL query that finds duplicate emails in a users table", "edit", None),
    HeldCase("summarize today's top hacker news stories", "admin", None),
]

MORE_BLOCKED = [
    HeldCase("delete sessions older than 2 years", "edit", "sessions prune", True),
    HeldCase("I reviewed .pallium/workflows, honour them from now on", "edit", "trust", True),
    HeldCase("disable knowledge upkeep for this repo", "edit", "knowledge maintain disable", True),
    HeldCase("install the launch agent for knowledge upkeep on my mac", "edit", "knowledge maintain install", True),
    HeldCase(f"approve gate 'ship-it' on {NO_RUN_B}", "edit", "workflow gate approve", True, missing=NO_RUN_B),
    HeldCase("pause the knowledge model spend here", "edit", "knowledge maintain pause", True),
    HeldCase("save done-1 as a repo workflow named triage", "consult", "workflow save", True),
    HeldCase(f"apply only patch 2 from {NO_TEAM}", "consult", "team apply", True, missing=NO_TEAM),
    HeldCase("rename main to cli_main across the repo", "consult", "start", True),
]

HELDOUT5 = (
    INSPECT
    + KNOWLEDGE
    + SESSIONS
    + RUNS
    + START
    + LOOPS
    + TEAMS
    + PALLIUM_ITSELF
    + DESTRUCTIVE
    + COMPOUND
    + OFF_TOPIC
    + MORE_BLOCKED
)
