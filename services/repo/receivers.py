"""What the receiver of `x.member` can be, in Python and JavaScript/TypeScript, from one file.

The parser stores each call's or member read's receiver as a short word the resolver reads
(`receiver_bindings.receiver`). For these languages this module adds what a type checker would see cheaply
in the same file:

- `super()` / `super`: the enclosing class's bases, never the class itself (`super`);
- `self.headers` / `this.store`: the type the class declares for that attribute (a class-body
  annotation, a dataclass or pydantic field, `self.x: T = ...`, `self.x = T(...)`, a TypeScript
  field or parameter property), else an expression of unknown type;
- a dotted name (`urllib.parse`, `self.meta`, `event.reply.meta`): kept whole as `?a.b.c`, so the
  resolver can tell a module path (inside or outside the repository) from an object's attribute;
- a JS/TS call chain (`db.selectFrom("t").where(...)`): `()<start>.<method>...`, where `<start>` is
  the receiver word of the chain's first object (`self`, a type, `?name`, or empty when unknown), so
  the resolver follows each method's declared return type (`services.repo.chains`); `make().m()`
  is `()make().m` (what the function `make` returns), `new Foo().m()` and `(x as Foo).m()` are `Foo`;
- a TS variable annotated with a generic type (`y: Builder<T>`) is a `Builder`, one bound to a
  member call (`const s = y.select()`) is that chain, and one typed by a type parameter
  (`x: T` in `f<T extends X>`) is an `X` (`constraint_of`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = [
    "CHAINS",
    "LANGUAGES",
    "MemberTypes",
    "call_chain",
    "constraint_of",
    "plain_type",
    "receiver_of",
    "redeclared",
    "registration_keys",
]

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
# Variables whose type a TS declaration gives beyond the grammar's own `bind` patterns (`parsing`):
# annotated with a generic type (`@bvar` with `@btype`), or bound to a call chain's value (`@bvalue`).
_TS_BINDINGS = """
(variable_declarator name: (identifier) @bvar type: (type_annotation (generic_type name: (type_identifier) @btype)))
(required_parameter pattern: (identifier) @bvar type: (type_annotation (generic_type name: (type_identifier) @btype)))
(optional_parameter pattern: (identifier) @bvar type: (type_annotation (generic_type name: (type_identifier) @btype)))
(public_field_definition name: (property_identifier) @bvar
  type: (type_annotation (generic_type name: (type_identifier) @btype)))
(variable_declarator name: (identifier) @bvar !type
  value: [(call_expression function: (member_expression)) (as_expression) (non_null_expression)] @bvalue)
"""
_MEMBER_QUERIES["typescript"] += _TS_BINDINGS
_MEMBER_QUERIES["tsx"] = _MEMBER_QUERIES["typescript"]
# Receiver nodes a JS/TS chain reads (`call_chain`); Python's calls are `call` nodes and stay `?`.
CHAINS = frozenset(
    {"call_expression", "new_expression", "non_null_expression", "parenthesized_expression", "as_expression"}
)
_WORD = re.compile(r"[A-Za-z_$][\w$]*")


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
        self.lexical = language in ("javascript", "typescript", "tsx")  # closures see enclosing bindings
        self.annotated: list[tuple[Any, str]] = []  # (variable node, generic type's name)
        self.values: list[tuple[Any, Any]] = []  # (variable node, the chain it is bound to)
        if language not in _MEMBER_QUERIES:
            return
        from tree_sitter import QueryCursor

        for _pattern, captures in QueryCursor(_query(language, grammar)).matches(root):
            if "bvar" in captures:
                if "btype" in captures:
                    self.annotated.append((captures["bvar"][0], _text(captures["btype"][0])))
                else:
                    self.values.append((captures["bvar"][0], captures["bvalue"][0]))
                continue
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


def call_chain(node: Any, receiver_of: Any) -> str | None:
    """The receiver word for a JS/TS receiver that is a call's value (see the module docstring);
    `receiver_of` gives the word of the chain's first object. None for any other node."""
    while node.type in ("non_null_expression", "parenthesized_expression") and node.named_child_count == 1:
        node = node.named_child(0)  # `a.b()!.c()`, `(a.b()).c()`
    if node.type == "as_expression" and node.named_child_count == 2:  # `(x as Foo).m()`; `as any` says nothing
        written = node.named_child(1)
        named = written.type in ("type_identifier", "generic_type", "nested_type_identifier")
        return (plain_type(_text(written)) or "?") if named else "?"
    if node.type == "new_expression":
        ctor = node.child_by_field_name("constructor")
        return _text(ctor) if ctor is not None and ctor.type == "identifier" else None
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    if function is None:
        return None
    if function.type == "identifier":  # `make().m()`: what `make` is declared to return
        arguments = node.child_by_field_name("arguments")
        tagged = arguments is not None and arguments.type == "template_string"  # sql`...`: a value's call
        return "?" if tagged else f"(){_text(function)}()"
    if function.type != "member_expression":
        return None
    obj, prop = function.child_by_field_name("object"), function.child_by_field_name("property")
    if obj is None or prop is None or prop.type != "property_identifier":
        return None
    start = receiver_of(obj)
    if start.startswith("()"):
        return f"{start}.{_text(prop)}"
    if start == "self" or _WORD.fullmatch(start.removeprefix("?")):
        return f"(){start}.{_text(prop)}"
    return f"().{_text(prop)}"  # a start of unknown type: the method's name alone may still tell


_JS_FUNCTIONS = frozenset(
    {"function_declaration", "function_expression", "arrow_function", "method_definition", "generator_function"}
)


def redeclared(at: Any, name: str, until: int) -> bool:
    """True when a function between `at` and the scope starting at byte `until` names a parameter
    `name` (`(x) => x.m()` inside `f(x: Foo)`): that `x` is the parameter's, not the outer binding's."""
    current = at.parent
    while current is not None and current.start_byte > until:
        if current.type in _JS_FUNCTIONS:
            params = current.child_by_field_name("parameters") or current.child_by_field_name("parameter")
            if params is not None and re.search(r"(?<![\w$.])" + re.escape(name) + r"(?![\w$])", _text(params)):
                return True
        current = current.parent
    return False


_GENERIC_OWNERS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "generator_function_declaration",
        "arrow_function",
        "method_definition",
        "method_signature",
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "interface_declaration",
        "type_alias_declaration",
    }
)


def constraint_of(var: Any, type_: str) -> str:
    """`type_` as the class its values have where `var` is declared: a type parameter of an enclosing
    declaration stands for its constraint (`x: T` in `f<T extends Builder>` is a `Builder`), or for
    any type (`?`) without one; any other name is itself."""
    current = var.parent
    while current is not None:
        if current.type in _GENERIC_OWNERS:
            params = current.child_by_field_name("type_parameters")
            for param in params.named_children if params is not None else ():
                name = param.child_by_field_name("name")
                if name is None or _text(name) != type_:
                    continue
                constraint = param.child_by_field_name("constraint")
                if constraint is None or constraint.named_child_count != 1:
                    return "?"
                bound = constraint.named_child(0)
                if bound.type not in ("type_identifier", "generic_type", "nested_type_identifier"):
                    return "?"  # `keyof X`, `X & Y`, a literal: no one class
                return plain_type(_text(bound)) or "?"
        current = current.parent
    return type_


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
