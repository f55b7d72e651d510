"""Is the loop still getting anywhere? Stagnation, oscillation, and signatures built from test failures.

Pure functions over counters and strings: the tick decides when to call them and stores the answer.
A signature is the script's fingerprint of where the work stands; an empty one opts a cycle out.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kernel import git
from kernel.errors import PalliumError
from kernel.hashing import stable_hash
from services.loops.failure_paths import RepoPaths

__all__ = [
    "HISTORY_LENGTH",
    "Progress",
    "normalize_failure",
    "signature_from_failures",
    "step",
    "working_tree_hash",
]

HISTORY_LENGTH = 8  # how many distinct recent signatures an oscillation is looked for among

# What differs between two runs of the same failure without meaning anything: where, when, how long.
_NOISE = (
    (re.compile(r"0x[0-9a-fA-F]+"), "0x?"),
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|s|sec|seconds)\b"), "<duration>"),
    (re.compile(r"(:|line )\d+(?::\d+)?"), r"\1N"),
    (re.compile(r"\s+"), " "),
)


@dataclass(frozen=True)
class Progress:
    """The stagnation counters after one cycle, and why the cycle stagnated (None: it did not)."""

    count: int
    history: list[str]
    stagnated: str | None


def step(*, previous: str | None, count: int, history: list[str], signature: str, threshold: int) -> Progress:
    """Advance the counters by one non-error cycle whose script reported `signature`.

    The same signature as last time raises the counter, anything else resets it; at `threshold`
    the loop has stagnated. A signature that differs from the last one but was seen a few cycles
    ago (A -> B -> A) is an oscillation: every cycle changed something, and nothing moved.
    """
    if not signature:
        return Progress(0, history, None)
    if signature == previous:
        count += 1
        reason = None
        if count >= threshold:
            reason = f"the signature {short(signature)} came back {count} cycles in a row (threshold {threshold})"
        return Progress(count, history, reason)
    if signature in history:
        back = len(history) - history.index(signature)
        reason = f"oscillation: signature {short(signature)} came back after {back} cycle(s) on other signatures"
        return Progress(max(threshold, 1), [*history, signature][-HISTORY_LENGTH:], reason)
    return Progress(1, [*history, signature][-HISTORY_LENGTH:], None)


def short(signature: str | None) -> str:
    if not signature:
        return "-"
    return signature if len(signature) <= 24 else signature[:21] + "..."


_NO_REPO = RepoPaths()


def normalize_failure(line: str, paths: RepoPaths | None = None) -> str:
    """One failure as it would read on any machine, any day: paths relative to the repository (`paths`,
    read once per cycle; without it only temporary folders are dropped), no line numbers, addresses or times."""
    text = line.strip()
    for pattern, replacement in _NOISE[:3]:  # times and durations before paths: `12:00:01` is no line number
        text = pattern.sub(replacement, text)
    text = (paths or _NO_REPO).normalize(text)
    for pattern, replacement in _NOISE[3:]:
        text = pattern.sub(replacement, text)
    return text.strip()


def signature_from_failures(failures: list[str], tree: str | None = None, paths: RepoPaths | None = None) -> str:
    """A signature from the normalized set of failing tests (order and repeats ignored) and a tree hash.

    No failures and no tree give "": an empty signature, which never counts towards stagnation.
    """
    normalized = sorted({normalize_failure(f, paths) for f in failures if str(f).strip()})
    parts = []
    if normalized:
        parts.append(f"f{len(normalized)}:{stable_hash(normalized)[:12]}")
    if tree:
        parts.append(f"t:{tree[:12]}")
    return "+".join(parts)


def working_tree_hash(repo: Path) -> str | None:
    """The git tree id of the working tree as it is now, untracked files included, ignored ones not.

    Built in a throwaway index, so the user's own index is never touched. None outside git.
    """
    with tempfile.TemporaryDirectory(prefix="pallium-loop-") as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        try:
            git.run(["add", "-A", "."], repo, env=env)
            tree = git.run(["write-tree"], repo, env=env)
        except PalliumError:
            return None
    return tree.decode("ascii", "replace").strip() or None
