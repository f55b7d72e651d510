"""A thousand messages through member crashes, provider errors, malformed replies and a killed orchestrator."""

from __future__ import annotations

import pytest

from kernel import dispatch
from kernel.context import ToolContext
from tests.services.teams.conftest import decision, turn_of
from tests.services.teams.test_crash import assert_each_message_delivered_once, store, team_run

pytestmark = pytest.mark.anyio

MEMBERS = ("m1", "m2", "m3", "m4")


async def test_a_thousand_sends_with_injected_faults_lose_nothing_and_deliver_nothing_twice(team_env, call, git_repo):
    team_env.scenario(
        {"match": turn_of("m1", "message"), "times": 1, "crash_after_write": True},  # the member dies mid-turn
        {"match": turn_of("m2", "message"), "times": 1, "error_class": "rate_limit"},  # the provider fails
        {"match": turn_of("m3", "message 402\n"), "times": 1, "kill_orchestrator": True},  # `team run` killed later
        {"match": turn_of("m4", "message"), "times": 2, "reply": "no JSON here"},  # malformed, and again on retry
        {"match": "You are ", "reply": decision("idle", summary="read")},
    )
    team = (await call("start", goal="relay")).team.id
    for name, provider in zip(MEMBERS, ("claude", "codex", "claude", "codex"), strict=True):
        await call("spawn", team=team, name=name, provider=provider)
    ctx = ToolContext(cwd=git_repo)
    try:
        for i in range(1000):
            await dispatch.call("pallium_team_send", {"team": team, "to": MEMBERS[i % 4], "body": f"message {i}"}, ctx)
    finally:
        ctx.close()

    exits = []
    for _ in range(10):
        exits.append(team_run(git_repo, team).returncode)
        waiting = store().count_undelivered(team)
        if exits[-1] == 0 and not any(waiting.get(m) for m in MEMBERS):
            break
    assert -9 in exits and exits[-1] == 0, exits

    assert_each_message_delivered_once(team)
    s = store()
    sent = [m for m in s.messages(team, recipient=None, after=0, limit=10_000) if m.recipient in MEMBERS]
    assert len(sent) == 1000 and all(m.delivered_turn for m in sent)
    states = {t.state for t in s.turns(team, limit=10_000)}
    assert {"completed", "failed", "malformed", "interrupted"} <= states
    lead = [m.body for m in s.messages(team, recipient="lead", after=0, limit=10_000)]
    assert any(b.startswith("turn failed: m1") for b in lead) and any(b.startswith("turn failed: m2") for b in lead)
    assert any(b.startswith("malformed decision from m4") for b in lead)
