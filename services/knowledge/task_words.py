"""Which words of a change request carry it: nouns, identifiers and file names, not its verbs.

"Make the block addon refuse link-local clients" is about `block` and `link-local`; `make` and
`refuse` say what to do, and would match every `Request.make` and every `refuse()`. A word is
left out when it is a stopword, a verb a request uses to say what to do, shorter than three
letters, or part of the repository's own name (`mitmproxy` in mitmproxy). A hyphenated or
`=`-joined compound (`Content-Type`, `SameSite=Strict`) is a phrase of prose, never an
identifier, even when capitalised.
"""

from __future__ import annotations

import re

__all__ = ["REQUEST_VERBS", "carrying_words", "compound_parts", "compound_phrases", "file_stem", "prefixes", "stems"]

# Verbs and fillers change requests use to say what to do, not what to do it to.
_VERBS = (
    "accept accepts allow allows also another apply avoid become being call called calls cannot choose chosen "
    "could currently does done each either else ensure even every expose extend fail fails first follow "
    "give given handle handles happen having implement include instead keep know last least less let lets "
    "like made many more most must need needs next now often once only other pass pick put raise rather "
    "really refuse reject rejects remove rename replace respect return returns same see seem should show "
    "since some something still such support supports take tell than that those though through too try "
    "turn under until very want way well whether while whole within would yet able about above after "
    "again against always among around away back before behind below beside between both come comes "
    "coming going goes here just onto over per upon via"
)
REQUEST_VERBS = frozenset(_VERBS.split())
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_COMPOUND = re.compile(r"[A-Za-z0-9_]+(?:[-=][A-Za-z0-9_]+)+")
_SUFFIXES = ("ings", "ing", "ers", "ed", "es", "s")


def compound_parts(task: str) -> set[str]:
    """The words inside hyphenated or `=`-joined compounds (`Content`, `Type`, `SameSite`, `Strict`)."""
    return {w for chunk in _COMPOUND.findall(task) for w in _WORD.findall(chunk)}


def compound_phrases(task: str) -> tuple[list[str], set[str]]:
    """Each compound as a phrase of its lowered words (`content type`), and the words that occur only
    inside compounds: those match as the phrase, never alone."""
    phrases, inside = [], set()
    for chunk in _COMPOUND.findall(task):
        parts = [w.lower() for w in _WORD.findall(chunk)]
        if len(parts) > 1:
            phrases.append(" ".join(parts))
            inside.update(parts)
    outside = {w.lower() for w in _WORD.findall(_COMPOUND.sub(" ", task))}
    return phrases, inside - outside


def carrying_words(task: str, stopwords: frozenset[str], repo_words: set[str]) -> list[str]:
    """The task's words that can tell files apart, lowered, in order, without repeats."""
    out: list[str] = []
    # `HTTP/1`, `HTTP/2`, `SOCKS 5`: the way folders spell them is `http1`, `http2`, `socks5`
    versioned = [a + b for a, b in re.findall(r"\b([A-Za-z]{3,})[/ ]?(\d)\b", task)]
    for word in [*_WORD.findall(task), *versioned]:
        lowered = word.lower()
        if len(lowered) < 3 or lowered in stopwords or lowered in REQUEST_VERBS or lowered in repo_words:
            continue
        if lowered not in out:
            out.append(lowered)
    return out


def stems(word: str) -> list[str]:
    """`reading` -> `reading`, `read`; `exporting` -> `export`; `decoders` -> `decoder`: the forms a
    file stem may take. Never shorter than four letters."""
    out = [word]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            out.append(word[: -len(suffix)])
            break
    return out


def prefixes(word: str) -> list[str]:
    """The prefixes a word's forms share in the index: `proxying` -> `proxy`, `proxi` (for `proxies`);
    `entries` -> `entri`, `entry`. Never shorter than four letters."""
    stem = stems(word)[-1]
    out = [stem]
    if stem.endswith("y") and len(stem) >= 5:
        out.append(stem[:-1] + "i")
    elif word.endswith("ies") and len(word) >= 7:
        out.append(word[:-3] + "y")
    return out


def file_stem(path: str) -> str:
    """`mitmproxy/addons/map_local.py` -> `maplocal`; `src/_decoders.py` -> `decoders`; `keyboard.tsx`
    -> `keyboard`: the name a task may spell as words."""
    name = path.rsplit("/", 1)[-1].split(".", 1)[0]
    return re.sub(r"[_\-]", "", name).lower()
