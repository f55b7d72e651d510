"""`workflow validate`'s view of promises a script drops, reasoned as the run's rejection tracker does.

A statement that makes a promise and neither awaits it, keeps it, returns it nor attaches a rejection
handler to it leaves a failure with no handler: the run then ends NOT FINISHED. `.then(f)` and
`.finally(f)` pass a rejection on to the promise they make, so a chain counts as handled only when
it ends in `.catch(g)` or a two-argument `.then(f, g)` whose handler `g` cannot itself reject (it
throws, or returns a promise that may reject, as `Promise.reject(e)` or another call does). An async
function whose whole body is one `try` with a `catch` that cannot reject never rejects, so calling it
drops nothing. No JavaScript runs here.
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
    given = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "comment"]
    if method == "catch":
        if given and _may_reject(given[0], names):  # a handler that rethrows makes a rejected promise again
            return f"{_shown(target, names)}.catch(rethrows)"
        return None
    if method in ("then", "finally"):
        if method == "then" and len(given) >= 2 and given[1].text not in (b"null", b"undefined"):
            if not _may_reject(given[1], names):
                return None
            return f"{_shown(target, names)}.then(…, rethrows)"
        # `.then(f)` and `.finally(f)` pass a rejection on to the promise they make, whatever they follow
        return f"{_shown(target, names)}.{method}()"
    callbacks = arguments.named_children if arguments is not None and method in _CALLBACK_METHODS else []
    if any(a.type in ("arrow_function", "function_expression") and _is_async(a) for a in callbacks):
        return f".{method}(async ...)"  # the promises its async callback returns are dropped
    if method in names.methods:
        return f".{method}()"
    return None


def _shown(target: Any, names: _AsyncNames) -> str:
    """How a warning names the promise a chain starts from."""
    inner = _unhandled_promise(target, names) if target.type in ("call_expression", "new_expression") else None
    return inner or (target.text.decode("utf-8", "replace")[:40] + ("" if len(target.text) <= 40 else "…"))


_FUNCTIONS = frozenset(
    {"function_declaration", "function_expression", "function", "arrow_function", "method_definition",
     "generator_function", "generator_function_declaration", "class_declaration", "class"}
)  # fmt: skip


def _may_reject(handler: Any, names: _AsyncNames) -> bool:
    """Whether a rejection handler (a function written in place) can end in a rejection: a `throw` it
    reaches, or a promise it returns that may reject. A handler given by name is taken as handling."""
    if handler.type not in ("arrow_function", "function_expression", "function"):
        return False
    body = handler.child_by_field_name("body")
    if body is None:
        return False
    if body.type != "statement_block":  # `(e) => Promise.reject(e)`, `(e) => agent("again")`
        return _unhandled_promise(body, names) is not None
    return _block_may_reject(body, names)


def _block_may_reject(node: Any, names: _AsyncNames) -> bool:
    """Whether running `node` can throw or return a promise that may reject: a reachable `throw` (one
    in a `try` that has a `catch` is caught, unless that `catch` rejects), or `return <promise>` (a
    promise returned from inside a `try` escapes it all the same: it settles after the `try` ends)."""
    for child in node.named_children:
        if child.type in _FUNCTIONS:
            continue  # defined, not run here
        if child.type == "throw_statement":
            return True
        if child.type in ("return_statement", "await_expression"):  # `await p` throws what p rejects with
            value = [c for c in child.named_children if c.type != "comment"]
            if value and _unhandled_promise(value[0], names) is not None:
                return True
            if child.type == "return_statement":
                continue
        if child.type == "try_statement":
            body = child.child_by_field_name("body")
            handler = child.child_by_field_name("handler")
            finalizer = child.child_by_field_name("finalizer")
            if body is not None and (
                _block_may_reject(body, names) if handler is None else _returns_promise(body, names)
            ):
                return True
            if any(part is not None and _block_may_reject(part, names) for part in (handler, finalizer)):
                return True
            continue
        if _block_may_reject(child, names):
            return True
    return False


def _returns_promise(node: Any, names: _AsyncNames) -> bool:
    """Whether `node` returns a promise that may reject (not awaited: the enclosing `try` cannot catch it)."""
    for child in node.named_children:
        if child.type in _FUNCTIONS:
            continue
        if child.type == "return_statement":
            value = [c for c in child.named_children if c.type != "comment"]
            if value and _unhandled_promise(value[0], names) is not None:
                return True
        elif _returns_promise(child, names):
            return True
    return False


def _cannot_reject(function: Any, names: _AsyncNames) -> bool:
    """An async function whose whole body is one `try` with a `catch`, neither of which can reject."""
    body = function.child_by_field_name("body")
    if body is None or body.type != "statement_block":
        return False
    parts = [c for c in body.named_children if c.type != "comment"]
    if len(parts) != 1 or parts[0].type != "try_statement" or parts[0].child_by_field_name("handler") is None:
        return False
    return not _block_may_reject(body, names)


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
    plain = _AsyncNames(set(), set())  # what a handler may return is judged against host calls here
    for node in async_functions(root):
        if _cannot_reject(node, plain):
            continue  # calling it drops a promise that never rejects
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
