"""Whispers' classes, by class (found on its fixtures after its one held-out score): a word as the literal
value of a configuration line, a password named by a query parameter, a tool's `--<something>-password`.

Values are drawn from a seed of the test's own name, words and all: a configuration line has no variables,
so a plain word there is the password itself.
"""

from __future__ import annotations

import random
import string

import pytest

from kernel.secrets import redact

_rnd = random.Random(28)


@pytest.fixture(autouse=True)
def _seed_per_test(request: pytest.FixtureRequest) -> None:
    _rnd.seed(f"{request.node.module.__name__}::{request.node.name}")


def _word() -> str:
    return "".join(_rnd.choice(string.ascii_lowercase) for _ in range(_rnd.randint(7, 12)))


def _gone(text: str, secret: str) -> bool:
    redacted, count = redact(text)
    return count > 0 and secret not in redacted


@pytest.mark.parametrize(
    "line",
    [
        "password: {v}",
        "  db_password: {v}",
        "- SSHpassword: {v}",
        "SSHpassword={v}",
        "export API_TOKEN={v}",
        "client_secret: {v}  # rotate yearly",
        "smtp.pass={v}",
    ],
)
def test_a_word_is_the_literal_value_of_a_configuration_line(line: str) -> None:
    value = _word()
    assert _gone(line.format(v=value), value)


@pytest.mark.parametrize(
    "line",
    [
        "password = {v}",
        "password: str",
        "password: String",
        "  token: SecretStr",
        "password: changeme",
        "password: ${{DB_PASS}}",
        "secret_name: {v}",
        "client_secret: CLIENT_SECRET",
        "def f(password: str, user: str):",
        "password_reset_url: {v}",
        "db_password: $${{password}}",  # a Makefile's escaped reference, a template's
        "db_password: ${{{{password}}}}",
        "username: {v}",
    ],
)
def test_code_types_references_and_metadata_stay(line: str) -> None:
    text = line.format(v=_word())
    assert redact(text) == (text, 0), text


def test_a_query_parameter_naming_a_password_takes_any_word() -> None:
    for name in ("userpass", "password", "pwd", "db_pass"):
        value = _word()
        assert _gone(f"GET https://db.example.org/login?user=admin&{name}={value}&x=1", value)
    text = "https://example.com/path/to/something?pass=word"  # too short to be one
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("flag", ["--tlspassword ", "--proxy-tlspassword ", "--http-password=", "--ftp-password="])
def test_any_password_flag_of_a_tool(flag: str) -> None:
    value = _word() + str(_rnd.randint(10, 99))
    assert _gone(f"curl {flag}{value} https://localhost", value)
    kept = f"wget {flag.strip('= ')} https://localhost"  # a flag that asks, followed by the URL
    assert redact(kept) == (kept, 0)


@pytest.mark.parametrize(
    "entry",
    [
        "env:\n  - name: DB_PASSWORD\n    value: {v}",
        '{{"key": "smtp_password", "value": "{v}"}}',
        "<entry>\n  <key>api_token</key>\n  <value>{v}</value>\n</entry>",
        "- key: Password\n  value: '{v}'",
    ],
)
def test_a_value_named_in_the_entry_beside_it(entry: str) -> None:
    """Kubernetes' `- name: DB_PASSWORD` / `value: ...`, a settings list's key and value."""
    value = _word() + str(_rnd.randint(10, 99))
    assert _gone(entry.format(v=value), value)
    kept_entries = (
        "- name: DB_HOST\n  value: {v}",
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {v}",
        '<input type="hidden" name="authenticity_token" value="{v}">',  # an anti-forgery token
    )
    for kept in kept_entries:
        text = kept.format(v=value)
        assert redact(text) == (text, 0), text
