"""Modules someone would name: a large flat folder split by its imports, private folders merged, boundaries kept."""

import json
from pathlib import Path

import pytest

from services.knowledge.cohesion import communities
from tests.services.knowledge.conftest import ask, commit

pytestmark = pytest.mark.anyio

GROUPS = {"parser": "parse", "renderer": "render", "storage": "store"}


def _flat_package(repo: Path, *, extra: dict[str, str] | None = None) -> None:
    """`src/pkg/`: 28 files in one folder. `base` and `util` are imported by every file; three families
    (`parse_*` around `parser`, `render_*` around `renderer`, `store_*` around `storage`) import
    their own centre and their neighbour; one render file also reaches into the parser."""
    files = {
        "src/pkg/__init__.py": "",
        "src/pkg/base.py": "class Base:\n    pass\n",
        "src/pkg/util.py": "def helper():\n    return 1\n",
    }
    for centre, prefix in GROUPS.items():
        files[f"src/pkg/{centre}.py"] = (
            "from src.pkg.base import Base\nfrom src.pkg.util import helper\n\n"
            f"class {centre.title()}(Base):\n    pass\n"
        )
        count = 6 if centre == "storage" else 8
        for i in range(count):
            before = f"from src.pkg.{prefix}_{i - 1} import step_{i - 1}\n" if i else ""
            files[f"src/pkg/{prefix}_{i}.py"] = (
                "from src.pkg.base import Base\nfrom src.pkg.util import helper\n"
                f"from src.pkg.{centre} import {centre.title()}\n"
                f"{before}\ndef step_{i}():\n    return {centre.title()}, Base, helper\n"
            )
    files["src/pkg/render_0.py"] = files["src/pkg/render_0.py"].replace(
        "from src.pkg.base", "from src.pkg.parser import Parser\nfrom src.pkg.base", 1
    )
    files["tests/test_parse.py"] = "from src.pkg.parse_3 import step_3\n\ndef test_step():\n    assert step_3()\n"
    commit(repo, "Start the package", {**files, **(extra or {})})


async def test_a_large_flat_folder_splits_into_the_groups_its_imports_draw(empty_repo: Path):
    _flat_package(empty_repo)
    out = await ask(empty_repo, "pallium_knowledge_map", full=True)
    by_slug = {m["slug"]: m for m in out.full}
    assert {"src%2Fpkg", "src%2Fpkg@parser", "src%2Fpkg@renderer", "src%2Fpkg@storage"} <= set(by_slug)
    core = ["src/pkg/__init__.py", "src/pkg/base.py", "src/pkg/util.py"]  # what every file imports
    assert by_slug["src%2Fpkg"]["files"] == core
    for centre, prefix in GROUPS.items():
        group = by_slug[f"src%2Fpkg@{centre}"]
        members = range(6 if centre == "storage" else 8)
        assert set(group["files"]) == {f"src/pkg/{centre}.py"} | {f"src/pkg/{prefix}_{i}.py" for i in members}
        assert (group["folder"], group["group"], group["path"]) == ("src/pkg", centre, f"src/pkg@{centre}")
    # Each parse file and the parser import base and util: 2 x 9 links to the core.
    assert {"module": "src%2Fpkg", "path": "src/pkg", "imports": 18} in by_slug["src%2Fpkg@parser"]["depends_on"]
    assert {"module": "src%2Fpkg@parser", "path": "src/pkg@parser", "imports": 1} in by_slug["src%2Fpkg@renderer"][
        "depends_on"
    ]
    assert "tests/test_parse.py" in by_slug["src%2Fpkg@parser"]["tests"]
    again = await ask(empty_repo, "pallium_knowledge_map", full=True)
    assert [(m["slug"], m["files"]) for m in again.full] == [(m["slug"], m["files"]) for m in out.full]


async def test_a_group_is_a_document_that_get_finds_by_slug_or_by_its_path(empty_repo: Path):
    _flat_package(empty_repo)
    await ask(empty_repo, "pallium_knowledge_build", model=False)
    by_slug = await ask(empty_repo, "pallium_knowledge_get", slug="src%2Fpkg@renderer")
    by_path = await ask(empty_repo, "pallium_knowledge_get", slug="src/pkg@renderer")
    assert by_slug.slug == by_path.slug == "src%2Fpkg@renderer" and by_slug.title == "src/pkg@renderer"
    assert "src/pkg/render_3.py" in by_slug.sections["Files"]
    assert (empty_repo / ".pallium/knowledge/src%2Fpkg@renderer.md").is_file()


