"""A whole team run against the fake claude and codex: claims, completions, mail with receipts, sessions."""

from __future__ import annotations

import pytest

from kernel.errors import PalliumError
from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio


async def test_team_runs_to_completion_with_mail_receipts_and_resumed_sessions(team_env, call):
    team_env.scenario(
        {
            "match": turn_of("alice", "#1 [pending]"),
            "times": 1,
            "reply": decision(
                "active", claim_task_id=1, messages=[{"to": "bob", "body": "I took task 1"}], summary="claimed task 1"
            ),
        },
        {
            "match": turn_of("alice", "#1 [in_progress] owner alice"),
            "times": 1,
            "reply": decision(
                "idle",
                complete_task_id=1,
                complete_result="report written",
                messages=[{"to": "bob", "body": "task 1 is done"}],
                summary="finished task 1",
            ),
        },
        {"match": turn_of("bob", "I took task 1"), "times": 1, "reply": decision("idle", summary="noted the claim")},
        {"match": turn_of("bob", "task 1 is done"), "times": 1, "reply": decision("idle", summary="noted the end")},
        {"match": "You are ", "reply": decision("idle", summary="nothing to do")},
    )
    started = await call("start", goal="write the report")
    team = started.team.id
    assert [m.name for m in started.members] == ["lead"]
    await call("spawn", team=team, name="alice", provider="claude", role="writer")
    await call("spawn", team=team, name="bob", provider="codex", role="reader")
    await call("tasks_add", team=team, title="write the report")

    out = await call("run", team=team)

    assert out.reason.startswith("no member is eligible")
    tasks = (await call("tasks_list", team=team)).tasks
    assert [(t.status, t.owner, t.result) for t in tasks] == [("completed", "alice", "report written")]
    mail = (await call("inbox", team=team, **{"for": "bob"})).messages
    assert [m.body for m in mail] == ["I took task 1", "task 1 is done"]
    status = await call("status", team=team)
    turns_of = {m.name: m for m in status.members}
    # bob's first turn came before any mail (the new board made him eligible); then one turn per message
    assert turns_of["alice"].turn_count == 2 and turns_of["bob"].turn_count == 3
    assert len({m.delivered_turn for m in mail}) == 2 and all(m.delivered_turn for m in mail)

    calls = team_env.calls()
    alice = [c for c in calls if c["prompt"].startswith("You are alice,")]
    bob = [c for c in calls if c["prompt"].startswith("You are bob,")]
    session = turns_of["alice"].session_id
    assert "--session-id" in alice[0]["argv"] and session in alice[0]["argv"]
    assert all(c["argv"][c["argv"].index("--resume") + 1] == session for c in alice[1:])
    assert "resume" not in bob[0]["argv"]
    thread = bob[0]["session"]
    assert all(c["argv"][c["argv"].index("resume") + 1] == thread == turns_of["bob"].session_id for c in bob[1:])
    with_mail = bob[1]["prompt"]
    assert "NOT from the human operator" in with_mail and "message 1 from alice" in with_mail


async def test_mail_to_a_name_not_on_the_roster_is_refused_with_the_roster(team_env, call):
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    with pytest.raises(PalliumError) as refused:
        await call("send", team=team, to="alcie", body="hello")
    assert refused.value.code == "not_found"
    assert refused.value.details["roster"] == ["lead", "alice"]
    assert refused.value.details["suggestion"] == "alice"
    assert (await call("inbox", team=team, all=True)).messages == []


async def test_a_members_message_to_an_unknown_name_is_kept_for_the_lead_and_the_sender_told(team_env, call):
    team_env.scenario(
        {
            "match": turn_of("alice"),
            "times": 1,
            "reply": decision("idle", messages=[{"to": "bobb", "body": "look at app.py"}]),
        },
        {"match": "You are ", "reply": decision("idle")},
    )
    team = (await call("start", goal="g")).team.id
    await call("spawn", team=team, name="alice", provider="claude")
    await call("nudge", team=team, member="alice")
    await call("run", team=team)
    lead = (await call("inbox", team=team, **{"for": "lead"})).messages
    assert any("bobb" in m.body and "look at app.py" in m.body for m in lead)
    to_alice = (await call("inbox", team=team, **{"for": "alice"})).messages
    assert any("was not sent" in m.body and "roster" in m.body for m in to_alice)
