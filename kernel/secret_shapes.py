"""Secrets `kernel.secrets` knows by where they stand rather than by a prefix: parts of URLs, password
hashes, and the bare output line of a key generator.

- **URLs**: webhook paths (Slack `hooks.slack.com/services/T…/B…/…`, Discord and Teams webhooks),
  keys in the path of RPC and API gateways (`…/v2/<key>`), a DSN's user part without a password
  (Sentry's `https://<key>@o1.ingest.sentry.io/1`), query values named like a secret (`sig=`,
  `api_key=`, `X-Amz-Signature=`), and any query value that looks generated (long, mixed case and
  digits, high entropy);
- **password hashes**: crypt(3) and framework formats (`$apr1$`, `$2y$`, `$6$`, `$argon2id$`,
  `pbkdf2_sha256$`), which an attacker can crack offline;
- **generator output**: the line after a command that prints a fresh secret (`openssl rand`,
  `secrets.token_hex`, `pwgen`, `wg genkey`, `rails secret`...), when that line is one bare token.
- **cloud keys beside a cue**: a bare 40-character AWS secret and a session token in a text holding an
  AWS key id; an Azure storage account key (88 base64 characters) after a word that names a key.

Each function returns `(start, end, kind, priority)` spans like the rest of the detector.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable

__all__ = [
    "GENERATOR_WORDS",
    "aws_secrets",
    "drawn_body",
    "generator_output",
    "key_material",
    "looks_generated",
    "password_hashes",
    "storage_keys",
    "url_secrets",
]

# web URLs, and databases' (`jdbc:mysql://`, `postgresql://`): their query may carry a password (`userpass=`)
_URL_PARTS = r"""://([^\s/?#"'`<>\\]+)([^\s?#"'`<>\\]*)(\?[^\s#"'`<>\\]*)?"""
_URL = re.compile(r"""(?i)\b(?:https?|wss?|ftp)""" + _URL_PARTS)
_DB_URL = re.compile(
    r"""(?i)\b(?:jdbc:[a-z0-9]+|mysql|mariadb|postgres(?:ql)?|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver"""
    r"""|clickhouse)""" + _URL_PARTS
)
# looked for only when a database's scheme occurs: one scan for web URLs in most texts
_DB_SCHEMES = ("jdbc:", "sql://", "mariadb://", "mongodb", "redis", "amqp", "sqlserver://", "clickhouse://")
_WEBHOOKS = re.compile(
    r"(?i)(?:hooks\.slack\.com/(?:services|workflows|triggers)/((?:[A-Z0-9]+/){1,2}[A-Za-z0-9]{16,}|[A-Za-z0-9+/]{40,60})"
    r"|discord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_-]{30,})"
    r"|webhook\.office\.com/webhookb2/([^\s\"'<>]+)"
    r"|/api/v\d+/hooks/([A-Za-z0-9]{16,}))"
)
# Path segments that hold a key: RPC gateways (`/v2/<key>`, `/v3/<key>`) and token-named parents.
_KEY_PARENTS = re.compile(r"(?i)^(?:v\d|keys?|tokens?|secrets?|apikey|api-key|api_key|access[_-]?token|bot)$")
# `/document/d/<id>`, `/drive/folders/<id>`: a document's id, shared to be opened, not a credential.
_VENDOR_PREFIX = re.compile(r"^[a-z]{2,6}_")
_DOCUMENT_PARENTS = frozenset(("d", "folders", "file", "spreadsheets", "presentation", "document"))
_SECRET_PARAM = re.compile(
    r"(?i)^(?:sig|signature|x-amz-signature|x-amz-security-token|x-goog-signature|key|api[_-]?key|apikey"
    r"|token|access[_-]?token|auth[_-]?token|id[_-]?token|refresh[_-]?token|client[_-]?secret|secret"
    r"|password|passwd|pwd|pass|private[_-]?token|session[_-]?token|sessionid|code|auth|hmac|jwt)$"
)
_PASSWORD_PARAM = re.compile(r"(?i)(?:password|passwd|pass|pwd)$")
_SAFE_PARAM = re.compile(r"(?i)^(?:sv|se|st|sp|spr|srt|ss|sr|skoid|sktid|skt|ske|sks|skv|v|ver|version|utm_\w+)$")
# crypt(3) formats start with `$` (a literal first character keeps the scan fast); framework formats
# (Django's `pbkdf2_sha256$...`) start with their algorithm's name and are looked for only when it occurs.
_HASH = re.compile(
    r"(?<![\w$])\$(?:(?:apr1|1|5|6|2[abxy]?|y|gy|7|8|9|sha1|md5)\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,64}\$[./A-Za-z0-9]{16,}"
    r"|krb5(?:asrep|tgs)\$\d{1,2}\$[^\s]{0,256}?[0-9a-fA-F]{32}\$[0-9a-fA-F]{64,}"
    r"|2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}"
    r"|argon2(?:id|i|d)\$v=\d+\$[^\s$]+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{16,}"
    r"|(?:pbkdf2|scrypt)[\w-]*\$[^\s]{20,})"
)
_FRAMEWORK_HASH = re.compile(r"(?<![\w$])(?:pbkdf2_sha256|pbkdf2_sha1|bcrypt_sha256|argon2|scrypt)\$[^\s\"']{20,}")
_GENERATORS = re.compile(
    r"(?i)(?:openssl\s+rand|secrets\.token_(?:hex|urlsafe|bytes)|token_urlsafe|pwgen|wg\s+genkey|rails\s+secret"
    r"|rake\s+secret|phx\.gen\.secret|get_random_secret_key|gpg\s+--gen-random|/dev/urandom|apg\s|makepasswd"
    r"|keygen\b|generate[_-]?(?:secret|key|token|password)|random[_-]?(?:secret|key|token|password)"
    r"|uuidgen\s*\|\s*base64|base64\s+/dev/urandom"
    # a setup log that prints a generated password on its own line (Jenkins' initial admin password)
    r"|use\s+the\s+following\s+password|password\s+(?:has\s+been\s+|was\s+)?generated)"
)
_BARE_TOKEN = re.compile(r"[ \t>$#]*([A-Za-z0-9+/_=.:-]{16,})[ \t]*(?:\r?\n|$)")


