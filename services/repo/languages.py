"""Languages served by `tree-sitter-language-pack`'s bundled grammars: C, C++, C#, Ruby, PHP,
Kotlin, Swift, Scala, Bash and Lua.

The pack ships compiled grammars but no `tags.scm`, so each language's whole query is here:
definitions (`@definition.<kind>` with `@name`), imports (`@import`, with `@source` and `@fn`
where the import is a call), and the reference context of `services.repo.grammars`. The six
languages with their own wheels (Python, JavaScript, TypeScript, Go, Rust, Java) keep them.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "CLASS_KINDS",
    "EXTENSIONS",
    "IDENTIFIERS",
    "NAME_OWNERS",
    "PACK_LANGUAGES",
    "QUERIES",
    "definition_names",
    "import_rows",
    "shebang_language",
]

EXTENSIONS = {
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".inl": "cpp",  # the inline members a header includes (`json_valueiterator.inl`)
    ".ipp": "cpp",
    ".tpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".podspec": "ruby",
    ".ru": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".sh": "bash",
    ".bash": "bash",
    ".bats": "bash",
    ".lua": "lua",
}
PACK_LANGUAGES = frozenset(EXTENSIONS.values())
# Ruby files known by name: Bundler's, Rake's, Rack's and their kin carry no extension.
NAMES = dict.fromkeys(
    ("gemfile", "rakefile", "guardfile", "podfile", "vagrantfile", "brewfile", "capfile", "fastfile", "appfile"),
    "ruby",
)
# `#!/usr/bin/env ruby`, `#!/bin/sh -e`: the interpreter a shebang names -> its language.
_SHEBANG = re.compile(rb"^#![ \t]*(?:/\S*/)?(?:env[ \t]+(?:-\S+[ \t]+)*)?([A-Za-z]+)")
_INTERPRETERS = {
    b"sh": "bash",
    b"bash": "bash",
    b"dash": "bash",
    b"ksh": "bash",
    b"bats": "bash",
    b"ruby": "ruby",
    b"php": "php",
    b"lua": "lua",
    b"luajit": "lua",
    b"python": "python",
    b"node": "javascript",
}


# A `.h` header written in C++: a class, namespace or template at a line's start, or an access label.
_CPP_HEADER = re.compile(
    rb"^[ \t]*(?:class[ \t]+\w+[ \t]*(?:final[ \t]*)?[:{]|class[ \t]+\w+[ \t]+\w+|namespace\b[^;\n]*\{?$"
    rb"|template[ \t]*<|using[ \t]+namespace\b|(?:public|private|protected)[ \t]*:)",
    re.M,
)


def header_language(data: bytes) -> str:
    """`cpp` for a `.h` header whose code is C++, else `c`."""
    return "cpp" if _CPP_HEADER.search(data) else "c"


def shebang_language(data: bytes) -> str | None:
    """The language of a script by its first line's interpreter (`python3`, `lua5.4` included), or None."""
    if not data.startswith(b"#!"):
        return None
    found = _SHEBANG.match(data[:200])
    return _INTERPRETERS.get(found.group(1).lower()) if found else None


# Declaration kinds that own members, in every language: a method's parent, a class's bases.
CLASS_KINDS = frozenset(
    {"class", "interface", "module", "type", "struct", "enum", "object", "trait", "protocol", "extension", "record"}
)

IDENTIFIERS = {
    "c": ("identifier", "field_identifier", "type_identifier"),
    "cpp": ("identifier", "field_identifier", "type_identifier", "namespace_identifier"),
    "csharp": ("identifier",),
    "ruby": ("identifier", "constant"),
    "php": ("name",),
    "kotlin": ("simple_identifier", "type_identifier"),
    "swift": ("simple_identifier", "type_identifier"),
    "scala": ("identifier", "type_identifier"),
    "bash": ("command_name",),
    "lua": ("identifier",),
}

# A definition whose name sits in one of these nodes belongs to the node's owner field:
# `void Store::save()` to `Store`, `function M.add()` and `function M:run()` to `M`.
NAME_OWNERS = {"qualified_identifier": "scope", "dot_index_expression": "table", "method_index_expression": "table"}

