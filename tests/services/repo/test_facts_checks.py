"""`pallium_facts` checks: the commands for groups of paths, a test in the group running itself."""

from pathlib import Path

import pytest

from kernel.clock import SystemClock
from kernel.context import ToolContext
from kernel.dispatch import call
from tests.conftest import git, write

pytestmark = pytest.mark.anyio


async def test_a_test_file_in_a_group_is_among_the_tests_its_checks_run(empty_repo: Path):
    write(empty_repo, "pyproject.toml", "[project]\nname = 'demo'\n")
    write(empty_repo, "app/core.py", "def run():\n    return 1\n")
    write(empty_repo, "tests/test_core.py", "from app.core import run\n\ndef test_run():\n    assert run()\n")
    write(empty_repo, "tests/test_other.py", "def test_other():\n    assert True\n")
    git(empty_repo, "add", ".")
    git(empty_repo, "commit", "-q", "-m", "start")
    ctx = ToolContext(cwd=empty_repo, clock=SystemClock())
    try:
        out = await call(
            "pallium_facts",
            {
                "sections": ["checks"],
                "checks": [["tests/test_other.py"], ["app/core.py"], ["app/core.py", "tests/test_other.py"]],
            },
            ctx,
        )
    finally:
        ctx.close()
    assert [c.fast for c in out.checks] == [
        ["python -m pytest -q tests/test_other.py"],
        ["python -m pytest -q tests/test_core.py"],
        ["python -m pytest -q tests/test_core.py tests/test_other.py"],
    ]
