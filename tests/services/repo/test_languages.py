"""One small repository per language, built with git: symbols, callers, imports and explain on each.

Every fixture has two same-named functions (`open`/`Open`) in different files and a caller that
imports one of them, so resolution between them is checked, not just found.
"""

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _history(tmp_path: Path, first: dict[str, str], second: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", first, when="2026-02-01T00:00:00Z")
    commit(repo, "Grow", second, when="2026-02-10T00:00:00Z")
    return repo


async def _imports(repo: Path, path: str) -> list[str]:
    out = await ask(repo, "pallium_neighbors", path=path)
    return sorted(s.path for s in out.structural if s.kind == "imports")


async def _symbols(repo: Path, path: str) -> dict[str, str]:
    out = await ask(repo, "pallium_symbols", path=path)
    assert out.status == "parsed"
    return {s.qualified: s.kind for s in out.symbols}


async def _callers(repo: Path, name: str) -> tuple[list[str], dict[str, tuple[str | None, str, str | None]]]:
    out = await ask(repo, "pallium_callers", name=name)
    return (
        [d.path for d in out.definitions],
        {f"{r.path}:{r.line}": (r.enclosing, r.resolution, r.target) for r in out.references},
    )


# go ---------------------------------------------------------------------------------------------


@pytest.fixture
def go_repo(tmp_path: Path) -> Path:
    return _history(
        tmp_path,
        {
            "go.mod": "module example.com/shop\n\ngo 1.22\n",
            "Makefile": "lint:\n\tgolangci-lint run\ntest:\n\tgo test ./...\n",
            "store/store.go": (
                "package store\n"
                "\n"
                "// Store keeps values.\n"
                "type Store struct{}\n"
                "\n"
                "// Open opens the store.\n"
                "func Open() *Store { return &Store{} }\n"
                "\n"
                "func (s *Store) Get(key string) string { return key }\n"
            ),
            "cache/cache.go": "package cache\n\nfunc Open() int { return 1 }\n",
        },
        {
            "main.go": (
                "package main\n"
                "\n"
                'import "example.com/shop/store"\n'
                "\n"
                "func main() {\n"
                "\ts := store.Open()\n"
                '\ts.Get("k")\n'
                "}\n"
            ),
            "store/store_test.go": 'package store\n\nimport "testing"\n\nfunc TestGet(t *testing.T) {}\n',
            "store/store.go": (
                "package store\n"
                "\n"
                "// Store keeps values.\n"
                "type Store struct{}\n"
                "\n"
                "// Open opens the store.\n"
                "func Open() *Store { return &Store{} }\n"
                "\n"
                "func (s *Store) Get(key string) string { return key + key }\n"
            ),
        },
    )


async def test_go_symbols_qualify_methods_by_their_receiver(go_repo: Path):
    assert await _symbols(go_repo, "store/store.go") == {"Store": "type", "Open": "function", "Store.Get": "method"}


async def test_go_callers_pick_the_imported_package_between_same_named_functions(go_repo: Path):
    definitions, references = await _callers(go_repo, "Open")
    assert definitions == ["cache/cache.go", "store/store.go"]
    assert references == {"main.go:6": ("main", "import", "store/store.go")}


async def test_go_imports_resolve_to_the_package_folder_by_module_path(go_repo: Path):
    assert await _imports(go_repo, "main.go") == ["store/store.go"]


async def test_go_explain_gathers_links_tests_history_and_go_commands(go_repo: Path):
    out = await ask(go_repo, "pallium_explain", path="store/store.go")
    assert (out.language, out.status, [s.qualified for s in out.symbols]) == (
        "go",
        "parsed",
        ["Store", "Open", "Store.Get"],
    )
    assert {(s.path, s.kind) for s in out.structural} == {
        ("main.go", "imported-by"),
        ("store/store_test.go", "test-pair"),
    }
    assert out.tests == ["store/store_test.go"]
    assert [c.subject for c in out.recent_commits] == ["Grow", "Start"]
    assert out.verification.model_dump() == {
        "fast": ["go test ./store"],
        "safe": ["go vet ./store", "make lint"],
        "full": ["go test ./...", "make test"],
    }


# rust -------------------------------------------------------------------------------------------


@pytest.fixture
def rust_repo(tmp_path: Path) -> Path:
    return _history(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
            "src/store/mod.rs": (
                "mod disk;\n"
                "\n"
                "/// Opens the store.\n"
                "pub fn open() -> Store { Store }\n"
                "\n"
                "pub struct Store;\n"
                "\n"
                "impl Store {\n"
                "    pub fn get(&self) -> u32 { 1 }\n"
                "}\n"
            ),
            "src/store/disk.rs": "pub struct Disk;\n",
            "src/cache.rs": "pub fn open() -> u32 { 2 }\n",
        },
        {
            "src/main.rs": (
                "mod cache;\n"
                "mod store;\n"
                "use crate::store::open;\n"
                "use crate::store::disk::Disk;\n"
                "\n"
                "fn main() {\n"
                "    let s = open();\n"
                "    s.get();\n"
                "}\n"
            ),
        },
    )


