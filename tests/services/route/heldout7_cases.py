"""Route's seventh held-out set: kept apart, scored once at the end by the lead; scored once (below).

Written on 2026-12-02 by an independent hand (a helper session asked to write evaluation sets, not
the engineer who tunes route), from the documentation only: README.md, docs/*.md (docs/tools.md and
the user-facing parts of docs/route.md above all), the product description
(/work/shared/seed/pallium-product-description.txt) and issue #24's text. For format and labelling
conventions only: the docstrings and first cases of `heldout5_cases.py` and `heldout6_cases.py`,
the class `HeldCase` in `heldout_cases.py`, and `scoring.py` (how a case is judged; the fixture).
Route's code, `cases.py`, `tuning_cases.py`, `paraphrases.py` and the rest of the other held-out
files were not read; route and pallium were run on no task. No task is copied from another set
(checked by exact comparison of strings); `heldout8_cases.py`, written at the same time by the same
hand for tuning, shares no task with this one.

The fixture (scoring.py's `populated`, as heldout5/6's): a git repository with README.md, src/app.py
(a function `main`), tests/test_app.py, .gitignore and an uncommitted work.loop.js; one finished
(completed) workflow run `done-1`; one loop `nightly`. No team, no session, no knowledge base yet.
Any other run id, session id (or prefix), team, loop, path, script or symbol a task names is
labelled `missing=` (route must say not found, with the closest, and never substitute it, e.g.
`done-1` for `refactor-db-3`, `nightly` for `weekly-deps`). The ids here are new.

Conventions (heldout5/6's, kept): a review, research or code change is `start` (consult for a review
or research, edit for a change, whatever the files); a preview of a destructive command is labelled
with the destructive capability at the level the preview needs (observe), the deletion itself at
admin; a compound task lists `steps` in order, `capability` is the first step's, and the whole is
`blocked` when any step needs more than the ceiling. Loose words ("clean up", "nuke", "purge",
"wipe", "forget", "reset", "scrub") in a task that deletes nothing of Pallium's are never a
destructive tool. A tool whose level does not drop with `--dry-run` (update, mcp install, agents
install) stays at its level for a dry run. `knowledge build` needs consult unless the task asks for
no model; `workflow generate` needs consult with tailoring and edit with an output file.

Conventions added here:
- A "how do I <do X> with Pallium" question is labelled with X's capability, `agents guide`
  accepted, at a ceiling where neither is blocked (admin for an admin tool).
- "What can you do / which capabilities at which level" is `agents guide` with `route
  capabilities` accepted (docs/conventions.md: route's own tools are not routable).
- A typed-out `pallium route "<task>"` line is labelled by the task it quotes.
- The impact of changing a file ("what breaks / what else to check if I edit src/app.py") is
  `neighbors` (`explain`, `risk` accepted); the impact of changing a symbol is `callers`.
- A team task names its team; every team here is missing (the fixture has none), so the team id
  is the `missing=` name; a member or role noun ("the reviewer") is not labelled missing.
  A team task naming no team is its tool with nothing missing.
- "Tell / ask member M ..." is `team send` (`team member steer` accepted); "steer / redirect M
  first" is `team member steer`.
- "Check / look at / how big is" a destructive tool's object without a deletion word is its
  preview (observe).
- `start --dry-run` tasks sit at ceilings where consult-versus-edit for a dry run cannot decide
  the block.
- Two requests joined only by "and" stay one request unless docs/route.md's separators (`;`,
  `then`, `and also`) join them; compound tasks here use those separators.

Scored once, on main at the merge of issue-24's branch (after set 8's tuning, before any change made
in the light of this set), 2026-12-02 14:25 UTC: right 289/324 (89.2%), blocked 64/68, abstained 23/24,
destructive not asked for 1 ("how do I make pallium forget old sessions?" at admin chose `db reset`),
substituted 0/70. Tuning from then on; not a held-out figure after this.
The copy here was rewrapped by `ruff format` after that score (tasks and labels unchanged; the
writer's file had sha256 f0446a7e...).
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

NO_RUN = "wf-20261019-220501-9e8d7c"
NO_RUN_B = "wf-20260707-070707-a1b2c3"
NO_RUN_NAMED = "refactor-db-3"
NO_SESSION = "c41d8e2f-5b6a-4c3d-9e8f-7a6b5c4d3e21"
NO_SESSION_PREFIX = "7e19ab"
NO_TEAM = "team-a93f07"
NO_TEAM_B = "team-0c4e2d"
NO_LOOP = "weekly-deps"

INSPECT = [
    HeldCase("gimme the rundown on src/app.py", "observe", "explain"),
    HeldCase(
        "OK so my manager dumped this repo on me on a Friday afternoon and I have literally no idea what "
        "src/app.py is for. What does it declare, who imports it, what tests cover it, how risky is it? "
        "I'm not going to edit anything yet, I just need to understand it.",
        "observe",
        "explain",
    ),
    HeldCase("explian src/app.py plz", "consult", "explain"),
    HeldCase("explica-me o ficheiro tests/test_app.py", "observe", "explain"),
    HeldCase("解释一下 src/app.py", "observe", "explain"),
    HeldCase("pallium explain tests/test_app.py --json", "edit", "explain"),
    HeldCase("explain pkg/server/main.go", "admin", "explain", missing="pkg/server/main.go"),
    HeldCase("which functions live in src/app.py", "observe", "symbols"),
    HeldCase("list the classes in src/models/invoice.py", "observe", "symbols", missing="src/models/invoice.py"),
    HeldCase("who calls main?? quick", "consult", "callers"),
    HeldCase("every reference to main, I'm renaming it to run", "observe", "callers"),
    HeldCase("¿quién llama a la función main?", "observe", "callers"),
    HeldCase("谁调用了 main？", "observe", "callers"),
    HeldCase("where is load_settings used", "observe", "callers", missing="load_settings"),
    HeldCase("pallium callers OrderService.submit --kind call", "observe", "callers", missing="OrderService.submit"),
    HeldCase("if I change main's return type, what breaks?", "observe", "callers"),
    HeldCase("what breaks if I change src/app.py", "observe", "neighbors", also=("explain", "risk")),
    HeldCase("files that usually change together with tests/test_app.py", "observe", "neighbors"),
    HeldCase("src/app.py を変更したら他にどのファイルを確認すべき？", "observe", "neighbors", also=("explain",)),
    HeldCase("co-change for lib/parser.rs", "observe", "neighbors", missing="lib/parser.rs"),
    HeldCase("how dangerous is editing src/app.py, low medium or high?", "observe", "risk"),
    HeldCase("Wie riskant ist eine Änderung an tests/test_app.py?", "observe", "risk"),
    HeldCase("risk of src/billing/tax.py", "edit", "risk", missing="src/billing/tax.py"),
    HeldCase("where's the entry point defined? no idea what it's called", "observe", "search"),
    HeldCase("search the code for something like 'return 1'", "observe", "search"),
    HeldCase("cherche où le programme démarre", "observe", "search"),
    HeldCase("churn ranking for the last 12 weeks", "observe", "hotspots"),
    HeldCase("zeig mir die Hotspots seit 2026-01-01", "observe", "hotspots"),
    HeldCase("wat did i change", "observe", "changed-now"),
    HeldCase("is my tree clean?", "observe", "changed-now"),
    HeldCase("brief the reviewer on everything since HEAD~1", "observe", "handoff"),
    HeldCase("wrap up: what should the next agent know about my work on this branch?", "observe", "handoff"),
    HeldCase("why is main returning 1? look in the commit history", "observe", "decisions"),
    HeldCase("reindex everything from zero, full rebuild", "observe", "index"),
    HeldCase("pallium index --untracked", "observe", "index"),
    HeldCase("I need the entire index in one go, every section including checks", "observe", "facts"),
    HeldCase("src/app.py", "observe", "explain"),
    HeldCase("main?", "observe", "callers", also=("search",)),
    HeldCase("the risk of tests/test_app.py", "observe", "risk"),
]

CHANGE_AND_REVIEW = [
    HeldCase("fix the bug in src/app.py", "edit", "start"),
    HeldCase("fix the bug in src/app.py", "consult", "start", True),
    HeldCase("make main return 0 instead of 1", "edit", "start"),
    HeldCase("make main return 0 instead of 1", "observe", "start", True),
    HeldCase("add a test for main in tests/test_app.py", "admin", "start"),
    HeldCase("refactor src/app.py so it's readable", "edit", "start"),
    HeldCase("refactor src/app.py so it's readable", "consult", "start", True),
    HeldCase("review what I changed today, don't touch anything", "consult", "start"),
    HeldCase("review what I changed today, don't touch anything", "observe", "start", True),
    HeldCase("security audit of the code in src/app.py", "consult", "start"),
    HeldCase("keep fixing until `pytest -q` is green", "edit", "start"),
    HeldCase("keep fixing until `pytest -q` is green", "consult", "start", True),
    HeldCase("tests are red, can you sort it out", "edit", "start"),
    HeldCase("clean up the functions in src/app.py", "edit", "start"),
    HeldCase("nuke the dead code in src/app.py", "edit", "start"),
    HeldCase("purge the print statements from src/app.py", "consult", "start", True),
    HeldCase("wipe out the TODOs in tests/test_app.py", "edit", "start"),
    HeldCase("research how other projects structure their CLI entry points and summarize", "consult", "start"),
    HeldCase("research how other projects structure their CLI entry points and summarize", "observe", "start", True),
    HeldCase("arregla los tests que fallan", "edit", "start"),
    HeldCase("Bitte den Fehler in src/app.py beheben", "edit", "start"),
    HeldCase("corrige le test tests/test_app.py", "edit", "start"),
    HeldCase(
        "ugh. three hours on this. the test in tests/test_app.py keeps failing on CI and passing locally, I "
        "am losing my mind. please just make it pass and don't break anything else",
        "edit",
        "start",
    ),
    HeldCase('pallium start "fix the failing test" --test-command "pytest -q"', "edit", "start"),
    HeldCase('pallium start "review the diff for races" --dry-run', "edit", "start"),
    HeldCase("what plan would you run to add logging to main? don't run it", "edit", "start"),
    HeldCase("look over my changes to the workflow code and repair whatever is broken", "consult", "start", True),
    HeldCase("rename main to run everywhere", "edit", "start"),
    HeldCase("fix whatever's wrong with main", "observe", "start", True),
    HeldCase("put type annotations on everything in src/app.py", "consult", "start", True),
    HeldCase("go through my diff and tell me what's wrong with it", "observe", "start", True),
]

KNOWLEDGE = [
    HeldCase("build the knowledge docs w/o any model calls", "observe", "knowledge build"),
    HeldCase("pallium knowledge build", "observe", "knowledge build", True),
    HeldCase("pallium knowledge build", "consult", "knowledge build"),
    HeldCase("build knowledge docs with model prose for the top 5 modules", "consult", "knowledge build"),
    HeldCase("are the claims in the knowledge base actually true? audit them", "consult", "knowledge audit"),
    HeldCase("are the claims in the knowledge base actually true? audit them", "observe", "knowledge audit", True),
    HeldCase("double-check that the knowledge docs aren't making stuff up", "edit", "knowledge audit"),
    HeldCase("which module handles the command line, per the knowledge base", "observe", "knowledge search"),
    HeldCase('knowledge search "entry point"', "observe", "knowledge search"),
    HeldCase(
        "I'm new here — what are the parts of this codebase and how do they depend on each other?",
        "observe",
        "knowledge map",
    ),
    HeldCase(
        "what's the context I need to add config file support to main?",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase(
        "files, tests and checks relevant to making the app print a greeting",
        "consult",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase(
        "context for a change to src/cache/lru.py",
        "observe",
        "knowledge context",
        missing="src/cache/lru.py",
        also=("workflow preflight",),
    ),
    HeldCase("open the Surface section of the src knowledge doc", "observe", "knowledge get"),
    HeldCase("authored decisions about logging?", "observe", "knowledge decisions search", also=("decisions",)),
    HeldCase(
        "record README.md as the decision 'One module only', source ADR-3",
        "edit",
        "knowledge decisions link",
    ),
    HeldCase(
        "record README.md as the decision 'One module only', source ADR-3",
        "observe",
        "knowledge decisions link",
        True,
    ),
    HeldCase(
        "link design/why-sqlite.md as decision 'Why SQLite', source ticket 88",
        "edit",
        "knowledge decisions link",
        missing="design/why-sqlite.md",
    ),
    HeldCase("is knowledge upkeep running for this repo?", "observe", "knowledge maintain status"),
    HeldCase("keep the knowledge base fresh automatically", "admin", "knowledge maintain enable"),
    HeldCase("keep the knowledge base fresh automatically", "consult", "knowledge maintain enable", True),
    HeldCase("stop the background knowledge upkeep here permanently", "admin", "knowledge maintain disable"),
    HeldCase("pause knowledge model spending for now", "admin", "knowledge maintain pause"),
    HeldCase("pause knowledge model spending for now", "edit", "knowledge maintain pause", True),
    HeldCase("resume knowledge upkeep, the quota reset", "admin", "knowledge maintain resume"),
    HeldCase(
        "install the launch agent so upkeep survives me closing the editor", "admin", "knowledge maintain install"
    ),
    HeldCase("retry the knowledge generation step now", "admin", "knowledge maintain retry"),
    HeldCase(
        "build the knowledge base with model-written purpose claims for 3 modules", "observe", "knowledge build", True
    ),
    HeldCase("install the systemd unit for knowledge upkeep", "edit", "knowledge maintain install", True),
    HeldCase("switch off knowledge upkeep in this repo", "consult", "knowledge maintain disable", True),
]

SESSIONS = [
    HeldCase("sync my sessions", "observe", "sessions sync"),
    HeldCase("synchronise les sessions claude", "observe", "sessions sync"),
    HeldCase("where did the last agent stop on the parser rewrite?", "observe", "sessions recall"),
    HeldCase("what did we decide about the retry policy in earlier sessions", "observe", "sessions recall"),
    HeldCase("¿dónde se quedó el trabajo de la migración?", "observe", "sessions recall"),
    HeldCase("why did the deploy fail last week? check past agent chats", "consult", "sessions recall"),
    HeldCase("every session where 'ModuleNotFoundError' came up", "observe", "sessions search"),
    HeldCase("sessions search tests/test_app.py --source codex", "observe", "sessions search"),
    HeldCase("which sessions finished in the last 10 minutes?", "observe", "sessions find"),
    HeldCase("what's unfinished in this repo?", "observe", "sessions find"),
    HeldCase("which agents are running right now", "observe", "sessions live"),
    HeldCase("welche Agenten laufen gerade?", "observe", "sessions live"),
    HeldCase(f"show session {NO_SESSION}", "observe", "sessions show", missing=NO_SESSION),
    HeldCase(f"what was asked in session {NO_SESSION_PREFIX}?", "observe", "sessions show", missing=NO_SESSION_PREFIX),
    HeldCase(
        f"read the transcript of {NO_SESSION} from line 200",
        "observe",
        "sessions read",
        missing=NO_SESSION,
    ),
    HeldCase("is semantic recall set up? embedding status", "observe", "sessions embedding status"),
    HeldCase("test the embedding endpoint", "consult", "sessions embedding check"),
    HeldCase("test the embedding endpoint", "observe", "sessions embedding check", True),
    HeldCase(
        "configure embeddings with openai text-embedding-3-small, key from the keyring",
        "admin",
        "sessions embedding configure",
    ),
    HeldCase(
        "configure embeddings with openai text-embedding-3-small, key from the keyring",
        "edit",
        "sessions embedding configure",
        True,
    ),
    HeldCase("recall is returning garbage, check the session index", "observe", "sessions doctor"),
    HeldCase("compact the session database file, vacuum it", "admin", "sessions doctor"),
    HeldCase(
        "the transcript of the session that touched src/app.py",
        "observe",
        "sessions recall",
        also=("sessions search", "sessions read"),
    ),
]

WORKFLOWS = [
    HeldCase("list my workflow runs", "observe", "workflow list"),
    HeldCase("status of done-1", "observe", "workflow status"),
    HeldCase("how did the last run go?", "observe", "workflow status", also=("workflow report",)),
    HeldCase("report for done-1", "observe", "workflow report"),
    HeldCase("the report of the run that failed", "observe", "workflow report"),
    HeldCase(
        f"give me the verdict and findings of run {NO_RUN_NAMED}", "observe", "workflow report", missing=NO_RUN_NAMED
    ),
    HeldCase("montre-moi le rapport de done-1", "observe", "workflow report"),
    HeldCase("mostre o relatório da execução done-1", "consult", "workflow report"),
    HeldCase(
        "what did the agents in done-1 actually answer? the run's result",
        "observe",
        "workflow read",
        also=("workflow report",),
    ),
    HeldCase("done-1 looks weird, show its lease, base commit and worktrees", "observe", "workflow inspect"),
    HeldCase(f"inspect {NO_RUN_B}", "observe", "workflow inspect", missing=NO_RUN_B),
    HeldCase(f"resume {NO_RUN}", "consult", "workflow resume", missing=NO_RUN),
    HeldCase(f"resume {NO_RUN}", "observe", "workflow resume", True, missing=NO_RUN),
    HeldCase(f"pick up run {NO_RUN_NAMED} where it crashed", "edit", "workflow resume", missing=NO_RUN_NAMED),
    HeldCase(f"stop {NO_RUN_B} it's burning money", "consult", "workflow stop", missing=NO_RUN_B),
    HeldCase(
        f"pause run {NO_RUN_NAMED} for now, I'll continue tomorrow", "consult", "workflow pause", missing=NO_RUN_NAMED
    ),
    HeldCase(
        f"pause run {NO_RUN_NAMED} for now, I'll continue tomorrow",
        "observe",
        "workflow pause",
        True,
        missing=NO_RUN_NAMED,
    ),
    HeldCase("apply done-1's patches", "edit", "workflow apply"),
    HeldCase("apply done-1's patches", "consult", "workflow apply", True),
    HeldCase("bring the patches from done-1 into my tree", "admin", "workflow apply"),
    HeldCase(f"apply the patches from run {NO_RUN_NAMED}", "edit", "workflow apply", missing=NO_RUN_NAMED),
    HeldCase("pull done-1's applied changes back out of my working tree", "admin", "workflow revert"),
    HeldCase("pull done-1's applied changes back out of my working tree", "edit", "workflow revert", True),
    HeldCase(f"revert {NO_RUN}", "admin", "workflow revert", missing=NO_RUN),
    HeldCase("save done-1's script as a workflow called nightly-review", "edit", "workflow save"),
    HeldCase("save done-1's script as a workflow called nightly-review", "consult", "workflow save", True),
    HeldCase("run the workflow script flows/audit.js", "consult", "workflow run", missing="flows/audit.js"),
    HeldCase("run the built-in research workflow on 'how is main tested'", "consult", "workflow run", also=("start",)),
    HeldCase(
        "write me a review workflow script for checking the diff for security bugs",
        "observe",
        "workflow generate",
    ),
    HeldCase(
        "generate a test-fix workflow with test command `pytest -q` and save it to flows/fix.js",
        "edit",
        "workflow generate",
    ),
    HeldCase(
        "generate a test-fix workflow with test command `pytest -q` and save it to flows/fix.js",
        "consult",
        "workflow generate",
        True,
    ),
    HeldCase(
        'pallium workflow generate "research the auth flow" --style research --tailor', "consult", "workflow generate"
    ),
    HeldCase("validate work.loop.js", "observe", "workflow validate"),
    HeldCase(
        "check flows/deploy.js for syntax errors before I run it",
        "observe",
        "workflow validate",
        missing="flows/deploy.js",
    ),
    HeldCase("what templates are built in?", "observe", "workflow template list"),
    HeldCase("show me the test-fix template's source", "observe", "workflow template show"),
    HeldCase("which host calls can a workflow script make?", "observe", "workflow tools list"),
    HeldCase("what did earlier workflow runs decide about caching", "observe", "workflow decisions"),
    HeldCase("gates of done-1", "observe", "workflow gate list"),
    HeldCase(f"approve the deploy gate on {NO_RUN}", "admin", "workflow gate approve", missing=NO_RUN),
    HeldCase(f"approve the deploy gate on {NO_RUN}", "edit", "workflow gate approve", True, missing=NO_RUN),
    HeldCase(
        f"reject gate release on {NO_RUN_B}, the changelog is wrong", "admin", "workflow gate reject", missing=NO_RUN_B
    ),
    HeldCase(
        "scope 'add retries to main' before any agents run: files, risk, checks",
        "observe",
        "workflow preflight",
        also=("knowledge context",),
    ),
    HeldCase("lend this machine's claude to the shared postgres queue", "consult", "worker"),
    HeldCase("lend this machine's claude to the shared postgres queue", "observe", "worker", True),
    HeldCase("run the workflow script flows/audit.js", "observe", "workflow run", True, missing="flows/audit.js"),
    HeldCase(f"stop {NO_RUN_B} it's burning money", "observe", "workflow stop", True, missing=NO_RUN_B),
    HeldCase(
        f"reject gate release on {NO_RUN_B}, the changelog is wrong",
        "consult",
        "workflow gate reject",
        True,
        missing=NO_RUN_B,
    ),
    HeldCase("write a review workflow for my diff and have a model tailor it", "observe", "workflow generate", True),
    HeldCase("bring the patches from done-1 into my tree", "observe", "workflow apply", True),
]

LOOPS = [
    HeldCase("what loops have I got", "observe", "loop list"),
    HeldCase("status of nightly", "observe", "loop status"),
    HeldCase("is the nightly loop stuck or making progress?", "consult", "loop status"),
    HeldCase("muéstrame el estado del loop nightly", "observe", "loop status"),
    HeldCase(f"how is the {NO_LOOP} loop doing", "observe", "loop status", missing=NO_LOOP),
    HeldCase("tick the nightly loop once", "consult", "loop tick"),
    HeldCase("tick the nightly loop once", "observe", "loop tick", True),
    HeldCase(f"pallium loop tick {NO_LOOP}", "consult", "loop tick", missing=NO_LOOP),
    HeldCase("stop the nightly loop, it's done its job", "consult", "loop stop"),
    HeldCase("stop the nightly loop, it's done its job", "observe", "loop stop", True),
    HeldCase("nightly stagnated, I changed the script, let it move again", "consult", "loop reset"),
    HeldCase(f"reset the stagnation counter of {NO_LOOP}", "consult", "loop reset", missing=NO_LOOP),
    HeldCase("nightly stagnated, I changed the script, let it move again", "observe", "loop reset", True),
    HeldCase("start a loop called doc-sweep from work.loop.js", "consult", "loop start"),
    HeldCase(
        "start a loop called lint-forever with loops/lint.loop.js",
        "consult",
        "loop start",
        missing="loops/lint.loop.js",
    ),
    HeldCase("start a loop called doc-sweep from work.loop.js", "observe", "loop start", True),
]

TEAMS = [
    HeldCase("start a team to hunt down why main returns the wrong value", "consult", "team start"),
    HeldCase("start a team to hunt down why main returns the wrong value", "observe", "team start", True),
    HeldCase("spin up a parallel-review team on my diff with a $5 budget", "consult", "team start"),
    HeldCase("what teams exist?", "observe", "team list"),
    HeldCase("which team templates are there", "observe", "team template list"),
    HeldCase("who's on the adversarial-debate template?", "observe", "team template show"),
    HeldCase(f"status of {NO_TEAM}", "observe", "team status", missing=NO_TEAM),
    HeldCase(
        f"what is each member of {NO_TEAM_B} doing and what did it cost", "edit", "team status", missing=NO_TEAM_B
    ),
    HeldCase(f"watch {NO_TEAM} live", "observe", "team watch", missing=NO_TEAM),
    HeldCase(f"read the lead's inbox on {NO_TEAM}", "observe", "team inbox", missing=NO_TEAM),
    HeldCase(f"the diff of the patches {NO_TEAM_B} staged", "observe", "team diff", missing=NO_TEAM_B),
    HeldCase(f"task board for {NO_TEAM}", "observe", "team tasks list", missing=NO_TEAM),
    HeldCase(f"add a reviewer to {NO_TEAM} with role 'check error handling'", "consult", "team spawn", missing=NO_TEAM),
    HeldCase(
        f"add a reviewer to {NO_TEAM} with role 'check error handling'", "observe", "team spawn", True, missing=NO_TEAM
    ),
    HeldCase(
        f"ask the reviewer on {NO_TEAM_B} to look at src/app.py next",
        "consult",
        "team send",
        missing=NO_TEAM_B,
        also=("team member steer",),
    ),
    HeldCase(
        f"steer the fixer on {NO_TEAM} to stop touching tests, before anything else",
        "consult",
        "team member steer",
        missing=NO_TEAM,
    ),
    HeldCase(f"nudge hunter on {NO_TEAM}", "consult", "team nudge", missing=NO_TEAM),
    HeldCase(f"approve the fixer's plan on {NO_TEAM_B}", "consult", "team approve", missing=NO_TEAM_B),
    HeldCase(
        f"reject the fixer's plan on {NO_TEAM_B}: it forgets the migration",
        "consult",
        "team reject",
        missing=NO_TEAM_B,
    ),
    HeldCase(f"restart the crashed member skeptic on {NO_TEAM}", "consult", "team member restart", missing=NO_TEAM),
    HeldCase(f"take advocate out of {NO_TEAM} at its next turn", "consult", "team member stop", missing=NO_TEAM),
    HeldCase(f"let {NO_TEAM} work: run its rounds", "consult", "team run", missing=NO_TEAM),
    HeldCase(f"let {NO_TEAM} work: run its rounds", "observe", "team run", True, missing=NO_TEAM),
    HeldCase(f"stop {NO_TEAM_B}, we're done", "consult", "team stop", missing=NO_TEAM_B),
    HeldCase(f"give {NO_TEAM} another 10 dollars", "consult", "team budget", missing=NO_TEAM),
    HeldCase(f"put 'write a failing test' on {NO_TEAM}'s board", "consult", "team tasks add", missing=NO_TEAM),
    HeldCase(f"apply {NO_TEAM}'s patches to my tree", "edit", "team apply", missing=NO_TEAM),
    HeldCase(f"apply {NO_TEAM}'s patches to my tree", "consult", "team apply", True, missing=NO_TEAM),
    HeldCase(f"undo the team patches {NO_TEAM_B} applied in my tree", "admin", "team revert", missing=NO_TEAM_B),
    HeldCase(f"reattach to {NO_TEAM} after the reboot", "consult", "team attach", missing=NO_TEAM),
    HeldCase(f"join {NO_TEAM_B} as observer-bot", "consult", "team join", missing=NO_TEAM_B),
    HeldCase(
        f"gate {NO_TEAM}'s completed tasks on 'tests must pass'",
        "consult",
        "team gate set",
        missing=NO_TEAM,
    ),
    HeldCase(f"give task 3 on {NO_TEAM} back to the board", "consult", "team tasks release", missing=NO_TEAM),
    HeldCase(f"resume the parked team {NO_TEAM_B}", "consult", "team resume", missing=NO_TEAM_B),
    HeldCase(
        f"ask the reviewer on {NO_TEAM_B} to look at src/app.py next",
        "observe",
        "team send",
        True,
        missing=NO_TEAM_B,
        also=("team member steer",),
    ),
    HeldCase(f"stop {NO_TEAM_B}, we're done", "observe", "team stop", True, missing=NO_TEAM_B),
    HeldCase(f"give {NO_TEAM} another 10 dollars", "observe", "team budget", True, missing=NO_TEAM),
    HeldCase(f"undo the team patches {NO_TEAM_B} applied in my tree", "edit", "team revert", True, missing=NO_TEAM_B),
]

ADOPTION_AND_CORE = [
    HeldCase("is pallium healthy on this machine?", "observe", "doctor"),
    HeldCase("pallium doctor", "observe", "doctor"),
    HeldCase("which pallium version do I have installed", "observe", "version"),
    HeldCase("versión de pallium y del esquema de la base", "observe", "version"),
    HeldCase("update pallium itself please", "admin", "update"),
    HeldCase("update pallium itself please", "edit", "update", True),
    HeldCase("pallium update --dry-run", "consult", "update", True),
    HeldCase("install pallium's MCP server into claude code", "admin", "mcp install"),
    HeldCase("install pallium's MCP server into claude code", "edit", "mcp install", True),
    HeldCase("register pallium as an MCP server in codex", "admin", "mcp install"),
    HeldCase("how do I install you in Claude Code?", "admin", "mcp install", also=("agents guide",)),
    HeldCase("add the pallium block to AGENTS.md", "admin", "agents install"),
    HeldCase("add the pallium block to AGENTS.md", "consult", "agents install", True),
    HeldCase("show me the adoption block so I can paste it myself", "observe", "agents block"),
    HeldCase("I'm an agent, how am I supposed to drive pallium?", "observe", "agents guide"),
    HeldCase("trust this repository's workflows and test commands", "admin", "trust"),
    HeldCase("trust this repository's workflows and test commands", "edit", "trust", True),
    HeldCase("take back the trust I gave this repo", "admin", "trust"),
    HeldCase("register pallium as an MCP server in codex", "consult", "mcp install", True),
    HeldCase("take back the trust I gave this repo", "edit", "trust", True),
]

ROUTE_ITSELF = [
    HeldCase(
        "what can pallium do, and at what authority level?",
        "observe",
        "agents guide",
        also=("route capabilities",),
    ),
    HeldCase("which pallium command shows me who calls main?", "observe", "callers"),
    HeldCase('pallium route "explain src/app.py" --authority observe', "observe", "explain"),
    HeldCase(
        "how do I make pallium forget old sessions?",
        "admin",
        "sessions prune",
        also=("agents guide", "sessions forget"),
    ),
    HeldCase("how do I get you to review my branch", "consult", "start", also=("agents guide",)),
]

DESTRUCTIVE = [
    HeldCase("remove session history older than a year", "admin", "sessions prune"),
    HeldCase("remove session history older than a year", "edit", "sessions prune", True),
    HeldCase(
        "which sessions would go if I pruned everything older than 90d? just preview", "observe", "sessions prune"
    ),
    HeldCase("pallium sessions prune --older-than 30d --confirm", "admin", "sessions prune"),
    HeldCase("pallium sessions prune --older-than 30d --confirm", "consult", "sessions prune", True),
    HeldCase("apague as sessões com mais de 6 meses", "admin", "sessions prune"),
    HeldCase(f"forget session {NO_SESSION}, it had a password in it", "admin", "sessions forget", missing=NO_SESSION),
    HeldCase(
        f"forget session {NO_SESSION}, it had a password in it", "edit", "sessions forget", True, missing=NO_SESSION
    ),
    HeldCase(f"preview forgetting {NO_SESSION_PREFIX}", "observe", "sessions forget", missing=NO_SESSION_PREFIX),
    HeldCase("delete the worktrees and folders of old finished runs", "admin", "workflow gc"),
    HeldCase("delete the worktrees and folders of old finished runs", "edit", "workflow gc", True),
    HeldCase("how much would workflow gc free? dry run", "observe", "workflow gc"),
    HeldCase("Lösche die alten Workflow-Ordner", "admin", "workflow gc"),
    HeldCase("pallium workflow gc --older-than 0 --confirm", "admin", "workflow gc"),
    HeldCase("Lösche die alten Workflow-Ordner", "edit", "workflow gc", True),
    HeldCase("pallium workflow gc --older-than 0 --confirm", "consult", "workflow gc", True),
    HeldCase("apague as sessões com mais de 6 meses", "edit", "sessions prune", True),
    HeldCase(f"revert {NO_RUN}", "edit", "workflow revert", True, missing=NO_RUN),
    HeldCase("the pallium database is corrupt, move it aside and start fresh", "admin", "db reset"),
    HeldCase("the pallium database is corrupt, move it aside and start fresh", "edit", "db reset", True),
    HeldCase("what would db reset move? don't do it", "observe", "db reset"),
    HeldCase("clean up the mess in README.md", "edit", "start"),
    HeldCase("reset main to return 0", "edit", "start"),
    HeldCase("forget the tests, just explain src/app.py", "observe", "explain"),
    HeldCase("scrub the hardcoded value out of src/app.py", "edit", "start"),
    HeldCase("wipe the slate and tell me what's in my working tree", "observe", "changed-now"),
    HeldCase("delete the unused import in tests/test_app.py", "edit", "start"),
    HeldCase("clean up this code a bit", "edit", "start"),
]

COMPOUND = [
    HeldCase(
        "walk me through src/app.py, then write a test covering it",
        "edit",
        "explain",
        steps=("explain", "start"),
    ),
    HeldCase(
        "walk me through src/app.py, then write a test covering it",
        "observe",
        "explain",
        True,
        steps=("explain", "start"),
    ),
    HeldCase(
        "sync sessions, then recall where the billing work stopped",
        "observe",
        "sessions sync",
        steps=("sessions sync", "sessions recall"),
    ),
    HeldCase(
        "show done-1's report; then apply its patches",
        "edit",
        "workflow report",
        steps=("workflow report", "workflow apply"),
    ),
    HeldCase(
        "show done-1's report; then apply its patches",
        "consult",
        "workflow report",
        True,
        steps=("workflow report", "workflow apply"),
    ),
    HeldCase(
        "reindex the repo and also show me the hotspots",
        "observe",
        "index",
        steps=("index", "hotspots"),
    ),
    HeldCase(
        "show all loops and also run one tick of nightly",
        "consult",
        "loop list",
        steps=("loop list", "loop tick"),
    ),
    HeldCase(
        "show all loops and also run one tick of nightly",
        "observe",
        "loop list",
        True,
        steps=("loop list", "loop tick"),
    ),
    HeldCase(
        "who calls main? then rename it to run",
        "edit",
        "callers",
        steps=("callers", "start"),
    ),
    HeldCase(
        "run doctor; then show the version",
        "observe",
        "doctor",
        steps=("doctor", "version"),
    ),
    HeldCase(
        "build the knowledge base without a model, then search it for 'entry point'",
        "observe",
        "knowledge build",
        steps=("knowledge build", "knowledge search"),
    ),
    HeldCase(
        "preview the session prune for 180d; then do it",
        "admin",
        "sessions prune",
        steps=("sessions prune", "sessions prune"),
    ),
    HeldCase(
        f"status of {NO_TEAM} and also apply its patches",
        "edit",
        "team status",
        missing=NO_TEAM,
        steps=("team status", "team apply"),
    ),
    HeldCase(
        "check what changed in my tree, then review it",
        "consult",
        "changed-now",
        steps=("changed-now", "start"),
    ),
    HeldCase(
        "check what changed in my tree, then review it",
        "observe",
        "changed-now",
        True,
        steps=("changed-now", "start"),
    ),
    HeldCase(
        "what does src/app.py do; also, who calls main",
        "observe",
        "explain",
        steps=("explain", "callers"),
    ),
    HeldCase(
        "install the MCP server for codex and also add the block to AGENTS.md",
        "admin",
        "mcp install",
        steps=("mcp install", "agents install"),
    ),
    HeldCase(
        "stop the nightly loop, then show its status",
        "consult",
        "loop stop",
        steps=("loop stop", "loop status"),
    ),
    HeldCase(
        "run doctor; then update pallium",
        "edit",
        "doctor",
        True,
        steps=("doctor", "update"),
    ),
    HeldCase(
        "who calls main? then rename it to run",
        "consult",
        "callers",
        True,
        steps=("callers", "start"),
    ),
]

OFF_TOPIC = [
    HeldCase("what's a good recipe for banana bread", "observe", None),
    HeldCase("write me a cover letter for a backend engineering role", "edit", None),
    HeldCase("what is 17 times 43", "observe", None),
    HeldCase("draft an email to my landlord about the broken boiler", "consult", None),
    HeldCase("tweet something funny about mondays", "observe", None),
    HeldCase("what's the weather in Lisbon tomorrow", "observe", None),
    HeldCase("reset my home wifi router to factory settings", "admin", None),
    HeldCase("update my iphone", "admin", None),
    HeldCase("delete my spotify playlists", "admin", None),
    HeldCase("wipe my old android phone before selling it", "admin", None),
    HeldCase("translate 'good morning' into Italian", "observe", None),
    HeldCase("who won the world cup in 2010", "observe", None),
    HeldCase("帮我写一首关于秋天的诗", "observe", None),
    HeldCase("今日の東京の天気は？", "observe", None),
    HeldCase("recomiéndame una película para esta noche", "observe", None),
    HeldCase("schreib mir einen Geburtstagsgruß für meine Oma", "consult", None),
    HeldCase("plan a 3-day trip to Kyoto", "consult", None),
    HeldCase("how many calories are in an avocado", "observe", None),
    HeldCase("clean up my desktop folder of screenshots", "admin", None),
    HeldCase("give me a workout plan for a beginner", "edit", None),
    HeldCase("is it rude to reply-all?", "observe", None),
    HeldCase("summarize the plot of Hamlet", "observe", None),
    HeldCase("book a table for two at 8pm", "admin", None),
    HeldCase("escreva uma carta de demissão educada", "edit", None),
]

HELDOUT7 = [
    *INSPECT,
    *CHANGE_AND_REVIEW,
    *KNOWLEDGE,
    *SESSIONS,
    *WORKFLOWS,
    *LOOPS,
    *TEAMS,
    *ADOPTION_AND_CORE,
    *ROUTE_ITSELF,
    *DESTRUCTIVE,
    *COMPOUND,
    *OFF_TOPIC,
]
