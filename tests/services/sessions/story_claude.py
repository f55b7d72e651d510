# ruff: noqa: E501  (transcript text is data: long lines are what the tools write)
"""The Claude Code half of the test story: sessions A, C (with its Explore subagent) and B (see transcripts.py)."""

from __future__ import annotations

from typing import Any

from tests.services.sessions.story_format import (
    SHOP,
    Claude,
    bash,
    created,
    edited,
    numbered,
    read_result,
    stdout,
    uid,
    usage,
)

# ---------------------------------------------------------------- session A: gateway retries

A_ID = "4ba71ab7-ac05-44a5-acc6-be1805fdf179"
GATEWAY_OLD = '''import httpx

from payments.errors import GatewayError


class PaymentGatewayClient:
    """Talks to the card processor. One call per charge, no retry yet."""

    def __init__(self, base_url: str, api_key: str, timeout: float = 10.0) -> None:
        self._http = httpx.Client(
            base_url=base_url,
            timeout=timeout,
            headers={"Authorization": f"Bearer {api_key}"},
        )

    def charge(self, order_id: int, amount_cents: int, currency: str = "EUR") -> str:
        resp = self._http.post("/v1/charges", json={"order_id": order_id, "amount": amount_cents})
        if resp.status_code >= 400:
            raise GatewayError(resp.status_code, resp.text)
        return resp.json()["charge_id"]'''
RETRY_TESTS = """import httpx
import pytest

from payments.errors import GatewayError
from payments.gateway import PaymentGatewayClient


def _client(handler):
    client = PaymentGatewayClient("https://psp.invalid", api_key="test", timeout=1)
    client._http = httpx.Client(base_url="https://psp.invalid", transport=httpx.MockTransport(handler))
    client._sleep = lambda seconds: None
    return client


def test_a_503_then_success_is_retried_once():
    answers = iter([httpx.Response(503), httpx.Response(200, json={"charge_id": "ch_1"})])
    assert _client(lambda request: next(answers)).charge(7, 1200) == "ch_1"


def test_the_same_idempotency_key_is_sent_on_every_attempt():
    keys = []

    def handler(request):
        keys.append(request.headers["Idempotency-Key"])
        return httpx.Response(502) if len(keys) < 3 else httpx.Response(200, json={"charge_id": "ch_2"})

    _client(handler).charge(8, 500)
    assert len(set(keys)) == 1 and len(keys) == 3


def test_three_failures_raise_the_last_error():
    with pytest.raises(GatewayError):
        _client(lambda request: httpx.Response(504)).charge(9, 100)


def test_a_4xx_is_not_retried():
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(402)

    with pytest.raises(GatewayError):
        _client(handler).charge(10, 100)
    assert calls == [1]"""
A_PROMPT = (
    "Give PaymentGatewayClient.charge in payments/gateway.py retries with exponential backoff. Only 502, 503, "
    "504 and timeouts are worth retrying, at most 3 attempts, one idempotency key for all of them, plus tests."
)


