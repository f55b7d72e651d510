"""The dispatcher: resolve the provider, run the call through its dialect, check the answer's schema.

Every worker process in Pallium starts here (through `process.run_worker`); a layout test forbids
spawning elsewhere. Resolution order: the call's `provider`, then `PALLIUM_WORKFLOW_PROVIDER`, then
the steering agent detected from the environment (Claude Code, Codex), then `codex`. A wrapper
configured as `PALLIUM_WORKFLOW_PROVIDER_<NAME>_COMMAND` takes precedence over a built-in of that name.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from kernel.errors import PalliumError
from kernel.providers import process
from kernel.providers.contract import MODES, Failure, ProviderRequest, ProviderResult
from kernel.providers.dialects import ClaudeDialect, CodexDialect, CommandDialect, Dialect, Refused, fake_command
from kernel.providers.schema import check_schema, extract_json, schema_errors

__all__ = ["BUILT_IN", "confines_read_only", "dispatch", "provider_problem", "resolve_provider", "wrapper_variable"]

BUILT_IN = ("claude", "codex", "openai", "fake")


def resolve_provider(requested: str | None, env: Mapping[str, str] = os.environ) -> str:
    """The provider a call runs on; `""` and `"default"` count as unset."""
    for candidate in (requested, env.get("PALLIUM_WORKFLOW_PROVIDER")):
        if candidate and candidate != "default":
            return candidate
    if env.get("CLAUDECODE") or env.get("CLAUDE_CODE_ENTRYPOINT"):
        return "claude"
    if env.get("CODEX_SANDBOX") or env.get("CODEX_THREAD_ID") or env.get("CODEX_MANAGED_BY_NPM"):
        return "codex"
    return "codex"


def provider_problem(provider: str) -> str | None:
    """Why a call on `provider` would fail before it starts (not installed, not configured), or None.

    The same test `dispatch` applies to each call, asked once up front: a run that is going to need
    the provider can refuse to start instead of failing every agent it reaches.
    """
    if provider == "openai" and not os.environ.get(wrapper_variable(provider)):
        return None  # its endpoint and key are checked by the call itself
    dialect = _dialect(provider)
    if dialect is None:
        return f"provider {provider!r} is not configured; set {wrapper_variable(provider)}"
    if isinstance(dialect, ClaudeDialect | CodexDialect) and _missing_binary(dialect.name):
        return f"{dialect.name} is not installed or not on PATH"
    return None


def wrapper_variable(provider: str) -> str:
    return "PALLIUM_WORKFLOW_PROVIDER_" + re.sub(r"[^A-Za-z0-9]", "_", provider).upper() + "_COMMAND"


async def dispatch(
    req: ProviderRequest,
    *,
    on_spawn: Callable[[int, int | None], None] | None = None,
    on_session: Callable[[str], None] | None = None,
) -> ProviderResult:
    """Run one worker call and return its classified result; bad requests raise `invalid_input`.

    `on_session(id)` hears a native session id as soon as the CLI streams it (codex's thread id, in
    its first event), before the call ends: a caller that records it durably can resume the session
    even if the worker or the orchestrator dies mid-turn.
    """
    _check_request(req)
    provider = resolve_provider(req.provider)
    req = replace(req, provider=provider)
    if provider == "openai" and not os.environ.get(wrapper_variable(provider)):
        from kernel.providers.openai_chat import call_openai

        return _checked(req, await call_openai(req))
    dialect = _dialect(provider)
    if dialect is None:
        return ProviderResult(
            provider,
            failure=Failure(
                "not_configured",
                f"provider {provider!r} is not configured; set {wrapper_variable(provider)}",
                "unknown_provider",
            ),
        )
    if isinstance(dialect, ClaudeDialect | CodexDialect) and _missing_binary(dialect.name):
        return ProviderResult(
            provider,
            failure=Failure("not_configured", f"{dialect.name} is not installed or not on PATH", "missing_binary"),
        )
    from kernel.threads import in_pool

    try:
        workdir, invocation = await in_pool(_prepared, dialect, req)
    except Refused as refused:
        return ProviderResult(provider, failure=refused.failure)
    try:
        on_line = _session_watch(dialect, on_session)
        done = await process.run_worker(invocation, timeout=req.timeout, on_spawn=on_spawn, on_line=on_line)
        if done.missing:
            result = ProviderResult(
                provider,
                failure=Failure(
                    "not_configured",
                    f"cannot start {invocation.argv[0]}: {done.stderr.decode(errors='replace')}",
                    "missing_binary",
                ),
            )
        elif done.timed_out:
            result = ProviderResult(
                provider,
                failure=Failure("timeout", f"no answer within {req.timeout:g}s; its process group was killed"),
                exit_code=done.exit_code,
            )
        else:
            result = dialect.parse(req, done, workdir)
        result = replace(result, provider=provider, duration_ms=done.duration_ms)
    finally:
        await in_pool(shutil.rmtree, workdir, ignore_errors=True)  # a few ms each on a busy disk: not on the loop
    return _checked(req, result)


def _prepared(dialect: Dialect, req: ProviderRequest) -> tuple[Path, process.Invocation]:
    """A call's private folder and its invocation, made in the pool: creating the folder and its prompt
    and session files costs a few ms on a busy disk, and the whole first wave of a fan-out waits on the
    event loop while one call's files are made."""
    workdir = Path(tempfile.mkdtemp(prefix="pallium-call-"))
    try:
        return workdir, dialect.prepare(req, workdir)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def confines_read_only(requested: str | None) -> bool:
    """Whether the provider itself keeps a read-only worker from writing (claude's tool list, codex's
    sandbox, the openai endpoint's lack of tools); the fake and command wrappers promise nothing."""
    provider = resolve_provider(requested)
    if provider == "openai":
        return not os.environ.get(wrapper_variable(provider))
    return isinstance(_dialect(provider), ClaudeDialect | CodexDialect)


