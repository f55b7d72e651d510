"""Reading `git log` so that an object the clone lacks costs only what it touches, never the index.

A clone may miss objects: blobs a partial clone never fetched or a mirror left out, a tree lost to a
corrupt pack, commits beyond a broken pack. Rename detection and line counts need blobs; the list
of paths a commit touched needs its trees; the commit itself needs only its object. Each read here
falls back one step at a time: without rename detection, then commit by commit (keeping a commit
whose trees or blobs cannot be read, without its files), then, when even the commits stop, the
history as far as it goes. Every fallback leaves a note quoting the git command that really failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kernel import git

__all__ = ["LogRead", "read_log"]

# Past this many unreadable commits, the rest are kept without their files in one read: a clone this
# damaged is better answered fast than exactly.
MOST_SKIPPED = 200


@dataclass
class LogRead:
    """The raw log, each commit starting with the separator byte, newest first, and what fell back."""

    raw: bytes
    notes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # commits kept without their files


def read_log(
    root: Path, options: list[str], revision: list[str], *, fmt: str, renames: bool, timeout: float = 600
) -> LogRead:
    """`git log --no-merges <options> <revision>` with `--format=<fmt>`, `fmt` starting with `%x1e%H`;
    `revision` holds what picks the commits (a range, `--since=`), the same for every fallback.

    `renames` asks for `-M` first; `options` carry the diff output wanted (`--name-status -z`,
    `--numstat -z`). What could not be read is in the answer's notes, never raised: only a missing
    `git` or a timeout raise, as they would for any git command.
    """
    head = ["log", "--no-merges", *options, f"--format={fmt}"]
    first = git.attempt([*head[:1], "-M" if renames else "--no-renames", *head[1:], *revision], root, timeout=timeout)
    if first.ok:
        return LogRead(first.stdout)
    read = LogRead(b"")
    failed = first
    if renames:
        read.notes.append(f"rename detection skipped: `{first.command}` failed: {first.why}")
        plain = git.attempt([*head[:1], "--no-renames", *head[1:], *revision], root, timeout=timeout)
        if plain.ok:
            read.raw = plain.stdout
            return read
        failed = plain
    listing = git.attempt(["log", "--no-merges", "--format=%H", *revision], root, timeout=timeout)
    order = listing.stdout.decode("ascii", "replace").split()
    if not listing.ok:
        at = f" after {order[-1][:12]}" if order else ""
        read.notes.append(f"history stops{at}: `{listing.command}` failed: {listing.why}")
    read.raw, read.skipped = _commit_by_commit(root, [*head[:1], "--no-renames", *head[1:]], order, fmt, timeout)
    if read.skipped:
        shown = ", ".join(s[:12] for s in read.skipped[:3]) + (" …" if len(read.skipped) > 3 else "")
        read.notes.append(
            f"{len(read.skipped)} commit(s) kept without their files ({shown}): `{failed.command}` failed: {failed.why}"
        )
    return read


def _commit_by_commit(
    root: Path, args: list[str], order: list[str], fmt: str, timeout: float
) -> tuple[bytes, list[str]]:
    """The log of the commits in `order`, read in as few runs as the faults allow.

    Each run reads from the first commit not yet read to the next one that fails. The commit whose
    output came last may have failed part-way (a line count reads blobs after the header is out), so
    it is read again alone; the one that fails is kept as its header only.
    """
    stdin_args = [*args, "--no-walk=unsorted", "--stdin"]
    out = bytearray()
    skipped: list[str] = []
    i = 0
    while i < len(order):
        if len(skipped) >= MOST_SKIPPED:
            out += _headers(root, order[i:], fmt, timeout)
            skipped += order[i:]
            break
        run = git.attempt(stdin_args, root, timeout=timeout, input=_lines(order[i:]))
        if run.ok:
            out += run.stdout
            break
        chunks = run.stdout.split(b"\x1e")[1:]
        whole = chunks[:-1]
        if [c[:40].decode("ascii", "replace") for c in whole] != order[i : i + len(whole)]:
            whole = []  # not the order asked for: trust none of it
        out += b"".join(b"\x1e" + c for c in whole)
        i += len(whole)
        alone = git.attempt(stdin_args, root, timeout=timeout, input=_lines(order[i : i + 1]))
        if alone.ok:
            out += alone.stdout
        else:
            out += _headers(root, order[i : i + 1], fmt, timeout)
            skipped.append(order[i])
        i += 1
    return bytes(out), skipped


def _headers(root: Path, shas: list[str], fmt: str, timeout: float) -> bytes:
    """Each commit's formatted header alone: it reads only the commit objects."""
    run = git.attempt(
        ["log", "--no-walk=unsorted", "--stdin", f"--format={fmt}"], root, timeout=timeout, input=_lines(shas)
    )
    return run.stdout


def _lines(shas: list[str]) -> bytes:
    return "".join(s + "\n" for s in shas).encode("ascii")
