"""What an agent reads: decorators, overloads, clean signatures, docstring paragraphs, module docs, search order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

_SOURCE = '''"""Shapes and their areas.

Everything here is pure.
"""
from dataclasses import dataclass
from typing import overload


@dataclass(frozen=True)
class Box:
    """A box of things,
    kept flat.

    Not for liquids."""

    width: int

    @property
    def area(self) -> int:  # cached by callers
        return self.width * self.width

    @staticmethod
    def unit() -> "Box":
        return Box(1)


@overload
def scale(x: int) -> int: ...
@overload
def scale(x: float) -> float: ...
def scale(x):  # the implementation
    return x
'''


@pytest.fixture
def shapes_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "geo/shapes.py": _SOURCE,
            "geo/other.py": "def scale_all(items):\n    return items\n\n\ndef rescale():\n    return 1\n",
            "web/scale.ts": "export function Scale(): number { return 1; }\n",
        },
    )
    return repo


async def test_symbols_show_decorators_overloads_and_the_first_doc_paragraph(shapes_repo: Path) -> None:
    out = await ask(shapes_repo, "pallium_symbols", path="geo/shapes.py")
    by = {(s.qualified, s.start_line): s for s in out.symbols}
    box = next(s for s in out.symbols if s.qualified == "Box")
    assert box.decorators == ["@dataclass(frozen=True)"]
    assert box.doc == "A box of things, kept flat."
    area = next(s for s in out.symbols if s.qualified == "Box.area")
    assert (area.decorators, area.signature) == (["@property"], "def area(self) -> int")
    assert next(s for s in out.symbols if s.qualified == "Box.unit").decorators == ["@staticmethod"]
    scales = sorted((s.start_line, s.overload) for (q, _line), s in by.items() if q == "scale")
    assert [o for _line, o in scales] == [True, True, False]
    assert next(s for s in out.symbols if s.qualified == "scale" and not s.overload).signature == "def scale(x)"


async def test_module_docstrings_are_listed_and_searchable(shapes_repo: Path) -> None:
    out = await ask(shapes_repo, "pallium_symbols", path="geo/shapes.py")
    module = out.symbols[0]
    assert (module.kind, module.name, module.doc) == ("module", "shapes", "Shapes and their areas.")
    found = await ask(shapes_repo, "pallium_search", query="areas pure")
    assert found.results and found.results[0].kind == "module" and found.results[0].path == "geo/shapes.py"


async def test_search_puts_the_exact_case_definition_first_and_scores_follow_the_rank(shapes_repo: Path) -> None:
    out = await ask(shapes_repo, "pallium_search", query="scale", limit=10)
    assert (out.results[0].qualified, out.results[0].path) == ("scale", "geo/shapes.py")
    assert out.results[1].qualified != "Scale" or out.results[1].path == "web/scale.ts"
    scores = [r.score for r in out.results]
    assert scores == sorted(scores, reverse=True)
    upper = await ask(shapes_repo, "pallium_search", query="Scale", limit=10)
    assert (upper.results[0].qualified, upper.results[0].path) == ("Scale", "web/scale.ts")
