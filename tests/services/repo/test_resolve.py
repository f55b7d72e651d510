"""Import resolution per language, on real repositories built here."""

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, commit, new_repo

pytestmark = pytest.mark.anyio


async def _imports(repo: Path, path: str) -> list[str]:
    out = await ask(repo, "pallium_neighbors", path=path)
    return sorted(s.path for s in out.structural if s.kind == "imports")


async def test_python_relative_package_and_src_layout_imports(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/shop/__init__.py": "from .cart import Cart\n",
            "src/shop/cart.py": "from shop.pricing import price\nfrom . import tax\nimport shop.util\n",
            "src/shop/pricing.py": "def price(): pass\n",
            "src/shop/tax.py": "RATE = 1\n",
            "src/shop/util.py": "",
            "src/shop/sub/deep.py": "from ..pricing import price\nfrom ...outside import nothing\n",
        },
    )
    assert await _imports(repo, "src/shop/cart.py") == ["src/shop/pricing.py", "src/shop/tax.py", "src/shop/util.py"]
    assert await _imports(repo, "src/shop/sub/deep.py") == ["src/shop/pricing.py"]
    assert await _imports(repo, "src/shop/__init__.py") == ["src/shop/cart.py"]


async def test_javascript_and_typescript_paths_index_files_and_tsconfig(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "tsconfig.json": (
                '{\n  // comment\n  "compilerOptions": {"baseUrl": ".", "paths": {"@lib/*": ["src/lib/*"]},},\n}\n'
            ),
            "src/app.ts": (
                'import { a } from "./parts";\n'
                'import { b } from "@lib/b";\n'
                'import c from "./c.js";\n'
                'import x from "react";\n'
            ),
            "src/parts/index.ts": "export const a = 1;\n",
            "src/lib/b.ts": "export const b = 2;\n",
            "src/c.ts": "export default 3;\n",
            "src/reexport.ts": 'export { a } from "./parts";\n',
        },
    )
    assert await _imports(repo, "src/app.ts") == ["src/c.ts", "src/lib/b.ts", "src/parts/index.ts"]
    assert await _imports(repo, "src/reexport.ts") == ["src/parts/index.ts"]


async def test_tsconfig_base_url_dot_resolves_bare_imports_from_the_root(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"~/*": ["src/*"]}}}\n',
            "src/app.ts": 'import { b } from "src/lib/b";\nimport { u } from "~/util";\nimport x from "react";\n',
            "src/lib/b.ts": "export const b = 2;\n",
            "src/util/index.ts": "export const u = 1;\n",
        },
    )
    assert await _imports(repo, "src/app.ts") == ["src/lib/b.ts", "src/util/index.ts"]


async def test_tsconfig_paths_without_base_url_do_not_resolve_bare_imports(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "tsconfig.json": '{"compilerOptions": {"paths": {"@lib/*": ["./src/lib/*"]}}}\n',
            "src/app.ts": 'import { b } from "@lib/b";\nimport { c } from "src/lib/c";\n',
            "src/lib/b.ts": "export const b = 2;\n",
            "src/lib/c.ts": "export const c = 3;\n",
        },
    )
    assert await _imports(repo, "src/app.ts") == ["src/lib/b.ts"], "without baseUrl a bare path is a package"


async def test_go_packages_resolve_by_module_path(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "go.mod": "module example.com/app\n\ngo 1.22\n",
            "main.go": (
                "package main\n"
                "\n"
                "import (\n"
                '\t"fmt"\n'
                '\t"example.com/app/store"\n'
                ")\n"
                "\n"
                "func main() { fmt.Println(store.Open()) }\n"
            ),
            "store/store.go": "package store\n\nfunc Open() int { return 1 }\n",
            "store/extra.go": "package store\n",
            "store/store_test.go": "package store\n",
        },
    )
    assert await _imports(repo, "main.go") == ["store/extra.go", "store/store.go"]


async def test_go_imports_resolve_inside_nested_modules(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "go.mod": "module example.com/app\n",
            "main.go": 'package main\n\nimport "example.com/app/store"\n\nfunc main() { store.Open() }\n',
            "store/store.go": "package store\n\nfunc Open() {}\n",
            "tools/go.mod": "module example.com/tools\n\ngo 1.22\n",
            "tools/main.go": 'package main\n\nimport (\n\t"example.com/tools/lint"\n\t"example.com/app/store"\n)\n',
            "tools/lint/lint.go": "package lint\n",
        },
    )
    assert await _imports(repo, "main.go") == ["store/store.go"]
    assert await _imports(repo, "tools/main.go") == ["store/store.go", "tools/lint/lint.go"]


async def test_go_without_a_root_module_still_resolves_a_nested_one(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "svc/go.mod": "module example.com/svc\n",
            "svc/main.go": 'package main\n\nimport "example.com/svc/api"\n',
            "svc/api/api.go": "package api\n",
        },
    )
    assert await _imports(repo, "svc/main.go") == ["svc/api/api.go"]


async def test_rust_mod_and_use_crate(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "Cargo.toml": '[package]\nname = "x"\n',
            "src/main.rs": "mod store;\nmod net;\nuse crate::store::Index;\nfn main() {}\n",
            "src/store.rs": "pub struct Index;\n",
            "src/net/mod.rs": "mod http;\n",
            "src/net/http.rs": "use super::super::store;\n",
        },
    )
    assert await _imports(repo, "src/main.rs") == ["src/net/mod.rs", "src/store.rs"]
    assert await _imports(repo, "src/net/mod.rs") == ["src/net/http.rs"]


async def test_java_imports_resolve_by_package_path(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/main/java/com/acme/App.java": "package com.acme;\nimport com.acme.util.Strings;\nclass App {}\n",
            "src/main/java/com/acme/util/Strings.java": "package com.acme.util;\npublic class Strings {}\n",
        },
    )
    assert await _imports(repo, "src/main/java/com/acme/App.java") == ["src/main/java/com/acme/util/Strings.java"]


async def test_a_tsconfig_extends_outside_the_repository_is_not_read(tmp_path: Path):
    # The file beside the clone would map `@x` to src/a.ts; a hostile `extends` must not reach it,
    # while one inside the repository still applies.
    (tmp_path / "outside.json").write_text('{"compilerOptions": {"baseUrl": ".", "paths": {"@x": ["src/a.ts"]}}}')
    repo = new_repo(
        tmp_path,
        {
            "tsconfig.json": '{"extends": "../outside.json"}\n',
            "src/app.ts": 'import { a } from "@x";\n',
            "src/a.ts": "export const a = 1;\n",
        },
    )
    assert await _imports(repo, "src/app.ts") == []
    commit(
        repo,
        "Extend inside",
        {"tsconfig.json": '{"extends": "./base.json"}\n', "base.json": (tmp_path / "outside.json").read_text()},
    )
    await ask(repo, "pallium_index")
    assert await _imports(repo, "src/app.ts") == ["src/a.ts"]
