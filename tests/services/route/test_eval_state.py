"""Evaluation tasks whose right answer depends on the repository's state, built in temporary repositories."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.conftest import write
from tests.services.route.conftest import call, route

WAITING = """
const draft = await agent("draft the notes");
const verdict = await gate("ship", "Publish?", {human: true, fail_on_deny: false});
return {published: verdict.approved};
"""


async def _run(repo: Path, run_id: str, source: str):
    return await call("pallium_workflow_run", {"task": "notes", "source": source, "id": run_id}, repo, "edit")


@pytest.fixture
def waiting_run(git_repo: Path, workflow_env) -> str:
    workflow_env.scenario({"match": "^draft", "reply": "v1"})
    assert anyio.run(_run, git_repo, "ship-1", WAITING).status == "awaiting_approval"
    return "ship-1"


@pytest.fixture
def failed_run(git_repo: Path, workflow_env) -> str:
    assert anyio.run(_run, git_repo, "broken-1", "throw new Error('on purpose');").status == "failed"
    return "broken-1"


@pytest.fixture
def one_loop(git_repo: Path) -> str:
    write(git_repo, "work.loop.js", 'export const meta = {kind: "loop"};\nreturn {state: "success"};\n')
    anyio.run(lambda: call("pallium_loop_start", {"name": "nightly", "script": "work.loop.js"}, git_repo, "consult"))
    return "nightly"


def test_a_waiting_run_grounds_approve_with_its_run_and_pending_gate(git_repo: Path, waiting_run: str):
    answer = anyio.run(lambda: route("approve it so the run can go on", git_repo, ceiling="admin"))
    assert answer.capability == "workflow gate approve"
    assert answer.arguments == {"run_id": waiting_run, "name": "ship"}
    assert not [p for p in answer.preconditions if not p.met]
    blocked = anyio.run(lambda: route("approve it so the run can go on", git_repo, ceiling="edit"))
    assert (blocked.blocked, blocked.preparation.capability) == (True, "workflow gate list")


def test_a_waiting_run_answers_what_it_waits_for_with_its_gates(git_repo: Path, waiting_run: str):
    answer = anyio.run(lambda: route("what is the run waiting for?", git_repo, ceiling="observe", execute=True))
    assert (answer.capability, answer.arguments) == ("workflow gate list", {"run_id": waiting_run})
    assert answer.executed["status"] == "ok"


def test_a_failed_run_is_the_one_resume_picks(git_repo: Path, failed_run: str):
    answer = anyio.run(lambda: route("continue the run that failed", git_repo, ceiling="consult"))
    assert (answer.capability, answer.arguments) == ("workflow resume", {"run_id": failed_run})
    assert answer.state["runs"] == {"failed": 1}


def test_with_no_runs_resume_needs_input_and_says_how_to_make_one(git_repo: Path):
    answer = anyio.run(lambda: route("continue the run that failed", git_repo, ceiling="consult", execute=True))
    need = [p for p in answer.preconditions if p.kind == "needs_input"]
    assert need and "pallium start" in need[0].detail
    assert answer.executed["status"] == "not_run"


def test_the_only_loop_is_the_one_a_task_about_the_loop_means(git_repo: Path, one_loop: str):
    answer = anyio.run(lambda: route("how is the loop doing", git_repo, ceiling="observe"))
    assert (answer.capability, answer.arguments) == ("loop status", {"name": one_loop})
    tick = anyio.run(lambda: route("tick it once more", git_repo, ceiling="observe"))
    assert (tick.capability, tick.arguments, tick.blocked) == ("loop tick", {"name": one_loop}, True)


def test_with_a_loop_and_no_active_run_stop_means_the_loop(git_repo: Path, one_loop: str):
    answer = anyio.run(lambda: route("stop it", git_repo, ceiling="consult"))
    assert (answer.capability, answer.arguments) == ("loop stop", {"name": one_loop})


def test_the_index_precondition_is_met_once_the_repository_is_indexed(git_repo: Path):
    before = anyio.run(lambda: route("what symbols does src/app.py define", git_repo, ceiling="observe"))
    assert [(p.kind, p.met) for p in before.preconditions] == [("index", False)]
    anyio.run(lambda: call("pallium_index", {}, git_repo, "observe"))
    after = anyio.run(lambda: route("what symbols does src/app.py define", git_repo, ceiling="observe"))
    assert [(p.kind, p.met) for p in after.preconditions] == [("index", True)]


def test_empty_session_memory_is_a_precondition_satisfied_by_sync(git_repo: Path):
    answer = anyio.run(lambda: route("where did the checkout migration stop", git_repo, ceiling="observe"))
    assert answer.capability == "sessions recall"
    sessions = next(p for p in answer.preconditions if p.kind == "sessions")
    assert (sessions.met, sessions.command) == (False, "pallium sessions sync")
