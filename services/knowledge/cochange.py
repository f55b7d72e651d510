"""Which files change together, from the index's recent history (the commits `pallium facts` lists).

Read once at build time and kept in the base, so `knowledge context` weighs co-change without a
call per file (`pallium_neighbors` pays a freshness check, a `git status`, 100-200 ms each on a
1,300-file repository under load). A sweeping commit (over 30 files) ties nothing together, and
lockfiles and changelogs change with everything (`kernel.generated.is_noise`).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from itertools import combinations
from typing import Any

from kernel.generated import is_noise

__all__ = ["MAX_FILES", "decode", "encode", "pairs"]

MAX_FILES = 30  # a commit touching more files is a sweep (a rename, a formatter), not a change
PARTNERS = 10
MIN_SHARED = 3  # fewer shared commits are no pattern yet
MIN_CONFIDENCE = 0.2  # P(partner changes | file changes) under this is what every commit touches


def pairs(commits: list[dict[str, Any]]) -> dict[str, list[tuple[str, int, float]]]:
    """`{path: [(partner, shared commits, shared / the path's commits)]}`, the surest partners first."""
    revisions: Counter[str] = Counter()
    shared: Counter[tuple[str, str]] = Counter()
    for commit in commits:
        files = sorted({f for f in commit["files"] if not is_noise(f)})
        if len(files) > MAX_FILES:
            continue
        revisions.update(files)
        shared.update(combinations(files, 2))
    out: dict[str, list[tuple[str, int, float]]] = defaultdict(list)
    for (a, b), n in shared.items():
        if n < MIN_SHARED:
            continue
        for path, partner in ((a, b), (b, a)):
            confidence = n / revisions[path]
            if confidence >= MIN_CONFIDENCE:
                out[path].append((partner, n, round(confidence, 3)))
    return {p: sorted(found, key=lambda x: (-x[2], -x[1], x[0]))[:PARTNERS] for p, found in out.items()}


def encode(found: dict[str, list[tuple[str, int, float]]]) -> str:
    return json.dumps(found, separators=(",", ":"), sort_keys=True)


def decode(text: str | None) -> dict[str, list[tuple[str, int, float]]]:
    if not text:
        return {}
    try:
        raw = json.loads(text)
    except ValueError:
        return {}
    return {p: [(str(q), int(n), float(c)) for q, n, c in found] for p, found in raw.items()}
