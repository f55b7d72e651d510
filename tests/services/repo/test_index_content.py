"""The content half: skip rules with reasons, content-hash reuse, and incremental equal to full."""

import os
import subprocess
from pathlib import Path

import pytest

from kernel.store import open_repo
from services.repo.index_content import blob_hash
from services.repo.store import SCHEMA, RepoStore
from tests.conftest import git, write
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


def _snapshot(repo: Path) -> dict:
    """Everything a query can see, without row ids: files, symbols, import edges, references."""
    with open_repo(repo, [SCHEMA]) as db:
        store = RepoStore(db)
        files = store.files()
        out = {}
        for path, row in sorted(files.items()):
            out[path] = (
                row.hash,
                row.skip_reason,
                [(s.qualified, s.kind, s.start_line, s.end_line, s.signature, s.doc) for s in store.symbols_in(path)],
                store.imports_of(path),
                store.importers_of(path),
            )
        names = sorted({symbol[0].rsplit(".", 1)[-1] for entry in out.values() for symbol in entry[2]})
        out["__refs__"] = {name: store.references(name) for name in names}
        out["__search__"] = sorted((c[1], c[3]) for c in store.search_candidates('"helper"*', limit=50))
        return out


def test_blob_hash_is_gits(tmp_path: Path):
    target = tmp_path / "f.txt"
    target.write_bytes(b"hello\n")
    expected = subprocess.run(["git", "hash-object", str(target)], capture_output=True, text=True).stdout.strip()
    assert blob_hash(b"hello\n") == expected


async def test_skipped_files_are_recorded_with_their_reason(git_repo: Path):
    write(git_repo, ".gitattributes", "gen/*.py linguist-generated\nthird/** linguist-vendored=true\n")
    write(git_repo, "gen/api.py", "def generated(): pass\n")
    write(git_repo, "third/lib.py", "def vendored(): pass\n")
    write(git_repo, "node_modules/x/index.js", "module.exports = 1;\n")
    write(git_repo, "vendor/dep.go", "package dep\n")
    write(git_repo, "package-lock.json", "{}\n")
    write(git_repo, "static/app.min.js", "var a=1;\n")
    write(git_repo, "static/bundle.js", "var a=1;" * 2000)
    (git_repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (git_repo / "huge.py").write_bytes(b"x = 1\n" * 200_000)
    os.symlink("src/app.py", git_repo / "link.py")
    os.symlink("../../outside", git_repo / "src" / "escape")
    git(git_repo, "add", "-A")
    commit(git_repo, "Add files to skip", {})
    out = await ask(git_repo, "pallium_index")
    assert out.files_skipped == {
        "binary": 1,
        "generated": 1,
        "lockfile": 1,
        "minified": 2,
        "symlink": 2,
        "too_large": 1,
        "vendored": 3,
    }
    with open_repo(git_repo, [SCHEMA]) as db:
        files = RepoStore(db).files()
    assert files["link.py"].skip_reason == "symlink"
    assert files["src/app.py"].skip_reason is None
    symbols = await ask(git_repo, "pallium_symbols", path="logo.png")
    assert (symbols.status, symbols.symbols) == ("skipped:binary", [])


async def test_unchanged_content_is_never_reparsed(git_repo: Path):
    first = await ask(git_repo, "pallium_index")
    assert (first.files_parsed, first.files_reused) == (4, 0)
    second = await ask(git_repo, "pallium_index")
    assert (second.files_parsed, second.files_reused, second.files_changed) == (0, 4, 0)
    write(git_repo, "src/app.py", "def main():\n    return 2\n")
    third = await ask(git_repo, "pallium_index")
    assert (third.files_parsed, third.files_reused, third.files_changed) == (1, 3, 1)
    git(git_repo, "mv", "src/app.py", "src/application.py")
    fourth = await ask(git_repo, "pallium_index")
    assert (fourth.files_parsed, fourth.files_changed, fourth.files_removed) == (0, 1, 1), "a rename reuses content"


async def test_untracked_files_are_indexed_only_when_asked(git_repo: Path):
    write(git_repo, "scratch.py", "def scratch(): pass\n")
    await ask(git_repo, "pallium_index")
    found = await ask(git_repo, "pallium_search", query="scratch")
    assert found.results == []
    await ask(git_repo, "pallium_index", untracked=True)
    found = await ask(git_repo, "pallium_search", query="scratch")
    assert [h.path for h in found.results] == ["scratch.py"]


async def test_incremental_reindex_equals_a_full_rebuild(tmp_path: Path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from .b import helper\n\ndef run():\n    return helper()\n",
            "pkg/b.py": "def helper():\n    return 1\n",
            "pkg/c.py": "from .b import helper\n\nclass C:\n    def m(self):\n        return helper()\n",
            "web/main.ts": 'import { helper } from "./util";\nexport const go = () => helper();\n',
            "web/util.ts": "export function helper() { return 1; }\n",
        },
    )
    await ask(repo, "pallium_index")
    # edit, add, rename and delete, both committed and in the working tree
    commit(
        repo,
        "Edit and add",
        {"pkg/b.py": "def helper():\n    return 2\n\ndef other():\n    pass\n", "pkg/d.py": "from .a import run\n"},
    )
    git(repo, "mv", "pkg/c.py", "pkg/renamed.py")
    git(repo, "rm", "-q", "web/main.ts")
    write(repo, "web/util.ts", "export function helper() { return 3; }\nexport function extra() {}\n")
    await ask(repo, "pallium_index")
    incremental = _snapshot(repo)
    await ask(repo, "pallium_index", full=True)
    assert _snapshot(repo) == incremental
    assert "pkg/c.py" not in incremental and "web/main.ts" not in incremental
    assert incremental["pkg/renamed.py"][3] == [("pkg/b.py", ".b")]


async def test_concurrent_index_runs_wait_or_say_one_is_running(git_repo: Path):
    from kernel import locks, paths
    from kernel.clock import SystemClock
    from kernel.errors import PalliumError
    from services.repo.indexing import run_index

    lock = paths.repo_state_dir(git_repo) / "index.lock"
    with (
        open_repo(git_repo, [SCHEMA]) as db,
        locks.exclusive(lock, what="pallium index"),
        pytest.raises(PalliumError) as refused,
    ):
        run_index(
            db, git_repo, full=False, untracked=False, now=SystemClock(), progress=lambda *a: None, wait_seconds=0
        )
    assert refused.value.code == "conflict"
    assert refused.value.details["holder_pid"] == str(os.getpid())
    out = await ask(git_repo, "pallium_index")
    assert out.files_parsed == 4


async def test_an_index_written_by_a_newer_schema_is_refused_untouched(git_repo: Path):
    await ask(git_repo, "pallium_index")
    with open_repo(git_repo) as db:
        db.execute("UPDATE kernel_schema SET version = 99 WHERE service = 'repo'")
    before = (git_repo / ".pallium" / "pallium.sqlite").read_bytes()
    from kernel.errors import PalliumError

    with pytest.raises(PalliumError) as refused:
        await ask(git_repo, "pallium_symbols", path="src/app.py")
    assert refused.value.code == "conflict"
    assert (git_repo / ".pallium" / "pallium.sqlite").read_bytes() == before
