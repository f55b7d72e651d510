"""Which names hold a secret, and which values under such a name are one: the judgements behind
`kernel.secrets`' keyword rules (where those rules look is `kernel/secrets.py`).

- **names**: a name ends in a secret noun (`DB_PASSWORD`, `client_secret`, `IAMAPIKEY`), or begins with
  a strong one and goes on with words that say whose secret it is (`password_prod`, `apikey_billing`),
  never with words that make it metadata about the secret (`token_count`, `password_reset_url`,
  `secret_name`) or another word (`tokenizer`, `passport`, `bypass`); keys of maps and tables, public
  keys and anti-forgery tokens are not secrets; `key` and `sid` alone take only generated values;
- **values**: code is not a secret (expressions, references, calls, types, paths, key files), nor a
  placeholder (`<your key>`, `xxxx`, `changeme`, `...EXAMPLE`), a name (`DJANGO_SECRET_KEY`,
  `vault_db_password`), an alphabet or a mask of symbols; a quoted phrase of a few lowercase words
  under a password name is a passphrase, a label or a message is not.
"""

from __future__ import annotations

import functools
import itertools
import re

from kernel.secret_shapes import looks_generated

__all__ = [
    "KEY_FILE",
    "PATH_VALUE",
    "PLACEHOLDER",
    "acceptable_value",
    "drawn_value",
    "is_alphabet",
    "long_number",
    "looks_like_code",
    "low_variety",
    "passphrase",
    "qualified_only",
    "secret_name",
    "spaced_password",
    "strong_value",
    "through_ampersands",
    "through_brackets",
    "through_symbols",
    "weak_name",
]


_SECRET_NOUN = re.compile(
    r"(?:password|passwd|passphrase|pwd|pass|secret|token|credentials?|api[_-]?key|apikey|access[_-]?key"
    r"|secret[_-]?key|private[_-]?key(?:[_-]?id)?|account[_-]?key|shared[_-]?access[_-]?key|master[_-]?key"
    r"|encryption[_-]?key|signing[_-]?key|auth[_-]?key|app[_-]?key|subscription[_-]?key|client[_-]?secret"
    r"|webhook[_-]?secret|session[_-]?key|authorization|key|sid|key[_-]?data|creds|secret[_-]?id)"
    r"(?:[_-]?(?:string|value|str|\d{1,3}))?$",
    re.IGNORECASE,
)


# Keys that are not secrets: database and map keys, public keys, anti-forgery tokens.
_NOT_SECRET_NAME = re.compile(
    r"(?i)public|^pub|csrf|xsrf|authenticity|requestverification|(?:primary|foreign|sort|partition|cache|unique|composite|row|range|hash|lookup|index"
    r"|map|dict|object|item|group|shard|idempotency|i18n|translation|label|message|react|list|dedupe|storage)[_-]?key$"
)


_QUALIFIED_NOUN = re.compile(r"(?i)password|passwd|passphrase|secret|token|api[_-]?key|pass|pwd|credentials?")


_QUALIFIER_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


# What follows a secret noun glued, making another word: `tokens`, `tokenizer`, `secretary`, `passwordless`.
_GLUED_SUFFIXES = frozenset(
    ("s", "es", "less", "ly", "ary", "ion", "ions", "ize", "izer", "ized", "izes", "ization", "ise", "iser", "ised")
)


# Words after a secret noun that make the name metadata about the secret, not the secret.
_METADATA_WORDS = frozenset(
    """
    name names id ids type types kind count counts len length size min max limit limits url uri urls
    endpoint endpoints path paths file files filename dir folder env var vars variable header headers field
    fields label labels hint hints policy policies ref refs reference hash hashed digest salt expiry expires
    expiration exp ttl timeout age lifetime prefix suffix format mode version versions rotation rotate store
    storage manager provider arn address addr location source scope scopes usage used regex pattern rule
    rules check checker validator validation valid required enabled disabled enable disable reset changed
    change updated created at date time timestamp strength score error errors message msg prompt placeholder
    input form button text title description desc help template config settings options schema spec class
    service method methods auth issuer audience claim claims grant flow callback redirect login logout
    confirm confirmation match matches matcher set get is has use uses mask masked visible show hidden
    toggle icon encoder decoder parser reader writer generator factory builder helper util utils handler
    list map dict key keys index bucket table column row db cache queue topic channel budget rate per
    """.split()  # noqa: SIM905 (a list of words reads best as words)
)


