"""Two shapes a peer's corpus showed the detector missing as a class: a key block whose header names the
algorithm but not `PRIVATE` (`-----BEGIN RSA KEY-----`), and a database URL (`jdbc:mysql://`,
`postgresql://`, `mongodb+srv://`) that carries its password in the query (`?user=app&password=...`).
Values are drawn from a seed of the test's own name; the public counterparts must stay.
"""

from __future__ import annotations

import base64
import random
import string

import pytest

from kernel.secrets import redact

_rnd = random.Random(28)


@pytest.fixture(autouse=True)
def _seed_per_test(request: pytest.FixtureRequest) -> None:
    _rnd.seed(f"{request.node.module.__name__}::{request.node.name}")


def _body(n: int = 96) -> str:
    return base64.b64encode(bytes(_rnd.randrange(256) for _ in range(n))).decode()


def _word(n: int = 12) -> str:
    pool = string.ascii_letters + string.digits
    return "".join(_rnd.choice(pool) for _ in range(n - 1)) + _rnd.choice(string.digits)


@pytest.mark.parametrize("algorithm", ["RSA", "DSA", "EC", "OPENSSH"])
@pytest.mark.parametrize("layout", ["one line", "lines", "escaped"])
def test_a_key_block_named_by_its_algorithm_alone_is_redacted(algorithm: str, layout: str):
    body = _body()
    head, tail = f"-----BEGIN {algorithm} KEY-----", f"-----END {algorithm} KEY-----"
    if layout == "one line":
        text = f'"key": "{head}{body}{tail}"'
    elif layout == "lines":
        text = f"key: |\n  {head}\n  {body[:64]}\n  {body[64:]}\n  {tail}\n"
    else:
        text = f'{{"key": "{head}\\n{body[:64]}\\n{body[64:]}\\n{tail}"}}'
    redacted, _ = redact(text)
    assert body[:40] not in redacted and body[-40:] not in redacted, text


@pytest.mark.parametrize("label", ["PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE", "PGP PUBLIC KEY BLOCK"])
def test_public_blocks_stay(label: str):
    body = _body()
    text = f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n"
    assert redact(text)[1] == 0, text


@pytest.mark.parametrize(
    "url",
    [
        "jdbc:mysql://db.internal:3306/orders?user=app&password={pw}",
        "jdbc:postgresql://localhost/authority?user=admin&userpass={pw}",
        "postgresql://db.example/app?sslmode=require&password={pw}",
        "mongodb+srv://cluster0.example.net/test?authSource=admin&pwd={pw}",
        '<bean connectionURL="jdbc:mysql://localhost/a?user=dbuser&amp;userpass={pw}"/>',
    ],
)
def test_a_database_url_with_a_password_in_its_query_is_redacted(url: str):
    pw = _word()
    text = url.format(pw=pw)
    assert pw not in redact(text)[0], text


@pytest.mark.parametrize(
    "text",
    [
        "jdbc:mysql://db.internal:3306/orders?useSSL=true&serverTimezone=UTC",
        "postgresql://db.example/app?sslmode=require&application_name=billing",
        "mongodb://localhost:27017/test?replicaSet=rs0&readPreference=primary",
    ],
)
def test_database_urls_without_credentials_stay(text: str):
    assert redact(text)[1] == 0, text