def _session_watch(dialect: Dialect, on_session: Callable[[str], None] | None) -> Callable[[bytes], None] | None:
    """A stdout line watcher that reports each new session id the dialect sees streamed, or None."""
    session_of = getattr(dialect, "session_of", None)
    if on_session is None or session_of is None:
        return None
    seen: set[str] = set()

    def watch(line: bytes) -> None:
        found = session_of(line)
        if found and found not in seen:
            seen.add(found)
            on_session(found)

    return watch


def _dialect(provider: str) -> Dialect | None:
    command = os.environ.get(wrapper_variable(provider))
    if command:
        return CommandDialect(provider, command)
    if provider == "claude":
        return ClaudeDialect()
    if provider == "codex":
        return CodexDialect()
    if provider == "fake":
        return CommandDialect("fake", fake_command())
    return None


def _checked(req: ProviderRequest, result: ProviderResult) -> ProviderResult:
    """Attach the parsed JSON; with a schema, a reply that is not JSON or fails it becomes a `schema` failure."""
    if not result.ok:
        return result
    if req.schema is None:
        try:
            return replace(result, output=json.loads(result.text))
        except ValueError:
            return result
    try:
        value = extract_json(result.text)
    except ValueError:
        return replace(result, failure=Failure("schema", "the reply holds no JSON value", "not_json"))
    problems = schema_errors(value, req.schema)
    if problems:
        return replace(result, output=value, failure=Failure("schema", "; ".join(problems), "schema_mismatch"))
    return replace(result, output=value)


def _check_request(req: ProviderRequest) -> None:
    if req.mode not in MODES:
        raise PalliumError(
            "invalid_input",
            f"mode must be one of {', '.join(MODES)}, not {req.mode!r}",
            details={"field": "mode"},
            hint=f"pass `mode` as one of {', '.join(MODES)} (in a script: `agent(prompt, {{mode}})`)",
        )
    if req.schema is not None:
        check_schema(req.schema)
    if req.timeout is not None and req.timeout < 0:
        raise PalliumError(
            "invalid_input",
            "timeout must be 0 (none) or positive seconds",
            details={"field": "timeout"},
            hint="pass `timeout` (CLI `--agent-timeout`) as seconds above 0, or 0 for none",
        )
    if not Path(req.cwd).is_dir():
        raise PalliumError(
            "invalid_input",
            f"working directory {str(req.cwd)!r} does not exist",
            details={"field": "cwd"},
            hint="run from an existing folder, or pass one that exists as `cwd` (CLI `--cwd`)",
        )


def _missing_binary(program: str) -> bool:
    configured = os.environ.get(f"PALLIUM_{program.upper()}_BIN")
    return shutil.which(configured or program) is None
