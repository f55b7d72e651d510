"""Edges of an untrusted repository: a validate that reads outside, a path too deep for a file name,
and a standard stream closed by the caller."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from pallium_mcp.server import build_server
from tests.conftest import git, script, write

pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("resident")]  # it starts resident servers too


@pytest.mark.parametrize("where", ["/etc/passwd", "../outside/secret.txt", "outside-abs"])
async def test_workflow_validate_reads_no_file_outside_the_repository(git_repo: Path, tmp_path: Path, where: str):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("return await agent('TOPSECRET-TOKEN-FRAGMENT');\n", encoding="utf-8")
    path = str(secret) if where == "outside-abs" else where
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    async with Client(build_server(toolsets="all", cwd=git_repo)) as client:
        result = await client.call_tool("pallium_workflow_validate", {"script": path})
        text = result.content[0].text
        assert result.is_error, text
        assert "TOPSECRET" not in text and digest not in text and "root:" not in text
        write(git_repo, "plans/review.js", "return await agent('review');\n")
        inside = await client.call_tool("pallium_workflow_validate", {"script": "plans/review.js"})
        assert not inside.is_error and json.loads(inside.content[0].text)["valid"] is True


def test_a_module_120_folders_deep_does_not_fail_the_build(git_repo: Path, capsys, monkeypatch):
    from pallium_mcp.cli import main

    deep = "/".join(f"d{i}" for i in range(1, 121))
    write(git_repo, f"{deep}/deep.py", "def deepest():\n    return 1\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "deep")
    monkeypatch.chdir(git_repo)
    assert main(["knowledge", "build", "--no-model", "--json"]) == 0, capsys.readouterr().err
    names = [p.name for p in (git_repo / ".pallium" / "knowledge").glob("*.md")]
    assert any(name.startswith("d1%2Fd2") for name in names)
    assert all(len(name.encode()) <= 255 for name in names)
    assert main(["knowledge", "map", "--json"]) == 0


@pytest.mark.parametrize("closed", [">&-", "2>&- >&-", "<&- >&-"])
@pytest.mark.parametrize("resident", ["off", "on"])
def test_a_closed_standard_stream_is_no_traceback(git_repo: Path, closed: str, resident: str, tmp_path: Path):
    env_home = tmp_path / "h"
    env_home.mkdir()
    line = f"PALLIUM_HOME={env_home} PALLIUM_RESIDENT={resident} {script('pallium')} search main --json {closed}"
    for _ in range(2):  # the second call may be answered by the server the first one started
        done = subprocess.run(
            ["bash", "-c", line + " ; echo $?"], cwd=git_repo, capture_output=True, text=True, timeout=120
        )
        assert "Traceback" not in done.stderr + done.stdout
        assert done.stdout.strip().splitlines()[-1] == "0", done.stderr
    subprocess.run(
        [script("pallium"), "resident", "stop"],
        env={"PALLIUM_HOME": str(env_home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        timeout=60,
    )
