"""The product description's four team commands, typed as it prints them, with the scripted fake behind them."""

from __future__ import annotations

import re

from pallium_mcp.cli import main
from tests.services.teams.conftest import decision, turn_of

GOAL = "find the root cause of the checkout hang"
ROLE = "trace the failure"


def test_the_four_commands_as_written_do_the_roles_work(team_env, git_repo, capsys, monkeypatch):
    team_env.scenario(
        {
            "match": turn_of("reviewer", f"Team goal: {GOAL}", f"Your role: {ROLE}", "FIRST TURN"),
            "times": 1,
            "reply": decision(
                "active",
                add_tasks=[
                    {"title": "reproduce the hang", "description": "a script that hangs checkout"},
                    {"title": "bisect the hang", "depends_on": [1]},
                ],
                messages=[{"to": "lead", "body": "I split the goal into two tasks"}],
                summary="planned the work",
            ),
        },
        {
            "match": turn_of("reviewer", "#1 [pending]"),
            "times": 1,
            "reply": decision("active", claim_task_id=1, summary="took #1"),
        },
        {
            "match": turn_of("reviewer", "#1 [in_progress] owner reviewer"),
            "times": 1,
            "reply": decision(
                "idle", complete_task_id=1, complete_result="hangs when the cart lock is held", summary="done #1"
            ),
        },
        {"match": "You are ", "reply": decision("idle", summary="nothing left")},
    )
    monkeypatch.chdir(git_repo)

    def run(*argv: str) -> tuple[int, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, out

    code, started = run("team", "start", GOAL)
    assert code == 0
    team = re.match(r"team (team-\S+):", started).group(1)  # type: ignore[union-attr]
    assert started.splitlines()[-1] == f'  next: pallium team spawn {team} NAME --role "what it does"'
    code, spawned = run("team", "spawn", team, "reviewer", "--role", ROLE)
    assert code == 0 and spawned.splitlines()[-1] == f"  next: pallium team run {team}"
    code, ran = run("team", "run", team)
    assert code == 0
    assert ran.splitlines()[-1].startswith("  next: pallium team ")
    code, status = run("team", "status", team)
    assert code == 0 and status.splitlines()[-1].startswith("  next: pallium team ")

    first = next(c for c in team_env.calls() if c["prompt"].startswith("You are reviewer,"))
    assert GOAL in first["prompt"] and ROLE in first["prompt"]
    code, listed = run("team", "tasks", "list", team, "--json")
    import json

    tasks = {t["id"]: t for t in json.loads(listed)["tasks"]}
    assert tasks[1]["created_by"] == "reviewer" and tasks[1]["status"] == "completed"
    assert tasks[1]["result"] == "hangs when the cart lock is held"
    assert tasks[2]["title"] == "bisect the hang" and tasks[2]["depends_on"] == [1]
    assert "#2" in status and "bisect the hang" in status


def test_status_and_run_name_the_next_command_when_nothing_is_eligible(team_env, git_repo, capsys, monkeypatch):
    team_env.scenario({"match": "You are ", "reply": decision("idle", summary="nothing to do")})
    monkeypatch.chdir(git_repo)
    assert main(["team", "start", GOAL, "--id", "team-quiet"]) == 0
    assert main(["team", "spawn", "team-quiet", "alice", "--role", ROLE]) == 0
    assert main(["team", "run", "team-quiet"]) == 0
    assert main(["team", "run", "team-quiet"]) == 0  # nobody eligible now: it says what to do instead
    out = capsys.readouterr().out.splitlines()
    assert out[-2].endswith("no member is eligible (no mail, nudge or claimable work)")
    assert out[-1] == (
        '  next: pallium team tasks add team-quiet "what to do next", or pallium team send team-quiet --to alice "..."'
    )
