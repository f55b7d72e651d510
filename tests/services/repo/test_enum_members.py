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


# (file, source): each declares a class or struct `A` with the fields `x` and `y`, beside a method
# or function whose own local variable is no field.
FIELDS = {
    "typescript": ("src/a.ts", "export class A {\n  private x = 1;\n  static y = 2;\n  m() { const local = 3; }\n}\n"),
    "javascript": ("src/a.js", "export class A {\n  x = 1;\n  static y;\n  m() { const local = 3; }\n}\n"),
    "java": ("src/A.java", "class A {\n    private int x, y;\n    void m() { int local = 3; }\n}\n"),
    "go": ("a.go", "package a\n\ntype A struct {\n\tx int\n\ty string\n}\n\nfunc m() { var local int; _ = local }\n"),
    "rust": ("src/a.rs", "struct A {\n    x: i32,\n    pub y: String,\n}\n\nfn m() { let local = 3; }\n"),
    "csharp": ("src/A.cs", "class A\n{\n    private int x, y;\n    void M() { int local = 3; }\n}\n"),
    "c": ("src/a.c", "struct A {\n    int x;\n    char *y;\n};\n\nint m(void) { int local = 3; return local; }\n"),
    "cpp": ("src/a.cpp", "class A {\n    int x;\n  public:\n    int y;\n    void m();\n};\n"),
    "kotlin": ("src/A.kt", "class A {\n    val x = 1\n    var y: Int = 2\n    fun m() { val local = 3 }\n}\n"),
    "swift": ("src/A.swift", "class A {\n    var x = 1\n    let y: Int = 2\n    func m() { let local = 3 }\n}\n"),
    "scala": ("src/A.scala", "class A {\n  val x = 1\n  var y: Int = 2\n  def m() = { val local = 3; local }\n}\n"),
    "php": ("src/A.php", "<?php\nclass A {\n    private $x;\n    public int $y = 1;\n}\n"),
    "python": ("a.py", "class A:\n    x = 1\n    y: int = 2\n\n    def m(self):\n        local = 3\n"),
}


@pytest.mark.parametrize("language", sorted(FIELDS))
async def test_fields_of_a_class_or_struct_are_definitions_and_locals_are_not(tmp_path: Path, language: str) -> None:
    path, source = FIELDS[language]
    repo = new_repo(tmp_path, {path: source})
    await ask(repo, "pallium_index")
    symbols = await ask(repo, "pallium_symbols", path=path)
    fields = {(s.qualified, s.kind) for s in symbols.symbols if s.name in {"x", "y", "local"}}
    assert fields == {("A.x", "field"), ("A.y", "field")}


async def test_a_field_read_off_a_typed_variable_is_found_by_its_class(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path,
        {
            "src/shape.ts": "export interface Shape {\n  area: number;\n}\n",
            "src/other.ts": "export class Room {\n  area = 3;\n}\n",
            "src/use.ts": "import { Shape } from './shape';\n\nexport function f(s: Shape) {\n  return s.area;\n}\n",
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="Shape.area")
    assert [(r.path, r.line, r.resolution) for r in out.references] == [("src/use.ts", 4, "receiver")]
