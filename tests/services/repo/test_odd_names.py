"""File names that are not valid UTF-8: indexed under readable escaped text, never a crash."""

import os
from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

RAW = b"caf\xe9.py"  # Latin-1 bytes: not valid UTF-8
SHOWN = "caf\\xe9.py"


def _write_raw(repo: Path, name: bytes, text: str) -> None:
    with open(os.path.join(os.fsencode(repo), name), "w", encoding="utf-8") as handle:
        handle.write(text)


@pytest.fixture
def odd_repo(empty_repo: Path) -> Path:
    _write_raw(empty_repo, RAW, "def brew():\n    return 1\n")
    commit(empty_repo, "Start", {"a.py": "def pour():\n    return brew()\n"})
    git(empty_repo, "add", "-A")
    commit(empty_repo, "Add the odd name\n\nBecause Latin-1 systems exist.", {"a.py": "def pour():\n    return 2\n"})
    return empty_repo


async def test_a_non_utf8_file_name_is_indexed_under_escaped_text(odd_repo: Path):
    out = await ask(odd_repo, "pallium_index")
    assert (out.commits_total, out.files_parsed) == (2, 2)
    symbols = await ask(odd_repo, "pallium_symbols", path=SHOWN)
    assert [s.name for s in symbols.symbols] == ["brew"]
    assert symbols.freshness.status == "fresh", "a clean tree with an odd name is not forever stale"
    callers = await ask(odd_repo, "pallium_callers", name="brew")
    assert [d.path for d in callers.definitions] == [SHOWN]


async def test_the_real_bytes_of_the_name_find_the_same_file(odd_repo: Path):
    symbols = await ask(odd_repo, "pallium_symbols", path=os.fsdecode(RAW))
    assert (symbols.path, [s.name for s in symbols.symbols]) == (SHOWN, ["brew"])


async def test_the_git_half_records_the_commit_that_added_the_odd_name(odd_repo: Path):
    neighbors = await ask(odd_repo, "pallium_neighbors", path=SHOWN)
    assert neighbors.revisions == 1
    assert [c.path for c in neighbors.cochange] == ["a.py"]
    notes = await ask(odd_repo, "pallium_decisions", query="Latin")
    assert [d.subject for d in notes.decisions] == ["Add the odd name"]


async def test_an_edited_odd_name_is_stale_then_fresh_after_refresh(odd_repo: Path):
    await ask(odd_repo, "pallium_index")
    _write_raw(odd_repo, RAW, "def brew():\n    return 1\n\ndef steep():\n    return 3\n")
    stale = await ask(odd_repo, "pallium_symbols", path=SHOWN)
    assert (stale.freshness.status, stale.freshness.changed_files) == ("stale", [SHOWN])
    refreshed = await ask(odd_repo, "pallium_symbols", path=SHOWN, refresh=True)
    assert [s.name for s in refreshed.symbols] == ["brew", "steep"]
    assert refreshed.freshness.status == "fresh"


async def test_changed_now_and_handoff_show_the_odd_name_with_its_risk(odd_repo: Path):
    await ask(odd_repo, "pallium_index")
    _write_raw(odd_repo, RAW, "def brew():\n    return 5\n")
    changed = await ask(odd_repo, "pallium_changed_now")
    (entry,) = changed.files
    assert (entry.path, entry.kind, entry.risk_level is not None) == (SHOWN, "modified", True)
    handoff = await ask(odd_repo, "pallium_handoff")
    assert {f.path: f.source for f in handoff.files} == {SHOWN: "both", "a.py": "committed"}
    assert all(f.risk_level is not None for f in handoff.files)