_UPPER, _LOWER, _DIGIT = re.compile(r"[A-Z]"), re.compile(r"[a-z]"), re.compile(r"[0-9]")


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def looks_generated(value: str, length: int = 20) -> bool:
    """Long, mixing upper and lower case with digits, and of high entropy: what a generator prints,
    not a word, an id in one case (a commit hash, a UUID), or a path. A generator's output may hold
    one digit or none (`uthuXAJ_LvTVqR_DhWka4nOBiOJb`): then both cases must be strewn through each
    other, as a random draw gives and camelCase words (`getUserAccountSettings`) never do."""
    if len(value) < length:
        return False
    uppers, lowers = len(_UPPER.findall(value)), len(_LOWER.findall(value))
    if uppers < 2 or lowers < 2:
        return False
    if len(_DIGIT.findall(value)) < 2:
        return len(value) >= 20 and _cases_strewn(value, uppers, lowers) and _entropy(value) >= 4.0
    return _entropy(value) >= 3.6


_ARMOR_HEADER = re.compile(r"^[A-Z][A-Za-z-]{2,30}: ")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]{12,}")
_PEM_MARKER = re.compile(r"-----(?:BEGIN|END) [A-Z0-9 ]{0,60}-----")


def key_material(block: str) -> bool:
    """A private-key block's body holds a key: base64 lines that neither repeat a few characters
    (`abababab...`) nor decode to text (`YWJjZGVm...`, the alphabet), as an example's filler does."""
    import base64
    import binascii

    lines = _PEM_MARKER.sub("\n", block.replace("\\r", "\n").replace("\\n", "\n")).splitlines()
    body = "".join(
        part for line in lines if not _ARMOR_HEADER.match(line.strip()) for part in _BASE64_LINE.findall(line)
    )
    if len(body) < 12 or low_variety_body(body):
        return False
    try:
        decoded = base64.b64decode(body[: len(body) // 4 * 4], validate=False)
    except (binascii.Error, ValueError):
        return True
    # text is an example's filler, unless it is a key format's magic (`openssh-key-v1`)
    return not (decoded and all(32 <= b < 127 for b in decoded)) or decoded.startswith(b"openssh-key")


def low_variety_body(body: str) -> bool:
    from kernel.secret_values import low_variety

    return low_variety(body) or len(set(body)) <= 4


_CAMEL_WORD = re.compile(r"[A-Z][a-z]{4,}")
# A prefix part that marks a key (`sk`, `key`, `token`, `pat`), or, after a vendor's word, its environment
# or version (`acme_live_`, `k2sk_v1_`); an API object's id (`msg_`, `req_`, `toolu_`, `call_`, `cus_`)
# has no such part, and a publishable key (`pk_live_`, `pub_`) is meant to be public
_KEY_PART = re.compile(
    r"(?:^|_)(?:sk|rk|key|apikey|api|token|tok|secret|pat|auth|pw)_"
    r"|^[a-z][a-z0-9]{1,7}_(?:[a-z0-9]{1,8}_)?(?:live|test|prod|sandbox|dev|v\d{1,2})_"
)
_PUBLIC_PREFIX = ("pk_", "pub_", "public_", "publishable_")


def drawn_body(token: str) -> bool:
    """A token of a vendor's prefix and a drawn body (`k2sk_v1_<body>`, `acme_live_<body>`): a prefix part
    marks a key or its environment, and the body after the last `_` looks generated, is no alphabet or
    filler, and is not camelCase words (`test_ParseUserAccountSettings2Quickly`), which a random draw
    of this length holds twice only a few times in a hundred."""
    cut = token.rfind("_") + 1
    if _KEY_PART.search(token, 0, cut) is None or token.startswith(_PUBLIC_PREFIX):  # the cheap test first
        return False
    from kernel.secret_values import is_alphabet, low_variety

    body = token[cut:]
    if not looks_generated(body, 20) or is_alphabet(body) or low_variety(body):
        return False
    return len(_CAMEL_WORD.findall(body)) < 2


def _cases_strewn(value: str, uppers: int, lowers: int) -> bool:
    """Upper and lower case each a quarter of the letters at least, changing from one to the other at
    a third of the letters or more (camelCase changes case once or twice a word)."""
    letters = uppers + lowers
    if min(uppers, lowers) < 0.25 * letters:
        return False
    cased = [c.isupper() for c in value if c.isalpha()]
    changes = sum(a != b for a, b in itertools.pairwise(cased))
    return changes >= letters / 3


def _low_variety(value: str) -> bool:
    return len(set(value.lower()) - set("x*0#._-")) <= 2


def url_secrets(text: str) -> list[tuple[int, int, str, int]]:
    found: list[tuple[int, int, str, int]] = []
    hooks = []
    for hook in _WEBHOOKS.finditer(text):  # with or without a scheme (`hooks.slack.com/services/...`)
        group = next(i for i in range(1, 5) if hook.group(i))
        hooks.append((hook.start(), hook.end()))
        secret = hook.group(group).rsplit("/", 1)[-1]  # Slack's `T00000000/B00000000/XXXX...`: a stand-in
        long_enough = group != 3 or len(hook.group(3)) >= 24
        if not _low_variety(hook.group(group)) and not _low_variety(secret) and long_enough:
            found.append((hook.start(group), hook.end(group), "webhook_url", 1))
    urls: Iterable[re.Match[str]] = _URL.finditer(text)
    lowered = text.lower()
    if any(scheme in lowered for scheme in _DB_SCHEMES):
        urls = itertools.chain(urls, _DB_URL.finditer(text))
    for url in urls:
        host, path, query = url.group(1), url.group(2) or "", url.group(3) or ""
        if any(url.start() <= start < url.end() for start, _ in hooks):
            continue
        if "@" in host:  # a DSN's user part without a password (Sentry): `https://<key>@host`
            user = host[: host.rindex("@")]
            if ":" not in user and len(user) >= 16 and (looks_generated(user, 16) or _hexlike(user)):
                found.append((url.start(1), url.start(1) + len(user), "url_credentials", 1))
        offset = url.start(2)
        segments = path.split("/")
        position = offset
        for index, segment in enumerate(segments):
            parent = segments[index - 1] if index else ""
            if segment and index and _KEY_PARENTS.match(parent) and len(segment) >= 16:
                body = _VENDOR_PREFIX.sub("", segment)  # `/keys/pri_0998...`: a vendor's prefix, then hex
                if (looks_generated(segment, 16) or _hexlike(body)) and not _low_variety(segment):
                    found.append((position, position + len(segment), "url_path_key", 2))
            elif (
                segment
                and looks_generated(segment, 32)
                and _entropy(segment) >= 4.2
                and not _wordy(segment)
                and parent not in _DOCUMENT_PARENTS
            ):
                found.append((position, position + len(segment), "url_path_key", 3))
            position += len(segment) + 1
        if query:
            found += _query_secrets(query, url.start(3))
    return found


def _wordy(segment: str) -> bool:
    """`Pianificazione-Nerdz-1bc8...`: a slug of words with an id, or percent-encoded text, not a key."""
    words = [part for part in re.split(r"[-_.]", segment) if part.isalpha() and len(part) >= 4]
    return len(words) >= 2 or segment.count("%") >= 3


def _hexlike(value: str) -> bool:
    return len(value) >= 24 and all(c in "0123456789abcdefABCDEF" for c in value) and len(value) not in (40, 64)


def _query_secrets(query: str, offset: int) -> list[tuple[int, int, str, int]]:
    found = []
    position = offset + 1
    for pair in query[1:].split("&"):
        name, _, value = pair.partition("=")
        start = position + len(name) + 1
        position += len(pair) + 1
        if not value or _SAFE_PARAM.match(name):
            continue
        if value.startswith(("$", "{", "<", "%7B", "%24")) or _low_variety(value):
            continue
        if _PASSWORD_PARAM.search(name) and len(value) >= 6:  # `userpass=<word>`: a password, words and all
            found.append((start, start + len(value), "url_query_secret", 2))
        elif _wordy(value):
            continue
        elif _SECRET_PARAM.match(name):
            if (len(value) >= 8 and any(c.isdigit() for c in value)) or len(value) >= 16:
                found.append((start, start + len(value), "url_query_secret", 2))
        elif looks_generated(value, 24):
            found.append((start, start + len(value), "url_query_secret", 3))
    return found


def password_hashes(text: str) -> list[tuple[int, int, str, int]]:
    found = [(m.start(), m.end(), "password_hash", 1) for m in _HASH.finditer(text)]
    if "pbkdf2" in text or "argon2" in text or "scrypt" in text or "bcrypt" in text:
        found += [(m.start(), m.end(), "password_hash", 1) for m in _FRAMEWORK_HASH.finditer(text)]
    return found


# The words a generator command holds; the detector runs `generator_output` only on texts with one.
GENERATOR_WORDS = (
    "openssl rand",
    "token_hex",
    "token_urlsafe",
    "token_bytes",
    "pwgen",
    "genkey",
    " secret",
    ".gen.secret",
    "random_secret",
    "gen-random",
    "urandom",
    "apg ",
    "makepasswd",
    "keygen",
    "generate_",
    "generate-",
    "random_",
    "random-",
    "following password",
    "password generated",
    "password has been generated",
    "password was generated",
)


def _generator_calls(text: str):
    """`_GENERATORS` matches, looked for only on the lines holding one of its words (a regex alternation
    scanned over a whole long text costs more than the rest of the detector)."""
    lowered = text.lower()
    lines: set[int] = set()
    for word in GENERATOR_WORDS:
        at = lowered.find(word)
        while at != -1:
            lines.add(lowered.rfind("\n", 0, at) + 1)
            at = lowered.find(word, at + len(word))
    for start in sorted(lines):
        end = text.find("\n", start)
        yield from _GENERATORS.finditer(text, start, len(text) if end == -1 else end)


def generator_output(text: str) -> list[tuple[int, int, str, int]]:
    """The bare token on the line after a command that generates a secret."""
    found = []
    for cue in _generator_calls(text):
        newline = text.find("\n", cue.end())
        if newline == -1:
            continue
        start = newline + 1
        # the output may follow a closing fence or prompt echo; look at the next two lines
        for _ in range(2):
            line = _BARE_TOKEN.match(text, start)
            if line is not None:
                value = line.group(1)
                if any(c.isdigit() for c in value) and any(c.isalpha() for c in value) and not _low_variety(value):
                    found.append((line.start(1), line.end(1), "generated_secret", 2))
                break
            nxt = text.find("\n", start)
            if nxt == -1 or text[start:nxt].strip() not in ("", "```", "$"):
                break
            start = nxt + 1
    return found


# Cloud keys known by their shape beside a cue (`kernel.secrets` calls these only when the cue is there).
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def aws_secrets(text: str) -> list[tuple[int, int, str, int]]:
    """Beside an AWS key id: a bare 40-character secret, and a session token (base64 of 100 characters or
    more, written bare, in YAML or in a Jenkins credential's braces)."""
    found = []
    for match in _AWS_SECRET.finditer(text):
        value = match.group()
        if any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value):
            found.append((match.start(), match.end(), "aws_secret_access_key", 1))
    for match in _AWS_SESSION_TOKEN.finditer(text):
        if looks_generated(match.group(), 100):
            found.append((match.start(), match.end(), "aws_secret_access_key", 2))
    return found


_AWS_SESSION_TOKEN = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{100,}={0,2}(?![A-Za-z0-9/+=])")
# The account key of Azure Storage (and of Cosmos DB): base64 of 64 random bytes, 88 characters ending `==`,
# a key when the text before it names one (`AccountKey`, `-storagekey`, `// the default key of ...`)
_STORAGE_KEY = re.compile(r"(?<![A-Za-z0-9+/=-])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])")


def storage_keys(text: str) -> list[tuple[int, int, str, int]]:
    found = []
    for match in _STORAGE_KEY.finditer(text):
        before = text[max(0, match.start() - 160) : match.start()].lower()
        if "key" in before and looks_generated(match.group(), 64):
            found.append((match.start(), match.end(), "azure_storage_key", 2))
    return found
