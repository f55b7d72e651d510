"""`workflow validate`: everything that can be known about a script without running it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kernel import threads
from kernel.hashing import stable_hash
from services.workflows.engine import ScriptFailed, evaluate_meta
from services.workflows.script import lint, parse_script, wrap_body

META_KEYS = {"name": str, "description": str, "phases": list, "kind": str, "loop": dict}
KINDS = ("workflow", "loop")


@dataclass
class Validation:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, Any] | None = None
    script_hash: str = ""

    @property
    def valid(self) -> bool:
        return not self.errors


async def validate_source(source: str) -> Validation:
    result = Validation(script_hash=stable_hash(source))
    parsed = parse_script(source)
    result.errors += [f"line {parsed.meta_line}: {e}" for e in parsed.errors]
    if parsed.meta_source is not None and not parsed.errors:
        try:
            result.meta = await evaluate_meta(parsed.meta_source)
        except ScriptFailed as exc:
            result.errors.append(f"line {parsed.meta_line}: {exc.message}")
    if parsed.meta_line is None:
        result.warnings.append("no meta: add `export const meta = {name, description, phases}` so runs are labelled")
    if result.meta is not None:
        _check_meta(result.meta, result)
    syntax = await threads.in_thread(_syntax_error, parsed.body)
    if syntax:
        result.errors.append(syntax)
    errors, warnings = lint(parsed.body)
    result.errors += errors
    result.warnings += warnings
    return result


def _check_meta(meta: dict[str, Any], result: Validation) -> None:
    for key, value in meta.items():
        expected = META_KEYS.get(key)
        if expected is None:
            result.warnings.append(f"meta.{key} is not a known meta field ({', '.join(META_KEYS)})")
        elif not isinstance(value, expected):
            result.errors.append(f"meta.{key} must be a {expected.__name__}")
    if "kind" in meta and meta["kind"] not in KINDS:
        result.errors.append(f"meta.kind must be one of {', '.join(KINDS)}")
    if isinstance(meta.get("phases"), list) and not all(isinstance(p, str) for p in meta["phases"]):
        result.errors.append("meta.phases must be a list of strings")


def _syntax_error(body: str) -> str | None:
    """Compile the wrapped body in V8 without calling it."""
    import py_mini_racer

    with py_mini_racer.MiniRacer() as mr:
        try:
            mr.eval(wrap_body(body))
        except py_mini_racer.JSParseException as exc:
            first = str(exc).strip().splitlines()[0]
            return first.replace("<anonymous>:", "line ", 1)
    return None
