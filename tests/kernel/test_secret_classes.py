"""The secret detector by class: shapes without a prefix, wider contexts, limits, and what must stay.

Every secret here is generated from a seeded random body, at import or, inside a test, from a seed of
the test's own name (no credential-shaped literal in the repository). Each class gets several cases,
so a rule that learned one example fails the others.
The contexts test runs every format sample of `secret_corpus` through assignments as a dozen
languages and config formats write them, so a clean clone tests every family.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
import string

import pytest

from kernel.secrets import KINDS, find_secrets, redact
from tests.kernel.secret_corpus import FORMAT_SAMPLES

_rnd = random.Random(28)
_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_UP = string.ascii_uppercase + string.digits


@pytest.fixture(autouse=True)
def _seed_per_test(request: pytest.FixtureRequest) -> None:
    """Draw each test's values from a seed of its own name, so they do not depend on which tests ran
    before it in the same worker (xdist hands tests out in no fixed order)."""
    _rnd.seed(f"{request.node.module.__name__}::{request.node.name}")


def _r(n: int, alphabet: str = _ALNUM) -> str:
    while True:
        out = "".join(_rnd.choice(alphabet) for _ in range(n))
        if not any(c.isdigit() for c in alphabet) or any(c.isdigit() for c in out):
            return out


def _gone(text: str, secret: str) -> bool:
    redacted, count = redact(text)
    return count > 0 and secret not in redacted


_B64_PASSWORD = _r(12)

# (name, text, the secret that must be gone)
SHAPES = [
    ("slack webhook", "POST https://hooks.slack.com/services/T{a}/B{b}/{c} -d @msg.json", None),
    ("slack webhook in json", '{{"url": "https://hooks.slack.com/services/T{a}/B{b}/{c}"}}', None),
    ("discord webhook", "webhook: https://discord.com/api/webhooks/{d}/{e}", None),
    ("rpc key in path", "ETH_RPC=https://eth-mainnet.g.alchemy.com/v2/{f}", None),
    ("rpc key, hex", "curl https://mainnet.infura.io/v3/{h32} -d '{{}}'", None),
    ("azure sas sig", "https://acct.blob.core.windows.net/c/x.csv?sv=2022-11-02&sp=r&sig={g}%3D", None),
    ("api key query", "GET https://api.example.net/v1/quote?symbol=ACME&api_key={f}", None),
    ("generated query value", "https://files.example.org/dl?id=7&k={g}", None),
    ("sentry dsn user", "SENTRY_DSN=https://{h32}@o4504.ingest.sentry.io/4505", None),
    ("ssws header", 'curl -H "Authorization: SSWS 00{i}" https://acme.okta.com/api/v1/users', None),
    ("ssws bare", "okta wants SSWS 00{i} in the header", None),
    ("apr1 hash", "admin:$apr1${salt}${apr}", None),
    ("bcrypt hash in htpasswd", "deploy:$2y$10${bcrypt}", None),
    ("sha512 crypt", "root:$6${salt}${sha}:19000:0:99999:7:::", None),
    ("twilio account sid", "the account is AC{h32}, region us1", None),
    ("telegram token glued to bot", "https://api.telegram.org/botbot{tg}/sendMessage", None),
    ("telegram token in path", "curl https://api.telegram.org/bot{tg}/getMe", None),
]
CONTEXTS = [
    ("name ending _key", "routing_key: {h32}", "{h32}"),
    ("name ending -data", "    client-key-data: {b64}", "{b64}"),
    ("name ending _sid", "TWILIO_ACCOUNT_SID={sid}", "{sid}"),
    ("positional arguments", 'const client = algoliasearch("APPID42", "{h32}");', "{h32}"),
    ("positional, python", 'pusher = Client(app_id="1", key="k", secret_client("{f}"))', "{f}"),
    ("default of an env lookup", 'SECRET_KEY = env("DJANGO_SECRET_KEY", default="{pw}")', "{pw}"),
    ("getenv fallback", 'token = os.getenv("API_TOKEN", "{f}")', "{f}"),
    ("sqlcmd -P", "sqlcmd -S db -U sa -P '{pw}' -Q 'select 1'", "{pw}"),
    ("ssh-keygen -N", "ssh-keygen -t ed25519 -N '{pw}' -f deploy_key", "{pw}"),
    ("ssh-keygen -P", "ssh-keygen -p -P {pw} -N '' -f deploy_key", "{pw}"),
    ("mysql -p glued", "mysql -u root -p{pw} shop < dump.sql", "{pw}"),
    ("PGPASSWORD", "PGPASSWORD={short} psql -h db -U app", "{short}"),
    ("header without a colon", 'proxy_set_header Authorization "Basic {basic}";', "{basic}"),
    ("curl -H without a colon", "curl -H 'Authorization Bearer {f}' https://api.example.com", "{f}"),
    ("generator output", "$ openssl rand -base64 32\n{b64s}\n$ echo done", "{b64s}"),
    ("python generator output", '$ python -c "import secrets; print(secrets.token_hex(24))"\n{h48}\n', "{h48}"),
    ("password with parentheses", 'DB_PASSWORD="p(a)ss{pw}!"', "p(a)ss{pw}!"),
    ("password with parentheses, yaml", "password: Zx(9)qL#{pw}", "Zx(9)qL#{pw}"),
    ("long quoted token", '"session_token": "{long}"', "{long}"),
    ("dollar in a bearer token", "Authorization: Bearer access_token${c}$production${f}", "{f}"),
    ("typed go declaration", 'var stripeToken string = "{f}"', "{f}"),
    ("makefile assignment", "API_TOKEN ?= {f}", "{f}"),
    ("php concatenation", '$apiToken .= "{f}";', "{f}"),
    ("java property", 'System.setProperty("SERVICE_TOKEN", "{f}");', "{f}"),
    ("xml element", "<authToken>\n  {f}\n</authToken>", "{f}"),
    ("kotlin typed", 'val apiToken: String = "{f}"', "{f}"),
    ("compared with a literal", 'if (api_key == "{f}") {{', "{f}"),
    ("literal compared with a name", 'if ("{pw}" !== db_password) {{', "{pw}"),
]
KEEP = [
    "$ grep -rn 'BEGIN RSA PRIVATE KEY' .\n./check.py:12: if '-----BEGIN RSA PRIVATE KEY-----' in text:\nthen gateway",
    "HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "export GITHUB_TOKEN=gho_************************************",
    "REPLICATE_API_TOKEN=r8_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    'SECRET_KEY = "test-only-not-secret"',
    'API_TOKEN = "not-a-real-token-for-tests"',
    "# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
    'public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG3rm4vLbc0q9oJwqjNqyTLm1q4c9hVlAz8Xq5JvGxXc"',
    "ssh -i ~/.ssh/id_ed25519 deploy@host",
    "the key ~/.ssh/id_ed25519 is loaded",
    "private_key_file: secrets/deploy.pem",
    'fetch(url, { credentials: "include" })',
    "type Signer struct {\n\tkey *ecdsa.PrivateKey\n}",
    "func sign(key *rsa.PrivateKey) error {",
    "https://github.com/acme/shop/commit/3f9a2b4c5d6e7f8091a2b3c4d5e6f708192a3b4c",
    "https://docs.google.com/document/d/1W7KCxOxP-1Fy5EyF2lbJGE2WuKmu5v0suYqoHas1jRM/edit",
    "https://example.com/search?q=where+did+we+leave+off&page=2",
    "https://www.notion.so/acme/Quarterly-Planning-Notes-1bc826ecc0994dd8915be97fc3489cde",
    "sort_key: created_at",
    "primary_key: id",
    "the cache_key was user_123_profile",
    "ORDER BY partition_key",
    "api_key = os.getenv('API_KEY')",
    "password = get_password(user)",
    "this.tokens = Math.min(this.burst, this.tokens + elapsed * this.rate);",
    "run `openssl rand -hex 32` to make one",
    "the build takes 3 minutes\n$ pwgen\nusage: pwgen [options]",
    "curl -u <user:password> https://test.example.com/endpoint",
    "SUMO_ACCESS_KEY=${SUMO_ACCESS_KEY:=$2}",
    "Authorization: Bearer ${TOKEN}",
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    'if (token == "") {',
    'if password == "changeme":',
    'if (key == "Enter") {',
    'if (event.key === "Escape") {',
]


def _values() -> dict[str, str]:
    basic = base64.b64encode(f"deploy:{_B64_PASSWORD}".encode()).decode()
    return {
        "a": _r(8, _UP),
        "b": _r(10, _UP),
        "c": _r(24),
        "d": _r(18, string.digits),
        "e": _r(68, _ALNUM + "_-"),
        "f": _r(32, _ALNUM + "_-"),
        "g": _r(40),
        "h32": _r(32, _HEX),
        "h48": _r(48, _HEX),
        "i": _r(40, _ALNUM + "_-"),
        "salt": _r(8, _ALNUM + "./"),
        "apr": _r(22, _ALNUM + "./"),
        "bcrypt": _r(53, _ALNUM + "./"),
        "sha": _r(86, _ALNUM + "./"),
        "tg": f"{_r(10, string.digits)}:AA{_r(33, _ALNUM + '_-')}",
        "b64": base64.b64encode(_rnd.randbytes(90)).decode(),
        "b64s": base64.b64encode(_rnd.randbytes(32)).decode(),
        "sid": "AC" + _r(32, _HEX),
        "pw": _r(14, _ALNUM + "!#%^*-"),
        "short": _r(6),
        "basic": basic,
        "long": _r(700, _ALNUM + "_-."),
    }


VALUES = _values()


@pytest.mark.parametrize(("name", "template", "_"), SHAPES, ids=[s[0] for s in SHAPES])
def test_secrets_known_by_their_shape_are_redacted(name: str, template: str, _: None):
    text = template.format(**VALUES)
    redacted, count = redact(text)
    assert count >= 1, (name, text)
    planted = [v for k, v in VALUES.items() if "{" + k + "}" in template and len(v) >= 16 and not v.isdigit()]
    assert [v for v in planted if v in redacted] == [], (name, redacted)


@pytest.mark.parametrize(("name", "template", "secret"), CONTEXTS, ids=[c[0] for c in CONTEXTS])
def test_secrets_in_wider_contexts_are_redacted(name: str, template: str, secret: str):
    text, value = template.format(**VALUES), secret.format(**VALUES)
    assert _gone(text, value), (name, redact(text)[0])


@pytest.mark.parametrize("text", KEEP)
def test_lookalikes_placeholders_and_code_are_left_alone(text: str):
    assert redact(text) == (text, 0), [m.kind for m in find_secrets(text)]


def test_an_unterminated_private_key_covers_its_body_lines_never_the_rest_of_the_text():
    body = "\n".join(base64.b64encode(_rnd.randbytes(48)).decode() for _ in range(3))
    text = f"$ head -4 key.pem\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n$ echo the gateway is fine"
    redacted, count = redact(text)
    assert count == 1 and body.splitlines()[0] not in redacted and "the gateway is fine" in redacted


def test_a_secret_nested_in_json_strings_at_any_depth_is_redacted():
    key_id, private_key = _r(40, _HEX), _r(64, _ALNUM + "+/")
    inner = json.dumps({"type": "service_account", "private_key_id": key_id, "client_secret": private_key})
    arguments = json.dumps({"file_path": "sa.json", "content": inner})
    record = json.dumps({"type": "function_call", "arguments": arguments})  # three levels of escaping
    for text in (inner, arguments, record):
        redacted, _ = redact(text)
        assert key_id not in redacted and private_key not in redacted, text[:80]


_LANGUAGE_CONTEXTS = (
    'DEPLOY_TOKEN="{s}"',  # shell, dotenv
    "deploy_token: {s}",  # yaml
    "deploy_token: '{s}'",
    '{{"deploy_token": "{s}"}}',  # json
    '{{"config.env": "DEPLOY_TOKEN={s}\\nDEBUG=1"}}',  # an env file inside a JSON string
    "deployToken := `{s}`",  # go
    'var deployToken string = "{s}"',
    'String deployToken = "{s}";',  # java, c#
    "deploy_token = '{s}'",  # python
    "DEPLOY_TOKEN ::= {s}",  # make
    '$deployToken .= "{s}";',  # php
    '  "deployToken" => "{s}"',  # ruby, logstash
    'System.setProperty("DEPLOY_TOKEN", "{s}")',
    "<deployToken>{s}</deployToken>",  # xml
    "deploy_token = {s}",  # ini, toml unquoted
)


@pytest.mark.parametrize("label", sorted(FORMAT_SAMPLES))
def test_every_format_is_redacted_in_every_language_context(label: str):
    secret = FORMAT_SAMPLES[label]
    missed = [c for c in _LANGUAGE_CONTEXTS if not _gone(c.format(s=secret), secret)]
    assert missed == [], (label, missed)


def test_every_format_has_a_sample_and_every_kind_is_declared():
    from kernel.secret_formats import FORMATS

    assert {kind for kind, _ in FORMATS} <= {label.split("/")[0] for label in FORMAT_SAMPLES}
    assert len(set(KINDS)) == len(KINDS)


@pytest.mark.parametrize(
    "template",
    [
        "keytool -list -keystore k.jks -storepass {pw}",
        "mongosh -u admin -p {pw} shop",
        "openssl pkcs12 -in a.p12 -passin pass:{pw}",
        "Connect-AzAccount -ServicePrincipal -ClientSecret {pw}",
        "New-Item -Password {pw} -Name svc",
    ],
)
def test_tool_flags_that_take_passwords_are_redacted(template: str):
    value = VALUES["pw"].replace("!", "x")
    assert _gone(template.format(pw=value), value), redact(template.format(pw=value))


def _letters_only(n: int) -> str:
    """A generator's draw that happens to hold no digit: both cases strewn through each other."""
    while True:
        out = "".join(_rnd.choice(string.ascii_letters) for _ in range(n))
        changes = sum(a.isupper() != b.isupper() for a, b in itertools.pairwise(out))
        if changes >= n / 3 and min(sum(c.isupper() for c in out), sum(c.islower() for c in out)) >= n / 4:
            return out


