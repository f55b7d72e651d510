"""A workflow script convenes a team with `team.*`; validate knows the primitives; a rerun finds its team."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kernel import dispatch
from kernel.context import ToolContext
from kernel.crashpoints import CRASH_EXIT_CODE
from kernel.runstore import SCHEMA as RUN_SCHEMA
from services.teams.store import SCHEMA, TeamStore
from tests.conftest import script
from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio

SCRIPT = """
const t = await team.create("review app.py", {budgetUsd: 2});
await team.spawn(t, "rev", {provider: "claude", role: "reviewer"});
await team.tasks.create(t, "read app.py", {description: "say what main does"});
await team.send(t, "rev", "start with main()");
const ran = await team.wait(t, {maxRounds: 5});
const status = await team.status(t);
return {id: t.team.id, rounds: ran.rounds, tasks: status.tasks.map(x => [x.status, x.owner, x.result])};
"""


async def _workflow(repo, name: str, arguments: dict):
    ctx = ToolContext(cwd=repo)
    try:
        return await dispatch.call(name, arguments, ctx)
    finally:
        ctx.close()


async def test_a_script_convenes_a_team_and_a_rerun_finds_the_same_team(team_env, git_repo):
    team_env.scenario(
        {"match": turn_of("rev", "#1 [pending]"), "reply": decision("active", claim_task_id=1)},
        {"match": turn_of("rev", "#1 [in_progress]"),
         "reply": decision("idle", complete_task_id=1, complete_result="main returns 1")},
        {"match": "You are ", "reply": decision("idle")},
    )  # fmt: skip
    out = await _workflow(git_repo, "pallium_workflow_run", {"task": "t", "source": SCRIPT, "id": "wf-team"})
    assert out.status == "completed", out
    assert out.result["id"] == "team-wf-team-1"
    assert out.result["tasks"] == [["completed", "rev", "main returns 1"]]
    again = await _workflow(git_repo, "pallium_workflow_run", {"task": "t", "source": SCRIPT, "id": "wf-team-2"})
    assert again.result["id"] == "team-wf-team-2-1"
    checked = await _workflow(git_repo, "pallium_workflow_validate", {"source": SCRIPT})
    assert checked.valid and not [w for w in checked.warnings if "team" in w]
    bad = await _workflow(git_repo, "pallium_workflow_validate", {"source": "await team.summon('x');"})
    assert any("team.summon" in w for w in bad.warnings)


MUTATING = """
const t = await team.create("triage the bug");
await team.spawn(t, "rev", {provider: "claude"});
await team.send(t, "rev", "start with main()");
await team.tasks.create(t, "read app.py", {description: "say what main does"});
await team.member.steer(t, "rev", "look at the tests first");
await team.send(t, "rev", "start with main()");
const said = await agent("after the team calls", {label: "after"});
return {team: t.team.id, said};
"""


def _pallium(repo: Path, *args: str, crash: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PALLIUM_CRASHPOINT"}
    env["PALLIUM_WORKFLOW_PROVIDER"] = "fake"
    if crash:
        env["PALLIUM_CRASHPOINT"] = crash
    return subprocess.run([script("pallium"), *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "crash",
    [
        "after_intent:1",  # after every team call completed in the journal (the agent after them started)
        "team_call_done:2",  # the spawn landed, its journal row did not
        "team_call_done:3",  # the first message was sent, its journal row was not written
        "team_call_done:4",  # the task was created, its journal row was not written
        "team_call_done:5",  # the steering directive was sent, its journal row was not written
    ],
)
def test_a_resumed_script_sends_each_message_and_creates_each_task_once(team_env, git_repo, crash):
    team_env.scenario({"match": "after the team calls", "reply": "done"})
    run_id = f"wf-once-{crash.replace(':', '-').replace('_', '-')}"
    killed = _pallium(git_repo, "workflow", "run", "t", "--source", MUTATING, "--id", run_id, crash=crash)
    assert killed.returncode == CRASH_EXIT_CODE, killed.stderr
    resumed = _pallium(git_repo, "workflow", "resume", run_id, "--json")
    assert resumed.returncode == 0, resumed.stderr

    store = TeamStore(ToolContext().global_db([SCHEMA, RUN_SCHEMA]))
    team = f"team-{run_id}-1"
    to_rev = store.messages(team, recipient="rev", after=0, limit=100)
    assert sorted((m.kind, m.body) for m in to_rev) == [
        ("mail", "start with main()"),
        ("mail", "start with main()"),  # the script sends it twice: two occurrences, two messages
        ("steer", "STEERING DIRECTIVE FROM LEAD — look at the tests first"),
    ]
    assert [(t.id, t.title) for t in store.tasks(team)] == [(1, "read app.py")]
    assert [m.name for m in store.members(team)] == ["lead", "rev"]
