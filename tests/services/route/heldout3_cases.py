"""Route's third held-out set: written after the second was scored once (90.2%), before any change made
in the light of that score, and scored once at the end by `test_heldout.py`.

Same fields and fixture as `heldout_cases.py` (README.md, src/app.py, tests/test_app.py; one finished
run `done-1`, one loop `nightly`); other words again.
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

RUN_X = "wf-20231111-111111-abcabc"
SESSION_X = "12345678-9abc-def0-1234-56789abcdef0"
TEAM_X = "team-feed99"

CODE = [
    HeldCase("tell me what src/app.py is about", "observe", "explain"),
    HeldCase("README.md overview", "observe", "explain"),
    HeldCase("what's defined in tests/test_app.py", "observe", "symbols"),
    HeldCase("usages of main", "observe", "callers"),
    HeldCase("who uses compute_totals_v2", "observe", "callers", missing="compute_totals_v2"),
    HeldCase("would changing src/app.py be risky", "observe", "risk"),
    HeldCase("co-changed files for src/app.py", "observe", "neighbors"),
    HeldCase("search the repo for the entrypoint function", "observe", "search"),
    HeldCase("explain lib/ghost.py", "observe", "explain", missing="lib/ghost.py"),
    HeldCase("which files are hot lately", "observe", "hotspots"),
    HeldCase("what's uncommitted right now", "observe", "changed-now"),
    HeldCase("write up a handoff against origin/main", "observe", "handoff"),
    HeldCase("what was the reasoning behind the test layout, from the commits", "observe", "decisions"),
    HeldCase("bitte erklär mir src/app.py", "observe", "explain"),
    HeldCase("index everything in this repo", "observe", "index"),
    HeldCase("what imports src/app.py", "observe", "explain"),
    HeldCase("Show Me What Changed Since Main", "observe", "handoff", also=("changed-now",)),
]

CHANGES = [
    HeldCase("fix main so it returns 2", "edit", "start"),
    HeldCase("fix main so it returns 2", "observe", "start", True),
    HeldCase("please implement input validation in src/app.py", "edit", "start"),
    HeldCase("refactor the test file", "edit", "start"),
    HeldCase("pls repair the broken test", "edit", "start"),
    HeldCase("the tests fail, can you sort that out", "edit", "start"),
    HeldCase("make the test suite green with `pytest`", "edit", "start"),
    HeldCase("clean up the imports in src/app.py", "edit", "start"),
    HeldCase("strip the debug prints from src/app.py", "edit", "start"),
    HeldCase("review the diff for bugs without editing", "consult", "start"),
    HeldCase("review the diff for bugs without editing", "observe", "start", True),
    HeldCase("research how the tests are organised and report", "consult", "start"),
    HeldCase("review my pending changes and repair whatever's broken", "edit", "start"),
    HeldCase("scope the work to add a cli flag before doing anything", "observe", "workflow preflight"),
    HeldCase("collect the context for renaming main", "observe", "knowledge context"),
    HeldCase("keep iterating on the failing test until it passes", "edit", "start"),
]

KNOWLEDGE = [
    HeldCase("check the knowledge base claims are true", "consult", "knowledge audit"),
    HeldCase("check the knowledge base claims are true", "observe", "knowledge audit", True),
    HeldCase("build the knowledge docs offline, without any model", "observe", "knowledge build"),
    HeldCase("build the knowledge docs", "consult", "knowledge build"),
    HeldCase("find the knowledge doc about sessions", "observe", "knowledge search"),
    HeldCase("map out the project's modules", "observe", "knowledge map"),
]

SESSIONS = [
    HeldCase("which claude sessions are live", "observe", "sessions live"),
    HeldCase("import the newest codex transcripts", "observe", "sessions sync"),
    HeldCase("what did my last session conclude about the retry bug", "observe", "sessions recall"),
    HeldCase("search past sessions for 'timeout error'", "observe", "sessions search"),
    HeldCase("sessions updated in the last day", "observe", "sessions find"),
    HeldCase(f"details of session {SESSION_X}", "observe", "sessions show", missing=SESSION_X),
    HeldCase(f"erase session {SESSION_X}", "admin", "sessions forget", missing=SESSION_X),
    HeldCase("prune sessions older than 45 days", "admin", "sessions prune"),
    HeldCase("prune sessions older than 45 days", "observe", "sessions prune", True),
    HeldCase("dry run: prune sessions older than 45 days", "observe", "sessions prune"),
    HeldCase("repair the session index", "admin", "sessions doctor"),
    HeldCase("check the embedding endpoint responds", "consult", "sessions embedding check"),
]

RUNS = [
    HeldCase("what workflow runs are there", "observe", "workflow list"),
    HeldCase(f"status for {RUN_X}", "observe", "workflow status", missing=RUN_X),
    HeldCase(f"apply {RUN_X}", "edit", "workflow apply", missing=RUN_X),
    HeldCase(f"apply {RUN_X}", "consult", "workflow apply", True, missing=RUN_X),
    HeldCase(f"undo {RUN_X}", "admin", "workflow revert", missing=RUN_X),
    HeldCase(f"report on {RUN_X}", "observe", "workflow report", missing=RUN_X),
    HeldCase(f"retry {RUN_X}", "consult", "workflow resume", missing=RUN_X),
    HeldCase(f"pause {RUN_X}", "consult", "workflow pause", missing=RUN_X),
    HeldCase("reject the deploy gate, not ready", "admin", "workflow gate reject"),
    HeldCase("reject the deploy gate, not ready", "edit", "workflow gate reject", True),
    HeldCase("list templates for workflows", "observe", "workflow template list"),
    HeldCase("validate my.workflow.js", "observe", "workflow validate"),
    HeldCase("generate a test-fix workflow", "observe", "workflow generate"),
    HeldCase("generate a plan workflow and save it as plan.js", "edit", "workflow generate"),
    HeldCase("remove the worktrees left over from old runs", "admin", "workflow gc"),
    HeldCase("remove the worktrees left over from old runs", "consult", "workflow gc", True),
    HeldCase("save the last run as a workflow called nightly-fix", "edit", "workflow save"),
    HeldCase("which gates does the last run have", "observe", "workflow gate list"),
    HeldCase("kill the running workflow", "observe", "workflow stop", True),
]

LOOPS_TEAMS_PALLIUM = [
    HeldCase("what loops do I have", "observe", "loop list"),
    HeldCase("loop status for weekly-audit", "observe", "loop status", missing="weekly-audit"),
    HeldCase("stop weekly-audit loop", "consult", "loop stop", missing="weekly-audit"),
    HeldCase("show all teams", "observe", "team list"),
    HeldCase(f"stop {TEAM_X}", "consult", "team stop", missing=TEAM_X),
    HeldCase("team templates?", "observe", "team template list"),
    HeldCase("pallium version pls", "observe", "version"),
    HeldCase("run pallium's self check", "observe", "doctor"),
    HeldCase("register pallium with codex", "admin", "mcp install"),
    HeldCase("register pallium with codex", "consult", "mcp install", True),
    HeldCase("install the pallium block in AGENTS.md", "admin", "agents install"),
    HeldCase("update pallium now", "edit", "update", True),
    HeldCase("trust this repository", "admin", "trust"),
    HeldCase("move the damaged pallium db aside", "admin", "db reset"),
]

COMPOUND = [
    HeldCase("index; then search for main", "observe", "index", steps=("index", "search")),
    HeldCase("explain src/app.py and also show its risk", "observe", "explain", steps=("explain", "risk")),
    HeldCase(
        "list workflow runs then apply the last one", "edit", "workflow list", steps=("workflow list", "workflow apply")
    ),
    HeldCase(
        "list workflow runs then apply the last one",
        "consult",
        "workflow list",
        True,
        steps=("workflow list", "workflow apply"),
    ),
    HeldCase("show my loops; then stop the nightly loop", "consult", "loop list", steps=("loop list", "loop stop")),
]

OFF_TOPIC = [
    HeldCase("what is 144 divided by 12", "admin", None),
    HeldCase("write a wedding speech", "admin", None),
    HeldCase("how far is the moon", "admin", None),
    HeldCase("give me a workout plan", "admin", None),
    HeldCase("suggest a gift for my dad", "admin", None),
    HeldCase("compose a song about rain", "admin", None),
    HeldCase("what's the population of canada", "admin", None),
    HeldCase("recommend a book on stoicism", "admin", None),
    HeldCase("how do I change a tyre", "admin", None),
    HeldCase("plan a trip to lisbon", "admin", None),
    HeldCase("draft a thank you email to the recruiter", "admin", None),
    HeldCase("what's a good name for a puppy", "admin", None),
    HeldCase("how many calories in an apple", "admin", None),
]

HELDOUT3 = CODE + CHANGES + KNOWLEDGE + SESSIONS + RUNS + LOOPS_TEAMS_PALLIUM + COMPOUND + OFF_TOPIC
