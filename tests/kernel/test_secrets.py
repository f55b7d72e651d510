import re

import pytest

from kernel.secrets import find_secrets, redact

PLANTED = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "github_token": "ghp_" + "a1B2c3D4e5" * 4,
    "openai_api_key": "sk-proj-" + "Zx9" * 10,
    "anthropic_api_key": "sk-ant-api03-" + "Qw8" * 10,
    "slack_token": "xoxb-1234567890-abcdefghij",
    "stripe_key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "gitlab_token": "glpat-" + "xY3_" * 5,
    "npm_token": "npm_" + "AbC123dEf4" * 3 + "GhIjKl",
    "huggingface_token": "hf_" + "AbCdEfGhIj" * 3 + "KlMn",
}


def test_azure_storage_account_keys_in_connection_strings_are_found():
    key = "Zm9v" * 22
    found = find_secrets(f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={key}==;")
    assert [m.kind for m in found] == ["azure_storage_key"]


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_provider_tokens_are_found_by_kind(kind: str):
    text = f"config:\n  value: {PLANTED[kind]}\n"
    found = find_secrets(text)
    assert [(m.kind, text[m.start : m.end], m.line) for m in found] == [(kind, PLANTED[kind], 2)]


def test_private_key_block_is_found_whole():
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----"
    found = find_secrets(f"x\n{block}\ny")
    assert [(m.kind, m.line) for m in found] == [("private_key", 2)]


def test_password_assignments_are_found_but_placeholders_are_not():
    assert [m.kind for m in find_secrets('DB_PASSWORD="hunter2hunter2"')] == ["assignment"]
    for harmless in (
        'password = os.environ["DB_PASSWORD"]',
        "token: ${API_TOKEN}",
        "api_key = <your key>",
        'password="changeme"',
        "secret = get_secret()",
        "password = short",
    ):
        assert find_secrets(harmless) == [], harmless


def test_redact_replaces_only_the_secret_value():
    text = f"export OPENAI_API_KEY={PLANTED['openai_api_key']} # mine"
    redacted, count = redact(text)
    assert count == 1
    assert PLANTED["openai_api_key"] not in redacted
    assert redacted.startswith("export OPENAI_API_KEY=[REDACTED:")
    assert redacted.endswith(" # mine")
    assert redact("nothing here") == ("nothing here", 0)


def test_every_pattern_has_cues_and_cues_never_hide_a_match():
    from kernel.secrets import _CUES, _PATTERNS

    assert {kind for kind, _ in _PATTERNS} == set(_CUES)
    samples = [
        *PLANTED.values(),
        "AIza" + "B" * 35,
        "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4fw",
        "Authorization: Bearer abcdefghijklmnop1234",
        "AWS_SECRET_ACCESS_KEY=" + "a" * 40,
        "client_secret: s3cr3tvalue99",
        "my.auth-token := 'abcdefgh1234'",
        'DB_PASSWORD="hunter2hunter2"',
        "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
    ]
    for sample in samples:
        for kind, pattern in _PATTERNS:
            if pattern.search(sample):
                cues, folded = _CUES[kind]
                if isinstance(cues, re.Pattern):
                    assert cues.search(sample.lower() if folded else sample), (kind, sample)
                else:
                    assert any(cue in (sample.lower() if folded else sample) for cue in cues), (kind, sample)


def test_every_pattern_has_cues_for_the_quick_pre_check():
    from kernel import secrets

    assert {kind for kind, _ in secrets._PATTERNS} == set(secrets._CUES)
