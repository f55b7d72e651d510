"""risk, explain, changed-now with an index, and handoff: scores and advice from known histories."""

from pathlib import Path

import pytest

from tests.conftest import git, write
from tests.services.repo.conftest import ask, commit

pytestmark = pytest.mark.anyio


async def test_risk_adds_up_its_reasons(history_repo: Path):
    out = await ask(history_repo, "pallium_risk", path="core.py")
    assert {r.factor: r.points for r in out.reasons} == {
        "churn": 8,  # 8 commits
        "recent": 9,  # 3 touches in the 30 days before 2026-03-01, 3 points each
        "coupling": 2,  # util.py follows core.py with confidence 5/7
        "authors": 2,  # Ada and Bob
        "fresh": 2,  # last touched 2026-02-27
        "untested": 3,
    }
    assert (out.score, out.level, out.inferred) == (26, "high", False)


async def test_a_file_with_no_history_gets_an_inferred_risk(git_repo: Path):
    write(git_repo, "src/auth/tokens.py", "def issue():\n    return 1\n")
    git(git_repo, "add", "-A")
    out = await ask(git_repo, "pallium_risk", path="src/auth/tokens.py")
    assert out.inferred is True
    assert [r.factor for r in out.reasons] == ["inferred", "untested", "boundary"]
    assert (out.score, out.level) == (7, "low")


