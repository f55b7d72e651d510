"""Import resolution for the pack languages: `#include`, `require`, PSR-4, namespaces, packages.

Each rule follows what the language itself does, as far as a file list can tell:

- C/C++: `#include "x.h"` from the including file's folder, then the repository root and any
  `include/` folder; `<x.h>` only when the repository holds that path under an `include/` folder.
- Ruby: `require_relative` from the file's folder; `require "a/b"` from `lib/`, then the root.
- PHP: `use A\\B\\C` through composer.json's PSR-4 map (`autoload` and `autoload-dev`), and
  `require`/`include` of a quoted path relative to the file.
- C#: `using A.B` names every file that declares namespace `A.B` (`using Y = A.B.C`, those of `A.B`).
- Kotlin: `import a.b.Name` names the files declaring Name at the top of package a.b, `.*` the files of
  the package (by their `package` header, not their folder); a Java class by its path.
- Scala (and Java, for mixed JVM projects): an import names the file of that path, `.*` a package.
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
        self.include_dirs = sorted(
            {p[: p.index("include/") + 8] for p in paths if "include/" in p} | set(_declared_include_dirs(root, paths))
        )
        self.ruby_libs = sorted({p[: p.index("lib/") + 4] for p in paths if p.endswith(".rb") and "lib/" in p})
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
        if language == "kotlin":
            return self._kotlin(raw)
        if language == "scala":
            return self._jvm(raw)
        if language == "bash":
            return self._bash(src, raw)
        if language == "lua":
            return self._lua(src, raw)
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
        found = self._first([posixpath.join(here, raw), raw, *(posixpath.join(d, raw) for d in self.include_dirs)])
        return found or self._only_suffix(raw)

    def _only_suffix(self, raw: str) -> list[str]:
        """The one file of the repository whose path ends in `raw` (`x.h`, `sub/x.h`), as an `-I` the
        build files do not show would find it; none when several could be meant."""
        name = posixpath.basename(raw)
        hits = [p for p in self.by_name.get(name, []) if p == raw or p.endswith("/" + raw.lstrip("./"))]
        return hits if len(hits) == 1 else []

    def _ruby(self, src: str, raw: str) -> list[str]:
        name = raw if raw.endswith(".rb") else raw + ".rb"
        if raw.startswith("."):
            return self._first([posixpath.join(posixpath.dirname(src), name)])
        # `require "gem/part"`: the root's lib/, then each gem's own lib/, the requiring gem's first
        own = sorted(self.ruby_libs, key=lambda lib: (not src.startswith(lib[:-4]), lib))
        return self._first([posixpath.join("lib", name), *(posixpath.join(lib, name) for lib in own), name])

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

    def _kotlin(self, raw: str) -> list[str]:
        """`import a.b.Name` names the Kotlin files declaring Name at the top of package a.b (a class,
        a function, a property), `import a.b.Outer.Inner` the file of Outer, `import a.b.*` the
        package's files; a Java class by its path. Anything else (the standard library, a
        dependency) stays unresolved, whatever folder happens to end in `a/b/`."""
        if raw.endswith(".*"):
            package = raw[:-2]
            files = [p for p in self.namespaces.get(package, []) if p.endswith((".kt", ".kts"))]
            folder = "/" + package.replace(".", "/")
            java = [p for p in self.paths if p.endswith(".java") and ("/" + posixpath.dirname(p)).endswith(folder)]
            return sorted({*files, *java})
        parts = raw.split(".")
        for cut in range(len(parts), 1, -1):  # `a.b.Outer.Inner` is declared as `a.b.Outer`
            declared = self.namespaces.get("kotlin " + ".".join(parts[:cut]))
            if declared:
                return sorted(declared)
        suffix = "/" + raw.replace(".", "/") + ".java"
        return sorted(p for p in self.by_name.get(parts[-1] + ".java", []) if ("/" + p).endswith(suffix))[:1]

    def _bash(self, src: str, raw: str) -> list[str]:
        raw = re.sub(r"^\$\{?\w+\}?/", "", raw)
        if "$" in raw:
            return []
        return self._first([posixpath.join(posixpath.dirname(src), raw), raw])

    def _lua(self, src: str, raw: str) -> list[str]:
        """`require "a.b"` as package.path's `?.lua;?/init.lua` templates find it: from the root, `lua/`
        (Neovim), `src/` and `lib/`, then from the requiring file's folder and each folder above it
        (a script run where it lives), else the one file ending in `a/b.lua`."""
        stem = raw.replace(".", "/")
        bases = ["", "lua/", "src/", "lib/"]
        folder = posixpath.dirname(src)
        while folder:
            bases.append(folder + "/")
            folder = posixpath.dirname(folder)
        candidates = [c for base in bases for c in (f"{base}{stem}.lua", f"{base}{stem}/init.lua")]
        return self._first(candidates) or self._only_suffix(stem + ".lua")


def _declared_include_dirs(root: Path, paths: set[str]) -> list[str]:
    """Include folders the build declares, repository-relative: `-I` of compile_commands.json,
    `include_directories`/`target_include_directories` of each CMakeLists.txt, `-I` in each
    Makefile.am (`$(top_srcdir)` is the root, `$(srcdir)` the Makefile's folder)."""
    found: set[str] = set()
    for path in sorted(paths):
        name = posixpath.basename(path)
        if name not in ("compile_commands.json", "CMakeLists.txt", "Makefile.am"):
            continue
        try:
            text = (root / path).read_text(encoding="utf-8", errors="replace")[:1_000_000]
        except OSError:
            continue
        here = posixpath.dirname(path)
        if name == "compile_commands.json":
            try:
                entries = json.loads(text)
            except ValueError:
                continue
            for entry in entries if isinstance(entries, list) else []:
                if not isinstance(entry, dict):
                    continue
                arguments = entry.get("arguments") or []
                command = entry.get("command") or " ".join(a for a in arguments if isinstance(a, str))
                directory = str(entry.get("directory") or root)
                for flag in re.findall(r"(?:^|\s)-I\s*(\S+)", str(command)):
                    found.add(_repo_relative(root, posixpath.join(directory, flag.strip("\"'"))))
        elif name == "CMakeLists.txt":
            for block in re.findall(r"(?:target_)?include_directories\s*\(([^)]*)\)", text, re.I):
                for word in block.split():
                    word = word.strip('"')
                    if word.isupper() or not word or word.startswith("$<"):  # PUBLIC, SYSTEM, generator expressions
                        continue
                    word = re.sub(r"\$\{(CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}/?", "/", word)
                    word = re.sub(r"\$\{CMAKE_CURRENT_SOURCE_DIR\}/?", "", word)
                    if "$" not in word:
                        found.add(word.lstrip("/") if word.startswith("/") else posixpath.join(here, word))
        else:
            for flag in re.findall(r"-I\s*(\S+)", text):
                flag = re.sub(r"\$\((top_srcdir|abs_top_srcdir|top_builddir)\)/?", "/", flag)
                flag = re.sub(r"\$\((srcdir|abs_srcdir|builddir)\)/?", "", flag)
                if "$" not in flag:
                    found.add(flag.lstrip("/") if flag.startswith("/") else posixpath.join(here, flag))
    folders = {posixpath.normpath(d) for d in found if d}
    return sorted(f + "/" for f in folders if f != "." and not f.startswith(("..", "/")))


def _repo_relative(root: Path, folder: str) -> str:
    """An absolute folder of compile_commands.json as a repository path ("" outside it, dropped)."""
    try:
        return Path(folder).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return ""


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