@pytest.mark.parametrize("template", ["api key - '{v}'", 'routing_key: "{v}"', "Using Key={v}", "sid = {v}"])
@pytest.mark.parametrize("digits", [0, 1])
def test_a_generated_value_with_one_digit_or_none_under_a_key_name_is_redacted(template: str, digits: int):
    value = _letters_only(28)
    if digits:
        at = _rnd.randrange(1, 27)
        value = value[:at] + _rnd.choice(string.digits) + value[at + 1 :]
    assert _gone(template.format(v=value), value), redact(template.format(v=value))


@pytest.mark.parametrize(
    "text",
    [
        "sort_key: getUserAccountSettingsForAdminPanel",
        "cache_key = XMLHttpRequestHandlerFactoryBean",
        "key: HTTPSConnectionPoolAdapterConfig",
    ],
)
def test_camel_case_words_under_a_key_name_stay(text: str):
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("unit", ["asdf", "qwe", "ABCD", "xy"])
def test_a_few_characters_typed_over_and_over_stay(unit: str):
    text = f'secret = "{unit * (36 // len(unit))}"'
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("name", ["bannerBearToken :=", "auth_token =", "apiKey:"])
@pytest.mark.parametrize("scheme", ["Bearer", "Token"])
def test_a_header_value_kept_in_a_secret_named_variable_is_redacted(name: str, scheme: str):
    token = _r(32, string.ascii_letters + string.digits)
    text = f'{name} "{scheme} {token}"'
    assert _gone(text, token), redact(text)


