"""Secrets `kernel.secrets` knows by the sentence or record around them rather than by their own shape:
a password in a connection string, a `.netrc` or `.npmrc` entry, a Windows command line, a Vault unseal
key, a password stated in prose, a value in an element named for it (Android's `<string name=...>`).

A value that is an ordinary word counts here (`Password=secret;` in a connection string is the
database's password, whatever it looks like); what stays searchable is what names no value at all:
a reference (`$password`, `%PASS%`, `{password}`), a mask (`****`), and a capitalised stand-in
(`YOUR_PASSWORD`, `PASSWORD`).

`context_secrets(...)` returns `(start, end, kind, priority)` spans like the rest of the
detector; each rule is looked for only where its cue word occurs in `lowered`.
"""

from __future__ import annotations

import re

from kernel.secret_glued import glued_secrets
from kernel.secret_values import acceptable_value, low_variety, secret_name, weak_name

__all__ = ["context_secrets", "stand_in"]

_GLUED_CUES = frozenset((b"secret", b"token", b"key"))
_CONFIG_CUES = frozenset((b"pass", b"pwd", b"secret", b"token", b"key"))

# `Password=...;` / `Pwd=...;` among the other `Key=Value;` pairs of an ODBC, ADO.NET or JDBC string
_CONNECTION_KEYS = re.compile(
    r"(?i)(?:^|[;\s\"'])(?:server|data source|host|hostname|user id|userid|uid|user|username|database"
    r"|initial catalog|provider|driver|dsn|port|address|addr)\s*="
)
_CONNECTION_PASSWORD = re.compile(r"(?i)(?<![\w-])(?:password|pwd)\s*=\s*(\{[^}\n]{1,128}\}|[^;\"'\s][^;\"'\n]{0,127})")
# `.netrc`: `machine <host> login <user> password <value>`, on one line or several
_NETRC = re.compile(r"(?i)\bmachine\s+\S+\s+(?:login|user(?:name)?)\s+\S+\s+password\s+(\S+)")
# Sysinternals' `psexec \\host -u <user> -p <password>`
_PSEXEC = re.compile(r"(?i)\bpsexec(?:64)?(?:\.exe)?\b[^\n|;&]*?\s-p\s+(\"[^\"\n]+\"|'[^'\n]+'|[^\s\"']+)")
# PowerShell: `ConvertTo-SecureString "<plain>" -AsPlainText`, `-String "<plain>"`
_SECURE_STRING = re.compile(r"(?i)convertto-securestring\s+(?:-string\s+)?(\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'|)]+)")
# HashiCorp Vault's Shamir shares: `Unseal Key 1: <base64>`, `vault operator unseal <base64>`
_UNSEAL = re.compile(
    r"(?i)\bunseal(?:[ \t]+key[ \t]+\d+[ \t]*:|[ \t]+)[ \t]*([A-Za-z0-9+/]{40,}={0,2})(?![A-Za-z0-9+/=])"
)
# Maven's `settings-security.xml`: the master password, encrypted in braces (`<master>{...}</master>`)
_MAVEN_MASTER = re.compile(r"<master>\s*\{([A-Za-z0-9+/=\\]{16,})\}\s*</master>")
# "the (default) password (for user 'x') is 'value'": a password given in prose, in quotes
_PROSE_PASSWORD = re.compile(
    r"(?i)\bpassword(?:[ \t]+for[ \t]+(?:the[ \t]+)?(?:user[ \t]+|account[ \t]+)?[\"'`]?[\w@.-]+[\"'`]?)?"
    r"[ \t]+(?:is|was|will[ \t]+be|should[ \t]+be|:)[ \t]+(?:set[ \t]+to[ \t]+)?([\"'`])([^\"'`\s]{3,64})\1"
)
# Salesforce's session id: the 15-character org id (`00D...`), `!`, then the session's own part, whose
# dots and underscores break it into runs too short for the token scan of `kernel.secrets`
_SALESFORCE = re.compile(r"(?<![A-Za-z0-9])00D[A-Za-z0-9]{12}![A-Za-z0-9._]{80,}")
# .NET's appSettings: `<add key="SmtpPassword" value="..."/>`, the name in one attribute, the value in the next
_APP_SETTING = re.compile(r"""(?i)<add\s+(?:key|name)\s*=\s*"([\w.:-]{1,80})"\s+value\s*=\s*"([^"\n]{1,512})\"""")
# Terraform: `variable "db_password" { default = "..." }`
_TF_DEFAULT = re.compile(r"""variable\s+"([\w-]{1,80})"\s*\{[^{}]{0,400}?\bdefault\s*=\s*"([^"\n]{1,512})\"""")
# Constructors whose signature puts a password at a known position: (user, password[, domain]) and
# `DirectoryEntry(path, user, password)`; the arguments are string literals
_CREDENTIAL_CALL = re.compile(
    r"(?i)\b(NetworkCredential|HTTPBasicAuth|HTTPDigestAuth|BasicAuth|UsernamePasswordCredentials?"
    r"|PasswordAuthentication|PasswordCredential|DirectoryEntry)\s*\(((?:\s*(?:\"[^\"\n]*\"|'[^'\n]*')\s*,){1,2}"
    r"\s*(?:\"[^\"\n]*\"|'[^'\n]*'))"
)
# `.npmrc`: `_auth`, `_authToken` and `_password`, alone or scoped to a registry (`//host/:_authToken=`)
_NPMRC = re.compile(r"""(?m)(?:^|:)[ \t]*_(?:auth|authToken|password)[ \t]*=[ \t]*("[^"\n]+"|'[^'\n]+'|[^\s"'#;]+)""")
# An element whose `name` attribute names the value it holds: Android's `<string name="maps_api_key">...</string>`
_NAMED_ELEMENT = re.compile(r"""<(\w+)\s+name\s*=\s*["']([\w.:-]{1,80})["'][^>\n]{0,80}>([^<\n]{6,512})</\1>""")
# A configuration line (YAML, `.env`, properties, INI): a secret's name at the line's start and an unquoted
# value to its end. YAML and these formats have no variables, so a word there is the literal value
# (`password: hardcoded`, `SSHpassword=hardcoded`); code's `password = asdf` (spaces around `=`) is not read.
_CONFIG_LINE = re.compile(
    r"""[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?([A-Za-z_][\w.-]{0,80})(?:[ \t]*:[ \t]+|=)"""
    r"""([^\s"'`#;,(){}\[\]<>$%&|\\!*@][^\s"'`#;,(){}<>]{5,200})[ \t]*(?:[ \t]#.*)?\r?$"""
)
# A value named in the entry beside it: Kubernetes' `- name: DB_PASSWORD` / `value: ...`, a settings list's
# `{"key": "password", "value": "..."}`, `<key>password</key>` / `<value>...</value>`
_NAMED_PAIR = re.compile(
    r"""(?:["']?(?:key|name)["']?[ \t]*[:=][ \t]*["']?([\w.-]{1,80})["']?"""
    r"""|<(?:key|name)>([\w.-]{1,80})</(?:key|name)>)"""
    r"""[ \t]*,?[ \t]*(?:\r?\n[ \t]*(?:-[ \t]+)?)?"""
    r"""(?:["']?value["']?[ \t]*[:=][ \t]*(?:"([^"\n]{1,512})"|'([^'\n]{1,512})'|([^\s,}"'#<>]{1,512}))"""
    r"""|<value>([^<\n]{1,512})</value>)"""
)
_TYPE_NAME = re.compile(r"^(?:[A-Z][a-z]+)+$|^(?i:str|string|int|bool|bytes|text|varchar\w*|secretstr)$")
_STRING_LITERAL = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")


