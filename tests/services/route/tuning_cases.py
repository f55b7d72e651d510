"""Route's tuning set for issue #24: tasks route's reading was developed against.

Apart from `cases.py` (the project's own set) and `heldout_cases.py` (scored once, never tuned to).
Same fields as the held-out set; the `git_repo` fixture's files, and ids that do not exist.
"""

from __future__ import annotations

from tests.services.route.heldout_cases import HeldCase

TUNING = [
    HeldCase("please review the changes I have not committed yet", "consult", "start"),
    HeldCase("review what I changed, nothing else", "observe", "start", True),
    HeldCase("repair the broken import in src/app.py", "edit", "start"),
    HeldCase("could you fix this for me", "edit", "start"),
    HeldCase("fix it", "observe", "start", True),
    HeldCase("change main so it returns 2", "edit", "start"),
    HeldCase("clean up src/app.py a bit", "edit", "start"),
    HeldCase("tidy the code and run the tests until green", "edit", "start"),
    HeldCase("loop over the lint errors and fix them until there are none", "edit", "start", also=("loop start",)),
    HeldCase("remove the print statements from src/app.py", "admin", "start"),
    HeldCase("delete the old helper function in src/app.py", "edit", "start"),
    HeldCase("erase sessions older than 30 days", "admin", "sessions prune"),
    HeldCase("erase sessions older than 30 days", "consult", "sessions prune", True),
    HeldCase("get rid of finished runs' worktrees", "admin", "workflow gc"),
    HeldCase("which sessions would a prune of 2 weeks drop? preview only", "observe", "sessions prune"),
    HeldCase("verify the module docs are still accurate", "consult", "knowledge audit"),
    HeldCase("are the knowledge docs still correct?", "consult", "knowledge audit"),
    HeldCase("what do I need to read to add retries to src/app.py", "observe", "knowledge context"),
    HeldCase("context for changing the config loader", "observe", "knowledge context"),
    HeldCase("how does src/app.py work and who depends on it", "observe", "explain"),
    HeldCase("src/app.py - what is it", "observe", "explain"),
    HeldCase("run `make check` until it passes, fixing whatever fails", "edit", "start"),
    HeldCase("build the knowledge base with model prose", "observe", "knowledge build", True),
    HeldCase("build knowledge without any model", "observe", "knowledge build"),
    HeldCase("generate a research workflow", "observe", "workflow generate"),
    HeldCase("generate a review workflow and write it to review-flow.js", "edit", "workflow generate"),
    HeldCase(
        "report for run wf-20240101-000000-000000", "observe", "workflow report", missing="wf-20240101-000000-000000"
    ),
    HeldCase("resume run wf-19990101-010101-fedcba", "consult", "workflow resume", missing="wf-19990101-010101-fedcba"),
    HeldCase("status of loop weekly-docs", "observe", "loop status", missing="weekly-docs"),
    HeldCase("explain src/nope.py", "observe", "explain", missing="src/nope.py"),
    HeldCase("status of team-c0ffee", "observe", "team status", missing="team-c0ffee"),
    HeldCase("explain src/app.py, then fix the bug in it", "consult", "explain", True, steps=("explain", "start")),
    HeldCase("list loops and also list teams", "observe", "loop list", steps=("loop list", "team list")),
    HeldCase("show the symbols of src/app.py; who calls main", "observe", "symbols", steps=("symbols", "callers")),
    HeldCase("write a limerick about my landlord", "admin", None),
    HeldCase("what's 2 plus 2", "admin", None),
    HeldCase("draft a thank-you note to my aunt", "admin", None),
    HeldCase("recommend a laptop for gaming", "admin", None),
    HeldCase("what is in src/app.py lol", "observe", "explain"),
    # added after the first held-out set was scored, for the classes it showed (in other words)
    HeldCase("is knowledge upkeep running here?", "observe", "knowledge maintain status"),
    HeldCase("run a syntax check on pipeline.workflow.js", "observe", "workflow validate"),
    HeldCase("is codex busy", "observe", "sessions live"),
    HeldCase("show the modules and who imports whom", "observe", "knowledge map"),
    HeldCase("vacuum and compact session memory", "admin", "sessions doctor"),
    HeldCase(
        "summarize what I modified, and also write a handoff since main",
        "observe",
        "changed-now",
        steps=("changed-now", "handoff"),
    ),
    HeldCase("what's 40 divided by 8", "admin", None),
    HeldCase("convert 10 dollars to yen", "admin", None),
    HeldCase("write a resignation letter", "admin", None),
    HeldCase("think of ideas for a team lunch", "admin", None),
    HeldCase("what should I check before renaming main? don't run any agents", "observe", "workflow preflight"),
    # added after the second held-out set was scored, for the classes it showed (in other words)
    HeldCase("look into why the test is slow and tell me", "consult", "start"),
    HeldCase("before editing README.md, scope adding a badge", "observe", "workflow preflight"),
    HeldCase("ingest the latest transcripts", "observe", "sessions sync"),
    HeldCase("where were we on the migration", "observe", "sessions recall"),
    HeldCase("find 'flaky' in old chats", "observe", "sessions search"),
    HeldCase("create a review workflow file at flows/r.js", "edit", "workflow generate"),
    HeldCase("start a team for the flaky tests", "consult", "team start"),
    # added after set 7 was scored, one group per class it showed (in other words than set 7's)
    # other languages: a lexicon of verbs, negations and object nouns per language
    HeldCase("muéstrame los bucles", "observe", "loop list"),
    HeldCase("explica src/app.py por favor", "observe", "explain"),
    HeldCase("zeig mir die laufenden Agenten", "observe", "sessions live"),
    HeldCase("lösche Sitzungen, die älter als 3 Monate sind", "admin", "sessions prune"),
    HeldCase("lösche Sitzungen, die älter als 3 Monate sind", "consult", "sessions prune", True),
    HeldCase("supprime les séances de plus de 2 ans", "admin", "sessions prune"),
    HeldCase("explique le fichier src/app.py", "observe", "explain"),
    HeldCase("corrige le bogue dans src/app.py", "edit", "start"),
    HeldCase("corrige le bogue dans src/app.py", "observe", "start", True),
    HeldCase("quem chama main?", "observe", "callers"),
    HeldCase("conserte o erro em src/app.py", "edit", "start"),
    HeldCase("spiegami src/app.py", "observe", "explain"),
    HeldCase("cancella le sessioni più vecchie di 4 mesi", "admin", "sessions prune"),
    HeldCase("toon de wijzigingen in mijn werkboom", "observe", "changed-now"),
    HeldCase("verwijder sessies ouder dan 5 maanden", "admin", "sessions prune"),
    HeldCase("repara main sin cambiar los tests", "edit", "start"),
    HeldCase("删除 三个月 以前 的 会话", "admin", "sessions prune", also=("sessions forget",)),
    HeldCase("schreib mir ein Gedicht über den Herbst", "admin", None),
    HeldCase("écris une lettre à mon propriétaire", "admin", None),
    # churn and rankings of files
    HeldCase("rank the files by churn over 60 days", "observe", "hotspots"),
    HeldCase("which module is the most fragile here?", "observe", "hotspots"),
    HeldCase("riskiest files in this repo", "observe", "hotspots"),
    # what breaks when a named thing changes; a name alone; the tree's state
    HeldCase("what would break if I renamed parse_config's arguments?", "observe", "callers"),
    HeldCase("handle_request?", "observe", "search", also=("callers",)),
    HeldCase("is the working copy dirty", "observe", "changed-now"),
    # sessions: where work stood, what came up in them, which touched a file
    HeldCase("where had claude got to on the caching work", "observe", "sessions recall"),
    HeldCase('chats where "permission denied" showed up', "observe", "sessions search"),
    HeldCase("find the conversations that edited tests/test_app.py", "observe", "sessions search"),
    HeldCase("the session tests keep failing, check the session database", "observe", "sessions doctor"),
    # a team's money
    HeldCase("top team-beef01 up by $20", "consult", "team budget", missing="team-beef01"),
    HeldCase("raise team-beef01's budget to 30 dollars", "observe", "team budget", True, missing="team-beef01"),
    # a stagnated loop freed
    HeldCase("nightly got stuck; get it going again", "consult", "loop reset"),
    HeldCase("nightly got stuck; get it going again", "observe", "loop reset", True),
    # commands typed out, shorthand, preview then act, code made to behave otherwise
    HeldCase("loop status nightly --json", "observe", "loop status"),
    HeldCase('pallium route "who calls main" --json', "observe", "callers"),
    HeldCase("regenerate the knowledge docs w/o the model", "observe", "knowledge build"),
    HeldCase("dry run the workflow gc; then go ahead", "admin", "workflow gc", steps=("workflow gc", "workflow gc")),
    HeldCase("forget session 5d2a9c0e please", "admin", "sessions forget", missing="5d2a9c0e"),
    HeldCase("set main back to returning 1", "edit", "start"),
    HeldCase("how do the components of this project fit together", "observe", "knowledge map"),
    # the knowledge base's upkeep, named by that word alone
    HeldCase("add the systemd unit that keeps upkeep going after a reboot", "admin", "knowledge maintain install"),
    HeldCase("is upkeep paused?", "observe", "knowledge maintain status"),
    # decisions written down as records, not commit messages
    HeldCase("what do our ADRs say about retries", "observe", "knowledge decisions search"),
    HeldCase("authored decision records on the storage layer, please", "observe", "knowledge decisions search"),
]
