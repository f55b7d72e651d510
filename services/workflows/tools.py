"""The workflow tools' handlers and declarations."""

from __future__ import annotations

from pathlib import Path

from kernel import paths
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.tool import Tool
from services.workflows.models import ValidateInput, ValidateOutput
from services.workflows.validate import validate_source

MAX_SCRIPT_BYTES = 1_000_000


async def validate(inp: ValidateInput, ctx: ToolContext) -> ValidateOutput:
    if (inp.script is None) == (inp.source is None):
        raise PalliumError(
            "invalid_input", "give exactly one of `script` (a path) or `source` (the text)", details={"field": "script"}
        )
    location = None
    source = inp.source
    if inp.script is not None:
        location = _script_path(inp.script, ctx)
        source = _read_script(location)
    checked = await validate_source(source or "")
    return ValidateOutput(
        valid=checked.valid,
        errors=checked.errors,
        warnings=checked.warnings,
        meta=checked.meta,
        script=str(location) if location else None,
        script_hash=checked.script_hash,
    )


def _script_path(user_path: str, ctx: ToolContext) -> Path:
    """A script inside the repository, or among the saved workflows in $PALLIUM_HOME/workflows."""
    saved = (paths.pallium_home() / "workflows").resolve()
    candidate = Path(user_path).expanduser()
    resolved = (candidate if candidate.is_absolute() else ctx.cwd / candidate).resolve()
    if resolved == saved or saved in resolved.parents:
        return resolved
    return paths.confine(ctx.repo_root(), user_path, base=ctx.cwd)


def _read_script(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PalliumError("not_found", f"no script at {str(path)!r}", details={"field": "script"}) from None
    except IsADirectoryError:
        raise PalliumError(
            "invalid_input", f"{str(path)!r} is a folder, not a script", details={"field": "script"}
        ) from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise PalliumError(
            "invalid_input", f"script is {len(data)} bytes; at most {MAX_SCRIPT_BYTES}", details={"field": "script"}
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise PalliumError("invalid_input", f"{str(path)!r} is not UTF-8 text", details={"field": "script"}) from None


def _render_validate(out: ValidateOutput) -> str:
    name = (out.meta or {}).get("name") or out.script or "inline script"
    lines = [f"{'valid' if out.valid else 'INVALID'}: {name}"]
    lines += [f"  error: {e}" for e in out.errors]
    lines += [f"  warning: {w}" for w in out.warnings]
    return "\n".join(lines)


TOOLS = (
    Tool(
        cli="workflow validate",
        handler=validate,
        input=ValidateInput,
        output=ValidateOutput,
        summary="Check a workflow script without running it: syntax, meta, guard violations, unknown primitives.",
        description=(
            "Use after writing or editing a workflow script and before running it. Not for running "
            "(use pallium_workflow_run once available). Compiles the script in the sandbox without "
            "executing it: no model calls, no writes; the answer lists errors and warnings with line numbers."
        ),
        authority="observe",
        toolset="workflows",
        render=_render_validate,
        exit_code=lambda out: 0 if out.valid else 1,
    ),
)
