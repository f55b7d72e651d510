"""Where a run's script comes from: a path, inline text, a saved workflow or a template; and its args."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel import paths
from kernel.context import ToolContext
from kernel.errors import PalliumError
from services.workflows import library
from services.workflows.validate import Validation, validate_source

__all__ = [
    "Chosen",
    "choose",
    "default_task",
    "parse_args",
    "read_script",
    "require_valid",
    "script_path",
    "with_task",
]

MAX_SCRIPT_BYTES = 1_000_000
_SAVED_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


@dataclass(frozen=True)
class Chosen:
    text: str
    origin: str  # "script", "source", "repo", "user" or "template"
    label: str
    path: Path | None = None


def choose(ctx: ToolContext, repo: Path, *, script: str | None, source: str | None, workflow: str | None) -> Chosen:
    """At most one of a path, inline text or a workflow name; none means the default plan."""
    given = [name for name, value in (("script", script), ("source", source), ("workflow", workflow)) if value]
    if len(given) > 1:
        raise PalliumError(
            "invalid_input",
            f"give one of script, source or workflow, not {' and '.join(given)}",
            details={"field": given[1]},
            hint="pass just one of `script` (CLI `--script`), `source` (`--source`) or `workflow` (`--workflow`)",
        )
    if script is not None:
        path = script_path(script, ctx)
        return Chosen(read_script(path), "script", str(path), path)
    if source is not None:
        return Chosen(source, "source", "inline")
    found = library.find(repo, workflow or library.DEFAULT_TEMPLATE)
    return Chosen(found.source(), found.origin, found.label, found.path if found.origin != "template" else None)


async def require_valid(text: str) -> Validation:
    """The script's validation; `invalid_input` (field `script`) when it has errors."""
    checked = await validate_source(text)
    if not checked.valid:
        raise PalliumError(
            "invalid_input",
            f"the script is not valid: {checked.errors[0]}",
            hint="see all problems with `pallium workflow validate`",
            details={"field": "script", "errors": checked.errors},
        )
    return checked


def with_task(args: Any, task: str) -> dict[str, Any]:
    if args is None:
        return {"task": task}
    if not isinstance(args, dict):
        raise PalliumError(
            "invalid_input",
            "args must be a JSON object for a saved workflow or template",
            details={"field": "args"},
            hint='pass `args` (CLI `--args`) as a JSON object, such as \'{"task": "..."}\'',
        )
    return {"task": task, **args}


def script_path(user_path: str, ctx: ToolContext) -> Path:
    """A script inside the repository, or among the saved workflows in $PALLIUM_HOME/workflows."""
    saved = (paths.pallium_home() / "workflows").resolve()
    candidate = Path(user_path).expanduser()
    resolved = (candidate if candidate.is_absolute() else ctx.cwd / candidate).resolve()
    if resolved == saved or saved in resolved.parents:
        return resolved
    return paths.confine(ctx.repo_root(), user_path, base=ctx.cwd)


def read_script(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PalliumError(
            "not_found",
            f"no script at {str(path)!r}",
            details={"field": "script"},
            hint="pass `script` (CLI `--script`) as a .js path; `pallium workflow template list` lists saved ones",
        ) from None
    except IsADirectoryError:
        raise PalliumError(
            "invalid_input",
            f"{str(path)!r} is a folder, not a script",
            details={"field": "script"},
            hint="pass `script` (CLI `--script`) as the path of a .js file, not a folder",
        ) from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise PalliumError(
            "invalid_input",
            f"script is {len(data)} bytes; at most {MAX_SCRIPT_BYTES}",
            details={"field": "script"},
            hint=f"pass a smaller `script` (CLI `--script`), at most {MAX_SCRIPT_BYTES} bytes",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise PalliumError(
            "invalid_input",
            f"{str(path)!r} is not UTF-8 text",
            details={"field": "script"},
            hint="save the script as UTF-8 and pass it as `script` (CLI `--script`) again",
        ) from None


def parse_args(text: str | None) -> object:
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PalliumError(
            "invalid_input",
            f"args is not JSON: {exc.msg} at character {exc.pos}",
            details={"field": "args"},
            hint='pass `args` (CLI `--args`) as a JSON object, such as \'{"task": "..."}\'',
        ) from None


def default_task(inp: Any) -> Any:
    """The original's forms of `workflow run`: `/NAME rest` as the task names the saved workflow NAME,
    and the task may be left out when a script or workflow says what to run."""
    task, workflow = inp.task.strip(), inp.workflow
    first, _, rest = task.partition(" ")
    if first.startswith("/") and _SAVED_NAME.fullmatch(first[1:]) and not (inp.script or inp.source or workflow):
        task, workflow = rest.strip(), first[1:]
    if not task:
        if workflow:
            task = f"Run saved workflow {workflow}"
        elif getattr(inp, "script", None):
            task = f"Run workflow script {inp.script}"
        elif getattr(inp, "source", None):
            task = "Run an inline workflow script"
        else:
            raise PalliumError(
                "invalid_input",
                "say what to do: give a task, or a script or workflow to run",
                hint='pallium workflow run "<task>" [--script F | --workflow NAME]',
                details={"field": "task"},
            )
    return inp.model_copy(update={"task": task, "workflow": workflow})
