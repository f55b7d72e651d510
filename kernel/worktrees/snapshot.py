"""A commit of the user's working tree as it is now, uncommitted and untracked changes included.

Made through a temporary index (`GIT_INDEX_FILE`), `git add -A`, `write-tree` and `commit-tree`, so
the user's own index, HEAD and branch are never touched; ignored files stay out. The copy of the real
index only seeds git's stat cache so unchanged files are not re-hashed (with its own mtime, so git's
racy-clean check still re-reads a file rewritten in the same second: `_seed_index`).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kernel import git
from kernel.worktrees.watch import Watch, open_watch

__all__ = ["IDENTITY", "Snapshot", "WatchedTree", "head_commit", "snapshot", "working_tree"]

IDENTITY = {
    "GIT_AUTHOR_NAME": "Pallium",
    "GIT_AUTHOR_EMAIL": "pallium@localhost",
    "GIT_COMMITTER_NAME": "Pallium",
    "GIT_COMMITTER_EMAIL": "pallium@localhost",
}


@dataclass(frozen=True)
class Snapshot:
    commit: str
    tree: str
    head: str | None  # the user's HEAD commit it was made on; None in a repository with no commits


def head_commit(repo: Path) -> str | None:
    """The commit HEAD names, read from `.git` without starting git when the layout is the plain one."""
    return git.head_commit(repo)


def _index_path(repo: Path) -> Path:
    """The index file of the working tree at `repo` (its git folder's `index`; git is asked otherwise)."""
    from kernel.git_guard import layout_of

    layout = layout_of(repo)
    if layout is not None and layout.git_dir.is_dir() and layout.top == repo.resolve():
        return layout.git_dir / "index"
    return Path(git.run(["rev-parse", "--path-format=absolute", "--git-path", "index"], repo).decode().strip())


def _seed_index(real_index: Path, copy: Path) -> None:
    """Copy the real index, its modification time included.

    Git trusts an entry whose size and mtime match the file unless the file is as new as the index
    itself ("racily clean"); a copy stamped now would make a file rewritten, at the same size, in
    the second it was last added look unchanged, and the snapshot would miss the user's edit.
    """
    shutil.copy2(real_index, copy)


class WatchedTree:
    """Readings of the tree id of a user's working tree (`working_tree`) that start no git while nothing
    was written in it: an inotify watch (`kernel.worktrees.watch`) on its folders and its git folder
    (the index, HEAD, `info/exclude`) made before each reading, and the last reading kept.

    A team's round and each of its edit turns read the user's tree (a `git add -A` of all 1,600 files
    of redis on a copy of the index, with a write-tree); while the user types nothing, all but the
    first are this kept answer. Any event, or no watch at all, is a real reading. Readings run one at a
    time (`LiveCalls._user_tree` shares one); what is written during a reading is read by the next.
    A change of a global excludes file alone is not seen until something else is written.
    """

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._watch: Watch | None = None
        self._tried = False
        self._last: str | None = None

    def read(self) -> str:
        if self._watch is not None and self._last is not None and not self._watch.written():
            return self._last
        self._last = None  # a reading that fails leaves nothing to reuse
        if self._watch is not None or not self._tried:
            # made anew before each reading: a folder made since the last one is watched too
            self.close()
            self._tried, self._watch = True, _watch_of(self.repo)
        self._last = working_tree(self.repo)
        return self._last

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()
            self._watch = None


def _watch_of(repo: Path) -> Watch | None:
    from kernel.git_guard import layout_of

    layout = layout_of(repo)
    if layout is None or layout.top != repo.resolve() or not layout.git_dir.is_dir():
        return None
    folders = [layout.git_dir]
    for info in (layout.git_dir / "info", layout.common_dir / "info"):
        if info.is_dir() and info not in folders:
            folders.append(info)
    return open_watch(repo, *folders)


def snapshot(repo: Path) -> Snapshot:
    """Commit the working tree of `repo` into the object store (no ref points at it) and return it."""
    head = head_commit(repo)
    real_index = _index_path(repo)
    with tempfile.TemporaryDirectory(prefix="pallium-snapshot-") as tmp:
        index = Path(tmp) / "index"
        if real_index.exists():
            _seed_index(real_index, index)
        env = {"GIT_INDEX_FILE": str(index)}
        git.run(["add", "-A", "--", "."], repo, env=env)
        tree = git.run(["write-tree"], repo, env=env).decode().strip()
    parents = ["-p", head] if head else []
    commit = git.run(["commit-tree", tree, *parents, "-m", "pallium snapshot"], repo, env=IDENTITY).decode().strip()
    return Snapshot(commit, tree, head)


def working_tree(repo: Path) -> str:
    """The tree id of `repo`'s working tree as it is now (as `snapshot(repo).tree`, without the commit)."""
    real_index = _index_path(repo)
    with tempfile.TemporaryDirectory(prefix="pallium-snapshot-") as tmp:
        index = Path(tmp) / "index"
        if real_index.exists():
            _seed_index(real_index, index)
        env = {"GIT_INDEX_FILE": str(index)}
        git.run(["add", "-A", "--", "."], repo, env=env)
        return git.run(["write-tree"], repo, env=env).decode().strip()