@pytest.mark.parametrize(
    "text", ['token = "Bearer ${TOKEN}"', 'auth_token = "Bearer <your token>"', 'apiKey: "Token xxxxxxxxxxxxxxxxxxxx"']
)
def test_a_header_value_of_a_reference_in_a_secret_named_variable_stays(text: str):
    assert redact(text) == (text, 0)


def _storage_key() -> str:
    return base64.b64encode(_rnd.randbytes(64)).decode()


@pytest.mark.parametrize(
    "template",
    [
        "AzureStorageCleanup.exe -storagename acct -storagekey {k}",
        "assert.equal(parsed['AccountKey'], '{k}');",
        '// the default key of the emulator\nstatic const std::string Key{{"{k}"}};',
        'export const key =\n  process.env.ACCOUNT_KEY ||\n  "{k}";',
    ],
)
def test_a_storage_account_key_after_a_word_that_names_a_key_is_redacted(template: str):
    key = _storage_key()
    assert _gone(template.format(k=key), key), redact(template.format(k=key))


def test_a_hash_of_the_same_length_stays():
    text = f'"integrity": "sha512-{_storage_key()}", "key": "lodash"'
    assert redact(text) == (text, 0)


def test_an_aws_session_token_beside_its_key_id_is_redacted():
    key_id = "ASIA" + _r(16, _UP)
    token = base64.b64encode(_rnd.randbytes(180)).decode().rstrip("=")
    for text in (
        f"aws credentials{{\n  id: {key_id}\n  session: {token}\n}}",
        f"<id>{{{key_id}}}</id>\n<session>{{AQAAABAAA {token}}}</session>",
    ):
        assert _gone(text, token), redact(text)


