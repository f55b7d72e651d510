"""Names bound by plain assignment to another name: `Base = Widget`, `export const Base = Widget`,
`exports.Base = Widget`.

A base class named through such a binding is the class it names, in the file and in the files
importing the binding; a constructor call is no binding, and a name bound to two things is neither.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

_PY = {
    "py/__init__.py": "",
    "py/widget.py": "class Widget:\n    def render(self):\n        return 1\n",
    "py/gadget.py": "class Gadget:\n    def render(self):\n        return 2\n",
    # the target defined in the file itself
    "py/same.py": (
        "class Gizmo:\n    def spin(self):\n        return 1\n\n\nBase = Gizmo\n\n\nclass Cog(Base):\n    pass\n"
    ),
    # an imported name bound again
    "py/rebind.py": "from .widget import Widget\n\nBase = Widget\n\n\nclass Panel(Base):\n    pass\n",
    # the binding imported by another file that defines a class of the target's name
    "py/user.py": (
        "from .rebind import Base\n\n\nclass Widget:\n    def render(self):\n        return 3\n\n\n"
        "class Sheet(Base):\n    pass\n"
    ),
    # dotted targets: through a module alias, and through a module imported by name
    "py/dotted.py": (
        "import py.widget as w\nfrom . import gadget\n\nBase = w.Widget\nOther = gadget.Gadget\n\n\n"
        "class Card(Base):\n    pass\n\n\nclass Knob(Other):\n    pass\n"
    ),
    # a chain in one file, and a chain across two files
    "py/chain.py": "from .rebind import Base\n\nFirst = Base\nSecond = First\n\n\nclass Tile(Second):\n    pass\n",
    # not bindings to a name: a constructor call, and a name bound twice to different classes
    "py/made.py": "from .widget import Widget\n\nBase = Widget()\n\n\nclass Odd(Base):\n    pass\n",
    "py/twice.py": (
        "from .widget import Widget\nfrom .gadget import Gadget\n\nBase = Widget\nBase = Gadget\n\n\n"
        "class Both(Base):\n    pass\n"
    ),
    "py/guarded.py": (
        "from .widget import Widget\nfrom .gadget import Gadget\n\nBase = Widget\n"
        "if Widget:\n    Base = Gadget\n\n\nclass Maybe(Base):\n    pass\n"
    ),
    "py/from_twice.py": "from .twice import Base\n\n\nclass Far(Base):\n    pass\n",
    # a binding inside a function is no module-level name
    "py/inner.py": (
        "from .widget import Widget\n\n\ndef make():\n    Base = Widget\n\n    class Local(Base):\n"
        "        pass\n\n    return Local\n"
    ),
}

_JS = {
    "ts/widget.ts": "export class Widget {\n  render(): number { return 1; }\n}\n",
    "ts/gadget.ts": "export class Gadget {\n  render(): number { return 2; }\n}\n",
    "ts/base.ts": "import { Widget } from './widget';\nexport const Base = Widget;\n",
    "ts/panel.ts": (
        "import { Base } from './base';\nexport class Widget {\n  render(): number { return 3; }\n}\n"
        "export class Panel extends Base {}\n"
    ),
    "ts/local.ts": "import { Widget } from './widget';\nconst Base = Widget;\nexport class Tab extends Base {}\n",
    "ts/mine.ts": "class Own {\n  show(): void {}\n}\nconst Alias = Own;\nexport class Mine extends Alias {}\n",
    "ts/ns.ts": "import * as shapes from './widget';\nexport const Base = shapes.Widget;\n",
    "ts/nsuse.ts": "import { Base } from './ns';\nexport class Frame extends Base {}\n",
    "ts/made.ts": "import { Widget } from './widget';\nconst Base = new Widget();\nexport class Odd extends Base {}\n",
    "ts/twice.ts": (
        "import { Widget } from './widget';\nimport { Gadget } from './gadget';\n"
        "let Base = Widget;\nBase = Gadget;\nexport class Both extends Base {}\n"
    ),
    "js/model.js": "class Model {\n  save() { return 1; }\n}\nexports.Base = Model;\n",
    "js/user.js": "const { Base } = require('./model');\nclass User extends Base {}\nmodule.exports = { User };\n",
    "js/more.js": "const m = require('./model');\nmodule.exports.Record = m.Base;\n",
    "js/admin.js": "const more = require('./more');\nclass Admin extends more.Record {}\n",
    "js/entity.js": "const { Model } = require('./plain');\nmodule.exports = { Entity: Model };\n",
    "js/plain.js": "class Model {\n  load() { return 1; }\n}\nmodule.exports = { Model };\n",
    "js/thing.js": "const { Entity } = require('./entity');\nclass Thing extends Entity {}\n",
    "js/twice.js": "class A {}\nclass B {}\nexports.Base = A;\nexports.Base = B;\n",
    "js/from_twice.js": "const { Base } = require('./twice');\nclass Far extends Base {}\n",
}


@pytest.fixture
def assigned_repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path, {**_PY, **_JS})


async def _inherits(repo: Path, name: str) -> set[tuple[str, int, str | None]]:
    out = await ask(repo, "pallium_callers", name=name, kind="inherits")
    return {(r.path, r.line, r.target) for r in out.references}


async def test_python_bases_named_by_assignment_are_their_targets_subclasses(assigned_repo: Path) -> None:
    assert await _inherits(assigned_repo, "py.widget.Widget") == {
        ("py/rebind.py", 6, "py/widget.py"),  # `Base = Widget` of an imported Widget
        ("py/user.py", 9, "py/widget.py"),  # `from .rebind import Base`, not user.py's own Widget
        ("py/dotted.py", 8, "py/widget.py"),  # `Base = w.Widget` after `import py.widget as w`
        ("py/chain.py", 7, "py/widget.py"),  # Second = First = Base (imported) = Widget
    }
    assert await _inherits(assigned_repo, "py.gadget.Gadget") == {("py/dotted.py", 12, "py/gadget.py")}
    assert await _inherits(assigned_repo, "Gizmo") == {("py/same.py", 9, "py/same.py")}
    assert await _inherits(assigned_repo, "py.user.Widget") == set()


@pytest.mark.parametrize(
    ("name", "chain", "defined_in"),
    [
        ("same.Cog.spin", "Cog -> Gizmo", "py/same.py"),
        ("rebind.Panel.render", "Panel -> Widget", "py/widget.py"),
        ("user.Sheet.render", "Sheet -> Widget", "py/widget.py"),
        ("dotted.Card.render", "Card -> Widget", "py/widget.py"),
        ("dotted.Knob.render", "Knob -> Gadget", "py/gadget.py"),
        ("chain.Tile.render", "Tile -> Widget", "py/widget.py"),
    ],
)
async def test_python_members_are_inherited_through_a_name_bound_by_assignment(
    assigned_repo: Path, name: str, chain: str, defined_in: str
) -> None:
    out = await ask(assigned_repo, "pallium_callers", name=f"py.{name}")
    assert out.inherited == chain
    assert [d.path for d in out.definitions] == [defined_in]


@pytest.mark.parametrize("name", ["made.Odd", "twice.Both", "guarded.Maybe", "from_twice.Far", "inner.make.Local"])
async def test_a_constructor_call_or_a_name_bound_twice_is_not_followed(assigned_repo: Path, name: str) -> None:
    python = {p for p, _line, _t in await _inherits(assigned_repo, "py.widget.Widget")}
    python |= {p for p, _line, _t in await _inherits(assigned_repo, "py.gadget.Gadget")}
    assert not python & {"py/made.py", "py/twice.py", "py/guarded.py", "py/from_twice.py", "py/inner.py"}
    with pytest.raises(PalliumError) as raised:
        await ask(assigned_repo, "pallium_callers", name=f"py.{name}.render")
    assert raised.value.code == "not_found"


async def test_a_constructor_call_still_types_its_variable(assigned_repo: Path) -> None:
    repo_file = "py/made.py"
    out = await ask(assigned_repo, "pallium_callers", name="py.widget.Widget")
    assert (repo_file, 3, "call", "py/widget.py") in {(r.path, r.line, r.kind, r.target) for r in out.references}


async def test_typescript_bases_named_by_a_const_are_their_targets_subclasses(assigned_repo: Path) -> None:
    assert await _inherits(assigned_repo, "ts.widget.Widget") == {
        ("ts/panel.ts", 5, "ts/widget.ts"),  # `export const Base = Widget`, not panel.ts's own Widget
        ("ts/local.ts", 3, "ts/widget.ts"),  # `const Base = Widget` in the file
        ("ts/nsuse.ts", 2, "ts/widget.ts"),  # `export const Base = shapes.Widget` after `import * as shapes`
    }
    assert await _inherits(assigned_repo, "ts.panel.Widget") == set()
    assert await _inherits(assigned_repo, "Own") == {("ts/mine.ts", 5, "ts/mine.ts")}
    assert await _inherits(assigned_repo, "ts.gadget.Gadget") == set()  # `let Base = Widget; Base = Gadget`: neither


@pytest.mark.parametrize(
    ("name", "chain", "defined_in"),
    [
        ("ts.panel.Panel.render", "Panel -> Widget", "ts/widget.ts"),
        ("ts.local.Tab.render", "Tab -> Widget", "ts/widget.ts"),
        ("ts.mine.Mine.show", "Mine -> Own", "ts/mine.ts"),
        ("ts.nsuse.Frame.render", "Frame -> Widget", "ts/widget.ts"),
        ("js.user.User.save", "User -> Model", "js/model.js"),
        ("js.admin.Admin.save", "Admin -> Model", "js/model.js"),
        ("js.thing.Thing.load", "Thing -> Model", "js/plain.js"),
    ],
)
async def test_javascript_members_are_inherited_through_a_name_bound_by_assignment(
    assigned_repo: Path, name: str, chain: str, defined_in: str
) -> None:
    out = await ask(assigned_repo, "pallium_callers", name=name)
    assert out.inherited == chain
    assert [d.path for d in out.definitions] == [defined_in]


async def test_commonjs_exports_assigned_a_class_list_its_subclasses(assigned_repo: Path) -> None:
    assert await _inherits(assigned_repo, "js.model.Model") == {
        ("js/user.js", 2, "js/model.js"),  # `exports.Base = Model`
        ("js/admin.js", 2, "js/model.js"),  # `module.exports.Record = m.Base`, then `more.Record`
    }
    assert await _inherits(assigned_repo, "js.plain.Model") == {("js/thing.js", 2, "js/plain.js")}
    for name in ("A", "B"):  # `exports.Base` assigned twice: neither
        assert await _inherits(assigned_repo, name) == set()


@pytest.mark.parametrize("name", ["ts.made.Odd.render", "ts.twice.Both.render", "js.from_twice.Far.render"])
async def test_javascript_constructor_calls_and_double_bindings_are_not_followed(
    assigned_repo: Path, name: str
) -> None:
    with pytest.raises(PalliumError) as raised:
        await ask(assigned_repo, "pallium_callers", name=name)
    assert raised.value.code == "not_found"


@pytest.fixture
def handed_repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path,
        {
            "pkg/__init__.py": "from .core import Engine\n\nMotor = Engine\n",
            "pkg/core.py": "class Engine:\n    def start(self):\n        return 1\n",
            "pkg/helpers.py": "def _real_run():\n    return 1\n\n\nrun = _real_run\n",
            "app/bus.py": "import pkg\n\n\nclass Bus(pkg.Motor):\n    pass\n",
            "app/go.py": "from pkg.helpers import run\n\nrun()\n",
            "app/names.py": "import pkg.core\nimport pkg\n\nEngineA = pkg.core.Engine\nEngineB = pkg.Motor\n",
            "app/cars.py": (
                "from app.names import EngineA, EngineB\n\n\nclass Van(EngineA):\n    pass\n\n\n"
                "class Cab(EngineB):\n    pass\n"
            ),
            "app/short.py": "import os\n\njoin = os.path.join\n\njoin('a', 'b')\n",
            "web/widget.ts": "export class Widget {\n  render(): number { return 1; }\n}\n",
            "web/base.ts": "import { Widget } from './widget';\nconst Base = Widget;\nexport default Base;\n",
            "web/renamed.ts": "import { Widget } from './widget';\nexport const Base = Widget;\n",
            "web/panel.ts": "import Root from './base';\nexport class Panel extends Root {}\n",
            "web/sheet.ts": "import { Base as B } from './renamed';\nexport class Sheet extends B {}\n",
        },
    )


@pytest.mark.parametrize(
    ("name", "chain", "defined_in"),
    [
        ("Bus.start", "Bus -> Engine", "pkg/core.py"),  # `pkg.Motor`, `Motor = Engine` in the package
        ("Van.start", "Van -> Engine", "pkg/core.py"),  # `EngineA = pkg.core.Engine` after `import pkg.core`
        ("Cab.start", "Cab -> Engine", "pkg/core.py"),  # `EngineB = pkg.Motor` after `import pkg`
        ("Panel.render", "Panel -> Widget", "web/widget.ts"),  # `export default Base` of `const Base = Widget`
        ("Sheet.render", "Sheet -> Widget", "web/widget.ts"),  # `import { Base as B }` of `export const Base`
    ],
)
async def test_a_binding_handed_on_by_any_way_of_importing_is_followed(
    handed_repo: Path, name: str, chain: str, defined_in: str
) -> None:
    out = await ask(handed_repo, "pallium_callers", name=name)
    assert out.inherited == chain
    assert [d.path for d in out.definitions] == [defined_in]


async def test_a_function_bound_to_another_name_lists_its_calls_under_that_name(handed_repo: Path) -> None:
    out = await ask(handed_repo, "pallium_callers", name="_real_run")
    assert ("app/go.py", 3, "call", "pkg/helpers.py") in {(r.path, r.line, r.kind, r.target) for r in out.references}
    alias = await ask(handed_repo, "pallium_callers", name="run")
    assert alias.alias_of is not None and alias.alias_of.qualified == "_real_run"
    assert [(r.path, r.line, r.resolution) for r in alias.references if r.kind == "call"] == [
        ("app/go.py", 3, "import")
    ]


async def test_a_name_bound_to_a_member_of_its_own_name_is_one_reference_per_use(handed_repo: Path) -> None:
    out = await ask(handed_repo, "pallium_callers", name="join")
    assert [(r.path, r.line, r.kind) for r in out.references] == [
        ("app/short.py", 3, "attribute"),  # `os.path.join`, read where it is bound
        ("app/short.py", 5, "call"),  # once, not once as `join` and again as `os.path.join`
    ]