# File-scope variables: a declaration whose declarator is a plain, array or pointer name, directly in
# the file or in a preprocessor conditional or namespace there (never a function body's locals).
_C_DECLARATOR = """
    (identifier) @name
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: [
      (identifier) @name
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (identifier) @name)])"""
_C_GLOBALS = "".join(
    f"({parent} (declaration declarator: [{_C_DECLARATOR} (init_declarator declarator: [{_C_DECLARATOR}])])"
    " @definition.variable)\n"
    for parent in (
        "translation_unit",
        "preproc_ifdef",
        "preproc_if",
        "preproc_else",
        "preproc_elif",
        "declaration_list",
    )
)

_C_COMMON = (
    """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator
  declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  @definition.function
(declaration declarator: (pointer_declarator declarator: (pointer_declarator
  declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_member
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration
  declarator: (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name)))
  @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name)))
  @definition.field
(field_declaration declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name))))) @definition.field
(type_definition declarator: (type_identifier) @name) @definition.type
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (array_declarator declarator: (type_identifier) @name)) @definition.type
(type_definition declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type
(type_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))))) @definition.type
(type_definition declarator: (function_declarator declarator: (type_identifier) @name)) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
(preproc_include path: (_) @source) @import
(call_expression function: (identifier) @call)
(call_expression function: (field_expression argument: (_) @recv field: (field_identifier) @call))
(field_expression argument: (_) @recv field: (field_identifier) @attr)
(declaration type: (type_identifier) @bind.type declarator: (identifier) @bind.var)
(declaration type: (type_identifier) @bind.type declarator: (init_declarator declarator: (identifier) @bind.var))
(parameter_declaration type: (type_identifier) @bind.type declarator: (identifier) @bind.var)
(parameter_declaration type: (type_identifier) @bind.type
  declarator: (pointer_declarator declarator: (identifier) @bind.var))
"""
    + _C_GLOBALS
)


def _cpp_functions() -> str:
    """Functions, methods, constructors, destructors and operators, defined or declared, returning
    values, pointers or references, with plain or qualified names (`Arena::Allocate`, `~Arena`)."""
    leaf = "[(identifier) (destructor_name) (operator_name)] @name"
    qualified = []
    for _ in range(4):  # `a::b::sink<M>::flush`: one qualified_identifier per `::`
        leaf = f"(qualified_identifier name: {leaf})"
        qualified.append(leaf)
    plain = "(identifier) @name (field_identifier) @name (destructor_name) @name (operator_name) @name"
    names = f"[{plain} {' '.join(qualified)}]"
    function = f"(function_declarator declarator: {names})"
    shapes = [function]
    for _ in range(2):  # `char* f()`, `const T& f()`, `T** f()`
        shapes = [*shapes, *(f"(pointer_declarator declarator: {s})" for s in shapes)]
        shapes = list(dict.fromkeys([*shapes, *(f"(reference_declarator {s})" for s in shapes)]))
    return "".join(
        f"({outer} declarator: {shape}) @definition.function\n"
        for outer in ("function_definition", "declaration", "field_declaration")
        for shape in shapes
    )


def _cpp_held_bindings() -> str:
    """Locals whose class a smart pointer or a construction says: `std::unique_ptr<db::Cache> held(...)`,
    `const std::shared_ptr<Cache>& p`, `auto p = std::make_unique<Cache>(...)`, `auto p = new Cache(...)`."""
    cls = "[(type_identifier) @bind.type (qualified_identifier name: (type_identifier) @bind.type)]"
    held = f"(template_argument_list . (type_descriptor type: {cls}))"
    ptr = (
        f"[(template_type name: (type_identifier) @_ptr arguments: {held})"
        f" (qualified_identifier name: (template_type name: (type_identifier) @_ptr arguments: {held}))]"
    )
    make = (
        f"[(template_function name: (identifier) @_make arguments: {held})"
        f" (qualified_identifier name: (template_function name: (identifier) @_make arguments: {held}))]"
    )
    var = "[(identifier) @bind.var (pointer_declarator declarator: (identifier) @bind.var)]"
    pointers = '(#match? @_ptr "^(unique_ptr|shared_ptr|weak_ptr|scoped_ptr)$")'
    return f"""
(declaration type: {ptr}
  declarator: [(identifier) @bind.var (init_declarator declarator: (identifier) @bind.var)] {pointers})
(parameter_declaration type: {ptr}
  declarator: [(identifier) @bind.var (reference_declarator (identifier) @bind.var)] {pointers})
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator declarator: {var} value: (call_expression function: {make}))
  (#match? @_make "^make_(unique|shared)$"))
(declaration type: (placeholder_type_specifier)
  declarator: (init_declarator declarator: {var} value: (new_expression type: {cls})))
"""


