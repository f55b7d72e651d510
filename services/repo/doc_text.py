"""What a definition reads like: its signature, decorators and the first line of its doc.

Split from `services.repo.parsing`, which finds the definitions; these read the text around one.
A PHP function's docblock `@return` type is kept at the end of its signature when the code
declares none (`public static function create() /** @return \\Pkg\\Dotenv */`): the resolver reads
a method's return type there (`php_types.return_class`).
"""

from __future__ import annotations

import re
from typing import Any

from services.repo import php_types

__all__ = ["COMMENTS", "QUOTES", "WRAPPERS", "decorators", "doc", "first_line", "signature"]

COMMENTS = frozenset({"comment", "line_comment", "block_comment", "multiline_comment"})
WRAPPERS = frozenset(
    {
        "export_statement",
        "decorated_definition",
        "lexical_declaration",
        "variable_declaration",
        "type_declaration",
        "type_definition",
    }
)
_DOC_WRAPPERS = WRAPPERS | {"variable_declarator"}
QUOTES = re.compile(r"^[rRbBuUfF]*(?:\"\"\"|'''|\"|')|(?:\"\"\"|'''|\"|')$")

_LINE_COMMENT = {"python": "#", "ruby": "#", "bash": "#", "lua": "--"}


def signature(node: Any, data: bytes, language: str = "") -> str:
    """The definition up to its body, or its first line, without comments; sliced from the file."""
    start = node.start_byte
    body = node.child_by_field_name("body")
    if body is not None and body.start_byte > start:
        end = body.start_byte
    else:
        newline = data.find(b"\n", start, node.end_byte)
        end = node.end_byte if newline < 0 else newline
    text = data[start:end].decode("utf-8", "replace")
    marker = _LINE_COMMENT.get(language, "//")
    if marker in text or "/*" in text:  # `def f(x):  # why` keeps `def f(x)`
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S) if marker == "//" else text
        text = "\n".join(re.sub(r"(^|\s)" + re.escape(marker) + r".*$", "", line) for line in text.split("\n"))
    text = " ".join(text.split()).rstrip(":{ ").strip()
    written = php_types.docblock_return(node) if language == "php" else None
    kept = f" /** @return {written} */" if written else ""  # the type the code leaves to its docblock
    return text + kept if len(text) + len(kept) <= 200 else text[: 199 - len(kept)] + "…" + kept


_DECORATOR_NODES = frozenset({"decorator", "marker_annotation", "annotation", "attribute_list"})


def decorators(node: Any) -> list[str]:
    """`@property`, `@overload`, `@dataclass(frozen=True)`, Java annotations, TypeScript decorators."""
    found = []
    parent = node.parent
    if parent is not None and parent.type == "decorated_definition":  # Python
        found = [c for c in parent.named_children if c.type == "decorator"]
    else:
        for child in node.named_children:
            if child.type in _DECORATOR_NODES:  # a TypeScript class's own decorators
                found.append(child)
            elif child.type == "modifiers":  # Java annotations
                found += [c for c in child.named_children if c.type in _DECORATOR_NODES]
        before = node.prev_named_sibling  # a TypeScript method's decorators sit before it in the class body
        while before is not None and before.type == "decorator":
            found.insert(0, before)
            before = before.prev_named_sibling
    return [" ".join(d.text.decode("utf-8", "replace").split())[:120] for d in found]


def doc(language: str, node: Any) -> str | None:
    if language == "python":
        body = node.child_by_field_name("body")
        if body is not None and body.named_child_count:
            first = body.named_child(0)  # not `named_children`, which builds a node for every statement
            if first.type == "expression_statement" and first.named_child_count:
                first = first.named_child(0)
            if first.type == "string":
                return first_line(QUOTES.sub("", first.text.decode("utf-8", "replace")))
        return None
    anchor = node
    while anchor.parent is not None and anchor.parent.type in _DOC_WRAPPERS:
        anchor = anchor.parent
    comment = anchor.prev_named_sibling
    if comment is None and anchor.parent is not None:  # Ruby: a comment before a body's first statement
        comment = anchor.parent.prev_named_sibling
    if comment is not None and comment.type not in COMMENTS and comment.named_child_count:
        last = comment.named_child(comment.named_child_count - 1)  # Kotlin: the package header holds it
        comment = last if last.type in COMMENTS else comment
    if comment is None or comment.type not in COMMENTS or comment.end_point[0] < anchor.start_point[0] - 1:
        return None
    while True:  # climb to the first line of a run of `//` comments
        earlier = comment.prev_named_sibling
        if earlier is None or earlier.type not in COMMENTS or earlier.end_point[0] < comment.start_point[0] - 1:
            break
        comment = earlier
    if comment.start_point[0] == 0 and comment.text.startswith(b"#!"):  # a script's shebang documents nothing
        comment = comment.next_named_sibling
        if comment is None or comment.type not in COMMENTS:
            return None
    return first_line(comment.text.decode("utf-8", "replace"))


def first_line(text: str) -> str | None:
    """The first paragraph of a docstring or doc comment, on one line (at most 300 characters)."""
    kept: list[str] = []
    for line in text.splitlines():
        cleaned = line.strip().lstrip("/*!#").removeprefix("--").strip().rstrip("*/").strip()
        if not cleaned:
            if kept:
                break
            continue
        if kept and cleaned.startswith(("@", ":param", ":return", "Args:", "Returns:")):
            break
        kept.append(cleaned)
    if not kept:
        return None
    joined = " ".join(kept)
    return joined if len(joined) <= 300 else joined[:299] + "…"
