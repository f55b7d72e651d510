"""Machines made of processes, for the scale-out tests and benchmark: a git remote, clones, homes, workers.

Each "machine" is a folder with its own `PALLIUM_HOME` (and, for an orchestrator, its own clone of
the remote); processes talk only through the database URL and the git remote, as separate hosts
would. The `sh` agent is a wrapper command: it sleeps for the `nap N` its prompt names, writes one
line per execution into its machine's log (so tests count executions without trusting the queue),
appends to `notes.txt` when the prompt says `edit`, and replies with the prompt's first words.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SH_AGENT", "Machine", "make_remote", "pallium"]

SH_AGENT = (
    'p="$PALLIUM_WORKFLOW_PROMPT_FILE"; '
    "d=$(sed -n 's/.*nap \\([0-9.]*\\).*/\\1/p' \"$p\" | head -n 1); "
    'echo "$PALLIUM_WORKFLOW_AGENT_ID" >> "$PALLIUM_RIG_LOG"; '
    'sleep "${d:-0}"; '
    'if grep -q "edit" "$p"; then head -c 80 "$p" >> notes.txt; echo >> notes.txt; fi; '
    # a team member's turn: an idle decision that names the member, so runs compare member by member
    'm=$(sed -n "s/^You are \\([A-Za-z0-9_-]*\\),.*/\\1/p" "$p" | head -n 1); '
    'if [ -n "$m" ]; then printf \'{"status": "idle", "status_reason": "", "summary": "%s looked"}\' "$m"; exit 0; fi; '
    'printf "reply to %s" "$(head -c 40 "$p")"'
)


def pallium() -> list[str]:
    """The CLI of the Python running this (a venv's console script beside it)."""
    beside = Path(sys.executable).parent / "pallium"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "pallium_mcp.launcher"]


def _git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=rig", "-c", "user.email=rig@localhost", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def make_remote(root: Path) -> Path:
    """A bare remote holding one commit with a few files."""
    remote = root / "remote.git"
    seed = root / "seed"
    seed.mkdir(parents=True)
    _git("init", "-q", "-b", "main", cwd=seed)
    for n in range(3):
        (seed / f"file{n}.txt").write_text(f"line {n}\n")
    (seed / "notes.txt").write_text("notes\n")
    _git("add", ".", cwd=seed)
    _git("commit", "-qm", "seed", cwd=seed)
    _git("init", "-q", "--bare", "-b", "main", str(remote), cwd=root)
    _git("push", "-q", str(remote), "main", cwd=seed)
    return remote


@dataclass
class Machine:
    """One pretend host: a folder with its own home, log, and (when asked) a clone of the remote."""

    root: Path
    name: str
    agent: str = SH_AGENT

    def __post_init__(self) -> None:
        self.folder = self.root / self.name
        self.home = self.folder / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.log = self.folder / "executions.log"
        self.log.touch()

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PALLIUM_")}
        env.update(
            PALLIUM_HOME=str(self.home), HOME=str(self.folder), PALLIUM_RESIDENT="off",
            PALLIUM_WORKFLOW_PROVIDER_SH_COMMAND=self.agent, PALLIUM_RIG_LOG=str(self.log),
        )  # fmt: skip
        env.update(extra)
        return env

    @property
    def repo(self) -> Path:
        """Its clone (made by `clone`)."""
        return self.folder / "repo"

    def clone(self, remote: Path) -> Path:
        repo = self.repo
        if not repo.exists():
            _git("clone", "-q", str(remote), str(repo), cwd=self.folder)
        return repo

    def executions(self) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line]

    def worker(self, url: str, *, providers: str = "sh", concurrency: int = 4, lease: float = 30,
               idle_exit: float | None = None, **extra: str) -> subprocess.Popen[bytes]:  # fmt: skip
        argv = [*pallium(), "worker", "--database", url, "--providers", providers, "--concurrency", str(concurrency),
                "--repo-cache", str(self.folder / "cache"), "--lease-seconds", str(lease), "--json"]  # fmt: skip
        if idle_exit is not None:
            argv += ["--idle-exit-seconds", str(idle_exit)]
        with open(self.folder / "worker.out", "ab") as out:  # the child keeps its own copy of the handle
            return subprocess.Popen(argv, cwd=self.folder, env=self.env(**extra), stdout=out, stderr=subprocess.STDOUT)

    def workflow(self, repo: Path, script: str, *, url: str | None, run_id: str, concurrency: int = 16,
                 lease: float = 30, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:  # fmt: skip
        argv = [*pallium(), "workflow", "run", "rig", "--source", script, "--id", run_id, "--json",
                "--authority", "edit", "--max-concurrent-agents", str(concurrency)]  # fmt: skip
        if url is not None:
            argv += ["--database", url]
        environ = self.env(PALLIUM_SCALEOUT_LEASE_TTL=str(lease), **(env or {}))
        with open(self.folder / f"{run_id}.out", "wb") as out:  # the child keeps its own copy of the handle
            return subprocess.Popen(argv, cwd=repo, env=environ, stdout=out, stderr=subprocess.PIPE)

    def answer(self, run_id: str) -> dict[str, object]:
        return json.loads((self.folder / f"{run_id}.out").read_text())


def wait_for(condition, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