def session_a() -> tuple[Claude, dict[str, Any]]:
    s = Claude(A_ID, "feature/payment-retries", "2.1.284")
    s.raw({"type": "summary", "summary": "Retrying gateway charges with backoff", "leafUuid": uid(A_ID, "leaf")})
    s.snapshot("2026-11-17T09:12:03.412Z")
    s.prompt(A_PROMPT, "2026-11-17T09:12:03.412Z")
    think = {
        "type": "thinking",
        "thinking": "No retry exists around the charge call; read the client first.",
        "signature": "EqQBCkYIBxgCKkB" + "x" * 40,
    }
    read = {"type": "tool_use", "name": "Read", "input": {"file_path": f"{SHOP}/payments/gateway.py"}}
    calls = s.say(
        [think, {"type": "text", "text": "Reading the gateway client before touching it."}, read],
        ["2026-11-17T09:12:06.981Z", "2026-11-17T09:12:07.604Z", "2026-11-17T09:12:07.903Z"],
        usage(6, 5123, 14210, 146),
        "tool_use",
    )
    content, extra = read_result(f"{SHOP}/payments/gateway.py", GATEWAY_OLD)
    s.result(calls[-1], content, "2026-11-17T09:12:08.122Z", extra)
    new_charge = (
        '    def charge(self, order_id: int, amount_cents: int, currency: str = "EUR") -> str:\n'
        '        key = f"order-{order_id}-{amount_cents}"\n'
        "        for attempt in range(1, MAX_ATTEMPTS + 1):\n"
        "            try:\n"
        '                resp = self._http.post("/v1/charges", headers={"Idempotency-Key": key},\n'
        '                                       json={"order_id": order_id, "amount": amount_cents})\n'
        "            except httpx.TimeoutException:\n"
        "                if attempt == MAX_ATTEMPTS:\n"
        "                    raise\n"
        "            else:\n"
        "                if resp.status_code not in RETRYABLE_STATUS or attempt == MAX_ATTEMPTS:\n"
        "                    break\n"
        "            self._sleep(0.2 * 2 ** (attempt - 1))"
    )
    old_charge = GATEWAY_OLD.split("\n\n    def charge", 1)[1].join(["    def charge", ""])
    edit = {
        "type": "tool_use",
        "name": "Edit",
        "input": {"file_path": f"{SHOP}/payments/gateway.py", "old_string": old_charge, "new_string": new_charge},
    }
    (call,) = s.say([edit], ["2026-11-17T09:12:31.544Z"], usage(4, 1862, 19333, 521), "tool_use")
    content, extra = edited(f"{SHOP}/payments/gateway.py", old_charge, new_charge, GATEWAY_OLD)
    s.result(call, content, "2026-11-17T09:12:31.760Z", extra)
    backup = {
        "payments/gateway.py": {
            "backupFileName": "9d1c3e5a7b2f4c60@v1",
            "version": 1,
            "backupTime": "2026-11-17T09:12:31.701Z",
        }
    }
    s.snapshot("2026-11-17T09:12:31.760Z", backup, update=True)
    old_head = "import httpx\n\nfrom payments.errors import GatewayError"
    new_head = "import time\n\nimport httpx\n\nfrom payments.errors import GatewayError\n\nMAX_ATTEMPTS = 3\nRETRYABLE_STATUS = {502, 503, 504}"
    edit = {
        "type": "tool_use",
        "name": "Edit",
        "input": {"file_path": f"{SHOP}/payments/gateway.py", "old_string": old_head, "new_string": new_head},
    }
    (call,) = s.say([edit], ["2026-11-17T09:12:39.015Z"], usage(4, 1230, 21195, 118), "tool_use")
    content, extra = edited(f"{SHOP}/payments/gateway.py", old_head, new_head, GATEWAY_OLD)
    s.result(call, content, "2026-11-17T09:12:39.201Z", extra)
    write = {
        "type": "tool_use",
        "name": "Write",
        "input": {"file_path": f"{SHOP}/tests/test_gateway_retries.py", "content": RETRY_TESTS},
    }
    (call,) = s.say([write], ["2026-11-17T09:13:02.377Z"], usage(4, 1104, 22425, 734), "tool_use")
    assert call == 13
    content, extra = created(f"{SHOP}/tests/test_gateway_retries.py", RETRY_TESTS)
    s.result(call, content, "2026-11-17T09:13:02.590Z", extra)
    run = bash("python -m pytest -q tests/test_gateway_retries.py", "Run the retry tests")
    (call,) = s.say([run], ["2026-11-17T09:13:06.118Z"], usage(4, 980, 23529, 96), "tool_use")
    out = "....                                                                     [100%]\n4 passed in 0.41s"
    s.result(call, out, "2026-11-17T09:13:08.054Z", stdout(out))
    done = (
        "Done: `PaymentGatewayClient.charge` retries 502/503/504 and timeouts, 3 attempts at most, backing off "
        "0.2 s then 0.4 s, with one Idempotency-Key per charge. tests/test_gateway_retries.py has 4 tests, all green."
    )
    s.say([{"type": "text", "text": done}], ["2026-11-17T09:13:14.690Z"], usage(4, 310, 24509, 188), "end_turn")
    s.turn_done("2026-11-17T09:13:14.702Z", 71290, 14)
    s.prompt("commit it", "2026-11-17T09:30:41.087Z")
    commit = bash(
        'git add payments/gateway.py tests/test_gateway_retries.py && git commit -m "payments: retry gateway '
        'charges on 5xx and timeouts with backoff"',
        "Commit the retries",
    )
    (call,) = s.say([commit], ["2026-11-17T09:30:44.512Z"], usage(9, 240, 24819, 141), "tool_use")
    out = (
        "[feature/payment-retries a41c9e2] payments: retry gateway charges on 5xx and timeouts with backoff\n"
        " 2 files changed, 61 insertions(+), 6 deletions(-)\n create mode 100644 tests/test_gateway_retries.py"
    )
    commit_line = s.result(call, out, "2026-11-17T09:30:45.233Z", stdout(out))
    s.say(
        [{"type": "text", "text": "Committed: a41c9e2 on feature/payment-retries."}],
        ["2026-11-17T09:30:48.006Z"],
        usage(4, 212, 25059, 19),
        "end_turn",
    )
    end = s.turn_done("2026-11-17T09:30:48.015Z", 6928, 4)
    title = s.title("Retries with backoff for the payment gateway")
    s.last_prompt("commit it")
    facts = {"commit_line": commit_line, "last_record_line": end, "title_line": title, "end_state": "turn_complete"}
    return s, facts


