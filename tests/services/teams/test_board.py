"""The board and its gates: racing claims, dependencies, evidence, each gate hook approving, rejecting, breaking."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from kernel.errors import PalliumError
from tests.services.teams.conftest import decision, turn_of
from tests.services.teams.test_crash import store

pytestmark = pytest.mark.anyio

RACE = textwrap.dedent(
    """
    import sys
    from kernel.context import ToolContext
    from kernel.runstore import SCHEMA as RUN_SCHEMA
    from services.teams.store import SCHEMA, TeamStore
    team, member, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    s = TeamStore(ToolContext().global_db([SCHEMA, RUN_SCHEMA]))
    won = [t for t in range(1, n + 1) if s.claim(team, t, member, now="2026-01-01T00:00:00Z") == "claimed"]
    print(",".join(map(str, won)))
    """
)


async def test_claims_racing_from_two_processes_give_each_task_to_exactly_one(call):
    team = (await call("start", goal="g")).team.id
    for name in ("a", "b"):
        await call("join", team=team, **{"as": name})
    for i in range(40):
        await call("tasks_add", team=team, title=f"task {i}")
    racers = [
        subprocess.Popen([sys.executable, "-c", RACE, team, who, "40"], stdout=subprocess.PIPE, text=True)
        for who in ("a", "b")
    ]
    won = [set(filter(None, p.communicate(timeout=60)[0].strip().split(","))) for p in racers]
    assert won[0].isdisjoint(won[1]) and len(won[0] | won[1]) == 40
    owners = {t.id: t.owner for t in store().tasks(team)}
    assert {str(i) for i, o in owners.items() if o == "a"} == won[0]


async def test_a_claim_waits_for_its_dependencies_and_only_the_owner_completes(call):
    team = (await call("start", goal="g")).team.id
    await call("join", team=team, **{"as": "ext"})
    first = (await call("tasks_add", team=team, title="first")).task.id
    second = (await call("tasks_add", team=team, title="second", depends_on=[first])).task.id
    with pytest.raises(PalliumError) as blocked:
        await call("tasks_claim", team=team, task_id=second, **{"as": "ext"})
    assert blocked.value.details["reason"] == "blocked_by_dependency"
    await call("tasks_claim", team=team, task_id=first, **{"as": "ext"})
    with pytest.raises(PalliumError) as not_owner:
        await call("tasks_complete", team=team, task_id=first, **{"as": "lead"})
    assert not_owner.value.code == "conflict"
    done = await call("tasks_complete", team=team, task_id=first, result="ok", **{"as": "ext"})
    assert (done.outcome, done.task.status) == ("completed", "completed")
    assert (await call("tasks_claim", team=team, task_id=second, **{"as": "ext"})).task.owner == "ext"


async def test_a_task_requiring_evidence_completes_only_with_it(call):
    team = (await call("start", goal="g")).team.id
    await call("join", team=team, **{"as": "ext"})
    task = (await call("tasks_add", team=team, title="fix", requires=["check"])).task.id
    await call("tasks_claim", team=team, task_id=task, **{"as": "ext"})
    with pytest.raises(PalliumError) as missing:
        await call("tasks_complete", team=team, task_id=task, **{"as": "ext"})
    assert missing.value.details["field"] == "evidence"
    done = await call("tasks_complete", team=team, task_id=task, check_result_id="chk-1", **{"as": "ext"})
    assert done.task.evidence == {"check_result_id": "chk-1"}


@pytest.mark.parametrize("verdict", ["approved", "rejected", "broken"])
async def test_task_created_gate_approves_rejects_or_fails_closed(team_env, call, verdict):
    replies = {
        "approved": {"reply": {"approved": True, "reason": "clear"}},
        "rejected": {"reply": {"approved": False, "reason": "too vague"}},
        "broken": {"error_class": "auth"},
    }
    team_env.scenario({"match": "Hook: task_created", **replies[verdict]})
    team = (await call("start", goal="g")).team.id
    await call("gate_set", team=team, hooks=["task_created"], prompt="tasks must be specific", provider="claude")
    if verdict == "approved":
        assert (await call("tasks_add", team=team, title="do it")).outcome == "created"
    else:
        with pytest.raises(PalliumError) as refused:
            await call("tasks_add", team=team, title="do it")
        assert refused.value.details["outcome"] == verdict
    assert len((await call("tasks_list", team=team)).tasks) == (verdict == "approved")
    assert len(team_env.calls()) == 1  # the gate's one model call


@pytest.mark.parametrize("verdict", ["approved", "rejected", "broken"])
async def test_task_completed_gate_completes_reopens_or_requeues_to_the_owner(team_env, call, verdict):
    replies = {
        "approved": {"reply": {"approved": True, "reason": "tested"}, "usage": {"cost_usd": 0.02}},
        "rejected": {"reply": {"approved": False, "reason": "no test"}, "usage": {"cost_usd": 0.02}},
        "broken": {"raw": "garbage", "exit": 0},
    }
    team_env.scenario({"match": "Hook: task_completed", **replies[verdict]})
    team = (await call("start", goal="g")).team.id
    await call("join", team=team, **{"as": "ext"})
    await call("gate_set", team=team, hooks="task_completed", prompt="needs a test", provider="claude")
    task = (await call("tasks_add", team=team, title="fix")).task.id
    await call("tasks_claim", team=team, task_id=task, **{"as": "ext"})
    done = await call("tasks_complete", team=team, task_id=task, result="fixed", **{"as": "ext"})
    expected = {
        "approved": ("completed", "completed", "ext"),
        "rejected": ("rejected", "pending", None),
        "broken": ("requeued", "in_progress", "ext"),
    }[verdict]
    assert (done.outcome, done.task.status, done.task.owner) == expected
    mail = [m.body for m in (await call("inbox", team=team, **{"for": "ext"})).messages]
    assert (verdict == "approved") == (mail == [])
    status = await call("status", team=team)
    assert status.team.spend_usd == (0.0 if verdict == "broken" else 0.02)  # gate calls count toward spend


@pytest.mark.parametrize("verdict", ["approved", "rejected", "broken"])
async def test_teammate_idle_gate_lets_go_keeps_working_or_fails_closed(team_env, call, verdict):
    replies = {
        "approved": {"reply": {"approved": True, "reason": "done"}},
        "rejected": {"reply": {"approved": False, "reason": "tests are red"}},
        "broken": {"error_class": "auth"},
    }
    team_env.scenario(
        {"match": "Hook: teammate_idle", **replies[verdict]},
        {"match": turn_of("alice"), "reply": decision("idle", summary="all done")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    await call("gate_set", team=team, hooks=["teammate_idle"], prompt="idle only when green", provider="claude")
    await call("nudge", team=team, member="alice")
    await call("run", team=team, max_rounds=1)
    alice = next(m for m in (await call("status", team=team)).members if m.name == "alice")
    assert alice.status == ("idle" if verdict == "approved" else "active")
    if verdict != "approved":
        notes = [m.body for m in (await call("inbox", team=team, **{"for": "alice"})).messages]
        assert any("idle" in n for n in notes)


async def test_plan_required_member_stays_read_only_until_the_lead_approves(team_env, call):
    team_env.scenario(
        {"match": turn_of("ed", "PLAN REVIEW"), "reply": decision("blocked", summary="plan: edit app.py")},
        {"match": turn_of("ed", "approved"), "reply": decision("idle", summary="did it")},
    )
    team = (await call("start", goal="g")).team.id
    spawned = await call(
        "spawn", team=team, name="ed", provider="claude", mode="edit", plan_required=True, ceiling="consult"
    )
    assert (spawned.member.mode, spawned.member.plan_status) == ("read-only", "pending")
    await call("nudge", team=team, member="ed")
    await call("run", team=team)
    lead = [m for m in (await call("inbox", team=team, **{"for": "lead"})).messages if m.sender == "ed"]
    assert "plan: edit app.py" in lead[0].body
    with pytest.raises(PalliumError) as needs_edit:
        await call("approve", team=team, member="ed", ceiling="consult")
    assert needs_edit.value.code == "authority_exceeded"
    approved = await call("approve", team=team, member="ed")
    assert (approved.member.mode, approved.member.plan_status) == ("edit", "approved")
    await call("run", team=team)
    calls = [c for c in team_env.calls() if c["prompt"].startswith("You are ed,")]
    assert [c["mode"] for c in calls] == ["read-only", "edit"]


async def test_the_team_parks_when_known_spend_reaches_its_budget_and_unknown_cost_is_listed(team_env, call):
    team_env.scenario(
        {"match": turn_of("payer"), "reply": decision("active", summary="working"), "usage": {"cost_usd": 0.4}},
        {"match": turn_of("free"), "reply": decision("active", summary="working")},
    )
    team = (await call("start", goal="g", budget_usd=1.0)).team.id
    await call("spawn", team=team, name="payer", provider="claude")
    await call("spawn", team=team, name="free", provider="codex")
    for name in ("payer", "free"):
        await call("nudge", team=team, member=name)
    out = await call("run", team=team)
    assert out.parked and out.team.status == "parked"
    # the budget binds before the call: a turn that, with those in flight, could pass $1 never starts
    # (each holds the dearest known turn's $0.40, the cost-less codex member's too)
    assert out.team.spend_usd == pytest.approx(0.8) and out.rounds == 2
    refused = [t for t in out.turns if t.state == "skipped"]
    assert refused and all("would pass $1.0000" in t.detail for t in refused)
    status = await call("status", team=team)
    assert status.untracked_cost_providers == ["codex"]
    assert "unknown" in status.spend and "$0.0000" not in status.spend
    again = await call("run", team=team)
    assert again.parked and again.turns_taken == 0


async def test_a_member_repeating_one_decision_is_escalated_to_the_lead(team_env, call):
    team_env.scenario({"match": turn_of("loopy"), "reply": decision("active", status_reason="thinking")})
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="loopy", provider="codex")
    await call("nudge", team=team, member="loopy")
    out = await call("run", team=team)
    assert out.turns_taken == 3
    loopy = next(m for m in (await call("status", team=team)).members if m.name == "loopy")
    assert loopy.status == "blocked"
    lead = [m.body for m in (await call("inbox", team=team, **{"for": "lead"})).messages]
    assert any("same decision 3 turns running" in b for b in lead)


async def test_a_lost_session_restarts_fresh_with_a_handoff_and_status_says_so(team_env, call):
    team_env.scenario({"match": "You are ", "reply": decision("idle", summary="reviewed module A")})
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    await call("send", team=team, to="alice", body="review A")
    await call("run", team=team)
    first = next(m for m in (await call("status", team=team)).members if m.name == "alice").session_id
    (team_env.root / "sessions.txt").write_text("", encoding="utf-8")  # the CLI lost its transcripts
    await call("send", team=team, to="alice", body="now review B")
    await call("run", team=team)
    alice = next(m for m in (await call("status", team=team)).members if m.name == "alice")
    assert alice.session_id != first and alice.session_established
    assert "fresh session with a handoff" in alice.session_note
    calls = [c for c in team_env.calls() if c["prompt"].startswith("You are alice,")]
    # the refused `--resume` never reaches the fake's log (the CLI fails before reading the prompt)
    assert len(calls) == 2 and calls[1]["argv"][calls[1]["argv"].index("--session-id") + 1] == alice.session_id
    assert "HANDOFF" in calls[1]["prompt"] and "reviewed module A" in calls[1]["prompt"]
    assert "now review B" in calls[1]["prompt"]
    assert [t.session_mode for t in store().turns(team)] == ["fresh_handoff", "new"]
    assert [m.delivered_turn is not None for m in (await call("inbox", team=team, **{"for": "alice"})).messages] == [
        True,
        True,
    ]


async def test_status_output_is_plain_json(call):
    team = (await call("start", goal="g", template="parallel-review")).team.id
    status = await call("status", team=team)
    assert [m.name for m in status.members] == ["lead", "correctness-reviewer", "concurrency-reviewer", "zombie-hunter"]
    assert {m.mode for m in status.members} == {"read-only"}
    assert json.loads(status.model_dump_json())["team"]["id"] == team


async def test_a_request_retried_with_its_request_id_answers_the_first_instead_of_repeating(team_env, call):
    team_env.scenario({"match": "You are ", "reply": decision("blocked", summary="my plan")})
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="ana", provider="claude", plan_required=True)
    await call("spawn", team=team, name="bo", provider="claude")
    twice = [await call("send", team=team, to="ana", body="hi", request_id="r-send") for _ in range(2)]
    assert twice[0].message.id == twice[1].message.id
    tasks = [await call("tasks_add", team=team, title="t", request_id="r-task") for _ in range(2)]
    assert tasks[0].task.id == tasks[1].task.id
    claims = [await call("tasks_claim", team=team, task_id=1, request_id="r-claim", **{"as": "bo"}) for _ in range(2)]
    assert [c.outcome for c in claims] == ["claimed", "claimed"]
    done = [
        await call("tasks_complete", team=team, task_id=1, result="ok", request_id="r-done", **{"as": "bo"})
        for _ in range(2)
    ]
    assert [d.outcome for d in done] == ["completed", "completed"]  # the second is not refused as already done
    steer = [await call("member_steer", team=team, member="ana", directive="d", request_id="r-steer") for _ in range(2)]
    assert steer[0].message.id == steer[1].message.id
    await call("run", team=team, max_rounds=1)  # ana sends its plan: now there is one to approve
    approved = [await call("approve", team=team, member="ana", request_id="r-ok") for _ in range(2)]
    assert [a.member.plan_status for a in approved] == ["approved", "approved"]  # no "no plan waiting" conflict
    inbox = (await call("inbox", team=team, **{"for": "ana"})).messages
    assert sorted(m.body[:10] for m in inbox) == ["STEERING D", "Your plan ", "hi"]
    assert [t.id for t in (await call("tasks_list", team=team)).tasks] == [1]
    with pytest.raises(PalliumError) as again:  # without a request id, a repeat is a new request
        await call("approve", team=team, member="ana")
    assert again.value.code == "conflict"
