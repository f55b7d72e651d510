"""The languages served by tree-sitter-language-pack: one small repository each, built with git.

Each has two same-named definitions in different files and a caller that imports one of them,
so the tests check resolution between them, not only that something was found: symbols with
kinds and doc lines, imports resolved to files by the language's own rules, callers, and
explain's history.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Case:
    language: str
    first: dict[str, str]  # the first commit; `defining` is changed again in the second
    caller: str  # added in the second commit
    caller_text: str
    defining: str  # the file the caller's import reaches
    symbols: set[tuple[str, str]]  # (qualified, kind) in `defining`
    doc: tuple[str, str]  # (qualified, first doc line) in `defining`
    name: str  # the shared name the caller uses
    reference: tuple[int, str | None, str, str]  # (line in caller, enclosing, resolution, target)
    imports: list[str]  # what `caller` imports
    comment: str = "//"


CASES = [
    Case(
        "c",
        {
            "lib/store.h": "/* Opens the store. */\nint open_store(int flags);\n#define STORE_MAX 8\n"
            "typedef struct store { int n; } store_t;\n",
            "lib/store.c": '#include "store.h"\n\nint open_store(int flags) { return flags; }\n',
            "other/cache.c": "static int open_store(int flags) { return 0; }\n",
        },
        "main.c",
        '#include "lib/store.h"\n#include <stdio.h>\n\nint main(void) {\n  return open_store(1);\n}\n',
        "lib/store.h",
        {
            ("open_store", "function"),
            ("STORE_MAX", "macro"),
            ("store_t", "type"),
            ("store", "struct"),
            ("store.n", "field"),
        },
        ("open_store", "Opens the store."),
        "open_store",
        (5, "main", "import", "lib/store.h"),
        ["lib/store.h"],
    ),
    Case(
        "cpp",
        {
            "include/shop/store.hpp": (
                "namespace shop {\n// Keeps values.\nclass Store {\n public:\n  int open();\n};\n}\n"
            ),
            "src/store.cpp": "#include <shop/store.hpp>\n\nnamespace shop {\nint Store::open() { return 1; }\n}\n",
            "src/cache.cpp": "namespace cache {\nint open() { return 2; }\n}\n",
        },
        "src/main.cpp",
        "#include <shop/store.hpp>\nusing shop::Store;\n\nint main() {\n  Store s;\n  return s.open();\n}\n",
        "include/shop/store.hpp",
        {("shop", "namespace"), ("shop.Store", "class"), ("shop.Store.open", "method")},
        ("shop.Store", "Keeps values."),
        "open",
        (6, "main", "import", "include/shop/store.hpp"),
        ["include/shop/store.hpp"],
    ),
    Case(
        "csharp",
        {
            "Shop/Store.cs": "namespace Shop.Storage {\n    /// Keeps values.\n    public class Store {\n"
            "        public static Store Open() { return new Store(); }\n"
            "        public string Get(string key) { return key; }\n    }\n}\n",
            "Shop/Cache.cs": "namespace Shop.Caching {\n    public class Cache {\n"
            "        public static int Open() { return 1; }\n    }\n}\n",
        },
        "App/Program.cs",
        "using Shop.Storage;\n\nnamespace App {\n    public class Program {\n        public static void Main() {\n"
        '            var s = Store.Open();\n            s.Get("k");\n        }\n    }\n}\n',
        "Shop/Store.cs",
        {
            ("Shop.Storage", "namespace"),
            ("Shop.Storage.Store", "class"),
            ("Shop.Storage.Store.Open", "method"),
            ("Shop.Storage.Store.Get", "method"),
        },
        ("Shop.Storage.Store", "Keeps values."),
        "Open",
        (6, "App.Program.Main", "import", "Shop/Store.cs"),
        ["Shop/Store.cs"],
    ),
    Case(
        "ruby",
        {
            "lib/shop/store.rb": "module Shop\n  # Keeps values.\n  class Store\n"
            "    def self.open\n      new\n    end\n\n"
            "    def get(key)\n      key\n    end\n  end\nend\n",
            "lib/shop/cache.rb": "module Shop\n  class Cache\n    def self.open\n      1\n    end\n  end\nend\n",
        },
        "bin/run.rb",
        'require_relative "../lib/shop/store"\nrequire "shop/cache"\n\ndef main\n  store = Shop::Store.open\n'
        '  store.get("k")\nend\n',
        "lib/shop/store.rb",
        {("Shop", "module"), ("Shop.Store", "class"), ("Shop.Store.open", "method"), ("Shop.Store.get", "method")},
        ("Shop.Store", "Keeps values."),
        "open",
        (5, "main", "import", "lib/shop/store.rb"),
        ["lib/shop/cache.rb", "lib/shop/store.rb"],
        "#",
    ),
    Case(
        "php",
        {
            "composer.json": '{"autoload": {"psr-4": {"Shop\\\\": "src/"}}}\n',
            "src/Storage/Store.php": "<?php\nnamespace Shop\\Storage;\n\n/** Keeps values. */\nclass Store\n{\n"
            "    public static function open(): Store { return new Store(); }\n"
            "    public function get(string $key): string { return $key; }\n}\n",
            "src/Caching/Cache.php": "<?php\nnamespace Shop\\Caching;\n\nclass Cache\n{\n"
            "    public static function open(): int { return 1; }\n}\n",
        },
        "bin/run.php",
        "<?php\nuse Shop\\Storage\\Store;\n\nfunction main() {\n    $s = Store::open();\n    $s->get('k');\n}\n",
        "src/Storage/Store.php",
        {("Shop\\Storage", "namespace"), ("Store", "class"), ("Store.open", "method"), ("Store.get", "method")},
        ("Store", "Keeps values."),
        "open",
        (5, "main", "import", "src/Storage/Store.php"),
        ["src/Storage/Store.php"],
    ),
    Case(
        "kotlin",
        {
            "src/main/kotlin/shop/store/Store.kt": "package shop.store\n\n/** Keeps values. */\nclass Store {\n"
            "    fun get(key: String): String = key\n}\n\nfun open(): Store = Store()\n",
            "src/main/kotlin/shop/cache/Cache.kt": "package shop.cache\n\nfun open(): Int = 1\n",
        },
        "src/main/kotlin/shop/App.kt",
        'package shop\n\nimport shop.store.open\n\nfun main() {\n    val s = open()\n    s.get("k")\n}\n',
        "src/main/kotlin/shop/store/Store.kt",
        {("shop.store", "namespace"), ("Store", "class"), ("Store.get", "method"), ("open", "function")},
        ("Store", "Keeps values."),
        "open",
        (6, "main", "import", "src/main/kotlin/shop/store/Store.kt"),
        ["src/main/kotlin/shop/store/Store.kt"],
    ),
    Case(
        "swift",
        {
            "Sources/Shop/Store.swift": "/// Keeps values.\nstruct Store {\n"
            "    func get(_ key: String) -> String { return key }\n}\n\nfunc open() -> Store { return Store() }\n",
            "Sources/Cache/Cache.swift": "enum Cache {\n    static func open() -> Int { return 1 }\n}\n",
        },
        "Sources/Shop/App.swift",
        'import Foundation\n\nfunc run() {\n    let s = open()\n    s.get("k")\n}\n',
        "Sources/Shop/Store.swift",
        {("Store", "struct"), ("Store.get", "method"), ("open", "function")},
        ("Store", "Keeps values."),
        "open",
        (4, "run", "unique", "Sources/Shop/Store.swift"),
        [],
    ),
    Case(
        "scala",
        {
            "src/main/scala/shop/store/Store.scala": "package shop.store\n\n/** Keeps values. */\nclass Store {\n"
            "  def get(key: String): String = key\n}\n\nobject Store {\n  def open(): Store = new Store()\n}\n",
            "src/main/scala/shop/cache/Cache.scala": "package shop.cache\n\nobject Cache {\n  def open(): Int = 1\n}\n",
        },
        "src/main/scala/shop/App.scala",
        "package shop\n\nimport shop.store.Store\n\nobject App {\n  def main(): Unit = {\n    val s = Store.open()\n"
        '    s.get("k")\n  }\n}\n',
        "src/main/scala/shop/store/Store.scala",
        {("Store", "class"), ("Store", "object"), ("Store.get", "method"), ("Store.open", "method")},
        ("Store", "Keeps values."),
        "open",
        (7, "App.main", "import", "src/main/scala/shop/store/Store.scala"),
        ["src/main/scala/shop/store/Store.scala"],
    ),
    Case(
        "bash",
        {
            "lib/store.sh": "# Opens the store.\nopen_store() {\n  echo store\n}\n",
            "lib/cache.sh": "open_store() {\n  echo cache\n}\n",
        },
        "bin/run.sh",
        '#!/usr/bin/env bash\n. "$DIR/../lib/store.sh"\n\nmain() {\n  open_store\n}\n',
        "lib/store.sh",
        {("open_store", "function")},
        ("open_store", "Opens the store."),
        "open_store",
        (5, "main", "import", "lib/store.sh"),
        ["lib/store.sh"],
        "#",
    ),
    Case(
        "lua",
        {
            "shop/store.lua": "local M = {}\n\n-- Opens the store.\nfunction M.open()\n  return {}\nend\n\nreturn M\n",
            "shop/cache.lua": "local M = {}\n\nfunction M.open()\n  return 1\nend\n\nreturn M\n",
        },
        "main.lua",
        'local store = require("shop.store")\n\nlocal function run()\n  return store.open()\nend\n',
        "shop/store.lua",
        {("M.open", "function")},
        ("M.open", "Opens the store."),
        "open",
        (4, "run", "import", "shop/store.lua"),
        ["shop/store.lua"],
        "--",
    ),
]


@pytest.fixture(scope="module", params=CASES, ids=[c.language for c in CASES])
def case_repo(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Case, Path]:
    """One repository per language, shared by the tests below (they only read it and its index)."""
    case: Case = request.param
    repo = tmp_path_factory.mktemp(case.language) / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", case.first, when="2026-02-01T00:00:00Z")
    grown = case.first[case.defining] + f"{case.comment} grown\n"
    commit(repo, "Grow", {case.caller: case.caller_text, case.defining: grown}, when="2026-02-10T00:00:00Z")
    return case, repo


async def test_symbols_have_kinds_qualified_names_and_docs(case_repo: tuple[Case, Path]) -> None:
    case, repo = case_repo
    out = await ask(repo, "pallium_symbols", path=case.defining)
    assert (out.language, out.status) == (case.language, "parsed")
    assert {(s.qualified, s.kind) for s in out.symbols} == case.symbols
    docs = {s.qualified: s.doc for s in out.symbols if s.doc}
    assert docs.get(case.doc[0]) == case.doc[1]
    assert all(s.signature and "\n" not in s.signature for s in out.symbols)


async def test_imports_resolve_to_files(case_repo: tuple[Case, Path]) -> None:
    case, repo = case_repo
    out = await ask(repo, "pallium_neighbors", path=case.caller)
    assert sorted(s.path for s in out.structural if s.kind == "imports") == case.imports


async def test_callers_pick_the_reachable_definition(case_repo: tuple[Case, Path]) -> None:
    case, repo = case_repo
    out = await ask(repo, "pallium_callers", name=case.name)
    assert case.defining in {d.path for d in out.definitions} and len({d.path for d in out.definitions}) >= 2
    found = {r.line: (r.enclosing, r.resolution, r.target) for r in out.references if r.path == case.caller}
    line, *expected = case.reference
    assert found.get(line) == tuple(expected)
    assert {r.kind for r in out.references if r.path == case.caller and r.line == line} == {"call"}


async def test_explain_gives_history_and_links(case_repo: tuple[Case, Path]) -> None:
    case, repo = case_repo
    out = await ask(repo, "pallium_explain", path=case.defining)
    assert out.language == case.language
    assert [c.subject for c in out.recent_commits] == ["Grow", "Start"]
    if case.imports:
        assert (case.caller, "imported-by") in {(s.path, s.kind) for s in out.structural}
