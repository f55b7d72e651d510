"""The kernel and the adapters type-check: mypy over kernel/ and pallium_mcp/ (pyproject.toml's [tool.mypy])."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# A service calling another's front door, as services write it: the answer's fields read without a
# `type: ignore`, and a call with arguments of the wrong type refused (the ignore below is needed,
# and `warn_unused_ignores` fails the run if `ctx.call` ever stops checking its arguments).
FRONT_DOOR_CALLER = """
from kernel.context import ToolContext


async def caller(ctx: ToolContext) -> str:
    out = await ctx.call("pallium_explain", {"path": "shop/cart.py"})
    await ctx.call(3, [])  # type: ignore[arg-type]
    return str(out.freshness.status)
"""


def test_mypy_finds_no_errors_in_kernel_and_pallium_mcp(tmp_path: Path):
    if shutil.which("mypy") is None and subprocess.run([sys.executable, "-m", "mypy", "--version"]).returncode:
        pytest.fail('mypy is not installed: pip install -e ".[test]"')
    sample = tmp_path / "front_door_caller.py"
    sample.write_text(FRONT_DOOR_CALLER, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "kernel", "pallium_mcp", str(sample)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


def test_no_service_needs_a_type_ignore_to_call_another_front_door():
    calls = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "services").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ".call(" in line and "type: ignore" in line
    ]
    assert calls == []
