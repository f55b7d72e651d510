"""Repo answers quote committed files and messages: a committed key never leaves in one."""

import json

import pytest
from mcp import Client

from pallium_mcp.server import build_server
from tests.conftest import git, write

pytestmark = pytest.mark.anyio

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PROJ = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98765"
AKID = "AKIA" + "Q3EXAMPLE7ZK4NQ2"


async def test_secrets_committed_in_files_and_messages_are_redacted_in_every_repo_answer(git_repo):
    source = f'GITHUB_TOKEN = "{GHP}"\nAWS_ACCESS_KEY_ID = "{AKID}"\n\ndef main():\n    return 1\n'
    write(git_repo, "src/config.py", source)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", f"Decide to ship the key {PROJ} with config")
    calls = [
        ("pallium_search", {"query": "GITHUB_TOKEN"}),
        ("pallium_symbols", {"path": "src/config.py"}),
        ("pallium_explain", {"path": "src/config.py"}),
        ("pallium_decisions", {"query": "ship the key"}),
        ("pallium_handoff", {"base": "HEAD~2"}),
    ]
    counted = {}
    async with Client(build_server(toolsets="all", cwd=git_repo)) as client:
        assert not (await client.call_tool("pallium_index", {})).is_error
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result.content[0].text
            text = result.content[0].text
            for secret in (GHP, PROJ, AKID):
                assert secret not in text, (name, secret)
            counted[name] = json.loads(text)["redactions"]
    assert counted["pallium_search"] >= 1 and counted["pallium_decisions"] >= 1
