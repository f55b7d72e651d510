"""Call any tool by name under an authority ceiling: the one path shared by MCP, the CLI and services.

A tool is found among those registered in this process (the MCP server registers all it
serves), else through the generated manifest, which names the module that declares it, so a
CLI call imports only that one handler's module.
"""

from __future__ import annotations

import difflib
import errno
import importlib
import os
import sys
import traceback
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from kernel import authority
from kernel.errors import PalliumError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from kernel.context import ToolContext
    from kernel.tool import Tool

__all__ = ["call", "find", "needed_authority", "register", "validate_input"]

_registered: dict[str, Tool] = {}


def register(tools: Iterable[Tool]) -> None:
    """Make `tools` callable by name in this process, ahead of the manifest."""
    for tool in tools:
        _registered[tool.name] = tool


def find(name: str) -> Tool:
    """Return the tool called `name` (MCP name or CLI words), or raise `not_found` with the closest match."""
    from tools_manifest import load_manifest

    if not name.startswith("pallium_"):
        from kernel.tool import mcp_name

        name = mcp_name(name)
    if name in _registered:
        return _registered[name]
    entries = load_manifest()["tools"]
    entry = next((e for e in entries if e["name"] == name), None)
    if entry is None:
        known = sorted({e["name"] for e in entries} | set(_registered))
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        raise PalliumError(
            "not_found",
            f"unknown tool {name!r}",
            hint=f"did you mean {close[0]!r}?" if close else "list the tools with `pallium --help`",
            details={"tool": name, "suggestion": close[0] if close else None},
        )
    module = importlib.import_module(entry["module"])
    for tool in module.TOOLS:
        if tool.name == name:
            _registered[name] = tool
            return tool
    raise PalliumError(
        "internal",
        f"the manifest places {name!r} in {entry['module']} but that module does not declare it",
        hint="regenerate the manifest with `python -m tools_manifest`",
    )


def validate_input(tool: Tool, arguments: Mapping[str, Any] | BaseModel) -> BaseModel:
    """Turn raw arguments into the tool's input model, or raise `invalid_input` naming the field."""
    from pydantic import BaseModel, ValidationError

    if isinstance(arguments, BaseModel):
        if isinstance(arguments, tool.input):
            return arguments
        arguments = arguments.model_dump()
    for name, value in dict(arguments).items():
        _refuse_unusable(tool, str(name), value, depth=0)
    try:
        return tool.input.model_validate(dict(arguments))
    except ValidationError as exc:
        problems = [
            {"field": ".".join(str(p) for p in err["loc"]) or "(input)", "problem": err["msg"]}
            for err in exc.errors(include_url=False)
        ]
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise PalliumError(
            "invalid_input",
            f"{tool.name}: argument {first['field']!r}: {first['problem']}{more}",
            hint=f"see `pallium {tool.cli} --help`",
            details={"tool": tool.name, "field": first["field"], "errors": problems},
        ) from None


def needed_authority(name: str, arguments: Mapping[str, Any]) -> authority.Authority:
    """The level `call(name, arguments)` would require, worked out without running anything.

    The same rule `call` applies: the tool's declared level, raised by its escalation field when the
    arguments set it, defaults included (`knowledge build` without `model: false` needs consult).
    Arguments the input model would refuse (a required field still missing) count at their defaults,
    so a caller can ask before it has everything.
    """
    tool = find(name)
    try:
        inp = validate_input(tool, arguments)
    except PalliumError:
        known = {k: v for k, v in arguments.items() if k in tool.input.model_fields}
        inp = tool.input.model_construct(**known)
    return _needed(tool, inp)


def _needed(tool: Tool, inp: BaseModel) -> authority.Authority:
    level = tool.needed_authority(inp)
    return level if authority.LEVELS.index(level) >= authority.LEVELS.index(tool.authority) else tool.authority


_TOO_LONG = {
    errno.ENAMETOOLONG: "a file name or path is too long",
    errno.E2BIG: "a value is too long to pass to a command",
}
MAX_STRING = 2_000_000  # characters in any one argument; the largest an input field allows is 1 MB


def _internal(tool: Tool, exc: Exception) -> PalliumError:
    if os.environ.get("PALLIUM_DEBUG"):
        traceback.print_exception(exc, file=sys.stderr)
    return PalliumError(
        "internal",
        f"{tool.name} failed unexpectedly: {type(exc).__name__}: {exc}",
        hint="this is a bug in Pallium; rerun with PALLIUM_DEBUG=1 to see the traceback and report it",
        details={"tool": tool.name, "exception": type(exc).__name__},
    )


def _stopped(tool: Tool, exc: BaseException) -> PalliumError:
    """A handler that tried to end the process (SystemExit) or was interrupted: this call's error only."""
    if isinstance(exc, KeyboardInterrupt):
        return PalliumError(
            "unavailable",
            f"{tool.name} was interrupted",
            hint="run it again when ready",
            details={"tool": tool.name, "exception": "KeyboardInterrupt"},
        )
    code = exc.code if isinstance(exc, SystemExit) else None
    return PalliumError(
        "internal",
        f"{tool.name} tried to end the process (SystemExit {code!r}); only this call failed",
        hint="this is a bug in Pallium; rerun with PALLIUM_DEBUG=1 and report it",
        details={"tool": tool.name, "exception": "SystemExit", "exit_code": str(code)},
    )


