"""Answers of the team tools, pinned on the fixed repository with the fake provider as claude and codex.

See test_snapshots.py for how to update them; tests/pallium_mcp/snapshots.py says what is replaced.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inline_snapshot import snapshot

from tests.kernel.conftest import fake  # noqa: F401  (the fixture team_env builds on)
from tests.pallium_mcp.snapshots import Answers
from tests.services.teams.conftest import decision, team_env, turn_of  # noqa: F401  (team_env is a fixture)

pytestmark = pytest.mark.anyio


async def test_team_tools_answer_in_a_fixed_shape(team_env, fixed_repo: Path, tmp_path: Path):  # noqa: F811
    team_env.scenario(
        {"match": turn_of("rev", "#1 [pending]"), "times": 1, "reply": decision("idle", claim_task_id=1)},
        {"match": "You are ", "reply": decision("idle", summary="ok")},
        {"match": "Hook:", "reply": {"approved": True, "reason": "fine"}},
    )
    answer = Answers(fixed_repo, tmp=tmp_path)
    team = "team-0123456789"
    assert await answer("team template list") == snapshot(
        {
            "templates": [
                {
                    "name": "parallel-review",
                    "description": "Three read-only reviewers look at the same change from different angles and report to the lead.",
                    "members": [
                        {
                            "name": "correctness-reviewer",
                            "role": "Review for correctness: wrong results, unhandled inputs, broken invariants, missing tests. Cite file and line for every finding.",
                            "mode": "read-only",
                        },
                        {
                            "name": "concurrency-reviewer",
                            "role": "Review for concurrency: races, lost updates, lock order, cancellation and timeouts, shared state across threads, processes or tasks. Cite file and line.",
                            "mode": "read-only",
                        },
                        {
                            "name": "zombie-hunter",
                            "role": "Hunt for leaks and zombies: processes, files, sockets, worktrees or rows left behind on error, crash or cancel paths. Cite file and line.",
                            "mode": "read-only",
                        },
                    ],
                },
                {
                    "name": "adversarial-debate",
                    "description": "An advocate argues for a proposal and a skeptic against it until the lead has both cases.",
                    "members": [
                        {
                            "name": "advocate",
                            "role": "Argue for the proposal in the goal: the strongest case, with evidence from the code. Answer the skeptic's points one by one.",
                            "mode": "read-only",
                        },
                        {
                            "name": "skeptic",
                            "role": "Argue against the proposal in the goal: risks, costs, counter-examples from the code. Answer the advocate's points one by one.",
                            "mode": "read-only",
                        },
                    ],
                },
            ]
        }
    )
    assert await answer("team template show", name="adversarial-debate") == snapshot(
        {
            "name": "adversarial-debate",
            "description": "An advocate argues for a proposal and a skeptic against it until the lead has both cases.",
            "members": [
                {
                    "name": "advocate",
                    "role": "Argue for the proposal in the goal: the strongest case, with evidence from the code. Answer the skeptic's points one by one.",
                    "mode": "read-only",
                },
                {
                    "name": "skeptic",
                    "role": "Argue against the proposal in the goal: risks, costs, counter-examples from the code. Answer the advocate's points one by one.",
                    "mode": "read-only",
                },
            ],
        }
    )
    assert await answer("team start", goal="review the cart", budget_usd=5, id=team) == snapshot(
        {
            "team": {
                "id": "<team-1>",
                "goal": "review the cart",
                "cwd": "<repo>",
                "status": "active",
                "template": None,
                "budget_usd": 5.0,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
                "gate_hooks": [],
                "gate_prompt": None,
                "auto_apply": False,
                "board_version": 0,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            },
            "members": [
                {
                    "name": "lead",
                    "provider": "external",
                    "model": None,
                    "role": "the team's lead",
                    "mode": "read-only",
                    "external": True,
                    "status": "idle",
                    "status_reason": None,
                    "state": "idle",
                    "session_id": None,
                    "session_established": False,
                    "session_note": None,
                    "plan_required": False,
                    "plan_status": None,
                    "stop_requested": False,
                    "nudged": False,
                    "waiting_messages": 0,
                    "turn_count": 0,
                    "last_turn_at": None,
                    "last_turn_status": None,
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 0,
                }
            ],
        }
    )
    assert await answer("team spawn", team=team, name="rev", provider="claude", role="reviewer") == snapshot(
        {
            "member": {
                "name": "rev",
                "provider": "claude",
                "model": None,
                "role": "reviewer",
                "mode": "read-only",
                "external": False,
                "status": "idle",
                "status_reason": None,
                "state": "idle",
                "session_id": "<uuid-1>",
                "session_established": False,
                "session_note": None,
                "plan_required": False,
                "plan_status": None,
                "stop_requested": False,
                "nudged": False,
                "waiting_messages": 0,
                "turn_count": 0,
                "last_turn_at": None,
                "last_turn_status": None,
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
            }
        }
    )
    assert await answer(
        "team spawn", team=team, name="planner", provider="codex", mode="edit", plan_required=True
    ) == snapshot(
        {
            "member": {
                "name": "planner",
                "provider": "codex",
                "model": None,
                "role": "",
                "mode": "read-only",
                "external": False,
                "status": "idle",
                "status_reason": None,
                "state": "idle",
                "session_id": None,
                "session_established": False,
                "session_note": None,
                "plan_required": True,
                "plan_status": "pending",
                "stop_requested": False,
                "nudged": False,
                "waiting_messages": 0,
                "turn_count": 0,
                "last_turn_at": None,
                "last_turn_status": None,
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
            }
        }
    )
    assert await answer("team join", team=team, **{"as": "me"}) == snapshot(
        {
            "member": {
                "name": "me",
                "provider": "external",
                "model": None,
                "role": "",
                "mode": "read-only",
                "external": True,
                "status": "idle",
                "status_reason": None,
                "state": "idle",
                "session_id": None,
                "session_established": False,
                "session_note": None,
                "plan_required": False,
                "plan_status": None,
                "stop_requested": False,
                "nudged": False,
                "waiting_messages": 0,
                "turn_count": 0,
                "last_turn_at": None,
                "last_turn_status": None,
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
            }
        }
    )
    assert await answer("team gate set", team=team, hooks=["task_completed"], prompt="be precise") == snapshot(
        {
            "team": {
                "id": "<team-1>",
                "goal": "review the cart",
                "cwd": "<repo>",
                "status": "active",
                "template": None,
                "budget_usd": 5.0,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
                "gate_hooks": ["task_completed"],
                "gate_prompt": "be precise",
                "auto_apply": False,
                "board_version": 0,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            }
        }
    )
    assert await answer("team tasks add", team=team, title="read cart.py") == snapshot(
        {
            "task": {
                "id": 1,
                "title": "read cart.py",
                "description": "",
                "status": "pending",
                "owner": None,
                "depends_on": [],
                "requires": [],
                "result": None,
                "evidence": {},
                "created_by": "lead",
                "created_at": "2026-03-01T00:00:00Z",
                "claimed_at": None,
                "completed_at": None,
            },
            "outcome": "created",
            "message": "",
        }
    )
    await answer.raw("team tasks add", team=team, title="by hand")
    assert await answer("team tasks claim", team=team, task_id=2, **{"as": "me"}) == snapshot(
        {
            "task": {
                "id": 2,
                "title": "by hand",
                "description": "",
                "status": "in_progress",
                "owner": "me",
                "depends_on": [],
                "requires": [],
                "result": None,
                "evidence": {},
                "created_by": "lead",
                "created_at": "2026-03-01T00:00:00Z",
                "claimed_at": "2026-03-01T00:00:00Z",
                "completed_at": None,
            },
            "outcome": "claimed",
            "message": "",
        }
    )
    assert await answer("team tasks complete", team=team, task_id=2, result="done", **{"as": "me"}) == snapshot(
        {
            "task": {
                "id": 2,
                "title": "by hand",
                "description": "",
                "status": "completed",
                "owner": "me",
                "depends_on": [],
                "requires": [],
                "result": "done",
                "evidence": {},
                "created_by": "lead",
                "created_at": "2026-03-01T00:00:00Z",
                "claimed_at": "2026-03-01T00:00:00Z",
                "completed_at": "2026-03-01T00:00:00Z",
            },
            "outcome": "completed",
            "message": "",
        }
    )
    assert await answer("team send", team=team, to="rev", body="start with total()", **{"from": "me"}) == snapshot(
        {
            "message": {
                "id": 1,
                "sender": "me",
                "recipient": "rev",
                "body": "start with total()",
                "kind": "mail",
                "created_at": "2026-03-01T00:00:00Z",
                "delivered_turn": None,
                "delivered_at": None,
            }
        }
    )
    assert await answer("team member steer", team=team, member="rev", directive="be brief") == snapshot(
        {
            "message": {
                "id": 2,
                "sender": "lead",
                "recipient": "rev",
                "body": "STEERING DIRECTIVE FROM LEAD — be brief",
                "kind": "steer",
                "created_at": "2026-03-01T00:00:00Z",
                "delivered_turn": None,
                "delivered_at": None,
            }
        }
    )
    assert await answer("team nudge", team=team, member="rev") == snapshot(
        {
            "member": {
                "name": "rev",
                "provider": "claude",
                "model": None,
                "role": "reviewer",
                "mode": "read-only",
                "external": False,
                "status": "idle",
                "status_reason": None,
                "state": "waiting",
                "session_id": "<uuid-1>",
                "session_established": False,
                "session_note": None,
                "plan_required": False,
                "plan_status": None,
                "stop_requested": False,
                "nudged": True,
                "waiting_messages": 2,
                "turn_count": 0,
                "last_turn_at": None,
                "last_turn_status": None,
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
            }
        }
    )
    assert await answer("team run", team=team) == snapshot(
        {
            "team": {
                "id": "<team-1>",
                "goal": "review the cart",
                "cwd": "<repo>",
                "status": "active",
                "template": None,
                "budget_usd": 5.0,
                "spend_usd": 0.0,
                "unknown_cost_calls": 2,
                "gate_hooks": ["task_completed"],
                "gate_prompt": "be precise",
                "auto_apply": False,
                "board_version": 5,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            },
            "rounds": 1,
            "turns_taken": 2,
            "turns": [
                {"member": "rev", "turn_id": "<turn-1>", "state": "completed", "detail": ""},
                {"member": "planner", "turn_id": "<turn-2>", "state": "completed", "detail": "ok"},
            ],
            "reconciled_interrupted": [],
            "stopped": False,
            "parked": False,
            "reason": "no member is eligible (no mail, nudge or claimable work)",
        }
    )
    assert await answer("team tasks list", team=team) == snapshot(
        {
            "tasks": [
                {
                    "id": 1,
                    "title": "read cart.py",
                    "description": "",
                    "status": "in_progress",
                    "owner": "rev",
                    "depends_on": [],
                    "requires": [],
                    "result": None,
                    "evidence": {},
                    "created_by": "lead",
                    "created_at": "2026-03-01T00:00:00Z",
                    "claimed_at": "2026-03-01T00:00:00Z",
                    "completed_at": None,
                },
                {
                    "id": 2,
                    "title": "by hand",
                    "description": "",
                    "status": "completed",
                    "owner": "me",
                    "depends_on": [],
                    "requires": [],
                    "result": "done",
                    "evidence": {},
                    "created_by": "lead",
                    "created_at": "2026-03-01T00:00:00Z",
                    "claimed_at": "2026-03-01T00:00:00Z",
                    "completed_at": "2026-03-01T00:00:00Z",
                },
            ],
            "truncated": False,
            "next_cursor": None,
        }
    )
    assert await answer("team inbox", team=team, **{"for": "rev"}) == snapshot(
        {
            "messages": [
                {
                    "id": 1,
                    "sender": "me",
                    "recipient": "rev",
                    "body": "start with total()",
                    "kind": "mail",
                    "created_at": "2026-03-01T00:00:00Z",
                    "delivered_turn": "<turn-1>",
                    "delivered_at": "2026-03-01T00:00:00Z",
                },
                {
                    "id": 2,
                    "sender": "lead",
                    "recipient": "rev",
                    "body": "STEERING DIRECTIVE FROM LEAD — be brief",
                    "kind": "steer",
                    "created_at": "2026-03-01T00:00:00Z",
                    "delivered_turn": "<turn-1>",
                    "delivered_at": "2026-03-01T00:00:00Z",
                },
            ],
            "truncated": False,
            "next_cursor": None,
        }
    )
    assert await answer("team reject", team=team, member="planner", feedback="smaller steps") == snapshot(
        {
            "member": {
                "name": "planner",
                "provider": "codex",
                "model": None,
                "role": "",
                "mode": "read-only",
                "external": False,
                "status": "idle",
                "status_reason": "plan rejected; revising",
                "state": "waiting",
                "session_id": "<uuid-2>",
                "session_established": True,
                "session_note": None,
                "plan_required": True,
                "plan_status": "pending",
                "stop_requested": False,
                "nudged": False,
                "waiting_messages": 1,
                "turn_count": 1,
                "last_turn_at": "2026-03-01T00:00:00Z",
                "last_turn_status": "completed",
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 1,
            }
        }
    )
    assert await answer("team approve", team=team, member="planner") == snapshot(
        {
            "member": {
                "name": "planner",
                "provider": "codex",
                "model": None,
                "role": "",
                "mode": "edit",
                "external": False,
                "status": "idle",
                "status_reason": None,
                "state": "waiting",
                "session_id": "<uuid-2>",
                "session_established": True,
                "session_note": None,
                "plan_required": True,
                "plan_status": "approved",
                "stop_requested": False,
                "nudged": True,
                "waiting_messages": 2,
                "turn_count": 1,
                "last_turn_at": "2026-03-01T00:00:00Z",
                "last_turn_status": "completed",
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 1,
            }
        }
    )
    assert await answer("team member stop", team=team, member="rev") == snapshot(
        {
            "member": {
                "name": "rev",
                "provider": "claude",
                "model": None,
                "role": "reviewer",
                "mode": "read-only",
                "external": False,
                "status": "stopped",
                "status_reason": "stopped by the lead",
                "state": "stopped",
                "session_id": "<uuid-1>",
                "session_established": True,
                "session_note": None,
                "plan_required": False,
                "plan_status": None,
                "stop_requested": False,
                "nudged": False,
                "waiting_messages": 0,
                "turn_count": 1,
                "last_turn_at": "2026-03-01T00:00:00Z",
                "last_turn_status": "completed",
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
            }
        }
    )
    assert await answer("team member restart", team=team, member="rev") == snapshot(
        {
            "member": {
                "name": "rev",
                "provider": "claude",
                "model": None,
                "role": "reviewer",
                "mode": "read-only",
                "external": False,
                "status": "idle",
                "status_reason": None,
                "state": "waiting",
                "session_id": "<uuid-1>",
                "session_established": True,
                "session_note": None,
                "plan_required": False,
                "plan_status": None,
                "stop_requested": False,
                "nudged": True,
                "waiting_messages": 0,
                "turn_count": 1,
                "last_turn_at": "2026-03-01T00:00:00Z",
                "last_turn_status": "completed",
                "last_turn_error": None,
                "current_turn": None,
                "budget_usd": None,
                "spend_usd": 0.0,
                "unknown_cost_calls": 0,
            }
        }
    )
    assert await answer("team status", team=team) == snapshot(
        {
            "team": {
                "id": "<team-1>",
                "goal": "review the cart",
                "cwd": "<repo>",
                "status": "active",
                "template": None,
                "budget_usd": 5.0,
                "spend_usd": 0.0,
                "unknown_cost_calls": 2,
                "gate_hooks": ["task_completed"],
                "gate_prompt": "be precise",
                "auto_apply": False,
                "board_version": 5,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            },
            "members": [
                {
                    "name": "lead",
                    "provider": "external",
                    "model": None,
                    "role": "the team's lead",
                    "mode": "read-only",
                    "external": True,
                    "status": "idle",
                    "status_reason": None,
                    "state": "waiting",
                    "session_id": None,
                    "session_established": False,
                    "session_note": None,
                    "plan_required": False,
                    "plan_status": None,
                    "stop_requested": False,
                    "nudged": False,
                    "waiting_messages": 1,
                    "turn_count": 0,
                    "last_turn_at": None,
                    "last_turn_status": None,
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 0,
                },
                {
                    "name": "rev",
                    "provider": "claude",
                    "model": None,
                    "role": "reviewer",
                    "mode": "read-only",
                    "external": False,
                    "status": "idle",
                    "status_reason": None,
                    "state": "waiting",
                    "session_id": "<uuid-1>",
                    "session_established": True,
                    "session_note": None,
                    "plan_required": False,
                    "plan_status": None,
                    "stop_requested": False,
                    "nudged": True,
                    "waiting_messages": 0,
                    "turn_count": 1,
                    "last_turn_at": "2026-03-01T00:00:00Z",
                    "last_turn_status": "completed",
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 0,
                },
                {
                    "name": "planner",
                    "provider": "codex",
                    "model": None,
                    "role": "",
                    "mode": "edit",
                    "external": False,
                    "status": "idle",
                    "status_reason": None,
                    "state": "waiting",
                    "session_id": "<uuid-2>",
                    "session_established": True,
                    "session_note": None,
                    "plan_required": True,
                    "plan_status": "approved",
                    "stop_requested": False,
                    "nudged": True,
                    "waiting_messages": 2,
                    "turn_count": 1,
                    "last_turn_at": "2026-03-01T00:00:00Z",
                    "last_turn_status": "completed",
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 1,
                },
                {
                    "name": "me",
                    "provider": "external",
                    "model": None,
                    "role": "",
                    "mode": "read-only",
                    "external": True,
                    "status": "idle",
                    "status_reason": None,
                    "state": "idle",
                    "session_id": None,
                    "session_established": False,
                    "session_note": None,
                    "plan_required": False,
                    "plan_status": None,
                    "stop_requested": False,
                    "nudged": False,
                    "waiting_messages": 0,
                    "turn_count": 0,
                    "last_turn_at": None,
                    "last_turn_status": None,
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 0,
                },
            ],
            "tasks": [
                {
                    "id": 1,
                    "title": "read cart.py",
                    "description": "",
                    "status": "in_progress",
                    "owner": "rev",
                    "depends_on": [],
                    "requires": [],
                    "result": None,
                    "evidence": {},
                    "created_by": "lead",
                    "created_at": "2026-03-01T00:00:00Z",
                    "claimed_at": "2026-03-01T00:00:00Z",
                    "completed_at": None,
                },
                {
                    "id": 2,
                    "title": "by hand",
                    "description": "",
                    "status": "completed",
                    "owner": "me",
                    "depends_on": [],
                    "requires": [],
                    "result": "done",
                    "evidence": {},
                    "created_by": "lead",
                    "created_at": "2026-03-01T00:00:00Z",
                    "claimed_at": "2026-03-01T00:00:00Z",
                    "completed_at": "2026-03-01T00:00:00Z",
                },
            ],
            "tasks_truncated": False,
            "task_counts": {"completed": 1, "in_progress": 1},
            "patches": [],
            "untracked_cost_providers": ["codex", "gate"],
            "spend": "unknown (2 call(s) reported no cost) of $5.00",
            "reconciled_interrupted": [],
        }
    )
    assert await answer("team attach", team=team) == snapshot(
        {
            "team": {
                "id": "<team-1>",
                "goal": "review the cart",
                "cwd": "<repo>",
                "status": "active",
                "template": None,
                "budget_usd": 5.0,
                "spend_usd": 0.0,
                "unknown_cost_calls": 2,
                "gate_hooks": ["task_completed"],
                "gate_prompt": "be precise",
                "auto_apply": False,
                "board_version": 5,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            },
            "members": [
                {
                    "name": "lead",
                    "provider": "external",
                    "model": None,
                    "role": "the team's lead",
                    "mode": "read-only",
                    "external": True,
                    "status": "idle",
                    "status_reason": None,
                    "state": "waiting",
                    "session_id": None,
                    "session_established": False,
                    "session_note": None,
                    "plan_required": False,
                    "plan_status": None,
                    "stop_requested": False,
                    "nudged": False,
                    "waiting_messages": 1,
                    "turn_count": 0,
                    "last_turn_at": None,
                    "last_turn_status": None,
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 0,
                },
                {
                    "name": "rev",
                    "provider": "claude",
                    "model": None,
                    "role": "reviewer",
                    "mode": "read-only",
                    "external": False,
                    "status": "idle",
                    "status_reason": None,
                    "state": "waiting",
                    "session_id": "<uuid-1>",
                    "session_established": True,
                    "session_note": None,
                    "plan_required": False,
                    "plan_status": None,
                    "stop_requested": False,
                    "nudged": True,
                    "waiting_messages": 0,
                    "turn_count": 1,
                    "last_turn_at": "2026-03-01T00:00:00Z",
                    "last_turn_status": "completed",
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 0,
                },
                {
                    "name": "planner",
                    "provider": "codex",
                    "model": None,
                    "role": "",
                    "mode": "edit",
                    "external": False,
                    "status": "idle",
                    "status_reason": None,
                    "state": "waiting",
                    "session_id": "<uuid-2>",
                    "session_established": True,
                    "session_note": None,
                    "plan_required": True,
                    "plan_status": "approved",
                    "stop_requested": False,
                    "nudged": True,
                    "waiting_messages": 2,
                    "turn_count": 1,
                    "last_turn_at": "2026-03-01T00:00:00Z",
                    "last_turn_status": "completed",
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 1,
                },
                {
                    "name": "me",
                    "provider": "external",
                    "model": None,
                    "role": "",
                    "mode": "read-only",
                    "external": True,
                    "status": "idle",
                    "status_reason": None,
                    "state": "idle",
                    "session_id": None,
                    "session_established": False,
                    "session_note": None,
                    "plan_required": False,
                    "plan_status": None,
                    "stop_requested": False,
                    "nudged": False,
                    "waiting_messages": 0,
                    "turn_count": 0,
                    "last_turn_at": None,
                    "last_turn_status": None,
                    "last_turn_error": None,
                    "current_turn": None,
                    "budget_usd": None,
                    "spend_usd": 0.0,
                    "unknown_cost_calls": 0,
                },
            ],
            "tasks": [
                {
                    "id": 1,
                    "title": "read cart.py",
                    "description": "",
                    "status": "in_progress",
                    "owner": "rev",
                    "depends_on": [],
                    "requires": [],
                    "result": None,
                    "evidence": {},
                    "created_by": "lead",
                    "created_at": "2026-03-01T00:00:00Z",
                    "claimed_at": "2026-03-01T00:00:00Z",
                    "completed_at": None,
                },
                {
                    "id": 2,
                    "title": "by hand",
                    "description": "",
                    "status": "completed",
                    "owner": "me",
                    "depends_on": [],
                    "requires": [],
                    "result": "done",
                    "evidence": {},
                    "created_by": "lead",
                    "created_at": "2026-03-01T00:00:00Z",
                    "claimed_at": "2026-03-01T00:00:00Z",
                    "completed_at": "2026-03-01T00:00:00Z",
                },
            ],
            "tasks_truncated": False,
            "task_counts": {"completed": 1, "in_progress": 1},
            "patches": [],
            "untracked_cost_providers": ["codex", "gate"],
            "spend": "unknown (2 call(s) reported no cost) of $5.00",
            "reconciled_interrupted": [],
        }
    )
    assert await answer("team apply", team=team) == snapshot(
        {"team": "<team-1>", "applied": [], "already": [], "skipped": []}
    )
    assert await answer("team revert", team=team) == snapshot(
        {"team": "<team-1>", "applied": [], "already": [], "skipped": []}
    )
    assert await answer("team stop", team=team) == snapshot(
        {
            "team": {
                "id": "<team-1>",
                "goal": "review the cart",
                "cwd": "<repo>",
                "status": "stopped",
                "template": None,
                "budget_usd": 5.0,
                "spend_usd": 0.0,
                "unknown_cost_calls": 2,
                "gate_hooks": ["task_completed"],
                "gate_prompt": "be precise",
                "auto_apply": False,
                "board_version": 5,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            }
        }
    )