def stand_in(value: str) -> bool:
    """A value that names no secret: a reference, a template, a mask or a capitalised stand-in."""
    bare = value.strip("\"'")
    if len(bare) < 3 or low_variety(bare) or not any(c.isalnum() for c in bare):
        return True
    masked = bare.lower().count("x") + bare.count("*")
    if masked >= 4 and masked * 2 >= len(bare):  # `AKCxxxxxxxx`: a prefix and a mask
        return True
    if bare[0] in "$%<[" or bare.startswith(("{{", "${", "{password", "{pwd")) or bare.endswith("..."):
        return True
    letters = bare.replace("_", "").replace("-", "")
    return letters.isalpha() and letters.isupper()  # `YOUR_PASSWORD`, `PASSWORD`, `YOURPASSWROD`


def _config_lines(text: str, lowered: bytes) -> list[tuple[int, int, str, int]]:
    found = []
    seen: set[int] = set()
    for cue in (b"pass", b"pwd", b"secret", b"token", b"apikey", b"api_key"):
        at = lowered.find(cue)
        while at != -1:
            line_start = text.rfind("\n", 0, at) + 1
            if line_start not in seen and at - line_start <= 90:
                seen.add(line_start)
                match = _CONFIG_LINE.match(text, line_start)
                if match is not None and match.end(1) > at:
                    name, value = match.group(1), match.group(2)
                    if (
                        secret_name(name)
                        and not weak_name(name)
                        and not stand_in(value)
                        and not _TYPE_NAME.match(value.rstrip(".;"))
                        and acceptable_value(value, quoted=True, separator="=", name=name)
                    ):
                        found.append((match.start(2), match.end(2), "assignment", 2))
            at = lowered.find(cue, at + len(cue))
    return found


