"""`sessions find`: questions read into explicit filters, and the same filters given directly."""

import pytest

from services.sessions.find import interpret
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

IDS = [s["session_id"] for s in EXPECTED["sessions"]]  # A, C, B, X1, X2


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which sessions finished a few minutes ago?", {"completion": "finished", "finished_within": "30m"}),
        ("what is unfinished in this repo?", {"completion": "not_finished", "repo": "."}),
        ("which sessions were updated most recently?", {}),
        ("codex sessions inactive for 3 hours", {"source": "codex", "inactive_for": "3h"}),
        ("which sessions finished in the last 2 days?", {"completion": "finished", "finished_within": "4d"}),
    ],
)
def test_questions_read_into_filters(question, expected):
    assert interpret(question) == {**expected, "sort": "updated"}


async def test_finished_within_uses_the_time_of_the_end_of_turn(call):
    await call.sync()
    call.clock.current = call.clock.current.replace(day=20, hour=9, minute=5)  # X1 finished at 09:00:26
    out = await call("find", question="which sessions finished a few minutes ago?")
    assert out.filters["completion"] == "finished" and out.filters["finished_within"] == "30m"
    assert [s.id for s in out.sessions] == [IDS[3]]
    assert "finished within the last 30m" in out.interpretation


async def test_unfinished_sessions_newest_first_and_unknown_is_never_unfinished(call):
    await call.sync()
    out = await call("find", completion="not_finished")
    assert [s.id for s in out.sessions] == [IDS[4], IDS[2]]
    unknown = await call("find", completion="unknown")
    assert unknown.sessions == []


async def test_explicit_arguments_win_over_the_question(call):
    await call.sync()
    out = await call("find", question="what is unfinished?", completion="finished", sort="created", limit=2)
    assert out.filters["completion"] == "finished" and out.filters["sort"] == "created"
    assert [s.id for s in out.sessions] == [IDS[3], IDS[1]]
    assert out.truncated is True


async def test_inactive_for_keeps_sessions_quiet_that_long(call):
    await call.sync()
    out = await call("find", inactive_for="2d")  # now is 2026-11-21T15:30Z: B (19th, 16:05) is too recent
    assert [s.id for s in out.sessions] == [IDS[1], IDS[0]]
    assert out.filters == {"inactive_for": "2d", "sort": "updated"}


async def test_this_repo_means_the_repository_the_call_is_made_from(call, git_repo):
    await call.sync()
    call.cwd = git_repo
    out = await call("find", question="what is unfinished in this repo?")
    assert out.filters["repo"] == str(git_repo.resolve())
    assert out.sessions == []  # the fixture sessions ran in /home/dev/shop
