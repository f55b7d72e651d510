"""Co-change partners under the names they have now: renamed partners followed, deleted ones dropped.

The pair table keys partners by the path they had in each commit; an agent told to look at a path
that no longer exists wastes a step, and one told about a deleted file is misled.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def partners_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", {"core.py": "C = -1\n", "a/old.py": "def helper():\n    return -1\n"})
    for i in range(3):  # core.py with a/old.py (renamed later) and gone.py (deleted later)
        commit(
            repo,
            f"Core with its helper {i}",
            {"core.py": f"C = {i}\n", "a/old.py": f"def helper():\n    return {i}\n", "gone.py": f"G = {i}\n"},
        )
    (repo / "b").mkdir()
    git(repo, "mv", "a/old.py", "b/new.py")
    commit(repo, "Move the helper", {})
    for i in range(2):  # and with the helper under its new name
        commit(repo, f"Core with the moved helper {i}", {"core.py": f"C = {i + 10}\n", "b/new.py": f"H = {i}\n"})
    commit(repo, "Drop gone.py", {"gone.py": None})
    for i in range(2):  # twice renamed: c/one.py -> c/two.py -> c/three.py
        commit(repo, f"Core with one {i}", {"core.py": f"C = {i + 20}\n", "c/one.py": f"def one():\n    return {i}\n"})
    git(repo, "mv", "c/one.py", "c/two.py")
    commit(repo, "One becomes two", {})
    git(repo, "mv", "c/two.py", "c/three.py")
    commit(repo, "Two becomes three", {})
    for i in range(2):  # renamed, then deleted under its new name
        commit(repo, f"Core with temp {i}", {"core.py": f"C = {i + 30}\n", "t/temp.py": f"def t():\n    return {i}\n"})
    git(repo, "mv", "t/temp.py", "t/later.py")
    commit(repo, "Temp becomes later", {})
    commit(repo, "Drop later", {"t/later.py": None})
    return repo


async def test_explain_lists_a_renamed_partner_under_its_current_path_with_merged_counts(partners_repo: Path) -> None:
    out = await ask(partners_repo, "pallium_explain", path="core.py")
    shared = {c.path: c.shared for c in out.cochange}
    assert shared["b/new.py"] == 6  # 1 + 3 as a/old.py, 2 as b/new.py
    assert shared["c/three.py"] == 2  # two renames on
    assert "a/old.py" not in shared and "c/one.py" not in shared and "c/two.py" not in shared


async def test_a_deleted_partner_is_not_suggested(partners_repo: Path) -> None:
    out = await ask(partners_repo, "pallium_explain", path="core.py")
    listed = [c.path for c in out.cochange]
    assert "gone.py" not in listed
    assert "t/temp.py" not in listed and "t/later.py" not in listed  # renamed, then deleted
    assert all((partners_repo / p).exists() for p in listed)


async def test_neighbors_and_blast_radius_use_the_current_names(partners_repo: Path) -> None:
    near = await ask(partners_repo, "pallium_neighbors", path="core.py")
    assert sorted(c.path for c in near.cochange) == ["b/new.py", "c/three.py"]
    moved = next(c for c in near.cochange if c.path == "b/new.py")
    assert moved.confidence == 0.6  # 6 shared of core.py's 10 revisions


async def test_the_partner_of_a_renamed_file_names_the_asked_file_by_its_new_path(partners_repo: Path) -> None:
    out = await ask(partners_repo, "pallium_neighbors", path="b/new.py")
    assert [(c.path, c.shared) for c in out.cochange] == [("core.py", 6)]


async def test_the_partner_of_an_earlier_file_at_a_reused_path_is_not_the_file_there_now(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for i in range(3):
        commit(repo, f"Peer with the old config {i}", {"peer.py": f"P = {i}\n", "config.py": f"OLD = {i}\n"})
    commit(repo, "Remove the old config", {"config.py": None})
    commit(repo, "Add a new config", {"config.py": "class Settings:\n    pass\n"})
    for i in range(2):
        commit(repo, f"Peer with the new config {i}", {"peer.py": f"P = {i + 10}\n", "config.py": f"NEW = {i}\n"})
    out = await ask(repo, "pallium_neighbors", path="peer.py")
    assert [(c.path, c.shared) for c in out.cochange] == [("config.py", 2)]  # the new file's 2, not the old 3


async def test_handoff_asks_about_a_usual_partner_under_its_current_name(partners_repo: Path) -> None:
    head = git(partners_repo, "rev-parse", "HEAD").strip()
    (partners_repo / "core.py").write_text("C = 99\n", encoding="utf-8")
    out = await ask(partners_repo, "pallium_handoff", base=head)
    core = next(f for f in out.files if f.path == "core.py")
    assert core.missing_neighbors == ["b/new.py"]
