"""Answers of the workflow-run and loop tools, pinned on the fixed repository with the fake provider.

See test_snapshots.py for how to update them; tests/pallium_mcp/snapshots.py says what is replaced.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inline_snapshot import snapshot

from tests.conftest import write
from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture, shared with the kernel's tests)
from tests.pallium_mcp.snapshots import Answers

pytestmark = pytest.mark.anyio

EDIT = """export const meta = {name: "zero", description: "Make an empty cart total zero", phases: ["edit"]};
phase("edit");
const done = await agent("make the empty total explicit", {mode: "edit", label: "cart"});
log("edited");
return {done};
"""
SHIP = """const draft = await agent("draft the release notes");
const verdict = await gate("ship", "Publish these notes?", {human: true, fail_on_deny: false});
return {published: verdict.approved, draft};
"""
LOOP = """export const meta = {kind: "loop", loop: {}};
return await agent("cycle");
"""


@pytest.fixture
def provider(fake, monkeypatch):  # noqa: F811  (the fixture imported above)
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario(
        {
            "match": "empty total",
            "replace": {"shop/cart.py": ["or 0\n", "or 0  # empty carts total zero\n"]},
            "reply": "ok",
        },
        {"match": "^draft", "reply": "v1 notes"},
        {"match": "cycle", "reply": {"state": "success", "summary": "tidied", "signature": "tidy-1"}},
    )
    return fake


async def test_workflow_run_tools_answer_in_a_fixed_shape(fixed_repo: Path, tmp_path: Path, provider):
    answer = Answers(fixed_repo, tmp=tmp_path)
    assert await answer("workflow run", task="zero totals", source=EDIT, id="edit") == snapshot(
        {
            "id": "edit",
            "task": "zero totals",
            "status": "completed",
            "verdict": "VERDICT: FINISHED (completed) — 1/1 agents complete",
            "ok": True,
            "repo": "<repo>",
            "result": {"done": "ok"},
            "error": None,
            "agents": {"total": 1, "succeeded": 1, "failed": 0, "replayed": 0},
            "failures": [],
            "cost": {"spent_usd": 0.0, "unknown_cost_calls": 1, "limit_usd": None},
            "patches": [{"call_key": "agent:63cd2284e912591f6d3b#0", "state": "staged", "detail": None}],
            "gates": [],
            "script_changed": False,
            "attempts": 1,
            "created_at": "2026-03-01T00:00:00Z",
            "updated_at": "2026-03-01T00:00:00Z",
            "live_calls": 1,
            "replayed_calls": 0,
            "source": "inline",
            "ceiling": "admin",
            "ignored": [],
            "trust_hint": None,
            "notes": [],
        }
    )
    assert await answer("workflow status", run_id="edit") == snapshot(
        {
            "id": "edit",
            "task": "zero totals",
            "status": "completed",
            "verdict": "VERDICT: FINISHED (completed) — 1/1 agents complete",
            "ok": True,
            "repo": "<repo>",
            "result": {"done": "ok"},
            "error": None,
            "agents": {"total": 1, "succeeded": 1, "failed": 0, "replayed": 0},
            "failures": [],
            "cost": {"spent_usd": 0.0, "unknown_cost_calls": 1, "limit_usd": None},
            "patches": [{"call_key": "agent:63cd2284e912591f6d3b#0", "state": "staged", "detail": None}],
            "gates": [],
            "script_changed": False,
            "attempts": 1,
            "created_at": "2026-03-01T00:00:00Z",
            "updated_at": "2026-03-01T00:00:00Z",
            "live_calls": None,
            "replayed_calls": None,
            "source": "inline",
            "ceiling": "admin",
            "ignored": [],
            "trust_hint": None,
            "notes": [],
        }
    )
    assert await answer("workflow report", run_id="edit") == snapshot(
        {
            "verdict": "VERDICT: FINISHED (completed) — 1/1 agents complete",
            "ok": True,
            "outcome": None,
            "id": "edit",
            "task": "zero totals",
            "status": "completed",
            "error": None,
            "summary": None,
            "findings": [],
            "risks": [],
            "next_steps": [],
            "failing": [],
            "patches": [{"call_key": "agent:63cd2284e912591f6d3b#0", "state": "staged", "detail": None}],
            "agents": [
                {
                    "label": "cart",
                    "phase": "edit",
                    "mode": "edit",
                    "ok": True,
                    "cached": False,
                    "cost_usd": None,
                    "error_class": None,
                    "patch_state": "staged",
                    "excerpt": "ok",
                    "call_key": "agent:63cd2284e912591f6d3b#0",
                }
            ],
            "agents_total": 1,
            "cost": {
                "spent_usd": 0.0,
                "unknown_cost_calls": 1,
                "limit_usd": None,
                "text": "unknown: 1 call(s) reported no cost",
            },
            "failures": [],
            "decisions": [],
            "truncated": False,
        }
    )
    assert await answer("workflow read", run_id="edit", label="cart") == snapshot(
        {
            "run_id": "edit",
            "call_key": "agent:63cd2284e912591f6d3b#0",
            "label": "cart",
            "op": "agent",
            "status": "completed",
            "mode": "edit",
            "provider": "fake",
            "model": None,
            "attempts": 1,
            "prompt": "make the empty total explicit",
            "output": "ok",
            "output_truncated": False,
            "error": None,
            "cost_usd": None,
            "patch_state": "staged",
            "patch_files": ["shop/cart.py"],
            "result": None,
            "run_error": None,
            "failures": [],
        }
    )
    assert await answer("workflow inspect", run_id="edit") == snapshot(
        {
            "id": "edit",
            "task": "zero totals",
            "status": "completed",
            "repo": "<repo>",
            "error": None,
            "script_path": None,
            "script_hash": "13caa70a4e1073f9a9461340318dc17c7f5b431b6b85fc97941b510bb9671f94",
            "script_bytes": 235,
            "script_changed": False,
            "args": None,
            "limits": {
                "budget_usd": None,
                "max_agents": 1000,
                "concurrency": 16,
                "agent_timeout": 600,
                "allow_commands": [],
                "allow_network": False,
                "allow_repo_commands": False,
                "ceiling": "admin",
                "source": "inline",
                "ignored": [],
            },
            "attempts": 1,
            "created_at": "2026-03-01T00:00:00Z",
            "updated_at": "2026-03-01T00:00:00Z",
            "run_dir": "<home>/workflow-runs/edit",
            "run_dir_exists": True,
            "kernel": {
                "status": "completed",
                "lease_epoch": 1,
                "owner_pid": None,
                "owner_host": "<host>",
                "owner_alive": False,
                "heartbeat_at": "<now>",
                "lease_expires_at": None,
                "base_commit": "<sha-1>",
                "base_tree": "<sha-2>",
                "agents_started": 1,
                "spent_usd": 0.0,
                "unknown_cost_calls": 1,
                "budget_usd": None,
                "calls": {"completed": 1},
            },
            "worktrees": [
                {
                    "path": "<home>/workflow-runs/edit/worktrees/pooled-1",
                    "purpose": "edit",
                    "state": "removed",
                    "call_key": None,
                    "exists": False,
                },
                {
                    "path": "<home>/workflow-runs/edit/worktrees/staging",
                    "purpose": "staging",
                    "state": "removed",
                    "call_key": None,
                    "exists": False,
                },
            ],
            "worktrees_total": 2,
        }
    )
    assert await answer("workflow show", run_id="edit", limit=5) == snapshot(
        {
            "run_id": "edit",
            "events": [
                {
                    "index": 0,
                    "attempt": 1,
                    "at": "2026-03-01T00:00:00Z",
                    "phase": "edit",
                    "kind": "agent",
                    "label": "cart",
                    "ok": True,
                    "text": "edit fake",
                },
                {
                    "index": 1,
                    "attempt": 1,
                    "at": "2026-03-01T00:00:00Z",
                    "phase": "edit",
                    "kind": "log",
                    "label": None,
                    "ok": None,
                    "text": "edited",
                },
            ],
            "total": 2,
            "truncated": False,
            "next_cursor": None,
        }
    )
    assert await answer("workflow save", run_id="edit", name="zero") == snapshot(
        {"name": "zero", "path": "<repo>/.pallium/workflows/zero.js"}
    )
    assert await answer("workflow decisions", run_id="edit") == snapshot(
        {"query": "", "decisions": [], "truncated": False}
    )
    assert await answer("workflow resume", run_id="edit") == snapshot(
        {
            "error": {
                "error": {
                    "code": "conflict",
                    "message": "workflow run edit already completed; nothing to resume",
                    "hint": "see its result with `pallium workflow report edit`; start a new run to do it again",
                    "details": {"run_id": "edit"},
                }
            }
        }
    )
    assert await answer("workflow apply", run_id="edit") == snapshot(
        {"run_id": "edit", "applied": ["agent:63cd2284e912591f6d3b#0"], "already": [], "skipped": []}
    )
    assert await answer("workflow revert", run_id="edit") == snapshot(
        {"run_id": "edit", "applied": ["agent:63cd2284e912591f6d3b#0"], "already": [], "skipped": []}
    )
    assert await answer("workflow pause", run_id="edit") == snapshot(
        {
            "error": {
                "error": {
                    "code": "conflict",
                    "message": "workflow run edit is not running",
                    "hint": "only a running run can be paused or stopped; see its state with `pallium workflow status edit`",
                    "details": {"run_id": "edit"},
                }
            }
        }
    )
    assert await answer("workflow stop", run_id="edit") == snapshot(
        {
            "error": {
                "error": {
                    "code": "conflict",
                    "message": "workflow run edit is not running",
                    "hint": "only a running run can be paused or stopped; see its state with `pallium workflow status edit`",
                    "details": {"run_id": "edit"},
                }
            }
        }
    )


async def test_workflow_gate_tools_answer_in_a_fixed_shape(fixed_repo: Path, provider):
    answer = Answers(fixed_repo)
    for run_id in ("ship-1", "ship-2"):
        await answer.raw("workflow run", task="release", source=SHIP, id=run_id)
    assert await answer("workflow gate list", run_id="ship-1") == snapshot(
        {
            "run_id": "ship-1",
            "gates": [{"name": "ship", "state": "pending", "approved": False, "reason": None, "decided_by": "person"}],
        }
    )
    assert await answer("workflow gate approve", run_id="ship-1", name="ship", reason="read them") == snapshot(
        {
            "id": "ship-1",
            "task": "release",
            "status": "completed",
            "verdict": "VERDICT: FINISHED (completed) — 1/1 agents complete",
            "ok": True,
            "repo": "<repo>",
            "result": {"published": True, "draft": "v1 notes"},
            "error": None,
            "agents": {"total": 1, "succeeded": 1, "failed": 0, "replayed": 1},
            "failures": [],
            "cost": {"spent_usd": 0.0, "unknown_cost_calls": 1, "limit_usd": None},
            "patches": [],
            "gates": [
                {"name": "ship", "state": "decided", "approved": True, "reason": "read them", "decided_by": "person"}
            ],
            "script_changed": False,
            "attempts": 2,
            "created_at": "2026-03-01T00:00:00Z",
            "updated_at": "2026-03-01T00:00:00Z",
            "live_calls": 0,
            "replayed_calls": 1,
            "source": "inline",
            "ceiling": "admin",
            "ignored": [],
            "trust_hint": None,
            "notes": [],
        }
    )
    assert await answer("workflow gate reject", run_id="ship-2", name="ship", reason="typo") == snapshot(
        {
            "id": "ship-2",
            "task": "release",
            "status": "completed",
            "verdict": "VERDICT: FINISHED (completed) — 1/1 agents complete",
            "ok": True,
            "repo": "<repo>",
            "result": {"published": False, "draft": "v1 notes"},
            "error": None,
            "agents": {"total": 1, "succeeded": 1, "failed": 0, "replayed": 1},
            "failures": [],
            "cost": {"spent_usd": 0.0, "unknown_cost_calls": 1, "limit_usd": None},
            "patches": [],
            "gates": [
                {"name": "ship", "state": "decided", "approved": False, "reason": "typo", "decided_by": "person"}
            ],
            "script_changed": False,
            "attempts": 2,
            "created_at": "2026-03-01T00:00:00Z",
            "updated_at": "2026-03-01T00:00:00Z",
            "live_calls": 0,
            "replayed_calls": 1,
            "source": "inline",
            "ceiling": "admin",
            "ignored": [],
            "trust_hint": None,
            "notes": [],
        }
    )


async def test_workflow_planning_tools_answer_in_a_fixed_shape(fixed_repo: Path, provider):
    answer = Answers(fixed_repo)
    assert await answer("start", task="review my change", dry_run=True) == snapshot(
        {
            "task": "review my change",
            "chosen": "template:review",
            "reason": "the task says 'review'",
            "args": {"task": "review my change", "files": []},
            "provider": "fake",
            "provider_missing": None,
            "repo_commands": None,
            "rehearsal": None,
            "changed_files": [],
            "preflight": {
                "task": "review my change",
                "repo": "<repo>",
                "source": "none",
                "files": [],
                "files_to_inspect": [],
                "changed_files": [],
                "changed_count": 0,
                "verification": {"fast": [], "safe": [], "full": []},
                "notes": ["nothing changed and no code matches 'review change'"],
                "truncated": False,
            },
            "tailoring": None,
            "script": """\
