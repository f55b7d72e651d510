"""`knowledge maintain`: quiet periods on the kernel clock, stale claims first, pause, install into a temp home."""

from pathlib import Path

import pytest

from kernel.clock import FixedClock, parse_iso
from kernel.context import ToolContext
from kernel.dispatch import call
from services.knowledge.models import MaintainInstallOutput
from tests.conftest import write
from tests.services.knowledge.conftest import NOW
from tests.services.knowledge.test_prose import GOOD

pytestmark = pytest.mark.anyio


async def test_structure_waits_ten_quiet_seconds_and_generation_sixty_stale_claims_first(app_repo: Path, fake):
    fake.scenario(
        {"match": "Module: app/core", "reply": {"claims": [GOOD]}},
        {"match": "Module:", "reply": {"claims": []}},
        {"match": "Claim:", "reply": {"verdict": "supported", "reason": "shown"}},
    )
    clock = FixedClock(parse_iso(NOW))
    ctx = ToolContext(cwd=app_repo, clock=clock, ceiling="admin")
    args = {"repo": str(app_repo), "once": True, "provider": "claude", "max_modules": 1}
    try:
        await call("pallium_knowledge_maintain_enable", {}, ctx)
        first = (await call("pallium_knowledge_maintain_run", args, ctx)).steps[0]
        assert first.actions == [] and "10s" in first.waiting
        clock.advance(seconds=9)
        assert (await call("pallium_knowledge_maintain_run", args, ctx)).steps[0].actions == []
        clock.advance(seconds=2)
        step = (await call("pallium_knowledge_maintain_run", args, ctx)).steps[0]
        assert step.actions == ["structure"] and "60s" in step.waiting and fake.calls() == []
        clock.advance(seconds=60)
        step = (await call("pallium_knowledge_maintain_run", args, ctx)).steps[0]
        assert step.actions == ["generation", "audit"]
        assert [c["prompt"].split("Module: ")[1].split("\n")[0] for c in fake.calls()[:1]] == ["app/core"]
        calls_so_far = len(fake.calls())
        clock.advance(seconds=60)
        idle = (await call("pallium_knowledge_maintain_run", args, ctx)).steps[0]
        assert idle.actions == [] and len(fake.calls()) == calls_so_far  # nothing changed: no model cost
        # The cited file changes: after the quiet periods only the stale module costs a call.
        write(app_repo, "app/core/engine.py", (app_repo / "app/core/engine.py").read_text(encoding="utf-8") + "# x\n")
        await call("pallium_knowledge_maintain_run", args, ctx)
        clock.advance(seconds=61)
        step = (await call("pallium_knowledge_maintain_run", args, ctx)).steps[0]
        assert step.actions == ["structure", "generation", "audit"], step.notes
        prose = [c for c in fake.calls()[calls_so_far:] if "Module: " in c["prompt"]]
        assert [c["prompt"].split("Module: ")[1].split("\n")[0] for c in prose] == ["app/core"]
        status = await call("pallium_knowledge_maintain_status", {}, ctx)
        assert status.enabled and status.attempts_24h == len(fake.calls()) and status.stale_claims == 0
    finally:
        ctx.close()


async def test_a_paused_repository_refreshes_structure_but_spends_nothing(app_repo: Path, fake):
    clock = FixedClock(parse_iso(NOW))
    ctx = ToolContext(cwd=app_repo, clock=clock, ceiling="admin")
    args = {"repo": str(app_repo), "once": True, "provider": "claude"}
    try:
        await call("pallium_knowledge_maintain_enable", {}, ctx)
        paused = await call("pallium_knowledge_maintain_pause", {}, ctx)
        assert paused.paused and paused.pause_reason == "paused by hand"
        await call("pallium_knowledge_maintain_run", args, ctx)
        clock.advance(seconds=120)
        step = (await call("pallium_knowledge_maintain_run", args, ctx)).steps[0]
        assert step.actions == ["structure"] and "resume" in step.waiting and fake.calls() == []
        resumed = await call("pallium_knowledge_maintain_resume", {}, ctx)
        assert not resumed.paused
    finally:
        ctx.close()


async def test_status_is_observe_and_the_rest_need_admin(app_repo: Path):
    from kernel.errors import PalliumError

    ctx = ToolContext(cwd=app_repo, clock=FixedClock(parse_iso(NOW)), ceiling="observe")
    try:
        out = await call("pallium_knowledge_maintain_status", {}, ctx)
        assert not out.enabled and out.attempt_limit == 40
        with pytest.raises(PalliumError) as caught:
            await call("pallium_knowledge_maintain_enable", {}, ctx)
        assert caught.value.code == "authority_exceeded"
    finally:
        ctx.close()


async def test_install_writes_a_systemd_unit_and_a_launch_agent_into_the_home(tmp_path: Path, monkeypatch):
    from mcp import Client

    from pallium_mcp.server import build_server

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    ctx = ToolContext(cwd=tmp_path, ceiling="admin")
    try:
        linux = await call("pallium_knowledge_maintain_install", {"platform": "linux"}, ctx)
    finally:
        ctx.close()
    async with Client(build_server(toolsets="all", ceiling="admin", cwd=tmp_path)) as client:
        answer = await client.call_tool("pallium_knowledge_maintain_install", {"platform": "macos"})
    assert answer.is_error is False
    mac = MaintainInstallOutput.model_validate(answer.structured_content)
    unit = Path(linux.path)
    assert unit == tmp_path / "home/.config/systemd/user/pallium-knowledge.service" and not linux.activated
    assert "ExecStart=" in unit.read_text(encoding="utf-8") and "knowledge maintain run" in unit.read_text(
        encoding="utf-8"
    )
    agent = Path(mac.path)
    assert agent == tmp_path / "home/Library/LaunchAgents/app.pallium.knowledge.plist"
    assert "<string>maintain</string>" in agent.read_text(encoding="utf-8")
