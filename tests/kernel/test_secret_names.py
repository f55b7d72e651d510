"""The keyword rule by class: which names hold a secret, which values under them are one, and the calls,
declarations and directives that assign them; and, for each class, the look-alikes that must stay.

Every secret is generated here from a random body, seeded per test by the test's name (so a value
does not depend on the order xdist runs tests in), and the repository holds no credential-shaped
literal. Each class runs several names through several syntaxes, so a rule that learned one example
fails the others.
"""

from __future__ import annotations

import base64
import itertools
import random
import string

import pytest

from kernel.secrets import find_secrets, redact

_rnd = random.Random(2812)
_ALNUM = string.ascii_letters + string.digits


@pytest.fixture(autouse=True)
def _seed_per_test(request: pytest.FixtureRequest) -> None:
    """Draw each test's values from a seed of its own name, so they do not depend on which tests ran
    before it in the same worker (xdist hands tests out in no fixed order)."""
    _rnd.seed(f"{request.node.module.__name__}::{request.node.name}")


def _r(n: int, alphabet: str = _ALNUM) -> str:
    """n random characters with a digit, an upper and a lower case letter where the alphabet has them."""
    while True:
        out = "".join(_rnd.choice(alphabet) for _ in range(n))
        groups = (string.digits, string.ascii_uppercase, string.ascii_lowercase)
        if n < 3 or all(any(c in out for c in g) for g in groups if any(c in alphabet for c in g)):
            return out


def _word() -> str:
    return "".join(_rnd.choice("bcdfghjklmnprstvz") + _rnd.choice("aeiou") for _ in range(_rnd.randint(2, 4)))


def _gone(text: str, secret: str) -> bool:
    redacted, count = redact(text)
    return count > 0 and secret not in redacted


def _kept(text: str) -> bool:
    return redact(text) == (text, 0)


_SYNTAXES = ('{n} = "{v}"', "{n}: '{v}'", '"{n}": "{v}"', "{n} := `{v}`", "  {n}: {v}", "{n}={v}")

# A secret noun, then words that say whose or which secret it is.
QUALIFIED = ["password_prod", "db_password_primary", "apikey_billing", "secret_backup", "passwordStaging", "token_ci"]
# Glued compounds that end in a key noun (a bare `key` glued, `monkey`, is another word).
GLUED = ["IBMCLOUDIAMAPIKEY", "softlayerapikey", "SLAPIKEY", "awsaccesskey", "jenkinsSecretKey"]


@pytest.mark.parametrize("name", QUALIFIED + GLUED)
def test_a_name_that_begins_or_ends_with_a_secret_noun_holds_a_secret(name: str):
    value = _r(10, _ALNUM) + "!#"
    missed = [s for s in _SYNTAXES if not _gone(s.format(n=name, v=value), value)]
    assert missed == [], (name, missed)


# A secret noun, then a word that makes the name metadata about the secret, with a value such a name has.
METADATA = [
    ("password_reset_url", "https://shop.example.com/account/reset"),
    ("token_count", "12345678"),
    ("secret_name", "prod-db-credentials-v2"),
    ("password_hint", "the first street, then 4"),
    ("secretsmanager_arn", "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod-AbCdEf"),
    ("token_address", "0x6b175474e89094c44da98b954eedeac495271d0f"),
    ("tokenizer_config", "bert-base-uncased-v2"),
    ("passport_number", "X12345678"),
    ("api_key_header", "X-API-Key-2"),
    ("token_endpoint", "https://login.example.com/oauth2/v2.0/token"),
    ("secret_version", "v20240101"),
    ("tokens_used", "128000"),
    ("passwordField", "user_password_2"),
]


@pytest.mark.parametrize(("name", "value"), METADATA, ids=[m[0] for m in METADATA])
def test_a_name_of_metadata_about_a_secret_keeps_its_value(name: str, value: str):
    kept = [s.format(n=name, v=value) for s in _SYNTAXES[:4] if not _kept(s.format(n=name, v=value))]
    assert kept == [], [(t, [m.kind for m in find_secrets(t)]) for t in kept]


@pytest.mark.parametrize("name", ["password", "db_passphrase", "client_secret", "api_key", "SECRET_ACCESS_KEY"])
def test_a_quoted_passphrase_under_a_password_name_is_redacted(name: str):
    phrase = " ".join(_word() for _ in range(_rnd.randint(3, 5)))
    for template in ('{n} = "{v}"', "{n}: '{v}'", '{{"{n}": "{v}"}}'):
        text = template.format(n=name, v=phrase)
        assert _gone(text, phrase), (text, redact(text)[0])