// Review: a reviewer per dimension (correctness, security, and any the task names), then a skeptic per
// finding; the findings that survive come back ranked, most severe and most certain first.
export const meta = {
  name: "review",
  description: "Review the changes along each dimension; keep only the findings a skeptic cannot refute, ranked",
  phases: ["review", "challenge", "rank"],
  args: {
    task: "what to review, in words (a plain `workflow run` passes the run's task)",
    files: "optional: the files to review (default: the files changed now)",
    dimensions: "optional: the dimensions to review along (default: correctness, security and those the task names)",
  },
};

const FINDINGS = {
  type: "object",
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: {
          file: { type: "string" },
          line: { type: "integer" },
          problem: { type: "string" },
          severity: { type: "string", enum: ["high", "medium", "low"] },
        },
        required: ["problem", "severity"],
      },
    },
  },
  required: ["findings"],
};
const VERDICT = {
  type: "object",
  properties: { holds: { type: "boolean" }, confidence: { type: "number" }, why: { type: "string" } },
  required: ["holds", "why"],
};
// Words in the task that ask for a dimension of their own, beside correctness and security.
const NAMED = {
  performance: /perf|slow|fast|latency|memory|allocat/i,
  concurrency: /concurren|race|thread|async|lock|deadlock/i,
  "error handling": /error|exception|failure|retry|edge case/i,
  tests: /\\btests?\\b|coverage|testing/i,
  readability: /readab|clarity|naming|style|maintainab/i,
  "api compatibility": /\\bapi\\b|compat|breaking|interface|contract/i,
  documentation: /\\bdocs?\\b|documentation|comments?/i,
};

