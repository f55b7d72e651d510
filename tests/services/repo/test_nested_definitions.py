"""A function nested in another is out of sight of the code outside it.

Vue's tests import `ref` and call it everywhere, and one `render()` among them defines a property
function `ref: vm => ...`: "same file wins" tied every call of the imported `ref` in that file to
the property. A nested definition answers only references inside the function that holds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


async def test_a_property_function_inside_a_method_does_not_take_the_imported_name(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path,
        {
            "src/ref.ts": "export function ref(value: number): number { return value; }\n",
            "test/other.ts": "export function ref(): void {}\n",
            "test/watch.spec.ts": (
                "import { ref } from '../src/ref';\n\n"
                "const count = ref(0);\n"
                "export const Comp = {\n"
                "  render() {\n"
                "    return { ref: (vm: number) => vm };\n"
                "  },\n"
                "};\n"
                "function later() {\n  return ref(2);\n}\n"
            ),
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="ref", kind="call")
    assert {(r.line, r.resolution, r.target) for r in out.references} == {
        (3, "import", "src/ref.ts"),
        (10, "import", "src/ref.ts"),
    }


async def test_a_nested_python_function_answers_only_calls_inside_its_function(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path,
        {
            "tools.py": "def helper():\n    return 1\n",
            "other.py": "def helper():\n    return 2\n",
            "app.py": (
                "from tools import helper\n\n\n"
                "def outer():\n"
                "    def helper():\n"
                "        return 3\n"
                "    return helper()\n\n\n"
                "def main():\n"
                "    return helper()\n"
            ),
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="helper", kind="call")
    assert {(r.path, r.line, r.target, r.target_qualified) for r in out.references} == {
        ("app.py", 7, "app.py", "outer.helper"),
        ("app.py", 11, "tools.py", "helper"),
    }


async def test_a_name_imported_from_outside_the_repository_is_unresolved_not_ambiguous(tmp_path: Path) -> None:
    repo = new_repo(
        tmp_path,
        {
            "src/a.ts": "export function ref(): number { return 1; }\n",
            "src/b.ts": "export function ref(): number { return 2; }\n",
            "bench/ref.bench.ts": "import { ref } from '../dist/reactivity.esm-browser.prod';\n\nref(100);\n",
            "bench/guess.ts": "ref(1);\n",
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="ref", kind="call")
    assert {(r.path, r.resolution) for r in out.references} == {
        ("bench/ref.bench.ts", "unresolved"),
        ("bench/guess.ts", "ambiguous"),
    }


async def test_a_class_defined_in_the_function_shadows_the_module_s_own(tmp_path: Path) -> None:
    # pydantic-core's tests define `class BaseModel` at the top and again inside a test
    repo = new_repo(
        tmp_path,
        {
            "test_union.py": (
                "class BaseModel:\n    pass\n\n\n"
                "class Outer(BaseModel):\n    pass\n\n\n"
                "def test_subclass():\n"
                "    class BaseModel:\n        pass\n\n"
                "    class User(BaseModel):\n        pass\n"
            ),
        },
    )
    await ask(repo, "pallium_index")
    out = await ask(repo, "pallium_callers", name="BaseModel", kind="inherits")
    assert {(r.line, r.resolution, r.target_qualified) for r in out.references} == {
        (5, "same-file", "BaseModel"),
        (13, "same-file", "test_subclass.BaseModel"),
    }
