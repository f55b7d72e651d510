# ruff: noqa: E501  (transcript text is data: long lines are what the tools write)
"""The Codex half of the test story: rollouts X1 (finished) and X2 (killed, resumed, interrupted) (see transcripts.py)."""

from __future__ import annotations

import json
from typing import Any

from tests.services.sessions.story_format import Codex

X1_ID = "01a1f82f-201c-784e-95bd-447e7184d454"
X1_PROMPT = (
    "tests/test_checkout.py::test_checkout_total_with_discount has failed since the dual-write change on "
    "feature/split-payments. Find out why and fix it; don't touch the migration."
)


def rollout_x1() -> tuple[Codex, dict[str, Any]]:
    x = Codex(X1_ID)
    x.meta("2026-11-20T09:00:00.412Z", "codex_exec", "exec", "5d0c2a9e71b4f3c8a6d2e9b1f07c4a3e8d6b2f10")
    injected = x.injected("2026-11-20T09:00:00.433Z")
    started = x.task_started("2026-11-20T09:00:00.440Z", "01a1f82f-2038-7b80-8b2d-451c62f746b4", 1795165200)
    x.user("2026-11-20T09:00:00.441Z", X1_PROMPT)
    x.context("2026-11-20T09:00:00.445Z", "never")
    x.tokens("2026-11-20T09:00:00.902Z", None)
    x.reason(
        "2026-11-20T09:00:03.118Z", "**Running the failing test alone**\n\nSee the real numbers before reading code."
    )
    run = x.call("2026-11-20T09:00:03.540Z", "python -m pytest -q tests/test_checkout.py -k discount")
    x.tokens("2026-11-20T09:00:03.544Z", (15214, 3456, 268, 151))
    failure = (
        "F                                                                        [100%]\n"
        "FAILED tests/test_checkout.py::test_checkout_total_with_discount - assert 8000 == 9000\n"
        "1 failed, 11 deselected in 0.84s"
    )
    failing = x.output("2026-11-20T09:00:05.482Z", run, 1, failure, 1.9121)
    x.context("2026-11-20T09:00:05.490Z", "never")
    x.reason(
        "2026-11-20T09:00:09.771Z",
        "**Where the discount is taken twice**\n\n8000 against 9000: the 1000 "
        "discount comes off two times; place_order and the new _write_payment both look at it.",
    )
    x.say(
        "2026-11-20T09:00:10.204Z",
        "8000 instead of 9000: the 10% discount is subtracted twice. Reading place_order and _write_payment.",
    )
    sed = x.call("2026-11-20T09:00:10.230Z", "sed -n '40,80p' checkout/service.py")
    x.tokens("2026-11-20T09:00:10.236Z", (16102, 15104, 190, 88))
    code = (
        "def compute_total(order, discount=None):\n    subtotal = sum(l.unit_price_cents * l.qty for l in order.lines)\n"
        "    order.discount_cents = discount.amount_cents if discount else 0\n"
        "    order.total_cents = subtotal - order.discount_cents\n\n\n"
        "def _write_payment(session, order, *, status, provider_ref, discount=None):\n"
        "    amount = order.total_cents - (discount.amount_cents if discount else 0)\n"
        "    session.add(Payment(order_id=order.id, status=status, amount_cents=amount, provider_ref=provider_ref))"
    )
    x.output("2026-11-20T09:00:10.311Z", sed, 0, code, 0.0104)
    x.context("2026-11-20T09:00:10.318Z", "never")
    fix = x.patch(
        "2026-11-20T09:00:16.902Z",
        "*** Begin Patch\n*** Update File: checkout/service.py\n"
        "@@ def _write_payment(session, order, *, status, provider_ref, discount=None):\n"
        "-    amount = order.total_cents - (discount.amount_cents if discount else 0)\n"
        "+    amount = order.total_cents  # the discount is already in total_cents; do not take it twice\n"
        "*** End Patch",
    )
    x.tokens("2026-11-20T09:00:16.910Z", (17010, 16000, 402, 120))
    x.patched("2026-11-20T09:00:17.021Z", fix, "checkout/service.py")
    x.context("2026-11-20T09:00:17.030Z", "never")
    full = x.call("2026-11-20T09:00:19.480Z", "python -m pytest -q")
    x.tokens("2026-11-20T09:00:19.486Z", (17120, 16640, 74, 30))
    x.output("2026-11-20T09:00:23.950Z", full, 0, ".............." + " " * 58 + "[100%]\n14 passed in 2.31s", 4.4)
    x.context("2026-11-20T09:00:23.958Z", "never")
    answer = (
        "test_checkout_total_with_discount failed because _write_payment subtracted the discount again from "
        "total_cents, which already has it (8000 != 9000). Fixed in checkout/service.py: the payment amount is "
        "total_cents. All 14 tests pass."
    )
    final = x.say("2026-11-20T09:00:26.502Z", answer, "final_answer")
    x.tokens("2026-11-20T09:00:26.520Z", (18343, 17664, 160, 22))
    end = x.add(
        "2026-11-20T09:00:26.884Z",
        "event_msg",
        {
            "type": "task_complete",
            "turn_id": x.turn_id,
            "last_agent_message": answer,
            "completed_at": 1795165226,
            "duration_ms": 26444,
            "time_to_first_token_ms": 2678,
        },
    )
    assert (failing, fix, final[1], end) == (14, 24, 33, 35)
    turns = [{"turn_id": x.turn_id, "started_line": started, "ended_line": end, "end": "task_complete"}]
    facts = {
        "injected_context_lines": injected,
        "turns": turns,
        "end_state": "task_complete",
        "last_record_line": end,
        "failing_line": failing,
        "fix_line": fix,
        "answer_line": final[1],
    }
    return x, facts


