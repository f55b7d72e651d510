"""The `git` program behind one door: running it, translating its failures, reading its status.

History walks and worktrees use the `git` program (much faster here than walking in-process);
every call goes through `run`, so a missing git or a failing command always becomes a
`PalliumError` naming the command and git's own words.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from kernel.errors import PalliumError

__all__ = [
    "Attempt",
    "StatusEntry",
    "WorkingTreeStatus",
    "attempt",
    "git_version",
    "head_commit",
    "prepare",
    "run",
    "run_async",
    "shown",
    "status",
]

# Stable, locale-free, pager-free output, and no prompts that could hang an agent's call.
_ENV = {"LC_ALL": "C", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}


def head_commit(repo_root: Path) -> str | None:
    """The commit HEAD names (None on an unborn branch), read from `.git` without starting git.

    A freshness check runs on every call an agent makes, and starting `git rev-parse` is most of
    its cost; the plain layout (a `.git` folder, a loose or packed branch ref, a detached HEAD) is
    read directly, and anything else (a linked worktree, a symbolic ref chain, a reftable) asks git.
    """
    git_dir = repo_root / ".git"
    try:
        head = (git_dir / "HEAD").read_text(encoding="ascii").strip() if git_dir.is_dir() else ""
        if _is_sha(head):
            return head
        if head.startswith("ref: refs/") and ".." not in head.split("/"):  # never a path out of `.git`
            ref = head[5:]
            loose = git_dir / ref
            if loose.is_file():
                sha = loose.read_text(encoding="ascii").strip()
                if _is_sha(sha):
                    return sha
            elif not (git_dir / "reftable").exists():
                packed = git_dir / "packed-refs"
                lines = packed.read_text(encoding="ascii").splitlines() if packed.is_file() else []
                for line in lines:
                    sha, _, name = line.partition(" ")
                    if name == ref and _is_sha(sha):
                        return sha
                return None  # an unborn branch: no loose and no packed ref
    except (OSError, UnicodeDecodeError):
        pass
    out = run(["rev-parse", "-q", "--verify", "HEAD"], repo_root, check=False).decode().strip()
    return out or None


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def shown(args: list[str]) -> str:
    """`git <args>` as a person would retype it: long `--format=` strings elided, so an error quotes
    the command that really failed (its options included), not just its first words."""
    words = []
    for arg in args:
        if arg.startswith(("--format=", "--pretty=")) and len(arg) > 24:
            words.append(arg.split("=", 1)[0] + "=…")
        else:
            words.append(arg if arg and all(c.isalnum() or c in "-_=./:@^~%" for c in arg) else repr(arg))
    return "git " + " ".join(words)


@dataclass(frozen=True)
class Attempt:
    """What one git run gave, failed or not: the caller decides whether a failure is fatal."""

    command: str  # as `shown` words it
    returncode: int
    stdout: bytes
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def why(self) -> str:
        """git's last words (the `fatal:` line), or the exit code."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1].strip() if lines else f"exit {self.returncode}"


def attempt(
    args: list[str],
    cwd: Path,
    *,
    timeout: float = 120,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
) -> Attempt:
    """Run `git <args>` and return what it printed and how it ended, without raising on a non-zero exit
    (a missing git or a timeout still raise, as `run` does); `env` adds variables."""
    done = _spawn(args, cwd, timeout=timeout, env=env, input=input)
    return Attempt(shown(args), done.returncode, done.stdout, done.stderr.decode("utf-8", "replace").strip())


def run(
    args: list[str],
    cwd: Path,
    *,
    check: bool = True,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    input: bytes | None = None,
) -> bytes:
    """Run `git <args>` in `cwd` and return its stdout as bytes; `env` adds variables, `input` feeds stdin.

    In a repository the user has not trusted, the repository's executable configuration is
    neutralised first (`kernel.git_guard`): no hook, fsmonitor, filter, textconv or merge driver runs.
    """
    done = _spawn(args, cwd, timeout=timeout, env=env, input=input)
    if check and done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace").strip()
        raise PalliumError(
            "unavailable",
            f"`{shown(args)}` failed: {stderr or 'exit ' + str(done.returncode)}",
            details={"cwd": str(cwd), "exit_code": done.returncode, "command": shown(args)},
            hint="run the same git command in that folder to see why; `pallium doctor` checks git",
        )
    return done.stdout


