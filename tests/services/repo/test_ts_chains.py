"""TypeScript receivers a type checker reads cheaply: call chains through declared return types,
generic annotations, type parameters with a constraint, and variables bound to a member call.

Each case is a shape that left `x.member` `ambiguous` among every class's members of that name on
real repositories (query builders, fluent HTTP clients); a same-named member of another class is
in each fixture, so a wrong answer shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.services.repo.conftest import ask, new_repo

pytestmark = pytest.mark.anyio

_BUILDERS = """\
export interface Where<T> {
  where(column: string): this
}

export class SelectBuilder<DB, O> implements Where<O> {
  where(column: string): this {
    return this
  }
  limit(n: number): SelectBuilder<DB, O> {
    return this
  }
  execute(): Promise<O[]> {
    return Promise.resolve([])
  }
  get inner(): Other {
    return new Other()
  }
}

export class DeleteBuilder<DB> {
  where(column: string): DeleteBuilder<DB> {
    return this
  }
  limit(n: number): this {
    return this
  }
  execute(): Promise<number> {
    return Promise.resolve(0)
  }
}

export class Other {
  execute(): number {
    return 1
  }
}

export class Db<DB> {
  selectFrom(table: string): SelectBuilder<DB, unknown> {
    return new SelectBuilder()
  }
  deleteFrom(table: string): DeleteBuilder<DB> & Marker {
    return new DeleteBuilder()
  }
}

export interface Marker {
  mark(): void
}
"""

_USE = """\
import { Db, SelectBuilder } from './builders'

export function chained(db: Db<string>) {
  return db.selectFrom('t').where('a').limit(1).execute()
}

export function bound(db: Db<string>) {
  const q = db.deleteFrom('t')
  const r = q.where('b')
  return r.execute()
}

export function generic<B extends SelectBuilder<string, number>>(builder: B) {
  return builder.execute()
}

export function unconstrained<B>(builder: B) {
  return (builder as any).execute()
}

export function asserted(x: unknown) {
  return (x as SelectBuilder<string, string>).limit(2).execute()
}

export function fresh() {
  return new SelectBuilder<string, string>().where('c').execute()
}

export function intersected(db: Db<string>) {
  db.deleteFrom('t').mark()
  return db.deleteFrom('t').limit(3).execute()
}
"""


@pytest.fixture
def chain_repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path, {"src/builders.ts": _BUILDERS, "src/use.ts": _USE})


def _at(out) -> dict[tuple[str, int], str]:
    return {(r.path, r.line): r.resolution for r in out.references}


async def test_a_chain_follows_each_methods_declared_return(chain_repo: Path):
    select = _at(await ask(chain_repo, "pallium_callers", name="SelectBuilder.execute", kind="call"))
    # through `selectFrom(): SelectBuilder<...>`, `where(): this`, `limit(): SelectBuilder<...>`
    assert select[("src/use.ts", 4)] == "receiver"
    assert select[("src/use.ts", 14)] == "receiver"  # a type parameter: its constraint's members
    assert select[("src/use.ts", 22)] == "receiver"  # `(x as SelectBuilder<...>)`
    assert select[("src/use.ts", 26)] == "receiver"  # `new SelectBuilder<...>()`, then `where(): this`
    assert ("src/use.ts", 10) not in select and ("src/use.ts", 31) not in select  # DeleteBuilder's
    assert select.get(("src/use.ts", 18)) == "ambiguous"  # `as any`: unknown, kept and ranked after
    delete = _at(await ask(chain_repo, "pallium_callers", name="DeleteBuilder.execute", kind="call"))
    # `const q = db.deleteFrom()`, `const r = q.where()`; `DeleteBuilder<DB> & Marker`, `limit(): this`
    assert delete[("src/use.ts", 10)] == "receiver"
    assert delete[("src/use.ts", 31)] == "receiver"
    assert ("src/use.ts", 4) not in delete
    other = _at(await ask(chain_repo, "pallium_callers", name="Other.execute", kind="call"))
    assert not any(res == "receiver" for res in other.values())


async def test_an_intersection_return_has_each_parts_members(chain_repo: Path):
    mark = _at(await ask(chain_repo, "pallium_callers", name="Marker.mark", kind="call"))
    assert mark == {("src/use.ts", 30): "receiver"}


async def test_a_chain_method_declared_in_an_implemented_interface(chain_repo: Path):
    where = _at(await ask(chain_repo, "pallium_callers", name="SelectBuilder.where", kind="call"))
    assert where[("src/use.ts", 4)] == "receiver"
    assert where[("src/use.ts", 26)] == "receiver"
    assert ("src/use.ts", 9) not in where  # `q.where()` on a DeleteBuilder


_CLIENT = """\
export const core = {
  toFetch() {
    return 1
  },
  url(u: string) {
    return this.toFetch()
  },
}

