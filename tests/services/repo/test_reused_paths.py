"""A path that held an earlier, deleted file: the file there now has only its own history.

Every commit here has the same date (the helper's default), so the order of commits, not their
times, must tell the earlier file's life from the current one's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

_OLD = "def old_setting():\n    return 'old'\n"
_NEW = "class Settings:\n    name = 'new'\n"


@pytest.fixture
def reused_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Add the old config", {"app/config.py": _OLD, "app/peer.py": "P = 0\n"}, author="Olga")
    for i in range(3):
        commit(
            repo,
            f"Tune the old config {i}\n\nBecause the old loader needed it.",
            {"app/config.py": _OLD + f"# {i}\n", "app/peer.py": f"P = {i + 1}\n"},
            author="Olga",
        )
    commit(repo, "Remove the old config", {"app/config.py": None}, author="Olga")
    commit(repo, "Add the new config", {"app/config.py": _NEW}, author="Nina")
    for i in range(2):
        commit(
            repo,
            f"Tune the new config {i}",
            {"app/config.py": _NEW + f"# {i}\n", "app/fresh.py": f"F = {i}\n"},
            author="Nina",
        )
    return repo


async def test_explain_on_a_reused_path_gives_only_the_current_files_history(reused_repo: Path) -> None:
    out = await ask(reused_repo, "pallium_explain", path="app/config.py")
    assert out.history.commits == 3
    assert out.history.added_in is not None and out.history.added_in.subject == "Add the new config"
    assert [c.subject for c in out.recent_commits] == [
        "Tune the new config 1",
        "Tune the new config 0",
        "Add the new config",
    ]
    assert {c.author for c in out.recent_commits} == {"Nina"}
    assert out.decisions == []  # the old file's reasoned commits are not this file's
    assert [c.path for c in out.cochange] == ["app/fresh.py"]
    churn = next(r for r in out.risk.reasons if r.factor == "churn")
    assert churn.detail == "3 commits touched it"
    authors = next(r for r in out.risk.reasons if r.factor == "authors")
    assert authors.detail == "1 distinct authors"


async def test_explain_on_a_reused_path_names_the_commit_that_deleted_the_earlier_file(reused_repo: Path) -> None:
    out = await ask(reused_repo, "pallium_explain", path="app/config.py")
    earlier = out.history.earlier_file_removed_in
    assert earlier is not None and earlier.subject == "Remove the old config"
    assert f"earlier file of this name deleted in {earlier.sha[:12]}" in out.summary


async def test_a_path_never_reused_names_no_earlier_file(reused_repo: Path) -> None:
    out = await ask(reused_repo, "pallium_explain", path="app/fresh.py")
    assert out.history.earlier_file_removed_in is None
    assert "earlier file" not in out.summary


async def test_hotspots_count_only_the_current_files_commits_at_a_reused_path(reused_repo: Path) -> None:
    out = await ask(reused_repo, "pallium_hotspots", since="3650d")
    config = next(h for h in out.files if h.path == "app/config.py")
    assert (config.commits, config.authors) == (3, 1)
    # the new file's own edits (2 + 1 + 1 lines added, 1 deleted); the old file's edits and removal are not its churn
    assert (config.lines_added, config.lines_deleted) == (4, 1)


async def test_a_file_renamed_into_a_reused_path_keeps_its_own_history_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Add the old config", {"app/config.py": _OLD}, author="Olga")
    commit(repo, "Tune the old config", {"app/config.py": _OLD + "# 1\n"}, author="Olga")
    commit(repo, "Add settings", {"app/settings.py": _NEW}, author="Nina")
    commit(repo, "Tune settings", {"app/settings.py": _NEW + "# tuned\n"}, author="Nina")
    git(repo, "rm", "-q", "app/config.py")
    commit(repo, "Drop the old config", {}, author="Olga")
    git(repo, "mv", "app/settings.py", "app/config.py")
    commit(repo, "Settings become the config", {}, author="Nina")
    out = await ask(repo, "pallium_explain", path="app/config.py")
    assert out.history.former_names == ["app/settings.py"]
    assert out.history.added_in is not None and out.history.added_in.subject == "Add settings"
    assert out.history.commits == 3
    assert [c.subject for c in out.recent_commits] == ["Settings become the config", "Tune settings", "Add settings"]
    assert out.history.earlier_file_removed_in is not None
    assert out.history.earlier_file_removed_in.subject == "Drop the old config"
