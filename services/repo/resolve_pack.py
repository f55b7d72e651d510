"""Import resolution for the pack languages: `#include`, `require`, PSR-4, namespaces, packages.

Each rule follows what the language itself does, as far as a file list can tell:

- C/C++: `#include "x.h"` from the including file's folder, then the repository root and any
  `include/` folder; `<x.h>` only when the repository holds that path under an `include/` folder.
- Ruby: `require_relative` from the file's folder; `require "a/b"` from `lib/`, then the root.
- PHP: `use A\\B\\C` through composer.json's PSR-4 map (`autoload` and `autoload-dev`), and
  `require`/`include` of a quoted path relative to the file.
- C#: `using A.B` names every file that declares namespace `A.B` (`using Y = A.B.C`, those of `A.B`).
- Kotlin/Scala (and Java, for mixed JVM projects): an import names the file of that path, `.*` a package.
- Bash: `source x.sh` / `. x.sh` relative to the file, then the root (a leading `$VAR/` is dropped).
- Lua: `require "a.b"` names `a/b.lua` or `a/b/init.lua`, at the root or under `lua/` or `src/`.
- Swift: modules are build targets, not files; nothing resolves.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from pathlib import Path

__all__ = ["PackResolver"]

_JVM = (".kt", ".kts", ".scala", ".java")


class PackResolver:
    def __init__(self, root: Path, paths: set[str], namespaces: dict[str, list[str]]) -> None:
        self.root = root
        self.paths = paths
        self.namespaces = namespaces
        self.include_dirs = sorted({p[: p.index("include/") + 8] for p in paths if "include/" in p})
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for p in sorted(paths):
            self.by_name[posixpath.basename(p)].append(p)
        self.psr4 = _psr4(root)

    def resolve(self, src: str, language: str, raw: str) -> list[str]:
        if language in ("c", "cpp"):
            return self._include(src, raw)
        if language == "ruby":
            return self._ruby(src, raw)
        if language == "php":
            return self._php(src, raw)
        if language == "csharp":
            # `using Y = A.B.C;` and `using static A.B.C;` name a type: the files of its namespace
            found = self.namespaces.get(raw) or self.namespaces.get(raw.rpartition(".")[0], [])
            return sorted(p for p in found if p != src)
        if language in ("kotlin", "scala"):
            return self._jvm(raw)
        if language == "bash":
            return self._bash(src, raw)
        if language == "lua":
            return self._lua(raw)
        return []

    def _first(self, candidates: list[str]) -> list[str]:
        for candidate in candidates:
            candidate = posixpath.normpath(candidate).removeprefix("./")
            if candidate in self.paths:
                return [candidate]
        return []

    def _include(self, src: str, raw: str) -> list[str]:
        if raw.startswith("<"):
            name = raw.strip("<>")
            return self._first([posixpath.join(d, name) for d in self.include_dirs])
        here = posixpath.dirname(src)
        return self._first([posixpath.join(here, raw), raw, *(posixpath.join(d, raw) for d in self.include_dirs)])

    def _ruby(self, src: str, raw: str) -> list[str]:
        name = raw if raw.endswith(".rb") else raw + ".rb"
        if raw.startswith("."):
            return self._first([posixpath.join(posixpath.dirname(src), name)])
        return self._first([posixpath.join("lib", name), name])

    def _php(self, src: str, raw: str) -> list[str]:
        if "/" in raw or raw.endswith(".php"):  # require 'x.php'
            return self._first([posixpath.join(posixpath.dirname(src), raw), raw])
        for prefix, folders in self.psr4:
            if raw.startswith(prefix):
                rest = raw[len(prefix) :].replace("\\", "/") + ".php"
                hit = self._first([posixpath.join(folder, rest) for folder in folders])
                if hit:
                    return hit
        return []

    def _jvm(self, raw: str) -> list[str]:
        if raw.endswith(".*"):
            folder = "/" + raw[:-2].replace(".", "/")
            return sorted(p for p in self.paths if p.endswith(_JVM) and ("/" + posixpath.dirname(p)).endswith(folder))
        name = raw.rsplit(".", 1)[-1]
        suffix = raw.replace(".", "/")
        for extension in _JVM:
            for p in self.by_name.get(name + extension, []):
                if p == suffix + extension or p.endswith("/" + suffix + extension):
                    return [p]
        if "." in raw:  # Kotlin `import shop.store.open`: a top-level function of that package
            return self._jvm(raw.rsplit(".", 1)[0] + ".*")
        return []

    def _bash(self, src: str, raw: str) -> list[str]:
        raw = re.sub(r"^\$\{?\w+\}?/", "", raw)
        if "$" in raw:
            return []
        return self._first([posixpath.join(posixpath.dirname(src), raw), raw])

    def _lua(self, raw: str) -> list[str]:
        stem = raw.replace(".", "/")
        candidates = []
        for base in ("", "lua/", "src/"):
            candidates += [f"{base}{stem}.lua", f"{base}{stem}/init.lua"]
        return self._first(candidates)


def _psr4(root: Path) -> list[tuple[str, list[str]]]:
    """composer.json's PSR-4 prefixes (longest first) and their folders."""
    try:
        data = json.loads((root / "composer.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out: dict[str, list[str]] = {}
    for section in ("autoload", "autoload-dev"):
        block = data.get(section) if isinstance(data, dict) else None
        mapping = block.get("psr-4") if isinstance(block, dict) else None
        if not isinstance(mapping, dict):
            continue
        for prefix, folders in mapping.items():
            listed = [folders] if isinstance(folders, str) else [f for f in folders if isinstance(f, str)]
            out.setdefault(str(prefix), []).extend(f.rstrip("/") for f in listed)
    return sorted(out.items(), key=lambda item: (-len(item[0]), item[0]))
