"""The guard that keeps tests away from the user's real ~/.pallium must itself notice writes."""

from pathlib import Path

from tests import home_guard


def test_guard_sees_a_file_created_changed_or_removed(tmp_path: Path):
    home = tmp_path / ".pallium"
    empty = home_guard.snapshot(home)
    assert empty == {}
    home.mkdir()
    (home / "pallium.sqlite").write_bytes(b"x")
    created = home_guard.snapshot(home)
    assert home_guard.changes(empty, created) == [".", "pallium.sqlite"]
    (home / "pallium.sqlite").write_bytes(b"longer")
    assert home_guard.changes(created, home_guard.snapshot(home)) == ["pallium.sqlite"]


def test_guard_sees_nothing_when_nothing_changed(tmp_path: Path):
    (tmp_path / "a").write_text("x", encoding="utf-8")
    assert home_guard.changes(home_guard.snapshot(tmp_path), home_guard.snapshot(tmp_path)) == []
