"""JS/TS call chains: `db.selectFrom("t").where(...)` means a member of what `selectFrom` returns.

The parser writes a chain's receiver as `()<start>.<method>...` (`receivers.call_chain`). Here each
method is looked up on the type reached so far (its own member, or one it inherits) and its
declared return type read from its signature: `): SelectQueryBuilder<DB, TB, O>` is a
`SelectQueryBuilder`, `): this` the type it was called on, `): Self & Wretch<...>` either part the
repository defines. Where the start is unknown the method's name alone may tell: every member of
that name the repository declares returns one type. Anything else leaves the reference
`ambiguous`, never a guess.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from services.repo.rows import DefinitionRow, ReferenceRow

if TYPE_CHECKING:
    from services.repo.callers import _Resolver

__all__ = ["resolve", "return_types"]

Answer = tuple[str, DefinitionRow | None]
_NOTHING = frozenset({"undefined", "null", "void", "never", "any", "unknown", "object"})
_JS = frozenset({"javascript", "typescript", "tsx"})
_HEAD = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")


def return_types(signature: str) -> list[str] | None:
    """The names a TS signature's declared return type is made of (`this` for `this`), outermost
    first: `): A<X> | undefined` gives `["A"]`, `): this & B` gives `["this", "B"]`; None when the
    signature declares none or it is no union or intersection of names (a function type, an object)."""
    start = signature.find("(")
    if start < 0:
        return None
    depth, end = 0, -1
    for i in range(start, len(signature)):
        ch = signature[i]
        if ch in "([{<":
            depth += 1
        elif ch in ")]}" or (ch == ">" and signature[i - 1] != "="):
            depth -= 1
            if depth == 0:
                end = i
                break
    if end < 0:
        return None
    rest = signature[end + 1 :].strip()
    if not rest.startswith(":"):
        return None
    rest = rest[1:].strip().rstrip("{").strip()
    parts, depth, current = [], 0, []
    for ch in rest:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}" or ch == ">":
            depth -= 1
        if depth == 0 and ch in "|&":
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    out = []
    for part in (p.strip() for p in parts):
        if not part or part in _NOTHING:
            continue
        head = _HEAD.match(part)
        if head is None or "=>" in part:
            return None
        rest_of = part[head.end() :].strip()
        if rest_of and not rest_of.startswith("<") and rest_of != "[]":
            return None
        name = head.group(0).rsplit(".", 1)[-1]
        out.append("Array" if rest_of == "[]" else name)
    return out or None


def resolve(r: _Resolver, row: ReferenceRow, defs: list[DefinitionRow], chain: str) -> Answer:
    """The answer for the member `row` names off the value of the chain `chain` (after `()`)."""
    from services.repo import by_receiver

    start, *methods = chain.split(".")
    types = _start(r, row, start)
    for i, method in enumerate(methods):
        types = _after(r, row, types, method, first=i == 0)
        if not types:
            return by_receiver.unknown(defs)
    for type_ in types:
        answer = by_receiver._typed(r, row, defs, type_, hops=2)
        if answer[0] == "receiver":
            return answer
    return by_receiver.unknown(defs)


def _start(r: _Resolver, row: ReferenceRow, start: str) -> list[str]:
    """The types the chain's first object can be."""
    from services.repo import by_receiver

    if not start or start == "?":
        return []
    if start == "self":
        classes = (row.enclosing or "").split(".")[:-1]
        return [classes[-1]] if classes else []
    if start.endswith("()"):  # `make().m()`: what the repository's functions of that name return
        found = {
            tuple(t)
            for d in r.store.definitions(start[:-2])
            if d.language in _JS and d.kind == "function" and (t := return_types(d.signature)) is not None
        }
        return [t for t in found.pop() if t != "this" and _known(r, row, t)] if len(found) == 1 else []
    if start.startswith("?"):
        word = start[1:]
        declared = by_receiver._declared_value(r, row, word)
        if declared is not None:
            return [declared[1]]
        return [word] if by_receiver._classes(r, row, word) else []  # `Kysely.create()`: a static method
    return [start]


def _after(r: _Resolver, row: ReferenceRow, types: list[str], method: str, *, first: bool) -> list[str]:
    """The types `method` returns when called on a value of one of `types` (empty when unknown)."""
    named = [d for d in r.store.definitions(method) if d.language in _JS and d.kind in ("method", "function", "field")]
    if not types:
        if not first:
            return []
        # the start is unknown: only when every member of that name returns the same one type
        found = {tuple(t) for d in named if d.parent and (t := return_types(d.signature)) is not None}
        if len(found) != 1 or len([d for d in named if d.parent]) != sum(
            1 for d in named if d.parent and return_types(d.signature) is not None
        ):
            return []
        only = next(iter(found))
        return [t for t in only if t != "this" and _known(r, row, t)]
    out: list[str] = []
    for type_ in types:
        for d in _methods_on(r, row, named, type_, method):
            for t in return_types(d.signature) or ():
                t = type_ if t == "this" else t
                if t not in out and _known(r, row, t):
                    out.append(t)
    return out


def _methods_on(
    r: _Resolver, row: ReferenceRow, named: list[DefinitionRow], type_: str, method: str
) -> list[DefinitionRow]:
    """The declarations of `method` a value of `type_` has: the type's own, else one it inherits."""
    from services.repo import by_receiver
    from services.repo.callers import _class_for
    from services.repo.inheritance import member_through_bases

    own = [d for d in named if d.parent and d.parent.rsplit(".", 1)[-1] == type_]
    classes = by_receiver._classes(r, row, type_)
    if own:
        paths = {c.path for c in classes}
        return [d for d in own if d.path in paths] or own
    out: list[DefinitionRow] = []
    for cls in classes:
        found = member_through_bases(r.store, cls, method, named, lambda ref, name: _class_for(r.store, ref, name))
        if found is not None:
            out.extend(found.definitions)
    return out


def _known(r: _Resolver, row: ReferenceRow, type_: str) -> bool:
    """A type the repository declares (a class, interface or type alias): one whose members it has."""
    from services.repo import by_receiver

    return bool(by_receiver._classes(r, row, type_)) and type_ not in ("Promise", "Array")
