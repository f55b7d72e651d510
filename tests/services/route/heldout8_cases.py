"""Route's eighth held-out set: given to the route engineer for tuning.

First score (2026-12-02T12:56Z, route at commit b0eb6dc, before any change made in its light, scored
once with `python -m tests.services.route.scoring heldout8_cases:HELDOUT8`): right 192/221 (86.9%),
blocked 41/46 of must-block tasks, abstained 16/16 of off-topic tasks, destructive 0 not asked for,
substituted 0 of 49 tasks naming what does not exist. Route is tuned on it since: a tuning set now.

Written on 2026-12-02 by an independent hand (a helper session asked to write evaluation sets, not
the engineer who tunes route), from the documentation only: README.md, docs/*.md (docs/tools.md and
the user-facing parts of docs/route.md above all), the product description
(/work/shared/seed/pallium-product-description.txt) and issue #24's text. For format and labelling
conventions only: the docstrings and first cases of `heldout5_cases.py` and `heldout6_cases.py`,
the class `HeldCase` in `heldout_cases.py`, and `scoring.py` (how a case is judged; the fixture).
Route's code, `cases.py`, `tuning_cases.py`, `paraphrases.py` and the rest of the other held-out
files were not read; route and pallium were run on no task. No task is copied from another set
(checked by exact comparison of strings); `heldout7_cases.py`, written at the same time by the same
hand, is kept outside the repository, scored once at the end, and shares no task with this one.

The fixture (scoring.py's `populated`, as heldout5/6's): a git repository with README.md, src/app.py
(a function `main`), tests/test_app.py, .gitignore and an uncommitted work.loop.js; one finished
(completed) workflow run `done-1`; one loop `nightly`. No team, no session, no knowledge base yet.
Any other run id, session id (or prefix), team, loop, path, script or symbol a task names is
labelled `missing=` (route must say not found, with the closest, and never substitute it, e.g.
`done-1` for `hotfix-login-2`, `nightly` for `lint-sweep`). The ids here are new.

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
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

NO_RUN = "wf-20260930-113344-f00d42"
NO_RUN_B = "wf-20261201-235959-0badc0"
NO_RUN_NAMED = "hotfix-login-2"
NO_SESSION = "0e7f3a91-2c4d-4b8e-a6f5-91d3c7e2b408"
NO_SESSION_PREFIX = "b3c90f"
NO_TEAM = "team-6d21f8"
NO_TEAM_B = "team-e47b05"
NO_LOOP = "lint-sweep"

INSPECT = [
    HeldCase("tell me what src/app.py does", "observe", "explain"),
    HeldCase("whta is tests/test_app.py", "observe", "explain"),
    HeldCase("was macht src/app.py?", "consult", "explain"),
    HeldCase("overview of src/worker/queue.py", "observe", "explain", missing="src/worker/queue.py"),
    HeldCase("symbols in tests/test_app.py", "observe", "symbols"),
    HeldCase("what's defined in src/app.py? just names and signatures", "edit", "symbols"),
    HeldCase("who references main", "observe", "callers"),
    HeldCase("find usages of main before I change its signature", "admin", "callers"),
    HeldCase("qui utilise main ?", "observe", "callers"),
    HeldCase("callers of fetch_user_profile", "observe", "callers", missing="fetch_user_profile"),
    HeldCase("how risky is src/app.py", "observe", "risk"),
    HeldCase("risk for src/api/routes.ts", "observe", "risk", missing="src/api/routes.ts"),
    HeldCase("what else should I check if I edit README.md", "observe", "neighbors", also=("explain",)),
    HeldCase("impact of changing src/app.py", "observe", "neighbors", also=("explain", "risk")),
    HeldCase("where is the code that computes the return value", "observe", "search"),
    HeldCase("top churn files in the last 30 days", "observe", "hotspots"),
    HeldCase("¿qué archivos cambian más a menudo?", "observe", "hotspots"),
    HeldCase("what's modified right now", "observe", "changed-now"),
    HeldCase("summary of my branch for the next agent", "observe", "handoff"),
    HeldCase("why did someone add tests/test_app.py? commit notes please", "observe", "decisions"),
    HeldCase("index this repo", "observe", "index"),
    HeldCase("export the complete index: files, symbols, edges", "observe", "facts"),
    HeldCase(
        "I have a PR review in an hour and I haven't slept, so sorry if this is dumb: which files in "
        "this repo change the most and are imported the most? I want to know where to look hardest.",
        "observe",
        "hotspots",
    ),
    HeldCase("src/app.py 是做什么的？", "observe", "explain"),
]

CHANGE_AND_REVIEW = [
    HeldCase("fix main", "edit", "start"),
    HeldCase("fix main", "consult", "start", True),
    HeldCase("make tests/test_app.py pass", "edit", "start"),
    HeldCase("make tests/test_app.py pass", "observe", "start", True),
    HeldCase("review src/app.py for bugs", "consult", "start"),
    HeldCase("review src/app.py for bugs", "observe", "start", True),
    HeldCase("can you look over my uncommitted stuff? report only", "consult", "start"),
    HeldCase("add error handling to main", "edit", "start"),
    HeldCase("add error handling to main", "consult", "start", True),
    HeldCase("research which test runners would suit this repo", "consult", "start"),
    HeldCase("fix until green: `python -m pytest`", "edit", "start"),
    HeldCase("clean up the code in tests/test_app.py", "edit", "start"),
    HeldCase("repara el fallo en main", "edit", "start"),
    HeldCase("Schreib einen Test für main", "edit", "start"),
    HeldCase(
        "honestly I'm fed up, this thing has been broken since yesterday and nobody knows why. can you just fix it",
        "edit",
        "start",
    ),
    HeldCase('pallium start "add a docstring to main"', "edit", "start"),
    HeldCase('pallium start "add a docstring to main"', "consult", "start", True),
    HeldCase("dry run: what would you do to speed up the tests?", "edit", "start"),
]

KNOWLEDGE = [
    HeldCase("knowledge build --no-model", "observe", "knowledge build"),
    HeldCase("build the knowledge base for this repo", "observe", "knowledge build", True),
    HeldCase("build the knowledge base for this repo", "consult", "knowledge build"),
    HeldCase("audit the knowledge claims", "consult", "knowledge audit"),
    HeldCase("audit the knowledge claims", "observe", "knowledge audit", True),
    HeldCase("search the knowledge docs for 'tests'", "observe", "knowledge search"),
    HeldCase("module map please", "observe", "knowledge map"),
    HeldCase(
        "give me the context I need to make main configurable",
        "observe",
        "knowledge context",
        also=("workflow preflight",),
    ),
    HeldCase(
        "what to read before changing src/db/pool.py",
        "observe",
        "knowledge context",
        missing="src/db/pool.py",
        also=("workflow preflight",),
    ),
    HeldCase("show the History section of the knowledge doc for src", "observe", "knowledge get"),
    HeldCase(
        "search authored decisions for 'python version'", "observe", "knowledge decisions search", also=("decisions",)
    ),
    HeldCase(
        "record tests/test_app.py as the decision 'Test the entry point', source PR-12",
        "edit",
        "knowledge decisions link",
    ),
    HeldCase(
        "record tests/test_app.py as the decision 'Test the entry point', source PR-12",
        "consult",
        "knowledge decisions link",
        True,
    ),
    HeldCase(
        "link notes/adr-0003.md as decision 'Use tomlkit', source ADR-3",
        "edit",
        "knowledge decisions link",
        missing="notes/adr-0003.md",
    ),
    HeldCase("knowledge upkeep status", "observe", "knowledge maintain status"),
    HeldCase("enable knowledge upkeep for this repo", "admin", "knowledge maintain enable"),
    HeldCase("enable knowledge upkeep for this repo", "edit", "knowledge maintain enable", True),
    HeldCase("pause the knowledge upkeep", "admin", "knowledge maintain pause"),
    HeldCase("pause the knowledge upkeep", "consult", "knowledge maintain pause", True),
    HeldCase("take one supervision step of knowledge upkeep in the foreground", "admin", "knowledge maintain run"),
]

SESSIONS = [
    HeldCase("sync sessions", "observe", "sessions sync"),
    HeldCase("where did we stop on the flaky test?", "observe", "sessions recall"),
    HeldCase("what was decided about the logging format last time", "observe", "sessions recall"),
    HeldCase("wo haben wir beim Refactoring aufgehört?", "observe", "sessions recall"),
    HeldCase("all messages mentioning 'segfault'", "observe", "sessions search"),
    HeldCase("which sessions are unfinished here?", "observe", "sessions find"),
    HeldCase("running agents?", "observe", "sessions live"),
    HeldCase("is any codex session stuck right now", "consult", "sessions live"),
    HeldCase(f"show me session {NO_SESSION_PREFIX}", "observe", "sessions show", missing=NO_SESSION_PREFIX),
    HeldCase(f"transcript of {NO_SESSION}", "observe", "sessions read", missing=NO_SESSION),
    HeldCase("embedding status", "observe", "sessions embedding status"),
    HeldCase("check that the embedding key and model work", "consult", "sessions embedding check"),
    HeldCase("check that the embedding key and model work", "observe", "sessions embedding check", True),
    HeldCase(
        "set up semantic recall with text-embedding-3-large",
        "admin",
        "sessions embedding configure",
    ),
    HeldCase(
        "set up semantic recall with text-embedding-3-large",
        "consult",
        "sessions embedding configure",
        True,
    ),
    HeldCase("session search is acting up, diagnose the index", "observe", "sessions doctor"),
]

WORKFLOWS = [
    HeldCase("show my runs", "observe", "workflow list"),
    HeldCase("how's done-1", "observe", "workflow status"),
    HeldCase(f"status of run {NO_RUN_NAMED}", "observe", "workflow status", missing=NO_RUN_NAMED),
    HeldCase("done-1 report --full", "observe", "workflow report"),
    HeldCase(f"report {NO_RUN}", "consult", "workflow report", missing=NO_RUN),
    HeldCase("the outcome of the last run", "observe", "workflow report", also=("workflow status",)),
    HeldCase("read done-1's result", "observe", "workflow read", also=("workflow report",)),
    HeldCase("why won't done-1 resume? debug its record", "observe", "workflow inspect"),
    HeldCase(f"resume run {NO_RUN_NAMED}", "consult", "workflow resume", missing=NO_RUN_NAMED),
    HeldCase(f"resume run {NO_RUN_NAMED}", "observe", "workflow resume", True, missing=NO_RUN_NAMED),
    HeldCase(f"kill {NO_RUN}", "consult", "workflow stop", missing=NO_RUN),
    HeldCase(f"kill {NO_RUN}", "observe", "workflow stop", True, missing=NO_RUN),
    HeldCase(f"pause {NO_RUN_B}, I'll pick it up later", "consult", "workflow pause", missing=NO_RUN_B),
    HeldCase("apply done-1 now", "edit", "workflow apply"),
    HeldCase("apply done-1 now", "observe", "workflow apply", True),
    HeldCase(f"put the patches from {NO_RUN_B} in my tree", "edit", "workflow apply", missing=NO_RUN_B),
    HeldCase("roll back the changes done-1 put into my tree", "admin", "workflow revert"),
    HeldCase("roll back the changes done-1 put into my tree", "consult", "workflow revert", True),
    HeldCase(f"revert run {NO_RUN_NAMED}", "admin", "workflow revert", missing=NO_RUN_NAMED),
    HeldCase(f"revert run {NO_RUN_NAMED}", "edit", "workflow revert", True, missing=NO_RUN_NAMED),
    HeldCase("save done-1 as workflow quick-check for me only", "edit", "workflow save"),
    HeldCase("save done-1 as workflow quick-check for me only", "consult", "workflow save", True),
    HeldCase("run flows/review.js on my diff", "consult", "workflow run", missing="flows/review.js"),
    HeldCase("run flows/review.js on my diff", "observe", "workflow run", True, missing="flows/review.js"),
    HeldCase("generate a research workflow for 'compare CLI libraries'", "observe", "workflow generate"),
    HeldCase(
        "generate a review workflow and write it to flows/review.js",
        "edit",
        "workflow generate",
    ),
    HeldCase(
        "generate a review workflow and write it to flows/review.js",
        "observe",
        "workflow generate",
        True,
    ),
    HeldCase("validate scripts/nightly.js", "observe", "workflow validate", missing="scripts/nightly.js"),
    HeldCase("list workflow templates", "observe", "workflow template list"),
    HeldCase("show the review template", "observe", "workflow template show"),
    HeldCase("host API for workflow scripts, available only", "observe", "workflow tools list"),
    HeldCase("which gates does done-1 have?", "observe", "workflow gate list"),
    HeldCase(f"approve gate ship on {NO_RUN_B}", "admin", "workflow gate approve", missing=NO_RUN_B),
    HeldCase(f"approve gate ship on {NO_RUN_B}", "consult", "workflow gate approve", True, missing=NO_RUN_B),
    HeldCase(
        "preflight for 'make main read a config file'",
        "observe",
        "workflow preflight",
        also=("knowledge context",),
    ),
    HeldCase("run a pallium worker taking codex calls from the queue", "consult", "worker"),
]

LOOPS = [
    HeldCase("list loops pls", "observe", "loop list"),
    HeldCase("how's nightly doing", "observe", "loop status"),
    HeldCase(f"status of loop {NO_LOOP}", "observe", "loop status", missing=NO_LOOP),
    HeldCase("run one cycle of nightly", "consult", "loop tick"),
    HeldCase("run one cycle of nightly", "observe", "loop tick", True),
    HeldCase(f"tick the {NO_LOOP} loop", "consult", "loop tick", missing=NO_LOOP),
    HeldCase("halt nightly for good", "consult", "loop stop"),
    HeldCase("unstick nightly, clear its stagnation", "consult", "loop reset"),
    HeldCase("unstick nightly, clear its stagnation", "observe", "loop reset", True),
    HeldCase("halt nightly for good", "observe", "loop stop", True),
    HeldCase("create a loop named tidy from work.loop.js", "consult", "loop start"),
    HeldCase("create a loop named tidy from work.loop.js", "observe", "loop start", True),
]

TEAMS = [
    HeldCase("start an agent team to find why main is slow", "consult", "team start"),
    HeldCase("start an agent team to find why main is slow", "observe", "team start", True),
    HeldCase("an adversarial-debate team on whether to drop python 3.10", "consult", "team start"),
    HeldCase("list all teams", "observe", "team list"),
    HeldCase("team templates available?", "observe", "team template list"),
    HeldCase(f"team status {NO_TEAM}", "observe", "team status", missing=NO_TEAM),
    HeldCase(f"all mail of {NO_TEAM_B}", "observe", "team inbox", missing=NO_TEAM_B),
    HeldCase(f"what did the members of {NO_TEAM} change? the diffs", "observe", "team diff", missing=NO_TEAM),
    HeldCase(f"open tasks on {NO_TEAM_B}", "observe", "team tasks list", missing=NO_TEAM_B),
    HeldCase(f"spawn a codex member named fixer on {NO_TEAM} in edit mode", "edit", "team spawn", missing=NO_TEAM),
    HeldCase(
        f"tell the skeptic on {NO_TEAM} to focus on src/app.py",
        "consult",
        "team send",
        missing=NO_TEAM,
        also=("team member steer",),
    ),
    HeldCase(
        f"tell the skeptic on {NO_TEAM} to focus on src/app.py",
        "observe",
        "team send",
        True,
        missing=NO_TEAM,
        also=("team member steer",),
    ),
    HeldCase(f"approve fixer's plan on {NO_TEAM}", "consult", "team approve", missing=NO_TEAM),
    HeldCase(f"wake up the idle hunter on {NO_TEAM_B}", "consult", "team nudge", missing=NO_TEAM_B),
    HeldCase(f"restart reviewer on {NO_TEAM_B}", "consult", "team member restart", missing=NO_TEAM_B),
    HeldCase(f"run {NO_TEAM}", "consult", "team run", missing=NO_TEAM),
    HeldCase(f"stop team {NO_TEAM}", "consult", "team stop", missing=NO_TEAM),
    HeldCase(f"raise {NO_TEAM_B}'s budget to $20", "consult", "team budget", missing=NO_TEAM_B),
    HeldCase(f"raise {NO_TEAM_B}'s budget to $20", "observe", "team budget", True, missing=NO_TEAM_B),
    HeldCase(f"add task 'reproduce the hang' to {NO_TEAM_B}", "observe", "team tasks add", True, missing=NO_TEAM_B),
    HeldCase(
        f"spawn a codex member named fixer on {NO_TEAM} in edit mode", "consult", "team spawn", True, missing=NO_TEAM
    ),
    HeldCase(f"add task 'reproduce the hang' to {NO_TEAM_B}", "consult", "team tasks add", missing=NO_TEAM_B),
    HeldCase(f"apply the patches {NO_TEAM_B} staged", "edit", "team apply", missing=NO_TEAM_B),
    HeldCase(f"apply the patches {NO_TEAM_B} staged", "consult", "team apply", True, missing=NO_TEAM_B),
    HeldCase(f"take {NO_TEAM}'s patches out of my tree", "admin", "team revert", missing=NO_TEAM),
    HeldCase(f"take {NO_TEAM}'s patches out of my tree", "edit", "team revert", True, missing=NO_TEAM),
    HeldCase(f"resume team {NO_TEAM_B}", "consult", "team resume", missing=NO_TEAM_B),
    HeldCase("how's my team doing?", "observe", "team status", also=("team list",)),
]

ADOPTION_AND_CORE = [
    HeldCase("doctor", "observe", "doctor"),
    HeldCase("why does every pallium call fail? check the setup", "observe", "doctor"),
    HeldCase("pallium version --json", "observe", "version"),
    HeldCase("upgrade pallium to the latest", "admin", "update"),
    HeldCase("upgrade pallium to the latest", "consult", "update", True),
    HeldCase("mcp install claude --scope user", "admin", "mcp install"),
    HeldCase("mcp install claude --scope user", "edit", "mcp install", True),
    HeldCase("how do I hook you up to codex?", "admin", "mcp install", also=("agents guide",)),
    HeldCase("write the pallium block into CLAUDE.md for me", "admin", "agents install"),
    HeldCase("write the pallium block into CLAUDE.md for me", "edit", "agents install", True),
    HeldCase("print the AGENTS.md block", "observe", "agents block"),
    HeldCase("the agent manual for pallium", "observe", "agents guide"),
    HeldCase("trust this repo, I read its config", "admin", "trust"),
    HeldCase("trust this repo, I read its config", "consult", "trust", True),
]

ROUTE_ITSELF = [
    HeldCase("list everything you can do with levels", "observe", "agents guide", also=("route capabilities",)),
    HeldCase("which pallium tool tells me what changed in my tree?", "observe", "changed-now"),
    HeldCase('pallium route "who calls main"', "observe", "callers"),
    HeldCase(
        "how do I use pallium to find where the last agent stopped?",
        "observe",
        "sessions recall",
        also=("agents guide",),
    ),
]

DESTRUCTIVE = [
    HeldCase("delete sessions older than 6 months", "admin", "sessions prune"),
    HeldCase("delete sessions older than 6 months", "consult", "sessions prune", True),
    HeldCase("preview a prune of sessions older than 12w", "observe", "sessions prune"),
    HeldCase("borra las sesiones de hace más de un año", "admin", "sessions prune"),
    HeldCase("borra las sesiones de hace más de un año", "edit", "sessions prune", True),
    HeldCase(f"forget session {NO_SESSION_PREFIX}", "admin", "sessions forget", missing=NO_SESSION_PREFIX),
    HeldCase(f"forget session {NO_SESSION_PREFIX}", "consult", "sessions forget", True, missing=NO_SESSION_PREFIX),
    HeldCase("pallium sessions doctor --prune-raw-events --confirm", "admin", "sessions doctor"),
    HeldCase("pallium sessions doctor --prune-raw-events --confirm", "edit", "sessions doctor", True),
    HeldCase("garbage-collect old workflow runs", "admin", "workflow gc"),
    HeldCase("garbage-collect old workflow runs", "edit", "workflow gc", True),
    HeldCase("pallium workflow gc --dry-run", "observe", "workflow gc"),
    HeldCase("move the global pallium database aside, it's from a newer version", "admin", "db reset"),
    HeldCase("move the global pallium database aside, it's from a newer version", "consult", "db reset", True),
    HeldCase("pallium db reset", "observe", "db reset"),
    HeldCase("wipe the duplicated code in src/app.py", "edit", "start"),
    HeldCase("purge the flaky sleep from tests/test_app.py", "edit", "start"),
    HeldCase("keep fixing the code until it is clean", "edit", "start"),
    HeldCase("remove the unused variable in main", "edit", "start"),
    HeldCase("scrap that, who calls main", "observe", "callers"),
]

COMPOUND = [
    HeldCase(
        "explain tests/test_app.py then fix it",
        "edit",
        "explain",
        steps=("explain", "start"),
    ),
    HeldCase(
        "explain tests/test_app.py then fix it",
        "consult",
        "explain",
        True,
        steps=("explain", "start"),
    ),
    HeldCase(
        "sync my sessions; then search them for 'timeout'",
        "observe",
        "sessions sync",
        steps=("sessions sync", "sessions search"),
    ),
    HeldCase(
        "status of done-1 and also its gates",
        "observe",
        "workflow status",
        steps=("workflow status", "workflow gate list"),
    ),
    HeldCase(
        "tick nightly, then show me its cycles",
        "consult",
        "loop tick",
        steps=("loop tick", "loop status"),
    ),
    HeldCase(
        "tick nightly, then show me its cycles",
        "observe",
        "loop tick",
        True,
        steps=("loop tick", "loop status"),
    ),
    HeldCase(
        "review done-1's report, then revert its patches",
        "admin",
        "workflow report",
        steps=("workflow report", "workflow revert"),
    ),
    HeldCase(
        "review done-1's report, then revert its patches",
        "edit",
        "workflow report",
        True,
        steps=("workflow report", "workflow revert"),
    ),
    HeldCase(
        "show the module map and also the hotspots",
        "observe",
        "knowledge map",
        steps=("knowledge map", "hotspots"),
    ),
    HeldCase(
        "what changed in my tree; then write the handoff",
        "observe",
        "changed-now",
        steps=("changed-now", "handoff"),
    ),
    HeldCase(
        f"inbox of {NO_TEAM}, then nudge the lead",
        "consult",
        "team inbox",
        missing=NO_TEAM,
        steps=("team inbox", "team nudge"),
    ),
    HeldCase(
        "check pallium's health then upgrade it",
        "admin",
        "doctor",
        steps=("doctor", "update"),
    ),
    HeldCase(
        "check pallium's health then upgrade it",
        "edit",
        "doctor",
        True,
        steps=("doctor", "update"),
    ),
]

OFF_TOPIC = [
    HeldCase("how do I make sourdough starter", "observe", None),
    HeldCase("write a haiku about rain", "observe", None),
    HeldCase("what's 2 to the power of 20", "observe", None),
    HeldCase("draft an email to my team about the offsite", "edit", None),
    HeldCase("post a tweet about our launch", "admin", None),
    HeldCase("update my macbook", "admin", None),
    HeldCase("delete my old photos from google drive", "admin", None),
    HeldCase("what time is it in Sydney", "observe", None),
    HeldCase("cuál es la capital de Australia", "observe", None),
    HeldCase("écris un poème pour ma mère", "consult", None),
    HeldCase("晚饭吃什么好？", "observe", None),
    HeldCase("おすすめの本を教えて", "observe", None),
    HeldCase("clean my kitchen schedule for the week", "edit", None),
    HeldCase("convert 30 miles to kilometres", "observe", None),
    HeldCase("write a cover letter for a nursing job", "consult", None),
    HeldCase("restart my router please", "admin", None),
]

HELDOUT8 = [
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
