"""The content half of the index: every file keyed by its git blob id, parsed only when that id is new.

Tracked, unmodified files take their id from `git ls-files -s` without being read; modified and
untracked files are hashed the way git hashes blobs, so the same content always has the same key.
Skipped files (generated, vendored, lockfiles, minified, binary, over 1 MB, symbolic links,
submodules) are recorded with their reason and never parsed. A name that is not valid UTF-8 is
stored as `kernel.paths.path_text` shows it (`caf\\xe9.py`) and read through its real bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kernel import git
from kernel.paths import path_text
from services.repo import parsing
from services.repo.resolve import resolve_imports
from services.repo.store import ContentFacts, FileRow, RepoStore
from services.repo.text import split_terms

__all__ = ["MAX_BYTES", "ContentHalf", "ContentHalfResult", "blob_hash", "path_skip_reason", "read_content"]

MAX_BYTES = 1_000_000
_CHUNK = 100  # files parsed between progress reports
_LOCKFILES = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "uv.lock",
        "cargo.lock",
        "go.sum",
        "gemfile.lock",
        "composer.lock",
        "pipfile.lock",
        "bun.lockb",
        "npm-shrinkwrap.json",
    }
)
_VENDOR_DIRS = ("node_modules/", "vendor/", "third_party/", "bower_components/")

Progress = Callable[[int, int, str], None]


@dataclass
class ContentHalfResult:
    files_parsed: int = 0
    files_reused: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    changed_paths: list[str] = field(default_factory=list)
    removed_paths: list[str] = field(default_factory=list)


@dataclass
class ContentHalf:
    """What a content-half update found, ready to write: `write` adds it to the caller's transaction."""

    root: Path
    rows: list[FileRow]
    fresh: dict[str, parsing.Facts]
    before: dict[str, FileRow]
    full: bool
    dirty_paths: str  # JSON list of the filesystem names indexed from the working tree
    result: ContentHalfResult

    def write(self, store: RepoStore) -> ContentHalfResult:
        _write(store, self.root, self.rows, self.fresh, self.before, self.result, full=self.full)
        store.set_state({"dirty_paths": self.dirty_paths})
        return self.result


@dataclass
class _Entry:
    path: str  # as stored and shown: `path_text` of the name
    mode: str
    blob: str | None  # the index's blob id; None when the working tree differs or the file is untracked
    tracked: bool
    fs: str  # the name as the filesystem takes it (surrogate-escaped); equal to `path` for UTF-8 names


