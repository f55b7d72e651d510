"""The review-until-clean example as a loop: its signature sees through noise, it stagnates, it ends clean."""

from pathlib import Path

import pytest

from kernel.context import ToolContext
from services.loops.failure_paths import RepoPaths
from services.loops.models import NameInput, StartInput
from services.loops.progress import signature_from_failures, working_tree_hash
from services.loops.tools import reset, start
from tests.conftest import write
from tests.services.loops.conftest import tick_loop

pytestmark = pytest.mark.anyio

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "review-until-clean.loop.js"


async def _start(repo, args):
    write(repo, "loops/review.loop.js", EXAMPLE.read_text(encoding="utf-8"))
    ctx = ToolContext(cwd=repo)
    try:
        return await start(StartInput(name="review", script="loops/review.loop.js", args=args), ctx)
    finally:
        ctx.close()


def _finding(line, address):
    return {"findings": [{"file": f"/home/ada/repo/src/app.py:{line}", "problem": f"returns a constant at {address}"}]}


async def test_the_review_loop_stagnates_on_the_same_findings_and_ends_clean(git_repo, loop_env):
    loop = await _start(git_repo, '{"path": "src"}')
    assert (loop.stagnation_threshold, loop.cycle_budget_usd, loop.lifetime_budget_usd, loop.max_cycles) == (
        3,
        2.0,
        20.0,
        50,
    )
    loop_env.scenario(
        {"match": "Review src", "times": 1, "reply": _finding(12, "0x7f00")},
        {"match": "Review src", "times": 1, "reply": _finding(40, "0x7faa")},
        {"match": "Review src", "times": 1, "reply": _finding(41, "0x1234")},
        {"match": "Review src", "reply": {"findings": []}},
    )
    ticks = [await tick_loop(git_repo, "review") for _ in range(3)]
    assert [(t.state, t.stagnation_count) for t in ticks] == [("no_op", 1), ("no_op", 2), ("stagnated", 3)]
    # Pallium built the signature from the findings and the working tree; the script holds no hash code.
    finding = _finding(12, "0x7f00")["findings"][0]
    line = f"{finding['file']}: {finding['problem']}"  # another machine's checkout: read as src/app.py
    built = signature_from_failures([line], working_tree_hash(git_repo), RepoPaths.read(git_repo))
    assert [t.signature for t in ticks] == [built] * 3 and "+t:" in built
    assert ticks[0].summary == "1 finding(s) in src"
    ctx = ToolContext(cwd=git_repo)
    await reset(NameInput(name="review"), ctx)
    ctx.close()
    clean = await tick_loop(git_repo, "review")
    assert (clean.state, clean.summary, clean.signature) == ("success", "src: the reviewer found nothing", "")


async def test_the_review_loop_stages_a_fix_and_reports_a_blocked_reviewer(git_repo, loop_env):
    await _start(git_repo, '{"path": "src", "fix": true}')
    loop_env.scenario(
        {"match": "Review src", "times": 1, "reply": _finding(1, "0x1")},
        {"match": "Fix these", "write": {"src/app.py": "def main():\n    return 2\n"}, "reply": "fixed"},
        {"match": "Review src", "reply": {"findings": [], "blocked": "no access to the private registry"}},
    )
    fixing = await tick_loop(git_repo, "review")
    assert fixing.state == "no_op" and "a fix is staged" in fixing.summary
    assert [c["label"] for c in loop_env.calls()] == ["review", "fix"]
    assert (git_repo / "src" / "app.py").read_text(encoding="utf-8") == "def main():\n    return 1\n"
    blocked = await tick_loop(git_repo, "review")
    assert (blocked.state, blocked.summary) == ("blocked", "no access to the private registry")
