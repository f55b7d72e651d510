"""Every dead end a team could reach has a command out of it, and no mistake passes silently."""

from __future__ import annotations

import json

import pytest

from kernel.errors import PalliumError
from pallium_mcp.cli import main
from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio


async def test_a_parked_team_is_given_more_budget_and_runs_again(team_env, call):
    team_env.scenario({"match": turn_of("payer"), "reply": decision("active"), "usage": {"cost_usd": 0.4}})
    team = (await call("start", goal="g", budget_usd=0.5, id="team-parked")).team.id
    await call("spawn", team=team, name="payer", provider="claude")
    first = await call("run", team=team)
    assert first.parked and first.team.spend_usd == pytest.approx(0.4)
    assert first.next_step.startswith(f"pallium team budget {team} --usd N")
    again = await call("start", goal="g", budget_usd=1, id=team)  # the old way out did nothing, silently
    assert again.existed and again.team.budget_usd == 0.5
    assert any(f"pallium team budget {team} --usd 1" in w for w in again.warnings)
    raised = await call("budget", team=team, usd=1.3)
    assert raised.team.status == "active" and raised.team.budget_usd == 1.3
    second = await call("run", team=team)
    assert second.turns_taken >= 1 and second.team.spend_usd > first.team.spend_usd


async def test_a_stopped_team_resumes_with_its_board_mail_and_staged_patches(team_env, call, git_repo):
    team_env.scenario(
        {"match": turn_of("ed"), "times": 1, "write": {"notes.txt": "n\n"}, "reply": decision("idle")},
        {"match": "You are ", "reply": decision("idle")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="ed", provider="codex", mode="edit")
    await call("run", team=team)
    await call("tasks_add", team=team, title="later")
    await call("stop", team=team)
    stopped = await call("run", team=team)
    assert stopped.stopped and stopped.next_step == f"pallium team resume {team}"
    assert (await call("status", team=team)).next_step == f"pallium team resume {team}"
    assert (await call("resume", team=team)).team.status == "active"
    status = await call("status", team=team)
    assert [p.state for p in status.patches] == ["staged"] and [t.title for t in status.tasks] == ["later"]
    assert (await call("run", team=team)).turns_taken == 1  # the new board reaches ed


async def test_the_task_of_a_member_in_error_is_released_to_the_board(team_env, call):
    team_env.scenario({"match": turn_of("bob"), "exit": 1})
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="bob", provider="codex")
    task = (await call("tasks_add", team=team, title="stuck")).task.id
    await call("tasks_claim", team=team, task_id=task, **{"as": "bob"})
    for _ in range(3):  # three failed turns running: bob is in error, the task still his
        await call("nudge", team=team, member="bob")
        await call("run", team=team)
    bob = next(m for m in (await call("status", team=team)).members if m.name == "bob")
    assert bob.status == "error"
    released = await call("tasks_release", team=team, task_id=task)
    assert released.task.status == "pending" and released.task.owner is None
    told = [m.body for m in (await call("inbox", team=team, **{"for": "bob"})).messages]
    assert any(f"task #{task} was released" in b for b in told)
    with pytest.raises(PalliumError) as again:
        await call("tasks_release", team=team, task_id=task)
    assert again.value.code == "conflict"


