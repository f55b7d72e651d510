"""One rule for ids given by a unique prefix, used by the sessions and workflows services."""

from __future__ import annotations

import pytest

from kernel.errors import PalliumError
from kernel.ids import resolve_prefix

RECORDS = {"3f9c01": "first", "3f9c02": "second", "a1b2c3": "third", "s1": "session", "s1:agent": "its subagent"}


def _resolve(given: str, **extra):
    return resolve_prefix(
        given,
        get=RECORDS.get,
        starting_with=lambda prefix, limit: sorted(k for k in RECORDS if k.startswith(prefix))[:limit],
        what="record",
        field="run_id",
        list_hint="list records with `pallium records list`",
        **extra,
    )


def test_a_whole_id_then_a_unique_prefix_find_the_record():
    assert _resolve("3f9c01") == "first"
    assert _resolve("a1") == "third"


def test_an_unknown_prefix_is_not_found_and_says_how_to_list():
    with pytest.raises(PalliumError) as caught:
        _resolve("zz")
    assert caught.value.code == "not_found" and caught.value.hint == "list records with `pallium records list`"
    assert caught.value.details == {"field": "run_id", "run_id": "zz"}


def test_a_shared_prefix_names_the_matches_and_the_argument():
    with pytest.raises(PalliumError) as caught:
        _resolve("3f9c")
    error = caught.value
    assert error.code == "invalid_input" and error.details["matches"] == ["3f9c01", "3f9c02"]
    assert "`run_id`" in (error.hint or "") and "--run-id" in (error.hint or "")


def test_a_service_may_settle_a_shared_prefix():
    assert _resolve("s", choose=lambda matches: "s1" if "s1" in matches else None) == "session"
