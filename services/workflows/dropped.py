"""`workflow validate`'s view of promises a script drops, reasoned as the run's rejection tracker does.

A statement that makes a promise and neither awaits it, keeps it, returns it nor attaches a rejection
handler to it leaves a failure with no handler: the run then ends NOT FINISHED. `.then(f)` and
`.finally(f)` pass a rejection on to the promise they make, so a chain counts as handled only when
it ends in `.catch(...)` or a two-argument `.then(...)`. No JavaScript runs here.
"""

from __future__ import annotations

from typing import Any

from services.workflows.asyncwrap import async_functions, parser, statements

__all__ = ["dropped_promises"]

_HOST_CALLS = frozenset({"agent", "gate", "check", "workflow", "parallel", "pipeline", "log"})
_COMBINATORS = frozenset({"all", "any", "race", "reject"})
_CALLBACK_METHODS = frozenset({"map", "forEach", "flatMap"})
_NAMESPACES = {"verify": frozenset({"untilGreen"}), "team": None, "pallium": None}


def dropped_promises(wrapped: str) -> list[tuple[int, str]]:
    """(line, what) for each statement of `wrapped` (a body inside `wrap_body`) that drops a promise
    no handler will observe. Lines count from the body's first line."""
    if "(" not in wrapped:
        return []
    source = wrapped.encode("utf-8")
    tree = parser().parse(source)
    if tree.root_node.has_error:
        return []  # the syntax check says what is wrong
    names = _async_names(tree.root_node)
    found = []
    for node in statements(tree.root_node):
        if not node.named_children:
            continue
        expression = node.named_children[0]
        what = _unhandled_promise(expression, names)
        if what is not None:
            found.append((node.start_point[0] + 1, what))
    return sorted(found)


def _unhandled_promise(node: Any, names: _AsyncNames) -> str | None:
    """What promise `node` makes that nothing handles, or None (not a promise, or handled)."""
    if node.type == "new_expression":
        constructor = node.child_by_field_name("constructor")
        return "new Promise()" if constructor is not None and constructor.text == b"Promise" else None
    if node.type != "call_expression":
        return None
    callee = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if callee is None:
        return None
    if callee.type == "identifier":
        name = callee.text.decode()
        if name in _HOST_CALLS and name != "log":
            return f"{name}()"
        return f"{name}()" if name in names.functions else None
    if callee.type != "member_expression":
        return None
    target = callee.child_by_field_name("object")
    member = callee.child_by_field_name("property")
    if target is None or member is None:
        return None
    method = member.text.decode()
    if target.type == "identifier":
        owner = target.text.decode()
        if owner == "Promise":  # allSettled never rejects
            return f"Promise.{method}()" if method in _COMBINATORS else None
        if owner in _NAMESPACES:
            members = _NAMESPACES[owner]
            return f"{owner}.{method}()" if members is None or method in members else None
    if method == "catch":
        return None
    if method in ("then", "finally"):
        given = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
        if method == "then" and len(given) >= 2 and given[1].text not in (b"null", b"undefined"):
            return None
        # `.then(f)` and `.finally(f)` pass a rejection on to the promise they make, whatever they follow
        inner = _unhandled_promise(target, names) if target.type in ("call_expression", "new_expression") else None
        shown = inner or (target.text.decode("utf-8", "replace")[:40] + ("" if len(target.text) <= 40 else "…"))
        return f"{shown}.{method}()"
    callbacks = arguments.named_children if arguments is not None and method in _CALLBACK_METHODS else []
    if any(a.type in ("arrow_function", "function_expression") and _is_async(a) for a in callbacks):
        return f".{method}(async ...)"  # the promises its async callback returns are dropped
    if method in names.methods:
        return f".{method}()"
    return None


def _is_async(node: Any) -> bool:
    return any(child.type == "async" for child in node.children)


class _AsyncNames:
    """The script's async functions by name, and its async methods by name (`o.go()`, `new A().m()`)."""

    def __init__(self, functions: set[str], methods: set[str]) -> None:
        self.functions = functions
        self.methods = methods


def _async_names(root: Any) -> _AsyncNames:
    """Names the script gives its async functions (`async function f`, `const f = async (...) =>`) and
    its async methods (`{ async go() {} }`, `class A { async m() {} }`)."""
    functions: set[str] = set()
    methods: set[str] = set()
    for node in async_functions(root):
        if node.type == "method_definition":
            name = node.child_by_field_name("name")
            if name is not None and name.type == "property_identifier":
                methods.add(name.text.decode())
            continue
        if node.type == "function_declaration":
            name = node.child_by_field_name("name")
        elif node.parent is not None and node.parent.type == "variable_declarator":
            name = node.parent.child_by_field_name("name")
        else:
            continue
        if name is not None and name.type == "identifier":
            functions.add(name.text.decode())
    return _AsyncNames(functions, methods)
