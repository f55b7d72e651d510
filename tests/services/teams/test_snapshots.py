"""Edit members work on your tree as it is now: applied patches and your own edits reach their next turn."""

from __future__ import annotations

import pytest

from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio


def edit_turns(*turns: dict) -> list[dict]:
    """Fake-provider rules for `ed`'s turns in order: each one matches once, then the next one answers."""
    return [{"match": turn_of("ed"), "times": 1, "reply": decision("idle", summary=f"turn {i}"), **t}
            for i, t in enumerate(turns, 1)]  # fmt: skip


async def team_with_editor(call) -> str:
    team = (await call("start", goal="keep main right")).team.id
    await call("spawn", team=team, name="ed", provider="claude", mode="edit")
    return team


async def turn(call, team: str) -> None:
    await call("nudge", team=team, member="ed")
    out = await call("run", team=team)
    assert [t.state for t in out.turns] == ["completed"], out.turns


async def test_after_apply_and_a_user_edit_the_next_turn_works_on_the_current_tree(team_env, call, git_repo):
    team_env.scenario(
        *edit_turns(
            {"replace": {"src/app.py": ["return 1", "return 2"]}},
            # only a worktree made from the current tree has the user's helper to rename
            {"replace": {"src/app.py": ["def helper", "def renamed_helper"]}},
        )
    )
    team = await team_with_editor(call)
    await turn(call, team)
    first = {m.name: m for m in (await call("status", team=team)).members}["ed"]
    assert first.snapshot_current is True
    await call("apply", team=team)
    app = git_repo / "src/app.py"
    app.write_text(app.read_text() + "\n\ndef helper():\n    return 0\n")  # the user's own edit, uncommitted

    await turn(call, team)
    status = await call("status", team=team)
    ed = {m.name: m for m in status.members}["ed"]
    assert ed.snapshot_commit != first.snapshot_commit and ed.snapshot_current is True
    assert status.team.base_commit == ed.snapshot_commit and status.team.base_at == ed.snapshot_at
    assert [p.state for p in status.patches] == ["applied", "staged"]
    await call("apply", team=team)
    assert app.read_text() == "def main():\n    return 2\n\n\ndef renamed_helper():\n    return 0\n"


async def test_a_pending_patch_is_carried_onto_the_users_new_tree_and_both_apply(team_env, call, git_repo):
    team_env.scenario(
        *edit_turns(
            {"replace": {"src/app.py": ["return 1", "return 2"]}},
            # sees its own pending edit (return 2) and the user's new notes file
            {"replace": {"src/app.py": ["return 2", "return 3"], "notes.txt": ["user", "user and ed"]}},
        )
    )
    team = await team_with_editor(call)
    await turn(call, team)
    (git_repo / "notes.txt").write_text("user\n")  # the user edits while the patch waits to be applied
    await turn(call, team)
    status = await call("status", team=team)
    assert [p.state for p in status.patches] == ["staged", "staged"]
    done = await call("apply", team=team)
    assert len(done.applied) == 2
    assert (git_repo / "src/app.py").read_text() == "def main():\n    return 3\n"
    assert (git_repo / "notes.txt").read_text() == "user and ed\n"


async def test_a_second_team_run_keeps_the_first_runs_staged_patches(team_env, call, git_repo):
    team_env.scenario(
        *edit_turns(
            {"replace": {"src/app.py": ["return 1", "return 2"]}},
            {"write": {"src/extra.py": "X = 1\n"}},
        )
    )
    team = await team_with_editor(call)
    await turn(call, team)
    await turn(call, team)  # a new `team run`: a new attempt of the team's kernel run
    status = await call("status", team=team)
    assert [p.state for p in status.patches] == ["staged", "staged"]  # the first is not superseded
    await call("apply", team=team)
    assert (git_repo / "src/app.py").read_text() == "def main():\n    return 2\n"
    assert (git_repo / "src/extra.py").read_text() == "X = 1\n"


async def test_a_user_edit_where_a_pending_patch_edits_keeps_the_team_on_its_snapshot_and_loses_nothing(
    team_env, call, git_repo
):
    team_env.scenario(
        *edit_turns(
            {"replace": {"src/app.py": ["return 1", "return 2"]}},
            {"write": {"src/extra.py": "X = 1\n"}},
            {"write": {"src/more.py": "Y = 2\n"}},
        )
    )
    team = await team_with_editor(call)
    await turn(call, team)
    before = (await call("status", team=team)).team.base_commit
    (git_repo / "src/app.py").write_text("def main():\n    return 9\n")  # the very line the patch changes
    await turn(call, team)
    status = await call("status", team=team)
    assert status.team.base_commit == before  # it did not move onto a tree its pending patch conflicts with
    assert [p.state for p in status.patches] == ["staged", "staged"]
    await turn(call, team)  # the same tree again: still in the way, and the lead is not told twice
    status = await call("status", team=team)
    assert status.team.base_commit == before
    assert [p.state for p in status.patches] == ["staged", "staged", "staged"]
    lead = [m.body for m in (await call("inbox", team=team, **{"for": "lead"})).messages]
    assert sum("your tree changed where the team's staged patches edit" in b for b in lead) == 1
