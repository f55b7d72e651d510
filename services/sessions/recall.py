"""Recall: the best evidence per session for a question, matched leniently (search.py is the exact one).

Lexical ranking (lexical.py) puts the messages holding most of the question's words first, BM25
among equals, and a session ranks by its best message, then by its five best together; when a
semantic ranker is available its session ranking is merged by reciprocal rank fusion, and when it
fails the lexical answer stands with the reason reported. Questions about where work stopped also
rank unfinished and recent sessions up and cite the record the session stopped on (an unanswered
tool call, an aborted turn).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from services.sessions.lexical import STOPWORDS, Hit, query_words, rank_messages
from services.sessions.models import (
    Citation,
    Freshness,
    RecallOutput,
    RecallResult,
    SemanticStatus,
)
from services.sessions.rows import Filters, NearSession, SessionRow
from services.sessions.store import SessionsStore
from services.sessions.transcript import CITE_CHARS, shorten
from services.sessions.views import summary

__all__ = ["SemanticRanker", "recall"]

# (query, filters, k) -> the nearest sessions, nearest first; raises to report why it failed.
SemanticRanker = Callable[[str, Filters, int], list[NearSession]]

RECALL_BUDGET = 8 * 1024
_RRF_K = 60
_CANDIDATE_HITS = 300
_SESSION_EVIDENCE = 5  # messages a session is ranked by
_CITES = 6
_DISTINCT_DF = 2000  # a word in at most this many messages is distinctive enough to be cited on its own
_DISTINCT_WORDS = 3
_COMPACT_CAPSULE = ("completion", "evidence", "last_assistant", "open_calls", "files", "errors")
_STOP_INTENT = re.compile(
    r"(?i)\b(stop|stopped|stops|left off|leave off|leave it|where (?:was|were|did)|unfinished|remaining|pending|"
    r"progress|status|continue|resume|next|half[- ]?done|interrupted)\b"
)
# The words that only ask where work stood; what is left names the topic.
_STOP_WORDS = frozenset(
    [
        "where",
        "did",
        "do",
        "does",
        "we",
        "i",
        "you",
        "was",
        "were",
        "are",
        "is",
        "left",
        "leave",
        "off",
        "stop",
        "stopped",
        "stops",
        "with",
        "on",
        "the",
        "a",
        "an",
        "it",
        "at",
        "about",
        "unfinished",
        "remaining",
        "pending",
        "progress",
        "status",
        "continue",
        "resume",
        "next",
        "half",
        "done",
        "interrupted",
        "what",
        "how",
    ]
)


def recall(
    store: SessionsStore,
    query: str,
    filters: Filters,
    *,
    limit: int,
    full: bool,
    semantic: SemanticRanker | None,
    semantic_reason: str | None,
    freshness: Freshness,
) -> RecallOutput:
    by_session: dict[str, list[Hit]] = {}
    wants_stop = bool(_STOP_INTENT.search(query))
    topic = [w for w in _words(query) if w not in _STOP_WORDS] if wants_stop else []
    ranked_by = " ".join(topic) if topic else query  # "where did we leave off" itself names no session
    for hit in rank_messages(store, ranked_by, filters, limit=_CANDIDATE_HITS):
        by_session.setdefault(hit.message.session_id, []).append(hit)
    lexical = sorted(by_session, key=lambda sid: _session_key(by_session[sid]))
    scores = {sid: 1 / (_RRF_K + rank) for rank, sid in enumerate(lexical, 1)}
    status = SemanticStatus(used=False, reason=semantic_reason)
    if semantic is not None:
        try:
            nearest = semantic(query, filters, max(limit * 4, 20))
        except Exception as exc:  # the provider's failure must never cost the lexical answer
            status = SemanticStatus(used=False, reason=f"semantic search failed: {_short(exc)}")
        else:
            status = SemanticStatus(used=True)
            for rank, near in enumerate(nearest, 1):
                scores[near.session_id] = scores.get(near.session_id, 0) + 1 / (_RRF_K + rank)
    if wants_stop:
        # "where did we leave off with the quince importer?": when the question names a topic, only the
        # sessions about it move up; a recent unfinished session about something else does not jump ahead.
        _boost_where_work_stopped(scores, store, filters, only=set(by_session) if topic and by_session else None)
    best = sorted(scores, key=lambda sid: -scores[sid])[: limit * 2]  # load only the sessions shown
    rows = store.sessions_by_ids(best)
    ranked = [sid for sid in best if sid in rows][:limit]
    words = _words(query)
    results = [
        _result(store, rows[sid], scores[sid], by_session.get(sid, []), wants_stop, full, words) for sid in ranked
    ]
    _cite_distinctive_words(store, query, results, by_session, full, words)
    out = RecallOutput(query=query, results=results, semantic=status, truncated=False, freshness=freshness)
    return out if full else _fit(out)


def _cite_distinctive_words(
    store: SessionsStore,
    query: str,
    results: list[RecallResult],
    by_session: dict[str, list[Hit]],
    full: bool,
    words: list[str],
) -> None:
    """Make each result cite a line holding each of the question's rarer words: the line that states
    a file's encoding, not only the many lines naming the file. One query per such word, for all the
    results whose citations lack it; only words rare enough that the query costs little."""
    counts = store.word_doc_counts(query_words(query))
    rare = sorted((df, w) for w, df in counts.items() if 0 < df <= _DISTINCT_DF)[:_DISTINCT_WORDS]
    cap = 12 if full else _CITES
    for _, word in rare:
        stem = word.lower()[:5]
        lacking = []
        for result in results:
            texts = {h.message.line: h.message.text for h in by_session.get(result.id, [])}
            if not any(stem in texts.get(c.line, c.text).lower() for c in result.citations):
                lacking.append(result)
        best = store.best_in_sessions(_phrase(word), [r.id for r in lacking]) if lacking else {}
        for result in lacking:
            message = best.get(result.id)
            if message is None or any(c.line == message.line for c in result.citations):
                continue
            if len(result.citations) >= cap:
                drop = max((i for i, c in enumerate(result.citations) if c.why == "match"), default=None)
                if drop is None:
                    continue
                del result.citations[drop]
            text = message.text if full else _around(message.text, words)
            result.citations.append(
                Citation(line=message.line, role=message.role, kind=message.kind, text=text, why="match")
            )


def _phrase(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _session_key(hits: list[Hit]) -> tuple[tuple[int, ...], float]:
    """Sessions whose five best messages hold more of the words first (compared best to fifth, so a
    second message with all the words beats a second with fewer), then by those messages' BM25."""
    best = hits[:_SESSION_EVIDENCE]
    held = tuple(-hit.words for hit in best) + (0,) * (_SESSION_EVIDENCE - len(best))
    return held, -sum(hit.bm25 for hit in best)