@pytest.mark.parametrize(
    "text",
    [
        '"password": "Mot de passe"',  # a label
        '{"password": "The password must have 12 characters."}',  # a sentence
        'errors = { password: "can\'t be blank" }',  # a validation message
        '{"password": "is too short (minimum is 8 characters)"}',
        'password_label = "enter a password"',
        'token = "not yet issued"',  # a token is never words
        "-e SUMO_ACCESS_KEY=`etcdctl get /sumologic_secret`",  # a command substitution
        'password = "{{ vault_password }}"',
    ],
)
def test_labels_messages_and_templates_under_password_names_stay(text: str):
    assert _kept(text), [m.kind for m in find_secrets(text)]


def _bracketed() -> str:
    """A password with brackets, braces and a closing parenthesis inside (`m{h}o)p[e]...`)."""
    parts = [_r(3), "{", _r(2), "}", _r(2), ")", _r(3), "[", _r(2), "]", _r(3)]
    return "".join(parts)


@pytest.mark.parametrize("template", ["db_pass: {v}", "password = {v}", "secret := {v}", "API_TOKEN={v}"])
def test_an_unquoted_value_reads_on_through_brackets_and_a_symbol_tail(template: str):
    for value in (_bracketed(), _r(6) + ",.:-@*" + _r(4), _r(5) + ";" + _r(5) + "!"):
        text = template.format(v=value) + "\nnext: 1"
        assert _gone(text, value), (text, redact(text)[0])


@pytest.mark.parametrize(
    "text",
    [
        "connect(host, password=pw)",
        "dict(token=tok), rest",
        "{token: t}",
        "login(user, password=pwd, retries=3)",
        'password = ",.:-@*?!"',  # only symbols: a mask or separators
        'password: "vault_db_password"',  # a name that refers to a secret
        'secret: "prod_db_creds"',
    ],
)
def test_code_around_an_unquoted_value_and_name_like_values_stay(text: str):
    assert _kept(text), [m.kind for m in find_secrets(text)]


@pytest.mark.parametrize(
    "template",
    [
        'password = @"{v}";',  # C#, Objective-C
        'secret = r"{v}"',  # Python raw, bytes and unicode literals
        "api_token = b'{v}'",
        'char password[32] = "{v}";',
        'secret[] = "{v}";',
        'password "{v}";',  # a directive or DSL call that starts its line
        '  auth_password "{v}"',
    ],
)
def test_literals_with_a_prefix_declarations_and_directives_are_redacted(template: str):
    value = _r(12) + "-" + _r(4)
    assert _gone(template.format(v=value), value), redact(template.format(v=value))[0]


@pytest.mark.parametrize("word", ["My", "your", "Some", "example", "insert", "Sample"])
def test_a_generated_value_that_begins_with_a_stand_in_word_is_still_a_secret(word: str):
    # a placeholder is a stand-in word and more words (`my-password`, `YOUR_API_KEY_HERE`), not a random tail
    value = word + "XY5I1RqA0t-bUY7"
    for template in ('password = "{v}"', 'secret[] = "{v}";', 'password "{v}";'):
        assert _gone(template.format(v=value), value), redact(template.format(v=value))[0]


@pytest.mark.parametrize("text", ['password = "my-password"', "api_key: YOUR_API_KEY_HERE", 'token = "example123"'])
def test_stand_in_words_followed_by_words_stay_placeholders(text: str):
    assert redact(text)[0] == text


@pytest.mark.parametrize(
    "template",
    [
        'DataSource.builder().url(u).password("{v}").build()',
        'client.setApiKey("{v}");',
        'conn.set_password("{v}")',
        'cfg.with_token("{v}")',
        'keyring.set_password("billing", "deploy", "{v}")',
        'std::string secret("{v}");',
        'secret.assign("{v}", 17);',
    ],
)
def test_secret_named_setters_builders_and_constructors_given_a_literal_are_redacted(template: str):
    value = _r(10) + "#" + _r(3)
    assert _gone(template.format(v=value), value), redact(template.format(v=value))[0]


