"""Recall's lexical ranking: messages holding more of the question's words first, BM25 among equals.

A recall question is a handful of words, and the message that holds most of them is the best
evidence, however often another repeats two. So messages are ranked by how many distinct query
words they hold, then by BM25 (FTS5's formula and defaults, so both rankers agree). Only the top
`limit` are wanted, and on a large index every word is in thousands of messages, so the ranker does
not score all of them: from "all the words" down, it ranks the messages holding at least m of them
and stops at the first such set that fills the page. That is exact, not a heuristic: a message
with fewer words can only rank below every message of that set.

FTS5's own `bm25()` counts a word once per place it appears in the MATCH expression, and an
"at least m of n" expression names each word several times; it also reads each word's whole
doclist once per place to find its IDF. `recall_rank`, registered on the connection, counts each
word once, takes document frequencies from the vocabulary table, and is used for those sets; the
plain "all of them" and "any of them" expressions name each word once, so on a large set FTS5's
`bm25()` in C is exact there and faster.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from services.sessions.rows import MessageRow

if TYPE_CHECKING:
    import apsw

    from services.sessions.rows import Filters
    from services.sessions.store import SessionsStore

__all__ = ["COORDINATION", "STOPWORDS", "at_least", "query_words", "rank_messages", "recall_rank"]

COORDINATION = 1000.0  # one more matched word outranks any BM25 difference
_K1, _B = 1.2, 0.75  # FTS5's bm25() defaults
_MAX_TERMS = 8  # an "at least m of 8" expression stays small; more words add little to a recall
_LARGE_INDEX = 20_000  # messages; below this no word is too common to keep
_COMMON_SHARE = 0.2  # a word in more than this share of a large index's messages is left out
_STOPWORD_TEXT = """
a an and are as at be by can could did do does for from had has have how i in is it its me my of on or our
should so that the their them then there these this to us was we were what when where which who why will
with would you your
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


class Hit(NamedTuple):
    message: MessageRow
    words: int  # distinct query words the message holds
    bm25: float  # higher is better


def query_words(text: str) -> list[str]:
    """The words recall matches on: stopwords out (unless nothing else is left), identifiers also by parts."""
    words = [w.lower() for w in re.findall(r"\w+", text)]
    terms = [w for w in words if w not in STOPWORDS and len(w) > 1] or words
    expanded: list[str] = []
    for word in terms:  # test_checkout_total also matches by its parts: checkout, total
        expanded.append(word)
        if "_" in word:
            expanded += [p for p in word.split("_") if p not in STOPWORDS and len(p) > 2]
    return list(dict.fromkeys(expanded))[:32]


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def at_least(words: Sequence[str], m: int) -> str:
    """An FTS5 expression matching messages that hold at least `m` of `words`.

    Built by halves, at_least(L + R, m) = OR over i of at_least(L, i) AND at_least(R, m - i), so it
    names each word about log2(n) times rather than the n - 1 times of listing every pair.
    """

    def build(part: Sequence[str], k: int) -> str | None:
        if k <= 0:
            return ""
        if k > len(part):
            return None
        if k == 1 or k == len(part):
            return (" OR " if k == 1 else " AND ").join(_quoted(w) for w in part)
        half = len(part) // 2
        branches = []
        for i in range(k + 1):
            left, right = build(part[:half], i), build(part[half:], k - i)
            if left is not None and right is not None:
                branches.append(" AND ".join(f"({side})" for side in (left, right) if side))
        return " OR ".join(f"({b})" for b in branches)

    built = build(words, m)
    if built is None:
        raise ValueError(f"at least {m} of {len(words)} words")
    return built


