"""References precision and recall against intelephense, for PHP methods and functions, on a checkout.

    python -m benchmarks.oracle.intelephense_refs CHECKOUT --server PATH/TO/intelephense [--sample N]

intelephense (npm) indexes the checkout as a workspace; for a fixed sample of the methods and
functions the checkout defines (every k-th by path and line), its `textDocument/references`
(declarations left out) is the truth. Pallium indexes the checkout in a temporary PALLIUM_HOME and
answers `pallium_callers` for `Class.method` (or the function's name); a Pallium reference counts
when it resolves to that very definition or to an interface or base method it implements (the
answer's `implements`: intelephense lists calls through those too). Both are compared as (path,
line) pairs. intelephense also lists the calls of a sibling's method when both implement one
interface method (`ArrayAdapter::create()` for `ServerConstAdapter::create`): Pallium never does,
and those count as its misses.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.oracle.lsp import RESOLVED, Lsp, every_reference, locations_in, report


async def pallium_answers(checkout: Path, asked: list[tuple[str, str, str, int]]) -> dict[str, set[tuple[str, int]]]:
    """For each `(key, path, qualified, line)`: Pallium's references resolved to that definition."""
    from kernel.context import ToolContext
    from kernel.dispatch import call

    ctx = ToolContext(cwd=checkout)
    try:
        await call("pallium_index", {}, ctx)
        out = {}
        for key, path, qualified, line in asked:
            # a call through an interface method this one implements counts, as intelephense counts it
            above = await call("pallium_callers", {"name": qualified, "limit": 1}, ctx)
            # by line too: a property and a method may share `Class.name` (`$timeLimit`, `timeLimit()`)
            targets = {(path, qualified, line)} | {(d.path, d.qualified, d.line) for d in above.implements}
            out[key] = {
                (r.path, r.line)
                for r in await every_reference(call, qualified, ctx)
                if r.resolution in RESOLVED and (r.target, r.target_qualified, r.target_line) in targets
            }
        return out
    finally:
        ctx.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.oracle.intelephense_refs")
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--server", required=True, help="the intelephense program (npm install intelephense)")
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--misses", type=int, default=3)
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    from services.repo.parsing import extract

    listed = subprocess.run(["git", "ls-files", "*.php"], cwd=checkout, capture_output=True, text=True, check=True)
    files = listed.stdout.split()
    definitions = []
    for path in files:
        for symbol in extract(path, (checkout / path).read_bytes()).symbols:
            name, kind, qualified, line = symbol[0], symbol[1], symbol[2], symbol[5]
            if kind in ("method", "function") and not name.startswith("__") and "@" not in qualified:
                definitions.append((path, line, name, qualified))
    definitions.sort()
    step = max(1, len(definitions) // args.sample)
    sample = definitions[::step][: args.sample]
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        os.environ["PALLIUM_HOME"] = str(work / "home")
        lsp = Lsp([args.server, "--stdio"], checkout)
        lsp.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": checkout.as_uri(),
                "capabilities": {},
                "initializationOptions": {"storagePath": str(work / "store"), "clearCache": True},
            },
        )
        lsp.notify("initialized", {})
        started = time.monotonic()
        complete = lsp.wait_for_index(timeout=1800, notification="indexingEnded")
        indexed_in = time.monotonic() - started
        if not complete:  # a partial index lists fewer references: a figure from it is not intelephense's
            lsp.close()
            print(f"intelephense had not ended its indexing after {indexed_in:.0f} s: no figure")
            return 2
        truth: dict[str, set[tuple[str, int]]] = {}
        asked = []
        for path, line, name, qualified in sample:
            text = (checkout / path).read_text(errors="replace").splitlines()
            found_at = (
                re.search(rf"\bfunction\s+&?({re.escape(name)})\s*\(", text[line - 1]) if line <= len(text) else None
            )
            offset = 0
            while found_at is None and offset < 4 and line + offset < len(text):  # attributes above the name
                offset += 1
                found_at = re.search(rf"\bfunction\s+&?({re.escape(name)})\s*\(", text[line - 1 + offset])
            if found_at is None:
                continue
            uri = (checkout / path).as_uri()
            document = {"uri": uri, "languageId": "php", "version": 1, "text": "\n".join(text)}
            lsp.notify("textDocument/didOpen", {"textDocument": document})
            found = (
                lsp.request(
                    "textDocument/references",
                    {
                        "textDocument": {"uri": uri},
                        "position": {"line": line - 1 + offset, "character": found_at.start(1)},
                        "context": {"includeDeclaration": False},
                    },
                )
                or []
            )
            refs = locations_in(found, checkout)  # type: ignore[arg-type]
            key = f"{path}:{qualified}"
            truth[key] = refs
            asked.append((key, path, qualified, line))
        lsp.close()
        ours = asyncio.run(pallium_answers(checkout, asked))
    print(f"intelephense references on {checkout.name}: {len(truth)} definitions (indexed in {indexed_in:.0f} s)")
    report("intelephense", truth, ours, args.misses)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
