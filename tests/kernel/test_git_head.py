"""HEAD read from `.git` without starting git agrees with `git rev-parse HEAD` in every layout."""

from __future__ import annotations

import subprocess
from pathlib import Path

from kernel.git import head_commit
from tests.conftest import git


def _rev_parse(repo: Path) -> str | None:
    done = subprocess.run(["git", "rev-parse", "-q", "--verify", "HEAD"], cwd=repo, capture_output=True, text=True)
    return done.stdout.strip() or None


def test_head_agrees_with_git_loose_packed_detached_unborn_and_linked(empty_repo: Path, tmp_path: Path):
    assert head_commit(empty_repo) is None  # unborn: no commit yet
    (empty_repo / "a.txt").write_text("a\n", encoding="utf-8")
    git(empty_repo, "add", "a.txt")
    git(empty_repo, "commit", "-q", "-m", "one")
    assert head_commit(empty_repo) == _rev_parse(empty_repo)  # a loose branch ref
    git(empty_repo, "pack-refs", "--all")
    assert not (empty_repo / ".git/refs/heads/main").exists()
    assert head_commit(empty_repo) == _rev_parse(empty_repo)  # a packed ref
    git(empty_repo, "commit", "-q", "--allow-empty", "-m", "two")
    git(empty_repo, "checkout", "-q", "--detach", "HEAD~1")
    assert head_commit(empty_repo) == _rev_parse(empty_repo)  # detached
    git(empty_repo, "checkout", "-q", "-b", "fresh")
    git(empty_repo, "checkout", "-q", "--orphan", "unborn")
    assert head_commit(empty_repo) is None and _rev_parse(empty_repo) is None
    git(empty_repo, "checkout", "-q", "main")
    linked = tmp_path / "linked"
    git(empty_repo, "worktree", "add", "-q", str(linked), "fresh")
    assert head_commit(linked) == _rev_parse(linked)  # a `.git` file: asks git


def test_a_head_naming_a_path_out_of_git_is_not_followed(empty_repo: Path, tmp_path: Path):
    # A hostile clone's HEAD points past `.git` at a file that looks like a commit id.
    (empty_repo / "a.txt").write_text("a\n", encoding="utf-8")
    git(empty_repo, "add", "a.txt")
    git(empty_repo, "commit", "-q", "-m", "one")
    (tmp_path / "planted").write_text("f" * 40 + "\n", encoding="ascii")
    depth = len((empty_repo / ".git").relative_to(tmp_path).parts)
    (empty_repo / ".git/HEAD").write_text("ref: refs/" + "../" * (depth + 1) + "planted\n", encoding="ascii")
    assert head_commit(empty_repo) != "f" * 40
