"""Score `knowledge context` on change requests labelled by hand (`benchmarks/knowledge_tasks/*.json`).

Each task names the files an agent must read, the tests that check the change, and traps: files
that look relevant and are not. The labels were written from the repository's own sources before
any Pallium answer was seen; a file marked `"split": "held-out"` was never used for tuning and is
reported apart. Per task: must-read recall over `read`, a right test among the first three
`tests` (and anywhere), traps recommended in `read` or `tests`, the repository's own check command
in `checks`, and the answer's size in bytes.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GOALS = {"recall": 0.85, "right_test": 0.90, "traps": 0, "bytes": 12 * 1024}


@dataclass
class Score:
    id: str
    recall: float
    test_top3: bool
    test_any: bool
    traps: list[str]
    check: bool
    bytes: int
    useful: int  # read entries that are must-read or nice-to-read
    read: int


def score(task: dict[str, Any], answer: dict[str, Any], check: str | None) -> Score:
    read = [f["path"] for f in answer["read"]]
    tests = answer["tests"]
    must = task["must_read"]
    wanted_tests = set(task["tests"])
    good = set(must) | set(task.get("nice", []))
    return Score(
        id=task["id"],
        recall=sum(p in read for p in must) / len(must),
        test_top3=bool(wanted_tests & set(tests[:3])),
        test_any=bool(wanted_tests & set(tests)),
        traps=[t for t in task["traps"] if t in read or t in tests],
        check=bool(check) and any(c.startswith(check) for c in answer["checks"]),
        bytes=len(json.dumps(answer, separators=(",", ":"))),
        useful=sum(p in good for p in read),
        read=len(read),
    )


async def evaluate(repo: Path, tasks_file: Path, *, show: bool) -> list[Score]:
    from kernel.clock import SystemClock
    from kernel.context import ToolContext
    from kernel.dispatch import call

    spec = json.loads(tasks_file.read_text())
    ctx = ToolContext(cwd=repo, clock=SystemClock())
    scores = []
    try:
        await call("pallium_knowledge_build", {"model": False}, ctx)
        for task in spec["tasks"]:
            out = await call("pallium_knowledge_context", {"task": task["task"]}, ctx)
            answer = json.loads(out.model_dump_json())
            s = score(task, answer, spec.get("check"))
            scores.append(s)
            if show:
                print(f"--- {s.id}: {task['task']}")
                for f in answer["read"]:
                    path = f["path"]
                    mark = "M" if path in task["must_read"] else ("n" if path in task.get("nice", []) else " ")
                    mark = "T" if path in task["traps"] else mark
                    print(f"  {mark} {f['path']}  ({'; '.join(f['why'])})")
                print(f"  tests: {answer['tests'][:10]}")
                print(f"  checks: {answer['checks'][:3]}")
    finally:
        ctx.close()
    return scores


def report(name: str, split: str, scores: list[Score], *, has_check: bool = True, every: bool = False) -> str:
    """The set's totals, then a line for each task that missed a goal (each task with `every`)."""
    n = len(scores) or 1
    recall = sum(s.recall for s in scores) / n
    top3 = sum(s.test_top3 for s in scores)
    anywhere = sum(s.test_any for s in scores)
    traps = sum(len(s.traps) for s in scores)
    checks = f"{sum(s.check for s in scores)}/{len(scores)}" if any(s.check for s in scores) or has_check else "n/a"
    largest = max((s.bytes for s in scores), default=0)
    useful = sum(s.useful for s in scores)
    read = sum(s.read for s in scores)
    lines = [
        f"{name} ({split}, {len(scores)} tasks): recall {recall:.2f} (goal {GOALS['recall']}), "
        f"right test in first 3 {top3}/{len(scores)} (anywhere {anywhere}), traps {traps}, "
        f"repo's check command {checks}, largest answer {largest} bytes (budget {GOALS['bytes']}), "
        f"useful read entries {useful}/{read}"
    ]
    for s in scores:
        if every or s.recall < 1 or not s.test_top3 or s.traps:
            lines.append(
                f"    {s.id}: recall {s.recall:.2f}, test top3 {s.test_top3}, traps {s.traps or '-'}, {s.bytes} B"
            )
    return "\n".join(lines)


def prepare(source: str, scratch: Path, name: str, missing_blobs: list[str]) -> Path:
    """A local clone of `source` to index (the source is never modified; a local clone copies objects
    without repacking, so a mirror missing a large blob from history still clones); kept under `scratch`."""
    repo = scratch / name
    if not (repo / ".git").exists():
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(Path(source).resolve()), str(repo)], check=True)
        # A mirror may lack a few large blobs (images) from old history: stand a placeholder in for
        # each, so the history walk's rename detection can read them.
        for blob in missing_blobs:
            placeholder = (
                subprocess.run(
                    ["git", "hash-object", "-w", "--stdin"],
                    cwd=repo,
                    input=b"missing\n",
                    capture_output=True,
                    check=True,
                )
                .stdout.decode()
                .strip()
            )
            subprocess.run(["git", "replace", "-f", blob, placeholder], cwd=repo, check=True)
        subprocess.run(["git", "checkout", "-q"], cwd=repo, check=True)
    os.environ.setdefault("PALLIUM_HOME", str(scratch / "home"))
    return repo
