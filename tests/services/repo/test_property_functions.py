"""A function written as an object's property (`{ delay: () => 0 }`, `api.create = () => ...`) is a member.

It is reached only through the object: `options.retry.delay(1)` may call it (ambiguous: the
receiver's type is not known here), a bare `delay()` never does. These are the callbacks tests
and option objects are full of (ky's `retry: { delay: () => 0 }`, zod's `{ gen: () => ... }`),
usually inside an anonymous callback's scope.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

_FILES = {
    "src/client.ts": ("export function send(options: any) {\n  return options.retry.delay(1);\n}\n"),
    "test/send.test.ts": (
        'import { send } from "../src/client";\n\n'
        'test("retries", () => {\n'
        "  send({ retry: { delay: () => 0 } });\n"
        "  delay();\n"
        "});\n"
    ),
    "src/api.js": "export const api = {};\napi.create = () => 1;\ncreate();\napi.create();\n",
    "src/url.ts": "export const mergePath: (...paths: string[]) => string = (...paths) => paths.join('/');\n",
    "src/other.ts": "export const mergePath = (a: string, b: string) => a + b;\n",
    "src/base.ts": 'import { mergePath } from "./url";\n\nmergePath("a", "b");\n',
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path, _FILES)


async def test_a_property_function_is_reached_through_an_object_never_bare(repo: Path):
    out = await ask(repo, "pallium_callers", name="test.send.test.delay")
    calls = {(r.path, r.line): r.resolution for r in out.references if r.kind == "call"}
    assert calls.get(("src/client.ts", 2)) == "ambiguous"  # `options.retry.delay(1)`: it or another's
    assert ("test/send.test.ts", 5) not in calls  # a bare `delay()` is no property of any object


async def test_a_property_assignment_is_no_bare_name(repo: Path):
    out = await ask(repo, "pallium_callers", name="create")
    bare = [(r.path, r.line, r.resolution, r.target) for r in out.references if r.line == 3]
    assert [b[2] for b in bare] == ["unresolved"], bare  # `create()`: nothing binds the bare name


async def test_a_function_typed_where_it_is_bound_is_a_binding_not_a_property(repo: Path):
    out = await ask(repo, "pallium_callers", name="url.mergePath")  # `name: (...) => T = (...) =>`
    assert [(r.path, r.line, r.resolution) for r in out.references if r.kind == "call"] == [
        ("src/base.ts", 3, "import")
    ]


async def test_each_reference_names_the_binding_it_reaches_when_a_name_is_bound_twice(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/flag.test.ts": (
                'test("on", () => {\n  const condition = () => true;\n  condition();\n});\n\n'
                'test("off", () => {\n  const condition = () => false;\n  condition();\n});\n'
            )
        },
    )
    out = await ask(repo, "pallium_callers", name="condition")
    assert sorted(d.line for d in out.definitions) == [2, 7]
    reached = [(r.line, r.target_line) for r in out.references if r.kind == "call"]
    assert reached == [(3, 2), (8, 7)]  # each callback's own binding, said so
