"""The git guard keeps where a folder's git data is, and whether its owner is trusted, between calls
(working it out costs as much as starting git), and never serves an answer a change has made stale.

Each case lets the answer be kept first (its files aged past the racy window, and the cache
checked to hold it), then changes one input the way an agent in a worktree, or the user, could:
the worktree's `.git` file pointed at another repository, a part of the git folder made a link,
a workflow file added to a trusted repository, the repository trusted. The next git call must
see the change at once.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kernel import git, git_guard, trust
from kernel.errors import PalliumError
from tests.conftest import git as sh_git
from tests.conftest import write


@pytest.fixture(autouse=True)
def fresh_caches():
    git_guard._known_layouts.clear()
    git_guard._known_trust.clear()
    yield
    git_guard._known_layouts.clear()
    git_guard._known_trust.clear()


def age() -> None:
    time.sleep(git_guard._RACY_NS / 1e9 + 0.02)


def kept(folder: Path) -> None:
    """Ask twice with the files aged, and check the answer is kept for `folder`."""
    git.run(["status", "--porcelain"], folder)
    age()
    git.run(["status", "--porcelain"], folder)
    assert str(folder) in git_guard._known_layouts, "a settled answer is kept"


def test_a_worktree_whose_git_file_is_pointed_elsewhere_is_refused_at_once(git_repo, tmp_path):
    tree = tmp_path / "wt"
    sh_git(git_repo, "worktree", "add", "-q", "--detach", str(tree), "HEAD")
    other = tmp_path / "other"
    other.mkdir()
    sh_git(other, "init", "-q")
    kept(tree)
    (tree / ".git").write_text(f"gitdir: {other / '.git'}\n", encoding="utf-8")  # not registered: outside the tree
    with pytest.raises(PalliumError) as refused:
        git.run(["status", "--porcelain"], tree)
    assert refused.value.code == "authority_exceeded"


def test_a_git_folder_part_made_a_link_out_is_refused_at_once(git_repo, tmp_path):
    kept(git_repo)
    config = git_repo / ".git" / "config"
    outside = tmp_path / "outside.config"
    outside.write_text(config.read_text(encoding="utf-8"), encoding="utf-8")
    config.unlink()
    config.symlink_to(outside)
    with pytest.raises(PalliumError) as refused:
        git.run(["status", "--porcelain"], git_repo)
    assert refused.value.code == "authority_exceeded"
    assert "outside" in refused.value.message


def test_a_folder_replaced_by_a_link_to_another_repository_is_worked_out_again(git_repo, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sh_git(elsewhere, "init", "-q")
    kept(git_repo)
    moved = tmp_path / "moved"
    git_repo.rename(moved)
    git_repo.symlink_to(elsewhere)
    assert git_guard.layout_of(git_repo).top == elsewhere.resolve()


def test_trust_given_or_lost_is_seen_at_once(git_repo):
    assert "GIT_CONFIG_COUNT" in git.prepare(["status"], git_repo)[1]  # untrusted: neutralised
    kept(git_repo)
    assert (str(git_repo.resolve()), str(Path(os.environ["PALLIUM_HOME"]) / trust.TRUST_FILE)) in git_guard._known_trust
    trust.record(git_repo, now="2026-01-01T00:00:00Z")
    assert "GIT_CONFIG_COUNT" not in git.prepare(["status"], git_repo)[1], "trusted now: git runs as configured"
    age()
    git.prepare(["status"], git_repo)
    write(git_repo, ".pallium/workflows/new.workflow.js", "return 1;\n")  # a shipped file added: untrusted again
    assert "GIT_CONFIG_COUNT" in git.prepare(["status"], git_repo)[1]


def test_a_workflow_rewritten_in_a_trusted_repository_untrusts_it_at_once(git_repo):
    script = write(git_repo, ".claude/workflows/deep/review.workflow.js", "return 1;\n")
    trust.record(git_repo, now="2026-01-01T00:00:00Z")
    age()
    git.prepare(["status"], git_repo)
    git.prepare(["status"], git_repo)
    assert "GIT_CONFIG_COUNT" not in git.prepare(["status"], git_repo)[1]
    script.write_text("return 2;\n", encoding="utf-8")  # same size, content changed
    assert "GIT_CONFIG_COUNT" in git.prepare(["status"], git_repo)[1]
