"""A throwaway Postgres cluster (initdb + pg_ctl on a free loopback port) for tests and benchmarks.

initdb refuses to run as root, so as root the cluster runs as `nobody` (every Debian and most
Linux systems have it) through `setpriv`; as any other user it runs as that user. `available()`
says why a cluster cannot start here, so a test can skip with the reason.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["Cluster", "available"]


def _binary(name: str) -> str | None:
    """`name` on PATH, else in Debian's versioned folder (the newest), where its postgresql package puts it."""
    found = shutil.which(name)
    if found:
        return found

    def version(path: str) -> int:
        return int("0" + "".join(c for c in path.split("/")[4] if c.isdigit()))

    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=version, reverse=True)
    return next((p for p in versions if os.access(p, os.X_OK)), None)


def available() -> str | None:
    """None when a cluster can start here, else the reason it cannot."""
    for name in ("initdb", "pg_ctl"):
        if _binary(name) is None:
            return f"{name} not found (install Debian's postgresql)"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'pallium[postgres]')"
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            return "running as root and setpriv (util-linux) is missing to run postgres as nobody"
        try:
            import pwd

            pwd.getpwnam("nobody")
        except KeyError:
            return "running as root and there is no user nobody to run postgres as"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """One cluster in a temporary folder; `url(db)` names a database in it, `create_database` makes one."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="pallium-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user = "pallium"
        self._as: list[str] = []
        if os.geteuid() == 0:
            import pwd

            nobody = pwd.getpwnam("nobody")
            os.chown(self.root, nobody.pw_uid, nobody.pw_gid)
            os.chmod(self.root, 0o700)
            self._as = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups", "--"]

    def _run(self, *argv: str) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        done = subprocess.run(
            [*self._as, *argv], cwd=self.root, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({done.returncode}): {done.stdout[-2000:]} {done.stderr[-2000:]}")

    def init(self) -> Cluster:
        initdb = _binary("initdb")
        assert initdb is not None
        self._run(initdb, "-D", str(self.data), "-U", self.user, "--auth=trust", "-E", "UTF8", "--no-sync")
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nport = {self.port}\nunix_socket_directories = '{self.root}'\n"
                "fsync = off\nfull_page_writes = off\nmax_connections = 200\n"
            )
        return self.start()

    def start(self) -> Cluster:
        pg_ctl = _binary("pg_ctl")
        assert pg_ctl is not None
        self._run(pg_ctl, "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "60", "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        pg_ctl = _binary("pg_ctl")
        assert pg_ctl is not None
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._run(pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def restart(self) -> None:
        self.stop("immediate")
        self.start()

    def destroy(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def __enter__(self) -> Cluster:
        return self.init()

    def __exit__(self, *exc: object) -> None:
        self.destroy()
