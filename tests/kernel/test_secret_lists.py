"""Secrets whose name stands apart from their value: paired by position (`a, b := "x", "y"`), listed under
a name on the line above (`passwords:` then `- "..."`), or wrapped in an element whose name is a short
secret noun (`<pwd>`, `<passphrase>`); and a value that only restates its own name, which stays.

Every secret is drawn from a seed of the test's own name; several names and layouts per class, so a
rule that learned one example fails the others.
"""

from __future__ import annotations

import random
import string

import pytest

from kernel.secrets import redact

_rnd = random.Random(28)
_ALNUM = string.ascii_letters + string.digits


@pytest.fixture(autouse=True)
def _seed_per_test(request: pytest.FixtureRequest) -> None:
    _rnd.seed(f"{request.node.module.__name__}::{request.node.name}")


def _secret(n: int = 14) -> str:
    while True:
        out = "".join(_rnd.choice(_ALNUM) for _ in range(n))
        if any(c.isdigit() for c in out) and any(c.isupper() for c in out) and any(c.islower() for c in out):
            return out


_MULTI = (
    '{a}, {b} := "{x}", "{y}"',
    '\tconst {a}, {b} string = "{x}", "{y}"',
    "{a}, {b} = '{x}', '{y}'",
    'var {a}, {b} = "{x}", "{y}"',
)
_SECRET_NAMES = ("db_password", "apiToken", "client_secret", "static_password02", "signingKey")
_PLAIN_NAMES = ("user", "host", "region", "label")


@pytest.mark.parametrize("template", _MULTI)
@pytest.mark.parametrize("secret_first", [True, False])
def test_values_paired_with_names_by_position_are_redacted_by_their_own_name(template: str, secret_first: bool):
    for name in _SECRET_NAMES:
        plain_name = _rnd.choice(_PLAIN_NAMES)
        plain, secret = "example.org", _secret()
        a, b = (name, plain_name) if secret_first else (plain_name, name)
        x, y = (secret, plain) if secret_first else (plain, secret)
        text = template.format(a=a, b=b, x=x, y=y)
        redacted, _ = redact(text)
        assert secret not in redacted, text
        assert plain in redacted, text  # the other name's value is not a secret


@pytest.mark.parametrize(
    "layout",
    [
        '{name}:\n  - "{v1}"\n  - "{v2}"\n',
        "{name}:\n  - {v1}\n  - {v2}\n",
        "config:\n  {name}:\n    - '{v1}'\n    - '{v2}'\n  other: 1\n",
        '{{\n  "{name}": [\n    "{v1}",\n    "{v2}"\n  ]\n}}',
        '{{"{name}": ["{v1}", "{v2}"]}}',
    ],
)
def test_list_items_under_a_secret_name_on_the_line_above_are_redacted(layout: str):
    for name in ("passwords", "api_tokens", "02_hardcoded_passwords", "secrets", "signing_keys"):
        v1, v2 = _secret(), _secret(20)
        text = layout.format(name=name, v1=v1, v2=v2)
        redacted, _ = redact(text)
        assert v1 not in redacted and v2 not in redacted, text


@pytest.mark.parametrize(
    "text",
    [
        "secrets:\n  - db_password\n  - api_token\n",  # a workflow's secrets by name
        "imagePullSecrets:\n  - name: regcred\n",
        "ssh_authorized_keys:\n  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx0aW5lcw user@host\n",
        "keys:\n  - id\n  - created_at\n",
        'passwords:\n  - ${DB_PASSWORD}\n  - "{{ vault_pw }}"\n',
        "tokens:\n  - xxxxxxxxxxxx\n",
        '{"secrets": ["DB_PASSWORD", "API_TOKEN"]}',
        '{"passwords": [\n  "${DB_PASSWORD}",\n  "{{ vault_pw }}"\n]}',
    ],
)
def test_lists_of_names_references_and_public_keys_stay(text: str):
    assert redact(text)[1] == 0, text


@pytest.mark.parametrize(
    "name", ["pwd", "passphrase", "db_pwd", "keyPassphrase", "pass", "o2_1_passwords", "api_tokens"]
)
def test_a_value_in_an_element_named_by_a_short_secret_noun_is_redacted(name: str):
    secret = _secret()
    text = f"<config>\n  <{name}>{secret}</{name}>\n</config>"
    assert secret not in redact(text)[0], text


@pytest.mark.parametrize("text", ["<passage>Chapter4Opening</passage>", "<bypass>Enabled2024x</bypass>"])
def test_elements_that_only_contain_the_letters_stay(text: str):
    assert redact(text)[1] == 0, text


@pytest.mark.parametrize(
    "text",
    [
        "api.appSecret=apiAppSecret",
        "db.password: dbPassword",
        "signingKey = SIGNING_KEY_",
        "auth.clientSecret=authClientSecret",
    ],
)
def test_a_value_that_restates_its_own_name_stays(text: str):
    assert redact(text)[1] == 0, text


def test_a_value_that_only_begins_with_its_name_is_still_redacted():
    secret = "appSecret" + _secret(12)
    assert secret not in redact(f"api.appSecret={secret}")[0]
