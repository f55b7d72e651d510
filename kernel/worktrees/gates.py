"""The gates a captured patch passes before it may be staged or applied.

Size (whole patch and each binary file), paths confined to the repository (no absolute paths, no
`..`, nothing under `.git/`, no symbolic link pointing out), sensitive files (`.env`, keys, agent
state folders), and a secret scan of added lines with `kernel.secrets`. Secrets and sensitive paths
can be overridden; the override is reported so the caller logs it. Escapes never can.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import PurePosixPath

from kernel.secrets import find_secrets

__all__ = ["MAX_BINARY_BYTES", "MAX_PATCH_BYTES", "GateReport", "Violation", "check_patch", "patch_paths"]

MAX_PATCH_BYTES = 5 * 1024 * 1024
MAX_BINARY_BYTES = 1024 * 1024
MAX_FILES = 1000
SENSITIVE = (".env", ".env.*", "*.pem", "*.key", "id_rsa*", "id_ed25519*", "id_ecdsa*", ".netrc", ".npmrc", ".pypirc")
SENSITIVE_DIRS = (".codex", ".claude", ".ssh", ".aws", ".gnupg")
OVERRIDABLE = frozenset({"secret", "sensitive_path"})

_HEADER = re.compile(r"^diff --git (.+)$")
_LITERAL = re.compile(r"^(?:literal|delta) (\d+)$")


@dataclass(frozen=True)
class Violation:
    # too_large | too_many_files | binary_too_large | escape | git_dir | symlink_escape | sensitive_path | secret
    kind: str
    path: str
    detail: str


@dataclass
class GateReport:
    files: list[str] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)  # what blocks the patch
    overridden: list[Violation] = field(default_factory=list)  # what would have blocked it, allowed by override

    @property
    def ok(self) -> bool:
        return not self.violations


def check_patch(patch: bytes, *, allow_secrets: bool = False, max_bytes: int = MAX_PATCH_BYTES) -> GateReport:
    """Inspect a `git diff --binary` patch; with `allow_secrets`, secret and sensitive-path hits only warn."""
    report = GateReport()
    found: list[Violation] = []
    if len(patch) > max_bytes:
        found.append(Violation("too_large", "", f"patch is {len(patch)} bytes, over the {max_bytes}-byte cap"))
    text = patch.decode("utf-8", "surrogateescape")
    current, symlink, added = "", False, []
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            current, symlink = _header_path(header.group(1)), False
            report.files.append(current)
            found += _path_violations(current)
            continue
        for prefix in ("rename to ", "copy to ", "rename from ", "copy from "):
            if line.startswith(prefix):
                found += _path_violations(_unquote(line[len(prefix) :]))
        if line.startswith(("new file mode 120000", "new mode 120000")):
            symlink = True
        elif line.startswith("+") and not line.startswith("+++"):
            if symlink:
                target = line[1:]
                if target.startswith("/") or _climbs(PurePosixPath(current).parent / target):
                    found.append(Violation("symlink_escape", current, f"symbolic link points to {target!r}"))
            added.append((current, line[1:]))
        else:
            literal = _LITERAL.match(line)
            if literal and int(literal.group(1)) > MAX_BINARY_BYTES:
                found.append(Violation("binary_too_large", current, f"{literal.group(1)} bytes of binary content"))
    if len(report.files) > MAX_FILES:
        found.append(Violation("too_many_files", "", f"{len(report.files)} files, over the {MAX_FILES}-file cap"))
    for path, content in added:
        for match in find_secrets(content):
            found.append(Violation("secret", path, f"added line looks like a {match.kind}"))
    for violation in found:
        if allow_secrets and violation.kind in OVERRIDABLE:
            report.overridden.append(violation)
        else:
            report.violations.append(violation)
    return report


def patch_paths(patch: bytes) -> list[str]:
    return check_patch(patch, allow_secrets=True, max_bytes=len(patch) + 1).files


def _path_violations(path: str) -> list[Violation]:
    pure = PurePosixPath(path)
    if path.startswith("/") or ".." in pure.parts or not path:
        return [Violation("escape", path, "path leaves the repository")]
    if ".git" in pure.parts:
        return [Violation("git_dir", path, "patches may not touch .git/")]
    if any(fnmatch(pure.name, pattern) for pattern in SENSITIVE) or any(p in SENSITIVE_DIRS for p in pure.parts):
        return [Violation("sensitive_path", path, "a file that usually holds credentials or agent state")]
    return []


def _climbs(path: PurePosixPath) -> bool:
    depth = 0
    for part in path.parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return True
    return False


def _header_path(rest: str) -> str:
    """The new-side path of `diff --git a/X b/Y` (quoted or not; X and Y differ only for renames)."""
    if rest.startswith('"'):
        end = _closing_quote(rest, 0)
        second = rest[end + 2 :]
        new = _unquote(second) if second.startswith('"') else second
    else:
        # unquoted: "a/X b/Y"; when X == Y the split point is the middle
        half = (len(rest) - 1) // 2
        if rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
            new = rest[half + 1 :]
        else:
            new = rest[rest.rfind(" b/") + 1 :]
        if new.startswith('"'):
            new = _unquote(new)
    return new[2:] if new.startswith(("a/", "b/")) else new


def _closing_quote(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return len(text) - 1


def _unquote(text: str) -> str:
    if not (text.startswith('"') and text.endswith('"')):
        return text
    raw = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
    return raw.decode("utf-8", "replace")