# ---------------------------------------------------------------- session C: the plan, a subagent, compaction

C_ID = "a0c0b428-85fa-424c-840f-df41e3f1246a"
AGENT_ID = "a1996c87dc700da1b"
C_PROMPT = (
    "Payment data has to leave the orders table for a new payments table (migration 0042). Find everything that "
    "reads or writes orders.payment_status, payment_amount_cents or payment_provider_ref, write a step-by-step plan "
    "to docs/migrations/0042-plan.md, then do steps 1 and 2."
)
EXPLORE_TASK = (
    "List every read and write of orders.payment_status, orders.payment_amount_cents and orders.payment_provider_ref "
    f"under {SHOP}: Python, SQL and tests. Give file:line and say read or write for each."
)
PLAN = """# Migration 0042: payments leave the orders table

Branch feature/split-payments. The checkout team owns it.

1. Schema: a new `payments` table (id, order_id unique FK to orders, status, amount_cents NOT NULL,
   provider_ref, created_at); the orders columns stay for now.
2. Dual-write: checkout/service.py place_order writes both orders.payment_* and a payments row.
3. Backfill: scripts/backfill_payments.py copies the 34210 existing orders in id order, 5000 per batch,
   resumable with --start-id and idempotent (ON CONFLICT (order_id) DO NOTHING).
4. Switch reads: refunds/service.py and reports/daily_revenue.sql read payments instead of orders.
5. Drop the three orders.payment_* columns in migration 0043, after a release with no reads left."""
USAGE_REPORT = (
    "The orders.payment_* columns are used in 5 files (10 places):\n"
    "- models/order.py:14-16 defines the three columns\n"
    "- checkout/service.py:52-54 WRITES them in place_order (status captured, amount, provider ref)\n"
    "- refunds/service.py:29 and :31 READ payment_status and payment_provider_ref before refunding\n"
    "- reports/daily_revenue.sql:9 READS payment_amount_cents and payment_status\n"
    "- tests/test_checkout.py:40-41 assert them\n"
    "Nothing writes payments rows today; the payments table does not exist yet."
)
GREP_HITS = (
    "models/order.py:14:    payment_status = Column(String(16), nullable=True)\n"
    "models/order.py:15:    payment_amount_cents = Column(BigInteger, nullable=True)\n"
    "models/order.py:16:    payment_provider_ref = Column(String(64), nullable=True)\n"
    'checkout/service.py:52:    order.payment_status = "captured"\n'
    "checkout/service.py:53:    order.payment_amount_cents = order.total_cents\n"
    "checkout/service.py:54:    order.payment_provider_ref = charge_id\n"
    'refunds/service.py:29:    if order.payment_status != "captured":\n'
    "refunds/service.py:31:    psp.refund(order.payment_provider_ref, amount_cents)  # payments are refunded by ref\n"
    'tests/test_checkout.py:40:    assert order.payment_status == "captured"'
)