def test_a_key_after_a_vendor_prefix_in_a_url_path_is_redacted():
    key = "pri_" + _r(32, _HEX)
    text = f'url := "https://api.example.com/v1/venues/keys/{key}"'
    assert _gone(text, key), redact(text)


@pytest.mark.parametrize(
    "template",
    [
        "os.environ[\"OPENAI_API_KEY\"] = '{v}'",  # a subscript names the secret
        "config['db_password'] = \"{v}\"",
        "ACRPWD={v}",  # `pwd` glued to the end of a name
        "MYSQL_ROOTPWD: {v}",
    ],
)
def test_a_secret_named_by_a_subscript_or_a_glued_pwd_is_redacted(template: str):
    value = _r(24, _ALNUM + "+/")
    assert _gone(template.format(v=value), value), redact(template.format(v=value))


def test_a_vault_secret_id_is_redacted_and_its_role_id_and_names_stay():
    secret_id = f"{_r(8, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(4, _HEX)}-{_r(12, _HEX)}"
    for text in (f"secret_id = '{secret_id}'", f"VAULT_SECRET_ID={secret_id}", f'"secret_id": "{secret_id}"'):
        assert _gone(text, secret_id), redact(text)
    for text in ("secret_id: prod-db-credentials", "role_id = 'billing-reader'", "secretId: keyvault-secret-name"):
        assert redact(text) == (text, 0), text


