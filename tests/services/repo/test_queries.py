"""symbols, callers, search and freshness over a mixed repository; bad input gets errors, not crashes."""

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.conftest import git, write
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def mixed_repo(empty_repo: Path) -> Path:
    """Two `load` functions in different files; callers that import one, the other, or neither."""
    commit(
        empty_repo,
        "Start",
        {
            "app/__init__.py": "",
            "app/config.py": 'def load(path):\n    """Read the configuration file."""\n    return path\n',
            "app/cache.py": (
                "def load(key):\n    return key\n\nclass Store:\n    def load(self):\n        return load(1)\n"
            ),
            "app/main.py": "from app.config import load\n\ndef start():\n    return load('x')\n",
            "app/other.py": "def go(thing):\n    return thing.load()\n",
            "web/parseConfig.ts": "export function parseConfigFile(text: string) { return text; }\n",
            "docs/guide.md": "# Guide\n",
        },
    )
    return empty_repo


async def test_symbols_list_kind_signature_lines_and_doc(mixed_repo: Path):
    out = await ask(mixed_repo, "pallium_symbols", path="app/config.py")
    assert [(s.qualified, s.kind, s.signature, s.start_line, s.end_line, s.doc) for s in out.symbols] == [
        ("load", "function", "def load(path)", 1, 3, "Read the configuration file.")
    ]
    assert (out.language, out.status, out.freshness.status) == ("python", "parsed", "fresh")


async def test_symbols_take_paths_relative_to_the_callers_folder(mixed_repo: Path):
    from kernel.clock import FixedClock
    from kernel.context import ToolContext
    from kernel.dispatch import call

    ctx = ToolContext(cwd=mixed_repo / "app", clock=FixedClock())
    out = await call("pallium_symbols", {"path": "cache.py"}, ctx)
    ctx.close()
    assert out.path == "app/cache.py"
    assert [s.qualified for s in out.symbols] == ["load", "Store", "Store.load"]


async def test_callers_resolve_same_named_symbols_through_imports(mixed_repo: Path):
    out = await ask(mixed_repo, "pallium_callers", name="load")
    assert [(d.path, d.qualified) for d in out.definitions] == [
        ("app/cache.py", "load"),
        ("app/cache.py", "Store.load"),
        ("app/config.py", "load"),
    ]
    refs = {(r.path, r.line): (r.enclosing, r.resolution, r.target) for r in out.references}
    assert refs == {
        ("app/cache.py", 6): ("Store.load", "same-file", "app/cache.py"),
        ("app/main.py", 1): (None, "import", "app/config.py"),
        ("app/main.py", 4): ("start", "import", "app/config.py"),
        ("app/other.py", 2): ("go", "ambiguous", None),
    }


async def test_class_method_narrows_the_definitions(mixed_repo: Path):
    out = await ask(mixed_repo, "pallium_callers", name="Store.load")
    assert [(d.path, d.qualified) for d in out.definitions] == [("app/cache.py", "Store.load")]
    # `load(1)` inside Store.load calls the module's own `load`, never the method: only
    # `thing.load()`, whose receiver is unknown, may reach Store.load, and it says so.
    assert {(r.path, r.resolution) for r in out.references} == {("app/other.py", "ambiguous")}


async def test_a_name_the_index_never_saw_is_not_found_with_the_closest_names(mixed_repo: Path):
    # Zero references would read as dead code; a misspelt name must say it matched nothing.
    with pytest.raises(PalliumError) as missing:
        await ask(mixed_repo, "pallium_callers", name="lod")
    assert missing.value.code == "not_found"
    assert "load" in missing.value.details["closest"]
    with pytest.raises(PalliumError):
        await ask(mixed_repo, "pallium_callers", name="nothingLikeThis")


async def test_callers_page_with_a_cursor(mixed_repo: Path):
    first = await ask(mixed_repo, "pallium_callers", name="load", limit=2)
    assert (len(first.references), first.truncated, first.total) == (2, True, 4)
    rest = await ask(mixed_repo, "pallium_callers", name="load", limit=2, cursor=first.next_cursor)
    assert len(rest.references) == 2 and rest.next_cursor is None
    with pytest.raises(PalliumError) as bad:
        await ask(mixed_repo, "pallium_callers", name="load", cursor="garbage!")
    assert bad.value.details["field"] == "cursor"


async def test_callers_stay_within_8_kb_and_page_through_every_reference(empty_repo: Path):
    params = ", ".join(f"argument_with_a_long_descriptive_name_{i}: int" for i in range(4))
    files = {f"pkg/mod{i:02}.py": f"def fetch({params}):\n    return 1\n" for i in range(60)}
    files["pkg/use.py"] = "".join(f"def use{i}():\n    return fetch()\n" for i in range(120))
    commit(empty_repo, "Start", files)
    seen: list[tuple[str, int]] = []
    cursor = None
    pages = 0
    while True:
        out = await ask(empty_repo, "pallium_callers", name="fetch", limit=100, cursor=cursor)
        pages += 1
        assert len(out.model_dump_json()) <= 8 * 1024
        assert out.definition_count == 60 and 0 < len(out.definitions) < 60
        seen.extend((r.path, r.line) for r in out.references)
        if not out.truncated:
            assert out.next_cursor is None
            break
        cursor = out.next_cursor
    assert pages > 2, "100 references with 60 long definitions do not fit in one 8 KB page"
    assert len(seen) == len(set(seen)) == out.total == 120


