from pathlib import Path

import apsw
import pytest

from kernel import store
from kernel.errors import PalliumError
from kernel.store import Schema, open_database, read_versions
from tests.conftest import git

NOTES_V1 = Schema("notes", ("CREATE TABLE notes_note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)",))
NOTES_V2 = Schema("notes", (*NOTES_V1.migrations, "ALTER TABLE notes_note ADD COLUMN tag TEXT"))


def test_open_applies_migrations_and_records_versions(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    with open_database(path, [NOTES_V1]) as db:
        db.execute("INSERT INTO notes_note(body) VALUES ('a')")
        assert db.execute("PRAGMA journal_mode").get == "wal"
        assert db.execute("PRAGMA foreign_keys").get == 1
    with open_database(path, [NOTES_V2]) as db:
        assert db.execute("SELECT body, tag FROM notes_note").get == ("a", None)
    assert read_versions(path)["notes"]["version"] == 2


def test_newer_schema_is_refused_and_names_the_writer(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    open_database(path, [NOTES_V2]).close()
    with open_database(path) as db:
        db.execute("UPDATE kernel_schema SET written_by = '9.9.9'")
    with pytest.raises(PalliumError) as raised:
        open_database(path, [NOTES_V1])
    assert raised.value.code == "conflict"
    assert raised.value.details["found"] == 2
    assert raised.value.details["supported"] == 1
    assert raised.value.details["written_by"] == "9.9.9"
    assert "9.9.9" in raised.value.message


def test_missing_column_fails_loudly_on_open(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    open_database(path, [NOTES_V2]).close()
    with open_database(path) as db:
        db.execute("ALTER TABLE notes_note DROP COLUMN tag")
    with pytest.raises(PalliumError) as raised:
        open_database(path, [NOTES_V2])
    assert raised.value.code == "unavailable"
    assert "tag" in raised.value.message


def test_missing_table_fails_loudly_on_open(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    open_database(path, [NOTES_V1]).close()
    with open_database(path) as db:
        db.execute("DROP TABLE notes_note")
    with pytest.raises(PalliumError) as raised:
        open_database(path, [NOTES_V1])
    assert "notes_note" in raised.value.message


def test_corrupt_file_is_reported_and_kept(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    garbage = b"this is not a database" * 100
    path.write_bytes(garbage)
    with pytest.raises(PalliumError) as raised:
        open_database(path, [NOTES_V1])
    assert raised.value.code == "unavailable"
    assert "pallium doctor" in raised.value.hint
    assert path.read_bytes() == garbage


def test_nested_transaction_rolls_back_only_the_inner_block(tmp_path: Path):
    with open_database(tmp_path / "p.sqlite", [NOTES_V1]) as db:
        with db.transaction():
            db.execute("INSERT INTO notes_note(body) VALUES ('kept')")
            with pytest.raises(RuntimeError), db.transaction():
                db.execute("INSERT INTO notes_note(body) VALUES ('dropped')")
                raise RuntimeError("boom")
        assert [b for (b,) in db.execute("SELECT body FROM notes_note")] == ["kept"]


def test_busy_timeout_is_at_least_five_seconds(tmp_path: Path):
    with open_database(tmp_path / "p.sqlite") as db:
        assert db.execute("PRAGMA busy_timeout").get >= 5000


def test_second_writer_waits_for_the_lock_then_proceeds(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    first = open_database(path, [NOTES_V1])
    second = apsw.Connection(str(path))
    second.set_busy_timeout(50)
    with first.transaction():
        first.execute("INSERT INTO notes_note(body) VALUES ('x')")
        with pytest.raises(apsw.BusyError):
            second.execute("BEGIN IMMEDIATE")
    second.execute("BEGIN IMMEDIATE")
    second.execute("COMMIT")
    first.close()
    second.close()


def test_open_repo_creates_an_ignored_state_folder(git_repo: Path):
    store.open_repo(git_repo, [NOTES_V1]).close()
    assert (git_repo / ".pallium" / "pallium.sqlite").exists()
    (git_repo / ".pallium" / "config.toml").write_text("[workflows]\n", encoding="utf-8")
    status = git(git_repo, "status", "--porcelain", "--untracked-files=all")
    assert status.splitlines() == ["?? .pallium/config.toml"]


def test_open_global_uses_pallium_home(pallium_home: Path):
    store.open_global([NOTES_V1]).close()
    assert (pallium_home / "pallium.sqlite").exists()


def test_unwritable_home_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("PALLIUM_HOME", str(blocker / "home"))
    with pytest.raises(PalliumError) as raised:
        store.open_global([NOTES_V1])
    assert raised.value.code == "unavailable"
    assert "PALLIUM_HOME" in raised.value.message


class _GlobalNotes:
    DATABASE = "global"
    SCHEMAS = (Schema("notes", ("CREATE TABLE notes_note (id INTEGER PRIMARY KEY)",)),)

    def __init__(self, db: store.Database) -> None:
        self.db = db


class _RepoNotes(_GlobalNotes):
    DATABASE = "repo"


def test_a_store_opens_in_the_database_it_declares_and_shares_the_calls_connection(tmp_path: Path, pallium_home):
    from kernel import paths
    from kernel.context import ToolContext

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    ctx = ToolContext(cwd=repo)
    try:
        first, again = ctx.store(_GlobalNotes), ctx.store(_GlobalNotes)
        in_repo = ctx.store(_RepoNotes, repo)
        assert first.db is again.db and first.db.path == paths.global_db_path()
        assert in_repo.db.path == paths.repo_db_path(repo)
        assert read_versions(in_repo.db.path)["notes"]["version"] == 1
        with pytest.raises(TypeError, match="pass repo_root"):
            ctx.store(_RepoNotes)
        with pytest.raises(TypeError, match="does not apply"):
            ctx.store(_GlobalNotes, repo)
    finally:
        ctx.close()
    alone = store.open_store(_RepoNotes, repo)
    try:
        assert alone.db.path == paths.repo_db_path(repo)
    finally:
        alone.db.close()


def test_a_migration_of_existing_tables_backs_the_file_up_first_and_the_backup_opens(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    with open_database(path, [NOTES_V1]) as db:
        db.execute("INSERT INTO notes_note(body) VALUES ('kept')")
    assert list(tmp_path.glob("*.bak")) == []  # creating tables is not a migration of data
    with open_database(path, [NOTES_V2]) as db:
        assert db.execute("SELECT body, tag FROM notes_note").get == ("kept", None)
    [backup] = tmp_path.glob("p.sqlite.notes-v1.*.bak")
    assert backup.stat().st_mode & 0o777 == 0o600
    conn = apsw.Connection(str(backup), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert conn.execute("SELECT body FROM notes_note").get == "kept"
        assert conn.execute("SELECT version FROM kernel_schema WHERE service = 'notes'").get == 1
        assert conn.execute("PRAGMA journal_mode").get == "delete"
        assert [r[1] for r in conn.execute("PRAGMA table_info(notes_note)")] == ["id", "body"]
    finally:
        conn.close()
    open_database(path, [NOTES_V2]).close()
    assert len(list(tmp_path.glob("*.bak"))) == 1  # nothing to migrate: no second copy


def test_a_link_where_the_backup_would_go_is_refused(tmp_path: Path):
    path = tmp_path / "p.sqlite"
    open_database(path, [NOTES_V1]).close()
    with open_database(path) as db:
        victim = tmp_path / "victim.txt"
        victim.write_text("mine", encoding="utf-8")
        target = tmp_path / "p.sqlite.notes-v1.20300101T000000Z.bak"
        target.symlink_to(victim)
        with pytest.raises(PalliumError):
            store.backup_before_migration(db, {"notes": 1}, root=tmp_path, stamp="20300101T000000Z")
    assert victim.read_text(encoding="utf-8") == "mine"
