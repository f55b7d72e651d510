"""Every file Pallium writes goes through here: only inside `<repo>/.pallium/` or `$PALLIUM_HOME`.

A cloned repository is untrusted input, and it can commit symbolic links: `.pallium -> ../elsewhere`,
`.pallium/index.lock -> ~/important.txt`, a dangling `.pallium/.gitignore`. So a write never follows
one. The folders from the anchor (the repository root, or the home folder, both trusted as they
are) down to the file are walked one at a time with `O_NOFOLLOW | O_DIRECTORY` relative to the
folder before, creating what is missing, and the file itself is opened with `O_NOFOLLOW` relative
to its folder: a link anywhere below the anchor, or a file where a folder should be, is refused
with an `unavailable` error naming the path and what to do, and nothing is written.

`paths.confine` is the other half: it resolves a path a caller *passes* and keeps it in the repo.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from kernel import paths
from kernel.errors import PalliumError

__all__ = [
    "append_handle",
    "check_file",
    "ensure_dir",
    "folder_fd",
    "home",
    "move",
    "open_fd",
    "state_dir",
    "write_bytes",
    "write_text",
]

# Databases and run state stay local; configuration and saved workflows are meant to be committed.
REPO_GITIGNORE = "*\n!config.toml\n!workflows/\n!workflows/**\n"

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def home() -> Path:
    """`$PALLIUM_HOME`, created (mode 0700) if needed; the user's own setting, so it may be a link."""
    return paths.ensure_home()


def state_dir(repo_root: Path) -> Path:
    """`<repo>/.pallium`, made a real folder inside the repository, with its `.gitignore`."""
    state = paths.repo_state_dir(repo_root)
    ensure_dir(state, root=repo_root)
    ignore = state / ".gitignore"
    try:
        fd = open_fd(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, root=repo_root)
    except FileExistsError:
        return state  # a real file already there (a link was refused by open_fd)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(REPO_GITIGNORE)
    return state


def ensure_dir(path: Path, *, root: Path | None = None, mode: int = 0o700) -> Path:
    """Create the folder `path` (and its missing parents below the anchor), refusing any link."""
    anchor, parts = _split(path, root)
    with _walk(anchor, parts, mode=mode):
        pass
    return path


@contextlib.contextmanager
def folder_fd(path: Path, *, root: Path | None = None, mode: int = 0o700) -> Iterator[int]:
    """An fd of the folder `path` (made with its missing parents below the anchor), reached refusing any
    link, for writing several files in it with `dir_fd`; closed after the block."""
    anchor, parts = _split(path, root)
    with _walk(anchor, parts, mode=mode) as fd:
        yield fd


def open_fd(path: Path, flags: int, mode: int = 0o600, *, root: Path | None = None, dir_mode: int = 0o700) -> int:
    """`os.open(path, flags | O_NOFOLLOW)` after a link-free walk to its folder; returns the fd.

    Raises `FileExistsError` for `O_EXCL` on an existing file, as `os.open` does; any link or
    non-regular file at `path` is refused with a `PalliumError`.
    """
    anchor, parts = _split(path, root)
    if not parts:
        raise _refused(path, "is the anchor folder itself, not a file in it")
    with _walk(anchor, parts[:-1], mode=dir_mode) as dir_fd:
        try:
            fd = os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, mode, dir_fd=dir_fd)
        except FileExistsError:
            if _is_link(parts[-1], dir_fd):
                raise _refused(path, "is a symbolic link") from None
            raise
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise _refused(path, "is a symbolic link") from exc
            raise _failed(path, exc) from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _refused(path, "is not a regular file")
    os.set_blocking(fd, True)
    return fd


def write_bytes(
    path: Path,
    data: bytes,
    *,
    mode: int = 0o600,
    root: Path | None = None,
    atomic: bool = False,
    exclusive: bool = False,
) -> Path:
    """Write `data` to `path` (truncating it), or through a fresh temporary file renamed over it.

    `exclusive` refuses an existing file with `FileExistsError` instead of replacing it.
    """
    if exclusive:
        _write_fd(open_fd(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode, root=root), data, mode)
        return path
    if atomic:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        _write_fd(open_fd(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode, root=root), data, mode)
        move(tmp, path, root=root)
        return path
    _write_fd(open_fd(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode, root=root), data, mode)
    return path


def write_text(
    path: Path, text: str, *, mode: int = 0o600, root: Path | None = None, atomic: bool = False, exclusive: bool = False
) -> Path:
    return write_bytes(path, text.encode("utf-8"), mode=mode, root=root, atomic=atomic, exclusive=exclusive)


@contextlib.contextmanager
def append_handle(path: Path, *, mode: int = 0o600, root: Path | None = None) -> Iterator[int]:
    """An fd open for appending to `path` (for logs handed to a child process), closed after the block."""
    fd = open_fd(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, mode, root=root)
    try:
        yield fd
    finally:
        os.close(fd)


