"""`callers Motor` where Motor is only another name for Engine: the answer says so and is Engine's.

A name that files bind to a definition (`from .core import Engine as Motor` re-exported,
`Base = Widget`, `export { Circle as Round } from`, `exports.Record = Model`) and nothing defines
used to list its uses as unresolved; an agent then reads them as uses of nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from pallium_mcp.cli import main
from services.repo.callers import CALLERS_BUDGET
from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio


@pytest.fixture
def alias_repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path,
        {
            "pkg/__init__.py": "from .core.impl import Engine as Motor\n",
            "pkg/core/__init__.py": "",
            "pkg/core/impl.py": "class Engine:\n    def start(self):\n        return 1\n",
            "pkg/other.py": "class Engine:\n    def start(self):\n        return 2\n",
            "app/__init__.py": "",
            "app/car.py": "from pkg import Motor\n\n\nclass Car(Motor):\n    pass\n",
            "app/garage.py": "from pkg import Motor\n\nm = Motor()\nm.start()\n",
            "app/direct.py": "from pkg.core.impl import Engine\n\nEngine()\n",
            "lib/__init__.py": "",
            "lib/widget.py": "class Widget:\n    def render(self):\n        return 1\n",
            "lib/names.py": "from .widget import Widget\n\nBase = Widget\n",
            "lib/use.py": "from .names import Base\n\n\nclass Panel(Base):\n    pass\n\n\nBase()\n",
            "lib/gadget.py": "class Gadget:\n    pass\n",
            "lib/twice.py": (
                "from .widget import Widget\nfrom .gadget import Gadget\n\nEither = Widget\nEither = Gadget\n"
            ),
            "lib/one.py": "from .widget import Widget\n\nSplit = Widget\n",
            "lib/two.py": "from .gadget import Gadget\n\nSplit = Gadget\n",
            "lib/either.py": "from .twice import Either\nfrom .one import Split\n\nEither()\nSplit()\n",
            "web/circle.ts": "export class Circle {\n  area(): number { return 3; }\n}\n",
            "web/index.ts": "export { Circle as Round } from './circle';\n",
            "web/ring.ts": "import { Round } from './index';\nexport class Ring extends Round {}\n",
            "web/shape.ts": "import { Circle } from './circle';\nexport const Shape = Circle;\n",
            "web/disc.ts": "import { Shape } from './shape';\nconst made = new Shape();\n",
            "js/model.js": "class Model {\n  save() { return 1; }\n}\nexports.Record = Model;\n",
            "js/user.js": "const { Record } = require('./model');\nclass User extends Record {}\n",
            # bound to a class outside the repository, beside a same-named class elsewhere
            "ext/models.py": (
                "from sqlalchemy.orm import DeclarativeBase\n\nOrm = DeclarativeBase\n\n\nclass Row(Orm):\n    pass\n"
            ),
            "ext/other.py": "class Orm:\n    def save(self):\n        return 1\n",
            # a module imported under another name, holding a function of the module's name
            "tools/__init__.py": "",
            "tools/runner.py": "def runner():\n    return 1\n",
            "tools/main.py": "from tools import runner as run_mod\n\nrun_mod.runner()\n",
            "tools/fast.py": "from tools.runner import runner as go\n\ngo()\n",
        },
    )


@pytest.mark.parametrize(
    ("name", "original", "defined_in", "uses"),
    [
        ("Motor", "Engine", "pkg/core/impl.py", {("app/car.py", 4, "inherits"), ("app/garage.py", 3, "call")}),
        ("pkg.Motor", "Engine", "pkg/core/impl.py", {("app/car.py", 4, "inherits"), ("app/garage.py", 3, "call")}),
        ("Base", "Widget", "lib/widget.py", {("lib/use.py", 4, "inherits"), ("lib/use.py", 8, "call")}),
        ("Round", "Circle", "web/circle.ts", {("web/ring.ts", 2, "inherits")}),
        ("Shape", "Circle", "web/circle.ts", {("web/disc.ts", 2, "call")}),
        ("Record", "Model", "js/model.js", {("js/user.js", 2, "inherits")}),
    ],
)
async def test_callers_of_another_name_answers_for_the_definition_it_names(
    alias_repo: Path, name: str, original: str, defined_in: str, uses: set[tuple[str, int, str]]
) -> None:
    out = await ask(alias_repo, "pallium_callers", name=name)
    assert out.name == name
    assert out.alias_of is not None
    assert (out.alias_of.qualified, out.alias_of.path) == (original, defined_in)
    assert [(d.qualified, d.path) for d in out.definitions] == [(original, defined_in)]
    found = {(r.path, r.line, r.kind) for r in out.references}
    assert uses <= found
    assert all(r.target == defined_in and r.resolution not in ("ambiguous", "unresolved") for r in out.references)


async def test_the_original_s_own_uses_are_listed_and_a_same_named_class_is_not(alias_repo: Path) -> None:
    out = await ask(alias_repo, "pallium_callers", name="Motor")
    assert ("app/direct.py", 3, "call") in {(r.path, r.line, r.kind) for r in out.references}
    assert "pkg/other.py" not in {r.target for r in out.references}
    inherits = await ask(alias_repo, "pallium_callers", name="Motor", kind="inherits")
    assert [(r.path, r.line) for r in inherits.references] == [("app/car.py", 4)]


async def test_a_member_of_another_name_is_the_original_s_member(alias_repo: Path) -> None:
    out = await ask(alias_repo, "pallium_callers", name="Motor.start")
    assert out.alias_of is not None and out.alias_of.qualified == "Engine"
    assert [(d.qualified, d.path) for d in out.definitions] == [("Engine.start", "pkg/core/impl.py")]
    assert ("app/garage.py", 4) in {(r.path, r.line) for r in out.references}  # `m = Motor(); m.start()`


@pytest.mark.parametrize("name", ["Either", "Split"])
async def test_a_name_bound_to_two_things_is_not_called_another_name_for_either(alias_repo: Path, name: str) -> None:
    out = await ask(alias_repo, "pallium_callers", name=name)
    assert out.alias_of is None
    assert all(r.target not in ("lib/widget.py", "lib/gadget.py") for r in out.references)


def test_the_text_answer_says_which_definition_the_name_stands_for(
    alias_repo: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(alias_repo)
    assert main(["callers", "Motor"]) == 0
    out = capsys.readouterr().out
    assert "Motor is another name for Engine (class in pkg/core/impl.py:1)" in out
    assert "app/car.py:4 in Car  inherits [import] -> Engine" in out
    assert "every `Engine` in the index" in out
    assert main(["callers", "Motor", "--json"]) == 0
    assert '"alias_of":' in capsys.readouterr().out


async def test_an_alias_used_everywhere_keeps_within_the_budget(tmp_path: Path) -> None:
    files = {
        "pkg/__init__.py": "from .core import Engine as Motor\n",
        "pkg/core.py": "class Engine:\n    '''" + "An engine. " * 15 + "'''\n",
    }
    for i in range(150):
        files[f"users/with_a_rather_long_folder_name/module_number_{i}.py"] = (
            "from pkg import Motor\n\n\ndef use_the_motor_here():\n" + "    Motor()\n" * 3
        )
    repo = new_repo(tmp_path, files)
    out = await ask(repo, "pallium_callers", name="Motor", limit=1000)
    assert out.alias_of is not None and out.total >= 450
    assert len(out.model_dump_json().encode()) <= CALLERS_BUDGET
    assert out.truncated and out.next_cursor
    after = await ask(repo, "pallium_callers", name="Motor", limit=1000, cursor=out.next_cursor)
    assert after.alias_of is not None
    first = {(r.path, r.line) for r in out.references}
    assert after.references and not first & {(r.path, r.line) for r in after.references}


async def test_a_name_bound_to_something_outside_the_repository_is_its_own_binding(alias_repo: Path) -> None:
    out = await ask(alias_repo, "pallium_callers", name="ext.models.Orm")
    assert out.alias_of is None
    assert [(r.path, r.line, r.resolution, r.target) for r in out.references if r.kind == "inherits"] == [
        ("ext/models.py", 6, "same-file", "ext/models.py")
    ]
    other = await ask(alias_repo, "pallium_callers", name="ext.other.Orm", kind="inherits")
    assert other.references == []
    with pytest.raises(PalliumError) as raised:
        await ask(alias_repo, "pallium_callers", name="Row.save")
    assert raised.value.code == "not_found"


async def test_a_module_imported_under_another_name_is_no_alias_of_a_function_in_it(alias_repo: Path) -> None:
    out = await ask(alias_repo, "pallium_callers", name="run_mod")
    assert out.alias_of is None
    function = await ask(alias_repo, "pallium_callers", name="go")  # the function, named by its module's name
    assert function.alias_of is not None and (function.alias_of.path, function.alias_of.qualified) == (
        "tools/runner.py",
        "runner",
    )
