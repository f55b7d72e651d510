"""Calling tools for the snapshot tests, with the values that vary from run to run replaced.

Only what varies is replaced, each by a placeholder naming its kind, so the rest of an answer stays
pinned: the test's folders (`<repo>`, `<home>`, `<tmp>`), this Python's `<bin>` and `<prefix>`,
Pallium's own folder (`<pallium>`), timings (`<seconds>`), process ids (`<pid>`), this machine's
name (`<host>`), real-clock times (`<now>`), the checkout's commit in a version (`0.1.0+g1a2b...`
reads `0.1.0`, as an installed copy says), and random ids and commit shas made during the test,
numbered by first appearance (`<run-1>`, `<team-1>`, `<sha-1>`) so an answer naming the run an
earlier call started still says so. Commits of the fixture repository keep their real, fixed shas.
"""

from __future__ import annotations

import os
import re
import socket
import sys
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import kernel
from kernel.clock import FixedClock, parse_iso
from kernel.context import ToolContext
from kernel.dispatch import call
from kernel.errors import PalliumError
from tests.conftest import git

__all__ = ["NOW", "Answers", "environment_free"]

NOW = "2026-03-01T00:00:00Z"

_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")
_NUMBERED = (
    ("run", re.compile(r"\bwf-\d{8}-\d{6}-[0-9a-f]{6}\b")),
    ("team", re.compile(r"\bteam-[0-9a-f]{10}\b")),
    ("turn", re.compile(r"\bturn-[0-9a-f]{12}\b")),
    ("cycle", re.compile(r"\bloop-[\w.-]+?-\d+-[0-9a-f]{6}\b")),
    ("uuid", re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")),
    ("sha", re.compile(r"\b[0-9a-f]{40}\b")),
)
_PROJECT = Path(kernel.__file__).resolve().parent.parent
_BUILD = re.compile(r"\+g[0-9a-f]{7,40}\b")  # a version's local part: the commit Pallium was built from
_TIMING_KEYS = ("_seconds", "_ms", "elapsed")
_PID_KEYS = ("pid", "worker_pid", "process_start", "started_ticks")


class Answers:
    """Calls tools by name from `where` on a fixed clock and returns their normalised answers.

    Values in `keep` are ids the fixture chose, kept as they are. A refused call answers
    `{"error": {...}}`, the error both doors show, so a tool whose useful answer needs a state the
    fixture does not hold still has its answer pinned.
    """

    def __init__(
        self, where: Path, *, tmp: Path | None = None, ceiling: str = "admin", now: str = NOW, keep: Iterable[str] = ()
    ) -> None:
        self.where = where
        self.tmp = tmp
        self.ceiling = ceiling
        self.clock = FixedClock(parse_iso(now))
        self._fixed = _repo_shas(where) | set(keep)
        self._seen: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    async def __call__(self, tool: str, **arguments: Any) -> Any:
        return self.stable(await self.raw(tool, **arguments))

    async def raw(self, tool: str, **arguments: Any) -> Any:
        ctx = ToolContext(cwd=self.where, clock=self.clock, ceiling=self.ceiling)  # type: ignore[arg-type]  # str from the test
        try:
            out = await call(tool, arguments, ctx)
        except PalliumError as exc:
            return {"error": exc.to_dict()}
        finally:
            ctx.close()
        return out.model_dump(mode="json")

    def stable(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: self.stable(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.stable(v, key) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int | float) and key.endswith(_TIMING_KEYS):
            return "<seconds>" if key.endswith("_seconds") else "<ms>"
        if isinstance(value, int) and key in _PID_KEYS:
            return "<pid>"
        if isinstance(value, str) and key.endswith("host") and value == socket.gethostname():
            return "<host>"
        if isinstance(value, str):
            return self._text(value)
        return value

    def _text(self, text: str) -> str:
        for folder, name in self._folders():
            text = text.replace(folder, name)
        text = _ISO.sub(self._time, text)
        text = _BUILD.sub("", text)
        for kind, pattern in _NUMBERED:
            text = pattern.sub(lambda m, kind=kind: self._numbered(kind, m.group(0)), text)
        return text

    def _folders(self) -> list[tuple[str, str]]:
        folders = [(str(self.where.resolve()), "<repo>"), (str(self.where), "<repo>")]
        folders.append((os.environ["PALLIUM_HOME"], "<home>"))
        folders.append((str(Path(sys.executable).parent), "<bin>"))
        folders.append((sys.prefix, "<prefix>"))
        folders.append((str(_PROJECT), "<pallium>"))
        if self.tmp is not None:
            folders += [(str(self.tmp.resolve()), "<tmp>"), (str(self.tmp), "<tmp>")]
        return folders

    def _time(self, match: re.Match[str]) -> str:
        moment = parse_iso(match.group(0))
        if abs(moment - datetime.now(UTC)) < timedelta(days=2):
            return "<now>"
        return match.group(0)

    def _numbered(self, kind: str, value: str) -> str:
        if value in self._fixed:
            return value
        if value not in self._seen:
            self._counts[kind] = self._counts.get(kind, 0) + 1
            self._seen[value] = f"<{kind}-{self._counts[kind]}>"
        return self._seen[value]


# What the machine running the tests has installed, not what Pallium answers: doctor's checks of
# programs and libraries, and version strings of Python, SQLite and the dependencies.
_MACHINE_CHECKS = frozenset(
    {"python", "git", "sqlite", "sqlite-vec", "keyring", "claude", "codex", "tree-sitter grammars"}
)
_MACHINE_KEYS = frozenset({"python", "sqlite", "platform", "version"})
# How Pallium was installed (pipx, uv tool, a virtualenv) decides `update`'s command and message.
_INSTALL_KEYS = frozenset({"install_kind", "prefix", "command", "message"})


def environment_free(answer: Any) -> Any:
    """`answer` with what depends on the machine's installed programs and versions replaced."""
    if isinstance(answer, list):
        return [environment_free(v) for v in answer]
    if not isinstance(answer, dict):
        return answer
    out = {}
    for key, value in answer.items():
        if key in _MACHINE_KEYS and isinstance(value, str):
            value = f"<{key}>"
        elif key in _INSTALL_KEYS and "install_kind" in answer:
            value = "<install>"
        elif key == "checks" and isinstance(value, list):
            value = [
                {**c, "status": "<machine>", "detail": "<machine>", "hint": "<machine>"}
                if isinstance(c, dict) and c.get("name") in _MACHINE_CHECKS
                else c
                for c in value
            ]
        elif key == "summary" and "checks" in answer:
            value = "<counts>"
        else:
            value = environment_free(value)
        out[key] = value
    return out


def _repo_shas(where: Path) -> set[str]:
    if not (where / ".git").exists():
        return set()
    try:
        return set(git(where, "rev-list", "--all").split())
    except Exception:
        return set()