_CPP = (
    _C_COMMON
    + _cpp_functions()
    + """
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name)))
  @definition.method
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (_)) @definition.struct
(struct_specifier name: (qualified_identifier name: (type_identifier) @name) body: (_)) @definition.struct
(struct_specifier name: (qualified_identifier name: (template_type name: (type_identifier) @name)) body: (_))
  @definition.struct
(namespace_alias_definition name: (namespace_identifier) @name) @definition.namespace
(namespace_definition name: (namespace_identifier) @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type
(field_declaration declarator: (reference_declarator (field_identifier) @name)) @definition.field
(base_class_clause) @ctx.inherits
; `Features::Features() = default;` out of its class, which the grammar reads as an assignment
(expression_statement (assignment_expression
  left: (call_expression function: (qualified_identifier name: [(identifier) (destructor_name)] @name)
    arguments: (argument_list))
  right: (identifier) @_defaulted (#match? @_defaulted "^(default|delete)$"))) @definition.method
(call_expression function: (qualified_identifier scope: (_) @recv name: (identifier) @call))
(qualified_identifier scope: (_) @recv name: (identifier) @attr)
(parameter_declaration type: (type_identifier) @bind.type declarator: (reference_declarator (identifier) @bind.var))
(declaration type: (type_identifier) @bind.type declarator: (pointer_declarator declarator: (identifier) @bind.var))
(declaration type: (type_identifier) @bind.type
  declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @bind.var)))
(declaration type: (type_identifier) @bind.type
  declarator: (init_declarator declarator: (reference_declarator (identifier) @bind.var)))
; `const Json::Value& value`, `leveldb::Status s = ...`: a class named with its namespace
(parameter_declaration
  type: [(qualified_identifier name: (type_identifier) @bind.type)
        (qualified_identifier name: (qualified_identifier name: (type_identifier) @bind.type))]
  declarator: [(identifier) @bind.var (reference_declarator (identifier) @bind.var)
        (pointer_declarator declarator: (identifier) @bind.var)])
(declaration
  type: [(qualified_identifier name: (type_identifier) @bind.type)
        (qualified_identifier name: (qualified_identifier name: (type_identifier) @bind.type))]
  declarator: [(identifier) @bind.var (reference_declarator (identifier) @bind.var)
        (pointer_declarator declarator: (identifier) @bind.var)])
(declaration
  type: [(qualified_identifier name: (type_identifier) @bind.type)
        (qualified_identifier name: (qualified_identifier name: (type_identifier) @bind.type))]
  declarator: (init_declarator declarator: [(identifier) @bind.var (reference_declarator (identifier) @bind.var)
        (pointer_declarator declarator: (identifier) @bind.var)]))
"""
    + _cpp_held_bindings()
)


_CSHARP = """
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(enum_member_declaration name: (identifier) @name) @definition.enum_member
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name) @definition.field))
(struct_declaration name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(using_directive) @import
(attribute_list) @ctx.decorator
(base_list) @ctx.inherits
(parameter type: (_) @ctx.type)
(variable_declaration type: (_) @ctx.type)
(method_declaration returns: (_) @ctx.type)
(property_declaration type: (_) @ctx.type)
(type_argument_list) @ctx.type
(invocation_expression function: (identifier) @call)
(invocation_expression function: (member_access_expression expression: (_) @recv name: (identifier) @call))
(object_creation_expression type: (identifier) @call)
(member_access_expression expression: (_) @recv name: (identifier) @attr)
(parameter type: (identifier) @bind.type name: (identifier) @bind.var)
(variable_declaration type: (identifier) @bind.type (variable_declarator name: (identifier) @bind.var))
(variable_declarator name: (identifier) @bind.var (object_creation_expression type: (identifier) @bind.type))
"""

