"""Starting Pallium's own long work in a detached process that outlives the call that asked for it.

An MCP call must not stay open for an hour, so a long run continues in a process of its own: a new
session (a client that exits does not take it down), stdin closed, output to a log file. Provider
workers are never started here; those go through `kernel.providers.process`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kernel import writes

__all__ = ["start_detached"]

# Detached children stay referenced until they end: this process reaps them (no zombies), and a
# Popen dropped while its child still runs would warn for what is here intended.
_children: list[subprocess.Popen[bytes]] = []


def start_detached(
    module: str, args: list[str], *, cwd: Path, log_path: Path, env: dict[str, str] | None = None
) -> int:
    """Run `python -m <module> <args>` detached; return its pid. Output goes to `log_path`.

    `env` is the child's whole environment (default: this process's).
    """
    _children[:] = [child for child in _children if child.poll() is None]
    with writes.append_handle(log_path) as log:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", module, *args],  # -P: never `cwd` (a repository) on sys.path
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            env=dict(os.environ if env is None else env),
        )
    _children.append(proc)
    return proc.pid
