"""Recall, search, show and read over the fixture sessions: the answers the fixtures' README expects."""

import json

import pytest

from kernel.errors import PalliumError
from tests.services.sessions import build
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

X2, B = EXPECTED["sessions"][4]["session_id"], EXPECTED["sessions"][2]["session_id"]


def _key(expect: dict) -> str:
    return expect["session_id"] + (f":{expect['agent_id']}" if expect.get("agent_id") else "")


@pytest.mark.parametrize("case", EXPECTED["recall"], ids=lambda c: c["query"])
async def test_recall_cites_the_lines_the_fixture_names(call, case):
    await call.sync()
    out = await call("recall", query=case["query"])
    cited = {(r.id, c.line) for r in out.results for c in r.citations}
    wanted = {(_key(e), e["line"]) for e in case["expect"]}
    assert {_key(e) for e in case["expect"]} <= {r.id for r in out.results}
    assert (_key(case["expect"][0]), case["expect"][0]["line"]) in cited
    assert len(wanted & cited) >= max(1, (2 * len(wanted)) // 3), wanted - cited
    assert len(out.model_dump_json().encode()) <= 8 * 1024


async def test_where_work_stopped_puts_the_latest_open_call_first(call):
    await call.sync()
    out = await call("recall", query="where did the checkout migration stop?")
    assert [r.id for r in out.results[:2]] == [X2, B]
    first = out.results[0]
    assert first.completion == "not_finished"
    assert first.citations[0].line == 46 and first.citations[0].why == "open_call"
    assert "turn aborted" in first.evidence
    assert out.results[1].citations[0].line == 21


async def test_recall_without_embeddings_says_it_is_lexical_and_why(call):
    await call.sync()
    out = await call("recall", query="backfill")
    assert out.semantic.used is False
    assert "no embedding provider" in out.semantic.reason
    assert out.freshness.sessions == 6 and out.freshness.last_sync_at == "2026-11-21T15:30:00Z"


async def test_recall_filters_by_source_time_file_and_repo(call):
    await call.sync()
    codex = await call("recall", query="backfill", source="codex")
    assert {r.source for r in codex.results} == {"codex"}
    recent = await call("recall", query="payments", since="2026-11-20")
    assert {r.id for r in recent.results} == {X2, EXPECTED["sessions"][3]["session_id"]}
    older = await call("recall", query="payments", before="2026-11-18")
    assert {r.id for r in older.results} == {EXPECTED["sessions"][0]["session_id"]}
    by_file = await call("recall", query="payments", file="gateway.py")
    assert [r.id for r in by_file.results] == [EXPECTED["sessions"][0]["session_id"]]
    elsewhere = await call("recall", query="payments", repo="/home/dev/other")
    assert elsewhere.results == []
    here = await call("recall", query="payments", repo="/home/dev/shop", limit=10, full=True)
    assert len(here.results) == 6


async def test_recall_filters_by_the_exact_working_folder(call, homes):
    thread = "01a20000-5555-7666-8777-888899990000"
    records = [
        build.codex_meta(thread, cwd="/home/dev/shop/tools"),
        build.codex_user("why does the payments backfill skip refunds?"),
        build.codex_assistant("The backfill reads only captured payments; refunds are a later step."),
    ]
    build.write_jsonl(build.codex_path(homes["codex"], thread), records)
    await call.sync()
    inside = await call("recall", query="payments backfill", cwd="/home/dev/shop/tools")
    assert [r.id for r in inside.results] == [thread]
    shop = await call("recall", query="payments backfill", cwd="/home/dev/shop", limit=10)
    assert shop.results and thread not in {r.id for r in shop.results}  # exact folder, not a prefix
    repo = await call("recall", query="payments backfill", repo="/home/dev/shop", limit=10)
    assert thread in {r.id for r in repo.results}  # --repo takes the folders inside it too


async def test_sessions_rank_by_how_many_words_their_best_messages_hold(call, homes):
    twice, focused, scattered = (f"01a20000-5555-7666-8777-00000000000{i}" for i in (1, 2, 3))
    sessions = {
        twice: [
            build.codex_user("zeppelin ledger rollover failed"),
            build.codex_assistant("the zeppelin ledger rollover is fixed"),
            build.codex_user("ledger again"),
        ],
        focused: [build.codex_user("the zeppelin ledger rollover failed")]
        + [build.codex_assistant(f"ledger rollover step {i}, at length: ledger rollover ledger") for i in range(4)],
        scattered: [build.codex_user(f"zeppelin note {i}: zeppelin zeppelin") for i in range(8)]
        + [build.codex_user(f"ledger note {i}") for i in range(8)],
    }
    for sid, records in sessions.items():
        build.write_jsonl(build.codex_path(homes["codex"], sid), [build.codex_meta(sid, cwd="/w/" + sid), *records])
    await call.sync()
    out = await call("recall", query="zeppelin ledger rollover", limit=3)
    # two messages with every word beat one, however many with two follow it; any with all beat none
    assert [r.id for r in out.results] == [twice, focused, scattered]


async def test_a_bad_time_filter_names_the_field(call):
    with pytest.raises(PalliumError) as bad:
        await call("recall", query="x", since="last tuesday")
    assert bad.value.code == "invalid_input" and bad.value.details["field"] == "since"


async def test_search_pages_with_a_cursor_and_never_repeats_a_hit(call):
    await call.sync()
    first = await call("search", query="backfill", limit=5)
    assert first.truncated and first.next_cursor == "5"
    second = await call("search", query="backfill", limit=5, cursor=first.next_cursor)
    one = {(h.session_id, h.line, h.kind) for h in first.hits}
    two = {(h.session_id, h.line, h.kind) for h in second.hits}
    assert len(one) == 5 and not one & two
    assert all("backfill" in h.snippet.lower() for h in first.hits)


async def test_search_hybrid_without_a_provider_is_lexical_with_the_reason(call):
    await call.sync()
    out = await call("search", query="NotNullViolation", hybrid=True)
    assert [(h.session_id, h.line) for h in out.hits] == [(X2, 20)]
    assert out.semantic.used is False and out.semantic.reason


async def test_show_accepts_a_unique_prefix_and_prefers_the_parent_over_its_subagents(call):
    await call.sync()
    parent = EXPECTED["sessions"][1]["session_id"]
    shown = await call("show", id=parent[:6])
    assert shown.id == parent and len(shown.subagents) == 1
    with pytest.raises(PalliumError) as missing:
        await call("show", id="ffff")
    assert missing.value.code == "not_found"


async def test_an_ambiguous_prefix_is_refused_with_the_matches(call):
    await call.sync()
    with pytest.raises(PalliumError) as ambiguous:
        await call("show", id="01a1f")
    assert ambiguous.value.code == "invalid_input"
    assert set(ambiguous.value.details["matches"]) == {X2, EXPECTED["sessions"][3]["session_id"]}


async def test_read_renders_lines_compactly_and_pages_on(call):
    await call.sync()
    page = await call("read", id=B, from_line=14, limit=3)
    assert [(m.line, m.kind) for m in page.messages] == [(14, "tool_call"), (16, "tool_result"), (17, "queued_prompt")]
    assert page.messages[0].tool == "Bash" and "--start-id 1" in page.messages[0].text
    assert page.next_from_line == 18
    a = EXPECTED["sessions"][0]["session_id"]
    long = await call("read", id=a, from_line=13, limit=1)
    assert long.messages[0].text.endswith("pass --full]")
    full = await call("read", id=a, from_line=13, limit=1, full=True)
    assert len(full.messages[0].text) > len(long.messages[0].text)


async def test_recall_full_returns_whole_capsules(call):
    await call.sync()
    out = await call("recall", query="backfill", full=True, limit=1)
    assert "usage" in out.results[0].capsule
    assert json.loads(out.model_dump_json())["truncated"] is False


async def test_recall_cites_the_line_that_holds_the_rarest_word_of_the_question(call, homes):
    thread = "01a20000-7777-7888-8999-aaaabbbbcccc"
    records = [build.codex_meta(thread, cwd="/home/dev/ledger"), build.codex_user("import legacy.csv into the ledger")]
    records += [build.codex_assistant(f"legacy.csv row {i}: parsed legacy.csv columns again") for i in range(12)]
    records += [build.codex_assistant("Detected the file encoding: cp1252, not UTF-8.")]
    records += [build.codex_assistant(f"legacy.csv import step {i} done") for i in range(6)]
    build.write_jsonl(build.codex_path(homes["codex"], thread), records)
    await call.sync()
    out = await call("recall", query="which encoding does legacy.csv use?")
    mine = next(r for r in out.results if r.id == thread)
    assert any("cp1252" in c.text for c in mine.citations), [c.text for c in mine.citations]


OPEN = "01a20000-bbbb-7aaa-8bbb-000000000001"


@pytest.mark.parametrize("open_call", [True, False])
async def test_an_open_codex_turn_stopped_at_its_open_call_or_last_record_not_at_task_started(call, homes, open_call):
    records = [
        build.codex_meta(OPEN),
        build.codex_event("task_started"),  # line 2
        build.codex_user("rename the walnut exporter"),
        build.codex_assistant("renaming the walnut exporter now"),  # line 4
    ]
    if open_call:
        records.append(
            build.codex("response_item", {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": "{}"})
        )  # line 5, never answered
    build.write_jsonl(build.codex_path(homes["codex"], OPEN), records)
    await call.sync()
    shown = await call("show", id=OPEN)
    assert shown.capsule["stopped_line"] == (5 if open_call else 4)
    assert shown.completion == "not_finished"


async def test_where_did_we_leave_off_ranks_the_session_the_topic_names_above_a_recent_unfinished_one(call, homes):
    topic, recent = "01a20000-cccc-7aaa-8bbb-000000000001", "01a20000-cccc-7aaa-8bbb-000000000002"
    build.write_jsonl(
        build.codex_path(homes["codex"], topic, "2026-11-20T09-00-00"),
        [
            build.codex_meta(topic, timestamp="2026-11-20T09:00:00.000Z"),
            build.codex_event("task_started", "2026-11-20T09:00:01.000Z"),
            build.codex_user("port the quince ledger importer to the new api", "2026-11-20T09:00:02.000Z"),
            build.codex_assistant("the quince ledger importer is half ported", "2026-11-20T09:00:03.000Z"),
            build.codex_event("task_complete", "2026-11-20T09:00:04.000Z"),
        ],
    )
    build.write_jsonl(
        build.codex_path(homes["codex"], recent, "2026-11-21T12-00-00"),
        [
            build.codex_meta(recent, timestamp="2026-11-21T12:00:00.000Z"),
            build.codex_event("task_started", "2026-11-21T12:00:01.000Z"),
            build.codex_user("tidy the readme badges", "2026-11-21T12:00:02.000Z"),
        ],
    )
    await call.sync()
    out = await call("recall", query="where did we leave off with the quince ledger importer?")
    assert out.results[0].id == topic
