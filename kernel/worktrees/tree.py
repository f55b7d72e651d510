"""Detached worktrees outside the repository, each recorded in SQLite before it exists on disk.

A worktree is created under `$PALLIUM_HOME/workflow-runs/<run>/worktrees/`, detached at a commit (a
snapshot or the run's staging head), never on a branch, so nothing blocks deleting it later. The
record comes first, so a crash between the two leaves a row that garbage collection will find; GC
works only from these rows and then runs `git worktree prune`, never from guesses about branches.
"""

from __future__ import annotations

import os
import shutil
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from kernel import git, paths, writes
from kernel.errors import PalliumError
from kernel.runstore import RunStore
from kernel.worktrees import registry

__all__ = [
    "GcReport",
    "capture",
    "create",
    "create_and_read_async",
    "create_async",
    "entries",
    "gc",
    "remove",
    "remove_async",
    "run_dir",
    "unexplained",
]

T = TypeVar("T")

LIVE_STATES = ("creating", "active", "captured")


@dataclass
class GcReport:
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    bytes_freed: int = 0


def run_dir(run_id: str) -> Path:
    return paths.pallium_home() / "workflow-runs" / run_id


def create(
    store: RunStore,
    *,
    repo: Path,
    run_id: str,
    name: str,
    commit: str,
    purpose: str,
    call_key: str | None = None,
    files: bool = True,
) -> Path:
    """Check `commit` out detached at a fresh path for this run; a stale folder of the same name goes first.

    `files=False` fills only the worktree's index (staging composes patches there and reads no file).
    """
    path = run_dir(run_id) / "worktrees" / name
    # recorded before its folder exists, as `create_and_read_async` does: a folder is always explained
    store.add_worktree(
        path=str(path), repo=str(repo), run_id=run_id, call_key=call_key, purpose=purpose, base_commit=commit
    )
    _make(repo, path, commit, files, None)
    store.set_worktree_state(str(path), "active")
    return path


async def create_async(
    store: RunStore,
    *,
    repo: Path,
    run_id: str,
    name: str,
    commit: str,
    purpose: str,
    call_key: str | None = None,
    files: bool = True,
) -> Path:
    """`create` with its git and file work off the event loop (the store is written on the loop's thread)."""
    path, _ = await create_and_read_async(
        store, repo=repo, run_id=run_id, name=name, commit=commit, purpose=purpose, call_key=call_key, files=files
    )
    return path


async def create_and_read_async(
    store: RunStore,
    *,
    repo: Path,
    run_id: str,
    name: str,
    commit: str,
    purpose: str,
    call_key: str | None = None,
    files: bool = True,
    read: Callable[[Path], T] | None = None,
) -> tuple[Path, T | None]:
    """`create_async`, and `read(path)` of the new worktree in the same trip to the thread pool (a pooled
    tree's baseline): recorded first, then cleared, checked out and read in one go, then marked active.
    Each trip is a wait behind every other call's work in a fan-out's first wave."""
    from kernel.threads import in_pool

    path = run_dir(run_id) / "worktrees" / name
    store.add_worktree(
        path=str(path), repo=str(repo), run_id=run_id, call_key=call_key, purpose=purpose, base_commit=commit
    )
    found = await in_pool(_make, repo, path, commit, files, read)
    store.set_worktree_state(str(path), "active")
    return path, found


def _make(repo: Path, path: Path, commit: str, files: bool, read: Callable[[Path], T] | None) -> T | None:
    _clear(repo, path)
    _check_out(repo, path, commit, files=files)
    return read(path) if read is not None else None


def _clear(repo: Path, path: Path) -> None:
    if path.exists():
        _remove_path(repo, path)
    writes.ensure_dir(path.parent)


def _check_out(repo: Path, path: Path, commit: str, *, files: bool = True) -> None:
    if not registry.register(repo, path, commit):  # written as git writes it: no lock, no process
        add = ["worktree", "add", "--detach", "--no-checkout", "--quiet", str(path), commit]
        with _registry(repo):  # registered one at a time; the files are written after, side by side
            try:
                git.run(add, repo)
            except PalliumError:
                git.run(["worktree", "prune"], repo, check=False)  # a folder deleted by hand is still registered
                git.run(add, repo)
    git.run(["reset", "-q", "--hard", commit] if files else ["read-tree", commit], path)


_REGISTRIES: dict[str, threading.Lock] = {}
_REGISTRIES_GUARD = threading.Lock()


def _registry(repo: Path) -> threading.Lock:
    """The lock on `repo`'s list of worktrees: two `git worktree add`s at once in one repository can read
    each other's half-written entry and fail, so this process adds, removes and prunes one at a time."""
    with _REGISTRIES_GUARD:
        return _REGISTRIES.setdefault(str(repo), threading.Lock())