def blob_hash(data: bytes) -> str:
    """Git's blob id of `data`: equal to what `git hash-object` prints."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def path_skip_reason(path: str) -> str | None:
    """Why a path is skipped from its name alone, or None."""
    lowered = path.lower()
    name = lowered.rsplit("/", 1)[-1]
    if any(lowered.startswith(d) or f"/{d}" in lowered for d in _VENDOR_DIRS):
        return "vendored"
    if name in _LOCKFILES:
        return "lockfile"
    if ".min." in name or name.endswith((".map", "-min.js")):
        return "minified"
    return None


def read_content(store: RepoStore, root: Path, *, untracked: bool, full: bool, progress: Progress) -> ContentHalf:
    """Read and parse what is new; nothing is written until the caller calls `write` in its transaction."""
    entries = _list_entries(root, untracked=untracked)
    attributes = _linguist_attributes(root, [e.fs for e in entries])
    before = store.files()
    previous = {} if full else before
    known = set() if full else store.known_hashes()
    result = ContentHalfResult()
    rows: list[FileRow | None] = []
    pending: list[int] = []
    for i, entry in enumerate(entries):
        row = _without_reading(entry, attributes.get(entry.path), previous.get(entry.path), known)
        rows.append(row)
        if row is None:
            pending.append(i)
    fresh: dict[str, parsing.Facts] = {}
    loaded = _load_all(root, [(entries[i].fs, entries[i].path) for i in pending], known, progress, total=len(entries))
    for i, (hash_, reason, facts) in zip(pending, loaded, strict=True):
        entry = entries[i]
        language = parsing.language_of(entry.path)
        if reason is not None:
            rows[i] = FileRow(entry.path, None, language, reason, entry.tracked)
            continue
        if facts is not None and hash_ not in fresh and hash_ not in known:
            fresh[hash_] = facts
            language = facts.language
        rows[i] = FileRow(entry.path, hash_, language, None, entry.tracked)
    final = [r for r in rows if r is not None]  # every pending row was filled just above
    counted: set[str] = set()
    for row in final:
        if row.skip_reason:
            result.skipped[row.skip_reason] = result.skipped.get(row.skip_reason, 0) + 1
        elif row.hash in fresh and row.hash not in counted:
            counted.add(row.hash)
            result.files_parsed += 1
        else:
            result.files_reused += 1
    # Freshness re-hashes these later: content indexed from the working tree may be reverted silently.
    # JSON escapes the surrogates of an odd name, so the real name survives the round trip.
    dirty = json.dumps(sorted(e.fs for e in entries if e.blob is None))
    return ContentHalf(root, final, fresh, before, full, dirty, result)


def _write(
    store: RepoStore,
    root: Path,
    rows: list[FileRow],
    fresh: dict[str, parsing.Facts],
    previous: dict[str, FileRow],
    result: ContentHalfResult,
    *,
    full: bool,
) -> None:
    """Write only what differs from the previous run; a no-op reindex writes no file row at all."""
    current = {r.path: r for r in rows}
    result.changed_paths = sorted(
        p for p, r in current.items() if r.hash and (p not in previous or previous[p].hash != r.hash)
    )
    result.removed_paths = sorted(p for p, r in previous.items() if r.hash and not (p in current and current[p].hash))
    if full:
        store.set_files([])
        store.drop_orphan_content()
    store.add_contents(
        [
            ContentFacts(hash_, f.language, f.status, f.lines, f.size, f.symbols, f.imports, sorted(f.refs))
            for hash_, f in fresh.items()
        ]
    )
    if full:
        store.set_files(rows)
    else:
        store.update_files(
            upserts=[r for p, r in current.items() if previous.get(p) != r],
            deletes=[p for p in previous if p not in current],
        )
    unmoved = current.keys() == previous.keys() and not result.changed_paths and not result.removed_paths
    if not full and not fresh and unmoved:
        return  # nothing a search row or an import edge depends on has moved
    store.drop_orphan_content()
    if full:  # every symbol row was rewritten, so every search row must be too
        store.reindex_symbol_search(sorted(p for p, r in current.items() if r.hash), [], split_terms, everything=True)
    else:
        store.reindex_symbol_search(result.changed_paths, result.removed_paths, split_terms)
    store.update_edges(resolve_imports(root, set(current), store.all_imports()))


def _without_reading(entry: _Entry, attribute: str | None, before: FileRow | None, known: set[str]) -> FileRow | None:
    """The row of a file decided without reading it (skipped by name or mode, or known content), else None."""
    language = parsing.language_of(entry.path)
    reason = "symlink" if entry.mode == "120000" else "submodule" if entry.mode == "160000" else None
    reason = reason or attribute or path_skip_reason(entry.path)
    if reason:
        return FileRow(entry.path, None, language, reason, entry.tracked)
    if entry.blob is not None and entry.blob in known:
        if before is not None and before.hash == entry.blob:
            return before  # unchanged content at an unchanged path
        return FileRow(entry.path, entry.blob, language, None, entry.tracked)
    return None


def _load_all(
    root: Path, paths: list[tuple[str, str]], known: set[str], progress: Progress, *, total: int
) -> list[tuple[str | None, str | None, parsing.Facts | None]]:
    """Read, hash and parse `paths` (`(filesystem name, shown name)`), in order, reporting progress every chunk.

    One process on purpose: a spawned worker pool was measured slower on a busy 2-core machine
    (start-up and pickling cost more than the parse it shares) and breaks callers whose main
    module is not import-safe.
    """
    out: list[tuple[str | None, str | None, parsing.Facts | None]] = []
    for start in range(0, len(paths), _CHUNK):
        out.extend(_load_chunk(root, paths[start : start + _CHUNK], known))
        progress(min(start + _CHUNK, len(paths)), total, "parsing files")
    return out


def _load_chunk(
    root: Path, paths: list[tuple[str, str]], known: set[str]
) -> list[tuple[str | None, str | None, parsing.Facts | None]]:
    return [_load(root, fs, path, known) for fs, path in paths]


def _load(
    root: Path, fs: str, path: str, known: set[str] | frozenset[str]
) -> tuple[str | None, str | None, parsing.Facts | None]:
    """`(hash, skip reason, facts)` of one file; facts are None for content already indexed."""
    full_path = root / fs
    try:
        info = os.lstat(full_path)
    except OSError:
        return None, "missing", None
    if not _is_regular(info.st_mode):
        return None, "symlink", None
    if info.st_size > MAX_BYTES:
        return None, "too_large", None
    try:
        data = full_path.read_bytes()
    except OSError:
        return None, "unreadable", None
    hash_ = blob_hash(data)
    if hash_ in known:
        return hash_, None, None
    if b"\0" in data[:8000]:
        return None, "binary", None
    if _looks_minified(path, data):
        return None, "minified", None
    facts = parsing.extract(path, data)
    facts.size = len(data)
    return hash_, None, facts


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


def _looks_minified(path: str, data: bytes) -> bool:
    if not path.endswith((".js", ".mjs", ".cjs", ".css")) or len(data) < 5_000:
        return False
    return len(data) / (data.count(b"\n") + 1) > 500


def _list_entries(root: Path, *, untracked: bool) -> list[_Entry]:
    entries: dict[str, _Entry] = {}
    for record in git.run(["ls-files", "-s", "-z"], root).split(b"\0"):
        if not record:
            continue
        meta, _, path_bytes = record.partition(b"\t")
        mode, blob, _stage = meta.decode().split(" ")
        path = path_text(path_bytes)
        entries[path] = _Entry(path, mode, blob, True, path_bytes.decode("utf-8", "surrogateescape"))
    for raw in git.run(["diff-files", "--name-only", "-z"], root).split(b"\0"):
        path = path_text(raw)
        if path in entries:
            entry = entries[path]
            entries[path] = _Entry(path, entry.mode, None, True, entry.fs)
    if untracked:
        for raw in git.run(["ls-files", "-o", "--exclude-standard", "-z"], root).split(b"\0"):
            path, fs = path_text(raw), raw.decode("utf-8", "surrogateescape")
            if path and not path.startswith(".pallium/"):
                is_link = os.path.islink(root / fs)
                entries[path] = _Entry(path, "120000" if is_link else "100644", None, False, fs)
    return sorted(entries.values(), key=lambda e: e.path)


def _linguist_attributes(root: Path, paths: list[str]) -> dict[str, str]:
    """`generated` or `vendored` for (filesystem-named) paths marked so by `.gitattributes`, keyed by shown name."""
    if not any(posixpath.basename(p) == ".gitattributes" for p in paths) or not paths:
        return {}
    listed = b"\0".join(p.encode("utf-8", "surrogateescape") for p in paths) + b"\0"
    out_bytes = git.run(
        ["check-attr", "-z", "--stdin", "linguist-generated", "linguist-vendored"], root, check=False, input=listed
    )
    fields = out_bytes.split(b"\0")
    out: dict[str, str] = {}
    for i in range(0, len(fields) - 2, 3):
        path, attribute, value = path_text(fields[i]), fields[i + 1], fields[i + 2]
        if value in (b"set", b"true"):
            out.setdefault(path, "generated" if attribute == b"linguist-generated" else "vendored")
    return out