const input = args ?? {};
const task = String(input.task ?? "Review the changes");
const files = input.files && input.files.length ? input.files : (await pallium.changedNow()).files.map((f) => f.path);
if (files.length === 0) return { ok: true, verdict: "nothing changed to review", findings: [], dimensions: [] };
const dimensions = input.dimensions && input.dimensions.length
  ? input.dimensions
  : ["correctness", "security", ...Object.keys(NAMED).filter((d) => NAMED[d].test(task))];
const shown = files.slice(0, 40);

phase("review");
const reviews = await parallel(dimensions, (dimension) =>
  agent(
    `${task}\\nReview these files for ${dimension} only: ${shown.join(", ")}.\\n` +
      "Report concrete problems with the file and line; say nothing about other dimensions.",
    { label: `review:${dimension}`, schema: FINDINGS },
  ));
const found = reviews.flatMap((review, i) =>
  review ? review.findings.map((finding) => ({ ...finding, dimension: dimensions[i] })) : []);

phase("challenge");
const verdicts = await parallel(found, (finding) =>
  agent(
    `Try to prove this ${finding.dimension} finding wrong; read the code it names.\\n${JSON.stringify(finding)}`,
    { label: `skeptic:${finding.dimension}:${finding.file ?? "?"}`, schema: VERDICT },
  ));

