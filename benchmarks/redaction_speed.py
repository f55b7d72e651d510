"""`python -m benchmarks redaction-speed --baseline DIR [--peer DIR ...]`: redaction's CPU time per MB, this
tree's `kernel.secrets` against another checkout's (main, a tag), measured in the same run.

Two inputs: the strings of generated session records (`benchmarks.sessions.generate`: prose, tool calls,
diffs, a few planted secrets; ordinary transcript text), and, with `--peer`, every case text of the
peers the secret benchmark reads (secret-dense lines). Each detector runs in a child process of its own
(`python -c`, the checkout first on `sys.path`, so the two never share a module), warms up on a sample,
then times `redact` over every string with `time.process_time`. The pairs alternate which side runs first,
so a change of machine load falls on both; the figure is the median of the pairs' ratios.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["main"]

_CHILD = """
import pickle, sys, time
sys.path.insert(0, sys.argv[1])
from kernel.secrets import redact
strings = pickle.load(open(sys.argv[2], "rb"))
for s in strings[:2000]:
    redact(s)
started = time.process_time()
for s in strings:
    redact(s)
print(time.process_time() - started)
"""


def _session_strings(scratch: Path, sessions: int) -> list[str]:
    from benchmarks.sessions import generate

    homes = {"claude": scratch / "claude", "codex": scratch / "codex"}
    generate(homes, sessions, 500_000, random.Random(4))
    strings: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(scratch.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            walk(json.loads(line))
    return strings


def _peer_strings(peers: list[Path]) -> list[str]:
    from benchmarks.secret_corpora import READERS, peer_of

    out: list[str] = []
    for root in peers:
        cases, _ = READERS[peer_of(root)](root)
        out += [c.text for c in cases]
    return out


def _cpu_seconds(root: Path, data: Path) -> float:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(data)], capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks redaction-speed")
    parser.add_argument("--baseline", required=True, type=Path, help="a checkout whose kernel/ is the baseline")
    parser.add_argument("--peer", action="append", default=[], type=Path, help="a peer checkout (secret-dense lines)")
    parser.add_argument("--sessions", type=int, default=40, help="generated sessions of about 500 KB (default 40)")
    parser.add_argument("--pairs", type=int, default=3, help="baseline/this-tree pairs per input (default 3)")
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as scratch:
        inputs = {"session records": _session_strings(Path(scratch) / "corpus", args.sessions)}
        if args.peer:
            inputs["secret-dense peer lines"] = _peer_strings(args.peer)
        for label, strings in inputs.items():
            data = Path(scratch) / "strings.pickle"
            data.write_bytes(pickle.dumps(strings))
            mb = sum(len(s) for s in strings) / 1e6
            ratios = []
            print(f"{label}: {len(strings)} strings, {mb:.1f} MB")
            for pair in range(args.pairs):
                order = [("baseline", args.baseline), ("this tree", here)]
                if pair % 2:
                    order.reverse()
                seconds = {name: _cpu_seconds(root, data) for name, root in order}
                ratios.append(seconds["this tree"] / seconds["baseline"])
                print(
                    f"  pair {pair + 1}: baseline {seconds['baseline'] / mb * 1000:7.1f} ms/MB, "
                    f"this tree {seconds['this tree'] / mb * 1000:7.1f} ms/MB, ratio {ratios[-1]:.2f}x"
                )
            print(f"  median ratio {statistics.median(ratios):.2f}x ({min(ratios):.2f} to {max(ratios):.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
