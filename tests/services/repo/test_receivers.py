"""Resolution by receiver: `x.member` means a member of what `x` can be, never a same-named function.

The cases are the ones that made `callers` answers wrong on real repositories: an expression as the
receiver (`event.reply.meta.values_for`), a dotted module from outside (`urllib.parse.urlsplit`),
`super()`, decorators with receivers (`@cli.command()`), annotated attributes and return types.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

_UTIL = """\
def values_for(key):
    return key


def parse(text):
    return text


def size():
    return 0


def command(fn):
    return fn
"""

_META = """\
from dataclasses import dataclass

from pkg.headers import Headers


class Meta:
    def values_for(self, key):
        return [key]


def make_meta() -> Meta:
    return Meta()


@dataclass
class Holder:
    meta: Meta
    label: str = ""

    def first(self):
        return self.meta.values_for("a")


class Other:
    def values_for(self, key):
        return None


def outside(h: Headers):
    return h.values_for("x")
"""

_USE = """\
import urllib.parse

import click

from pkg.meta import Meta, make_meta
from pkg.util import command, parse


class Base:
    def size(self):
        return 1


class Child(Base):
    def size(self):
        return super().size() + 1


class Event:
    def __init__(self, meta: Meta):
        self.meta = meta

    def handle(self, event):
        event.reply.meta.values_for("b")
        return self.meta.values_for("c")


def built():
    m = make_meta()
    return m.values_for("d")


def split(url):
    urllib.parse.urlsplit(url)
    return parse(url)


@click.command()
def first():
    pass


@cli.command()
def second():
    pass


@command
def third():
    pass
