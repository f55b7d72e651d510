"""`python -m benchmarks <name>`: run one benchmark and print its figures beside same-run baselines."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "startup": "benchmarks.startup",
    "dispatch": "benchmarks.dispatch",
    "index": "benchmarks.index",
    "workflow": "benchmarks.workflow",
    "sessions": "benchmarks.sessions",
    "loops": "benchmarks.loops",
    "route": "benchmarks.route",
    "team": "benchmarks.team",
    "validate": "benchmarks.validate",
    "mcp": "benchmarks.mcp",
    "knowledge": "benchmarks.knowledge",
    "oracle": "benchmarks.oracle.run",
    "secrets": "benchmarks.secrets",
    "redaction-speed": "benchmarks.redaction_speed",
    "rejections": "benchmarks.rejections",
    "hostile": "benchmarks.hostile",
    "dbos-probe": "benchmarks.dbos_probe",
    "scale-out": "benchmarks.scale_out",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in BENCHMARKS:
        print(f"usage: python -m benchmarks {{{','.join(BENCHMARKS)}}} [options]", file=sys.stderr)
        return 2
    return importlib.import_module(BENCHMARKS[argv[0]]).main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