@pytest.mark.parametrize(
    "text",
    [
        'client = boto3.client("secretsmanager"); s = client.get_secret("prod/db-2")',
        'user.getPassword("deploy2")',
        '.withSecretName("db-secret-v2")',
        'std::string password_prompt("Enter password: ");',
        'log.info("token refreshed 3 times")',
        'kubectl get secret "db-creds-2" -o yaml',
        "kubectl describe secret 'tls-cert-2024'",
    ],
)
def test_getters_names_of_secrets_and_commands_about_them_stay(text: str):
    assert _kept(text), [m.kind for m in find_secrets(text)]


def test_a_base64_user_and_password_under_an_auth_name_is_redacted():
    for user in ("deploy", "ci-bot", _word()):
        auth = base64.b64encode(f"{user}:{_r(16)}".encode()).decode()
        for text in (
            f'{{"auths": {{"registry.example.com": {{"auth": "{auth}"}}}}}}',
            f'user_auth = "{auth}"',
            f'\\"auth\\": \\"{auth}\\"',  # inside a JSON string
        ):
            assert _gone(text, auth), text
    no_colon = base64.b64encode(b"no colon here").decode()
    for text in ('{"auth": "oauth2"}', f'{{"auth": "{no_colon}"}}'):
        assert _kept(text), text


@pytest.mark.parametrize(
    "text",
    [
        'const keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="',
        'SECRET_CHARSET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"',
        '{"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}',  # the documentation example
        "<p>a token looks like <code>hf_xxxxx</code> or <code>api_org_XXXXXXXXXXXXXXXX</code></p>",
    ],
)
def test_alphabets_documentation_examples_and_placeholders_in_markup_stay(text: str):
    assert _kept(text), [m.kind for m in find_secrets(text)]


def test_a_token_inside_markup_in_prose_is_redacted():
    value = _r(24)
    text = f"<p>the token is <code>{value}</code> for now</p>"
    assert _gone(text, value), redact(text)[0]


def test_a_short_body_after_a_word_and_a_dash_is_a_secret_not_a_placeholder():
    for _ in range(5):
        value = _word() + "-" + _r(4)
        text = f'.password("{value}x")'
        assert _gone(f'password = "{value}"', value) and _gone(text, value), value


@pytest.mark.parametrize(
    "template",
    [
        "acme token = '{v}' | '{v}'",  # a value listed twice
        'export API_TOKEN="{v}"\n$ echo $API_TOKEN\n{v}',  # echoed back by a command
        '{{"password": "{v}", "confirm": "{v}"}}',
        "DB_PASSWORD={v}\nthe login failed with {v} as the password",
    ],
)
def test_every_copy_of_a_value_found_as_a_secret_is_redacted(template: str):
    value = _r(14) + "-" + _r(6)
    text = template.format(v=value)
    redacted, count = redact(text)
    assert value not in redacted and count == text.count(value), redacted


def test_a_short_secret_is_not_hunted_through_the_rest_of_the_text():
    text = "PGPASSWORD=abc123 psql -h db\nthe abc123 build passed"
    redacted, _ = redact(text)
    assert "the abc123 build passed" in redacted and "PGPASSWORD=abc123" not in redacted


def _base36(n: int, alphabet: str) -> str:
    """n random characters of one case with digits strewn through them, as a key generator prints."""
    while True:
        out = "".join(_rnd.choice(alphabet) for _ in range(n))
        changes = sum(a.isdigit() != b.isdigit() for a, b in itertools.pairwise(out))
        if sum(c.isdigit() for c in out) >= 0.2 * n and changes >= n // 3:
            return out


@pytest.mark.parametrize("name", ["Key", "KEY", "api key", "adzuna KEY", "license_key"])
@pytest.mark.parametrize("alphabet", [string.ascii_lowercase + string.digits, string.ascii_uppercase + string.digits])
def test_a_generated_key_in_one_case_under_a_bare_key_name_is_redacted(name: str, alphabet: str):
    value = _base36(32, alphabet)
    missed = [s for s in ("Using {n}={v}", "{n}: {v}", '{n} = "{v}"') if not _gone(s.format(n=name, v=value), value)]
    assert missed == [], (name, missed)


@pytest.mark.parametrize(
    "text",
    [
        "cache_key = user42profile2024settings",
        "sort_key: created_at_2021_v2",
        "primary_key: order_id_12345678901234",
        "key=release2024build17final",
        "partition_key: TENANT2024REGION7EUWEST",
        "public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
        "pub_key = npub1x7k2m9q4w8e3r6t5y0u2i7o9p1a3s5d8f0g2h4j6k8l",
    ],
)
def test_names_with_numbers_in_them_under_a_key_name_stay(text: str):
    assert _kept(text)


