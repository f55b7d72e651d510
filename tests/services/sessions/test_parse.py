"""The facts of the fixture transcripts (expected.json), as the index holds them after one sync."""

import pytest

from tests.services.sessions import build
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

SESSIONS = {s["session_id"]: s for s in EXPECTED["sessions"]}


async def test_sync_indexes_every_fixture_session_and_counts_the_truncated_line(call):
    out = await call.sync()
    assert out.files_new == 6 and out.files_unreadable == []
    assert out.malformed_lines == sum(len(s["malformed_lines"]) for s in EXPECTED["sessions"])
    subagent = EXPECTED["sessions"][1]["subagents"][0]
    assert set(out.session_ids) == {*SESSIONS, f"{EXPECTED['sessions'][1]['session_id']}:{subagent['agent_id']}"}


@pytest.mark.parametrize("expected", EXPECTED["sessions"], ids=lambda s: s["key"])
async def test_session_metadata_completion_and_usage_match_the_fixture(call, expected):
    await call.sync()
    shown = await call("show", id=expected["session_id"])
    assert shown.source == expected["provider"]
    assert shown.cwd == expected["cwd"]
    assert shown.git_branch == expected["git_branch"]
    assert shown.created_at == expected["started_at"]
    assert shown.updated_at == expected["last_activity_at"]
    assert shown.completion == (
        "finished" if expected["end_state"] in ("turn_complete", "task_complete") else "not_finished"
    )
    assert [a["line"] for a in shown.capsule["asked"]] == expected["prompts"]
    assert [(c["line"]) for c in shown.capsule["open_calls"]] == [c["line"] for c in expected["open_tool_calls"]]
    usage = expected.get("usage_totals") or expected["total_token_usage"]
    assert {k: shown.capsule["usage"][k] for k in usage} == usage
    if "api_calls" in expected:
        assert shown.capsule["api_calls"] == expected["api_calls"]
    if "title" in expected:
        assert shown.title == expected["title"]


async def test_subagent_is_linked_to_its_parent_with_its_own_usage(call):
    await call.sync()
    parent = EXPECTED["sessions"][1]
    sub = parent["subagents"][0]
    shown = await call("show", id=parent["session_id"])
    assert [s.id for s in shown.subagents] == [f"{parent['session_id']}:{sub['agent_id']}"]
    child = await call("show", id=shown.subagents[0].id)
    assert child.parent_id == parent["session_id"]
    assert child.agent_type == sub["agent_type"]
    assert child.model == sub["model"]
    assert child.capsule["usage"] == parent["subagent_usage_totals"]
    assert child.completion == "finished"


async def test_injected_context_is_not_what_the_user_asked(call):
    await call.sync()
    for expected in EXPECTED["sessions"]:
        if not expected.get("injected_context_lines"):
            continue
        read = await call("read", id=expected["session_id"], from_line=1, limit=1000)
        lines = {m.line for m in read.messages}
        assert not lines & set(expected["injected_context_lines"])
        shown = await call("show", id=expected["session_id"])
        assert all("AGENTS.md" not in a["text"] for a in shown.capsule["asked"])


async def test_compaction_summary_is_kept_but_is_not_a_prompt(call):
    await call.sync()
    c = EXPECTED["sessions"][1]
    shown = await call("show", id=c["session_id"])
    assert shown.capsule["compaction"]["line"] == c["compact_summary_line"]
    assert c["compact_summary_line"] not in [a["line"] for a in shown.capsule["asked"]]
    x2 = EXPECTED["sessions"][4]
    shown = await call("show", id=x2["session_id"])
    assert shown.capsule["compaction"]["line"] == x2["compacted_line"]


async def test_capsules_stay_within_about_two_kilobytes(call):
    import json

    await call.sync()
    for expected in EXPECTED["sessions"]:
        shown = await call("show", id=expected["session_id"])
        assert len(json.dumps(shown.capsule).encode()) <= 2200


async def test_a_codex_subagent_thread_is_linked_to_its_parent_thread(call, homes):
    parent = EXPECTED["sessions"][4]
    child = "01a20000-6666-7777-8888-999900001111"
    spawn = {"parent_thread_id": parent["session_id"], "depth": 1, "agent_nickname": "Ada", "agent_role": "explorer"}
    records = [
        build.codex_meta(
            child,
            session_id=parent["session_id"],
            parent_thread_id=parent["session_id"],
            source={"subagent": {"thread_spawn": spawn}},
            agent_nickname="Ada",
            agent_role="explorer",
        ),
        build.codex_event("task_started", "2026-11-21T14:10:00.000Z"),
        build.codex_user("list every caller of backfill_payments", "2026-11-21T14:10:00.500Z"),
        build.codex_assistant("Two callers: the CLI and the nightly job.", "2026-11-21T14:10:30.000Z"),
        build.codex_event("task_complete", "2026-11-21T14:10:31.000Z", last_agent_message="Two callers."),
    ]
    build.write_jsonl(build.codex_path(homes["codex"], child, "2026-11-21T14-10-00"), records)
    await call.sync()
    shown = await call("show", id=child)
    assert (shown.parent_id, shown.agent_type, shown.completion) == (parent["session_id"], "subagent", "finished")
    assert [s.id for s in (await call("show", id=parent["session_id"])).subagents] == [child]
    assert child not in {s.id for s in (await call("find", limit=100)).sessions}  # listed under its parent
