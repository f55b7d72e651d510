"""Incremental, safe indexing: what a second sync costs, and what bad input gets."""

import json
import os
import shutil
from pathlib import Path

import pytest

from kernel import locks
from kernel.errors import PalliumError
from services.sessions.sync import MAX_LINE_BYTES, lock_path
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

B = EXPECTED["sessions"][2]
X2 = EXPECTED["sessions"][4]


def _path(homes: dict[str, Path], expected: dict) -> Path:
    source, rest = expected["path"].split("/", 1)
    return homes[source] / rest


def _line(session_id: str, text: str, uuid: str = "u-new") -> bytes:
    record = {
        "type": "user",
        "uuid": uuid,
        "parentUuid": None,
        "timestamp": "2026-11-19T16:30:00.000Z",
        "sessionId": session_id,
        "cwd": "/home/dev/shop",
        "message": {"role": "user", "content": text},
    }
    return (json.dumps(record) + "\n").encode()


async def test_second_sync_of_unchanged_files_reads_nothing(call):
    await call.sync()
    again = await call.sync()
    assert again.files_unchanged == 6
    assert again.bytes_read == 0 and again.messages_added == 0 and again.sessions_updated == 0


async def test_a_grown_file_is_read_from_where_the_last_sync_stopped(call, homes):
    await call.sync()
    path = _path(homes, B)
    size_before = path.stat().st_size
    with path.open("ab") as handle:
        handle.write(_line(B["session_id"], "what about batch 4 zebrafish?"))
    out = await call.sync()
    assert out.files_appended == 1 and out.files_reparsed == 0
    assert out.bytes_read == path.stat().st_size - size_before
    read = await call("read", id=B["session_id"], from_line=B["lines"] + 1)
    assert [(m.line, m.kind) for m in read.messages] == [(B["lines"] + 1, "prompt")]
    shown = await call("show", id=B["session_id"])
    assert shown.capsule["open_calls"][0]["line"] == 21  # state carried over from the first sync


async def test_a_last_line_still_being_written_waits_for_the_next_sync(call, homes):
    path = _path(homes, B)
    whole = _line(B["session_id"], "a partially written prompt about quokkas")
    with path.open("ab") as handle:
        handle.write(whole[:40])
    first = await call.sync()
    assert first.partial_lines_left == 1 and first.malformed_lines == 1  # X2 line 33 only
    assert (await call("search", query="quokkas")).hits == []
    with path.open("ab") as handle:
        handle.write(whole[40:])
    second = await call.sync()
    assert second.files_appended == 1 and second.partial_lines_left == 0
    hits = (await call("search", query="quokkas")).hits
    assert [(h.session_id, h.line) for h in hits] == [(B["session_id"], B["lines"] + 1)]


async def test_a_rewritten_file_is_reparsed_without_duplicates(call, homes):
    await call.sync()
    path = _path(homes, B)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:10]) + _line(B["session_id"], "rewritten history with pelicans"))
    out = await call.sync()
    assert out.files_reparsed == 1
    read = await call("read", id=B["session_id"], limit=1000)
    assert len({m.line for m in read.messages}) == len({(m.line, m.kind, m.text) for m in read.messages})
    assert max(m.line for m in read.messages) == 11
    assert (await call("show", id=B["session_id"])).capsule["open_calls"] == []


async def test_malformed_lines_invalid_utf8_and_unknown_records_are_skipped_and_the_rest_indexed(call, homes):
    path = _path(homes, B)
    with path.open("ab") as handle:
        handle.write(b"{not json\n")
        handle.write(b'{"type":"brand-new-record-type","payload":{"x":1}}\n')
        handle.write(
            _line(B["session_id"], "caf\xc3\xa9 and broken \xff\xfe bytes with walruses").replace(
                b"\\u00e9", b"\xc3\xa9"
            )
        )
    out = await call.sync()
    assert out.malformed_lines == 2  # ours and X2's line 33
    hits = (await call("search", query="walruses")).hits
    assert [h.line for h in hits] == [B["lines"] + 3]


async def test_a_line_of_many_megabytes_is_skipped_and_counted(call, homes):
    path = _path(homes, B)
    big = b'{"type":"user","message":{"content":"' + b"x" * (MAX_LINE_BYTES + 10) + b'"}}\n'
    with path.open("ab") as handle:
        handle.write(big)
        handle.write(_line(B["session_id"], "after the giant line come narwhals"))
    out = await call.sync()
    assert out.oversized_lines == 1
    hits = (await call("search", query="narwhals")).hits
    assert [h.line for h in hits] == [B["lines"] + 2]


async def test_a_deleted_transcript_stays_searchable_and_readable_marked_source_missing(call, homes):
    await call.sync()
    _path(homes, B).unlink()
    out = await call.sync()
    assert out.sessions_marked_missing == [B["session_id"]]
    shown = await call("show", id=B["session_id"][:8])
    assert shown.source_missing is True
    read = await call("read", id=B["session_id"], from_line=21, limit=1)
    assert read.source_missing is True and read.messages[0].kind == "tool_call"
    hits = (await call("search", query="idempotent")).hits
    assert B["session_id"] in {h.session_id for h in hits}


async def test_a_transcript_home_that_does_not_exist_is_reported_not_fatal(call, tmp_path):
    out = await call.sync(claude_home=str(tmp_path / "nope"), source="claude")
    assert [(h.source, h.exists, h.files) for h in out.homes] == [("claude", False, 0)]
    assert out.files_seen == 0


async def test_a_second_sync_while_one_runs_says_so_and_writes_nothing(call):
    with locks.exclusive(lock_path(), what="test"), pytest.raises(PalliumError) as refused:
        await call.sync(wait_seconds=0)
    assert refused.value.code == "conflict"
    assert "already running" in refused.value.message
    out = await call.sync()
    assert out.files_new == 6


