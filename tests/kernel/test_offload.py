"""A child Python process that runs one of Pallium's functions on a series of inputs, in order."""

import threading

import pytest

from kernel.hashing import stable_hash
from kernel.offload import Offload, OffloadFailed


def test_the_child_answers_every_input_in_order_as_the_function_would_here():
    inputs = [{"n": n, "words": ["a"] * n} for n in range(50)]
    with Offload("kernel.hashing:stable_hash", inputs) as child:
        answers = list(child)
    assert answers == [stable_hash(value) for value in inputs]


def test_a_function_that_raises_ends_the_answers_with_offload_failed():
    with Offload("kernel.hashing:stable_hash", [{"ok": 1}, {"not json": {1, 2}}, {"ok": 3}]) as child:
        answers = iter(child)
        assert next(answers) == stable_hash({"ok": 1})
        with pytest.raises(OffloadFailed) as failed:
            next(answers)
    assert "TypeError" in str(failed.value)


def test_a_child_that_dies_midway_is_offload_failed_after_the_answers_it_gave(monkeypatch):
    monkeypatch.setenv("PALLIUM_CRASHPOINT", "offloaded_parse:3")
    got = []
    with (
        Offload("kernel.crashpoints:crash_point", ["offloaded_parse"] * 5) as child,
        pytest.raises(OffloadFailed) as failed,
    ):
        for answer in child:
            got.append(answer)
    assert got == [None, None] and "exited 86" in str(failed.value)


def test_only_pallium_functions_are_run_in_a_child():
    with pytest.raises(ValueError):
        Offload("os:system", ["true"])


def test_leaving_before_the_last_answer_stops_the_child_quietly():
    inputs = [{"n": n, "padding": "x" * 100_000} for n in range(200)]  # more than the pipes hold
    child = Offload("kernel.hashing:stable_hash", inputs, ahead=2)
    assert next(iter(child)) == stable_hash(inputs[0])
    child.close()
    assert not child.running


def test_an_undecodable_message_from_the_child_is_offload_failed_not_a_hang(monkeypatch):
    """A message that is no answer (here a pickle naming a module that does not exist) ends the
    answers with OffloadFailed; the reader thread dying on it left the caller waiting forever."""
    monkeypatch.setenv("PALLIUM_CRASHPOINT", "offloaded_parse:2:garbage")
    outcome: list[object] = []

    def consume() -> None:
        got = []
        try:
            with Offload("kernel.crashpoints:crash_point", ["offloaded_parse"] * 5) as child:
                for answer in child:
                    got.append(answer)
        except OffloadFailed as exc:
            outcome.append((got, str(exc)))

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    worker.join(120)  # a guard against the hang this test is about, not a timing
    assert not worker.is_alive(), "the caller hung on an undecodable message"
    assert outcome, "no OffloadFailed was raised"
    got, message = outcome[0]
    assert got == [None] and "undecodable" in message and "no_such_module" in message
