"""References precision and recall against clangd, for C functions or C++ functions and methods.

    python -m benchmarks.oracle.clangd_refs CHECKOUT [--language c|cpp] [--sample N] [--misses N]

The checkout gets a generated compile_commands.json (every `.c` file, or `.cc`/`.cpp` file with
`c++ -std=c++17`, compiled from the root with
`-I` of every folder holding a header, in a temporary folder, never in the checkout; where the
repository builds with CMake, its own configured commands for the sources it builds, and its
build folder's generated headers for the rest), clangd
(Debian's) builds its background index over it (waited for until every source file has its shard
on disk: clangd's first progress end can come before all are queued; a partial index gives no
figure, exit 2), and for a sample of the functions the checkout
defines (every k-th by path and line, so the sample is fixed) clangd's `textDocument/references`
(declarations left out) is the truth. Pallium indexes the checkout in a temporary PALLIUM_HOME
and answers `pallium_callers` for each name; a Pallium reference counts when it resolves to a
definition of that name (`import`, `same-file`, `unique`, `receiver`), or to a base's virtual it
overrides (the answer's `implements`; clangd lists calls through those too). Both are compared as
(path, line) pairs within the checkout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.oracle.lsp import RESOLVED as _RESOLVED
from benchmarks.oracle.lsp import Lsp, every_reference, locations_in, report

_SOURCES = {"c": ["*.c"], "cpp": ["*.cc", "*.cpp", "*.cxx"]}
_COMPILER = {"c": "cc", "cpp": "c++ -std=c++17"}


def compile_commands(checkout: Path, files: list[str], into: Path, language: str = "c") -> None:
    # every folder holding a header and each folder above it: `#include "leveldb/db.h"` needs `include/`
    held = {Path(f).parent for f in files} | {Path(f).parent for f in _headers(checkout)}
    folders = sorted({str(p) for d in held for p in (d, *d.parents)})
    built = _cmake_commands(checkout, into / "build")
    generated = sorted({str(Path(e["file"]).parent) for e in built.values()} | {str(into / "build")}) if built else []
    flags = " ".join([f"-I{checkout / d}" for d in folders] + [f"-I{d}" for d in generated])
    compiler = _COMPILER[language]
    entries = [
        built.get(str(checkout / f))
        or {"directory": str(checkout), "file": str(checkout / f), "command": f"{compiler} {flags} -c {f}"}
        for f in files
    ]
    (into / "compile_commands.json").write_text(json.dumps(entries))


def _cmake_commands(checkout: Path, build: Path) -> dict[str, dict]:
    """The repository's own compile commands where it builds with CMake (configured in a temporary
    folder, never in the checkout), by source path: the headers its configure step generates
    (json-c's `json.h` from `json.h.cmakein`, `config.h`) exist only there."""
    if not (checkout / "CMakeLists.txt").is_file():
        return {}
    done = subprocess.run(
        ["cmake", "-S", str(checkout), "-B", str(build), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    listed = build / "compile_commands.json"
    if done.returncode != 0 or not listed.is_file():
        return {}
    return {str(Path(e["directory"], e["file"]).resolve()): e for e in json.loads(listed.read_text())}


def _shards(work: Path, files: list[str]) -> tuple[int, int]:
    """(sources with a background-index shard on disk, sources): clangd writes one
    `<file name>.<hash>.idx` per file it indexed beside the compilation database."""
    from collections import Counter

    wanted = Counter(Path(f).name for f in files)
    folder = work / ".cache" / "clangd" / "index"
    names = [p.name.split(".idx")[0].rsplit(".", 1)[0] for p in folder.glob("*.idx")] if folder.is_dir() else []
    have = Counter(names)
    return sum(min(n, have[name]) for name, n in wanted.items()), len(files)


def _headers(checkout: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "*.h", "*.hpp", "*.hh"], cwd=checkout, capture_output=True, text=True, check=True
    )
    return out.stdout.split()


async def pallium_answers(checkout: Path, asked: dict[str, str]) -> dict[str, set[tuple[str, int]]]:
    """For each name (a C function, a C++ `Class.method`), the (path, line) of Pallium's references
    resolved to its definition in `asked[name]` or to a header declaring it."""
    from kernel.context import ToolContext
    from kernel.dispatch import call

    ctx = ToolContext(cwd=checkout)
    try:
        await call("pallium_index", {}, ctx)
        out = {}
        for name, path in asked.items():
            # a call through a base's virtual this one overrides counts, as clangd counts it
            above = await call("pallium_callers", {"name": name, "limit": 1}, ctx)
            overridden = {d.qualified for d in above.implements}
            out[name] = {
                (r.path, r.line)
                for r in await every_reference(call, name, ctx)
                if r.resolution in _RESOLVED
                and r.target is not None
                and (_this_one(r, path, name) or r.target_qualified in overridden)
            }
        return out
    finally:
        ctx.close()


def _this_one(r: object, path: str, name: str) -> bool:
    """A reference resolved to the definition asked for, or to a header declaring it."""
    target, qualified = r.target, r.target_qualified  # type: ignore[attr-defined]
    return (target == path or target.endswith((".h", ".hpp", ".hh"))) and qualified in (None, name)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.oracle.clangd_refs")
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--sample", type=int, default=40, help="functions to ask about (default 40)")
    parser.add_argument("--misses", type=int, default=3)
    parser.add_argument("--language", choices=sorted(_SOURCES), default="c")
    parser.add_argument("--index-timeout", type=float, default=3600, help="seconds to wait for clangd's index")
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    from services.repo.parsing import extract

    listed = subprocess.run(
        ["git", "ls-files", *_SOURCES[args.language]], cwd=checkout, capture_output=True, text=True, check=True
    )
    files = listed.stdout.split()
    functions = []
    for path in files:
        for symbol in extract(path, (checkout / path).read_bytes()).symbols:
            name, kind, qualified, line = symbol[0], symbol[1], symbol[2], symbol[5]
            if kind in ("function", "method") and symbol[6] > line and "~" not in name and "operator" not in name:
                # a definition with a body, not a prototype; a C++ member asked for as `Class.method`
                functions.append((path, line, qualified if args.language == "cpp" else name))
    functions.sort()
    by_name: dict[str, list[tuple[str, int]]] = {}
    for path, line, name in functions:
        by_name.setdefault(name, []).append((path, line))
    unique = [(p, ln, n) for p, ln, n in functions if len(by_name[n]) == 1]  # `static` twins are another question
    step = max(1, len(unique) // args.sample)
    sample = unique[::step][: args.sample]
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        compile_commands(checkout, files, work, args.language)
        os.environ["PALLIUM_HOME"] = str(work / "home")
        lsp = Lsp(["clangd", f"--compile-commands-dir={work}", "--background-index", "-j=1"], checkout)
        lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": checkout.as_uri(),
                "capabilities": {"window": {"workDoneProgress": True}},
            },
        )
        lsp.notify("initialized", {})
        first = checkout / files[0]
        lsp.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": first.as_uri(),
                    "languageId": args.language,
                    "version": 1,
                    "text": first.read_text(errors="replace"),
                }
            },
        )
        started = time.monotonic()
        complete = lsp.wait_for_index(timeout=args.index_timeout, shards=lambda: _shards(work, files))
        indexed_in = time.monotonic() - started
        have, want = _shards(work, files)
        if not complete:  # a partial index lists fewer references: a figure from it is not clangd's
            lsp.close()
            print(f"clangd's index was not complete after {indexed_in:.0f} s ({have} of {want} files): no figure")
            return 2
        truth: dict[str, set[tuple[str, int]]] = {}
        defined: dict[str, str] = {}
        for path, line, name in sample:
            text = (checkout / path).read_text(errors="replace").splitlines()
            name_at = name.rsplit(".", 1)[-1]
            column = text[line - 1].find(name_at + "(") if line - 1 < len(text) else -1
            offset = 0
            while column < 0 and offset < 6 and line - 1 + offset < len(text):  # the name below its return type
                offset += 1
                column = text[line - 1 + offset].find(name_at + "(")
            if column < 0:
                continue
            uri = (checkout / path).as_uri()
            lsp.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": args.language, "version": 1, "text": "\n".join(text)}},
            )
            found = (
                lsp.request(
                    "textDocument/references",
                    {
                        "textDocument": {"uri": uri},
                        "position": {"line": line - 1 + offset, "character": column},
                        "context": {"includeDeclaration": False},
                    },
                )
                or []
            )
            refs = locations_in(found, checkout)  # type: ignore[arg-type]
            truth[name] = refs
            defined[name] = path
        lsp.close()
        ours = asyncio.run(pallium_answers(checkout, defined))
    heading = f"clangd references on {checkout.name} ({args.language}): {len(truth)} functions"
    print(f"{heading} (clangd indexed {have} of {want} files in {indexed_in:.0f} s)")
    report("clangd", truth, ours, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
