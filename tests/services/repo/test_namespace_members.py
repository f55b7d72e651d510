"""`z.string()` where `z` is a module namespace: the member is what that module exports under the name.

A namespace is bound in the file itself (`import * as z from "./external"`) or handed on by name
from another (`import * as z from "./external"; export { z }` in index.ts, then `import { z } from
"./index"`, zod's own layout). Its members are the module's definitions and what it re-exports
(`export * from "./schemas"`, `export { pick } from "./util"`), never what it only imports or
names as another namespace (`export * as coerce from "./coerce"`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

_FILES = {
    "src/schemas.ts": "export function string() {\n  return 1;\n}\n",
    "src/coerce.ts": "export function string() {\n  return 2;\n}\n",
    "src/util.ts": "export function pick() {\n  return 3;\n}\n",
    "src/helpers.ts": "export function string() {\n  return 4;\n}\n",
    "src/external.ts": (
        'import { string as plain } from "./helpers";\n'
        'export * from "./schemas";\n'
        'export * as coerce from "./coerce";\n'
        'export { pick } from "./util";\n'
        "export const helper = plain;\n"
    ),
    "src/index.ts": 'import * as z from "./external";\nexport * from "./external";\nexport { z };\n',
    "test/handed.test.ts": 'import { z } from "../src/index";\n\nz.string();\nz.pick();\nz.coerce.string();\n',
    "test/bound.test.ts": 'import * as z from "../src/external";\n\nz.string();\nz.pick();\n',
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path, _FILES)


async def _calls(repo: Path, name: str) -> list[tuple[str, int, str]]:
    out = await ask(repo, "pallium_callers", name=name)
    return [(r.path, r.line, r.resolution) for r in out.references if r.kind == "call"]


async def test_a_namespace_member_is_what_the_module_exports_under_that_name(repo: Path):
    assert await _calls(repo, "schemas.string") == [
        ("test/bound.test.ts", 3, "import"),
        ("test/handed.test.ts", 3, "import"),
    ]
    assert await _calls(repo, "util.pick") == [
        ("test/bound.test.ts", 4, "import"),
        ("test/handed.test.ts", 4, "import"),
    ]


async def test_what_the_module_only_imports_or_nests_is_no_member_of_it(repo: Path):
    assert await _calls(repo, "helpers.string") == []  # imported by external.ts, not exported as `string`
    coerce = await _calls(repo, "coerce.string")
    assert ("test/handed.test.ts", 3, "import") not in coerce and ("test/bound.test.ts", 3, "import") not in coerce
