"""How each CLI is asked and how its answer is read: `claude -p`, `codex exec`, and command wrappers.

A dialect turns a request into an `Invocation` (argv, environment, stdin) and a finished process into
a `ProviderResult`, classifying a failure from the CLI's own output right here, where its format is
known. Schema checking of the answer is the dispatcher's job, shared by every dialect.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any, Protocol

from kernel.providers.contract import ErrorClass, Failure, ProviderRequest, ProviderResult, Usage
from kernel.providers.process import Completed, Invocation
from kernel.providers.schema import normalize_for_provider

__all__ = ["ClaudeDialect", "CodexDialect", "CommandDialect", "Dialect", "Refused", "classify_text", "schema_suffix"]

_READ_TOOLS = "Read,Grep,Glob,LS,Bash(ls:*),Bash(cat:*),Bash(grep:*),Bash(wc:*),Bash(git log:*),Bash(git diff:*)"
_EDIT_TOOLS = (
    "Read,Grep,Glob,LS,Edit,Write,MultiEdit,Bash(pytest:*),Bash(python -m pytest:*),Bash(ruff:*),Bash(go test:*),"
    "Bash(go build:*),Bash(go vet:*),Bash(gofmt:*),Bash(npm test:*),Bash(npm run:*),Bash(yarn:*),Bash(pnpm:*),"
    "Bash(cargo:*),Bash(make:*),Bash(ls:*),Bash(cat:*),Bash(grep:*),Bash(wc:*),Bash(git diff:*),Bash(git status:*)"
)
_NETWORK_TOOLS = "WebFetch,WebSearch,Bash(curl:*),Bash(wget:*),Bash(gh:*)"
_PATTERNS: tuple[tuple[ErrorClass, re.Pattern[str]], ...] = (
    (
        "auth",
        re.compile(
            r"(?i)not logged in|please run /login|invalid api key|unauthori[sz]ed|\b401\b|"
            r"authentication (?:failed|error)|not authorized"
        ),
    ),
    ("quota", re.compile(r"(?i)usage limit|quota|credit balance|insufficient_quota|billing")),
    ("rate_limit", re.compile(r"(?i)rate.?limit|\b429\b|too many requests|overloaded")),
)
MAX_MESSAGE = 4096
_SHELL_SIGNAL_CODES = {128 + 6, 128 + 9, 128 + 11, 128 + 15}


class Refused(Exception):
    """A dialect cannot run this request safely; the dispatcher returns `failure` without spawning."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


class Dialect(Protocol):
    name: str

    def prepare(self, req: ProviderRequest, workdir: Path) -> Invocation: ...

    def parse(self, req: ProviderRequest, done: Completed, workdir: Path) -> ProviderResult: ...


def classify_text(text: str) -> ErrorClass | None:
    """The failure class a CLI's known failure text names (not logged in, quota, rate limit), if any."""
    for error_class, pattern in _PATTERNS:
        if pattern.search(text):
            return error_class
    return None


def schema_suffix(schema: dict[str, Any]) -> str:
    """The prompt's closing words with the schema shown indented; kept per schema, since `json.dumps` with
    `indent` is the pure-Python encoder, and a team sends every turn the same decision schema."""
    return _suffix_of(json.dumps(schema))


@functools.lru_cache(maxsize=64)
def _suffix_of(canonical: str) -> str:
    shown = json.dumps(normalize_for_provider(json.loads(canonical)), indent=2)
    return (
        "\n\nReply with a single bare JSON value (no prose, no code fence) that validates against this JSON "
        f"Schema:\n{shown}\n"
    )


def worker_env(req: ProviderRequest, provider: str) -> dict[str, str]:
    """Variables every worker gets: who it is, so logs and wrappers can tell calls apart."""
    return {
        "PALLIUM_WORKFLOW_RUN_ID": req.run_id,
        "PALLIUM_WORKFLOW_AGENT_ID": req.agent_id,
        "PALLIUM_WORKFLOW_LABEL": req.label,
        "PALLIUM_WORKFLOW_PROVIDER": provider,
        "PALLIUM_WORKFLOW_MODE": req.mode,
        "PALLIUM_WORKFLOW_MODEL": req.model or "",
        "PALLIUM_WORKFLOW_NETWORK": "1" if req.network else "0",
        "PALLIUM_WORKFLOW_CWD": str(req.cwd),
        "PALLIUM_WORKFLOW_ORCHESTRATOR_PID": str(os.getpid()),
    }


