"""Objective checks: Pallium runs a command itself, in a throwaway worktree seeded from the run's staged
edits, and reads the verdict from the exit code and the test runner's output.

Only commands the run allows may run: those given with `--allow-command`, those listed in the
repository's `.pallium/config.toml` under `[workflows] allow_commands`, and the verification commands
the repository service infers for the work (asked once per attempt, when a check first needs them).
A script cannot run anything else, so a model-written plan cannot turn `check` into a shell. The
last two are the repository's own commands (`make test` runs its Makefile, pytest its conftest.py):
in a repository the user has not trusted they are offered, not run, unless the run was started with
`--allow-repo-commands` (docs/trust.md).
"""

from __future__ import annotations

import asyncio
import itertools
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from kernel import trust
from kernel.errors import PalliumError
from kernel.execution import Run
from kernel.providers.process import Invocation, run_worker
from kernel.testfailures import parse_failures
from kernel.worktrees import tree

__all__ = ["CommandPolicy", "allowed_commands", "run_check"]

DEFAULT_CHECK_TIMEOUT = 600.0
TAIL_BYTES = 4000
_counter = itertools.count(1)


def allowed_commands(repo: Path, explicit: list[str]) -> list[str]:
    """The commands a run's checks may execute: its own allow-list, plus the repository's configuration
    when the repository is trusted (`pallium trust`) and its configuration unchanged since."""
    allowed = [c.strip() for c in explicit if c.strip()]
    return list(dict.fromkeys(allowed + (repo_commands(repo) if trust.state(repo).trusted else [])))


def repo_commands(repo: Path) -> list[str]:
    """`[workflows] allow_commands` of the repository's `.pallium/config.toml`, trusted or not."""
    config = repo / ".pallium" / "config.toml"
    if not config.is_file() or config.is_symlink():
        return []
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PalliumError(
            "invalid_input",
            f"{config} is not valid TOML: {exc}",
            hint=f"fix or remove {config}",
            details={"path": str(config)},
        ) from None
    listed = data.get("workflows", {}).get("allow_commands", [])
    if not isinstance(listed, list) or not all(isinstance(c, str) for c in listed):
        raise PalliumError(
            "invalid_input",
            f"{config}: workflows.allow_commands must be a list of strings",
            hint=f"fix {config}",
            details={"path": str(config)},
        )
    return [c.strip() for c in listed if c.strip()]


def ignored_entries(repo: Path) -> list[str]:
    """What the repository ships that this run does not honour because the repository is not trusted."""
    state = trust.state(repo)
    if state.trusted:
        return []
    return list(state.files)


def may_run_repo_commands(repo: Path, allow_repo_commands: bool) -> bool:
    """Whether the repository's own commands may run: it is trusted, or this run was allowed to run them."""
    return allow_repo_commands or trust.state(repo).trusted


class CommandPolicy:
    """What one attempt's checks may run: the explicit commands, then the inferred ones, asked for once.

    With `run_inferred` False (an untrusted repository), the inferred commands are still found and
    offered, but a check naming one is refused with the way to allow it.
    """

    def __init__(
        self,
        explicit: list[str],
        infer: Callable[[], Awaitable[list[str]]] | None = None,
        *,
        run_inferred: bool = True,
        repo: Path | None = None,
    ) -> None:
        self.explicit = list(explicit)
        self._infer = infer
        self._inferred: list[str] | None = None
        self._lock = asyncio.Lock()
        self.run_inferred = run_inferred
        self.repo = repo

    @property
    def inferred(self) -> list[str] | None:
        """The inferred commands, or None while nobody needed them yet."""
        return self._inferred

    async def allowed(self, command: str) -> list[str]:
        """The allowed commands; the inferred ones are asked for only when `command` is not explicit."""
        if command.strip() in self.explicit or self._infer is None:
            return self.explicit
        async with self._lock:
            if self._inferred is None:
                try:
                    self._inferred = [c.strip() for c in await self._infer() if c.strip()]
                except PalliumError:
                    self._inferred = []  # no index or no repository answer: only explicit commands run
        if not self.run_inferred:
            if command.strip() in self._inferred:
                raise _offered_not_run(command.strip(), self.repo)
            return self.explicit
        return list(dict.fromkeys(self.explicit + self._inferred))


def _offered_not_run(command: str, repo: Path | None) -> PalliumError:
    where = trust.trust_command(repo) if repo is not None else "pallium trust --authority admin"
    return PalliumError(
        "authority_exceeded",
        f"check({command!r}) is the repository's own verification command: running it runs the repository's "
        "code (its Makefile, conftest.py or package scripts), and this repository is not trusted, so it is "
        "offered, not run",
        hint=f"read it, then trust the repository with `{where}`, or start the run again with "
        "--allow-repo-commands (MCP allow_repo_commands: true) to run the repository's commands this once",
        details={"command": command, "offered": True, "repo": str(repo) if repo else None},
    )


async def run_check(run: Run, command: str, *, allowed: list[str], timeout: float | None) -> dict[str, Any]:
    """Run `command` against the run's staged state and report `{ok, command, exit_code, ...failures}`."""
    command = command.strip()
    if command not in allowed:
        raise PalliumError(
            "authority_exceeded",
            f"check({command!r}) is not an allowed command for this run",
            hint="allow it with --allow-command, or list it in .pallium/config.toml under [workflows] "
            "allow_commands; the repository's inferred verification commands are allowed too (see "
            "`pallium workflow preflight`)",
            details={"command": command, "allowed": allowed},
        )
    commit = run.staging.head()
    name = f"check-{next(_counter)}"
    path = tree.create(run.store, repo=run.repo, run_id=run.run_id, name=name, commit=commit, purpose="check")
    try:
        done = await run_worker(Invocation(["sh", "-c", command], cwd=path), timeout=timeout or None)
    finally:
        tree.remove(run.store, path)
    output = (done.stdout + b"\n" + done.stderr).decode("utf-8", "replace")
    failures = parse_failures(output)
    ok = done.exit_code == 0 and not done.timed_out
    if done.missing:
        summary = "the shell could not be started"
    elif done.timed_out:
        summary = f"timed out after {timeout:g}s"
    elif ok:
        summary = "passed"
    else:
        summary = f"failed with exit code {done.exit_code}" + (f", {len(failures)} failing test(s)" if failures else "")
    return {
        "ok": ok,
        "command": command,
        "exit_code": done.exit_code,
        "duration_ms": done.duration_ms,
        "summary": summary,
        "output_tail": output[-TAIL_BYTES:],
        "failures": [f.to_dict() for f in failures],
    }
