import pytest

from kernel.secrets import find_secrets, redact

PLANTED = {
    "aws_access_key_id": "AKIA" + "Q7RSTUVWXYZ23456",
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


def test_code_that_names_tokens_is_not_a_secret():
    for code in (
        "this.tokens = Math.min(this.burst, this.tokens + elapsed * this.rate);",
        "api_key = settings.OPENAI_API_KEY",
        "password: string;",
        "token = token",
    ):
        assert redact(code) == (code, 0), code


def test_credentials_inside_urls_are_redacted_in_any_scheme_and_context():
    password = "Qz8" + "vLp2Wn4Rt6"
    for scheme in ("postgres", "mysql", "mongodb+srv", "redis", "amqp", "https"):
        for template in ("DATABASE_URL={u}", '{{"dsn": "{u}"}}', "psql '{u}' -c 'select 1'", "see {u} for the db"):
            text = template.format(u=f"{scheme}://app:{password}@db.internal:5432/shop")
            redacted, count = redact(text)
            assert count == 1 and password not in redacted and "db.internal" in redacted, text


def test_a_bare_aws_secret_after_a_key_id_in_prose_is_redacted():
    key_id, secret = "AKIA" + "Q7RSTUVWXYZ23456", "wJalrXUtnF" + "EMI/K7MDENG/bPxRfiCY" + "9x2Kq4Lm0Z"
    redacted, count = redact(f"use {key_id} with secret {secret} for the bucket")
    assert count == 2 and key_id not in redacted and secret not in redacted


def test_the_detector_knows_at_least_sixty_formats():
    from kernel.secret_formats import FORMATS

    assert len({kind for kind, _ in FORMATS}) >= 60