def _refuse_unusable(tool: Tool, field: str, value: Any, *, depth: int) -> None:
    """Refuse what no field can use and what fails deep in a handler: NUL, lone surrogates, huge text.

    A NUL byte cannot be in a path, a git argument or most SQLite text, and a lone surrogate (valid in
    JSON, not in UTF-8) cannot be written anywhere, so either would fail far from the argument that
    carried it. The value itself is never echoed: it may be a megabyte.
    """
    problem = None
    if isinstance(value, str):
        if "\x00" in value:
            problem = "contains a NUL character"
        elif len(value) > MAX_STRING:
            problem = f"is {len(value):,} characters; at most {MAX_STRING:,}"
        else:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                # U+DC80..U+DCFF are how Python spells a file name's non-UTF-8 bytes (surrogateescape):
                # a real path on this machine, which the repo and sessions services look up as bytes.
                try:
                    value.encode("utf-8", "surrogateescape")
                except UnicodeEncodeError:
                    problem = "is not valid UTF-8 text (it holds a lone surrogate)"
    elif isinstance(value, dict) and depth < 20:
        for key, item in value.items():
            _refuse_unusable(tool, f"{field}.{key}" if isinstance(key, str) else field, key, depth=depth + 1)
            _refuse_unusable(tool, f"{field}.{key}", item, depth=depth + 1)
    elif isinstance(value, list | tuple) and depth < 20:
        for index, item in enumerate(value):
            _refuse_unusable(tool, f"{field}.{index}", item, depth=depth + 1)
    if problem is not None:
        field = field[:100]
        raise PalliumError(
            "invalid_input",
            f"{tool.name}: argument {field!r} {problem}",
            hint=f"pass plain UTF-8 text; see `pallium {tool.cli} --help`",
            details={"tool": tool.name, "field": field},
        )


async def call(name: str, arguments: Mapping[str, Any] | BaseModel, ctx: ToolContext) -> BaseModel:
    """Run tool `name` with `arguments` under `ctx.ceiling` and return its output model.

    The authority check comes first, so a refused call runs nothing. The answer leaves through
    `_finish`: the last word on every answer, whatever the door. Any exception that is not a
    `PalliumError` is a bug in a handler; it becomes an `internal` error (with the traceback on
    stderr when `PALLIUM_DEBUG` is set) so no caller ever receives a raw traceback. `SystemExit` and
    `KeyboardInterrupt` become this call's error too: no handler ends the server that runs it.
    Cancellation (`asyncio.CancelledError`) still propagates: it is how a call is stopped.
    """
    tool = find(name)
    authority.check(tool.name, tool.authority, ctx.ceiling)
    inp = validate_input(tool, arguments)
    authority.check(tool.name, _needed(tool, inp), ctx.ceiling)
    try:
        out = await tool.handler(inp, ctx)
    except PalliumError as exc:
        if not exc.hint:  # every error says what to do next, through either door
            exc.hint = _hint_for(tool, exc)
        raise
    except (OverflowError, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno not in _TOO_LONG:
            raise _internal(tool, exc) from exc
        # Only an argument can make a number overflow, a name too long or a command line too big
        # (one argument of a `git` command past 128 KB): say so, not "a bug".
        what = _TOO_LONG.get(exc.errno or 0, "") if isinstance(exc, OSError) else "a number is too large"
        raise PalliumError(
            "invalid_input",
            f"{tool.name}: an argument is out of range: {what}",
            hint=f"pass smaller values; see `pallium {tool.cli} --help`",
            details={"tool": tool.name, "exception": type(exc).__name__},
        ) from exc
    except Exception as exc:
        raise _internal(tool, exc) from exc
    except (SystemExit, KeyboardInterrupt) as exc:  # never past the tool boundary: the server serves on
        raise _stopped(tool, exc) from None
    if not isinstance(out, tool.output):
        raise PalliumError(
            "internal",
            f"{tool.name} returned {type(out).__name__}, not {tool.output.__name__}",
            hint="this is a bug in Pallium; report it",
            details={"tool": tool.name},
        )
    return _finish(tool, inp, out)


def _hint_for(tool: Tool, error: PalliumError) -> str:
    """A hint for an error raised without one: the argument it names, both spellings, and where to look."""
    field = error.details.get("field")
    help_line = f"see `pallium {tool.cli} --help`"
    if isinstance(field, str) and field in tool.input.model_fields:
        flag = "--" + field.replace("_", "-")
        spelled = f"the CLI's positional {field.upper()}" if field in tool.positional else f"CLI {flag}"
        return f"check `{field}` ({spelled}); {help_line}"
    if error.code == "not_found" and " " in tool.cli:
        from tools_manifest import load_manifest

        lister = tool.cli.rsplit(" ", 1)[0] + " list"
        if any(e["cli"] == lister for e in load_manifest()["tools"]):
            return f"list what exists with `pallium {lister}`; {help_line}"
    return help_line


def _finish(tool: Tool, inp: BaseModel, out: BaseModel) -> BaseModel:
    """Steps every finished answer takes, in order; the byte budget is measured last, on what is sent.

    Anything that changes what the answer says (redaction) goes before the budget, so the
    measured answer is the one that leaves.
    """
    from kernel import fitting

    if tool.redact:  # the default; a tool opts out only with a reason (`Tool.redact_exempt`)
        out = redacted(out)
    return fitting.enforce(tool, inp, out)


def redacted(out: BaseModel) -> BaseModel:
    """`out` with each likely secret in any of its texts replaced, and the count in `redactions` if it has one."""
    from kernel.redaction import redact_value

    cleaned, count = redact_value(out)
    if count and "redactions" in type(cleaned).model_fields:
        return cleaned.model_copy(update={"redactions": count})
    return cleaned
