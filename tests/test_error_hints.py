"""Every error says what to do next, and comes back with the same fields through MCP and the CLI."""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

import anyio
import pytest
from mcp import Client

from pallium_mcp.server import build_server
from tests.pallium_mcp.test_cli import run_cli

ROOT = Path(__file__).resolve().parents[1]

# Raises written before hints were required, by file: the dispatcher gives these a hint naming
# the argument and `--help` (kernel/dispatch.py::_hint_for); each count may only go down.
WITHOUT_HINT = {
    "kernel/execution.py": 3,
    "kernel/git.py": 2,
    "kernel/providers/dispatcher.py": 3,
    "kernel/providers/schema.py": 2,
    "kernel/runstore.py": 1,
    "kernel/store.py": 4,
    "kernel/worktrees/apply.py": 1,
    "kernel/worktrees/staging.py": 1,
    "services/loops/lifecycle.py": 5,
    "services/loops/tools.py": 1,
    "services/workflows/checks.py": 2,
    "services/workflows/decisions.py": 3,
    "services/workflows/host.py": 17,
    "services/workflows/inspect_tools.py": 3,
    "services/workflows/library.py": 1,
    "services/workflows/library_tools.py": 2,
    "services/workflows/preflight.py": 1,
    "services/workflows/run_task.py": 1,
    "services/workflows/runner.py": 5,
    "services/workflows/sources.py": 7,
    "services/workflows/tools.py": 2,
}


def _raises_without_hint() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in ROOT.glob("**/*.py"):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith((".venv/", "tests/", "build/")):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "PalliumError":
                given = len(node.args) >= 3 or any(k.arg in ("hint", None) for k in node.keywords)
                if not given:
                    found[relative] += 1
    return found


def test_every_new_raise_has_a_hint():
    found = _raises_without_hint()
    grown = {f: n for f, n in found.items() if n > WITHOUT_HINT.get(f, 0)}
    assert not grown, f"PalliumError raised without a hint (name the argument and the flag): {grown}"


@pytest.mark.parametrize(
    ("argv", "tool", "arguments", "code"),
    [
        (["symbols", "missing.py"], "pallium_symbols", {"path": "missing.py"}, "not_found"),
        (["callers", " "], "pallium_callers", {"name": " "}, "invalid_input"),
        (
            ["search", "main", "--cursor", "nope"],
            "pallium_search",
            {"query": "main", "cursor": "nope"},
            "invalid_input",
        ),
        (["changed-now", "--limit", "0"], "pallium_changed_now", {"limit": 0}, "invalid_input"),
        (["workflow", "status", "no-such-run"], "pallium_workflow_status", {"run_id": "no-such-run"}, "not_found"),
        (["db", "reset", "--scope", "repo", "--confirm", "--authority", "consult"], "pallium_db_reset", None, None),
    ],
)
def test_an_error_has_the_same_fields_through_both_doors(argv, tool, arguments, code, git_repo, capsys, monkeypatch):
    exit_code, out, err = run_cli([*argv, "--json"], git_repo, capsys, monkeypatch)
    cli = json.loads(err)["error"]
    if arguments is None:  # db-reset --confirm needs admin: authority_exceeded, asked of an observe server
        arguments, code = {"scope": "repo", "confirm": True}, "authority_exceeded"

    async def over_mcp():
        async with Client(build_server(toolsets="all", ceiling="consult", cwd=git_repo)) as client:
            return await client.call_tool(tool, arguments)

    result = anyio.run(over_mcp)
    assert result.is_error and out == ""
    mcp = json.loads(result.content[0].text)["error"]
    assert set(cli) == set(mcp) == {"code", "message", "hint", "details"}
    assert cli["code"] == mcp["code"] == code
    assert cli["hint"] and mcp["hint"] and cli["details"].get("field") == mcp["details"].get("field")
    assert exit_code == (2 if code == "invalid_input" else 1)
    if code == "not_found":
        assert "list" in cli["hint"] or "ls-files" in cli["hint"]
