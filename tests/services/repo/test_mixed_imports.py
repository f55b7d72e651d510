"""Imports that bring in two kinds of thing at once keep both.

A module imported twice, once by name and once whole, keeps the names imported by name.

`import { ref } from 'vue'` and `import * as vue from 'vue'` in one file (vue's own type tests do
this) become one edge. It must still say that `ref` came in by name, or a bare `ref()` there is
no longer tied to the `ref` the module hands on, and reads `ambiguous` wherever a second `ref` is
defined. The whole-module import still opens the edge to every other name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.store import open_repo
from services.repo.store import SCHEMA
from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

LIB = {
    # handed on four files deep, as vue's `ref` is (vue -> runtime-dom -> runtime-core -> reactivity)
    "src/ref.ts": "export function ref(value: number): number { return value; }\n",
    "src/index.ts": "export * from './dom';\nexport function computed(): number { return 1; }\n",
    "src/dom.ts": "export * from './core';\n",
    "src/core.ts": "export * from './reactivity';\n",
    "src/reactivity.ts": "export { ref } from './ref';\n",
    # a second `ref`, so only the import can decide which one a bare call means
    "test/helpers.ts": "export function ref(): void {}\n",
}


@pytest.mark.parametrize(
    "imports",
    [
        "import { ref } from '../src/index';\nimport * as lib from '../src/index';\n",
        "import * as lib from '../src/index';\nimport { ref } from '../src/index';\n",
        "import type * as lib from '../src/index';\nimport { ref, computed } from '../src/index';\n",
        "import '../src/index';\nimport { ref } from '../src/index';\n",
    ],
)
async def test_a_name_imported_beside_the_whole_module_resolves_through_it(tmp_path: Path, imports: str) -> None:
    repo = new_repo(tmp_path, {**LIB, "test/use.ts": imports + "\nref(1);\nlib.computed();\n"})
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="ref", kind="call")
    assert [(r.path, r.resolution, r.target) for r in out.references] == [("test/use.ts", "import", "src/ref.ts")]
    with open_repo(repo, [SCHEMA]) as db:
        (names,) = db.execute("SELECT names FROM repo_edges WHERE src = 'test/use.ts'").fetchone()
    assert "ref" in names.split() and "*" in names.split()  # by name, and open to every other name


async def test_python_from_import_beside_import_keeps_the_name(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.core import run\n",
            "pkg/core.py": "def run():\n    return 1\n",
            "tools/run.py": "def run():\n    return 2\n",
            "app.py": "import pkg\nfrom pkg import run\n\nrun()\npkg.run()\n",
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="pkg.core.run", kind="call")
    found = {(r.path, r.line, r.target) for r in out.references}
    assert found == {("app.py", 4, "pkg/core.py"), ("app.py", 5, "pkg/core.py")}


async def test_a_whole_module_import_alone_still_opens_the_edge(tmp_path: Path) -> None:
    repo = new_repo(tmp_path, {**LIB, "test/use.ts": "import * as lib from '../src/index';\nlib.ref(1);\n"})
    await ask(repo, "pallium_index")
    with open_repo(repo, [SCHEMA]) as db:
        (names,) = db.execute("SELECT names FROM repo_edges WHERE src = 'test/use.ts'").fetchone()
    assert names == ""


async def test_an_index_resolved_by_an_older_resolver_is_resolved_again_without_a_change(tmp_path: Path) -> None:
    imports = "import { ref } from '../src/index';\nimport * as lib from '../src/index';\n"
    repo = new_repo(tmp_path, {**LIB, "test/use.ts": imports + "\nref(1);\n"})
    await ask(repo, "pallium_index")
    with open_repo(repo, [SCHEMA]) as db:  # what the earlier resolver left: the name lost, no version
        db.execute("UPDATE repo_edges SET names = '' WHERE src = 'test/use.ts'")
        db.execute("UPDATE repo_state SET value = 'an older fingerprint' WHERE key = 'resolver'")
        db.execute("DELETE FROM repo_state WHERE key = 'resolver_version'")
    await ask(repo, "pallium_index")  # nothing changed in the repository
    out = await ask(repo, "pallium_callers", name="ref", kind="call")
    assert [(r.path, r.resolution, r.target) for r in out.references] == [("test/use.ts", "import", "src/ref.ts")]


async def test_from_package_import_of_a_name_beside_a_submodule_reaches_the_package_too(tmp_path: Path) -> None:
    # pydantic's tests: `from pydantic import BaseModel, dataclasses`, where pydantic/dataclasses.py exists
    repo = new_repo(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.main import BaseModel\n",
            "pkg/main.py": "class BaseModel:\n    pass\n",
            "pkg/dataclasses.py": "def dataclass():\n    pass\n",
            "tests/other.py": "class BaseModel:\n    pass\n",
            "tests/test_models.py": (
                "from pkg import BaseModel, dataclasses\n\n\nclass Model(BaseModel):\n    pass\n\n\n"
                "dataclasses.dataclass()\n"
            ),
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="pkg.main.BaseModel", kind="inherits")
    assert [(r.path, r.line, r.resolution, r.target) for r in out.references] == [
        ("tests/test_models.py", 4, "import", "pkg/main.py")
    ]
    out = await ask(repo, "pallium_callers", name="dataclass", kind="call")
    assert [(r.path, r.target) for r in out.references] == [("tests/test_models.py", "pkg/dataclasses.py")]
