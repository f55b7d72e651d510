"""Route's evaluation set, scored as a whole: the right capability and the right blocked flag per task.

Goals (from the issue): at least 95% right overall, every must-block task blocked, every
irrelevant task answered `null`, and nothing executed above the ceiling.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.services.route.cases import CASES, IRRELEVANT, MUST_BLOCK, Case
from tests.services.route.conftest import route


async def _score(repo: Path, cases: list[Case]) -> list[tuple[Case, str | None, bool]]:
    out = []
    for case in cases:
        answer = await route(case.task, repo, ceiling=case.ceiling)
        out.append((case, answer.capability, answer.blocked))
    return out


def _wrong(results: list[tuple[Case, str | None, bool]]) -> list[str]:
    return [
        f"{case.task!r} at {case.ceiling}: wanted {case.capability} blocked={case.blocked}, got {got} blocked={blocked}"
        for case, got, blocked in results
        if got != case.capability or blocked != case.blocked
    ]


def test_the_evaluation_set_is_large_and_varied():
    assert len(CASES) >= 80
    assert {c.ceiling for c in MUST_BLOCK} >= {"observe", "consult", "edit"}
    assert len(IRRELEVANT) >= 10


def test_at_least_95_percent_of_the_evaluation_set_is_routed_right(git_repo: Path):
    results = anyio.run(_score, git_repo, CASES)
    wrong = _wrong(results)
    assert len(wrong) <= len(CASES) * 0.05, "\n".join(wrong)


def test_every_must_block_task_is_blocked_with_its_capability(git_repo: Path):
    assert _wrong(anyio.run(_score, git_repo, MUST_BLOCK)) == []


def test_every_irrelevant_task_gets_no_capability(git_repo: Path):
    assert _wrong(anyio.run(_score, git_repo, IRRELEVANT)) == []


@pytest.mark.parametrize("case", MUST_BLOCK + IRRELEVANT, ids=lambda c: f"{c.ceiling}:{c.task[:40]}")
def test_execute_never_runs_a_blocked_or_unfit_recommendation(git_repo: Path, case: Case):
    answer = anyio.run(lambda: route(case.task, git_repo, ceiling=case.ceiling, execute=True))
    assert answer.executed["status"] == "not_run"
    assert answer.executed["preconditions_run"] == []
