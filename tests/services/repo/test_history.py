"""History beyond the tree: renamed and deleted paths, the commit that added a file, hotspots."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from services.repo.risk import churn_points
from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def moved_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    body = "def load():\n    return {}\n\n\ndef save(data):\n    return data\n"
    commit(repo, "Add the loader", {"app/loader.py": body, "app/__init__.py": ""}, when="2026-01-01T00:00:00Z")
    for i in range(3):
        commit(repo, f"Tune the loader {i}", {"app/loader.py": body + f"# {i}\n"}, when=f"2026-01-0{i + 2}T00:00:00Z")
    commit(repo, "Add old helpers", {"app/legacy.py": "def old():\n    pass\n"}, when="2026-01-06T00:00:00Z")
    commit(
        repo,
        "Use them",
        {"app/main.py": "from app.store import load\nfrom app.legacy import old\n"},
        when="2026-01-07T00:00:00Z",
    )
    git(repo, "mv", "app/loader.py", "app/store.py")
    commit(repo, "Rename the loader to store", {}, when="2026-01-08T00:00:00Z")
    commit(repo, "Drop the legacy helpers", {"app/legacy.py": None}, when="2026-01-09T00:00:00Z")
    return repo


async def test_explain_on_a_renamed_path_gives_its_history_and_new_name(moved_repo: Path) -> None:
    out = await ask(moved_repo, "pallium_explain", path="app/loader.py")
    assert out.status == "renamed"
    assert out.history.renamed_to == "app/store.py"
    assert out.history.removed_in is not None and out.history.removed_in.subject == "Rename the loader to store"
    assert out.history.added_in is not None and out.history.added_in.subject == "Add the loader"
    assert [c.subject for c in out.recent_commits][-1] == "Add the loader"
    assert out.history.commits == 4


async def test_explain_on_a_deleted_path_names_the_deleting_commit_and_its_importers(moved_repo: Path) -> None:
    out = await ask(moved_repo, "pallium_explain", path="app/legacy.py")
    assert (out.status, out.history.state) == ("deleted", "deleted")
    assert out.history.removed_in is not None and out.history.removed_in.subject == "Drop the legacy helpers"
    assert [(s.path, s.kind) for s in out.structural] == [("app/main.py", "imported-by")]


async def test_a_path_no_commit_touched_is_still_not_found(moved_repo: Path) -> None:
    with pytest.raises(PalliumError) as raised:
        await ask(moved_repo, "pallium_explain", path="app/never.py")
    assert raised.value.code == "not_found"


async def test_a_renamed_file_keeps_the_old_paths_history(moved_repo: Path) -> None:
    out = await ask(moved_repo, "pallium_explain", path="app/store.py")
    assert out.history.state == "present"
    assert out.history.added_in is not None and out.history.added_in.subject == "Add the loader"
    assert out.history.former_names == ["app/loader.py"]
    assert out.history.commits == 5
    churn = next(r for r in out.risk.reasons if r.factor == "churn")
    assert churn.detail == "5 commits touched it"


async def test_handoff_scores_a_rename_on_old_history_and_flags_old_importers(moved_repo: Path) -> None:
    await ask(moved_repo, "pallium_index")
    git(moved_repo, "mv", "app/store.py", "app/storage.py")
    out = await ask(moved_repo, "pallium_handoff", base="HEAD")
    moved = next(f for f in out.files if f.path == "app/storage.py")
    assert moved.renamed_from == "app/store.py"
    assert moved.old_path_importers == ["app/main.py"]
    assert "app/store.py" not in {f.path for f in out.files}
    assert any("app/main.py" in q and "app/store.py" in q for q in out.open_questions)
    risk = await ask(moved_repo, "pallium_risk", path="app/store.py")
    assert not risk.inferred


async def test_hotspots_rank_by_commits_weighted_by_fan_in_with_raw_counts(moved_repo: Path) -> None:
    out = await ask(moved_repo, "pallium_hotspots", since="2026-01-01")
    first = out.files[0]
    assert first.path == "app/store.py"
    assert (first.commits, first.fan_in) == (5, 1)  # with the four commits under its old name, app/loader.py
    assert first.former_names == ["app/loader.py"]
    paths = [h.path for h in out.files]
    assert "app/legacy.py" not in paths  # deleted: not in the tree
    assert out.total == len(paths)
    main = next(h for h in out.files if h.path == "app/main.py")
    assert (main.lines_added, main.lines_deleted) == (2, 0)
    again = await ask(moved_repo, "pallium_hotspots", since="30d", limit=1)
    assert len(again.files) <= 1


async def test_hotspots_refuse_an_unreadable_window(moved_repo: Path) -> None:
    with pytest.raises(PalliumError) as raised:
        await ask(moved_repo, "pallium_hotspots", since="last tuesday")
    assert raised.value.code == "invalid_input" and "since" in raised.value.hint


def test_churn_keeps_growing_past_twenty_commits() -> None:
    assert churn_points(7) == 7
    assert churn_points(20) == 20
    assert churn_points(40) > churn_points(21) > churn_points(20)
    assert churn_points(400) > churn_points(40)


async def test_changed_now_scores_a_working_tree_rename_on_the_old_path(moved_repo: Path) -> None:
    await ask(moved_repo, "pallium_index")
    git(moved_repo, "mv", "app/store.py", "app/storage.py")
    out = await ask(moved_repo, "pallium_changed_now")
    moved = next(f for f in out.files if f.path == "app/storage.py")
    assert moved.orig_path == "app/store.py"
    scored = await ask(moved_repo, "pallium_risk", path="app/store.py")
    assert moved.risk_level == scored.level
    assert moved.old_path_importers == ["app/main.py"]


_PARSER = "".join(f"def step{i}(text):\n    return text + {i!r}\n\n\n" for i in range(6))


@pytest.fixture
def chain_repo(tmp_path: Path) -> Path:
    """app/a.py renamed to app/b.py, then to app/c.py, with edits under every name; app/old_user.py
    still imports the first name, app/main.py follows the last."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Add the parser", {"app/__init__.py": "", "app/a.py": _PARSER}, when="2026-01-01T00:00:00Z")
    commit(repo, "Tune a", {"app/a.py": _PARSER + "# a\n", "app/grammar.txt": "a\n"}, when="2026-01-02T00:00:00Z")
    commit(
        repo,
        "Use the parser",
        {"app/old_user.py": "from app.a import step1\n", "app/main.py": "from app.a import step0\n"},
        when="2026-01-03T00:00:00Z",
    )
    git(repo, "mv", "app/a.py", "app/b.py")
    commit(repo, "Rename a to b", {}, when="2026-01-04T00:00:00Z")
    commit(repo, "Tune b", {"app/b.py": _PARSER + "# a\n# b\n", "app/grammar.txt": "b\n"}, when="2026-01-05T00:00:00Z")
    git(repo, "mv", "app/b.py", "app/c.py")
    commit(repo, "Rename b to c", {"app/main.py": "from app.c import step0\n"}, when="2026-01-06T00:00:00Z")
    commit(repo, "Tune c", {"app/c.py": _PARSER + "# a\n# b\n# c\n"}, when="2026-01-07T00:00:00Z")
    return repo


