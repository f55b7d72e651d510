"""An index written by an older schema keeps its facts through the migration: nothing is reparsed."""

from __future__ import annotations

from pathlib import Path

from kernel.store import Schema, open_repo
from services.repo.rows import ContentFacts
from services.repo.store import SCHEMA, RepoStore
from tests.conftest import git

HASH_A, HASH_B = "a" * 40, "b" * 40


def test_references_keyed_by_blob_id_move_to_content_ids_and_still_answer(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    version_3 = Schema("repo", SCHEMA.migrations[:3])
    with open_repo(repo, [version_3]) as db:
        db.executemany(
            "INSERT INTO repo_content(hash, language, status, lines, bytes) VALUES (?, 'python', 'parsed', 3, 30)",
            [(HASH_A,), (HASH_B,)],
        )
        db.executemany(
            "INSERT INTO repo_files(path, hash, language, skip_reason, tracked) VALUES (?, ?, 'python', NULL, 1)",
            [("a.py", HASH_A), ("b.py", HASH_B)],
        )
        db.executemany(
            "INSERT INTO repo_refs(name, hash, line, kind, receiver) VALUES (?, ?, ?, ?, ?)",
            [
                ("helper", HASH_A, 2, "call", ""),
                ("helper", HASH_B, 5, "call", "?mod"),
                ("Base", HASH_B, 1, "inherits", ""),
            ],
        )

    with open_repo(repo, [SCHEMA]) as db:
        store = RepoStore(db)
        found = [(r.path, r.line, r.kind, r.receiver) for r in store.references("helper")]
        assert found == [("a.py", 2, "call", ""), ("b.py", 5, "call", "?mod")]
        assert store.reference_kinds("Base") == {"inherits": 1}
        indexes = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'repo_refs'")}
        assert {"repo_refs_name", "repo_refs_content"} <= indexes

        # New facts go in beside the carried ones, and dropping a content takes its references.
        with db.transaction():
            store.add_contents([ContentFacts("c" * 40, "python", "parsed", 1, 9, [], [], '[["helper",1,"call",""]]')])
            store.update_files(upserts=[], deletes=["a.py"])
            assert store.drop_orphan_content() == 2  # a.py's content, and the new one no path names
        assert [r.path for r in store.references("helper")] == ["b.py"]
        assert db.execute("SELECT count(*) FROM repo_refs").fetchone()[0] == 2


def test_a_bulk_store_builds_the_reference_indexes_again(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    with open_repo(repo, [SCHEMA]) as db:
        store = RepoStore(db)
        with db.transaction(), store.bulk_references(everything=False):  # no references yet: bulk
            names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'repo_refs'")}
            assert names == {"repo_refs"}
            store.add_contents([ContentFacts(HASH_A, "python", "parsed", 1, 9, [], [], '[["run",1,"call",""]]')])
        names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'repo_refs'")}
        assert names == {"repo_refs", "repo_refs_name", "repo_refs_content"}
        with db.transaction(), store.bulk_references(everything=False):  # references exist: indexes stay
            names = {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'repo_refs'")}
            assert "repo_refs_name" in names
