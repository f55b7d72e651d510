"""The SQLite store: opening, per-service ordered migrations, and the schema check on open.

Each service declares a `Schema` in its own `store.py`: a name and an append-only tuple of SQL
migrations whose position is the version. Opening a database applies what is missing inside
one `BEGIN IMMEDIATE` transaction, first copying the file aside when a service's existing tables
are about to change (`pallium.sqlite.<service>-v<N>.<time>.bak`, a plain SQLite file that opens
on its own), refuses a file written by a newer schema, and verifies that
every table and column the migrations create is really there, so a damaged or hand-edited file
fails loudly on open instead of half-way through a call. The kernel's own bookkeeping table
`kernel_schema` records each service's version and the Pallium version that wrote it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

import apsw

from kernel import paths, writes
from kernel.errors import PalliumError

__all__ = [
    "Database",
    "Schema",
    "ServiceStore",
    "backup_before_migration",
    "check_database",
    "export_rows",
    "import_rows",
    "open_database",
    "open_global",
    "open_repo",
    "open_store",
    "read_versions",
]

BUSY_TIMEOUT_MS = 10_000
REPO_GITIGNORE = writes.REPO_GITIGNORE
# SQLite opens the file by name: `check_file` refuses links for it and for each of its companions.
_COMPANIONS = ("", "-wal", "-shm", "-journal")

_KERNEL_TABLE = """
CREATE TABLE IF NOT EXISTS kernel_schema (
    service TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    written_by TEXT NOT NULL,
    updated_at TEXT NOT NULL
)
"""


@dataclass(frozen=True)
class Schema:
    """A service's tables: `migrations[i]` brings the schema from version i to i + 1. Append only."""

    service: str
    migrations: tuple[str, ...]
    needs_vec: bool = False

    @property
    def version(self) -> int:
        return len(self.migrations)


class ServiceStore(Protocol):
    """What a service's store class declares so `ToolContext.store(...)` can open it, the one way.

    `DATABASE` says which file it lives in (the global one under `$PALLIUM_HOME`, or the
    repository's); `SCHEMAS` are the schemas it reads and writes, its own and any kernel one it
    joins (the run journal), migrated and verified on open.
    """

    # Plain attributes, not ClassVar: a store class sets them in its body (`DATABASE = "repo"`),
    # which mypy reads as attributes, and a ClassVar member would refuse it.
    DATABASE: str  # "global" or "repo"
    SCHEMAS: tuple[Schema, ...]

    def __init__(self, db: Database) -> None: ...


StoreT = TypeVar("StoreT", bound=ServiceStore)


def export_rows(
    db: Database, table: str, where: str, args: Sequence[Any] = (), *, tail: int | None = None
) -> list[dict[str, Any]]:
    """The rows of `table` matching `where` as column -> value (bytes as hex), for a store's export of one run.

    With `tail`, only the last `tail` rows by rowid (a run's newest events). The store names its table;
    this only copies.
    """
    sql = f"SELECT * FROM {table} WHERE {where}"
    if tail is not None:
        sql = (
            f"SELECT * FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE {where} "
            f"ORDER BY rowid DESC LIMIT {int(tail)}) ORDER BY rowid"
        )
    cursor = db.execute(sql, tuple(args))
    try:
        names = [d[0] for d in cursor.getdescription()]
    except apsw.ExecutionCompleteError:  # no row: the statement is done before its columns are asked for
        return []
    rows = cursor.fetchall()
    return [
        {n: ({"hex": v.hex()} if isinstance(v, bytes) else v) for n, v in zip(names, row, strict=True)} for row in rows
    ]


def import_rows(db: Database, table: str, rows: Sequence[dict[str, Any]], *, key: Sequence[str] = ()) -> None:
    """Write rows `export_rows` made back into `table`, updating a row with the same `key` in place
    (an upsert, not a REPLACE: a REPLACE deletes first, and the delete cascades to the row's children)."""
    for row in rows:
        names = list(row)
        values = [bytes.fromhex(v["hex"]) if isinstance(v, dict) and "hex" in v else v for v in row.values()]
        sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
        if key:
            updates = ", ".join(f"{n} = excluded.{n}" for n in names if n not in key)
            sql += f" ON CONFLICT({', '.join(key)}) DO UPDATE SET {updates}"
        else:
            sql += " ON CONFLICT DO NOTHING"
        db.execute(sql, values)


