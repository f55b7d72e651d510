"""The git half of the index: walk history from the watermark with the `git` program, in one pass.

Reads `git log --no-merges --no-renames --name-only` for the commits after the last indexed one
(rename detection needs blobs that shallow or partial clones may lack, and costs time). When the
watermark is no longer an ancestor of HEAD, history was rewritten and this half is rebuilt.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path

from kernel import generated, git
from kernel.errors import PalliumError
from kernel.paths import path_text
from services.repo.history_read import read_log
from services.repo.store import RepoStore

__all__ = [
    "MAX_CHANGESET",
    "Commit",
    "GitHalfResult",
    "HistoryPlan",
    "apply_history",
    "clone_notes",
    "is_noise",
    "plan_history",
    "read_history",
    "read_history_work",
]

# Commits touching more files than this are mass edits (formatting, vendoring); they say nothing
# about which files belong together, so they count as revisions but make no co-change pairs.
MAX_CHANGESET = 30

_FORMAT = "%x1e%H%x1f%aN%x1f%ct%x1f%s%x1f%b%x1f"
# (sha, author, time, subject, body, paths, changes): see `parse_log`
Commit = tuple[str, str, int, str, str, list[str], list[tuple[str, str, str | None]]]
# The co-change counts as one JSON array of `[a, b, shared commits, last shared time]` in key order:
# the store unpacks it in SQLite, so a child's hundreds of thousands of pairs reach the storing
# process as one text, not as a Python object each.
Pairs = str


@dataclass(frozen=True)
class GitHalfResult:
    commits_read: int
    rebuilt: bool
    watermark: str | None
    shallow: bool
    notes: list[str]


def is_noise(path: str) -> bool:
    """Changelogs, lockfiles and version files change with everything; they make no co-change pairs."""
    return generated.is_noise(path)


@dataclass(frozen=True)
class HistoryPlan:
    """What a git-half update will read: decided from the stored watermark, before any write."""

    head: str | None
    revision: str | None  # None: nothing to read
    rebuilt: bool
    shallow: bool


def plan_history(store: RepoStore, root: Path, *, full: bool = False) -> HistoryPlan:
    head = git.head_commit(root)
    shallow = git.run(["rev-parse", "--is-shallow-repository"], root, check=False).strip() == b"true"
    watermark = store.state().get("git_watermark")
    rebuilt = full or watermark is None
    if watermark is not None and not full and watermark != head and not _is_ancestor(root, watermark, head):
        rebuilt = True  # rewritten history: the old commits may no longer exist on this branch
    if head is None or (not rebuilt and watermark == head):
        return HistoryPlan(head, None, rebuilt, shallow)
    return HistoryPlan(head, head if rebuilt else f"{watermark}..{head}", rebuilt, shallow)


def read_history(root: Path, plan: HistoryPlan) -> tuple[list[Commit], list[str]]:
    """Run the `git log` the plan needs, and the notes of what fell back (`history_read`): a clone
    missing objects loses rename detection, or the files of the commits it cannot read, never the
    index. Safe to run in a thread while files are parsed."""
    if plan.revision is None:
        return [], []
    read = read_log(root, ["--name-status", "-z"], [plan.revision], fmt=_FORMAT, renames=not partial_clone(root))
    return parse_log(read.raw), read.notes


def read_history_work(work: tuple[Path, HistoryPlan]) -> tuple[list[Commit], Pairs, list[str]]:
    """`read_history` and the co-change pairs for a child process (kernel.offload), which passes one argument."""
    commits, notes = read_history(*work)
    return commits, _pairs(commits), notes


def clone_notes(root: Path, *, shallow: bool) -> list[str]:
    """What the clone itself withholds from history, said on every index answer and by `doctor`."""
    notes = []
    if shallow:
        notes.append("shallow clone: history stops at its boundary; `git fetch --unshallow` gives the rest")
    if partial_clone(root):
        notes.append("partial clone: renames are not detected (it would fetch every blob); line counts may fetch some")
    return notes


def partial_clone(root: Path) -> bool:
    """A partial clone would fetch blobs to detect renames: those walks skip rename detection.

    Git marks one by `extensions.partialClone` (newer versions) or a remote's `promisor = true`
    (older ones, 2.39 among them)."""
    pattern = r"^(extensions\.partialclone|remote\..*\.promisor)$"
    out = git.run(["config", "--get-regexp", pattern], root, check=False).decode("utf-8", "replace")
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        if value.strip() and (key.startswith("extensions.") or value.strip().lower() in ("true", "yes", "on", "1")):
            return True
    return False


def apply_history(
    store: RepoStore, plan: HistoryPlan, commits: list[Commit], pairs: Pairs | None = None, notes: list[str] = ()
) -> GitHalfResult:
    """Write what `read_history` found (and `pairs`, when a child counted them); the caller holds the transaction.

    The notes of a read that fell back are kept (`history_notes`) for `doctor` and every index answer
    until a run reads the whole history cleanly; a reindex that reads nothing keeps the old ones.
    """
    if plan.rebuilt:
        store.clear_history()
    store.add_commits(commits)
    store.add_pairs(_pairs(commits) if pairs is None else pairs)
    kept = json.loads(store.state().get("history_notes") or "[]")
    if plan.rebuilt:
        kept = []
    kept = list(dict.fromkeys([*kept, *notes]))
    store.set_state(
        {
            "git_watermark": plan.head,
            "git_shallow": "1" if plan.shallow else "0",
            "history_notes": json.dumps(kept) if kept else None,
        }
    )
    return GitHalfResult(len(commits), plan.rebuilt, plan.head, plan.shallow, kept)


def parse_log(raw: bytes) -> list[Commit]:
    """Split the `-z --name-status` log into `(sha, author, time, subject, body, paths, changes)`, oldest first.

    `changes` holds `(letter, path, old path)` per file: A added, M modified, D deleted, R renamed
    (with the old path), T type changed, C copied. `paths` are the paths the commit leaves behind
    (the new name of a rename) plus the deleted ones.
    """
    commits = []
    for chunk in raw.split(b"\x1e"):
        if not chunk:
            continue
        header, _, names = chunk.rpartition(b"\x1f")
        fields = header.split(b"\x1f")
        if len(fields) < 5:
            continue
        sha, author, when, subject = (f.decode("utf-8", "replace") for f in fields[:4])
        body = b"\x1f".join(fields[4:]).decode("utf-8", "replace").strip()
        tokens = [t.lstrip(b"\n") for t in names.split(b"\0")]
        tokens = [t for t in tokens if t]
        changes: list[tuple[str, str, str | None]] = []
        i = 0
        while i < len(tokens):
            status = tokens[i].decode("ascii", "replace")
            letter = status[:1]
            if letter in ("R", "C"):  # a score, then the old and the new path
                if i + 2 < len(tokens):
                    changes.append((letter, path_text(tokens[i + 2]), path_text(tokens[i + 1])))
                i += 3
            else:
                if i + 1 < len(tokens):
                    changes.append((letter or "M", path_text(tokens[i + 1]), None))
                i += 2
        latest = {}
        for letter, path, old in changes:
            latest[path] = (letter, path, old)
        kept = sorted(latest.values(), key=lambda c: c[1])
        commits.append((sha, author, int(when or 0), subject, body, [c[1] for c in kept], kept))
    commits.reverse()
    return commits


def _pairs(commits: list[Commit]) -> Pairs:
    """The co-change counts of `commits` (see `Pairs`), each pair in both directions.

    A commit's paths are distinct and sorted (`parse_log`), so each pair is counted once, in order,
    and written both ways at the end: half the counting of every ordered pair.
    """
    pairs: dict[tuple[str, str], list[int]] = {}
    noise: dict[str, bool] = {}
    for _sha, _author, when, _subject, _body, paths, _changes in commits:
        if len(paths) > MAX_CHANGESET:
            continue
        kept = [p for p in paths if not (noise[p] if p in noise else noise.setdefault(p, is_noise(p)))]
        for key in itertools.combinations(sorted(set(kept)), 2):
            entry = pairs.get(key)
            if entry is None:
                pairs[key] = [1, when]
            else:
                entry[0] += 1
                if when > entry[1]:
                    entry[1] = when
    rows = [[a, b, shared, last] for (a, b), (shared, last) in pairs.items()]
    rows += [[b, a, shared, last] for a, b, shared, last in rows]
    rows.sort(key=lambda r: (r[0], r[1]))
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def _is_ancestor(root: Path, old: str, head: str | None) -> bool:
    if head is None:
        return False
    try:
        git.run(["merge-base", "--is-ancestor", old, head], root)
    except PalliumError:
        return False
    return True
