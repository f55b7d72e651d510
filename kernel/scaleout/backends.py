"""The two databases the call queue runs on, and the few ways they differ.

`QueueStore` (kernel/scaleout/store.py) writes one SQL for both; a backend says how a connection
opens and reconnects, which errors mean it was lost or a table is missing, the claim's row lock
(`FOR UPDATE SKIP LOCKED` on Postgres; on SQLite, which has one writer, `BEGIN IMMEDIATE` is the
lock), the database's clock, the DDL's column types, and how a waiter is woken (`LISTEN/NOTIFY`
on Postgres, a short poll on SQLite). `connect` picks one from a URL, refusing credentials in it
(kernel/scaleout/credentials.py says where a password may come from).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from kernel.errors import PalliumError
from kernel.scaleout.credentials import check_url, password_for

if TYPE_CHECKING:
    from kernel.scaleout.store import QueueStore

__all__ = ["Backend", "PostgresBackend", "SqliteBackend", "check_url", "connect"]


class Backend:
    """What differs between the databases: connect, the claim lock, the clock, wake-ups, the DDL types."""

    claim_lock = ""
    row_lock = ""  # the lock of a read-modify-write of one row (`FOR UPDATE`; SQLite's BEGIN IMMEDIATE is one)
    now = ""
    migration_lock = ""  # a statement that serialises concurrent migrations (workers starting together)
    blob = ""  # the DDL's binary and floating-point column types
    real = ""
    lost: tuple[type[BaseException], ...] = ()  # errors that mean the connection is gone (reconnect and retry)
    missing: tuple[type[BaseException], ...] = ()  # the error of a query on a table that does not exist

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        raise NotImplementedError
        yield

    def reconnect(self) -> None:
        raise NotImplementedError

    def notify(self, channel: str, payload: str) -> None:
        raise NotImplementedError

    def wait(self, channels: Sequence[str], timeout: float) -> bool:
        """Block until one of `channels` is notified or `timeout` passes; True when woken."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class SqliteBackend(Backend):
    """One machine's queue in a SQLite file (several processes of one host share it)."""

    claim_lock = ""
    now = "((julianday('now') - 2440587.5) * 86400.0)"
    blob, real = "BLOB", "REAL"

    def __init__(self, path: Path) -> None:
        import apsw

        self.path = path
        self.lost = (apsw.BusyError,)
        self.missing = (apsw.SQLError,)
        self.conn = apsw.Connection(str(path))
        self.conn.setbusytimeout(10_000)
        self.conn.execute("PRAGMA journal_mode=WAL")

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self.conn.execute(sql, tuple(args))]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def reconnect(self) -> None:
        time.sleep(0.05)

    def notify(self, channel: str, payload: str) -> None:
        pass  # waiters poll: one file, one host

    def wait(self, channels: Sequence[str], timeout: float) -> bool:
        time.sleep(min(timeout, 0.02))
        return False

    def close(self) -> None:
        self.conn.close()


class PostgresBackend(Backend):
    """Postgres through psycopg: autocommit statements, explicit transactions, LISTEN on its own connection."""

    claim_lock = " FOR UPDATE SKIP LOCKED"
    row_lock = " FOR UPDATE"
    now = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"
    blob, real = "BYTEA", "DOUBLE PRECISION"
    migration_lock = "SELECT pg_advisory_xact_lock(31031031)"

    def __init__(self, url: str) -> None:
        import psycopg

        self.url = url
        self.lost = (psycopg.OperationalError, psycopg.InterfaceError)
        self.missing = (psycopg.errors.UndefinedTable,)
        self._psycopg = psycopg
        self.conn: Any = None
        self.listener: Any = None
        self._listening: set[str] = set()
        password = password_for(url)  # the keyring's, when no password file is named; held in memory only
        self._extra: dict[str, Any] = {"password": password} if password else {}
        self._connect()

    def _open(self) -> Any:
        return self._psycopg.connect(self.url, autocommit=True, connect_timeout=10, **self._extra)

    def _connect(self) -> None:
        self.conn = self._open()

    def execute(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self.conn.execute(sql.replace("?", "%s"), tuple(args))
        return [tuple(row) for row in cursor.fetchall()] if cursor.description else []

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self.conn.transaction():
            yield

    def reconnect(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()
        self._connect()

    def notify(self, channel: str, payload: str) -> None:
        self.conn.execute("SELECT pg_notify(%s, %s)", (channel, payload))

    def wait(self, channels: Sequence[str], timeout: float) -> bool:
        if self.listener is not None and self.listener.broken:
            with contextlib.suppress(Exception):
                self.listener.close()
        if self.listener is None or self.listener.closed:
            self.listener = self._open()
            self._listening = set()
        for channel in set(channels) - self._listening:
            self.listener.execute(f"LISTEN {channel}")
            self._listening.add(channel)
        woken = False
        # drain what arrived meanwhile without blocking, then block for the first one
        for _ in self.listener.notifies(timeout=0.0):
            woken = True
        if woken:
            return True
        for _ in self.listener.notifies(timeout=timeout, stop_after=1):
            return True
        return False

    def close(self) -> None:
        for conn in (self.conn, self.listener):
            with contextlib.suppress(Exception):
                if conn is not None:
                    conn.close()


def connect(url: str) -> QueueStore:
    """Open the queue named by `url` (`postgresql://...`, or `sqlite:///path` for one machine) and migrate it."""
    scheme = urlsplit(url).scheme
    if scheme in ("postgres", "postgresql"):
        check_url(url)
        try:
            backend: Backend = PostgresBackend(url)
        except ImportError as exc:
            raise PalliumError(
                "unavailable",
                "the Postgres driver psycopg is not installed",
                hint="install the extra: pip install 'pallium[postgres]'",
            ) from exc
        except Exception as exc:  # psycopg.OperationalError and kin: the database cannot be reached
            raise PalliumError(
                "unavailable",
                f"cannot connect to the database: {str(exc).strip()[:300]}",
                hint="check the URL, that Postgres is running, and the password file or keyring entry "
                "(see docs/scale-out.md)",
            ) from exc
    elif scheme == "sqlite":  # as SQLAlchemy writes it: sqlite:///relative/path, sqlite:////absolute/path
        backend = SqliteBackend(Path(urlsplit(url).path[1:]))
    else:
        raise PalliumError(
            "invalid_input",
            f"database URL must start with postgresql:// or sqlite:///, not {scheme or url[:20]!r}",
            details={"field": "database"},
            hint="pass --database postgresql://user@host/db (password in a 0600 file, see docs/scale-out.md)",
        )
    from kernel.scaleout.store import QueueStore

    store = QueueStore(backend)
    store.migrate()
    return store
