"""How each repository answer is cut to its byte budget, called by the dispatcher on the finished answer.

Every answer carries `freshness`, whose list of changed paths grows with the working tree: it is
cut first (its `changed_count` still counts them all). Then each tool loses what costs the asker
least: a page ends earlier and its cursor continues from there, a context answer drops the tail
of its longest lists. The dispatcher's generic cut catches whatever is still over.
"""

from __future__ import annotations

from typing import Any, TypeVar

from kernel.fitting import drop_tail, size
from services.repo.models import (
    CallersInput,
    CallersOutput,
    DecisionsInput,
    DecisionsOutput,
    ExplainOutput,
    Freshness,
    HandoffOutput,
    SearchInput,
    SearchOutput,
    SymbolsInput,
    SymbolsOutput,
)
from services.repo.queries import decode_cursor, encode_cursor

__all__ = ["callers", "context", "decisions", "explain", "handoff", "search", "symbols"]

M = TypeVar("M", bound=Any)
_CHANGED_SHOWN = 5

# Explain's cuts when over budget: (field, length it is cut to), cheapest loss first.
_EXPLAIN_CUTS = (
    ("symbols", 40),
    ("structural", 20),
    ("cochange", 8),
    ("recent_commits", 5),
    ("decisions", 3),
    ("imports", 20),
    ("symbols", 15),
    ("structural", 10),
    ("tests", 5),
    ("symbols", 5),
)
_HANDOFF_CUTS = (
    ("open_questions", 10),
    ("commits", 5),
    ("tests_to_run", 50),
    ("files", 25),
    ("tests_to_run", 20),
    ("open_questions", 3),
    ("files", 10),
    ("tests_to_run", 5),
)


def _short_freshness(fresh: Freshness | None) -> Freshness | None:
    if fresh is None or len(fresh.changed_files) <= _CHANGED_SHOWN:
        return fresh
    return fresh.model_copy(update={"changed_files": fresh.changed_files[:_CHANGED_SHOWN]})


def _lean(out: M) -> M:
    """`out` with its freshness (and a nested risk's) listing only the first few changed paths."""
    update: dict[str, Any] = {}
    if getattr(out, "freshness", None) is not None:
        update["freshness"] = _short_freshness(out.freshness)
    risk = getattr(out, "risk", None)
    if risk is not None and hasattr(risk, "freshness"):  # explain nests a risk answer: keep one full copy
        update["risk"] = risk.model_copy(update={"freshness": _short_freshness(risk.freshness)})
    return out.model_copy(update=update) if update else out


def _cuts(out: M, budget: int, cuts: tuple[tuple[str, int], ...]) -> M:
    for field, length in cuts:
        if size(out) <= budget:
            break
        items = getattr(out, field)
        if len(items) > length:
            out = out.model_copy(update={field: items[:length], "truncated": True})
    return out


def context(out: M, _inp: Any, _budget: int) -> M:
    """For answers without a cut of their own: freshness first; the dispatcher's generic cut does the rest."""
    return _lean(out)


def explain(out: ExplainOutput, _inp: Any, budget: int) -> ExplainOutput:
    return _cuts(_lean(out), budget, _EXPLAIN_CUTS)


def handoff(out: HandoffOutput, _inp: Any, budget: int) -> HandoffOutput:
    out = _lean(out)
    out = _cuts(out, budget, _HANDOFF_CUTS)
    if size(out) > budget:  # a long test list also fills the fast verification command
        fast = [c if len(c) <= 400 else c[:400] + " … (see tests_to_run)" for c in out.verification.fast]
        out = out.model_copy(update={"verification": out.verification.model_copy(update={"fast": fast})})
    return out


def _page(out: M, inp: Any, budget: int, field: str) -> M:
    """End the page at the last item that fits; `next_cursor` continues right after it."""
    out, dropped = drop_tail(_lean(out), budget, field)
    items = getattr(out, field)
    if dropped:
        offset = decode_cursor(inp.cursor)
        out = out.model_copy(update={"truncated": True, "next_cursor": encode_cursor(offset + len(items))})
    return out


def search(out: SearchOutput, inp: SearchInput, budget: int) -> SearchOutput:
    return _page(out, inp, budget, "results")


def symbols(out: SymbolsOutput, inp: SymbolsInput, budget: int) -> SymbolsOutput:
    """A file's symbols past the budget end the page with a cursor to the rest, like search's results."""
    return _page(out, inp, budget, "symbols")


def decisions(out: DecisionsOutput, inp: DecisionsInput, budget: int) -> DecisionsOutput:
    return _page(out, inp, budget, "decisions")


def callers(out: CallersOutput, inp: CallersInput, budget: int) -> CallersOutput:
    out = _page(out, inp, budget, "references")
    out, _dropped = drop_tail(out, budget, "definitions")  # definition_count still counts them all
    return out
