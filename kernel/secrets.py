"""The one secret detector: transcripts before they are stored, answers on the way out, patches before they apply.

Public API (stable): `find_secrets(text) -> list[SecretMatch]` and `redact(text) -> (text, count)`;
`KINDS` names every kind a match can have.

Five families, each behind a cheap test so that ordinary text costs two byte translations and a few
substring checks (indexing a gigabyte of transcripts runs every message through here):

- **token formats** (`kernel/secret_formats.py`: cloud, VCS, package, model-provider and SaaS keys,
  JWTs): tried only where a run of 16 or more token characters (letters, digits, `_`, `-`) starts;
- **private keys**: PEM and OpenSSH blocks, whole (an unterminated one: only the base64 lines after it);
- **credentials in URLs**: `scheme://user:password@host` for any scheme (postgres, mysql, mongodb+srv,
  redis, amqp, http(s) basic auth...), wherever the URL stands;
- **keyword rules**, only where a secret word appears: assignments to a secret-named name
  (`DB_PASSWORD=...`, `"client_secret": "..."`, `password_prod: ...`, `Password=...;` in connection
  strings), `Authorization: Bearer|Basic|token ...` headers, docker's base64 `"auth"`, `--password X` /
  `mysql -pX` / `sshpass -p X` / `curl -u user:pass` command lines, prose (`the password is ...`), and a
  bare 40-character AWS secret anywhere in a text that holds an AWS key id. Assignments are read in every
  syntax (`:=`, `::=`, `?=`, `.=`, typed and `name[]` declarations, `@"..."` and `r"..."` literals,
  `"NAME", "value"` arguments, `default=`, XML elements, comparisons with a literal, a line-start
  directive `password "..."`, secret-named setters and builders `.password("...")`) and through JSON
  escaping at any depth (`\\"token\\": \\"...\\"`);
- **shapes** (`kernel/secret_shapes.py`): webhook URLs, keys in URL paths and queries, DSN users,
  password hashes, and the bare output line of a key generator.

Precision: code is not a secret. Which names hold a secret and which values under them are one is
`kernel/secret_values.py`: an expression (`Math.min(this.burst, ...)`), a reference (`os.environ[...]`,
`${TOKEN}`, `settings.API_KEY`), a placeholder (`<your key>`, `xxxx`, `changeme`), a type
(`password: string`) or a label is left alone, and metadata names (`this.tokens`, `token_count`,
`max_tokens`, `secret_name`) are not secrets.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from kernel.secret_contexts import context_secrets
from kernel.secret_formats import FORMATS, GENERATED, WEAK
from kernel.secret_lists import listed_values, paired_values, starts_a_name_list
from kernel.secret_shapes import (
    aws_secrets,
    drawn_body,
    generator_output,
    key_material,
    looks_generated,
    password_hashes,
    storage_keys,
    url_secrets,
)
from kernel.secret_values import (
    KEY_FILE,
    PATH_VALUE,
    PLACEHOLDER,
    acceptable_value,
    drawn_value,
    is_alphabet,
    long_number,
    looks_like_code,
    low_variety,
    passphrase,
    secret_name,
    spaced_password,
    strong_value,
    through_ampersands,
    through_brackets,
    through_symbols,
    weak_name,
)

__all__ = ["KINDS", "SecretMatch", "find_secrets", "redact"]


@dataclass(frozen=True)
class SecretMatch:
    kind: str
    start: int
    end: int
    line: int  # 1-based line of the match's start


# ---------------------------------------------------------------- token formats


@functools.cache
def _format_pattern(first: str) -> re.Pattern[str] | None:
    """The token formats that can start with the character `first`, as one alternation, compiled the
    first time a candidate starts with it (trying only these keeps each candidate cheap)."""
    wanted = [i for i, starts in enumerate(_first_characters()) if starts is None or first in starts]
    if not wanted:
        return None
    return re.compile("|".join(f"(?P<k{i}>{FORMATS[i][1]})" for i in wanted))


@functools.cache
def _first_characters() -> tuple[frozenset[str] | None, ...]:
    """For each format, the characters a match can start with (None: any), from the parsed pattern."""
    from re import _parser  # type: ignore[attr-defined]

    def first(items) -> set[str] | None:
        for op, arg in items:
            name = str(op)
            if name == "LITERAL":
                return {chr(arg)}
            if name == "IN":
                out: set[str] = set()
                for kind, value in arg:
                    if str(kind) == "LITERAL":
                        out.add(chr(value))
                    elif str(kind) == "RANGE":
                        out.update(chr(c) for c in range(value[0], value[1] + 1))
                    else:
                        return None  # a category or a negation: any character
                return out
            if name == "BRANCH":
                out = set()
                for branch in arg[1]:
                    part = first(branch)
                    if part is None:
                        return None
                    out |= part
                return out
            if name == "SUBPATTERN":
                return first(arg[-1])
            if name in ("MAX_REPEAT", "MIN_REPEAT"):
                if arg[0] == 0:
                    return None  # optional: what follows may start the match too
                return first(arg[2])
            return None
        return None

    out = []
    for _, pattern in FORMATS:
        starts = first(_parser.parse(pattern))
        out.append(frozenset(starts) if starts is not None else None)
    return tuple(out)


_FORMAT_KINDS = {f"k{i}": kind for i, (kind, _) in enumerate(FORMATS)}
_RUN = 16
_RUN_BYTES = b"\x01" * _RUN
_RUN_TABLE = bytes(1 if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_-") else 0 for b in range(256))
_LOWER_ONLY = "abcdefghijklmnopqrstuvwxyz_-"
_UPPER_ONLY = "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-"
_BACK = 32  # how far before a run a format's prefix may start (`SG.`, `hvs.`, `api_live_us.<11>.`)
_BASE64_BEFORE = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]+$")


def _format_matches(text: str, marks: bytes) -> list[tuple[int, int, str, int]]:
    found: list[tuple[int, int, str, int]] = []
    position, covered = 0, -1
    while (start := marks.find(_RUN_BYTES, position)) != -1:
        end = marks.find(b"\x00", start)
        end = len(marks) if end == -1 else end
        position = end
        run = text[start:end]
        if not run.strip(_LOWER_ONLY) or ("_" in run and not run.strip(_UPPER_ONLY)):
            continue  # snake_case or CONSTANT_CASE words: identifiers, never a token
        for candidate in _candidates(text, start):
            if candidate < covered:
                continue
            pattern = _format_pattern(text[candidate])
            match = pattern.match(text, candidate) if pattern is not None else None
            if match is None:
                continue
            kind = _FORMAT_KINDS[match.lastgroup or ""]
            value = match.group()
            if (kind in WEAK and not _random_looking(value)) or (kind in GENERATED and not drawn_body(value)):
                continue
            if low_variety(value) or PLACEHOLDER.match(value) or is_alphabet(value):  # `hf_xxxx...`, AWS's
                continue  # `...EXAMPLE` keys, `da2-abcdefghijklmnopqrstuvwxyz`
            found.append((match.start(), match.end(), kind, 0))
            covered = match.end()
            break
    return found


def _candidates(text: str, run_start: int) -> list[int]:
    """Positions where a format may start: the run itself, after an escape (`\\nAKIA...` in JSON-escaped
    text), and, when a `.`, `:`, `~` or `$` ends a prefix (`SG.`, `hvs.`, `123456789:`), after each
    non-alphanumeric character shortly before it."""
    out = [run_start]
    if run_start < 1:
        return out
    before = text[run_start - 1]
    if before == "\\":
        out.append(run_start + 1)
    elif before in ".:~|$":
        for p in range(run_start - 1, max(-1, run_start - _BACK), -1):
            if (p == 0 or not text[p - 1].isalnum()) and text[p].isalnum():
                out.append(p)
    elif before in "+/=":  # inside base64: the token starts where the base64 does (`ops_eyJ...`, `glc_...`)
        head = _BASE64_BEFORE.search(text, max(0, run_start - 400), run_start)
        if head is not None and head.start() < run_start:
            out.append(head.start())
    return out


def _random_looking(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# ---------------------------------------------------------------- private keys and URLs

# A whole block; an unterminated one (a grep hit, a cut output) covers only the base64 lines that follow
# its header, never the rest of the text.
# PGP's armor headers (`Version: ...`, `Comment: ...`) may stand between the header and the body.
# A header may name the algorithm alone (`-----BEGIN RSA KEY-----`, as some tools and samples write it),
# never `PUBLIC`.
_KEY_LABEL = r"(?:(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?|(?:RSA|DSA|EC|OPENSSH) KEY)"
_PRIVATE_KEY = re.compile(
    rf"-----BEGIN {_KEY_LABEL}-----(?:[\s\S]{{0,20000}}?-----END {_KEY_LABEL}-----|"
    r"(?:(?:\\r|\\n|\r|\n)+[A-Z][A-Za-z-]{2,30}: [^\r\n\\]{0,200})*"
    r"(?:(?:\\r|\\n|\r|\n|\s)+[A-Za-z0-9+/=:-][A-Za-z0-9+/=:, -]{15,})+)"
)

# ---------------------------------------------------------------- keyword rules

# `cred` stands for `credential(s)` and `creds`; `auth` for `authorization` and docker's `auth`.
_KEYWORDS = (b"pass", b"pwd", b"secret", b"token", b"key", b"cred", b"auth", b"sid")
# At a keyword: NOUN ["'] SEP ["'`]; the name around the noun is read backwards from the separator.
# Separators: assignments in every language and Makefile (`:=`, `::=`, `?=`, PHP's `.=`), maps (`=>`, `:`),
# and `,` between a quoted name and its value (`System.setProperty("API_TOKEN", "...")`,
# `env("SECRET_KEY", default="...")`). Quotes may be JSON-escaped at any depth (`\"token\": \"...\"`).
_ASSIGN_AT = re.compile(
    r"""(?i)(?:password|passwd|passphrase|pwd|pass|secret|token|credentials?|creds|key|key[_-]?id|authorization"""
    r"""|sid|key[_-]?data)[A-Za-z0-9_-]{0,40}?(?:\[\d*\])?(?:\\{0,7}["']\]?)?"""
    r"""([ \t]+(?:string|String|str|\*?char\s*\*?|\[\]byte)\b)?"""
    r"""[ \t]*(:{1,3}=|=>|===|!==|==|!=|\?=|\.=|\+=|=|:|,|(?<=[ \t])-(?=[ \t])|(?<=[ \t])(?=@?["']|\w))[ \t]*"""
    r"""(?:(?:default|fallback|value)[ \t]*=[ \t]*)?"""
    r"""(?:@(?=["'])|[rRbBuU]{1,2}(?=["']))?((?:\\{0,7})["'`]|)"""
)
# A name that ends in a password noun: what a comparison with any quoted literal gives away
_PASSWORD_NAME = re.compile(r"(?i)(?:password|passwd|passphrase|pwd|secret)$")
_TYPED_VALUE = re.compile(r"""(?:String|string|str|char\s*\*|const|final|var|let)[ \t]*=[ \t]*((?:\\{0,7})["'`]|)""")
# Jenkins keeps a credential encrypted in braces (`<secret>{AQAAABAAAAAQ...=}</secret>`), words and all
_XML_AT = re.compile(
    r"""(?i)(?:password|passwd|passphrase|pwd|pass|secret|token|key|credentials?|apikey)(?:id|s)?>"""
    r"""\s*(\{[^<}\n]{6,}\}|[^<\s]{6,})\s*</"""
)
_PROSE_AT = re.compile(
    r"(?i)(password|passphrase|passwd|secret(?:[ _]access)?(?:[ _]key)?|token|key|credentials?)"
    r"(?:[ \t]+(?:is|was|are|of|for[ \t]+\S+[ \t]+is|to[ \t]+use[ \t]+is))?[ \t]*[:=]?[ \t]+[\"'`]?([^\s\"'`,;]{8,})"
)
# `"auth": "<base64>"` (docker's config.json, `user_auth`): a secret when it decodes to `user:password`
_AUTH_AT = re.compile(r"""(?i)auth(?:\\{0,7}["'])?[ \t]*[:=][ \t]*(?:\\{0,7}["'])?([A-Za-z0-9+/]{8,}={0,2})""")
_TAGGED = re.compile(r"<(\w+)>([^<]+)(?:</\1>)?")
_UNQUOTED_VALUE = re.compile(r"""[^\s"'`,;&|<>)\]}]+""")
_HEADER_VALUE = re.compile(
    r"(?i)(bearer|basic|token|bot|digest|apikey|sso-key|ssws)\s+([A-Za-z0-9._~+/:=-][A-Za-z0-9._~+/:=$-]{7,})"
)
# `Authorization` without a colon: nginx's `proxy_set_header Authorization "Basic ..."`, `-H 'Authorization Bearer ...'`
_HEADER_BARE = re.compile(r"""(?i)authorization[ \t]+["']?(?=(?:bearer|basic|token|ssws|digest)\s)""")
_RAW_HEADER = re.compile(r"[ \t]*([A-Za-z0-9][A-Za-z0-9._~+/=@-]{19,})(?=[\s\"'`]|$)")
_BEARER_AT = re.compile(r"(?i)(?:bearer|ssws)\s+([A-Za-z0-9._~+/-][A-Za-z0-9._~+/$-]{15,}=*)")
_VALUE = r"([^\s\"'`]+|\"[^\"\s]+\"|'[^'\s]+')"
_CLI_AT: tuple[tuple[bytes, re.Pattern[str]], ...] = (
    (
        b"--",
        re.compile(
            r"(?i)--(?:[a-z]+-)?(?:password|passwd|pass|tlspassword|token|api-key|apikey|secret|auth-token"
            r"|access-token)(?:=|\s+)(?!\S*://)" + _VALUE
        ),
    ),
    *(
        (b" -" + flag.lower().encode(), re.compile(r"(?i)\s-" + flag + r"(?:\s+|:)" + _VALUE))
        for flag in ("ClientSecret", "Password", "Passphrase", "Token", "ApiKey", "Secret", "AccessToken", "AuthToken")
    ),
    # Bundler's per-host credentials: `BUNDLE_GEMS__EXAMPLE__COM=user:password`
    (b"bundle_", re.compile(r"""BUNDLE_[A-Z0-9_]*__[A-Z0-9]+["']?[ \t]*[=:][ \t]*["']?([^\s"':]+:[^\s"']+)""")),
    (b"mysql", re.compile(r"mysql(?:dump|admin)?\b[^\n|;&]*?\s-p([^\s\"'`-][^\s\"'`]*)")),
    (b"sqlcmd", re.compile(r"(?:sqlcmd|bcp|osql)\b[^\n|;&]*?\s-P\s*" + _VALUE)),
    (b"ssh-keygen", re.compile(r"ssh-keygen\b[^\n|;&]*?\s-[PN]\s*" + _VALUE)),
    (b"pgpassword", re.compile(r"(?i)PGPASSWORD=" + _VALUE)),
    (b"htpasswd", re.compile(r"htpasswd\b[^\n|;&]*?\s-b\w*\s+\S+\s+\S+\s+" + _VALUE)),
    *(
        (
            tool.encode(),
            re.compile(
                tool + r"\w*\b[^\n|;&]*?\s-(?:passin\s+pass:|passout\s+pass:|storepass|keypass|p\b)\s*" + _VALUE
            ),
        )
        for tool in ("mongo", "keytool", "openssl")
    ),
    (b"mariadb", re.compile(r"mariadb(?:-dump)?\b[^\n|;&]*?\s-p([^\s\"'`-][^\s\"'`]*)")),
    (b"sshpass", re.compile(r"sshpass\s+-p\s*" + _VALUE)),
    (b"redis-cli", re.compile(r"redis-cli\b[^\n|;&]*?\s-a\s+([^\s\"'`]+)")),
    (
        b"curl",
        re.compile(
            r"curl\b(?:[^\n|;&]|\\\r?\n)*?\s(?:-u|--user)[ =]*(?:\"[^\"\n]*?\"|'[^'\n]*?'|[\"']?[^:\s\"']*):" + _VALUE
        ),
    ),
)
_SCHEME_BEFORE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,30}$")
# the password runs to the authority's last `@` (an unencoded `@` in it: `user:p@ss@host`)
_URL_AFTER = re.compile(r"//[^\s:/@'\"<>]*:([^\s/?#'\"<>]+)@[A-Za-z0-9\[._-]")
# A call that takes credentials positionally (`algoliasearch("APPID", "<key>")`): each generated-looking
# string argument.
_CALLEE = re.compile(
    r"(?i)(?:client|init|initialize|connect|login|auth\w*|credentials?|configure|setup|search|sdk)\s*$"
)
_ARGUMENTS = re.compile(r"\(([^()\n]{0,400})\)")
_STRING_ARG = re.compile(r"""(["'])([^"'\s]{16,})\1""")

