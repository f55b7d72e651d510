"""Freshness: which described files changed since the build, checked on every read.

Each read costs one `lstat` per described file: only files whose time or size moved since the
build are hashed, and a file counts as changed only when its blob differs from the one the base
was built from, so a file edited and put back is not reported. (`git status` would do the same
work, but without writing the index it re-reads every racily clean file on every call: half a
second on a fresh clone of Vite.)

What the base recorded at the build (each file's blob, time and size) is kept between reads in
this process, keyed by the database file and the store's files stamp: a random value that a
trigger replaces whenever any row of the files table is written, by this process or another.
Every read reads the stamp first, so a rebuild or a settled time anywhere is seen on the very
next read. Only the stored side is kept; the files themselves are stat'ed on every read.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kernel import git
from services.knowledge.models import KnowledgeFreshness
from services.knowledge.rows import ClaimRow
from services.knowledge.store import FILES_STAMP, KnowledgeStore

__all__ = ["SETTLE_NS", "Current", "current", "is_stale"]

SETTLE_NS = 2_000_000_000  # as the build's slack: FAT and some network filesystems keep times to 2 s
_SHOWN = 20
_KEPT = 8  # repositories whose recorded stats one process keeps


@dataclass(frozen=True)
class Current:
    """The tree now against the build: changed blobs by path, and the answer's freshness."""

    changed: dict[str, str | None]  # path -> current blob (None: deleted), for files changed since the build
    now: Mapping[str, str | None]  # every described path -> its blob now: what a citation's blob is compared with
    freshness: KnowledgeFreshness


@dataclass(frozen=True)
class _Recorded:
    """What the base recorded of its files, laid out for the per-read loop."""

    stamp: str
    blobs: Mapping[str, str | None]  # every described path -> its blob at the build
    timed: tuple[tuple[str, str, int, int], ...]  # (absolute path, path, mtime_ns, size) trusted by time
    untimed: tuple[str, ...]  # paths written too near the build to trust their times: hashed on each read


_recorded: dict[tuple[str, str], _Recorded] = {}
_lock = threading.Lock()


def current(store: KnowledgeStore, root: Path, claims: list[ClaimRow] | None = None) -> Current:
    state = store.state()  # the stamp is read before the rows it vouches for
    built = state.get("built_commit") or None
    if "built_at" not in state:
        return Current({}, {}, _missing())
    head = git.head_commit(root)
    recorded = _recorded_of(store, root, state.get(FILES_STAMP))
    changed: dict[str, str | None] = {}
    lstat = os.lstat
    for full, path, mtime_ns, size in recorded.timed:
        try:
            st = lstat(full)  # a plain string: pathlib costs ten times the stat here
        except OSError:
            if recorded.blobs[path] is not None:
                changed[path] = None  # deleted
            continue
        if st.st_mtime_ns != mtime_ns or st.st_size != size:
            now_blob = _blob_of(root / path)
            if now_blob != recorded.blobs[path]:
                changed[path] = now_blob
    settled: dict[str, tuple[int, int]] = {}
    settled_before = time.time_ns() - SETTLE_NS
    for path in recorded.untimed:
        try:
            st = os.lstat(root / path)
        except OSError:
            if recorded.blobs[path] is not None:
                changed[path] = None
            continue
        now_blob = _blob_of(root / path)
        if now_blob != recorded.blobs[path]:
            changed[path] = now_blob
        elif st.st_mtime_ns < settled_before:
            # Written too near the build for its time to be trusted then (a fresh clone built at
            # once: every file), unchanged and old enough now: remember its time, or every later
            # read would hash it again. The write replaces the stamp: the next read reloads.
            settled[path] = (st.st_mtime_ns, st.st_size)
    if settled:
        store.settle_file_stats(settled)
    now = {**recorded.blobs, **changed} if changed else recorded.blobs
    stale = sum(1 for c in claims or [] if is_stale(c, now))
    return Current(
        changed,
        now,
        KnowledgeFreshness(
            status="stale" if changed else "fresh",
            built_commit=built,
            built_at=state.get("built_at"),
            current_commit=head,
            changed_files=sorted(changed)[:_SHOWN],
            changed_count=len(changed),
            stale_claims=stale,
            refresh_command="pallium knowledge build --no-model" if changed else None,
        ),
    )


def is_stale(claim: ClaimRow, now: Mapping[str, str | None]) -> bool:
    """A cited file's blob now differs from the one the citation was checked against (or it is gone).

    Compared with the blob now, not with the last build's: a rebuild refreshes the base's own
    view of the tree, but a claim stays stale until it is checked again.
    """
    return any(now.get(c.path) != c.blob for c in claim.citations)


def _recorded_of(store: KnowledgeStore, root: Path, stamp: str | None) -> _Recorded:
    """The recorded stats under `stamp`: kept from an earlier read, or read from the store now."""
    key = (str(store.db.path), str(root))
    kept = _recorded.get(key)
    if kept is not None and stamp is not None and kept.stamp == stamp:
        return kept
    base = str(root) + os.sep
    blobs: dict[str, str | None] = {}
    timed, untimed = [], []
    for path, stat in store.file_stats().items():
        blobs[path] = stat.blob
        if stat.mtime_ns is None or stat.size is None:
            untimed.append(path)
        else:
            timed.append((base + path, path, stat.mtime_ns, stat.size))
    fresh = _Recorded(stamp or "", blobs, tuple(timed), tuple(untimed))
    if stamp is not None:  # a base without a stamp (never expected) is read every time
        with _lock:
            if len(_recorded) >= _KEPT and key not in _recorded:
                _recorded.pop(next(iter(_recorded)))
            _recorded[key] = fresh
    return fresh


def _missing() -> KnowledgeFreshness:
    return KnowledgeFreshness(
        status="missing",
        built_commit=None,
        built_at=None,
        current_commit=None,
        changed_files=[],
        changed_count=0,
        stale_claims=0,
        refresh_command="pallium knowledge build --no-model",
    )


def _blob_of(path: Path) -> str | None:
    try:
        data = str(path.readlink()).encode() if path.is_symlink() else path.read_bytes()
    except OSError:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
