"""Pallium's scripted provider: rehearse a workflow's shape without a model, and test every dialect.

Run as `python -m kernel.providers.fake`, or through shims named `claude` and `codex` (see `install`),
in which case it speaks that CLI's dialect: argv, stdin prompt, JSON envelope or JSONL events, and
the real CLIs' quirks. Otherwise it follows the wrapper contract (`PALLIUM_WORKFLOW_PROMPT_FILE`...).
Behaviour comes from the scenario in `PALLIUM_FAKE_SCENARIO`: `{"rules": [...]}`, first match wins.
This file imports only the standard library so the shims start fast (`python -S`).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["install", "main"]

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


def install(bin_dir: Path, names: tuple[str, ...] = ("claude", "codex")) -> dict[str, Path]:
    """Write executable shims for the fake under `bin_dir` (put it first on PATH); return their paths."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    shims = {}
    for name in names:
        shim = bin_dir / name
        shim.write_text(
            f'#!/bin/sh\nPALLIUM_FAKE_AS={name} exec "{sys.executable}" -S "{Path(__file__).resolve()}" "$@"\n',
            encoding="utf-8",
        )
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
    print(json.dumps(envelope))
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
        Path(out_file).write_text("", encoding="utf-8")  # the real CLI creates it empty at start
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
    events.append({"type": "thread.started", "thread_id": thread})
    events.append({"type": "turn.started"})
    rule, text, failure = _act(prompt, ctx)
    if rule.get("error_class") == "session":
        print(f"Error: thread/resume failed: no rollout found for thread id {thread}", file=sys.stderr)
        return 1
    _remember_session(thread)
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
            Path(out_file).write_text(text, encoding="utf-8")
    if "--json" in opts:
        for event in events:
            print(json.dumps(event))
    return _finish(rule, failed=failure is not None)


def _wrapper() -> int:
    env = os.environ
    prompt_file = env.get("PALLIUM_WORKFLOW_PROMPT_FILE")
    prompt = Path(prompt_file).read_text(encoding="utf-8") if prompt_file else sys.stdin.read()
    session_file = env.get("PALLIUM_WORKFLOW_SESSION_FILE")
    previous = (
        Path(session_file).read_text(encoding="utf-8").strip() if session_file and Path(session_file).exists() else ""
    )
    session = previous or f"fake-{_uuid().replace('-', '')[:12]}"
    ctx = {
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
        Path(out).write_text(text, encoding="utf-8")
    else:
        print(text)
    if env.get("PALLIUM_WORKFLOW_USAGE_FILE") and "usage" in rule:
        Path(env["PALLIUM_WORKFLOW_USAGE_FILE"]).write_text(json.dumps(rule["usage"]), encoding="utf-8")
    if session_file:
        Path(session_file).write_text(rule.get("session", session), encoding="utf-8")
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


def _act(prompt: str, ctx: dict[str, Any]) -> tuple[dict[str, Any], str, str | None]:
    """Find the rule, log the call, do its effects; return the rule, the reply text and a failure text."""
    ctx.setdefault("label", os.environ.get("PALLIUM_WORKFLOW_LABEL"))
    rule, index = _choose(prompt, ctx)
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
        path = Path(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    for rel, content in (rule.get("append") or {}).items():
        with open(rel, "a", encoding="utf-8") as handle:
            handle.write(content)
    for rel, (old, new) in (rule.get("replace") or {}).items():
        path = Path(rel)
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    for rel in rule.get("delete") or []:
        Path(rel).unlink(missing_ok=True)
    if rule.get("crash_after_write"):
        os.kill(os.getpid(), 9)  # SIGKILL, as an OOM kill or a crash would
    if rule.get("stderr"):
        print(rule["stderr"], file=sys.stderr)
    failure = ERROR_TEXT.get(rule.get("error_class", ""))
    reply = rule.get("reply", "ok")
    return rule, reply if isinstance(reply, str) else json.dumps(reply), failure


def _leave_grandchild(seconds: float) -> None:
    """Start a sleeper in this worker's process group, as a CLI that shells out would (for kill tests)."""
    import subprocess

    subprocess.Popen([sys.executable, "-S", "-c", f"import time; time.sleep({seconds})"])


def _choose(prompt: str, ctx: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
    scenario_path = os.environ.get("PALLIUM_FAKE_SCENARIO")
    if not scenario_path:
        return {}, None
    rules = json.loads(Path(scenario_path).read_text(encoding="utf-8")).get("rules", [])
    state_path = Path(os.environ.get("PALLIUM_FAKE_STATE") or scenario_path + ".state")
    import fcntl

    with open(state_path, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # counters are shared by concurrent workers and later processes
        handle.seek(0)
        state = json.loads(handle.read() or "{}")
        hits = state.setdefault("hits", {})
        for i, rule in enumerate(rules):
            if not re.search(rule.get("match", ""), prompt):
                continue
            if any(ctx.get(key) != want for key, want in (rule.get("when") or {}).items()):
                continue
            if "times" in rule and hits.get(str(i), 0) >= int(rule["times"]):
                continue
            hits[str(i)] = hits.get(str(i), 0) + 1
            handle.seek(0)
            handle.truncate()
            handle.write(json.dumps(state))
            return rule, i
    return {}, None


def _session_known(session: str) -> bool:
    path = os.environ.get("PALLIUM_FAKE_SESSIONS")
    if not path or not Path(path).exists():
        return path is None  # without a registry, every session "exists"
    return session in Path(path).read_text(encoding="utf-8").split()


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
            handle.write(json.dumps(entry) + "\n")


def _finish(rule: dict[str, Any], *, failed: bool) -> int:
    code = int(rule.get("exit", 0))
    return code if code or not failed else 1


def _uuid() -> str:
    import uuid

    return str(uuid.uuid4())


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
