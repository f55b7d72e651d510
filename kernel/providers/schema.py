"""JSON Schema for worker output: checking a schema, finding the JSON in a reply, validating it.

Validation uses `jsonschema` (Draft 2020-12). Models wrap JSON in prose or code fences, so the reply
is searched for the first balanced JSON object or array that parses.
"""

from __future__ import annotations

import json
from typing import Any

from kernel.errors import PalliumError

__all__ = ["check_schema", "extract_json", "normalize_for_provider", "schema_errors"]

_NOT_FOUND = object()
_VALID_SCHEMAS: set[str] = set()  # canonical texts of schemas that passed `check_schema`


def check_schema(schema: Any, *, field: str = "schema") -> None:
    """Refuse a schema that is not a valid JSON Schema object, with `invalid_input` naming the problem."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    if not isinstance(schema, dict):
        raise PalliumError(
            "invalid_input",
            "schema must be a JSON object",
            details={"field": field},
            hint=f'pass `{field}` as a JSON Schema object, such as {{"type": "object"}}',
        )
    # checking against the meta-schema costs milliseconds, and a team or a loop sends the same schema on
    # every turn (twice: the run, then the dispatcher): a schema found valid once is valid again
    text = json.dumps(schema, sort_keys=True, default=str)
    if text in _VALID_SCHEMAS:
        return
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise PalliumError(
            "invalid_input",
            f"schema is not valid JSON Schema: {exc.message}",
            details={"field": field},
            hint=f"fix `{field}` so it is a valid JSON Schema (draft 2020-12)",
        ) from exc
    if len(_VALID_SCHEMAS) >= 256:
        _VALID_SCHEMAS.clear()
    _VALID_SCHEMAS.add(text)


def schema_errors(value: Any, schema: dict[str, Any], *, limit: int = 5) -> list[str]:
    """The first few reasons `value` fails `schema`, each with its JSON path; empty when it is valid."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:limit]]


def extract_json(text: str) -> Any:
    """The JSON value in `text`: the whole text, else the first balanced object/array that parses; else raise."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[-1].rsplit("```", 1)[0].strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for start, char in enumerate(stripped):
        if char in "{[":
            found = _balanced(stripped, start)
            if found is not _NOT_FOUND:
                return found
    raise ValueError("no JSON value in the reply")


def normalize_for_provider(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy where every object schema says `additionalProperties: false` (structured-output APIs need it)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if isinstance(value, dict):
            out[key] = (
                {k: normalize_for_provider(v) for k, v in value.items()}
                if key in ("properties", "$defs")
                else normalize_for_provider(value)
            )
        elif isinstance(value, list):
            out[key] = [normalize_for_provider(v) for v in value]
        else:
            out[key] = value
    if out.get("type") == "object" and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _balanced(text: str, start: int) -> Any:
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        char = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                try:
                    return json.loads(text[start : i + 1])
                except ValueError:
                    return _NOT_FOUND
    return _NOT_FOUND