_SPACE = re.compile(r"\s")
_VENDOR_WORD = re.compile(r"[ \t]*[A-Za-z][A-Za-z0-9-]{1,30}[ \t]+")


def _occurrences(lowered: bytes, word: bytes) -> Iterator[int]:
    position = lowered.find(word)
    while position != -1:
        yield position
        position = lowered.find(word, position + 1)


def _keyword_matches(text: str, lowered: bytes, seen: set[bytes]) -> list[tuple[int, int, str, int]]:
    """The keyword rules; `seen` gets each keyword that occurs (the rules of `kernel.secret_contexts` hang off them)."""
    found: list[tuple[int, int, str, int]] = []
    find = lowered.find
    for word in _KEYWORDS:  # one `find` per word for a text without it: most texts
        at = find(word)
        if at != -1:
            seen.add(word)
        while at != -1:
            _at_keyword(text, lowered, word, at, found)
            at = find(word, at + 1)
    for cue in (b"bearer", b"ssws"):
        at = find(cue)
        while at != -1:
            bearer = _BEARER_AT.match(text, at)
            if bearer is not None and strong_value(bearer.group(1), 16) and not PLACEHOLDER.match(bearer.group(1)):
                found.append((bearer.start(1), bearer.end(1), "bearer_token", 2))
            at = find(cue, at + 1)
    return found


