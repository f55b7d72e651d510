"""Workspace trust: what a repository ships that makes Pallium execute counts only once the user says so.

A cloned repository can commit saved workflows (`.pallium/workflows/*.js`, `.claude/workflows/*.js`)
and `.pallium/config.toml` (whose `allow_commands` let a script's `check()` run a shell command).
Like direnv's `allow` and mise's `trust`, `pallium trust` records the repository and one hash over
those files in `$PALLIUM_HOME/trust.json`; a file added, changed or removed afterwards changes the
hash, and the repository is untrusted again until trusted anew. Trust also lets the repository's
own verification commands run (`make test`, pytest with its conftest.py: running them runs its
code) and lets git honour the repository's executable configuration (`kernel.git_guard`); the
rule is written in docs/trust.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from kernel import paths, writes
from kernel.errors import PalliumError

__all__ = ["TRUST_FILE", "TrustState", "record", "revoke", "shipped_files", "state", "trust_command"]

TRUST_FILE = "trust.json"
# The folders and files whose content can make Pallium run something, relative to the repository.
SHIPPED_DIRS = (".pallium/workflows", ".claude/workflows")
SHIPPED_FILES = (".pallium/config.toml",)
MAX_SHIPPED_FILES = 2000


@dataclass(frozen=True)
class TrustState:
    """Whether `repo` is trusted now, and what its executable content is."""

    repo: str
    trusted: bool
    changed: bool  # trusted once, but a file changed since: trust again
    fingerprint: str
    files: tuple[str, ...]  # repository-relative paths of the shipped files
    trusted_at: str | None

    @property
    def command(self) -> str:
        return trust_command(Path(self.repo))


def trust_command(repo: Path) -> str:
    return f"pallium trust --repo {_quote(str(repo))} --authority admin"


def shipped_files(repo: Path) -> list[str]:
    """The repository's files that can make Pallium execute, links included (they are refused when used)."""
    found: list[str] = []
    for rel in SHIPPED_FILES:
        if _lexists(repo / rel):
            found.append(rel)
    for rel_dir in SHIPPED_DIRS:
        folder = repo / rel_dir
        if not _lexists(folder):
            continue
        if folder.is_symlink() or not folder.is_dir():
            found.append(rel_dir)
            continue
        for dirpath, dirnames, filenames in os.walk(folder):  # os.walk does not follow links to folders
            dirnames.sort()
            for name in sorted(filenames) + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
                found.append((Path(dirpath) / name).relative_to(repo).as_posix())
                if len(found) > MAX_SHIPPED_FILES:
                    raise PalliumError(
                        "invalid_input",
                        f"{repo} ships more than {MAX_SHIPPED_FILES} workflow and configuration files",
                        hint="remove the extra files under .pallium/workflows or .claude/workflows",
                        details={"repo": str(repo)},
                    )
    return sorted(set(found))


def fingerprint(repo: Path, files: list[str]) -> str:
    """One hash over each shipped file's path and bytes (a link by its target, never followed)."""
    digest = hashlib.sha256()
    for rel in files:
        path = repo / rel
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        try:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                digest.update(b"link:" + os.fsencode(os.readlink(path)))
            elif stat.S_ISREG(st.st_mode):
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            else:
                digest.update(b"other")
        except OSError:
            digest.update(b"unreadable")
        digest.update(b"\0")
    return digest.hexdigest()


def state(repo: Path) -> TrustState:
    """The trust of `repo` as it is on disk now."""
    repo = repo.resolve()
    files = shipped_files(repo)
    now = fingerprint(repo, files)
    entry = _load().get(str(repo))
    trusted = entry is not None and entry.get("fingerprint") == now
    return TrustState(
        repo=str(repo),
        trusted=trusted,
        changed=entry is not None and not trusted,
        fingerprint=now,
        files=tuple(files),
        trusted_at=str(entry["trusted_at"]) if entry and entry.get("trusted_at") else None,
    )


def record(repo: Path, *, now: str) -> TrustState:
    """Trust `repo` with the content it has now."""
    current = state(repo)
    records = _load()
    records[current.repo] = {"fingerprint": current.fingerprint, "files": list(current.files), "trusted_at": now}
    _save(records)
    return state(repo)


def revoke(repo: Path) -> TrustState:
    records = _load()
    records.pop(str(repo.resolve()), None)
    _save(records)
    return state(repo)


def _load() -> dict[str, dict[str, object]]:
    path = paths.pallium_home() / TRUST_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise PalliumError(
            "unavailable",
            f"cannot read the trust records {str(path)!r}: {exc}",
            hint=f"move {path} aside and trust your repositories again with `pallium trust --authority admin`",
            details={"path": str(path)},
        ) from exc
    repos = data.get("repos") if isinstance(data, dict) else None
    return {k: v for k, v in repos.items() if isinstance(v, dict)} if isinstance(repos, dict) else {}


def _save(records: dict[str, dict[str, object]]) -> None:
    text = json.dumps({"repos": records}, indent=2, sort_keys=True, ensure_ascii=False)
    writes.write_text(writes.home() / TRUST_FILE, text, mode=0o600, atomic=True)


def _lexists(path: Path) -> bool:
    return os.path.lexists(path)


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
