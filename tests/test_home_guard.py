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


def test_the_watch_hears_this_processs_own_writes_and_no_one_elses(tmp_path: Path):
    import os
    import socket
    import subprocess
    import sys

    real = tmp_path / "real" / ".pallium"  # stands in for the user's real ~/.pallium
    real.mkdir(parents=True)
    watch = home_guard.watch(real)
    watch.take()
    # another process on the machine (a resident server, an agent) writing there fails nothing
    other = (
        "import pathlib, sys; p = pathlib.Path(sys.argv[1]); (p / 'run').mkdir(); "
        "(p / 'run' / 'x.sock').write_text('s')"
    )
    subprocess.run([sys.executable, "-c", other, str(real)], check=True)
    (tmp_path / "elsewhere.txt").write_text("fine")
    (real / "run" / "x.sock").read_text()  # reading is no write
    assert watch.take() == []
    # this process writing there is caught, whatever the call
    (real / "pallium.sqlite").write_bytes(b"x")
    os.mkdir(real / "workflow-runs")
    os.replace(real / "pallium.sqlite", real / "moved.sqlite")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(real / "run" / "mine.sock"))
    finally:
        server.close()
    hits = watch.take()
    assert [h.split(" ", 1)[0] for h in hits] == ["open", "os.mkdir", "os.rename", "socket.bind"], hits


def test_the_tests_process_tree_resolves_home_to_the_tests_own(tmp_path: Path):
    import os
    import subprocess
    import sys

    from tests.conftest import REAL_HOME

    assert Path(os.environ["HOME"]) != REAL_HOME and Path.home() == Path(os.environ["HOME"])
    child = subprocess.run(
        [sys.executable, "-c", "import pathlib; print(pathlib.Path.home())"], capture_output=True, text=True, check=True
    )
    assert child.stdout.strip() == os.environ["HOME"]  # a child's `~/.pallium` is the test's, not the user's
