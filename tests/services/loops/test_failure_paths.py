"""Path tokens in failure lines read as the repository-relative path, whatever depth or prefix printed them."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from services.loops.failure_paths import RepoPaths
from services.loops.progress import normalize_failure, signature_from_failures, step
from tests.conftest import git, write

FILES = (
    "tests/test_a.py",
    "src/a/mod_test.go",
    "src/b/mod_test.go",
    "src/ui/button.test.ts",
    "lib/util.js",
    "crates/core/src/lib.rs",
    "app/models.py",
)


@pytest.fixture
def repo(empty_repo: Path) -> Path:
    for name in FILES:
        write(empty_repo, name, "x\n")
    git(empty_repo, "add", "-A")
    git(empty_repo, "commit", "-q", "-m", "Files that failures name")
    return empty_repo


def same_failure_at_depths(root: Path) -> dict[str, list[str]]:
    temp = Path(tempfile.gettempdir()).as_posix()
    return {
        "pytest node id": [
            "FAILED tests/test_a.py::t - assert 1 == 2",
            "FAILED test_a.py::t - assert 1 == 2",  # run inside tests/
            f"FAILED {temp}/build-1/tests/test_a.py::t - assert 1 == 2",
            f"FAILED {root.as_posix()}/tests/test_a.py::t - assert 1 == 2",
            "FAILED ./tests/test_a.py::t - assert 1 == 2",
        ],
        "go test line": [
            "src/a/mod_test.go:41: want 1",
            f"{root.as_posix()}/src/a/mod_test.go:97: want 1",
            "a/mod_test.go:3: want 1",
            f"{temp}/go-build123/src/a/mod_test.go:41: want 1",
        ],
        "jest path": [
            "FAIL src/ui/button.test.ts > renders",
            f"FAIL {root.as_posix()}/src/ui/button.test.ts > renders",
            "FAIL ui/button.test.ts > renders",  # run from src/
        ],
        "node stack": [
            f"AssertionError at Object.<anonymous> ({root.as_posix()}/lib/util.js:10:5)",
            f"AssertionError at Object.<anonymous> (file://{root.as_posix()}/lib/util.js:88:1)",
            "AssertionError at Object.<anonymous> (../lib/util.js:3:1)",  # run from a sibling folder
        ],
        "cargo panic": [
            "thread 'tests::t' panicked at crates/core/src/lib.rs:10:5:",
            "thread 'tests::t' panicked at src/lib.rs:12:9:",  # run inside crates/core
        ],
        "windows path": [
            "C:\\ci\\w\\app\\models.py:12: boom",
            "app\\models.py:40: boom",
            "models.py:1: boom",
        ],
    }


@pytest.mark.parametrize(
    "syntax", ["pytest node id", "go test line", "jest path", "node stack", "cargo panic", "windows path"]
)
def test_the_same_failure_printed_at_two_depths_is_one_signature(repo, syntax):
    paths = RepoPaths.read(repo)
    forms = same_failure_at_depths(repo)[syntax]
    normalized = {normalize_failure(f, paths) for f in forms}
    assert len(normalized) == 1, normalized
    assert len({signature_from_failures([f], paths=paths) for f in forms}) == 1


def test_a_path_reads_as_the_repository_relative_file(repo):
    paths = RepoPaths.read(repo)
    temp = Path(tempfile.gettempdir()).as_posix()
    assert normalize_failure("FAILED test_a.py::t", paths) == "FAILED tests/test_a.py::t"
    assert normalize_failure(f"{temp}/build-1/tests/test_a.py::t", paths) == "tests/test_a.py::t"
    assert normalize_failure(f"{repo.as_posix()}/src/a/mod_test.go:41", paths) == "src/a/mod_test.go:N"
    assert normalize_failure("C:\\ci\\w\\app\\models.py:12", paths) == "app/models.py:N"


def test_same_named_files_in_two_packages_are_different_failures(repo):
    paths = RepoPaths.read(repo)
    a = ["src/a/mod_test.go:41: want 1", f"{repo.as_posix()}/src/a/mod_test.go:41: want 1", "a/mod_test.go:41: want 1"]
    b = ["src/b/mod_test.go:41: want 1", f"{repo.as_posix()}/src/b/mod_test.go:41: want 1", "b/mod_test.go:41: want 1"]
    for left, right in zip(a, b, strict=True):
        assert normalize_failure(left, paths) != normalize_failure(right, paths)
        assert signature_from_failures([left], paths=paths) != signature_from_failures([right], paths=paths)
    # A bare name that two packages share is ambiguous and kept as printed, not guessed.
    assert normalize_failure("mod_test.go:41: want 1", paths) == "mod_test.go:N: want 1"


def test_a_failure_moving_between_packages_is_progress_and_staying_at_another_depth_is_not(repo):
    paths = RepoPaths.read(repo)
    moving = ["src/a/mod_test.go:41: want 1", "src/b/mod_test.go:41: want 1", "src/a/mod_test.go:41: want 1"]
    staying = ["tests/test_a.py::t", "test_a.py::t", f"{repo.as_posix()}/tests/test_a.py::t"]

    def run(lines: list[str]) -> tuple[int, str | None]:
        previous, count, history, stagnated = None, 0, [], None
        for line in lines:
            signature = signature_from_failures([line], paths=paths)
            moved = step(previous=previous, count=count, history=history, signature=signature, threshold=3)
            previous, count, history, stagnated = signature, moved.count, moved.history, moved.stagnated
        return count, stagnated

    count, stagnated = run(staying)
    assert count == 3 and stagnated and "came back 3 cycles" in stagnated
    count, stagnated = run(moving[:2])
    assert count == 1 and stagnated is None


def test_a_temp_prefix_is_dropped_even_where_no_file_matches(repo):
    paths = RepoPaths.read(repo)
    temp = Path(tempfile.gettempdir()).as_posix()
    one = normalize_failure(f"{temp}/pytest-of-ada/pytest-7/fixture.txt:3 missing", paths)
    two = normalize_failure(f"{temp}/pytest-of-bob/pytest-12/fixture.txt:9 missing", paths)
    assert one == two == "fixture.txt:N missing"
    assert temp not in normalize_failure(f"{temp}/build-1/tests/test_a.py::t", paths)


def test_an_unmatched_path_is_kept_as_printed_and_what_is_not_a_path_is_untouched(repo):
    paths = RepoPaths.read(repo)
    assert normalize_failure("vendor/x/gen.py:3: boom", paths) == "vendor/x/gen.py:N: boom"
    assert normalize_failure("/usr/lib/python3/enum.py:7: boom", paths) == "/usr/lib/python3/enum.py:N: boom"
    assert normalize_failure("expected 1/2 got 3/4", paths) == "expected 1/2 got 3/4"
    assert normalize_failure("self.assertEqual failed", paths) == "self.assertEqual failed"
    assert normalize_failure(f"{repo.as_posix()}/new/thing.py:4", paths) == "new/thing.py:N"


def test_new_untracked_test_files_resolve_too_and_ignored_ones_do_not(repo):
    write(repo, "tests/test_new.py", "x\n")
    write(repo, ".gitignore", "build/\n")
    write(repo, "build/out/test_gen.py", "x\n")
    paths = RepoPaths.read(repo)
    assert normalize_failure("test_new.py::t", paths) == "tests/test_new.py::t"
    assert normalize_failure("test_gen.py::t", paths) == "test_gen.py::t"


def test_outside_git_only_the_root_is_known(tmp_path):
    write(tmp_path, "tests/test_a.py", "x\n")
    paths = RepoPaths.read(tmp_path)
    assert normalize_failure(f"{tmp_path.as_posix()}/tests/test_a.py::t", paths) == "tests/test_a.py::t"
    assert normalize_failure("test_a.py::t", paths) == "test_a.py::t"


def test_a_go_package_path_reads_as_its_folder_and_two_packages_stay_two(repo):
    paths = RepoPaths.read(repo)
    a = normalize_failure("FAIL\texample.com/m/src/a\t0.012s", paths)
    assert a == normalize_failure("FAIL ./src/a 1.5s", paths) == "FAIL src/a <duration>"
    assert a != normalize_failure("FAIL\texample.com/m/src/b\t0.012s", paths)
