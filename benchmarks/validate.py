"""`python -m benchmarks validate`: workflow validation stays linear in the script's size.

Hostile shapes at growing sizes (one long identifier, many short calls, many arrow functions, a
long string, a 1 MB ordinary script); each figure is printed beside the same shape at the smallest
size scaled linearly, so a ratio near 1 means linear and one that grows with the size is not. The
baseline of the whole run is `len(source)` bytes hashed by `stable_hash`, measured here too.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable

from benchmarks.harness import row

GOAL_SECONDS_1MB = 1.0

SHAPES: dict[str, Callable[[int], str]] = {
    "one long identifier": lambda n: "const " + "a" * n + " = 1;\nreturn 1;\n",
    "many unknown calls": lambda n: "".join(f"f{i}();\n" for i in range(n // 6)),
    "many arrow functions": lambda n: "".join(f"const g{i} = (x) => x;\n" for i in range(n // 22)),
    "one long string": lambda n: 'const s = "' + "s" * n + '";\nreturn s;\n',
    "ordinary script": lambda n: "".join(
        f'const r{i} = await agent("look at part {i}", {{label: "p{i}"}});\nlog(r{i});\n' for i in range(n // 60)
    ),
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks validate")
    parser.add_argument("--sizes", default="10000,100000,1000000", help="script sizes in characters")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"workflow validate (goal: a 1 MB script in under {GOAL_SECONDS_1MB:g} s; ratio ~1 = linear)")
    return asyncio.run(_run(sizes))


async def _run(sizes: list[int]) -> int:
    from kernel.hashing import stable_hash
    from services.workflows.validate import validate_source

    worst = 0.0
    await validate_source("return 1;")  # V8's first start is not the script's cost
    for shape, make in SHAPES.items():
        first: tuple[int, float] | None = None
        for size in sizes:
            source = make(size)[:size]
            start = time.perf_counter()
            await validate_source(source)
            seconds = time.perf_counter() - start
            hashed = time.perf_counter()
            stable_hash(source)
            hash_ms = (time.perf_counter() - hashed) * 1000
            if first is None:
                first = (len(source), seconds)
            linear = first[1] * len(source) / first[0]
            print(row(f"{shape}, {len(source):,} chars", seconds * 1000, "linear from the smallest", linear * 1000))
            print(f"      (hashing the same text: {hash_ms:.1f} ms)")
            if len(source) >= 1_000_000:
                worst = max(worst, seconds)
    print(f"  slowest 1 MB script: {worst:.2f} s (goal < {GOAL_SECONDS_1MB:g} s)")
    return 0 if worst < GOAL_SECONDS_1MB else 1
