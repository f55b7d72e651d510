"""The git half: churn, co-change and decision notes from real histories, read incrementally."""

from pathlib import Path

import pytest

from kernel.store import open_repo
from services.repo import risk
from services.repo.store import SCHEMA, RepoStore
from tests.conftest import git, write
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _store(repo: Path) -> RepoStore:
    return RepoStore(open_repo(repo, [SCHEMA]))


async def test_churn_and_cochange_are_counted_exactly(history_repo: Path):
    out = await ask(history_repo, "pallium_index")
    assert (out.commits_read, out.history_rebuilt) == (8, True)
    neighbors = await ask(history_repo, "pallium_neighbors", path="core.py")
    # core.py: 8 commits, 7 of them of at most 30 files; util.py: 5; shared: 5.
    assert neighbors.revisions == 7
    pairs = {c.path: c for c in neighbors.cochange}
    assert set(pairs) == {"util.py"}, "the changelog is noise and the mass commit makes no pairs"
    util = pairs["util.py"]
    assert (util.shared, util.confidence, util.degree, util.strength) == (5, round(5 / 7, 3), round(5 / 6, 3), "strong")
    back = await ask(history_repo, "pallium_neighbors", path="util.py")
    assert back.cochange[0].confidence == 1.0, "confidence is directional: every util change touched core"


async def test_reindex_reads_only_new_commits(history_repo: Path):
    await ask(history_repo, "pallium_index")
    again = await ask(history_repo, "pallium_index")
    assert (again.commits_read, again.history_rebuilt, again.commits_total) == (0, False, 8)
    commit(history_repo, "Touch util", {"util.py": "def util():\n    return 42\n"}, when="2026-02-28T00:00:00Z")
    after = await ask(history_repo, "pallium_index")
    assert (after.commits_read, after.history_rebuilt, after.commits_total) == (1, False, 9)
    assert after.watermark == git(history_repo, "rev-parse", "HEAD").strip()


async def test_rewritten_history_rebuilds_the_git_half(history_repo: Path):
    await ask(history_repo, "pallium_index")
    git(history_repo, "reset", "-q", "--hard", "HEAD~3")
    commit(history_repo, "A different future", {"other.py": "o = 1\n"})
    out = await ask(history_repo, "pallium_index")
    assert out.history_rebuilt is True
    assert out.commits_total == 6
    store = _store(history_repo)
    assert store.history_of("gen/f1.py", since=0, max_files=30)["revisions"] == 0


async def test_shallow_clone_indexes_what_it_has(history_repo: Path, tmp_path: Path):
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{history_repo}", str(clone))
    out = await ask(clone, "pallium_index")
    assert out.shallow is True
    assert out.commits_total == 2


async def test_empty_repository_indexes_to_nothing(empty_repo: Path):
    write(empty_repo, "a.py", "a = 1\n")
    out = await ask(empty_repo, "pallium_index")
    assert (out.watermark, out.commits_total, out.files_parsed) == (None, 0, 0)
    first = commit(empty_repo, "First", {"a.py": "a = 1\n"})
    out = await ask(empty_repo, "pallium_index")
    assert (out.watermark, out.commits_read, out.files_parsed) == (first, 1, 1)


async def test_decisions_find_commit_bodies_newest_relevant_first(history_repo: Path):
    out = await ask(history_repo, "pallium_decisions", query="frozen contract")
    assert [d.subject for d in out.decisions] == ["Tune core alone"]
    assert "util contract is frozen" in out.decisions[0].body
    nothing = await ask(history_repo, "pallium_decisions", query="kubernetes")
    assert nothing.decisions == []


async def test_decisions_page_with_a_cursor(history_repo: Path):
    first = await ask(history_repo, "pallium_decisions", query="core", limit=3)
    assert first.truncated is True and len(first.decisions) == 3
    second = await ask(history_repo, "pallium_decisions", query="core", limit=3, cursor=first.next_cursor)
    assert {d.sha for d in first.decisions}.isdisjoint({d.sha for d in second.decisions})


async def test_an_index_whose_history_lags_its_content_is_stale_until_reindexed(history_repo: Path):
    await ask(history_repo, "pallium_index")
    head = commit(history_repo, "Add a module", {"extra.py": "x = 1\n"})
    # What a run of an older version left behind when its git half failed after the content half
    # had already stamped itself with HEAD.
    _store(history_repo).set_state({"content_head": head})
    lagging = await ask(history_repo, "pallium_symbols", path="core.py")
    assert (lagging.freshness.status, lagging.freshness.history_behind) == ("stale", True)
    caught_up = await ask(history_repo, "pallium_symbols", path="core.py", refresh=True)
    assert (caught_up.freshness.status, caught_up.freshness.history_behind) == ("fresh", False)
    assert _store(history_repo).commit_count() == 9


async def test_partners_of_two_shared_commits_are_the_full_list_filtered(history_repo: Path):
    commit(history_repo, "Core with a helper once", {"core.py": "c = 9\n", "helper.py": "h = 1\n"})
    await ask(history_repo, "pallium_index")
    store = _store(history_repo)
    revisions, everything = risk.cochange(store, "core.py")
    again, strong = risk.cochange(store, "core.py", min_shared=2)
    assert {p.path for p in everything} == {"util.py", "helper.py"}
    assert again == revisions and strong == [p for p in everything if p.shared >= 2]
    assert risk.blast_radius(store, "core.py") == risk.blast_of(everything) == 1
