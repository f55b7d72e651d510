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
import threading
from pathlib import Path

from kernel import writes

__all__ = ["register", "unregister"]


def register(repo: Path, path: Path, commit: str) -> bool:
    """Register the empty folder `path` as a worktree of `repo` detached at `commit`, its files not
    checked out (as `git worktree add --detach --no-checkout`); False when git must do it.

    The files are written through folder descriptors reached without following a link (the entry's
    folder is made here, so it holds nothing else yet); a fan-out registers sixteen at once, and the
    interpreter time of one is the wait of the others.
    """
    common = _common_dir(repo)
    if common is None or not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", commit):
        return False
    folder = common / "worktrees"
    name = re.sub(r"[^A-Za-z0-9._-]", "-", path.name).strip(".") or "worktree"
    writes.ensure_dir(path, mode=0o755)
    target = os.path.realpath(path)
    with writes.folder_fd(folder, root=common, mode=0o755) as folder_fd:
        admin_name = name
        for counter in range(1, 10_000):  # git's own naming: the folder's name, then name1, name2, ...
            try:
                os.mkdir(admin_name, 0o755, dir_fd=folder_fd)
                break
            except FileExistsError:
                if _names(folder / admin_name, path):  # an entry left for this very folder (deleted by hand): replaced
                    (folder / admin_name / "gitdir").unlink(missing_ok=True)
                    shutil.rmtree(folder / admin_name, ignore_errors=True)
                    continue
                admin_name = f"{name}{counter}"
        else:
            return False
        admin = folder / admin_name  # `common` is resolved and `worktrees` is no link: so is this
        admin_fd = os.open(admin_name, _DIR_FLAGS, dir_fd=folder_fd)
    try:
        # readable by whoever may share the repository (git writes them 0666 less the umask)
        _put(admin_fd, "HEAD", commit + "\n")
        _put(admin_fd, "commondir", "../..\n")
        with writes.folder_fd(path, mode=0o755) as tree_fd:
            _put(tree_fd, ".git", f"gitdir: {admin}\n")
        _put(admin_fd, "gitdir", f"{os.path.join(target, '.git')}\n")  # last: git skips an entry without it
    finally:
        os.close(admin_fd)
    return True


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _put(dir_fd: int, name: str, text: str) -> None:
    """Write `name` in the folder `dir_fd` atomically (a temporary file renamed over it), mode 0644."""
    tmp = f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
    try:
        os.fchmod(fd, 0o644)
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


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
    if layout is None:
        return None
    common = str(layout.common_dir)  # resolved by `layout_of`
    if not os.path.isdir(common) or os.path.islink(common) or os.path.realpath(common) != common:
        return None
    if os.path.lexists(os.path.join(common, "reftable")) or not os.path.isdir(os.path.join(common, "refs")):
        return None
    return layout.common_dir if os.path.isfile(os.path.join(common, "HEAD")) else None
