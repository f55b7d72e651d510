"""An enrichment is never fatal: clones missing objects, shallow, partial or damaged still index.

Each fault is made for real in a temporary repository (a deleted loose object, a corrupted pack, a
partial clone whose remote is gone, a submodule never checked out, a file gone from the working
tree after git listed it); the index builds, says what it lacks in `notes`, and `doctor` repeats it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernel import git as kernel_git
from kernel.errors import PalliumError
from tests.conftest import git
from tests.services.repo.conftest import ask, commit, new_repo

pytestmark = pytest.mark.anyio


def _drop_object(repo: Path, sha: str) -> None:
    (repo / ".git" / "objects" / sha[:2] / sha[2:]).unlink()


def _lines(prefix: str, n: int = 60) -> str:
    return "".join(f"{prefix} = {i}\n" for i in range(n))


async def _doctor_index_check(repo: Path):
    out = await ask(repo, "pallium_doctor")
    return next(c for c in out.checks if c.name == "repository index")


async def test_a_missing_blob_costs_rename_detection_only(tmp_path: Path):
    repo = new_repo(tmp_path, {"old.py": _lines("a"), "keep.py": "k = 1\n"})
    commit(repo, "Grow old", {"old.py": _lines("b")})
    git(repo, "mv", "old.py", "new.py")
    commit(repo, "Rename old to new", {"new.py": _lines("b") + "extra = 1\n"})
    lost = git(repo, "rev-parse", "HEAD~1:old.py").strip()
    _drop_object(repo, lost)
    out = await ask(repo, "pallium_index")
    assert out.commits_total == 3
    assert out.files_parsed == 2
    [note] = out.notes
    assert note.startswith("rename detection skipped: `git log -M --no-merges --name-status")
    assert f"unable to read {lost}" in note
    # Without rename detection the rename reads as a delete and an add: the history is all there.
    explained = await ask(repo, "pallium_explain", path="old.py")
    assert explained.history.state == "deleted"
    check = await _doctor_index_check(repo)
    assert check.status == "warn" and "rename detection skipped" in check.detail
    # Line counts read the same blob: hotspots answer without the commits they cannot count.
    hot = await ask(repo, "pallium_hotspots", since="3650d")
    assert "keep.py" in {h.path for h in hot.files}
    again = await _doctor_index_check(repo)
    assert "kept without their files" in again.detail and "--numstat" in again.detail


async def test_a_commit_whose_tree_is_lost_is_kept_without_its_files(history_repo: Path):
    await ask(history_repo, "pallium_index")
    middle = commit(history_repo, "Add a module", {"extra.py": "def extra():\n    return 1\n"})
    last = commit(history_repo, "Edit the module", {"extra.py": "def extra():\n    return 2\n"})
    tree = git(history_repo, "rev-parse", f"{middle}^{{tree}}").strip()
    _drop_object(history_repo, tree)
    out = await ask(history_repo, "pallium_index")
    assert (out.commits_read, out.commits_total, out.watermark) == (2, 10, last)
    # The lost tree's commit, and its child (diffed against that tree), keep no files; the rest keep theirs.
    assert any(
        n.startswith("2 commit(s) kept without their files") and middle[:12] in n and f"unable to read tree {tree}" in n
        for n in out.notes
    ), out.notes
    answer = await ask(history_repo, "pallium_symbols", path="extra.py")
    assert answer.freshness.status == "fresh"
    neighbors = await ask(history_repo, "pallium_neighbors", path="core.py")
    assert neighbors.revisions == 7
    assert (await _doctor_index_check(history_repo)).status == "warn"


async def test_a_corrupt_pack_leaves_the_content_half_and_a_note(tmp_path: Path):
    repo = new_repo(tmp_path, {"a.py": "def a():\n    return 1\n"})
    for i in range(3):
        commit(repo, f"Edit {i}", {"a.py": f"def a():\n    return {i + 2}\n"})
    git(repo, "repack", "-q", "-a", "-d")
    commit(repo, "After the pack", {"a.py": "def a():\n    return 9\n", "b.py": "def b():\n    return a()\n"})
    [pack] = (repo / ".git" / "objects" / "pack").glob("*.pack")
    data = bytearray(pack.read_bytes())
    for i in range(12, len(data) - 20):
        data[i] ^= 0x55
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    out = await ask(repo, "pallium_index")
    assert out.files_parsed == 2
    assert any(n.startswith("history stops") and "corrupt" in n and "`git log" in n for n in out.notes)
    found = await ask(repo, "pallium_symbols", path="b.py")
    assert [s.name for s in found.symbols] == ["b"]
    assert found.freshness.status == "fresh", "a failed history read must not leave read tools reindexing"


async def test_a_partial_clone_whose_remote_is_gone_still_indexes(tmp_path: Path):
    source = new_repo(tmp_path, {"big.py": _lines("x", 400), "a.py": "a = 1\n"})
    git(source, "config", "uploadpack.allowFilter", "true")
    commit(source, "Grow big", {"big.py": _lines("y", 400), "a.py": "a = 2\n"})
    git(source, "mv", "big.py", "huge.py")
    commit(source, "Rename big", {"huge.py": _lines("y", 400) + "z = 1\n"})
    clone = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:limit=1k", f"file://{source}", str(clone))
    shutil.rmtree(source)  # every blob the clone lacks is now out of reach
    out = await ask(clone, "pallium_index")
    assert out.commits_total == 3 and out.files_parsed == 2
    assert any(n.startswith("partial clone") for n in out.notes)
    hot = await ask(clone, "pallium_hotspots", since="3650d")
    assert {"a.py", "huge.py"} <= {h.path for h in hot.files}


async def test_a_shallow_clone_says_where_history_stops(history_repo: Path, tmp_path: Path):
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{history_repo}", str(clone))
    out = await ask(clone, "pallium_index")
    assert (out.shallow, out.commits_total) == (True, 2)
    assert any(n.startswith("shallow clone") for n in out.notes)
    check = await _doctor_index_check(clone)
    assert check.status == "warn" and "shallow" in check.detail


async def test_an_absent_submodule_is_skipped_not_fatal(tmp_path: Path):
    (tmp_path / "inner").mkdir()
    inner = new_repo(tmp_path / "inner", {"s.py": "s = 1\n"})
    outer = new_repo(tmp_path, {"a.py": "a = 1\n"})
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", f"file://{inner}", "lib/sub")
    commit(outer, "Add a submodule", {})
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{outer}", str(clone))  # the submodule is not checked out
    assert list((clone / "lib" / "sub").iterdir()) == []
    out = await ask(clone, "pallium_index")
    assert out.files_skipped == {"submodule": 1}
    assert out.notes == []
    assert (await _doctor_index_check(clone)).status == "ok"


async def test_a_file_gone_after_git_listed_it_is_skipped(tmp_path: Path):
    # git's index still lists these paths; the files themselves are gone, or are no longer files,
    # when the content half comes to read them: what a file deleted mid-index looks like.
    repo = new_repo(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 1\n", "c.py": "c = 1\n"})
    (repo / "b.py").unlink()
    (repo / "c.py").unlink()
    (repo / "c.py").mkdir()
    out = await ask(repo, "pallium_index")
    assert out.files_parsed == 1
    assert sum(out.files_skipped.values()) == 2
    found = await ask(repo, "pallium_symbols", path="a.py")
    assert found.symbols[0].name == "a"


async def test_a_clean_clone_has_no_notes_and_doctor_says_so(history_repo: Path):
    out = await ask(history_repo, "pallium_index")
    assert out.notes == []
    check = await _doctor_index_check(history_repo)
    assert check.status == "ok" and "whole history read" in check.detail


def test_a_git_error_quotes_the_command_that_failed(tmp_path: Path):
    repo = new_repo(tmp_path, {"a.py": "a = 1\n"})
    with pytest.raises(PalliumError) as failed:
        kernel_git.run(["log", "--no-merges", "--name-status", "--format=%H%x1f%aN%x1f%s%x1f%b", "no-such-rev"], repo)
    assert "`git log --no-merges --name-status --format=… no-such-rev` failed" in failed.value.message
    assert failed.value.details["command"].endswith("no-such-rev")
