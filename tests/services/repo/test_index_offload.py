"""A large index parses its files in child processes; the index must not change."""

from pathlib import Path

import apsw
import pytest

from services.repo import index_content
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio

_QUERIES = {
    "symbols": "SELECT f.path, s.name, s.kind, s.qualified, s.signature, s.start_line, s.doc FROM repo_symbols s "
    "JOIN repo_files f ON f.hash = s.hash ORDER BY f.path, s.start_line, s.name",
    "refs": "SELECT f.path, r.name, r.line FROM repo_refs r JOIN repo_content c ON c.id = r.content "
    "JOIN repo_files f ON f.hash = c.hash ORDER BY 1, 2, 3",
    "edges": "SELECT src, dst, raw FROM repo_edges ORDER BY 1, 2, 3",
    "files": "SELECT path, language, skip_reason FROM repo_files ORDER BY path",
}


def _index_contents(repo: Path) -> dict[str, list[tuple]]:
    db = apsw.Connection(str(repo / ".pallium" / "pallium.sqlite"))
    try:
        return {name: db.execute(sql).fetchall() for name, sql in _QUERIES.items()}
    finally:
        db.close()


def _project(repo: Path) -> None:
    files = {
        f"pkg/mod_{i}.py": f'"""Module {i}."""\nfrom pkg import mod_{(i + 1) % 9}\n\n\ndef work_{i}(x):\n'
        f"    return mod_{(i + 1) % 9}.work_{(i + 1) % 9}(x) + {i}\n"
        for i in range(9)
    }
    files["pkg/__init__.py"] = ""
    files["web/app.ts"] = "import { run } from './run';\nexport function start(): number { return run(); }\n"
    files["web/run.ts"] = "export function run(): number { return 1; }\n"
    commit(repo, "Add the project", files)


async def test_an_index_shared_with_a_child_stores_what_an_index_in_process_stores(empty_repo, monkeypatch):
    _project(empty_repo)
    monkeypatch.setattr(index_content, "_CHUNK", 2)  # several chunks, so both processes get some
    await ask(empty_repo, "pallium_index", full=True)
    here = _index_contents(empty_repo)
    monkeypatch.setattr(index_content, "_OFFLOAD_FILES", 0)
    await ask(empty_repo, "pallium_index", full=True)
    shared = _index_contents(empty_repo)
    assert shared == here and len(here["symbols"]) == 11 + 9 and here["edges"]  # 9 module docstrings


async def test_when_a_child_dies_this_process_parses_the_rest_of_its_chunks(empty_repo, monkeypatch):
    _project(empty_repo)
    monkeypatch.setattr(index_content, "_CHUNK", 2)
    await ask(empty_repo, "pallium_index", full=True)
    here = _index_contents(empty_repo)
    monkeypatch.setattr(index_content, "_OFFLOAD_FILES", 0)
    monkeypatch.setenv("PALLIUM_CRASHPOINT", "offloaded_parse:2")  # only the children pass this point
    await ask(empty_repo, "pallium_index", full=True)
    assert _index_contents(empty_repo) == here


async def test_a_few_large_files_go_to_the_children_by_their_bytes_and_store_the_same(empty_repo, monkeypatch):
    _project(empty_repo)
    monkeypatch.setenv("PALLIUM_OFFLOAD", "0")
    await ask(empty_repo, "pallium_index", full=True)
    here = _index_contents(empty_repo)
    monkeypatch.delenv("PALLIUM_OFFLOAD")
    monkeypatch.setattr(index_content, "_OFFLOAD_FILES", 10**9)  # far more files than the project has
    monkeypatch.setattr(index_content, "_OFFLOAD_BYTES", 1)  # but more than enough bytes
    monkeypatch.setattr(index_content, "_CHUNK_BYTES", 150)
    out = await ask(empty_repo, "pallium_index", full=True)
    assert _index_contents(empty_repo) == here and out.files_parsed == 12


def test_chunks_are_cut_by_count_and_by_bytes_and_keep_the_order(monkeypatch):
    monkeypatch.setattr(index_content, "_CHUNK", 3)
    monkeypatch.setattr(index_content, "_CHUNK_BYTES", 100)
    paths = [(f"f{i}", f"f{i}") for i in range(8)]
    sizes = [10, 10, 10, 10, 200, 10, 60, 50]
    chunks = index_content._chunks(paths, sizes)
    assert [[p for p, _ in c] for c in chunks] == [["f0", "f1", "f2"], ["f3", "f4"], ["f5", "f6", "f7"]]


