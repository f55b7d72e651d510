"""The pure judgements: failure normalization, signatures, stagnation steps, budget words, change warnings."""

from dataclasses import replace

from services.loops.lifecycle import change_warnings
from services.loops.progress import normalize_failure, signature_from_failures, step, working_tree_hash
from services.loops.store import LoopRow
from services.loops.verdict import budget_text, read_result
from tests.conftest import write


def test_normalizing_a_failure_drops_paths_lines_addresses_times_and_durations():
    a = "FAILED tests/test_x.py:41: AssertionError <obj at 0x7f3a2b> 2026-01-02T03:04:05Z in 0.53s"
    b = "FAILED ./tests/test_x.py:97: AssertionError <obj at 0x11aa> 2026-05-06 07:08:09 in 12 ms"
    assert normalize_failure(a) == normalize_failure(b)
    assert normalize_failure(a) == "FAILED tests/test_x.py:N: AssertionError <obj at 0x?> <time> in <duration>"
    assert normalize_failure("  tmp  /tmp/pytest-of-ada/pytest-7/x.txt:3 ") == "tmp x.txt:N"


def test_without_a_repository_a_relative_path_is_kept_and_what_is_not_a_path_is_untouched():
    # Depths and packages are judged against a real repository in test_failure_paths.py.
    assert normalize_failure("src/pkg/mod_test.go:41") == "src/pkg/mod_test.go:N"
    assert normalize_failure("src/a/mod_test.go:41") != normalize_failure("src/b/mod_test.go:41")
    assert normalize_failure("expected 1/2 got 3/4") == "expected 1/2 got 3/4"
    assert normalize_failure("tests/test_a.py::t") != normalize_failure("tests/test_b.py::t")


def test_a_failure_signature_ignores_order_and_repeats_and_is_empty_without_failures():
    one = signature_from_failures(["t::b", "t::a", "t::a"], tree="0123456789abcdef")
    assert one == signature_from_failures(["t::a", "t::b"], tree="0123456789abcdef0000")
    assert one.startswith("f2:") and one.endswith("+t:0123456789ab")
    assert signature_from_failures(["t::a", "t::c"]) != signature_from_failures(["t::a", "t::b"])
    assert signature_from_failures([]) == "" and signature_from_failures(["  "], None) == ""


def test_the_working_tree_hash_follows_untracked_edits_and_leaves_the_index_alone(git_repo):
    before = working_tree_hash(git_repo)
    write(git_repo, "new.txt", "x\n")
    after = working_tree_hash(git_repo)
    assert before and after and before != after
    assert working_tree_hash(git_repo) == after
    assert (git_repo / ".git" / "index").read_bytes()  # still there, still git's own
    write(git_repo, "debug.log", "ignored\n")
    assert working_tree_hash(git_repo) == after


def test_a_stagnation_step_counts_repeats_resets_on_change_and_sees_oscillation():
    first = step(previous=None, count=0, history=[], signature="A", threshold=3)
    assert (first.count, first.history, first.stagnated) == (1, ["A"], None)
    again = step(previous="A", count=1, history=["A"], signature="A", threshold=2)
    assert again.count == 2 and again.stagnated == "the signature A came back 2 cycles in a row (threshold 2)"
    moved = step(previous="A", count=2, history=["A"], signature="B", threshold=3)
    assert (moved.count, moved.history, moved.stagnated) == (1, ["A", "B"], None)
    back = step(previous="C", count=1, history=["A", "B", "C"], signature="A", threshold=3)
    assert back.stagnated == "oscillation: signature A came back after 3 cycle(s) on other signatures"
    assert step(previous="A", count=2, history=["A"], signature="", threshold=3).count == 0


def test_reading_a_result_names_what_is_wrong():
    assert read_result("failed", None, "ScriptError: boom").reason == "the workflow run failed: ScriptError: boom"
    assert read_result("completed", [1], None).state == "error"
    assert read_result("completed", {"state": "done"}, None).state == "error"
    assert read_result("completed", {"state": "success", "signature": 3}, None).reason.startswith("signature must")
    assert read_result("completed", {"state": "no_op", "failing": "x"}, None).state == "error"
    asked = read_result("completed", {"state": "no_op", "failing": ["a"], "tree": "t1"}, None)
    assert (asked.state, asked.failures, asked.tree, asked.signature) == ("no_op", ["a"], "t1", None)
    said = read_result("completed", {"state": "error", "summary": "tests would not start"}, None)
    assert said.reason == "the script reported an error: tests would not start"


def test_budget_words_never_show_zero_for_unknown_cost():
    assert budget_text(spend=0.0, unknown_calls=0, cycle_budget=None, lifetime_budget=None) == (
        "$0.0000 spent; no budget set",
        True,
    )
    assert budget_text(spend=0.25, unknown_calls=2, cycle_budget=None, lifetime_budget=5.0) == (
        "$0.2500 known + 2 agent call(s) of unknown cost; budget ($5.00 over its life) NOT enforceable: "
        "a provider reports no cost",
        False,
    )


def test_a_tick_warns_when_the_script_or_pallium_changed():
    row = LoopRow(
        name="w", script_path="/x", cwd="/", args_json=None, status="active", cycle=0, last_state=None,
        last_signature=None, stagnation_count=0, stagnation_threshold=3, signature_history=[],
        cycle_budget_usd=None, lifetime_budget_usd=None, lifetime_spend_usd=0.0, unknown_cost_calls=0,
        stale_after_minutes=15.0, max_cycles=None, started_version="1.0", started_script_hash="a" * 64,
        lease_token=None, lease_owner=None, tick_started_at=None, created_at="", updated_at="",
    )  # fmt: skip
    assert change_warnings(row, current_hash="a" * 64, identity="1.0") == []
    both = change_warnings(row, current_hash="b" * 64, identity="1.1")
    assert both[0].startswith("the script changed since the loop started (hash aaaaaaaaaaaa -> bbbbbbbbbbbb)")
    assert both[1] == "Pallium changed since the loop started (1.0 -> 1.1)"
    assert change_warnings(replace(row, started_version="1.1"), current_hash=None, identity="1.1") == []
