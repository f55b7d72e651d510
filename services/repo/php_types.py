"""PHP types the grammar's typed declarations do not give, read from one file: docblocks and
constructor assignments, so that `$this->writer->write()` reaches the class `$writer` is declared as.

- `/** @var \\Pkg\\WriterInterface */ private $writer;`: the property's type from its docblock;
- `/** @param \\Pkg\\ReaderInterface|null $reader */` above a method: an untyped parameter's type;
- `$this->writer = $writer;` with `$writer` a typed parameter: the property takes the parameter's type;
- `Dotenv::create()->load()`, `$d = Dotenv::create(); $d->load()`: the receiver is what `create`
  returns, written `()Dotenv.create` (`()self.make.get` for `$this->make()->get()`), which the
  resolver reads through each method's declared or docblock return type (`return_class`).

Each is a binding `(variable, start byte, node, class name)` as the parser keeps them; a name
written with its namespace counts by its last segment, and a union of two classes by none.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "assigned_calls",
    "assigned_fields",
    "call_chain",
    "class_of",
    "docblock_bindings",
    "docblock_return",
    "element_class",
    "foreach_values",
    "inline_vars",
    "narrowed",
    "return_class",
    "returned_type",
]

# a type may hold spaces inside its angle brackets: `array<string, Writer>`
_VAR = re.compile(r"@var\s+((?:[^\s*<]|<[^<>]*(?:<[^<>]*>[^<>]*)*>)+)")
_PARAM = re.compile(r"@param\s+((?:[^\s*<]|<[^<>]*(?:<[^<>]*>[^<>]*)*>)+)\s+&?(?:\.\.\.)?(\$[A-Za-z_]\w*)")
_SCALARS = frozenset(
    {"string", "int", "integer", "float", "double", "bool", "boolean", "array", "mixed", "callable", "iterable"}
    | {"object", "void", "null", "false", "true", "resource", "static", "self", "never", "list"}
)


def class_of(written: str) -> str | None:
    """The class a docblock type names: `\\Pkg\\Writer`, `?Writer`, `Writer|null` give `Writer`;
    `string`, `Writer[]`, `array<string, Writer>` and `A|B` give None."""
    parts = [p for p in written.lstrip("?").split("|") if p.lower() not in ("null", "false")]
    if len(parts) != 1 or not re.fullmatch(r"\\?[A-Za-z_]\w*(?:\\[A-Za-z_]\w*)*", parts[0]):
        return None
    last = parts[0].rsplit("\\", 1)[-1]
    return None if last.lower() in _SCALARS else last


_ELEMENTS = re.compile(
    r"\??(?:(?P<bare>\\?[A-Za-z_][\w\\]*)\[\]"
    r"|(?:array|list|iterable|non-empty-array|non-empty-list|\\?Traversable|\\?Iterator|\\?Generator)"
    r"<(?:[^<>,]+,\s*)?(?P<generic>[^<>,]+)>)(?:\|null)?"
)


def element_class(written: str) -> str | None:
    """The class of what a docblock's array type holds: `Writer[]`, `array<string, Writer>`,
    `list<\\Pkg\\Writer>`, `iterable<Writer>|null` give `Writer`; `string[]` and `Writer` give None."""
    found = _ELEMENTS.fullmatch(written.strip())
    if found is None:
        return None
    return class_of((found.group("bare") or found.group("generic")).strip())


def typed(written: str) -> str | None:
    """A docblock type as a binding: the class it names, or `[]Class` for an array of that class
    (a `foreach` over it binds its value to the class)."""
    cls = class_of(written)
    if cls is not None:
        return cls
    element = element_class(written)
    return "[]" + element if element is not None else None


def docblock_bindings(root: Any) -> Iterator[tuple[str, Any, str]]:
    """`(variable, node, class)` for each property or untyped parameter a docblock types."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("declaration_list", "program", "compound_statement", "namespace_definition"):
            stack.extend(node.named_children)
        elif node.type in ("class_declaration", "trait_declaration", "interface_declaration", "enum_declaration"):
            body = node.child_by_field_name("body")
            if body is not None:
                stack.append(body)
        if node.type not in ("property_declaration", "method_declaration", "function_definition"):
            continue
        doc = node.prev_named_sibling
        if doc is None or doc.type != "comment" or not doc.text.startswith(b"/**"):
            continue
        text = doc.text.decode("utf-8", "replace")
        if node.type == "property_declaration":
            is_typed = any(c.type in ("named_type", "optional_type", "union_type") for c in node.children)
            found = _VAR.search(text)
            if not is_typed and found and (cls := typed(found.group(1))):
                for element in (c for c in node.named_children if c.type == "property_element"):
                    name = element.child_by_field_name("name") or element.named_children[0]
                    yield name.text.decode().lstrip("$"), element, cls
            continue
        params = node.child_by_field_name("parameters")
        untyped, arrays = {}, {}  # `$reader`, and `array $readers` whose docblock says what it holds
        for p in params.named_children if params is not None else ():
            name, written = p.child_by_field_name("name"), p.child_by_field_name("type")
            if p.type != "simple_parameter" or name is None:
                continue
            if written is None:
                untyped[name.text.decode()] = p
            elif written.text.decode().lstrip("?").lower() in ("array", "iterable"):
                arrays[name.text.decode()] = p
        for written, variable in _PARAM.findall(text):
            if variable in untyped and (cls := typed(written)):
                yield variable, untyped[variable], cls
            elif variable in arrays and (element := element_class(written)):
                yield variable, arrays[variable], "[]" + element