def _spawn(
    args: list[str], cwd: Path, *, timeout: float, env: dict[str, str] | None, input: bytes | None
) -> subprocess.CompletedProcess[bytes]:
    command, full_env = prepare(args, cwd, env)
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL if input is None else None,
            input=input,
            capture_output=True,
            timeout=timeout,
            env=full_env,
        )
    except FileNotFoundError as exc:
        raise PalliumError(
            "unavailable", "git is not installed or not on PATH", hint="install git (2.25 or newer)"
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise PalliumError(
            "unavailable",
            f"`{shown(args)}` did not finish in {timeout:g}s",
            details={"cwd": str(cwd), "command": shown(args)},
            hint="git is slow or waiting on a lock here: retry, or check the repository with `git status`",
        ) from exc


async def run_async(args: list[str], cwd: Path, **options: object) -> bytes:
    """`run` off the event loop, in the bounded pool of `kernel.threads.in_pool` (same arguments, same errors)."""
    from kernel.threads import in_pool

    return await in_pool(run, args, cwd, **options)


def prepare(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The argv and environment `run` uses for `git <args>` in `cwd`; the one place git's config is guarded.

    Any other way of starting git (an asynchronous one, say) must start it with these.
    """
    from kernel import git_guard

    guarded = git_guard.prepare(Path(cwd), {**os.environ, **_ENV})
    args = git_guard.subcommand_flags(list(args), guarded)
    return ["git", *guarded.global_args, "-c", "core.quotepath=false", *args], {**guarded.env, **(env or {})}


def git_version() -> str | None:
    """The installed git's version (`2.39.5`), or None when git is missing."""
    try:
        out = subprocess.run(["git", "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.strip().removeprefix("git version ").split(" ")[0] or None


@dataclass(frozen=True)
class StatusEntry:
    """One changed path. `index` and `worktree` are git's X and Y letters (`.` for unchanged)."""

    path: str
    index: str
    worktree: str
    orig_path: str | None = None
    kind: str = "modified"  # added|modified|deleted|renamed|copied|type_changed|untracked|conflicted

    @property
    def staged(self) -> bool:
        return self.kind != "untracked" and self.kind != "conflicted" and self.index != "."

    @property
    def unstaged(self) -> bool:
        return self.kind != "untracked" and self.kind != "conflicted" and self.worktree != "."


@dataclass
class WorkingTreeStatus:
    branch: str | None = None
    head: str | None = None
    detached: bool = False
    upstream: str | None = None
    ahead: int | None = None
    behind: int | None = None
    entries: list[StatusEntry] = field(default_factory=list)


def status(repo_root: Path, *, untracked: bool = True) -> WorkingTreeStatus:
    """Parse `git status --porcelain=v2 -z --branch`: works with no commits, detached, in linked worktrees."""
    args = ["status", "--porcelain=v2", "-z", "--branch", "--ignore-submodules=dirty"]
    args.append("--untracked-files=all" if untracked else "--untracked-files=no")
    raw = run(args, repo_root)
    return _parse_status(raw.decode("utf-8", "surrogateescape"))


_KIND_BY_LETTER = {"A": "added", "D": "deleted", "R": "renamed", "C": "copied", "T": "type_changed"}


def _parse_status(text: str) -> WorkingTreeStatus:
    result = WorkingTreeStatus()
    records = text.split("\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if not record:
            continue
        tag = record[0]
        if tag == "#":
            _parse_header(record, result)
        elif tag == "1":
            parts = record.split(" ", 8)
            xy = parts[1]
            result.entries.append(StatusEntry(parts[8], xy[0], xy[1], kind=_kind_of(xy)))
        elif tag == "2":
            parts = record.split(" ", 9)
            xy = parts[1]
            orig = records[i]
            i += 1
            kind = "renamed" if parts[8].startswith("R") else "copied"
            result.entries.append(StatusEntry(parts[9], xy[0], xy[1], orig_path=orig, kind=kind))
        elif tag == "u":
            parts = record.split(" ", 10)
            result.entries.append(StatusEntry(parts[10], parts[1][0], parts[1][1], kind="conflicted"))
        elif tag == "?":
            result.entries.append(StatusEntry(record[2:], "?", "?", kind="untracked"))
    return result


def _parse_header(record: str, result: WorkingTreeStatus) -> None:
    key, _, value = record[2:].partition(" ")
    if key == "branch.oid":
        result.head = None if value == "(initial)" else value
    elif key == "branch.head":
        result.detached = value == "(detached)"
        result.branch = None if result.detached else value
    elif key == "branch.upstream":
        result.upstream = value
    elif key == "branch.ab":
        ahead, behind = value.split(" ")
        result.ahead, result.behind = int(ahead), -int(behind)


def _kind_of(xy: str) -> str:
    for letter in (xy[0], xy[1]):
        if letter in _KIND_BY_LETTER:
            return _KIND_BY_LETTER[letter]
    return "modified"
