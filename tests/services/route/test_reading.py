"""Reading a task as a structure: requests, action with negations, object and modifiers, then the plan.

Also that `start` reads a fix the way route does: every task of the three sets that route reads as
asking to change code gets a plan with a fix or implement phase from `start`'s own choice.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from services.route import reading
from services.workflows import library
from services.workflows.start import choose_style
from tests.services.route.cases import CASES
from tests.services.route.conftest import route
from tests.services.route.heldout_cases import HELDOUT
from tests.services.route.tuning_cases import TUNING


@pytest.mark.parametrize(
    ("task", "parts"),
    [
        ("explain src/app.py then add a test for it", ["explain src/app.py", "add a test for it"]),
        ("index the repo; then tell me who calls main", ["index the repo", "tell me who calls main"]),
        ("list loops and also list teams", ["list loops", "list teams"]),
        ("why did we pick worktrees back then, any notes", ["why did we pick worktrees back then, any notes"]),
        ("delete old sessions; just preview what would go", ["delete old sessions just preview what would go"]),
        ("search for 'a; then b' in sessions", ["search for 'a; then b' in sessions"]),
    ],
)
def test_a_task_splits_into_requests_on_then_and_also_and_semicolons(task: str, parts: list[str]):
    assert reading.split(task) == parts


@pytest.mark.parametrize(
    ("task", "action", "obj", "no_edit", "deletes", "preview"),
    [
        ("can you just fix it", "change", None, False, False, False),
        ("review my changes, don't change anything", "review", "code", True, False, False),
        ("keep checking and fixing the code until it is clean", "change", "code", False, False, False),
        ("before I refactor src/app.py, what should I look at", "question", "code", False, False, False),
        ("generate a workflow that fixes failing tests", None, "run", False, False, False),
        ("remove session history older than 6 months", "change", "session", False, True, False),
        ("what would pruning sessions delete", "question", "session", False, True, True),
        ("wipe pallium's database", None, "pallium", False, True, False),
        ("undo the patches the last run applied", "revert", "run", False, True, False),
        ("give me the context I need to add logging to src/app.py", "context", "code", False, False, False),
    ],
)
def test_a_request_reads_as_action_object_and_modifiers(task, action, obj, no_edit, deletes, preview):
    request = reading.read(task).requests[0]
    got = (request.action, request.object, request.no_edit, request.deletes, request.preview)
    assert got == (action, obj, no_edit, deletes, preview)


def test_a_compound_task_is_planned_whole_and_blocked_when_any_step_exceeds_the_ceiling(git_repo: Path):
    answer = anyio.run(lambda: route("explain src/app.py then add a test for it", git_repo, ceiling="observe"))
    assert [s.capability for s in answer.steps] == ["explain", "start"]
    assert [s.blocked for s in answer.steps] == [False, True]
    assert answer.blocked and "step 2" in answer.blocked_reason
    assert answer.needed_authority == "edit"
    assert answer.steps[1].arguments["scope"] == ["src/app.py"]  # "it" is the file the first request named
    ran = anyio.run(
        lambda: route("explain src/app.py then add a test for it", git_repo, ceiling="observe", execute=True)
    )
    assert ran.executed["status"] == "not_run"  # nothing of a blocked whole runs, not even its first half


def test_an_executed_compound_task_runs_each_step_in_order(git_repo: Path):
    answer = anyio.run(
        lambda: route("index the repo; then tell me who calls main", git_repo, ceiling="observe", execute=True)
    )
    assert [s.capability for s in answer.steps] == ["index", "callers"]
    assert answer.executed["status"] == "ok", answer.executed
    assert [s["tool"] for s in answer.executed["steps"]] == ["pallium_index", "pallium_callers"]


def test_a_request_route_cannot_place_is_kept_as_a_step_never_dropped(git_repo: Path):
    answer = anyio.run(lambda: route("list my loops; then write a sonnet for my aunt", git_repo, ceiling="admin"))
    assert [s.capability for s in answer.steps] == ["loop list", None]
    assert answer.blocked and "step 2" in answer.blocked_reason
    kept = anyio.run(lambda: route("research how the cache works then report back", git_repo, ceiling="consult"))
    assert (kept.capability, kept.steps) == ("start", [])  # "report back" is the same request, not a second


def test_off_topic_tasks_abstain_with_what_pallium_can_do_and_a_named_path_never_is(git_repo: Path):
    off = anyio.run(lambda: route("write a cover letter for my sister", git_repo, ceiling="admin"))
    assert off.capability is None and off.alternatives  # the closest capabilities, each with what it is for
    named = anyio.run(lambda: route("src/app.py: thoughts?", git_repo, ceiling="observe"))
    assert named.capability is not None


def _asks_to_change(task: str) -> bool:
    request = reading.read(task).requests[0]
    return request.action == reading.CHANGE and not request.no_edit and request.object in ("code", None)


FIX_TASKS = sorted(
    {c.task for c in [*CASES, *TUNING, *HELDOUT] if _asks_to_change(c.task) and len(reading.split(c.task)) == 1}
)


@pytest.mark.parametrize("test_command", [None, "pytest -q"])
def test_start_never_plans_without_a_fix_phase_for_a_task_route_reads_as_a_fix(test_command: str | None):
    assert len(FIX_TASKS) >= 15
    editing = {library.STYLES["test-fix"], library.DEFAULT_TEMPLATE}
    wrong = [t for t in FIX_TASKS if choose_style(t, test_command=test_command)[0] not in editing]
    assert wrong == []


def test_start_still_reviews_a_task_that_only_asks_for_a_review():
    assert choose_style("review my workflow changes", test_command=None)[0] == "review"
    assert choose_style("review my workflow changes and fix what's broken", test_command=None)[0] == "plan-and-verify"
    assert choose_style("review it, don't fix anything", test_command=None)[0] == "review"


@pytest.mark.parametrize(
    "task",
    [
        "what changes with src/patches.py",
        "explain services/sessions/store.py",
        "how risky is lib/loops/tick.rb",
        "symbols in teams.py",
        "explain docs/knowledge.md",
    ],
)
def test_the_words_of_a_path_the_task_names_are_scope_not_its_object(task: str):
    assert reading.read(task).requests[0].object == "code"


# Classes of misreading found on the fourth set (an independent hand's), each tested in other words.


@pytest.mark.parametrize(
    ("task", "stated", "body"),
    [
        ("the build is red again, make it pass", "the build is red again", "make it pass"),
        ("my session memory looks broken, check it", "my session memory looks broken", "check it"),
        ("show me the loops", "", "show me the loops"),
    ],
)
def test_a_stated_fact_before_the_request_is_set_aside_and_kept(task: str, stated: str, body: str):
    request = reading.read(task).requests[0]
    assert (request.stated, request.body) == (stated, body)


def test_a_part_that_is_only_a_subordinate_clause_or_a_fact_qualifies_the_next_request():
    assert reading.split("before I merge; what changed since main") == ["before I merge, what changed since main"]
    assert reading.split("the loop seems wedged; clear it") == ["the loop seems wedged, clear it"]
    assert len(reading.split("list the loops; then show the teams")) == 2
    assert len(reading.split("what are the loops; then show the teams")) == 2  # a question states nothing


@pytest.mark.parametrize(
    ("task", "action", "obj", "deletes"),
    [
        ("scrap the dead helpers in src/app.py", "change", "code", True),
        ("zap sessions older than a year", "change", "session", True),
        ("write unit tests for the parser", "change", "code", False),
        ("gather several agents to argue about the schema", None, "team", False),
        ("troubleshoot the flaky build", "change", "code", False),
        ("start a quick review of the auth module", "review", "code", False),
        ("add retries to the uploader", "change", "code", False),
    ],
)
def test_words_are_read_by_their_meaning(task: str, action: str | None, obj: str, deletes: bool):
    request = reading.read(task).requests[0]
    assert (request.action, request.object, request.deletes) == (action, obj, deletes)


@pytest.mark.parametrize(
    ("task", "ceiling", "capability", "argument"),
    [
        ("list the events of done-1 in order", "observe", "workflow show", ("run_id", "done-1")),
        ("take back what done-1 put in my tree", "admin", "workflow revert", ("run_id", "done-1")),
        ("diagnose done-1's worktrees and lease", "observe", "workflow inspect", ("run_id", "done-1")),
        ("advance nightly by one cycle", "consult", "loop tick", ("name", "nightly")),
    ],
)
def test_a_run_or_loop_the_stores_know_is_named_without_the_word_beside_it(
    populated: Path, task: str, ceiling: str, capability: str, argument: tuple[str, str]
):
    answer = anyio.run(lambda: route(task, populated, ceiling=ceiling))
    assert answer.capability == capability, answer.why
    assert answer.arguments.get(argument[0]) == argument[1]


@pytest.mark.parametrize("task", ["reboot my printer", "update my iphone to the newest ios", "restart slack"])
def test_a_verb_on_a_thing_pallium_does_not_have_reaches_no_tool(populated: Path, task: str):
    answer = anyio.run(lambda: route(task, populated, ceiling="admin"))
    assert answer.capability is None, answer.why
    assert answer.arguments == {}  # above all, no run or loop grounded as "the only fit"


@pytest.mark.parametrize(
    ("task", "capability"),
    [
        ("where do we parse the config?", "search"),
        ("where is main called", "callers"),
        ("where does the code change most often", "hotspots"),
        ("what workflow templates are there", "workflow template list"),
        ("retry the knowledge upkeep right away", "knowledge maintain retry"),
        ("please resume the knowledge upkeep", "knowledge maintain resume"),
        ("search the transcripts for 'ValueError'", "sessions search"),
        ("qui appelle main ?", "callers"),
        ("wer ruft main auf", "callers"),
        ("which files change the most", "hotspots"),
        ("hook pallium up to claude code", "mcp install"),
        ("which module covers the cli, according to the docs", "knowledge search"),
        ("look for the retry logic", "search"),
        ("search for main", "search"),  # a branch's name is a ref only where a ref stands ("since main")
        ("create a team to refactor the parser", "team start"),
        ("run nightly one more time", "loop tick"),
        ("pull in my newest claude chats", "sessions sync"),
        ("show me the team templates", "team template list"),  # a generic verb leaves siblings to the words
    ],
)
def test_a_request_chooses_by_its_action_and_object_in_any_wording(populated: Path, task: str, capability: str):
    answer = anyio.run(lambda: route(task, populated, ceiling="admin"))
    assert answer.capability == capability, answer.why


def test_a_pronoun_carries_the_object_and_the_ids_of_the_request_before(populated: Path):
    answer = anyio.run(lambda: route("show done-1's events; then its report", populated, ceiling="observe"))
    assert [s.capability for s in answer.steps] == ["workflow show", "workflow report"]
    assert [s.arguments.get("run_id") for s in answer.steps] == ["done-1", "done-1"]


def test_a_tool_that_runs_until_stopped_is_not_executed_from_the_command_line(git_repo: Path):
    answer = anyio.run(lambda: route("serve the knowledge site locally", git_repo, ceiling="observe", execute=True))
    assert answer.capability == "knowledge serve"
    assert answer.executed["status"] == "not_run" and "until it is stopped" in answer.executed["reason"]


def test_a_run_tool_with_no_run_in_the_state_it_acts_on_is_no_candidate(populated: Path):
    # the only run is finished: nothing is running to stop, so "stop it" means the loop, never done-1
    answer = anyio.run(lambda: route("halt it now", populated, ceiling="consult"))
    assert (answer.capability, answer.arguments) == ("loop stop", {"name": "nightly"})
    named = anyio.run(lambda: route("cancel the running workflow", populated, ceiling="consult"))
    assert named.capability == "workflow stop"  # a task that names a run keeps the run's tool and its report


@pytest.mark.parametrize(
    "task", ["draft a thank-you email to the backend team", "compose a letter of resignation for my python job"]
)
def test_writing_a_personal_document_is_off_topic_whatever_it_is_about(git_repo: Path, task: str):
    answer = anyio.run(lambda: route(task, git_repo, ceiling="admin"))
    assert answer.capability is None, answer.why


@pytest.mark.parametrize(
    ("task", "capability"),
    [
        ("take back what I said, just list the runs", "workflow list"),  # a retraction, never a revert
        ("never mind, show me the loops", "loop list"),
        ("scrap that, what does src/app.py import", "explain"),
    ],
)
def test_a_withdrawn_request_is_set_aside_and_reaches_no_tool(populated: Path, task: str, capability: str):
    answer = anyio.run(lambda: route(task, populated, ceiling="admin"))
    assert answer.capability == capability, answer.why
