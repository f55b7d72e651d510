"""An edit worker's capture limited to the paths its tree's watch saw written: the same patch as the whole one.

Real repositories, a real linked worktree, a real inotify watch; the whole capture (`add -A .` and a
diff of everything) runs after the limited one on the same tree, so anything the limited one missed
would be in the whole one's patch and the two would differ.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.worktrees import tree
from kernel.worktrees.watch import open_watch
from tests.conftest import git, write

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _repo(root: Path) -> tuple[Path, str]:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, ".gitignore", "*.o\nbuild/\n")
    write(repo, "README.md", "# demo\n")
    write(repo, "src/app.py", "".join(f"line {i}\n" for i in range(60)))
    write(repo, "src/util.py", "def helper():\n    return 1\n")
    write(repo, "src/moved.py", "".join(f"kept {i}\n" for i in range(40)))
    write(repo, "doc/old/a.md", "a\n")
    write(repo, "doc/old/b.md", "b\n")
    write(repo, "a[1].txt", "glob\n")
    write(repo, "a1.txt", "not a glob match\n")
    write(repo, "run.sh", "echo hi\n")
    write(repo, "gone.txt", "deleted soon\n")
    (repo / "logo.bin").write_bytes(bytes(range(256)) * 4)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    return repo, git(repo, "rev-parse", "HEAD").strip()


def _worktree(repo: Path, base: str, root: Path) -> tuple[Path, Path]:
    path = root / "wt"
    git(repo, "worktree", "add", "-q", "--detach", str(path), base)
    admin = Path((path / ".git").read_text(encoding="utf-8").removeprefix("gitdir: ").strip())
    return path, admin


def test_a_capture_of_the_written_paths_is_the_whole_capture_byte_for_byte(tmp_path):
    repo, base = _repo(tmp_path)
    path, admin = _worktree(repo, base, tmp_path)
    watch = open_watch(path, admin, paths=True)
    assert watch is not None
    write(path, "src/app.py", "".join(f"line {i}\n" for i in range(60) if i != 30) + "added\n")
    (path / "logo.bin").write_bytes(bytes(range(256)) * 4 + b"\x00\xff")  # a binary change
    os.chmod(path / "run.sh", 0o755)  # a mode change
    (path / "gone.txt").unlink()  # a delete
    os.rename(path / "src/moved.py", path / "src/renamed.py")  # a rename (content unchanged)
    shutil.rmtree(path / "doc/old")  # a folder deleted
    write(path, "new/deep/er/file.txt", "made in a folder made this turn\n")  # a new nested folder
    write(path, "a[1].txt", "glob, changed\n")  # a name git would read as a pattern
    write(path, "notes/día uno.txt", "hola\n")  # a name with a space and an accent
    write(path, "build/out.o", "ignored\n")  # ignored folder and file
    write(path, "util.o", "ignored\n")
    write(path, "tmp-scratch", "made and deleted\n")
    (path / "tmp-scratch").unlink()  # written, gone, never in the index
    write(path, "src/.util.py.swp", "x")  # an editor's rewrite: a temporary file renamed over the original
    os.rename(path / "src/.util.py.swp", path / "src/util.py")
    os.symlink("README.md", path / "link-to-readme")
    written = watch.changed()
    watch.close()
    assert written is not None and "gone.txt" in written and "new" in written and "tmp-scratch" in written

    limited = tree.capture(path, base, written)
    whole = tree.capture(path, base)

    assert limited == whole
    text = limited.decode("utf-8", "surrogateescape")
    for piece in (
        "rename from src/moved.py",
        "old mode 100644",
        "new mode 100755",
        "GIT binary patch",
        "deleted file mode 100644",
        "doc/old/a.md",
        "new/deep/er/file.txt",
        "a[1].txt",
        "día uno.txt",
        "link-to-readme",
    ):
        assert piece in text, piece
    assert "a1.txt" not in text.replace("a[1].txt", "")
    assert "util.o" not in text and "build/out.o" not in text and "tmp-scratch" not in text


def test_a_worker_that_runs_git_or_touches_gitignore_is_captured_whole(tmp_path):
    repo, base = _repo(tmp_path)
    path, admin = _worktree(repo, base, tmp_path)
    watch = open_watch(path, admin, paths=True)
    assert watch is not None
    write(path, "README.md", "# staged by the worker\n")
    subprocess.run(["git", "rm", "-q", "--cached", "src/util.py"], cwd=path, check=True)  # only the index
    assert watch.changed() is None  # its index may say what its files do not: the whole tree is captured
    watch.close()
    assert b"src/util.py" not in tree.capture(path, base)  # the whole capture adds it back from the file

    other = tmp_path / "other"
    other.mkdir()
    path2, admin2 = _worktree(repo, base, other)
    watch = open_watch(path2, admin2, paths=True)
    assert watch is not None
    write(path2, ".gitignore", "*.o\n")  # build/ is not ignored any more
    write(path2, "README.md", "# changed\n")
    written = watch.changed()
    watch.close()
    assert written == [".gitignore", "README.md"]
    assert tree.capture(path2, base, written) == tree.capture(path2, base)


def test_a_tree_nothing_was_written_in_captures_nothing(tmp_path):
    repo, base = _repo(tmp_path)
    path, admin = _worktree(repo, base, tmp_path)
    watch = open_watch(path, admin, paths=True)
    assert watch is not None
    (path / "README.md").read_text(encoding="utf-8")  # reading is no write
    assert watch.changed() == []
    assert tree.capture(path, base, []) == b"" == tree.capture(path, base)


def test_a_watch_rearmed_after_the_tree_moves_hears_the_next_worker_in_folders_the_move_made(tmp_path):
    repo, base = _repo(tmp_path)
    write(repo, "made/by/next/commit.txt", "new folder\n")
    git(repo, "rm", "-q", "-r", "doc")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "next")
    following = git(repo, "rev-parse", "HEAD").strip()
    path, admin = _worktree(repo, base, tmp_path)
    watch = open_watch(path, admin, paths=True)
    assert watch is not None
    write(path, "README.md", "# first worker\n")
    first = watch.changed()
    assert first == ["README.md"]
    assert tree.capture(path, base, first) == tree.capture(path, base)

    git(path, "checkout", "-q", "--detach", "--force", following)  # as the pool moves a tree to the next seed
    assert watch.rearm(path)
    assert watch.changed() == []  # the move's own writes are not the next worker's
    write(path, "made/by/next/second.txt", "written in a folder the move made\n")
    write(path, "src/app.py", "changed\n")
    second = watch.changed()
    watch.close()
    assert second == ["made/by/next/second.txt", "src/app.py"]
    assert tree.capture(path, following, second) == tree.capture(path, following)


def test_a_file_changed_through_a_hard_link_made_in_the_tree_is_captured_whole(tmp_path):
    repo, base = _repo(tmp_path)
    path, admin = _worktree(repo, base, tmp_path)
    watch = open_watch(path, admin, paths=True)
    assert watch is not None
    os.link(path / "README.md", path / "alias.md")
    with open(path / "alias.md", "a", encoding="utf-8") as out:
        out.write("changed through the other name\n")
    written = watch.changed()
    watch.close()
    assert written is not None and "README.md" not in written  # Linux names only the path written through
    limited = tree.capture(path, base, written)
    assert limited == tree.capture(path, base)
    assert b"README.md" in limited
