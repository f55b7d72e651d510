"""The adoption block, and its upsert between markers in AGENTS.md and CLAUDE.md.

Every file is checked before any is written, so a malformed marker in one leaves all untouched;
each write goes to a temporary file in the same folder and replaces the original atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernel import writes
from kernel.errors import PalliumError
from kernel.guidance import DEFAULT_TOOLS, agents_block_body

__all__ = ["BEGIN", "BLOCK", "END", "FileAction", "upsert"]

BEGIN = "<!-- pallium:agents:begin -->"
END = "<!-- pallium:agents:end -->"
TARGETS = ("AGENTS.md", "CLAUDE.md")
# Made from the default server's tools and the habits in kernel.guidance, the same source as the
# MCP server's instructions: the block never names a tool the default server does not serve.
BLOCK = f"{BEGIN}\n{agents_block_body(DEFAULT_TOOLS)}\n{END}\n"


@dataclass(frozen=True)
class FileAction:
    path: Path
    action: str  # created | appended | updated | unchanged
    text: str


def plan(folder: Path) -> list[FileAction]:
    """What installing the block in `folder` would do to each file, or a `conflict` naming the bad file."""
    existing = [folder / name for name in TARGETS if (folder / name).exists() or (folder / name).is_symlink()]
    if not existing:
        return [FileAction(folder / "AGENTS.md", "created", BLOCK)]
    return [_plan_one(path) for path in existing]


def upsert(folder: Path, *, dry_run: bool = False) -> list[FileAction]:
    actions = plan(folder)
    if not dry_run:
        for action in actions:
            if action.action != "unchanged":
                _write_atomic(action.path, action.text)
    return actions


def _plan_one(path: Path) -> FileAction:
    if path.is_symlink() or not path.is_file():
        raise PalliumError(
            "conflict",
            f"{path} is not a regular file (a symlink or a folder); Pallium does not write through it",
            hint="replace it with a regular file, or add the block by hand (`pallium agents block`)",
            details={"path": str(path)},
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PalliumError(
            "unavailable",
            f"cannot read {path}: {exc}",
            hint="check the file's permissions and encoding",
            details={"path": str(path)},
        ) from exc
    begins, ends = text.count(BEGIN), text.count(END)
    if (begins, ends) == (0, 0):
        sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        if text.endswith("\n") and not text.endswith("\n\n"):
            sep = "\n"
        return FileAction(path, "appended", text + sep + BLOCK)
    start, end = text.find(BEGIN), text.find(END)
    if begins != 1 or ends != 1 or end < start:
        problem = "an unclosed marker" if begins > ends else "markers out of order or repeated"
        raise PalliumError(
            "conflict",
            f"{path} has {problem} ({begins} begin, {ends} end); no file was changed",
            hint=f"fix the {BEGIN} / {END} lines by hand, then rerun `pallium agents install`",
            details={"path": str(path), "begin_markers": begins, "end_markers": ends},
        )
    after = end + len(END)
    if text[after : after + 1] == "\n":
        after += 1
    updated = text[:start] + BLOCK + text[after:]
    return FileAction(path, "unchanged" if updated == text else "updated", updated)


def _write_atomic(path: Path, text: str) -> None:
    """Replace `path` through a renamed temporary file, never through a link, keeping its mode."""
    mode = path.stat().st_mode & 0o777 if path.is_file() and not path.is_symlink() else 0o644
    writes.write_text(path, text, mode=mode, atomic=True, root=path.parent)