def _at_keyword(text: str, lowered: bytes, word: bytes, at: int, found: list[tuple[int, int, str, int]]) -> None:
    """The rules that start at one occurrence of a keyword."""
    if word == b"auth" and not lowered.startswith(b"orization", at + 4):
        auth = _AUTH_AT.match(text, at)  # docker's `"auth": "<base64 of user:password>"`
        if auth is not None and _basic_credentials(auth.group(1)):
            found.append((auth.start(1), auth.end(1), "assignment", 2))
        return
    assignment = _ASSIGN_AT.match(text, at)
    if assignment is not None:
        found += _assignment(text, assignment)
    if word == b"sid":
        return
    if "=" in text[max(0, at - 48) : at]:
        found += _reverse_comparison(text, at)
    if ">" in text[at : at + 24]:
        xml = _XML_AT.match(text, at)
        if xml is not None:
            found += _xml_element(text, at, xml)
    if at and (text[at - 1].isalnum() or text[at - 1] == "_"):
        return
    if word == b"auth":  # `Authorization "Basic ..."`, without a colon
        bare = _HEADER_BARE.match(text, at)
        if bare is not None:
            header = _HEADER_VALUE.match(text, bare.end())
            if header is not None and _header_secret(header):
                found.append((header.start(2), header.end(2), "authorization_header", 2))
        return
    prose = _PROSE_AT.match(text, at)
    if prose is None or _public(text, at):
        return
    value, start = prose.group(2).rstrip(".!?)"), prose.start(2)
    tag = _TAGGED.match(value)
    if tag is not None:  # `token <code>hf_xxxxx</code>`: the value inside the markup
        value, start = tag.group(2), start + tag.start(2)
    strong = 8 if prose.group(1).lower().startswith("pass") else 16
    if (
        "<" not in value
        and not PLACEHOLDER.match(value)
        and strong_value(value, strong)
        and not looks_like_code(value)
        and not PATH_VALUE.match(value)
        and not KEY_FILE.search(value)
        and "://" not in value  # `API Token https://.../settings/tokens`: where to get one
        and not low_variety(value)
    ):
        found.append((start, start + len(value), "secret_in_prose", 3))