def subagent() -> Claude:
    s = Claude(C_ID, "feature/split-payments", "2.1.286", agent_id=AGENT_ID)
    s.prompt_id = uid(C_ID, "prompt", "2026-11-18T13:40:12.305Z")
    s.prompt(EXPLORE_TASK, "2026-11-18T13:40:18.530Z", human=False)
    grep = {
        "type": "tool_use",
        "name": "Grep",
        "input": {
            "pattern": "payment_(status|amount_cents|provider_ref)",
            "path": SHOP,
            "output_mode": "content",
            "-n": True,
        },
    }
    (call,) = s.say([grep], ["2026-11-18T13:40:21.114Z"], usage(10, 2211, 9870, 88), "tool_use")
    extra = {"mode": "content", "numFiles": 4, "filenames": [], "content": GREP_HITS, "numLines": 9}
    s.result(call, GREP_HITS, "2026-11-18T13:40:21.402Z", extra)
    grep = {
        "type": "tool_use",
        "name": "Grep",
        "input": {"pattern": "payment_", "path": SHOP, "glob": "**/*.sql", "output_mode": "content", "-n": True},
    }
    (call,) = s.say([grep], ["2026-11-18T13:40:29.660Z"], usage(8, 640, 12081, 71), "tool_use")
    sql = "reports/daily_revenue.sql:9:SELECT date(created_at), SUM(payment_amount_cents) FROM orders WHERE payment_status = 'captured'"
    s.result(
        call,
        sql,
        "2026-11-18T13:40:29.931Z",
        {"mode": "content", "numFiles": 1, "filenames": [], "content": sql, "numLines": 1},
    )
    read = {
        "type": "tool_use",
        "name": "Read",
        "input": {"file_path": f"{SHOP}/refunds/service.py", "offset": 28, "limit": 6},
    }
    (call,) = s.say([read], ["2026-11-18T13:40:38.202Z"], usage(8, 512, 12721, 64), "tool_use")
    refund = (
        'def refund(session, order, amount_cents, psp):\n    if order.payment_status != "captured":\n'
        '        raise RefundError("only captured payments can be refunded")\n'
        "    psp.refund(order.payment_provider_ref, amount_cents)"
    )
    extra = read_result(f"{SHOP}/refunds/service.py", refund)[1]
    s.result(call, numbered(refund, 28), "2026-11-18T13:40:38.420Z", extra)
    s.say([{"type": "text", "text": USAGE_REPORT}], ["2026-11-18T13:41:02.600Z"], usage(8, 380, 13233, 674), "end_turn")
    return s


