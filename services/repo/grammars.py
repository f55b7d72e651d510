"""Per-language tree-sitter patterns beyond the grammars' own `tags.scm`: what kind each reference is.

Captures, by role (`tree_queries.combined_query` reads each pattern's captures to know its role):

- `@definition.<kind>` with `@name`: a declaration the tags file misses (TypeScript `type`, `enum`,
  `namespace`; Java `enum` and `record`; constants; enum members; fields of classes and structs);
- `@ctx.<kind>`: a node whose identifiers are all references of that kind (`decorator`,
  `inherits` for base classes and implemented interfaces, `type` for annotations);
- `@call` (with `@recv`, the receiver, when there is one): the name a call invokes;
- `@attr` with `@recv`: a member read off an object, not called;
- `@bind.var` with `@bind.type`: a variable whose class is known in its scope (built by a
  constructor, or annotated), so `var.method()` narrows to that class's method.
"""

from __future__ import annotations

__all__ = ["EXTRA", "RECEIVER_SELF", "TYPE_NODES"]

# Receivers that mean "the enclosing class" in each language.
RECEIVER_SELF = frozenset({"self", "cls", "this", "super", "Self", "@", "$this", "static"})
# Identifier node types that name a type wherever they appear.
TYPE_NODES = frozenset({"type_identifier"})

_PYTHON = """
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
(type_alias_statement left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.type
(decorator) @ctx.decorator
(class_definition superclasses: (argument_list) @ctx.inherits)
(type) @ctx.type
(call function: (identifier) @call)
(call function: (attribute object: (_) @recv attribute: (identifier) @call))
(attribute object: (_) @recv attribute: (identifier) @attr)
(assignment left: (identifier) @bind.var right: (call function: (identifier) @bind.type))
(assignment left: (identifier) @bind.var type: (type (identifier) @bind.type))
(typed_parameter (identifier) @bind.var type: (type (identifier) @bind.type))
(typed_default_parameter name: (identifier) @bind.var type: (type (identifier) @bind.type))
"""

_JS_COMMON = """
(decorator) @ctx.decorator
(class_heritage) @ctx.inherits
(call_expression function: (identifier) @call)
(call_expression function: (member_expression object: (_) @recv property: (property_identifier) @call))
(new_expression constructor: (identifier) @call)
(member_expression object: (_) @recv property: (property_identifier) @attr)
(variable_declarator name: (identifier) @bind.var value: (new_expression constructor: (identifier) @bind.type))
"""

_JAVASCRIPT = (
    _JS_COMMON
    + """
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field
(variable_declarator name: (identifier) @bind.var value: (call_expression function: (identifier) @bind.type
  (#not-eq? @bind.type "require")))
"""
)

_TYPESCRIPT = (
    _JS_COMMON
    + """
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body (property_identifier) @name @definition.enum_member)
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field
(interface_body (property_signature name: (property_identifier) @name) @definition.field)
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.field))
(enum_body (enum_assignment name: (property_identifier) @name) @definition.enum_member)
(internal_module name: (_) @name) @definition.namespace
(extends_type_clause) @ctx.inherits
(type_annotation) @ctx.type
(type_arguments) @ctx.type
(variable_declarator name: (identifier) @bind.var type: (type_annotation (type_identifier) @bind.type))
(variable_declarator name: (identifier) @bind.var !type value: (call_expression function: (identifier) @bind.type
  (#not-eq? @bind.type "require")))
(required_parameter pattern: (identifier) @bind.var type: (type_annotation (type_identifier) @bind.type))
(optional_parameter pattern: (identifier) @bind.var type: (type_annotation (type_identifier) @bind.type))
(public_field_definition name: (property_identifier) @bind.var type: (type_annotation (type_identifier) @bind.type))
"""
)

_GO = """
(field_declaration name: (field_identifier) @name @definition.field)
(const_spec name: (identifier) @name) @definition.constant
(call_expression function: (identifier) @call)
(call_expression function: (selector_expression operand: (_) @recv field: (field_identifier) @call))
(selector_expression operand: (_) @recv field: (field_identifier) @attr)
(parameter_declaration name: (identifier) @bind.var type: (type_identifier) @bind.type)
(parameter_declaration name: (identifier) @bind.var type: (pointer_type (type_identifier) @bind.type))
(var_spec name: (identifier) @bind.var type: (type_identifier) @bind.type)
(short_var_declaration left: (expression_list (identifier) @bind.var)
  right: (expression_list (composite_literal type: (type_identifier) @bind.type)))
(short_var_declaration left: (expression_list (identifier) @bind.var)
  right: (expression_list (unary_expression operand: (composite_literal type: (type_identifier) @bind.type))))
"""

_RUST = """
(enum_variant name: (identifier) @name) @definition.enum_member
(field_declaration name: (field_identifier) @name) @definition.field
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(attribute_item) @ctx.decorator
(impl_item trait: (type_identifier) @ctx.inherits)
(impl_item trait: (scoped_type_identifier) @ctx.inherits)
(impl_item trait: (generic_type type: (_) @ctx.inherits))
(impl_item trait: (_) type: (_)) @definition.impl
(trait_bounds) @ctx.inherits
(call_expression function: (identifier) @call)
(call_expression function: (scoped_identifier path: (_) @recv name: (identifier) @call))
(call_expression function: (field_expression value: (_) @recv field: (field_identifier) @call))
(macro_invocation macro: (identifier) @call)
(field_expression value: (_) @recv field: (field_identifier) @attr)
(scoped_identifier path: (_) @recv name: (identifier) @attr)
(let_declaration pattern: (identifier) @bind.var type: (type_identifier) @bind.type)
(let_declaration pattern: (identifier) @bind.var
  value: (call_expression function: (scoped_identifier path: (identifier) @bind.type)))
(let_declaration pattern: (identifier) @bind.var value: (struct_expression name: (type_identifier) @bind.type))
(parameter pattern: (identifier) @bind.var type: (type_identifier) @bind.type)
(parameter pattern: (identifier) @bind.var type: (reference_type type: (type_identifier) @bind.type))
"""

_JAVA = """
(enum_declaration name: (identifier) @name) @definition.enum
(enum_constant name: (identifier) @name) @definition.enum_member
(field_declaration declarator: (variable_declarator name: (identifier) @name) @definition.field)
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(constructor_declaration name: (identifier) @name) @definition.method
(marker_annotation) @ctx.decorator
(annotation) @ctx.decorator
(superclass) @ctx.inherits
(super_interfaces) @ctx.inherits
(extends_interfaces) @ctx.inherits
(method_invocation object: (_) @recv name: (identifier) @call)
(method_invocation name: (identifier) @call)
(object_creation_expression type: (type_identifier) @call)
(field_access object: (_) @recv field: (identifier) @attr)
(local_variable_declaration type: (type_identifier) @bind.type
  declarator: (variable_declarator name: (identifier) @bind.var))
(field_declaration type: (type_identifier) @bind.type declarator: (variable_declarator name: (identifier) @bind.var))
(formal_parameter type: (type_identifier) @bind.type name: (identifier) @bind.var)
"""

EXTRA = {
    "python": _PYTHON,
    "javascript": _JAVASCRIPT,
    "typescript": _TYPESCRIPT,
    "tsx": _TYPESCRIPT,
    "go": _GO,
    "rust": _RUST,
    "java": _JAVA,
}
