"""`python -m benchmarks hostile`: the hostile-repository table, Pallium beside plain git.

Each case is a repository a stranger could hand over with its `.git` folder: one executable git
key (or one repository command, or git data kept elsewhere) whose program appends a line to a
marker outside it. The same git commands Pallium makes are run twice: through `kernel.git.run`
(Pallium, untrusted) and as plain `git` (the baseline: what git itself does with that
configuration). The table counts the marker's lines (commands run) and the bytes changed outside
the repository (a sibling folder, and a second repository standing in for the user's other work).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "Ada",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
}
ENV = {**os.environ, **IDENTITY}


def sh(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=ENV, capture_output=True, text=True, check=True).stdout


def digest(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def changed_bytes(before: dict[str, str], folder: Path) -> int:
    after = digest(folder)
    return sum((folder / name).stat().st_size for name, sha in after.items() if before.get(name) != sha) + sum(
        1 for name in before if name not in after
    )


def build(base: Path, marker: Path) -> tuple[Path, Path]:
    program = base / "hostile.sh"
    program.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat 2>/dev/null\nexit 0\n', encoding="utf-8")
    program.chmod(0o755)
    repo = base / "repo"
    repo.mkdir()
    sh(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    sh(repo, "add", "-A")
    sh(repo, "commit", "-q", "-m", "one")
    return repo, program


def attributes(repo: Path, line: str) -> None:
    (repo / ".gitattributes").write_text(line + "\n", encoding="utf-8")
    sh(repo, "add", ".gitattributes")
    sh(repo, "commit", "-q", "-m", "attributes")


# (name, set-up, the git commands Pallium runs in that situation)
Setup = Callable[[Path, Path], None]
GIT_CASES: list[tuple[str, Setup, list[list[str]]]] = [
    ("core.fsmonitor", lambda r, p: sh(r, "config", "core.fsmonitor", str(p)), [["status", "--porcelain=v2"]]),
    (
        "include.path -> fsmonitor",
        lambda r, p: (
            (r / "dev.cfg").write_text(f"[core]\n\tfsmonitor = {p}\n"),
            sh(r, "config", "include.path", "../dev.cfg"),
        ),
        [["status", "--porcelain=v2"]],
    ),
    (
        "filter.clean",
        lambda r, p: (attributes(r, "*.py filter=x"), sh(r, "config", "filter.x.clean", str(p))),
        [["add", "-A"]],
    ),
    (
        "filter.smudge",
        lambda r, p: (attributes(r, "*.py filter=x"), sh(r, "config", "filter.x.smudge", str(p))),
        [["checkout", "-q", "--", "app.py"]],
    ),
    (
        "filter.process",
        lambda r, p: (attributes(r, "*.py filter=x"), sh(r, "config", "filter.x.process", str(p))),
        [["add", "-A"]],
    ),
    (
        "diff.textconv",
        lambda r, p: (attributes(r, "*.py diff=x"), sh(r, "config", "diff.x.textconv", str(p))),
        [["diff", "HEAD"], ["log", "-p", "-n", "2"]],
    ),
    (
        "diff.command",
        lambda r, p: (attributes(r, "*.py diff=x"), sh(r, "config", "diff.x.command", str(p))),
        [["diff", "HEAD"]],
    ),
    ("diff.external", lambda r, p: sh(r, "config", "diff.external", str(p)), [["diff", "HEAD"]]),
    (
        "log.showSignature + gpg.program",
        lambda r, p: (
            _signed_head(r),
            sh(r, "config", "log.showSignature", "true"),
            sh(r, "config", "gpg.program", str(p)),
        ),
        [["log", "-n", "2"]],
    ),
    (
        "hook post-checkout",
        lambda r, p: _hook(r, p, "post-checkout"),
        [["worktree", "add", "--detach", "--quiet", "../wt", "HEAD"]],
    ),
    (
        "hook reference-transaction",
        lambda r, p: _hook(r, p, "reference-transaction"),
        [["commit", "-q", "--no-verify", "--allow-empty", "-m", "pallium"]],
    ),
    ("hook post-commit", lambda r, p: _hook(r, p, "post-commit"), [["commit", "-q", "--allow-empty", "-m", "x"]]),
    (
        "core.hooksPath",
        lambda r, p: (_hook(r, p, "post-checkout", folder="githooks"), sh(r, "config", "core.hooksPath", "githooks")),
        [["worktree", "add", "--detach", "--quiet", "../wt", "HEAD"]],
    ),
    (
        "ext:: transport",
        lambda r, p: (
            sh(r, "config", "protocol.ext.allow", "always"),
            sh(r, "config", "remote.origin.url", f"ext::{p} %S"),
        ),
        [["ls-remote", "origin"]],
    ),
]


def _signed_head(repo: Path) -> None:
    """HEAD rewritten as a commit carrying a (fake) signature, stored as a signed commit is."""
    header, _, message = sh(repo, "cat-file", "commit", "HEAD").partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    raw = repo.parent / "signed.txt"
    raw.write_text(f"{header}\n{signature}\n\n{message}", encoding="utf-8")
    sh(repo, "update-ref", "HEAD", sh(repo, "hash-object", "-t", "commit", "-w", str(raw)).strip())


def _hook(repo: Path, program: Path, name: str, folder: str | None = None) -> None:
    where = repo / folder if folder else repo / ".git" / "hooks"
    where.mkdir(exist_ok=True)
    (where / name).write_bytes(program.read_bytes())
    (where / name).chmod(0o755)


def _touch(repo: Path) -> None:
    (repo / "app.py").write_text("def main():\n    return 2\n", encoding="utf-8")


def run_case(setup: Setup, commands: list[list[str]], guarded: bool) -> tuple[int, int]:
    from kernel import git
    from kernel.errors import PalliumError

    with tempfile.TemporaryDirectory(prefix="pallium-hostile-") as tmp:
        base = Path(tmp)
        outside = base / "outside"
        outside.mkdir()
        (outside / "important.txt").write_text("do not touch\n", encoding="utf-8")
        marker = outside / "ran.txt"
        repo, program = build(base, marker)
        setup(repo, program)
        _touch(repo)
        before = digest(outside)
        for args in commands:
            if guarded:
                with contextlib.suppress(PalliumError):
                    git.run(args, repo, env=IDENTITY)
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):  # an ext:: helper may wait on git
                    subprocess.run(["git", *args], cwd=repo, env=ENV, capture_output=True, check=False, timeout=20)
        runs = len(marker.read_text().splitlines()) if marker.exists() else 0
        changed = changed_bytes(before, outside) - (marker.stat().st_size if marker.exists() else 0)
        return runs, max(changed, 0)


def outside_data_case(kind: str, guarded: bool) -> tuple[int, int]:
    from kernel import git
    from kernel.errors import PalliumError

    with tempfile.TemporaryDirectory(prefix="pallium-hostile-") as tmp:
        base = Path(tmp)
        other = base / "other"
        other.mkdir()
        sh(other, "init", "-q", "-b", "main")
        (other / "mine.txt").write_text("mine\n", encoding="utf-8")
        sh(other, "add", "-A")
        sh(other, "commit", "-q", "-m", "mine")
        repo = base / "arrived"
        repo.mkdir()
        (repo / "app.py").write_text("print(1)\n", encoding="utf-8")
        if kind == "gitdir: file":
            (repo / ".git").write_text(f"gitdir: {other / '.git'}\n", encoding="utf-8")
        else:
            (repo / ".git").symlink_to(other / ".git")
        before = digest(other)
        for args in (["add", "-A"], ["write-tree"]):
            if guarded:
                with contextlib.suppress(PalliumError):
                    git.run(args, repo)
            else:
                subprocess.run(["git", *args], cwd=repo, env=ENV, capture_output=True, check=False)
        return 0, changed_bytes(before, other)


def main(argv: list[str]) -> int:
    os.environ.setdefault("PALLIUM_HOME", tempfile.mkdtemp(prefix="pallium-home-"))
    print("hostile repositories: commands run / bytes changed outside, Pallium (untrusted) vs plain git")
    print(f"{'case':36} {'pallium':>14} {'plain git':>14}")
    totals = [0, 0, 0, 0]
    rows = [(name, lambda g, s=setup, c=commands: run_case(s, c, g)) for name, setup, commands in GIT_CASES]
    rows += [(f"git data outside ({k})", lambda g, k=k: outside_data_case(k, g)) for k in ("gitdir: file", ".git link")]
    for name, case in rows:
        ours, theirs = case(True), case(False)
        totals = [totals[0] + ours[0], totals[1] + ours[1], totals[2] + theirs[0], totals[3] + theirs[1]]
        print(f"{name:36} {ours[0]:>5} / {ours[1]:>6} {theirs[0]:>5} / {theirs[1]:>6}")
    print(
        f"{'total (' + str(len(rows)) + ' cases)':36} {totals[0]:>5} / {totals[1]:>6} {totals[2]:>5} / {totals[3]:>6}"
    )
    return 0 if totals[0] == 0 and totals[1] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
