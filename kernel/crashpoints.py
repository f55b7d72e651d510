"""Named crash points for recovery tests: `os._exit` at an exact place, armed only by an environment variable.

`PALLIUM_CRASHPOINT=after_intent:2` kills the process the second time it passes `after_intent`;
`offloaded_parse:2:garbage` first writes an undecodable message where a `kernel.offload` child
answers (its stdout). Unset (always, outside tests) a crash point costs one dictionary lookup.
"""

from __future__ import annotations

import os
from collections import Counter

__all__ = ["CRASH_EXIT_CODE", "POINTS", "crash_point"]

CRASH_EXIT_CODE = 86
POINTS = (
    "after_intent",
    "after_provider_exit",
    "after_stage",
    "after_completion",
    "mid_apply",
    "between_applies",
    "offloaded_parse",
)
_hits: Counter[str] = Counter()


def crash_point(name: str) -> None:
    """Die here, without cleanup, if the test armed this point and this is the armed hit."""
    spec = os.environ.get("PALLIUM_CRASHPOINT")
    if not spec:
        return
    wanted, _, nth = spec.partition(":")
    if wanted != name:
        return
    nth, _, mode = nth.partition(":")
    _hits[name] += 1
    if _hits[name] == int(nth or 1):
        if mode == "garbage":  # a length-prefixed pickle naming a module that does not exist
            body = b"cno_such_module\nthing\n."
            os.write(1, len(body).to_bytes(8, "big") + body)  # `kernel.offload` frames: 8 bytes
        os._exit(CRASH_EXIT_CODE)
