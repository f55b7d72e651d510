import multiprocessing
import os
from pathlib import Path

import pytest

from kernel.credentials import get_credential, keyring_status, store_in_keyring
from kernel.errors import PalliumError
from kernel.locks import exclusive


def test_environment_wins_and_the_key_never_shows_in_repr(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PALLIUM_TEST_KEY", "sk-very-secret")
    found = get_credential(env_vars=["PALLIUM_MISSING_KEY", "PALLIUM_TEST_KEY"], keyring_service="app.pallium.test")
    assert found.value == "sk-very-secret" and found.source == "env:PALLIUM_TEST_KEY"
    assert "sk-very-secret" not in repr(found)


def test_no_keyring_backend_means_none_on_read_and_a_clear_error_on_write(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    import keyring.core

    previous = keyring.core.get_keyring()
    keyring.core.set_keyring(keyring.core.load_keyring("keyring.backends.fail.Keyring"))
    try:
        assert get_credential(env_vars=[], keyring_service="app.pallium.test") is None
        assert keyring_status()[0] is False
        with pytest.raises(PalliumError) as raised:
            store_in_keyring("app.pallium.test", "default", "value")
    finally:
        keyring.core.set_keyring(previous)
    assert raised.value.code == "unavailable"


def _hold_then_exit(path: str, ready) -> None:
    with exclusive(Path(path), what="holder"):
        ready.set()
        os._exit(0)  # die holding the lock, as a crash would


def test_a_second_holder_is_refused_naming_the_first(pallium_home: Path):
    lock = pallium_home / "locks" / "index.lock"
    with exclusive(lock, what="pallium index"), pytest.raises(PalliumError) as raised, exclusive(lock, what="again"):
        pass
    assert raised.value.code == "conflict"
    assert raised.value.details["holder_pid"] == str(os.getpid())
    with exclusive(lock, what="pallium index"):
        pass


def test_a_lock_held_by_a_dead_process_is_free(pallium_home: Path):
    lock = pallium_home / "locks" / "sync.lock"
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    child = ctx.Process(target=_hold_then_exit, args=(str(lock), ready))
    child.start()
    child.join(timeout=10)
    assert ready.is_set()
    with exclusive(lock, what="sync", wait_seconds=1):
        pass
