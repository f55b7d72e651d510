"""Every team tool through the real MCP client, and every team command through the CLI."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from pallium_mcp.cli import main
from pallium_mcp.registry import all_tools
from pallium_mcp.server import build_server
from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio

TEAM_TOOLS = sorted(t.name for t in all_tools() if t.toolset == "teams")


async def test_every_team_tool_answers_over_mcp(team_env, git_repo):
    team_env.scenario(
        {"match": turn_of("rev", "#1 [pending]"), "times": 1, "reply": decision("idle", claim_task_id=1)},
        {"match": "You are ", "reply": decision("idle", summary="ok")},
        {"match": "Hook:", "reply": {"approved": True, "reason": "fine"}},
    )
    used = set()
    server = build_server(toolsets="teams", cwd=git_repo, ceiling="admin")
    async with Client(server) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert listed == set(TEAM_TOOLS)

        async def use(tool: str, **arguments):
            used.add(f"pallium_team_{tool}")
            result = await client.call_tool(f"pallium_team_{tool}", arguments)
            assert not result.is_error, result.content[0].text
            return result.structured_content

        assert [t["name"] for t in (await use("template_list"))["templates"]] == [
            "parallel-review",
            "adversarial-debate",
        ]
        assert [m["name"] for m in (await use("template_show", name="adversarial-debate"))["members"]] == [
            "advocate",
            "skeptic",
        ]
        team = (await use("start", goal="review the app", budget_usd=5))["team"]["id"]
        await use("spawn", team=team, name="rev", provider="claude", role="reviewer")
        await use("spawn", team=team, name="planner", provider="codex", mode="edit", plan_required=True)
        await use("join", team=team, **{"as": "me"})
        await use("gate_set", team=team, hooks=["task_completed"], prompt="be precise", provider="claude")
        task = (await use("tasks_add", team=team, title="read app.py"))["task"]["id"]
        other = (await use("tasks_add", team=team, title="by hand"))["task"]["id"]
        await use("tasks_claim", team=team, task_id=other, **{"as": "me"})
        done = await use("tasks_complete", team=team, task_id=other, result="done", **{"as": "me"})
        assert done["outcome"] == "completed"
        await use("send", team=team, to="rev", body="start with main()", **{"from": "me"})
        await use("member_steer", team=team, member="rev", directive="be brief")
        await use("nudge", team=team, member="rev")
        assert (await use("budget", team=team, usd=6, calls=100))["team"]["max_calls"] == 100
        ran = await use("run", team=team)
        assert {t["member"] for t in ran["turns"]} == {"rev", "planner"}
        assert (await use("tasks_list", team=team))["tasks"][task - 1]["owner"] == "rev"
        inbox = await use("inbox", team=team, **{"for": "rev"})
        assert [m["kind"] for m in inbox["messages"]] == ["mail", "steer"]
        rev_prompt = next(c["prompt"] for c in team_env.calls() if c["prompt"].startswith("You are rev,"))
        assert rev_prompt.index("STEERING DIRECTIVE") < rev_prompt.index("start with main()")  # steering first
        assert all(m["delivered_turn"] for m in inbox["messages"])
        await use("reject", team=team, member="planner", feedback="smaller steps")
        await use("approve", team=team, member="planner")
        await use("member_stop", team=team, member="rev")
        await use("member_restart", team=team, member="rev")
        status = await use("status", team=team)
        assert {m["name"]: m["state"] for m in status["members"]}["rev"] in ("idle", "waiting")
        await use("attach", team=team)
        assert (await use("diff", team=team))["patches"] == []
        assert (await use("watch", team=team, frames=1))["view"].startswith(f"team {team}")
        held = (await use("tasks_add", team=team, title="held"))["task"]["id"]
        await use("tasks_claim", team=team, task_id=held, **{"as": "me"})
        assert (await use("tasks_release", team=team, task_id=held))["task"]["status"] == "pending"
        assert (await use("apply", team=team))["applied"] == []
        await use("revert", team=team)
        assert (await use("stop", team=team))["team"]["status"] == "stopped"
        assert (await use("resume", team=team))["team"]["status"] == "active"
        assert (await use("stop", team=team))["team"]["status"] == "stopped"
        assert [(t["id"], t["status"]) for t in (await use("list"))["teams"]] == [(team, "stopped")]
    assert used == set(TEAM_TOOLS)


def test_every_team_command_runs_from_the_cli(team_env, git_repo, capsys, monkeypatch):
    team_env.scenario({"match": "You are ", "reply": decision("idle", summary="ok")})
    monkeypatch.chdir(git_repo)

    def run(*argv: str) -> dict:
        code = main([*argv, "--json"])
        out, err = capsys.readouterr()
        assert code == 0, err
        return json.loads(out)

    assert main(["team", "template", "list"]) == 0 and "parallel-review" in capsys.readouterr().out
    run("team", "template", "show", "parallel-review")
    team = run("team", "start", "find the bug", "--template", "adversarial-debate", "--provider", "codex")["team"]["id"]
    run("team", "spawn", team, "alice", "--provider", "claude", "--role", "writer")
    run("team", "join", team, "--as", "me")
    gated = run("team", "gate", "set", team, "idle only when done", "--hooks", "teammate_idle,task_completed")
    assert gated["team"]["gate_hooks"] == ["teammate_idle", "task_completed"]
    assert run("team", "gate", "set", team, "--hooks", "")["team"]["gate_hooks"] == []
    first = run("team", "tasks", "add", team, "first")["task"]["id"]
    second = run("team", "tasks", "add", team, "second", "--depends-on", str(first))["task"]
    assert second["depends_on"] == [first]
    run("team", "tasks", "claim", team, str(first), "--as", "me")
    run("team", "tasks", "complete", team, str(first), "--as", "me", "--result", "done")
    run("team", "tasks", "list", team)
    run("team", "send", team, "--to", "alice", "--from", "me", "hello there")
    assert main(["team", "send", team, "--to", "alcie", "hello", "--json"]) == 1
    assert "alice" in json.loads(capsys.readouterr().err)["error"]["hint"]
    run("team", "member", "steer", team, "alice", "focus")
    run("team", "nudge", team, "advocate")
    assert run("team", "run", team, "--max-rounds", "2")["rounds"] >= 1
    assert main(["team", "status", team]) == 0 and f"team {team}" in capsys.readouterr().out
    run("team", "inbox", team, "--for", "me")
    run("team", "inbox", team, "--all")
    run("team", "member", "stop", team, "alice")
    run("team", "member", "restart", team, "alice")
    run("team", "attach", team)
    run("team", "apply", team)
    run("team", "revert", team, "--authority", "admin")
    assert main(["team", "approve", team, "alice", "--json"]) == 1  # no plan waiting
    assert json.loads(capsys.readouterr().err)["error"]["code"] == "conflict"
    assert main(["team", "reject", team, "alice", "no"]) == 1
    capsys.readouterr()
    assert run("team", "stop", team)["team"]["status"] == "stopped"
