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


def test_guard_lets_a_reader_touch_the_shared_memory_file_but_not_write(tmp_path: Path):
    import os
    import time

    (tmp_path / "pallium.sqlite").write_bytes(b"db")
    (tmp_path / "pallium.sqlite-shm").write_bytes(b"\0" * 32)
    before = home_guard.snapshot(tmp_path)
    later = time.time_ns() + 10_000_000
    os.utime(tmp_path / "pallium.sqlite-shm", ns=(later, later))  # what a reader elsewhere does
    assert home_guard.changes(before, home_guard.snapshot(tmp_path)) == []
    (tmp_path / "pallium.sqlite-wal").write_bytes(b"frames")  # what a writer does
    assert home_guard.changes(before, home_guard.snapshot(tmp_path)) == [".", "pallium.sqlite-wal"]