async def test_hotspots_count_a_renamed_files_churn_under_its_new_path_across_a_rename_chain(chain_repo: Path) -> None:
    out = await ask(chain_repo, "pallium_hotspots", since="2026-01-01")
    paths = [h.path for h in out.files]
    assert "app/a.py" not in paths and "app/b.py" not in paths
    spot = next(h for h in out.files if h.path == "app/c.py")
    assert spot.commits == 6  # added, tuned as a, renamed, tuned as b, renamed, tuned as c
    # The renames moved no lines: only the additions count, not the whole file again at each rename.
    assert (spot.lines_added, spot.lines_deleted) == (_PARSER.count("\n") + 3, 0)
    assert spot.former_names == ["app/b.py", "app/a.py"]
    assert paths[0] == "app/c.py"
    late = await ask(chain_repo, "pallium_hotspots", since="2026-01-05")
    assert next(h for h in late.files if h.path == "app/c.py").commits == 3  # the window still bounds it


async def test_explain_on_the_new_name_gives_the_old_names_and_the_commit_that_renamed_it(chain_repo: Path) -> None:
    out = await ask(chain_repo, "pallium_explain", path="app/c.py")
    assert out.history.former_names == ["app/b.py", "app/a.py"]
    assert out.history.renamed_in is not None and out.history.renamed_in.subject == "Rename b to c"
    assert out.history.added_in is not None and out.history.added_in.subject == "Add the parser"
    assert out.history.commits == 6
    assert "Tune a" in [c.subject for c in out.recent_commits]


