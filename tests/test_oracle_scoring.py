"""The oracle's own arithmetic: how lines are scored and which lines count as calls.

A benchmark that miscounts reports figures nobody can trust, so its pure helpers are tested
like product code (the oracle run itself, over fetched repositories, stays in `benchmarks/`).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.oracle.run import Tally, _call_lines


def test_precision_counts_only_resolved_claims_and_recall_every_listed_line() -> None:
    tally = Tally()
    # answer: a (resolved, right), b (resolved, wrong), c (ambiguous, right); the oracle also has d
    tally.add({("f.py", 1), ("f.py", 2), ("f.py", 3)}, {("f.py", 3)}, {("f.py", 1), ("f.py", 3), ("f.py", 4)})
    got = tally.figures()
    assert got["precision"] == 0.5  # a of a, b
    assert got["recall"] == round(2 / 3, 3)  # a and c of a, c, d
    assert got["listed_precision"] == round(2 / 3, 3)
    assert got["ambiguous_share"] == round(1 / 3, 3)
    assert (got["answer_lines"], got["oracle_lines"]) == (3, 3)


def test_an_empty_side_gives_no_ratio_rather_than_a_perfect_one() -> None:
    tally = Tally()
    tally.add(set(), set(), set())
    assert tally.figures()["precision"] is None
    assert tally.figures()["recall"] is None


def test_a_call_line_is_the_name_followed_by_a_parenthesis(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "x = run(1)\ny = run\nz = rerun(2)\n@app.run ()\nw = obj.run<T>(3)\n",
        encoding="utf-8",
    )
    lines = {("m.py", n) for n in range(1, 7)}  # line 6 is past the end of the file
    assert _call_lines(tmp_path, "run", lines) == {("m.py", 1), ("m.py", 4), ("m.py", 5)}