def _credential_calls(text: str) -> list[tuple[int, int, str, int]]:
    """Generated-looking string arguments of calls that take credentials (`algoliasearch("APPID", "<key>")`):
    found from each parenthesis a quote follows, the callee read backwards from it."""
    found = []
    opens = set()
    for opener in ('("', "('", '( "', "( '"):
        at = text.find(opener)
        while at != -1:
            opens.add(at)
            at = text.find(opener, at + 1)
    for at in sorted(opens):
        found += _setter_call(text, at)
        if _CALLEE.search(text, max(0, at - 40), at) is None:
            continue
        call = _ARGUMENTS.match(text, at)
        if call is None:
            continue
        for arg in _STRING_ARG.finditer(call.group(1)):
            if looks_generated(arg.group(2), 16) or (len(arg.group(2)) >= 24 and _hex(arg.group(2))):
                start = call.start(1) + arg.start(2)
                found.append((start, start + len(arg.group(2)), "assignment", 3))
    return found


# `.password("...")`, `setApiKey("...")`, `with_token("...")`, `std::string secret("...")`, `secret.assign("...")`
_SETTER_BEFORE = re.compile(
    r"(?:(?P<dot>\.)|(?P<type>\b(?:std::)?(?:string|String|QString|wstring|char)\s+)|\b)"
    r"(?P<name>[A-Za-z_]\w*)(?P<assign>\.assign)?\s*$"
)
_VERB = re.compile(
    r"^(?:get|fetch|load|read|find|lookup|has|is|check|verify|validate|compare|hash|encrypt|decrypt|generate"
    r"|gen|create|new|make|rotate|revoke|delete|remove|del|store|save|put|write|update|reset|require|request"
    r"|prompt|ask|input|parse|decode|encode|sign|print|log|mask|redact|sanitize|getpass|use|format|to|from)"
    r"(?:[_A-Z0-9]|$)"
)
# The last of up to four string arguments (`keyring.set_password("svc", "user", "<password>")`).
_SETTER_ARGS = re.compile(r"""\(\s*(?:(?:"[^"\n]*"|'[^'\n]*')\s*,\s*){0,3}(["'])([^"'\n]{6,200})\1\s*[,)]""")