@pytest.mark.parametrize("vendor", ["neutrinoapi", "plivo", "swell", "acme"])
@pytest.mark.parametrize("noun", ["token", "key", "secret", "password"])
def test_a_quoted_value_after_a_secret_noun_and_a_dash_is_redacted(vendor: str, noun: str):
    value = _r(28, _ALNUM + "-_")
    for text in (f"{vendor} {noun} - '{value}'", f'{vendor} {noun} - "{value}"\n'):
        assert _gone(text, value), text


@pytest.mark.parametrize(
    "text",
    [
        "the token - 'refresh' is sent back",
        "key - 'primary'",
        "- password - 'see the vault'",
        "token -'x'",
        "secret - 'rotate-monthly'",
        "key - 'name'",
    ],
)
def test_words_after_a_secret_noun_and_a_dash_stay(text: str):
    assert _kept(text)


@pytest.mark.parametrize("quote", ['"', "'"])
@pytest.mark.parametrize("pad", [" ", "  ", "\t", " \n"])
def test_a_quoted_secret_padded_with_whitespace_is_redacted(quote: str, pad: str):
    value = _r(40)
    for name in ("formio_secret", "api_token", "password"):
        text = f"{name} = {quote}{pad}{value}{pad.strip(chr(10))}{quote}"
        assert _gone(text, value), text


def test_a_padded_phrase_under_a_secret_name_is_still_read_as_a_phrase():
    assert _kept('secret_name = " rotate the key monthly "')


@pytest.mark.parametrize("element", ["secret", "password", "apiToken", "privateKey"])
def test_a_jenkins_encrypted_credential_in_braces_is_redacted(element: str):
    body = "AQAAABAAAAAQ" + _r(44, _ALNUM + "+/") + "="
    words = f"{_word()} AQAAABAAA {_r(32)}"
    for value in (body, words):
        text = (
            "<com.cloudbees.plugins.credentials.impl.StringCredentialsImpl>\n  <scope>GLOBAL</scope>\n"
            f"  <id>{{{_word()}}}</id>\n  <{element}>{{{value}}}</{element}>\n"
            "  <description>deploy</description>\n</com.cloudbees.plugins.credentials.impl.StringCredentialsImpl>"
        )
        redacted, count = redact(text)
        assert count > 0 and all(w not in redacted for w in value.split() if len(w) >= 20), text
        assert "<scope>GLOBAL</scope>" in redacted and "<description>deploy</description>" in redacted


@pytest.mark.parametrize(
    "text",
    [
        "<secret>{name}</secret>",
        "<key>{projectKey}</key>",
        "<password>{{ vault_password }}</password>",
        "<token>{ see the admin page }</token>",
        "<secretKey>${SECRET_KEY}</secretKey>",
    ],
)
def test_references_and_words_in_braces_inside_secret_elements_stay(text: str):
    assert _kept(text)


@pytest.mark.parametrize("groups", [4, 5])
def test_a_generated_key_in_dashed_groups_under_a_key_name_is_redacted(groups: int):
    value = "-".join(_base36(8, string.ascii_uppercase + string.digits) for _ in range(groups))
    for text in (f"Using Key={value}", f"license_key: {value}"):
        assert _gone(text, value), text


@pytest.mark.parametrize("name", ["LicenseKey", "Password", "ApiToken", "secret"])
def test_a_generated_value_after_a_secret_name_starting_its_line_is_redacted(name: str):
    value = _r(36, _ALNUM + "_")
    text = f"# {name} is from your account page\n{name} {value}\nAccountID 123456\n"
    redacted, count = redact(text)
    assert count > 0 and value not in redacted and "AccountID 123456" in redacted, text


@pytest.mark.parametrize(
    "text",
    [
        "PasswordAuthentication no",
        "PubkeyAcceptedKeyTypes ssh-ed25519,rsa-sha2-512",
        "HostKey /etc/ssh/ssh_host_ed25519_key",
        "SSLCertificateKeyFile conf/Server2024Key.pem",
        "Token usage is shown below",
        "token count 12345",
        "Key Features of v2",
        "Secret santa2024 list",
        "primary_key: order-2024-item-17-final-v2-batch-9",
        "key=2021-01-05-release-notes-v3",
    ],
)
def test_settings_and_prose_after_a_secret_name_starting_its_line_stay(text: str):
    assert _kept(text)
