"""Pallium's scripted provider: rehearse a workflow's shape without a model, and test every dialect.

Run as `python -m kernel.providers.fake`, or through shims named `claude` and `codex` (see `install`),
in which case it speaks that CLI's dialect: argv, stdin prompt, JSON envelope or JSONL events, and
the real CLIs' quirks. Otherwise it follows the wrapper contract (`PALLIUM_WORKFLOW_PROMPT_FILE`...).
Behaviour comes from the scenario in `PALLIUM_FAKE_SCENARIO`: `{"rules": [...]}`, first match wins.
It starts hundreds of times per test run and benchmark, so it starts cheaply: run by `command()` it
is imported from its folder (its bytecode is cached, where running it as a script would compile it
every time) under `python -S`, and it imports only a few built-in modules up front; `re`, `fcntl`,
`subprocess` and the `json` package are imported only on the paths that need them.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = ["command", "install", "main"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_BOOTSTRAP = (
    f"import sys; sys.path[0] = {_HERE!r}; sys.dont_write_bytecode = False; from fake import main; sys.exit(main())"
)

HELP = {
    "claude": "Usage: claude [options] [prompt]\n  -p, --print\n  --output-format <format>\n  --model <model>\n"
    "  --session-id <uuid>\n  -r, --resume [value]\n  --allowedTools, --allowed-tools <tools...>\n"
    "  --disallowedTools, --disallowed-tools <tools...>\n  --permission-mode <mode>\n  --safe-mode\n"
    "  --strict-mcp-config\n  --verbose\n",
    "codex": "Usage: codex exec [OPTIONS] [PROMPT]\n  -C, --cd <DIR>\n  -s, --sandbox <SANDBOX_MODE>\n"
    "  -c, --config <key=value>\n  -m, --model <MODEL>\n  --json\n  -o, --output-last-message <FILE>\n"
    "  --output-schema <FILE>\n  --skip-git-repo-check\n",
    "codex resume": "Usage: codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]\n  --last\n  --all\n"
    "  -c, --config <key=value>\n  -m, --model <MODEL>\n  --json\n  -o, --output-last-message <FILE>\n"
    "  --output-schema <FILE>\n  --skip-git-repo-check\n",
}
ERROR_TEXT = {
    "auth": "Not logged in · Please run /login",
    "quota": "You've hit your usage limit. Upgrade or try again later.",
    "rate_limit": "API Error: 429 rate_limit_error: Rate limit reached; please try again later",
    "session": "No conversation found with session ID",
}
_CLAUDE_VALUE_FLAGS = {
    "--output-format",
    "--model",
    "--session-id",
    "--resume",
    "-r",
    "--allowedTools",
    "--allowed-tools",
    "--disallowedTools",
    "--disallowed-tools",
    "--permission-mode",
    "--append-system-prompt",
    "--system-prompt",
    "--json-schema",
    "--max-budget-usd",
    "--settings",
    "--setting-sources",
    "--add-dir",
    "--tools",
    "--fallback-model",
}
_CODEX_VALUE_FLAGS = {
    "-C",
    "--cd",
    "-s",
    "--sandbox",
    "-c",
    "--config",
    "-m",
    "--model",
    "-o",
    "--output-last-message",
    "--output-schema",
    "-p",
    "--profile",
    "--add-dir",
}


def command() -> list[str]:
    """The argv that runs the fake: `python -S -c <import it from its folder>`, so its .pyc is reused.

    The bootstrap replaces `sys.path[0]` (the worker's folder under `-c`) with the fake's own folder,
    so a `json.py` in the repository under work is never imported in place of the standard library,
    and it writes the fake's bytecode cache even under PYTHONDONTWRITEBYTECODE: compiling this file
    costs more than the rest of its start.
    """
    return [sys.executable, "-S", "-c", _BOOTSTRAP]


def install(bin_dir: Path, names: tuple[str, ...] = ("claude", "codex")) -> dict[str, Path]:
    """Write executable shims for the fake under `bin_dir` (put it first on PATH); return their paths."""
    import shlex

    bin_dir.mkdir(parents=True, exist_ok=True)
    argv = " ".join(shlex.quote(part) for part in command())
    shims = {}
    for name in names:
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nPALLIUM_FAKE_AS={name} exec {argv} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
        shims[name] = shim
    return shims


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["exec"]:
        return _codex(args[1:])
    if "-p" in args or "--print" in args:
        return _claude(args)
    if "--help" in args or "--version" in args:
        return _help(args)
    return _wrapper()


# ---------------------------------------------------------------- dialects


def _claude(args: list[str]) -> int:
    opts, positional = _parse(args, _CLAUDE_VALUE_FLAGS)
    if opts.get("--output-format") == "stream-json" and "--verbose" not in opts:
        print("Error: When using --print, --output-format=stream-json requires --verbose", file=sys.stderr)
        return 1
    prompt = positional[-1] if positional else sys.stdin.read()
    resume = opts.get("--resume") or opts.get("-r")
    session = opts.get("--session-id") or resume or _uuid()
    if resume and not _session_known(resume):
        print(f"No conversation found with session ID: {resume}")
        return 1
    mode = os.environ.get("PALLIUM_WORKFLOW_MODE") or (
        "edit" if opts.get("--permission-mode") == "acceptEdits" else "read-only"
    )
    ctx = {"dialect": "claude", "mode": mode, "model": opts.get("--model"), "session": session, "argv": args}
    rule, text, failure = _act(prompt, ctx)
    if rule.get("error_class") == "session":
        print(f"No conversation found with session ID: {session}")  # plain text even with json output
        return 1
    if "raw" in rule:  # what a broken or drifted CLI prints instead of its envelope
        print(rule["raw"])
        return int(rule.get("exit", 0))
    _remember_session(session)
    usage = rule.get("usage", {})
    envelope = {
        "type": "result",
        "subtype": "success",
        "is_error": failure is not None or rule.get("exit", 0) != 0,
        "result": failure or text,
        "session_id": rule.get("session", session),
        "total_cost_usd": usage.get("cost_usd", 0.0),
        "num_turns": 1,
        "usage": {"input_tokens": usage.get("input_tokens", 0), "output_tokens": usage.get("output_tokens", 0)},
    }
    if failure and rule.get("error_class") == "rate_limit":
        envelope["api_error_status"] = 429
    print(_dumps(envelope))
    return _finish(rule, failed=failure is not None)


def _codex(args: list[str]) -> int:
    if "--help" in args:
        return _help(args)
    resume_id = None
    if "resume" in args:
        at = args.index("resume")
        before, after = args[:at], args[at + 1 :]
        for bad in ("-C", "--cd", "-s", "--sandbox"):
            if bad in after:
                print(f"error: unexpected argument '{bad}' found", file=sys.stderr)
                return 2
        opts, _ = _parse(before, _CODEX_VALUE_FLAGS)
        more, positional = _parse(after, _CODEX_VALUE_FLAGS)
        opts.update(more)
        resume_id, positional = (positional[0] if positional else None), positional[1:]
    else:
        opts, positional = _parse(args, _CODEX_VALUE_FLAGS)
    if opts.get("-C") or opts.get("--cd"):
        os.chdir(opts.get("-C") or opts["--cd"])
    out_file = opts.get("-o") or opts.get("--output-last-message")
    if out_file:
        _write(out_file, "")  # the real CLI creates it empty at start
    prompt = positional[0] if positional and positional[0] != "-" else sys.stdin.read()
    thread = resume_id or _uuid()
    events: list[dict[str, Any]] = []
    if resume_id and not _session_known(resume_id):
        print(f"Error: thread/resume failed: no rollout found for thread id {resume_id}", file=sys.stderr)
        return 1
    sandbox = opts.get("-s") or opts.get("--sandbox") or "read-only"
    ctx = {
        "dialect": "codex",
        "mode": os.environ.get("PALLIUM_WORKFLOW_MODE") or ("read-only" if sandbox == "read-only" else "edit"),
        "model": opts.get("-m") or opts.get("--model"),
        "session": thread,
        "argv": args,
    }
    picked = _choose(prompt, _labelled(ctx))
    streamed = "raw" not in picked[0] and picked[0].get("error_class") != "session"
    if streamed:  # its rollout exists from here on: a thread killed mid-turn can be resumed
        _remember_session(thread)
    if streamed and "--json" in opts:  # the real CLI streams: the thread id is out before the turn's work
        print(_dumps({"type": "thread.started", "thread_id": thread}))
        print(_dumps({"type": "turn.started"}))
        sys.stdout.flush()
    rule, text, failure = _act(prompt, ctx, picked)
    if rule.get("error_class") == "session":
        print(f"Error: thread/resume failed: no rollout found for thread id {thread}", file=sys.stderr)
        return 1
    if "raw" in rule:  # what a broken or drifted CLI prints instead of its events
        print(rule["raw"])
        return int(rule.get("exit", 0))
    usage = rule.get("usage", {})
    if failure:
        events.append({"type": "turn.failed", "error": {"message": failure}})
    else:
        events.append({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message", "text": text}})
        events.append(
            {
                "type": "turn.completed",
                "usage": {
                    "input_tokens": usage.get("input_tokens", 0),
                    "cached_input_tokens": 0,
                    "output_tokens": usage.get("output_tokens", 0),
                },
            }
        )
        if out_file:
            _write(out_file, text)
    if "--json" in opts:
        for event in events:
            print(_dumps(event))
    return _finish(rule, failed=failure is not None)


def _wrapper() -> int:
    env = os.environ
    prompt_file = env.get("PALLIUM_WORKFLOW_PROMPT_FILE")
    prompt = _read(prompt_file) if prompt_file else sys.stdin.read()
    session_file = env.get("PALLIUM_WORKFLOW_SESSION_FILE")
    previous = _read(session_file).strip() if session_file and os.path.exists(session_file) else ""
    session = previous or f"fake-{os.urandom(6).hex()}"
    ctx: dict[str, Any] = {
        "dialect": "wrapper",
        "mode": env.get("PALLIUM_WORKFLOW_MODE", "read-only"),
        "label": env.get("PALLIUM_WORKFLOW_LABEL"),
        "model": env.get("PALLIUM_WORKFLOW_MODEL") or None,
        "session": session,
        "argv": [],
    }
    rule, text, failure = _act(prompt, ctx)
    if failure:
        print(failure, file=sys.stderr)
        return _finish(rule, failed=True)
    out = env.get("PALLIUM_WORKFLOW_OUTPUT_FILE")
    if out:
        _write(out, text)
    else:
        print(text)
    if env.get("PALLIUM_WORKFLOW_USAGE_FILE") and "usage" in rule:
        _write(env["PALLIUM_WORKFLOW_USAGE_FILE"], _dumps(rule["usage"]))
    if session_file:
        _write(session_file, rule.get("session", session))
    return _finish(rule, failed=False)


def _help(args: list[str]) -> int:
    """`--help` or `--version`; `PALLIUM_FAKE_HELP_DROP=--flag,resume:--flag` rehearses drift (every page,
    or `codex exec resume --help` only)."""
    name = os.environ.get("PALLIUM_FAKE_AS", "claude")
    page = "resume" if name == "codex" and "resume" in args else ""
    text = HELP.get(f"{name} {page}".strip(), HELP["claude"])
    for dropped in filter(None, os.environ.get("PALLIUM_FAKE_HELP_DROP", "").split(",")):
        scope, _, flag = dropped.rpartition(":")
        if scope in ("", page):
            text = "\n".join(line for line in text.splitlines() if flag not in line) + "\n"
    print(f"{name} 0.0.0-fake" if "--version" in args else text)
    return 0


# ---------------------------------------------------------------- the scenario


def _labelled(ctx: dict[str, Any]) -> dict[str, Any]:
    ctx.setdefault("label", os.environ.get("PALLIUM_WORKFLOW_LABEL"))
    return ctx


def _act(
    prompt: str, ctx: dict[str, Any], picked: tuple[dict[str, Any], int | None] | None = None
) -> tuple[dict[str, Any], str, str | None]:
    """Find the rule (unless `picked` already), log the call, do its effects; return the rule, reply and failure."""
    rule, index = picked or _choose(prompt, _labelled(ctx))
    _log(
        {
            "dialect": ctx["dialect"],
            "argv": ctx["argv"],
            "cwd": os.getcwd(),
            "rule": index,
            "pid": os.getpid(),
            "mode": ctx["mode"],
            "model": ctx["model"],
            "label": ctx["label"],
            "session": ctx["session"],
            "prompt": prompt,
            "env": {k: v for k, v in os.environ.items() if k.startswith("PALLIUM_WORKFLOW_")},
        }
    )
    if rule.get("kill_orchestrator") and os.environ.get("PALLIUM_WORKFLOW_ORCHESTRATOR_PID"):
        os.kill(int(os.environ["PALLIUM_WORKFLOW_ORCHESTRATOR_PID"]), 9)  # SIGKILL
    if rule.get("delay"):
        time.sleep(float(rule["delay"]))
    if rule.get("hang"):
        if rule.get("spawn_child"):
            _leave_grandchild(float(rule["hang"]) * 4)
        time.sleep(float(rule["hang"]))
    for rel, content in (rule.get("write") or {}).items():
        if os.path.dirname(rel):
            os.makedirs(os.path.dirname(rel), exist_ok=True)
        _write(rel, content)
    for rel, content in (rule.get("append") or {}).items():
        with open(rel, "a", encoding="utf-8") as handle:
            handle.write(content)
    for rel, (old, new) in (rule.get("replace") or {}).items():
        _write(rel, _read(rel).replace(old, new))
    for rel in rule.get("delete") or []:
        if os.path.lexists(rel):
            os.unlink(rel)
    if rule.get("crash_after_write"):
        os.kill(os.getpid(), 9)  # SIGKILL, as an OOM kill or a crash would
    if rule.get("stderr"):
        print(rule["stderr"], file=sys.stderr)
    failure = ERROR_TEXT.get(rule.get("error_class", ""))
    reply = rule.get("reply", "ok")
    return rule, reply if isinstance(reply, str) else _dumps(reply), failure


def _leave_grandchild(seconds: float) -> None:
    """Start a sleeper in this worker's process group, as a CLI that shells out would (for kill tests)."""
    import subprocess

    subprocess.Popen([sys.executable, "-S", "-c", f"import time; time.sleep({seconds})"])


def _choose(prompt: str, ctx: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    scenario_path = os.environ.get("PALLIUM_FAKE_SCENARIO")
    if not scenario_path:
        return {}, None
    rules = _loads(_read(scenario_path)).get("rules", [])
    candidates = [
        (i, rule)
        for i, rule in enumerate(rules)
        if _found(rule.get("match", ""), prompt)
        and all(ctx.get(key) == want for key, want in (rule.get("when") or {}).items())
    ]
    if not any("times" in rule for _, rule in candidates):  # no counter to consult: no state file to lock
        return (candidates[0][1], candidates[0][0]) if candidates else ({}, None)
    import fcntl

    state_path = os.environ.get("PALLIUM_FAKE_STATE") or scenario_path + ".state"
    with open(state_path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # counters are shared by concurrent workers and later processes
        handle.seek(0)
        state = _loads(handle.read() or "{}")
        hits = state.setdefault("hits", {})
        for i, rule in candidates:
            if "times" in rule and hits.get(str(i), 0) >= int(rule["times"]):
                continue
            hits[str(i)] = hits.get(str(i), 0) + 1
            handle.seek(0)
            handle.truncate()
            handle.write(_dumps(state))
            return rule, i
    return {}, None


def _found(pattern: str, prompt: str) -> bool:
    """`re.search(pattern, prompt)`, without importing `re` for a pattern that is plain text."""
    if not any(char in pattern for char in ".^$*+?{}[]\\|()"):
        return pattern in prompt
    import re

    return re.search(pattern, prompt) is not None


def _session_known(session: str) -> bool:
    path = os.environ.get("PALLIUM_FAKE_SESSIONS")
    if not path or not os.path.exists(path):
        return path is None  # without a registry, every session "exists"
    return session in _read(path).split()


def _remember_session(session: str) -> None:
    path = os.environ.get("PALLIUM_FAKE_SESSIONS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(session + "\n")


def _log(entry: dict[str, Any]) -> None:
    path = os.environ.get("PALLIUM_FAKE_LOG")
    if path:
        import fcntl

        with open(path, "a", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.write(_dumps(entry) + "\n")


def _finish(rule: dict[str, Any], *, failed: bool) -> int:
    code = int(rule.get("exit", 0))
    return code if code or not failed else 1


def _uuid() -> str:
    """A random version-4 UUID, as `uuid.uuid4()` gives, without importing `uuid`."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


# JSON through CPython's `_json` accelerator directly: the `json` package imports `re`, which costs
# more than the rest of the fake's start. Anything these do not handle falls back to `json` itself.


class _Decoding:
    """The settings `_json.make_scanner` reads, as `json.JSONDecoder()` has them by default."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


def _loads(text: str) -> Any:
    text = text.strip(" \t\n\r")
    try:
        import _json

        value, end = _json.make_scanner(_Decoding)(text, 0)  # type: ignore[arg-type]  # a context duck-typed as the decoder
        if end == len(text):
            return value
    except (ImportError, StopIteration, ValueError):
        pass
    import json

    return json.loads(text)  # the slow path, also the one that says what is wrong with bad JSON


def _dumps(value: Any) -> str:
    """`json.dumps(value)` for the plain values the fake writes (str keys, str, int, float, bool, None)."""
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:
        import json

        return json.dumps(value)
    if isinstance(value, str):
        return quote(value)
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__repr__(value)
    if isinstance(value, float) and value == value and value not in (float("inf"), float("-inf")):
        return float.__repr__(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_dumps(item) for item in value) + "]"
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return "{" + ", ".join(f"{quote(key)}: {_dumps(item)}" for key, item in value.items()) + "}"
    import json

    return json.dumps(value)


def _parse(args: list[str], value_flags: set[str]) -> tuple[dict[str, Any], list[str]]:
    opts: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and arg != "-":
            name, eq, value = arg.partition("=")
            if name in value_flags and not eq:
                value = args[i + 1] if i + 1 < len(args) else ""
                i += 1
            opts[name] = value if (name in value_flags) else True
        else:
            positional.append(arg)
        i += 1
    return opts, positional


if __name__ == "__main__":
    sys.exit(main())