_SHORT_NOUNS = ("pass", "pwd", "sid")  # only as a whole name or after a separator: `DB_PASS`, not `bypass`


# Nouns common outside secrets (`sort_key`, `primary_key: id`, `account_sid`): their values must look generated.
_WEAK_NOUNS = ("key", "sid", "secret_id", "secret-id", "secretid")  # Vault AppRole's `secret_id`: a UUID


PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\$?\{{0,2}[\w.:-]+\}{0,2}|\$\{[^}]*\}?|\$\(.*|\{\{.*|%\(?\w+\)?s?|%[\w.]+%|<[^>]*>?|\[REDACTED.*|\*+|x{3,}|[\w-]*\.{3,}.*|#+"
    # a stand-in word and then words (`my-password`, `YOUR_API_KEY_HERE`, `example123`), never a random tail:
    # `MyXY5I1RqA0t-bUY7` only begins with "my"
    r"|(?:your|my|some|example|sample|dummy|fake|changeme|change_me|placeholder|redacted|replace|insert)"
    r"[a-z]*(?:[-_.][a-z]+)*(?:[-_]?\d{1,4})?"  # one way to split: no backtracking on a long value
    r"|none|null|nil|true|false|undefined|required|optional|secret|password|passwd|token|string|str|int|bool"
    r"|number|bytes|any|test|testing|include|omit|same-origin|pass|pwd)$"
    # values that say they are not secrets, and documentation examples (AWS's `...EXAMPLE` keys)
    r"|(?i:.*(?<![a-z])(?:not[-_ ]?(?:a[-_ ]?)?(?:real|secret)|test[-_]?only|for[-_]?tests?|dummy|fake|placeholder"
    r"|changeme|redacted|xxxxxx|your)(?![a-z]).*)|.*EXAMPLE(?:KEY)?$"
)


# A literal list or map, or a reference through a known object; calls are `_CALL` (see `looks_like_code`).
_CODE_VALUE = re.compile(r"^[(\[{]|^(?:this|self|cls|os|process|env|config|settings|ctx|args|opts|request)\.")


_CALL = re.compile(r"^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*[(\[]")


_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


_SNAKE_WORDS = re.compile(r"^[a-z]+(?:_[a-z]+)+$")


PATH_VALUE = re.compile(r"^(?:[/~]|\.{1,2}/|[A-Za-z]:\\)")


_TOKEN_PREFIX = re.compile(r"[A-Za-z0-9]{1,9}[_-]")


_FILLER = frozenset("x*0#._-=")


_UUID = re.compile(r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")


KEY_FILE = re.compile(
    r"(?i)(?:\.(?:pem|key|p12|pfx|jks|keystore|crt|pub|ppk|asc|gpg)|id_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?)$"
)


# Nouns whose quoted value may hold spaces (a passphrase); `token`, `key` and `auth` values never do.
_PASSPHRASE_NAME = re.compile(r"(?i)(?:password|passwd|passphrase|pwd|pass|secret|api[_-]?key|apikey|access[_-]?key)")


def passphrase(value: str, name: str) -> bool:
    """A quoted value of a few lowercase words under a password-like name (`"correct horse battery"`):
    a passphrase. A label or sentence (`"Enter your password"`, `"must be 12 characters."`), a template
    or a long text is not."""
    words = value.split()
    if not 2 <= len(words) <= 8 or len(value) > 100 or "\n" in value or "\\n" in value:
        return False
    if value[:1].isupper() or value.rstrip()[-1:] in ".?!:" or not _PASSPHRASE_NAME.search(name):
        return False
    if any(c in value for c in "{}<>%$`") or PLACEHOLDER.match(value):
        return False
    return not _PROSE_WORDS.search(value)


def spaced_password(value: str, name: str) -> bool:
    """A quoted password with a space or two in it whose words are themselves strong (`"p4ss+2028 rf@V[4"`):
    symbols and digits in every word, as a typed password has and a label or sentence never does."""
    words = value.split()
    if not 2 <= len(words) <= 3 or len(value) > 80 or not _PASSPHRASE_NAME.search(name) or _PROSE_WORDS.search(value):
        return False
    if any(c in value for c in "<>%$`") or "{{" in value:
        return False
    return all(strong_value(w, 4) for w in words)


_PROSE_WORDS = re.compile(
    r"(?i)\b(?:your|enter|type|here|must|should|required|invalid|incorrect|wrong|missing|please|is|are|be|been"
    r"|can|can't|cannot|not|too|least|most|characters|chars|blank|empty|match|matches|does|doesn't|don't)\b"
)


@functools.lru_cache(maxsize=4096)  # names repeat: `password`, `api_key`, `DB_PASSWORD`...
def secret_name(name: str) -> bool:
    name = name.strip(".-$@")
    if _NOT_SECRET_NAME.search(name):
        return False
    noun = _SECRET_NOUN.search(name)
    if noun is None:
        return _qualified_name(name)
    head = name[: noun.start()]
    if not head:
        return True
    word = noun.group().lower()
    boundary = head[-1] in "_.-" or (name[noun.start()].isupper() and head[-1].islower())
    # `IAMAPIKEY`, not `monkey`; `ACRPWD`, `MYSQL_ROOTPWD` (no word ends in `pwd`), not `bypass`
    return boundary or (word not in _SHORT_NOUNS and word != "key") or word == "pwd"


def _qualified_name(name: str) -> bool:
    """`password_super_secure`, `apikey_myservice`, `db_pass_prod`: a strong secret noun, then words that
    qualify the secret (whose, where), not metadata about it (`token_count`, `password_reset_url`,
    `secret_name`, `tokenizer`); such names take only strong values (see `acceptable_value`)."""
    nouns = list(_QUALIFIED_NOUN.finditer(name))
    if not nouns:
        return False
    noun = nouns[-1]
    head, tail = name[: noun.start()], name[noun.end() :]
    word = noun.group().lower()
    glued = head and head[-1].isalpha() and not (name[noun.start()].isupper() and head[-1].islower())
    if glued and (word in _SHORT_NOUNS or len(head) > 3):  # `bypass_mode`, `compass_heading`, `anothertoken_x`
        return False
    if word in _SHORT_NOUNS and tail[:1] not in ("_", "-"):
        return False  # `passport`, `pwdump`
    words = [w.lower() for w in _QUALIFIER_WORDS.findall(tail)]
    glued_tail = tail[:1] not in ("_", "-") and not tail[:1].isupper()
    if not words or (glued_tail and (words[0] in _GLUED_SUFFIXES or len(words[0]) > 2)):
        return False  # `tokens`, `tokenizer`, `secretsmanager`: another word, not a qualified secret
    return not any(w in _METADATA_WORDS or w.isdigit() for w in words)


@functools.lru_cache(maxsize=4096)  # names repeat: `password`, `api_key`, `DB_PASSWORD`...
def qualified_only(name: str) -> bool:
    return _SECRET_NOUN.search(name.strip(".-$@")) is None and _qualified_name(name.strip(".-$@"))


@functools.lru_cache(maxsize=4096)  # names repeat: `password`, `api_key`, `DB_PASSWORD`...
def weak_name(name: str) -> bool:
    noun = _SECRET_NOUN.search(name.strip(".-$@"))
    return noun is not None and noun.group().lower() in _WEAK_NOUNS


def restates_name(value: str, name: str) -> bool:
    """`api.appSecret=apiAppSecret`, `db.password: dbPassword`, `DB_PASSWORD: password_db`: a value of
    letters that spells its own name or the name's tail, case and separators aside, names the setting;
    it is not the secret (`Password=thisismypassword` is: the name does not end in what it spells)."""
    if any(c.isdigit() for c in value):
        return False
    spelled, named = _LETTERS_ONLY.sub("", value.lower()), _LETTERS_ONLY.sub("", name.lower())
    shorter = min(len(spelled), len(named))
    return shorter >= 6 and named.endswith(spelled)


_LETTERS_ONLY = re.compile(r"[^a-z]")


def acceptable_value(value: str, *, quoted: bool, separator: str, name: str) -> bool:
    if len(value) < 6 or PLACEHOLDER.match(value) or looks_like_code(value) or restates_name(value, name):
        return False
    if PATH_VALUE.match(value) and not _base64_key(value):  # `/lNid...EP==` is a key that starts with `/`
        return False
    if _ENV_NAME.match(value):  # `SECRET_KEY_SETTING = "DJANGO_SECRET_KEY"`: the name of a variable
        return False
    if KEY_FILE.search(value) or low_variety(value) or not any(c.isalnum() for c in value):
        return False  # `,.:-@*?!`: separators or a mask, not a secret
    if is_alphabet(value):  # `keyStr = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef...0123456789"`: a base64 table
        return False
    if _SNAKE_WORDS.match(value):  # `password: "real_key"`, `"db_password"`: a name that refers to a secret
        return False
    if qualified_only(name):  # `password_super_secure`: a name only begins with the noun; a strong value only
        return strong_value(value, 8) and not (value.isidentifier() and not any(c.isdigit() for c in value))
    if weak_name(name):  # `sort_key: created_at`, `primary_key: id`: only a generated-looking value
        hexadecimal = len(value) >= 20 and all(c in "0123456789abcdefABCDEF" for c in value)
        return looks_generated(value, 16) or hexadecimal or bool(_UUID.match(value)) or _base36_random(value)
    if separator == ",":
        return len(value) >= 8 and (strong_value(value, 8) or looks_generated(value, 16) or value.isdigit())
    if quoted:
        return len(value) >= 6
    shell_style = separator == "=" and name[:1].isalpha() and name == name.upper()
    if shell_style:
        return len(value) >= 6
    if value.isidentifier() and not any(c.isdigit() for c in value):
        return False  # `token = token`, `secret: mySecret`: a variable, not a literal
    return strong_value(value, 8) or (value.isdigit() and len(value) >= 16)


_BASE64 = re.compile(r"[A-Za-z0-9+/]{32,}={0,2}")


def _base64_key(value: str) -> bool:
    """Base64 of random bytes, whatever its first character: a path has a `/` every few characters."""
    return bool(_BASE64.fullmatch(value)) and value.count("/") * 12 < len(value) and looks_generated(value, 32)


def _base36_random(value: str) -> bool:
    """`smcud4y6elxx7u6q58ewwv8rq01hpi3f`, `LY027C40U2KNNZ...`: one case of letters with digits strewn through
    them, as a generator prints; a name with a number in it (`user42profile2024`) changes between letters
    and digits a few times only."""
    groups = value.split("-")  # `2FTJTA1C-BXO0DV4J-HGTP9E62-QHQSILY1`: groups a generator joined with dashes
    value = "".join(groups)
    if len(value) < 20 or not all(g.isalnum() for g in groups) or not (value.islower() or value.isupper()):
        return False
    digits = sum(c.isdigit() for c in value)
    if digits < 0.15 * len(value) or digits > 0.7 * len(value):
        return digits >= 2 and len(value) >= 24 and _few_vowels(value)
    changes = sum(a.isdigit() != b.isdigit() for a, b in itertools.pairwise(value))
    return changes >= max(8, len(value) // 4) or (changes >= 4 and len(value) >= 24 and _few_vowels(value))


def _few_vowels(value: str) -> bool:
    """Letters drawn at random hold a vowel one time in five; words, even run together, two in five."""
    letters = [c for c in value.lower() if c.isalpha()]
    return len(letters) >= 16 and sum(c in "aeiouy" for c in letters) < 0.3 * len(letters)


def is_alphabet(value: str) -> bool:
    """A run of consecutive characters as long as an alphabet (the base64 table, `A-Z`), not a sequence
    a person typed as a made-up key (`abcd1234abcd1234`, which stays a secret)."""
    if len(value) < 26 or len(set(value)) < 0.9 * len(value):
        return False
    steps = sum(ord(b) - ord(a) == 1 for a, b in itertools.pairwise(value))
    return steps >= 0.85 * (len(value) - 1)


def low_variety(value: str) -> bool:
    """`xxxxxxxx`, `********`, `hf_xxxx`, `glc_1111...`: a placeholder, whatever its prefix (three distinct
    characters at most). Sequences (`abcdef123456`) stay secrets: a made-up key pasted in a test is
    still shaped like one, and redacting it costs nothing."""
    prefix = _TOKEN_PREFIX.match(value)
    body = value[prefix.end() :] if prefix else value
    if len(body) >= 4 and (not set(body.lower()) - _FILLER or len(set(body)) <= (3 if len(body) >= 8 else 2)):
        return True
    filler = value.count("x") + value.count("X") + value.count("*") + value.count("#")
    if len(value) >= 12 and filler >= 0.6 * len(value):  # `4b1dXXXXXXXX...`
        return True
    return _repeated_unit(body)


def _repeated_unit(body: str) -> bool:
    """`asdfasdfasdf...`, `abcabcabc`: a few letters of one case typed over and over, a keyboard's filler
    (a unit that mixes cases or digits, `xY3_xY3_...`, is a made-up key and stays a secret)."""
    if len(body) < 12 or not body.isalpha() or not (body.islower() or body.isupper()):
        return False
    for unit in range(2, 7):
        if len(body) >= 3 * unit and body == (body[:unit] * (len(body) // unit + 1))[: len(body)]:
            return True
    return False


def looks_like_code(value: str) -> bool:
    value = value.lstrip("*&")  # Go's `key *ecdsa.PrivateKey`, `&config.Token`
    if _DOTTED.match(value):  # `settings.API_KEY` is code; `pk.eyJ1...x9.abc` (random parts) is a token
        return not any(looks_generated(part, 8) or _random_part(part) for part in value.split("."))
    call = _CALL.match(value)
    if call is not None:  # `getPassword(user)`, `Math.min(this.burst,`; not `p(a)ss9!` or `Zx(9)qL#`
        callee = call.group(1)
        tail = value[value.rfind(")") + 1 :] if ")" in value else ""
        if (len(callee.rsplit(".", 1)[-1]) >= 3 or "." in callee) and not re.search(r"\w", tail):
            return True
    return bool(_CODE_VALUE.search(value) or value.startswith("[]"))


def _random_part(part: str) -> bool:
    """A segment of 12+ characters with three or more digits among letters, as generated tokens have."""
    return len(part) >= 12 and sum(c.isdigit() for c in part) >= 3 and any(c.isalpha() for c in part)


def strong_value(value: str, length: int) -> bool:
    """Long enough, and mixing letters with digits or symbols, as generated secrets and passwords do."""
    if len(value) < length or PLACEHOLDER.match(value):
        return False
    letters = any(c.isalpha() for c in value)
    digits = any(c.isdigit() for c in value)
    symbols = any(not c.isalnum() for c in value)
    return letters and (digits or (symbols and not value.replace("-", "").replace("_", "").isalpha()))


def drawn_value(value: str) -> bool:
    """A value a generator drew, in any of the shapes one prints: mixed case with digits, a long number,
    hex of 32 digits or more (not a commit's 40 or a SHA-256's 64), or lowercase base36 with few vowels."""
    if looks_generated(value, 16) or long_number(value) or _base36_random(value):
        return True
    return len(value) >= 32 and len(value) not in (40, 64) and all(c in "0123456789abcdefABCDEF" for c in value)


def long_number(value: str) -> bool:
    """A run of 24 digits or more: a key drawn from digits (`APIKEY - 1235...`), longer than an id or a time."""
    return len(value) >= 24 and value.isdigit()


# ---------------------------------------------------------------- how far an unquoted value runs

_UNQUOTED_VALUE = re.compile(r"""[^\s"'`,;&|<>)\]}]+""")


def through_brackets(text: str, match: re.Match[str]) -> str:
    """An unquoted value that holds an opening bracket, read on through `)`, `]`, `}`, `<` and `>` that
    more of the value follows (`m{{h}o)p[e]x`) and through the closers that balance it; a value without
    one stops at the first (`f(password=pw)`, `{token: t}`)."""
    end, limit = match.end(), match.start() + 512  # a value, not the rest of a minified line
    while end < min(len(text), limit) and text[end] in ")]}<>":
        rest = end
        while rest < len(text) and text[rest] in ")]}<>":
            rest += 1
        more = _UNQUOTED_VALUE.match(text, rest)
        if more is None:
            break
        end = more.end()
    value = text[match.start() : end]
    if not any(c in value for c in "([{"):
        return match.group()
    unbalanced = sum(value.count(c) for c in "([{") - sum(value.count(c) for c in ")]}")
    while unbalanced > 0 and end < len(text) and text[end] in ")]}":
        end, unbalanced = end + 1, unbalanced - 1
    return text[match.start() : end]


_AMPERSAND_TAIL = re.compile(r"(?:&[^\s\"'`&;|<>]+)+(?=[ \t]*(?:\r?\n|$))")


def through_ampersands(text: str, start: int, value: str) -> str:
    """A `.env` value that `&` joins to the end of its line (`sp=r&st=...&sig=...`, `git&2025...&<key>`),
    not a shell's background `&` (followed by a space or nothing)."""
    tail = _AMPERSAND_TAIL.match(text, start + len(value))
    return value + tail.group() if tail is not None else value


_SYMBOL_TAIL = re.compile(r"""[,;][^\s=\"'`]*(?=[ \t]*(?:\r?\n|$))""")


def through_symbols(text: str, value: str, end: int) -> str:
    """An unquoted value that a `,` or `;` continues to the end of its line (`p@ss,w0rd!`), not a list of
    arguments or settings (`pw, x=1`, `pw,user=x`)."""
    tail = _SYMBOL_TAIL.match(text, end)
    if tail is None or not tail.group()[1:].strip(")]}") or not any(c.isalnum() for c in value):
        return value
    return value + tail.group()
