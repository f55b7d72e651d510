"""The imports one parsed statement makes, as `(module, names, line)` rows, by each language's rules
(the pack languages' rules are `languages.import_rows`)."""

from __future__ import annotations

import re
from typing import Any

from services.repo import languages

__all__ = ["import_rows"]


def import_rows(language: str, captures: dict[str, list[Any]]) -> list[tuple[str, str, int]]:
    def text(n: Any) -> str:
        return n.text.decode("utf-8", "replace")

    if "import" not in captures:
        return []
    if language in languages.PACK_LANGUAGES:
        return languages.import_rows(language, captures)
    node = captures["import"][0]
    line = node.start_point[0] + 1
    if language == "python":
        if node.type == "import_statement":
            rows = []
            for child in node.named_children:
                target = child.child_by_field_name("name") if child.type == "aliased_import" else child
                rows.append((text(target), "", line))
            return rows
        module = node.child_by_field_name("module_name")
        names = []
        for child in node.children_by_field_name("name"):
            target = child.child_by_field_name("name") if child.type == "aliased_import" else child
            names.append(text(target))
        if any(c.type == "wildcard_import" for c in node.named_children):
            names.append("*")
        return [(text(module) if module is not None else ".", " ".join(names), line)]
    if language in ("javascript", "typescript", "tsx"):
        source = captures.get("source")
        if not source:
            return []
        if "fn" in captures and text(captures["fn"][0]) != "require":
            return []
        names = [
            text(n)
            for n in _descendants(node, {"import_specifier", "export_specifier", "identifier"})
            if n.parent is not None
            and n.parent.type in ("import_clause", "import_specifier", "export_specifier")
            and (n.parent.type == "import_clause" or n == n.parent.child_by_field_name("name"))
        ]
        if node.type == "call_expression":  # `const { Widget, Gadget: G } = require('./m')` names Widget, Gadget
            names = _required_names(node)
        return [(text(source[0]).strip("\"'`"), " ".join(names), line)]
    if language == "go":
        path = node.child_by_field_name("path")
        alias = node.child_by_field_name("name")
        raw = text(path).strip('"`') if path is not None else ""
        return [(raw, text(alias) if alias is not None else raw.rsplit("/", 1)[-1], line)]
    if language == "rust":
        if node.type == "mod_item":
            if node.child_by_field_name("body") is not None:
                return []
            return [("mod " + text(node.child_by_field_name("name")), "", line)]
        argument = node.child_by_field_name("argument")
        raw = text(argument) if argument is not None else ""
        names = re.findall(r"[A-Za-z_]\w*", raw.rsplit("::", 1)[-1])
        return [(raw, " ".join(n for n in names if n not in ("self", "as")), line)]
    if language == "java":
        raw = text(node).removeprefix("import").strip().removeprefix("static").strip().rstrip(";").strip()
        return [(raw, raw.rsplit(".", 1)[-1], line)]
    return []


def _required_names(call: Any) -> list[str]:
    """The fields a `require` call's declarator takes apart (`const { A, B: C } = require(...)`: A, B)."""
    declarator = call.parent
    pattern = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
    if pattern is None or pattern.type != "object_pattern":
        return []
    out = []
    for field_ in pattern.named_children:
        key = field_.child_by_field_name("key") if field_.type == "pair_pattern" else field_
        if key is not None and key.type in ("shorthand_property_identifier_pattern", "property_identifier"):
            out.append(_text(key))
    return out


def _descendants(node: Any, types: set[str]) -> list[Any]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        if current.type in types:
            out.append(current)
        stack.extend(current.named_children)
    return out


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")
