"""Suggested verification commands start and run the intended tests, on real fixture repositories."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


@pytest.fixture
def py_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        "Start",
        {
            "pyproject.toml": '[project]\nname = "geo"\n\n[tool.ruff]\nline-length = 100\n',
            "uv.lock": "version = 1\n",
            "CHANGELOG.md": "# 1.0\n",
            "geo/__init__.py": "",
            "geo/io.py": "def read():\n    return 1\n",
            "tests/__init__.py": "",
            "tests/conftest.py": "import pytest\n",
            "tests/fixtures/sample.py": "DATA = 1\n",
            "tests/test_app.py": "from geo.io import read\n\n\ndef test_app():\n    assert read() == 1\n",
            "tests/test_io.py": "from geo.io import read\n\n\ndef test_read():\n    assert read() == 1\n",
        },
    )
    return repo


async def test_the_fast_command_runs_the_files_own_test_first_and_passes(py_repo: Path) -> None:
    out = await ask(py_repo, "pallium_explain", path="geo/io.py")
    assert "tests/conftest.py" not in out.tests and "tests/fixtures/sample.py" not in out.tests
    fast = out.verification.fast
    assert fast and fast[0].split()[4] == "tests/test_io.py"
    argv = shlex.split(fast[0])
    argv[0] = sys.executable
    ran = subprocess.run(
        [*argv, "-p", "no:cacheprovider"],
        cwd=py_repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(py_repo)},
        timeout=120,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed" in ran.stdout


async def test_linters_get_only_existing_files_of_their_language(py_repo: Path) -> None:
    (py_repo / "geo" / "io.py").write_text("def read():\n    return 2\n", encoding="utf-8")
    (py_repo / "uv.lock").write_text("version = 2\n", encoding="utf-8")
    (py_repo / "CHANGELOG.md").write_text("# 1.1\n", encoding="utf-8")
    git(py_repo, "rm", "-q", "tests/test_app.py")
    out = await ask(py_repo, "pallium_handoff", base="HEAD")
    ruff = [c for c in out.verification.safe if c.startswith("ruff check")]
    assert ruff == ["ruff check geo/io.py"]
