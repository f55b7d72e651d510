"""Where workflow scripts come from: built-in templates, and workflows saved in the repository
(`.pallium/workflows/`, or `.claude/workflows/` as the original also searched) or for the user
(`$PALLIUM_HOME/workflows/`)."""

from __future__ import annotations

import os
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
            hint="pass a `name` (CLI positional) of letters, digits, '-' or '_', at most 64 characters",
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
            hint=f"pass `name` as one of: {', '.join(list_templates())} (`pallium workflow template list`)",
            details={"field": "name"},
        )
    return path.read_text(encoding="utf-8")


def find(repo: Path, name: str) -> Found:
    """A built-in template (its names are reserved), else a saved workflow of the repository, then the user's.

    A repository's workflow is shipped with the clone, so it runs only when the repository is
    trusted (`pallium trust`) and unchanged since, and only when named: it never replaces a template.
    """
    check_name(name)
    actual = STYLES.get(name, name)  # a style name or alias (fix-until-green) names its template
    template = TEMPLATE_DIR / f"{actual}.js"
    if template.is_file():
        return Found(actual, "template", template)
    for origin, folder in saved_dirs(repo):
        candidate = folder / f"{name}.js"
        if not os.path.lexists(candidate):
            continue
        if origin == "repo":
            _check_shipped(repo, candidate)
        if candidate.is_file():
            return Found(name, origin, candidate)
    known = sorted({p.stem for _, d in saved_dirs(repo) if d.is_dir() for p in d.glob("*.js")} | set(list_templates()))
    raise PalliumError(
        "not_found",
        f"no saved workflow or template named {name!r}",
        hint=f"known: {', '.join(known)}" if known else "save one with `pallium workflow save`",
        details={"field": "workflow", "known": known},
    )


def is_reserved(name: str) -> bool:
    """Template and style names: no saved workflow may take them."""
    return name in STYLES or (TEMPLATE_DIR / f"{name}.js").is_file()


def _check_shipped(repo: Path, candidate: Path) -> None:
    """Refuse a repository workflow that is a link, lies outside the repository, or is not trusted."""
    from kernel import trust

    rel = candidate.relative_to(repo).as_posix()
    resolved = candidate.resolve()
    root = repo.resolve()
    linked = any(p.is_symlink() for p in (candidate, *candidate.parents) if p == root or root in p.parents)
    if linked or root not in resolved.parents:
        raise PalliumError(
            "invalid_input",
            f"the repository's workflow {rel!r} is a symbolic link; Pallium does not run linked workflows",
            hint=f"replace {rel} with the script itself, or pass it with --script PATH",
            details={"field": "workflow", "path": rel},
        )
    state = trust.state(repo)
    if not state.trusted:
        why = "changed since it was trusted" if state.changed else "not trusted"
        raise PalliumError(
            "authority_exceeded",
            f"{rel} ships with the repository, which is {why}, so Pallium does not run it",
            hint=f"read it, then trust the repository with `{state.command}` (CLI) or call pallium_trust "
            "with the repo argument at admin authority",
            details={"field": "workflow", "path": rel, "repo": state.repo, "reason": "untrusted"},
        )


def save(repo: Path, name: str, source: str, *, scope: str) -> Path:
    if is_reserved(name):
        raise PalliumError(
            "invalid_input",
            f"{name!r} is the name of a built-in template; a saved workflow cannot take it",
            hint="pass another name (for example `my-" + name + "`)",
            details={"field": "name"},
        )
    folder = paths.repo_state_dir(repo) / "workflows" if scope == "repo" else paths.pallium_home() / "workflows"
    target = folder / f"{check_name(name)}.js"
    writes.write_text(target, source, mode=0o644, root=repo if scope == "repo" else None)
    return target
