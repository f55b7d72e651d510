"""A repository's own commands are its code: in an untrusted repository they are offered, not run.

Each kind of inferred command (pytest with a conftest.py, make with a Makefile, npm with a
package.json script) is planted so that running it appends to a marker outside the repository. A
run whose check names it must fail with the way to allow it and leave the marker absent; the same
run with `allow_repo_commands`, or after `pallium trust`, runs it (so the marker would catch a run).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from kernel.context import ToolContext
from pallium_mcp.cli import main
from services.workflows.models import RunInput
from services.workflows.runner import open_store
from services.workflows.tools import run
from tests.conftest import git, trusted, write

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def fake_provider(fake, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    return fake


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder / "ran.txt"


@pytest.fixture
def python_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "python-bin"
    folder.mkdir()
    shim = folder / "python"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")


def plant(repo: Path, kind: str, marker: Path) -> None:
    """Make the repository's own test command of `kind` append to `marker` when it runs."""
    write(repo, "calc.py", "def add(a, b):\n    return a + b\n")
    if kind == "pytest":
        write(repo, "pyproject.toml", '[project]\nname = "calc"\nversion = "0.1"\n')
        write(repo, "tests/conftest.py", f"open({str(marker)!r}, 'a').write('conftest ran\\n')\n")
        write(repo, "tests/test_calc.py", "def test_add():\n    assert 1 + 1 == 2\n")
    elif kind == "make":
        write(repo, "Makefile", f"test:\n\techo make ran >> {marker}\n")
        write(repo, "tests/test_calc.py", "def test_add():\n    assert 1 + 1 == 2\n")
    else:
        package = {"name": "calc", "version": "0.1.0", "scripts": {"test": f"echo npm ran >> {marker}"}}
        write(repo, "package.json", json.dumps(package))
        write(repo, "calc.test.js", "test('add', () => {});\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "project")
    write(repo, "calc.py", "def add(a, b):\n    return a + b  # changed\n")


async def _run(repo: Path, source: str, **extra):
    ctx = ToolContext(ceiling="edit", cwd=repo)
    try:
        return await run(RunInput(task="fix add in calc", source=source, **extra), ctx)
    finally:
        ctx.close()


async def inferred(repo: Path, run_id: str) -> list[str]:
    events = open_store(ToolContext(cwd=repo)).events(run_id, kind="verification")
    return events[0].detail["inferred"] if events else []


@pytest.mark.parametrize("kind", ["pytest", "make", "npm"])
async def test_an_inferred_command_is_offered_not_run_until_allowed(git_repo, marker, python_on_path, kind):
    if kind == "npm" and shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    plant(git_repo, kind, marker)
    probe = await _run(git_repo, 'return await check("true");', id=f"{kind}-probe")
    assert probe.status == "failed"
    commands = await inferred(git_repo, f"{kind}-probe")
    [command] = [c for c in commands if c.split()[0] == ("python" if kind == "pytest" else kind)][:1]
    source = f"return await check({json.dumps(command)});"
    refused = await _run(git_repo, source, id=f"{kind}-1")
    assert refused.status == "failed" and "offered, not run" in refused.error, refused.error
    assert not marker.exists(), marker.read_text()
    allowed = await _run(git_repo, source, id=f"{kind}-2", allow_repo_commands=True)
    assert allowed.status == "completed", allowed.error
    assert marker.exists()
    marker.unlink()
    trusted(git_repo)
    after_trust = await _run(git_repo, source, id=f"{kind}-3")
    assert after_trust.status == "completed", after_trust.error
    assert marker.exists()


async def test_an_explicitly_allowed_command_still_runs_untrusted(git_repo, marker):
    command = f"echo explicit >> {marker}"
    out = await _run(git_repo, f"return await check({json.dumps(command)});", id="explicit", allow_command=[command])
    assert out.status == "completed" and out.result["ok"] is True
    assert marker.read_text() == "explicit\n"


def test_start_says_the_repository_commands_are_offered_not_run(git_repo, marker, python_on_path, capsys, monkeypatch):
    plant(git_repo, "pytest", marker)
    monkeypatch.chdir(git_repo)
    assert main(["start", "fix add in calc", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "offered, not run" in out["repo_commands"] and "pallium trust" in out["repo_commands"]
    assert main(["start", "fix add in calc", "--dry-run", "--allow-repo-commands", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["repo_commands"] is None
    assert main(["start", "fix add in calc", "--dry-run"]) == 0
    assert "offered, not run" in capsys.readouterr().out
    assert not marker.exists()
