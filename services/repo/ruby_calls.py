"""Ruby's bare method calls: an identifier that no assignment or parameter of its scope makes a local.

`helper`, `request.path`, `render :show`: Ruby calls a method when a bare name is not a local
variable of the method (or block, or class body) it is written in, and the grammar cannot tell the
two apart. A scope's locals are the names it assigns (`x = 1`, `a, b = ...`, `x += 1`), its
parameters and its blocks' parameters, and `rescue => e`; every other bare identifier in it is a
call on self. A name used before the assignment that makes it local counts as local: the rare
miss is a call, never a variable taken for a call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["bare_calls"]

_SCOPES = frozenset({"program", "method", "singleton_method", "class", "module", "singleton_class"})
_PARAMETERS = frozenset(
    {"method_parameters", "block_parameters", "lambda_parameters", "exception_variable", "destructured_parameter"}
)
_ASSIGNING = frozenset({"assignment", "operator_assignment"})
_NOT_CALLS = frozenset({"method", "singleton_method", "alias", "undef"})  # a name defined there is no call


def bare_calls(root: Any) -> set[int]:
    """Start bytes of the identifiers of `root` that are bare method calls."""
    locals_: dict[int, set[bytes]] = {}
    candidates: list[tuple[int, bytes, int]] = []  # (scope id, name, start byte)
    stack: list[tuple[Any, int, bool]] = [(root, root.id, False)]
    while stack:
        node, scope, binding = stack.pop()
        kind = node.type
        if kind in _SCOPES and node.id != scope:
            scope = node.id
        if kind == "identifier":
            if binding:
                locals_.setdefault(scope, set()).add(node.text)
            else:
                parent = node.parent
                if parent is None or parent.type in _NOT_CALLS:
                    continue
                if parent.type == "call":  # its receiver may be a bare call (`request.path`), its method is one already
                    method = parent.child_by_field_name("method")
                    if method is not None and method.id == node.id:
                        continue
                candidates.append((scope, node.text, node.start_byte))
            continue
        if kind in _ASSIGNING:
            left = node.child_by_field_name("left")
            for child in node.children:
                stack.append((child, scope, child == left or binding))
            continue
        if kind == "left_assignment_list" or kind in _PARAMETERS:
            binding = True
        for child in node.children:
            stack.append((child, scope, binding))
    return {start for scope, name, start in candidates if name not in locals_.get(scope, ())}
