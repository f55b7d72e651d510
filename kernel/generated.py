"""Which files a person did not write: lockfiles, generated output, vendored code, minified bundles.

One list for every service that must tell them apart: the repository index skips them (never
parsed, recorded with the reason), co-change leaves them out of its pairs (they change with
everything), and workflows and reviews can leave them out of what they show or check. Names are
compared lowercased; folders match at any depth (`web/node_modules/x.js`).
"""

from __future__ import annotations

import re

__all__ = [
    "CHANGELOGS",
    "LOCKFILES",
    "VENDOR_DIRS",
    "generated_by_name",
    "has_generated_header",
    "is_lockfile",
    "is_noise",
    "looks_minified",
    "skip_reason",
]

LOCKFILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lock",
        "bun.lockb",
        "deno.lock",
        "poetry.lock",
        "uv.lock",
        "pdm.lock",
        "pipfile.lock",
        "cargo.lock",
        "go.sum",
        "go.work.sum",
        "gemfile.lock",
        "composer.lock",
        "mix.lock",
        "pubspec.lock",
        "podfile.lock",
        "package.resolved",
        "flake.lock",
        "gradle.lockfile",
        "packages.lock.json",
        "paket.lock",
        "conan.lock",
    }
)
# Files that change with every release rather than with the code beside them.
CHANGELOGS = frozenset(
    {
        "changelog",
        "changelog.md",
        "changelog.rst",
        "changelog.txt",
        "changes",
        "changes.md",
        "changes.rst",
        "changes.txt",
        "history.md",
        "history.rst",
        "news",
        "news.md",
        "news.rst",
        "version",
        "version.txt",
    }
)
# Folders of code copied in from elsewhere, at any depth.
VENDOR_DIRS = ("node_modules/", "vendor/", "third_party/", "third-party/", "bower_components/")
# A generator's header: a comment line near the top saying `@generated` (Meta's marker) or
# "generated ... DO NOT EDIT" (Go's `// Code generated ... DO NOT EDIT.`, protoc, and others).
_GENERATED_LINE = re.compile(rb"^\s*(?://|#|/\*|\*|--|<!--|;).*(?:@generated\b|[Gg]enerated\b.*\bDO NOT EDIT\b)")
_HEADER_LINES = 10
_HEADER_BYTES = 2048
_MINIFIED_SUFFIXES = (".js", ".mjs", ".cjs", ".css")


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1].lower()


def is_lockfile(path: str) -> bool:
    """A package manager's lockfile (`uv.lock`, `web/package-lock.json`), at any depth."""
    return _name(path) in LOCKFILES


def is_noise(path: str) -> bool:
    """Lockfiles, changelogs and version files: they change with everything, so they say nothing
    about which files belong together."""
    name = _name(path)
    return name in LOCKFILES or name in CHANGELOGS


def skip_reason(path: str) -> str | None:
    """`vendored`, `lockfile` or `minified` from a path's name alone, else None."""
    lowered = path.lower()
    if any(lowered.startswith(d) or f"/{d}" in lowered for d in VENDOR_DIRS):
        return "vendored"
    name = lowered.rsplit("/", 1)[-1]
    if name in LOCKFILES:
        return "lockfile"
    if ".min." in name or name.endswith((".map", "-min.js")):
        return "minified"
    return None


# Names generators give their output: protobuf and gRPC stubs, `*_gen.ts`, `*.generated.cs`.
_GENERATED_NAME = re.compile(
    r"(?:_pb2(?:_grpc)?\.pyi?|\.pb\.go|\.pb\.(?:cc|h)|_pb\.(?:js|ts|d\.ts)|[._-]gen(?:erated)?\.\w+|\.g\.dart|\.designer\.cs)$"
)


def generated_by_name(path: str) -> bool:
    """A file a generator named (`api_pb2.py`, `_options_gen.ts`, `types.generated.ts`), whatever its header."""
    return bool(_GENERATED_NAME.search(_name(path)))


def has_generated_header(data: bytes) -> bool:
    """A generator's comment among the first ten lines (and 2 KB); a marker in a docstring, a
    string or further down is not one."""
    lines = data[:_HEADER_BYTES].split(b"\n", _HEADER_LINES)[:_HEADER_LINES]
    return any(_GENERATED_LINE.match(line) for line in lines)


def looks_minified(path: str, data: bytes) -> bool:
    """JavaScript or CSS of 5 KB or more averaging over 500 bytes a line."""
    if not path.lower().endswith(_MINIFIED_SUFFIXES) or len(data) < 5_000:
        return False
    return len(data) / (data.count(b"\n") + 1) > 500