async def test_raw_events_are_kept_only_when_asked_and_the_flag_rereads_indexed_files(call):
    await call.sync()
    assert (await call("doctor")).counts["raw_events"] == 0
    await call("forget", id=B["session_id"], confirm=True)
    again = await call.sync(raw_events=True)
    assert again.files_reparsed == 5 and again.files_unchanged == 1  # the forgotten one is not read again
    total_lines = sum(s["lines"] for s in EXPECTED["sessions"]) + EXPECTED["sessions"][1]["subagents"][0]["lines"]
    assert (await call("doctor")).counts["raw_events"] == total_lines - B["lines"] - 1  # X2's cut line has none
    third = await call.sync(raw_events=True)
    assert third.files_unchanged == 6 and third.bytes_read == 0  # once stored, unchanged files cost a stat


async def test_last_sync_is_the_last_sync_run_even_when_nothing_changed(call):
    await call.sync()
    call.clock.advance(hours=2)
    assert (await call.sync()).files_unchanged == 6
    out = await call("recall", query="backfill")
    assert out.freshness.last_sync_at == "2026-11-21T17:30:00Z"


async def test_raw_events_are_stored_for_newly_read_lines_with_the_flag(call):
    await call.sync(raw_events=True)
    counts = (await call("doctor")).counts
    total_lines = sum(s["lines"] for s in EXPECTED["sessions"]) + EXPECTED["sessions"][1]["subagents"][0]["lines"]
    assert counts["raw_events"] == total_lines - 1  # every line but X2's truncated one


async def test_a_transcript_that_cannot_be_read_is_reported_and_the_rest_indexed(call, homes):
    odd = homes["claude"] / "projects" / "-home-dev-shop" / "0000dead-0000-4000-8000-000000000000.jsonl"
    odd.mkdir()  # found by the glob, but opening it fails like an unreadable file does
    out = await call.sync()
    assert [u["path"] for u in out.files_unreadable] == [str(odd)]
    assert out.files_new == 6
    assert (await call("doctor")).counts["sessions"] == 6


async def test_a_transcript_home_whose_path_is_not_utf8_is_indexed_and_resyncs_cleanly(call, homes, tmp_path):
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9-\xff"))  # Latin-1 bytes, as an old system writes them
    odd.mkdir()
    moved = {source: Path(shutil.move(home, odd / source)) for source, home in homes.items()}
    out = await call.sync(claude_home=str(moved["claude"]), codex_home=str(moved["codex"]))
    assert out.files_new == 6 and out.files_unreadable == []
    assert out.homes[0].path.endswith("/caf\\xe9-\\xff/claude")  # shown with the undecodable bytes escaped
    again = await call.sync(claude_home=str(moved["claude"]), codex_home=str(moved["codex"]))
    assert again.files_unchanged == 6
    (moved["claude"] / B["path"].split("/", 1)[1]).unlink()
    gone = await call.sync(claude_home=str(moved["claude"]), codex_home=str(moved["codex"]))
    assert gone.sessions_marked_missing == [B["session_id"]]


async def test_a_transcript_file_whose_name_is_not_utf8_does_not_stop_the_sync(call, homes):
    folder = os.fsencode(homes["codex"] / "sessions" / "2026" / "11" / "21")
    thread = "01a20000-aaaa-7bbb-8ccc-dddddddddddd"
    name = f"rollout-2026-11-21T16-00-00-{thread}_".encode() + b"\xff\xfe.jsonl"  # a renamed copy
    with open(folder + b"/" + name, "wb") as handle:
        meta = {"timestamp": "2026-11-21T16:00:00Z", "type": "session_meta", "payload": {"id": thread}}
        handle.write(json.dumps(meta).encode() + b"\n")
    out = await call.sync()
    assert out.files_seen == 7 and out.files_new == 7 and out.files_unreadable == []
    shown = await call("show", id=thread)
    assert (shown.id, shown.native_id) == (f"{thread}_\\xff\\xfe", thread)
    assert (await call.sync()).files_unchanged == 7


async def test_a_lone_surrogate_escaped_in_a_record_does_not_stop_the_sync(call, homes):
    with _path(homes, B).open("ab") as handle:
        line = _line(B["session_id"], "broken \\udcff surrogate near the wombats")
        handle.write(line.replace(b"\\\\udcff", b"\\udcff"))  # json.dumps doubled the backslash
    out = await call.sync()
    assert out.files_new == 6 and out.files_unreadable == []
    hits = (await call("search", query="wombats")).hits
    assert [h.line for h in hits] == [B["lines"] + 1]


async def test_a_file_replacing_indexed_messages_among_new_ones_leaves_the_search_index_whole(call, homes):
    await call.sync()
    path = _path(homes, B)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:5]) + _line(B["session_id"], "rewritten with flamingos"))
    new = path.with_name("11111111-2222-4333-8444-555555555555.jsonl")  # read, and written, just before B
    new.write_bytes(_line(new.stem, "a new session about ibises"))
    out = await call.sync()
    assert (out.files_new, out.files_reparsed) == (1, 1)
    assert (await call("doctor")).healthy  # FTS5's integrity check agrees with the messages table
    assert [h.session_id for h in (await call("search", query="flamingos")).hits] == [B["session_id"]]
    assert [h.session_id for h in (await call("search", query="ibises")).hits] == [new.stem]
    old = (await call("search", query="idempotent", limit=100)).hits  # B's line 21 said it
    assert old and B["session_id"] not in {h.session_id for h in old}