phase("rank");
const weight = { high: 3, medium: 2, low: 1 };
const surviving = found
  .map((finding, i) => ({ finding, verdict: verdicts[i] }))
  .filter(({ verdict }) => verdict && verdict.holds)
  .map(({ finding, verdict }) => ({ ...finding, why: verdict.why, confidence: verdict.confidence ?? 0.5 }))
  .sort((a, b) => (weight[b.severity] ?? 0) - (weight[a.severity] ?? 0) || b.confidence - a.confidence);
const answered = reviews.filter(Boolean).length;
// The result convention: the review did its job when some reviewer answered; what it found is in findings.
return {
  ok: answered > 0,
  verdict: answered > 0
    ? `${surviving.length} finding(s) survived review in ${answered} of ${dimensions.length} dimension(s)`
    : "no reviewer answered",
  findings: surviving.map((finding, i) => ({ rank: i + 1, ...finding })),
  dimensions,
  files: files.length,
  refuted: found.length - surviving.length,
};
""",
            "run": None,
        }
    )
    assert await answer("workflow preflight", task="make empty carts total zero", limit=3) == snapshot(
        {
            "task": "make empty carts total zero",
            "repo": "<repo>",
            "source": "named",
            "files": [
                {
                    "path": "shop/cart.py",
                    "risk_level": "low",
                    "risk_score": 4.0,
                    "why": [
                        "churn: 2 commits touched it",
                        "authors: 1 distinct authors",
                        "fan-in: imported by 2 files",
                    ],
                    "tests": ["tests/test_cart.py"],
                    "note": None,
                }
            ],
            "files_to_inspect": ["shop/cart.py"],
            "changed_files": [],
            "changed_count": 0,
            "verification": {
                "fast": ["python -m pytest -q tests/test_cart.py"],
                "safe": ["python -m pytest -q tests"],
                "full": ["python -m pytest -q"],
            },
            "notes": ["scoped to what the task names: carts"],
            "truncated": False,
        }
    )
    assert await answer("workflow generate", task="make the cart tests pass", style="test-fix") == snapshot(
        {
            "style": "test-fix",
            "template": "test-fix",
            "source": """\
