"""Recall's lexical ranking on a real FTS5 index: words held first, BM25 within, and only what fills the page."""

import itertools
import random

import pytest

from kernel.store import open_global
from services.sessions import lexical
from services.sessions.rows import Filters, MessageRow
from services.sessions.store import SCHEMA, SessionsStore

WORDS = ["refund", "handler", "timeout", "gateway", "ledger"]


@pytest.fixture
def store():
    with open_global([SCHEMA]) as db:
        yield SessionsStore(db)


def _fill(store: SessionsStore, texts: list[str], session: str = "s1") -> None:
    rows = [MessageRow(session, line, None, "assistant", "text", text) for line, text in enumerate(texts, 1)]
    with store.db.transaction():
        store.add_messages(rows)


def _corpus(seed: int = 7, count: int = 600) -> list[str]:
    """Messages holding random subsets of WORDS, repeated and padded, so every word count occurs."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        held = rng.sample(WORDS, rng.randint(0, len(WORDS)))
        body = [w for w in held for _ in range(rng.randint(1, 4))] + ["filler"] * rng.randint(0, 30)
        rng.shuffle(body)
        texts.append(" ".join(body) or "nothing here")
    return texts


def _held(text: str) -> int:
    return sum(1 for w in WORDS if w in text.split())


def test_at_least_matches_exactly_the_messages_holding_that_many_words(store):
    texts = _corpus()
    _fill(store, texts)
    for n in range(1, len(WORDS) + 1):
        words = WORDS[:n]
        for m in range(1, n + 1):
            expression = lexical.at_least(words, m)
            expected = sum(1 for t in texts if sum(w in t.split() for w in words) >= m)
            assert store.count_matches(expression, Filters()) == expected, (n, m, expression)
    with pytest.raises(ValueError):
        lexical.at_least(WORDS[:2], 3)


def test_more_words_held_outrank_any_repetition_of_fewer(store):
    _fill(store, ["refund handler " * 20, "refund handler timeout and a long tail " + "filler " * 40, "refund"])
    hits = lexical.rank_messages(store, "refund handler timeout", Filters(), limit=10)
    assert [(h.message.line, h.words) for h in hits] == [(2, 3), (1, 2), (3, 1)]


def test_bm25_among_equals_is_fts5s_own_bm25(store):
    texts = _corpus()
    _fill(store, texts)
    expression = " AND ".join(f'"{w}"' for w in WORDS[:2])
    fts5 = {m.message_id: -m.score for m in store.rank_matches(expression, Filters(), limit=1000)}
    counts = store.word_doc_counts(WORDS[:2])
    scored = f"({lexical.at_least(WORDS[:2], 2)}) AND ({lexical.at_least(WORDS[:2], 1)})"
    ours = store.rank_matches(scored, Filters(), limit=1000, plan=",".join(str(counts[w]) for w in WORDS[:2]))
    assert len(ours) == len(fts5) > 20
    for found in ours:
        words, bm25 = divmod(-found.score, lexical.COORDINATION)
        assert words == 2
        assert bm25 == pytest.approx(fts5[found.message_id], rel=1e-9)


@pytest.mark.parametrize("limit", [5, 40, 150, 1000])
def test_the_page_is_the_exact_top_of_the_whole_ranking(store, limit):
    texts = _corpus(seed=limit)
    _fill(store, texts)
    query = " ".join(WORDS)
    everything = lexical.rank_messages(store, query, Filters(), limit=10_000)
    assert len(everything) == sum(1 for t in texts if _held(t))
    assert [h.words for h in everything] == sorted((h.words for h in everything), reverse=True)
    for words, group in itertools.groupby(everything, key=lambda h: h.words):
        scores = [h.bm25 for h in group]
        assert scores == sorted(scores, reverse=True), words
    assert all(h.words == _held(texts[h.message.line - 1]) for h in everything)
    page = lexical.rank_messages(store, query, Filters(), limit=limit)
    assert [h.message.line for h in page] == [h.message.line for h in everything[:limit]]


def test_when_few_messages_hold_two_words_the_rest_come_from_one_and_never_twice(store):
    _fill(store, ["ledger gateway"] * 3 + ["ledger alone"] * 10 + ["gateway alone"] * 10)
    hits = lexical.rank_messages(store, "ledger gateway", Filters(), limit=8)
    assert [h.words for h in hits] == [2, 2, 2, 1, 1, 1, 1, 1]
    assert len({h.message.line for h in hits}) == 8


def test_filters_apply_to_counting_and_ranking(store):
    _fill(store, ["ledger gateway"] * 5, session="elsewhere")
    _fill(store, ["ledger gateway"] * 2 + ["ledger"] * 3, session="here")
    store.db.execute(
        "INSERT INTO sessions_session(id, source, native_id, cwd, indexed_at) VALUES "
        "('here', 'codex', 'here', '/w/here', 'x'), ('elsewhere', 'codex', 'elsewhere', '/w/else', 'x')"
    )
    hits = lexical.rank_messages(store, "ledger gateway", Filters(cwd="/w/here"), limit=4)
    assert [(h.message.session_id, h.words) for h in hits] == [("here", 2), ("here", 2), ("here", 1), ("here", 1)]


def test_stemmed_and_split_words_are_counted_as_the_index_stores_them(store):
    _fill(store, ["the releases were released", "test_checkout_total failed", "release"])
    counts = store.word_doc_counts(["release", "test_checkout_total", "absent"])
    assert counts == {"release": 2, "test_checkout_total": 1, "absent": 0}


def test_on_a_large_index_words_in_most_messages_are_left_out():
    with open_global([SCHEMA]) as db:
        store = SessionsStore(db)
        texts = ["test run " + ("zebra" if i % 50 == 0 else "ok") for i in range(1, 20_002)]
        _fill(store, texts)
        hits = lexical.rank_messages(store, "zebra test", Filters(), limit=1000)
        assert len(hits) == 400 and all("zebra" in h.message.text for h in hits)
        assert {h.words for h in hits} == {1}  # "test" was not a word of the query at all
        alone = lexical.rank_messages(store, "test", Filters(), limit=10)
        assert len(alone) == 10  # nothing else left: the common word is searched anyway


def test_questions_without_usable_words_find_nothing(store):
    _fill(store, ["the a of"])
    assert lexical.rank_messages(store, "?!", Filters(), limit=5) == []
    assert lexical.query_words("the a of") == ["the", "a", "of"]  # only stopwords: search them anyway
    assert lexical.query_words("why did test_checkout_total fail") == [
        "test_checkout_total",
        "test",
        "checkout",
        "total",
        "fail",
    ]


def test_the_first_set_ranked_is_one_above_what_independent_words_would_fill():
    assert lexical._first_threshold([1000] * 5, 1000, 300) == 5  # every message holds every word
    assert lexical._first_threshold([3] * 5, 100_000, 300) == 2  # rare words: start at two of them
    # 5% each of 500,000: about 260 messages would hold three of four, 7,500 two of four
    assert lexical._first_threshold([25_000] * 4, 500_000, 300) == 3
