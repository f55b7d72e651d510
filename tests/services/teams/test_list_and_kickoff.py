"""Finding teams again (`team list`), and a template's members starting with the goal in their mailbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.services.teams.conftest import decision, turn_of

pytestmark = pytest.mark.anyio


async def test_list_shows_every_team_newest_first_with_its_board_and_mail(call, team_env, tmp_path: Path):
    assert (await call("list")).teams == []
    first = (await call("start", goal="review the cart", template="parallel-review")).team.id
    second = (await call("start", goal="a plain team", id="team-plain")).team.id
    await call("tasks_add", team=second, title="read cart.py")
    await call("stop", team=first)
    listed = (await call("list")).teams
    assert {t.id for t in listed} == {first, second}
    by_id = {t.id: t for t in listed}
    assert by_id[first].members == 4 and by_id[first].waiting_messages == 3 and by_id[first].status == "stopped"
    assert by_id[second].members == 1 and by_id[second].open_tasks == 1 and by_id[second].waiting_messages == 0
    assert [t.id for t in (await call("list", status="active")).teams] == [second]
    limited = await call("list", limit=1)
    assert len(limited.teams) == 1 and limited.truncated
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    assert (await call("list", repo=str(other))).teams == []


async def test_a_template_team_has_work_on_its_first_run(call, team_env):
    team = (await call("start", goal="find the leak in the pool", template="adversarial-debate")).team.id
    team_env.scenario(
        *[
            {"match": turn_of(n, "find the leak in the pool"), "reply": decision("idle")}
            for n in ("advocate", "skeptic")
        ]
    )
    out = await call("run", ceiling="consult", team=team)
    assert sorted(t.member for t in out.turns) == ["advocate", "skeptic"]
    inbox = await call("inbox", team=team, all=True)
    kickoffs = [m for m in inbox.messages if m.sender == "lead" and "find the leak in the pool" in m.body]
    assert {m.recipient for m in kickoffs} == {"advocate", "skeptic"} and all(m.delivered_turn for m in kickoffs)
