"""The fake provider's scenario features, driven through the dispatcher in each dialect it speaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.providers.contract import ProviderRequest
from kernel.providers.dispatcher import dispatch

pytestmark = pytest.mark.anyio

DIALECTS = ["fake", "claude", "codex"]  # the wrapper contract, and the fake installed as the real CLIs


def request(cwd: Path, prompt: str = "hello", **kw) -> ProviderRequest:
    return ProviderRequest(prompt=prompt, cwd=cwd, **kw)


@pytest.mark.parametrize("provider", DIALECTS)
async def test_delete_removes_the_named_files_in_the_workers_folder(fake, tmp_path, provider):
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "old.py").write_text("x = 1\n", encoding="utf-8")
    (work / "keep.py").write_text("y = 2\n", encoding="utf-8")
    fake.scenario({"match": "tidy", "delete": ["pkg/old.py", "never-existed.txt"], "reply": "deleted"})
    result = await dispatch(request(work, "tidy up", provider=provider, mode="edit"))
    assert result.ok and result.text == "deleted"
    assert not (work / "pkg" / "old.py").exists() and (work / "keep.py").exists()


async def test_delay_holds_the_reply_back_and_a_shorter_timeout_cuts_it_off(fake, tmp_path):
    fake.scenario({"match": "slow", "delay": 0.3, "reply": "late"}, {"match": "stuck", "delay": 60, "reply": "never"})
    slow = await dispatch(request(tmp_path, "slow", provider="fake"))
    stuck = await dispatch(request(tmp_path, "stuck", provider="fake", timeout=1))
    assert slow.ok and slow.text == "late" and slow.duration_ms >= 300
    assert stuck.failure.error_class == "timeout" and stuck.text == ""


@pytest.mark.parametrize("provider", DIALECTS)
async def test_when_picks_a_rule_by_mode_label_and_model(fake, tmp_path, provider):
    fake.scenario(
        {"match": "task", "when": {"mode": "edit"}, "reply": "edit rule"},
        {"match": "task", "when": {"label": "judge"}, "reply": "judge rule"},
        {"match": "task", "when": {"model": "big", "mode": "read-only"}, "reply": "big rule"},
        {"match": "task", "reply": "fallback"},
    )
    edit = await dispatch(request(tmp_path, "task", provider=provider, mode="edit"))
    judge = await dispatch(request(tmp_path, "task", provider=provider, label="judge"))
    big = await dispatch(request(tmp_path, "task", provider=provider, model="big"))
    plain = await dispatch(request(tmp_path, "task", provider=provider, model="small", label="other"))
    assert [r.text for r in (edit, judge, big, plain)] == ["edit rule", "judge rule", "big rule", "fallback"]
    assert [c["rule"] for c in fake.calls()] == [0, 1, 2, 3]


async def test_when_can_also_tell_the_dialects_apart(fake, tmp_path):
    fake.scenario({"match": "", "when": {"dialect": "codex"}, "reply": "codex"}, {"match": "", "reply": "other"})
    codex = await dispatch(request(tmp_path, provider="codex"))
    claude = await dispatch(request(tmp_path, provider="claude"))
    assert (codex.text, claude.text) == ("codex", "other")


@pytest.mark.parametrize("provider", DIALECTS)
@pytest.mark.parametrize("error_class", ["auth", "quota", "rate_limit"])
async def test_a_canned_cli_failure_is_classified_by_the_dialect_that_reads_it(fake, tmp_path, provider, error_class):
    fake.scenario({"match": "", "error_class": error_class})
    result = await dispatch(request(tmp_path, provider=provider))
    assert not result.ok and result.failure.error_class == error_class
    assert [c["dialect"] for c in fake.calls()] == ["wrapper" if provider == "fake" else provider]
