"""Route's four invariants, each a property over tasks generated from parts whose meaning is known.

1. A destructive tool only for a request whose action deletes and whose object is that tool's object.
2. A run, loop, session, team or path the task names that does not exist is reported not found, with
   the closest existing ones, and never replaced by another.
3. The level route reports is at least the dispatcher's own `needed_authority` on the arguments route
   passes, so `--execute` never meets a refusal route did not predict.
4. `--execute` never runs a call that deletes without the caller's `confirm`, whatever the ceiling.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernel import authority, dispatch
from tests.services.route.conftest import route
from tests.services.route.scoring import destructive_capabilities

SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture], derandomize=True
)
LEVELS = ("observe", "consult", "edit", "admin")

FILLERS = st.sampled_from(["", "please ", "hey, ", "could you ", "can you just ", "ok so ", "pls "])
ENDINGS = st.sampled_from(["", " please", " thanks", "!", " asap", " for me"])

# Words a destructive tool declares ("clean", "free", "remove", "drop", "reset", "collect"), in tasks
# that delete nothing of Pallium's: code changes, loose words, and conditions.
LOOSE = st.sampled_from(
    [
        "keep checking and fixing the code until it is clean",
        "clean up the code in src/app.py",
        "tidy up src/app.py and keep it clean",
        "remove the unused import from src/app.py",
        "drop the print statements in src/app.py",
        "delete the dead helper in src/app.py",
        "get rid of the duplicate logic in src/app.py",
        "free up the memory the parser leaks",
        "collect the test results and report",
        "reset the counter in src/app.py to zero",
        "purge the cache layer from the http client",
        "wipe the temporary files the tests leave behind in src/app.py",
        "clean the build and run the tests",
        "make the tests pass and keep the tree clean",
        "review my changes until they are clean",
        "is the working tree clean",
        "prune the dead branches of the if in src/app.py",
        "forget about the old api, implement the new one",
        "explain how src/app.py cleans its inputs",
        "what removes entries from the cache",
        "zap the unused constants in src/app.py",
        "scrap that idea, just explain src/app.py",
        "take back what I said and list the loops",
        "move the old fixtures aside in tests/",
        "trim the trailing whitespace in src/app.py",
        "ditch the retry wrapper in src/app.py",
        "the cache keeps growing, shrink it in src/app.py",
    ]
)

# Deletions of Pallium's own data, with the capability each must reach.
DELETIONS = [
    ("delete sessions older than {age}", "sessions prune"),
    ("remove session history older than {age}", "sessions prune"),
    ("purge sessions older than {age}", "sessions prune"),
    ("prune sessions older than {age}", "sessions prune"),
    ("erase old sessions from more than {age} ago", "sessions prune"),
    ("delete the worktrees of finished runs", "workflow gc"),
    ("clean up old run folders", "workflow gc"),
    ("garbage collect finished workflow runs", "workflow gc"),
    ("wipe pallium's database", "db reset"),
    ("reset pallium's database", "db reset"),
    ("trim sessions older than {age}", "sessions prune"),
    ("zap the worktrees of finished runs", "workflow gc"),
    ("move pallium's database aside", "db reset"),
]
AGES = st.sampled_from(["90 days", "6 months", "1 year", "2 weeks", "180d"])


def _chosen(answer) -> list[tuple[str, dict]]:
    if answer.steps:
        return [(s.capability, s.arguments) for s in answer.steps if s.capability]
    return [(answer.capability, answer.arguments)] if answer.capability else []


# --- invariant 1 -----------------------------------------------------------------------------------


@SETTINGS
@given(filler=FILLERS, task=LOOSE, ending=ENDINGS, ceiling=st.sampled_from(LEVELS))
def test_invariant_1_no_destructive_tool_for_a_task_that_deletes_nothing_of_pallium(
    git_repo: Path, filler: str, task: str, ending: str, ceiling: str
):
    answer = anyio.run(lambda: route(filler + task + ending, git_repo, ceiling=ceiling))
    destructive = destructive_capabilities()
    for capability, arguments in _chosen(answer):
        assert capability not in destructive, (task, capability)
        assert arguments.get("confirm") is not True, (task, capability)


@SETTINGS
@given(filler=FILLERS, pick=st.sampled_from(DELETIONS), age=AGES, preview=st.booleans())
def test_invariant_1_a_deletion_of_pallium_data_reaches_the_tool_of_that_object(
    git_repo: Path, filler: str, pick: tuple[str, str], age: str, preview: bool
):
    template, capability = pick
    task = filler + template.format(age=age) + ("; just preview what would go" if preview else "")
    answer = anyio.run(lambda: route(task, git_repo, ceiling="admin"))
    assert answer.capability == capability, task
    assert answer.arguments.get("confirm", False) is (not preview), task
    assert answer.needed_authority == ("observe" if preview else "admin"), task


# Taking back what a run applied is a revert of the working tree, never a deletion of Pallium's data,
# in whatever words: the verbs of undoing, each with the ways a run's changes are named.
UNDO_VERBS = st.sampled_from(
    [
        "undo {c}",
        "revert {c}",
        "back out {c}",
        "roll back {c}",
        "take {c} back out of my tree",
        "take back {c}",
        "remove {c} from my working tree",
        "pull {c} back out of the tree",
        "get {c} out of my tree again",
        "unapply {c}",
    ]
)
RUN_CHANGES = st.sampled_from(
    ["done-1's patches", "the changes of done-1", "what done-1 applied", "done-1's edits", "the patch from done-1"]
)


@SETTINGS
@given(filler=FILLERS, verb=UNDO_VERBS, changes=RUN_CHANGES, ceiling=st.sampled_from(LEVELS))
def test_invariant_1_undoing_a_runs_changes_is_a_revert_never_a_deletion(
    populated: Path, filler: str, verb: str, changes: str, ceiling: str
):
    task = filler + verb.format(c=changes)
    answer = anyio.run(lambda: route(task, populated, ceiling=ceiling))
    destructive = destructive_capabilities() - {"workflow revert"}
    for capability, arguments in _chosen(answer):
        assert capability not in destructive, (task, capability)
        assert capability != "workflow revert" or arguments.get("confirm") is not True, (task, arguments)
    assert answer.capability == "workflow revert", (task, answer.capability)


# --- invariant 2 -----------------------------------------------------------------------------------

RUN_IDS = st.builds(
    lambda d, t, h: f"wf-2025{d:04d}-{t:06d}-{h}",
    st.integers(101, 1231),
    st.integers(0, 235959),
    st.text("0123456789abcdef", min_size=6, max_size=6),
)
SLUGS = st.builds(
    lambda a, b: f"{a}-{b}",
    st.sampled_from(["nightly", "weekly", "lint", "docs", "ci"]),
    st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=2, max_size=6),
)
RUN_TASKS = st.sampled_from(
    [
        "apply the patches from run {x}",
        "revert run {x}",
        "give me the report for {x}",
        "resume {x}",
        "what is the status of run {x}",
        "stop run {x}",
        "show the events of {x}",
    ]
)
LOOP_TASKS = st.sampled_from(
    [
        "how is loop {x} doing",
        "stop the loop called {x}",
        "tick loop {x} once",
        "reset the {x} loop",
        "loop status for {x}",
    ]
)
PATH_TASKS = st.sampled_from(["explain {x}", "how risky is {x}", "symbols in {x}", "what changes with {x}"])
PATHS = st.builds(lambda a: f"src/{a}.py", st.text("abcdefghijklmnopqrstuvwxyz_", min_size=3, max_size=10)).filter(
    lambda p: p != "src/app.py"
)


def _not_substituted(answer, named: str, existing: str | None) -> None:
    for _capability, arguments in _chosen(answer):
        text = json.dumps(arguments)
        if existing is not None:
            assert existing not in text, (named, arguments)
    reported = [p for p in answer.preconditions if p.kind == "needs_input" and named in p.detail]
    assert reported, (named, [p.detail for p in answer.preconditions])
    if existing is not None:
        assert existing in reported[0].detail  # the closest existing one is named beside it


@SETTINGS
@given(template=RUN_TASKS, run_id=RUN_IDS, ceiling=st.sampled_from(LEVELS))
def test_invariant_2_a_named_run_that_does_not_exist_is_never_replaced(
    populated: Path, template: str, run_id: str, ceiling: str
):
    answer = anyio.run(lambda: route(template.format(x=run_id), populated, ceiling=ceiling))
    _not_substituted(answer, run_id, "done-1")


@SETTINGS
@given(
    template=st.sampled_from(
        ["status for {x}", "report on {x}", "resume {x} please", "what is the {x} run waiting on"]
    ),
    name=st.builds(lambda a, n: f"{a}-{n}", st.sampled_from(["done", "nightly", "fix"]), st.integers(2, 999)),
)
def test_invariant_2_a_run_named_in_other_words_is_never_replaced(populated: Path, template: str, name: str):
    answer = anyio.run(lambda: route(template.format(x=name), populated, ceiling="admin"))
    for _capability, arguments in _chosen(answer):
        assert "done-1" not in json.dumps(arguments), (template, name, arguments)
        assert "nightly" not in json.dumps(arguments).replace(name, ""), (template, name, arguments)


@SETTINGS
@given(template=LOOP_TASKS, name=SLUGS)
def test_invariant_2_a_named_loop_that_does_not_exist_is_never_replaced(populated: Path, template: str, name: str):
    answer = anyio.run(lambda: route(template.format(x=name), populated, ceiling="admin"))
    _not_substituted(answer, name, "nightly")


@SETTINGS
@given(template=PATH_TASKS, path=PATHS)
def test_invariant_2_a_named_path_that_does_not_exist_is_reported_with_the_nearest_files(
    git_repo: Path, template: str, path: str
):
    answer = anyio.run(lambda: route(template.format(x=path), git_repo, ceiling="observe"))
    _not_substituted(answer, path, "src/app.py")


@SETTINGS
@given(hexes=st.text("0123456789abcdef", min_size=8, max_size=8), kind=st.sampled_from(["show", "read", "forget"]))
def test_invariant_2_a_named_session_or_team_that_does_not_exist_is_reported(git_repo: Path, hexes: str, kind: str):
    session = f"{hexes}-1234-4321-aaaa-bbbbccccdddd"
    answer = anyio.run(lambda: route(f"{kind} session {session}", git_repo, ceiling="admin"))
    _not_substituted(answer, session, None)
    team = f"team-{hexes[:6]}"
    answer = anyio.run(lambda: route(f"status of {team}", git_repo, ceiling="admin"))
    assert answer.capability == "team status"
    _not_substituted(answer, team, None)


SYMBOLS = st.builds(
    lambda a, b: f"{a}_{b}",
    st.sampled_from(["parse", "load", "frob", "emit"]),
    st.text("abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=8),
)


@SETTINGS
@given(template=st.sampled_from(["who calls {x}", "where is {x} used", "callers of {x}"]), symbol=SYMBOLS)
def test_invariant_2_a_named_symbol_no_file_holds_is_reported_even_before_the_index(
    git_repo: Path, template: str, symbol: str
):
    answer = anyio.run(lambda: route(template.format(x=symbol), git_repo, ceiling="observe"))
    assert answer.capability == "callers"
    _not_substituted(answer, symbol, None)


# --- invariant 3 -----------------------------------------------------------------------------------

ANY_TASK = st.one_of(
    LOOSE,
    st.builds(lambda p, a: p[0].format(age=a), st.sampled_from(DELETIONS), AGES),
    st.sampled_from(
        [
            "build the knowledge base",
            "build the knowledge base without a model",
            "build the knowledge docs with model prose",
            "generate a review workflow",
            "generate a review workflow and save it to flows/review.js",
            "generate a test-fix workflow and tailor it with a model",
            "fix the failing tests",
            "review my uncommitted changes",
            "research how the cache works",
            "apply the patches from the last run",
            "approve the ship gate",
            "index this repository",
            "forget session 3f2a9c1e-1111-2222-3333-444455556666",
            "install the pallium block into AGENTS.md",
            "explain src/app.py then add a test for it",
        ]
    ),
)


@SETTINGS
@given(filler=FILLERS, task=ANY_TASK, ceiling=st.sampled_from(LEVELS))
def test_invariant_3_route_never_reports_less_than_the_dispatcher_needs(
    git_repo: Path, filler: str, task: str, ceiling: str
):
    answer = anyio.run(lambda: route(filler + task, git_repo, ceiling=ceiling))
    calls = answer.steps or ([answer] if answer.capability else [])
    for step in calls:
        needed = dispatch.needed_authority(step.tool, step.arguments)
        assert authority.allows(step.needed_authority, needed), (task, step.tool, step.arguments, needed)
        if not answer.blocked:
            assert authority.allows(ceiling, needed), (task, step.tool, needed, ceiling)


def test_invariant_3_knowledge_build_without_no_model_is_consult_and_observe_builds_without(git_repo: Path):
    spends = anyio.run(lambda: route("build the knowledge base", git_repo, ceiling="observe"))
    assert (spends.capability, spends.needed_authority, spends.blocked) == ("knowledge build", "consult", True)
    local = anyio.run(lambda: route("build the knowledge base without a model", git_repo, ceiling="observe"))
    assert local.arguments.get("model") is False and "--no-model" in local.argv
    ran = anyio.run(
        lambda: route("build the knowledge base without a model", git_repo, ceiling="observe", execute=True)
    )
    assert ran.executed["status"] == "ok", ran.executed


def test_invariant_3_generate_with_an_output_path_needs_edit(git_repo: Path):
    answer = anyio.run(
        lambda: route("generate a review workflow and save it to flows/review.js", git_repo, ceiling="consult")
    )
    assert answer.capability == "workflow generate"
    assert answer.arguments["style"] == "review" and answer.arguments["output"] == "flows/review.js"
    assert (answer.needed_authority, answer.blocked) == ("edit", True)


# --- invariant 4 -----------------------------------------------------------------------------------


def _snapshot(home: Path, repo: Path) -> dict[str, int]:
    out = {}
    for base in (home, repo):
        for path in base.rglob("*"):
            if path.is_file() and ".git" not in path.parts and "pallium.sqlite" not in path.name:
                out[str(path)] = path.stat().st_size
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(filler=FILLERS, pick=st.sampled_from(DELETIONS), age=st.sampled_from(["0 days", "1d"]))
def test_invariant_4_execute_never_deletes_without_the_callers_confirm(
    populated: Path, pallium_home: Path, filler: str, pick: tuple[str, str], age: str
):
    task = filler + pick[0].format(age=age)
    before = _snapshot(pallium_home, populated)
    answer = anyio.run(lambda: route(task, populated, ceiling="admin", execute=True))
    assert answer.executed["status"] == "not_run", (task, answer.executed)
    assert "--confirm" in answer.executed["reason"]
    assert _snapshot(pallium_home, populated) == before


def test_invariant_4_with_the_callers_confirm_the_deletion_runs(populated: Path, pallium_home: Path):
    answer = anyio.run(
        lambda: route(
            "delete the run folders of all finished runs, even new ones (0 days)",
            populated,
            ceiling="admin",
            execute=True,
            confirm=True,
        )
    )
    assert answer.capability == "workflow gc" and answer.arguments.get("confirm") is True
    assert answer.executed["status"] == "ok", answer.executed
    assert answer.executed["output"]["confirmed"] is True  # it acted: not a preview
