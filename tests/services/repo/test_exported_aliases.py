"""Names that reach a definition through another file: default exports, and re-exports under another name.

`import Base from './widget'` names whatever `widget.ts` exports as default, and `from pkg import B`
names what `pkg/__init__.py` binds as B (`from .x import A as B`): neither file that uses the name
says which definition it is, so the index follows the exporting file's facts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


@pytest.fixture
def default_repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path,
        {
            "ui/widget.ts": (
                "export default class Widget {\n  render(): number { return 1; }\n"
                "  static create(): number { return 1; }\n}\n"
            ),
            # a same-named class elsewhere, and one in the importing file, never chosen
            "ui/other.ts": "export class Widget {\n  render(): number { return 2; }\n}\nexport class Base {}\n",
            "ui/panel.ts": (
                "import Base from './widget';\n\n"
                "export class Widget extends Base {}\n"
                "export class Panel extends Base {}\n"
                "const made = new Base();\n"
                "Base.create();\n"
            ),
            "ui/index.ts": "export { default as Widget } from './widget';\n",
            "ui/menu.ts": "import { Widget } from './index';\nexport class Menu extends Widget {}\n",
            "ui/named.ts": "import { default as Root } from './widget';\nexport class Sheet extends Root {}\n",
            "ui/same.ts": "import Widget from './widget';\nexport class Card extends Widget {}\n",
            "ui/shape.ts": "interface Shape { area(): number; }\nexport default Shape;\n",
            "ui/square.ts": "import S from './shape';\nexport class Square implements S { area() { return 4; } }\n",
            "ui/late.ts": "class Late {\n  show(): void {}\n}\nexport { Late as default };\n",
            "ui/tile.ts": "import Anything from './late';\nexport class Tile extends Anything {}\n",
            "lib/model.js": "class Model {\n  save() { return 1; }\n}\nmodule.exports = Model;\n",
            "lib/inline.js": "module.exports = class Inline {\n  load() { return 1; }\n};\n",
            "lib/user.js": (
                "const Base = require('./model');\nconst In = require('./inline');\n\n"
                "class User extends Base {}\nclass Page extends In {}\nmodule.exports = { User, Page };\n"
            ),
        },
    )


async def test_a_default_exported_class_lists_subclasses_under_any_local_name(default_repo: Path) -> None:
    out = await ask(default_repo, "pallium_callers", name="ui.widget.Widget", kind="inherits")
    assert {(r.path, r.line, r.target) for r in out.references} == {
        ("ui/panel.ts", 3, "ui/widget.ts"),
        ("ui/panel.ts", 4, "ui/widget.ts"),
        ("ui/named.ts", 2, "ui/widget.ts"),  # `import { default as Root }`
        ("ui/same.ts", 2, "ui/widget.ts"),  # the local name is the exported name: listed once
        ("ui/menu.ts", 2, "ui/widget.ts"),  # `export { default as Widget } from`: its name again, not other.ts's
    }
    assert all(r.target_qualified == "Widget" for r in out.references)
    other = await ask(default_repo, "pallium_callers", name="ui.other.Widget", kind="inherits")
    assert other.references == []  # neither panel.ts's own Widget nor other.ts's is the base
    base = await ask(default_repo, "pallium_callers", name="Base", kind="inherits")
    assert [r.target for r in base.references if r.target] == []  # `Base` is a local name, not other.ts's class


async def test_a_use_of_a_default_import_is_a_reference_of_every_kind(default_repo: Path) -> None:
    out = await ask(default_repo, "pallium_callers", name="ui.widget.Widget")
    found = {(r.path, r.line, r.kind) for r in out.references}
    assert ("ui/panel.ts", 5, "call") in found  # `new Base()`
    assert ("ui/panel.ts", 6, "other") in found  # `Base.create()`
    assert out.kinds.get("inherits") == 5
    assert out.total == len(out.references)


async def test_a_member_read_off_a_default_import_is_the_default_class_member(default_repo: Path) -> None:
    out = await ask(default_repo, "pallium_callers", name="Widget.create")
    assert [(r.path, r.line, r.target) for r in out.references] == [("ui/panel.ts", 6, "ui/widget.ts")]


async def test_members_are_inherited_through_a_default_import(default_repo: Path) -> None:
    out = await ask(default_repo, "pallium_callers", name="Panel.render")
    assert [(d.path, d.qualified) for d in out.definitions] == [("ui/widget.ts", "Widget.render")]
    assert out.inherited == "Panel -> Widget"
    assert (await ask(default_repo, "pallium_callers", name="Menu.render")).inherited == "Menu -> Widget"
    own = await ask(default_repo, "pallium_callers", name="ui.panel.Widget.render")
    assert [d.path for d in own.definitions] == ["ui/widget.ts"]  # not itself, not other.ts
    tile = await ask(default_repo, "pallium_callers", name="Tile.show")
    assert tile.inherited == "Tile -> Late"  # `export { Late as default }`


async def test_an_interface_exported_as_default_is_implemented(default_repo: Path) -> None:
    out = await ask(default_repo, "pallium_callers", name="Shape", kind="inherits")
    assert [(r.path, r.target) for r in out.references] == [("ui/square.ts", "ui/shape.ts")]


async def test_commonjs_module_exports_is_the_default_a_require_binds(default_repo: Path) -> None:
    model = await ask(default_repo, "pallium_callers", name="Model", kind="inherits")
    assert [(r.path, r.line, r.target) for r in model.references] == [("lib/user.js", 4, "lib/model.js")]
    assert (await ask(default_repo, "pallium_callers", name="User.save")).inherited == "User -> Model"
    inline = await ask(default_repo, "pallium_callers", name="Inline", kind="inherits")
    assert [(r.path, r.target) for r in inline.references] == [("lib/user.js", "lib/inline.js")]
    assert (await ask(default_repo, "pallium_callers", name="Page.load")).inherited == "Page -> Inline"


@pytest.fixture
def reexport_repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path,
        {
            "pkg/__init__.py": "from .core.impl import Engine as Motor\n",
            "pkg/core/__init__.py": "",
            "pkg/core/impl.py": "class Engine:\n    def start(self):\n        return 1\n",
            "pkg/other.py": "class Engine:\n    def start(self):\n        return 2\n",
            "pkg/api.py": "from . import Motor as Drive\n",
            "app/car.py": "from pkg import Motor\n\n\nclass Engine:\n    pass\n\n\nclass Car(Motor):\n    pass\n",
            "app/bus.py": "import pkg\n\n\nclass Bus(pkg.Motor):\n    pass\n",
            "app/van.py": "from pkg.api import Drive\n\n\nclass Van(Drive):\n    pass\n",
            "app/__init__.py": "",
            "web/shapes/circle.ts": "export class Circle {\n  area(): number { return 3; }\n}\n",
            "web/shapes/index.ts": (
                "export { Circle as Round } from './circle';\n"
                "import { Circle as C } from './circle';\nexport { C as Disc };\n"
            ),
            "web/index.ts": "export * from './shapes/index';\n",
            "web/ring.ts": "import { Round } from './shapes/index';\nexport class Ring extends Round {}\n",
            "web/coin.ts": "import { Disc as D } from './index';\nexport class Coin extends D {}\n",
            # a cycle of re-exports that names nothing defined
            "loop/a.ts": "export { Ghost as Spirit } from './b';\n",
            "loop/b.ts": "export { Spirit as Ghost } from './a';\n",
            "loop/use.ts": "import { Spirit } from './a';\nexport class Haunt extends Spirit {}\n",
            # a cycle of `export *` that one of its files adds a real name to
            "loop/c.ts": "export * from './d';\n",
            "loop/d.ts": "export * from './c';\nexport { Circle as Loopy } from '../web/shapes/circle';\n",
            "loop/hoop.ts": "import { Loopy } from './c';\nexport class Hoop extends Loopy {}\n",
        },
    )


async def test_a_python_class_re_exported_under_another_name_lists_subclasses(reexport_repo: Path) -> None:
    out = await ask(reexport_repo, "pallium_callers", name="pkg.core.impl.Engine", kind="inherits")
    assert {(r.path, r.line, r.target, r.resolution) for r in out.references} == {
        ("app/car.py", 8, "pkg/core/impl.py", "import"),
        ("app/bus.py", 4, "pkg/core/impl.py", "import"),  # `pkg.Motor`
        ("app/van.py", 4, "pkg/core/impl.py", "import"),  # Engine -> Motor -> Drive, two files away
    }
    other = await ask(reexport_repo, "pallium_callers", name="pkg.other.Engine", kind="inherits")
    assert other.references == []
    local = await ask(reexport_repo, "pallium_callers", name="app.car.Engine", kind="inherits")
    assert local.references == []  # car.py's own Engine is not Car's base


@pytest.mark.parametrize(("name", "chain"), [("Car.start", "Car -> Engine"), ("Van.start", "Van -> Engine")])
async def test_members_are_inherited_through_a_python_re_export(reexport_repo: Path, name: str, chain: str) -> None:
    out = await ask(reexport_repo, "pallium_callers", name=name)
    assert [d.path for d in out.definitions] == ["pkg/core/impl.py"]
    assert out.inherited == chain


async def test_a_typescript_re_export_under_another_name_lists_subclasses(reexport_repo: Path) -> None:
    out = await ask(reexport_repo, "pallium_callers", name="Circle", kind="inherits")
    assert {(r.path, r.line, r.target) for r in out.references} == {
        ("web/ring.ts", 2, "web/shapes/circle.ts"),  # `export { Circle as Round } from`
        ("web/coin.ts", 2, "web/shapes/circle.ts"),  # `export { C as Disc }`, then `export *`, then an alias
        ("loop/hoop.ts", 2, "web/shapes/circle.ts"),  # through a cycle of `export *`
    }
    assert (await ask(reexport_repo, "pallium_callers", name="Ring.area")).inherited == "Ring -> Circle"
    assert (await ask(reexport_repo, "pallium_callers", name="Coin.area")).inherited == "Coin -> Circle"


async def test_a_cycle_of_re_exports_ends(reexport_repo: Path) -> None:
    out = await ask(reexport_repo, "pallium_callers", name="Haunt", kind="inherits")
    assert out.references == []
    spirit = await ask(reexport_repo, "pallium_callers", name="Spirit", kind="inherits")
    assert [(r.path, r.target) for r in spirit.references] == [("loop/use.ts", None)]
    with pytest.raises(PalliumError) as raised:
        await ask(reexport_repo, "pallium_callers", name="Haunt.area")
    assert raised.value.code == "not_found"
    assert (await ask(reexport_repo, "pallium_callers", name="Hoop.area")).inherited == "Hoop -> Circle"


@pytest.fixture
def chained_repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path,
        {
            "a/thing.ts": "export default function makeThing() { return 1; }\n",
            "a/use.ts": "import mk from './thing';\nmk();\n",
            "b/widget.ts": "export default class Widget {\n  render() { return 1; }\n}\n",
            "b/index.ts": "export { default } from './widget';\n",
            "b/x.ts": (
                "import type W from './index';\nimport V from './index';\nexport class X extends V {}\nlet w: W;\n"
            ),
            "c/w.ts": "export class Gadget {\n  spin() { return 1; }\n}\n",
            "c/def.ts": "import { Gadget } from './w';\nexport default Gadget;\n",
            "c/use.tsx": "import G from './def';\nexport class Big extends G {}\n",
            "d/model.js": "class Model {\n  save() {}\n}\nmodule.exports = Model;\n",
            "d/again.js": "module.exports = require('./model');\n",
            "d/user.jsx": "const M = require('./again');\nclass User extends M {}\n",
            "e/widget.ts": "export default class Widget {\n  paint() {}\n}\n",
            "e/cjs.js": "const W = require('./widget');\nclass Tab extends W {}\n",
            "f/shapes/round.ts": "export class Round {\n  roll() {}\n}\n",
            "f/shapes/index.ts": "export { Round as Ball } from './round';\n",
            "f/game.ts": "import * as shapes from './shapes/index';\nexport class Goal extends shapes.Ball {}\n",
            "pkg/__init__.py": "from .core import Engine as Motor\n",
            "pkg/core.py": "class Engine:\n    def start(self):\n        pass\n",
            "app.py": "from pkg import Motor as M\n\n\nclass Truck(M):\n    pass\n\n\nm = M()\n",
        },
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("makeThing", {("a/use.ts", 2, "call", "a/thing.ts")}),  # a default-exported function, called
        ("b.widget.Widget", {("b/x.ts", 3, "inherits", "b/widget.ts"), ("b/x.ts", 4, "type", "b/widget.ts")}),
        ("e.widget.Widget", {("e/cjs.js", 2, "inherits", "e/widget.ts")}),  # an ES default through `require`
        # `export default Gadget` of an imported class (itself a use of Gadget)
        ("Gadget", {("c/def.ts", 2, "other", "c/w.ts"), ("c/use.tsx", 2, "inherits", "c/w.ts")}),
        # `module.exports = require('./model')`, after `module.exports = Model`
        ("Model", {("d/model.js", 4, "other", "d/model.js"), ("d/user.jsx", 2, "inherits", "d/model.js")}),
        ("Round", {("f/game.ts", 2, "inherits", "f/shapes/round.ts")}),  # `shapes.Ball` off a namespace import
        ("Engine", {("app.py", 4, "inherits", "pkg/core.py"), ("app.py", 8, "call", "pkg/core.py")}),
    ],
)
async def test_every_way_of_handing_a_definition_on_is_followed(
    chained_repo: Path, name: str, expected: set[tuple[str, int, str, str]]
) -> None:
    out = await ask(chained_repo, "pallium_callers", name=name)
    found = {(r.path, r.line, r.kind, r.target) for r in out.references if r.kind != "import"}
    assert found == expected


@pytest.mark.parametrize(
    ("name", "chain", "defined_in"),
    [
        ("X.render", "X -> Widget", "b/widget.ts"),
        ("Big.spin", "Big -> Gadget", "c/w.ts"),
        ("User.save", "User -> Model", "d/model.js"),
        ("Tab.paint", "Tab -> Widget", "e/widget.ts"),
        ("Goal.roll", "Goal -> Round", "f/shapes/round.ts"),
        ("Truck.start", "Truck -> Engine", "pkg/core.py"),
    ],
)
async def test_members_are_inherited_through_every_way_of_handing_a_class_on(
    chained_repo: Path, name: str, chain: str, defined_in: str
) -> None:
    out = await ask(chained_repo, "pallium_callers", name=name)
    assert out.inherited == chain
    assert [d.path for d in out.definitions] == [defined_in]