class Database:
    """An open apsw connection with Pallium's settings, and transactions that nest."""

    def __init__(self, conn: apsw.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._depth = 0

    def execute(self, sql: str, bindings: Sequence[Any] | dict[str, Any] | None = None) -> apsw.Cursor:
        with _translated(self.path):
            return self.conn.execute(sql, bindings)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> apsw.Cursor:
        with _translated(self.path):
            return self.conn.executemany(sql, rows)

    @contextlib.contextmanager
    def transaction(self, *, immediate: bool = True) -> Iterator[Database]:
        """Run a block atomically. The outermost level takes the write lock up front when `immediate`."""
        if self._depth:
            name = f"sp{self._depth}"
            self.execute(f"SAVEPOINT {name}")
            self._depth += 1
            try:
                yield self
            except BaseException:
                self.execute(f"ROLLBACK TO {name}")
                self.execute(f"RELEASE {name}")
                raise
            else:
                self.execute(f"RELEASE {name}")
            finally:
                self._depth -= 1
            return
        self.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
        self._depth = 1
        try:
            yield self
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.execute("COMMIT")
        finally:
            self._depth = 0

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_global(schemas: Sequence[Schema] = ()) -> Database:
    """Open `$PALLIUM_HOME/pallium.sqlite`, creating the home folder if needed."""
    paths.ensure_home()
    return open_database(paths.global_db_path(), schemas, root=paths.pallium_home())


def open_repo(repo_root: Path, schemas: Sequence[Schema] = ()) -> Database:
    """Open `<repo>/.pallium/pallium.sqlite`; the folder's `.gitignore` keeps the databases out of git."""
    writes.state_dir(repo_root)
    return open_database(paths.repo_db_path(repo_root), schemas, root=repo_root)


def open_store(kind: type[StoreT], repo_root: Path | None = None) -> StoreT:
    """Open the store `kind` on a database of its own, for code with no `ToolContext`.

    Handlers use `ctx.store(kind, ...)`, which shares one connection per call; this is for a
    server's request thread or the run engine. The caller closes `store.db`.
    """
    return kind(open_database_of(kind, repo_root))


def open_database_of(kind: type[ServiceStore], repo_root: Path | None = None) -> Database:
    """The database `kind` lives in, opened with its schemas: the rule both openers share."""
    check_placement(kind, repo_root)
    if repo_root is not None:
        return open_repo(repo_root, kind.SCHEMAS)
    return open_global(kind.SCHEMAS)


def check_placement(kind: type[ServiceStore], repo_root: Path | None) -> None:
    """Refuse a repository store opened without its repository, or a global one given one."""
    if kind.DATABASE == "repo" and repo_root is None:
        raise TypeError(f"{kind.__name__} lives in a repository's database: pass repo_root")
    if kind.DATABASE != "repo" and repo_root is not None:
        raise TypeError(f"{kind.__name__} lives in the global database: repo_root does not apply")
    if kind.DATABASE not in ("global", "repo"):
        raise TypeError(f"{kind.__name__}.DATABASE must be 'global' or 'repo', not {kind.DATABASE!r}")


def open_database(path: Path, schemas: Sequence[Schema] = (), *, root: Path | None = None) -> Database:
    """Open (or create) the database at `path`, migrate `schemas` forward and verify them.

    No link is followed below `root` (default: the file's own folder) to the file or its companions.
    """
    for suffix in _COMPANIONS:
        writes.check_file(Path(f"{path}{suffix}"), root=root or path.parent)
    flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_NOFOLLOW
    try:
        conn = apsw.Connection(str(path), flags=flags)
    except apsw.CantOpenError as exc:
        raise PalliumError(
            "unavailable",
            f"cannot open database {str(path)!r}",
            details={"path": str(path)},
            hint="check that the folder exists and is writable; `pallium doctor` checks the databases",
        ) from exc
    db = Database(conn, path)
    try:
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        with _translated(path):
            conn.execute("PRAGMA journal_mode=WAL").fetchall()  # the pragma takes effect when stepped
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
            if any(s.needs_vec for s in schemas):
                _load_vec(conn)
            _migrate(db, schemas, root=root or path.parent)
            for schema in schemas:
                _verify(db, schema)
    except BaseException:
        conn.close()
        raise
    return db


def read_versions(path: Path) -> dict[str, dict[str, Any]]:
    """Each service's schema version in the file at `path`, read only; `{}` when there is none."""
    if not path.exists():
        return {}
    with _translated(path):
        conn = _connect_read_only(path)
        try:
            has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='kernel_schema'").get
            if not has_table:
                return {}
            rows = conn.execute("SELECT service, version, written_by FROM kernel_schema ORDER BY service")
            return {service: {"version": v, "written_by": by} for service, v, by in rows}
        finally:
            conn.close()


def check_database(path: Path, schemas: Sequence[Schema]) -> dict[str, int]:
    """Run the checks `open_database` runs on open, read only: nothing is migrated or created.

    Of `schemas`, those the file records are checked: a version newer than this Pallium knows is
    refused, and every table and column its stored version should have must be there. Returns
    each recorded service's version (services this Pallium does not know included); `{}` when
    the file does not exist. Raises the PalliumError opening the file would raise.
    """
    if not path.exists():
        return {}
    with _translated(path):
        try:
            conn = _connect_read_only(path)
        except apsw.CantOpenError as exc:
            raise PalliumError(
                "unavailable",
                f"cannot open database {str(path)!r}",
                details={"path": str(path)},
                hint="check that the file exists and is readable; `pallium doctor` checks the databases",
            ) from exc
        db = Database(conn, path)
        try:
            has_table = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='kernel_schema'").get
            stored = _stored_versions(db) if has_table else {}
            recorded = [s for s in schemas if s.service in stored]
            _refuse_newer(path, recorded, stored)
            if any(s.needs_vec for s in recorded):
                _load_vec(conn)
            for schema in recorded:
                # An older file is migrated on its next open: check it against the version it holds.
                at_stored = Schema(schema.service, schema.migrations[: stored[schema.service]], schema.needs_vec)
                _verify(db, at_stored)
            return stored
        finally:
            conn.close()


def _connect_read_only(path: Path) -> apsw.Connection:
    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_NOFOLLOW)
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    return conn


