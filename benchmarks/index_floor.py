"""The floor of a cold index, measured in the same run: what the work costs with nothing of Pallium's around it.

Two halves, as the index has them:

- git: the bare commands the index runs for history and the file list (`git log --no-merges -M
  --name-status -z` with the index's format, again with `--no-renames` when that fails on a missing
  blob, `git ls-files -s -z`, `git status --porcelain=v2`), one after another;
- parse: a bare script that reads every file the index would parse and runs the same tree-sitter
  grammars and the same queries over it, in a pool of one process per core.

The floor is both halves run at once (git in its own process, as the index runs it beside the
parsing), wall time: no index can be faster than the work it must do on this machine.
"""

from __future__ import annotations

import os
import subprocess
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

__all__ = ["Floor", "measure"]


class Floor:
    def __init__(self, git_ms: float, parse_ms: float, both_ms: float, files: int, both_cpu: float = 0.0) -> None:
        self.git_ms, self.parse_ms, self.both_ms, self.files = git_ms, parse_ms, both_ms, files
        self.both_cpu = both_cpu  # CPU seconds of every process of the both-at-once run


def children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished children and theirs: on a machine
    shared with other work, wall time follows the others' load, CPU time much less."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _git_commands() -> list[list[str]]:
    from services.repo.index_git import _FORMAT

    return [
        ["git", "log", "--no-merges", "-M", "--name-status", "-z", f"--format={_FORMAT}", "HEAD"],
        ["git", "ls-files", "-s", "-z"],
        ["git", "status", "--porcelain=v2", "-z", "--untracked-files=no"],
    ]


def _run_git(repo: Path) -> float:
    """The commands, timed; a log that fails (a blob missing for `-M`) is run again as the index runs
    it, with `--no-renames`."""
    start = time.perf_counter()
    for argv in _git_commands():
        done = subprocess.run(argv, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if done.returncode != 0 and "-M" in argv:
            plain = [("--no-renames" if a == "-M" else a) for a in argv]
            subprocess.run(plain, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def _parse_files(work: tuple[str, list[str]]) -> int:
    """Parse and query each file as the index does, with nothing stored: the tree-sitter floor."""
    from tree_sitter import QueryCursor

    from services.repo import parsing, tree_queries

    root, paths = work
    done = 0
    for path in paths:
        language = parsing.language_of(path)
        if language not in parsing.CODE_LANGUAGES:
            continue
        try:
            data = (Path(root) / path).read_bytes()
            parser = tree_queries.parser(language)
        except (OSError, ImportError, ValueError):
            continue
        if len(data) > 1_000_000:
            continue
        tree = parser.parse(data)
        query, _roles = tree_queries.combined_query(language)
        for _match in QueryCursor(query).matches(tree.root_node):
            pass
        QueryCursor(tree_queries.identifier_query(language)).captures(tree.root_node)
        done += 1
    return done


def _parse(repo: Path, paths: list[str], workers: int) -> tuple[float, int]:
    chunks = [paths[i::workers] for i in range(workers)]
    start = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        parsed = sum(pool.map(_parse_files, [(str(repo), chunk) for chunk in chunks]))
    return (time.perf_counter() - start) * 1000, parsed


def measure(repo: Path, paths: list[str]) -> Floor:
    """Each half alone (best of two), then both at once."""
    workers = os.cpu_count() or 1
    git_ms = min(_run_git(repo) for _ in range(2))
    parse_ms, files = min(_parse(repo, paths, workers) for _ in range(2))
    cpu = children_cpu()
    start = time.perf_counter()
    with ProcessPoolExecutor(1) as side:
        history = side.submit(_run_git, repo)
        _parse(repo, paths, workers)
        history.result()
    both_ms = (time.perf_counter() - start) * 1000
    return Floor(git_ms, parse_ms, both_ms, files, children_cpu() - cpu)