def session_c() -> tuple[Claude, dict[str, Any]]:
    s = Claude(C_ID, "feature/split-payments", "2.1.286")
    s.snapshot("2026-11-18T13:40:12.305Z")
    s.prompt(C_PROMPT, "2026-11-18T13:40:12.305Z")
    agent = {
        "type": "tool_use",
        "name": "Agent",
        "input": {"description": "Find the payment column usages", "prompt": EXPLORE_TASK, "subagent_type": "Explore"},
    }
    read = {"type": "tool_use", "name": "Read", "input": {"file_path": f"{SHOP}/models/order.py"}}
    calls = s.say(
        [
            {"type": "thinking", "thinking": "", "signature": "EqMBCkYIBxgC" + "y" * 30},
            {"type": "text", "text": "An Explore agent will map the column usages while I read the Order model."},
            agent,
            read,
        ],
        [
            "2026-11-18T13:40:16.002Z",
            "2026-11-18T13:40:16.870Z",
            "2026-11-18T13:40:18.441Z",
            "2026-11-18T13:40:18.802Z",
        ],
        usage(6, 6044, 14210, 412),
        "tool_use",
    )
    agent_line = calls[2]
    model = (
        "from sqlalchemy import BigInteger, Column, DateTime, Integer, String, func\n\nfrom shop.db import Base\n\n\n"
        'class Order(Base):\n    __tablename__ = "orders"\n\n    id = Column(Integer, primary_key=True)\n'
        "    total_cents = Column(BigInteger, nullable=False)\n    payment_status = Column(String(16), nullable=True)\n"
        "    payment_amount_cents = Column(BigInteger, nullable=True)\n    payment_provider_ref = Column(String(64), nullable=True)"
    )
    content, extra = read_result(f"{SHOP}/models/order.py", model)
    s.result(calls[3], content, "2026-11-18T13:40:19.020Z", extra)
    report = [{"type": "text", "text": USAGE_REPORT}, {"type": "text", "text": f"agentId: {AGENT_ID}"}]
    extra = {
        "status": "completed",
        "prompt": EXPLORE_TASK,
        "agentId": AGENT_ID,
        "content": report[:1],
        "totalDurationMs": 44474,
        "totalTokens": 14295,
        "totalToolUseCount": 3,
        "usage": {
            "input_tokens": 8,
            "cache_creation_input_tokens": 380,
            "cache_read_input_tokens": 13233,
            "output_tokens": 674,
        },
    }
    result_line = s.result(agent_line, report, "2026-11-18T13:41:02.915Z", extra)
    write = {
        "type": "tool_use",
        "name": "Write",
        "input": {"file_path": f"{SHOP}/docs/migrations/0042-plan.md", "content": PLAN},
    }
    calls = s.say(
        [{"type": "text", "text": "The plan for migration 0042 goes to docs/migrations/0042-plan.md."}, write],
        ["2026-11-18T13:41:40.118Z", "2026-11-18T13:41:47.566Z"],
        usage(4, 77842, 20254, 903),
        "tool_use",
    )
    plan_line = calls[1]
    content, extra = created(f"{SHOP}/docs/migrations/0042-plan.md", PLAN)
    s.result(plan_line, content, "2026-11-18T13:41:47.790Z", extra)
    migration = (
        '"""payments leave the orders table\n\nRevision ID: 0042_split_payments\nRevises: 0041_order_notes\n"""\n'
        'import sqlalchemy as sa\nfrom alembic import op\n\nrevision = "0042_split_payments"\n'
        'down_revision = "0041_order_notes"\n\n\ndef upgrade():\n    op.create_table(\n        "payments",\n'
        '        sa.Column("id", sa.BigInteger, primary_key=True),\n'
        '        sa.Column("order_id", sa.Integer, sa.ForeignKey("orders.id"), unique=True, nullable=False),\n'
        '        sa.Column("status", sa.String(16), nullable=False),\n'
        '        sa.Column("amount_cents", sa.BigInteger, nullable=False),\n'
        '        sa.Column("provider_ref", sa.String(64)),\n    )'
    )
    write = {
        "type": "tool_use",
        "name": "Write",
        "input": {"file_path": f"{SHOP}/migrations/versions/0042_split_payments.py", "content": migration},
    }
    (call,) = s.say([write], ["2026-11-18T13:42:15.203Z"], usage(4, 43988, 98096, 688), "tool_use")
    content, extra = created(f"{SHOP}/migrations/versions/0042_split_payments.py", migration)
    s.result(call, content, "2026-11-18T13:42:15.411Z", extra)
    old = (
        '    order.payment_status = "captured"\n    order.payment_amount_cents = order.total_cents\n'
        "    order.payment_provider_ref = charge_id\n    session.add(order)"
    )
    new = (
        old
        + '\n    # migration 0042 step 2: dual-write\n    _write_payment(session, order, status="captured", provider_ref=charge_id, discount=discount)'
    )
    edit = {
        "type": "tool_use",
        "name": "Edit",
        "input": {"file_path": f"{SHOP}/checkout/service.py", "old_string": old, "new_string": new},
    }
    (call,) = s.say([edit], ["2026-11-18T13:42:41.660Z"], usage(4, 25872, 142088, 240), "tool_use")
    content, extra = edited(
        f"{SHOP}/checkout/service.py", old, new, "def place_order(session, order, discount=None):\n" + old
    )
    edit_result = s.result(call, content, "2026-11-18T13:42:41.902Z", extra)
    boundary_uuid = uid(C_ID, "boundary")
    boundary = s.raw(
        {
            "parentUuid": None,
            "logicalParentUuid": s.parent,
            "isSidechain": False,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "timestamp": "2026-11-18T13:43:29.118Z",
            "uuid": boundary_uuid,
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": 168204},
        }
        | s._tail()
    )
    s.parent = boundary_uuid
    summary = (
        "This session continues an earlier conversation that ran out of context. Summary:\n"
        "1. Request: move orders.payment_* into a new payments table with migration 0042, plan in "
        "docs/migrations/0042-plan.md, do steps 1 and 2.\n"
        "2. The plan has 5 steps: schema, dual-write, backfill in batches of 5000, switch reads, drop the columns in 0043.\n"
        "3. Done: step 1 (migrations/versions/0042_split_payments.py) and step 2 (dual-write in checkout/service.py).\n"
        "4. Next: write scripts/backfill_payments.py for step 3."
    )
    rid = uid(C_ID, "summary")
    summary_line = s.add(
        {
            "parentUuid": boundary_uuid,
            "isSidechain": False,
            "type": "user",
            "message": {"role": "user", "content": summary},
            "isVisibleInTranscriptOnly": True,
            "isCompactSummary": True,
            "uuid": rid,
            "timestamp": "2026-11-18T13:43:29.130Z",
        }
        | s._tail()
    )
    script = (
        '"""Copy orders.payment_* into payments, id order, in batches (migration 0042, step 3)."""\n'
        'import argparse\n\nfrom shop.db import engine\n\nINSERT = """\nINSERT INTO payments (order_id, status, amount_cents, provider_ref)\n'
        "SELECT id, payment_status, payment_amount_cents, payment_provider_ref FROM orders\n"
        'WHERE id BETWEEN :lo AND :hi AND payment_status IS NOT NULL\nON CONFLICT (order_id) DO NOTHING\n"""'
    )
    write = {
        "type": "tool_use",
        "name": "Write",
        "input": {"file_path": f"{SHOP}/scripts/backfill_payments.py", "content": script},
    }
    calls = s.say(
        [{"type": "text", "text": "Next is the backfill script for step 3."}, write],
        ["2026-11-18T13:43:41.771Z", "2026-11-18T13:44:09.014Z"],
        usage(8, 9874, 14210, 1210),
        "tool_use",
    )
    content, extra = created(f"{SHOP}/scripts/backfill_payments.py", script)
    s.result(calls[1], content, "2026-11-18T13:44:09.233Z", extra)
    run = bash("python -m pytest -q tests/test_checkout.py tests/test_models.py", "Run the checkout and model tests")
    (call,) = s.say([run], ["2026-11-18T13:44:13.650Z"], usage(4, 1388, 24084, 77), "tool_use")
    out = "............                                                             [100%]\n12 passed in 1.87s"
    s.result(call, out, "2026-11-18T13:44:16.108Z", stdout(out))
    done = (
        "Steps 1 and 2 of docs/migrations/0042-plan.md are in: 0042_split_payments creates the payments table "
        "(not yet applied) and place_order dual-writes. scripts/backfill_payments.py is ready for step 3."
    )
    s.say([{"type": "text", "text": done}], ["2026-11-18T13:44:24.902Z"], usage(4, 402, 25472, 161), "end_turn")
    end = s.turn_done("2026-11-18T13:44:24.911Z", 252606, 20)
    title = s.title("Move payments out of orders (migration 0042)")
    s.last_prompt(C_PROMPT)
    assert (agent_line, result_line, plan_line, edit_result + 1, summary_line) == (5, 8, 10, boundary, 17)
    facts = {
        "agent_line": agent_line,
        "agent_result_line": result_line,
        "plan_line": plan_line,
        "compact_boundary_line": boundary,
        "compact_summary_line": summary_line,
        "last_record_line": end,
        "title_line": title,
        "end_state": "turn_complete",
    }
    return s, facts