def test_an_env_value_joined_by_ampersands_is_redacted_whole():
    sig = _r(40, _ALNUM)
    text = f"AZURE_BLOB_SAS_TOKEN=sp=r&st=2025-03-04T07:24:52Z&se=2025-04-04T15:24:52Z&sv=2022-11-02&sig={sig}\nNEXT=1"
    assert _gone(text, sig) and _gone(text, "sp=r&st=2025"), redact(text)
    kept = "sleep 10 & TOKEN=$TOKEN ./run.sh"
    assert redact(kept) == (kept, 0)


def test_a_quoted_password_of_strong_words_with_spaces_is_redacted():
    value = f"{_r(6)}+{_r(4, string.digits)} {_r(3)}@{_r(4)}"
    for text in (f'couchbase_password: "{value}"', f"DB_PASSWORD='{value}'"):
        assert _gone(text, value), redact(text)
    for text in (
        'password: "Enter 8+ chars"',
        'password = "at least 12 chars, 1 digit"',
        'password: "Min 8 chars!"',
    ):
        assert redact(text) == (text, 0), text


def test_a_lowercase_random_key_with_few_vowels_under_a_key_name_is_redacted():
    consonants = "bcdfghjklmnpqrstvwxz"
    value = "".join(_rnd.choice(consonants + "0123456789" + "aeo") for _ in range(32))
    text = f"[DEBUG] Using Key={value}"
    assert _gone(text, value), redact(text)
    for text in ("sort_key: user42profile2024settings", "cache_key = release2024candidate3build"):
        assert redact(text) == (text, 0), text