async def test_a_boundary_folder_is_never_split(empty_repo: Path):
    _flat_package(empty_repo, extra={".pallium/modules.json": json.dumps({"boundaries": ["src/pkg"]})})
    out = await ask(empty_repo, "pallium_knowledge_map", full=True)
    pkg = [m for m in out.full if m["folder"] == "src/pkg"]
    assert len(pkg) == 1 and pkg[0]["slug"] == "src%2Fpkg" and len(pkg[0]["files"]) == 28


async def test_a_folder_only_its_parent_uses_joins_it_and_one_used_elsewhere_stays(empty_repo: Path):
    commit(
        empty_repo,
        "Start",
        {
            "lib/__init__.py": "",
            "lib/errors.py": "class Error(Exception):\n    pass\n",
            "lib/api.py": "from lib._impl.core import run\nfrom lib.errors import Error\n\n"
            "def call():\n    return run(), Error\n",
            "lib/_impl/core.py": "from lib.errors import Error\nfrom lib._impl.helpers import h\n\n"
            "def run():\n    return Error, h\n",
            "lib/_impl/helpers.py": "from lib.errors import Error\n\ndef h():\n    return Error\n",
            "lib/plugins/a.py": "from lib.errors import Error\n\ndef a():\n    return Error\n",
            "lib/plugins/b.py": "from lib.errors import Error\nfrom lib.api import call\n\ndef b():\n"
            "    return Error, call\n",
            "lib/plugins/c.py": "from lib.errors import Error\n\ndef c():\n    return Error\n",
            "app/main.py": "from lib.plugins.a import a\nfrom lib.plugins.b import b\n\ndef main():\n"
            "    return a(), b()\n",
            "app/cli.py": "from lib.api import call\n\ndef cli():\n    return call()\n",
        },
    )
    out = await ask(empty_repo, "pallium_knowledge_map", full=True)
    by_slug = {m["slug"]: m for m in out.full}
    assert "lib/_impl/core.py" in by_slug["lib"]["files"] and "lib%2F_impl" not in by_slug  # private: merged
    # The plugins import the parent's errors, but app/ uses them: a unit of its own.
    assert by_slug["lib%2Fplugins"]["files"] == ["lib/plugins/a.py", "lib/plugins/b.py", "lib/plugins/c.py"]


def test_communities_are_the_same_whatever_order_the_links_come_in():
    ring = [("a", "b"), ("b", "c"), ("a", "c"), ("d", "e"), ("e", "f"), ("d", "f"), ("c", "d")]
    nodes = sorted({n for pair in ring for n in pair})
    one = communities(nodes, {pair: 1 for pair in ring})
    other = communities(nodes, {pair: 1 for pair in reversed(ring)})
    assert one == other == {"a": "a", "b": "a", "c": "a", "d": "d", "e": "d", "f": "d"}


def test_a_group_is_named_after_the_member_the_rest_of_the_repository_imports():
    """`link.py` ties the group together; `http.py` is what ten files elsewhere import: the group is `http`."""
    from services.knowledge.cohesion import split_folder

    families = {"http": ["link", "tcp", "udp", "dns"], "parse": ["lexer", "tokens", "grammar", "nodes"]}
    files, edges = [], []
    for members in families.values():
        files += [f"pkg/{m}.py" for m in members]
        for m in members[1:]:
            edges += [(f"pkg/{m}.py", f"pkg/{members[0]}.py")] * 2  # every member leans on the first
    files += ["pkg/http.py"]
    edges += [("pkg/http.py", "pkg/link.py"), ("pkg/tcp.py", "pkg/http.py")]
    edges += [(f"app/view_{i}.py", "pkg/http.py") for i in range(10)]
    groups = split_folder(sorted(files), edges)
    assert groups["pkg/http.py"] == groups["pkg/link.py"] == "http"
    assert groups["pkg/lexer.py"] == "lexer"