_FOREACH = """
(foreach_statement . (_) @iterated . [(variable_name) @value (pair (_) (variable_name) @value)]) @loop
"""


def foreach_values(root: Any, language: Any) -> Iterator[tuple[str, Any, Any]]:
    """`(value variable, loop, iterated expression)` for each `foreach ($xs as $x)` or `as $k => $x`."""
    from tree_sitter import QueryCursor

    for _pattern, captures in QueryCursor(_assigned_query(language, _FOREACH)).matches(root):
        yield captures["value"][0].text.decode("utf-8", "replace"), captures["value"][0], captures["iterated"][0]


_ASSIGNED = """
(assignment_expression
  left: (member_access_expression object: (variable_name (name) @this) name: (name) @field)
  right: (variable_name) @value
  (#eq? @this "this")) @assignment
"""


def assigned_fields(
    root: Any, language: Any, type_of: Callable[[str, Any], str | None]
) -> Iterator[tuple[str, Any, str]]:
    """`(field, node, class)` for each `$this->field = $variable;` whose variable `type_of` knows
    (a typed parameter, in the scope of the assignment)."""
    from tree_sitter import QueryCursor

    for _pattern, captures in QueryCursor(_assigned_query(language)).matches(root):
        value = captures["value"][0]
        cls = type_of(value.text.decode("utf-8", "replace"), value)
        if cls is not None:
            yield captures["field"][0].text.decode("utf-8", "replace"), captures["assignment"][0], cls


_INSTANCEOF = """
(if_statement
  condition: (parenthesized_expression
    (binary_expression left: (variable_name) @var operator: "instanceof" right: [(name) (qualified_name)] @class))
  body: (_) @body)
"""


def narrowed(root: Any, language: Any) -> Iterator[tuple[str, Any, str]]:
    """`(variable, branch body, class)` for each `if ($x instanceof Item) { ... }`: inside the branch
    `$x` is an `Item`."""
    from tree_sitter import QueryCursor

    for _pattern, captures in QueryCursor(_assigned_query(language, _INSTANCEOF)).matches(root):
        cls = captures["class"][0].text.decode("utf-8", "replace").rsplit("\\", 1)[-1]
        yield captures["var"][0].text.decode("utf-8", "replace"), captures["body"][0], cls


_INLINE_VAR = re.compile(r"@var\s+((?:[^\s*<]|<[^<>]*(?:<[^<>]*>[^<>]*)*>)+)\s+(\$[A-Za-z_]\w*)")


def inline_vars(root: Any, language: Any) -> Iterator[tuple[str, Any, str]]:
    """`(variable, statement, class)` for each `/** @var Fields $fields */` in a function body: from
    the end of the statement after it (`$fields = $this->build();`), `$fields` is a `Fields`, whatever
    the call returns."""
    from tree_sitter import QueryCursor

    for _pattern, captures in QueryCursor(_assigned_query(language, "(compound_statement (comment) @doc)")).matches(
        root
    ):
        doc = captures["doc"][0]
        text = doc.text.decode("utf-8", "replace")
        statement = doc.next_named_sibling
        if not text.startswith("/**") or statement is None:
            continue
        for written, variable in _INLINE_VAR.findall(text):
            if (cls := typed(written)) is not None:
                yield variable, statement, cls


