"""Which shared database a run or worker uses, and how its password is found: never on a command line.

The URL: `--database`, else `PALLIUM_DATABASE_URL`, else `[database] url` of `$PALLIUM_HOME/config.toml`
(mode 0600, as every file holding configuration). Never a repository's own `.pallium/config.toml`:
a repository that named the database would choose where its users' code and agents' replies go.

The password is never part of the URL (it would sit in the process list and shell history): a
libpq password file (`?passfile=PATH`, `PGPASSFILE`, or `~/.pgpass`) that only its owner can read,
or the OS keyring under service `pallium-database` and the user name `user@host:port/dbname`
(`python -m keyring set pallium-database me@db.example:5432/pallium`). A password file that others
can read is refused, not silently skipped as libpq would.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from kernel import paths
from kernel.credentials import get_credential
from kernel.errors import PalliumError

__all__ = ["KEYRING_SERVICE", "check_url", "database_url", "keyring_user", "password_for"]

KEYRING_SERVICE = "pallium-database"
ENV_URL = "PALLIUM_DATABASE_URL"


def database_url(given: str | None) -> str | None:
    """The database a run or worker uses: the argument, the environment, the home's config file, or none."""
    if given:
        return given
    if os.environ.get(ENV_URL):
        return os.environ[ENV_URL]
    config = paths.pallium_home() / "config.toml"
    if not config.is_file():
        return None
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PalliumError(
            "invalid_input", f"{config} is not valid TOML: {exc}", hint="fix the file or remove its [database] table"
        ) from exc
    section = data.get("database")
    url = section.get("url") if isinstance(section, dict) else None
    if url is None:
        return None  # a file that names no database changes nothing on a one-machine install
    if not isinstance(url, str):
        raise PalliumError(
            "invalid_input", f"[database] url in {config} must be a string", hint='url = "postgresql://..."'
        )
    if config.stat().st_mode & 0o077:
        raise PalliumError(
            "invalid_input",
            f"the configuration file {config} can be read or written by others",
            details={"field": "database"},
            hint=f"chmod 600 {config}",
        )
    return url or None


def check_url(url: str) -> None:
    """Refuse a password written in the URL itself and a password file others can read.

    TLS follows the URL's own `sslmode` (and `sslrootcert`), which libpq honours as written."""
    parts = urlsplit(url)
    if parts.password:
        raise PalliumError(
            "invalid_input",
            "the database URL holds a password; it would be visible to every process and in shell history",
            details={"field": "database"},
            hint="put it in a 0600 password file (`?passfile=/path` in the URL, or PGPASSFILE, or ~/.pgpass) "
            "or in the keyring (see docs/scale-out.md)",
        )
    for name in _passfiles(url):
        if os.path.exists(name) and os.stat(name).st_mode & 0o077:
            raise PalliumError(
                "invalid_input",
                f"the password file {name} can be read by others",
                details={"field": "database"},
                hint=f"chmod 600 {name}",
            )


def _passfiles(url: str) -> list[str]:
    named = [*parse_qs(urlsplit(url).query).get("passfile", []), os.environ.get("PGPASSFILE", "")]
    named = [n for n in named if n]
    return named or [str(Path.home() / ".pgpass")]


def keyring_user(url: str) -> str:
    """The keyring's user name for the database `url` names: `user@host:port/dbname`."""
    parts = urlsplit(url)
    user = unquote(parts.username or os.environ.get("PGUSER", "") or _login())
    return f"{user}@{parts.hostname or 'localhost'}:{parts.port or 5432}/{unquote(parts.path.lstrip('/')) or user}"


def password_for(url: str) -> str | None:
    """The keyring's password for `url`, unless a password file is named (the URL's `passfile`, PGPASSFILE):
    what is named explicitly wins. None leaves the choice to libpq (`~/.pgpass`, or no password)."""
    if any(n for n in [*parse_qs(urlsplit(url).query).get("passfile", []), os.environ.get("PGPASSFILE", "")]):
        return None
    found = get_credential(env_vars=(), keyring_service=KEYRING_SERVICE, keyring_user=keyring_user(url))
    return found.value if found is not None else None


def _login() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