def _migrate(db: Database, schemas: Sequence[Schema], *, root: Path) -> None:
    db.execute(_KERNEL_TABLE)
    stored = _stored_versions(db)
    if all(stored.get(s.service, 0) == s.version for s in schemas):
        return
    _refuse_newer(db.path, schemas, stored)
    upgrading = {s.service: stored[s.service] for s in schemas if 0 < stored.get(s.service, 0) < s.version}
    if upgrading:
        # Tables that hold data are about to change: keep the file as it was. SQLite cannot copy
        # a database its own connection is writing, so the copy comes before the write lock.
        backup_before_migration(db, upgrading, root=root)
    with db.transaction():
        stored = _stored_versions(db)  # another process may have migrated while we waited
        _refuse_newer(db.path, schemas, stored)
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        for schema in schemas:
            current = stored.get(schema.service, 0)
            if current == schema.version:
                continue
            for sql in schema.migrations[current:]:
                db.execute(sql)
            db.execute(
                "INSERT INTO kernel_schema(service, version, written_by, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(service) DO UPDATE SET version=excluded.version, "
                "written_by=excluded.written_by, updated_at=excluded.updated_at",
                (schema.service, schema.version, _pallium_version(), now),
            )


def backup_before_migration(db: Database, upgrading: dict[str, int], *, root: Path, stamp: str | None = None) -> Path:
    """Copy the open database, as it is now, to `<file>.<service>-v<version>.<time>.bak` beside it.

    SQLite's online backup copies every page as one consistent snapshot; the copy is made a
    standalone (rollback-journal) file, so it opens on its own. The file is created through
    `kernel.writes`: no link is followed.
    """
    stamp = stamp or datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    label = "-".join(f"{service}-v{version}" for service, version in sorted(upgrading.items()))
    for n in range(100):
        target = db.path.with_name(f"{db.path.name}.{label}.{stamp}{f'-{n}' if n else ''}.bak")
        try:
            os.close(writes.open_fd(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, root=root))
            break
        except FileExistsError:
            continue
    else:
        raise PalliumError("conflict", f"too many backups of {str(db.path)!r} this second", hint="retry in a second")
    flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_NOFOLLOW
    with _translated(target):
        dest = apsw.Connection(str(target), flags=flags)
        try:
            with dest.backup("main", db.conn, "main") as copy:
                copy.step()  # every page in one step
            dest.execute("PRAGMA journal_mode=DELETE").fetchall()
        finally:
            dest.close()
    return target


def _stored_versions(db: Database) -> dict[str, int]:
    return dict(db.execute("SELECT service, version FROM kernel_schema"))


