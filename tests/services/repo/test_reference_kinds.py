"""References by kind, qualified names, receivers, and definitions only a language can reach."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def kinds_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "app/__init__.py": "",
            "app/base.py": (
                "class BaseHandler:\n    def handle(self):\n        return self.render()\n\n"
                "    def render(self):\n        return 1\n\n\n"
                "def tagged(fn):\n    return fn\n"
            ),
            "app/views.py": (
                "from app.base import BaseHandler, tagged\n\n\n"
                "class Home(BaseHandler):\n    @tagged\n    def render(self) -> BaseHandler:\n"
                "        return self.handle()\n\n\n"
                "class About(BaseHandler):\n    pass\n\n\n"
                "def build(h: BaseHandler):\n    page = Home()\n    page.render()\n    h.render()\n"
                "    return BaseHandler()\n"
            ),
            "app/cache.py": (
                "class Cache:\n    def load(self):\n        return self.save()\n\n"
                "    def save(self):\n        return 0\n\n\n"
                "class Store:\n    def save(self):\n        return 1\n\n\n"
                "def use(thing):\n    s = Store()\n    s.save()\n    thing.save()\n"
            ),
            "web/handler.ts": (
                "export class BaseHandler { render(): number { return 1; } }\n"
                "export type Id = string;\nexport enum Mode { Fast, Slow }\n"
                "export interface Shape { id: Id }\nexport namespace Geometry { export const unit = 1; }\n"
                "export class Page extends BaseHandler implements Shape { id: Id = 'x'; }\n"
            ),
        },
    )
    return repo


async def test_subclasses_are_one_call_with_kind_inherits(kinds_repo: Path) -> None:
    out = await ask(kinds_repo, "pallium_callers", name="BaseHandler", kind="inherits")
    assert {(r.path, r.enclosing) for r in out.references} == {
        ("app/views.py", "Home"),
        ("app/views.py", "About"),
        ("web/handler.ts", "Page"),
    }
    assert {r.kind for r in out.references} == {"inherits"}
    assert out.kinds["import"] == 1 and out.kinds["type"] >= 2 and out.kinds["call"] == 1


async def test_import_lines_are_not_call_sites(kinds_repo: Path) -> None:
    everything = await ask(kinds_repo, "pallium_callers", name="tagged")
    assert {(r.line, r.kind) for r in everything.references if r.path == "app/views.py"} == {
        (1, "import"),
        (5, "decorator"),
    }
    calls = await ask(kinds_repo, "pallium_callers", name="tagged", kind="call")
    assert calls.references == [] and calls.total == 0


async def test_a_python_reference_never_resolves_to_a_typescript_class(kinds_repo: Path) -> None:
    out = await ask(kinds_repo, "pallium_callers", name="BaseHandler")
    for ref in out.references:
        if ref.target is not None:
            assert ref.target.endswith(".ts") == ref.path.endswith(".ts"), ref


async def test_class_method_narrows_by_receiver(kinds_repo: Path) -> None:
    out = await ask(kinds_repo, "pallium_callers", name="Store.save")
    assert [d.qualified for d in out.definitions] == ["Store.save"]
    refs = {(r.line, r.resolution) for r in out.references}
    # `s = Store(); s.save()` is Store's; `thing.save()` may be either class's; Cache's own
    # `self.save()` never is Store's, although it sits in the same file.
    assert refs == {(16, "receiver"), (17, "ambiguous")}
    cache = await ask(kinds_repo, "pallium_callers", name="Cache.save")
    assert {(r.line, r.resolution, r.target_qualified) for r in cache.references} == {
        (3, "receiver", "Cache.save"),
        (17, "ambiguous", None),
    }


async def test_annotated_and_constructed_variables_and_self_narrow(kinds_repo: Path) -> None:
    home = await ask(kinds_repo, "pallium_callers", name="Home.render")
    assert {(r.path, r.line, r.resolution) for r in home.references} == {("app/views.py", 16, "receiver")}
    base = await ask(kinds_repo, "pallium_callers", name="app.base.BaseHandler.render")
    assert [d.path for d in base.definitions] == ["app/base.py"]
    assert {(r.path, r.line, r.resolution) for r in base.references} == {
        ("app/base.py", 3, "receiver"),
        ("app/views.py", 17, "receiver"),
    }


async def test_module_qualified_names_resolve(kinds_repo: Path) -> None:
    out = await ask(kinds_repo, "pallium_callers", name="app.base.tagged")
    assert [(d.path, d.qualified) for d in out.definitions] == [("app/base.py", "tagged")]
    assert {r.line for r in out.references if r.path == "app/views.py"} == {1, 5}


async def test_an_unmatched_qualifier_names_the_closest_instead_of_zero(kinds_repo: Path) -> None:
    with pytest.raises(PalliumError) as raised:
        await ask(kinds_repo, "pallium_callers", name="Stor.save")
    assert raised.value.code == "not_found"
    assert "Store.save" in raised.value.details["closest"]
    assert "--" not in raised.value.hint or "name" in raised.value.hint
    with pytest.raises(PalliumError) as missing:
        await ask(kinds_repo, "pallium_callers", name="Store.sav")
    assert missing.value.code == "not_found" and "save" in " ".join(missing.value.details["closest"])


async def test_every_typescript_declaration_kind_is_indexed(kinds_repo: Path) -> None:
    out = await ask(kinds_repo, "pallium_symbols", path="web/handler.ts")
    kinds = {s.name: s.kind for s in out.symbols}
    assert kinds["Id"] == "type"
    assert kinds["Mode"] == "enum"
    assert kinds["Shape"] == "interface"
    assert kinds["Geometry"] == "namespace"
    found = await ask(kinds_repo, "pallium_callers", name="Id", kind="type")
    assert {r.path for r in found.references} == {"web/handler.ts"} and found.total == 2
