"""Keys for providers and embedding endpoints: from the environment first, then the OS keyring.

Keys never enter the database, logs or argv. A machine without a usable keyring backend (a
headless Linux box) is normal: reads return None and writes raise a clear `unavailable` error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from kernel.errors import PalliumError

__all__ = ["Credential", "get_credential", "keyring_status", "store_in_keyring"]


@dataclass(frozen=True)
class Credential:
    value: str
    source: str  # "env:NAME" or "keyring:SERVICE"

    def __repr__(self) -> str:  # never print the key itself
        return f"Credential(source={self.source!r})"


def get_credential(*, env_vars: Sequence[str], keyring_service: str | None = None,
                   keyring_user: str = "default") -> Credential | None:
    """The first non-empty of `env_vars`, else the keyring entry, else None."""
    for name in env_vars:
        value = os.environ.get(name)
        if value:
            return Credential(value, f"env:{name}")
    if keyring_service is None:
        return None
    backend = _usable_keyring()
    if backend is None:
        return None
    try:
        value = backend.get_password(keyring_service, keyring_user)
    except Exception:  # locked collections, D-Bus errors: the keyring is simply not usable now
        return None
    return Credential(value, f"keyring:{keyring_service}") if value else None


def store_in_keyring(service: str, user: str, value: str) -> None:
    backend = _usable_keyring()
    if backend is None:
        raise PalliumError(
            "unavailable",
            "no OS keyring is usable on this machine",
            hint="export the key in an environment variable instead, or install a Secret Service / keyrings.alt",
        )
    try:
        backend.set_password(service, user, value)
    except Exception as exc:
        raise PalliumError("unavailable", f"the keyring refused to store the key: {type(exc).__name__}",
                           hint="export the key in an environment variable instead") from exc


def keyring_status() -> tuple[bool, str]:
    """Whether a keyring backend is usable, and which (or why not)."""
    try:
        import keyring
        from keyring.backends.fail import Keyring as FailKeyring

        backend = keyring.get_keyring()
    except Exception as exc:
        return False, f"keyring unusable: {exc}"
    if isinstance(backend, FailKeyring):
        return False, "no keyring backend on this machine"
    return True, f"{type(backend).__module__}.{type(backend).__name__}"


def _usable_keyring():
    try:
        import keyring
        from keyring.backends.fail import Keyring as FailKeyring

        backend = keyring.get_keyring()
    except Exception:
        return None
    return None if isinstance(backend, FailKeyring) else backend
