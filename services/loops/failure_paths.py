"""Path tokens in a failure line, read as the repository-relative path whatever depth or prefix printed them.

A test runner prints the same file as `tests/test_a.py`, `test_a.py` (run inside tests/),
`/home/ci/w/tests/test_a.py`, `/tmp/build-1/tests/test_a.py` or `C:\\ci\\tests\\test_a.py`; a loop
must see one failure there, and two failures in `src/a/mod_test.go` and `src/b/mod_test.go`. So a
token is resolved against the repository's files (tracked and untracked-not-ignored, read once per
cycle) by its longest suffix that names exactly one of them. Syntax-free: any token that looks like a
path in any runner's output (pytest, Go, Jest/Node stacks, cargo panics, Windows paths) is treated alike.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kernel import git
from kernel.errors import PalliumError

__all__ = ["PATH_TOKEN", "RepoPaths"]

# A word that may be a path: optional file:// and drive, folders separated by / or \, and a last part
# holding a letter (so `1/2` is a ratio, not a path). Not preceded by a path character or `:`, so a
# token is taken whole and URLs (`https://host/x`) are left alone.
PATH_TOKEN = re.compile(
    r"(?<![\w.@~+/\\:-])(?:file://)?(?:[A-Za-z]:)?(?:[\w.@~+-]*[/\\])*[\w.@~+-]*[A-Za-z_][\w.@~+-]*"
)
_DRIVE = re.compile(r"^[A-Za-z]:/")


def _temp_roots() -> tuple[str, ...]:
    """Folders whose children are generated names (build-1, pytest-7, tmpab12cd): never part of a failure."""
    roots = {"/tmp", "/var/tmp", "/private/tmp", "/var/folders", "/private/var/folders", "/dev/shm"}
    for base in (tempfile.gettempdir(), os.environ.get("TMPDIR", "")):
        if base:
            roots.add(Path(base).as_posix().rstrip("/"))
            roots.add(Path(os.path.realpath(base)).as_posix().rstrip("/"))
    return tuple(sorted(roots, key=len, reverse=True))


def _spellings(folder: Path) -> list[str]:
    return list(dict.fromkeys(Path(p).as_posix().rstrip("/") for p in (folder.absolute(), os.path.realpath(folder))))


@dataclass(frozen=True)
class RepoPaths:
    """The repository's root and every suffix of its files' and folders' paths, each with what it names."""

    roots: tuple[str, ...] = ()  # the root as given and as resolved (symlinked temp folders differ)
    suffixes: dict[str, frozenset[str]] = field(default_factory=dict)
    temp_roots: tuple[str, ...] = field(default_factory=_temp_roots)

    @classmethod
    def read(cls, repo: Path) -> RepoPaths:
        """One `git ls-files` of `repo` (tracked, plus untracked files that are not ignored); outside git,
        only the root is known, so absolute paths under it still become relative."""
        try:
            out = git.run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], repo)
            top = git.run(["rev-parse", "--show-toplevel"], repo).decode("utf-8", "replace").strip()
        except PalliumError:
            return cls(roots=_spellings(repo))
        # ls-files answers relative to `repo`; a loop's cwd is normally the top, and the top is the root.
        prefix = Path(os.path.realpath(repo)).relative_to(Path(os.path.realpath(top))).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        index: dict[str, set[str]] = {}
        targets: set[str] = set()
        for name in out.decode("utf-8", "replace").split("\0"):
            if not name:
                continue
            parts = (prefix + name).split("/")
            for end in range(1, len(parts) + 1):  # the file and each folder that holds it
                targets.add("/".join(parts[:end]))
        for target in targets:
            parts = target.split("/")
            for start in range(len(parts)):
                index.setdefault("/".join(parts[start:]), set()).add(target)
        roots = tuple(dict.fromkeys([*_spellings(Path(top)), *_spellings(repo)]))
        return cls(roots=roots, suffixes={k: frozenset(v) for k, v in index.items()})

    def normalize(self, text: str) -> str:
        """`text` with every path token replaced by its repository-relative form."""
        return PATH_TOKEN.sub(lambda m: self.resolve(m.group(0)), text)

    def resolve(self, token: str) -> str:
        """One token: the file it names in the repository, else what was printed minus volatile parts
        (the repository root, a temporary folder and the generated names inside it, `./`)."""
        body = token.rstrip(".")
        tail = token[len(body) :]
        path = body.removeprefix("file://").replace("\\", "/")
        if "/" not in path:
            # A bare word: a file name only when it names one file (`test_a.py` run inside tests/).
            hits = self.suffixes.get(path, ())
            return (next(iter(hits)) + tail) if len(hits) == 1 and "." in path else token
        absolute = path.startswith("/") or bool(_DRIVE.match(path))
        relative = self._under_root(path)
        if relative is not None:
            path, absolute = relative, False
        parts = [p for p in path.split("/") if p and p != "."]
        if not parts:
            return token
        if _DRIVE.match(path):
            parts = parts[1:]
        matched = None
        for start in range(len(parts)):
            suffix = "/".join(parts[start:])
            hits = self.suffixes.get(suffix)
            if hits:
                if len(hits) == 1:
                    return next(iter(hits)) + tail
                matched = suffix  # ambiguous: shorter suffixes only match more
                break
        if not absolute:
            return "/".join(parts) + tail
        if self._in_temp(path):
            return (matched or parts[-1]) + tail
        return (matched or body) + tail

    def _under_root(self, path: str) -> str | None:
        for root in self.roots:
            # The repository's own folder first: the whole checkout may live under a temp folder.
            if path.startswith(root + "/"):
                return path[len(root) + 1 :]
        return None

    def _in_temp(self, path: str) -> bool:
        lowered = path.lower()
        if "/appdata/local/temp/" in lowered or "/windows/temp/" in lowered:
            return True
        return any(path.startswith(root + "/") for root in self.temp_roots)
