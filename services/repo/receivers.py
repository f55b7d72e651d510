"""What the receiver of `x.member` can be, in Python and JavaScript/TypeScript, from one file.

The parser stores each call's or member read's receiver as a short word the resolver reads
(`parsing._receiver`). For these languages this module adds what a type checker would see cheaply
in the same file:

- `super()` / `super`: the enclosing class's bases, never the class itself (`super`);
- `self.headers` / `this.store`: the type the class declares for that attribute (a class-body
  annotation, a dataclass or pydantic field, `self.x: T = ...`, `self.x = T(...)`, a TypeScript
  field or parameter property), else an expression of unknown type;
- a dotted name (`urllib.parse`, `self.meta`, `event.reply.meta`): kept whole as `?a.b.c`, so the
  resolver can tell a module path (inside or outside the repository) from an object's attribute.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = ["LANGUAGES", "MemberTypes", "plain_type", "receiver_of", "registration_keys"]

LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx"})
_CLASS_NODES = frozenset({"class_definition", "class_declaration", "class", "abstract_class_declaration"})
_SELF = frozenset({"self", "cls", "this"})
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)+")
# Wrappers that say nothing about what the value is (`Optional[X]` is an X or None).
_TRANSPARENT = frozenset({"Optional", "Final", "ClassVar", "Annotated", "Required", "NotRequired", "ReadOnly"})

_MEMBER_QUERIES = {
    "python": """
(class_definition body: (block (expression_statement (assignment left: (identifier) @var type: (type) @type))))
(assignment left: (attribute object: (identifier) @obj attribute: (identifier) @var) type: (type) @type)
(assignment left: (attribute object: (identifier) @obj attribute: (identifier) @var)
  right: (call function: [(identifier) (attribute)] @ctor))
(assignment left: (attribute object: (identifier) @obj attribute: (identifier) @var) right: (identifier) @value)
""",
    "javascript": """
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @var)
  right: (new_expression constructor: [(identifier) (member_expression)] @ctor))
""",
    "typescript": """
(public_field_definition name: (property_identifier) @var type: (type_annotation (_) @type))
(required_parameter (accessibility_modifier) pattern: (identifier) @var type: (type_annotation (_) @type))
(optional_parameter (accessibility_modifier) pattern: (identifier) @var type: (type_annotation (_) @type))
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @var)
  right: (new_expression constructor: [(identifier) (member_expression)] @ctor))
(assignment_expression left: (member_expression object: (this) property: (property_identifier) @var)
  right: (identifier) @value)
