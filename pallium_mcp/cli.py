"""The CLI adapter: `pallium <command>`, built from the generated manifest.

The parser comes from `tools_manifest/tools.json`, so `pallium --help` and `pallium <verb> --help`
import no handler, no pydantic and no `mcp`. Running a command imports only the module that
declares that tool, then calls it through `kernel.dispatch` like the MCP server does.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, NoReturn

from kernel.errors import PalliumError
from kernel.paths import path_text

__all__ = ["main"]

# Free-text fields that, as a command's last positional, take the rest of the words (joined by spaces).
_WORDS = frozenset({"task", "query", "question"})
BUILTIN_COMMANDS = {
    "mcp serve": "Serve the tools over MCP (stdio, or streamable HTTP with --http).",
    "resident status": "List the resident CLI servers (warm processes that answer queries) of this Pallium home.",
    "resident stop": "Stop this Pallium home's resident CLI servers; the next query runs in its own process.",
}
DESCRIPTION = (
    "Pallium: a local-first control plane for coding agents.\n"
    "Every command is also an MCP tool (`pallium-mcp`). Add --json for the full answer as JSON."
)


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so every failure takes the same path."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(self.prog, message)


class _UsageError(Exception):
    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog
        self.message = message


def main(argv: list[str] | None = None) -> int:
    # Bytes that are not UTF-8 reach argv as lone surrogates, which nothing can store or print: they
    # become `\xNN` escapes, the form file names of that kind have in the index.
    argv = [path_text(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    if sys.stdout is None or sys.stderr is None or sys.stdin is None:  # started with one closed
        from pallium_mcp.launcher import occupy_closed_streams

        occupy_closed_streams()
    wants_json = "--json" in argv
    if argv[:2] == ["mcp", "serve"]:
        from pallium_mcp.server import main as serve

        return serve(argv[2:], prog="pallium mcp serve")
    if argv[:1] == ["resident"]:
        from pallium_mcp.resident import command

        return command(argv[1:])
    if argv[:1] == ["help"]:  # `pallium help [COMMAND...]` is `pallium [COMMAND...] --help`
        try:
            return main([*argv[1:], "--help"])
        except SystemExit as done:  # argparse ends a command's --help this way
            return done.code if isinstance(done.code, int) else 0
    if argv[:1] in (["--version"], ["-V"]):
        from importlib.metadata import version

        print(f"pallium {version('pallium')}")
        return 0
    try:
        from tools_manifest import load_manifest

        entries = load_manifest()["tools"]
        joined = _join_under_commands(argv, entries)
        only = _named_command(argv, entries)
        try:  # the named command's parser alone: building all of them costs more than running most
            args = _parse(_build_parser(entries, only=only), joined) if only is not None else None
        except _UsageError:
            args = None  # the whole parser words the error (and its suggestion) as it always has
        if args is None:  # only the named command's fields can matter to the error: the rest are left bare
            args = _parse(_build_parser(entries, fields_of=only), joined)
        entry = getattr(args, "_entry", None)
        if entry is None:
            _build_parser(entries, fields_of=None).print_help()
            return 0 if not argv else _usage_exit(argv, entries)
        code = _run(entry, args)
        # a short answer waits in the buffer: flush it here, where a reader already gone is a closed
        # pipe like any other, not an "Exception ignored" at the interpreter's exit
        sys.stdout.flush()
        return code
    except _UsageError as exc:
        suggestion, group = _suggest(argv, entries) if "entries" in locals() else (None, None)
        prog = f"pallium {group}" if group and suggestion is None else exc.prog
        error = PalliumError(
            "invalid_input",
            f"{exc.prog}: {exc.message}",
            hint=f"did you mean `pallium {suggestion}`?" if suggestion else f"see `{prog} --help`",
            details={"suggestion": suggestion} if suggestion else {},
        )
        return _fail(error, wants_json, argv, entries if "entries" in locals() else [])
    except PalliumError as exc:
        if exc.details.get("exception") == "KeyboardInterrupt":  # the dispatcher's form of a Ctrl-C
            print("interrupted", file=sys.stderr)
            return 130
        return _fail(exc, wants_json, argv, entries if "entries" in locals() else [])
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _closed_pipe()


def _closed_pipe() -> int:
    """The reader went away (`pallium explain x | head -1`): stop quietly, as a killed `git log` does.

    Standard output is pointed at /dev/null so the interpreter's final flush cannot fail again.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 128 + signal.SIGPIPE