class ClaudeDialect:
    """`claude -p --output-format json`, prompt on stdin; `is_error` decides failure, not the exit code."""

    name = "claude"

    def prepare(self, req: ProviderRequest, workdir: Path) -> Invocation:
        argv = [_binary("claude"), "-p", "--output-format", "json", "--safe-mode", "--strict-mcp-config"]
        if req.model:
            argv += ["--model", req.model]
        if req.resume_session:
            argv += ["--resume", req.resume_session]
        elif req.new_session:
            argv += ["--session-id", req.new_session]
        denied = [] if req.network else [_NETWORK_TOOLS]
        if req.mode == "read-only":
            allowed = _READ_TOOLS
            denied.insert(0, "Edit,Write,MultiEdit,NotebookEdit")
        else:
            argv += ["--permission-mode", "acceptEdits"]
            extra = os.environ.get("PALLIUM_WORKFLOW_CLAUDE_ALLOWED_TOOLS", "").strip(", ")
            allowed = _EDIT_TOOLS + ("," + extra if extra else "")
        if req.network:
            allowed += ",WebFetch,WebSearch"
        argv += ["--allowedTools", allowed]
        if denied:
            argv += ["--disallowedTools", ",".join(denied)]
        prompt = req.prompt + (schema_suffix(req.schema) if req.schema else "")
        return Invocation(argv, req.cwd, worker_env(req, self.name), stdin=prompt.encode("utf-8"))

    def parse(self, req: ProviderRequest, done: Completed, workdir: Path) -> ProviderResult:
        out = done.stdout.decode("utf-8", "replace")
        envelope = _claude_envelope(out)
        if envelope is None:  # `--output-format json` was asked: no envelope is never an answer
            text = (out + "\n" + done.stderr.decode("utf-8", "replace")).strip()
            if "No conversation found" in text:
                return _failed(self.name, done, Failure("unknown", _clip(text), "session_not_found"))
            if done.exit_code != 0:
                return _failed(self.name, done, _from_exit(done, text))
            failure = Failure(
                classify_text(text) or "crash",
                _clip(f"claude printed no JSON result envelope. {text}".strip()),
                "not_json",
            )
            return _failed(self.name, done, failure)
        usage_block = envelope.get("usage") or {}
        usage = Usage(
            usage_block.get("input_tokens"), usage_block.get("output_tokens"), _number(envelope.get("total_cost_usd"))
        )
        result = envelope.get("result")
        text = result if isinstance(result, str) else ""
        session = envelope.get("session_id")
        if envelope.get("is_error"):
            status = envelope.get("api_error_status")
            by_status: dict[Any, ErrorClass] = {401: "auth", 403: "auth", 429: "rate_limit", 402: "quota"}
            error_class: ErrorClass = by_status.get(status) or classify_text(text) or "unknown"
            failure = Failure(error_class, _clip(text or "claude reported an error"))
            return ProviderResult(
                self.name, text=text, usage=usage, session_id=session, failure=failure, exit_code=done.exit_code
            )
        output = envelope.get("structured_output")
        if output is not None and req.schema:
            text = json.dumps(output)
        return ProviderResult(self.name, text=text, usage=usage, session_id=session, exit_code=done.exit_code)


