"""Keys a repository commits never leave in an answer, and never reach the knowledge base's files.

A repository plants an AWS key pair, a GitHub token and an OpenAI key in its files and one more in a
commit message; after an index and a knowledge build, every tool (driven by the registry, so a tool
added later is scanned too) is called over MCP with arguments aimed at those files, and no answer,
error included, may carry a planted key; neither may `.pallium/knowledge/*.md`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from pallium_mcp.registry import all_tools
from pallium_mcp.server import build_server
from services.knowledge import serve_background
from tests.conftest import git, write
from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture)
from tests.test_fuzz import field_types, placeholder

pytestmark = pytest.mark.anyio

# Built from parts so this file itself holds no whole key.
AWS_ID = "AKIA" + "QYLPMN5HHHFPZAM2"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzEXAMPLEKEY9"
GITHUB = "ghp_" + "R8sK2vQx7LmN4pT9wZ3bY6cF1hJ5dG0aE8uI"
OPENAI = "sk-proj-" + "Zq3Lm8Nt2Vx7Rb4Kc9Wd1Hf6Jg5Ys0Pe3Ua8Io2"
IN_MESSAGE = "ghp_" + "M3nB7vC1xZ9lK5jH2gF8dS4aQ6wE0rT1yU7i"
PLANTED = (AWS_ID, AWS_SECRET, GITHUB, OPENAI, IN_MESSAGE)

# Arguments aimed at the planted files, by field name; any other required field gets a plain value.
AIMED = {
    "query": "settings",
    "path": "src/settings.py",
    "name": "connect",
    "symbol": "connect",
    "task": "change how settings connect to the cloud",
    "slug": "src",
    "files": ["src/settings.py"],
    "text": "settings",
}


@pytest.fixture
def planted(git_repo: Path) -> Path:
    write(
        git_repo,
        "src/settings.py",
        f'"""Cloud settings."""\n\nAWS_ACCESS_KEY_ID = "{AWS_ID}"\nAWS_SECRET_ACCESS_KEY = "{AWS_SECRET}"\n\n\n'
        f'def connect():\n    """Connect with {GITHUB}."""\n    return "{OPENAI}"\n',
    )
    write(git_repo, "README.md", f"# App\n\nDeploy with `GITHUB_TOKEN={GITHUB}` and `OPENAI_API_KEY={OPENAI}`.\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", f"Add cloud settings\n\nrotated token {IN_MESSAGE} after the leak")
    write(git_repo, "src/settings.py", (git_repo / "src/settings.py").read_text() + f"# {AWS_ID}\n")
    return git_repo


def arguments_for(tool: Any) -> dict[str, Any]:
    schema = tool.input.model_json_schema()
    props: dict[str, Any] = schema.get("properties", {})
    chosen: dict[str, Any] = {}
    for name, prop in props.items():
        if name in AIMED and (name in schema.get("required", []) or name in ("query", "path", "task")):
            value = AIMED[name]
            types = field_types(prop, schema)
            if isinstance(value, list) and "array" not in types:
                continue
            if isinstance(value, str) and "string" not in types and "any" not in types:
                continue
            chosen[name] = value
        elif name in schema.get("required", []):
            chosen[name] = placeholder(prop, schema)
    return chosen


def leaks(text: str) -> list[str]:
    return [key[:8] + "..." for key in PLANTED if key in text]


async def test_no_answer_of_any_tool_carries_a_planted_key(planted: Path, fake, monkeypatch):  # noqa: F811
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario({"match": "", "reply": "ok"})
    found: list[str] = []
    called = 0
    try:
        # Up to edit: an admin tool (update, mcp install) acts on the installation, not on the repository.
        async with Client(build_server(toolsets="all", ceiling="edit", cwd=planted)) as client:
            for name, arguments in (("pallium_index", {}), ("pallium_knowledge_build", {})):
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content[0].text
            for tool in all_tools():
                arguments = arguments_for(tool)
                with anyio.fail_after(60):
                    result = await client.call_tool(tool.name, arguments)
                called += 1
                text = "".join(getattr(c, "text", "") for c in result.content)
                if leaks(text):
                    found.append(f"{tool.name} {arguments}: {leaks(text)}")
    finally:
        serve_background.stop_all()
    written = [
        f"{path.name}: {leaks(path.read_text(encoding='utf-8'))}"
        for path in (planted / ".pallium" / "knowledge").glob("*.md")
        if leaks(path.read_text(encoding="utf-8"))
    ]
    assert called == len(all_tools())
    assert found == [] and written == []


async def test_the_scan_would_see_a_key_the_repository_shows(planted: Path):
    """The planted keys are really in the repository's text, so an unredacted answer would carry them."""
    text = (planted / "src/settings.py").read_text() + git(planted, "log", "-n", "1", "--format=%B")
    assert all(key in text for key in PLANTED)