"""


@pytest.fixture
def receiver_repo(tmp_path: Path) -> Path:
    return new_repo(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/util.py": _UTIL,
            "pkg/meta.py": _META,
            "pkg/headers.py": "from requests.structures import CaseInsensitiveDict as Headers\n",
            "pkg/use.py": _USE,
            "web/store.ts": (
                "export class Store {\n  save(): number { return 1; }\n}\n"
                "export function save(): number { return 2; }\n"
            ),
            "web/repo.ts": (
                "import { Store } from './store';\n"
                "import * as path from 'path';\n"
                "export class Repo {\n"
                "  constructor(private store: Store) {}\n"
                "  run(x: any) {\n"
                "    this.store.save();\n"
                "    x.thing.save();\n"
                "    path.save();\n"
                "  }\n"
                "}\n"
            ),
        },
    )


def _at(out) -> dict[tuple[str, int], str]:
    return {(r.path, r.line): r.resolution for r in out.references}


async def test_an_expression_receiver_never_means_a_module_function(receiver_repo: Path):
    meta = await ask(receiver_repo, "pallium_callers", name="Meta.values_for")
    found = _at(meta)
    assert found[("pkg/use.py", 25)] == "receiver"  # self.meta, assigned from a parameter annotated Meta
    assert found[("pkg/meta.py", 21)] == "receiver"  # a dataclass field annotated Meta
    assert found[("pkg/use.py", 30)] == "receiver"  # m = make_meta(), which says it returns Meta
    assert found[("pkg/use.py", 24)] == "ambiguous"  # event.reply.meta: unknown, kept, ranked last
    assert meta.references[-1].resolution == "ambiguous"
    assert ("pkg/meta.py", 30) not in found  # Headers comes from outside the repository
    function = await ask(receiver_repo, "pallium_callers", name="util.values_for")
    assert function.references == [], "no attribute reference is the module function's"
    assert function.resolutions == {"resolved": 0, "ambiguous": 0, "unresolved": 0}


async def test_counts_and_kinds_describe_the_listed_references(receiver_repo: Path):
    out = await ask(receiver_repo, "pallium_callers", name="Meta.values_for")
    assert out.resolutions == {
        "resolved": sum(r.resolution not in ("ambiguous", "unresolved") for r in out.references),
        "ambiguous": sum(r.resolution == "ambiguous" for r in out.references),
        "unresolved": 0,
    }
    assert out.resolutions["resolved"] == 3 and out.resolutions["ambiguous"] == 1
    assert sum(out.kinds.values()) == out.total == len(out.references)
    bare = await ask(receiver_repo, "pallium_callers", name="values_for")
    assert sum(bare.resolutions.values()) == bare.total
    assert bare.resolutions["unresolved"] >= 1  # h.values_for on an outside class


async def test_a_dotted_module_from_outside_is_unresolved(receiver_repo: Path):
    out = await ask(receiver_repo, "pallium_callers", name="parse")
    found = _at(out)
    assert found[("pkg/use.py", 34)] == "unresolved"  # the attribute `parse` of urllib
    assert found[("pkg/use.py", 35)] == "import"  # parse(url), imported from pkg.util
    narrowed = await ask(receiver_repo, "pallium_callers", name="util.parse")
    assert ("pkg/use.py", 34) not in _at(narrowed)


async def test_super_walks_the_bases(receiver_repo: Path):
    base = await ask(receiver_repo, "pallium_callers", name="Base.size")
    assert _at(base)[("pkg/use.py", 16)] == "receiver"
    module = await ask(receiver_repo, "pallium_callers", name="util.size")
    assert ("pkg/use.py", 16) not in _at(module)


async def test_decorators_keep_their_receiver(receiver_repo: Path):
    out = await ask(receiver_repo, "pallium_callers", name="util.command", kind="decorator")
    assert {(r.path, r.line) for r in out.references} == {("pkg/use.py", 48)}  # @command, not @cli.command
    every = await ask(receiver_repo, "pallium_callers", name="command", kind="decorator")
    found = _at(every)
    assert found[("pkg/use.py", 38)] == "unresolved"  # @click.command()
    assert found[("pkg/use.py", 43)] == "unresolved"  # @cli.command(): cli is no class of the repository


async def test_typescript_receivers(receiver_repo: Path):
    member = await ask(receiver_repo, "pallium_callers", name="Store.save")
    found = _at(member)
    assert found[("web/repo.ts", 6)] == "receiver"  # this.store, a parameter property typed Store
    assert found[("web/repo.ts", 7)] == "ambiguous"  # x.thing: any
    assert ("web/repo.ts", 8) not in found  # a namespace from outside
    function = await ask(receiver_repo, "pallium_callers", name="store.save")
    assert not any(r.path == "web/repo.ts" for r in function.references)


async def test_what_breaks_if_a_widely_called_function_changes_fits_one_page(tmp_path: Path):
    files = {"core/__init__.py": "", "core/calc.py": "def compute(x):\n    return x\n"}
    for i in range(15):
        files[f"app/use{i}.py"] = f"from core.calc import compute\n\n\ndef go{i}():\n    return compute({i})\n"
    # the same name, read off other things: a stdlib module, objects of unknown or outside types
    for i in range(20):
        files[f"noise/n{i}.py"] = (
            "import statistics\n\n\nclass Thing:\n    def compute(self):\n        return 1\n\n\n"
            f"def run(obj):\n    statistics.compute({i})\n    return obj.result.compute()\n"
        )
    repo = new_repo(tmp_path, files)
    out = await ask(repo, "pallium_callers", name="calc.compute", kind="call")
    assert out.truncated is False and out.total == 15
    assert {r.path for r in out.references} == {f"app/use{i}.py" for i in range(15)}
    assert all(r.resolution == "import" for r in out.references)
    assert out.resolutions == {"resolved": 15, "ambiguous": 0, "unresolved": 0}


async def test_string_registrations_are_references(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "server.py": (
                "import optparse\n\nparser = optparse.OptionParser()\n"
                'parser.add_option("max_conns", type=int)\n\n\n@app.route("/health")\ndef health():\n'
                '    return "ok"\n\n\nregister("cleanup")\nconfig.get("max_conns")\n'
            ),
            "web/app.js": "const app = require('express')();\napp.get('/users', list);\nprogram.command('serve');\n",
        },
    )
    option = await ask(repo, "pallium_callers", name="max_conns", kind="registration")
    assert [(r.path, r.line) for r in option.references] == [("server.py", 4)]  # `config.get` reads, not registers
    for key, where in (("/health", ("server.py", 7)), ("cleanup", ("server.py", 12)), ("/users", ("web/app.js", 2))):
        out = await ask(repo, "pallium_callers", name=key)
        assert where in {(r.path, r.line) for r in out.references if r.kind == "registration"}, key


async def test_a_module_beside_its_stub_is_one_module_for_a_dotted_call(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/kit/__init__.py": "from . import converters\n",
            "src/kit/converters.py": "def optional(c):\n    return c\n",
            "src/kit/converters.pyi": "def optional(c: object) -> object: ...\n",
            "tests/test_kit.py": "import kit\n\n\ndef test_optional():\n    kit.converters.optional(int)\n",
        },
    )
    out = await ask(repo, "pallium_callers", name="kit.converters.optional")
    calls = [(r.path, r.line, r.resolution, r.target) for r in out.references if r.kind == "call"]
    assert calls == [("tests/test_kit.py", 5, "import", "src/kit/converters.py")]


_KY_TYPES = """\
export type Instance = {
  create: (defaults?: object) => Instance;
  get: (url: string) => Promise<Response>;
};
"""

_KY_INDEX = """\
import type {Instance} from './types.js';

