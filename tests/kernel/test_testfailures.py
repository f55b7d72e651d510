from kernel.testfailures import parse_failures, signature_of

PYTEST = """
=========================== short test summary info ============================
FAILED tests/test_app.py::test_main - assert 1 == 2
FAILED tests/test_app.py::TestThing::test_other - ValueError: bad
ERROR tests/test_db.py - ImportError: no module
========================= 2 failed, 1 error in 0.12s ==========================
"""
GO = """=== RUN   TestAdd
    add_test.go:9: got 3, want 4
--- FAIL: TestAdd (0.00s)
FAIL
FAIL	example.com/calc	0.002s
"""
JEST = """ FAIL  src/sum.test.js
  ● sum › adds two numbers

    expect(received).toBe(expected)
"""
VITEST = """ ❯ src/sum.test.ts (2 tests | 1 failed) 4ms
   × src/sum.test.ts > sum > adds 12ms
"""
CARGO = """running 2 tests
test tests::adds ... FAILED
test tests::subtracts ... ok

failures:

---- tests::adds stdout ----

thread 'tests::adds' panicked at src/lib.rs:10:9:
assertion `left == right` failed
"""


def test_pytest_failures_keep_file_name_and_message():
    assert [f.to_dict() for f in parse_failures(PYTEST)] == [
        {"name": "tests/test_app.py::test_main", "file": "tests/test_app.py", "message": "assert 1 == 2"},
        {"name": "tests/test_app.py::TestThing::test_other", "file": "tests/test_app.py", "message": "ValueError: bad"},
        {"name": "tests/test_db.py", "file": "tests/test_db.py", "message": "ImportError: no module"},
    ]


def test_go_jest_vitest_and_cargo_failures_are_named():
    assert [(f.name, f.file, f.message) for f in parse_failures(GO)] == [("TestAdd", "add_test.go", "got 3, want 4")]
    assert [(f.name, f.file) for f in parse_failures(JEST)] == [("sum › adds two numbers", "src/sum.test.js")]
    assert [(f.name, f.file) for f in parse_failures(VITEST)] == [("sum > adds", "src/sum.test.ts")]
    assert [(f.name, f.file, f.message) for f in parse_failures(CARGO)] == [
        ("tests::adds", "src/lib.rs", "assertion `left == right` failed")
    ]


def test_signature_ignores_order_and_falls_back_to_the_output():
    one = parse_failures(PYTEST)
    assert signature_of(one) == signature_of(list(reversed(one)))
    assert signature_of([], "  some output\n") == "some output"
    assert parse_failures("all good, 3 passed") == []
