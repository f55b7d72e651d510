"""Names a file's top level binds by plain assignment to another name: `Base = Widget`.

Python `Base = Widget` and `Base = mod.Widget`, JavaScript and TypeScript `const Base = Widget`
(`let`, `var`, `export const` too), and CommonJS `exports.Base = Widget`,
`module.exports.Base = Widget` and `module.exports = { Base: Widget }` make `Base` another name for
`Widget`: the file's uses of `Base` are recorded under `Widget` as well (`aliases.Bound`), and the
binding is one of the file's exports, so an importer's `Base` is followed to `Widget`'s file the way
a re-export is (`exports`).

Only a top-level binding to a bare or dotted name counts: `x = Widget()` builds a Widget and is
read as a receiver's type where it is. A name bound at the top level more than once to different
things (two targets, or a target and a class, a function or an import of that name, or a binding in
a top-level `if`/`try`) is no alias: its uses stay under their own name, unresolved, rather than a
guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Assignment", "of"]

_JS = frozenset({"javascript", "typescript", "tsx"})
_NAMES = {
    "python": frozenset({"identifier", "attribute"}),
    "javascript": frozenset({"identifier", "member_expression"}),
}
_NESTED = frozenset(
    {
        "if_statement",
        "try_statement",
        "else_clause",
        "elif_clause",
        "except_clause",
        "finally_clause",
        "block",
        "statement_block",
        "with_statement",
        "for_statement",
        "while_statement",
    }
)
_OTHER = "\0"  # a binding to something that is not a name (`Base = make()`): no target, only a conflict


@dataclass(frozen=True)
class Assignment:
    """`local` (empty for `exports.Base = ...`, which binds no local name) names `target` as written
    (`Widget`, `mod.Widget`); importers know it as `exported`."""

    local: str
    exported: str
    target: str
    line: int
    start: int = -1  # where the bound name is written: the binding, no use of it


def of(language: str, root: Any, bound_elsewhere: set[str]) -> list[Assignment]:
    """The top-level aliases by assignment of one tree, each name bound once (or always to one target).

    `bound_elsewhere` holds the names the file's definitions and imports bind at its top level.
    """
    if language == "python":
        found = _python(root)
    elif language in _JS:
        found = _javascript(root)
    else:
        return []
    targets: dict[tuple[str, str], set[str]] = {}
    for a in found:
        key = ("local", a.local) if a.local else ("exported", a.exported)
        targets.setdefault(key, set()).add(a.target)
    out = []
    for a in found:
        key = ("local", a.local) if a.local else ("exported", a.exported)
        if a.target == _OTHER or len(targets[key]) > 1 or a.local in bound_elsewhere:
            continue
        if a.target.rsplit(".", 1)[-1] == (a.local or a.exported) and "." not in a.target:
            continue  # `Widget = Widget`: nothing to follow
        out.append(a)
    return list({(a.local, a.exported, a.target): a for a in out}.values())  # `Base = W` twice: once


def _python(root: Any) -> list[Assignment]:
    out: list[Assignment] = []
    for node in root.named_children:
        _python_statement(node, out, top=True)
    return out


def _python_statement(node: Any, out: list[Assignment], *, top: bool) -> None:
    if node.type in _NESTED:  # a binding in a top-level `try:`/`if:` only makes the name ambiguous
        for child in node.named_children:
            _python_statement(child, out, top=False)
        return
    if node.type != "expression_statement" or not node.named_child_count:
        return
    assignment = node.named_child(0)
    while assignment.type == "assignment":
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or left.type != "identifier":
            return
        line = assignment.start_point[0] + 1
        chained = right is not None and right.type == "assignment"  # `A = B = Widget`: not followed
        target = _text(right) if top and right is not None and right.type in _NAMES["python"] else _OTHER
        out.append(Assignment(_text(left), _text(left), _OTHER if chained else target, line, left.start_byte))
        if not chained:
            return
        assignment = right


def _javascript(root: Any) -> list[Assignment]:
    out: list[Assignment] = []
    for node in root.named_children:
        _js_statement(node, out, top=True)
    return out


def _js_statement(node: Any, out: list[Assignment], *, top: bool) -> None:
    line = node.start_point[0] + 1
    if node.type in _NESTED:
        for child in node.named_children:
            _js_statement(child, out, top=False)
        return
    if node.type == "export_statement":
        declaration = node.child_by_field_name("declaration")
        if declaration is not None:
            _js_statement(declaration, out, top=top)
        return
    if node.type in ("lexical_declaration", "variable_declaration"):
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if name is None or name.type != "identifier":
                continue
            target = _text(value) if top and value is not None and value.type in _NAMES["javascript"] else _OTHER
            out.append(Assignment(_text(name), _text(name), target, line, name.start_byte))
        return
    if node.type != "expression_statement" or not node.named_child_count:
        return
    assignment = node.named_child(0)
    if assignment.type != "assignment_expression":
        return
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    if left is None or right is None:
        return
    target = _text(right) if top and right.type in _NAMES["javascript"] else _OTHER
    if left.type == "identifier":  # `Base = Gadget` after `let Base = Widget`
        out.append(Assignment(_text(left), _text(left), target, line, left.start_byte))
        return
    written = _text(left).replace(" ", "")
    if left.type == "member_expression" and written.startswith(("exports.", "module.exports.")):
        exported = written.rsplit(".", 1)[-1]
        if written.count(".") == (1 if written.startswith("exports.") else 2):
            out.append(Assignment("", exported, target, line))
    elif written == "module.exports" and right.type == "object":  # `module.exports = { Base: Widget }`
        for pair in right.named_children:
            key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if pair.type == "pair" and key is not None and value is not None:
                name = _text(key).strip("\"'")
                value_target = _text(value) if top and value.type in _NAMES["javascript"] else _OTHER
                out.append(Assignment("", name, value_target, line))


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")
