"""Bases named by another name: an import alias, a module alias, a dotted module path.

flask's `class Blueprint(SansioBlueprint)` after `from .sansio.blueprints import Blueprint as
SansioBlueprint` is the model: the subclass names its base only through the alias, and often
shares the base's own name, so "same file first" would find the subclass itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def aliased_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/scaffold.py": "class Scaffold:\n    def route(self, rule):\n        return rule\n",
            "pkg/sansio/__init__.py": "",
            "pkg/sansio/blueprints.py": (
                "from ..scaffold import Scaffold as BaseScaffold\n\n\n"
                "class Blueprint(BaseScaffold):\n    def register(self):\n        return 1\n"
            ),
            "pkg/blueprints.py": (
                "from .sansio.blueprints import Blueprint as SansioBlueprint\n\n\n"
                "class Blueprint(SansioBlueprint):\n    def extra(self):\n        return self.route('/x')\n"
            ),
            "pkg/local.py": (
                "from pkg.sansio import blueprints\n\n\nclass Blueprint(blueprints.Blueprint):\n    pass\n"
            ),
            "pkg/plugin.py": "import pkg.sansio.blueprints as bp\n\n\nclass Plugin(bp.Blueprint):\n    pass\n",
            "pkg/rel.py": "from .sansio import blueprints as bps\n\n\nclass Rel(bps.Blueprint):\n    pass\n",
            "pkg/deep.py": "import pkg.sansio.blueprints\n\n\nclass Deep(pkg.sansio.blueprints.Blueprint):\n    pass\n",
            "main.py": ("from pkg.blueprints import Blueprint as Web\n\nweb = Web()\nweb.route('/')\n"),
            "ui/base.ts": (
                "export class Widget { draw(): number { return 1; } }\nexport interface Drawable { paint(): void; }\n"
            ),
            "ui/mid.ts": "import { Widget as BaseWidget } from './base';\nexport class Panel extends BaseWidget {}\n",
            "ui/top.ts": (
                "import { Panel as P } from './mid';\nimport { Drawable as D } from './base';\n"
                "export class Dialog extends P implements D { paint(): void {} }\n"
            ),
            "ui/cjs.js": (
                "const base = require('./base');\nconst { Widget: W } = require('./base');\n"
                "class Sheet extends base.Widget {}\nclass Note extends W {}\nmodule.exports = { Sheet, Note };\n"
            ),
            "ui/ns.ts": (
                "import * as base from './base';\n"
                "export class Card extends base.Widget implements base.Drawable { paint(): void {} }\n"
            ),
        },
    )
    return repo


async def test_callers_kind_inherits_lists_a_subclass_that_names_its_base_through_an_alias(aliased_repo: Path) -> None:
    out = await ask(aliased_repo, "pallium_callers", name="pkg.sansio.blueprints.Blueprint", kind="inherits")
    assert {(r.path, r.line, r.target) for r in out.references} == {
        ("pkg/blueprints.py", 4, "pkg/sansio/blueprints.py"),  # `SansioBlueprint`
        ("pkg/local.py", 4, "pkg/sansio/blueprints.py"),  # `blueprints.Blueprint`
        ("pkg/plugin.py", 4, "pkg/sansio/blueprints.py"),  # `bp.Blueprint`
        ("pkg/rel.py", 4, "pkg/sansio/blueprints.py"),  # `bps.Blueprint`, a module imported under another name
        ("pkg/deep.py", 4, "pkg/sansio/blueprints.py"),  # `pkg.sansio.blueprints.Blueprint`
    }
    base = await ask(aliased_repo, "pallium_callers", name="Scaffold", kind="inherits")
    assert [(r.path, r.target_qualified) for r in base.references] == [("pkg/sansio/blueprints.py", "Scaffold")]


async def test_a_subclass_of_the_same_name_is_not_its_own_base(aliased_repo: Path) -> None:
    out = await ask(aliased_repo, "pallium_callers", name="pkg.blueprints.Blueprint", kind="inherits")
    assert out.references == []  # nothing subclasses flask's own Blueprint here


async def test_a_member_two_bases_up_is_found_through_aliased_bases(aliased_repo: Path) -> None:
    out = await ask(aliased_repo, "pallium_callers", name="pkg.blueprints.Blueprint.route")
    assert [(d.path, d.qualified) for d in out.definitions] == [("pkg/scaffold.py", "Scaffold.route")]
    assert out.inherited == "Blueprint -> Blueprint -> Scaffold"
    # `self.route` in the subclass, and `Web().route` where Web is the subclass under an alias
    assert {(r.path, r.line, r.resolution) for r in out.references} == {
        ("pkg/blueprints.py", 6, "receiver"),
        ("main.py", 4, "receiver"),
    }


@pytest.mark.parametrize(
    ("name", "chain"),
    [
        ("pkg.local.Blueprint.register", "Blueprint -> Blueprint"),
        ("Plugin.route", "Plugin -> Blueprint -> Scaffold"),
        ("Deep.register", "Deep -> Blueprint"),
        ("Rel.route", "Rel -> Blueprint -> Scaffold"),
    ],
)
async def test_module_aliases_and_dotted_bases_are_followed(aliased_repo: Path, name: str, chain: str) -> None:
    out = await ask(aliased_repo, "pallium_callers", name=name)
    assert out.inherited == chain


async def test_typescript_bases_and_interfaces_imported_under_another_name_are_followed(aliased_repo: Path) -> None:
    out = await ask(aliased_repo, "pallium_callers", name="Dialog.draw")
    assert [(d.path, d.qualified) for d in out.definitions] == [("ui/base.ts", "Widget.draw")]
    assert out.inherited == "Dialog -> Panel -> Widget"
    card = await ask(aliased_repo, "pallium_callers", name="Card.draw")
    assert card.inherited == "Card -> Widget"
    widget = await ask(aliased_repo, "pallium_callers", name="Widget", kind="inherits")
    assert {r.path for r in widget.references} == {"ui/mid.ts", "ui/ns.ts", "ui/cjs.js"}
    for name in ("Sheet.draw", "Note.draw"):
        assert (await ask(aliased_repo, "pallium_callers", name=name)).inherited.endswith("-> Widget")
    drawable = await ask(aliased_repo, "pallium_callers", name="Drawable", kind="inherits")
    assert {(r.path, r.target) for r in drawable.references} == {
        ("ui/top.ts", "ui/base.ts"),
        ("ui/ns.ts", "ui/base.ts"),
    }


_PACK_CASES = {
    "kotlin": (
        {
            "src/main/kotlin/shop/base/Base.kt": "package shop.base\n\nopen class Base {\n    fun run(): Int = 1\n}\n",
            "src/main/kotlin/shop/Child.kt": (
                "package shop\n\nimport shop.base.Base as Parent\n\nclass Child : Parent() {\n}\n"
            ),
        },
        "src/main/kotlin/shop/Child.kt",
        "src/main/kotlin/shop/base/Base.kt",
    ),
    "php": (
        {
            "composer.json": '{"autoload": {"psr-4": {"Shop\\\\": "src/"}}}\n',
            "src/Base/Base.php": (
                "<?php\nnamespace Shop\\Base;\n\nclass Base\n{\n    public function run(): int { return 1; }\n}\n"
            ),
            "src/Child.php": (
                "<?php\nnamespace Shop;\n\nuse Shop\\Base\\Base as ParentBase;\n\n"
                "class Child extends ParentBase\n{\n}\n"
            ),
        },
        "src/Child.php",
        "src/Base/Base.php",
    ),
    "csharp": (
        {
            "Shop/Base.cs": (
                "namespace Shop.Core {\n    public class Base {\n        public int Run() { return 1; }\n    }\n}\n"
            ),
            "App/Child.cs": (
                "using Parent = Shop.Core.Base;\n\nnamespace App {\n    public class Child : Parent {\n    }\n}\n"
            ),
        },
        "App/Child.cs",
        "Shop/Base.cs",
    ),
    "scala": (
        {
            "src/main/scala/shop/base/Base.scala": "package shop.base\n\nclass Base {\n  def run(): Int = 1\n}\n",
            "src/main/scala/shop/Child.scala": (
                "package shop\n\nimport shop.base.{Base => Parent}\n\nclass Child extends Parent {\n}\n"
            ),
        },
        "src/main/scala/shop/Child.scala",
        "src/main/scala/shop/base/Base.scala",
    ),
}


@pytest.mark.parametrize("language", sorted(_PACK_CASES))
async def test_a_base_imported_under_another_name_is_followed_in_other_languages(tmp_path: Path, language: str) -> None:
    files, child, base = _PACK_CASES[language]
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Start", files)
    subclasses = await ask(repo, "pallium_callers", name="Base", kind="inherits")
    assert (child, base) in {(r.path, r.target) for r in subclasses.references}
    member = "Run" if language == "csharp" else "run"
    out = await ask(repo, "pallium_callers", name=f"Child.{member}")
    assert [d.path for d in out.definitions] == [base]
    assert out.inherited is not None and out.inherited.endswith("Base")


async def test_a_base_read_off_a_package_that_re_exports_it_is_followed(tmp_path: Path) -> None:
    """`class Mine(flask.Blueprint)`, where flask/__init__.py re-exports Blueprint from flask/blueprints.py."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "web/__init__.py": "from .blueprints import Blueprint as Blueprint\n",
            "web/blueprints.py": "class Blueprint:\n    def route(self):\n        return 1\n",
            "other/blueprints.py": "class Blueprint:\n    def route(self):\n        return 2\n",
            "tests/test_mine.py": "import web\n\n\nclass Mine(web.Blueprint):\n    pass\n",
        },
    )
    out = await ask(repo, "pallium_callers", name="Blueprint", kind="inherits")
    assert [(r.path, r.resolution, r.target) for r in out.references] == [
        ("tests/test_mine.py", "import", "web/blueprints.py")
    ]
    mine = await ask(repo, "pallium_callers", name="Mine.route")
    assert [d.path for d in mine.definitions] == ["web/blueprints.py"]


async def test_a_rust_trait_used_under_another_name_is_listed_as_implemented(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
            "src/base.rs": "pub trait Runner {\n    fn run(&self) -> i32 { 1 }\n}\n",
            "src/other.rs": "pub trait Runner {\n    fn run(&self) -> i32 { 2 }\n}\n",
            "src/lib.rs": (
                "mod base;\nmod other;\nuse crate::base::Runner as Go;\n\npub struct Child;\n\nimpl Go for Child {}\n"
            ),
        },
    )
    out = await ask(repo, "pallium_callers", name="Runner", kind="inherits")
    assert [(r.path, r.resolution, r.target) for r in out.references] == [("src/lib.rs", "import", "src/base.rs")]