async def test_history_read_in_a_child_stores_what_a_read_in_process_stores(empty_repo, monkeypatch):
    _project(empty_repo)
    commit(empty_repo, "Change the runner", {"web/run.ts": "export function run(): number { return 2; }\n"})
    sql = {
        "commits": "SELECT sha, author, committed_at, subject, body, file_count FROM repo_commits ORDER BY sha",
        "touches": "SELECT sha, path, change FROM repo_touches ORDER BY 1, 2",
        "pairs": "SELECT a, b, shared, last_at FROM repo_cochange ORDER BY 1, 2",
    }

    def history() -> dict[str, list[tuple]]:
        db = apsw.Connection(str(empty_repo / ".pallium" / "pallium.sqlite"))
        try:
            return {name: db.execute(q).fetchall() for name, q in sql.items()}
        finally:
            db.close()

    monkeypatch.setattr("services.repo.indexing._CHILD_COMMITS", 2)  # a child reads even this short history
    monkeypatch.setenv("PALLIUM_OFFLOAD", "0")
    await ask(empty_repo, "pallium_index", full=True)
    here = history()
    monkeypatch.delenv("PALLIUM_OFFLOAD")
    await ask(empty_repo, "pallium_index", full=True)
    assert history() == here and len(here["commits"]) == 2 and here["pairs"]


def test_children_start_for_enough_source_but_not_for_images_read_again():
    images = [(f"docs/shot{i}.webp", f"docs/shot{i}.webp") for i in range(3)]
    code = [(f"pkg/big{i}.py", f"pkg/big{i}.py") for i in range(3)]
    assert not index_content._worth_children(images, [900_000] * 3)
    assert index_content._worth_children(code, [400_000] * 3)
    assert not index_content._worth_children(code[:1], [400_000])
    bundles = [(f"web/bundle{i}.js", f"web/bundle{i}.js") for i in range(3)]
    assert not index_content._worth_children(bundles, [index_content.MAX_BYTES + 1] * 3), "too large to parse"


def test_a_language_of_a_few_files_is_parsed_by_one_child_and_the_children_share_the_rest():
    # 40 chunks of C, and a C++ file or a Ruby script in every fifth: each child would compile the
    # queries of every language it meets, so the small languages stay with one child
    chunks, sizes = [], {}
    for i in range(40):
        chunk = [(f"src/c{i}_{j}.c", f"src/c{i}_{j}.c") for j in range(4)]
        if i % 5 == 0:
            chunk.append((f"deps/x{i}.cpp", f"deps/x{i}.cpp") if i % 10 else (f"utils/u{i}.rb", f"utils/u{i}.rb"))
        chunks.append(chunk)
        sizes.update({fs: 100_000 if fs.endswith(".c") else 2_000 for fs, _path in chunk})
    owners = index_content._owners(chunks, sizes, 2)
    small = {owner for chunk, owner in zip(chunks, owners, strict=True) if len(chunk) == 5}
    assert len(small) == 1, "every chunk holding C++ or Ruby goes to one child"
    loads = [sum(sizes[fs] for c, o in zip(chunks, owners, strict=True) if o == k for fs, _ in c) for k in (0, 1)]
    assert abs(loads[0] - loads[1]) <= 2 * 400_000, "the C is shared evenly"
    assert all(owners[i : i + 12].count(owners[i]) < 12 for i in range(len(owners) - 12)), "no long run of one child"


async def test_search_rows_written_chunk_by_chunk_are_those_written_all_at_once(empty_repo, monkeypatch):
    from kernel.store import open_repo
    from services.repo.store import SCHEMA, RepoStore
    from services.repo.text import split_terms

    _project(empty_repo)
    commit(empty_repo, "Duplicate a module", {"pkg/copy.py": (empty_repo / "pkg/mod_3.py").read_text()})
    monkeypatch.setattr(index_content, "_CHUNK", 2)
    monkeypatch.setattr(index_content, "_OFFLOAD_FILES", 0)
    await ask(empty_repo, "pallium_index", full=True)
    sql = "SELECT rowid, terms, signature, doc, path_terms, path, symbol_id FROM repo_symbol_fts ORDER BY rowid"
    with open_repo(empty_repo, [SCHEMA]) as db:
        by_chunk = db.execute(sql).fetchall()
        mapping = db.execute("SELECT path, row FROM repo_symbol_fts_rows ORDER BY path, row").fetchall()
        with db.transaction():
            RepoStore(db).reindex_symbol_search([], [], split_terms, everything=True)
        assert db.execute(sql).fetchall() == by_chunk
        assert db.execute("SELECT path, row FROM repo_symbol_fts_rows ORDER BY path, row").fetchall() == mapping
    assert len(by_chunk) == 11 + 9 + 2 and any(row[5] == "pkg/copy.py" for row in by_chunk)