@pytest.mark.parametrize("pair", ["user:pass", "username:password", "admin:secret"])
def test_a_documented_stand_in_pair_in_base64_auth_stays(pair: str):
    text = '{"auths":{"registry.example.com":{"auth":"' + base64.b64encode(pair.encode()).decode() + '"}}}'
    assert redact(text) == (text, 0)


def test_a_teams_webhook_of_words_stays():
    text = "webhook = 'https://contoso.webhook.office.com/webhookb2/not-a-v2-url'"
    assert redact(text) == (text, 0)


def test_a_maven_master_password_in_braces_is_redacted():
    value = _r(64, _ALNUM + "+/")
    text = f"<settingsSecurity>\n  <master>{{{value}}}</master>\n</settingsSecurity>"
    assert _gone(text, value), redact(text)


def test_a_url_whose_password_is_its_user_stays():
    for text in ("postgresql://user:user@localhost/db", "amqp://guest:guest@rabbit:5672/"):
        assert redact(text) == (text, 0), text


def test_a_jwt_whose_claims_are_not_json_is_redacted():
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    token = f"{header}.{_r(120, _ALNUM + '_-')}.{_r(43, _ALNUM + '_-')}"
    text = f"Authorization header was {token} in the log"
    assert _gone(text, token), redact(text)


# ---------------------------------------------------------------- issue 28, seventh round (semgrep-rules, secretlint)


@pytest.mark.parametrize(
    "template",
    ["{w}sk_v{n}_{body}", "{w}_live_{body}", "{w}_test_{body}", "{w}_api_{body}", "{w}_prod_key_{body}", "sk_{body}"],
)
def test_a_vendor_prefix_that_marks_a_key_before_a_drawn_body_is_redacted(template: str):
    word = "".join(_rnd.choice(string.ascii_lowercase) for _ in range(_rnd.randint(3, 6)))
    token = template.format(w=word, n=_rnd.randint(1, 3), body=_r(_rnd.randint(22, 40)))
    for text in (f"export ACME={token}", f"the new key is {token} for staging", f'{{"k": "{token}"}}'):
        assert _gone(text, token), redact(text)


@pytest.mark.parametrize(
    "prefix", ["msg_01", "req_011", "toolu_01", "call_", "cus_", "chatcmpl_", "evt_1", "pk_live_", "v1_", "test_"]
)
def test_an_api_objects_id_or_a_publishable_key_of_a_prefix_and_a_drawn_body_stays(prefix: str):
    text = f"tool result for {prefix}{_r(24)} returned 3 files"
    assert redact(text) == (text, 0), redact(text)


def test_camel_case_words_after_a_key_marking_prefix_stay():
    for text in ("def test_ParseUserAccountSettings2Quickly3(): ...", "api_HandleRequestsForTenant2Account"):
        assert redact(text) == (text, 0), text


@pytest.mark.parametrize("key", ["_auth", "_authToken", "_password"])
def test_an_npmrc_credential_is_redacted_whatever_it_looks_like(key: str):
    pool = ["correct", "horse", "battery", "staple", "violet", "delta"]
    words = "".join(w.capitalize() for w in _rnd.sample(pool, 4))
    for value in (words, _r(32), base64.b64encode(f"ci:{_r(10)}".encode()).decode()):
        for text in (f"{key} = {value}", f"//registry.example.com/npm/:{key}={value}"):
            assert _gone(text, value), redact(text)
    for text in (f"//registry.npmjs.org/:{key}=${{NPM_TOKEN}}", f"artifactory:{key}=AKCxxxxxxxx"):
        assert redact(text) == (text, 0), text


def test_a_value_in_an_element_named_for_a_secret_is_redacted_and_other_names_stay():
    value = _r(32, _HEX)
    for name in ("hockeyapp_key", "maps_api_key", "client_secret"):
        text = f'<resources>\n  <string name="{name}">{value}</string>\n</resources>'
        assert _gone(text, value), redact(text)
    for text in ('<string name="app_name">Acme Billing Reports</string>', '<string name="sort_key">name</string>'):
        assert redact(text) == (text, 0), text