async def test_rust_symbols_qualify_impl_methods_and_declare_modules(rust_repo: Path):
    assert await _symbols(rust_repo, "src/store/mod.rs") == {
        "disk": "module",
        "open": "function",
        "Store": "class",
        "Store.get": "method",
    }


async def test_rust_callers_prefer_the_file_a_use_names_over_a_bare_mod(rust_repo: Path):
    definitions, references = await _callers(rust_repo, "open")
    assert definitions == ["src/cache.rs", "src/store/mod.rs"]
    assert references["src/main.rs:7"] == ("main", "import", "src/store/mod.rs")


async def test_rust_mod_and_use_crate_resolve_to_files(rust_repo: Path):
    assert await _imports(rust_repo, "src/main.rs") == ["src/cache.rs", "src/store/disk.rs", "src/store/mod.rs"]
    assert await _imports(rust_repo, "src/store/mod.rs") == ["src/store/disk.rs"]


async def test_rust_explain_gathers_links_history_and_cargo_commands(rust_repo: Path):
    out = await ask(rust_repo, "pallium_explain", path="src/cache.rs")
    assert (out.language, out.status, [s.qualified for s in out.symbols]) == ("rust", "parsed", ["open"])
    assert {(s.path, s.kind) for s in out.structural} == {("src/main.rs", "imported-by")}
    assert [c.subject for c in out.recent_commits] == ["Start"]
    assert out.verification.model_dump() == {
        "fast": ["cargo test cache"],
        "safe": ["cargo clippy --all-targets"],
        "full": ["cargo test --all"],
    }


# java -------------------------------------------------------------------------------------------

_STORE_JAVA = (
    "package com.shop.store;\n"
    "\n"
    "/** Opens stores. */\n"
    "public class Store {\n"
    "  public static Store open() { return new Store(); }\n"
    "  public String get(String key) { return key; }\n"
    "}\n"
)


@pytest.fixture
def java_repo(tmp_path: Path) -> Path:
    return _history(
        tmp_path,
        {
            "pom.xml": "<project><modelVersion>4.0.0</modelVersion></project>\n",
            "src/main/java/com/shop/store/Store.java": _STORE_JAVA,
            "src/main/java/com/shop/cache/Cache.java": (
                "package com.shop.cache;\n\npublic class Cache {\n  public static int open() { return 1; }\n}\n"
            ),
        },
        {
            "src/main/java/com/shop/App.java": (
                "package com.shop;\n"
                "\n"
                "import com.shop.store.Store;\n"
                "\n"
                "public class App {\n"
                "  public static void main(String[] args) {\n"
                "    Store s = Store.open();\n"
                '    s.get("k");\n'
                "  }\n"
                "}\n"
            ),
            "src/test/java/com/shop/store/StoreTest.java": (
                "package com.shop.store;\n\nclass StoreTest {\n  void gets() {}\n}\n"
            ),
        },
    )


async def test_java_symbols_qualify_methods_by_their_class(java_repo: Path):
    assert await _symbols(java_repo, "src/main/java/com/shop/store/Store.java") == {
        "Store": "class",
        "Store.open": "method",
        "Store.get": "method",
    }


async def test_java_callers_pick_the_imported_class_and_class_method_narrows(java_repo: Path):
    definitions, references = await _callers(java_repo, "open")
    store = "src/main/java/com/shop/store/Store.java"
    assert definitions == ["src/main/java/com/shop/cache/Cache.java", store]
    assert references["src/main/java/com/shop/App.java:7"] == ("App.main", "import", store)
    narrowed, _ = await _callers(java_repo, "Store.open")
    assert narrowed == [store]


async def test_java_explain_pairs_the_test_class_and_gives_maven_commands(java_repo: Path):
    out = await ask(java_repo, "pallium_explain", path="src/main/java/com/shop/store/Store.java")
    assert (out.language, out.symbols[0].doc) == ("java", "Opens stores.")
    assert out.tests == ["src/test/java/com/shop/store/StoreTest.java"]
    assert ("src/main/java/com/shop/App.java", "imported-by") in {(s.path, s.kind) for s in out.structural}
    assert [c.subject for c in out.recent_commits] == ["Start"]
    assert out.verification.model_dump() == {
        "fast": ["mvn -q test -Dtest=StoreTest"],
        "safe": [],
        "full": ["mvn -q test"],
    }


# typescript / tsx -------------------------------------------------------------------------------


