"""What a receiver is known to be, from the bindings of one file: the classes variables and fields
are bound to, in the function or method that binds them.

`parsing` collects the bindings while it walks a tree; this module reads them back for one
receiver node (`receiver`), keeps the spans of the file's functions to find the scope of a use
(`ScopeSpans`), and adds PHP's docblock and field bindings (`php_bindings`).
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any

from services.repo import aliases, grammars, receivers, tree_queries

__all__ = ["ScopeSpans", "php_bindings", "receiver", "scope_span", "typed_bindings"]

_PHP_CALLS = frozenset({"member_call_expression", "scoped_call_expression", "nullsafe_member_call_expression"})
# A field of the enclosing object as a receiver: `$this->collector`, `this.collector`, `self.collector`.
_SELF_FIELD = re.compile(r"^(?:\$this->|this\.|self\.)([A-Za-z_]\w*)$")


def receiver(
    node: Any,
    scopes: set[tuple[int, int]],
    bindings: dict[str, list[tuple[int, tuple[int, int] | None, str]]],
    at: Any,
    members: receivers.MemberTypes | None = None,
    language: str = "",
) -> str:
    """What a call's or member's receiver is known to be.

    `""` no receiver (a bare name); `"self"` the enclosing class (`self`, `cls`, `this`); a class
    name when the receiver is a variable built by its constructor or annotated as it in the same
    scope; `"?name"` for any other plain name (a class, a module or package, or a variable of
    unknown type: the resolver decides with the file's imports); `"?"` for anything else.
    """
    if node is None:
        return ""
    if members is not None and (known := receivers.receiver_of(node, members)) is not None:
        return known
    if members is not None and node.type in receivers.CHAINS:  # `db.selectFrom("t").where()`: the chain
        chain = receivers.call_chain(node, lambda base: receiver(base, scopes, bindings, at, members))
        if chain is not None:
            return chain
    if node.type in _PHP_CALLS:  # `Dotenv::create()->load()`: what `create` returns
        from services.repo import php_types

        return php_types.call_chain(node, lambda base: receiver(base, scopes, bindings, at, members)) or "?"
    if language == "cpp":  # `Get()->Lookup()`, `this->cache_->Find()`: `services.repo.cpp_types`
        from services.repo import cpp_types

        if node.type == "call_expression":
            again = functools.partial(receiver, scopes=scopes, bindings=bindings, at=at, language=language)
            return cpp_types.call_chain(node, again) or "?"
        if (field_name := cpp_types.self_field(_text(node))) is not None:
            return "?" + field_name
    text = _text(node)
    if node.type == "relative_scope" and text == "parent":  # PHP `parent::total()`: the base's
        return "super"
    if text in grammars.RECEIVER_SELF:
        return "self"
    field = _SELF_FIELD.match(text)
    if field is not None:  # `$this->collector->basePath()`: the class the field is declared as
        bound = bindings.get(field.group(1), [])
        # declared in the class body, else promoted from a constructor's parameter (PHP 8)
        declared = {t for _w, scope, t in bound if scope is None} or {t for _w, _s, t in bound}
        if len(declared) == 1:
            return declared.pop()
    if "::" in text or "\\" in text:  # `Shop::Store.open`, `App\\Store::make()`: the last segment names it
        last = re.split(r"::|\\", text)[-1]
        return "?" + last if last[:1].isupper() else "?"
    if not text.replace("_", "a").replace("$", "a").isalnum():
        return "?"
    candidates = bindings.get(text)
    if candidates:
        scope = scope_span(at, scopes)
        position = at.start_byte
        best = None
        for where, bound_scope, type_ in candidates:  # the latest binding before the use, in its scope
            if where < position and bound_scope == scope:
                best = type_
        if best is not None:
            return best
        if members is not None and members.lexical and scope is not None:
            # JS/TS closures see the enclosing functions' typed parameters and constants (`read: (k) =>
            # inner.read(k)` in `wrap(inner: Storage)`), unless a function between declares the name again
            outer = [
                (b[1][0] if b[1] else -1, b[2])
                for b in candidates
                if b[0] < position and (b[1] is None or b[1][0] <= scope[0] < b[1][1])
            ]
            if outer:
                start, type_ = max(outer, key=lambda o: o[0])
                if not receivers.redeclared(at, text, start):
                    return type_
    return "?" + text


# What lies between a top-level binding's name and the module: `export const x = ...`, `x = ...`.
_TOP_LEVEL_PATH = frozenset(
    {
        "variable_declarator",
        "lexical_declaration",
        "variable_declaration",
        "export_statement",
        "assignment",
        "expression_statement",
    }
)


def typed_bindings(bind_nodes: list[tuple[Any, str]], bound: aliases.Bound) -> list[tuple[str, str, int]]:
    """`(name, type, line)` for each name the module's top level binds to a value of one known type
    (`const ky = createInstance()`, `app = Flask(__name__)`, `export const api: Api = ...`), which
    an importer's `ky.create()` reads as a member of that type. A name bound to two types is none."""
    seen: dict[str, tuple[set[str], int]] = {}
    for var, type_ in bind_nodes:
        current = var.parent
        while current is not None and current.type in _TOP_LEVEL_PATH:
            current = current.parent
        if current is None or current.type not in ("module", "program"):
            continue
        type_ = bound.type_name(type_) if bound else type_
        seen.setdefault(_text(var), (set(), var.start_point[0] + 1))[0].add(type_)
    return sorted((name, next(iter(types)), line) for name, (types, line) in seen.items() if len(types) == 1)


def php_bindings(root: Any, scopes: Any, bindings: dict[str, list[tuple[int, tuple[int, int] | None, str]]]) -> None:
    from services.repo import php_types

    for var, node, type_ in php_types.docblock_bindings(root):
        bindings.setdefault(var, []).append((node.start_byte, scope_span(node, scopes), type_))

    def type_of(var: str, at: Any) -> str | None:
        scope = scope_span(at, scopes)
        types = {t for _w, s, t in bindings.get(var, ()) if s == scope}
        return types.pop() if len(types) == 1 else None

    for field_name, node, type_ in list(php_types.assigned_fields(root, tree_queries.grammar("php"), type_of)):
        bindings.setdefault(field_name, []).append((node.start_byte, scope_span(node, scopes), type_))
    for var, body, cls in php_types.narrowed(root, tree_queries.grammar("php")):  # `if ($x instanceof Item)`
        bindings.setdefault(var, []).append((body.start_byte, scope_span(body, scopes), cls))
    for var, node, call in php_types.assigned_calls(root, tree_queries.grammar("php")):  # `$d = Dotenv::create()`
        chain = receiver(call, scopes, bindings, call)
        if chain.startswith("()"):
            bindings.setdefault(var, []).append((node.start_byte, scope_span(node, scopes), chain))
    for var, node, iterated in php_types.foreach_values(
        root, tree_queries.grammar("php")
    ):  # `foreach ($this->readers as $r)`
        held = receiver(iterated, scopes, bindings, iterated)
        if held.startswith("[]"):
            bindings.setdefault(var, []).append((node.start_byte, scope_span(node, scopes), held[2:]))
        elif held.startswith("()"):  # `foreach ($this->items() as $item)`: an element of what `items` returns
            bindings.setdefault(var, []).append((node.start_byte, scope_span(node, scopes), held + ".[]"))
    for var, statement, cls in php_types.inline_vars(root, tree_queries.grammar("php")):  # `/** @var X $x */`
        bindings.setdefault(var, []).append((statement.end_byte, scope_span(statement, scopes), cls))
    for each in bindings.values():  # the latest binding before a use is the one it reads
        each.sort(key=lambda b: b[0])


def scope_span(node: Any, scopes: set[tuple[int, int]]) -> tuple[int, int] | None:
    """The span of the innermost function or method holding `node` (None at module level)."""
    if isinstance(scopes, ScopeSpans):
        return scopes.innermost(node.start_byte, node.end_byte)
    current = node.parent
    while current is not None:
        span = (current.start_byte, current.end_byte)
        if span in scopes:
            return span
        current = current.parent
    return None


class ScopeSpans(frozenset):
    """The spans of a file's functions and methods, which nest as the tree does, with that nesting
    kept so the innermost one holding a node is found by bisection. Walking up `node.parent` finds
    the same span, but tree-sitter finds each parent by descending from the root again: that walk
    was a tenth of the content half's time on a C repository."""

    def __init__(self, spans: Any = ()) -> None:
        ordered = sorted(self, key=lambda s: (s[0], -s[1]))  # outer before inner at one start
        self._ordered = ordered
        self._starts = [s[0] for s in ordered]
        self._outer: list[int] = []  # index of the nearest span holding each one, or -1
        stack: list[int] = []
        for i, (_start, end) in enumerate(ordered):
            while stack and ordered[stack[-1]][1] < end:
                stack.pop()
            self._outer.append(stack[-1] if stack else -1)
            stack.append(i)

    def innermost(self, start: int, end: int) -> tuple[int, int] | None:
        # The last span starting at or before `start` holds it, or one of the spans holding that one does.
        i = bisect.bisect_right(self._starts, start) - 1
        while i >= 0 and self._ordered[i][1] < end:
            i = self._outer[i]
        return self._ordered[i] if i >= 0 else None


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")
