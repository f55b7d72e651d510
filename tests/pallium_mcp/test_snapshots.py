"""The shape of each tool's answer, pinned with inline-snapshot on a fixed repository.

A change of shape (a field added, renamed or dropped, a list ordered differently) shows up in
review as a change of the snapshot below: update it with `pytest --inline-snapshot=fix` once the
change is meant. The repository has fixed dates and authors, so commits have fixed ids; the
values that still vary from run to run (its folder, timings) are replaced by placeholders.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inline_snapshot import snapshot

from tests.pallium_mcp.snapshots import Answers

pytestmark = pytest.mark.anyio


async def test_repo_tools_answer_in_a_fixed_shape(fixed_repo: Path):
    answer = Answers(fixed_repo)
    assert await answer("index") == snapshot(
        {
            "repo": "<repo>",
            "watermark": "b883f7242cc14422a13f4722a36eafbe78d62975",
            "commits_read": 2,
            "commits_total": 2,
            "history_rebuilt": True,
            "shallow": False,
            "files_parsed": 3,
            "files_reused": 0,
            "files_read": 3,
            "files_skipped": {},
            "files_changed": 3,
            "files_removed": 0,
            "git_seconds": "<seconds>",
            "duration_seconds": "<seconds>",
            "notes": [],
        }
    )
    assert await answer("symbols", path="shop/cart.py") == snapshot(
        {
            "redactions": 0,
            "path": "shop/cart.py",
            "language": "python",
            "status": "parsed",
            "symbols": [
                {
                    "name": "total",
                    "kind": "function",
                    "qualified": "total",
                    "signature": "def total(items)",
                    "start_line": 1,
                    "end_line": 3,
                    "doc": "Sum the prices.",
                    "parent": None,
                    "decorators": [],
                    "overload": False,
                }
            ],
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
    assert await answer("callers", name="total") == snapshot(
        {
            "redactions": 0,
            "name": "total",
            "definitions": [
                {
                    "path": "shop/cart.py",
                    "line": 1,
                    "kind": "function",
                    "qualified": "total",
                    "signature": "def total(items)",
                }
            ],
            "definition_count": 1,
            "alias_of": None,
            "inherited": None,
            "implements": [],
            "kinds": {"call": 2, "import": 2},
            "resolutions": {"resolved": 4, "ambiguous": 0, "unresolved": 0},
            "references": [
                {
                    "path": "shop/api.py",
                    "line": 1,
                    "kind": "import",
                    "enclosing": None,
                    "resolution": "import",
                    "target": "shop/cart.py",
                    "target_qualified": "total",
                    "target_line": 1,
                    "via": None,
                },
                {
                    "path": "shop/api.py",
                    "line": 5,
                    "kind": "call",
                    "enclosing": "checkout",
                    "resolution": "import",
                    "target": "shop/cart.py",
                    "target_qualified": "total",
                    "target_line": 1,
                    "via": None,
                },
                {
                    "path": "tests/test_cart.py",
                    "line": 1,
                    "kind": "import",
                    "enclosing": None,
                    "resolution": "import",
                    "target": "shop/cart.py",
                    "target_qualified": "total",
                    "target_line": 1,
                    "via": None,
                },
                {
                    "path": "tests/test_cart.py",
                    "line": 5,
                    "kind": "call",
                    "enclosing": "test_total",
                    "resolution": "import",
                    "target": "shop/cart.py",
                    "target_qualified": "total",
                    "target_line": 1,
                    "via": None,
                },
            ],
            "total": 4,
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
    assert await answer("search", query="total") == snapshot(
        {
            "redactions": 0,
            "query": "total",
            "results": [
                {
                    "path": "shop/cart.py",
                    "line": 1,
                    "kind": "function",
                    "qualified": "total",
                    "signature": "def total(items)",
                    "doc": "Sum the prices.",
                    "matched": "name: total; signature: total",
                    "score": 0.0,
                },
                {
                    "path": "tests/test_cart.py",
                    "line": 4,
                    "kind": "function",
                    "qualified": "test_total",
                    "signature": "def test_total()",
                    "doc": None,
                    "matched": "name: total; signature: total",
                    "score": 0.0,
                },
            ],
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
    assert await answer("risk", path="shop/cart.py") == snapshot(
        {
            "redactions": 0,
            "path": "shop/cart.py",
            "score": 4.0,
            "level": "low",
            "inferred": False,
            "reasons": [
                {"factor": "churn", "points": 2.0, "detail": "2 commits touched it"},
                {"factor": "authors", "points": 1.0, "detail": "1 distinct authors"},
                {"factor": "fan-in", "points": 1.0, "detail": "imported by 2 files"},
            ],
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
    assert await answer("neighbors", path="shop/cart.py") == snapshot(
        {
            "redactions": 0,
            "path": "shop/cart.py",
            "revisions": 2,
            "cochange": [
                {
                    "path": "shop/api.py",
                    "shared": 1,
                    "degree": 0.667,
                    "confidence": 0.5,
                    "last_shared_at": "2026-01-02T00:00:00Z",
                    "strength": "weak",
                },
                {
                    "path": "tests/test_cart.py",
                    "shared": 1,
                    "degree": 0.667,
                    "confidence": 0.5,
                    "last_shared_at": "2026-01-05T00:00:00Z",
                    "strength": "weak",
                },
            ],
            "structural": [
                {"path": "shop/api.py", "kind": "imported-by"},
                {"path": "tests/test_cart.py", "kind": "imported-by"},
                {"path": "tests/test_cart.py", "kind": "test-pair"},
            ],
            "truncated": False,
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
    assert await answer("decisions", query="totals") == snapshot(
        {
            "redactions": 0,
            "query": "totals",
            "decisions": [
                {
                    "sha": "b883f7242cc14422a13f4722a36eafbe78d62975",
                    "committed_at": "2026-01-05T00:00:00Z",
                    "subject": "Test the cart",
                    "body": "Because totals broke twice.",
                }
            ],
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
            "ranked": [
                {
                    "kind": "commit",
                    "ref": "b883f7242cc14422a13f4722a36eafbe78d62975",
                    "title": "Test the cart",
                    "text": "Because totals broke twice.",
                    "when": "2026-01-05T00:00:00Z",
                    "status": None,
                }
            ],
        }
    )
    assert await answer("explain", path="shop/cart.py") == snapshot(
        {
            "redactions": 0,
            "path": "shop/cart.py",
            "language": "python",
            "status": "parsed",
            "lines": 3,
            "summary": "shop/cart.py: python, 3 lines; declares 1 function; risk low (4); 1 test file(s)",
            "symbols": [
                {
                    "name": "total",
                    "kind": "function",
                    "qualified": "total",
                    "signature": "def total(items)",
                    "start_line": 1,
                    "end_line": 3,
                    "doc": "Sum the prices.",
                    "parent": None,
                    "decorators": [],
                    "overload": False,
                }
            ],
            "imports": [],
            "structural": [
                {"path": "shop/api.py", "kind": "imported-by"},
                {"path": "tests/test_cart.py", "kind": "imported-by"},
                {"path": "tests/test_cart.py", "kind": "test-pair"},
            ],
            "cochange": [],
            "tests": ["tests/test_cart.py"],
            "recent_commits": [
                {
                    "sha": "b883f7242cc14422a13f4722a36eafbe78d62975",
                    "committed_at": "2026-01-05T00:00:00Z",
                    "author": "Ada",
                    "subject": "Test the cart",
                },
                {
                    "sha": "b804cf50937858721283dce9f452be7374581e6e",
                    "committed_at": "2026-01-02T00:00:00Z",
                    "author": "Ada",
                    "subject": "Start the shop",
                },
            ],
            "history": {
                "state": "present",
                "added_in": {
                    "sha": "b804cf50937858721283dce9f452be7374581e6e",
                    "committed_at": "2026-01-02T00:00:00Z",
                    "author": "Ada",
                    "subject": "Start the shop",
                },
                "removed_in": None,
                "renamed_in": None,
                "renamed_to": None,
                "former_names": [],
                "commits": 2,
                "earlier_file_removed_in": None,
            },
            "decisions": [
                {
                    "sha": "b883f7242cc14422a13f4722a36eafbe78d62975",
                    "committed_at": "2026-01-05T00:00:00Z",
                    "author": "Ada",
                    "subject": "Test the cart",
                }
            ],
            "risk": {
                "redactions": 0,
                "path": "shop/cart.py",
                "score": 4.0,
                "level": "low",
                "inferred": False,
                "reasons": [
                    {"factor": "churn", "points": 2.0, "detail": "2 commits touched it"},
                    {"factor": "authors", "points": 1.0, "detail": "1 distinct authors"},
                    {"factor": "fan-in", "points": 1.0, "detail": "imported by 2 files"},
                ],
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
            },
            "verification": {
                "fast": ["python -m pytest -q tests/test_cart.py"],
                "safe": ["python -m pytest -q tests"],
                "full": ["python -m pytest -q"],
            },
            "evidence": ["git-history", "repo-structure", "test-inference", "repo-config"],
            "truncated": False,
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
    (fixed_repo / "shop" / "api.py").write_text("from shop.cart import total\n\n\ndef checkout(items):\n    return 0\n")
    assert await answer("changed-now") == snapshot(
        {
            "repo": "<repo>",
            "branch": "main",
            "head": "b883f7242cc14422a13f4722a36eafbe78d62975",
            "detached": False,
            "upstream": None,
            "ahead": None,
            "behind": None,
            "summary": "main: 1 changed file (1 unstaged)",
            "counts": {
                "total": 1,
                "staged": 0,
                "unstaged": 1,
                "untracked": 0,
                "renamed": 0,
                "deleted": 0,
                "conflicted": 0,
            },
            "files": [
                {
                    "path": "shop/api.py",
                    "orig_path": None,
                    "kind": "modified",
                    "staged": False,
                    "unstaged": True,
                    "git_status": ".M",
                    "risk_level": "low",
                    "blast_radius": 0,
                    "old_path_importers": [],
                }
            ],
            "truncated": False,
            "index_status": "stale",
            "recommended_next_command": "pallium handoff",
            "freshness": {
                "status": "stale",
                "indexed_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "indexed_at": "2026-03-01T00:00:00Z",
                "current_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "head_moved": False,
                "history_behind": False,
                "working_tree_changed": True,
                "changed_files": ["shop/api.py"],
                "changed_count": 1,
                "refresh_command": "pallium index",
            },
        }
    )
    assert await answer("handoff") == snapshot(
        {
            "redactions": 0,
            "base": "b804cf50937858721283dce9f452be7374581e6e",
            "head": "b883f7242cc14422a13f4722a36eafbe78d62975",
            "summary": "3 changed file(s) since b804cf509378 (1 commit(s), 1 in the working tree)",
            "commits": [
                {
                    "sha": "b883f7242cc14422a13f4722a36eafbe78d62975",
                    "committed_at": "2026-01-05T00:00:00Z",
                    "author": "Ada",
                    "subject": "Test the cart",
                }
            ],
            "files": [
                {
                    "path": "shop/api.py",
                    "source": "working-tree",
                    "risk_level": "low",
                    "missing_neighbors": [],
                    "renamed_from": None,
                    "old_path_importers": [],
                },
                {
                    "path": "shop/cart.py",
                    "source": "committed",
                    "risk_level": "low",
                    "missing_neighbors": [],
                    "renamed_from": None,
                    "old_path_importers": [],
                },
                {
                    "path": "tests/test_cart.py",
                    "source": "committed",
                    "risk_level": "low",
                    "missing_neighbors": [],
                    "renamed_from": None,
                    "old_path_importers": [],
                },
            ],
            "tests_to_run": ["tests/test_cart.py"],
            "verification": {
                "fast": ["python -m pytest -q tests/test_cart.py"],
                "safe": ["python -m pytest -q tests"],
                "full": ["python -m pytest -q"],
            },
            "open_questions": [],
            "truncated": False,
            "freshness": {
                "status": "stale",
                "indexed_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "indexed_at": "2026-03-01T00:00:00Z",
                "current_commit": "b883f7242cc14422a13f4722a36eafbe78d62975",
                "head_moved": False,
                "history_behind": False,
                "working_tree_changed": True,
                "changed_files": ["shop/api.py"],
                "changed_count": 1,
                "refresh_command": "pallium index",
            },
        }
    )


async def test_workflow_and_session_tools_answer_in_a_fixed_shape(fixed_repo: Path):
    answer = Answers(fixed_repo)
    assert await answer("workflow template list") == snapshot(
        {
            "workflows": [
                {
                    "name": "plan-and-verify",
                    "origin": "template",
                    "description": "Plan the task, implement it in an isolated worktree, verify, and review",
                },
                {
                    "name": "research",
                    "origin": "template",
                    "description": "Answer a question about the repository with cited evidence from several angles",
                },
                {
                    "name": "review",
                    "origin": "template",
                    "description": (
                        "Review the changes along each dimension; keep only the findings a skeptic cannot refute, "
                        "ranked"
                    ),
                },
                {
                    "name": "test-fix",
                    "origin": "template",
                    "description": "Make a test command pass, fixing the code in an isolated worktree",
                },
            ]
        }
    )
    assert await answer("workflow validate", source="return await agent('hi');") == snapshot(
        {
            "valid": True,
            "errors": [],
            "warnings": ["no meta: add `export const meta = {name, description, phases}` so runs are labelled"],
            "meta": None,
            "script": None,
            "script_hash": "d234cce842754ddbdb75cedf7382caa503ed0b633b1d7d3871ceebf0780f239f",
        }
    )
    assert await answer("workflow list") == snapshot({"runs": [], "truncated": False, "next_cursor": None})
    assert await answer("loop list") == snapshot({"loops": [], "truncated": False, "next_cursor": None})
    assert await answer("sessions find", repo=str(fixed_repo)) == snapshot(
        {
            "interpretation": "sessions in <repo>, most recently updated first",
            "filters": {"repo": "<repo>", "sort": "updated"},
            "sessions": [],
            "capsules": None,
            "truncated": False,
            "freshness": {"last_sync_at": None, "sessions": 0},
        }
    )
    assert await answer("sessions embedding status") == snapshot(
        {
            "configured": False,
            "config_path": "<home>/embedding.json",
            "provider": None,
            "model": None,
            "base_url": None,
            "credential_store": None,
            "key_found": False,
            "key_source": None,
            "spaces": [],
            "sessions_without_vector": None,
            "check": None,
            "message": "no embedding provider is configured: recall is lexical",
        }
    )