class CodexDialect:
    """`codex exec` with the sandbox pinned per mode; flags go before `resume`, which rejects them after.

    Read-only work runs in the user's own tree, so it is always `--sandbox read-only`. That sandbox has
    no network switch (`sandbox_workspace_write.network_access` applies to workspace-write only), and
    opening workspace-write to get the network would let the worker write to the user's tree, so a
    read-only call with a network grant is refused rather than silently run without the network.
    """

    name = "codex"

    def session_of(self, line: bytes) -> str | None:
        """The thread id a streamed event line announces (`thread.started`, codex's first event), if it is one."""
        if b"thread.started" not in line:
            return None
        try:
            event = json.loads(line)
        except ValueError:
            return None
        thread = event.get("thread_id") if isinstance(event, dict) and event.get("type") == "thread.started" else None
        return thread if isinstance(thread, str) and thread else None

    def prepare(self, req: ProviderRequest, workdir: Path) -> Invocation:
        if req.mode == "read-only" and req.network:
            raise Refused(
                Failure(
                    "not_configured",
                    "codex cannot give a read-only worker network access: its read-only sandbox has no network "
                    "switch, and workspace-write would let the worker write to the tree it reads. Drop the "
                    "network grant, run the call as edit/check (in its own worktree), or use claude",
                    "network_read_only",
                )
            )
        last = workdir / "last-message.txt"
        argv = [
            _binary("codex"),
            "exec",
            "--cd",
            str(req.cwd),
            "--json",
            "--skip-git-repo-check",
            "--output-last-message",
            str(last),
        ]
        if req.mode == "read-only":
            argv += ["--sandbox", "read-only"]
        else:
            argv += [
                "--sandbox",
                "workspace-write",
                "-c",
                f"sandbox_workspace_write.network_access={'true' if req.network else 'false'}",
            ]
        if req.model:
            argv += ["--model", req.model]
        if req.schema:
            schema_file = workdir / "schema.json"
            schema_file.write_text(json.dumps(normalize_for_provider(req.schema)), encoding="utf-8")
            argv += ["--output-schema", str(schema_file)]
        if req.resume_session:
            argv += ["resume", req.resume_session]
        argv.append("-")
        return Invocation(argv, req.cwd, worker_env(req, self.name), stdin=req.prompt.encode("utf-8"))

    def parse(self, req: ProviderRequest, done: Completed, workdir: Path) -> ProviderResult:
        session, usage, message, failed, errors, events = None, Usage(), "", None, [], 0
        out = done.stdout.decode("utf-8", "replace")
        for line in out.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            kind = event.get("type") if isinstance(event, dict) else None
            events += kind is not None
            if kind == "thread.started":
                session = event.get("thread_id")
            elif kind == "turn.completed":
                block = event.get("usage") or {}
                usage = Usage(block.get("input_tokens"), block.get("output_tokens"), None)  # codex reports no USD
            elif kind == "turn.failed":
                failed = (event.get("error") or {}).get("message") or "turn failed"
            elif kind == "error":
                errors.append(str(event.get("message", "")))
            elif kind == "item.completed" and (event.get("item") or {}).get("type") == "agent_message":
                message = event["item"].get("text", "")
        last = workdir / "last-message.txt"
        text = last.read_text(encoding="utf-8") if last.exists() and last.stat().st_size else message
        stderr = done.stderr.decode("utf-8", "replace")
        if failed is not None:
            failure = Failure(classify_text(failed) or "unknown", _clip(failed))
        elif done.exit_code != 0:
            words = "\n".join([*errors, stderr]).strip()
            if "no rollout found" in words:
                failure = Failure("unknown", _clip(words), "session_not_found")
            else:
                failure = _from_exit(done, words)
        elif not events:  # `--json` was asked: a codex that printed no event at all did not run a turn
            words = (out + "\n" + stderr).strip()
            failure = Failure(
                classify_text(words) or "crash", _clip(f"codex printed no JSON events. {words}".strip()), "not_json"
            )
        else:
            failure = None
        return ProviderResult(
            self.name, text=text.strip(), usage=usage, session_id=session, failure=failure, exit_code=done.exit_code
        )


