"""Where workflow scripts come from: built-in templates, and workflows saved in the repository
(`.pallium/workflows/`, or `.claude/workflows/` as the original also searched) or for the user
(`$PALLIUM_HOME/workflows/`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kernel import paths, writes
from kernel.errors import PalliumError

__all__ = ["DEFAULT_TEMPLATE", "STYLES", "Found", "find", "list_templates", "save", "saved_dirs", "template_source"]

TEMPLATE_DIR = Path(__file__).with_name("templates")
DEFAULT_TEMPLATE = "plan-and-verify"
# Style names and the template each picks; `fix-until-green` is the original's alias of test-fix.
# `auto` is no template: generate and start choose one (see resolve_style and start.choose_style).
STYLES = {
    "review": "review",
    "test-fix": "test-fix",
    "fix-until-green": "test-fix",
    "research": "research",
    "plan": "plan-and-verify",
}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


@dataclass(frozen=True)
class Found:
    name: str
    origin: str  # "repo", "user" or "template"
    path: Path

    @property
    def label(self) -> str:
        return f"{self.origin}:{self.name}"

    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise PalliumError(
            "invalid_input",
            f"workflow name {name!r} must be letters, digits, '-' or '_' (64 at most)",
            details={"field": "name"},
        )
    return name


def saved_dirs(repo: Path) -> list[tuple[str, Path]]:
    """The folders searched for a saved workflow, first match wins. The user's `~/.claude/workflows`,
    which the original searched last, is left out: Pallium keeps out of other tools' homes."""
    return [
        ("repo", paths.repo_state_dir(repo) / "workflows"),
        ("repo", repo / ".claude" / "workflows"),
        ("user", paths.pallium_home() / "workflows"),
    ]


def list_templates() -> list[str]:
    return sorted(p.stem for p in TEMPLATE_DIR.glob("*.js"))


def template_source(name: str) -> str:
    path = TEMPLATE_DIR / f"{check_name(name)}.js"
    if not path.is_file():
        raise PalliumError(
            "not_found",
            f"no template {name!r}",
            hint=f"templates: {', '.join(list_templates())}",
            details={"field": "name"},
        )
    return path.read_text(encoding="utf-8")


def find(repo: Path, name: str) -> Found:
    """A saved workflow of the repository, then the user's, then a built-in template (by name or style)."""
    check_name(name)
    for origin, folder in saved_dirs(repo):
        candidate = folder / f"{name}.js"
        if candidate.is_file():
            return Found(name, origin, candidate)
    actual = STYLES.get(name, name)  # a style name or alias (fix-until-green) names its template
    template = TEMPLATE_DIR / f"{actual}.js"
    if template.is_file():
        return Found(actual, "template", template)
    known = sorted({p.stem for _, d in saved_dirs(repo) if d.is_dir() for p in d.glob("*.js")} | set(list_templates()))
    raise PalliumError(
        "not_found",
        f"no saved workflow or template named {name!r}",
        hint=f"known: {', '.join(known)}" if known else "save one with `pallium workflow save`",
        details={"field": "workflow", "known": known},
    )


def save(repo: Path, name: str, source: str, *, scope: str) -> Path:
    folder = paths.repo_state_dir(repo) / "workflows" if scope == "repo" else paths.pallium_home() / "workflows"
    target = folder / f"{check_name(name)}.js"
    writes.write_text(target, source, mode=0o644, root=repo if scope == "repo" else None)
    return target
