"""Every error says what to do next, and comes back with the same fields through MCP and the CLI."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from pallium_mcp.server import build_server
from tests.pallium_mcp.test_cli import run_cli

ROOT = Path(__file__).resolve().parents[1]

# Words a `not_found` hint uses to say how to list what exists (`pallium workflow list`,
# `git ls-files`, `pallium knowledge map`, "one of: a, b", ...).
LISTING_WORDS = ("list", "`ls`", "map", "find", "status", "one of")


def _source_files() -> list[tuple[str, ast.Module]]:
    files = []
    for path in sorted(ROOT.glob("**/*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith((".venv/", "tests/", "build/")) or "/." in relative:
            continue
        files.append((relative, ast.parse(path.read_text(encoding="utf-8"))))
    return files


def _raises(tree: ast.Module) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "PalliumError"]


def _hint_of(node: ast.Call) -> ast.expr | None:
    """The hint expression of a `PalliumError(...)`, or None when none is given (`**fields` counts as given)."""
    if len(node.args) >= 3:
        return node.args[2]
    for keyword in node.keywords:
        if keyword.arg == "hint" or keyword.arg is None:
            return keyword.value
    return None


def _literal_text(expr: ast.expr) -> str | None:
    """The text of a string or f-string hint (its literal parts), None for anything computed."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.JoinedStr):
        return "".join(v.value for v in expr.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def test_every_raise_has_its_own_hint():
    """The dispatcher's fallback (see `--help`) is a last resort: each raise says what to do next itself."""
    missing = []
    for relative, tree in _source_files():
        for node in _raises(tree):
            hint = _hint_of(node)
            empty = isinstance(hint, ast.Constant) and not hint.value
            if hint is None or empty:
                missing.append(f"{relative}:{node.lineno}")
    assert not missing, f"PalliumError raised without a hint (name the argument and the flag): {missing}"


def test_not_found_hints_say_how_to_list_what_exists():
    vague = []
    for relative, tree in _source_files():
        for node in _raises(tree):
            code = node.args[0] if node.args else None
            if not (isinstance(code, ast.Constant) and code.value == "not_found"):
                continue
            hint = _hint_of(node)
            text = _literal_text(hint) if hint is not None else None
            if text is not None and not any(word in text for word in LISTING_WORDS):
                vague.append(f"{relative}:{node.lineno}: {text!r}")
    assert not vague, f"not_found hints that do not say how to list what exists: {vague}"


def test_the_hint_reader_tells_a_hint_from_none():
    tree = ast.parse(
        "PalliumError('not_found', 'm', hint='list them with `pallium workflow list`')\n"
        "PalliumError('conflict', 'm', details={})\n"
        "PalliumError('conflict', 'm', 'retry')\n"
        "PalliumError('conflict', 'm', hint='')\n"
    )
    hints = [_hint_of(node) for node in sorted(_raises(tree), key=lambda n: n.lineno)]
    assert [_literal_text(h) if h is not None else None for h in hints] == [
        "list them with `pallium workflow list`",
        None,
        "retry",
        "",
    ]


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