class CommandDialect:
    """Any CLI behind the wrapper contract of the original Pallium (`PALLIUM_WORKFLOW_*_FILE`)."""

    def __init__(self, name: str, command: str | list[str]) -> None:
        self.name = name
        self.command = command

    def prepare(self, req: ProviderRequest, workdir: Path) -> Invocation:
        prompt_file = workdir / "prompt.txt"
        fd = os.open(prompt_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(req.prompt + (schema_suffix(req.schema) if req.schema else ""))
        schema_file = workdir / "schema.json"
        if req.schema:
            schema_file.write_text(json.dumps(req.schema), encoding="utf-8")
        session_file = req.session_file or workdir / "session.txt"
        if req.session_file is not None:
            from kernel import writes

            # one link-refusing walk: `write_bytes` makes the missing folders on its way to the file
            writes.write_bytes(session_file, (req.resume_session or "").encode("utf-8"))
        else:
            session_file.write_text(req.resume_session or "", encoding="utf-8")
        env = {
            **worker_env(req, self.name),
            "PALLIUM_WORKFLOW_PROMPT_FILE": str(prompt_file),
            "PALLIUM_WORKFLOW_OUTPUT_FILE": str(workdir / "output.txt"),
            "PALLIUM_WORKFLOW_SCHEMA_FILE": str(schema_file) if req.schema else "",
            "PALLIUM_WORKFLOW_USAGE_FILE": str(workdir / "usage.json"),
            "PALLIUM_WORKFLOW_SESSION_FILE": str(session_file),
            "PALLIUM_WORKFLOW_REPO": str(req.cwd),
        }
        argv = ["/bin/sh", "-c", self.command] if isinstance(self.command, str) else list(self.command)
        return Invocation(argv, req.cwd, env)

    def parse(self, req: ProviderRequest, done: Completed, workdir: Path) -> ProviderResult:
        usage = _read_usage(workdir / "usage.json")
        session_file = req.session_file or workdir / "session.txt"
        session = session_file.read_text(encoding="utf-8").strip() or None if session_file.exists() else None
        output_file = workdir / "output.txt"
        text = output_file.read_text(encoding="utf-8") if output_file.exists() else ""
        if not text.strip():
            text = done.stdout.decode("utf-8", "replace")
        stderr = done.stderr.decode("utf-8", "replace")
        if done.exit_code != 0:
            failure = _from_exit(done, stderr or text)
            if done.exit_code in (126, 127) and isinstance(self.command, str):  # the shell could not run it
                failure = Failure("not_configured", failure.message, "missing_binary")
            if "No conversation found" in (stderr + text) or "no rollout found" in (stderr + text):
                failure = Failure("unknown", failure.message, "session_not_found")
            return ProviderResult(
                self.name,
                text=text.strip(),
                usage=usage,
                session_id=session,
                failure=failure,
                exit_code=done.exit_code,
            )
        if not text.strip():
            failure = Failure("crash", _clip(f"the wrapper wrote no output. {stderr}".strip()), "empty_output")
            return ProviderResult(self.name, usage=usage, session_id=session, failure=failure, exit_code=0)
        return ProviderResult(self.name, text=text.strip(), usage=usage, session_id=session, exit_code=0)


def fake_command() -> list[str]:
    """The argv of the fake provider shipped with Pallium (see `kernel.providers.fake.command`)."""
    from kernel.providers import fake

    return fake.command()


def _binary(program: str) -> str:
    configured = os.environ.get(f"PALLIUM_{program.upper()}_BIN")
    return configured or shutil.which(program) or program


def _claude_envelope(out: str) -> dict[str, Any] | None:
    try:
        data = json.loads(out)
    except ValueError:
        return None
    if isinstance(data, list):  # some versions print the whole event list; the last result is the answer
        results = [e for e in data if isinstance(e, dict) and e.get("type") == "result"]
        return results[-1] if results else None
    return data if isinstance(data, dict) and ("result" in data or "is_error" in data) else None


def _from_exit(done: Completed, words: str) -> Failure:
    if done.exit_code is not None and done.exit_code < 0:
        return Failure("crash", _clip(f"killed by signal {-done.exit_code}. {words}".strip()))
    if done.exit_code in _SHELL_SIGNAL_CODES:  # a shell reports its child's death by signal N as 128 + N
        return Failure("crash", _clip(f"killed by signal {done.exit_code - 128}. {words}".strip()))
    if not words.strip():
        return Failure("crash", f"exited {done.exit_code} with no output")
    return Failure(classify_text(words) or "unknown", _clip(words))


def _failed(name: str, done: Completed, failure: Failure) -> ProviderResult:
    return ProviderResult(name, failure=failure, exit_code=done.exit_code)


def _read_usage(path: Path) -> Usage:
    if not path.exists():
        return Usage()
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except ValueError:
        data = {}
    finally:
        path.unlink(missing_ok=True)
    if not isinstance(data, dict):
        return Usage()
    return Usage(_int(data.get("input_tokens")), _int(data.get("output_tokens")), _number(data.get("cost_usd")))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _clip(text: str) -> str:
    from kernel.secrets import redact

    return redact(text.strip())[0][:MAX_MESSAGE]
