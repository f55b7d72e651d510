"""Enum members are declarations: `symbols` lists them under their enum, `callers E.A` finds their uses.

Vue's `TrackOpTypes.GET` used to answer "nothing named GET is defined", in every language the
index reads. Python's are class attributes, which count as the class's fields.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

# (file, source, the line that uses E.A). Each declares `E` with members A and B, and uses A once.
CASES = {
    "typescript": ("src/ops.ts", "export enum E {\n  A = 'a',\n  B,\n}\nexport const x = E.A;\n", 5),
    "python": ("ops.py", "import enum\n\n\nclass E(enum.Enum):\n    A = 1\n    B: int = 2\n\n\nx = E.A\n", 9),
    "rust": ("src/ops.rs", "pub enum E {\n    A,\n    B(i32),\n}\n\nfn f() -> E {\n    E::A\n}\n", 7),
    "java": ("src/E.java", "enum E {\n    A,\n    B;\n}\n\nclass Use {\n    E x = E.A;\n}\n", 7),
    "csharp": ("src/Ops.cs", "enum E\n{\n    A,\n    B = 2\n}\n\nclass Use\n{\n    E x = E.A;\n}\n", 9),
    "c": ("src/ops.c", "enum E {\n    A,\n    B = 2\n};\n\nint f(void) {\n    return A;\n}\n", 7),
    "cpp": ("src/ops.cpp", "enum class E {\n    A,\n    B = 2\n};\n\nint f() {\n    return (int)E::A;\n}\n", 7),
    "kotlin": ("src/Ops.kt", "enum class E {\n    A,\n    B\n}\n\nval x = E.A\n", 6),
    "swift": ("src/Ops.swift", "enum E {\n    case A, B\n}\n\nlet x = E.A\n", 5),
    "scala": ("src/Ops.scala", "enum E:\n  case A, B\n\nval x = E.A\n", 4),
    "php": ("src/Ops.php", "<?php\nenum E {\n    case A;\n    case B;\n}\n\n$x = E::A;\n", 7),
}


@pytest.mark.parametrize("language", sorted(CASES))
async def test_an_enum_member_is_a_definition_under_its_enum_and_its_uses_are_found(
    tmp_path: Path, language: str
) -> None:
    path, source, use_line = CASES[language]
    repo = new_repo(tmp_path, {path: source})
    await ask(repo, "pallium_index")
    symbols = await ask(repo, "pallium_symbols", path=path)
    members = {(s.qualified, s.parent) for s in symbols.symbols if s.name in {"A", "B"}}
    assert members == {("E.A", "E"), ("E.B", "E")}
    out = await ask(repo, "pallium_callers", name="E.A")
    assert [d.qualified for d in out.definitions] == ["E.A"]
    assert [r.line for r in out.references] == [use_line]


async def test_a_bare_name_is_no_class_attribute(tmp_path: Path) -> None:
    # pydantic's `ConfigDict.title` used to list every `title` of the repository as ambiguous
    repo = new_repo(
        tmp_path,
        {
            "config.py": "class Config:\n    title = None\n",
            "other.py": "class Other:\n    title = 'x'\n",
            "use.py": (
                "from config import Config\n\n\n"
                "def show(title):\n    return title\n\n\n"
                "def read(cfg: Config):\n    return cfg.title\n"
            ),
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="Config.title")
    assert {(r.path, r.line, r.resolution) for r in out.references} == {("use.py", 9, "receiver")}
