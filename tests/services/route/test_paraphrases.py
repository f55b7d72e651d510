"""Every paraphrase of an intent routes as the intent does: generated from `paraphrases.FAMILIES`.

A family's fillings differ in verb, synonym, word order and register (terse, polite, a question);
route must give each the family's capability (or one it accepts as `also`), blocked exactly when the
ceiling is below what the intent needs, and a single request, never a split. Off-topic families must
abstain. Hypothesis draws fillings across all families; a failure names the family and the filling.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.services.route.conftest import route
from tests.services.route.paraphrases import FAMILIES, Family, expand

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture], derandomize=True
)
FILLINGS = {f.name: list(dict.fromkeys(expand(f))) for f in FAMILIES}


def _check(family: Family, task: str, answer) -> None:
    accepted = {family.capability, *family.also}
    assert answer.capability in accepted, f"{family.name}: {task!r} chose {answer.capability}"
    assert answer.blocked == family.blocked, f"{family.name}: {task!r} blocked={answer.blocked}"
    assert len(answer.steps or []) <= 1, f"{family.name}: {task!r} split into {len(answer.steps)} requests"


def test_every_family_has_many_fillings_and_distinct_intents():
    assert len(FAMILIES) >= 20
    assert all(len(fillings) >= 20 for fillings in FILLINGS.values()), {k: len(v) for k, v in FILLINGS.items()}
    assert len({f.name for f in FAMILIES}) == len(FAMILIES)
    assert any(f.capability is None for f in FAMILIES) and any(f.blocked for f in FAMILIES)


@SETTINGS
@given(data=st.data())
def test_a_generated_paraphrase_routes_as_its_intent(populated: Path, data):
    family = data.draw(st.sampled_from(FAMILIES), label="family")
    task = data.draw(st.sampled_from(FILLINGS[family.name]), label="task")
    answer = anyio.run(lambda: route(task, populated, ceiling=family.ceiling))
    _check(family, task, answer)


@pytest.mark.parametrize("family", [f for f in FAMILIES if f.capability is not None], ids=lambda f: f.name)
def test_the_same_paraphrase_asked_above_the_ceiling_is_blocked_not_replaced(populated: Path, family: Family):
    """The first filling of each family asked at observe: the same capability, blocked when it needs more."""
    task = FILLINGS[family.name][0]
    answer = anyio.run(lambda: route(task, populated, ceiling="observe"))
    assert answer.capability in {family.capability, *family.also}, (task, answer.capability)
    assert answer.blocked == (answer.needed_authority != "observe"), (task, answer.needed_authority)


SAFETY = ("make pallium forget old sessions", "off-topic thing of one's own", "change a named file with a loose verb")


@pytest.mark.parametrize("name", SAFETY)
def test_a_spread_of_each_safety_familys_fillings_routes_safely(populated: Path, name: str):
    """Every 25th filling, not a random draw: a destructive act never answers a "how do I", a thing of the
    user's own is never given a loop's name, and a change to a named file is always blocked at consult."""
    family = next(f for f in FAMILIES if f.name == name)
    for task in FILLINGS[name][::25]:
        answer = anyio.run(lambda t=task: route(t, populated, ceiling=family.ceiling))
        _check(family, task, answer)
        assert not (answer.arguments or {}).get("confirm"), f"{name}: {task!r} acts: {answer.arguments}"
        assert not (family.capability is None and (answer.arguments or {}).get("name")), (task, answer.arguments)