def _parse(parser: _Parser, argv: list[str]) -> argparse.Namespace:
    """Parse `argv`, taking a command's options before, between or after its positionals.

    The root parser finds the command; the command's own parser then reads the rest intermixed
    (`pallium search main --limit 3 loop`), which argparse cannot do across subcommands.
    """
    args, extra = parser.parse_known_args(argv)
    entry = getattr(args, "_entry", None)
    if entry is None:
        if extra:
            parser.parse_args(argv)  # raises the usage error that names the stray words
        return args
    rest = list(argv)
    for word in args._words:  # the command's words as the parser holds them ("route capabilities" is one)
        rest.remove(word)
    leaf = args._parser.parse_intermixed_args(rest)
    leaf._entry = entry
    return leaf


def _run(entry: dict[str, Any], args: argparse.Namespace) -> int:
    import asyncio

    from kernel import authority, dispatch
    from kernel.context import ToolContext
    from kernel.progress import for_stderr

    ceiling = authority.parse(args._authority)
    arguments = {k: v for k, v in vars(args).items() if not k.startswith("_")}
    for field in _WORDS & arguments.keys():
        if isinstance(arguments[field], list):
            arguments[field] = " ".join(arguments[field])
    tool = dispatch.find(entry["name"])
    ctx = ToolContext(ceiling=ceiling, cwd=Path.cwd(), progress=for_stderr())
    try:
        out = asyncio.run(_cancellable(dispatch.call(tool.name, arguments, ctx)))
    except _Interrupted as exc:
        print(f"interrupted by {signal.Signals(exc.signum).name}: `{entry['cli']}` was cancelled", file=sys.stderr)
        return 128 + exc.signum
    finally:
        ctx.close()
    if args._json:  # compact for a program reading the pipe, indented for a person (or --pretty)
        print(out.model_dump_json(indent=2 if args._pretty or sys.stdout.isatty() else None))
    elif tool.render is not None:
        print(tool.render(out))
    else:
        print(json.dumps(out.model_dump(mode="json"), indent=2, ensure_ascii=False))
    return tool.exit_code(out) if tool.exit_code is not None else 0


def _usage_exit(argv: list[str], entries: list[dict[str, Any]]) -> int:
    """The exit status for bad input: what the command's tools declare (`usage_exit`), else 2.

    A command line that names no single tool (`pallium loop tikc`) takes the value its group's
    tools share, so a misspelt loop command still exits 64, never a tick state.
    """
    words = [w for w in argv if not w.startswith("-")]
    for depth in range(len(words), 0, -1):
        prefix = " ".join(words[:depth])
        group = [e for e in entries if e["cli"] == prefix or e["cli"].startswith(prefix + " ")]
        codes = {e.get("usage_exit", 2) for e in group}
        if len(codes) == 1:
            return codes.pop()
        if group:
            break
    return 2


# Set by the resident server, which runs calls on its main thread: `seen` hears each signal a call's
# event loop took (a SIGTERM there was meant for the server), `restore` takes the server's own signal
# handling back the moment the loop lets go of it (asyncio resets it to the defaults).
SIGNAL_HOOKS: dict[str, Any] = {}