def _setter_call(text: str, at: int) -> list[tuple[int, int, str, int]]:
    """A secret-named setter, builder step or constructor given a literal: its last string argument."""
    before = _SETTER_BEFORE.search(text, max(0, at - 80), at)
    if before is None:
        return []
    name = before.group("name")
    setter = re.match(r"(?:set|with)_?(?=[A-Z_])", name)
    if setter is None and not (before.group("dot") or before.group("type") or before.group("assign")):
        return []
    noun = name[setter.end() :].lstrip("_") if setter else name
    if _VERB.match(noun[:1].lower() + noun[1:]) or not secret_name(noun) or weak_name(noun):
        return []
    call = _SETTER_ARGS.match(text, at)
    if call is None:
        return []
    value = call.group(2)
    if not strong_value(value, 8) or not acceptable_value(value, quoted=True, separator="(", name=noun):
        return []
    if " " in value and not passphrase(value, noun):
        return []
    return [(call.start(2), call.end(2), "assignment", 2)]


_REVERSE_CMP = re.compile(r"""(["'])([^"'\s]{8,200})\1[ \t]*(?:===|!==|==|!=)[ \t]*$""")


def _reverse_comparison(text: str, at: int) -> list[tuple[int, int, str, int]]:
    """`if ("<literal>" == password)`: the secret stands before the name it is compared with."""
    start = at
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.$"):
        start -= 1
    if "=" not in text[max(0, start - 5) : start]:  # the cheap test first: no comparison right before
        return []
    end = at
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    if not secret_name(text[start:end]):
        return []
    match = _REVERSE_CMP.search(text, max(0, start - 240), start)
    if match is None:
        return []
    value = match.group(2)
    if PLACEHOLDER.match(value) or low_variety(value) or not strong_value(value, 8):
        return []
    return [(match.start(2), match.end(2), "assignment", 2)]