def move(src: Path, dst: Path, *, root: Path | None = None) -> Path:
    """Rename `src` over `dst`; both must sit in link-free folders (a rename never follows the last part)."""
    src_anchor, src_parts = _split(src, root)
    dst_anchor, dst_parts = _split(dst, root)
    with _walk(src_anchor, src_parts[:-1], create=False) as src_fd, _walk(dst_anchor, dst_parts[:-1]) as dst_fd:
        try:
            os.replace(src_parts[-1], dst_parts[-1], src_dir_fd=src_fd, dst_dir_fd=dst_fd)
        except OSError as exc:
            raise _failed(dst, exc) from exc
    return dst


def check_file(path: Path, *, root: Path | None = None) -> Path:
    """Make `path`'s folders (refusing links) and refuse `path` if it is a link or not a regular file.

    For files opened by name by something else (SQLite): the database and its `-wal`, `-shm` and
    `-journal` companions are checked by the caller.
    """
    anchor, parts = _split(path, root)
    with _walk(anchor, parts[:-1]) as dir_fd:
        try:
            st = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return path
        except OSError as exc:
            raise _failed(path, exc) from exc
    if stat.S_ISLNK(st.st_mode):
        raise _refused(path, "is a symbolic link")
    if not stat.S_ISREG(st.st_mode):
        raise _refused(path, "is not a regular file")
    return path


# ---------------------------------------------------------------- helpers


def _split(path: Path, root: Path | None) -> tuple[Path, tuple[str, ...]]:
    """The trusted anchor of `path` and the parts below it.

    The anchor is `root` when given (a repository root, for a file a tool writes at an edit
    ceiling), else `$PALLIUM_HOME` for paths under it, else the folder holding the last `.pallium`.
    """
    path = Path(os.path.abspath(path))
    candidates = [Path(os.path.abspath(root))] if root is not None else []
    if root is None:
        home_dir = Path(os.path.abspath(paths.pallium_home()))
        if path == home_dir or home_dir in path.parents:
            paths.ensure_home()
            candidates.append(home_dir)
        elif ".pallium" in path.parts:
            index = len(path.parts) - 1 - path.parts[::-1].index(".pallium")
            candidates.append(Path(*path.parts[:index]))
    for anchor in candidates:
        if path == anchor or anchor in path.parents:
            return anchor, path.relative_to(anchor).parts
    raise PalliumError(
        "internal",
        f"Pallium tried to write {str(path)!r}, outside a repository's .pallium folder and PALLIUM_HOME",
        hint="this is a bug in Pallium; report it",
        details={"path": str(path)},
    )


@contextlib.contextmanager
def _walk(anchor: Path, parts: tuple[str, ...], *, mode: int = 0o700, create: bool = True) -> Iterator[int]:
    """Yield an fd of the folder `anchor/parts...`, reached without following any link below `anchor`."""
    try:
        fd = os.open(anchor, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise _failed(anchor, exc) from exc
    here = anchor
    try:
        for part in parts:
            here = here / part
            if part in ("", ".", ".."):
                raise _refused(here, "is not a plain folder name")
            child = _step(fd, part, here, mode=mode, create=create)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _step(parent_fd: int, part: str, here: Path, *, mode: int, create: bool) -> int:
    try:
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=parent_fd)
        except FileNotFoundError:
            if not create:
                raise
            # made meanwhile by another process, or a dangling link: the open below tells which
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, mode, dir_fd=parent_fd)
            child = os.open(part, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP or _is_link(part, parent_fd):
            raise _refused(here, "is a symbolic link") from exc
        if exc.errno == errno.ENOTDIR:
            raise _refused(here, "is a file where Pallium needs a folder") from exc
        raise _failed(here, exc) from exc
    return child


def _write_fd(fd: int, data: bytes, mode: int) -> None:
    with os.fdopen(fd, "wb") as handle:
        os.fchmod(fd, mode)  # a file that existed keeps its mode under O_TRUNC; configuration must be private
        handle.write(data)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _refused(path: Path, what: str) -> PalliumError:
    shown = str(path)
    return PalliumError(
        "unavailable",
        f"refusing to write {shown!r}: it {what}; Pallium writes only real files inside the repository's "
        ".pallium folder and PALLIUM_HOME, and never follows a link (a cloned repository may ship one)",
        hint=f"look at what {shown!r} points to; if you put it there, replace it with a real folder or file "
        f"(`rm {shown}` then rerun), otherwise do not trust this repository",
        details={"path": shown, "reason": what},
    )


def _failed(path: Path, exc: OSError) -> PalliumError:
    shown = str(path)
    return PalliumError(
        "unavailable",
        f"cannot write {shown!r}: {exc.strerror or exc}",
        hint="check the folder's permissions and free space, or set PALLIUM_HOME to a folder you can write",
        details={"path": shown},
    )