// Test and fix: run the test command, and while it fails let an edit agent fix the code.
export const meta = {
  name: "test-fix",
  description: "Make a test command pass, fixing the code in an isolated worktree",
  phases: ["fix"],
  args: {
    task: "the task, in words (a plain `workflow run` passes the run's task)",
    test_command: "the command that must pass (required)",
    max_rounds: "optional: fix rounds before giving up (default 3)",
  },
};

if (!args.test_command) throw new Error("test-fix needs args.test_command (pallium start --test-command CMD)");
phase("fix");
const outcome = await verify.untilGreen(args.test_command, { maxRounds: args.max_rounds ?? 3 });
const last = outcome.rounds[outcome.rounds.length - 1].check;
const failing = last.failures.map((f) => f.name);
// The result convention: `ok` says whether the run did what it was for, `verdict` says why.
const verdict = outcome.ok
  ? `green after ${outcome.rounds.length} round(s)`
  : `still failing after ${outcome.rounds.length} round(s)${outcome.stalled ? ", stalled" : ""}: ${failing.join(", ") || last.summary}`;
return { ok: outcome.ok, verdict, stalled: outcome.stalled, rounds: outcome.rounds.length, failing };
""",
            "args": {"task": "make the cart tests pass"},
            "reads_args": {
                "task": "the task, in words (a plain `workflow run` passes the run's task)",
                "test_command": "the command that must pass (required)",
                "max_rounds": "optional: fix rounds before giving up (default 3)",
            },
            "path": None,
            "tailoring": None,
        }
    )
    assert await answer("workflow template show", name="review") == snapshot(
        {
            "name": "review",
            "origin": "template",
            "path": "<pallium>/services/workflows/templates/review.js",
            "source": """\
