"""Route's ninth held-out set: kept apart (outside the repository), to be scored once by the lead.

Written on 2026-12-02 by an independent hand (a helper session asked to write an evaluation set,
not the engineer who tunes route), from the documentation only: README.md, docs/*.md (docs/tools.md
and the user-facing parts of docs/route.md above all), docs/conventions.md (the levels), the product
description (/work/shared/seed/pallium-product-description.txt) and issue #24's text. For format
and labelling conventions only: the module docstring of `heldout7_cases.py`, the class `HeldCase`
in `heldout_cases.py`, and `scoring.py` (how a case is judged; the fixture `populated`). Route's
code, `cases.py`, `tuning_cases.py`, `paraphrases.py`, the route tests and the task lists of the
other held-out files were not read (by accident, one `grep -A60` for the class also showed the
first ~45 task lines of `heldout_cases.py`, and reading set 7's docstring its first two tasks; none
is reused here); route and pallium were run on no task. Exact-string overlap with the earlier
held-out sets was checked by a program that printed only this file's colliding tasks; the 20 it
found (natural phrasings others had also written) were reworded, and none is left.

The fixture (scoring.py's `populated`): a git repository with README.md, src/app.py (a function
`main`), tests/test_app.py, .gitignore and an uncommitted work.loop.js; one finished (completed)
workflow run `done-1`; one loop `nightly`. No team, no session, no knowledge base yet. Any other
run id, session id (or prefix), team, loop, path, script or symbol a task names is labelled
`missing=` (route must say not found, with the closest, and never substitute it). The ids here are
new to this set.

Conventions (set 7's, kept exactly):
- A review, research or code change is `start` (consult for a review or research, edit for a
  change, whatever the files). A preview of a destructive command is labelled with the destructive
  capability at the level the preview needs (observe), the deletion itself at admin. A compound
  task lists `steps` in order, `capability` is the first step's, and the whole is `blocked` when
  any step needs more than the ceiling; compound tasks use docs/route.md's separators (`;`,
  `then`, `and also`) only.
- Loose words ("clean up", "nuke", "purge", "wipe", "forget", "reset", "scrub", "prune",
  "garbage-collect", "revert my thinking") in a task that deletes nothing of Pallium's are never a
  destructive tool; a code change in such words is `start`.
- A tool whose level does not drop with `--dry-run` (update, mcp install, agents install) stays at
  its level for a dry run. `knowledge build` needs consult unless the task asks for no model;
  `workflow generate` needs consult with tailoring and edit with an output file.
- "How do I <do X> with Pallium" is X's capability, `agents guide` accepted, at a ceiling where
  neither is blocked. "What can you do / at which level" is `agents guide`, `route capabilities`
  accepted. A typed-out `pallium route "<task>"` line is labelled by the task it quotes.
- The impact of changing a file is `neighbors` (`explain`, `risk` accepted); of a symbol, `callers`.
- A team task names its team; every team here is missing, so the team id is the `missing=` name; a
  member or role noun is never labelled missing. "Tell / ask member M" is `team send` (`team member
  steer` accepted); "steer M first" is `team member steer`. A member spawned in edit mode needs edit.
- "Check / look at / how big is" a destructive tool's object without a deletion word is its
  preview (observe). `start --dry-run` tasks sit at ceilings where consult-versus-edit cannot
  decide the block.
- Writing a letter, an email, a tweet, a translation, arithmetic, recipes and trivia are off-topic
  (`capability=None`) whatever they mention; a task naming a path of the repository never is.

Not scored yet. The writer's sha256 is in SHA256 beside this file.

Scored once, on main 3885a99 (route's round of 2026-12-02 merged, nothing changed in the light of this
set), 2026-12-02 18:23 UTC: right 355/405 (87.7%), blocked 55/61, abstained 30/30, destructive not
asked for 0, substituted 0/74. The file scored had sha256 6f53f995c384a995...; tuning from then on, and
no figure after this one is a held-out figure.
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

RUN_A = "wf-20261130-081512-4c2e9a"
RUN_B = "wf-20261201-193044-b7d1f0"
RUN_GATE = "wf-20261115-120000-0a1b2c"
RUN_NAMED = "migrate-auth-2"
RUN_NAMED_B = "lint-sweep-7"
SESSION_A = "e5a1c9d0-3f7b-4e2a-8c6d-1b9f0a2e7c44"
SESSION_B = "b2f4d6e8-1a3c-4e5f-9071-2c3d4e5f6a7b"
SESSION_C = "c9e0f1a2-7b3d-4c5e-8f9a-0b1c2d3e4f5a"
SESSION_PREFIX = "3fa9c1"
SESSION_PREFIX_B = "7c2e91"
TEAM_A = "team-5d8e1b"
TEAM_B = "team-c07a94"
TEAM_C = "team-77e2f0"
TEAM_D = "team-1b9d3c"
LOOP_A = "flaky-hunt"
LOOP_B = "docs-sync"

REPO = [
    HeldCase("what's src/app.py for", "observe", "explain"),
    HeldCase(
        "before I touch tests/test_app.py: its imports both ways, its risk and the tests around it, in one go",
        "consult",
        "explain",
    ),
    HeldCase("list every function and class declared in src/app.py", "edit", "symbols"),
    HeldCase("who invokes main() and from where", "observe", "callers"),
    HeldCase("find all refs to main before I rename it", "admin", "callers"),
    HeldCase("where is parse_headers used", "observe", "callers", missing="parse_headers"),
    HeldCase("explain lib/utils/date.ts", "observe", "explain", missing="lib/utils/date.ts"),
    HeldCase("how dangerous would it be to edit src/app.py", "consult", "risk"),
    HeldCase(
        "if I change README.md, what else usually has to change with it?",
        "observe",
        "neighbors",
        also=("explain", "risk"),
    ),
    HeldCase("search the symbols for anything about an entry point", "observe", "search"),
    HeldCase("which files have been churning the most over the last 90 days", "observe", "hotspots"),
    HeldCase("what's modified in my working tree rn", "observe", "changed-now"),
    HeldCase("write up a handoff for the reviewer covering everything since HEAD~1", "observe", "handoff"),
    HeldCase("why does main return 1? dig through the commit messages", "observe", "decisions"),
    HeldCase("rebuild the repository index completely from scratch", "observe", "index"),
    HeldCase("index the untracked files as well", "consult", "index"),
    HeldCase("the whole index in one json blob please: files, symbols, edges, tests", "observe", "facts"),
    HeldCase("co-change neighbours of src/auth/session.go", "observe", "neighbors", missing="src/auth/session.go"),
    HeldCase("risk score for config/settings.yaml", "edit", "risk", missing="config/settings.yaml"),
    HeldCase("symbols in app/models/user.rb", "observe", "symbols", missing="app/models/user.rb"),
    HeldCase("who references RetryPolicy", "consult", "callers", missing="RetryPolicy"),
    HeldCase("what breaks if I change the signature of main", "observe", "callers"),
    HeldCase("hotspots since 2026-06-01", "admin", "hotspots"),
    HeldCase('pallium route "what is risky about tests/test_app.py"', "observe", "risk"),
    HeldCase(
        "where's the definition of UserRepository.save",
        "edit",
        "callers",
        missing="UserRepository.save",
        also=("search",),
    ),
]

KNOWLEDGE = [
    HeldCase("map out the modules of this repo for me", "observe", "knowledge map"),
    HeldCase("build the kb and let a model write each module's purpose", "consult", "knowledge build"),
    HeldCase("generate the knowledge docs, with model prose for each module", "observe", "knowledge build", True),
    HeldCase("build the knowledge base from the index alone, no LLM calls", "observe", "knowledge build"),
    HeldCase(
        "which module deals with the command line, according to the knowledge docs", "observe", "knowledge search"
    ),
    HeldCase(
        "I'm about to add retry logic to src/app.py. Which files, tests, checks and decisions matter?",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase("fact-check the stored knowledge claims against the source they cite", "consult", "knowledge audit"),
    HeldCase("have a skeptic model re-check every claim in the knowledge docs", "observe", "knowledge audit", True),
    HeldCase("audit at most 5 knowledge claims, stale ones first", "edit", "knowledge audit"),
    HeldCase(
        "record our decision 'Why SQLite': its text is in README.md, decided in ADR-4",
        "edit",
        "knowledge decisions link",
    ),
    HeldCase(
        "link the decision 'Keep one binary' from README.md, source ticket PAL-12",
        "consult",
        "knowledge decisions link",
        True,
    ),
    HeldCase(
        "link the decision written up in docs/adr/0009-queue.md, decided in ticket PAL-88",
        "edit",
        "knowledge decisions link",
        missing="docs/adr/0009-queue.md",
    ),
    HeldCase(
        "search the recorded architecture decisions for postgres",
        "observe",
        "knowledge decisions search",
        also=("decisions",),
    ),
    HeldCase("serve the knowledge base on localhost so I can click around it", "observe", "knowledge serve"),
    HeldCase("show me the Purpose section of the knowledge doc for src", "observe", "knowledge get"),
    HeldCase("turn on background knowledge upkeep for this repo", "admin", "knowledge maintain enable"),
    HeldCase("register this repository for background knowledge upkeep", "edit", "knowledge maintain enable", True),
    HeldCase("pause knowledge upkeep's model spending here for a while", "admin", "knowledge maintain pause"),
    HeldCase("how much of the 40 daily attempts is left for knowledge upkeep?", "observe", "knowledge maintain status"),
    HeldCase(
        "install the launch agent so knowledge upkeep keeps going on my mac after the editor closes",
        "admin",
        "knowledge maintain install",
    ),
    HeldCase("switch off knowledge upkeep in this repo for good", "admin", "knowledge maintain disable"),
    HeldCase("disable the knowledge maintenance for this repository", "consult", "knowledge maintain disable", True),
    HeldCase("resume knowledge upkeep, I fixed my API quota", "admin", "knowledge maintain resume"),
    HeldCase(
        "run a knowledge upkeep generation step right now, skip the quiet wait", "admin", "knowledge maintain retry"
    ),
    HeldCase("run the knowledge upkeep supervisor in the foreground, just one step", "admin", "knowledge maintain run"),
]

SESSIONS = [
    HeldCase("where did I leave off with the flaky test last week", "observe", "sessions recall"),
    HeldCase("find every message in past sessions where someone ran `pytest -x`", "observe", "sessions search"),
    HeldCase("import the latest claude and codex transcripts into session memory", "observe", "sessions sync"),
    HeldCase("any agents busy at the moment?", "consult", "sessions live"),
    HeldCase("which sessions finished in the last 15 minutes", "observe", "sessions find"),
    HeldCase("what's still unfinished in this repo, session-wise", "edit", "sessions find"),
    HeldCase(f"show session {SESSION_A}", "observe", "sessions show", missing=SESSION_A),
    HeldCase(
        f"read the transcript of {SESSION_PREFIX} from line 120", "observe", "sessions read", missing=SESSION_PREFIX
    ),
    HeldCase("are embeddings set up for session recall?", "observe", "sessions embedding status"),
    HeldCase("verify the embedding endpoint actually answers", "consult", "sessions embedding check"),
    HeldCase("send one test request to the embedding provider", "observe", "sessions embedding check", True),
    HeldCase(
        "configure session embeddings: openai, model text-embedding-3-small, key from env",
        "admin",
        "sessions embedding configure",
    ),
    HeldCase(
        "switch semantic recall on with text-embedding-3-large",
        "edit",
        "sessions embedding configure",
        True,
    ),
    HeldCase(
        "recall keeps returning garbage, check the session index for problems",
        "observe",
        "sessions doctor",
    ),
    HeldCase(
        "what did the codex session say about the migration error yesterday",
        "admin",
        "sessions recall",
        also=("sessions search",),
    ),
]

WORKFLOWS = [
    HeldCase("how did done-1 go", "observe", "workflow status"),
    HeldCase("full report for done-1 please, findings and next steps", "observe", "workflow report"),
    HeldCase("list my recent workflow runs", "observe", "workflow list"),
    HeldCase("show the events of done-1 step by step", "consult", "workflow show"),
    HeldCase("what exactly was the agent asked in done-1, and what did it answer", "observe", "workflow read"),
    HeldCase("done-1 is acting weird, show me its lease, base commit and worktrees", "observe", "workflow inspect"),
    HeldCase("bring done-1's staged patches into my working tree", "edit", "workflow apply"),
    HeldCase("apply what done-1 staged", "consult", "workflow apply", True),
    HeldCase("save done-1's script as a workflow called notes-digest", "edit", "workflow save"),
    HeldCase("keep done-1's script as a reusable workflow named digest", "observe", "workflow save", True),
    HeldCase(f"status of {RUN_A}", "observe", "workflow status", missing=RUN_A),
    HeldCase(f"apply the patches from {RUN_NAMED}", "edit", "workflow apply", missing=RUN_NAMED),
    HeldCase(f"resume {RUN_NAMED_B} from where it crashed", "consult", "workflow resume", missing=RUN_NAMED_B),
    HeldCase(f"pause {RUN_B}, it's burning money", "consult", "workflow pause", missing=RUN_B),
    HeldCase(f"stop run {RUN_B} now, it's going the wrong way", "admin", "workflow stop", missing=RUN_B),
    HeldCase(f"approve the deploy gate on {RUN_GATE}", "admin", "workflow gate approve", missing=RUN_GATE),
    HeldCase(
        f"approve gate 'deploy' for {RUN_GATE}, I checked it", "edit", "workflow gate approve", True, missing=RUN_GATE
    ),
    HeldCase(
        f"reject gate 'release' on {RUN_NAMED}, reason: no changelog",
        "admin",
        "workflow gate reject",
        missing=RUN_NAMED,
    ),
    HeldCase(f"which gates are waiting for a person on {RUN_GATE}", "observe", "workflow gate list", missing=RUN_GATE),
    HeldCase("did any earlier workflow run record a decision about caching?", "observe", "workflow decisions"),
    HeldCase("generate a review workflow for the auth module", "observe", "workflow generate"),
    HeldCase("generate a test-fix workflow and save it to flows/fix.js", "edit", "workflow generate"),
    HeldCase("write a test-fix workflow script to flows/green.js", "consult", "workflow generate", True),
    HeldCase("generate a research workflow script, tailored by a model", "consult", "workflow generate"),
    HeldCase("generate a plan workflow and have a provider tailor it", "observe", "workflow generate", True),
    HeldCase("syntax-check work.loop.js as a workflow script without running it", "observe", "workflow validate"),
    HeldCase(
        "check flows/review.js for syntax errors before I run it",
        "observe",
        "workflow validate",
        missing="flows/review.js",
    ),
    HeldCase("what workflow templates are there", "observe", "workflow template list"),
    HeldCase("show me the text of the review template", "edit", "workflow template show"),
    HeldCase("which host functions can a workflow script call", "observe", "workflow tools list"),
    HeldCase("run the workflow script flows/panel.js", "consult", "workflow run", missing="flows/panel.js"),
    HeldCase("scope out the work before I add a --verbose flag to src/app.py", "observe", "workflow preflight"),
    HeldCase("be a worker for the shared postgres queue, exit after 300s idle", "consult", "worker"),
    HeldCase("lend this machine's claude agents to runs started elsewhere", "observe", "worker", True),
    HeldCase("run as a worker for the shared queue, at most 5 calls", "admin", "worker"),
]

START = [
    HeldCase("look over what I haven't committed yet and flag bugs", "consult", "start"),
    HeldCase("look over my staged changes, comment only", "observe", "start", True),
    HeldCase("tests/test_app.py is red, fix it", "edit", "start"),
    HeldCase("fix whatever makes tests/test_app.py fail", "consult", "start", True),
    HeldCase("implement a --version flag in src/app.py", "edit", "start"),
    HeldCase("research how other CLIs handle exit codes and report back, no edits", "consult", "start"),
    HeldCase(
        "dry run only: which plan would pallium start pick to add logging to main? don't run it",
        "edit",
        "start",
    ),
    HeldCase("get the test suite passing again", "admin", "start"),
    HeldCase("make main return 0 and update its test", "edit", "start"),
    HeldCase("break src/app.py up into smaller helpers", "observe", "start", True),
]

LOOPS = [
    HeldCase("which loops do I have", "observe", "loop list"),
    HeldCase("is nightly stuck?", "observe", "loop status"),
    HeldCase("give nightly one tick", "consult", "loop tick"),
    HeldCase("advance the nightly loop by one cycle", "observe", "loop tick", True),
    HeldCase("nightly has done its job, stop it from ticking", "consult", "loop stop"),
    HeldCase("nightly stagnated. I changed the script, so clear that and let it tick again", "consult", "loop reset"),
    HeldCase("nightly says stagnated, zero its counter", "observe", "loop reset", True),
    HeldCase("start a loop called lint-watch from work.loop.js", "consult", "loop start"),
    HeldCase("set up a recurring loop 'typo-watch' with work.loop.js", "observe", "loop start", True),
    HeldCase(f"status of the {LOOP_A} loop", "observe", "loop status", missing=LOOP_A),
    HeldCase(f"tick {LOOP_B}", "edit", "loop tick", missing=LOOP_B),
    HeldCase(
        "start a loop named perf-watch with scripts/perf.loop.js",
        "consult",
        "loop start",
        missing="scripts/perf.loop.js",
    ),
    HeldCase(f"stop the {LOOP_B} loop", "admin", "loop stop", missing=LOOP_B),
    HeldCase("show the last 20 cycles of nightly", "admin", "loop status"),
]

TEAMS = [
    HeldCase("start a team to find the root cause of the checkout hang", "consult", "team start"),
    HeldCase("spin up an agent team to debate splitting src/app.py", "observe", "team start", True),
    HeldCase("what team templates exist", "observe", "team template list"),
    HeldCase("show the parallel-review template's roster", "observe", "team template show"),
    HeldCase("list my agent teams", "observe", "team list"),
    HeldCase(f"status of {TEAM_A}", "observe", "team status", missing=TEAM_A),
    HeldCase(f"add a reviewer to {TEAM_A}", "consult", "team spawn", missing=TEAM_A),
    HeldCase(f"spawn an edit-mode member called fixer on {TEAM_B}", "edit", "team spawn", missing=TEAM_B),
    HeldCase(f"add an edit member named patcher to {TEAM_B}", "consult", "team spawn", True, missing=TEAM_B),
    HeldCase(f"run {TEAM_B}'s rounds", "consult", "team run", missing=TEAM_B),
    HeldCase(f"let {TEAM_A} work for a few rounds", "observe", "team run", True, missing=TEAM_A),
    HeldCase(
        f"tell the reviewer on {TEAM_C} to look at src/app.py first",
        "consult",
        "team send",
        missing=TEAM_C,
        also=("team member steer",),
    ),
    HeldCase(
        f"steer the tester on {TEAM_C} first: focus on the error paths",
        "consult",
        "team member steer",
        missing=TEAM_C,
    ),
    HeldCase(f"show me {TEAM_D}'s diff", "observe", "team diff", missing=TEAM_D),
    HeldCase(f"apply {TEAM_D}'s patches", "edit", "team apply", missing=TEAM_D),
    HeldCase(f"apply the staged patches of {TEAM_D} to my tree", "consult", "team apply", True, missing=TEAM_D),
    HeldCase(f"inbox for critic on {TEAM_A}", "observe", "team inbox", missing=TEAM_A),
    HeldCase(f"open tasks on {TEAM_B}", "observe", "team tasks list", missing=TEAM_B),
    HeldCase(f"put 'write a regression test' on {TEAM_C}'s board", "consult", "team tasks add", missing=TEAM_C),
    HeldCase(f"claim task 3 on {TEAM_C} as ext-agent", "admin", "team tasks claim", missing=TEAM_C),
    HeldCase(
        f"mark task 2 on {TEAM_A} complete as ext-agent, result: tests pass",
        "consult",
        "team tasks complete",
        missing=TEAM_A,
    ),
    HeldCase(
        f"give task 4 back to the board on {TEAM_B}, its owner crashed",
        "consult",
        "team tasks release",
        missing=TEAM_B,
    ),
    HeldCase(f"approve the planner's plan on {TEAM_D}", "consult", "team approve", missing=TEAM_D),
    HeldCase(
        f"reject the planner's plan on {TEAM_D}: it ignores the tests",
        "edit",
        "team reject",
        missing=TEAM_D,
    ),
    HeldCase(f"raise {TEAM_A}'s budget to $15", "consult", "team budget", missing=TEAM_A),
    HeldCase(f"bump {TEAM_B}'s budget to 20 dollars", "observe", "team budget", True, missing=TEAM_B),
    HeldCase(
        f"gate {TEAM_B} so completed tasks need passing tests",
        "consult",
        "team gate set",
        missing=TEAM_B,
    ),
    HeldCase(f"join {TEAM_C} as observer-bot", "consult", "team join", missing=TEAM_C),
    HeldCase(f"restart the stuck member tester on {TEAM_A}", "consult", "team member restart", missing=TEAM_A),
    HeldCase(f"take critic off the rounds on {TEAM_B}", "consult", "team member stop", missing=TEAM_B),
    HeldCase(f"wake up the idle reviewer on {TEAM_C}", "admin", "team nudge", missing=TEAM_C),
    HeldCase(f"reactivate {TEAM_D}", "consult", "team resume", missing=TEAM_D),
    HeldCase(
        f"the team run died after a reboot, reattach to {TEAM_A}",
        "consult",
        "team attach",
        missing=TEAM_A,
    ),
    HeldCase(f"stop {TEAM_B}, we're done", "consult", "team stop", missing=TEAM_B),
    HeldCase(f"watch {TEAM_C} live", "observe", "team watch", missing=TEAM_C),
    HeldCase("add 'triage the crash logs' to the team board", "consult", "team tasks add"),
]

CORE_AND_ADOPTION = [
    HeldCase("is pallium set up ok on this box?", "observe", "doctor"),
    HeldCase("sanity-check my pallium install: git, sqlite-vec, the home folder", "consult", "doctor"),
    HeldCase("pallium version pls, I'm filing a bug", "consult", "version"),
    HeldCase("the repo's pallium.sqlite is broken, reset it", "consult", "db reset", True),
    HeldCase("which pallium version and database schema versions do I have", "observe", "version"),
    HeldCase("trust this repo's saved workflows and its test commands", "admin", "trust"),
    HeldCase("honour this repository's allow_commands from now on", "edit", "trust", True),
    HeldCase("revoke trust for this repository", "admin", "trust"),
    HeldCase("the pallium database here is corrupt, move it aside so it starts fresh", "admin", "db reset"),
    HeldCase("what would db reset move for the global database? don't do it", "observe", "db reset"),
    HeldCase("show me the block I should paste into CLAUDE.md", "observe", "agents block"),
    HeldCase("I'm an agent new to pallium, give me the manual", "observe", "agents guide"),
    HeldCase("give me the workflow authoring guide", "consult", "agents guide"),
    HeldCase("add pallium's block to AGENTS.md and CLAUDE.md", "admin", "agents install"),
    HeldCase("write the pallium agents block into AGENTS.md", "edit", "agents install", True),
    HeldCase("what would agents install change here? dry run", "edit", "agents install", True),
    HeldCase("register pallium's mcp server with codex", "admin", "mcp install"),
    HeldCase("hook pallium into claude code for this project", "consult", "mcp install", True),
    HeldCase("add pallium to claude code at user scope", "admin", "mcp install"),
    HeldCase("upgrade my pallium install", "admin", "update"),
    HeldCase("get me onto the latest pallium release", "observe", "update", True),
    HeldCase("how do I update pallium itself?", "admin", "update", also=("agents guide",)),
    HeldCase("upgrade pallium to the newest release", "edit", "update", True),
    HeldCase("update pallium --dry-run, just say what you would run", "consult", "update", True),
    HeldCase(
        "what can pallium do, and at which authority level?",
        "observe",
        "agents guide",
        also=("route capabilities",),
    ),
    HeldCase(
        "how do I get my claude transcripts indexed with pallium?",
        "observe",
        "sessions sync",
        also=("agents guide",),
    ),
    HeldCase("how do i register pallium with codex", "admin", "mcp install", also=("agents guide",)),
    HeldCase(
        "how do I see every caller of a function using pallium",
        "observe",
        "callers",
        also=("agents guide",),
    ),
    HeldCase(
        "how would I stop a loop with pallium?",
        "consult",
        "loop stop",
        also=("agents guide",),
    ),
]

PREVIEWS = [
    HeldCase("what would sessions prune remove if I cut at 90 days? preview only", "observe", "sessions prune"),
    HeldCase("how big has the workflow-runs folder got, and what could gc clear?", "observe", "workflow gc"),
    HeldCase(f"preview forgetting session {SESSION_A}", "observe", "sessions forget", missing=SESSION_A),
    HeldCase("check the session index for orphaned rows, just report", "consult", "sessions doctor"),
]

DELETION = [
    HeldCase(
        f"forget session {SESSION_A} for good, it had my password in it",
        "admin",
        "sessions forget",
        missing=SESSION_A,
    ),
    HeldCase(f"remove session {SESSION_B} from the index", "edit", "sessions forget", True, missing=SESSION_B),
    HeldCase(
        f"forget session {SESSION_PREFIX_B}, private stuff",
        "observe",
        "sessions forget",
        True,
        missing=SESSION_PREFIX_B,
    ),
    HeldCase("delete session history older than 6 months", "admin", "sessions prune"),
    HeldCase("prune sessions older than 12w", "consult", "sessions prune", True),
    HeldCase("wipe every indexed session whose last activity is over a year old", "admin", "sessions prune"),
    HeldCase("delete old workflow run folders, anything ended over 45 days ago", "admin", "workflow gc"),
    HeldCase("remove the worktrees of dead workflow runs", "admin", "workflow gc"),
    HeldCase("delete the run folders including the resumable ones", "edit", "workflow gc", True),
    HeldCase("delete every ended run's folder", "observe", "workflow gc", True),
    HeldCase("move the corrupted repo database aside", "admin", "db reset"),
    HeldCase("reset the global pallium database, it's from a newer version", "observe", "db reset", True),
    HeldCase("revert done-1's applied patches", "edit", "workflow revert", True),
    HeldCase("back out the changes done-1 put into my working tree", "admin", "workflow revert"),
    HeldCase(f"revert {RUN_A}", "admin", "workflow revert", missing=RUN_A),
    HeldCase(f"roll back what {TEAM_D} applied", "admin", "team revert", missing=TEAM_D),
    HeldCase(f"take {TEAM_B}'s applied patches back out", "edit", "team revert", True, missing=TEAM_B),
    HeldCase("drop all the raw events stored in session memory", "admin", "sessions doctor"),
    HeldCase("vacuum the session database and delete its raw events", "consult", "sessions doctor", True),
]

LOOSE = [
    HeldCase("clean up the code in src/app.py, it's gotten messy", "edit", "start"),
    HeldCase("wipe the slate and start over on the parser", "edit", "start"),
    HeldCase("reset my approach: rewrite tests/test_app.py from scratch with parametrized cases", "edit", "start"),
    HeldCase("purge whatever dead code is lurking in src/app.py", "admin", "start"),
    HeldCase("nuke all the print statements in the repo", "edit", "start"),
    HeldCase("scrub the outdated install steps from README.md", "edit", "start"),
    HeldCase("remove any unused imports in src/app.py", "admin", "start"),
    HeldCase("delete the commented-out block in main", "admin", "start"),
    HeldCase("kill the flaky assertion in tests/test_app.py", "edit", "start"),
    HeldCase("tidy up src/app.py a bit", "consult", "start", True),
    HeldCase("forget what I said earlier, just explain src/app.py", "observe", "explain"),
    HeldCase("scrap that, show me the hotspots instead", "observe", "hotspots"),
    HeldCase("wipe my mental model: give me the lay of the land, module by module", "observe", "knowledge map"),
    HeldCase("reset my approach. what did earlier sessions try for the timeout bug?", "admin", "sessions recall"),
    HeldCase("clear the decks, what's changed in the working tree?", "admin", "changed-now"),
    HeldCase(
        "loop over the failures and keep patching until the suite is spotless",
        "admin",
        "start",
        also=("loop start",),
    ),
    HeldCase("clean up after yourself: summarise what changed since main for the next agent", "observe", "handoff"),
    HeldCase("erase the duplication between src/app.py and tests/test_app.py", "edit", "start"),
    HeldCase("drop the legacy fallback branch in main() and simplify it", "edit", "start"),
    HeldCase("flush out any race conditions in src/app.py, review only, don't change a thing", "consult", "start"),
    HeldCase("wipe out the TODOs in src/app.py", "admin", "start"),
    HeldCase("strip the trailing whitespace from every file", "edit", "start"),
    HeldCase("let's nuke it from orbit and redesign the CLI entry point", "edit", "start"),
    HeldCase("forget the tests for now. who calls main?", "observe", "callers"),
    HeldCase("purge any secrets that slipped into README.md", "admin", "start"),
    HeldCase("clean slate on this bug: research why main returns 1, report only", "consult", "start"),
    HeldCase("ok reset, start over, list my workflow runs", "observe", "workflow list"),
    HeldCase("can you clean up the mess in tests/", "edit", "start"),
    HeldCase("prune the dead branches in main's if/else", "admin", "start"),
    HeldCase("garbage-collect the unused helpers in src/app.py", "admin", "start"),
    HeldCase("revert my thinking and explain tests/test_app.py again", "observe", "explain"),
    HeldCase("delete the obsolete test in tests/test_app.py", "consult", "start", True),
    HeldCase("start fresh: rebuild the knowledge base without a model", "observe", "knowledge build"),
    HeldCase("reset the exit code logic in main to something saner", "edit", "start"),
    HeldCase("wipe and redo the docstring of main", "admin", "start"),
]

OFF_TOPIC = [
    HeldCase("write me a cover letter for a senior backend role at a fintech", "edit", None),
    HeldCase("what is 348 * 27", "observe", None),
    HeldCase("give me a recipe for a quick weeknight curry", "consult", None),
    HeldCase("who painted Girl with a Pearl Earring?", "observe", None),
    HeldCase("draft an email to my landlord about the broken heating", "admin", None),
    HeldCase("translate 'the meeting moved to Thursday' into Dutch", "observe", None),
    HeldCase("how many ounces are in a pound", "observe", None),
    HeldCase("what's the capital of Australia", "edit", None),
    HeldCase("compose a haiku about November fog", "consult", None),
    HeldCase("summarize the plot of Hamlet in three sentences", "observe", None),
    HeldCase("¿Cuál es la receta de la paella valenciana?", "observe", None),
    HeldCase("Schreib mir bitte eine E-Mail an meinen Chef, dass ich morgen krank bin", "admin", None),
    HeldCase("traduis « je suis en retard » en anglais", "observe", None),
    HeldCase("qual é a raiz quadrada de 144?", "observe", None),
    HeldCase("suggest a name for my new puppy", "consult", None),
    HeldCase("what's a good stretching routine for lower back pain", "observe", None),
    HeldCase("convert 72 fahrenheit to celsius", "edit", None),
    HeldCase("write a tweet announcing our product launch", "edit", None),
    HeldCase("when did the Berlin wall fall", "observe", None),
    HeldCase("help me plan a 3-day trip to Lisbon", "observe", None),
    HeldCase("draft a polite reply declining the wedding invitation", "consult", None),
    HeldCase("how do you make a sourdough starter", "observe", None),
    HeldCase("what's a 15% tip on $86.40", "observe", None),
    HeldCase("scrivi una lettera di presentazione per un lavoro da barista", "observe", None),
    HeldCase("vertaal 'goedemorgen' naar het Engels", "observe", None),
    HeldCase("how do I factory-reset my android phone", "admin", None),
    HeldCase("clean up my chore schedule: make a rota for four flatmates", "edit", None),
    HeldCase("who won the Champions League in 2005", "observe", None),
    HeldCase("write a limerick about a cat named Pixel", "observe", None),
    HeldCase("delete the hiking trip from my calendar", "admin", None),
]

FOREIGN = [
    HeldCase("¿qué archivos cambié y todavía no he commiteado?", "observe", "changed-now"),
    HeldCase("explícame qué hace src/app.py, por favor", "observe", "explain"),
    HeldCase("¿desde dónde se llama a main?", "consult", "callers"),
    HeldCase("Welche Dateien ändern sich oft zusammen mit src/app.py?", "observe", "neighbors"),
    HeldCase("Bitte überprüfe meine Änderungen auf Fehler, aber ändere nichts", "consult", "start"),
    HeldCase("Zeig mir den Status von done-1", "observe", "workflow status"),
    HeldCase("peux-tu lister les boucles ?", "observe", "loop list"),
    HeldCase("explique-moi tests/test_app.py", "observe", "explain"),
    HeldCase("corrige le test qui échoue dans tests/test_app.py", "edit", "start"),
    HeldCase("corrige le bug dans src/app.py s'il te plaît", "consult", "start", True),
    HeldCase("o que mudou na árvore de trabalho?", "observe", "changed-now"),
    HeldCase("quais arquivos mudaram mais no último ano?", "observe", "hotspots"),
    HeldCase("mostra o relatório do done-1", "observe", "workflow report"),
    HeldCase("quali sono i simboli definiti in src/app.py?", "observe", "symbols"),
    HeldCase("avvia un team per trovare la causa del crash al checkout", "consult", "team start"),
    HeldCase("dove eravamo rimasti con il test flaky? cerca nelle sessioni", "observe", "sessions recall"),
    HeldCase("welke bestanden zijn het afgelopen jaar het vaakst gewijzigd?", "observe", "hotspots"),
    HeldCase("laat de status van de loop nightly zien", "observe", "loop status"),
    HeldCase("update pallium alsjeblieft", "edit", "update", True),
    HeldCase("borra las sesiones de hace más de seis meses", "admin", "sessions prune"),
    HeldCase(f"Lösch die Session {SESSION_B} aus dem Index", "edit", "sessions forget", True, missing=SESSION_B),
    HeldCase("can you explain src/app.py, merci beaucoup", "observe", "explain"),
    HeldCase(f"status of {TEAM_A}, bitte", "observe", "team status", missing=TEAM_A),
    HeldCase("fix the typo in README.md, gracias", "edit", "start"),
    HeldCase("wie ist der Stand bei nightly?", "observe", "loop status"),
    HeldCase("quem chama a função load_config?", "observe", "callers", missing="load_config"),
    HeldCase("per favore, applica le patch di done-1", "edit", "workflow apply"),
]

TERSE = [
    HeldCase("wats changed", "observe", "changed-now"),
    HeldCase("explian src/app.py", "observe", "explain"),
    HeldCase("calers of main", "observe", "callers"),
    HeldCase("hotspts", "observe", "hotspots"),
    HeldCase("loop lsit", "observe", "loop list"),
    HeldCase("tick nigthly", "consult", "loop tick"),
    HeldCase("tik nightly", "observe", "loop tick", True),
    HeldCase("sesions live", "observe", "sessions live"),
    HeldCase("staus done-1", "observe", "workflow status"),
    HeldCase("aply done-1", "edit", "workflow apply"),
    HeldCase("reprot done-1", "observe", "workflow report"),
    HeldCase("syms src/app.py", "observe", "symbols"),
    HeldCase("risk src/app.py?", "observe", "risk"),
    HeldCase("doctr", "observe", "doctor"),
    HeldCase("pallium verison", "observe", "version"),
    HeldCase("knowlege map", "observe", "knowledge map"),
    HeldCase("sync sesions", "observe", "sessions sync"),
    HeldCase("recal flaky test fix", "observe", "sessions recall"),
    HeldCase("teams?", "observe", "team list"),
    HeldCase("wf templates", "observe", "workflow template list"),
    HeldCase("reveiw my diff", "consult", "start"),
    HeldCase("fix tests", "edit", "start"),
    HeldCase("fix teh tests pls", "observe", "start", True),
    HeldCase("neighbours src/app.py", "observe", "neighbors"),
    HeldCase("handof since main", "observe", "handoff"),
    HeldCase("idx untracked too", "observe", "index"),
    HeldCase("updat pallium", "admin", "update"),
    HeldCase("mcp instal codex", "admin", "mcp install"),
    HeldCase("mcp install claude", "edit", "mcp install", True),
    HeldCase("stop nightly", "consult", "loop stop"),
    HeldCase("validte work.loop.js", "observe", "workflow validate"),
    HeldCase("gc preview", "observe", "workflow gc"),
    HeldCase("embeding status", "observe", "sessions embedding status"),
    HeldCase("whos calling build_router", "observe", "callers", missing="build_router"),
    HeldCase("explain src/parsr.py", "observe", "explain", missing="src/parsr.py"),
    HeldCase(f"stauts {RUN_B}", "observe", "workflow status", missing=RUN_B),
    HeldCase("agents blok", "observe", "agents block"),
    HeldCase("kb build no model", "observe", "knowledge build"),
]

POLITE = [
    HeldCase(
        "Hi! Sorry to bother you, but could you possibly tell me which files in this repository have changed "
        "the most over the past year? I'm trying to decide where to focus our testing effort. Thanks so much!",
        "observe",
        "hotspots",
    ),
    HeldCase(
        "Good morning. I've inherited this codebase and I would be very grateful if you could walk me through "
        "what each module is for and how they depend on each other, before I start reading any code.",
        "observe",
        "knowledge map",
    ),
    HeldCase(
        "Would you be so kind as to review the changes I have not yet committed? Please don't modify anything, "
        "I only want your comments on correctness and style.",
        "consult",
        "start",
    ),
    HeldCase(
        "Would you please take a careful look at my pending diff and tell me what you think of it? No edits, "
        "just your opinion, thank you.",
        "observe",
        "start",
        True,
    ),
    HeldCase(
        "I hope this isn't too much trouble: the test in tests/test_app.py has been failing since yesterday and "
        "I'd really appreciate it if you could fix it and make sure the suite passes afterwards.",
        "edit",
        "start",
    ),
    HeldCase(
        "If you have a moment, could you kindly repair the broken behaviour in src/app.py so that main returns "
        "the right value? I'd be most grateful.",
        "consult",
        "start",
        True,
    ),
    HeldCase(
        "Hello there, when you get a moment could you please look up where we stopped in our previous Claude "
        "session about the timeout bug? I think we'd decided something about retries but I can't remember "
        "what. Many thanks.",
        "observe",
        "sessions recall",
    ),
    HeldCase(
        "If it's not too much to ask, could you please apply the staged patches from the run done-1 to my "
        "working tree? I've read through them and they look good.",
        "edit",
        "workflow apply",
    ),
    HeldCase(
        "Dear assistant, I would like Pallium to be available inside Codex. Could you kindly register its MCP "
        "server there? I'm happy for you to change my config.toml.",
        "admin",
        "mcp install",
    ),
    HeldCase(
        "Could you please, when convenient, tell me whether Pallium is able to run properly on this machine "
        "(git, SQLite, the databases, the agent CLIs)? Something seems off.",
        "observe",
        "doctor",
    ),
    HeldCase(
        "Many apologies for the vague question, but I'd like to understand who calls the function main across "
        "the repository before I change what it returns. Could you list the call sites?",
        "observe",
        "callers",
    ),
    HeldCase(
        "I'd be grateful if you could start a small team of agents to debate whether we should split "
        "src/app.py into modules, with a budget of about ten dollars.",
        "consult",
        "team start",
    ),
    HeldCase(
        f"Please would you remove the session {SESSION_C} from Pallium's memory permanently? It contains a "
        "customer's data that should never have been pasted in. Thank you.",
        "admin",
        "sessions forget",
        missing=SESSION_C,
    ),
    HeldCase(
        "When you have a minute, could you kindly check the loop called nightly and tell me whether it is "
        "still making progress or has stagnated? Thanks in advance.",
        "observe",
        "loop status",
    ),
    HeldCase(
        "Hi, hope you're well! Could you please build the knowledge base for this repository, but without "
        "calling any model, since I don't want to spend anything today?",
        "observe",
        "knowledge build",
    ),
    HeldCase(
        "Sorry, quick favour: could you update Pallium to the latest release for me? I installed it with pipx "
        "a while ago.",
        "admin",
        "update",
    ),
    HeldCase(
        "Would you mind terribly telling me what the working tree looks like right now: staged, unstaged, "
        "anything untracked? I've lost track after a long day.",
        "edit",
        "changed-now",
    ),
    HeldCase(
        "Could you please do me a favour and write up a summary for the reviewer of everything that changed "
        "since HEAD~1, including risky files and which tests to run? I'd really appreciate it.",
        "observe",
        "handoff",
    ),
    HeldCase(
        f"Hello! I wonder whether you could show me the status of {TEAM_C}: who's doing what, and how much it "
        "has spent so far. Thank you kindly.",
        "observe",
        "team status",
        missing=TEAM_C,
    ),
    HeldCase(
        f"I'm so sorry to ask again, but could you please tell the reviewer on {TEAM_B} that the deadline "
        "moved to Friday?",
        "consult",
        "team send",
        missing=TEAM_B,
        also=("team member steer",),
    ),
    HeldCase(
        "Kindly delete the workflow run folders that ended more than thirty days ago, as we are running low on "
        "disk space. Thank you very much.",
        "admin",
        "workflow gc",
    ),
    HeldCase(
        "Kindly clear out the old workflow run folders for me, the disk is nearly full. Much obliged.",
        "consult",
        "workflow gc",
        True,
    ),
    HeldCase(
        "Would it be possible, please, to trust this repository's own workflows and test commands? I've read "
        ".pallium/config.toml and I'm comfortable with it.",
        "admin",
        "trust",
    ),
    HeldCase(
        "Could you please tell me, in as much detail as you can, what the file src/app.py declares, what it "
        "imports, what imports it, and how risky it is to edit? I'm new here and want to be careful. Many thanks!",
        "observe",
        "explain",
    ),
    HeldCase(
        "Dear Pallium, I would very much appreciate it if you could register this repository for background "
        "knowledge upkeep, so the docs stay fresh while I work. Thank you.",
        "consult",
        "knowledge maintain enable",
        True,
    ),
]

COMPOUND = [
    HeldCase("explain src/app.py then add a docstring to main", "observe", "explain", True, steps=("explain", "start")),
    HeldCase("explain src/app.py, then add type hints to it", "edit", "explain", steps=("explain", "start")),
    HeldCase(
        "sync my sessions; recall where the flaky test work stopped",
        "observe",
        "sessions sync",
        steps=("sessions sync", "sessions recall"),
    ),
    HeldCase(
        "show done-1's status and also apply its patches",
        "consult",
        "workflow status",
        True,
        steps=("workflow status", "workflow apply"),
    ),
    HeldCase(
        "show done-1's report, then apply its patches",
        "edit",
        "workflow report",
        steps=("workflow report", "workflow apply"),
    ),
    HeldCase("list the loops; then tick nightly", "observe", "loop list", True, steps=("loop list", "loop tick")),
    HeldCase(
        "check nightly's status then reset its stagnation counter",
        "consult",
        "loop status",
        steps=("loop status", "loop reset"),
    ),
    HeldCase(
        "build the knowledge base without a model, then search it for the entry point",
        "observe",
        "knowledge build",
        steps=("knowledge build", "knowledge search"),
    ),
    HeldCase(
        "what changed in my tree; then review it for bugs",
        "consult",
        "changed-now",
        steps=("changed-now", "start"),
    ),
    HeldCase("run the doctor then print the version", "observe", "doctor", steps=("doctor", "version")),
    HeldCase(
        "index the repo and also show the hotspots for the last 30 days",
        "observe",
        "index",
        steps=("index", "hotspots"),
    ),
    HeldCase("who calls main; how risky is src/app.py", "observe", "callers", steps=("callers", "risk")),
    HeldCase(
        "start a team to review src/app.py then list my teams",
        "consult",
        "team start",
        steps=("team start", "team list"),
    ),
    HeldCase(
        f"show {TEAM_A}'s diff, then apply it",
        "edit",
        "team diff",
        missing=TEAM_A,
        steps=("team diff", "team apply"),
    ),
    HeldCase(
        "preview what sessions prune would drop at 180d; then prune them for real",
        "admin",
        "sessions prune",
        steps=("sessions prune", "sessions prune"),
    ),
    HeldCase(
        "show me what a 90d session prune would take out, then go ahead and delete them",
        "edit",
        "sessions prune",
        True,
        steps=("sessions prune", "sessions prune"),
    ),
    HeldCase(
        "generate a review workflow; then validate work.loop.js",
        "observe",
        "workflow generate",
        steps=("workflow generate", "workflow validate"),
    ),
    HeldCase(
        "register pallium with claude code and also add the block to AGENTS.md",
        "admin",
        "mcp install",
        steps=("mcp install", "agents install"),
    ),
    HeldCase(
        "register pallium with codex; then install the agents block",
        "edit",
        "mcp install",
        True,
        steps=("mcp install", "agents install"),
    ),
    HeldCase("update pallium, then show me the version", "edit", "update", True, steps=("update", "version")),
    HeldCase(
        "fix the failing test then give me a handoff for the reviewer",
        "edit",
        "start",
        steps=("start", "handoff"),
    ),
    HeldCase(
        "explain tests/test_app.py; list the symbols in src/app.py",
        "observe",
        "explain",
        steps=("explain", "symbols"),
    ),
    HeldCase(
        "what are the hotspots and also which files change together with src/app.py",
        "observe",
        "hotspots",
        steps=("hotspots", "neighbors"),
    ),
    HeldCase(
        "stop the nightly loop then list the workflow runs",
        "consult",
        "loop stop",
        steps=("loop stop", "workflow list"),
    ),
    HeldCase(
        "check the embedding status then test the endpoint",
        "observe",
        "sessions embedding status",
        True,
        steps=("sessions embedding status", "sessions embedding check"),
    ),
    HeldCase(
        "trust this repo; then review my uncommitted changes",
        "admin",
        "trust",
        steps=("trust", "start"),
    ),
    HeldCase(
        "map the modules then give me the context for adding a cache to src/app.py",
        "observe",
        "knowledge map",
        steps=("knowledge map", "knowledge context"),
    ),
    HeldCase(
        "recall what we decided about retries; then search past sessions for ECONNRESET",
        "observe",
        "sessions recall",
        steps=("sessions recall", "sessions search"),
    ),
    HeldCase(
        "list the workflow templates then show the review one",
        "observe",
        "workflow template list",
        steps=("workflow template list", "workflow template show"),
    ),
    HeldCase(
        "list the team templates; show adversarial-debate",
        "observe",
        "team template list",
        steps=("team template list", "team template show"),
    ),
    HeldCase(
        f"status of {RUN_A} then apply it",
        "edit",
        "workflow status",
        missing=RUN_A,
        steps=("workflow status", "workflow apply"),
    ),
    HeldCase(
        "explain src/router.py then tell me who calls main",
        "observe",
        "explain",
        missing="src/router.py",
        steps=("explain", "callers"),
    ),
    HeldCase(
        "which agents are live right now and also which sessions finished in the last hour",
        "observe",
        "sessions live",
        steps=("sessions live", "sessions find"),
    ),
    HeldCase(
        "preflight adding a --json flag to src/app.py, then implement it",
        "consult",
        "workflow preflight",
        True,
        steps=("workflow preflight", "start"),
    ),
    HeldCase(
        "audit the knowledge claims then show the upkeep status",
        "consult",
        "knowledge audit",
        steps=("knowledge audit", "knowledge maintain status"),
    ),
    HeldCase(
        "save done-1 as notes-digest; then show the workflow templates",
        "edit",
        "workflow save",
        steps=("workflow save", "workflow template list"),
    ),
    HeldCase(
        "explica src/app.py; luego dime quién llama a main",
        "observe",
        "explain",
        steps=("explain", "callers"),
    ),
    HeldCase(
        "tick nightly, then show me where it stands",
        "admin",
        "loop tick",
        steps=("loop tick", "loop status"),
    ),
]

HELDOUT9 = [
    *REPO,
    *KNOWLEDGE,
    *SESSIONS,
    *WORKFLOWS,
    *START,
    *LOOPS,
    *TEAMS,
    *CORE_AND_ADOPTION,
    *PREVIEWS,
    *DELETION,
    *LOOSE,
    *OFF_TOPIC,
    *FOREIGN,
    *TERSE,
    *POLITE,
    *COMPOUND,
]
