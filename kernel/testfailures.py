"""Failing tests read from a test runner's output: pytest, go test, jest/vitest and cargo test.

Used wherever Pallium runs a check itself and must say objectively what failed (workflow checks,
loop signatures). Each failure is `{name, file, message}`; unknown formats give no failures and the
caller falls back to the exit code and the output's tail.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

__all__ = ["TestFailure", "parse_failures", "signature_of"]

_PYTEST = re.compile(r"^(?:FAILED|ERROR) (?P<id>\S+?)(?:::(?P<name>\S+))?(?: - (?P<msg>.*))?$", re.M)
_GO = re.compile(r"^\s*--- FAIL: (?P<name>\S+) \([\d.]+s\)$", re.M)
_GO_LOCATION = re.compile(r"^\s+(?P<file>[\w./-]+\.go):\d+: (?P<msg>.+)$", re.M)
_JEST_FILE = re.compile(r"^\s*FAIL\s+(?P<file>\S+\.(?:[cm]?[jt]sx?))", re.M)
_JEST_TEST = re.compile(r"^\s*●\s+(?P<name>.+?)\s*$", re.M)
_VITEST = re.compile(r"^\s*(?:×|✗|FAIL)\s+(?P<file>\S+\.(?:[cm]?[jt]sx?))\s+>\s+(?P<name>.+?)(?:\s+\d+ms)?\s*$", re.M)
_CARGO = re.compile(r"^test (?P<name>\S+) \.\.\. FAILED$", re.M)
_CARGO_PANIC = re.compile(r"^thread '(?P<name>[^']+)' panicked at (?P<file>[^:\s]+):\d+:\d+:\n(?P<msg>.*)$", re.M)


@dataclass(frozen=True)
class TestFailure:
    name: str
    file: str | None
    message: str

    def to_dict(self) -> dict[str, str | None]:
        return asdict(self)


def parse_failures(output: str, limit: int = 50) -> list[TestFailure]:
    """The failing tests named in `output`, in order, without duplicates."""
    found: list[TestFailure] = []
    for m in _PYTEST.finditer(output):
        file, _, rest = m.group("id").partition("::")
        name = m.group("name") or rest or file
        found.append(
            TestFailure(
                name=f"{file}::{name}" if name != file else file, file=file, message=(m.group("msg") or "").strip()
            )
        )
    go_messages = {m.group("file"): m.group("msg") for m in _GO_LOCATION.finditer(output)}
    for m in _GO.finditer(output):
        file = next(iter(go_messages), None)
        found.append(TestFailure(name=m.group("name"), file=file, message=go_messages.get(file, "") if file else ""))
    for m in _VITEST.finditer(output):
        found.append(TestFailure(name=m.group("name").strip(), file=m.group("file"), message=""))
    if not any(f.file and f.file.endswith((".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs")) for f in found):
        jest_files = [m.group("file") for m in _JEST_FILE.finditer(output)]
        for m in _JEST_TEST.finditer(output):
            found.append(TestFailure(name=m.group("name"), file=jest_files[0] if jest_files else None, message=""))
    panics = {m.group("name"): (m.group("file"), m.group("msg").strip()) for m in _CARGO_PANIC.finditer(output)}
    for m in _CARGO.finditer(output):
        file, message = panics.get(m.group("name"), (None, ""))
        found.append(TestFailure(name=m.group("name"), file=file, message=message))
    unique: dict[str, TestFailure] = {}
    for failure in found:
        unique.setdefault(failure.name, failure)
    return list(unique.values())[:limit]


def signature_of(failures: list[TestFailure], fallback: str = "") -> str:
    """A stable text naming the failing set, for noticing that a loop or a fix round made no progress."""
    if failures:
        return "\n".join(sorted(f.name for f in failures))
    return fallback.strip()[-2000:]
