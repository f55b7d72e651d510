"""`workflow validate`: everything that can be known about a script without running it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kernel import threads
from kernel.hashing import stable_hash
from services.workflows.engine import ScriptFailed, evaluate_meta
from services.workflows.script import ParsedScript, lint, parse_script, read_args_fields, strip_code, wrap_body

META_KEYS = {"name": str, "description": str, "phases": list, "kind": str, "loop": dict, "args": dict}
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


MAX_FINDINGS = 50  # of errors and of warnings each: a hostile script must not make a megabyte answer


async def validate_source(source: str) -> Validation:
    """Validate `source` in time linear in its size, the CPU-bound parts on a worker thread so the
    server's event loop keeps answering other calls meanwhile."""
    static = await threads.in_thread(_static, source)
    parsed = static.parsed
    result = Validation(script_hash=static.script_hash)
    if static.empty:
        result.errors.append("the script is empty: a workflow script awaits at least one primitive and returns a value")
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
    if static.syntax:
        result.errors.append(static.syntax)
    result.errors = _capped(result.errors + static.lint_errors)
    result.warnings = _capped(result.warnings + static.lint_warnings + args_warnings(static.args_reads, result.meta))
    return result


def declared_args(meta: dict[str, Any] | None) -> dict[str, str]:
    """The args a script says it reads (`meta.args`: field -> what it is); a plain run gives it `task`."""
    declared = (meta or {}).get("args")
    return {str(k): str(v) for k, v in declared.items()} if isinstance(declared, dict) else {}


def args_warnings(reads: list[tuple[int, str, bool]], meta: dict[str, Any] | None) -> list[str]:
    """Fields the script reads from `args` that a plain `workflow run` (no `--args`) does not give it.

    A plain run gives `args` as null, or `{task}` to a script whose `meta.args` lists what it reads;
    reading another field then depends on `--args`, and reading any field of null throws.
    """
    declared = declared_args(meta)
    warnings, seen = [], set()
    for line, name, guarded in reads:
        if name in seen or name in declared:
            continue
        seen.add(name)
        if not declared and not guarded:
            warnings.append(
                f"line {line}: reads args.{name}, but a plain `workflow run` gives args as null, so this throws: "
                f"pass it with --args '{{\"{name}\": ...}}', read args?.{name}, or list it in meta.args "
                "(a script whose meta.args lists task is given the run's task)"
            )
        elif declared:
            warnings.append(
                f"line {line}: reads args.{name}, which meta.args does not list; a plain `workflow run` gives only "
                f"task: pass it with --args, or list it in meta.args"
            )
    return warnings


@dataclass
class _Static:
    script_hash: str
    parsed: ParsedScript
    syntax: str | None
    lint_errors: list[str]
    lint_warnings: list[str]
    empty: bool
    args_reads: list[tuple[int, str, bool]]


def _static(source: str) -> _Static:
    """Everything but evaluating the meta: hash, meta split, V8 compile and lint."""
    parsed = parse_script(source)
    errors, warnings = lint(parsed.body)
    empty = not strip_code(parsed.body).strip()
    reads = read_args_fields(parsed.body)
    return _Static(stable_hash(source), parsed, _syntax_error(parsed.body), errors, warnings, empty, reads)


def _capped(findings: list[str]) -> list[str]:
    if len(findings) <= MAX_FINDINGS:
        return findings
    return [*findings[:MAX_FINDINGS], f"... and {len(findings) - MAX_FINDINGS} more of the same kind"]


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
