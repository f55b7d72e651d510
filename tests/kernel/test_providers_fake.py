"""The fake provider's scenario features, driven through the dispatcher in each dialect it speaks."""

from __future__ import annotations

import os
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


def test_the_fake_starts_from_cached_bytecode_without_the_costly_modules(fake, tmp_path):
    """What its start costs is what it imports and compiles: neither `re`, `json`, `typing`, `pathlib`
    nor `uuid` for a plain-text rule, and its own module from the cache, not from source."""
    import subprocess

    from kernel.providers.fake import command

    (tmp_path / "prompt.txt").write_text("say hi", encoding="utf-8")
    fake.scenario({"match": "say hi", "reply": {"greeting": "hi"}, "usage": {"input_tokens": 1}})
    env = {
        **os.environ,
        "PALLIUM_WORKFLOW_PROMPT_FILE": str(tmp_path / "prompt.txt"),
        "PALLIUM_WORKFLOW_OUTPUT_FILE": str(tmp_path / "out.txt"),
        "PALLIUM_WORKFLOW_USAGE_FILE": str(tmp_path / "usage.json"),
    }
    argv = command()
    subprocess.run(argv, env=env, cwd=tmp_path, check=True, capture_output=True)  # warms the cache
    verbose = [argv[0], "-v", "-X", "importtime", *argv[1:]]
    done = subprocess.run(verbose, env=env, cwd=tmp_path, check=True, capture_output=True, text=True)
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert {"fake", "_json"} <= imported
    assert imported & {"re", "json", "typing", "pathlib", "uuid", "subprocess"} == set()
    [loaded] = [line for line in done.stderr.splitlines() if "code object from" in line and "fake" in line]
    assert loaded.rstrip("'").endswith(".pyc"), f"fake.py was compiled, not read from its cache: {loaded}"
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == '{"greeting": "hi"}'
    assert (tmp_path / "usage.json").read_text(encoding="utf-8") == '{"input_tokens": 1}'
