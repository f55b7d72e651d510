"""The git guard lists a repository's configuration once for all its worktrees, and never serves a
listing that a change to the configuration has made stale.

Each staleness case lists first (a git call), then plants a filter driver by one route git reads
(the common config rewritten at the same size with its time put back, a conditional include that
only one worktree matches, a branch switch under `includeIf onbranch`, a global file that did not
exist), and runs `git add -A` on a file the driver's `.gitattributes` selects: its program must not
run. The saving is counted with a `git` on PATH that logs each `config --list` it serves.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from kernel import git, git_guard
from tests.conftest import git as sh_git
from tests.conftest import write


@pytest.fixture(autouse=True)
def fresh_cache():
    git_guard._listing_cache.clear()
    yield
    git_guard._listing_cache.clear()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "ran.txt"


@pytest.fixture
def program(tmp_path: Path, marker: Path) -> Path:
    path = tmp_path / "hostile.sh"
    path.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n', encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def filtered(git_repo: Path) -> Path:
    """`git_repo` whose `.gitattributes` sends every `.py` file through a filter named `evil`."""
    write(git_repo, ".gitattributes", "*.py filter=evil\n")
    sh_git(git_repo, "add", ".gitattributes")
    sh_git(git_repo, "commit", "-q", "-m", "attributes")
    return git_repo


def age(*files: Path) -> None:
    """Let the files' last change be seconds old, as a listing needs before it is kept (`_settled`)."""
    time.sleep(git_guard._RACY_NS / 1e9 + 0.02)
    assert all(f.exists() for f in files)


def add_all(tree: Path) -> None:
    write(tree, "src/app.py", f"def main():\n    return {time.time_ns()}\n")
    git.run(["add", "-A", "--", "."], tree)


def worktree(repo: Path, name: str) -> Path:
    path = repo.parent / name
    sh_git(repo, "worktree", "add", "-q", "--detach", str(path), "HEAD")
    return path


def test_a_rewrite_of_the_same_size_with_its_time_put_back_is_seen(filtered, program, marker):
    config = filtered / ".git" / "config"
    with config.open("a", encoding="utf-8") as out:  # a section git ignores, as long as the driver's
        out.write(f'[filtex "evil"]\n\tclean = {program}\n')
    age(config)
    add_all(filtered)
    assert git_guard._listing_cache, "a settled listing is kept"
    listed = config.stat()
    config.write_text(config.read_text(encoding="utf-8").replace("[filtex", "[filter"), encoding="utf-8")
    os.utime(config, ns=(listed.st_atime_ns, listed.st_mtime_ns))  # the time put back, as a hider would
    now = config.stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (listed.st_size, listed.st_mtime_ns, listed.st_ino)
    add_all(filtered)
    assert not marker.exists(), marker.read_text()


def test_a_driver_added_to_the_common_config_reaches_every_worktree(filtered, program, marker):
    first, second = worktree(filtered, "wt-a"), worktree(filtered, "wt-b")
    age(filtered / ".git" / "config")
    add_all(first)
    add_all(second)
    sh_git(filtered, "config", "filter.evil.clean", str(program))
    sh_git(filtered, "config", "filter.evil.smudge", str(program))
    for tree in (first, second, filtered):
        add_all(tree)
        git.run(["checkout", "-q", "HEAD", "--", "src/app.py"], tree)
    assert not marker.exists(), marker.read_text()


def test_a_conditional_include_only_one_worktree_matches_is_seen_there(filtered, program, marker, tmp_path):
    first, second = worktree(filtered, "wt-a"), worktree(filtered, "wt-b")
    hostile = tmp_path / "hostile.gitconfig"
    hostile.write_text(f'[filter "evil"]\n\tclean = {program}\n', encoding="utf-8")
    second_git_dir = Path(sh_git(second, "rev-parse", "--absolute-git-dir").strip())
    sh_git(filtered, "config", f"includeIf.gitdir:{second_git_dir}.path", str(hostile))
    age(filtered / ".git" / "config", hostile)
    add_all(first)  # listed first, without the driver: its condition does not hold here
    add_all(second)
    assert not marker.exists(), marker.read_text()


def test_a_branch_switch_under_an_onbranch_include_is_seen(filtered, program, marker, tmp_path):
    hostile = tmp_path / "hostile.gitconfig"
    hostile.write_text(f'[filter "evil"]\n\tclean = {program}\n', encoding="utf-8")
    sh_git(filtered, "config", "includeIf.onbranch:evil.path", str(hostile))
    sh_git(filtered, "branch", "evil")
    age(filtered / ".git" / "config", hostile)
    add_all(filtered)  # on main: the include does not hold
    sh_git(filtered, "commit", "-q", "-am", "changed")
    sh_git(filtered, "checkout", "-q", "evil")
    add_all(filtered)
    assert not marker.exists(), marker.read_text()


def test_a_global_config_created_after_the_listing_is_seen(filtered, program, marker):
    age(filtered / ".git" / "config")
    add_all(filtered)
    global_config = Path(os.environ.get("XDG_CONFIG_HOME") or Path(os.environ["HOME"]) / ".config") / "git" / "config"
    assert not global_config.exists()
    global_config.parent.mkdir(parents=True, exist_ok=True)
    global_config.write_text(f'[filter "evil"]\n\tclean = {program}\n', encoding="utf-8")
    add_all(filtered)
    assert not marker.exists(), marker.read_text()


def test_a_listing_younger_than_its_files_is_not_kept(filtered):
    sh_git(filtered, "config", "filter.evil.clean", "cat")
    git.run(["status", "--porcelain"], filtered)
    assert not git_guard._listing_cache, "a config file changed this instant may change again unseen"


def test_the_worktrees_of_one_repository_share_one_listing(filtered, tmp_path, monkeypatch):
    trees = [worktree(filtered, f"wt-{i}") for i in range(4)]
    log = tmp_path / "git-calls.log"
    shim = tmp_path / "bin"
    shim.mkdir()
    real = next(p for p in (Path(d) / "git" for d in os.environ["PATH"].split(os.pathsep)) if p.is_file())
    (shim / "git").write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n', encoding="utf-8")
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    age(filtered / ".git" / "config")
    for tree in [filtered, *trees]:
        for _ in range(2):
            git.run(["status", "--porcelain"], tree)
    listings = [line for line in log.read_text().splitlines() if "config --list" in line]
    assert len(listings) == 1, listings
    assert sum("status" in line for line in log.read_text().splitlines()) == 10
