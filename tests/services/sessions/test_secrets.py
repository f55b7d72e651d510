"""Secrets planted anywhere in a transcript never reach the database file, whatever record holds them."""

import json
from pathlib import Path

import pytest

from kernel.paths import global_db_path
from tests.services.sessions import build
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

B = EXPECTED["sessions"][2]
THREAD = "01a20000-1111-7222-8333-444455556666"

# The check also looks for each secret's distinctive part lower-cased, the form a full-text token takes.
BEARER = "tok" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"
OPENAI = "sk-proj-" + "Q9w8E7r6T5y4U3i2O1p0A9s8D7f6"
GITHUB = "ghp_" + "Zyxwvutsrqponmlkjihgfedcba9876543210"
AWS = "AKIA" + "QRSTUVWXYZ234567"
PASSWORD = "Hunter2Hunter2Hunter2"
SLACK = "xoxb-" + "1234567890-abcdefghijkl"


def _stored() -> bytes:
    db = global_db_path()
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def _assert_absent(secrets: list[str]) -> None:
    stored = _stored()
    for secret in secrets:
        assert secret.encode() not in stored, secret
        tail = secret.split("_")[-1].split("-")[-1].lower()
        assert tail.encode() not in stored.lower(), secret


def _claude_line(session_id: str, text: str, uuid: str = "u-new") -> bytes:
    record = build.claude_user(session_id, text, uuid, "2026-11-19T16:30:00.000Z")
    return json.dumps(record).encode() + b"\n"


async def test_planted_secrets_never_reach_the_database(call, homes):
    secrets = [
        "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4",
        "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIA" + "ABCDEFGHIJKLMNOP",
    ]
    path = homes["claude"] / B["path"].split("/", 1)[1]
    with path.open("ab") as handle:
        handle.write(_claude_line(B["session_id"], f"use key {secrets[0]} and token {secrets[1]} with {secrets[2]}"))
        handle.write(_claude_line(B["session_id"], "export DB_PASSWORD=hunter2hunter2 please", uuid="u2"))
    out = await call.sync(raw_events=True)
    assert out.redactions >= 4
    _assert_absent([*secrets, "hunter2hunter2"])
    hits = (await call("search", query="REDACTED")).hits
    assert hits and all(h.session_id == B["session_id"] for h in hits)


def _codex_rollout(home: Path) -> Path:
    curl = f'curl -H "Authorization: Bearer {BEARER}" https://api.example.com/v1/charges'
    records = [
        build.codex_meta(THREAD, history_mode="paginated"),
        build.codex_event("task_started"),
        build.codex_event("item_completed", item={"type": "UserMessage", "text": f"deploy with {OPENAI} please"}),
        build.codex_event(
            "item_completed",
            item={
                "type": "CommandExecution",
                "command": curl,
                "aggregated_output": f"401: key {OPENAI} rejected",
                "exit_code": 1,
            },
        ),
        build.codex_event("item_completed", item={"type": "AgentMessage", "text": f"the token {GITHUB} failed too"}),
        build.codex(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": f"export AWS_KEY={AWS}"}),
                "call_id": "call_1",
            },
        ),
        build.codex(
            "response_item",
            {"type": "function_call_output", "call_id": "call_1", "output": f"Exit code: 0\nOutput:\n{AWS}"},
        ),
        build.codex(
            "response_item",
            {
                "type": "local_shell_call",
                "call_id": "call_2",
                "status": "completed",
                "action": {"type": "exec", "command": ["bash", "-lc", f"DB_PASSWORD={PASSWORD} ./migrate"]},
            },
        ),
        build.codex_event("turn_aborted", reason=f"interrupted while using {SLACK}"),
    ]
    return build.write_jsonl(build.codex_path(home, THREAD), records)


async def test_secrets_in_every_codex_record_kind_never_reach_the_database(call, homes):
    _codex_rollout(homes["codex"])
    out = await call.sync(raw_events=True)
    assert THREAD in out.session_ids and out.redactions >= 7
    _assert_absent([BEARER, OPENAI, GITHUB, AWS, PASSWORD, SLACK])
    read = await call("read", id=THREAD, limit=100)
    command = next(m for m in read.messages if m.kind == "tool_result" and "curl" in m.text)
    assert "[REDACTED:" in command.text and "api.example.com" in command.text  # the rest of the text stays
    shown = await call("show", id=THREAD)
    assert shown.capsule["asked"][0]["text"].startswith("deploy with [REDACTED:")


async def test_secrets_in_a_subagent_title_and_an_interrupt_never_reach_the_database(call, homes):
    project = homes["claude"] / "projects" / "-home-dev-shop"
    sub = project / B["session_id"] / "subagents" / "agent-a0000000000000001.jsonl"
    record = build.claude_user(B["session_id"], "look around", "u-sub-1", "2026-11-19T16:10:00.000Z")
    build.write_jsonl(sub, [{**record, "isSidechain": True, "agentId": "a0000000000000001"}])
    meta = {"agentType": "general-purpose", "description": f"retry with {GITHUB}", "toolUseId": "toolu_x"}
    sub.with_suffix(".meta.json").write_text(json.dumps(meta), encoding="utf-8")
    interrupt = f"[Request interrupted by user] the key is {OPENAI}"
    build.write_jsonl(
        project / f"{B['session_id']}.jsonl",
        [build.claude_user(B["session_id"], interrupt, "u-int-1", "2026-11-19T16:31:00.000Z")],
    )
    out = await call.sync(raw_events=True)
    assert out.redactions >= 2
    _assert_absent([GITHUB, OPENAI])
    child = await call("show", id=f"{B['session_id']}:a0000000000000001")
    assert child.title.startswith("retry with [REDACTED:")
    read = await call("read", id=B["session_id"], from_line=B["lines"] + 1)
    assert [(m.kind, m.text.startswith("[Request interrupted")) for m in read.messages] == [("interrupt", True)]


async def test_secrets_in_tool_arguments_shown_as_json_are_redacted(call, homes):
    # Arguments of tools without a command are shown as JSON, which escapes a newline as `\n` and hides
    # the word boundary a key's pattern needs, so they are redacted before they are encoded.
    records = [
        build.codex_meta(THREAD),
        build.codex(
            "response_item",
            {
                "type": "function_call",
                "name": "mcp__db__query",
                "arguments": json.dumps({"sql": f"select 1;\n{AWS}"}),
                "call_id": "call_9",
            },
        ),
        build.codex(
            "response_item",
            {"type": "function_call_output", "call_id": "call_9", "output": {"rows": f"\n{GITHUB}"}},
        ),
    ]
    build.write_jsonl(build.codex_path(homes["codex"], THREAD), records)
    blocks = [{"type": "tool_use", "id": "toolu_9", "name": "WebFetch", "input": {"note": f"see\n{OPENAI}"}}]
    build.write_jsonl(
        homes["claude"] / B["path"].split("/", 1)[1],
        [build.claude_assistant(B["session_id"], blocks, "u-9", "2026-11-19T16:32:00.000Z", message_id="msg_9")],
    )
    await call.sync()
    _assert_absent([AWS, GITHUB, OPENAI])
