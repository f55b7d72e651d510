"""The repository's own rules for running its tests, read from the files its contributors read.

`AGENTS.md` saying "always use `uv run pytest`", a CONTRIBUTING guide showing
`scripts/test -- tests/test_x.py`, a Makefile `test:` target: the index's checks are generic
(`python -m pytest -q FILE`), so each is rewritten the way the repository asks, and the
repository's whole-suite command is added where it names one. Rules an agent is told to follow
(`AGENTS.md`, `CLAUDE.md`) come before a contributor's guide, which comes before build files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CheckRules", "read_rules"]

# In the order they bind: the agents' own instructions first.
_GUIDES = (
    "AGENTS.md",
    "CLAUDE.md",
    ".github/copilot-instructions.md",
    "CONTRIBUTING.md",
    "CONTRIBUTING.rst",
    ".github/CONTRIBUTING.md",
    "docs/contributing.md",
    "docs/CONTRIBUTING.md",
)
_RUNNER = re.compile(r"\b((?:uv run|poetry run|pdm run|hatch run|pipenv run|rye run)\s+(?:python -m )?pytest)\b")
_SCRIPT = re.compile(r"(?<![\w/])((?:\./)?scripts/test)((?:\s+--)?)\s+[\w./-]*tests?/")
_SUITE = re.compile(r"`((?:uv run |poetry run |pdm run |hatch run )?(?:tox|nox|make test|just test)[\w -]*)`")
_MAX_BYTES = 200_000
_GENERIC = "python -m pytest -q"


@dataclass(frozen=True)
class CheckRules:
    pytest: str | None  # what replaces `python -m pytest -q` (`uv run pytest`, `scripts/test --`)
    suite: list[str]  # the repository's whole-suite commands (`uv run tox`, `make test`)
    source: str | None  # the file the pytest rule came from

    def apply(self, command: str) -> str:
        """`python -m pytest -q a.py` as the repository asks for it (`uv run pytest a.py`)."""
        if self.pytest and _GENERIC in command:
            return command.replace(_GENERIC, self.pytest, 1)
        return command


def read_rules(root: Path) -> CheckRules:
    pytest: str | None = None
    source: str | None = None
    suite: list[str] = []
    for name in _GUIDES:
        text = _read(root / name)
        if not text:
            continue
        if pytest is None:
            runner = _RUNNER.search(text)
            script = _SCRIPT.search(text)
            if runner:
                pytest, source = runner.group(1), name
            elif script and (root / script.group(1).removeprefix("./")).is_file():
                pytest, source = script.group(1) + script.group(2), name
        for found in _SUITE.findall(text):
            if found.strip() not in suite:
                suite.append(found.strip())
    makefile = _read(root / "Makefile")
    if makefile and re.search(r"^test:", makefile, re.M) and "make test" not in suite:
        suite.append("make test")
    justfile = _read(root / "justfile") or _read(root / "Justfile")
    if justfile and re.search(r"^test\b.*:", justfile, re.M) and "just test" not in suite:
        suite.append("just test")
    return CheckRules(pytest=pytest, suite=suite[:3], source=source)


def _read(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_text(errors="replace")
    except OSError:
        return None
