"""Words for search: identifiers split at camelCase and snake_case, and FTS5 queries built from them."""

from __future__ import annotations

import re

__all__ = ["fts_query", "query_words", "split_terms"]

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def split_terms(text: str) -> str:
    """`getHTTPResponse_code` -> `get http response code`: the parts an agent might type, lower-cased."""
    return " ".join(_CAMEL.findall(text)).lower()


def query_words(query: str) -> list[str]:
    """The distinct lower-case words of a query, whole and split: `parseConfig x` -> parseconfig, parse, config, x."""
    words = []
    for raw in _WORD.findall(query):
        words.append(raw.lower())
        words.extend(split_terms(raw).split())
    return list(dict.fromkeys(w for w in words if w))[:16]


def fts_query(query: str) -> str | None:
    """An FTS5 MATCH expression: every split word as a prefix term, OR-ed so partial matches still rank.

    Words are quoted, so FTS5 syntax in the user's text (`AND`, `*`, `"`, `:`) is taken literally.
    Returns None when the query holds no word at all.
    """
    words = query_words(query)
    if not words:
        return None
    return " OR ".join(f'"{w}"*' for w in words)
