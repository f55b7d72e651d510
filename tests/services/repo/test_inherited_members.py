"""A qualified name reaches a member its class inherits: `Web.route` is `Scaffold.route` through App."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def chain_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "web/__init__.py": "",
            "web/scaffold.py": (
                "class Scaffold:\n    def route(self, rule):\n        return rule\n\n"
                "    def close(self):\n        return 0\n"
            ),
            "web/base.py": (
                "from web.scaffold import Scaffold\n\n\nclass App(Scaffold):\n    def close(self):\n        return 1\n"
            ),
            "web/app.py": (
                "from web.base import App\n\n\nclass Web(App):\n    def start(self):\n        return self.route('/s')\n"
            ),
            "other/router.py": "class Router:\n    def route(self, rule):\n        return None\n",
            "main.py": (
                "from web.app import Web\nfrom other.router import Router\n\n"
                "app = Web()\napp.route('/')\nr = Router()\nr.route('/x')\n"
            ),
            "ui/widget.ts": (
                "export class Widget { draw(): number { return 1; } }\n"
                "export class Button extends Widget {}\n"
                "export function paint(b: Button) { return b.draw(); }\n"
            ),
        },
    )
    return repo


async def test_a_member_found_up_the_class_chain_names_the_chain(chain_repo: Path) -> None:
    out = await ask(chain_repo, "pallium_callers", name="web.app.Web.route")
    assert [(d.path, d.qualified) for d in out.definitions] == [("web/scaffold.py", "Scaffold.route")]
    assert out.inherited == "Web -> App -> Scaffold"
    # `app = Web(); app.route('/')` and `self.route` inside the subclass reach Scaffold.route through
    # the receiver's bases; `Router().route` is another class's member and is not listed.
    assert {(r.path, r.line, r.resolution, r.target_qualified) for r in out.references} == {
        ("main.py", 5, "receiver", "Scaffold.route"),
        ("web/app.py", 6, "receiver", "Scaffold.route"),
    }


async def test_an_unqualified_name_resolves_each_call_through_its_receivers_bases(chain_repo: Path) -> None:
    out = await ask(chain_repo, "pallium_callers", name="route", kind="call")
    assert {(r.path, r.line, r.target_qualified) for r in out.references} == {
        ("main.py", 5, "Scaffold.route"),
        ("main.py", 7, "Router.route"),
        ("web/app.py", 6, "Scaffold.route"),
    }


async def test_the_nearest_class_that_defines_the_member_wins(chain_repo: Path) -> None:
    out = await ask(chain_repo, "pallium_callers", name="Web.close")
    assert [(d.path, d.qualified) for d in out.definitions] == [("web/base.py", "App.close")]
    assert out.inherited == "Web -> App"
    own = await ask(chain_repo, "pallium_callers", name="Scaffold.route")
    assert own.inherited is None and [d.qualified for d in own.definitions] == ["Scaffold.route"]


async def test_inheritance_works_in_typescript_too(chain_repo: Path) -> None:
    out = await ask(chain_repo, "pallium_callers", name="Button.draw")
    assert [(d.path, d.qualified) for d in out.definitions] == [("ui/widget.ts", "Widget.draw")]
    assert out.inherited == "Button -> Widget"


async def test_a_member_no_ancestor_defines_is_still_not_found(chain_repo: Path) -> None:
    with pytest.raises(PalliumError) as caught:
        await ask(chain_repo, "pallium_callers", name="Web.missing_member")
    assert caught.value.code == "not_found"
    with pytest.raises(PalliumError) as other:
        await ask(chain_repo, "pallium_callers", name="Router.close")  # Router has no bases
    assert other.value.code == "not_found"


async def test_a_cycle_of_bases_ends(chain_repo: Path) -> None:
    commit(
        chain_repo, "Cycle", {"cyc.py": "class P(Q):\n    pass\n\n\nclass Q(P):\n    def run(self):\n        pass\n"}
    )
    out = await ask(chain_repo, "pallium_callers", name="P.run")
    assert out.inherited == "P -> Q"
    with pytest.raises(PalliumError):
        await ask(chain_repo, "pallium_callers", name="P.nothing")
