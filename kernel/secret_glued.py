"""Secrets named by a vendor's word glued to a secret noun: `cloudplanSECRET-<value>`, `boxTOKEN <value>`,
`dd_secret_key-<value>`, `fileio.PRIVATE.TOKEN-<value>`, `eventbrite private access key <value>`,
`Using Key=<value>` in a log line.

The keyword rules of `kernel.secrets` read an assignment (`NAME = value`, `NAME: value`) and take a value
glued to its name only from a vendor's format. Here the name is a vendor's word and one to four secret
nouns (`secret`, `private`, `access`, `token`, `key`, `api`, `auth`), joined by nothing, `-`, `_`, `.`
or a space, and the value follows after `-`, `.`, `:`, `=`, a space or a line break. What the name gives
is weak evidence on its own (`recv-key 3AA5C34371567BD2`, `secret-volume-1a2b3c`), so the value must be
shaped like a made-up key: 12 characters or more, letters with digits (or, letters alone, both cases
strewn through each other, or 16 digits or more), its first part no lowercase word (`volume-1234abcd`),
and no placeholder, mask, alphabet, path, code or URL. A name that is only `key`, `api`, `auth` or
`access` (no `secret`, `private` or `token`) takes 20 characters or more with three digits or more, or
a value a generator drew.

`glued_secrets(text, lowered)` returns `(start, end, kind, priority)` spans like the rest of the detector;
it looks only where `lowered` holds one of the nouns.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from kernel.secret_values import (
    KEY_FILE,
    PATH_VALUE,
    PLACEHOLDER,
    drawn_value,
    is_alphabet,
    looks_like_code,
    low_variety,
)

__all__ = ["glued_secrets"]

_CUES = (b"secret", b"private", b"token", b"access", b"key")
_NOUN = r"(?:secret|private|access|token|key|api|auth)"
# the nouns from a cue on: `SECRET-`, `PRIVATEkey `, `access_key_`, `secret TOKEN `
_NOUNS_AT = re.compile(r"(?i)" + _NOUN + r"(?:[-_. ]?(?:" + _NOUN[3:-1] + r"|tok)){0,3}")
# the separator, then the value: `-`, `.`, `:`, `=` (with spaces around), a line break or spaces
_VALUE_AFTER = re.compile(
    r"(?:[ \t]*[-:=._][ \t]*|[ \t]*\r?\n[ \t]*|[ \t]+)[\"'`]?"
    r"([A-Za-z0-9][A-Za-z0-9+/_.=-]{10,2000})(?![A-Za-z0-9+/_.=@:-])"
)
# a noun written just before the cue (`apikey`, `secret_key`), read back from the cue
_NOUN_BEFORE = re.compile(r"(?i)" + _NOUN + r"[-_. ]?$")
_VENDOR_BEFORE = re.compile(r"(?<![\w$.@/\\-])([A-Za-z][A-Za-z0-9]{1,30})([-_. ]?)$")
_STRONG_NOUN = re.compile(r"(?i)secret|private|token")
_NOT_VENDOR = re.compile(
    r"(?i)^(?:public|pub|publishable|primary|foreign|sort|partition|cache|unique|composite|row|range|hash|lookup"
    r"|index|map|dict|object|item|group|shard|idempotency|label|message|list|storage|ssh|gpg|pgp|recv|no|csrf|xsrf"
    r"|get|describe|create|delete|edit|rotate|show|read|view|revoke|generate|new)$"
)
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_KIND_CHANGE = re.compile(r"\d(?=[^\W\d_])|[^\W\d_](?=\d)")
_NOT_ALNUM = re.compile(r"[\W_]+")
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[^\W\d_]")
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_WORD_PART = re.compile(r"^[a-z]{4,}$")
_TEXT_WORDS = re.compile(r"[a-z]{4,}")


def _vowely(word: str, share: float = 0.3) -> bool:
    return sum(c in "aeiouy" for c in word.lower()) >= share * len(word)


def _wordy(value: str) -> bool:
    """Letters in words with a number or two (`release2024notes`, `user42profile`, `node18alpine`): a name,
    not a key, which changes between letters and digits more often (`ykzuistt01lwppi711h`)."""
    changes = len(_KIND_CHANGE.findall(_NOT_ALNUM.sub("", value)))
    return changes <= 2 and any(_vowely(w, 0.25) for w in _TEXT_WORDS.findall(value.lower()))


def _made_up(value: str, strong: bool) -> bool:
    """A value shaped like a key someone made up or drew (see the module's docstring)."""
    if len(value) < 12 or PLACEHOLDER.match(value) or low_variety(value) or is_alphabet(value):
        return False
    if "://" in value or PATH_VALUE.match(value) or KEY_FILE.search(value) or looks_like_code(value):
        return False
    if value.count("/") * 12 >= len(value):  # `uploads/2024/a.png`: a path's parts, not base64
        return False
    if Counter(value).most_common(1)[0][1] * 2 >= len(value):  # `000...000TUVWXYZ`: filler
        return False
    if _ENV_NAME.match(value):  # `ZENDESK_WEBHOOK_API_SECRET`: the name of a variable that holds it
        return False
    if _decodes_to_text(value):  # `YmVkcm9jay5hbWF6b25hd3MuY29x`: base64 of a host name, not of random bytes
        return False
    first = re.split(r"[-_.+/=]", value, maxsplit=1)[0]
    if _WORD_PART.match(first) and _vowely(first):  # `volume-1234abcd`, `manager-prod2024`
        return False
    digits = len(_DIGIT.findall(value))
    letters = len(_LETTER.findall(value))
    if not strong:  # `key`, `api`, `auth` or `access` alone: letters with digits strewn, or a long number
        if drawn_value(value) or (digits >= 2 and letters >= 2 and not _wordy(value)):
            return True
        return value.isdigit() and len(value) >= 16
    if digits and letters:
        return not _wordy(value)
    if letters:  # a letter run a person made up (`abcdefghijklmnopqrst`), or both cases strewn
        changes = sum(a.isupper() != b.isupper() for a, b in itertools.pairwise(value) if a.isalpha())
        if changes >= 4 and not value.isupper() and not value.islower():
            return True
        run = value.replace("-", "").replace("_", "")
        return len(run) >= 16 and run.isalpha() and not _vowely(run)
    return digits >= 16


def _decodes_to_text(value: str) -> bool:
    if len(value) % 4 or not _BASE64.fullmatch(value):
        return False
    import base64
    import binascii

    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return all(32 <= b < 127 for b in decoded)


def _name_start(text: str, at: int) -> tuple[int, str, str] | None:
    """Where the name before the nouns at `at` starts, its vendor word and the glue after it: the nouns
    written before the cue are read back one by one (`dd-apikey`: `api` before `key`), and the vendor word
    is the first before them that stands as one (`screenshotapi KEY`: `screenshotapi`, not `screenshot`)."""
    starts = [at]
    while len(starts) < 4:
        noun = _NOUN_BEFORE.search(text, max(0, starts[-1] - 8), starts[-1])
        if noun is None:
            break
        starts.append(noun.start())
    for start in reversed(starts):
        vendor = _VENDOR_BEFORE.search(text, max(0, start - 32), start)
        if vendor is None:
            continue
        word, glue = vendor.group(1), vendor.group(2)
        # glued in one case: `codatoken`, `speechtextaccess`, never a word's end (`monkey`, `turkey`)
        one_case = glue == "" and not (word[-1].islower() and text[start].isupper())
        if one_case and (text[start : start + 3].lower() not in ("sec", "tok", "pri", "acc") or len(word) < 4):
            continue
        if _NOT_VENDOR.match(word):
            return None
        return vendor.start(), word, glue
    return None


def glued_secrets(
    text: str, lowered: bytes, known: set[int] | frozenset[int] = frozenset()
) -> list[tuple[int, int, str, int]]:
    """`known`: where spans the caller found already start (their values need no second look)."""
    found: set[tuple[int, int, str, int]] = set()
    read: set[int] = set()  # where a run of nouns ends: `SECRET_KEY` is read once, from `secret` or `key`
    for cue in _CUES:
        at = lowered.find(cue)
        while at != -1:
            span = _at_cue(text, at, read, known)
            if span is not None:
                found.add(span)
            at = lowered.find(cue, at + 1)
    return sorted(found)


def _at_cue(text: str, at: int, read: set[int], known: set[int] | frozenset[int]) -> tuple[int, int, str, int] | None:
    nouns = _NOUNS_AT.match(text, at)
    if nouns is None or nouns.end() in read:
        return None
    read.add(nouns.end())
    value = _VALUE_AFTER.match(text, nouns.end())
    if value is None or value.start(1) in known:
        return None
    name = _name_start(text, at)
    if name is None:
        return None
    start, _, _ = name
    line_start = text.rfind("\n", 0, at) + 1
    if start < line_start:
        return None
    candidate = value.group(1).rstrip(".-_")
    phrase = text[start : nouns.end()]
    if not _made_up(candidate, _STRONG_NOUN.search(phrase) is not None):
        return None
    return value.start(1), value.start(1) + len(candidate), "assignment", 3