_RUBY = """
(class name: (constant) @name) @definition.class
(class name: (scope_resolution name: (_) @name)) @definition.class
(module name: (constant) @name) @definition.module
(module name: (scope_resolution name: (_) @name)) @definition.module
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant
(assignment left: (left_assignment_list (constant) @name)) @definition.constant
(call method: (identifier) @_attr arguments: (argument_list [(simple_symbol) @name (string (string_content) @name)])
  (#match? @_attr "^attr_(reader|writer|accessor)$")) @definition.property
(alias name: (_) @name) @definition.method
(call method: (identifier) @_alias
  arguments: (argument_list . [(simple_symbol) @name (string (string_content) @name)])
  (#eq? @_alias "alias_method")) @definition.method
(call method: (identifier) @fn arguments: (argument_list . (string) @source)) @import
(superclass) @ctx.inherits
(call method: (identifier) @_mixin arguments: (argument_list) @ctx.inherits
  (#match? @_mixin "^(include|extend|prepend)$"))
(call receiver: (_) @recv method: (identifier) @call)
(call method: (identifier) @call)
(assignment left: (identifier) @bind.var
  right: (call receiver: (constant) @bind.type method: (identifier) @_new (#eq? @_new "new")))
"""

_PHP = """
(class_declaration name: (name) @name) @definition.class
(anonymous_class "class" @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(enum_case name: (name) @name) @definition.enum_member
(property_element name: (variable_name (name) @name)) @definition.field
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(namespace_definition name: (namespace_name) @name) @definition.namespace
(const_element (name) @name) @definition.constant
(function_call_expression function: [(name) @_define (qualified_name (name) @_define)] (#eq? @_define "define")
  arguments: (arguments . (argument [(string (string_content) @name) (encapsed_string (string_content) @name)])))
  @definition.constant
(program (expression_statement (assignment_expression left: (variable_name (name) @name))) @definition.variable)
(namespace_use_clause) @import
(include_expression (string) @source) @import
(include_once_expression (string) @source) @import
(require_expression (string) @source) @import
(require_once_expression (string) @source) @import
(variable_name) @ctx.skip
(attribute_list) @ctx.decorator
(base_clause) @ctx.inherits
(class_interface_clause) @ctx.inherits
(use_declaration) @ctx.inherits
(named_type) @ctx.type
(function_call_expression function: (name) @call)
(member_call_expression object: (_) @recv name: (name) @call)
(scoped_call_expression scope: (_) @recv name: (name) @call)
(object_creation_expression (name) @call)
(member_access_expression object: (_) @recv name: (name) @attr)
(class_constant_access_expression (_) @recv (name) @attr)
(simple_parameter type: (named_type (name) @bind.type) name: (variable_name) @bind.var)
(assignment_expression left: (variable_name) @bind.var right: (object_creation_expression (name) @bind.type))
(property_declaration type: (named_type (name) @bind.type) (property_element name: (variable_name (name) @bind.var)))
(property_promotion_parameter type: (named_type (name) @bind.type) name: (variable_name (name) @bind.var))
"""

_KOTLIN = """
(class_declaration "interface" (type_identifier) @name) @definition.interface
(class_declaration "enum" (type_identifier) @name) @definition.enum
(enum_entry (simple_identifier) @name) @definition.enum_member
(class_body (property_declaration (variable_declaration (simple_identifier) @name)) @definition.field)
(class_parameter (binding_pattern_kind) (simple_identifier) @name) @definition.field
(class_declaration (type_identifier) @name) @definition.class
(object_declaration (type_identifier) @name) @definition.object
(companion_object "companion" @name) @definition.object
(source_file (property_declaration (variable_declaration (simple_identifier) @name)) @definition.variable)
(package_header (identifier) @name) @definition.namespace
(function_declaration (simple_identifier) @name) @definition.function
(type_alias (type_identifier) @name) @definition.type
(import_header (identifier) @source) @import
(delegation_specifier) @ctx.inherits
(annotation) @ctx.decorator
(user_type) @ctx.type
(call_expression (simple_identifier) @call)
(call_expression (navigation_expression . (_) @recv (navigation_suffix (simple_identifier) @call)))
(navigation_expression . (_) @recv (navigation_suffix (simple_identifier) @attr))
(parameter (simple_identifier) @bind.var (user_type (type_identifier) @bind.type))
(class_parameter (simple_identifier) @bind.var (user_type (type_identifier) @bind.type))
(property_declaration (variable_declaration (simple_identifier) @bind.var)
  (call_expression (simple_identifier) @bind.type))
"""