class _Interrupted(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


async def _cancellable(call: Any) -> Any:
    """Await `call`, cancelling it on SIGTERM or SIGINT so it cleans up as a cancelled task does.

    `pallium workflow stop|pause` signal the process that holds a run; cancelling the tool (rather
    than dying) lets the run kill its agents' process groups and record `stopped` or `paused`, as
    the background worker does. A second signal during that clean-up is ignored.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    received: list[int] = []

    def on_signal(signum: int) -> None:
        if "seen" in SIGNAL_HOOKS:
            SIGNAL_HOOKS["seen"](signum)
        if not received:
            received.append(signum)
            task.cancel()

    handled: list[int] = []
    for signum in (int(signal.SIGTERM), int(signal.SIGINT)):
        try:
            loop.add_signal_handler(signum, on_signal, signum)
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread, or no signals here
            continue
        handled.append(signum)
    try:
        return await call
    except asyncio.CancelledError:
        if received:
            raise _Interrupted(received[0]) from None
        raise
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
        if "restore" in SIGNAL_HOOKS:
            SIGNAL_HOOKS["restore"]()


def _fail(error: PalliumError, as_json: bool, argv: list[str], entries: list[dict[str, Any]]) -> int:
    if as_json:
        print(error.to_json(), file=sys.stderr)
    else:
        print(f"error: {error.message}", file=sys.stderr)
        if error.hint:
            print(f"  hint: {error.hint}", file=sys.stderr)
    return _usage_exit(argv, entries) if error.code == "invalid_input" else error.exit_code


def _named_command(argv: list[str], entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The entry whose command words begin `argv` (the longest such), or None."""
    best: dict[str, Any] | None = None
    for entry in entries:
        words = entry["cli"].split()
        if argv[: len(words)] == words and (best is None or len(words) > len(best["cli"].split())):
            best = entry
    return best


_EVERY = object()


def _build_parser(
    entries: list[dict[str, Any]], *, only: dict[str, Any] | None = None, fields_of: Any = _EVERY
) -> _Parser:
    """The parser of every command, or of `only` (with the same prog, help and fields).

    `fields_of` limits the options added to one entry's parser (None: to none). Adding every command's
    options costs more than the rest of an error put together, and a parse stops at the one
    command it names, so the others' options are never read.
    """
    root = _Parser(
        prog="pallium",
        usage="pallium <command> [options]",
        description=DESCRIPTION,
        epilog=_command_list(entries),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    root.add_argument("-V", "--version", dest="_version", action="store_true", help="print the version and exit")
    # The epilog lists every command with its summary, nested ones included; argparse's own
    # listing would repeat the top level only.
    groups: dict[tuple[str, ...], Any] = {(): root.add_subparsers(metavar="<command>", help=argparse.SUPPRESS)}
    parsers: dict[tuple[str, ...], _Parser] = {(): root}
    commands = {tuple(e["cli"].split()) for e in entries}
    for entry in entries if only is None else [only]:
        words = _parser_words(tuple(entry["cli"].split()), commands)
        for depth in range(1, len(words)):
            prefix = words[:depth]
            if prefix not in parsers:
                sub = groups[prefix[:-1]].add_parser(
                    prefix[-1], prog=_prog(prefix), help=f"{' '.join(prefix)} commands"
                )
                parsers[prefix] = sub
                groups[prefix] = sub.add_subparsers(title="commands", metavar="<command>")
        command = groups[words[:-1]].add_parser(
            words[-1],
            prog=_prog(words),
            help=entry["summary"].replace("%", "%%"),
            description=_command_description(entry),
            epilog=_TIME_NOTE if _TIME_FIELDS & set(entry["input_schema"].get("properties", {})) else None,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if fields_of is _EVERY or fields_of is entry:
            _add_fields(command, entry)
        command.set_defaults(_entry=entry, _parser=command, _words=words)
    if ("mcp",) in groups:  # tools declared under `mcp` (mcp install) share the group with `mcp serve`
        mcp_sub = groups[("mcp",)]
    else:
        mcp_group = groups[()].add_parser("mcp", prog=_prog(("mcp",)), help="MCP server commands")
        mcp_sub = mcp_group.add_subparsers(title="commands", metavar="<command>")
    mcp_sub.add_parser("serve", prog=_prog(("mcp", "serve")), help=BUILTIN_COMMANDS["mcp serve"], add_help=False)
    return root


def _parser_words(words: tuple[str, ...], commands: set[tuple[str, ...]]) -> tuple[str, ...]:
    """Where a command sits in the parser tree: under a command that is also a word of it, as one word.

    `route` takes a task and `route capabilities` is a command too; argparse cannot give one parser
    both a positional and subcommands, so the longer one is registered as `route capabilities`
    beside `route`, and `_join_under_commands` joins those words in the argv before parsing.
    """
    for depth in range(len(words) - 1, 0, -1):
        if words[:depth] in commands:
            return (*words[: depth - 1], " ".join(words[depth - 1 :]))
    return words


def _join_under_commands(argv: list[str], entries: list[dict[str, Any]]) -> list[str]:
    commands = {tuple(e["cli"].split()) for e in entries}
    for words in sorted(commands, key=len, reverse=True):
        nested = _parser_words(words, commands)
        if nested != words and tuple(argv[: len(words)]) == words:
            return [*nested, *argv[len(words) :]]
    return argv


def _prog(words: tuple[str, ...]) -> str:
    # argparse derives a subcommand's prog from the root's usage line ("pallium <command> [options]
    # changed-now"), which names no real command in error hints and --help; spell it out.
    return " ".join(("pallium", *words))


def _command_description(entry: dict[str, Any]) -> str:
    level = f"Authority: {entry['authority']}"
    if entry.get("escalation"):
        field, needed = entry["escalation"]
        flag = field.replace("_", "-")
        spec = entry.get("input_schema", {}).get("properties", {}).get(field, {})
        # A field on by default is spelled `--no-FIELD` on the command line: there is no `--FIELD`.
        level += f" ({needed} without --no-{flag})" if spec.get("default") is True else f" ({needed} with --{flag})"
    return f"{entry['summary']}\n\n{entry['description']}\n\n{level}"


# Commands taking relative times say in their help where "now" comes from (CLI help only: the
# model-facing schema stays as short as its budget wants).
_TIME_FIELDS = {"since", "before", "older_than", "inactive_for", "finished_within", "stuck_after"}
_TIME_NOTE = (
    "Relative times (3h, 7d, 'a few minutes ago') count back from now: the system clock, or PALLIUM_NOW\n"
    "when it holds an ISO time (PALLIUM_NOW=2026-11-21T15:30:00Z) for a reproducible run."
)


def _add_fields(command: argparse.ArgumentParser, entry: dict[str, Any]) -> None:
    schema = entry["input_schema"]
    required = set(schema.get("required", []))
    for field, spec in schema.get("properties", {}).items():
        base = _base_schema(spec, schema.get("$defs", {}))
        kind = base.get("type")
        # argparse %-formats help strings: a literal `%` (`src%2Fapp`) must be doubled or --help crashes
        help_text = spec.get("description", "").replace("%", "%%")
        options: dict[str, Any] = {"help": help_text, "default": argparse.SUPPRESS}
        if "enum" in base:
            options["choices"] = base["enum"]
        elif kind == "integer":
            options["type"] = int
        elif kind == "number":
            options["type"] = float
        if field in entry["positional"]:
            if field not in required:
                options["nargs"] = "?"
            if field in _WORDS and field == entry["positional"][-1]:  # `pallium start fix the bug`, unquoted
                options["nargs"] = "+" if field in required else "*"
            command.add_argument(field, metavar=field.upper(), **options)
            if field not in required:  # an optional positional may also be given as its flag
                flag_options = {k: v for k, v in options.items() if k != "nargs"}
                command.add_argument("--" + field.replace("_", "-"), dest=field, **flag_options)
            continue
        flag = "--" + field.replace("_", "-")
        if kind == "boolean":
            options["action"] = "store_false" if spec.get("default") is True else "store_true"
            flag = ("--no-" + field.replace("_", "-")) if spec.get("default") is True else flag
            options.pop("choices", None)
        elif kind == "array":
            options["action"] = "append"
        options["required"] = field in required
        command.add_argument(flag, dest=field, **options)
    properties = schema.get("properties", {})
    if "repo" in properties and "cwd" not in properties:  # the original's name for the repository to work in
        command.add_argument("--cwd", dest="repo", default=argparse.SUPPRESS, help="the same as --repo")
    command.add_argument(
        "--json", dest="_json", action="store_true", help="print the full answer as JSON (compact when piped)"
    )
    command.add_argument("--pretty", dest="_pretty", action="store_true", help="with --json: indent it even when piped")
    command.add_argument(
        "--authority",
        dest="_authority",
        metavar="LEVEL",
        default=os.environ.get("PALLIUM_AUTHORITY", "edit"),
        help="ceiling for this call: observe, consult, edit (default) or admin",
    )


def _base_schema(spec: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an optional field, with `$ref`s to enums resolved."""
    if "anyOf" in spec:
        branches = [s for s in spec["anyOf"] if s.get("type") != "null"]
        spec = branches[0] if branches else {}
    if "$ref" in spec:
        spec = defs.get(spec["$ref"].rsplit("/", 1)[-1], {})
    return spec


def _command_list(entries: list[dict[str, Any]]) -> str:
    rows = [(e["cli"], e["summary"]) for e in entries] + list(BUILTIN_COMMANDS.items())
    width = max(len(cli) for cli, _ in rows) + 2
    lines = ["all commands:"] + [f"  {cli.ljust(width)}{summary}" for cli, summary in sorted(rows)]
    return "\n".join(lines)


def _suggest(argv: list[str], entries: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    """The command closest to what was typed, looked for at the level where the words stopped matching.

    Returns (suggestion, group): `pallium sessions recal` suggests `sessions recall` from the
    sessions commands only, never a command of another service; with no close match, `group`
    names the level whose `--help` lists what exists. (None, None) when the words name a command.
    """
    words = [w for w in argv if not w.startswith("-")]
    commands = [e["cli"].split() for e in entries] + [c.split() for c in BUILTIN_COMMANDS]
    prefix: list[str] = []
    for word in words:
        if prefix in commands:
            return None, None  # a whole command: the remaining words are its arguments
        children = sorted({c[len(prefix)] for c in commands if c[: len(prefix)] == prefix and len(c) > len(prefix)})
        if word in children:
            prefix.append(word)
            continue
        close = difflib.get_close_matches(word, children, n=1, cutoff=0.6)
        if close:
            return " ".join([*prefix, close[0]]), " ".join(prefix) or None
        if not prefix:  # a nested command's words typed at the top (`pallium recall`)
            full = difflib.get_close_matches(" ".join(words[:2]), [" ".join(c) for c in commands], n=1, cutoff=0.6)
            nested = [" ".join(c) for c in commands if c[-1] == word]
            found = full or nested[:1] if len(nested) <= 1 else full
            return (found[0] if found else None), None
        return None, " ".join(prefix)
    return None, " ".join(prefix) or None


if __name__ == "__main__":
    sys.exit(main())
