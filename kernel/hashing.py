"""One stable hash of canonical JSON, for every cache key and signature Pallium writes."""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "stable_hash"]


def canonical_json(value: Any) -> str:
    """Serialise `value` so equal data always gives equal text: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def stable_hash(value: Any) -> str:
    """Return the SHA-256 hex digest of `canonical_json(value)`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
