from datetime import UTC, datetime, timedelta, timezone

from kernel.clock import FixedClock, iso_utc, parse_iso
from kernel.hashing import canonical_json, stable_hash


def test_hash_ignores_key_order_and_sees_every_value():
    assert stable_hash({"a": 1, "b": [1, 2]}) == stable_hash({"b": [1, 2], "a": 1})
    assert stable_hash({"a": 1}) != stable_hash({"a": 2})
    assert stable_hash([1, 2]) != stable_hash([2, 1])
    assert canonical_json({"b": "é", "a": None}) == '{"a":null,"b":"é"}'


def test_times_are_written_in_utc_with_z():
    moment = datetime(2026, 3, 1, 12, 30, 15, 999, tzinfo=timezone(timedelta(hours=2)))
    assert iso_utc(moment) == "2026-03-01T10:30:15Z"
    assert parse_iso("2026-03-01T10:30:15Z") == datetime(2026, 3, 1, 10, 30, 15, tzinfo=UTC)


def test_fixed_clock_moves_only_when_told():
    clock = FixedClock(datetime(2026, 1, 1, tzinfo=UTC))
    assert clock.now() == clock.now()
    clock.advance(minutes=5)
    assert iso_utc(clock.now()) == "2026-01-01T00:05:00Z"
