"""Register Pallium's MCP server with Claude Code or Codex, merging into their own configuration.

Claude Code: project scope merges `mcpServers.pallium` into `.mcp.json` (other servers kept);
user scope runs `claude mcp add --scope user` without a shell, or prints that command when
`claude` is not installed. Codex: `[mcp_servers.pallium]` in `$CODEX_HOME/config.toml`, merged with
tomlkit so comments and other tables survive, after a backup. A file that does not parse is
refused and left untouched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel import writes
from kernel.errors import PalliumError
from services.adoption.agents_files import _write_atomic

__all__ = ["Installed", "install_claude", "install_codex", "server_command"]

SERVER_NAME = "pallium"
CODEX_STARTUP_TIMEOUT_SEC = 30


@dataclass(frozen=True)
class Installed:
    path: str | None
    action: str  # created | updated | unchanged | ran | printed
    command: list[str] | None
    backup: str | None
    before: str | None
    after: str | None


def server_command() -> str:
    """The absolute path of the `pallium-mcp` beside the running Python, else the one on PATH."""
    beside = Path(sys.executable).with_name("pallium-mcp")
    if beside.exists():
        return str(beside.absolute())
    found = shutil.which("pallium-mcp")
    if found:
        return str(Path(found).absolute())
    raise PalliumError(
        "unavailable",
        "cannot find the pallium-mcp program",
        hint="install Pallium so that `pallium-mcp` is beside `pallium` (pipx install pallium)",
    )


def install_claude(folder: Path, scope: str, *, dry_run: bool) -> Installed:
    command = server_command()
    if scope == "user":
        argv = ["claude", "mcp", "add", "--scope", "user", SERVER_NAME, "--", command]
        claude = shutil.which("claude")
        if claude is None or dry_run:
            return Installed(None, "printed", argv, None, None, None)
        done = subprocess.run([claude, *argv[1:]], capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0 and "already exists" not in (done.stderr + done.stdout):
            raise PalliumError(
                "unavailable",
                f"`claude mcp add` failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-400:]}",
                hint="run the command yourself: " + " ".join(argv),
                details={"command": argv},
            )
        return Installed(None, "ran" if done.returncode == 0 else "unchanged", argv, None, None, None)
    path = folder / ".mcp.json"
    before = _read(path)
    config: dict[str, Any] = {}
    if before is not None:
        try:
            config = json.loads(before) if before.strip() else {}
        except json.JSONDecodeError as exc:
            raise PalliumError(
                "invalid_input",
                f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); it was left untouched",
                hint="fix or remove the file, then rerun `pallium mcp install claude`",
                details={"path": str(path)},
            ) from exc
        if not isinstance(config, dict) or not isinstance(config.get("mcpServers", {}), dict):
            raise PalliumError(
                "invalid_input",
                f"{path} is not an object with an `mcpServers` object; it was left untouched",
                hint="fix the file by hand, then rerun `pallium mcp install claude`",
                details={"path": str(path)},
            )
    servers = dict(config.get("mcpServers", {}))
    servers[SERVER_NAME] = {"type": "stdio", "command": command, "args": [], "env": {}}
    after = json.dumps({**config, "mcpServers": servers}, indent=2) + "\n"
    return _finish(path, before, after, dry_run=dry_run, backup=False)


def install_codex(*, dry_run: bool) -> Installed:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    path = home / "config.toml"
    before = _read(path)
    try:
        document = tomlkit.parse(before or "")
    except TOMLKitError as exc:
        raise PalliumError(
            "invalid_input",
            f"{path} is not valid TOML ({exc}); it was left untouched",
            hint="fix the file, then rerun `pallium mcp install codex`",
            details={"path": str(path)},
        ) from exc
    servers = document.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document["mcp_servers"] = servers
    elif not isinstance(servers, MutableMapping):
        raise PalliumError(
            "invalid_input",
            f"{path}: `mcp_servers` is not a table; it was left untouched",
            hint="fix the file by hand",
            details={"path": str(path)},
        )
    entry = servers.get(SERVER_NAME)
    if entry is None:
        entry = tomlkit.table()
        servers[SERVER_NAME] = entry
    entry["command"] = server_command()
    entry["args"] = entry.get("args", [])
    entry["startup_timeout_sec"] = entry.get("startup_timeout_sec", CODEX_STARTUP_TIMEOUT_SEC)
    after = tomlkit.dumps(document)
    return _finish(path, before, after, dry_run=dry_run, backup=True)


def _finish(path: Path, before: str | None, after: str, *, dry_run: bool, backup: bool) -> Installed:
    if before == after:
        return Installed(str(path), "unchanged", None, None, before, after)
    action = "created" if before is None else "updated"
    saved = None
    if not dry_run:
        if path.is_symlink():
            raise PalliumError(
                "conflict",
                f"{path} is a symlink; Pallium does not write through it",
                hint="replace it with a regular file",
                details={"path": str(path)},
            )
        _ensure_folder(path.parent)  # a first install: `~/.codex` may not exist yet (its dry run said "created")
        if backup and before is not None:
            saved = str(path.with_name(path.name + ".pallium-backup"))
            _write_atomic(Path(saved), before)
        _write_atomic(path, after)
    return Installed(str(path), action, None, saved, before, after)


def _ensure_folder(folder: Path) -> None:
    """Create `folder` (mode 0700) and its missing parents, anchored at the nearest one that exists."""
    if folder.is_dir():
        return
    anchor = folder
    while not anchor.exists() and anchor != anchor.parent:
        anchor = anchor.parent
    writes.ensure_dir(folder, root=anchor, mode=0o700)


def _read(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PalliumError(
            "unavailable",
            f"cannot read {path}: {exc}",
            hint="check the file's permissions",
            details={"path": str(path)},
        ) from exc
