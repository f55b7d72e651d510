"""The session-memory test story, written by this project as Claude Code and Codex write their transcripts.

`write_homes(root)` lays out `claude/` (a `~/.claude`) and `codex/` (a `~/.codex`) under `root`;
`EXPECTED` holds the facts a test checks (ids, paths, line numbers, usage totals, the lines a recall
must cite), computed from the very records written, so the two cannot drift. The formats follow the
Claude Code 2.1.x and Codex CLI 0.16x "legacy" rollout shapes (see docs/sessions.md).

The story: a developer at `/home/dev/shop` moves the payment columns of `orders` into a `payments`
table (migration 0042, five steps). Claude Code session A adds gateway retries (commit a41c9e2);
session C plans the migration with an Explore subagent and is auto-compacted; session B applies it and
backfills batches 1-3, then stops with a tool call never answered; Codex X1 fixes a double discount;
Codex X2 runs batches 4-5 (batch 5 fails on a NULL amount, is patched and rerun), is killed mid-write
(a truncated line), resumed, compacted, and interrupted with batch 6 open.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.services.sessions.story_claude import (
    A_ID,
    A_PROMPT,
    AGENT_ID,
    B_ID,
    B_PROMPT,
    C_ID,
    C_PROMPT,
    QUEUED,
    session_a,
    session_b,
    session_c,
    subagent,
)
from tests.services.sessions.story_codex import X1_ID, X2_ID, X2_PROMPT, X2_SECOND, rollout_x1, rollout_x2
from tests.services.sessions.story_format import SHOP, Claude, Codex

__all__ = ["EXPECTED", "FILES", "shared_homes", "write_homes"]


def _claude_entry(key: str, s: Claude, facts: dict[str, Any], path: str) -> dict[str, Any]:
    records = [r for r in s.records if isinstance(r, dict) and r.get("timestamp")]
    entry = {
        "key": key,
        "provider": "claude",
        "session_id": s.session_id,
        "path": path,
        "cwd": SHOP,
        "project_dir": "-home-dev-shop",
        "git_branch": s.branch,
        "version": s.version,
        "lines": len(s.records),
        "malformed_lines": [],
        "first_prompt_line": s.prompts[0],
        "prompts": s.prompts,
        "started_at": records[0]["timestamp"],
        "last_activity_at": max(r["timestamp"] for r in records),
        "open_tool_calls": [
            {"line": line, "id": tid, "name": name, "command": cmd} for tid, (line, name, cmd) in s.pending.items()
        ],
        "api_calls": len(s.usage),
        "usage_totals": s.totals(),
        "expected_status_when_no_process": "finished" if facts["end_state"] == "turn_complete" else "stopped mid-task",
    }
    title = s.records[facts["title_line"] - 1]
    assert isinstance(title, dict)
    return entry | {"title": title["aiTitle"]} | facts


def _codex_entry(key: str, x: Codex, facts: dict[str, Any], path: str, originator: str, source: str) -> dict[str, Any]:
    records = [r for r in x.records if isinstance(r, dict)]
    return {
        "key": key,
        "provider": "codex",
        "session_id": x.thread_id,
        "path": path,
        "cwd": x.cwd,
        "git_branch": "feature/split-payments",
        "cli_version": "0.162.0",
        "originator": originator,
        "source": source,
        "lines": len(x.records),
        "malformed_lines": [],
        "first_prompt_line": x.prompts[0],
        "prompts": x.prompts,
        "started_at": records[0]["payload"]["timestamp"],
        "last_activity_at": records[-1]["timestamp"],
        "model": "gpt-5.5-codex",
        "open_tool_calls": [
            {"line": line, "call_id": cid, "name": "exec_command", "cmd": cmd} for cid, (line, cmd) in x.open.items()
        ],
        "last_token_count_line": x.last_token_line,
        "total_token_usage": dict(x.totals),
    } | facts


# A live-process registry entry as Claude Code leaves it (a crash leaves it stale; tests start their own).
REGISTRY = {
    "pid": 48213,
    "sessionId": B_ID,
    "cwd": SHOP,
    "startedAt": 1795104298771,
    "version": "2.1.286",
    "kind": "interactive",
    "entrypoint": "cli",
    "name": "split-payments-backfill",
    "status": "busy",
    "statusUpdatedAt": 1795104346902,
}


def _build() -> tuple[dict[str, list[str]], dict[str, Any]]:
    a, a_facts = session_a()
    c, c_facts = session_c()
    sub = subagent()
    b, b_facts = session_b()
    x1, x1_facts = rollout_x1()
    x2, x2_facts = rollout_x2()
    project = "claude/projects/-home-dev-shop"
    paths = {
        "a": f"{project}/{A_ID}.jsonl",
        "c": f"{project}/{C_ID}.jsonl",
        "sub": f"{project}/{C_ID}/subagents/agent-{AGENT_ID}.jsonl",
        "b": f"{project}/{B_ID}.jsonl",
        "x1": f"codex/sessions/2026/11/20/rollout-2026-11-20T10-00-00-{X1_ID}.jsonl",
        "x2": f"codex/sessions/2026/11/21/rollout-2026-11-21T14-30-00-{X2_ID}.jsonl",
    }
    meta = {
        "agentType": "Explore",
        "description": "Find the payment column usages",
        "toolUseId": c.records[c_facts["agent_line"] - 1]["message"]["content"][0]["id"],  # type: ignore[index]
        "model": sub.model,
        "spawnDepth": 1,
        "requestShape": "agent",
        "requestNonInteractive": False,
    }
    files = {
        paths["a"]: a.lines(),
        paths["c"]: c.lines(),
        paths["sub"]: sub.lines(),
        paths["b"]: b.lines(),
        paths["sub"].replace(".jsonl", ".meta.json"): [json.dumps(meta)],
        paths["x1"]: x1.lines(),
        paths["x2"]: x2.lines(),
        "claude/history.jsonl": [
            json.dumps({"display": text, "pastedContents": {}, "timestamp": ms, "project": SHOP, "sessionId": sid})
            for text, ms, sid in (
                (A_PROMPT, 1794906723412, A_ID),
                ("commit it", 1794907841087, A_ID),
                (C_PROMPT, 1795009212305, C_ID),
                (B_PROMPT, 1795104302118, B_ID),
                (QUEUED, 1795104327518, B_ID),
            )
        ],
        "claude/sessions/48213.json": [json.dumps(REGISTRY)],
        "codex/history.jsonl": [
            json.dumps({"session_id": X2_ID, "ts": ts, "text": text})
            for ts, text in ((1795267841, X2_PROMPT), (1795273512, X2_SECOND))
        ],
    }
    c_entry = _claude_entry("claude_C_subagent_compaction", c, c_facts, paths["c"])
    c_entry["compact_pre_tokens"] = 168204
    c_entry["subagents"] = [
        {
            "agent_id": AGENT_ID,
            "path": paths["sub"],
            "agent_type": "Explore",
            "model": sub.model,
            "parent_tool_use_line": c_facts["agent_line"],
            "tool_use_id": meta["toolUseId"],
            "parent_tool_result_line": c_facts["agent_result_line"],
            "lines": len(sub.records),
            "report_line": len(sub.records),
        }
    ]
    c_entry["subagent_usage_totals"] = sub.totals()
    sessions = [
        _claude_entry("claude_A_finished", a, a_facts, paths["a"]),
        c_entry,
        _claude_entry("claude_B_stopped_midtask", b, b_facts, paths["b"]),
        _codex_entry("codex_1_finished", x1, x1_facts, paths["x1"], "codex_exec", "exec"),
        _codex_entry("codex_2_crashed_resumed_interrupted", x2, x2_facts, paths["x2"], "codex-tui", "cli"),
    ]
    sessions[4]["malformed_lines"] = x2_facts["malformed_lines"]
    recall = [
        {
            "query": "where did the checkout migration stop?",
            "expect": [{"session_id": X2_ID, "line": 46}, {"session_id": B_ID, "line": 21}],
        },
        {
            "query": "why did backfill batch 5 fail?",
            "expect": [{"session_id": X2_ID, "line": line} for line in (20, 26, 32)],
        },
        {
            "query": "which commit added retries to the payment gateway?",
            "expect": [{"session_id": A_ID, "line": a_facts["commit_line"]}],
        },
        {
            "query": "where is payment_provider_ref read?",
            "expect": [{"session_id": C_ID, "line": 8}, {"session_id": C_ID, "agent_id": AGENT_ID, "line": 3}],
        },
        {
            "query": "why was test_checkout_total_with_discount failing?",
            "expect": [{"session_id": X1_ID, "line": line} for line in (14, 24, 33)],
        },
        {
            "query": "what is the plan for migration 0042?",
            "expect": [{"session_id": C_ID, "line": 10}, {"session_id": C_ID, "line": 17}],
        },
        {
            "query": "did we check that the backfill is idempotent?",
            "expect": [{"session_id": B_ID, "line": line} for line in (17, 18, 19, 20)],
        },
    ]
    return files, {"now_for_status_tests": "2026-11-21T15:30:00Z", "sessions": sessions, "recall": recall}


FILES, EXPECTED = _build()


def write_homes(root: Path) -> dict[str, Path]:
    """Write the story under `root` and return the two homes: {"claude": <~/.claude>, "codex": <~/.codex>}."""
    for relative, lines in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return {"claude": root / "claude", "codex": root / "codex"}


_SHARED: dict[str, Path] = {}


def shared_homes() -> dict[str, Path]:
    """One read-only copy per test process, for callers that only read (the MCP sample calls)."""
    if not _SHARED:
        _SHARED.update(write_homes(Path(tempfile.mkdtemp(prefix="pallium-transcripts-"))))
    return _SHARED
