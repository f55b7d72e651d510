"""Rewrite a script's own async functions so the promises they return are tracked.

The prelude tracks rejections as V8's promise-rejection tracker does, but only for promises it can
see: an `async` function returns the engine's intrinsic Promise, which no script-level hook reaches.
So before the script runs, each async function (declaration, expression, arrow, method) is wrapped
in `__pallium_async(fn, name)`, which hands back a tracked promise instead. The rewrite inserts and
removes text on single lines only, so every line of the script keeps its number.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

__all__ = ["async_functions", "parser", "statements", "track_async_functions"]

_PARAMS = "...__pallium_given"


def track_async_functions(wrapped: str) -> str:
    """`wrapped` (the body inside `wrap_body`'s async arrow) with every inner async function tracked."""
    if "async" not in wrapped:
        return wrapped
    source = wrapped.encode("utf-8")
    tree = parser().parse(source)
    if tree.root_node.has_error:
        return wrapped  # V8 reports the syntax error itself, at its own line
    edits: list[tuple[int, int, bytes]] = []
    for node in async_functions(tree.root_node):
        if node.type == "arrow_function" and node.start_byte == 1:
            continue  # wrap_body's own arrow: the engine awaits it
        edits += _edits_for(node, _async_token(node), source)
    for start, end, text in sorted(edits, key=lambda e: e[0], reverse=True):
        source = source[:start] + text + source[end:]
    return source.decode("utf-8")


def _edits_for(node: Any, async_token: Any, source: bytes) -> list[tuple[int, int, bytes]]:
    if node.type in ("function_expression", "arrow_function"):
        return [(node.start_byte, node.start_byte, b"__pallium_async("), (node.end_byte, node.end_byte, b")")]
    if any(child.type == "*" for child in node.children):
        return []  # an async generator returns an iterator, not a promise
    name = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if name is None or body is None or (node.type == "method_definition" and _uses_super(body)):
        return []  # `super` only works in the method itself: such a method stays as written
    label = json.dumps(name.text.decode("utf-8", "replace")).encode()
    removed = source[async_token.start_byte : name.end_byte]
    kept_lines = b"\n" * removed.count(b"\n")
    # a method keeps its (maybe computed) name
    head = b"function " + name.text if node.type == "function_declaration" else name.text
    prefix = head + f"({_PARAMS}) {{ return __pallium_async(async function ".encode() + kept_lines
    suffix = b", " + label + b").apply(this, __pallium_given); }"
    return [(async_token.start_byte, name.end_byte, prefix), (node.end_byte, node.end_byte, suffix)]


def _async_token(node: Any) -> Any:
    return next(child for child in node.children if child.type == "async")


def _uses_super(body: Any) -> bool:
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "super":
            return True
        if node.type not in ("function_declaration", "function_expression"):  # their own `super` is theirs
            stack.extend(node.children)
    return False


def async_functions(root: Any) -> list[Any]:
    """Every async function under `root`: declarations, expressions, arrows and methods."""
    from tree_sitter import QueryCursor

    return QueryCursor(_queries()[0]).captures(root).get("f", [])


def parser() -> Any:
    from tree_sitter import Parser

    return Parser(_language())


@lru_cache(maxsize=1)
def _language() -> Any:
    import tree_sitter_javascript
    from tree_sitter import Language

    return Language(tree_sitter_javascript.language())


@lru_cache(maxsize=1)
def _queries() -> tuple[Any, ...]:
    from tree_sitter import Query

    language = _language()
    return (
        Query(
            language,
            '[(function_declaration "async") (function_expression "async") (arrow_function "async")'
            ' (method_definition "async")] @f',
        ),
        Query(language, "(expression_statement) @s"),
    )


def statements(root: Any) -> list[Any]:
    """Every expression statement under `root`."""
    from tree_sitter import QueryCursor

    return QueryCursor(_queries()[1]).captures(root).get("s", [])
