"""Where Pallium keeps its files, how a repository is found, and how user paths stay inside it."""

from __future__ import annotations

import os
from pathlib import Path

from kernel.errors import PalliumError

__all__ = [
    "confine",
    "find_repo_root",
    "global_db_path",
    "pallium_home",
    "path_text",
    "repo_db_path",
    "repo_state_dir",
]

DB_NAME = "pallium.sqlite"


def pallium_home() -> Path:
    """`$PALLIUM_HOME`, else `~/.pallium`; not created here."""
    configured = os.environ.get("PALLIUM_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".pallium"


def ensure_home() -> Path:
    """Create the home folder (mode 0700) if needed, or say clearly why it cannot be used."""
    home = pallium_home()
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise _unwritable(home, exc) from exc
    if not os.access(home, os.W_OK | os.X_OK):
        raise _unwritable(home, None)
    return home


def global_db_path() -> Path:
    return pallium_home() / DB_NAME


def repo_state_dir(repo_root: Path) -> Path:
    return repo_root / ".pallium"


def repo_db_path(repo_root: Path) -> Path:
    return repo_state_dir(repo_root) / DB_NAME


def find_repo_root(start: Path | str | None = None, *, field: str = "repo") -> Path:
    """Return the top of the git working tree holding `start` (default: the current folder).

    Walks up looking for `.git` (a folder, or a file in linked worktrees and submodules) so no
    process is started; raises `invalid_input` when `start` is in no repository. `field` is the
    caller's input field that chooses the folder, named in the error's hint and details (`repo`
    for most tools, `cwd` for `loop start`).
    """
    origin = Path(start) if start is not None else Path.cwd()
    try:
        here = origin.expanduser().resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise PalliumError(
            "not_found",
            f"folder {str(origin)!r} does not exist",
            hint="pass `repo` (CLI `--repo PATH`) as an existing folder (`ls` lists them), or leave it out",
            details={"field": "repo", "path": str(origin)},
        ) from exc
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        marker = folder / ".git"
        if marker.is_dir() and (marker / "HEAD").exists():
            return folder
        if marker.is_file() and marker.read_text(encoding="utf-8", errors="replace").startswith("gitdir:"):
            return folder
    raise PalliumError(
        "invalid_input",
        f"{str(here)!r} is not inside a git repository",
        hint=f"run the command from inside a repository, or pass --{field.replace('_', '-')} PATH",
        details={"path": str(here), "field": field},
    )


def confine(repo_root: Path, user_path: str, *, base: Path | None = None) -> Path:
    """Resolve `user_path` and refuse it unless it stays inside `repo_root`.

    Relative paths are taken from `base` when it lies inside the repository (the caller's
    folder), else from the repository root. Symbolic links are resolved before the check, so a
    link pointing out of the repository is refused too.
    """
    root = repo_root.resolve()
    if not user_path or "\x00" in user_path:
        raise PalliumError(
            "invalid_input",
            "path must be a non-empty string",
            hint="pass `path` as a file inside the repository (the CLI's positional PATH)",
            details={"field": "path"},
        )
    start = base.resolve() if base is not None else root
    if not _is_within(start, root):
        start = root
    candidate = Path(user_path).expanduser()
    if not candidate.is_absolute():
        # From a subfolder, a path may be relative to it or to the root (as `git diff` prints it).
        from_root = root / candidate
        candidate = start / candidate
        if start != root and not os.path.lexists(candidate) and os.path.lexists(from_root):
            candidate = from_root
    resolved = candidate.resolve()
    if not _is_within(resolved, root):
        raise PalliumError(
            "invalid_input",
            f"path {user_path!r} is outside the repository {str(root)!r}",
            hint="pass a path inside the repository",
            details={"field": "path", "path": user_path, "repo": str(root)},
        )
    return resolved


def relative_to_repo(repo_root: Path, path: Path) -> str:
    """The repository-relative POSIX form of an already confined path."""
    return path.relative_to(repo_root.resolve()).as_posix() or "."


def path_text(raw: bytes | str | os.PathLike[str]) -> str:
    """A file name as text that can always be stored and shown: valid UTF-8 is unchanged.

    Git and the filesystem hand out names as bytes; one that is not valid UTF-8 (a Latin-1
    `caf\xe9.py`) decoded with `surrogateescape` holds lone surrogates, which SQLite, JSON and
    pydantic refuse. Here the undecodable bytes become `\\xNN` escapes instead, so the name stays
    readable and distinct. `raw` may be the bytes, or a str decoded with `surrogateescape` (what
    `os.listdir`, `sys.argv` and `git` output decoded that way give), or a path.
    """
    if isinstance(raw, os.PathLike):
        raw = os.fspath(raw)
    if isinstance(raw, bytes):
        return raw.decode("utf-8", "backslashreplace")
    try:
        return raw.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no decoder made (from JSON, say): escape it as it is
        return raw.encode("utf-8", "backslashreplace").decode("utf-8")


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _unwritable(home: Path, exc: OSError | None) -> PalliumError:
    reason = f": {exc.strerror}" if exc is not None and exc.strerror else ""
    return PalliumError(
        "unavailable",
        f"PALLIUM_HOME {str(home)!r} is not writable{reason}",
        hint="set PALLIUM_HOME to a folder you can write, or fix the folder's permissions",
        details={"path": str(home)},
    )
