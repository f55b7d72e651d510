"""A workflow script convenes a team with `team.*`; validate knows the primitives; a rerun finds its team."""

from __future__ import annotations

import pytest

from kernel import dispatch
from kernel.context import ToolContext
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