async def test_explain_gathers_structure_history_tests_and_checks(git_repo: Path):
    write(git_repo, "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    commit(git_repo, "Explain the app\n\nBecause main must stay tiny.", {"src/app.py": "def main():\n    return 3\n"})
    out = await ask(git_repo, "pallium_explain", path="src/app.py")
    assert [s.qualified for s in out.symbols] == ["main"]
    assert out.tests == ["tests/test_app.py"]
    assert {(s.path, s.kind) for s in out.structural} == {
        ("tests/test_app.py", "imported-by"),
        ("tests/test_app.py", "test-pair"),
    }
    assert [c.subject for c in out.recent_commits] == ["Explain the app", "Start the demo"]
    assert [c.subject for c in out.decisions] == ["Explain the app"]
    assert out.verification.fast == ["python -m pytest -q tests/test_app.py"]
    assert out.verification.safe == ["python -m pytest -q tests", "ruff check src/app.py"]
    assert out.verification.full == ["python -m pytest -q"]
    assert out.evidence == ["git-history", "repo-structure", "test-inference", "repo-config"]
    assert "untested" not in {r.factor for r in out.risk.reasons}


async def test_explain_stays_within_8_kb_unless_full(git_repo: Path):
    many = "".join(f"def function_number_{i}(argument_{i}, other_{i}):\n    return {i}\n\n" for i in range(300))
    commit(git_repo, "Grow", {"src/big.py": many})
    compact = await ask(git_repo, "pallium_explain", path="src/big.py")
    assert len(compact.model_dump_json()) <= 8 * 1024
    assert compact.truncated is True
    full = await ask(git_repo, "pallium_explain", path="src/big.py", full=True)
    assert len(full.symbols) == 300


async def test_changed_now_adds_risk_blast_radius_and_next_command_with_an_index(history_repo: Path):
    before = await ask(history_repo, "pallium_changed_now")
    assert before.index_status == "missing"
    await ask(history_repo, "pallium_index")
    write(history_repo, "core.py", "def core():\n    return 12\n")
    write(history_repo, "brand_new.py", "x = 1\n")
    out = await ask(history_repo, "pallium_changed_now")
    assert out.index_status == "stale"
    by_path = {f.path: (f.risk_level, f.blast_radius) for f in out.files}
    assert by_path == {"core.py": ("high", 1), "brand_new.py": ("low", 0)}
    assert out.recommended_next_command == "pallium explain core.py"


async def test_changed_now_reports_freshness_only_when_an_index_exists(history_repo: Path):
    before = await ask(history_repo, "pallium_changed_now")
    assert before.freshness is None
    assert not (history_repo / ".pallium").exists(), "without refresh, changed-now never builds an index"
    await ask(history_repo, "pallium_index")
    commit(history_repo, "Touch util", {"util.py": "def util():\n    return 7\n"}, when="2026-02-28T00:00:00Z")
    stale = await ask(history_repo, "pallium_changed_now")
    assert (stale.index_status, stale.freshness.status, stale.freshness.head_moved) == ("stale", "stale", True)
    assert stale.recommended_next_command == "pallium index"


async def test_changed_now_refresh_reindexes_before_scoring(history_repo: Path):
    await ask(history_repo, "pallium_index")
    commit(history_repo, "Touch util", {"util.py": "def util():\n    return 7\n"}, when="2026-02-28T00:00:00Z")
    write(history_repo, "util.py", "def util():\n    return 8\n")
    out = await ask(history_repo, "pallium_changed_now", refresh=True)
    assert (out.index_status, out.freshness.status) == ("indexed", "fresh")
    assert out.freshness.indexed_commit == git(history_repo, "rev-parse", "HEAD").strip()
    risk = await ask(history_repo, "pallium_risk", path="util.py")
    assert [f.path for f in out.files] == ["util.py"]
    assert out.files[0].risk_level == risk.level


async def test_changed_now_refresh_builds_a_missing_index(history_repo: Path):
    out = await ask(history_repo, "pallium_changed_now", refresh=True)
    assert (out.index_status, out.freshness.status) == ("indexed", "fresh")


async def test_handoff_lists_changes_tests_and_missing_neighbours(history_repo: Path):
    commit(history_repo, "Change core without util", {"core.py": "def core():\n    return 13\n"})
    write(history_repo, "test_core.py", "from core import core\n\ndef test_core():\n    assert core()\n")
    out = await ask(history_repo, "pallium_handoff")
    assert out.base == git(history_repo, "rev-parse", "HEAD~1").strip()
    assert [(f.path, f.source, f.missing_neighbors) for f in out.files] == [
        ("core.py", "committed", ["util.py"]),
        ("test_core.py", "working-tree", []),
    ]
    assert [c.subject for c in out.commits] == ["Change core without util"]
    assert out.tests_to_run == ["test_core.py"]
    assert out.open_questions == ["core.py changed without util.py, which usually change with it"]


async def test_handoff_in_a_fresh_clone_hands_off_nothing_already_pushed(history_repo: Path, tmp_path: Path):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{history_repo}", str(clone))
    pushed = git(clone, "rev-parse", "HEAD").strip()
    out = await ask(clone, "pallium_handoff")
    assert (out.base, out.head, out.files, out.commits) == (pushed, pushed, [], [])
    write(clone, "util.py", "def util():\n    return 99\n")
    edited = await ask(clone, "pallium_handoff")
    assert [(f.path, f.source) for f in edited.files] == [("util.py", "working-tree")]


async def test_handoff_in_a_clone_starts_at_the_merge_base_with_the_upstream(history_repo: Path, tmp_path: Path):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{history_repo}", str(clone))
    pushed = git(clone, "rev-parse", "HEAD").strip()
    commit(clone, "Local one", {"a.py": "a = 1\n"})
    commit(clone, "Local two", {"b.py": "b = 1\n"})
    commit(history_repo, "Upstream moves on", {"core.py": "def core():\n    return 50\n"})
    git(clone, "fetch", "-q")
    out = await ask(clone, "pallium_handoff")
    assert out.base == pushed, "the merge base, not the upstream's new tip and not HEAD~1"
    assert [c.subject for c in out.commits] == ["Local two", "Local one"]
    assert [(f.path, f.source) for f in out.files] == [("a.py", "committed"), ("b.py", "committed")]


async def test_handoff_takes_an_explicit_base_and_refuses_an_unknown_one(history_repo: Path):
    from kernel.errors import PalliumError

    out = await ask(history_repo, "pallium_handoff", base="HEAD~3")
    assert len(out.commits) == 3
    with pytest.raises(PalliumError) as bad:
        await ask(history_repo, "pallium_handoff", base="no-such-ref")
    assert (bad.value.code, bad.value.details["field"]) == ("not_found", "base")


async def test_explain_keeps_neighbours_sharing_two_commits_and_neighbors_keeps_all(history_repo: Path):
    commit(history_repo, "Once together", {"core.py": "def core():\n    return 14\n", "other.py": "o = 1\n"})
    explained = await ask(history_repo, "pallium_explain", path="core.py")
    assert [c.path for c in explained.cochange] == ["util.py"]
    listed = await ask(history_repo, "pallium_neighbors", path="core.py")
    assert [c.path for c in listed.cochange] == ["util.py", "other.py"]
