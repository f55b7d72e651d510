"""Git's blob id of some bytes, and the largest file the index reads: what freshness needs of the
content half without loading the parsers (an agent mid-edit always has changed files to hash)."""

from __future__ import annotations

import hashlib

__all__ = ["MAX_BYTES", "blob_hash"]

MAX_BYTES = 1_000_000


def blob_hash(data: bytes) -> str:
    """Git's blob id of `data`: equal to what `git hash-object` prints."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