const createInstance = (defaults?: object): Instance => {
  const ky: any = (url: string) => fetch(url);
  ky.create = (more?: object) => createInstance(more);
  return ky as Instance;
};

const ky = createInstance();

export default ky;
"""

_KY_USE = """\
import ky from './index.js';
import {Store} from './store.js';

export const client = ky.create({});
client.get('/a');
ky.get('/b');

const store = makeStore();
store.save();
const other = new Store();
other.save();
const loose = makeLoose();
loose.save();

function makeStore(): Store {
  return new Store();
}

function makeLoose() {
  return new Store();
}
"""

_STORE = """\
export class Store {
  save() {}
}

export class Cache {
  save() {}
}
"""


async def test_initializer_typed_receivers(tmp_path: Path):
    """A variable is what its initializer says: `new Store()`, a call of a function that declares its
    return type, and (across files) a default export bound at the top level to such a call."""
    repo = new_repo(
        tmp_path,
        {
            "src/types.ts": _KY_TYPES,
            "src/index.ts": _KY_INDEX,
            "src/use.ts": _KY_USE,
            "src/store.ts": _STORE,
            "py/app.py": "from py.web import Web\n\napp = Web()\nother = make()\n",
            "py/web.py": "class Web:\n    def route(self, path):\n        return path\n",
            "py/use.py": "from py.app import app\n\n\n@app.route('/x')\ndef x():\n    return app.route('/y')\n",
            "py/__init__.py": "",
        },
    )
    create = _at(await ask(repo, "pallium_callers", name="types.Instance.create", kind="call"))
    assert create == {("src/use.ts", 4): "receiver"}  # not the `ky.create` assigned inside createInstance
    get = _at(await ask(repo, "pallium_callers", name="types.Instance.get", kind="call"))
    assert get[("src/use.ts", 6)] == "receiver"  # ky.get, ky being createInstance()'s Instance
    assert get[("src/use.ts", 5)] == "ambiguous"  # client = ky.create(): a member's return type is not read
    save = _at(await ask(repo, "pallium_callers", name="store.Store.save", kind="call"))
    assert save[("src/use.ts", 9)] == "receiver"  # makeStore(): Store
    assert save[("src/use.ts", 11)] == "receiver"  # new Store()
    assert save[("src/use.ts", 13)] == "ambiguous"  # makeLoose() declares nothing: Store or Cache
    cache = _at(await ask(repo, "pallium_callers", name="store.Cache.save", kind="call"))
    assert ("src/use.ts", 9) not in cache and ("src/use.ts", 11) not in cache
    route = _at(await ask(repo, "pallium_callers", name="web.Web.route"))
    assert route == {("py/use.py", 4): "receiver", ("py/use.py", 6): "receiver"}  # app = Web() in py/app.py


async def test_super_of_a_class_whose_bases_are_all_outside_is_unresolved(tmp_path: Path):
    """`super().popitem()` in `class LRI(dict)` is dict's: never the repository's other `popitem`s,
    and not ambiguous among them either; a base the index cannot place keeps it ambiguous."""
    repo = new_repo(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/cache.py": (
                "from collections.abc import MutableSet\n\n\n"
                "class LRI(dict):\n    def popitem(self):\n        return super().popitem()\n\n\n"
                "class Base(MutableSet):\n    pass\n\n\n"
                "class Child(Base):\n    def pop(self):\n        return super().pop()\n\n\n"
                "class Odd(make_base()):\n    def pop(self):\n        return super().pop()\n"
            ),
            "pkg/other.py": (
                "class Bag:\n    def popitem(self):\n        return 1\n\n    def pop(self):\n        return 2\n"
            ),
        },
    )
    popitem = _at(await ask(repo, "pallium_callers", name="popitem", kind="call"))
    assert popitem == {("pkg/cache.py", 6): "unresolved"}
    pop = _at(await ask(repo, "pallium_callers", name="pop", kind="call"))
    assert pop[("pkg/cache.py", 15)] == "unresolved"  # Child -> Base -> MutableSet, from outside
    assert pop[("pkg/cache.py", 20)] == "ambiguous"  # a base made by a call: anything
    bag = _at(await ask(repo, "pallium_callers", name="Bag.pop", kind="call"))
    assert ("pkg/cache.py", 15) not in bag and ("pkg/cache.py", 20) in bag


async def test_a_factorys_own_member_assignment_answers_for_itself(tmp_path: Path):
    """`ky.create()` reaches both `Instance.create` and the `ky.create = ...` its factory assigns (one
    symbol to a type checker): each, asked for, lists it."""
    repo = new_repo(tmp_path, {"src/types.ts": _KY_TYPES, "src/index.ts": _KY_INDEX, "src/use.ts": _KY_USE})
    made = _at(await ask(repo, "pallium_callers", name="createInstance.create", kind="call"))
    assert made == {("src/use.ts", 4): "receiver"}
    declared = _at(await ask(repo, "pallium_callers", name="types.Instance.create", kind="call"))
    assert declared == {("src/use.ts", 4): "receiver"}


_NODE = """\
import { freeze } from './freeze.js'