def test_sshpass_with_a_quoted_password_is_redacted_and_a_format_verb_stays():
    password = _r(10)
    for text in (f"sshpass -p '{password}' ssh ci@host", f'sshpass -p "{password}" scp a b'):
        assert _gone(text, password), redact(text)
    for text in ("fmt.Sprintf(\"sshpass -p '%s'\", password)", 'fmt.Sprintf("sshpass -p %s", password)'):
        assert redact(text) == (text, 0), text


@pytest.mark.parametrize("separator", [" - ", "  ", " : "])
def test_a_long_number_after_a_key_name_at_a_line_start_is_redacted(separator: str):
    digits = "".join(_rnd.choice(string.digits) for _ in range(40))
    text = f"APIKEY{separator}{digits}"
    assert _gone(text, digits), redact(text)
    for kept in ("the API key - see the docs", "- key - value", "api key - 2024 rotation"):
        assert redact(kept) == (kept, 0), kept


def test_a_private_key_block_of_filler_or_text_stays_and_one_of_key_material_is_redacted():
    body = base64.b64encode(_rnd.randbytes(48)).decode()
    text = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    assert _gone(text, body), redact(text)
    unit = "".join(_rnd.sample(string.ascii_lowercase, 2))
    words = base64.b64encode(" ".join(_rnd.sample(["alpha", "beta", "gamma", "delta", "omega"], 5)).encode()).decode()
    for kept in (
        f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{unit * 16}",
        f"-----BEGIN PRIVATE KEY-----\n{words}\n-----END PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----",
    ):
        assert redact(kept) == (kept, 0), kept


def test_a_pgp_private_key_block_with_armor_headers_is_redacted_even_unterminated():
    lines = [base64.b64encode(_rnd.randbytes(48)).decode() for _ in range(3)]
    text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: Keybase OpenPGP v1.0.0\nComment: https://keybase.io/x\n\n"
    text += "\n".join(lines) + "\n"
    assert all(_gone(text, line) for line in lines), redact(text)


def test_a_slack_webhook_of_zeros_and_xs_stays():
    text = f"https://hooks.slack.com/services/T00000000/B00000000/{'X' * 24}"
    assert redact(text) == (text, 0)


def test_a_url_password_that_names_no_password_stays_and_a_real_one_is_redacted():
    password = _r(12) + "+"
    text = f"https://deploy:{password}@git.example.com/repo.git"
    assert _gone(text, password), redact(text)
    for kept in (
        "https://username:••••••••@example.com",
        'f"https://user123:{_github_pat(name)}@github.com/"',
        "https://user:abc@api.com/v1",
        "https://user:1111@service.com/api",
    ):
        assert redact(kept) == (kept, 0), kept


def test_basic_auth_decides_by_its_pair():
    stand_in = base64.b64encode(b"username:password").decode()
    assert redact(f"Authorization: Basic {stand_in}") == (f"Authorization: Basic {stand_in}", 0)
    real = base64.b64encode(f"deploy:{_r(14)}".encode()).decode()
    assert _gone(f"Authorization: Basic {real}", real)


@pytest.mark.parametrize(
    "shape",
    [
        lambda: _r(32, _HEX),  # hex of 32
        lambda: "".join(_rnd.choice("bcdfghjklmnpqrstvwxz0123456789") for _ in range(48)),  # lowercase base36
        lambda: "".join(_rnd.choice(string.digits) for _ in range(30)),  # a long number
        lambda: _r(24),  # mixed case with digits
    ],
)
def test_a_directive_after_one_vendor_word_with_a_drawn_value_is_redacted(shape):
    value = shape()
    vendor = "".join(_rnd.choice(string.ascii_lowercase) for _ in range(8))
    for text in (f"{vendor} SECRET_KEY {value}", f"{vendor}_token {value}", f"{vendor}ACCESSKEY {value}"):
        assert _gone(text, value), redact(text)
    for kept in ("kubectl get secret db-credentials", "see the docs SECRET_KEY rotation", "git log token 9fceb02d"):
        assert redact(kept) == (kept, 0), kept
