"""`sessions find`: questions read into explicit filters, and the same filters given directly."""

from pathlib import Path

import pytest

from services.sessions.find import interpret
from tests.services.sessions import build
from tests.services.sessions.conftest import EXPECTED

pytestmark = pytest.mark.anyio

IDS = [s["session_id"] for s in EXPECTED["sessions"]]  # A, C, B, X1, X2
UNKNOWN = "01a20000-3333-7444-8555-666677778888"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("which sessions finished a few minutes ago?", {"completion": "finished", "finished_within": "30m"}),
        ("what is unfinished in this repo?", {"completion": "not_finished", "repo": "."}),
        ("which sessions were updated most recently?", {}),
        ("codex sessions inactive for 3 hours", {"source": "codex", "inactive_for": "3h"}),
        ("which sessions finished in the last 2 days?", {"completion": "finished", "finished_within": "2d"}),
        ("what finished 10 minutes ago?", {"completion": "finished", "finished_within": "10m"}),
        ("sessions completed within the past hour", {"completion": "finished", "finished_within": "1h"}),
        ("which sessions finished in the last 3 hours?", {"completion": "finished", "finished_within": "3h"}),
        ("what was done a few hours ago?", {"completion": "finished", "finished_within": "6h"}),
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


def _write_unknown_session(home: Path) -> str:
    """A Codex rollout from a build that wrote no turn events: a prompt and an answer, no end-of-turn record."""
    records = [
        build.codex_meta(UNKNOWN, timestamp="2026-11-21T15:00:00.000Z"),
        build.codex("turn_context", {"cwd": "/home/dev/shop", "model": "gpt-5.1-codex"}, "2026-11-21T15:00:00.500Z"),
        build.codex_user("summarise the payments module", "2026-11-21T15:00:01.000Z"),
        build.codex_assistant("payments/ holds the gateway client and its retries.", "2026-11-21T15:20:09.000Z"),
    ]
    build.write_jsonl(build.codex_path(home, UNKNOWN, "2026-11-21T15-00-00"), records)
    return UNKNOWN


async def test_a_session_without_end_of_turn_evidence_is_unknown_and_never_unfinished(call, homes):
    _write_unknown_session(homes["codex"])
    await call.sync()
    shown = await call("show", id=UNKNOWN)
    assert shown.completion == "unknown" and "no end-of-turn record" in shown.evidence
    unknown = await call("find", completion="unknown")
    assert [s.id for s in unknown.sessions] == [UNKNOWN]
    assert unknown.sessions[0].completion == "unknown"
    out = await call("find", completion="not_finished")
    assert [s.id for s in out.sessions] == [IDS[4], IDS[2]]  # newest first, and not the unknown one
    asked = await call("find", question="what is unfinished?")
    assert UNKNOWN not in {s.id for s in asked.sessions} and asked.sessions
    finished = await call("find", completion="finished")
    assert UNKNOWN not in {s.id for s in finished.sessions}
    recent = await call("find", question="which sessions were updated most recently?", limit=1)
    assert [s.id for s in recent.sessions] == [UNKNOWN]  # listed, with its completion left unknown


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


async def test_a_repository_named_in_the_question_filters_by_its_folder_name(call, homes):
    web, api = "01a20000-3333-7444-8555-000000000001", "01a20000-3333-7444-8555-000000000002"
    for thread, cwd in ((web, "/home/dev/web-app"), (api, "/home/dev/api")):
        records = [
            build.codex_meta(thread, cwd=cwd, timestamp="2026-11-21T15:00:00.000Z"),
            build.codex_event("task_started", "2026-11-21T15:00:01.000Z"),
            build.codex_user("wire the login form", "2026-11-21T15:00:02.000Z"),
            build.codex_event("turn_aborted", "2026-11-21T15:01:00.000Z", reason="interrupted"),
        ]
        build.write_jsonl(build.codex_path(homes["codex"], thread, "2026-11-21T15-00-00"), records)
    await call.sync()
    out = await call("find", question="what is unfinished in web-app?", details=True)
    assert [s.id for s in out.sessions] == [web]
    assert out.filters["repo"] == "/home/dev/web-app" and "'web-app'" in out.interpretation
    assert out.capsules[web]["asked"][0]["text"] == "wire the login form"
    plain = await call("find", question="what is unfinished?")
    assert {web, api} <= {s.id for s in plain.sessions} and plain.capsules is None
