"""Write the documents to `.pallium/knowledge/*.md`: generated files replaced one by one, authored ones kept.

A file that does not start with the generated marker was written by a person: it is never
overwritten, and a document whose name would land on it is reported as a collision.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernel import paths, writes
from kernel.errors import PalliumError
from services.knowledge.documents import MARKER

__all__ = ["Written", "file_name", "knowledge_dir", "materialize", "materialize_one"]

MAX_NAME_BYTES = 200  # file systems allow 255 bytes per name; a module 120 folders deep has a longer slug


def file_name(slug: str) -> str:
    """`<slug>.md`, or for a slug too long for a file name, its start and a digest of the whole."""
    name = f"{slug}.md"
    if len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    import hashlib

    digest = hashlib.sha256(slug.encode("utf-8")).hexdigest()[:16]
    start = slug.encode("utf-8")[: MAX_NAME_BYTES - 24].decode("utf-8", "ignore")
    return f"{start}~{digest}.md"


@dataclass(frozen=True)
class Written:
    written: list[str]
    unchanged: list[str]
    removed: list[str]
    collisions: list[str]
    authored: list[str]


def knowledge_dir(root: Path) -> Path:
    return paths.repo_state_dir(root) / "knowledge"


def materialize(root: Path, documents: dict[str, str]) -> Written:
    """Make `.pallium/knowledge/` hold exactly `documents` (`{slug: markdown}`) among its generated files."""
    folder = knowledge_dir(root)
    state = paths.repo_state_dir(root)
    for candidate in (state, folder):
        if candidate.is_symlink():
            raise PalliumError(
                "conflict",
                f"{candidate.name!r} is a symbolic link; Pallium does not write through links",
                hint=f"replace the link {str(candidate)!r} with a real folder, then build again",
                details={"path": str(candidate)},
            )
    writes.ensure_dir(folder)
    written, unchanged, collisions, removed = [], [], [], []
    existing = {p.name: p for p in folder.glob("*.md")}
    authored = sorted(name for name, p in existing.items() if not _is_generated(p))
    for slug, text in sorted(documents.items()):
        name = file_name(slug)
        target = folder / name
        if name in existing and name in authored:
            collisions.append(name)
            continue
        if target.is_file() and target.read_text(encoding="utf-8", errors="replace") == text:
            unchanged.append(name)
            continue
        _replace(target, text)
        written.append(name)
    wanted = {file_name(slug) for slug in documents}
    for name, path in sorted(existing.items()):
        if name not in wanted and name not in authored:
            path.unlink()
            removed.append(name)
    return Written(written, unchanged, removed, collisions, authored)


def materialize_one(root: Path, slug: str, text: str) -> bool:
    """Replace one generated document's file; False (nothing written) when an authored file holds the name."""
    target = knowledge_dir(root) / file_name(slug)
    if target.exists() and not _is_generated(target):
        return False
    _replace(target, text)
    return True


def _is_generated(path: Path) -> bool:
    if path.is_symlink():
        return False  # never touched: a link is not ours
    try:
        with path.open("r", encoding="utf-8", errors="replace") as handle:
            return handle.readline().rstrip("\n") == MARKER
    except OSError:
        return False


def _replace(target: Path, text: str) -> None:
    """Write `text` beside `target` and rename it over, so a reader sees the old file or the new one.

    The kernel's writer walks `.pallium/knowledge/` without following a link and refuses one at
    `target`, so a committed link there can never send a document outside the repository.
    """
    from kernel.redaction import redact_text

    writes.write_text(target, redact_text(text), mode=0o644, atomic=True)
