"""References precision and recall against a hand-labelled sample, for languages with no language server here.

    python -m benchmarks.oracle.labelled_refs LABELS.json CHECKOUT [--misses N] [--json] [--check]

`LABELS.json` (under `benchmarks/oracle/labels/`) names a repository, its commit, the labeller's
rule, and for each sampled definition (file:line) the references a person found by reading every
`git grep -n -w NAME` line in context, before Pallium was run on that repository, each with a kind
(`call`, `constant`, `symbol`, `value`...), and the lines rejected with the reason. CHECKOUT is a
clone at that commit (it is checked; a scratch clone, the index goes to a temporary PALLIUM_HOME).

Pallium indexes the checkout and answers `pallium_callers` for each definition (every page), asked
by the qualified name of its own symbol at that file:line. A Pallium line counts as a claim when it
resolves to that definition (`import`, `same-file`, `unique`, `receiver` and the definition's path
and qualified name); `ambiguous` lines are listed, not claimed. Compared per (path, line):

- precision = claimed lines that are labelled references / claimed lines;
- recall = labelled references Pallium lists (claimed or ambiguous) / labelled references;
  `claimed_recall` counts the claimed lines only;
- `call` restricts the labels to kind `call` and Pallium's side to its references of kind `call`.

A definition Pallium does not index at that line counts all its references as misses.
`--check` only verifies the labels against the checkout: every `git grep -n -w NAME` line over the
file's `globs` is labelled one way or the other, and no label names a line grep does not find.
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
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.oracle.lsp import RESOLVED, every_reference

Line = tuple[str, int]


@dataclass
class Tally:
    labelled: int = 0
    claimed: int = 0
    claimed_right: int = 0
    listed_right: int = 0
    ambiguous: int = 0

    def add(self, truth: set[Line], claimed: set[Line], ambiguous: set[Line]) -> None:
        self.labelled += len(truth)
        self.claimed += len(claimed)
        self.claimed_right += len(claimed & truth)
        self.listed_right += len((claimed | ambiguous) & truth)
        self.ambiguous += len(ambiguous - claimed)

    def figures(self) -> dict[str, float | int | None]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 3) if b else None

        return {
            "precision": ratio(self.claimed_right, self.claimed),
            "recall": ratio(self.listed_right, self.labelled),
            "claimed_recall": ratio(self.claimed_right, self.labelled),
            "labelled": self.labelled,
            "claimed": self.claimed,
            "ambiguous": self.ambiguous,
        }


@dataclass
class Grade:
    every: Tally = field(default_factory=Tally)
    call: Tally = field(default_factory=Tally)
    unindexed: list[str] = field(default_factory=list)
    differences: list[dict] = field(default_factory=list)


def _at(text: str) -> Line:
    path, line = text.rsplit(":", 1)
    return path, int(line)


async def grade(labels: dict, checkout: Path) -> Grade:
    from kernel.context import ToolContext
    from kernel.dispatch import call
    from kernel.errors import PalliumError
    from kernel.store import open_repo
    from services.repo.store import SCHEMA, RepoStore

    ctx = ToolContext(cwd=checkout)
    try:
        await call("pallium_index", {}, ctx)
    finally:
        ctx.close()
    store = RepoStore(open_repo(checkout, [SCHEMA]))
    result = Grade()
    try:
        for entry in labels["definitions"]:
            path, line = _at(entry["at"])
            truth = {_at(r["at"]): r["kind"] for r in entry["references"]}
            rejected = {_at(r["at"]): r["why"] for r in entry["not_references"]}
            symbol = _symbol_at(store.symbols_in(path), entry["name"], line)
            listed: list = []
            if symbol is None:
                result.unindexed.append(entry["at"])
            else:
                for asked in (symbol.qualified, symbol.name):  # the qualified spelling first, else the bare name
                    ctx = ToolContext(cwd=checkout)
                    try:
                        listed = await every_reference(call, asked, ctx)
                        break
                    except PalliumError:
                        listed = []
                    finally:
                        ctx.close()
            definition = {(path, line)} | ({(path, symbol.start_line)} if symbol else set())
            mine = [
                r
                for r in listed
                if (r.path, r.line) not in definition
                and (
                    r.resolution == "ambiguous"
                    or (r.resolution in RESOLVED and r.target == path and r.target_qualified == symbol.qualified)
                )
            ]
            for tally, label_kinds, pallium_kinds in ((result.every, None, None), (result.call, {"call"}, {"call"})):
                wanted = {at for at, kind in truth.items() if label_kinds is None or kind in label_kinds}
                kept = [r for r in mine if pallium_kinds is None or r.kind in pallium_kinds]
                claimed = {(r.path, r.line) for r in kept if r.resolution != "ambiguous"}
                ambiguous = {(r.path, r.line) for r in kept if r.resolution == "ambiguous"}
                tally.add(wanted, claimed, ambiguous)
                if tally is result.every and (claimed - wanted or wanted - claimed - ambiguous):
                    how = {(r.path, r.line): f"{r.kind}/{r.resolution}" for r in kept}
                    result.differences.append(
                        {
                            "definition": f"{entry['name']} {entry['at']}",
                            "asked": symbol.qualified if symbol else None,
                            "false_hits": [
                                f"{p}:{n} {how[(p, n)]} ({rejected.get((p, n), 'not a grep line of the name')})"
                                for p, n in sorted(claimed - wanted)
                            ],
                            "missed": [f"{p}:{n} {truth[(p, n)]}" for p, n in sorted(wanted - claimed - ambiguous)],
                        }
                    )
    finally:
        store.db.close()
    return result


def unlabelled(labels: dict, checkout: Path) -> list[str]:
    """The grep lines no label covers and the labels no grep line backs, as `name: path:line`."""
    problems = []
    for entry in labels["definitions"]:
        done = subprocess.run(
            ["git", "grep", "-n", "-w", entry["name"], "--", *labels["globs"]],
            cwd=checkout,
            capture_output=True,
            text=True,
        )
        found = {":".join(hit.split(":", 2)[:2]) for hit in done.stdout.splitlines()}
        labelled = {r["at"] for r in entry["references"]} | {r["at"] for r in entry["not_references"]}
        labelled.add(entry["at"])
        problems += [f"{entry['name']}: {at} is not labelled" for at in sorted(found - labelled)]
        problems += [f"{entry['name']}: {at} is labelled but no grep line" for at in sorted(labelled - found)]
    return problems


def _symbol_at(symbols: list, name: str, line: int):
    """Pallium's symbol for the labelled definition: that name starting on that line (or the next,
    where a comment or decorator line shifts the start)."""
    for candidate in sorted(symbols, key=lambda s: abs(s.start_line - line)):
        if abs(candidate.start_line - line) <= 1 and (candidate.name == name or candidate.qualified.endswith(name)):
            return candidate
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.oracle.labelled_refs")
    parser.add_argument("labels", type=Path)
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--misses", type=int, default=10, help="definitions whose differences to print")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--check", action="store_true", help="only check that every grep line is labelled")
    args = parser.parse_args(argv)
    labels = json.loads(args.labels.read_text())
    checkout = args.checkout.resolve()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True).stdout.strip()
    if head != labels["commit"]:
        print(f"{checkout} is at {head or 'no commit'}, the labels are of {labels['commit']}", file=sys.stderr)
        return 2
    if args.check:
        problems = unlabelled(labels, checkout)
        print("\n".join(problems) or f"every grep line of {len(labels['definitions'])} definitions is labelled")
        return 1 if problems else 0
    os.environ["PALLIUM_HOME"] = tempfile.mkdtemp(prefix="labelled-home-")
    os.environ["PALLIUM_RESIDENT"] = "off"
    started = time.perf_counter()
    result = asyncio.run(grade(labels, checkout))
    row = {
        "repo": f"{labels['repo']}@{labels['commit'][:7]}",
        "language": labels["language"],
        "definitions": len(labels["definitions"]),
        "unindexed": result.unindexed,
        "all": result.every.figures(),
        "call": result.call.figures(),
        "seconds": round(time.perf_counter() - started, 1),
        "load": round(os.getloadavg()[0], 1),
    }
    if args.json:
        print(json.dumps(row | {"differences": result.differences}))
        return 0
    a, c = row["all"], row["call"]
    print(
        f"{row['repo']} ({row['language']}): {row['definitions']} definitions, {a['labelled']} labelled references "
        f"({c['labelled']} calls); all kinds: precision {a['precision']} recall {a['recall']} (claimed only "
        f"{a['claimed_recall']}, {a['ambiguous']} ambiguous lines); call: precision {c['precision']} recall "
        f"{c['recall']} (claimed only {c['claimed_recall']}); not indexed at the labelled line: "
        f"{len(result.unindexed)}; {row['seconds']}s, load {row['load']}"
    )
    for difference in result.differences[: args.misses]:
        print(json.dumps(difference), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
