"""The suite's `xdist_group`s hold: tests that share a Postgres cluster or resident servers run on one
worker. pytest-xdist groups by renaming each marked test's node id (`…@group`); a pytest that names
nodes another way (9.2 did) leaves the groups silently apart, and their tests race each other."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("suite-groups")
def test_a_grouped_test_carries_its_group_when_the_suite_runs_grouped(request: pytest.FixtureRequest):
    if not request.config.getvalue("loadgroup"):
        pytest.skip("not run with --dist loadgroup")
    assert request.node.nodeid.endswith("@suite-groups"), request.node.nodeid
