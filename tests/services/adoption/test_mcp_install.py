"""`pallium mcp install`: Claude's .mcp.json and user scope, Codex's config.toml, merged and never half-written."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import anyio
import pytest

from kernel import dispatch
from kernel.context import ToolContext
from kernel.errors import PalliumError


async def _mcp(folder: Path, **arguments):
    ctx = ToolContext(ceiling="admin", cwd=folder)
    try:
        return await dispatch.call("pallium_mcp_install", arguments, ctx)
    finally:
        ctx.close()


def test_claude_project_scope_merges_into_mcp_json_keeping_other_servers(tmp_path: Path):
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "extra": 1}), encoding="utf-8")
    out = anyio.run(lambda: _mcp(tmp_path, client="claude"))
    assert (out.action, out.scope) == ("updated", "project")
    written = json.loads(config.read_text(encoding="utf-8"))
    assert written["extra"] == 1 and written["mcpServers"]["other"] == {"command": "x"}
    assert written["mcpServers"]["pallium"]["command"] == out.server_command
    assert Path(out.server_command).is_absolute() and out.server_command.endswith("pallium-mcp")
    assert anyio.run(lambda: _mcp(tmp_path, client="claude")).action == "unchanged"


def test_claude_invalid_json_is_refused_and_left_untouched(tmp_path: Path):
    config = tmp_path / ".mcp.json"
    config.write_text("{not json", encoding="utf-8")
    with pytest.raises(PalliumError) as caught:
        anyio.run(lambda: _mcp(tmp_path, client="claude"))
    assert caught.value.code == "invalid_input"
    assert config.read_text(encoding="utf-8") == "{not json"


def test_claude_dry_run_shows_the_change_without_writing(tmp_path: Path):
    out = anyio.run(lambda: _mcp(tmp_path, client="claude", dry_run=True))
    assert out.action == "created" and out.before is None and '"pallium"' in out.after
    assert not (tmp_path / ".mcp.json").exists()


def _fake_claude(folder: Path) -> Path:
    log = folder / "claude.log"
    program = folder / "bin" / "claude"
    program.parent.mkdir()
    program.write_text(f'#!/bin/sh\necho "$@" >> {log}\n', encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    return log


def test_claude_user_scope_runs_claude_mcp_add_without_a_shell(tmp_path: Path, monkeypatch):
    log = _fake_claude(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    out = anyio.run(lambda: _mcp(tmp_path, client="claude", scope="user"))
    assert out.action == "ran"
    assert log.read_text(encoding="utf-8").split() == [
        "mcp",
        "add",
        "--scope",
        "user",
        "pallium",
        "--",
        out.server_command,
    ]


def test_claude_user_scope_prints_the_command_when_claude_is_missing(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    out = anyio.run(lambda: _mcp(tmp_path, client="claude", scope="user"))
    assert out.action == "printed" and out.command[:5] == ["claude", "mcp", "add", "--scope", "user"]


def test_codex_merges_the_server_keeping_comments_and_tables_with_a_backup(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))
    config = tmp_path / "config.toml"
    original = '# my settings\nmodel = "o3"  # keep me\n\n[mcp_servers.other]\ncommand = "x"\n'
    config.write_text(original, encoding="utf-8")
    out = anyio.run(lambda: _mcp(tmp_path, client="codex"))
    text = config.read_text(encoding="utf-8")
    assert text.startswith(original)
    assert "[mcp_servers.pallium]" in text and "startup_timeout_sec = 30" in text
    assert out.server_command in text
    assert Path(out.backup).read_text(encoding="utf-8") == original
    again = anyio.run(lambda: _mcp(tmp_path, client="codex"))
    assert again.action == "unchanged" and config.read_text(encoding="utf-8") == text


def test_codex_invalid_toml_is_refused_untouched_and_project_scope_is_an_input_error(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path))
    config = tmp_path / "config.toml"
    config.write_text("[unclosed\nmodel = ", encoding="utf-8")
    with pytest.raises(PalliumError) as caught:
        anyio.run(lambda: _mcp(tmp_path, client="codex"))
    assert caught.value.code == "invalid_input"
    assert config.read_text(encoding="utf-8") == "[unclosed\nmodel = "
    assert not list(tmp_path.glob("*.pallium-backup"))
    with pytest.raises(PalliumError) as caught:
        anyio.run(lambda: _mcp(tmp_path, client="codex", scope="project"))
    assert caught.value.details["field"] == "scope"


@pytest.mark.parametrize("where", ["home", "codex_home"])
def test_codex_install_creates_its_folder_when_codex_never_ran(tmp_path: Path, monkeypatch, where):
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    if where == "codex_home":
        monkeypatch.setenv("CODEX_HOME", str(tmp_path / "not" / "yet" / ".codex"))
        folder = tmp_path / "not" / "yet" / ".codex"
    else:
        monkeypatch.delenv("CODEX_HOME", raising=False)
        folder = home / ".codex"
    preview = anyio.run(lambda: _mcp(tmp_path, client="codex", dry_run=True))
    assert preview.action == "created" and not folder.exists()
    out = anyio.run(lambda: _mcp(tmp_path, client="codex"))
    assert out.action == "created"
    text = (folder / "config.toml").read_text(encoding="utf-8")
    assert "[mcp_servers.pallium]" in text and out.server_command in text
