"""Fixtures for the execution kernel: the fake provider installed on PATH, and its scenario and log."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kernel.providers.fake import install


@dataclass
class FakeProvider:
    """The fake provider as a test drives it: write its scenario, read the calls it logged."""

    root: Path
    bin: Path

    def scenario(self, *rules: dict[str, Any]) -> None:
        """Replace the scenario; the hit counters of the previous one are forgotten."""
        (self.root / "scenario.json").write_text(json.dumps({"rules": list(rules)}), encoding="utf-8")
        (self.root / "scenario.json.state").unlink(missing_ok=True)

    def calls(self) -> list[dict[str, Any]]:
        log = self.root / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]

    def env(self) -> dict[str, str]:
        return {
            "PALLIUM_FAKE_SCENARIO": str(self.root / "scenario.json"),
            "PALLIUM_FAKE_LOG": str(self.root / "calls.jsonl"),
            "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
        }


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    """The fake provider installed as `claude` and `codex` first on PATH, with an empty scenario."""
    root = tmp_path / "fake"
    root.mkdir()
    provider = FakeProvider(root, root / "bin")
    install(provider.bin)
    provider.scenario()
    for name, value in provider.env().items():
        monkeypatch.setenv(name, value)
    for name in ("PALLIUM_WORKFLOW_PROVIDER", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "PALLIUM_CRASHPOINT"):
        monkeypatch.delenv(name, raising=False)
    return provider
