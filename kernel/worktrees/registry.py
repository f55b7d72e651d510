"""Registering and unregistering a detached linked worktree by writing what `git worktree add` writes.

`git worktree add` cannot run twice at once in one repository (each reads the other's half-written
entry and dies), so a fan-out's sixteen new worktrees queued behind one another, one git process
each, and removing them at the end queued the same way. The entry is three small files, laid out
in gitrepository-layout(5): `<common>/worktrees/<id>/{HEAD,commondir,gitdir}` and the tree's own
`.git` file naming that folder. Written here, each atomically (a reader never sees one empty) and
`gitdir` last (an entry without it is skipped by git), they need no lock and no process. Anything
this layout does not cover (reftable refs, an unusual git folder) falls back to git itself:
`register` and `unregister` return False and the caller runs `git worktree add`/`remove`.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from kernel import writes

__all__ = ["register", "unregister"]


def register(repo: Path, path: Path, commit: str) -> bool:
    """Register the empty folder `path` as a worktree of `repo` detached at `commit`, its files not
    checked out (as `git worktree add --detach --no-checkout`); False when git must do it."""
    common = _common_dir(repo)
    if common is None or not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        return False
    folder = common / "worktrees"
    writes.ensure_dir(folder, root=common, mode=0o755)
    name = re.sub(r"[^A-Za-z0-9._-]", "-", path.name).strip(".") or "worktree"
    admin = folder / name
    for counter in range(1, 10_000):  # git's own naming: the folder's name, then name1, name2, ...
        try:
            os.mkdir(admin, 0o755)
            break
        except FileExistsError:
            if _names(admin, path):  # an entry left for this very folder (deleted by hand): replaced
                (admin / "gitdir").unlink(missing_ok=True)
                shutil.rmtree(admin, ignore_errors=True)
                continue
            admin = folder / f"{name}{counter}"
    else:
        return False
    admin = admin.resolve()
    writes.ensure_dir(path, mode=0o755)
    # readable by whoever may share the repository (git writes them 0666 less the umask)
    writes.write_text(admin / "HEAD", commit + "\n", mode=0o644, root=admin, atomic=True)
    writes.write_text(admin / "commondir", "../..\n", mode=0o644, root=admin, atomic=True)
    writes.write_text(path / ".git", f"gitdir: {admin}\n", mode=0o644, root=path, atomic=True)
    writes.write_text(admin / "gitdir", f"{path.resolve() / '.git'}\n", mode=0o644, root=admin, atomic=True)
    return True


def unregister(path: Path) -> bool:
    """Delete the worktree at `path` and its entry in its repository, if `register` could have made it
    (its `.git` file names an entry that names it back); False when git must remove it."""
    marker = path / ".git"
    try:
        text = marker.read_text(encoding="utf-8") if marker.is_file() and not marker.is_symlink() else ""
    except OSError:
        return False
    if not text.startswith("gitdir: "):
        return False
    admin = Path(text[len("gitdir: ") :].strip())
    try:
        back = (admin / "gitdir").read_text(encoding="utf-8").strip()
        names_back = admin.parent.name == "worktrees" and Path(back).resolve() == marker.resolve()
    except OSError:
        return False
    if not names_back or not (admin / "commondir").is_file():
        return False
    shutil.rmtree(path, ignore_errors=True)  # the tree first, as git does: a left entry is pruned later
    (admin / "gitdir").unlink(missing_ok=True)  # without it git skips the entry while it is deleted
    shutil.rmtree(admin, ignore_errors=True)
    return True


def _names(admin: Path, path: Path) -> bool:
    """Whether the worktree entry `admin` is registered for the folder `path`."""
    try:
        back = (admin / "gitdir").read_text(encoding="utf-8").strip()
    except OSError:
        return False
    return Path(back).resolve() == (path / ".git").resolve()


def _common_dir(repo: Path) -> Path | None:
    """The git folder that holds `repo`'s worktree entries, when it keeps refs in files (not reftable)."""
    from kernel.git_guard import layout_of

    layout = layout_of(repo)
    if layout is None or not layout.common_dir.is_dir() or layout.common_dir.is_symlink():
        return None
    common = layout.common_dir.resolve()
    if (common / "reftable").exists() or not (common / "refs").is_dir() or not (common / "HEAD").is_file():
        return None
    return common
