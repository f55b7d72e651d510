"""The generated tool manifest: `tools.json`, read by the CLI and the dispatcher without importing handlers."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

__all__ = ["MANIFEST_PATH", "load_manifest"]

MANIFEST_PATH = Path(__file__).with_name("tools.json")


@functools.cache
def load_manifest() -> dict[str, Any]:
    with MANIFEST_PATH.open(encoding="utf-8") as handle:
        return json.load(handle)
