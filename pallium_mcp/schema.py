"""The JSON schemas Pallium publishes, made compact: what a model reads costs tokens on every turn.

Pydantic's schemas carry a generated `title` on every model and field (the field's name again),
spell an optional field as `anyOf: [T, null]` and repeat `default: null`. The published input
schema keeps what an agent needs to fill the arguments in (types, enums, bounds, required,
descriptions, real defaults); the published output schema keeps the structure a client validates
against at its top level (each field's JSON type and which are required), without the prose and
the nested models, which no client shows the model: the whole output schema is in the manifest
(`tools_manifest/tools.json`) and `docs/tools.md`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["input_schema", "output_schema"]

_NAMED = frozenset({"properties", "$defs", "patternProperties"})  # their keys are names, not keywords


def input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without generated titles; an optional field whose default is null is published as its type.

    Leaving such a field out is how an agent says "the default"; the dispatcher still accepts an
    explicit null, but the model is not shown a second way to say nothing.
    """
    compact = _compact(schema, keep_descriptions=True)
    required = set(compact.get("required", []))
    original = schema.get("properties", {})
    for name, spec in compact.get("properties", {}).items():
        if name in required or original.get(name, {}).get("default", "unset") is not None:
            continue
        kinds = spec.get("type")
        if isinstance(kinds, list) and "null" in kinds:
            rest = [k for k in kinds if k != "null"]
            spec["type"] = rest[0] if len(rest) == 1 else rest
        elif isinstance(spec.get("enum"), list) and None in spec["enum"]:
            spec["enum"] = [v for v in spec["enum"] if v is not None]
    return compact


def output_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema naming each top-level field's JSON type(s), and the required ones."""
    defs = schema.get("$defs", {})
    properties = {name: {"type": _types(spec, defs)} for name, spec in schema.get("properties", {}).items()}
    properties = {name: spec if spec["type"] else {} for name, spec in properties.items()}
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if schema.get("required"):
        out["required"] = list(schema["required"])
    return out


def _types(spec: dict[str, Any], defs: dict[str, Any]) -> str | list[str] | None:
    """The JSON type(s) a value of `spec` may have; None when anything goes."""
    found: list[str] = []
    for branch in spec.get("anyOf") or spec.get("oneOf") or [spec]:
        if "$ref" in branch:
            branch = defs.get(branch["$ref"].rsplit("/", 1)[-1], {})
        kind = branch.get("type")
        if kind is None and "enum" in branch:
            kind = sorted({_json_type(v) for v in branch["enum"]})
        if kind is None:
            return None
        for k in [kind] if isinstance(kind, str) else kind:
            if k not in found:
                found.append(k)
    return found[0] if len(found) == 1 else found


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def _compact(node: Any, *, keep_descriptions: bool, named: bool = False) -> Any:
    """`node` without generated titles and null defaults (and, unless `keep_descriptions`, prose)."""
    if isinstance(node, list):
        return [_compact(item, keep_descriptions=keep_descriptions) for item in node]
    if not isinstance(node, dict):
        return node
    if named:
        return {key: _compact(value, keep_descriptions=keep_descriptions) for key, value in node.items()}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and (value is None or not keep_descriptions):
            continue
        if key == "description" and isinstance(value, str) and not keep_descriptions:
            continue
        out[key] = _compact(value, keep_descriptions=keep_descriptions, named=key in _NAMED)
    return _nullable(out)


def _nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`{"anyOf": [{"type": T, ...}, {"type": "null"}]}` -> `{"type": [T, "null"], ...}` when T is simple."""
    branches = node.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or {"type": "null"} not in branches:
        return node
    other = next(b for b in branches if b != {"type": "null"})
    if not isinstance(other, dict) or set(other) & (set(node) - {"anyOf"}):
        return node
    if isinstance(other.get("enum"), list) and set(other) <= {"enum", "type"}:  # an enum names its values
        return {**{k: v for k, v in node.items() if k != "anyOf"}, "enum": [*other["enum"], None]}
    if not isinstance(other.get("type"), str) or "const" in other or "enum" in other:
        return node
    merged = {k: v for k, v in node.items() if k != "anyOf"}
    merged.update(other)
    merged["type"] = [other["type"], "null"]
    return merged