_SWIFT = """
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(enum_entry (simple_identifier) @name @definition.enum_member)
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(class_declaration name: (type_identifier) @name) @definition.class
(class_declaration name: (user_type (type_identifier) @name)) @definition.extension
(protocol_declaration name: (type_identifier) @name) @definition.protocol
(function_declaration name: (simple_identifier) @name) @definition.function
(function_declaration name: _ @name (#match? @name "^[^A-Za-z_]")) @definition.function
(init_declaration "init" @name) @definition.method
(deinit_declaration "deinit" @name) @definition.method
(subscript_declaration "subscript" @name) @definition.method
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(typealias_declaration name: (type_identifier) @name) @definition.type
(import_declaration (identifier) @source) @import
(inheritance_specifier) @ctx.inherits
(attribute) @ctx.decorator
(type_annotation) @ctx.type
(call_expression (simple_identifier) @call)
(call_expression
  (navigation_expression target: (_) @recv suffix: (navigation_suffix suffix: (simple_identifier) @call)))
(navigation_expression target: (_) @recv suffix: (navigation_suffix suffix: (simple_identifier) @attr))
(parameter name: (simple_identifier) @bind.var type: (user_type (type_identifier) @bind.type))
(property_declaration name: (pattern bound_identifier: (simple_identifier) @bind.var)
  value: (call_expression (simple_identifier) @bind.type))
"""

_SCALA = """
(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(object_definition name: (identifier) @name) @definition.object
(enum_definition name: (identifier) @name) @definition.enum
(simple_enum_case name: (identifier) @name) @definition.enum_member
(full_enum_case name: (identifier) @name) @definition.enum_member
(template_body (val_definition pattern: (identifier) @name) @definition.field)
(template_body (var_definition pattern: (identifier) @name) @definition.field)
(function_definition name: (identifier) @name) @definition.function
(function_declaration name: (identifier) @name) @definition.function
(type_definition name: (type_identifier) @name) @definition.type
(import_declaration) @import
(extends_clause) @ctx.inherits
(annotation) @ctx.decorator
(call_expression function: (identifier) @call)
(call_expression function: (field_expression value: (_) @recv field: (identifier) @call))
(instance_expression (type_identifier) @call)
(field_expression value: (_) @recv field: (identifier) @attr)
(parameter name: (identifier) @bind.var type: (type_identifier) @bind.type)
(class_parameter name: (identifier) @bind.var type: (type_identifier) @bind.type)
(val_definition pattern: (identifier) @bind.var value: (instance_expression (type_identifier) @bind.type))
"""

_BASH = """
(function_definition name: (word) @name) @definition.function
(command name: (command_name (word) @_alias (#eq? @_alias "alias"))
  argument: [(concatenation . (word) @name) (word) @name] (#match? @name "^[^-=][^=]*=")) @definition.alias
(command name: (command_name (word) @fn) . argument: (_) @source) @import
(command_name) @call
"""

_LUA = """
(function_declaration name: (identifier) @name) @definition.function
(function_declaration name: (dot_index_expression field: (identifier) @name)) @definition.function
(function_declaration name: (method_index_expression method: (identifier) @name)) @definition.method
(assignment_statement (variable_list . (identifier) @name) (expression_list . (function_definition)))
  @definition.function
(assignment_statement (variable_list . (dot_index_expression field: (identifier) @name))
  (expression_list . (function_definition))) @definition.function
(field name: (identifier) @name value: (function_definition)) @definition.function
(function_call name: (identifier) @fn arguments: (arguments . (string content: (string_content) @source))) @import
(function_call name: (identifier) @call)
(function_call name: (dot_index_expression table: (_) @recv field: (identifier) @call))
(function_call name: (method_index_expression table: (_) @recv method: (identifier) @call))
(dot_index_expression table: (_) @recv field: (identifier) @attr)
"""