async def test_approve_needs_a_plan_and_a_waiting_member_cannot_hold_tasks(team_env, call):
    team_env.scenario(
        {"match": turn_of("planner"), "reply": decision("blocked", claim_task_id=1, summary="my plan: step 1")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="planner", provider="codex", mode="edit", plan_required=True)
    await call("tasks_add", team=team, title="work")
    with pytest.raises(PalliumError) as early:
        await call("approve", team=team, member="planner")
    assert early.value.code == "conflict" and "has not sent one yet" in early.value.message
    assert not [m for m in (await call("inbox", team=team, **{"for": "planner"})).messages if "approved" in m.body]
    await call("run", team=team, max_rounds=1)
    tasks = (await call("tasks_list", team=team)).tasks
    assert tasks[0].status == "pending" and tasks[0].owner is None
    told = [m.body for m in (await call("inbox", team=team, **{"for": "planner"})).messages]
    assert any("your plan is not approved yet" in b for b in told)
    approved = await call("approve", team=team, member="planner")
    assert approved.member.mode == "edit" and approved.member.plan_status == "approved"


async def test_the_ceiling_a_team_started_under_binds_its_later_spawns(team_env, call):
    team = (await call("start", goal="g", ceiling="consult")).team.id
    assert (await call("status", team=team)).team.ceiling == "consult"
    with pytest.raises(PalliumError) as refused:
        await call("spawn", team=team, name="ed", mode="edit", provider="codex")  # this call itself may edit
    assert refused.value.code == "authority_exceeded"
    await call("spawn", team=team, name="reader", provider="codex")


async def test_a_read_only_member_that_writes_is_told_which_files_were_discarded(team_env, call, git_repo):
    team_env.scenario(
        {"match": turn_of("reader"), "times": 1, "write": {"notes.txt": "mine\n"}, "reply": decision("idle")},
        {"match": "You are ", "reply": decision("idle")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="reader", provider="fake")  # the fake cannot confine itself
    await call("run", team=team, max_rounds=1)
    assert not (git_repo / "notes.txt").exists()
    told = [m.body for m in (await call("inbox", team=team, **{"for": "reader"})).messages]
    assert any("read-only member" in b and "notes.txt" in b for b in told)


async def test_silent_mistakes_are_refused_at_spawn(team_env, call):
    team = (await call("start", goal="g", budget_usd=0.05)).team.id
    with pytest.raises(PalliumError) as unknown:
        await call("spawn", team=team, name="x", provider="nosuch")
    assert unknown.value.code == "invalid_input" and "PALLIUM_WORKFLOW_PROVIDER_NOSUCH_COMMAND" in unknown.value.message
    with pytest.raises(PalliumError) as above:
        await call("spawn", team=team, name="rich", provider="claude", budget_usd=10)
    assert above.value.code == "invalid_input" and above.value.details["team_budget_usd"] == 0.05
    assert [m.name for m in (await call("status", team=team)).members] == ["lead"]


async def test_a_provider_that_reports_no_cost_is_capped_and_said_so(team_env, call):
    team_env.scenario({"match": turn_of("cx"), "reply": decision("active", summary="again")})
    team = (await call("start", goal="g", budget_usd=0.05)).team.id
    spawned = await call("spawn", team=team, name="cx", provider="codex")
    assert spawned.member.max_calls == 20
    assert any("codex reports no cost" in w and "capped at 20 calls" in w for w in spawned.warnings)
    await call("budget", team=team, member="cx", calls=2)
    out = await call("run", team=team)
    status = await call("status", team=team)
    cx = next(m for m in status.members if m.name == "cx")
    assert out.turns_taken == 2 and cx.calls == 2 and status.team.calls == 2


async def test_calls_that_never_started_are_not_counted(team_env, call, monkeypatch):
    monkeypatch.setenv("PALLIUM_CLAUDE_BIN", "no-such-claude-here")
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="gone", provider="claude")
    out = await call("run", team=team, max_rounds=1)
    assert [t.state for t in out.turns] == ["failed"]
    status = await call("status", team=team)
    assert status.team.unknown_cost_calls == 0 and status.team.calls == 0


def test_run_exits_1_when_every_turn_failed_and_template_start_says_run(team_env, git_repo, capsys, monkeypatch):
    team_env.scenario({"match": "You are ", "exit": 1})
    monkeypatch.chdir(git_repo)
    assert (
        main(["team", "start", "g", "--template", "adversarial-debate", "--provider", "codex", "--id", "team-t"]) == 0
    )
    assert capsys.readouterr().out.splitlines()[-1] == "  next: pallium team run team-t"
    assert main(["team", "run", "team-t", "--max-rounds", "1"]) == 1
    assert "every turn failed" in capsys.readouterr().out
    assert main(["team", "spawn", "team-t", "x", "--provider", "nosuch"]) == 2


async def test_diff_and_apply_one_patch_of_several(team_env, call, git_repo):
    team_env.scenario(
        {"match": turn_of("alice"), "times": 1, "write": {"a.txt": "a\n"}, "reply": decision("idle")},
        {"match": turn_of("bob"), "times": 1, "write": {"b.txt": "b\nb\n"}, "reply": decision("idle")},
        {"match": "You are ", "reply": decision("idle")},
    )
    team = (await call("start", goal="g")).team.id
    for name in ("alice", "bob"):
        await call("spawn", team=team, name=name, provider="codex", mode="edit")
    await call("run", team=team)
    status = await call("status", team=team)
    by = {p.member: p for p in status.patches}
    assert (by["alice"].files, by["alice"].added) == (["a.txt"], 1)
    assert (by["bob"].files, by["bob"].added) == (["b.txt"], 2)
    shown = await call("diff", team=team, member="bob")
    assert [p.member for p in shown.patches] == ["bob"] and "+b" in shown.diff and "a.txt" not in shown.diff
    one = await call("apply", team=team, patch=[by["bob"].patch_id])
    assert one.applied == [by["bob"].patch_id]
    assert (git_repo / "b.txt").exists() and not (git_repo / "a.txt").exists()
    with pytest.raises(PalliumError) as unknown:
        await call("apply", team=team, patch=["nope"])
    assert unknown.value.code == "not_found"
    status = await call("status", team=team)
    ed = {m.name: m for m in status.members}
    # your tree changed (bob's patch is in it now): nobody's "works on" line may still say current
    assert ed["alice"].snapshot_current is False


def test_watch_piped_prints_plain_lines_once(team_env, git_repo, capsys, monkeypatch):
    monkeypatch.chdir(git_repo)
    assert main(["team", "start", "g", "--id", "team-w"]) == 0
    assert main(["team", "spawn", "team-w", "alice", "--provider", "codex"]) == 0
    capsys.readouterr()
    assert main(["team", "watch", "team-w", "--frames", "2", "--interval", "0.2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("team team-w [active]") and "\x1b[" not in "".join(lines)
    assert len([line for line in lines if line.startswith("  alice")]) == 1  # unchanged: not printed again
    assert main(["team", "watch", "team-w", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["frames"] == 1


# a wrapper that makes its session (a token in the session file) at once, like a CLI that opens one first;
# its first call is killed right after, before it answers
SESSION_WRAPPER = (
    'f="$PALLIUM_WORKFLOW_SESSION_FILE"; if [ ! -s "$f" ]; then t="tok-$$"; echo "$t" >> "{tokens}"; '
    'printf %s "$t" > "$f"; fi; '
    'if [ ! -e "{killed}" ]; then : > "{killed}"; kill -9 $$; fi; '
    'printf \'{{"status": "idle", "summary": "resumed %s"}}\' "$(cat "$f")"'
)


async def test_a_wrapper_member_killed_in_its_first_turn_keeps_one_session(team_env, call, tmp_path, monkeypatch):
    tokens, killed = tmp_path / "tokens.txt", tmp_path / "killed"
    monkeypatch.setenv(
        "PALLIUM_WORKFLOW_PROVIDER_WRAPBOT_COMMAND", SESSION_WRAPPER.format(tokens=tokens, killed=killed)
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="w", provider="wrapbot")
    first = await call("run", team=team, max_rounds=1)
    assert [t.state for t in first.turns] == ["failed"]
    await call("nudge", team=team, member="w")
    second = await call("run", team=team, max_rounds=1)
    assert [t.state for t in second.turns] == ["completed"]
    made = tokens.read_text().split()
    assert len(made) == 1 and second.turns[0].detail == f"resumed {made[0]}"
    w = next(m for m in (await call("status", team=team)).members if m.name == "w")
    assert w.session_id == made[0]