@pytest.fixture
def ts_repo(tmp_path: Path) -> Path:
    return _history(
        tmp_path,
        {
            "package.json": (
                '{"scripts": {"test": "vitest run", "lint": "eslint .", "typecheck": "tsc"},'
                ' "devDependencies": {"vitest": "1"}}\n'
            ),
            "pnpm-lock.yaml": "lockfileVersion: 9\n",
            "src/store/index.ts": (
                "/** Opens the store. */\n"
                "export function open(): Store {\n"
                "  return new Store();\n"
                "}\n"
                "\n"
                "export class Store {\n"
                "  get(key: string): string {\n"
                "    return key;\n"
                "  }\n"
                "}\n"
            ),
            "src/cache.ts": "export function open(): number {\n  return 1;\n}\n",
        },
        {
            "src/App.tsx": (
                'import { open } from "./store";\n'
                "\n"
                "export function App() {\n"
                "  const s = open();\n"
                '  return <div>{s.get("k")}</div>;\n'
                "}\n"
            ),
            "src/store/index.test.ts": 'import { open } from "./index";\n\ntest("opens", () => open());\n',
        },
    )


async def test_typescript_symbols_include_classes_methods_and_doc_comments(ts_repo: Path):
    assert await _symbols(ts_repo, "src/store/index.ts") == {
        "open": "function",
        "Store": "class",
        "Store.get": "method",
    }
    out = await ask(ts_repo, "pallium_symbols", path="src/store/index.ts")
    assert out.symbols[0].doc == "Opens the store."
    assert await _symbols(ts_repo, "src/App.tsx") == {"App": "function"}


async def test_tsx_callers_resolve_through_an_index_file_import(ts_repo: Path):
    definitions, references = await _callers(ts_repo, "open")
    assert definitions == ["src/cache.ts", "src/store/index.ts"]
    assert references["src/App.tsx:4"] == ("App", "import", "src/store/index.ts")
    assert await _imports(ts_repo, "src/App.tsx") == ["src/store/index.ts"]


async def test_typescript_explain_gives_vitest_and_package_scripts(ts_repo: Path):
    out = await ask(ts_repo, "pallium_explain", path="src/store/index.ts")
    assert out.language == "typescript"
    assert out.tests == ["src/store/index.test.ts"]
    assert ("src/App.tsx", "imported-by") in {(s.path, s.kind) for s in out.structural}
    assert [c.subject for c in out.recent_commits] == ["Start"]
    assert out.verification.model_dump() == {
        "fast": ["pnpm exec vitest run src/store/index.test.ts"],  # the lockfile's manager runs the local bin
        "safe": ["pnpm run lint", "pnpm run typecheck"],
        "full": ["pnpm test"],
    }


# javascript -------------------------------------------------------------------------------------


@pytest.fixture
def js_repo(tmp_path: Path) -> Path:
    return _history(
        tmp_path,
        {
            "package.json": (
                '{"scripts": {"test": "jest", "test:unit": "jest unit", "lint": "eslint ."},'
                ' "devDependencies": {"jest": "29"}}\n'
            ),
            "yarn.lock": "# yarn\n",
            "lib/store/index.js": (
                "/** Opens the store. */\n"
                "function open() {\n"
                "  return new Store();\n"
                "}\n"
                "\n"
                "class Store {\n"
                "  get(key) {\n"
                "    return key;\n"
                "  }\n"
                "}\n"
                "\n"
                "module.exports = { open, Store };\n"
            ),
            "lib/cache.js": "function open() {\n  return 1;\n}\n\nmodule.exports = { open };\n",
        },
        {
            "lib/app.js": ('const { open } = require("./store");\n\nfunction main() {\n  return open().get("k");\n}\n'),
            "lib/esm.mjs": 'import { open } from "./cache.js";\n\nexport const one = () => open();\n',
            "test/store.test.js": 'const { open } = require("../lib/store");\n\ntest("opens", () => open());\n',
        },
    )


async def test_javascript_symbols_include_classes_and_methods(js_repo: Path):
    assert await _symbols(js_repo, "lib/store/index.js") == {
        "open": "function",
        "Store": "class",
        "Store.get": "method",
    }


async def test_javascript_callers_resolve_require_and_import_between_same_named_functions(js_repo: Path):
    definitions, references = await _callers(js_repo, "open")
    assert definitions == ["lib/cache.js", "lib/store/index.js"]
    assert references["lib/app.js:4"] == ("main", "import", "lib/store/index.js")
    assert references["lib/esm.mjs:3"] == ("one", "import", "lib/cache.js")


async def test_javascript_requires_resolve_index_files_and_relative_paths(js_repo: Path):
    assert await _imports(js_repo, "lib/app.js") == ["lib/store/index.js"]
    assert await _imports(js_repo, "test/store.test.js") == ["lib/store/index.js"]
    assert await _imports(js_repo, "lib/esm.mjs") == ["lib/cache.js"]


async def test_javascript_explain_gives_jest_and_the_package_managers_scripts(js_repo: Path):
    out = await ask(js_repo, "pallium_explain", path="lib/store/index.js")
    assert out.language == "javascript"
    assert out.tests == ["test/store.test.js"]
    assert [c.subject for c in out.recent_commits] == ["Start"]
    assert out.verification.model_dump() == {
        "fast": ["yarn jest test/store.test.js"],
        "safe": ["yarn run lint", "yarn run test:unit"],
        "full": ["yarn test"],
    }
