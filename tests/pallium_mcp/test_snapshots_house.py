"""Answers of the core, adoption, route and knowledge tools, pinned on the fixed repository.

See test_snapshots.py for how to update them; tests/pallium_mcp/snapshots.py says what is replaced.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inline_snapshot import snapshot

from tests.pallium_mcp.snapshots import Answers, environment_free

pytestmark = pytest.mark.anyio

_TABLE = re.compile(r"(<!-- pallium:capabilities:begin -->\n).*?(<!-- pallium:capabilities:end -->)", re.S)


def _without_table(answer: dict) -> dict:
    """The guide with its capability table cut: the table is the registry's summaries, pinned by docs/tools.md."""
    return {**answer, "guide": _TABLE.sub(r"\1<capabilities>\n\2", answer["guide"])}


async def test_core_and_adoption_tools_answer_in_a_fixed_shape(fixed_repo: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    answer = Answers(fixed_repo, tmp=tmp_path)
    assert environment_free(await answer("version")) == snapshot(
        {
            "pallium": "0.1.0",
            "python": "<python>",
            "platform": "<platform>",
            "sqlite": "<sqlite>",
            "dependencies": [
                {"name": "mcp", "version": "<version>"},
                {"name": "anyio", "version": "<version>"},
                {"name": "pydantic", "version": "<version>"},
                {"name": "apsw", "version": "<version>"},
                {"name": "sqlite-vec", "version": "<version>"},
                {"name": "tree-sitter", "version": "<version>"},
                {"name": "openai", "version": "<version>"},
                {"name": "keyring", "version": "<version>"},
                {"name": "psutil", "version": "<version>"},
            ],
            "databases": [
                {"scope": "global", "path": "<home>/pallium.sqlite", "exists": False, "schemas": {}},
                {"scope": "repo", "path": "<repo>/.pallium/pallium.sqlite", "exists": False, "schemas": {}},
            ],
        }
    )
    assert environment_free(await answer("doctor")) == snapshot(
        {
            "ok": True,
            "summary": "<counts>",
            "checks": [
                {"name": "python", "status": "<machine>", "detail": "<machine>", "hint": "<machine>"},
                {"name": "git", "status": "<machine>", "detail": "<machine>", "hint": "<machine>"},
                {"name": "sqlite", "status": "<machine>", "detail": "<machine>", "hint": "<machine>"},
                {"name": "sqlite-vec", "status": "<machine>", "detail": "<machine>", "hint": "<machine>"},
                {"name": "pallium home", "status": "ok", "detail": "<home> is writable", "hint": None},
                {
                    "name": "global database",
                    "status": "ok",
                    "detail": "<home>/pallium.sqlite not created yet",
                    "hint": None,
                },
                {"name": "repository", "status": "ok", "detail": "<repo>", "hint": None},
                {
                    "name": "repo database",
                    "status": "ok",
                    "detail": "<repo>/.pallium/pallium.sqlite not created yet",
                    "hint": None,
                },
                {
                    "name": "repository index",
                    "status": "ok",
                    "detail": "not built yet (every read tool builds it)",
                    "hint": None,
                },
                {
                    "name": "tree-sitter grammars",
                    "status": "<machine>",
                    "detail": "<machine>",
                    "hint": "<machine>",
                },
                {
                    "name": "keyring",
                    "status": "<machine>",
                    "detail": "<machine>",
                    "hint": "<machine>",
                },
                {
                    "name": "claude",
                    "status": "<machine>",
                    "detail": "<machine>",
                    "hint": "<machine>",
                },
                {
                    "name": "codex",
                    "status": "<machine>",
                    "detail": "<machine>",
                    "hint": "<machine>",
                },
            ],
        }
    )
    assert await answer("trust") == snapshot(
        {
            "repo": "<repo>",
            "trusted": True,
            "files": [],
            "fingerprint": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "trusted_at": "2026-03-01T00:00:00Z",
        }
    )
    assert await answer("db reset", scope="repo") == snapshot(
        {
            "path": "<repo>/.pallium/pallium.sqlite",
            "moved": [],
            "would_move": [],
            "backup_suffix": None,
            "confirmed": False,
        }
    )
    assert await answer("facts", sections=["files", "commits"]) == snapshot(
        {
            "repo": "<repo>",
            "indexed_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
            "files": [
                {
                    "path": "shop/api.py",
                    "blob": "<sha-1>",
                    "language": "python",
                    "lines": 5,
                    "tracked": True,
                    "skip_reason": None,
                    "test": False,
                },
                {
                    "path": "shop/cart.py",
                    "blob": "<sha-2>",
                    "language": "python",
                    "lines": 3,
                    "tracked": True,
                    "skip_reason": None,
                    "test": False,
                },
                {
                    "path": "tests/test_cart.py",
                    "blob": "<sha-3>",
                    "language": "python",
                    "lines": 5,
                    "tracked": True,
                    "skip_reason": None,
                    "test": True,
                },
            ],
            "symbols": [],
            "edges": [],
            "external": [],
            "referencing_files": {},
            "resolved_referencing": {},
            "tests": {},
            "commits": [
                {
                    "sha": "b883f7242cc14422a13f4722a36eafbe78d62975",
                    "author": "Ada",
                    "committed_at": "2026-01-05T00:00:00Z",
                    "subject": "Test the cart",
                    "files": ["shop/cart.py", "tests/test_cart.py"],
                },
                {
                    "sha": "b804cf50937858721283dce9f452be7374581e6e",
                    "author": "Ada",
                    "committed_at": "2026-01-02T00:00:00Z",
                    "subject": "Start the shop",
                    "files": ["shop/api.py", "shop/cart.py"],
                },
            ],
            "checks": [],
            "freshness": {
                "status": "fresh",
                "indexed_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "indexed_at": "2026-03-01T00:00:00Z",
                "current_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "head_moved": False,
                "history_behind": False,
                "working_tree_changed": False,
                "changed_files": [],
                "changed_count": 0,
                "refresh_command": None,
            },
        }
    )
    assert await answer("hotspots", limit=3) == snapshot(
        {
            "since": "2025-03-01T00:00:00Z",
            "metric": "commits x (1 + log2(1 + fan_in)), then lines changed: how often a file changes, weighted by its reach",
            "files": [
                {
                    "path": "shop/cart.py",
                    "score": 5.17,
                    "commits": 2,
                    "lines_added": 4,
                    "lines_deleted": 1,
                    "authors": 1,
                    "fan_in": 2,
                    "lines": 3,
                    "last_changed_at": "2026-01-05T00:00:00Z",
                    "former_names": [],
                },
                {
                    "path": "shop/api.py",
                    "score": 1.0,
                    "commits": 1,
                    "lines_added": 5,
                    "lines_deleted": 0,
                    "authors": 1,
                    "fan_in": 0,
                    "lines": 5,
                    "last_changed_at": "2026-01-02T00:00:00Z",
                    "former_names": [],
                },
                {
                    "path": "tests/test_cart.py",
                    "score": 1.0,
                    "commits": 1,
                    "lines_added": 5,
                    "lines_deleted": 0,
                    "authors": 1,
                    "fan_in": 0,
                    "lines": 5,
                    "last_changed_at": "2026-01-05T00:00:00Z",
                    "former_names": [],
                },
            ],
            "total": 3,
            "truncated": False,
            "next_cursor": None,
            "freshness": {
                "status": "fresh",
                "indexed_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "indexed_at": "2026-03-01T00:00:00Z",
                "current_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "head_moved": False,
                "history_behind": False,
                "working_tree_changed": False,
                "changed_files": [],
                "changed_count": 0,
                "refresh_command": None,
            },
        }
    )
    assert await answer("agents block") == snapshot(
        {
            "block": """\
<!-- pallium:agents:begin -->
## Pallium

This repository is set up for Pallium (MCP server `pallium`, CLI `pallium`), a local control plane
for coding agents. Habits:
- `pallium_route` first, when unsure which tool fits a task (CLI: `pallium route "<task>" --json`): it names the capability and its arguments, the authority it needs, and whether the ceiling blocks it; never raise the ceiling yourself.
- `pallium_sessions_recall` at the start of a session.
- `pallium_changed_now` to see the working tree's changes.
- `pallium_explain` before editing a file.
- `pallium_callers` before renaming.
- `pallium_start` for a whole task (`dry_run` shows the plan, the files and the provider first).
- `pallium_workflow_status` to follow a run (`ok` says whether it finished).
- `pallium_workflow_report` for a run's outcome, findings and failures.
- `pallium_workflow_apply` to apply a run's staged edits.
- `pallium_handoff` before passing work on.
Full guide: `pallium agents guide` (scripts: `pallium agents guide --workflow`).
<!-- pallium:agents:end -->
"""
        }
    )
    assert _without_table(await answer("agents guide")) == snapshot(
        {
            "name": "PALLIUM.md",
            "guide": """\
# Driving Pallium: the agent's guide

Pallium is a local-first control plane for coding agents: repository intelligence, session memory,
durable multi-agent workflows, loops, and the route that picks among them. Every capability is one
MCP tool (`pallium_<words>`) and one CLI command (`pallium <words>`), with the same arguments.

## Route first

When you are not sure which tool fits, call `pallium_route` (CLI: `pallium route "<task>"`) with
the task in the user's words. It answers with:

- `capability` and `tool`: the product command (`sessions live`) and its MCP tool;
- `arguments` and `argv`: the call, with paths, symbols, run ids and loop names checked against the
  repository and Pallium's stores;
- `why`, and `alternatives` each with `why_not`;
- `needed_authority`, `blocked` and `blocked_reason`: a call above the ceiling is blocked, never
  swapped for a weaker capability; `preparation` may offer a read-only step, labelled as such;
- `preconditions`: what must hold first (an index, synced sessions, an input only the user can
  give), each with the command that satisfies it;
- `confidence` (`score`, `margin` to the runner-up).

`capability: null` means nothing in Pallium serves the task: do it another way. Add
`execute: true` (CLI `--execute`) to run the recommendation through the same dispatcher and
ceiling; unmet preconditions within the ceiling run first, and a blocked or unfit recommendation
never runs. `pallium route capabilities` lists everything route can choose.

## Authority

Four levels, each including the ones before: `observe` (read the repository, history, sessions and
Pallium's state), `consult` (also call model providers for read-only work), `edit` (also change the
working tree, through captured patches), `admin` (also delete data, revert, change configuration,
install files). The ceiling is `--authority LEVEL` on the CLI (default `edit`) and the server's
`--authority` over MCP. Never raise it on your own: when a call is blocked, tell the user the level
it needs and let them decide. Tools that preview by default and act with `confirm` need the higher
level only to act.

## Capabilities

<!-- pallium:capabilities:begin -->
<capabilities>
<!-- pallium:capabilities:end -->

## Reading answers

- **Freshness.** Answers derived from an index carry `freshness` (`fresh`, `stale`, `missing`,
  the indexed commit, files changed since). On `stale`, pass `refresh: true` or run `pallium index`
  before trusting line numbers. Session answers say when memory was last synced.
- **Paging.** Lists take `limit` and, where they page, `cursor`; pass the answer's `next_cursor`
  back. `truncated: true` means there is more. Search-like answers stay within 8 KB and context
  answers within 12 KB unless you ask for `full`.
- **Errors.** One shape: `{"error": {"code", "message", "hint", "details"}}`. The hint says what to
  do next, for both the MCP argument and the CLI flag. `authority_exceeded` carries
  `details.needed`; `not_found` says how to list what exists; `invalid_input` names the field.
- **Long work.** `start` and `workflow run` spawn agents and spend. Over MCP they return a run id
  after `wait_seconds`; poll `pallium_workflow_status`, read `pallium_workflow_report`, and bring
  edits into the tree only with `pallium_workflow_apply` after reviewing them.

## Habits that work

1. Before editing a file: `pallium_explain` (or `pallium_risk`, `pallium_neighbors`).
2. Before renaming a function: `pallium_callers`.
3. At the start of a session: `pallium_sessions_recall` for where earlier work stopped.
4. For a whole task (fix, implement, review): `pallium_start`, or `pallium_workflow_preflight`
   first to see the files and checks that matter.
5. Before handing work on: `pallium_handoff`.

Authoring workflow scripts is covered by `pallium agents guide --workflow`.
""",
        }
    )
    assert await answer("agents install", dry_run=True) == snapshot(
        {"dir": "<repo>", "files": [{"path": "<repo>/AGENTS.md", "action": "created"}], "dry_run": True}
    )
    assert await answer("mcp install", client="claude", scope="project", dry_run=True) == snapshot(
        {
            "client": "claude",
            "scope": "project",
            "server_command": "<bin>/pallium-mcp",
            "path": "<repo>/.mcp.json",
            "action": "created",
            "command": None,
            "backup": None,
            "before": None,
            "after": """\
{
  "mcpServers": {
    "pallium": {
      "type": "stdio",
      "command": "<bin>/pallium-mcp",
      "args": [],
      "env": {}
    }
  }
}
""",
            "dry_run": True,
        }
    )
    assert environment_free(await answer("update", dry_run=True)) == snapshot(
        {
            "install_kind": "<install>",
            "prefix": "<install>",
            "command": "<install>",
            "ran": False,
            "version_before": "0.1.0",
            "version_after": None,
            "message": "<install>",
        }
    )


async def test_route_tools_answer_in_a_fixed_shape(fixed_repo: Path):
    answer = Answers(fixed_repo)
    assert await answer("route", task="who calls total") == snapshot(
        {
            "task": "who calls total",
            "ceiling": "admin",
            "capability": "callers",
            "tool": "pallium_callers",
            "arguments": {"name": "total"},
            "argv": ["pallium", "callers", "total", "--authority", "observe"],
            "why": "callers: every place that references a name, with file, line and enclosing symbol; definitions first; the task matches it on call (closest phrasing: 'what uses this class'); `total` is checked against the index once it is built",
            "alternatives": [
                {
                    "capability": "knowledge map",
                    "tool": "pallium_knowledge_map",
                    "score": 0.412,
                    "needed_authority": "observe",
                    "why_not": "fits the task less well (0.41 vs 0.87); it is for: the repository's modules: files, languages, most referenced names, dependencies both ways, tests.",
                },
                {
                    "capability": "sessions live",
                    "tool": "pallium_sessions_live",
                    "score": 0.374,
                    "needed_authority": "observe",
                    "why_not": "fits the task less well (0.37 vs 0.87); it is for: running claude and codex processes, matched to their sessions, with each one's lifecycle.",
                },
                {
                    "capability": "index",
                    "tool": "pallium_index",
                    "score": 0.322,
                    "needed_authority": "observe",
                    "why_not": "fits the task less well (0.32 vs 0.87); it is for: build or update the repository index: git history and every file's symbols, imports and references.",
                },
            ],
            "needed_authority": "observe",
            "blocked": False,
            "blocked_reason": None,
            "preparation": None,
            "preconditions": [
                {
                    "kind": "index",
                    "met": False,
                    "detail": "the repository has no index yet",
                    "command": "pallium index",
                    "tool": "pallium_index",
                    "arguments": {},
                    "needed_authority": "observe",
                    "field": None,
                }
            ],
            "confidence": {"score": 0.871, "margin": 0.459, "runner_up": "knowledge map"},
            "state": {"index": "missing", "loops": 0},
            "steps": [],
            "executed": None,
        }
    )
    assert await answer("route capabilities") == snapshot(
        {
            "levels": ["observe", "consult", "edit", "admin"],
            "by_level": {
                "observe": [
                    "agents block",
                    "agents guide",
                    "callers",
                    "changed-now",
                    "db reset",
                    "decisions",
                    "doctor",
                    "explain",
                    "facts",
                    "handoff",
                    "hotspots",
                    "index",
                    "knowledge build",
                    "knowledge context",
                    "knowledge decisions search",
                    "knowledge get",
                    "knowledge maintain status",
                    "knowledge map",
                    "knowledge search",
                    "knowledge serve",
                    "loop list",
                    "loop status",
                    "neighbors",
                    "risk",
                    "search",
                    "sessions doctor",
                    "sessions embedding status",
                    "sessions find",
                    "sessions forget",
                    "sessions live",
                    "sessions prune",
                    "sessions read",
                    "sessions recall",
                    "sessions search",
                    "sessions show",
                    "sessions sync",
                    "symbols",
                    "team diff",
                    "team inbox",
                    "team list",
                    "team status",
                    "team tasks list",
                    "team template list",
                    "team template show",
                    "team watch",
                    "version",
                    "workflow decisions",
                    "workflow gate list",
                    "workflow gc",
                    "workflow generate",
                    "workflow inspect",
                    "workflow list",
                    "workflow preflight",
                    "workflow read",
                    "workflow report",
                    "workflow show",
                    "workflow status",
                    "workflow template list",
                    "workflow template show",
                    "workflow tools list",
                    "workflow validate",
                ],
                "consult": [
                    "knowledge audit",
                    "loop reset",
                    "loop start",
                    "loop stop",
                    "loop tick",
                    "sessions embedding check",
                    "start",
                    "team approve",
                    "team attach",
                    "team budget",
                    "team gate set",
                    "team join",
                    "team member restart",
                    "team member steer",
                    "team member stop",
                    "team nudge",
                    "team reject",
                    "team resume",
                    "team run",
                    "team send",
                    "team spawn",
                    "team start",
                    "team stop",
                    "team tasks add",
                    "team tasks claim",
                    "team tasks complete",
                    "team tasks release",
                    "worker",
                    "workflow pause",
                    "workflow resume",
                    "workflow run",
                    "workflow stop",
                ],
                "edit": ["knowledge decisions link", "team apply", "workflow apply", "workflow save"],
                "admin": [
                    "agents install",
                    "knowledge maintain disable",
                    "knowledge maintain enable",
                    "knowledge maintain install",
                    "knowledge maintain pause",
                    "knowledge maintain resume",
                    "knowledge maintain retry",
                    "knowledge maintain run",
                    "mcp install",
                    "sessions embedding configure",
                    "team revert",
                    "trust",
                    "update",
                    "workflow gate approve",
                    "workflow gate reject",
                    "workflow revert",
                ],
            },
            "raised": {
                "db reset": "admin with confirm",
                "knowledge build": "consult with model",
                "knowledge serve": "admin for on 0.0.0.0, to 0.0.0.0, all interfaces, ...",
                "sessions doctor": "admin with confirm",
                "sessions forget": "admin with confirm",
                "sessions prune": "admin with confirm",
                "start": "edit for fix, implement, add, ...",
                "workflow gc": "admin with confirm",
                "workflow generate": "consult with tailor",
            },
            "capabilities": None,
            "count": 113,
            "full": False,
        }
    )


async def test_knowledge_tools_answer_in_a_fixed_shape(fixed_repo: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    answer = Answers(fixed_repo, tmp=tmp_path)
    assert await answer("knowledge build", model=False) == snapshot(
        {
            "repo": "<repo>",
            "built_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
            "built_at": "2026-03-01T00:00:00Z",
            "modules": 2,
            "documents": 4,
            "changed": 4,
            "removed": 0,
            "written": ["@decisions.md", "@incidents.md", "@root.md", "shop.md"],
            "unchanged": 0,
            "authored_kept": [],
            "collisions": [],
            "model_modules": 0,
            "claims_kept": 0,
            "claims_dropped": 0,
            "rejected": [],
            "model_attempts": 0,
        }
    )
    assert await answer("knowledge map") == snapshot(
        {
            "version": 2,
            "repo": "<repo>",
            "module_count": 2,
            "file_count": 3,
            "modules": [
                {
                    "slug": "@root",
                    "path": ".",
                    "files": 1,
                    "languages": {"python": 1},
                    "surface": ["test_total"],
                    "depends_on": ["shop"],
                    "used_by": [],
                    "external": [],
                    "tests": 1,
                },
                {
                    "slug": "shop",
                    "path": "shop",
                    "files": 2,
                    "languages": {"python": 2},
                    "surface": ["total", "checkout"],
                    "depends_on": [],
                    "used_by": ["@root"],
                    "external": [],
                    "tests": 1,
                },
            ],
            "truncated": False,
            "incidents": 0,
            "full": None,
        }
    )
    assert await answer("knowledge get", slug="shop", section="Dependencies") == snapshot(
        {
            "version": 2,
            "slug": "shop",
            "title": "shop",
            "kind": "module",
            "sections": {
                "Dependencies": """\
Depends on: no other module.

Used by: `.` (1)

External packages: none found.
"""
            },
            "claims": [],
            "dropped_claims": [],
            "unverified_reason": "no model prose yet: run `pallium knowledge build`",
            "truncated": False,
            "evidence": {
                "claims": 0,
                "citations_checked": 0,
                "audit_supported": 0,
                "audit_uncertain": 0,
                "unaudited": 0,
                "removed": 0,
                "verified": False,
            },
            "freshness": {
                "status": "fresh",
                "built_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "built_at": "2026-03-01T00:00:00Z",
                "current_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "changed_files": [],
                "changed_count": 0,
                "stale_claims": 0,
                "refresh_command": None,
            },
            "data": None,
        }
    )
    assert await answer("knowledge search", query="cart total") == snapshot(
        {
            "version": 2,
            "query": "cart total",
            "results": [
                {
                    "slug": "shop",
                    "title": "shop",
                    "kind": "module",
                    "score": -0.0,
                    "snippet": """\
 ... Its most used names say: `total`: Sum the prices.

## Surface

| name | kind | where | referencing files |
|---|---|---|---|
| `total` | function | `shop/cart.py:1` | 2 |
| `checkout` | function ... \
""",
                    "purpose": "2 file(s) (2 python). Its most used names say: `total`: Sum the prices.",
                    "surface": ["total", "checkout"],
                    "evidence": {
                        "claims": 0,
                        "citations_checked": 0,
                        "audit_supported": 0,
                        "audit_uncertain": 0,
                        "unaudited": 0,
                        "removed": 0,
                        "verified": False,
                    },
                },
                {
                    "slug": "@root",
                    "title": "(repository root)",
                    "kind": "module",
                    "score": -0.0,
                    "snippet": """\
 ... all tests.

## Surface

| name | kind | where | referencing files |
|---|---|---|---|
| `test_total` | function | `tests/test_cart.py:4` | 0 |

## Dependencies

Depends on: `shop` (1)

Used by ... \
""",
                    "purpose": "1 file(s) (1 python), all tests.",
                    "surface": ["test_total"],
                    "evidence": {
                        "claims": 0,
                        "citations_checked": 0,
                        "audit_supported": 0,
                        "audit_uncertain": 0,
                        "unaudited": 0,
                        "removed": 0,
                        "verified": False,
                    },
                },
            ],
            "truncated": False,
            "freshness": {
                "status": "fresh",
                "built_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "built_at": "2026-03-01T00:00:00Z",
                "current_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "changed_files": [],
                "changed_count": 0,
                "stale_claims": 0,
                "refresh_command": None,
            },
            "documents": None,
        }
    )
    assert await answer("knowledge context", task="change how the cart totals") == snapshot(
        {
            "version": 2,
            "task": "change how the cart totals",
            "modules": [
                {
                    "slug": "shop",
                    "path": "shop",
                    "why": ["search"],
                    "purpose": "2 file(s) (2 python). Its most used names say: `total`: Sum the prices.",
                    "claims": [],
                }
            ],
            "read": [
                {
                    "path": "shop/cart.py",
                    "why": ["the task spells its name", "matches the task's words"],
                    "symbols": [],
                    "checks": ["python -m pytest -q tests/test_cart.py"],
                }
            ],
            "tests": ["tests/test_cart.py"],
            "checks": ["python -m pytest -q tests/test_cart.py", "python -m pytest -q tests"],
            "decisions": [],
            "truncated": False,
            "evidence": {
                "claims": 0,
                "citations_checked": 0,
                "audit_supported": 0,
                "audit_uncertain": 0,
                "unaudited": 0,
                "removed": 0,
                "verified": False,
            },
            "freshness": {
                "status": "fresh",
                "built_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "built_at": "2026-03-01T00:00:00Z",
                "current_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "changed_files": [],
                "changed_count": 0,
                "stale_claims": 0,
                "refresh_command": None,
            },
        }
    )
    assert await answer("knowledge audit", slug="shop") == snapshot(
        {
            "repo": "<repo>",
            "audited": 0,
            "supported": 0,
            "refuted": 0,
            "unclear": 0,
            "attempts": 0,
            "removed": [],
            "stopped": None,
        }
    )
    assert await answer(
        "knowledge decisions link", title="Totals never go negative", file="shop/cart.py", source="review"
    ) == snapshot(
        {
            "decision": {
                "slug": "totals-never-go-negative",
                "title": "Totals never go negative",
                "status": "active",
                "source": "review",
                "file": "shop/cart.py",
                "supersedes": None,
                "superseded_by": None,
                "created_at": "2026-03-01T00:00:00Z",
                "text": '''\
def total(items):
    """Sum the prices."""
    return sum(i.price for i in items) or 0
''',
                "score": None,
            },
            "conflicts": [],
        }
    )
    assert await answer("knowledge decisions search", query="negative") == snapshot(
        {
            "query": "negative",
            "decisions": [
                {
                    "slug": "totals-never-go-negative",
                    "title": "Totals never go negative",
                    "status": "active",
                    "source": "review",
                    "file": "shop/cart.py",
                    "supersedes": None,
                    "superseded_by": None,
                    "created_at": "2026-03-01T00:00:00Z",
                    "text": '''\
def total(items):
    """Sum the prices."""
    return sum(i.price for i in items) or 0
''',
                    "score": -0.0,
                }
            ],
        }
    )
    assert await answer("knowledge maintain status") == snapshot(
        {
            "repo": "<repo>",
            "enabled": False,
            "paused": False,
            "pause_reason": None,
            "attempts_24h": 0,
            "attempt_limit": 40,
            "active_attempts": 0,
            "failed_24h": 0,
            "next_free_at": None,
            "changed_at": None,
            "structure_at": None,
            "generation_at": None,
            "stale_claims": 0,
        }
    )
    assert await answer("knowledge maintain enable") == snapshot(
        {
            "repo": "<repo>",
            "enabled": True,
            "paused": False,
            "pause_reason": None,
            "attempts_24h": 0,
            "attempt_limit": 40,
            "active_attempts": 0,
            "failed_24h": 0,
            "next_free_at": None,
            "changed_at": None,
            "structure_at": None,
            "generation_at": None,
            "stale_claims": 0,
        }
    )
    assert await answer("knowledge maintain pause") == snapshot(
        {
            "repo": "<repo>",
            "enabled": True,
            "paused": True,
            "pause_reason": "paused by hand",
            "attempts_24h": 0,
            "attempt_limit": 40,
            "active_attempts": 0,
            "failed_24h": 0,
            "next_free_at": None,
            "changed_at": None,
            "structure_at": None,
            "generation_at": None,
            "stale_claims": 0,
        }
    )
    assert await answer("knowledge maintain resume") == snapshot(
        {
            "repo": "<repo>",
            "enabled": True,
            "paused": False,
            "pause_reason": None,
            "attempts_24h": 0,
            "attempt_limit": 40,
            "active_attempts": 0,
            "failed_24h": 0,
            "next_free_at": None,
            "changed_at": None,
            "structure_at": None,
            "generation_at": None,
            "stale_claims": 0,
        }
    )
    assert await answer("knowledge maintain run", once=True, provider="fake") == snapshot(
        {
            "steps": [
                {
                    "repo": "<repo>",
                    "actions": [],
                    "quiet_seconds": "<seconds>",
                    "waiting": "structure refresh after 10s without changes",
                    "notes": [],
                }
            ]
        }
    )
    assert await answer("knowledge maintain retry", once=True, provider="fake") == snapshot(
        {
            "steps": [
                {
                    "repo": "<repo>",
                    "actions": ["structure", "generation"],
                    "quiet_seconds": "<seconds>",
                    "waiting": None,
                    "notes": ["prose for 1 module(s), stale first: shop"],
                }
            ]
        }
    )
    assert await answer("knowledge maintain disable") == snapshot(
        {
            "repo": "<repo>",
            "enabled": False,
            "paused": False,
            "pause_reason": None,
            "attempts_24h": 0,
            "attempt_limit": 40,
            "active_attempts": 0,
            "failed_24h": 0,
            "next_free_at": None,
            "changed_at": "1970-01-01T00:00:00Z",
            "structure_at": "2026-03-01T00:00:00Z",
            "generation_at": "2026-03-01T00:00:00Z",
            "stale_claims": 0,
        }
    )
    assert await answer("knowledge maintain install", platform="linux") == snapshot(
        {
            "platform": "linux",
            "path": "<tmp>/user/.config/systemd/user/pallium-knowledge.service",
            "command": ["<bin>/pallium", "knowledge", "maintain", "run", "--authority", "admin"],
            "activated": False,
            "note": "start it with `systemctl --user enable --now pallium-knowledge.service` (or run this again with `--activate`; MCP: `activate: true`)",
        }
    )
    assert await answer("knowledge serve", host="0.0.0.0") == snapshot(
        {
            "error": {
                "error": {
                    "code": "invalid_input",
                    "message": "refusing to serve the knowledge site on '0.0.0.0' without a bearer token",
                    "hint": "pass `token` (CLI `--token`) or set PALLIUM_MCP_TOKEN, or bind to 127.0.0.1",
                    "details": {"field": "host", "host": "0.0.0.0"},
                }
            }
        }
    )