def _hex(value: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in value) and len(value) not in (40, 64)


def _public(text: str, at: int) -> bool:
    """`public key: age1...`, `publicKey`, `pubkey`: a public key is meant to be shared."""
    before = text[max(0, at - 8) : at].lower().rstrip(" _-.")
    return before.endswith(("public", "pub"))


def _header_secret(header: re.Match[str]) -> bool:
    value = header.group(2)
    if PLACEHOLDER.match(value) or value.startswith("$") or low_variety(value):
        return False
    if header.group(1).lower() == "basic":  # a pair decides by itself: `dXNlcm5hbWU6cGFzc3dvcmQ=` is user:password
        pair = _decoded_pair(value)
        return not _STAND_IN_PAIR.match(pair) if pair is not None else looks_generated(value, 24)
    return True


def _xml_element(text: str, at: int, match: re.Match[str]) -> list[tuple[int, int, str, int]]:
    open_at = text.rfind("<", max(0, at - 80), at)
    if open_at == -1:
        return []
    name = text[open_at + 1 : match.start() + match.group().index(">")]
    if name.endswith("s") and not name.endswith("ss"):  # `<api_tokens>`: read as its singular
        name = name[:-1]
    if not re.fullmatch(r"[\w.:-]+", name) or not secret_name(name):
        return []
    value = match.group(1)
    if value.startswith("{") and value.endswith("}"):
        words = value[1:-1].split()
        if not any(acceptable_value(w, quoted=True, separator=">", name=name) and strong_value(w, 8) for w in words):
            return []
        return [(match.start(1) + 1, match.end(1) - 1, "assignment", 2)]
    if not acceptable_value(value, quoted=True, separator=">", name=name):
        return []
    return [(match.start(1), match.end(1), "assignment", 2)]


def _assignment(text: str, match: re.Match[str]) -> list[tuple[int, int, str, int]]:
    separator, quote = match.group(2), match.group(3)
    if separator in ("==", "!=", "===", "!==") and not quote:  # only `api_key == "<literal>"`, a hard-coded secret
        return []
    noun_end = match.start(1) if match.group(1) else match.start(2)
    while noun_end > match.start() and text[noun_end - 1] in " \t\"'\\":
        noun_end -= 1
    if text[noun_end - 1] == "]" and text[noun_end - 2 : noun_end - 1] in ("'", '"'):
        noun_end -= 2  # `os.environ["OPENAI_API_KEY"] = "..."`: the quoted subscript is the name
    elif text[noun_end - 1] == "]":  # `secret[] = "..."`, `char secret[25] = "..."`
        noun_end = text.rfind("[", match.start(), noun_end)
    if separator == ",":  # only `"NAME", "value"`: a quoted name, then a quoted value
        if not quote or text[noun_end : noun_end + 8].lstrip("\\")[:1] not in ("'", '"'):
            return []
        if text[max(0, noun_end - 1) :].startswith(")"):
            return []
    name_start, lowest = noun_end, max(0, noun_end - 80)
    while name_start > lowest and (text[name_start - 1].isalnum() or text[name_start - 1] in "_.-"):
        name_start -= 1
    name = text[name_start:noun_end]
    if not secret_name(name) or (weak_name(name) and _public(text, name_start)):  # `# public key: age1...`
        return []
    if separator in ("=", ":=") and starts_a_name_list(text, text.rfind("\n", 0, name_start) + 1, name_start):
        return []  # `user, password := "app", "<value>"`: the value at its position is `paired_values`'
    if separator == "":  # `password "<literal>"`, `LicenseKey <key>`, `acme SECRET_KEY <key>` start their line
        line_start = text.rfind("\n", 0, name_start) + 1  # (a directive, after a vendor's word at most),
        before = text[line_start:name_start]  # unlike `kubectl get secret "<name>"`
        if before.strip() and not _VENDOR_WORD.fullmatch(before):
            return []
    if separator in ("", "-") and not quote:  # unquoted, only what a generator prints: `PasswordAuthentication
        value_match = _UNQUOTED_VALUE.match(text, match.end())  # no` is a setting; `APIKEY - <key>` is not
        if value_match is None or not drawn_value(value_match.group()):
            return []
    value_start = match.end()
    if name.lower().endswith("authorization"):
        header = _HEADER_VALUE.match(text, value_start)
        if header is None:  # a bare token: `Authorization: 5eb4223e-5008-...`
            raw = _RAW_HEADER.match(text, value_start)
            if raw is not None and not low_variety(raw.group(1)) and sum(c.isdigit() for c in raw.group(1)) >= 3:
                return [(raw.start(1), raw.end(1), "authorization_header", 2)]
            return []
        if not _header_secret(header):
            return []
        return [(header.start(2), header.end(2), "authorization_header", 2)]
    if not quote and separator in (":", "="):  # `var apiToken: String = "..."`
        typed = _TYPED_VALUE.match(text, value_start)
        if typed is not None:
            quote, value_start = typed.group(1), typed.end()
    if quote:
        close = text.find(quote, value_start, value_start + 8192)
        if close == -1:
            return []
        value = text[value_start:close]
        if value != value.strip() and not _SPACE.search(value.strip()):  # `" V77f6...6yC "`: padded, one word
            value_start += len(value) - len(value.lstrip())
            value = value.strip()
        if _SPACE.search(value):
            header = _HEADER_VALUE.fullmatch(value)  # `bannerBearToken := "Bearer <token>"`: a header's value
            token = header.group(2) if header is not None else ""
            if (
                header is not None
                and _header_secret(header)
                and (strong_value(token, 16) or looks_generated(token, 16))
            ):
                return [(value_start + header.start(2), value_start + header.end(2), "authorization_header", 2)]
            if quote.endswith("`") or separator == "-" or not (passphrase(value, name) or spaced_password(value, name)):
                return []
    else:
        value_match = _UNQUOTED_VALUE.match(text, value_start)
        if value_match is None:
            return []
        value = through_brackets(text, value_match)
        value = through_symbols(text, value, value_match.start() + len(value))
        if separator == "=" and name.isupper() and text[value_start + len(value) : value_start + len(value) + 1] == "&":
            value = through_ampersands(text, value_start, value)  # `SAS_TOKEN=sp=r&st=...&sig=...` in a .env file
        if value.endswith("\\") or value.endswith("\\n"):  # `TOKEN=abc\nNEXT=1` inside a JSON string
            cut = value.find("\\")
            value = value[:cut]
        elif "\\n" in value or "\\r" in value:
            value = re.split(r"\\[nr]", value)[0]
    if separator == ":" and not quote and value_start == match.start(2) + 1 and "." in name:
        return []  # `io.jsonwebtoken:jjwt`, `host.token:8080`: coordinates, not a mapping
    if not acceptable_value(value, quoted=bool(quote), separator=separator, name=name):
        return []
    if separator in ("==", "!=", "===", "!==") and quote and _PASSWORD_NAME.search(name):
        pass  # `if password == "team10"`: a login check against a hard-coded password, whatever it looks like
    elif separator in ("==", "!=", "===", "!==", "", "-") and not (
        strong_value(value, 8) or looks_generated(value, 16) or long_number(value)
    ):
        return []  # a comparison, or `password "<literal>"` (a directive, a DSL call): a strong literal only
    kind = "azure_storage_key" if name.lower() in ("accountkey", "sharedaccesskey") else "assignment"
    return [(value_start, value_start + len(value), kind, 2)]


