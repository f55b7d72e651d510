"""A secret named by a vendor's word glued to a secret noun (`kernel/secret_glued.py`), by class.

Every value is drawn from a seed of the test's own name; each class has several vendors, nouns, glues and
value shapes, so a rule that learned one example fails the others. What must stay searchable (a word
ending in a noun, a data key, a name with a number, filler) is drawn the same way.
"""

from __future__ import annotations

import random
import string

import pytest

from kernel.secrets import redact

_rnd = random.Random(28)
_VENDORS = ("acmecloud", "zentrix", "orbitly", "pixelforge", "quarkdb", "novaship", "tundrapay")


@pytest.fixture(autouse=True)
def _seed_per_test(request: pytest.FixtureRequest) -> None:
    _rnd.seed(f"{request.node.module.__name__}::{request.node.name}")


def _draw(n: int, alphabet: str) -> str:
    while True:
        out = "".join(_rnd.choice(alphabet) for _ in range(n))
        if sum(c.isdigit() for c in out) >= 3 and sum(c.isalpha() for c in out) >= 3:
            return out


def _key(kind: str) -> str:
    """A made-up key of one of the shapes people paste: mixed, upper with digits, hex, dashed groups."""
    if kind == "mixed":
        return _draw(_rnd.randint(20, 48), string.ascii_letters + string.digits)
    if kind == "upper":
        return _draw(_rnd.randint(16, 40), string.ascii_uppercase + string.digits)
    if kind == "hex":
        return _draw(40, "0123456789abcdef")
    return "-".join(_draw(8, string.ascii_lowercase + string.digits) for _ in range(4))


def _gone(text: str, secret: str) -> bool:
    redacted, count = redact(text)
    return count > 0 and secret not in redacted


@pytest.mark.parametrize("noun", ["SECRET", "PRIVATE", "TOKEN", "SecretKey", "PRIVATEkey", "ACCESS_TOKEN"])
@pytest.mark.parametrize("kind", ["mixed", "upper", "hex", "dashed"])
def test_noun_glued_to_the_value_by_a_hyphen(noun: str, kind: str) -> None:
    """`cloudplanSECRET-<value>`: the vendor, its noun and the value in one token joined by `-`."""
    vendor = _rnd.choice(_VENDORS)
    secret = _key(kind)
    for glue in ("", "-", "_"):
        text = f"{vendor}{glue}{noun}-{secret}"
        assert _gone(text, secret), text
        assert _gone(f"export CFG={text} && run", secret)


@pytest.mark.parametrize("noun", ["TOKEN", "SECRET", "PRIVATE", "secretkey", "SECRET KEY", "private access key"])
@pytest.mark.parametrize("separator", [" ", "=", ": ", ".", "\n"])
def test_vendor_word_glued_to_a_noun_before_a_value(noun: str, separator: str) -> None:
    """`boxTOKEN <value>`, `eventbrite private access key\\n<value>`: a vendor's word, a noun, the value."""
    vendor = _rnd.choice(_VENDORS)
    secret = _key(_rnd.choice(["mixed", "upper", "hex"]))
    glue = " " if " " in noun else _rnd.choice(["", " ", "_"])
    text = f"{vendor}{glue}{noun}{separator}{secret}"
    assert _gone(text, secret), text


def test_a_made_up_letter_run_after_a_strong_noun() -> None:
    """`vercelTOKEN abcdefghijklmnopqrstuvwx`: a run of letters a person typed as a key is still one."""
    for _ in range(6):
        start = _rnd.randint(0, 6)
        secret = string.ascii_lowercase[start : start + _rnd.randint(16, 20)]
        vendor = _rnd.choice(_VENDORS)
        assert _gone(f"{vendor}TOKEN {secret}", secret)
        assert _gone(f"{vendor} SECRET {secret}", secret)


def test_a_vendor_key_name_takes_letters_with_digits() -> None:
    """`coinlib_key=<letters and digits>`, `Using Key=<value>`: a key named for a vendor, not a data key."""
    for _ in range(6):
        vendor = _rnd.choice(_VENDORS)
        secret = _draw(_rnd.randint(12, 24), string.ascii_lowercase + string.digits)
        assert _gone(f"{vendor}_key={secret}", secret)
        assert _gone(f'{vendor}_key = "{secret}"', secret)
        assert _gone(f"[DEBUG] Using {vendor} Key={secret}", secret)


@pytest.mark.parametrize(
    "text",
    [
        "monkey-{d}",  # a word that ends in a noun
        "turkey {d}",
        "sort_key = {d}",  # data keys
        "cache-key-{d}",
        "partition_key: {d}",
        "public_key {d}",  # a public key, an anti-forgery token
        "csrf-token={d}",
        "secret-volume-{d}",  # a resource named with a hash suffix: the first part is a word
        "token-manager-{d}",
        "app-secret-{short}",  # a generator's 5-character suffix
        "release-token-v2",
        "secret key management is hard",
        "accessKEY-00000000000000000000000000AB",  # filler
        "vendor-token-{words}",
    ],
)
def test_what_stays_searchable(text: str) -> None:
    value = text.format(
        d="release" + str(_rnd.randint(2020, 2030)) + "notes",
        short="".join(_rnd.choice(string.ascii_lowercase + string.digits) for _ in range(5)),
        words="user" + str(_rnd.randint(10, 99)) + "profile",
    )
    assert redact(value) == (value, 0), value
