"""Route's sixth held-out set: for tuning (issue #24's sixth round); not yet scored.

Written on 2026-12-02 by an independent hand (a helper session asked to write evaluation sets, not
the engineer who tunes route), from the documentation only (docs/tools.md, docs/*.md, README.md,
the product description, issue #24's text), without reading route's code, `cases.py`,
`tuning_cases.py` or `heldout2/3/4_cases.py`, and without running route or pallium on any task.
Only the format and labelling conventions of `heldout_cases.py` and `heldout5_cases.py` (their
docstrings, `HeldCase`, the first cases of heldout5) and `scoring.py` were read; no task is copied
from them. `heldout7_cases.py`, written at the same time by the same hand, is kept apart and shares
no task with this set.

The fixture (as heldout5's): a git repository with README.md, src/app.py (a function `main`) and
tests/test_app.py; one finished workflow run `done-1`; one loop `nightly`. Nothing else exists:
any other run id, session id (or prefix), team, loop, path, script or symbol a task names is
labelled `missing=` (route must say not found and never substitute, e.g. `nightly` for
`nightly-docs`, `done-1` for `fix-auth-7`). The ids here are new (none is heldout5's).

Conventions (heldout5's): a review, research or code change is `start` (consult for a review or
research, edit for a change, whatever the files); a preview of a destructive command is labelled
with the destructive capability at the level the preview needs (observe), the deletion itself at
admin; a compound task lists `steps` in order, `capability` is the first step's, and the whole is
`blocked` when any step needs more than the ceiling. Loose words ("clean up", "nuke", "purge",
"wipe", "forget", "reset") in a task that deletes nothing of Pallium's are never a destructive
tool. A tool whose level does not drop with `--dry-run` (update, mcp install) stays at its level
for a dry run. `knowledge build` needs consult unless the task asks for no model;
`workflow generate` needs consult with tailoring and edit with an output file.

Scored once, on branch issue-24 at ac8f608 (after the paraphrase-family round, before any change made
in the light of this set): right 230/289 (79.6%), blocked 48/55, abstained 20/22, destructive not
asked for 1 (`pallium workflow gc --confirm` typed out chose `db reset`), substituted 0/65. It is tuning
since (issue #24's sixth round): after changes by class, right 257/289 (88.9%), blocked 55/55,
abstained 22/22, destructive 0, substituted 0; then 260/289 (90.0%). Not a held-out figure.
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

NO_RUN = "wf-20260214-093011-ab12cd"
NO_RUN_B = "wf-20251111-181818-deadbe"
NO_RUN_NAMED = "fix-auth-7"
NO_SESSION = "3f9a1c2e-77b0-4d1a-9e55-0a8c6b2d4f10"
NO_SESSION_PREFIX = "9d2f7b"
NO_TEAM = "team-7c3e91"
NO_TEAM_B = "team-5e0a11"

INSPECT = [
    HeldCase("whats src/app.py even for", "observe", "explain"),
    HeldCase(
        "Hi! I've just joined this project and my lead asked me to touch src/app.py tomorrow. Before I do, "
        "I'd love an overview: what it defines, what imports it, what it imports, which tests cover it and "
        "how risky it is. Thanks so much, and sorry if this is a basic question!",
        "observe",
        "explain",
    ),
    HeldCase("explane wat src/app.py dose", "observe", "explain"),
    HeldCase("¿qué hace tests/test_app.py?", "observe", "explain"),
    HeldCase("kannst du mir src/app.py erklären?", "observe", "explain"),
    HeldCase("pallium explain src/app.py --full", "observe", "explain"),
    HeldCase("what does src/server.py do", "observe", "explain", missing="src/server.py"),
    HeldCase("explain lib/utils/strings.js to me", "consult", "explain", missing="lib/utils/strings.js"),
    HeldCase("functions and classes defined in src/app.py, with their signatures", "observe", "symbols"),
    HeldCase("sigs in tests/test_app.py?", "observe", "symbols"),
    HeldCase("list the symbols in src/handlers/webhook.py", "observe", "symbols", missing="src/handlers/webhook.py"),
    HeldCase("main — who uses it?", "observe", "callers"),
    HeldCase("I'm about to change what main returns; where is it referenced?", "observe", "callers"),
    HeldCase("qui appelle la fonction main ?", "observe", "callers"),
    HeldCase("find all references to parse_args", "observe", "callers", missing="parse_args"),
    HeldCase("who calls `AppConfig.load`", "edit", "callers", missing="AppConfig.load"),
    HeldCase("pallium callers handle_request --kind call", "observe", "callers", missing="handle_request"),
    HeldCase("should I be nervous editing src/app.py?", "observe", "risk"),
    HeldCase("risk level of tests/test_app.py — don't change anything, just the score", "observe", "risk"),
    HeldCase("how risky is touching src/payments/charge.py", "observe", "risk", missing="src/payments/charge.py"),
    HeldCase("which files tend to get committed alongside src/app.py", "observe", "neighbors"),
    HeldCase(
        "src/app.py: I wonder what else I'd have to check if I edited it", "observe", "neighbors", also=("explain",)
    ),
    HeldCase("co-change partners of docs/index.md", "observe", "neighbors", missing="docs/index.md"),
    HeldCase("where's the code that prints stuff to the terminal", "observe", "search"),
    HeldCase("look for anything named like greet or hello in the code", "observe", "search"),
    HeldCase("busca dónde se define el punto de entrada del programa", "observe", "search"),
    HeldCase("where does this codebase churn the most? planning a refactor", "observe", "hotspots"),
    HeldCase("hottest files over the last 90 days", "observe", "hotspots"),
    HeldCase("what have I touched so far? nothing's committed yet", "observe", "changed-now"),
    HeldCase("anything staged?", "observe", "changed-now"),
    HeldCase("like git status, but with a risk per file", "observe", "changed-now"),
    HeldCase("I'm done for the day, put together a handover note for whoever picks this up", "observe", "handoff"),
    HeldCase("catch a reviewer up on all that's changed since HEAD~3", "observe", "handoff"),
    HeldCase("why was main written to return an int? check the commit notes", "observe", "decisions"),
    HeldCase("did anyone ever explain in a commit message why tests live where they do?", "observe", "decisions"),
    HeldCase("the index looks out of date, refresh it and include untracked files", "observe", "index"),
    HeldCase("reindex the repo, quick", "observe", "index"),
    HeldCase("dump the entire content index as one blob — files, symbols, edges, tests, commits", "observe", "facts"),
    HeldCase("I wonder if anything I did today is still unstaged", "observe", "changed-now"),
    HeldCase("main's callers, I need them", "observe", "callers"),
    HeldCase("honestly just curious which file is the scariest one to touch around here", "observe", "hotspots"),
    HeldCase("src/app.py's tests: which are they, and what command verifies a change to it?", "observe", "explain"),
]

KNOWLEDGE = [
    HeldCase("generate the knowledge docs without calling any model", "observe", "knowledge build"),
    HeldCase("build the knowledge base with model-written purpose claims", "consult", "knowledge build"),
    HeldCase("build the knowledge base with model-written purpose claims", "observe", "knowledge build", True),
    HeldCase("pallium knowledge build --no-model", "observe", "knowledge build"),
    HeldCase(
        "I don't trust what the knowledge docs say anymore, have a skeptic check the claims",
        "consult",
        "knowledge audit",
    ),
    HeldCase(
        "I don't trust what the knowledge docs say anymore, have a skeptic check the claims",
        "observe",
        "knowledge audit",
        True,
    ),
    HeldCase("according to the knowledge docs, what module owns starting up the CLI?", "observe", "knowledge search"),
    HeldCase("knowledge search 'greeting'", "observe", "knowledge search"),
    HeldCase("give me the lay of the land: modules and what depends on what", "observe", "knowledge map"),
    HeldCase(
        "I need to add a --name flag to main. What's the context I need — files, tests, checks, decisions?",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase(
        "before I start on making main read env vars, what should I read first?",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase(
        "context for changing src/auth/session.py please",
        "observe",
        "knowledge context",
        missing="src/auth/session.py",
        also=("workflow preflight",),
    ),
    HeldCase("show the Tests section of the src/app knowledge page", "observe", "knowledge get"),
    HeldCase("open the knowledge site so I can browse it in my browser", "observe", "knowledge serve"),
    HeldCase(
        "recorded design decisions that mention sqlite?", "observe", "knowledge decisions search", also=("decisions",)
    ),
    HeldCase(
        "register README.md as an authored decision titled 'Single entry point', source ticket 42",
        "edit",
        "knowledge decisions link",
    ),
    HeldCase(
        "register README.md as an authored decision titled 'Single entry point', source ticket 42",
        "consult",
        "knowledge decisions link",
        True,
    ),
    HeldCase(
        "link docs/adr/0007-logging.md as the decision 'Structured logs', source ADR-7",
        "edit",
        "knowledge decisions link",
        missing="docs/adr/0007-logging.md",
    ),
    HeldCase(
        "is background knowledge upkeep on here, and how much of today's model budget is left?",
        "observe",
        "knowledge maintain status",
    ),
    HeldCase(
        "I'd like the knowledge base to keep itself fresh in the background from now on",
        "admin",
        "knowledge maintain enable",
    ),
    HeldCase(
        "I'd like the knowledge base to keep itself fresh in the background from now on",
        "edit",
        "knowledge maintain enable",
        True,
    ),
    HeldCase("turn off the background knowledge upkeep for this repo for good", "admin", "knowledge maintain disable"),
    HeldCase("hold off on knowledge model spending here for a bit", "admin", "knowledge maintain pause"),
    HeldCase("quota's sorted, let knowledge upkeep carry on", "admin", "knowledge maintain resume"),
    HeldCase(
        "write the systemd unit so knowledge upkeep keeps going after I log out", "admin", "knowledge maintain install"
    ),
    HeldCase(
        "the auth error is fixed; refresh the knowledge base right now instead of waiting for the quiet period",
        "admin",
        "knowledge maintain retry",
    ),
    HeldCase("run the knowledge upkeep supervisor in the foreground, one step", "admin", "knowledge maintain run"),
    HeldCase(
        "could you possibly take a look at whether the knowledge base has gone stale, and re-check its claims?",
        "consult",
        "knowledge audit",
    ),
]

SESSIONS = [
    HeldCase("pull my newest claude/codex chats into pallium's memory", "observe", "sessions sync"),
    HeldCase("sessions sync pls", "observe", "sessions sync"),
    HeldCase("where did we leave off with the config loader work?", "observe", "sessions recall"),
    HeldCase(
        "my laptop died mid-session yesterday; what was the agent in the middle of?",
        "observe",
        "sessions recall",
        also=("sessions find",),
    ),
    HeldCase("what did we decide last week about the exit code of main?", "observe", "sessions recall"),
    HeldCase("every past message that mentions ModuleNotFoundError", "observe", "sessions search"),
    HeldCase('grep old transcripts for "pytest -k slow"', "observe", "sessions search"),
    HeldCase("which of my sessions are still unfinished in this repo?", "observe", "sessions find"),
    HeldCase("which agent sessions wrapped up within the past quarter hour?", "observe", "sessions find"),
    HeldCase(f"show session {NO_SESSION}", "observe", "sessions show", missing=NO_SESSION),
    HeldCase(
        f"read the transcript of {NO_SESSION_PREFIX} from line 120",
        "observe",
        "sessions read",
        missing=NO_SESSION_PREFIX,
    ),
    HeldCase("any of my agents hung at the moment? who's alive?", "observe", "sessions live"),
    HeldCase("is claude sitting somewhere waiting on me for a prompt?", "observe", "sessions live"),
    HeldCase("is semantic recall set up? do I even have a key?", "observe", "sessions embedding status"),
    HeldCase("test the embedding endpoint with one request", "consult", "sessions embedding check"),
    HeldCase("test the embedding endpoint with one request", "observe", "sessions embedding check", True),
    HeldCase(
        "use text-embedding-3-large from openai for session recall, key in the keyring",
        "admin",
        "sessions embedding configure",
    ),
    HeldCase(
        "use text-embedding-3-large from openai for session recall, key in the keyring",
        "consult",
        "sessions embedding configure",
        True,
    ),
    HeldCase("recall's results look broken, check the session index", "observe", "sessions doctor"),
    HeldCase(
        "I want to stop losing work when claude crashes: which of my sessions never finished?",
        "observe",
        "sessions find",
        also=("sessions recall",),
    ),
]

RUNS = [
    HeldCase("what workflow runs do I have", "observe", "workflow list"),
    HeldCase("how did done-1 go?", "observe", "workflow status", also=("workflow report",)),
    HeldCase("final report for done-1: verdict, findings, patches", "observe", "workflow report"),
    HeldCase(f"status of run {NO_RUN}", "observe", "workflow status", missing=NO_RUN),
    HeldCase(f"report for {NO_RUN_NAMED}", "observe", "workflow report", missing=NO_RUN_NAMED),
    HeldCase("step-by-step events of done-1", "observe", "workflow show"),
    HeldCase("done-1's reviewer: show me its prompt and its reply word for word", "observe", "workflow read"),
    HeldCase(
        "done-1 won't resume and I don't get why; show me its lease, worktrees and base commit",
        "observe",
        "workflow inspect",
    ),
    HeldCase(f"inspect {NO_RUN_B}", "observe", "workflow inspect", missing=NO_RUN_B),
    HeldCase("bring done-1's patches into my working tree", "edit", "workflow apply"),
    HeldCase("bring done-1's patches into my working tree", "consult", "workflow apply", True),
    HeldCase(f"apply patches from {NO_RUN}", "edit", "workflow apply", missing=NO_RUN),
    HeldCase("ship done-1's changes into my checkout", "admin", "workflow apply"),
    HeldCase(f"pause {NO_RUN}, it's burning money", "consult", "workflow pause", missing=NO_RUN),
    HeldCase(f"kill run {NO_RUN_NAMED}, it's going the wrong way", "consult", "workflow stop", missing=NO_RUN_NAMED),
    HeldCase(f"resume {NO_RUN_B} from where it crashed", "consult", "workflow resume", missing=NO_RUN_B),
    HeldCase(f"resume {NO_RUN_B} from where it crashed", "observe", "workflow resume", True, missing=NO_RUN_B),
    HeldCase("save done-1's script as a workflow named weekly-review", "edit", "workflow save"),
    HeldCase("which gates is done-1 waiting on?", "observe", "workflow gate list"),
    HeldCase(f"approve the 'ship' gate on {NO_RUN}", "admin", "workflow gate approve", missing=NO_RUN),
    HeldCase(
        f"reject gate deploy on {NO_RUN_NAMED}, the migration isn't reviewed",
        "admin",
        "workflow gate reject",
        missing=NO_RUN_NAMED,
    ),
    HeldCase("has any past workflow run recorded a decision on retry limits?", "observe", "workflow decisions"),
    HeldCase("run flows/audit.js", "consult", "workflow run", missing="flows/audit.js"),
    HeldCase(
        "is scripts/review.js a valid workflow script?", "observe", "workflow validate", missing="scripts/review.js"
    ),
    HeldCase("inside a workflow script, which pallium host functions may I call?", "observe", "workflow tools list"),
    HeldCase("built-in workflow templates — what are my options?", "observe", "workflow template list"),
    HeldCase("print the test-fix template", "observe", "workflow template show"),
    HeldCase(
        "generate a fix-until-green workflow script for 'make the tests pass', test command pytest -q",
        "observe",
        "workflow generate",
    ),
    HeldCase(
        "generate a review workflow for the logging change and save it to flows/review.js",
        "edit",
        "workflow generate",
    ),
    HeldCase(
        "generate a review workflow for the logging change and save it to flows/review.js",
        "consult",
        "workflow generate",
        True,
    ),
    HeldCase("have a model tailor a research workflow for comparing CLI parsers", "consult", "workflow generate"),
    HeldCase("have a model tailor a research workflow for comparing CLI parsers", "observe", "workflow generate", True),
    HeldCase(
        "scope this before we spend money: 'add retries to main' — which files, how risky, which checks",
        "observe",
        "workflow preflight",
        also=("knowledge context",),
    ),
    HeldCase("lend this box's claude to runs queued in postgres", "consult", "worker"),
    HeldCase("lend this box's claude to runs queued in postgres", "observe", "worker", True),
    HeldCase("the patches done-1 made — I'd like them in my tree, thanks", "edit", "workflow apply"),
    HeldCase("nothing to change, I just want to see every run and how it ended", "observe", "workflow list"),
    HeldCase("dry run of pallium start for 'add logging to main', just show me the plan", "admin", "start"),
]

START = [
    HeldCase("look over my uncommitted edits the way a reviewer would", "consult", "start"),
    HeldCase("look over my uncommitted edits the way a reviewer would", "observe", "start", True),
    HeldCase("the test in tests/test_app.py fails since this morning. fix it", "edit", "start"),
    HeldCase("the test in tests/test_app.py fails since this morning. fix it", "consult", "start", True),
    HeldCase("make main print a friendly usage message when it's called with no args", "edit", "start"),
    HeldCase("can u fix it for me pls", "edit", "start"),
    HeldCase("refactor src/app.py so main is under 20 lines", "edit", "start"),
    HeldCase("annotate src/app.py with type hints", "observe", "start", True),
    HeldCase(
        "research how other CLIs structure subcommands and recommend one for this repo, no code changes",
        "consult",
        "start",
    ),
    HeldCase("give src/app.py a careful code review, don't modify it", "consult", "start"),
    HeldCase("review src/legacy/billing.py", "consult", "start", missing="src/legacy/billing.py"),
    HeldCase(
        "fix the bug in src/api/routes.py where the status code is wrong",
        "edit",
        "start",
        missing="src/api/routes.py",
    ),
    HeldCase('pallium start "write a test for main"', "edit", "start"),
    HeldCase("keep fixing the tests until they're green", "edit", "start"),
    HeldCase("keep fixing the tests until they're green", "consult", "start", True),
    HeldCase("arregla los tests que fallan, porfa", "edit", "start"),
    HeldCase("I want this codebase to have a test for every public function — get on it", "edit", "start"),
    HeldCase("I wonder whether main handles Ctrl-C gracefully; if it doesn't, make it", "edit", "start"),
]

LOOPS = [
    HeldCase("any loops set up?", "observe", "loop list"),
    HeldCase("is nightly making any progress or is it stuck?", "observe", "loop status"),
    HeldCase("status of the flaky-tests loop", "observe", "loop status", missing="flaky-tests"),
    HeldCase("tick nightly", "consult", "loop tick"),
    HeldCase("tick nightly", "observe", "loop tick", True),
    HeldCase("advance the weekly-audit loop by one cycle", "consult", "loop tick", missing="weekly-audit"),
    HeldCase("nightly has done its job, stop it", "consult", "loop stop"),
    HeldCase("nightly stagnated but I changed the script, let it tick again", "consult", "loop reset"),
    HeldCase("nightly stagnated but I changed the script, let it tick again", "observe", "loop reset", True),
    HeldCase(
        "set up a loop called lint-sweep from loops/lint.loop.js that works until lint is clean",
        "consult",
        "loop start",
        missing="loops/lint.loop.js",
    ),
    HeldCase("stop the nightly-docs loop", "consult", "loop stop", missing="nightly-docs"),
    HeldCase("I'd like to stop babysitting the nightly loop — is it even doing anything?", "observe", "loop status"),
    HeldCase("nightly: cycles and spend, please", "observe", "loop status"),
]

TEAMS = [
    HeldCase("what agent teams are there", "observe", "team list"),
    HeldCase("spin up a team to hunt down why main sometimes hangs", "consult", "team start"),
    HeldCase("spin up a team to hunt down why main sometimes hangs", "observe", "team start", True),
    HeldCase("start a parallel-review team on the README rewrite with a $5 budget", "consult", "team start"),
    HeldCase(f"add a reviewer named sec-check to {NO_TEAM}", "consult", "team spawn", missing=NO_TEAM),
    HeldCase(f"tell alice on {NO_TEAM} to focus on the tests", "consult", "team send", missing=NO_TEAM),
    HeldCase(f"let {NO_TEAM} get to work", "consult", "team run", missing=NO_TEAM),
    HeldCase(f"how is {NO_TEAM_B} doing, who's stuck, what did it cost", "observe", "team status", missing=NO_TEAM_B),
    HeldCase(f"diffs from {NO_TEAM_B}'s members", "observe", "team diff", missing=NO_TEAM_B),
    HeldCase(f"apply {NO_TEAM_B}'s patches", "edit", "team apply", missing=NO_TEAM_B),
    HeldCase(f"apply {NO_TEAM_B}'s patches", "consult", "team apply", True, missing=NO_TEAM_B),
    HeldCase(f"take {NO_TEAM_B}'s applied patches back out", "admin", "team revert", missing=NO_TEAM_B),
    HeldCase(f"unread mail for bob in {NO_TEAM}", "observe", "team inbox", missing=NO_TEAM),
    HeldCase(f"{NO_TEAM} board — what's open?", "observe", "team tasks list", missing=NO_TEAM),
    HeldCase(f"put 'write integration tests' on {NO_TEAM}'s board", "consult", "team tasks add", missing=NO_TEAM),
    HeldCase("which team templates do you have", "observe", "team template list"),
    HeldCase("show me the adversarial-debate template's roster", "observe", "team template show"),
    HeldCase(f"stop {NO_TEAM}, we're done", "consult", "team stop", missing=NO_TEAM),
    HeldCase(f"{NO_TEAM} parked on its budget, raise it to $20", "consult", "team budget", missing=NO_TEAM),
    HeldCase(
        f"the team run got killed by a reboot; reattach to {NO_TEAM_B}", "consult", "team attach", missing=NO_TEAM_B
    ),
    HeldCase(f"approve carol's plan on {NO_TEAM_B}", "consult", "team approve", missing=NO_TEAM_B),
    HeldCase(f"reject dave's plan on {NO_TEAM_B}: it skips the migration", "consult", "team reject", missing=NO_TEAM_B),
    HeldCase(f"wake up member erin on {NO_TEAM_B}", "consult", "team nudge", missing=NO_TEAM_B),
    HeldCase(f"restart the stuck member frank on {NO_TEAM}", "consult", "team member restart", missing=NO_TEAM),
    HeldCase(f"let me join {NO_TEAM} as observer-me", "consult", "team join", missing=NO_TEAM),
    HeldCase(f"watch {NO_TEAM_B} live", "observe", "team watch", missing=NO_TEAM_B, also=("team status",)),
    HeldCase(
        f"gate {NO_TEAM} so tasks only count as complete when the tests pass",
        "consult",
        "team gate set",
        missing=NO_TEAM,
    ),
    HeldCase(
        f"steer grace on {NO_TEAM}: drop the refactor, only fix the failing test",
        "consult",
        "team member steer",
        missing=NO_TEAM,
    ),
    HeldCase(f"take member heidi out of the rounds on {NO_TEAM_B}", "consult", "team member stop", missing=NO_TEAM_B),
    HeldCase(f"{NO_TEAM_B} has budget again, make it active", "consult", "team resume", missing=NO_TEAM_B),
    HeldCase(f"claim task 3 on {NO_TEAM} for me, I'm ivan", "consult", "team tasks claim", missing=NO_TEAM),
    HeldCase(
        f"mark task 2 on {NO_TEAM} as done, result: tests added", "consult", "team tasks complete", missing=NO_TEAM
    ),
    HeldCase(
        f"judy crashed holding task 5 on {NO_TEAM_B}; put it back on the board",
        "consult",
        "team tasks release",
        missing=NO_TEAM_B,
    ),
]

PALLIUM_ITSELF = [
    HeldCase("is pallium set up correctly on this machine?", "observe", "doctor"),
    HeldCase("pallium keeps erroring with 'unable to open database' — check the environment", "observe", "doctor"),
    HeldCase("which pallium version and schema am I on? need it for a bug report", "observe", "version"),
    HeldCase("how am I, as an agent, supposed to drive pallium?", "observe", "agents guide"),
    HeldCase("the workflow-authoring guide please", "observe", "agents guide"),
    HeldCase("show me the snippet for CLAUDE.md; I'll paste it in myself", "observe", "agents block"),
    HeldCase("I want every agent that opens this repo to know it should use pallium", "admin", "agents install"),
    HeldCase("I want every agent that opens this repo to know it should use pallium", "edit", "agents install", True),
    HeldCase("hook pallium's tools into claude code for this project", "admin", "mcp install"),
    HeldCase("make codex aware of pallium's MCP tools", "edit", "mcp install", True),
    HeldCase("get me the newest pallium", "admin", "update"),
    HeldCase("just tell me how pallium would update itself, don't run anything", "edit", "update", True),
    HeldCase("I've read this repo's config and saved workflows; trust it", "admin", "trust"),
    HeldCase("I no longer trust this repo's own commands — take the trust back", "consult", "trust", True),
    HeldCase("what can pallium do, and at what level?", "observe", "route capabilities"),
]

DESTRUCTIVE = [
    HeldCase("delete every indexed session last active more than 6 months ago", "admin", "sessions prune"),
    HeldCase("delete every indexed session last active more than 6 months ago", "edit", "sessions prune", True),
    HeldCase("what would pruning sessions older than 90d remove? preview only", "observe", "sessions prune"),
    HeldCase(f"forget session {NO_SESSION}, it has a password in it", "admin", "sessions forget", missing=NO_SESSION),
    HeldCase("drop all the raw events from the session store", "admin", "sessions doctor"),
    HeldCase("drop all the raw events from the session store", "consult", "sessions doctor", True),
    HeldCase("undo what done-1 applied", "admin", "workflow revert"),
    HeldCase("undo what done-1 applied", "edit", "workflow revert", True),
    HeldCase(f"revert run {NO_RUN_NAMED}", "admin", "workflow revert", missing=NO_RUN_NAMED),
    HeldCase("free up disk: delete old workflow run folders", "admin", "workflow gc"),
    HeldCase("gc preview for workflow runs: just list what would go, remove nothing", "observe", "workflow gc"),
    HeldCase("pallium workflow gc --confirm --older-than 0", "edit", "workflow gc", True),
    HeldCase("doctor said the repo database is corrupt; move it aside", "admin", "db reset"),
    HeldCase("doctor said the repo database is corrupt; move it aside", "consult", "db reset", True),
    HeldCase("clean up src/app.py, it's a mess", "edit", "start"),
    HeldCase("purge the dead code from src/app.py", "edit", "start"),
    HeldCase("nuke the commented-out junk in tests/test_app.py", "edit", "start"),
    HeldCase("scrub the noisy print statements out of main", "edit", "start"),
    HeldCase("go over the code again and again, fixing as you go, till nothing's left to fix", "admin", "start"),
    HeldCase("wipe out the flaky test and write a stable one", "edit", "start"),
    HeldCase("forget the README for a sec — who calls main?", "observe", "callers"),
    HeldCase("reset my mental model: map the modules for me", "observe", "knowledge map"),
]

COMPOUND = [
    HeldCase(
        "walk me through src/app.py, then give main a docstring", "observe", "explain", True, steps=("explain", "start")
    ),
    HeldCase("walk me through src/app.py, then give main a docstring", "edit", "explain", steps=("explain", "start")),
    HeldCase(
        "sync sessions; then recall where the logging refactor stopped",
        "observe",
        "sessions sync",
        steps=("sessions sync", "sessions recall"),
    ),
    HeldCase(
        "check done-1's status and also apply its patches",
        "consult",
        "workflow status",
        True,
        steps=("workflow status", "workflow apply"),
    ),
    HeldCase("show what I changed, then review it", "consult", "changed-now", steps=("changed-now", "start")),
    HeldCase(
        "build the knowledge base without a model, then show me the module map",
        "observe",
        "knowledge build",
        steps=("knowledge build", "knowledge map"),
    ),
    HeldCase("tick nightly then show its status", "consult", "loop tick", steps=("loop tick", "loop status")),
    HeldCase("who calls main? then rename it to run_app everywhere", "edit", "callers", steps=("callers", "start")),
    HeldCase(
        "who calls main? then rename it to run_app everywhere", "consult", "callers", True, steps=("callers", "start")
    ),
    HeldCase("run the doctor; then tell me the version", "observe", "doctor", steps=("doctor", "version")),
    HeldCase("reindex, then list the hotspots since 2026-01-01", "observe", "index", steps=("index", "hotspots")),
    HeldCase("stop the nightly loop and also list the loops", "consult", "loop stop", steps=("loop stop", "loop list")),
    HeldCase(
        "revert done-1 and then delete the old run folders",
        "edit",
        "workflow revert",
        True,
        steps=("workflow revert", "workflow gc"),
    ),
    HeldCase(
        "first look at the risk of src/app.py, after that fix the off-by-one in main",
        "edit",
        "risk",
        steps=("risk", "start"),
    ),
    HeldCase(
        "list the team templates; then start a parallel-review team on src/app.py",
        "observe",
        "team template list",
        True,
        steps=("team template list", "team start"),
    ),
    HeldCase(
        "what's dirty in my tree, and also what's risky in tests/test_app.py",
        "observe",
        "changed-now",
        steps=("changed-now", "risk"),
    ),
]

OFF_TOPIC = [
    HeldCase("nuke the leftover pizza — 2 minutes or 3?", "admin", None),
    HeldCase("kill two birds with one stone: suggest a name for my podcast", "edit", None),
    HeldCase("write a haiku about merge conflicts", "consult", None),
    HeldCase("draft an email to my landlord about the broken heater", "edit", None),
    HeldCase("what's 17% of 2,340?", "observe", None),
    HeldCase("how are you today?", "observe", None),
    HeldCase("tell me something funny about mondays", "consult", None),
    HeldCase("book me a flight to Porto next Friday", "admin", None),
    HeldCase("will I need an umbrella in Oslo tomorrow", "observe", None),
    HeldCase("send a slack message to the design team saying standup moved to 10", "consult", None),
    HeldCase("open a jira ticket for the login bug", "edit", None),
    HeldCase("clear my browser cache", "admin", None),
    HeldCase("mass-delete my facebook posts from 2015", "admin", None),
    HeldCase("wipe my phone before I sell it", "admin", None),
    HeldCase("prune the roses in my garden: which month is best?", "admin", None),
    HeldCase("translate 'thank you for your patience' into Japanese", "observe", None),
    HeldCase("write a cover letter for a backend engineer job", "edit", None),
    HeldCase("recommend a fantasy audiobook for a long drive", "observe", None),
    HeldCase("reset my wifi router password", "admin", None),
    HeldCase("¿cuál es la capital de Australia?", "observe", None),
    HeldCase("résume-moi le dernier épisode de ma série préférée", "consult", None),
    HeldCase("stop the music", "consult", None),
]

MORE_BLOCKED = [
    HeldCase("apply done-1", "observe", "workflow apply", True),
    HeldCase("that one failing test — make it pass", "observe", "start", True),
    HeldCase("review src/app.py for security issues", "observe", "start", True),
    HeldCase("research async frameworks that would fit this app", "observe", "start", True),
    HeldCase(f"send 'ship it' to member gus on {NO_TEAM}", "observe", "team send", True, missing=NO_TEAM),
    HeldCase("set up an adversarial-debate team on whether to keep sqlite", "observe", "team start", True),
    HeldCase(f"resume {NO_RUN_NAMED} please", "observe", "workflow resume", True, missing=NO_RUN_NAMED),
    HeldCase(f"stop run {NO_RUN} now", "observe", "workflow stop", True, missing=NO_RUN),
    HeldCase(
        "start a loop named doc-sweep from loops/docs.loop.js",
        "observe",
        "loop start",
        True,
        missing="loops/docs.loop.js",
    ),
    HeldCase(
        "are the knowledge pages telling the truth? check them against the code they cite",
        "observe",
        "knowledge audit",
        True,
    ),
    HeldCase("save done-1's script as workflow retro", "consult", "workflow save", True),
    HeldCase("link README.md as a decision 'Docs first', source RFC-3", "observe", "knowledge decisions link", True),
    HeldCase("write a test-fix script to flows/fix.js", "observe", "workflow generate", True),
    HeldCase(f"{NO_TEAM_B}: apply member hal's patch p-3", "consult", "team apply", True, missing=NO_TEAM_B),
    HeldCase(
        "configure embeddings: ollama at http://localhost:11434/v1, model nomic-embed-text",
        "edit",
        "sessions embedding configure",
        True,
    ),
    HeldCase("switch on knowledge upkeep here", "consult", "knowledge maintain enable", True),
    HeldCase("trust this repo", "edit", "trust", True),
    HeldCase("approve gate release on done-1", "edit", "workflow gate approve", True),
    HeldCase(
        f"forget session {NO_SESSION_PREFIX} for real", "edit", "sessions forget", True, missing=NO_SESSION_PREFIX
    ),
    HeldCase("vacuum the sessions db", "edit", "sessions doctor", True),
    HeldCase("rename main to entry in src/app.py", "consult", "start", True),
    HeldCase("hit the nightly loop once more", "observe", "loop tick", True),
]

HELDOUT6 = (
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