def _decoded_pair(value: str) -> str | None:
    """`user:password` when `value` is its base64, else None."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return decoded if ":" in decoded and len(decoded) >= 3 else None


def _basic_credentials(value: str) -> bool:
    pair = _decoded_pair(value)
    return pair is not None and not _STAND_IN_PAIR.match(pair)


# `user:pass`, `username:password`, `admin:secret`: a documented stand-in, not a credential
_STAND_IN_PAIR = re.compile(
    r"(?i)^(?:user(?:name)?|admin|login|foo|test):(?:pass(?:word)?|passwd|pwd|secret|bar|test)$"
)


def _cli_matches(text: str, lowered: bytes) -> list[tuple[int, int, str, int]]:
    found = []
    for cue, pattern in _CLI_AT:
        for at in _occurrences(lowered, cue):
            match = pattern.match(text, at)
            if match is None:
                continue
            raw = match.group(1)
            value = raw.strip("\"'")
            bare = value.strip("<>[]{}()$")
            if value.startswith(("-", "$")) or PLACEHOLDER.match(bare) or len(value) < 4 or low_variety(value):
                continue
            start = match.start(1) + (1 if raw[:1] in "\"'" else 0)
            found.append((start, start + len(value), "command_line_password", 2))
    return found


def _url_matches(text: str, raw: bytes) -> list[tuple[int, int, str, int]]:
    found = []
    for at in _occurrences(raw, b"://"):
        if _SCHEME_BEFORE.search(text, max(0, at - 31), at) is None:
            continue
        match = _URL_AFTER.match(text, at + 1)
        if match is None:
            continue
        password = match.group(1)
        if PLACEHOLDER.match(password) or password.lower() in ("pass", "pwd") or not any(c.isalnum() for c in password):
            continue  # a mask (`••••••••`) names no password
        if len(password) < 4 or low_variety(password):  # `user:abc@`, `user:1111@`: a documentation stand-in
            continue
        if password.startswith("{") and password.endswith("}"):
            continue  # an interpolation: `f"https://{user}:{get_token()}@host"`
        user = text[at + 3 : match.start(1) - 1]
        if password == user:  # `postgresql://user:user@...`, `admin:admin`: a stand-in, not a credential
            continue
        found.append((match.start(1), match.end(1), "url_credentials", 1))
    return found


# ---------------------------------------------------------------- the detector

# Substring tests (`bytes.find` is far faster than a regex alternation over the same text).
# Every word of `GENERATOR_WORDS` holds one of these or `password`: a few cheap tests before the full list.
_GENERATOR_HINTS = (b"gen", b"rand", b"token_", b"secret", b"apg ", b"makepasswd")

KINDS: tuple[str, ...] = (
    *dict.fromkeys(kind for kind, _ in FORMATS),
    "private_key",
    "url_credentials",
    "aws_secret_access_key",
    "assignment",
    "azure_storage_key",
    "authorization_header",
    "bearer_token",
    "command_line_password",
    "secret_in_prose",
    "webhook_url",
    "url_path_key",
    "url_query_secret",
    "password_hash",
    "generated_secret",
    "connection_string_password",
    "netrc_password",
    "vault_unseal_key",
    "maven_master_password",
    "salesforce_session_id",
)


def find_secrets(text: str) -> list[SecretMatch]:
    """Likely secrets in `text`, in order, without overlaps; each span is the secret value itself."""
    if len(text) < 8:
        return []
    raw = text.encode("ascii", "replace")  # one byte per character, so offsets stay those of `text`
    spans: list[tuple[int, int, str, int]] = []
    marks = raw.translate(_RUN_TABLE)
    if _RUN_BYTES in marks:
        spans += _format_matches(text, marks)
        if any(kind == "aws_access_key_id" for _, _, kind, _ in spans):
            spans += aws_secrets(text)
        if b"==" in raw and b"key" in raw.lower():
            spans += storage_keys(text)
    if (
        b"PRIVATE KEY" in raw or b" KEY-----" in raw
    ):  # a block whose body holds no key material (`...`, `abab...`) is an example
        blocks = _PRIVATE_KEY.finditer(text)
        spans += [(m.start(), m.end(), "private_key", 0) for m in blocks if key_material(m.group())]
    lowered = raw.lower()
    if b"://" in raw:
        if b"@" in raw:
            spans += _url_matches(text, raw)
        spans += url_secrets(text)
    elif b"hook" in lowered and (
        b"hooks.slack.com/" in lowered or b"/api/webhooks/" in lowered or b"webhook.office.com/" in lowered
    ):
        spans += url_secrets(text)
    if b"$" in raw:
        spans += password_hashes(text)
    words: set[bytes] = set()
    spans += _keyword_matches(text, lowered, words)
    if b"(" in raw and (b'("' in raw or b"('" in raw or b'( "' in raw or b"( '" in raw):
        spans += _credential_calls(text)
    dashed = b" -" in raw
    if dashed or b"pgpassword" in lowered or b"bundle_" in lowered:
        spans += _cli_matches(text, lowered)
    spans += context_secrets(text, raw, lowered, words, dashed, spans)
    if words and (b'", "' in raw or b"', '" in raw or b'","' in raw or b"`, `" in raw):
        spans += paired_values(text)  # `user, password := "app", "<value>"`
    if words and ((b"- " in raw and (b":\n" in raw or b":\r\n" in raw)) or b'": [' in raw or b'":[' in raw):
        spans += listed_values(text)  # `passwords:` then `- "<value>"`
    if b"\n" in raw and (
        any(cue in lowered for cue in _GENERATOR_HINTS) or (b"pass" in words and b"password" in lowered)
    ):
        spans += generator_output(text)
    if not spans:
        return []
    spans += _repeats(text, spans)
    spans.sort(key=lambda s: (s[0], s[3], -(s[1] - s[0])))
    found: list[SecretMatch] = []
    last_end = -1
    for start, end, kind, _ in spans:
        if start < last_end or end <= start:
            continue
        found.append(SecretMatch(kind, start, end, text.count("\n", 0, start) + 1))
        last_end = end
    return found


def _repeats(text: str, spans: list[tuple[int, int, str, int]]) -> list[tuple[int, int, str, int]]:
    """Every other occurrence of a value found as a secret (`token = '<v>' | '<v>'`, a key echoed back):
    once the text shows the value is a secret, a bare copy of it is the same secret."""
    out = []
    for start, end, kind, priority in spans:
        value = text[start:end]
        if len(value) < 8:
            continue
        at = text.find(value)
        while at != -1:
            if at != start:
                out.append((at, at + len(value), kind, priority + 1))
            at = text.find(value, at + 1)
    return out


def redact(text: str) -> tuple[str, int]:
    """Replace each likely secret with `[REDACTED:<kind>]`; return the new text and how many were replaced."""
    matches = find_secrets(text)
    if not matches:
        return text, 0
    parts, cursor = [], 0
    for m in matches:
        parts.append(text[cursor : m.start])
        parts.append(f"[REDACTED:{m.kind}]")
        cursor = m.end
    parts.append(text[cursor:])
    return "".join(parts), len(matches)
