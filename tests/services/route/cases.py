"""Route's evaluation set: tasks as people and agents write them, with the capability each should get.

Each case is (task, ceiling, capability or None, blocked). `None` means no capability fits and
nothing may run. The set is scored as a whole by test_eval.py; the state-dependent cases, which
need runs, loops or an index built in a temporary repository, live in test_eval_state.py.
"""

from __future__ import annotations

from typing import NamedTuple


class Case(NamedTuple):
    task: str
    ceiling: str
    capability: str | None
    blocked: bool = False


PLAIN = [
    Case("find all running agent sessions", "observe", "sessions live"),
    Case("fix the checkout race and verify it", "edit", "start"),
    Case("review my workflow changes and fix what's broken", "edit", "start"),
    Case("who calls main", "observe", "callers"),
    Case("explain src/app.py", "observe", "explain"),
    Case("what symbols does src/app.py define", "observe", "symbols"),
    Case("search the code for the entry point", "observe", "search"),
    Case("how risky is it to change src/app.py", "observe", "risk"),
    Case("which files usually change together with src/app.py", "observe", "neighbors"),
    Case("why did we choose sqlite for storage", "observe", "decisions"),
    Case("prepare a handoff since origin/main", "observe", "handoff"),
    Case("what changed in the working tree", "observe", "changed-now"),
    Case("index this repository", "observe", "index"),
    Case("list my loops", "observe", "loop list"),
    Case("sync my claude and codex sessions", "observe", "sessions sync"),
    Case("where did the checkout migration stop", "observe", "sessions recall"),
    Case("search my past sessions for production smoke test", "observe", "sessions search"),
    Case("which sessions finished a few minutes ago", "observe", "sessions find"),
    Case("which sessions were updated most recently", "observe", "sessions find"),
    Case("list workflow runs", "observe", "workflow list"),
    Case("list the workflow templates", "observe", "workflow template list"),
    Case("validate review.workflow.js", "observe", "workflow validate"),
    Case("generate a review workflow script", "observe", "workflow generate"),
    Case("preflight: audit the auth module", "observe", "workflow preflight"),
    Case("implement pagination for the users endpoint", "edit", "start"),
    Case("what version of pallium is installed", "observe", "version"),
    Case("check that pallium can run on this machine", "observe", "doctor"),
    Case("is semantic search configured for sessions", "observe", "sessions embedding status"),
    Case("which host functions can a workflow script call", "observe", "workflow tools list"),
    Case("research how authentication works in this repo and report back", "consult", "start"),
    Case("show my uncommitted changes", "observe", "changed-now"),
    Case("what is my agent doing right now", "observe", "sessions live"),
    Case("where is the configuration loaded", "observe", "search"),
    Case("rebuild the index from scratch", "observe", "index"),
    Case("run the workflow script review.workflow.js on the diff", "consult", "workflow run"),
]

CHATTY = [
    Case(
        "hey, could you check which of my claude sessions are still running right now? thanks!",
        "observe",
        "sessions live",
    ),
    Case("so before I touch src/app.py, what should I know about that file?", "observe", "explain"),
    Case("ugh, the tests are failing again. can you fix them and make sure everything passes?", "edit", "start"),
    Case("I'm about to rename the function main, can you tell me everything that uses it first?", "observe", "callers"),
    Case(
        "I wonder why we went with worktrees instead of branches back then, any notes on that decision?",
        "observe",
        "decisions",
    ),
    Case("quick one: what did I modify so far today in this checkout?", "observe", "changed-now"),
    Case("could you remind me where I left off with the refactor in my last session?", "observe", "sessions recall"),
    Case("I'd love a list of the agent sessions that never finished in this repo", "observe", "sessions find"),
    Case(
        "please write up a handoff for whoever picks this branch up next, everything since main", "observe", "handoff"
    ),
    Case("would you mind reviewing my changes for bugs? no edits, just a report please", "consult", "start"),
    Case("my pallium setup seems broken somehow, can you diagnose what's wrong with it?", "observe", "doctor"),
    Case("it'd be great to know how dangerous editing src/app.py is before I start", "observe", "risk"),
    Case(
        "can you dig through old agent conversations for the phrase 'flaky checkout test'?",
        "observe",
        "sessions search",
    ),
    Case("honestly I just want to see every loop that's set up here", "observe", "loop list"),
    Case(
        "could you draft a workflow script that reviews the diff and verifies each finding?",
        "observe",
        "workflow generate",
    ),
    Case("I'd like the outline of src/app.py, just the functions and classes", "observe", "symbols"),
]

