"""The text renderings say what --json says: no language, name or count is dropped without a word."""

from __future__ import annotations

from services.knowledge.models import MapModule, MapOutput
from services.knowledge.render import map_text


def _module(**overrides) -> MapModule:
    fields = {
        "slug": "src",
        "path": "src",
        "files": 9,
        "languages": {"python": 4, "typescript": 3, "go": 1, "rust": 1},
        "surface": [f"name_{i}" for i in range(8)],
        "depends_on": ["lib"],
        "used_by": [],
        "external": [],
        "tests": 2,
    }
    return MapModule(**{**fields, **overrides})


def test_map_text_names_every_language_and_counts_the_names_it_leaves_out():
    out = MapOutput(repo="/r", module_count=1, file_count=9, modules=[_module()], truncated=False, incidents=0)
    text = map_text(out)
    assert "(python 4, typescript 3, go 1, rust 1)" in text
    assert "name_5 (+2 more)" in text and "name_6" not in text
    assert "depends on: lib\n" in text + "\n" and "more)" not in text.split("depends on:")[1]
