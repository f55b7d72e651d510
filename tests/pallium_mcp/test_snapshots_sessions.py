"""Answers of the session-memory tools, pinned on the project's own transcript story.

See test_snapshots.py for how to update them; tests/pallium_mcp/snapshots.py says what is replaced.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inline_snapshot import snapshot

from tests.pallium_mcp.snapshots import Answers
from tests.services.sessions.story_claude import A_ID, AGENT_ID, B_ID, C_ID
from tests.services.sessions.story_codex import X1_ID, X2_ID
from tests.services.sessions.story_format import SHOP
from tests.services.sessions.transcripts import write_homes

pytestmark = pytest.mark.anyio

STORY_NOW = "2026-11-21T15:30:00Z"


def _story_only(answer: dict) -> dict:
    """`sessions live` without the agent processes this machine happens to be running, which are not the story's."""
    return {**answer, "sessions": [s for s in answer["sessions"] if s["cwd"] == SHOP and s["pid"] is None]}


async def test_session_tools_answer_in_a_fixed_shape(fixed_repo: Path, tmp_path: Path, memory_keyring):
    homes = {k: str(v) for k, v in write_homes(tmp_path / "transcripts").items()}
    answer = Answers(fixed_repo, tmp=tmp_path, now=STORY_NOW, keep=(A_ID, AGENT_ID, B_ID, C_ID, X1_ID, X2_ID))
    assert await answer("sessions sync", claude_home=homes["claude"], codex_home=homes["codex"]) == snapshot(
        {
            "homes": [
                {"source": "claude", "path": "<tmp>/transcripts/claude", "exists": True, "files": 4},
                {"source": "codex", "path": "<tmp>/transcripts/codex", "exists": True, "files": 2},
            ],
            "files_seen": 6,
            "files_unchanged": 0,
            "files_new": 6,
            "files_appended": 0,
            "files_reparsed": 0,
            "files_skipped_forgotten": 0,
            "files_unreadable": [],
            "sessions_updated": 6,
            "session_ids": [
                "4ba71ab7-ac05-44a5-acc6-be1805fdf179",
                "5e7b29e0-5b45-4fc7-8a4f-643bfe822b95",
                "a0c0b428-85fa-424c-840f-df41e3f1246a:a1996c87dc700da1b",
                "a0c0b428-85fa-424c-840f-df41e3f1246a",
                "01a1f82f-201c-784e-95bd-447e7184d454",
                "01a1fe4c-ac8f-73f3-ab29-7ba0ed97d666",
            ],
            "sessions_marked_missing": [],
            "messages_added": 95,
            "bytes_read": 118000,
            "malformed_lines": 1,
            "oversized_lines": 0,
            "partial_lines_left": 0,
            "redactions": 0,
            "embedding": {"configured": False, "embedded": 0, "space": None, "error": None},
            "duration_ms": "<ms>",
        }
    )
    assert await answer("sessions recall", query="payments migration", limit=2) == snapshot(
        {
            "query": "payments migration",
            "results": [
                {
                    "id": "a0c0b428-85fa-424c-840f-df41e3f1246a",
                    "source": "claude",
                    "title": "Move payments out of orders (migration 0042)",
                    "repo": "/home/dev/shop",
                    "cwd": "/home/dev/shop",
                    "git_branch": "feature/split-payments",
                    "created_at": "2026-11-18T13:40:12.305Z",
                    "updated_at": "2026-11-18T13:44:24.911Z",
                    "completion": "finished",
                    "evidence": "the last turn ended normally (line 24)",
                    "parent_id": None,
                    "source_missing": False,
                    "score": 0.01639,
                    "capsule": {
                        "completion": "finished",
                        "evidence": "the last turn ended normally (line 24)",
                        "last_assistant": {
                            "line": 23,
                            "text": "Steps 1 and 2 of docs/migrations/0042-plan.md are in: 0042_split_payments creates the payments table (not yet applied) and place_order dual-writes. scripts/backfill_payments.py is ready for step 3.",
                        },
                        "files": [
                            "scripts/backfill_payments.py",
                            "checkout/service.py",
                            "migrations/versions/0042_split_payments.py",
                            "docs/migrations/0042-plan.md",
                        ],
                    },
                    "citations": [
                        {
                            "line": 13,
                            "role": "tool",
                            "kind": "tool_result",
                            "text": "File created successfully at: /home/dev/shop/migrations/versions/0042_split_payments.py",
                            "why": "match",
                        },
                        {
                            "line": 2,
                            "role": "user",
                            "kind": "prompt",
                            "text": "Payment data has to leave the orders table for a new payments table (migration 0042). Find everything that reads or writes orders.payment_status, payment_amount_cents or payment_provider_ref, write a step-by-step plan to docs/migrations/0…",
                            "why": "match",
                        },
                        {
                            "line": 17,
                            "role": "system",
                            "kind": "compaction",
                            "text": "… earlier conversation that ran out of context. Summary: 1. Request: move orders.payment_* into a new payments table with migration 0042, plan in docs/migrations/0042-plan.md, do steps 1 and 2. 2. The plan has 5 steps: schema, dual-write, …",
                            "why": "match",
                        },
                        {
                            "line": 10,
                            "role": "assistant",
                            "kind": "tool_call",
                            "text": "Write docs/migrations/0042-plan.md # Migration 0042: payments leave the orders table Branch feature/split-payments. The checkout team owns it. 1. Schema: a new `payments` table (id, order_id unique FK to orders, status, amount_cents NOT N…",
                            "why": "match",
                        },
                        {
                            "line": 11,
                            "role": "tool",
                            "kind": "tool_result",
                            "text": "File created successfully at: /home/dev/shop/docs/migrations/0042-plan.md",
                            "why": "result",
                        },
                        {
                            "line": 23,
                            "role": "assistant",
                            "kind": "text",
                            "text": "Steps 1 and 2 of docs/migrations/0042-plan.md are in: 0042_split_payments creates the payments table (not yet applied) and place_order dual-writes. scripts/backfill_payments.py is ready for step 3.",
                            "why": "match",
                        },
                    ],
                },
                {
                    "id": "5e7b29e0-5b45-4fc7-8a4f-643bfe822b95",
                    "source": "claude",
                    "title": "Apply 0042 and backfill the payments table",
                    "repo": "/home/dev/shop",
                    "cwd": "/home/dev/shop",
                    "git_branch": "feature/split-payments",
                    "created_at": "2026-11-19T16:05:02.118Z",
                    "updated_at": "2026-11-19T16:05:46.902Z",
                    "completion": "not_finished",
                    "evidence": "Bash call at line 21 has no result",
                    "parent_id": None,
                    "source_missing": False,
                    "score": 0.01613,
                    "capsule": {
                        "completion": "not_finished",
                        "evidence": "Bash call at line 21 has no result",
                        "last_assistant": {
                            "line": 20,
                            "text": "Running a batch again is idempotent (ON CONFLICT (order_id) DO NOTHING) and the test passes. Batches 1-3 are done (orders 1-15000). Now batch 4 (orders 15001-20000).",
                        },
                        "open_calls": [
                            {
                                "line": 21,
                                "tool": "Bash",
                                "text": "Bash: python scripts/backfill_payments.py --start-id 15001 --batch-size 5000 --max-batches 1",
                            }
                        ],
                    },
                    "citations": [
                        {
                            "line": 8,
                            "role": "tool",
                            "kind": "tool_result",
                            "text": "INFO [alembic.runtime.migration] Context impl PostgresqlImpl. INFO [alembic.runtime.migration] Will assume transactional DDL. INFO [alembic.runtime.migration] Running upgrade 0041_order_notes -> 0042_split_payments",
                            "why": "match",
                        },
                        {
                            "line": 2,
                            "role": "user",
                            "kind": "prompt",
                            "text": "Carry on with split-payments: apply 0042 to the local database and run the backfill (step 3 of docs/migrations/0042-plan.md), 5000 orders per batch.",
                            "why": "match",
                        },
                        {
                            "line": 6,
                            "role": "tool",
                            "kind": "tool_result",
                            "text": "1→# Migration 0042: payments leave the orders table 2→ 3→Branch feature/split-payments. The checkout team owns it. 4→ 5→1. Schema: a new `payments` table (id, order_id unique FK to orders, status, amount_cents NOT NULL, 6→ provider_ref, c…",
                            "why": "match",
                        },
                        {
                            "line": 5,
                            "role": "assistant",
                            "kind": "tool_call",
                            "text": "Read docs/migrations/0042-plan.md",
                            "why": "match",
                        },
                        {
                            "line": 4,
                            "role": "assistant",
                            "kind": "text",
                            "text": "First the plan again, then the migration.",
                            "why": "match",
                        },
                        {
                            "line": 7,
                            "role": "assistant",
                            "kind": "tool_call",
                            "text": "Bash: alembic upgrade head Apply migration 0042",
                            "why": "match",
                        },
                    ],
                },
            ],
            "semantic": {"used": False, "reason": "no embedding provider is configured"},
            "truncated": False,
            "freshness": {"last_sync_at": "2026-11-21T15:30:00Z", "sessions": 6},
        }
    )
    assert await answer("sessions search", query="batch 5", limit=2) == snapshot(
        {
            "query": "batch 5",
            "hits": [
                {
                    "session_id": "01a1fe4c-ac8f-73f3-ab29-7ba0ed97d666",
                    "source": "codex",
                    "title": "Pick up the payments backfill (step 3 in docs/migrations/0042-plan.md). Claude d",
                    "line": 45,
                    "role": "assistant",
                    "kind": "text",
                    "ts": "2026-11-21T15:05:20.117Z",
                    "snippet": "[Batches] 4-[5] are done (orders 15001-25000). Starting [batch] 6 (orders 25001-30000).",
                },
                {
                    "session_id": "01a1fe4c-ac8f-73f3-ab29-7ba0ed97d666",
                    "source": "codex",
                    "title": "Pick up the payments backfill (step 3 in docs/migrations/0042-plan.md). Claude d",
                    "line": 43,
                    "role": "assistant",
                    "kind": "reasoning",
                    "ts": "2026-11-21T15:05:19.802Z",
                    "snippet": """\
**Back at [batch] 6**

[Batch] [5] finished before the restart; the next start id is 25001.\
""",
                },
            ],
            "semantic": {"used": False, "reason": "not asked for"},
            "truncated": True,
            "next_cursor": "2",
            "freshness": {"last_sync_at": "2026-11-21T15:30:00Z", "sessions": 6},
        }
    )
    assert await answer("sessions show", id=A_ID[:8]) == snapshot(
        {
            "id": "4ba71ab7-ac05-44a5-acc6-be1805fdf179",
            "source": "claude",
            "title": "Retries with backoff for the payment gateway",
            "repo": "/home/dev/shop",
            "cwd": "/home/dev/shop",
            "git_branch": "feature/payment-retries",
            "created_at": "2026-11-17T09:12:03.412Z",
            "updated_at": "2026-11-17T09:30:48.015Z",
            "completion": "finished",
            "evidence": "the last turn ended normally (line 23)",
            "parent_id": None,
            "source_missing": False,
            "native_id": "4ba71ab7-ac05-44a5-acc6-be1805fdf179",
            "agent_id": None,
            "agent_type": None,
            "model": "claude-sonnet-5",
            "cli_version": "2.1.284",
            "message_count": 18,
            "capsule": {
                "title": "Retries with backoff for the payment gateway",
                "asked": [
                    {
                        "line": 3,
                        "text": "Give PaymentGatewayClient.charge in payments/gateway.py retries with exponential backoff. Only 502, 503, 504 and timeouts are worth retrying, at most 3 attempts, one idempotency key for all of them, plus tests.",
                    },
                    {"line": 19, "text": "commit it"},
                ],
                "last_prompt": None,
                "last_assistant": {"line": 22, "text": "Committed: a41c9e2 on feature/payment-retries."},
                "compaction": None,
                "files": ["tests/test_gateway_retries.py", "payments/gateway.py"],
                "commands": [
                    {"line": 15, "text": "python -m pytest -q tests/test_gateway_retries.py"},
                    {
                        "line": 20,
                        "text": 'git add payments/gateway.py tests/test_gateway_retries.py && git commit -m "payments: retry gateway charges on 5xx and timeouts with backoff"',
                    },
                ],
                "errors": [],
                "open_calls": [],
                "completion": "finished",
                "evidence": "the last turn ended normally (line 23)",
                "stopped_line": 23,
                "end_state": "turn_complete",
                "usage": {
                    "input_tokens": 39,
                    "cache_creation_input_tokens": 11061,
                    "cache_read_input_tokens": 175079,
                    "output_tokens": 1963,
                },
                "api_calls": 8,
            },
            "subagents": [],
        }
    )
    assert await answer("sessions read", id=B_ID, limit=3) == snapshot(
        {
            "session_id": "5e7b29e0-5b45-4fc7-8a4f-643bfe822b95",
            "source_missing": False,
            "messages": [
                {
                    "line": 2,
                    "ts": "2026-11-19T16:05:02.118Z",
                    "role": "user",
                    "kind": "prompt",
                    "tool": None,
                    "text": "Carry on with split-payments: apply 0042 to the local database and run the backfill (step 3 of docs/migrations/0042-plan.md), 5000 orders per batch.",
                    "is_error": False,
                },
                {
                    "line": 4,
                    "ts": "2026-11-19T16:05:05.990Z",
                    "role": "assistant",
                    "kind": "text",
                    "tool": None,
                    "text": "First the plan again, then the migration.",
                    "is_error": False,
                },
                {
                    "line": 5,
                    "ts": "2026-11-19T16:05:06.215Z",
                    "role": "assistant",
                    "kind": "tool_call",
                    "tool": "Read",
                    "text": "Read docs/migrations/0042-plan.md",
                    "is_error": False,
                },
            ],
            "next_from_line": 6,
        }
    )
    assert _story_only(
        await answer("sessions live", claude_home=homes["claude"], codex_home=homes["codex"], running_only=False)
    ) == snapshot(
        {
            "generated_at": "2026-11-21T15:30:00Z",
            "sessions": [
                {
                    "source": "codex",
                    "pid": None,
                    "process_status": None,
                    "cwd": "/home/dev/shop",
                    "session_id": "01a1fe4c-ac8f-73f3-ab29-7ba0ed97d666",
                    "matched_by": None,
                    "title": None,
                    "lifecycle": "finished",
                    "why": "no process (ended mid-task): turn aborted (interrupted) at line 48; exec_command call at line 46 has no result",
                    "silent_seconds": "<seconds>",
                    "last_activity_at": "2026-11-21T15:05:24.871Z",
                    "completion": "not_finished",
                    "capsule": None,
                    "cmdline": None,
                }
            ],
            "coverage": [
                "processes named claude or codex (and node/bun running their CLIs), via psutil",
                "Claude Code's session registry <claude home>/sessions/<pid>.json",
                "rollout files held open by codex processes",
                "the indexed transcripts (synced before answering)",
            ],
            "exclusions": [
                "shells, tmux or screen sessions, SSH sessions and browsers are not inventoried",
                "agents other than Claude Code and Codex are not detected",
                "processes of other users may be invisible",
            ],
        }
    )
    assert await answer("sessions doctor") == snapshot(
        {
            "healthy": True,
            "problems": [],
            "counts": {
                "sessions": 6,
                "forgotten": 0,
                "source_missing": 0,
                "files": 6,
                "messages": 95,
                "raw_events": 0,
                "vectors": 0,
            },
            "database_bytes": 204800,
            "planned": [],
            "done": [],
            "confirmed": False,
        }
    )
    assert await answer("sessions forget", id=A_ID) == snapshot(
        {"sessions": ["4ba71ab7-ac05-44a5-acc6-be1805fdf179"], "messages": 18, "confirmed": False, "purged": False}
    )
    assert await answer("sessions prune", older_than="30d") == snapshot(
        {
            "cutoff": "2026-10-22T15:30:00Z",
            "sessions": [],
            "count": 0,
            "messages": 0,
            "confirmed": False,
            "truncated": False,
            "purged": False,
        }
    )
    assert await answer("sessions embedding check") == snapshot(
        {
            "configured": False,
            "config_path": "<home>/embedding.json",
            "provider": None,
            "model": None,
            "base_url": None,
            "credential_store": None,
            "key_found": False,
            "key_source": None,
            "spaces": [],
            "sessions_without_vector": None,
            "check": {
                "ok": False,
                "error": "no embedding provider is configured: run `pallium sessions embedding configure --model MODEL`",
            },
            "message": "check failed: no embedding provider is configured: run `pallium sessions embedding configure --model MODEL`",
        }
    )
    assert await answer("sessions embedding configure", model="text-embedding-3-small", provider="openai") == snapshot(
        {
            "configured": True,
            "config_path": "<home>/embedding.json",
            "provider": "openai",
            "model": "text-embedding-3-small",
            "base_url": None,
            "credential_store": "env",
            "key_found": False,
            "key_source": None,
            "spaces": [],
            "sessions_without_vector": None,
            "check": None,
            "message": "configured openai text-embedding-3-small; run `pallium sessions embedding check`",
        }
    )
