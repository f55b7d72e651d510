import os
from pathlib import Path

import pytest

from kernel import paths
from kernel.errors import PalliumError
from tests.conftest import git, write


def test_repo_root_is_found_from_a_subfolder(git_repo: Path):
    assert paths.find_repo_root(git_repo / "src") == git_repo.resolve()


def test_repo_root_of_a_linked_worktree_is_the_worktree(git_repo: Path, tmp_path: Path):
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", "--detach", str(linked))
    assert paths.find_repo_root(linked) == linked.resolve()


def test_folder_outside_any_repository_is_invalid_input_naming_the_callers_flag(tmp_path: Path):
    with pytest.raises(PalliumError) as raised:
        paths.find_repo_root(tmp_path)
    with pytest.raises(PalliumError) as from_cwd:
        paths.find_repo_root(tmp_path, field="cwd")
    assert raised.value.code == from_cwd.value.code == "invalid_input"
    assert (raised.value.details["field"], from_cwd.value.details["field"]) == ("repo", "cwd")
    assert raised.value.hint.endswith("or pass --repo PATH") and from_cwd.value.hint.endswith("or pass --cwd PATH")


def test_missing_folder_is_not_found(tmp_path: Path):
    with pytest.raises(PalliumError) as raised:
        paths.find_repo_root(tmp_path / "nope")
    assert raised.value.code == "not_found"


def test_confine_resolves_relative_paths_from_the_callers_folder(git_repo: Path):
    assert paths.confine(git_repo, "app.py", base=git_repo / "src") == (git_repo / "src" / "app.py").resolve()
    assert paths.confine(git_repo, "src/app.py") == (git_repo / "src" / "app.py").resolve()


@pytest.mark.parametrize("escape", ["../outside.txt", "src/../../outside.txt", "/etc/passwd"])
def test_confine_refuses_paths_leaving_the_repository(git_repo: Path, escape: str):
    with pytest.raises(PalliumError) as raised:
        paths.confine(git_repo, escape)
    assert raised.value.code == "invalid_input"
    assert raised.value.details["field"] == "path"


def test_confine_refuses_a_symlink_pointing_outside(git_repo: Path, tmp_path: Path):
    secret = write(tmp_path, "secret.txt", "s")
    os.symlink(secret, git_repo / "link.txt")
    with pytest.raises(PalliumError):
        paths.confine(git_repo, "link.txt")


def test_home_defaults_to_dot_pallium(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("PALLIUM_HOME")
    assert paths.pallium_home() == Path.home() / ".pallium"