def _boost_where_work_stopped(
    scores: dict[str, float], store: SessionsStore, filters: Filters, only: set[str] | None = None
) -> None:
    """Rank recent and unfinished sessions up: the question is about where work stood, not about words."""
    recent = store.list_sessions(filters, sort="updated", limit=20)
    for rank, row in enumerate(recent, 1):
        if only is not None and row.id not in only:
            continue
        bonus = 1 / (_RRF_K + rank)
        if row.completion == "not_finished":
            bonus += 1 / _RRF_K
        if row.parent_id is None or row.id in scores:
            scores[row.id] = scores.get(row.id, 0) + bonus


def _result(
    store: SessionsStore,
    row: SessionRow,
    score: float,
    hits: list[Hit],
    wants_stop: bool,
    full: bool,
    words: list[str],
) -> RecallResult:
    capsule = row.capsule
    cites: list[Citation] = []
    if wants_stop:
        for call in capsule.get("open_calls") or []:
            cites.append(
                Citation(line=call["line"], role="assistant", kind="tool_call", text=call["text"], why="open_call")
            )
        stopped = capsule.get("stopped_line")
        if wants_stop and stopped and all(c.line != stopped for c in cites):
            cites.append(
                Citation(
                    line=stopped, role="system", kind="end", text=capsule.get("evidence") or "", why="stopped_here"
                )
            )
        if wants_stop and capsule.get("compaction"):
            comp = capsule["compaction"]
            cites.append(
                Citation(line=comp["line"], role="system", kind="compaction", text=comp["text"], why="compaction")
            )
    seen = {c.line for c in cites}
    cap = 12 if full else _CITES
    for message, _, _ in hits:
        if len(cites) >= cap:
            break
        if message.line in seen:
            continue
        seen.add(message.line)
        text = message.text if full else _around(message.text, words)
        cites.append(Citation(line=message.line, role=message.role, kind=message.kind, text=text, why="match"))
        if message.kind == "tool_call" and message.call_id and len(cites) < cap:
            answer = store.result_of(row.id, message.call_id)  # what the matched call gave back
            if answer is not None and answer.line not in seen:
                seen.add(answer.line)
                cites.append(
                    Citation(
                        line=answer.line,
                        role=answer.role,
                        kind=answer.kind,
                        text=answer.text if full else _trim(answer.text),
                        why="result",
                    )
                )
    base = summary(row)
    shown = capsule if full else {k: capsule.get(k) for k in _COMPACT_CAPSULE if capsule.get(k)}
    return RecallResult(**base.model_dump(), score=round(score, 5), capsule=shown, citations=cites)


def _words(query: str) -> list[str]:
    found = [w.lower() for w in re.findall(r"\w+", query)]
    return [w for w in found if w not in STOPWORDS and len(w) > 2]


def _around(text: str, words: list[str], cap: int = CITE_CHARS) -> str:
    """The part of `text` around the first query word it contains (stems: the first 5 letters)."""
    flat = " ".join(text.split())
    if len(flat) <= cap:
        return flat
    lowered = flat.lower()
    hits = [i for i in (lowered.find(w[:5]) for w in words) if i >= 0]
    start = max(0, min(hits) - cap // 3) if hits else 0
    piece = flat[start : start + cap - 2]
    return ("…" if start else "") + piece + ("…" if start + len(piece) < len(flat) else "")


def _fit(out: RecallOutput) -> RecallOutput:
    """Keep the answer within 8 KB: shorten capsules and citations, then drop the weakest results."""
    if _size(out) <= RECALL_BUDGET:
        return out
    for result in out.results:
        result.capsule = {k: v for k, v in result.capsule.items() if k in ("completion", "evidence", "open_calls")}
    for keep in (4, 3, 2, 1):  # citations keep their one length (CITE_CHARS): fewer of them are shown
        if _size(out) <= RECALL_BUDGET:
            return out
        for result in out.results:
            del result.citations[keep:]
    while _size(out) > RECALL_BUDGET and len(out.results) > 1:
        out.results.pop()
        out.truncated = True
    return out


def _size(out: RecallOutput) -> int:
    return len(json.dumps(out.model_dump(mode="json"), ensure_ascii=False).encode("utf-8"))


def _trim(text: str, cap: int = CITE_CHARS) -> str:
    return shorten(" ".join(text.split()), cap)


def _short(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]
