"""`pallium facts`: the whole index's facts, and commits picked by words in their subjects, at any age."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def subjects_repo(empty_repo: Path) -> Path:
    commit(empty_repo, "Revert the cache_size change", {"a.py": "A = 1\n"}, when="2026-01-01T00:00:00Z")
    commit(empty_repo, "Add cachesize docs", {"b.md": "# b\n"}, when="2026-01-02T00:00:00Z")
    commit(empty_repo, "Hotfix: 100% CPU in the loop", {"a.py": "A = 2\n"}, when="2026-01-03T00:00:00Z")
    for i in range(5):
        commit(empty_repo, f"Tidy {i}", {"c.py": f"C = {i}\n"}, when=f"2026-02-0{i + 1}T00:00:00Z")
    return empty_repo


async def _subjects(repo: Path, words: list[str]) -> list[str]:
    out = await ask(repo, "facts", sections=["commits"], commit_limit=0, commit_words=words)
    return [c.subject for c in out.commits]


async def test_commit_words_pick_old_commits_by_subject_in_any_case(subjects_repo: Path):
    assert await _subjects(subjects_repo, ["REVERT", "hotfix"]) == [
        "Hotfix: 100% CPU in the loop",
        "Revert the cache_size change",
    ]
    out = await ask(subjects_repo, "facts", sections=["commits"], commit_limit=0, commit_words=["revert"])
    assert out.commits[0].files == ["a.py"]


async def test_wildcard_characters_in_a_word_are_plain_letters(subjects_repo: Path):
    # `_` and `%` would match any letter as LIKE wildcards, so `cache_size` would find `cachesize`.
    assert await _subjects(subjects_repo, ["cache_size"]) == ["Revert the cache_size change"]
    assert await _subjects(subjects_repo, ["100%"]) == ["Hotfix: 100% CPU in the loop"]
    assert await _subjects(subjects_repo, ["%"]) == ["Hotfix: 100% CPU in the loop"]


async def test_a_huge_word_finds_nothing_instead_of_failing(subjects_repo: Path):
    assert await _subjects(subjects_repo, ["x" * 60_000]) == []
