"""An index built step by step through edits holds exactly what one built from scratch holds, table by table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernel.store import open_repo
from services.repo.store import SCHEMA
from tests.conftest import git, write
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

_VOLATILE_STATE = {"indexed_at"}


def dump(repo: Path) -> dict[str, list[tuple]]:
    """Every row of every repo table, with row ids replaced by what they point at."""
    with open_repo(repo, [SCHEMA]) as db:
        tables = [
            name
            for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'repo_*' "
                "AND name NOT GLOB 'repo_*_fts_*' AND name NOT GLOB 'repo_decisions_*' "
                "AND name != 'repo_symbol_fts_rows' ORDER BY name"
            )
        ]
        symbols = {
            row[0]: row[1:] for row in db.execute("SELECT id, hash, qualified, kind, start_line FROM repo_symbols")
        }
        contents = dict(db.execute("SELECT id, hash FROM repo_content"))
        out: dict[str, list[tuple]] = {}
        for table in tables:
            columns = [c[1] for c in db.execute(f"PRAGMA table_info({table})")]
            cursor = db.execute(f"SELECT {', '.join(columns)} FROM {table}")
            rows = []
            for row in cursor:
                record = dict(zip(columns, row, strict=True))
                if table == "repo_state" and record["key"] in _VOLATILE_STATE:
                    continue
                record.pop("id", None)
                if table == "repo_refs":
                    record["content"] = contents.get(record["content"])
                if "symbol_id" in record:
                    record["symbol_id"] = symbols.get(int(record["symbol_id"]))
                rows.append(tuple(sorted(record.items(), key=lambda kv: kv[0])))
            out[table] = sorted(rows, key=repr)
        return out


async def assert_equals_scratch(repo: Path, tmp_path: Path, step: str) -> None:
    await ask(repo, "pallium_index")
    incremental = dump(repo)
    again = dump(repo)
    assert incremental == again
    scratch = tmp_path / f"scratch-{step}"
    shutil.copytree(repo, scratch, ignore=shutil.ignore_patterns(".pallium"), symlinks=True)
    git(scratch, "status", "--porcelain")  # the copy's stat data is new: let git refresh its index
    await ask(scratch, "pallium_index")
    fresh = dump(scratch)
    for table in fresh:
        assert incremental[table] == fresh[table], f"{table} differs after step {step!r}"
    assert incremental.keys() == fresh.keys()


async def test_incremental_index_through_edits_equals_a_scratch_index(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "pkg/__init__.py": "from .io import read\n",
            "pkg/io.py": "def read():\n    return 1\n\ndef write():\n    return 2\n",
            "pkg/app.py": "from .io import read\nfrom .io import write\n\ndef run():\n    return read() + write()\n",
            "web/util.ts": "export function helper() { return 1; }\nexport type Id = string;\n",
            "web/index.ts": 'export { helper } from "./util";\nexport * from "./util";\n',
            "web/main.ts": 'import { helper } from "./index";\nimport type { Id } from "./util";\n',
            "go.mod": "module example.com/m\n",
            "a/a.go": 'package a\n\nimport "example.com/m/b"\n\nfunc A() int { return b.B() }\n',
            "b/b.go": "package b\n\nfunc B() int { return 1 }\n",
        },
    )
    await assert_equals_scratch(repo, tmp_path, "first")
    commit(
        repo,
        "Hand names on under others",
        {
            "pkg/__init__.py": "from .io import read as load\n",
            "web/widget.ts": "export default class Widget {}\n",
            "web/index.ts": 'export { helper as help } from "./util";\nexport { default as Widget } from "./widget";\n',
        },
    )
    await assert_equals_scratch(repo, tmp_path, "exports under other names")
    with open_repo(repo, [SCHEMA]) as db:
        assert db.execute("SELECT count(*) FROM repo_exports").fetchone() == (4,)
    write(repo, "pkg/other.py", "from .io import write\nfrom .io import read\n")  # untracked: not indexed
    write(repo, "pkg/io.py", "def read():\n    return 3\n\ndef write():\n    return 4\n")
    await assert_equals_scratch(repo, tmp_path, "working tree edit")
    commit(repo, "Edit io", {"pkg/io.py": "def read():\n    return 3\n\ndef write():\n    return 4\n"})
    await assert_equals_scratch(repo, tmp_path, "commit the edit")
    commit(repo, "Touch util", {"web/util.ts": "export function helper() { return 2; }\nexport enum Mode { A }\n"})
    await assert_equals_scratch(repo, tmp_path, "an unrelated file")
    git(repo, "mv", "pkg/app.py", "pkg/main.py")
    commit(repo, "Rename app", {})
    await assert_equals_scratch(repo, tmp_path, "rename")
    commit(repo, "Drop b", {"b/b.go": None, "pkg/io.py": "def read():\n    return 5\n"})
    await assert_equals_scratch(repo, tmp_path, "delete")
    git(repo, "checkout", "-q", "HEAD~1", "--", "pkg/io.py")  # revert in the working tree only
    await assert_equals_scratch(repo, tmp_path, "revert")
    # The same paths, with only what decides where imports lead changing: each must move the edges.
    commit(repo, "Import elsewhere", {"web/main.ts": 'import { helper } from "./util";\n'})
    await assert_equals_scratch(repo, tmp_path, "a file's own imports")
    commit(repo, "Bring b back", {"b/b.go": "package b\n\nfunc B() int { return 1 }\n"})
    await assert_equals_scratch(repo, tmp_path, "b back")
    commit(repo, "Rename the module", {"go.mod": "module example.com/renamed\n"})  # a.go's import leads nowhere now
    await assert_equals_scratch(repo, tmp_path, "module path")
    commit(repo, "Import by the new name", {"a/a.go": 'package a\n\nimport "example.com/renamed/b"\n'})
    await assert_equals_scratch(repo, tmp_path, "import by the module path")
    commit(
        repo, "Map paths", {"tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@u": ["web/util.ts"]}}}'}
    )
    commit(repo, "Use the map", {"web/main.ts": 'import { helper } from "@u";\n'})
    await assert_equals_scratch(repo, tmp_path, "tsconfig paths")
    commit(
        repo,
        "Map elsewhere",
        {"tsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@u": ["web/index.ts"]}}}'},
    )
    await assert_equals_scratch(repo, tmp_path, "tsconfig paths changed")


async def test_a_namespace_moving_between_files_moves_the_using_edges(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "App/Program.cs": "using Shop.Core;\nnamespace App { class Program { } }\n",
            "Shop/Store.cs": "namespace Shop.Core { public class Store { } }\n",
            "Shop/Cart.cs": "namespace Shop.Other { public class Cart { } }\n",
        },
    )
    await assert_equals_scratch(repo, tmp_path, "first")
    # Only Cart.cs changes, yet Program.cs's `using Shop.Core` now names it too.
    commit(repo, "Move Cart", {"Shop/Cart.cs": "namespace Shop.Core { public class Cart { } }\n"})
    await assert_equals_scratch(repo, tmp_path, "namespace moved")
    with open_repo(repo, [SCHEMA]) as db:
        edges = db.execute("SELECT dst FROM repo_edges WHERE src = 'App/Program.cs' ORDER BY dst").fetchall()
    assert edges == [("Shop/Cart.cs",), ("Shop/Store.cs",)]


async def test_every_imported_name_is_kept_on_the_edge(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/io.py": "def read():\n    pass\n\ndef write():\n    pass\n",
            "pkg/app.py": "from .io import read\nfrom .io import write\n\nread()\nwrite()\n",
            "x.py": "",
        },
    )
    for i in range(3):  # reindexing after an unrelated change must not flip which name is kept
        commit(repo, f"touch {i}", {"x.py": f"x = {i}\n"})
        await ask(repo, "pallium_index")
        with open_repo(repo, [SCHEMA]) as db:
            names = db.execute("SELECT names FROM repo_edges WHERE src = 'pkg/app.py' AND dst = 'pkg/io.py'").fetchall()
        assert [set(n.split()) for (n,) in names] == [{"read", "write"}]
