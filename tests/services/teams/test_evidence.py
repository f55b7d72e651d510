"""The board never claims what did not land: a task's evidence is the patch made for it, a patch that did not
stage keeps the task open and is told to its member and the lead, and a member sees its own work first."""

from __future__ import annotations

import pytest

from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio


def _editor(name: str, warmup: int, task: int, line: str) -> list[dict]:
    """An edit member that first lands an unrelated patch (task `warmup`), then edits `src/app.py` for `task`."""
    return [
        {
            "match": turn_of(name, f"#{warmup} [pending]"),
            "times": 1,
            "write": {f"{name}.txt": f"{name} was here\n"},
            "reply": decision("active", claim_task_id=warmup, summary=f"took #{warmup}"),
        },
        {
            "match": turn_of(name, f"#{warmup} [in_progress] owner {name}"),
            "times": 1,
            "reply": decision("active", complete_task_id=warmup, claim_task_id=task, complete_result="noted"),
        },
        {
            "match": turn_of(name, f"#{task} [in_progress] owner {name}"),
            "times": 1,
            "replace": {"src/app.py": ["return 1", line]},
            "reply": decision("active", summary=f"edited main for #{task}"),
        },
        {
            "match": turn_of(name, f"#{task} [in_progress] owner {name}"),
            "times": 1,
            "reply": decision("idle", complete_task_id=task, complete_result="main edited"),
        },
    ]


async def test_a_conflicted_patch_keeps_its_task_open_and_tells_the_member_and_the_lead_why(team_env, call):
    team_env.scenario(
        *_editor("alice", 3, 1, "return 2"),
        *_editor("bob", 4, 2, "return 3"),
        {"match": "You are ", "reply": decision("idle", summary="waiting")},
    )
    team = (await call("start", goal="change main")).team.id
    for name in ("alice", "bob"):
        await call("spawn", team=team, name=name, provider="codex", mode="edit")
    for title in ("main returns 2", "main returns 3", "alice's note", "bob's note"):
        await call("tasks_add", team=team, title=title)

    await call("run", team=team)

    status = await call("status", team=team)
    tasks = {t.id: t for t in status.tasks}
    states = {p.patch_id: p.state for p in status.patches}
    assert sorted(states.values()) == ["conflicted", "staged", "staged", "staged"]
    lost = next(p for p in status.patches if p.state == "conflicted")
    assert lost.files == ["src/app.py"] and (lost.added, lost.removed) == (1, 1)
    loser, winner = ("alice", "bob") if lost.member == "alice" else ("bob", "alice")
    lost_task, won_task = (1, 2) if loser == "alice" else (2, 1)
    assert lost.task_id == lost_task
    assert tasks[lost_task].status == "in_progress" and tasks[lost_task].owner == loser
    assert tasks[won_task].status == "completed"
    won_patch = tasks[won_task].evidence["patch_id"]
    assert states[won_patch] == "staged"
    assert next(p for p in status.patches if p.patch_id == won_patch).member == winner
    # the earlier, unrelated patch of the winner is the evidence of its own task only
    assert tasks[3 if winner == "alice" else 4].evidence["patch_id"] != won_patch

    told = [m.body for m in (await call("inbox", team=team, **{"for": loser})).messages if m.sender == "pallium"]
    assert any("did not land" in b and "conflict" in b for b in told)
    assert any(f"task #{lost_task} was not completed" in b for b in told)
    lead = [m.body for m in (await call("inbox", team=team, **{"for": "lead"})).messages]
    said = next(b for b in lead if "is conflicted and was not staged" in b)
    reason = said.split("): ", 1)[1]
    assert reason.strip() and reason != "[]" and "conflicts with" in reason


async def test_a_member_sees_its_own_and_claimable_tasks_before_the_rest_and_how_many_were_left_out(team_env, call):
    team_env.scenario(
        {"match": turn_of("bob", "#32 [pending]"), "times": 1, "reply": decision("active", claim_task_id=32)},
        {"match": "You are ", "reply": decision("idle", summary="waiting")},
    )
    team = (await call("start", goal="many tasks")).team.id
    await call("spawn", team=team, name="bob", provider="codex")
    await call("join", team=team, **{"as": "me"})
    first = (await call("tasks_add", team=team, title="the blocker")).task.id
    await call("tasks_claim", team=team, task_id=first, **{"as": "me"})
    for i in range(30):
        await call("tasks_add", team=team, title=f"after the blocker {i}", depends_on=[first])
    for i in range(5):
        await call("tasks_add", team=team, title=f"free work {i}")

    await call("run", team=team, max_rounds=1)

    prompt = next(c["prompt"] for c in team_env.calls() if c["prompt"].startswith("You are bob,"))
    board = prompt[prompt.index("TASK BOARD") :]
    assert board.index("#32 [pending]") < board.index("#2 [pending]")
    assert all(f"#{i} [pending]" in board for i in range(32, 37))
    assert "(6 more open tasks not shown" in board
    tasks = {t.id: t for t in (await call("tasks_list", team=team, limit=100)).tasks}
    assert tasks[32].owner == "bob" and tasks[32].status == "in_progress"