def _named_pairs(text: str, lowered: bytes) -> list[tuple[int, int, str, int]]:
    found = []
    at = lowered.find(b"value")
    while at != -1:
        low = max(0, at - 200)
        if lowered.rfind(b"name", low, at) == -1 and lowered.rfind(b"key", low, at) == -1:
            at = lowered.find(b"value", at + 5)
            continue
        for match in _NAMED_PAIR.finditer(text, low, at + 530):
            if not match.start() < at < match.end():
                continue
            name = match.group(1) or match.group(2)
            group = next(g for g in (3, 4, 5, 6) if match.group(g) is not None)
            value = match.group(group)
            quoted = group != 5
            if (
                secret_name(name)
                and not stand_in(value)
                and acceptable_value(value, quoted=quoted, separator="=", name=name)
            ):
                found.append((match.start(group), match.end(group), "assignment", 2))
        at = lowered.find(b"value", at + 5)
    return found


def _quoted(match: re.Match[str], group: int) -> tuple[int, int, str]:
    raw = match.group(group)
    if raw[:1] in "\"'" and raw[-1:] == raw[:1]:
        return match.start(group) + 1, match.end(group) - 1, raw[1:-1]
    return match.start(group), match.end(group), raw


def _connection_strings(text: str, lowered: bytes) -> list[tuple[int, int, str, int]]:
    found = []
    for cue in (b"password", b"pwd"):
        at = lowered.find(cue)
        while at != -1:
            match = _CONNECTION_PASSWORD.match(text, at)
            if match is not None:
                line_start = text.rfind("\n", 0, at) + 1
                line_end = text.find("\n", at)
                line = text[line_start : len(text) if line_end == -1 else line_end]
                if ";" in line and _CONNECTION_KEYS.search(line):
                    start, _, value = _quoted(match, 1)
                    value = value.rstrip()
                    if not stand_in(value):
                        found.append((start, start + len(value), "connection_string_password", 2))
            at = lowered.find(cue, at + len(cue))
    return found


def _named_values(text: str, pattern: re.Pattern[str], first: int = 1) -> list[tuple[int, int, str, int]]:
    """A value whose name stands in a neighbouring attribute or block header: the name must be a secret's.
    The name is group `first` of `pattern`, the value the group after it."""
    found = []
    for match in pattern.finditer(text):
        name, value = match.group(first), match.group(first + 1)
        if secret_name(name) and not stand_in(value) and acceptable_value(value, quoted=True, separator="=", name=name):
            found.append((match.start(first + 1), match.end(first + 1), "assignment", 2))
    return found


