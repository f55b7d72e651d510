"""Edit members work in their own worktrees; their patches are staged, secret-scanned, applied and reverted."""

from __future__ import annotations

import pytest

from kernel.errors import PalliumError
from tests.conftest import git
from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio

ORIGINAL = "def main():\n    return 1\n"


async def test_an_edit_members_patch_is_staged_then_applied_and_reverted_only_on_request(team_env, call, git_repo):
    team_env.scenario(
        {
            "match": turn_of("ed", "#1 [pending]"),
            "times": 1,
            "write": {"src/app.py": "def main():\n    return 2\n"},
            "reply": decision("active", claim_task_id=1, summary="changed main"),
        },
        {
            "match": turn_of("ed", "#1 [in_progress]"),
            "times": 1,
            "reply": decision("idle", complete_task_id=1, complete_result="main returns 2"),
        },
    )
    team = (await call("start", goal="make main return 2")).team.id
    await call("spawn", team=team, name="ed", provider="claude", mode="edit")
    await call("tasks_add", team=team, title="change main", requires=["patch"])
    await call("run", team=team)

    assert (git_repo / "src/app.py").read_text() == ORIGINAL  # nothing lands by itself
    ed_calls = [c for c in team_env.calls() if c["prompt"].startswith("You are ed,")]
    assert all(c["cwd"] != str(git_repo) for c in ed_calls)  # it worked in its own worktree
    status = await call("status", team=team)
    assert [p.state for p in status.patches] == ["staged"]
    task = status.tasks[0]
    assert task.status == "completed" and task.evidence["patch_id"] == status.patches[0].patch_id
    lead = [m.body for m in (await call("inbox", team=team, **{"for": "lead"})).messages]
    assert any("staged a patch" in b and "src/app.py" in b for b in lead)

    with pytest.raises(PalliumError) as needs_edit:
        await call("apply", team=team, ceiling="consult")
    assert needs_edit.value.code == "authority_exceeded"
    applied = await call("apply", team=team)
    assert len(applied.applied) == 1 and (git_repo / "src/app.py").read_text() == "def main():\n    return 2\n"
    assert (await call("apply", team=team)).already == applied.applied
    with pytest.raises(PalliumError) as needs_admin:
        await call("revert", team=team)
    assert needs_admin.value.code == "authority_exceeded"
    await call("revert", team=team, ceiling="admin")
    assert (git_repo / "src/app.py").read_text() == ORIGINAL
    assert git(git_repo, "status", "--porcelain") == ""


async def test_a_patch_carrying_a_secret_is_blocked_and_never_applied(team_env, call, git_repo):
    team_env.scenario(
        {
            "match": turn_of("ed"),
            "times": 1,
            "write": {"settings.py": "api_key = 'sk-" + "a1b2c3d4e5f6g7h8i9j0k1l2m3n4" + "'\n"},
            "reply": decision("idle", summary="configured"),
        },
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="ed", provider="codex", mode="edit")
    await call("nudge", team=team, member="ed")
    await call("run", team=team)
    status = await call("status", team=team)
    assert [p.state for p in status.patches] == ["blocked"]
    lead = [m.body for m in (await call("inbox", team=team, **{"for": "lead"})).messages]
    assert any("blocked" in b for b in lead)
    applied = await call("apply", team=team)
    assert applied.applied == [] and len(applied.skipped) == 1
    assert not (git_repo / "settings.py").exists()


async def test_spawning_an_edit_member_needs_edit_authority(call):
    team = (await call("start", goal="g")).team.id
    with pytest.raises(PalliumError) as refused:
        await call("spawn", team=team, name="ed", mode="edit", provider="claude", ceiling="consult")
    assert refused.value.code == "authority_exceeded"
    assert [m.name for m in (await call("status", team=team)).members] == ["lead"]