async def test_explain_on_each_old_name_of_a_chain_gives_its_own_rename_and_the_current_name(chain_repo: Path) -> None:
    first = await ask(chain_repo, "pallium_explain", path="app/a.py")
    assert (first.status, first.history.renamed_to) == ("renamed", "app/c.py")
    assert first.history.removed_in is not None and first.history.removed_in.subject == "Rename a to b"
    assert [s.path for s in first.structural] == ["app/old_user.py"]  # still imports the first name
    middle = await ask(chain_repo, "pallium_explain", path="app/b.py")
    assert (middle.status, middle.history.renamed_to) == ("renamed", "app/c.py")
    assert middle.history.removed_in is not None and middle.history.removed_in.subject == "Rename b to c"
    assert middle.history.former_names == ["app/a.py"]
    assert middle.history.commits == 4


async def test_handoff_across_a_committed_rename_chain_scores_old_history_and_flags_old_importers(
    chain_repo: Path,
) -> None:
    base = git(chain_repo, "rev-parse", "HEAD~4").strip()  # "Use the parser": before both renames
    out = await ask(chain_repo, "pallium_handoff", base=base)
    moved = next(f for f in out.files if f.path == "app/c.py")
    assert moved.renamed_from == "app/a.py"
    assert moved.old_path_importers == ["app/old_user.py"]
    assert not {"app/a.py", "app/b.py"} & {f.path for f in out.files}
    scored = await ask(chain_repo, "pallium_risk", path="app/c.py")
    assert moved.risk_level == scored.level
    churn = next(r for r in scored.reasons if r.factor == "churn")
    assert churn.detail == "6 commits touched it"


async def test_changed_now_on_a_renamed_chain_file_flags_importers_of_every_old_name(chain_repo: Path) -> None:
    await ask(chain_repo, "pallium_index")
    git(chain_repo, "mv", "app/c.py", "app/d.py")
    out = await ask(chain_repo, "pallium_changed_now")
    moved = next(f for f in out.files if f.path == "app/d.py")
    assert moved.orig_path == "app/c.py"
    assert moved.old_path_importers == ["app/main.py", "app/old_user.py"]
    scored = await ask(chain_repo, "pallium_risk", path="app/c.py")
    assert moved.risk_level == scored.level and not scored.inferred


async def test_co_change_partners_of_a_renamed_file_include_those_under_its_old_names(chain_repo: Path) -> None:
    out = await ask(chain_repo, "pallium_neighbors", path="app/c.py")
    grammar = next(p for p in out.cochange if p.path == "app/grammar.txt")
    assert grammar.shared == 2  # once as app/a.py, once as app/b.py


async def test_line_counts_read_without_rename_detection_are_read_again(chain_repo: Path) -> None:
    """An index whose churn was stored by an older `--no-renames` read counts each rename as the
    whole file added; the next hotspots call notices the mode and reads the counts again."""
    from kernel.context import ToolContext
    from services.repo.store import SCHEMA, RepoStore

    first = await ask(chain_repo, "pallium_hotspots", since="2026-01-01")
    expected = next(h for h in first.files if h.path == "app/c.py").lines_added
    renamed = git(chain_repo, "rev-parse", "HEAD~1").strip()  # "Rename b to c"
    ctx = ToolContext(cwd=chain_repo)
    try:
        store = RepoStore(ctx.repo_db(chain_repo, [SCHEMA]))
        with store.db.transaction():
            store.add_churn([renamed], [(renamed, "app/c.py", 500, 0)])
            store.set_state({"churn_renames": "--no-renames"})
    finally:
        ctx.close()
    again = await ask(chain_repo, "pallium_hotspots", since="2026-01-01")
    assert next(h for h in again.files if h.path == "app/c.py").lines_added == expected


async def test_a_file_renamed_away_and_back_was_added_by_its_first_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    body = "def load():\n    return {}\n\n\ndef save(data):\n    return data\n"
    commit(repo, "Add the loader", {"app/loader.py": body}, when="2026-01-01T00:00:00Z")
    git(repo, "mv", "app/loader.py", "app/store.py")
    commit(repo, "Call it store", {}, when="2026-01-02T00:00:00Z")
    commit(repo, "Tune the store", {"app/store.py": body + "# tuned\n"}, when="2026-01-03T00:00:00Z")
    git(repo, "mv", "app/store.py", "app/loader.py")
    commit(repo, "Call it loader again", {}, when="2026-01-04T00:00:00Z")
    out = await ask(repo, "pallium_explain", path="app/loader.py")
    assert out.history.added_in is not None and out.history.added_in.subject == "Add the loader"
    assert out.history.commits == 4
