"""Small timing helpers shared by the benchmarks: medians of cold process starts, percentiles."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def time_command(argv: list[str], *, cwd: Path, runs: int, env: dict[str, str] | None = None) -> list[float]:
    """Wall-clock seconds of `runs` cold starts of `argv` (after one unmeasured warm-up)."""
    full_env = {**os.environ, **(env or {})}
    subprocess.run(argv, cwd=cwd, env=full_env, capture_output=True, check=True)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=full_env, capture_output=True, check=True)
        samples.append(time.perf_counter() - start)
    return samples


def time_call(fn: Callable[[], object], *, runs: int) -> list[float]:
    fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def percentile_ms(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index] * 1000


def row(label: str, value_ms: float, baseline_label: str | None = None, baseline_ms: float | None = None) -> str:
    text = f"  {label:<44} {value_ms:8.1f} ms"
    if baseline_label and baseline_ms:
        text += f"   ({value_ms / baseline_ms:5.1f}x {baseline_label} = {baseline_ms:.1f} ms)"
    return text