X2_ID = "01a1fe4c-ac8f-73f3-ab29-7ba0ed97d666"
X2_PROMPT = (
    "Pick up the payments backfill (step 3 in docs/migrations/0042-plan.md). Claude did batches 1-3 on "
    "Wednesday; check where it really stopped before you run anything."
)
X2_SECOND = "keep going with the remaining batches"


def rollout_x2() -> tuple[Codex, dict[str, Any]]:
    x = Codex(X2_ID)
    x.meta("2026-11-21T13:30:00.207Z", "codex-tui", "cli", "8e3b1f0a4c7d2e95b6a1c0f3d8e7b2a4c9f1e6d3")
    injected = x.injected("2026-11-21T13:30:00.231Z")
    started = x.task_started("2026-11-21T13:30:41.012Z", "01a1fe4d-4bfa-7a1f-bae8-44350a96c26a", 1795267841)
    x.user("2026-11-21T13:30:41.019Z", X2_PROMPT)
    x.context("2026-11-21T13:30:41.023Z", "on-request")
    x.tokens("2026-11-21T13:30:41.466Z", None)
    x.reason(
        "2026-11-21T13:30:44.320Z",
        "**Asking the script for its progress**\n\nDo not trust the earlier session; "
        "the script can report its own status.",
    )
    status = x.call("2026-11-21T13:30:44.702Z", "python scripts/backfill_payments.py --status")
    x.tokens("2026-11-21T13:30:44.709Z", (15388, 3456, 201, 96))
    x.output(
        "2026-11-21T13:30:46.030Z", status, 0, "payments rows: 15000 (orders 1-15000)\nnext --start-id 15001", 1.2107
    )
    x.context("2026-11-21T13:30:46.036Z", "on-request")
    x.say(
        "2026-11-21T13:30:49.114Z",
        "Batches 1-3 are in (15000 payments rows) and batch 4 never ran. Running batches 4 and 5 (orders 15001-25000).",
    )
    two = x.call(
        "2026-11-21T13:30:49.140Z",
        "python scripts/backfill_payments.py --start-id 15001 --batch-size 5000 --max-batches 2",
    )
    x.tokens("2026-11-21T13:30:49.146Z", (15790, 15232, 130, 41))
    failed = (
        "batch 4: orders 15001-20000 -> 5000 payments rows (3.3s)\n"
        'batch 5 failed: psycopg.errors.NotNullViolation: null value in column "amount_cents" of relation '
        '"payments" violates not-null constraint\nDETAIL: Failing row contains order_id 21877.\n'
        "batch 5 rolled back; next --start-id 20001"
    )
    fail_line = x.output("2026-11-21T13:30:57.802Z", two, 1, failed, 8.6331)
    x.context("2026-11-21T13:30:57.810Z", "on-request")
    x.reason(
        "2026-11-21T13:31:03.266Z",
        "**Legacy orders without an amount**\n\nOrder 21877 is older than amount "
        "tracking and its amount is NULL, but payments.amount_cents is NOT NULL: copy NULL as 0 and flag the row.",
    )
    x.say(
        "2026-11-21T13:31:03.890Z",
        "Order 21877 is a legacy order whose payment_amount_cents is NULL. The backfill "
        "will write 0 with legacy_null_amount = true for such rows, then rerun batch 5.",
    )
    fix = x.patch(
        "2026-11-21T13:31:10.447Z",
        "*** Begin Patch\n*** Update File: scripts/backfill_payments.py\n@@\n"
        "-SELECT id, payment_status, payment_amount_cents, payment_provider_ref FROM orders\n"
        "+SELECT id, payment_status, COALESCE(payment_amount_cents, 0), payment_provider_ref,\n"
        "+       payment_amount_cents IS NULL AS legacy_null_amount FROM orders\n*** End Patch",
    )
    x.tokens("2026-11-21T13:31:10.455Z", (16410, 15872, 355, 160))
    x.patched("2026-11-21T13:31:10.563Z", fix, "scripts/backfill_payments.py")
    x.context("2026-11-21T13:31:10.570Z", "on-request")
    rerun = x.call(
        "2026-11-21T13:31:13.009Z",
        "python scripts/backfill_payments.py --start-id 20001 --batch-size 5000 --max-batches 1",
    )
    x.tokens("2026-11-21T13:31:13.015Z", (16933, 16256, 88, 10))
    ok = x.output(
        "2026-11-21T13:31:17.122Z",
        rerun,
        0,
        "batch 5: orders 20001-25000 -> 5000 payments rows (1 with legacy_null_amount) (3.6s)\nnext --start-id 25001",
        3.6120,
    )
    cut = json.dumps(
        {
            "timestamp": "2026-11-21T13:31:17.131Z",
            "type": "event_msg",
            "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 64521}}},
        },
        separators=(",", ":"),
    )
    x.records.append(cut[: cut.index("64521") + 3])  # the process died while writing this line
    malformed = len(x.records)
    resumed = x.task_started("2026-11-21T15:05:12.606Z", "01a1fea3-d69e-76f8-af13-35cc8d1e0864", 1795273512)
    x.user("2026-11-21T15:05:12.607Z", X2_SECOND)
    x.context("2026-11-21T15:05:12.611Z", "on-request")
    summary = (
        "Migration 0042 step 3, the backfill: an earlier Claude Code session did batches 1-3 (orders 1-15000). "
        "Here batch 4 went in, batch 5 stopped on order 21877 (NULL amount), the script now copies NULL as 0 "
        "with legacy_null_amount, and batch 5 was rerun. Next: --start-id 25001, batches 6 and 7."
    )
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": X2_PROMPT}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": X2_SECOND}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": summary}]},
    ]
    compacted = x.add("2026-11-21T15:05:15.930Z", "compacted", {"message": summary, "replacement_history": history})
    x.add("2026-11-21T15:05:15.931Z", "event_msg", {"type": "context_compacted"})
    x.context("2026-11-21T15:05:15.935Z", "on-request")
    x.tokens("2026-11-21T15:05:19.204Z", (6120, 3456, 142, 70))
    x.reason(
        "2026-11-21T15:05:19.802Z",
        "**Back at batch 6**\n\nBatch 5 finished before the restart; the next start id is 25001.",
    )
    x.say(
        "2026-11-21T15:05:20.117Z", "Batches 4-5 are done (orders 15001-25000). Starting batch 6 (orders 25001-30000)."
    )
    six = x.call(
        "2026-11-21T15:05:20.140Z",
        "python scripts/backfill_payments.py --start-id 25001 --batch-size 5000 --max-batches 1",
    )
    x.tokens("2026-11-21T15:05:20.146Z", (6391, 6016, 97, 22))
    end = x.add(
        "2026-11-21T15:05:24.871Z",
        "event_msg",
        {
            "type": "turn_aborted",
            "turn_id": x.turn_id,
            "reason": "interrupted",
            "started_at": 1795273512,
            "completed_at": 1795273524,
            "duration_ms": 12265,
        },
    )
    assert (fail_line, fix, ok, malformed, compacted, six, end) == (20, 26, 32, 33, 38, 46, 48)
    turns = [
        {
            "turn_id": "01a1fe4d-4bfa-7a1f-bae8-44350a96c26a",
            "started_line": started,
            "ended_line": None,
            "end": "none (the process was killed while writing a line)",
        },
        {"turn_id": x.turn_id, "started_line": resumed, "ended_line": end, "end": "turn_aborted (interrupted)"},
    ]
    facts = {
        "injected_context_lines": injected,
        "turns": turns,
        "end_state": "turn_aborted",
        "malformed_lines": [malformed],
        "compacted_line": compacted,
        "context_compacted_line": compacted + 1,
        "last_record_line": end,
        "fail_line": fail_line,
        "fix_line": fix,
        "rerun_line": ok,
    }
    return x, facts
