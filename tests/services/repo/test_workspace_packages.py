"""A monorepo's own packages imported by name reach the workspace folder, as the package manager links them.

`import { greet } from "@acme/core"` in `packages/app` means `packages/core` (its package.json
says `"name": "@acme/core"`), through the package's `exports` (conditions in order, the first that
leads to a committed file), `main`/`module`/`types`, or, when those name only built output
(`dist/index.js`), the source beside it (`src/index.ts`). A name no workspace package has stays
outside the repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, commit, new_repo
from tests.services.repo.test_determinism import assert_equals_scratch

pytestmark = pytest.mark.anyio

_CORE = {
    "name": "@acme/core",
    "exports": {
        "./package.json": "./package.json",
        ".": {"types": "./dist/index.d.ts", "import": "./dist/index.js", "require": "./dist/index.cjs"},
        "./util": {"@acme/source": "./src/util.ts", "types": "./dist/util.d.ts", "default": "./dist/util.js"},
        "./locale/*": {"import": "./src/locale/*/index.ts"},
    },
}


def _files() -> dict[str, str]:
    return {
        "package.json": json.dumps({"private": True, "workspaces": ["packages/*"]}),
        "packages/core/package.json": json.dumps(_CORE),
        "packages/core/src/index.ts": "export function greet(name: string) {\n  return name;\n}\n",
        "packages/core/src/util.ts": "export function pad(text: string) {\n  return text;\n}\n",
        "packages/core/src/locale/fr/index.ts": "export function bonjour() {\n  return 1;\n}\n",
        "packages/legacy/package.json": json.dumps({"name": "legacy", "main": "lib/index.js"}),
        "packages/legacy/lib/index.js": "export function old() {\n  return 0;\n}\n",
        "packages/app/package.json": json.dumps({"name": "@acme/app"}),
        "packages/app/src/main.ts": (
            'import { greet } from "@acme/core";\n'
            'import { pad } from "@acme/core/util";\n'
            'import { bonjour } from "@acme/core/locale/fr";\n'
            'import { old } from "legacy";\n'
            'import { render } from "react";\n\n'
            'greet(pad("x"));\nbonjour();\nold();\nrender();\n'
        ),
        "packages/app/src/render.ts": "export function render() {\n  return 2;\n}\n",
    }


async def test_a_workspace_package_imported_by_name_reaches_its_folder(tmp_path: Path):
    repo = new_repo(tmp_path, _files())
    out = await ask(repo, "pallium_neighbors", path="packages/app/src/main.ts")
    imported = sorted(s.path for s in out.structural if s.kind == "imports")
    assert imported == [
        "packages/core/src/index.ts",  # `.` names only dist/: the source beside it
        "packages/core/src/locale/fr/index.ts",  # a wildcard subpath
        "packages/core/src/util.ts",  # the first condition that leads to a committed file
        "packages/legacy/lib/index.js",  # `main`
    ]  # `react` is no package of the workspace, though `render` is a name of it
    for name, where in (("greet", "packages/core/src/index.ts"), ("pad", "packages/core/src/util.ts")):
        found = await ask(repo, "pallium_callers", name=name)
        calls = [(r.path, r.line, r.resolution, r.target) for r in found.references if r.kind == "call"]
        assert calls == [("packages/app/src/main.ts", 7, "import", where)], name
    render = await ask(repo, "pallium_callers", name="render")
    assert [r.resolution for r in render.references if r.kind == "call"] == ["unresolved"]


async def test_a_renamed_package_re_resolves_its_importers(tmp_path: Path):
    repo = new_repo(tmp_path, _files())
    before = await ask(repo, "pallium_callers", name="greet")
    assert [r.resolution for r in before.references if r.kind == "call"] == ["import"]
    commit(repo, "Rename", {"packages/core/package.json": json.dumps({**_CORE, "name": "@acme/kernel"})})
    await assert_equals_scratch(repo, tmp_path, "package renamed")  # the incremental index re-resolved
    after = await ask(repo, "pallium_callers", name="greet")
    assert [r.resolution for r in after.references if r.kind == "call"] == ["unresolved"]
