"""The kernel and the adapters type-check: mypy over kernel/ and pallium_mcp/ (pyproject.toml's [tool.mypy])."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_errors_in_kernel_and_pallium_mcp(tmp_path: Path):
    if shutil.which("mypy") is None and subprocess.run([sys.executable, "-m", "mypy", "--version"]).returncode:
        pytest.fail('mypy is not installed: pip install -e ".[test]"')
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "kernel", "pallium_mcp"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