export interface ColumnNode {
  readonly kind: 'ColumnNode'
}

type ColumnNodeFactory = Readonly<{
  create(name: string): ColumnNode
  cloneWith(node: ColumnNode, name: string): ColumnNode
}>

export const ColumnNode: ColumnNodeFactory = freeze<ColumnNodeFactory>({
  create(name) {
    return freeze({ kind: 'ColumnNode' as const, name })
  },
  cloneWith(node, name) {
    return ColumnNode.create(name)
  },
})
"""

_BUILDER = """\
import { ColumnNode } from './column-node.js'

export class Builder {
  build() {
    return ColumnNode.cloneWith(ColumnNode.create('a'), 'b')
  }
}

export function cloneWith() {
  return 0
}
"""


async def test_a_value_declared_with_a_type_has_the_types_members(tmp_path: Path):
    """`ColumnNode.cloneWith()` where `export const ColumnNode: ColumnNodeFactory = freeze({...})`:
    the factory type's member, which the literal's `cloneWith(node) {...}` implements; never
    another file's function of that name."""
    repo = new_repo(
        tmp_path,
        {
            "src/freeze.ts": "export function freeze<T>(x: T): T {\n  return x\n}\n",
            "src/column-node.ts": _NODE,
            "src/builder.ts": _BUILDER,
            "src/raw.ts": (
                "interface Sql {\n  lit<V>(value: V): V\n}\n\n"
                "export const sql: Sql = Object.assign(() => 0, {\n"
                "  lit<V>(value: V): V {\n    return value\n  },\n})\n"
            ),
            "src/use.ts": "import { sql } from './raw.js'\n\nsql.lit(1)\n",
        },
    )
    assert _at(await ask(repo, "pallium_callers", name="Sql.lit", kind="call")) == {("src/use.ts", 3): "receiver"}
    # a literal that types its own parameters is not the one `Sql` types (Object.assign infers its own)
    assert _at(await ask(repo, "pallium_callers", name="raw.lit", kind="call")) == {}
    declared = _at(await ask(repo, "pallium_callers", name="ColumnNodeFactory.cloneWith", kind="call"))
    assert declared == {("src/builder.ts", 5): "receiver"}
    written = _at(await ask(repo, "pallium_callers", name="column-node.cloneWith", kind="call"))
    assert written == {("src/builder.ts", 5): "receiver"}
    create = _at(await ask(repo, "pallium_callers", name="ColumnNodeFactory.create", kind="call"))
    assert create == {("src/builder.ts", 5): "receiver", ("src/column-node.ts", 17): "receiver"}
    other = _at(await ask(repo, "pallium_callers", name="builder.cloneWith", kind="call"))
    assert other == {}
