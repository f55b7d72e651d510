"""Route's second held-out set: written after the first was scored once (85.2%), before any change made
in the light of that score, and scored once at the end by `test_heldout.py`.

The first set had been seen by then, so a second one is the honest figure for what came after. Same
fields and fixture as `heldout_cases.py` (README.md, src/app.py, tests/test_app.py; one finished run
`done-1`, one loop `nightly`); other words again, other people's styles.
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

GHOST_RUN = "wf-20240707-070707-0a0b0c"
GHOST_SESSION = "0f0e0d0c-aaaa-bbbb-cccc-111122223333"
GHOST_TEAM = "team-dead01"

READ_CODE = [
    HeldCase("whats src/app.py for", "observe", "explain"),
    HeldCase("summarize tests/test_app.py for me", "observe", "explain"),
    HeldCase("src/app.py — dependencies and dependents?", "observe", "explain"),
    HeldCase("classes and funcs in src/app.py", "observe", "symbols"),
    HeldCase("who's calling main?", "observe", "callers"),
    HeldCase("find every caller of parse_everything_now", "observe", "callers", missing="parse_everything_now"),
    HeldCase("how dangerous is editing README.md", "observe", "risk"),
    HeldCase("what files usually get touched with tests/test_app.py", "observe", "neighbors"),
    HeldCase("look for where the config gets parsed", "observe", "search"),
    HeldCase("give me a rundown of src/does_not_exist.py", "observe", "explain", missing="src/does_not_exist.py"),
    HeldCase("which parts of the repo change the most", "observe", "hotspots"),
    HeldCase("what did I change so far", "observe", "changed-now"),
    HeldCase("diff of my working tree pls", "observe", "changed-now"),
    HeldCase("hand this branch over to a colleague, everything since main", "observe", "handoff"),
    HeldCase("why did we switch to apsw, check commit history", "observe", "decisions"),
    HeldCase("s'il vous plaît, explain src/app.py", "observe", "explain"),
]

CHANGE_CODE = [
    HeldCase("fix the typo in README.md", "edit", "start"),
    HeldCase("fix the typo in README.md", "consult", "start", True),
    HeldCase("implement a --dry-run flag", "edit", "start"),
    HeldCase("refactor src/app.py into smaller functions", "edit", "start"),
    HeldCase("please rewrite tests/test_app.py with pytest fixtures", "edit", "start"),
    HeldCase("debug why test_main fails", "edit", "start"),
    HeldCase("get the failing test green again", "edit", "start"),
    HeldCase("make `python -m pytest` pass", "edit", "start"),
    HeldCase("add docstrings everywhere in src/app.py", "observe", "start", True),
    HeldCase("tidy up README.md", "edit", "start"),
    HeldCase("remove the second commit's test and rewrite it", "edit", "start"),
    HeldCase("go through my diff and fix anything wrong", "edit", "start"),
    HeldCase("audit my changes for security holes, just report", "consult", "start"),
    HeldCase("audit my changes for security holes, just report", "observe", "start", True),
    HeldCase("look into how main is tested and report back", "consult", "start"),
    HeldCase("before touching src/app.py, scope the change to add caching", "observe", "workflow preflight"),
    HeldCase("what do I need to know to change how main returns", "observe", "knowledge context"),
    HeldCase("keep fixing the tests until they pass", "edit", "start"),
]

KNOWLEDGE_AND_DOCS = [
    HeldCase("are the module docs still right?", "consult", "knowledge audit"),
    HeldCase("regenerate the knowledge base from the index, no model calls", "observe", "knowledge build"),
    HeldCase("regenerate the knowledge base with llm prose", "consult", "knowledge build"),
    HeldCase("regenerate the knowledge base with llm prose", "observe", "knowledge build", True),
    HeldCase("search the knowledge docs for logging", "observe", "knowledge search"),
    HeldCase("module map of this project", "observe", "knowledge map"),
]

SESSIONS = [
    HeldCase("anything running in claude right now", "observe", "sessions live"),
    HeldCase("refresh session memory from my transcripts", "observe", "sessions sync"),
    HeldCase("where was I with the parser rewrite", "observe", "sessions recall"),
    HeldCase("grep my transcripts for 'connection reset'", "observe", "sessions search"),
    HeldCase("sessions that are still unfinished here", "observe", "sessions find"),
    HeldCase(f"open session {GHOST_SESSION}", "observe", "sessions show", missing=GHOST_SESSION),
    HeldCase(f"drop session {GHOST_SESSION} from memory", "admin", "sessions forget", missing=GHOST_SESSION),
    HeldCase(f"drop session {GHOST_SESSION} from memory", "edit", "sessions forget", True, missing=GHOST_SESSION),
    HeldCase("get rid of transcripts older than 3 months", "admin", "sessions prune"),
    HeldCase("get rid of transcripts older than 3 months", "consult", "sessions prune", True),
    HeldCase("which sessions would pruning 6 months remove? don't delete yet", "observe", "sessions prune"),
    HeldCase("compact the session database", "admin", "sessions doctor"),
]

RUNS = [
    HeldCase("list recent workflow runs", "observe", "workflow list"),
    HeldCase(f"how did {GHOST_RUN} go", "observe", "workflow status", missing=GHOST_RUN),
    HeldCase(f"land the changes from {GHOST_RUN}", "edit", "workflow apply", missing=GHOST_RUN),
    HeldCase(f"roll back {GHOST_RUN}", "admin", "workflow revert", missing=GHOST_RUN),
    HeldCase(f"roll back {GHOST_RUN}", "edit", "workflow revert", True, missing=GHOST_RUN),
    HeldCase(f"continue {GHOST_RUN}", "consult", "workflow resume", missing=GHOST_RUN),
    HeldCase(f"cancel {GHOST_RUN}", "consult", "workflow stop", missing=GHOST_RUN),
    HeldCase("approve the release gate", "edit", "workflow gate approve", True),
    HeldCase("show me the review template", "observe", "workflow template show"),
    HeldCase("check my flow.workflow.js for errors", "observe", "workflow validate"),
    HeldCase("write a research workflow to research.js", "edit", "workflow generate"),
    HeldCase("draft a workflow that reviews the diff", "observe", "workflow generate"),
    HeldCase("free the disk space old runs use", "admin", "workflow gc"),
    HeldCase("free the disk space old runs use", "edit", "workflow gc", True),
    HeldCase("execute the script review.workflow.js on this repo", "consult", "workflow run"),
    HeldCase("what is the done-1 run waiting on", "observe", "workflow gate list"),
    HeldCase("print the report of the last run", "observe", "workflow report"),
]

LOOPS_TEAMS_PALLIUM = [
    HeldCase("show loops", "observe", "loop list"),
    HeldCase("status of the docs-sync loop", "observe", "loop status", missing="docs-sync"),
    HeldCase("halt loop docs-sync", "consult", "loop stop", missing="docs-sync"),
    HeldCase("list teams", "observe", "team list"),
    HeldCase(f"what is {GHOST_TEAM} doing", "observe", "team status", missing=GHOST_TEAM),
    HeldCase("start an agent team to refactor the parser", "consult", "team start"),
    HeldCase("which version of pallium is this", "observe", "version"),
    HeldCase("diagnose my pallium setup", "observe", "doctor"),
    HeldCase("add pallium to claude code as an mcp server", "admin", "mcp install"),
    HeldCase("write the pallium section into CLAUDE.md", "admin", "agents install"),
    HeldCase("write the pallium section into CLAUDE.md", "edit", "agents install", True),
    HeldCase("bump pallium to the latest release", "consult", "update", True),
    HeldCase("is semantic search for sessions configured", "observe", "sessions embedding status"),
    HeldCase("reset the pallium database, it is corrupted", "admin", "db reset"),
    HeldCase("reindex", "observe", "index"),
]

COMPOUND = [
    HeldCase("list my loops then show the workflow runs", "observe", "loop list", steps=("loop list", "workflow list")),
    HeldCase("explain README.md; then fix the typos in it", "consult", "explain", True, steps=("explain", "start")),
    HeldCase("explain README.md; then fix the typos in it", "edit", "explain", steps=("explain", "start")),
    HeldCase("who calls main and also how risky is src/app.py", "observe", "callers", steps=("callers", "risk")),
    HeldCase(
        "sync sessions then delete sessions older than 1 year",
        "edit",
        "sessions sync",
        True,
        steps=("sessions sync", "sessions prune"),
    ),
]

OFF_TOPIC = [
    HeldCase("what's 9 squared", "admin", None),
    HeldCase("draft a birthday toast for my brother", "admin", None),
    HeldCase("how many ounces in a pound", "admin", None),
    HeldCase("write a short story about a dragon", "admin", None),
    HeldCase("what should I cook tonight", "admin", None),
    HeldCase("explain quantum entanglement simply", "admin", None),
    HeldCase("translate 'thank you' to german", "admin", None),
    HeldCase("compose a tweet about mondays", "admin", None),
    HeldCase("best stretches for back pain", "admin", None),
    HeldCase("what year did the berlin wall fall", "admin", None),
    HeldCase("list five fun facts about octopuses", "admin", None),
    HeldCase("recommend a podcast about history", "admin", None),
    HeldCase("what rhymes with orange", "admin", None),
]

HELDOUT2 = READ_CODE + CHANGE_CODE + KNOWLEDGE_AND_DOCS + SESSIONS + RUNS + LOOPS_TEAMS_PALLIUM + COMPOUND + OFF_TOPIC