_ASSIGNED_CALL = """
(assignment_expression
  left: (variable_name) @var
  right: [(member_call_expression) (scoped_call_expression) (nullsafe_member_call_expression)] @call) @assignment
"""


def assigned_calls(root: Any, language: Any) -> Iterator[tuple[str, Any, Any]]:
    """`(variable, assignment, call)` for each `$d = Dotenv::create(...)`, `$r = $this->make()`."""
    from tree_sitter import QueryCursor

    for _pattern, captures in QueryCursor(_assigned_query(language, _ASSIGNED_CALL)).matches(root):
        yield captures["var"][0].text.decode("utf-8", "replace"), captures["assignment"][0], captures["call"][0]


@functools.cache
def _assigned_query(language: Any, source: str = _ASSIGNED) -> Any:
    from tree_sitter import Query

    return Query(language, source)


_CALLS = frozenset({"member_call_expression", "scoped_call_expression", "nullsafe_member_call_expression"})
_SELF_SCOPES = frozenset({"self", "static", "$this"})


def call_chain(node: Any, receiver_of: Callable[[Any], str]) -> str | None:
    """The receiver a call's result is, `()Class.method[.method...]`, for a call on a class, on
    `$this`, or on a variable of known class; None when where the chain starts is unknown."""
    if node.type not in _CALLS:
        return None
    base = node.child_by_field_name("scope" if node.type == "scoped_call_expression" else "object")
    name = node.child_by_field_name("name")
    if base is None or name is None or name.type != "name":
        return None
    if base.type in _CALLS:
        inner = call_chain(base, receiver_of)
        return f"{inner}.{name.text.decode()}" if inner is not None else None
    text = base.text.decode("utf-8", "replace")
    if text in _SELF_SCOPES:
        start = "self"
    elif node.type == "scoped_call_expression" and base.type in ("name", "qualified_name"):
        start = text.rsplit("\\", 1)[-1]  # `Dotenv::create()`, `\\Pkg\\Dotenv::create()`
    else:
        start = receiver_of(base)  # `$repo->get()`: the variable's class; `$this->writer->write()`: the field's
        if start.startswith("()"):
            return f"{start}.{name.text.decode()}"
        if not start or start.startswith(("?", "=")):
            return None
    return f"(){start}.{name.text.decode()}"


def docblock_return(node: Any) -> str | None:
    """A PHP function's docblock `@return` type, when its code declares none."""
    if node.type not in ("method_declaration", "function_definition"):
        return None
    declared = node.child_by_field_name("return_type")
    if declared is not None and declared.text.decode().lstrip("?").lower() not in ("array", "iterable"):
        return None  # an `array` return keeps what its docblock says it holds
    doc = node.prev_named_sibling
    if doc is None or doc.type != "comment" or not doc.text.startswith(b"/**"):
        return None
    found = _RETURN.search(doc.text.decode("utf-8", "replace"))
    return found.group(1) if found else None


_RETURN = re.compile(r"@return\s+((?:[^\s*<]|<[^<>]*(?:<[^<>]*>[^<>]*)*>)+)")
_DECLARED_RETURN = re.compile(r"\)\s*:\s*\??\s*(\\?[A-Za-z_][\w\\]*)\s*(?:/\*\*\s*@return\s+.+?\s*\*/)?$")
_DOC_RETURN = re.compile(r"/\*\*\s*@return\s+(.+?)\s*\*/$")


def return_class(signature: str, owner: str) -> str | None:
    """The class a method of `owner` returns, from its signature: the declared type, or the
    docblock's kept there (`doc_text.signature`); `static`, `self` and `$this` are `owner`."""
    found = _DECLARED_RETURN.search(signature) or _DOC_RETURN.search(signature)
    if found is None:
        return None
    written = found.group(1)
    if written.lstrip("?\\").lower() in ("static", "self", "$this"):
        return owner
    return class_of(written)


def returned_type(signature: str, owner: str) -> str | None:
    """`return_class`, or `[]Class` when the method returns an array of a class: a declared `array`
    whose docblock says `Item[]` or `array<int, Item>` (kept in the signature as `/** @return ... */`)."""
    cls = return_class(signature, owner)
    if cls is not None:
        return cls
    found = _DOC_RETURN.search(signature)
    element = element_class(found.group(1)) if found else None
    return _ARRAY + element if element is not None else None


_ARRAY = "[]"
