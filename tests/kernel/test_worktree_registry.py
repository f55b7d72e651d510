"""Worktrees registered by writing git's own entry: git sees them as it sees its own, many at once.

Judged by git itself: `git worktree list --porcelain`, `git status` and `git worktree prune` on the
registered trees, and sixteen registrations at once (which `git worktree add` cannot do).
"""

from __future__ import annotations

import concurrent.futures
import shutil
from pathlib import Path

from kernel import paths
from kernel.worktrees import registry
from tests.conftest import git as sh_git


def listed(repo: Path) -> dict[str, str]:
    """`git worktree list --porcelain` as path -> HEAD commit."""
    out, path = {}, None
    for line in sh_git(repo, "worktree", "list", "--porcelain").splitlines():
        if line.startswith("worktree "):
            path = line.removeprefix("worktree ")
        elif line.startswith("HEAD ") and path is not None:
            out[path] = line.removeprefix("HEAD ")
    return out


def home() -> Path:
    """Where Pallium keeps its worktrees: the test's own PALLIUM_HOME."""
    return paths.ensure_home()


def test_git_lists_a_registered_worktree_and_works_in_it(git_repo):
    commit = sh_git(git_repo, "rev-parse", "HEAD").strip()
    path = home() / "trees" / "pooled-1"
    path.parent.mkdir()
    assert registry.register(git_repo, path, commit)
    assert listed(git_repo)[str(path.resolve())] == commit
    sh_git(path, "reset", "-q", "--hard", commit)
    assert (path / "src" / "app.py").read_text() == (git_repo / "src" / "app.py").read_text()
    assert sh_git(path, "status", "--porcelain") == ""
    assert sh_git(path, "rev-parse", "--git-common-dir").strip() == str((git_repo / ".git").resolve())
    sh_git(git_repo, "worktree", "prune")
    assert str(path.resolve()) in listed(git_repo), "a registered, present worktree is not pruned"
    assert registry.unregister(path)
    assert not path.exists()
    assert str(path.resolve()) not in listed(git_repo)
    assert not list((git_repo / ".git" / "worktrees").iterdir())


def test_sixteen_registrations_at_once_all_hold(git_repo):
    commit = sh_git(git_repo, "rev-parse", "HEAD").strip()
    trees = [home() / "trees" / f"run-{i}" / "pooled-1" for i in range(2)]  # one name twice: git's counter
    trees += [home() / "trees" / "many" / f"pooled-{i}" for i in range(14)]
    for path in trees:
        path.parent.mkdir(parents=True, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        assert all(pool.map(lambda p: registry.register(git_repo, p, commit), trees))
    assert set(listed(git_repo)) >= {str(p.resolve()) for p in trees}
    for path in trees:
        assert sh_git(path, "rev-parse", "HEAD").strip() == commit
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        assert all(pool.map(registry.unregister, trees))
    assert set(listed(git_repo)) == {str(git_repo.resolve())}


def test_an_entry_left_by_a_folder_deleted_by_hand_is_replaced(git_repo):
    commit = sh_git(git_repo, "rev-parse", "HEAD").strip()
    path = home() / "pooled-1"
    assert registry.register(git_repo, path, commit)
    shutil.rmtree(path)
    assert registry.register(git_repo, path, commit)
    assert [p for p in listed(git_repo) if p == str(path.resolve())] == [str(path.resolve())]
    assert len(list((git_repo / ".git" / "worktrees").iterdir())) == 1


def test_a_worktree_git_made_is_left_to_git_unless_it_names_its_entry_back(git_repo, tmp_path):
    made_by_git = tmp_path / "by-git"
    sh_git(git_repo, "worktree", "add", "-q", "--detach", str(made_by_git), "HEAD")
    assert registry.unregister(made_by_git)  # the same layout: removed as git would
    assert str(made_by_git.resolve()) not in listed(git_repo)
    stranger = tmp_path / "stranger"
    stranger.mkdir()
    (stranger / ".git").write_text(f"gitdir: {git_repo / '.git'}\n", encoding="utf-8")
    assert not registry.unregister(stranger)  # not a worktree entry: nothing deleted
    assert (git_repo / ".git" / "HEAD").is_file() and stranger.is_dir()
