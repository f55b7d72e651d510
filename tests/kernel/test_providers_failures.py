"""What bad provider behaviour ends in: a classified failure, and no process of the worker left running.

Each case runs in the three dialects the fake speaks (the wrapper contract, and the fake installed as
`claude` and `codex`), so every built-in command line is checked end to end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.providers.contract import ProviderRequest, ProviderResult
from kernel.providers.dispatcher import dispatch
from tests.kernel.test_providers import living_members

pytestmark = pytest.mark.anyio

DIALECTS = ["fake", "claude", "codex"]
SCHEMA = {"type": "object", "properties": {"done": {"type": "boolean"}}, "required": ["done"]}


async def run(cwd: Path, **kw) -> tuple[ProviderResult, list[int]]:
    """Dispatch one call; also return the process groups it started."""
    groups: list[int] = []
    result = await dispatch(ProviderRequest(prompt="work", cwd=cwd, **kw), on_spawn=lambda pg, _t: groups.append(pg))
    return result, groups


def assert_nothing_left(groups: list[int]) -> None:
    assert groups, "the worker was started"
    assert [pid for pg in groups for pid in living_members(pg)] == []


CASES = {
    # name: (rule, request options, {provider: (error_class, reason)} or one pair for all)
    "not logged in": ({"error_class": "auth"}, {}, ("auth", None)),
    "out of quota": ({"error_class": "quota"}, {}, ("quota", None)),
    "rate limited": ({"error_class": "rate_limit"}, {}, ("rate_limit", None)),
    "hangs with a grandchild": ({"hang": 60, "spawn_child": True}, {"timeout": 1.5}, ("timeout", None)),
    "crashes mid-edit": ({"write": {"half.txt": "x"}, "crash_after_write": True}, {"mode": "edit"}, ("crash", None)),
    "exits non-zero with nothing said": ({"raw": "", "exit": 3}, {}, ("crash", None)),
    "prints JSON failing the schema": ({"reply": {"done": "yes"}}, {"schema": SCHEMA}, ("schema", "schema_mismatch")),
}


@pytest.mark.parametrize("provider", DIALECTS)
@pytest.mark.parametrize("case", CASES, ids=str)
async def test_bad_provider_behaviour_ends_classified_with_no_process_left(fake, tmp_path, provider, case):
    rule, options, expected = CASES[case]
    if "raw" in rule and provider == "fake":  # the wrapper has no envelope to break: it says nothing instead
        rule = {"reply": "", "exit": rule["exit"]}
    fake.scenario({"match": "", **rule})
    result, groups = await run(tmp_path, provider=provider, **options)
    assert not result.ok
    assert (result.failure.error_class, result.failure.reason) == expected
    assert_nothing_left(groups)


@pytest.mark.parametrize(
    ("provider", "expected"),
    [("fake", ("schema", "not_json")), ("claude", ("crash", "not_json")), ("codex", ("crash", "not_json"))],
)
async def test_printing_something_other_than_json_is_a_failure_in_every_dialect(fake, tmp_path, provider, expected):
    """The CLIs are asked for JSON (claude's envelope, codex's events); the wrapper only under a schema."""
    rule = {"reply": "<html>502 Bad Gateway</html>"} if provider == "fake" else {"raw": "<html>502 Bad Gateway</html>"}
    fake.scenario({"match": "", **rule})
    result, groups = await run(tmp_path, provider=provider, schema=SCHEMA)
    assert (result.failure.error_class, result.failure.reason) == expected
    assert_nothing_left(groups)


@pytest.mark.parametrize("provider", ["claude", "codex"])
async def test_a_cli_missing_from_path_is_not_configured_and_nothing_starts(fake, tmp_path, monkeypatch, provider):
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv(f"PALLIUM_{provider.upper()}_BIN", raising=False)
    result, groups = await run(tmp_path, provider=provider)
    assert (result.failure.error_class, result.failure.reason) == ("not_configured", "missing_binary")
    assert groups == [] and fake.calls() == []


async def test_a_wrapper_whose_program_is_missing_is_not_configured(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER_GONE_COMMAND", "no-such-program-anywhere --flag")
    result, groups = await run(tmp_path, provider="gone")
    assert (result.failure.error_class, result.failure.reason) == ("not_configured", "missing_binary")
    assert_nothing_left(groups)
