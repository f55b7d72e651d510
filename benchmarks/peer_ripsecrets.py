"""Read ripsecrets' own test cases (github:sirwart/ripsecrets) for `python -m benchmarks secrets`.

Its tests (`src/lib.rs`) require one finding per line of each `test/one_per_line/<family>` file, one
per `test/one_per_file/<name>` file, and none in `test/none`. So: each such line or file is a positive
of its family, each line of `test/none` a negative; ripsecrets states no expected value, so a case
counts as caught when Pallium redacts anything in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Case", "read_cases"]


@dataclass(frozen=True)
class Case:
    family: str
    text: str
    positive: bool
    where: str


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    base = root / "test"
    cases: list[Case] = []
    for path in sorted((base / "one_per_line").iterdir()):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                cases.append(Case(path.name, line, True, f"one_per_line/{path.name}:{number}"))
    for path in sorted((base / "one_per_file").iterdir()):
        cases.append(Case(path.name, path.read_text(encoding="utf-8"), True, f"one_per_file/{path.name}"))
    for number, line in enumerate((base / "none").read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            cases.append(Case("none", line, False, f"none:{number}"))
    return cases, []