def _credential_calls(text: str) -> list[tuple[int, int, str, int]]:
    found = []
    for match in _CREDENTIAL_CALL.finditer(text):
        literals = list(_STRING_LITERAL.finditer(text, match.start(2), match.end(2)))
        index = 2 if match.group(1).lower() == "directoryentry" else 1
        if len(literals) <= index:
            continue
        literal = literals[index]
        group = 1 if literal.group(1) is not None else 2
        if not stand_in(literal.group(group)):
            found.append((literal.start(group), literal.end(group), "assignment", 2))
    return found


def _simple(text: str, pattern: re.Pattern[str], kind: str) -> list[tuple[int, int, str, int]]:
    found = []
    for match in pattern.finditer(text):
        start, end, value = _quoted(match, 1)
        if not stand_in(value):
            found.append((start, end, kind, 2))
    return found


def context_secrets(
    text: str, raw: bytes, lowered: bytes, words: set[bytes], dashed: bool, known: list[tuple[int, int, str, int]]
) -> list[tuple[int, int, str, int]]:
    """`words`: the keywords of `kernel.secrets` that occur in the text; `dashed`: the text holds ` -`.
    Each test of a cue scans the whole text, so the cues hang off what the caller already knows; `known`: the
    spans found so far (a value one of them starts needs no second look)."""
    found: list[tuple[int, int, str, int]] = []
    has_password = b"pass" in words and b"password" in lowered
    if has_password or b"pwd" in words:
        if b"=" in lowered:
            found += _connection_strings(text, lowered)
        if has_password:
            if b"machine" in lowered:
                found += _simple(text, _NETRC, "netrc_password")
            for match in _PROSE_PASSWORD.finditer(text):
                value = match.group(2)
                if not stand_in(value) and value.lower() not in ("required", "optional", "none", "null"):
                    found.append((match.start(2), match.end(2), "secret_in_prose", 3))
    if dashed:
        if b"psexec" in lowered:
            found += _simple(text, _PSEXEC, "command_line_password")
        if b"securestring" in lowered:
            found += _simple(text, _SECURE_STRING, "command_line_password")
    if b"unseal" in lowered:
        found += _simple(text, _UNSEAL, "vault_unseal_key")
    if b"<master>" in lowered:
        found += [(m.start(1), m.end(1), "maven_master_password", 1) for m in _MAVEN_MASTER.finditer(text)]
    if words:  # a value named in a neighbouring attribute: the name holds a keyword
        if b"<add" in lowered:
            found += _named_values(text, _APP_SETTING)
        if b"variable" in lowered and b"default" in lowered:
            found += _named_values(text, _TF_DEFAULT)
        if b"name" in lowered and b"</" in raw:
            found += _named_values(text, _NAMED_ELEMENT, first=2)
    if (b"auth" in words and b"_auth" in lowered) or (b"pass" in words and b"_password" in lowered):
        found += _simple(text, _NPMRC, "assignment")  # whatever the value looks like, it is the credential
    if (b"cred" in words or b"auth" in words or b"entry(" in lowered) and b"(" in raw:
        found += _credential_calls(text)
    if words & _GLUED_CUES or b"private" in lowered or b"access" in lowered:
        found += glued_secrets(
            text, lowered, {start for start, _, _, _ in known}
        )  # `cloudplanSECRET-<value>`, `boxTOKEN <value>`
    if words & _CONFIG_CUES:
        found += _config_lines(text, lowered)
        if b"value" in lowered:
            found += _named_pairs(text, lowered)
    if b"00D" in raw and b"!" in raw:
        found += [(m.start(), m.end(), "salesforce_session_id", 0) for m in _SALESFORCE.finditer(text)]
    return found
