"""Answers within their byte budget: the dispatcher's last step on every call.

A tool declares `budget` (bytes of the answer's JSON) and may declare `trim`, its own way of
cutting an answer (a page that ends earlier, with a cursor that says where to go on). The
dispatcher measures the finished answer, freshness and every other field filled in, and only
when it is over first shortens what the answer merely echoes of the caller's own long arguments
(a 90 KB query must not push the results out), then calls the tool's trim, then `cut`, the
generic step any answer can take: the biggest list loses its last items, then the biggest text
is shortened with a marker, until the answer fits. Whatever was cut sets the answer's
`truncated` field when it has one.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypeVar

from kernel.errors import PalliumError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from kernel.tool import Tool

__all__ = ["cut", "cut_echoes", "drop_tail", "enforce", "size"]

M = TypeVar("M", bound="BaseModel")
_MIN_TEXT = 200  # a text is never cut below this many characters
_MARK = "… [cut {n} chars to fit the answer's budget{more}]"
_ECHO_MARK = "… [cut {n} chars of the `{field}` you sent]"
_MAX_STEPS = 200


def size(out: BaseModel | Any) -> int:
    """Bytes of the answer's JSON, as MCP and `--json` send it."""
    if hasattr(out, "model_dump_json"):
        return len(out.model_dump_json().encode())
    return len(json.dumps(out, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def enforce(tool: Tool, inp: Any, out: BaseModel) -> BaseModel:
    """Return `out` within `tool`'s budget for this call: as it is, trimmed by the tool, or cut."""
    budget = tool.budget_for(inp)
    if budget is None or size(out) <= budget:
        return out
    out = cut_echoes(inp, out)
    if size(out) <= budget:
        return out
    if tool.trim is not None:
        trimmed = tool.trim(out, inp, budget)
        if not isinstance(trimmed, tool.output):
            raise PalliumError(
                "internal",
                f"{tool.name}'s trim returned {type(trimmed).__name__}, not {tool.output.__name__}",
                hint="this is a bug in Pallium; report it",
                details={"tool": tool.name},
            )
        out = trimmed
        if size(out) <= budget:
            return out
    field = tool.unbounded_by
    return cut(out, budget, more=f"; pass `{field}: true` (CLI `--{field}`) for all" if field else "")


def cut_echoes(inp: Any, out: M) -> M:
    """`out` with every repeat of one of the caller's long string arguments shortened, wherever it is.

    The caller already holds what it sent, so an echoed query or id (alone, or inside a sentence
    such as "no match for ...") is the cheapest thing to cut: it keeps its first 200 characters,
    enough to recognise it, and a marker naming the argument.
    """
    from pydantic import ValidationError

    sent = {
        value: value[:_MIN_TEXT] + _ECHO_MARK.format(n=len(value) - _MIN_TEXT, field=name)
        for name, value in (vars(inp).items() if hasattr(inp, "__dict__") else ())
        if isinstance(value, str) and len(value) > _MIN_TEXT + len(_ECHO_MARK) + len(name) + 8
    }
    if not sent:
        return out

    def shorten(node: Any) -> Any:
        if isinstance(node, str):
            for value, short in sent.items():
                if value in node:
                    node = node.replace(value, short)
            return node
        if isinstance(node, dict):
            return {key: shorten(value) for key, value in node.items()}
        if isinstance(node, list):
            return [shorten(value) for value in node]
        return node

    data = out.model_dump(mode="json")
    shortened = shorten(data)
    if shortened == data:
        return out
    try:
        return type(out).model_validate(shortened)
    except ValidationError:  # a field whose model refuses the shorter text keeps the whole echo
        return out


def drop_tail(out: M, budget: int, field: str) -> tuple[M, list[Any]]:
    """Drop `field`'s last items (keeping one) until `out` fits; return it and the items dropped, in order.

    The tool's own trim uses it to end a page early: its cursor then continues at the first
    dropped item, so nothing is lost, only moved to the next page.
    """
    items = list(getattr(out, field))
    dropped: list[Any] = []
    while len(items) > 1 and (excess := size(out) - budget) > 0:
        removed = 0
        while len(items) > 1 and removed < excess:
            dropped.append(items.pop())
            removed += size(dropped[-1]) + 1
        out = out.model_copy(update={field: items})
    dropped.reverse()
    return out, dropped


def cut(out: BaseModel, budget: int, *, more: str = "") -> BaseModel:
    """Shorten the biggest list, then the biggest text, until `out`'s JSON fits in `budget` bytes.

    Each step removes about the excess from the biggest piece (never a list's first item nor a
    text's first 200 characters) and keeps the answer valid for its model; an answer that still
    cannot fit is returned as small as it got.
    """
    from pydantic import ValidationError

    model = type(out)
    data = out.model_dump(mode="json")
    current = out
    for _step in range(_MAX_STEPS):
        excess = size(data) - budget
        if excess <= 0:
            break
        if not _shorten(data, excess, more):
            break
        if isinstance(data.get("truncated"), bool):
            data["truncated"] = True
        try:
            current = model.model_validate(data)
        except ValidationError:
            break
    return current


def _shorten(data: Any, excess: int, more: str) -> bool:
    """Cut the biggest list (else the biggest text) in `data` by about `excess` bytes; False if none can shrink."""
    lists: list[tuple[int, list[Any]]] = []
    texts: list[tuple[int, Any, Any]] = []  # (bytes, container, key)
    _collect(data, lists, texts)
    if lists:
        _, biggest = max(lists, key=lambda item: item[0])
        removed = 0
        while len(biggest) > 1 and removed < excess:
            removed += size(biggest.pop()) + 1
        return True
    if texts:
        _, container, key = max(texts, key=lambda item: item[0])
        text: str = container[key]
        mark_room = len(_MARK) + len(more) + 8
        keep = max(_MIN_TEXT, len(text) - excess - mark_room)
        if keep >= len(text):
            return False
        container[key] = text[:keep] + _MARK.format(n=len(text) - keep, more=more)
        return True
    return False


def _collect(node: Any, lists: list[tuple[int, list[Any]]], texts: list[tuple[int, Any, Any]]) -> None:
    if isinstance(node, dict):
        items: Any = node.items()
    elif isinstance(node, list):
        if len(node) > 1:
            lists.append((size(node), node))
        items = enumerate(node)
    else:
        return
    for key, value in items:
        if isinstance(value, str) and len(value) > _MIN_TEXT + len(_MARK) + 8:
            texts.append((len(value.encode()), node, key))
        else:
            _collect(value, lists, texts)
