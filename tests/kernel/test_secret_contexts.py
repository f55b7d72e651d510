"""Secrets known by the record or sentence around them (`kernel/secret_contexts.py`), password hashes
of the crypt(3) family and Kerberos, and the look-alikes of each that must stay searchable.

Every secret is generated from a seeded random body; each class gets several spellings, so a rule
that learned one example fails the others.
"""

from __future__ import annotations

import base64
import random
import string

import pytest

from kernel.secrets import find_secrets, redact

_rnd = random.Random(2803)
_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"
_CRYPT = _ALNUM + "./"
_HEX = "0123456789abcdef"


def _r(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rnd.choice(alphabet) for _ in range(n))


def _word() -> str:
    return "".join(_rnd.choice(string.ascii_lowercase) for _ in range(_rnd.randint(5, 9)))


def _gone(text: str, secret: str) -> bool:
    redacted, count = redact(text)
    return count > 0 and secret not in redacted


def _pem_b64(label: str) -> str:
    body = "\n".join(_r(64, _B64) for _ in range(4))
    return base64.b64encode(f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n".encode()).decode()


# (template, secret): the secret is an ordinary word where the record says it is a password
_CASES = [
    (f"Server={_word()}.db;Port=5432;User Id={_word()};Password={{s}};Database={_word()};", _word()),
    (f"Data Source=10.0.0.5,1433;Initial Catalog={_word()};User ID={_word()};Password={{s}};", _word() + "Pass"),
    (f"Provider=SQLNCLI;Server={_word()};Database={_word()};Uid={_word()};Pwd={{s}};", _word()),
    (f'conn = "Driver={{{{ODBC Driver 18}}}};Server={_word()};UID=sa;PWD={{s}}"', _word() + "!" + _r(3)),
    (f"Host={_word()};Username={_word()};Password={{s}}", _r(10)),
    (f"machine {_word()}.example.com login {_word()} password {{s}}", _r(12)),
    (f"machine {_word()}.example.com\n  login {_word()}\n  password {{s}}\n", _word() + "123"),
    (f"PsExec.exe \\\\{_word()} -u DOMAIN\\{_word()} -p {{s}} cmd /c dir", _word() + "_" + _word()),
    ('system("psexec64 \\\\\\\\10.1.2.3 -u Administrator -p {s} shutdown -r");', _word()),
    ('$pw = ConvertTo-SecureString "{s}" -AsPlainText -Force', _word() + "#" + _r(4)),
    ("ConvertTo-SecureString -String '{s}' -AsPlainText -Force", _r(14)),
    ("Unseal Key 3: {s}", _r(44, _B64)),
    ("kubectl exec -ti vault-0 -- vault operator unseal {s}", _r(44, _B64)),
    ("The default password is '{s}'.", _word()),
    ('Make sure the password for user "postgres" is "{s}" or edit .env', _word()),
    ("The initial password for the account admin will be `{s}`", _word() + "42"),
    ("KEY_B64={s}", _pem_b64("RSA PRIVATE KEY")),
    ("client-key: {s}", _pem_b64("EC PRIVATE KEY")),
    ("{s}", f"$5$rounds=5000${_r(16, _CRYPT)}${_r(43, _CRYPT)}"),
    ("root:{s}:19000:0:99999:7:::", f"$6$rounds=656000${_r(16, _CRYPT)}${_r(86, _CRYPT)}"),
    ("enable secret 8 {s}", f"$8${_r(14, _CRYPT)}${_r(43, _CRYPT)}"),
    ("username admin secret 9 {s}", f"$9${_r(14, _CRYPT)}${_r(43, _CRYPT)}"),
    ("{s}", f"$krb5asrep$23${_word()}@corp.example:{_r(32, _HEX)}${_r(180, _HEX)}"),
    ("hash.txt: {s}", f"$krb5asrep$23${_r(32, _HEX)}${_r(220, _HEX)}"),
    ("{s}", f"$krb5tgs$23$*{_word()}$CORP.EXAMPLE$cifs/host*${_r(32, _HEX)}${_r(300, _HEX)}"),
    (f'<add key="Smtp{_word().title()}Password" value="{{s}}" />', _word() + "$"),
    (f'  <add name="{_word()}_api_token" value="{{s}}"/>', _r(40)),
    (f'variable "{_word()}_password" {{{{\n  type    = string\n  default = "{{s}}"\n}}}}', _word() + "9"),
    (f'new NetworkCredential("{_word()}@example.com", "{{s}}");', _word() + _word()),
    (f'new DirectoryEntry("LDAP://10.0.0.1", "corp\\\\{_word()}", "{{s}}")', _word()),
    (f"requests.get(url, auth=HTTPBasicAuth('{_word()}', '{{s}}'))", _word() + "7"),
    ('if password == "{s}":', _word() + "x"),
    ("if (creds.Secret != '{s}') {{", _word() + "-" + _word()),
    ("if user == 'x' and user_password === \"{s}\"", _word()),
    (f"mongodb+srv://{_word()}:{{s}}@cluster0.{_word()}.mongodb.net/db", f"{_word()}@{_r(5)}!"),
    (f"postgres://{_word()}:{{s}}@db.internal:5432/app", f"{_word()}@{_word()}"),
    # a setup log that prints the password it generated on a line of its own
    ("A password was generated.\nPlease use the following password to proceed:\n\n{s}\n", _r(32, _HEX)),
    ("Your password has been generated:\n{s}\n", _r(20)),
    ("{s}", f"{_rnd.randint(10**8, 10**10)}:AA{_r(32, _ALNUM + '_-')}"),  # a Telegram token a character short
    # a base64 key whose first character is `/` is not a path
    ("AccountName=shop;AccountKey={s};EndpointSuffix=core.windows.net", "/" + _r(85, _B64) + "=="),
    ('client_secret = "{s}"', "/" + _r(43, _B64) + "="),
]


@pytest.mark.parametrize(("template", "secret"), _CASES)
def test_a_secret_known_by_its_record_or_sentence_is_redacted(template: str, secret: str):
    assert _gone(template.format(s=secret), secret), template.format(s=secret)


_LOOKALIKES = [
    "Server=db;User Id=app;Password=$DB_PASSWORD;Database=shop;",  # a reference
    "Server=db;User Id=app;Password=%DB_PASS%;Database=shop;",
    "Server=db;User Id=app;Password={password};Database=shop;",
    "Server=db;User Id=app;Password=YOUR_PASSWORD;Database=shop;",  # a capitalised stand-in
    "Server=db;User Id=app;Password=********;Database=shop;",  # a mask
    "Server=db;User Id=app;Password=<password>;",
    "set the Password=... field in the form",  # no connection string
    "machine github.com login octocat password $GITHUB_TOKEN",
    "psexec \\\\host -u admin -p %PASSWORD% cmd",
    "psexec \\\\host -u admin -p $Password -i calc.exe",
    "$s = ConvertTo-SecureString $plain -AsPlainText -Force",
    "vault operator unseal -migrate",
    "the password is required",
    'the password is "<your password>"',
    "the password field is hidden",
    "CERT_B64=" + _pem_b64("CERTIFICATE"),  # a certificate in base64 is public
    "PUB_B64=" + _pem_b64("PUBLIC KEY"),
    "price is $5$ per seat and $8$ per admin",
    "echo $9$HOME",
    "Choose the following password policy:\n\nMinimumLength\n",  # a word: no generator prints it
    "SECRET_PATH=/etc/app/Secrets2/Key1/Store3/Abc9Def",  # a path under a secret name
    'secret_file = "/run/secrets/DbPassword2/Current9/Key"',
    '<add key="PasswordMinLength" value="12" />',  # a setting about passwords
    '<add key="SmtpPassword" value="$(SMTP_PASSWORD)" />',
    '<add key="ApiTokenHeader" value="X-Api-Token" />',
    'variable "db_password" {\n  type      = string\n  sensitive = true\n}',
    'variable "token_ttl" {\n  default = "3600"\n}',
    "new NetworkCredential(user, password);",  # variables, not literals
    'HTTPBasicAuth("admin", os.environ["ADMIN_PW"])',
    'if secret_type == "aws_key":',
    'if password == "":',
    'if token_kind == "refresh":',
    "https://example.com/login?next=/home&email=someone@example.org",
    "see https://host.example/docs and mail admin@example.org",
]


@pytest.mark.parametrize("text", _LOOKALIKES)
def test_references_masks_stand_ins_and_public_material_stay_searchable(text: str):
    assert find_secrets(text) == [], [text[m.start : m.end] for m in find_secrets(text)]