async def test_search_splits_camel_and_snake_case_and_says_why(mixed_repo: Path):
    out = await ask(mixed_repo, "pallium_search", query="parse config")
    assert out.results[0].qualified == "parseConfigFile"
    assert out.results[0].path == "web/parseConfig.ts"
    assert "parse" in out.results[0].matched and "config" in out.results[0].matched
    by_doc = await ask(mixed_repo, "pallium_search", query="configuration")
    assert [(h.path, h.qualified) for h in by_doc.results][:1] == [("app/config.py", "load")]
    assert len(out.model_dump_json()) < 8 * 1024


async def test_search_with_only_punctuation_is_invalid_input(mixed_repo: Path):
    with pytest.raises(PalliumError) as bad:
        await ask(mixed_repo, "pallium_search", query='"*:)')
    assert (bad.value.code, bad.value.details["field"]) == ("invalid_input", "query")
    odd = await ask(mixed_repo, "pallium_search", query='load AND "or" NEAR(')
    assert odd.results, "FTS5 syntax in a query is taken literally"


async def test_stale_index_still_answers_and_refresh_catches_up(mixed_repo: Path):
    await ask(mixed_repo, "pallium_index")
    write(mixed_repo, "app/config.py", "def load(path):\n    return path\n\ndef save(path):\n    pass\n")
    stale = await ask(mixed_repo, "pallium_symbols", path="app/config.py")
    assert stale.freshness.status == "stale"
    assert stale.freshness.working_tree_changed is True
    assert stale.freshness.changed_files == ["app/config.py"]
    assert stale.freshness.refresh_command == "pallium index"
    assert [s.name for s in stale.symbols] == ["load"]
    fresh = await ask(mixed_repo, "pallium_symbols", path="app/config.py", refresh=True)
    assert fresh.freshness.status == "fresh"
    assert [s.name for s in fresh.symbols] == ["load", "save"]
    git(mixed_repo, "checkout", "--", "app/config.py")  # reverted: the index holds the dirty content
    reverted = await ask(mixed_repo, "pallium_symbols", path="app/config.py")
    assert reverted.freshness.changed_files == ["app/config.py"]


async def test_head_moving_makes_the_index_stale(mixed_repo: Path):
    await ask(mixed_repo, "pallium_index")
    commit(mixed_repo, "More", {"app/new.py": "def fresh(): pass\n"})
    out = await ask(mixed_repo, "pallium_search", query="fresh")
    assert (out.freshness.status, out.freshness.head_moved, out.freshness.changed_files) == (
        "stale",
        True,
        ["app/new.py"],
    )
    assert out.results == []


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("../outside.py", "invalid_input"),
        ("/etc/passwd", "invalid_input"),
        ("app/missing.py", "not_found"),
        ("app", "invalid_input"),
        ("untracked.py", "not_found"),
    ],
)
async def test_bad_paths_are_refused_with_the_field_named(mixed_repo: Path, path: str, code: str):
    write(mixed_repo, "untracked.py", "x = 1\n")
    with pytest.raises(PalliumError) as bad:
        await ask(mixed_repo, "pallium_symbols", path=path)
    assert (bad.value.code, bad.value.details["field"]) == (code, "path")


async def test_not_a_repository_is_invalid_input(tmp_path: Path):
    with pytest.raises(PalliumError) as bad:
        await ask(tmp_path, "pallium_search", query="x")
    assert bad.value.code == "invalid_input"


async def test_invalid_utf8_and_binary_content_do_not_break_the_index(mixed_repo: Path):
    (mixed_repo / "app" / "latin.py").write_bytes(b"def caf\xe9():\n    pass\n\ndef fine():\n    pass\n")
    (mixed_repo / "blob.dat").write_bytes(bytes(range(256)))
    git(mixed_repo, "add", "-A")
    commit(mixed_repo, "Odd files", {})
    out = await ask(mixed_repo, "pallium_index")
    assert out.files_skipped == {"binary": 1}
    symbols = await ask(mixed_repo, "pallium_symbols", path="app/latin.py")
    assert "fine" in [s.name for s in symbols.symbols]


async def test_search_puts_symbols_holding_every_word_first(mixed_repo: Path):
    out = await ask(mixed_repo, "pallium_search", query="store load")
    assert out.results[0].qualified == "Store.load"
    assert out.results[0].matched.startswith("name: store, load")


async def test_callers_follow_package_and_module_reexports(empty_repo: Path):
    commit(
        empty_repo,
        "Re-exports",
        {
            "pkg/__init__.py": "from .impl import run\n",
            "pkg/impl.py": "def run():\n    return 1\n",
            "tools/impl.py": "def run():\n    return 2\n",
            "app.py": "from pkg import run\n\nrun()\n",
            "web/parts/a.ts": "export function build() { return 1; }\n",
            "web/other.ts": "export function build() { return 2; }\n",
            "web/index.ts": 'export * from "./parts/a";\n',
            "web/main.ts": 'import { build } from "./index";\nbuild();\n',
        },
    )
    run = await ask(empty_repo, "pallium_callers", name="run")
    assert {(r.path, r.line): (r.resolution, r.target) for r in run.references} == {
        ("app.py", 1): ("import", "pkg/impl.py"),
        ("app.py", 3): ("import", "pkg/impl.py"),
        ("pkg/__init__.py", 1): ("import", "pkg/impl.py"),
    }
    build = await ask(empty_repo, "pallium_callers", name="build")
    assert {(r.path, r.line): (r.resolution, r.target) for r in build.references} == {
        ("web/main.ts", 1): ("import", "web/parts/a.ts"),
        ("web/main.ts", 2): ("import", "web/parts/a.ts"),
    }
