"""Helpers for the repository-index tests: commits with chosen dates, and calling the tools in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernel.clock import FixedClock, parse_iso
from kernel.context import ToolContext
from kernel.dispatch import call
from tests.conftest import git, write

NOW = "2026-03-01T00:00:00Z"


def commit(
    repo: Path, message: str, files: dict[str, str | None], *, when: str = "2026-02-20T00:00:00Z", author: str = "Ada"
) -> str:
    """Write (or delete, for None) `files`, commit them at `when` by `author`, return the sha."""
    for relative, text in files.items():
        if text is None:
            git(repo, "rm", "-q", relative)
        else:
            write(repo, relative, text)
            git(repo, "add", relative)
    env = {
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": f"{author.lower()}@example.com",
    }
    git(repo, "commit", "-q", "--allow-empty", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


def new_repo(tmp_path: Path, files: dict[str, str | None]) -> Path:
    """A fresh repository at `tmp_path/repo` whose first commit holds `files`."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", files)
    return repo


async def ask(repo: Path, tool: str, **arguments: Any) -> Any:
    """Call a tool through the dispatcher, as the CLI and MCP server do, with the clock at NOW."""
    ctx = ToolContext(cwd=repo, clock=FixedClock(parse_iso(NOW)))
    try:
        return await call(tool, arguments, ctx)
    finally:
        ctx.close()


@pytest.fixture
def history_repo(empty_repo: Path) -> Path:
    """A repository whose churn and co-change are known exactly.

    core.py and util.py change together 5 times; core.py alone twice more (7 revisions);
    util.py has 5. CHANGELOG.md rides along with every commit (noise). One mass commit of
    31 files also touches core.py: a revision, but no pairs.
    """
    repo = empty_repo
    for i in range(5):
        commit(
            repo,
            f"Change core and util together {i}",
            {
                "core.py": f"def core():\n    return {i}\n",
                "util.py": f"def util():\n    return {i}\n",
                "CHANGELOG.md": f"v{i}\n",
            },
            when=f"2026-01-0{i + 1}T00:00:00Z",
        )
    commit(
        repo,
        "Tune core alone\n\nBecause the util contract is frozen.",
        {"core.py": "def core():\n    return 9\n"},
        when="2026-02-25T00:00:00Z",
        author="Bob",
    )
    commit(repo, "Tune core again", {"core.py": "def core():\n    return 10\n"}, when="2026-02-26T00:00:00Z")
    mass = {f"gen/f{i}.py": f"x = {i}\n" for i in range(30)}
    mass["core.py"] = "def core():\n    return 11\n"
    commit(repo, "Reformat everything", mass, when="2026-02-27T00:00:00Z")
    return repo