""",
}
_MEMBER_QUERIES["tsx"] = _MEMBER_QUERIES["typescript"]


def plain_type(text: str) -> str | None:
    """The class an annotation names, when it names one: `Headers`, `"Headers"`, `Optional[Headers]`,
    `Headers | None`, `models.Headers` give `Headers`; `list[int]` gives `list` (a list's members are
    the list's); a union of two classes gives None."""
    text = text.strip().strip("\"'").strip()
    while True:
        match = re.fullmatch(r"([\w.]+)\s*\[(.*)\]", text, re.S)
        if match is None or match.group(1).rsplit(".", 1)[-1] not in _TRANSPARENT:
            break
        text = match.group(2).split(",", 1)[0].strip()
    parts = [p.strip() for p in re.split(r"\|", text) if p.strip() not in ("None", "null", "undefined", "")]
    if len(parts) != 1:
        return None
    head = re.match(r"[A-Za-z_$][\w$.]*", parts[0])
    return head.group(0).rsplit(".", 1)[-1] if head else None


class MemberTypes:
    """The declared types of one file's class attributes, by the class node that declares them."""

    def __init__(self, language: str, root: Any, grammar: Any) -> None:
        self.types: dict[tuple[int, str], str] = {}
        if language not in _MEMBER_QUERIES:
            return
        from tree_sitter import QueryCursor

        for _pattern, captures in QueryCursor(_query(language, grammar)).matches(root):
            var = captures["var"][0]
            obj = captures.get("obj")
            if obj is not None and _text(obj[0]) not in _SELF:
                continue
            cls = enclosing_class(var)
            if cls is None:
                continue
            if "value" in captures:  # `self.meta = meta`, `this.store = store`: the parameter's annotation
                found = _parameter_type(captures["value"][0])
            else:
                written = captures["type"][0] if "type" in captures else captures["ctor"][0]
                found = plain_type(_text(written))
            if found:
                self.types.setdefault((cls.start_byte, _text(var)), found)

    def of(self, node: Any, attribute: str) -> str | None:
        cls = enclosing_class(node)
        return self.types.get((cls.start_byte, attribute)) if cls is not None else None


def receiver_of(node: Any, members: MemberTypes) -> str | None:
    """The receiver word for `node` (a call's or member read's object), or None to leave it to the
    parser's general rules (a bare name, `self`, a constructed or annotated variable)."""
    text = _text(node)
    if text == "super" or (node.type == "call" and text.replace(" ", "").startswith("super(")):
        return "super"
    if node.type in ("attribute", "member_expression"):
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("attribute") or node.child_by_field_name("property")
        if obj is not None and prop is not None and _text(obj) in _SELF:
            declared = members.of(node, _text(prop))
            if declared:
                return declared
        if _DOTTED.fullmatch(text):
            return "?" + re.sub(r"\s+", "", text)
    return None


_FUNCTIONS = frozenset({"function_definition", "method_definition", "function_declaration", "arrow_function"})
_PARAMETERS = frozenset({"typed_parameter", "typed_default_parameter", "required_parameter", "optional_parameter"})


def _parameter_type(value: Any) -> str | None:
    """The annotated class of the parameter `value` names, in the function it sits in."""
    current = value.parent
    while current is not None and current.type not in _FUNCTIONS:
        current = current.parent
    params = current.child_by_field_name("parameters") if current is not None else None
    if params is None:
        return None
    name = _text(value)
    for param in params.named_children:
        if param.type not in _PARAMETERS:
            continue
        declared = param.child_by_field_name("type")
        named = param.child_by_field_name("pattern") or param.child_by_field_name("name")
        if named is None and param.named_child_count:
            named = param.named_child(0)
        if declared is not None and named is not None and _text(named) == name:
            return plain_type(_text(declared).lstrip(":").strip())
    return None


def enclosing_class(node: Any) -> Any:
    current = node.parent
    while current is not None:
        if current.type in _CLASS_NODES:
            return current
        current = current.parent
    return None


# Calls whose first string argument names something the program looks up by that string later:
# options, routes, commands, handlers, plugins, events.
_REGISTRARS = frozenset(
    {
        "add_option",
        "add_argument",
        "add_command",
        "add_url_rule",
        "add_route",
        "add_api_route",
        "add_listener",
        "register",
        "register_command",
        "register_plugin",
        "register_handler",
        "route",
        "command",
        "define",
        "option",
        "on",
        "once",
        "addEventListener",
        "subscribe",
        "get",
        "post",
        "put",
        "patch",
        "delete",
        "websocket",
        "task",
        "fixture",
        "setting",
    }
)
_METHODS_ON_OBJECTS_ONLY = frozenset({"get", "post", "put", "patch", "delete", "on", "once", "option", "task"})
_KEY = re.compile(r"[A-Za-z_/.:\-][\w/.:\-{}<>]{0,80}")


def registration_keys(language: str, call: Any) -> list[tuple[str, int]]:
    """`(key, line)` for the string a registration call registers (`add_option("max_conns")`,
    `@app.route("/x")`, `register("name")`, `program.command("serve")`), from a call node."""
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or not arguments.named_child_count:
        return []
    if function.type in ("attribute", "member_expression"):
        name_node = function.child_by_field_name("attribute") or function.child_by_field_name("property")
        on_object = True
    else:
        name_node, on_object = function, False
    if name_node is None:
        return []
    name = _text(name_node)
    if name not in _REGISTRARS or (name in _METHODS_ON_OBJECTS_ONLY and not on_object):
        return []
    first = arguments.named_child(0)
    if first.type not in ("string", "template_string"):
        return []
    if name == "get" and language == "python":  # `d.get("key")` reads a mapping; a route is `@app.get("/x")`
        parent = call.parent
        if parent is None or parent.type != "decorator":
            return []
    value = _text(first).strip()
    value = re.sub(r"^[rRbBuUfF]*", "", value).strip("\"'`")
    if not value or not _KEY.fullmatch(value):
        return []
    return [(value, first.start_point[0] + 1)]


@functools.cache
def _query(language: str, grammar: Any) -> Any:
    from tree_sitter import Query

    return Query(grammar, _MEMBER_QUERIES[language])


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")