TERSE = [
    Case("shw me runnign agnets", "observe", "sessions live"),
    Case("wat chnaged in teh tree", "observe", "changed-now"),
    Case("explian src/app.py", "observe", "explain"),
    Case("who cals main", "observe", "callers"),
    Case("reindx the repo", "observe", "index"),
    Case("lsit loops", "observe", "loop list"),
    Case("serch sessions for smoke test", "observe", "sessions search"),
    Case("fxi the faling tests", "edit", "start"),
    Case("risk src/app.py", "observe", "risk"),
    Case("handof since main", "observe", "handoff"),
    Case("pallium verison", "observe", "version"),
    Case("git status", "observe", "changed-now"),
    Case("symbols src/app.py", "observe", "symbols"),
    Case("neighbours of src/app.py", "observe", "neighbors"),
    Case("sessions live", "observe", "sessions live"),
    Case("worfklow templates", "observe", "workflow template list"),
    Case("sesions finshed recently", "observe", "sessions find"),
]

MUST_BLOCK = [
    # observe: anything that spends, edits or deletes
    Case("fix the failing tests", "observe", "start", True),
    Case("research how the cache works and write a report", "observe", "start", True),
    Case("run the workflow script review.workflow.js", "observe", "workflow run", True),
    Case("verify the embedding endpoint works", "observe", "sessions embedding check", True),
    Case("apply the patches from the last run", "observe", "workflow apply", True),
    Case("forget session 3f2a9c1e-1111-2222-3333-444455556666", "observe", "sessions forget", True),
    # consult: edits and admin
    Case("fix the checkout race and verify it", "consult", "start", True),
    Case("implement a retry for the http client", "consult", "start", True),
    Case("apply the staged patches of the last run to my tree", "consult", "workflow apply", True),
    Case("save the last run's script as a workflow named review-twice", "consult", "workflow save", True),
    Case("approve the deploy gate", "consult", "workflow gate approve", True),
    # edit: admin
    Case("forget session 3f2a9c1e-1111-2222-3333-444455556666", "edit", "sessions forget", True),
    Case("prune sessions older than 90 days", "edit", "sessions prune", True),
    Case("delete old sessions from months ago", "edit", "sessions prune", True),
    Case("approve the ship gate of the waiting run", "edit", "workflow gate approve", True),
    Case("reject the gate, we are not shipping", "edit", "workflow gate reject", True),
    Case("revert the patches the last run applied", "edit", "workflow revert", True),
    Case("reset pallium's database, it is corrupt", "edit", "db reset", True),
    Case("configure embeddings with openai text-embedding-3-small", "edit", "sessions embedding configure", True),
    Case("clean up old worktrees from finished runs", "edit", "workflow gc", True),
    Case("vacuum the session database", "edit", "sessions doctor", True),
]

ALLOWED_AT_CEILING = [
    Case("forget session 3f2a9c1e-1111-2222-3333-444455556666", "admin", "sessions forget"),
    Case("preview what pruning sessions older than 90 days would remove", "observe", "sessions prune"),
    Case("apply the patches from the last run", "edit", "workflow apply"),
    Case("review the auth module for security problems without changing anything", "consult", "start"),
]

IRRELEVANT = [
    Case("what's the weather in Paris tomorrow", "admin", None),
    Case("tell me a joke", "admin", None),
    Case("write a poem about the sea", "admin", None),
    Case("what is the capital of France", "admin", None),
    Case("give me a recipe for banana bread", "admin", None),
    Case("translate 'good morning' into Spanish", "admin", None),
    Case("book a flight to Tokyo next week", "admin", None),
    Case("who won the football match last night", "admin", None),
    Case("recommend a good movie for tonight", "admin", None),
    Case("how tall is mount everest", "admin", None),
    Case("play some relaxing music", "admin", None),
    Case("write a birthday message for my mom", "admin", None),
]

CASES = PLAIN + CHATTY + TERSE + MUST_BLOCK + ALLOWED_AT_CEILING + IRRELEVANT