def capture(path: Path, base_commit: str, written: list[str] | None = None) -> bytes:
    """Everything the worker changed in the worktree since `base_commit`, as one binary patch.

    `written` (the paths the tree's watch saw written, `Watch.changed`) limits the `add -A` and the
    `diff` to them: the same patch, byte for byte, without walking every file of the repository.
    Every change is under a written path, and a rename's two sides are both written, so the diff
    limited to them pairs it as the whole one does. A path written and gone again that the index
    never had is left out (git refuses a pathspec that matches nothing); a `.gitignore` or
    `.gitattributes` written (what git ignores or how it reads a file may have changed anywhere) or
    no list at all walks the whole tree, as before.
    """
    chosen = _capture_paths(path, written) if written is not None else None
    if chosen is None:
        git.run(["add", "-A", "--", "."], path)
        return git.run(["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", base_commit, "--"], path)
    if not chosen:
        return b""
    literal = {"GIT_LITERAL_PATHSPECS": "1"}  # a written name is a path, never a pattern
    added = git.attempt(["add", "-A", "--", *chosen], path, env=literal)
    # naming a path git ignores makes `add` say so and end with 1, having added the others: as `add -A .`
    # leaves an ignored file out without a word
    if not added.ok and not (added.returncode == 1 and added.stderr.startswith(_IGNORED_SAID)):
        raise PalliumError(
            "unavailable",
            f"`{added.command}` failed: {added.why}",
            details={"cwd": str(path), "exit_code": added.returncode, "command": added.command},
            hint="run the same git command in that folder to see why; `pallium doctor` checks git",
        )
    diff = ["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", base_commit, "--", *chosen]
    return git.run(diff, path, env=literal)


_IGNORED_SAID = "The following paths are ignored by one of your .gitignore files"


def _capture_paths(path: Path, written: list[str]) -> list[str] | None:
    """The pathspecs a capture limited to `written` adds and diffs, or None to walk the whole tree."""
    if any(p.rsplit("/", 1)[-1] in (".gitignore", ".gitattributes") for p in written):
        return None
    present = []
    for p in written:
        try:
            st = os.lstat(path / p)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            return None  # written through a hard link: the file's other name was changed as well, unheard
        present.append(p)
    gone = [p for p in written if p not in present]
    if gone:  # kept only where the index has it (a deleted file or folder): git fails on one it has not
        listed = git.run(["ls-files", "-z", "--", *gone], path, env={"GIT_LITERAL_PATHSPECS": "1"})
        known = [e for e in listed.decode("utf-8", "surrogateescape").split("\0") if e]
        present += [p for p in gone if any(e == p or e.startswith(p + "/") for e in known)]
    return sorted(present)


async def unexplained(folder: Path, beside: set[str], records: Callable[[], set[str]]) -> list[str]:
    """The entries of a run's worktree folder that are neither in `beside` (there before) nor worktrees the
    run recorded (`records`, the recorded names, read on the event loop's thread).

    The folder is listed first and the records read after: a worktree's record is written before its
    folder exists, so every folder the listing saw is explained by then. The other order reads as an
    outside write every worktree another call of the run records and makes in between (staging, made by
    the first patch staged; a pooled tree for a member starting its turn).
    """
    from kernel.threads import in_pool

    listed = await in_pool(entries, folder)
    return sorted(listed - beside - records())


def entries(folder: Path) -> set[str]:
    """The names in `folder` (none when it cannot be read)."""
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def remove(store: RunStore, path: Path, *, keep: bool = False) -> None:
    """Delete a worktree (or mark it `kept` for debugging) and record that."""
    row = store.worktree(str(path))
    if keep:
        store.set_worktree_state(str(path), "kept")
        return
    _remove_path(Path(row.repo) if row else path, path)
    store.set_worktree_state(str(path), "removed")


async def remove_async(store: RunStore, path: Path, *, keep: bool = False) -> None:
    """`remove` with the deleting off the event loop."""
    from kernel.threads import in_pool

    row = store.worktree(str(path))
    if keep:
        store.set_worktree_state(str(path), "kept")
        return
    await in_pool(_remove_path, Path(row.repo) if row else path, path)
    store.set_worktree_state(str(path), "removed")


def gc(
    store: RunStore, *, is_run_live: Callable[[str], bool], include_kept: bool = False, dry_run: bool = False
) -> GcReport:
    """Remove recorded worktrees whose run no longer runs (and `kept` ones when asked), then prune."""
    report = GcReport()
    repos: set[str] = set()
    states = (*LIVE_STATES, "kept") if include_kept else LIVE_STATES
    for row in store.worktrees(states=states):
        if is_run_live(row.run_id):
            report.kept.append(row.path)
            continue
        report.removed.append(row.path)
        report.bytes_freed += _size(Path(row.path))
        repos.add(row.repo)
        if not dry_run:
            _remove_path(Path(row.repo), Path(row.path))
            store.set_worktree_state(row.path, "removed")
    if not dry_run:
        for repo in repos:
            if Path(repo).is_dir():
                git.run(["worktree", "prune"], Path(repo), check=False)
    return report


def _remove_path(repo: Path, path: Path) -> None:
    if registry.unregister(path):
        return
    if Path(repo).is_dir():
        with _registry(repo):
            git.run(["worktree", "remove", "--force", "--force", str(path)], repo, check=False)
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)


def _size(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
