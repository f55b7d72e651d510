"""`path_text`: file names that are not valid UTF-8 become storable, readable, distinct text."""

import os

import apsw

from kernel.paths import path_text


def test_valid_utf8_names_are_unchanged():
    assert path_text("src/café.py") == "src/café.py"
    assert path_text("src/café.py".encode()) == "src/café.py"


def test_invalid_bytes_become_backslash_escapes_from_bytes_or_surrogateescaped_text():
    raw = b"caf\xe9.py"
    assert path_text(raw) == "caf\\xe9.py"
    assert path_text(os.fsdecode(raw)) == "caf\\xe9.py", "the str os and git decoding give maps the same way"
    assert path_text(b"caf\xe8.py") != path_text(raw), "different bytes stay different names"


def test_the_text_can_be_stored_in_sqlite_where_the_surrogate_form_cannot():
    db = apsw.Connection(":memory:")
    db.execute("CREATE TABLE t (p TEXT)")
    raw = os.fsdecode(b"caf\xe9.py")
    try:
        db.execute("INSERT INTO t VALUES (?)", (raw,))
        stored_surrogates = True
    except UnicodeEncodeError:
        stored_surrogates = False
    assert stored_surrogates is False
    db.execute("INSERT INTO t VALUES (?)", (path_text(raw),))
    assert db.execute("SELECT p FROM t").get == "caf\\xe9.py"


def test_a_stray_surrogate_is_escaped_too():
    assert path_text("a\ud800b") == "a\\ud800b"