export function toFetch() {
  return 2
}
"""


async def test_an_object_literals_members_are_its_variables(tmp_path: Path):
    """`core.toFetch()` where `const core = { toFetch() {...} }`: the literal's member, never the
    module function of that name; `this` in the literal is the literal."""
    repo = new_repo(
        tmp_path,
        {
            "src/client.ts": _CLIENT,
            "src/use.ts": "import { core, toFetch } from './client'\n\ncore.toFetch()\ntoFetch()\n",
        },
    )
    member = _at(await ask(repo, "pallium_callers", name="core.toFetch", kind="call"))
    assert member == {("src/use.ts", 3): "import", ("src/client.ts", 6): "receiver"}
    function = _at(await ask(repo, "pallium_callers", name="client.toFetch", kind="call"))
    assert function == {("src/use.ts", 4): "import"}


async def test_a_type_from_a_build_is_not_the_repositorys(tmp_path: Path):
    """A test that types its values with the package's build (`../dist`, directly or through a
    typings shim that `export *`s it) uses the built copy: never a claim on the source's member."""
    repo = new_repo(
        tmp_path,
        {
            "src/builders.ts": _BUILDERS,
            "typings/index.d.ts": "export * from '../dist/index.js'\n",
            "test/direct.ts": (
                "import { SelectBuilder } from '../dist/index.js'\n\n"
                "export function go(q: SelectBuilder<string, string>) {\n  return q.execute()\n}\n"
            ),
            "test/shim.ts": (
                "import { SelectBuilder } from '../typings/index.js'\n\n"
                "export function go(q: SelectBuilder<string, string>) {\n  return q.limit(1).execute()\n}\n"
            ),
            "test/source.ts": (
                "import { SelectBuilder } from '../src/builders'\n\n"
                "export function go(q: SelectBuilder<string, string>) {\n  return q.limit(1).execute()\n}\n"
            ),
        },
    )
    found = _at(await ask(repo, "pallium_callers", name="SelectBuilder.execute", kind="call"))
    assert found.get(("test/source.ts", 4)) == "receiver"
    assert found.get(("test/direct.ts", 4)) != "receiver"
    assert found.get(("test/shim.ts", 4)) != "receiver"


async def test_this_in_a_typed_object_literal_is_the_declared_type(tmp_path: Path):
    """`this.headers()` in `const core: Api = {...}`: `Api.headers` (and the literal's own, one symbol
    to a type checker), as `core.headers()` is."""
    repo = new_repo(
        tmp_path,
        {
            "src/types.ts": "export interface Api {\n  headers(h: string): Api\n  accept(v: string): Api\n}\n",
            "src/core.ts": (
                "import type { Api } from './types'\n\n"
                "export const core: Api = {\n  headers(h) {\n    return this\n  },\n"
                "  accept(v) {\n    return this.headers(v)\n  },\n}\n"
            ),
        },
    )
    declared = _at(await ask(repo, "pallium_callers", name="types.Api.headers", kind="call"))
    assert declared == {("src/core.ts", 8): "receiver"}
    written = _at(await ask(repo, "pallium_callers", name="core.headers", kind="call"))
    assert written == {("src/core.ts", 8): "receiver"}


async def test_a_returned_literals_members_implement_the_declared_return_type(tmp_path: Path):
    """`function wrap(): Storage { return { read: (k) => ... } }`: the literal's `read` is
    `Storage.read` to a type checker, so asking for it lists `storage.read()` calls too."""
    repo = new_repo(
        tmp_path,
        {
            "src/storage.ts": (
                "export interface Storage {\n  read(key: string): string\n}\n\n"
                "export function wrap(inner: Storage): Storage {\n  return {\n"
                "    read: (k) => inner.read(k),\n  }\n}\n\n"
                "export function other() {\n  return {\n    read: (k: string) => k,\n  }\n}\n"
            ),
            "src/use.ts": (
                "import { Storage } from './storage'\n\nexport function go(s: Storage) {\n  return s.read('a')\n}\n"
            ),
        },
    )
    written = _at(await ask(repo, "pallium_callers", name="storage.wrap.read", kind="call"))
    assert written == {("src/use.ts", 4): "receiver", ("src/storage.ts", 7): "receiver"}
    unrelated = _at(await ask(repo, "pallium_callers", name="storage.other.read", kind="call"))
    assert not any(res == "receiver" for res in unrelated.values())


async def test_a_closure_sees_the_enclosing_functions_typed_parameter_unless_it_shadows_it(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/storage.ts": "export interface Storage {\n  read(key: string): string\n}\n",
            "src/use.ts": (
                "import { Storage } from './storage'\n\nexport function go(s: Storage) {\n  return {\n"
                "    get: (k: string) => s.read(k),\n    other: (s: any) => s.read(1),\n  }\n}\n"
            ),
        },
    )
    found = _at(await ask(repo, "pallium_callers", name="Storage.read", kind="call"))
    assert found[("src/use.ts", 5)] == "receiver"
    assert found.get(("src/use.ts", 6)) != "receiver"  # the arrow's own `s: any`


async def test_a_call_on_the_class_is_its_static_member_on_a_value_its_instance_one(tmp_path: Path):
    repo = new_repo(
        tmp_path,
        {
            "src/kb.ts": (
                "export class Keyboard {\n  text(t: string) {\n    return this.add(Keyboard.text(t))\n  }\n"
                "  static text(t: string) {\n    return t\n  }\n  add(x: string) {\n    return this\n  }\n}\n"
            ),
            "src/use.ts": (
                "import { Keyboard } from './kb'\n\nconst kb = new Keyboard()\nkb.text('a')\nKeyboard.text('b')\n"
            ),
        },
    )
    out = await ask(repo, "pallium_callers", name="kb.Keyboard.text", kind="call")
    targets = {(r.path, r.line): r.target_line for r in out.references}
    assert targets[("src/kb.ts", 3)] == 5 and targets[("src/use.ts", 5)] == 5  # `static text`
    assert targets[("src/use.ts", 4)] == 2  # the instance's
