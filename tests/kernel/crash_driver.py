"""A tiny orchestrator run as its own process, so crash tests can kill it at a named point and resume it.

Plan `parallel` (the default): two edit agents in parallel (different ends of one file), then a
read-only review seeded from staging, then apply. Plan `sequential`: two edit agents one after the
other on neighbouring lines, so the second only composes if it saw the first, then apply.
`python -m tests.kernel.crash_driver <repo> <run-id> [plan]`; prints a JSON summary.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from kernel.execution import AgentCall, Limits, Run

PLAN = (
    AgentCall("edit the top", mode="edit", provider="fake", label="top"),
    AgentCall("edit the bottom", mode="edit", provider="fake", label="bottom"),
    AgentCall("review the result", provider="fake", label="review"),
)
SEQUENTIAL = (
    AgentCall("edit line five", mode="edit", provider="fake", label="five"),
    AgentCall("edit line six", mode="edit", provider="fake", label="six"),
)


async def main(repo: Path, run_id: str, plan: str = "parallel") -> dict:
    run = await Run.open(run_id, repo, Limits(concurrency=2))
    if plan == "sequential":
        edits = [await run.agent(call) for call in SEQUENTIAL]
        review = None
    else:
        edits = await asyncio.gather(run.agent(PLAN[0]), run.agent(PLAN[1]))
        review = await run.agent(PLAN[2])
    report = run.apply()
    await run.close("completed")
    return {
        "patch_states": [o.patch_state for o in edits],
        "review": review.result.text if review else None,
        "applied": report.applied,
        "already": report.already,
        "stats": run.stats,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(Path(sys.argv[1]), sys.argv[2], *sys.argv[3:4]))))
