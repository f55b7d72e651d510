"""A tiny orchestrator run as its own process, so crash tests can kill it at a named point and resume it.

Plan: two edit agents in parallel (different ends of one file), then a read-only review seeded from
staging, then apply. `python -m tests.kernel.crash_driver <repo> <run-id>`; prints a JSON summary.
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


async def main(repo: Path, run_id: str) -> dict:
    run = await Run.open(run_id, repo, Limits(concurrency=2))
    edits = await asyncio.gather(run.agent(PLAN[0]), run.agent(PLAN[1]))
    review = await run.agent(PLAN[2])
    report = run.apply()
    await run.close("completed")
    return {
        "patch_states": [o.patch_state for o in edits],
        "review": review.result.text,
        "applied": report.applied,
        "already": report.already,
        "stats": run.stats,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(Path(sys.argv[1]), sys.argv[2]))))
