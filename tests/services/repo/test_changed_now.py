"""`changed-now` on real repositories in every state git allows."""

import subprocess
from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.repo.models import ChangedNowInput
from services.repo.tools import changed_now
from tests.conftest import git, write

pytestmark = pytest.mark.anyio


async def _changed(repo: Path, **arguments):
    return await changed_now(ChangedNowInput(**arguments), ToolContext(cwd=repo))


def _by_path(out) -> dict[str, tuple[str, bool, bool]]:
    return {f.path: (f.kind, f.staged, f.unstaged) for f in out.files}


async def test_every_kind_of_change_is_classified(git_repo: Path):
    write(git_repo, "src/app.py", "def main():\n    return 2\n")  # unstaged edit
    write(git_repo, "src/new.py", "x = 1\n")
    git(git_repo, "add", "src/new.py")  # staged addition
    git(git_repo, "mv", "README.md", "GUIDE.md")  # staged rename
    (git_repo / "tests" / "test_app.py").unlink()  # unstaged deletion
    write(git_repo, "notes.txt", "todo\n")  # untracked
    write(git_repo, "debug.log", "ignored\n")  # ignored by .gitignore

    out = await _changed(git_repo)

    assert _by_path(out) == {
        "GUIDE.md": ("renamed", True, False),
        "src/new.py": ("added", True, False),
        "src/app.py": ("modified", False, True),
        "tests/test_app.py": ("deleted", False, True),
        "notes.txt": ("untracked", False, False),
    }
    assert next(f for f in out.files if f.path == "GUIDE.md").orig_path == "README.md"
    assert out.counts.model_dump() == {
        "total": 5,
        "staged": 2,
        "unstaged": 2,
        "untracked": 1,
        "renamed": 1,
        "deleted": 1,
        "conflicted": 0,
    }
    assert out.summary == "main: 5 changed files (2 staged, 2 unstaged, 1 untracked)"
    assert all(f.risk_level is None and f.blast_radius is None for f in out.files)


async def test_file_staged_and_then_edited_again_is_both(git_repo: Path):
    write(git_repo, "src/app.py", "v2\n")
    git(git_repo, "add", "src/app.py")
    write(git_repo, "src/app.py", "v3\n")
    out = await _changed(git_repo)
    assert _by_path(out) == {"src/app.py": ("modified", True, True)}
    assert out.files[0].git_status == "MM"


async def test_merge_conflict_is_listed_first(git_repo: Path):
    git(git_repo, "checkout", "-q", "-b", "other")
    write(git_repo, "src/app.py", "other side\n")
    git(git_repo, "commit", "-qam", "other")
    git(git_repo, "checkout", "-q", "main")
    write(git_repo, "src/app.py", "main side\n")
    git(git_repo, "commit", "-qam", "main")
    write(git_repo, "zzz.txt", "untracked\n")
    with pytest.raises(subprocess.CalledProcessError):
        git(git_repo, "merge", "-q", "other")
    out = await _changed(git_repo)
    assert out.files[0].path == "src/app.py"
    assert out.files[0].kind == "conflicted"
    assert out.counts.conflicted == 1


async def test_repository_with_no_commits_and_no_index(empty_repo: Path):
    assert not (empty_repo / ".git" / "index").exists()
    write(empty_repo, "a.py", "a = 1\n")
    out = await _changed(empty_repo)
    assert out.head is None
    assert out.branch == "main"
    assert out.summary == "main (no commits yet): 1 changed file (1 untracked)"
    assert _by_path(out) == {"a.py": ("untracked", False, False)}


async def test_clean_tree_on_a_detached_head(git_repo: Path):
    head = git(git_repo, "rev-parse", "HEAD").strip()
    git(git_repo, "checkout", "-q", "--detach", "HEAD~1")
    out = await _changed(git_repo)
    assert out.detached is True
    assert out.branch is None
    assert out.head != head and out.head is not None
    assert out.files == []
    assert out.summary.endswith("working tree clean")


async def test_linked_worktree_reports_its_own_changes(git_repo: Path, tmp_path: Path):
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", "-b", "feature", str(linked))
    write(linked, "feature.py", "f = 1\n")
    out = await _changed(linked)
    assert out.repo == str(linked.resolve())
    assert out.branch == "feature"
    assert _by_path(out) == {"feature.py": ("untracked", False, False)}
    assert (await _changed(git_repo)).files == []


async def test_limit_cuts_the_list_but_not_the_counts(git_repo: Path):
    for i in range(5):
        write(git_repo, f"new/{i}.txt", "x\n")
    out = await _changed(git_repo, limit=2)
    assert len(out.files) == 2
    assert out.truncated is True
    assert out.counts.total == 5


async def test_unicode_and_spaces_in_paths_survive(git_repo: Path):
    write(git_repo, "docs/ré sumé.md", "x\n")
    out = await _changed(git_repo)
    assert [f.path for f in out.files] == ["docs/ré sumé.md"]
