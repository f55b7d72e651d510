"""A worker's repository cache: a bare clone per remote, and a worktree per call at the tree the call runs in.

The orchestrator names a commit its remote has (the user's HEAD) and the diff from it to the
call's tree (the user's uncommitted changes and the edits the run staged so far). The worker
fetches the commit once into its cache, adds a detached worktree at it, applies the diff and
commits it, so the patch it hands back is relative to exactly the tree the orchestrator holds.
Everything lives under the cache folder; nothing is written anywhere else.

A cache belongs to one worker at a time (a lock file says which): so what a worker finds there
when it starts, no call holds, and `collect` removes it: the worktrees an earlier worker left, and
the clones of remotes no call has used for `cache_days` (a stamp in each says when one last was).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import threading
import time
from pathlib import Path

from kernel import git, writes
from kernel.errors import PalliumError
from kernel.worktrees.snapshot import IDENTITY

__all__ = ["Checkouts"]

# The remote is the user's own choice (the run's `origin` or --git-remote), often a path on a shared
# disk: git's guard refuses the file transport for what a repository names, not for what the user does.
# `ext::` (which runs a command) stays refused.
_FETCH = tuple(a for name in ("file", "ssh", "https", "http", "git") for a in ("-c", f"protocol.{name}.allow=always"))
# A worktree of at most this many entries is checked for the agent's changes by a walk of its own (no
# `git status` process per call); a larger one by git, whose index makes that cheaper than a walk.
WALK_LIMIT = 5000


class Checkouts:
    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._free: dict[Path, list[Path]] = {}  # per bare repository: worktrees no call holds
        self._lent: dict[Path, Path] = {}  # worktree -> its bare repository
        self._at: dict[Path, str | None] = {}  # worktree -> the commit it was lent at (None: with an overlay)
        self._clean_at: dict[Path, str] = {}  # worktree -> the commit it is known clean at (nothing to reset)
        self._seen: dict[Path, dict[str, tuple[int, ...]] | None] = {}  # worktree -> its entries when lent
        self._present: set[tuple[Path, str]] = set()  # (bare repository, commit) known fetched
        self._stamped: dict[Path, float] = {}  # bare repository -> when its use was last stamped
        self._lockfile: int | None = None  # the descriptor whose lock says this cache is ours

    def lock(self) -> None:
        """Hold the cache for this worker; `conflict` if another worker process holds it."""
        if not self.cache.is_dir():
            writes.ensure_dir(self.cache, root=self.cache.parent)
        fd = writes.open_fd(self.cache / "worker.lock", os.O_WRONLY | os.O_CREAT, root=self.cache)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise PalliumError(
                "conflict",
                f"the repo cache {self.cache} is used by another worker on this machine",
                details={"repo_cache": str(self.cache)},
                hint="give each worker a --repo-cache of its own, or stop the other one",
            ) from None
        self._lockfile = fd

    def close(self) -> None:
        if self._lockfile is not None:
            os.close(self._lockfile)
            self._lockfile = None

    def collect(self, keep_days: float) -> dict[str, int]:
        """Remove the worktrees no call holds that this worker does not keep (an earlier one's), and the
        clones no call used for `keep_days` with their worktrees; how many of each went."""
        removed = {"worktrees": 0, "repos": 0}
        folder = self.cache / "worktrees"
        with self._guard:
            kept = set(self._lent) | {p for free in self._free.values() for p in free}
        if folder.is_dir():
            for entry in folder.iterdir():
                if entry not in kept:
                    shutil.rmtree(entry, ignore_errors=True)
                    removed["worktrees"] += 1
        repos = self.cache / "repos"
        cutoff = time.time() - keep_days * 86400
        for bare in sorted(repos.iterdir()) if repos.is_dir() else []:
            with self._guard:
                lock = self._locks.setdefault(bare.name[:16], threading.Lock())
            with lock:
                stamp = bare / "pallium-used"
                used = stamp.stat().st_mtime if stamp.exists() else bare.stat().st_mtime
                with self._guard:
                    busy = any(b == bare for b in self._lent.values())
                if used < cutoff and not busy:
                    with self._guard:
                        for path in self._free.pop(bare, []):
                            shutil.rmtree(path, ignore_errors=True)
                            removed["worktrees"] += 1
                        self._present = {(b, c) for b, c in self._present if b != bare}
                        self._stamped.pop(bare, None)
                    shutil.rmtree(bare, ignore_errors=True)
                    removed["repos"] += 1
                elif (bare / "HEAD").exists():
                    git.attempt(["worktree", "prune"], bare)  # forget the worktrees removed above
        return removed

    def _bare(self, remote: str) -> Path:
        name = hashlib.sha256(remote.encode()).hexdigest()[:16]
        bare = self.cache / "repos" / f"{name}.git"
        with self._guard:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if not (bare / "HEAD").exists():
                writes.ensure_dir(bare.parent, root=self.cache)
                git.run(["init", "--bare", "-q", str(bare)], bare.parent)
            if time.time() - self._stamped.get(bare, 0.0) > 3600:  # when a call last used it, for `collect`
                writes.write_bytes(bare / "pallium-used", f"{time.time():.0f}\n".encode(), root=self.cache)
                self._stamped[bare] = time.time()
        return bare

    def _ensure_commit(self, bare: Path, remote: str, commit: str) -> None:
        if (bare, commit) in self._present:  # objects are never removed while the worker runs
            return
        if git.attempt(["cat-file", "-e", f"{commit}^{{commit}}"], bare).returncode == 0:
            self._present.add((bare, commit))
            return
        with self._locks[bare.name[:16]]:
            if git.attempt(["cat-file", "-e", f"{commit}^{{commit}}"], bare).returncode == 0:
                return
            branches = "+refs/heads/*:refs/remotes/origin/*"
            fetched = git.attempt([*_FETCH, "fetch", "-q", "--no-tags", remote, branches], bare)
            if git.attempt(["cat-file", "-e", f"{commit}^{{commit}}"], bare).returncode == 0:
                return
            git.attempt([*_FETCH, "fetch", "-q", "--no-tags", remote, commit], bare)  # a commit no branch points at
            if git.attempt(["cat-file", "-e", f"{commit}^{{commit}}"], bare).returncode == 0:
                self._present.add((bare, commit))
                return
        raise PalliumError(
            "unavailable",
            f"commit {commit[:12]} is not on the remote {remote} this worker fetched from",
            details={"remote": remote, "commit": commit, "fetch": fetched.why if fetched.returncode else ""},
            hint="push the commit the run starts from (the orchestrator's HEAD) to the remote, or pass another remote",
        )

    def prepare(self, remote: str, commit: str, overlay: bytes, name: str) -> Path:
        """A worktree at `commit` with `overlay` applied and committed, clean of what an earlier call left; its path.

        Worktrees are kept and lent again (moving one touches only the files that differ); adding one
        changes the bare repository's list of worktrees, so that step is taken one at a time.
        """
        bare = self._bare(remote)
        self._ensure_commit(bare, remote, commit)
        with self._guard:
            free = self._free.setdefault(bare, [])
            path = free.pop() if free else None
        if path is None:
            with self._locks[bare.name[:16]]:
                path = self.cache / "worktrees" / f"{bare.name[:16]}-{name}"
                writes.ensure_dir(path.parent, root=self.cache)
                git.run(["worktree", "add", "-q", "--detach", "--force", str(path), commit], bare)
        elif self._clean_at.get(path) != commit or overlay:
            git.run(["checkout", "-q", "--detach", "--force", commit], path)
            git.run(["clean", "-q", "-ffdx"], path)
        else:  # the last call left it clean at this very commit (its capture found nothing): lent as it is
            self._clean_at.pop(path, None)
            self._lent[path] = bare
            self._at[path] = commit
            return path  # its entries as that capture saw them are in `_seen`
        self._clean_at.pop(path, None)
        self._lent[path] = bare
        self._at[path] = None if overlay else commit
        if overlay:
            git.run(["apply", "--binary", "--index", "--whitespace=nowarn", "-"], path, input=overlay)
            message = "pallium: the call's tree"
            git.run(["commit", "-q", "--no-verify", "--allow-empty", "-m", message], path, env=IDENTITY)
        self._seen[path] = _entries(path) if not overlay else None
        return path

    def capture(self, path: Path) -> bytes:
        """What the agent changed in its worktree, as a binary diff against the tree it was given."""
        at = self._at.get(path)
        before = self._seen.pop(path, None)
        if before is not None and at is not None and _entries(path) == before:  # no entry changed, came or went
            self._clean_at[path] = at
            self._seen[path] = before
            return b""
        if not git.run(["status", "--porcelain", "--untracked-files=all", "--ignored"], path).strip():
            if at is not None:
                self._clean_at[path] = at
                self._seen[path] = _entries(path)
            return b""
        git.run(["add", "-A", "--", "."], path)
        return git.run(["diff", "--cached", "--binary", "HEAD"], path)

    def release(self, path: Path) -> None:
        """Hand a worktree back for the next call (it is reset when lent again)."""
        with self._guard:
            bare = self._lent.pop(path, None)
            if bare is not None:
                self._free.setdefault(bare, []).append(path)


def _entries(root: Path) -> dict[str, tuple[int, ...]] | None:
    """Every entry under `root` but `.git`, with what any write changes (inode, size, mode, and the
    change time, which no program can set back); None past `WALK_LIMIT` entries (git checks those)."""
    found: dict[str, tuple[int, ...]] = {}
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            listing = os.scandir(folder)
        except OSError:
            return None
        with listing:
            for entry in listing:
                if folder == str(root) and entry.name == ".git":
                    continue
                info = entry.stat(follow_symlinks=False)
                found[entry.path] = (info.st_ino, info.st_size, info.st_mode, info.st_mtime_ns, info.st_ctime_ns)
                if len(found) > WALK_LIMIT:
                    return None
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return found