// Review: a reviewer per dimension (correctness, security, and any the task names), then a skeptic per
// finding; the findings that survive come back ranked, most severe and most certain first.
export const meta = {
  name: "review",
  description: "Review the changes along each dimension; keep only the findings a skeptic cannot refute, ranked",
  phases: ["review", "challenge", "rank"],
  args: {
    task: "what to review, in words (a plain `workflow run` passes the run's task)",
    files: "optional: the files to review (default: the files changed now)",
    dimensions: "optional: the dimensions to review along (default: correctness, security and those the task names)",
  },
};

const FINDINGS = {
  type: "object",
  properties: {
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: {
          file: { type: "string" },
          line: { type: "integer" },
          problem: { type: "string" },
          severity: { type: "string", enum: ["high", "medium", "low"] },
        },
        required: ["problem", "severity"],
      },
    },
  },
  required: ["findings"],
};
const VERDICT = {
  type: "object",
  properties: { holds: { type: "boolean" }, confidence: { type: "number" }, why: { type: "string" } },
  required: ["holds", "why"],
};
// Words in the task that ask for a dimension of their own, beside correctness and security.
const NAMED = {
  performance: /perf|slow|fast|latency|memory|allocat/i,
  concurrency: /concurren|race|thread|async|lock|deadlock/i,
  "error handling": /error|exception|failure|retry|edge case/i,
  tests: /\\btests?\\b|coverage|testing/i,
  readability: /readab|clarity|naming|style|maintainab/i,
  "api compatibility": /\\bapi\\b|compat|breaking|interface|contract/i,
  documentation: /\\bdocs?\\b|documentation|comments?/i,
};

const input = args ?? {};
const task = String(input.task ?? "Review the changes");
const files = input.files && input.files.length ? input.files : (await pallium.changedNow()).files.map((f) => f.path);
if (files.length === 0) return { ok: true, verdict: "nothing changed to review", findings: [], dimensions: [] };
const dimensions = input.dimensions && input.dimensions.length
  ? input.dimensions
  : ["correctness", "security", ...Object.keys(NAMED).filter((d) => NAMED[d].test(task))];
const shown = files.slice(0, 40);

phase("review");
const reviews = await parallel(dimensions, (dimension) =>
  agent(
    `${task}\\nReview these files for ${dimension} only: ${shown.join(", ")}.\\n` +
      "Report concrete problems with the file and line; say nothing about other dimensions.",
    { label: `review:${dimension}`, schema: FINDINGS },
  ));
const found = reviews.flatMap((review, i) =>
  review ? review.findings.map((finding) => ({ ...finding, dimension: dimensions[i] })) : []);

phase("challenge");
const verdicts = await parallel(found, (finding) =>
  agent(
    `Try to prove this ${finding.dimension} finding wrong; read the code it names.\\n${JSON.stringify(finding)}`,
    { label: `skeptic:${finding.dimension}:${finding.file ?? "?"}`, schema: VERDICT },
  ));

phase("rank");
const weight = { high: 3, medium: 2, low: 1 };
const surviving = found
  .map((finding, i) => ({ finding, verdict: verdicts[i] }))
  .filter(({ verdict }) => verdict && verdict.holds)
  .map(({ finding, verdict }) => ({ ...finding, why: verdict.why, confidence: verdict.confidence ?? 0.5 }))
  .sort((a, b) => (weight[b.severity] ?? 0) - (weight[a.severity] ?? 0) || b.confidence - a.confidence);