def recall_rank(api: apsw.FTS5ExtensionApi, frequencies: str) -> float:
    """FTS5 auxiliary function: -(distinct query words held x COORDINATION + BM25) of the current row.

    The MATCH expression must end with "any of the words", each named once and in order, after the
    part that chooses the rows; `frequencies` is the document frequency of each word, comma-separated.
    A word's hits are read from that last part alone, so each word counts once however often the
    rest names it.
    """
    state = api.aux_data
    if state is None:
        rows = max(api.row_count, 1)
        idf = []
        for df in map(int, frequencies.split(",")):
            value = math.log((rows - df + 0.5) / (df + 0.5))
            idf.append(value if value > 0 else 1e-6)  # as FTS5: a word in most rows still counts a little
        average = api.column_total_size(0) / rows or 1.0
        first = api.phrase_count - len(idf)
        state = api.aux_data = (range(first, first + len(idf)), idf, average)
    phrases, idf, average = state
    norm = _K1 * (1 - _B + _B * api.column_size(0) / average)
    held, score = 0, 0.0
    for phrase, weight in zip(phrases, idf, strict=True):
        f = len(api.phrase_locations(phrase)[0])
        if f:
            held += 1
            score += weight * f * (_K1 + 1) / (f + norm)
    return -(held * COORDINATION + score)


def rank_messages(store: SessionsStore, query: str, filters: Filters, *, limit: int) -> list[Hit]:
    """The `limit` best messages for a recall question: most distinct words held first, BM25 within."""
    frequencies = store.word_doc_counts(query_words(query))
    words = [w for w, df in frequencies.items() if df > 0]  # a word in no message cannot change the order
    total = store.message_id_span()
    if total >= _LARGE_INDEX and len(words) > 1:
        words = [w for w in words if frequencies[w] <= total * _COMMON_SHARE] or words
    words = words[:_MAX_TERMS]
    if not words:
        return []
    fewer: list[tuple[int, int, float]] = []  # the whole of the last set ranked: too few to fill the page
    for m in range(_first_threshold([frequencies[w] for w in words], total, limit), 1, -1):
        ranked = _ranked(store, words, frequencies, m, filters, limit)
        if len(ranked) >= limit:
            return _hits(store, ranked)
        fewer = ranked
    # Fewer than `limit` messages hold two of the words: all of those, then the best holding one.
    seen = {message_id for message_id, _, _ in fewer}
    single = store.rank_matches(at_least(words, 1), filters, limit=limit + len(fewer))
    rest = [(m.message_id, 1, -m.score) for m in single if m.message_id not in seen]
    return _hits(store, fewer + rest[: limit - len(fewer)])


def _first_threshold(frequencies: list[int], total: int, limit: int) -> int:
    """The m to rank first: one more than the largest m at which words occurring independently would
    fill the page. Any m whose set fills the page gives the same page, so this guess only saves the
    many-word sets that are too small (each costs a pass over every word's doclist); words that occur
    together, as real ones do, fill higher sets than the guess, hence the one more."""
    exactly = [1.0]  # exactly[k]: the chance a message holds exactly k of the words
    for df in frequencies:
        p = min(df / max(total, 1), 1.0)
        exactly = [a * (1 - p) + b * p for a, b in zip([*exactly, 0.0], [0.0, *exactly], strict=True)]
    held_at_least, fits = 0.0, 1
    for m in range(len(frequencies), 0, -1):
        held_at_least += exactly[m]
        if held_at_least * total >= limit:
            fits = m
            break
    return min(len(frequencies), fits + 1)


def _ranked(
    store: SessionsStore, words: list[str], frequencies: dict[str, int], m: int, filters: Filters, limit: int
) -> list[tuple[int, int, float]]:
    """(id, words held, BM25) of the best `limit` messages holding at least `m` of `words`."""
    expression = at_least(words, m)
    if m == len(words) and store.count_matches(expression, filters, cap=limit) >= limit:
        # Every one holds all the words, so FTS5's bm25() alone orders them, in C: faster on a large set.
        return [(r.message_id, m, -r.score) for r in store.rank_matches(expression, filters, limit=limit)]
    scored = f"({expression}) AND ({at_least(words, 1)})"  # recall_rank reads the words from the last part
    dfs = ",".join(str(frequencies[w]) for w in words)
    ranked = []
    for found in store.rank_matches(scored, filters, limit=limit, plan=dfs):
        held, bm25 = divmod(-found.score, COORDINATION)
        ranked.append((found.message_id, int(held), bm25))
    return ranked


def _hits(store: SessionsStore, ranked: list[tuple[int, int, float]]) -> list[Hit]:
    rows = store.messages_by_ids([i for i, _, _ in ranked])
    return [Hit(rows[i], held, bm25) for i, held, bm25 in ranked if i in rows]
