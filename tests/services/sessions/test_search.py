"""`sessions search`: exact words (all of them by default), phrases, filters, and an 8 KB page."""

import pytest

from tests.services.sessions import build
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

LAB = "01a20000-2222-7333-8444-555566667777"
TEXTS = {
    3: "batch 5 failed at order 21877",
    4: "the batch fails again",  # only a stem of `failed`
    5: "failing to start: no batches",  # only stems of both
    6: "the batch failed twice",
    7: "failed batch, retried",
}


def _lab_session(home, texts: dict[int, str], cwd: str = "/home/dev/lab") -> None:
    records = [build.codex_meta(LAB, cwd=cwd), build.codex_event("task_started")]
    records += [build.codex_assistant(texts[line]) for line in sorted(texts)]
    assert sorted(texts) == list(range(3, 3 + len(texts)))  # line numbers follow the two records above
    build.write_jsonl(build.codex_path(home, LAB), records)


async def _lines(call, query: str, **filters) -> list[int]:
    out = await call("search", query=query, cwd="/home/dev/lab", limit=50, **filters)
    assert {h.session_id for h in out.hits} <= {LAB}
    return sorted(h.line for h in out.hits)


async def test_search_matches_every_word_exactly_not_their_stems(call, homes):
    _lab_session(homes["codex"], TEXTS)
    await call.sync()
    assert await _lines(call, "batch failed") == [3, 6, 7]
    assert await _lines(call, "BATCH Failed") == [3, 6, 7]
    assert await _lines(call, "the batch") == [4, 6]  # short common words count too


async def test_a_quoted_phrase_matches_only_those_words_in_that_order(call, homes):
    _lab_session(homes["codex"], TEXTS)
    await call.sync()
    assert await _lines(call, '"batch failed"') == [6]
    assert await _lines(call, '"failed batch" retried') == [7]


async def test_any_matches_messages_with_at_least_one_of_the_words(call, homes):
    _lab_session(homes["codex"], TEXTS)
    await call.sync()
    assert await _lines(call, "batch failed", any=True) == [3, 4, 6, 7]


async def test_search_filters_by_working_folder_and_touched_file(call, homes):
    _lab_session(homes["codex"], TEXTS)
    await call.sync()
    everywhere = await call("search", query="batch failed", limit=50)
    assert {h.session_id for h in everywhere.hits} == {LAB, EXPECTED["sessions"][4]["session_id"]}
    assert await _lines(call, "batch failed") == [3, 6, 7]
    elsewhere = await call("search", query="batch failed", cwd="/home/dev")
    assert elsewhere.hits == []
    a = EXPECTED["sessions"][0]["session_id"]
    by_file = await call("search", query="payments", file="gateway.py", limit=50)
    assert by_file.hits and {h.session_id for h in by_file.hits} == {a}


async def test_search_pages_stay_within_8_kb_and_together_hold_every_hit_once(call, homes):
    filler = " ".join(f"longidentifier{i:04d}" for i in range(120))
    _lab_session(homes["codex"], {line: f"zebu {filler} zebu {line}" for line in range(3, 63)})
    await call.sync()
    unbounded = await call("search", query="zebu", full=True)  # the default 20 hits, without the budget
    assert len(unbounded.hits) == 20 and len(unbounded.model_dump_json().encode()) > 8 * 1024
    seen: list[int] = []
    cursor = None
    while True:
        out = await call("search", query="zebu", cursor=cursor)
        assert len(out.model_dump_json().encode()) <= 8 * 1024
        seen += [h.line for h in out.hits]
        if out.next_cursor is None:
            assert out.truncated is False
            break
        assert out.truncated is True and out.hits
        cursor = out.next_cursor
    assert sorted(seen) == list(range(3, 63))


async def test_a_quoted_phrase_with_punctuation_matches_those_characters(call, homes):
    _lab_session(
        homes["codex"],
        {
            3: "deployed ana-ledger-reports to staging",
            4: "moved ana/ledger/reports into the archive",
            5: "bumped to 1.2.3 from 1 2 3",
            6: "the a/b switch and the a-b test",
        },
    )
    await call.sync()
    assert await _lines(call, '"ana-ledger-reports"') == [3]
    assert await _lines(call, '"ana/ledger/reports"') == [4]
    assert await _lines(call, '"1.2.3"') == [5]
    assert await _lines(call, '"a/b"') == [6]
    assert await _lines(call, "ana ledger reports") == [3, 4]  # words without quotes match across separators


LITERALS = {
    3: "the report lives in acme-billing-reports now",
    4: "moved it to acme/billing/reports instead",
    5: "then call f(42);return early",
    6: "or call f(42) and return",
}


async def test_an_unquoted_word_with_punctuation_matches_only_those_characters(call, homes):
    _lab_session(homes["codex"], LITERALS)
    await call.sync()
    assert await _lines(call, "acme-billing-reports") == [3]  # as a shell passes it, no quotes
    assert await _lines(call, "acme/billing/reports") == [4]
    assert await _lines(call, "acme billing reports") == [3, 4]  # plain words match across any separator


async def test_a_quoted_phrase_ending_in_punctuation_needs_no_word_boundary_after_it(call, homes):
    _lab_session(homes["codex"], LITERALS)
    await call.sync()
    assert await _lines(call, '"f(42);"') == [5]
    assert await _lines(call, '"f(42)"') == [5, 6]