const answered = reviews.filter(Boolean).length;
// The result convention: the review did its job when some reviewer answered; what it found is in findings.
return {
  ok: answered > 0,
  verdict: answered > 0
    ? `${surviving.length} finding(s) survived review in ${answered} of ${dimensions.length} dimension(s)`
    : "no reviewer answered",
  findings: surviving.map((finding, i) => ({ rank: i + 1, ...finding })),
  dimensions,
  files: files.length,
  refuted: found.length - surviving.length,
};
""",
        }
    )
    assert await answer("workflow tools list", kind="agent") == snapshot(
        {
            "calls": [
                {
                    "name": "agent",
                    "usage": "await agent(prompt, {label, mode, isolation, provider, model, schema, ...})",
                    "summary": "one worker",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.create",
                    "usage": "await team.create(goal, {cwd, budgetUsd})",
                    "summary": "an agent team, the same one on resume",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.spawn",
                    "usage": "await team.spawn(team, name, {provider, model, role, mode, planRequired})",
                    "summary": "a member that resumes its own session",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.send",
                    "usage": "await team.send(team, to, body, from = 'lead')",
                    "summary": "mail; an unknown name throws",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.status",
                    "usage": "await team.status(team)",
                    "summary": "members by evidence, board, patches, spend",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.wait",
                    "usage": "await team.wait(team, {agentTimeoutSeconds, maxConcurrent, maxRounds})",
                    "summary": "runs the team's rounds until none is eligible",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.stop",
                    "usage": "await team.stop(team)",
                    "summary": "stops the team",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.approve",
                    "usage": "await team.approve(team, name)",
                    "summary": "approves a member's plan",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.reject",
                    "usage": "await team.reject(team, name, feedback)",
                    "summary": "rejects a plan with feedback",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.gate",
                    "usage": "await team.gate(team, prompt, hooks)",
                    "summary": "sets the team's gate",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.tasks",
                    "usage": "await team.tasks.create|list|claim|complete(team, ...)",
                    "summary": "the team's board",
                    "kind": "agent",
                    "available": True,
                },
                {
                    "name": "team.member",
                    "usage": "await team.member.stop|restart|steer(team, name, ...)",
                    "summary": "one member",
                    "kind": "agent",
                    "available": True,
                },
            ]
        }
    )
    assert await answer("workflow gc", dry_run=True) == snapshot(
        {
            "confirmed": False,
            "worktrees": [],
            "worktrees_live": 0,
            "run_dirs": [],
            "kept": [],
            "worktrees_total": 0,
            "run_dirs_total": 0,
            "bytes": 0,
        }
    )


async def test_loop_tools_answer_in_a_fixed_shape(fixed_repo: Path, tmp_path: Path, provider):
    write(fixed_repo, "loops/tidy.loop.js", LOOP)
    answer = Answers(fixed_repo, tmp=tmp_path)
    assert await answer("loop start", name="tidy", script="loops/tidy.loop.js") == snapshot(
        {
            "name": "tidy",
            "script_path": "<repo>/loops/tidy.loop.js",
            "cwd": "<repo>",
            "task": None,
            "args": None,
            "status": "active",
            "cycle": 0,
            "last_state": None,
            "last_signature": None,
            "stagnation_count": 0,
            "stagnation_threshold": 3,
            "cycle_budget_usd": None,
            "lifetime_budget_usd": None,
            "lifetime_spend_usd": 0.0,
            "unknown_cost_calls": 0,
            "budget_enforceable": True,
            "stale_after_minutes": 15.0,
            "max_cycles": None,
            "started_version": "0.1.0",
            "started_script_hash": "8bb13c93ae566c3d617e0c6e4bd98e680112aa8a06f178194c205d8820c24c4d",
            "tick_in_flight": False,
            "tick_started_at": None,
            "created_at": "2026-03-01T00:00:00Z",
            "updated_at": "2026-03-01T00:00:00Z",
        }
    )
    assert await answer("loop tick", name="tidy") == snapshot(
        {
            "loop": "tidy",
            "state": "success",
            "ran": True,
            "cycle": 1,
            "run_id": "<cycle-1>",
            "signature": "tidy-1",
            "stagnation_count": 1,
            "cost_usd": 0.0,
            "unknown_cost_calls": 1,
            "lifetime_spend_usd": 0.0,
            "reason": None,
            "summary": "tidied",
            "warnings": [],
            "reconciled": None,
        }
    )
    assert await answer("loop status", name="tidy") == snapshot(
        {
            "verdict": "ACTIVE: loop tidy, cycle 1; last state success; the next tick runs",
            "loop": {
                "name": "tidy",
                "script_path": "<repo>/loops/tidy.loop.js",
                "cwd": "<repo>",
                "task": None,
                "args": None,
                "status": "active",
                "cycle": 1,
                "last_state": "success",
                "last_signature": "tidy-1",
                "stagnation_count": 1,
                "stagnation_threshold": 3,
                "cycle_budget_usd": None,
                "lifetime_budget_usd": None,
                "lifetime_spend_usd": 0.0,
                "unknown_cost_calls": 1,
                "budget_enforceable": True,
                "stale_after_minutes": 15.0,
                "max_cycles": None,
                "started_version": "0.1.0",
                "started_script_hash": "8bb13c93ae566c3d617e0c6e4bd98e680112aa8a06f178194c205d8820c24c4d",
                "tick_in_flight": False,
                "tick_started_at": None,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            },
            "cycles": [
                {
                    "cycle": 1,
                    "state": "success",
                    "run_id": "<cycle-1>",
                    "signature": "tidy-1",
                    "stagnation_count": 1,
                    "cost_usd": 0.0,
                    "unknown_cost_calls": 1,
                    "reason": None,
                    "summary": "tidied",
                    "warnings": [],
                    "started_at": "2026-03-01T00:00:00Z",
                    "finished_at": "2026-03-01T00:00:00Z",
                }
            ],
            "budget": "spend unknown: 1 agent call(s) reported no cost; no budget set",
            "warnings": [],
        }
    )
    assert await answer("loop stop", name="tidy") == snapshot(
        {
            "loop": {
                "name": "tidy",
                "script_path": "<repo>/loops/tidy.loop.js",
                "cwd": "<repo>",
                "task": None,
                "args": None,
                "status": "stopped",
                "cycle": 1,
                "last_state": "success",
                "last_signature": "tidy-1",
                "stagnation_count": 1,
                "stagnation_threshold": 3,
                "cycle_budget_usd": None,
                "lifetime_budget_usd": None,
                "lifetime_spend_usd": 0.0,
                "unknown_cost_calls": 1,
                "budget_enforceable": True,
                "stale_after_minutes": 15.0,
                "max_cycles": None,
                "started_version": "0.1.0",
                "started_script_hash": "8bb13c93ae566c3d617e0c6e4bd98e680112aa8a06f178194c205d8820c24c4d",
                "tick_in_flight": False,
                "tick_started_at": None,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            },
            "changed": True,
        }
    )
    assert await answer("loop reset", name="tidy") == snapshot(
        {
            "loop": {
                "name": "tidy",
                "script_path": "<repo>/loops/tidy.loop.js",
                "cwd": "<repo>",
                "task": None,
                "args": None,
                "status": "stopped",
                "cycle": 1,
                "last_state": "success",
                "last_signature": None,
                "stagnation_count": 0,
                "stagnation_threshold": 3,
                "cycle_budget_usd": None,
                "lifetime_budget_usd": None,
                "lifetime_spend_usd": 0.0,
                "unknown_cost_calls": 1,
                "budget_enforceable": True,
                "stale_after_minutes": 15.0,
                "max_cycles": None,
                "started_version": "0.1.0",
                "started_script_hash": "8bb13c93ae566c3d617e0c6e4bd98e680112aa8a06f178194c205d8820c24c4d",
                "tick_in_flight": False,
                "tick_started_at": None,
                "created_at": "2026-03-01T00:00:00Z",
                "updated_at": "2026-03-01T00:00:00Z",
            },
            "changed": True,
        }
    )


def _worker_named(out: dict) -> dict:
    """The worker's id is host:pid:nonce, different on every run."""
    return {**out, "worker_id": "<host>:<pid>:<nonce>"} if "worker_id" in out else out


async def test_worker_answers_in_a_fixed_shape(fixed_repo: Path, tmp_path: Path):
    answer = Answers(fixed_repo, tmp=tmp_path)
    queue = f"sqlite:///{tmp_path / 'queue.sqlite'}"
    assert _worker_named(
        await answer("worker", database=queue, providers="fake", idle_exit_seconds=0.2, repo_cache=str(tmp_path / "c"))
    ) == snapshot(
        {
            "worker_id": "<host>:<pid>:<nonce>",
            "providers": ["fake"],
            "calls_run": 0,
            "results_refused": 0,
            "stopped_because": "idle",
        }
    )