# ---------------------------------------------------------------- session B: stopped mid-task

B_ID = "5e7b29e0-5b45-4fc7-8a4f-643bfe822b95"
B_PROMPT = (
    "Carry on with split-payments: apply 0042 to the local database and run the backfill "
    "(step 3 of docs/migrations/0042-plan.md), 5000 orders per batch."
)
QUEUED = "also check that a batch run twice leaves no duplicate payments"


def session_b() -> tuple[Claude, dict[str, Any]]:
    s = Claude(B_ID, "feature/split-payments", "2.1.286")
    s.snapshot("2026-11-19T16:05:02.118Z")
    s.prompt(B_PROMPT, "2026-11-19T16:05:02.118Z")
    read = {"type": "tool_use", "name": "Read", "input": {"file_path": f"{SHOP}/docs/migrations/0042-plan.md"}}
    calls = s.say(
        [
            {"type": "thinking", "thinking": "", "signature": "EqMBCkYIBxgC" + "z" * 30},
            {"type": "text", "text": "First the plan again, then the migration."},
            read,
        ],
        ["2026-11-19T16:05:05.402Z", "2026-11-19T16:05:05.990Z", "2026-11-19T16:05:06.215Z"],
        usage(6, 4102, 14210, 97),
        "tool_use",
    )
    content, extra = read_result(f"{SHOP}/docs/migrations/0042-plan.md", PLAN)
    s.result(calls[-1], content, "2026-11-19T16:05:06.430Z", extra)
    (call,) = s.say(
        [bash("alembic upgrade head", "Apply migration 0042")],
        ["2026-11-19T16:05:10.877Z"],
        usage(4, 1406, 18312, 58),
        "tool_use",
    )
    log = (
        "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
        "INFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
        "INFO  [alembic.runtime.migration] Running upgrade 0041_order_notes -> 0042_split_payments"
    )
    s.result(call, log, "2026-11-19T16:05:13.640Z", stdout("", log))
    (call,) = s.say(
        [bash("python scripts/backfill_payments.py --dry-run", "Count the orders to copy")],
        ["2026-11-19T16:05:17.009Z"],
        usage(4, 392, 19718, 61),
        "tool_use",
    )
    out = "would copy 34210 orders (ids 1-34210) in 7 batches of 5000\npayments has 0 rows"
    s.result(call, out, "2026-11-19T16:05:18.771Z", stdout(out))
    s.title("Apply 0042 and backfill the payments table")
    s.last_prompt(B_PROMPT)
    first = bash(
        "python scripts/backfill_payments.py --start-id 1 --batch-size 5000 --max-batches 3",
        "Backfill batches 1-3",
        timeout=600000,
    )
    calls = s.say(
        [{"type": "text", "text": "34,210 orders, 7 batches. Running the first 3, then checking the counts."}, first],
        ["2026-11-19T16:05:22.300Z", "2026-11-19T16:05:22.844Z"],
        usage(4, 301, 20110, 133),
        "tool_use",
    )
    s.raw(
        {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-11-19T16:05:27.518Z", "content": QUEUED}
    )
    out = (
        "batch 1: orders 1-5000 -> 5000 payments rows (3.1s)\nbatch 2: orders 5001-10000 -> 5000 payments rows (3.4s)\n"
        "batch 3: orders 10001-15000 -> 5000 payments rows (3.2s)\nstopped after 3 batches; next --start-id 15001"
    )
    s.result(calls[1], out, "2026-11-19T16:05:33.102Z", stdout(out))
    rid = uid(B_ID, "queued")
    attachment = {
        "type": "queued_command",
        "prompt": QUEUED,
        "commandMode": "prompt",
        "origin": {"kind": "human"},
        "timestamp": "2026-11-19T16:05:27.518Z",
    }
    queued = s.add(
        {
            "parentUuid": s.parent,
            "isSidechain": False,
            "attachment": attachment,
            "type": "attachment",
            "uuid": rid,
            "timestamp": "2026-11-19T16:05:33.240Z",
        }
        | s._tail()
    )
    s.parent = rid
    (call,) = s.say(
        [bash("python -m pytest -q tests/test_backfill.py -k idempotent", "Check that the backfill is idempotent")],
        ["2026-11-19T16:05:38.667Z"],
        usage(4, 512, 20544, 84),
        "tool_use",
    )
    out = ".                                                                        [100%]\n1 passed, 3 deselected in 0.61s"
    s.result(call, out, "2026-11-19T16:05:40.052Z", stdout(out))
    fourth = bash(
        "python scripts/backfill_payments.py --start-id 15001 --batch-size 5000 --max-batches 1",
        "Backfill batch 4",
        timeout=600000,
    )
    text = (
        "Running a batch again is idempotent (ON CONFLICT (order_id) DO NOTHING) and the test passes. Batches 1-3 "
        "are done (orders 1-15000). Now batch 4 (orders 15001-20000)."
    )
    calls = s.say(
        [{"type": "text", "text": text}, fourth],
        ["2026-11-19T16:05:46.310Z", "2026-11-19T16:05:46.902Z"],
        usage(4, 355, 21056, 121),
        "tool_use",
    )
    assert (calls[1], queued) == (21, 17)
    facts = {"queued_line": queued, "last_record_line": calls[1], "end_state": "open_tool_use", "title_line": 11}
    return s, facts
