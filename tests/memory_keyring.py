"""A real keyring backend that keeps its entries in a dict (keyring's own extension point), so the
keyring paths run without the machine's keyring; the `memory_keyring` fixture installs it."""

from __future__ import annotations

from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    """Passwords in a dict, for this process only."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.entries.pop((service, username), None)
