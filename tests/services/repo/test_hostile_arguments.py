"""Arguments too big for the commands they reach are bad input, named as such, never a bug."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.errors import PalliumError
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


async def test_a_base_too_long_for_a_git_command_line_is_invalid_input(empty_repo: Path):
    commit(empty_repo, "Start", {"a.py": "A = 1\n"})
    with pytest.raises(PalliumError) as caught:
        await ask(empty_repo, "handoff", base="x" * 300_000)  # one argv string past Linux's 128 KB
    assert caught.value.code == "invalid_input"
    assert "too long to pass to a command" in caught.value.message
    assert len(caught.value.message) < 200  # the value itself is not echoed
