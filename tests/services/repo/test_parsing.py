"""Per-file facts for every supported language, with no network."""

from services.repo.parsing import extract


def _symbols(path: str, source: str) -> dict[str, tuple]:
    facts = extract(path, source.encode())
    assert facts.status == "parsed"
    return {s[2]: (s[1], s[5], s[6], s[7]) for s in facts.symbols}


def test_python_312_syntax_decorators_and_nesting_parse_on_311():
    source = '''"""Module."""
type Pair[T] = tuple[T, T]
LIMIT = 3

class Box[T]:
    """A box.

    Longer text."""

    @staticmethod
    def make[**P](value: T) -> "Box[T]":
        """Make one."""
        def inner():
            return value
        return inner()
'''
    symbols = _symbols("box.py", source)
    assert symbols == {
        "Pair": ("type", 2, 2, None),
        "LIMIT": ("constant", 3, 3, None),
        "Box": ("class", 5, 15, "A box."),
        "Box.make": ("method", 11, 15, "Make one."),
        "Box.make.inner": ("function", 13, 14, None),
    }
    facts = extract("box.py", source.encode())
    signature = next(s[4] for s in facts.symbols if s[0] == "make")
    assert signature == 'def make[**P](value: T) -> "Box[T]"'


def test_python_imports_keep_modules_and_names():
    facts = extract("pkg/a.py", b"import os.path as p\nfrom . import util\nfrom ..core import Engine, run as go\n")
    assert facts.imports == [("os.path", "", 1), (".", "util", 2), ("..core", "Engine run", 3)]


def test_javascript_functions_classes_requires_and_doc_comments():
    source = (
        "/** Loads things. */\n"
        "function load() { return helper(); }\n"
        "class Store { get(k) { return k; } }\n"
        "const arrow = () => 1;\n"
        'const lib = require("./lib");\n'
    )
    facts = extract("app.js", source.encode())
    symbols = {s[2]: (s[1], s[7]) for s in facts.symbols}
    assert symbols == {
        "load": ("function", "Loads things."),
        "Store": ("class", None),
        "Store.get": ("method", None),
        "arrow": ("function", None),
    }
    assert facts.imports == [("./lib", "", 5)]
    assert ("helper", 2, "call", "") in facts.refs


def test_typescript_and_tsx_need_the_javascript_tags_too():
    ts = (
        'import { a as b, c } from "./m";\n'
        'export { d } from "./e";\n'
        "export interface Shape { area(): number }\n"
        "export class Circle implements Shape { area(): number { return 1; } }\n"
    )
    facts = extract("shapes.ts", ts.encode())
    assert {s[2]: s[1] for s in facts.symbols} == {
        "Shape": "interface",
        "Shape.area": "method",
        "Circle": "class",
        "Circle.area": "method",
    }
    assert [(raw, sorted(names.split())) for raw, names, _ in facts.imports] == [("./m", ["a", "c"]), ("./e", ["d"])]
    tsx = "export function Button(props: { label: string }) { return <button>{props.label}</button>; }\n"
    assert {s[2]: s[1] for s in extract("Button.tsx", tsx.encode()).symbols} == {"Button": "function"}


def test_go_methods_are_qualified_by_their_receiver():
    source = (
        "package srv\n"
        "\n"
        "import (\n"
        '\t"fmt"\n'
        '\tx "example.com/app/util"\n'
        ")\n"
        "\n"
        "// Server serves.\n"
        "type Server struct{}\n"
        "\n"
        "func (s *Server) Run() { fmt.Println(x.Name) }\n"
    )
    facts = extract("srv/server.go", source.encode())
    assert {s[2]: (s[1], s[7]) for s in facts.symbols} == {
        "Server": ("type", "Server serves."),
        "Server.Run": ("method", None),
    }
    assert facts.imports == [("fmt", "fmt", 4), ("example.com/app/util", "x", 5)]


def test_rust_impl_methods_mods_and_uses():
    source = (
        "mod parser;\n"
        "use crate::store::{Index, Entry};\n"
        "/// The index.\n"
        "struct Idx;\n"
        "impl Idx {\n"
        "    fn search(&self) {}\n"
        "}\n"
    )
    facts = extract("src/main.rs", source.encode())
    assert {s[2]: (s[1], s[7]) for s in facts.symbols} == {
        "parser": ("module", None),
        "Idx": ("class", "The index."),
        "Idx.search": ("method", None),
    }
    assert facts.imports == [("mod parser", "", 1), ("crate::store::{Index, Entry}", "Index Entry", 2)]


def test_java_classes_methods_and_imports():
    source = (
        "package a.b;\n"
        "import a.c.Util;\n"
        "/** Greets. */\n"
        "public class Hello {\n"
        "  public String hi(String n) { return Util.x(n); }\n"
        "}\n"
    )
    facts = extract("src/a/b/Hello.java", source.encode())
    assert {s[2]: (s[1], s[7]) for s in facts.symbols} == {"Hello": ("class", "Greets."), "Hello.hi": ("method", None)}
    assert facts.imports == [("a.c.Util", "Util", 2)]


def test_text_files_are_indexed_as_text_and_unknown_code_as_unparsed():
    markdown = extract("docs/guide.md", b"# Guide\n\n## Install\ntext\n")
    assert markdown.status == "text"
    assert [(s[0], s[3]) for s in markdown.symbols] == [("Guide", None), ("Install", "Guide")]
    assert extract("schema.sql", b"CREATE TABLE t (x);\n").status == "text"
    fortran = extract("app.f90", b"program hello\nend program hello\n")
    assert (fortran.status, fortran.symbols) == ("unparsed", [])


def test_broken_source_still_yields_what_parses():
    facts = extract("bad.py", b"def ok():\n    return 1\n\ndef broken(:\n")
    assert facts.status == "parsed"
    assert "ok" in {s[0] for s in facts.symbols}


def test_sql_objects_shell_functions_and_make_targets_are_symbols_of_text_files():
    sql = extract(
        "db/schema.sql", b"CREATE TABLE IF NOT EXISTS users (id int);\ncreate unique index users_id on users(id);\n"
    )
    assert (sql.status, [(s[0], s[1], s[5]) for s in sql.symbols]) == (
        "text",
        [("users", "table", 1), ("users_id", "index", 2)],
    )
    shell = extract("scripts/run.sh", b"#!/bin/sh\nfunction build {\n}\ndeploy() {\n  echo\n}\nX=1\n")
    assert [(s[0], s[1]) for s in shell.symbols] == [("build", "function"), ("deploy", "function")]
    make = extract("Makefile", b"test:\n\tpytest\nlint: deps\n\truff\nVAR := 1\n")
    assert [(s[0], s[1]) for s in make.symbols] == [("test", "target"), ("lint", "target")]
