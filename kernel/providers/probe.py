"""Checking an installed provider CLI: its version, and whether its `--help` still lists the flags we pass.

CLIs drift (Claude 2.1.332 dropped `--max-turns` from its help; `codex exec resume` stopped accepting
`--cd`), so `pallium doctor` reads the help text and names each flag the dispatcher relies on that is
gone, before a run fails half-way.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from kernel.providers.process import probe

__all__ = ["FLAGS_USED", "CliCheck", "check_cli"]

# For each CLI, the help pages to read and the flags each must list. `codex exec resume` is read on
# its own: it is where drift has already happened (0.171.0 rejects `--cd`/`--sandbox` after
# `resume`), and a resumed turn relies on the flags below applying to the subcommand.
FLAGS_USED: dict[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]] = {
    "claude": (
        (
            ("--help",),
            (
                "--print",
                "--output-format",
                "--model",
                "--session-id",
                "--resume",
                "--allowedTools",
                "--disallowedTools",
                "--permission-mode",
                "--safe-mode",
                "--strict-mcp-config",
            ),
        ),
    ),
    "codex": (
        (
            ("exec", "--help"),
            (
                "--cd",
                "--sandbox",
                "--config",
                "--model",
                "--json",
                "--output-last-message",
                "--output-schema",
                "--skip-git-repo-check",
            ),
        ),
        (
            ("exec", "resume", "--help"),
            ("--config", "--model", "--json", "--output-last-message", "--output-schema", "--skip-git-repo-check"),
        ),
    ),
}


@dataclass(frozen=True)
class CliCheck:
    program: str
    path: str | None  # None when the CLI is not installed
    version: str | None = None
    missing_flags: list[str] = field(default_factory=list)  # each named with its help page: `--json (exec resume)`


def check_cli(program: str) -> CliCheck:
    """Find `program` (or `PALLIUM_<PROGRAM>_BIN`), read its version and help, and list the flags it lost."""
    path = shutil.which(os.environ.get(f"PALLIUM_{program.upper()}_BIN") or program)
    if path is None:
        return CliCheck(program, None)
    _, version_text = probe([path, "--version"])
    version = version_text.strip().splitlines()[0] if version_text.strip() else None
    missing: list[str] = []
    for help_args, flags in FLAGS_USED[program]:
        code, help_text = probe([path, *help_args])
        where = " ".join(a for a in help_args if a != "--help")
        lost = [flag for flag in flags if flag not in help_text] if code == 0 else list(flags)
        missing += [f"{flag} ({where})" if where else flag for flag in lost]
    return CliCheck(program, path, version, missing)