QUERIES = {
    "c": _C_COMMON,
    "cpp": _CPP,
    "csharp": _CSHARP,
    "ruby": _RUBY,
    "php": _PHP,
    "kotlin": _KOTLIN,
    "swift": _SWIFT,
    "scala": _SCALA,
    "bash": _BASH,
    "lua": _LUA,
}

_IMPORT_CALLS = {
    "ruby": {"require", "require_relative", "load"},
    "bash": {"source", "."},
    "lua": {"require", "dofile"},
}


def definition_names(node: Any, name: str) -> tuple[str, ...]:
    """The names a definition defines as its language spells them, where the captured node is not the
    name itself: Ruby's `attr_reader :id` defines `id`, `attr_writer :id` defines `id=`,
    `attr_accessor :id` both, `alias_method :<<` defines `<<`; Kotlin's unnamed companion object is
    `Companion`; PHP's anonymous class is `class@anonymous`; Bash's `alias ll='ls -l'` defines `ll`."""
    if node.type == "call":
        name = name.removeprefix(":")
        method = node.child_by_field_name("method")
        called = _text(method) if method is not None else ""
        if called == "attr_writer":
            return (name + "=",)
        if called == "attr_accessor":
            return (name, name + "=")
        return (name,)
    if node.type == "companion_object":
        named = next((c for c in node.named_children if c.type == "type_identifier"), None)
        return (_text(named) if named is not None else "Companion",)
    if node.type == "anonymous_class":
        return ("class@anonymous",)
    if node.type == "command":  # Bash `alias ll='ls -l'` defines `ll`
        return (name.split("=", 1)[0],)
    return (name,)


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def import_rows(language: str, captures: dict[str, list[Any]]) -> list[tuple[str, str, int]]:
    """`(raw, names, line)` of one import match in a pack language; [] when it is not an import."""
    node = captures["import"][0]
    line = node.start_point[0] + 1
    if language in _IMPORT_CALLS:
        if _text(captures["fn"][0]) not in _IMPORT_CALLS[language]:
            return []
        raw = _text(captures["source"][0]).strip("\"'")
        if language == "ruby" and _text(captures["fn"][0]) == "require_relative" and not raw.startswith("."):
            raw = "./" + raw
        if not raw:
            return []
        stem = re.split(r"[./]", raw.rstrip("/").removesuffix(".rb").removesuffix(".lua").removesuffix(".sh"))[-1]
        return [(raw, stem, line)]
    if language in ("c", "cpp"):
        raw = _text(captures["source"][0])
        if raw.startswith("<"):
            return [(raw, "", line)]
        return [(raw.strip('"'), "", line)]
    if language == "csharp":
        named = [c for c in node.named_children if c.type in ("qualified_name", "identifier")]
        if not named:
            return []
        raw = _text(named[-1])
        return [(raw, raw.rsplit(".", 1)[-1], line)]
    if language == "php":
        if "source" in captures:
            return [(_text(captures["source"][0]).strip("\"'"), "", line)]
        names = [c for c in node.named_children if c.type in ("qualified_name", "name")]
        if not names:
            return []
        raw = _text(names[0]).lstrip("\\")
        alias = node.child_by_field_name("alias")
        return [(raw, _text(alias) if alias is not None else raw.rsplit("\\", 1)[-1], line)]
    if language in ("kotlin", "swift"):
        raw = _text(captures["source"][0])
        star = language == "kotlin" and _text(node).rstrip().endswith("*")
        return [(raw + (".*" if star else ""), raw.rsplit(".", 1)[-1], line)]
    if language == "scala":
        raw = _text(node).removeprefix("import").strip()
        raw = re.sub(r"\s+", "", raw).replace("._", ".*")
        base, _, group = raw.partition(".{")
        if group:
            names = [n.split("=>")[0] for n in group.rstrip("}").split(",")]
            return [(f"{base}.{n}", n, line) for n in names if n and n != "_"] or [(base + ".*", "", line)]
        return [(raw, raw.rsplit(".", 1)[-1], line)]
    return []
