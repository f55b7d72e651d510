"""Lists with a way on, answers for paths that left, and a copied repository that is not all dirty."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, commit, new_repo

pytestmark = pytest.mark.anyio


async def test_hotspots_page_with_a_cursor_and_leave_changelogs_out(history_repo: Path):
    first = await ask(history_repo, "pallium_hotspots", since="3650d", limit=1)
    assert first.truncated is True and first.next_cursor is not None
    rest = await ask(history_repo, "pallium_hotspots", since="3650d", limit=500, cursor=first.next_cursor)
    paths = [h.path for h in first.files] + [h.path for h in rest.files]
    assert len(paths) == len(set(paths)) == first.total
    assert rest.truncated is False and rest.next_cursor is None
    assert "CHANGELOG.md" not in paths, "a changelog rides along with every commit: it is no hotspot"
    assert paths[0] == "core.py"


async def test_callers_of_a_name_with_many_definitions_pages_on(tmp_path: Path):
    files = {f"pkg/m{i}.py": f"class C{i}:\n    def run(self):\n        return {i}\n" for i in range(60)}
    files["use.py"] = "".join(f"from pkg.m{i} import C{i}\n" for i in range(60)) + "".join(
        f"C{i}().run()\n" for i in range(60)
    )
    repo = new_repo(tmp_path, files)
    seen: list[tuple[str, int, str]] = []
    cursor = None
    for _page in range(20):
        out = await ask(repo, "pallium_callers", name="run", limit=25, cursor=cursor)
        assert out.definition_count == 60
        seen += [(r.path, r.line, r.kind) for r in out.references]
        cursor = out.next_cursor
        if cursor is None:
            break
    assert cursor is None
    assert len(seen) == len(set(seen)) == out.total == 60


async def test_explain_full_lists_every_recent_commit(tmp_path: Path):
    repo = new_repo(tmp_path, {"busy.py": "v = 0\n"})
    for i in range(1, 15):
        commit(repo, f"Edit {i}", {"busy.py": f"v = {i}\n"}, when=f"2026-02-{i + 1:02d}T00:00:00Z")
    short = await ask(repo, "pallium_explain", path="busy.py")
    full = await ask(repo, "pallium_explain", path="busy.py", full=True)
    assert len(short.recent_commits) == 10
    assert len(full.recent_commits) == 15


async def test_risk_of_a_deleted_or_renamed_path_is_scored_from_its_history(tmp_path: Path):
    repo = new_repo(tmp_path, {"old.py": "v = 0\n", "keep.py": "k = 1\n"})
    for i in range(1, 6):
        commit(repo, f"Edit {i}", {"old.py": f"v = {i}\n"}, when=f"2026-02-{i + 10:02d}T00:00:00Z")
    commit(repo, "Drop old", {"old.py": None}, when="2026-02-27T00:00:00Z")
    risk = await ask(repo, "pallium_risk", path="old.py")
    assert risk.score > 0 and risk.reasons, "six commits touched it: its churn says so"
    explained = await ask(repo, "pallium_explain", path="old.py")
    assert explained.risk.score == risk.score


async def test_a_copied_repository_is_not_all_dirty(tmp_path: Path):
    repo = new_repo(tmp_path, {f"m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20)})
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(repo), str(copy)], check=True)  # new inodes and ctimes: git's stat data is off
    out = await ask(copy, "pallium_index")
    assert out.files_parsed == 20
    symbols = await ask(copy, "pallium_symbols", path="m3.py")
    assert (symbols.freshness.status, symbols.freshness.changed_count) == ("fresh", 0)
    again = await ask(copy, "pallium_index")
    assert again.files_read == 0


async def test_a_noop_reindex_reads_nothing_even_with_files_missing_from_the_tree(tmp_path: Path):
    repo = new_repo(tmp_path, {"a.py": "a = 1\n", "gone.bin": "x\n", "b.py": "b = 1\n"})
    (repo / "gone.bin").unlink()  # what a checkout that lacked a blob leaves
    first = await ask(repo, "pallium_index")
    assert first.files_skipped == {"missing": 1}
    again = await ask(repo, "pallium_index")
    assert again.files_read == 0
    answer = await ask(repo, "pallium_symbols", path="a.py")
    assert answer.freshness.status == "fresh"
    (repo / "b.py").write_text("b = 2\n", encoding="utf-8")
    changed = await ask(repo, "pallium_index")
    assert changed.files_read == 1