def _refuse_newer(path: Path, schemas: Sequence[Schema], stored: dict[str, int]) -> None:
    for schema in schemas:
        found = stored.get(schema.service, 0)
        if found > schema.version:
            written_by = None
            with contextlib.suppress(apsw.Error):
                conn = _connect_read_only(path)
                written_by = conn.execute(
                    "SELECT written_by FROM kernel_schema WHERE service = ?", (schema.service,)
                ).get
                conn.close()
            raise PalliumError(
                "conflict",
                f"database {str(path)!r} holds {schema.service} schema version {found}, written by pallium "
                f"{written_by or 'unknown'}; this pallium ({_pallium_version()}) knows version {schema.version} "
                "and will not downgrade it",
                hint="upgrade pallium to the version that wrote this database",
                details={
                    "path": str(path),
                    "service": schema.service,
                    "found": found,
                    "supported": schema.version,
                    "written_by": written_by,
                },
            )


def _verify(db: Database, schema: Schema) -> None:
    expected = _expected_columns(schema)
    actual_tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for table, columns in expected.items():
        if table not in actual_tables:
            raise _schema_damaged(db.path, schema, f"table {table!r} is missing")
        present = {row[1] for row in db.execute(f"PRAGMA table_info({_quote(table)})")}
        missing = sorted(set(columns) - present)
        if missing:
            raise _schema_damaged(db.path, schema, f"table {table!r} lacks column(s) {', '.join(missing)}")


@functools.cache
def _expected_columns(schema: Schema) -> dict[str, tuple[str, ...]]:
    """The tables and columns the migrations create, found by running them on an empty database."""
    conn = apsw.Connection(":memory:")
    try:
        if schema.needs_vec:
            _load_vec(conn)
        for sql in schema.migrations:
            conn.execute(sql)
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: tuple(row[1] for row in conn.execute(f"PRAGMA table_info({_quote(t)})")) for t in tables}
    finally:
        conn.close()


def _schema_damaged(path: Path, schema: Schema, what: str) -> PalliumError:
    return PalliumError(
        "unavailable",
        f"database {str(path)!r} does not match {schema.service} schema version {schema.version}: {what}",
        hint=reset_hint(path),
        details={"path": str(path), "service": schema.service},
    )


def reset_hint(path: Path) -> str:
    """The commands, ready to paste, that look at a damaged database file and move it aside."""
    if path == paths.global_db_path():
        reset = "pallium db reset --scope global --confirm --authority admin"
    else:
        reset = f"pallium db reset --repo {shlex.quote(str(path.parent.parent))} --confirm --authority admin"
    return f"run `pallium doctor`; `{reset}` moves the file aside (nothing is deleted) and starts afresh"


def quick_check(path: Path) -> str | None:
    """SQLite's `PRAGMA quick_check` on the file, read only: None when it is sound, else the first problem.

    Opening verifies only the schema tables; a page damaged in the middle of the file shows here.
    """
    with _translated(path):
        conn = _connect_read_only(path)
        try:
            rows = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
        finally:
            conn.close()
    return None if rows == ["ok"] else "; ".join(str(r) for r in rows)


def _load_vec(conn: apsw.Connection) -> None:
    try:
        import sqlite_vec
    except ImportError as exc:
        raise PalliumError("unavailable", "sqlite-vec is not installed", hint="pip install sqlite-vec") from exc
    conn.enable_load_extension(True)
    try:
        conn.load_extension(sqlite_vec.loadable_path())
    finally:
        conn.enable_load_extension(False)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@functools.cache
def _pallium_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pallium")
    except PackageNotFoundError:
        return "unknown"


@contextlib.contextmanager
def _translated(path: Path) -> Iterator[None]:
    """Turn apsw's errors about the file itself into PalliumErrors that say what to do."""
    try:
        yield
    except (apsw.NotADBError, apsw.CorruptError) as exc:
        raise PalliumError(
            "unavailable",
            f"database {str(path)!r} is corrupt or not a SQLite file ({exc}); it was left as it is",
            hint=reset_hint(path),
            details={"path": str(path)},
        ) from exc
    except apsw.BusyError as exc:
        raise PalliumError(
            "conflict",
            f"database {str(path)!r} stayed locked by another Pallium process for {BUSY_TIMEOUT_MS // 1000}s",
            hint="wait for the other process to finish, then retry",
            details={"path": str(path)},
        ) from exc
    except apsw.ReadOnlyError as exc:
        raise PalliumError(
            "unavailable",
            f"database {str(path)!r} is read-only",
            details={"path": str(path)},
            hint="make the file and its folder writable, or set PALLIUM_HOME to a writable folder",
        ) from exc
