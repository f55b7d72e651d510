"""The compiled tree-sitter grammars and queries, one per language, cached for the process.

`combined_query` joins a language's definition patterns (its wheel's `tags.scm`, or the pack
languages' `languages.QUERIES`), the extra captures of `grammars.EXTRA`, its import patterns and
its identifiers into one query, and names each pattern's role for `parsing`'s single walk.
"""

from __future__ import annotations

import functools
import importlib
import re
from importlib import resources
from typing import Any

from services.repo import grammars, languages

__all__ = ["IDENTIFIERS", "combined_query", "grammar", "identifier_query", "parser"]

IDENTIFIERS = {
    "python": ("identifier",),
    "javascript": ("identifier", "property_identifier", "shorthand_property_identifier"),
    "typescript": ("identifier", "property_identifier", "type_identifier", "shorthand_property_identifier"),
    "tsx": ("identifier", "property_identifier", "type_identifier", "shorthand_property_identifier"),
    "go": ("identifier", "field_identifier", "type_identifier", "package_identifier"),
    "rust": ("identifier", "field_identifier", "type_identifier"),
    "java": ("identifier", "type_identifier"),
    **languages.IDENTIFIERS,
}
_CAPTURE = re.compile(r"@([\w.]+)")


_IMPORT_QUERIES = {
    "python": "(import_statement) @import (import_from_statement) @import",
    "javascript": (
        "(import_statement source: (string) @source) @import "
        "(export_statement source: (string) @source) @import "
        "(call_expression function: (identifier) @fn arguments: (arguments . (string) @source)) @import"
    ),
    "go": "(import_spec) @import",
    "rust": "(use_declaration) @import (mod_item) @import",
    "java": "(import_declaration) @import",
}


@functools.cache
def combined_query(language: str) -> tuple[Any, list[str]]:
    """One query for definitions, imports and identifiers, and each pattern's role.

    A role is the pattern's `definition.<kind>` capture, `import`, `ref`, or `skip`. The tags
    files' `reference.*` patterns are disabled: identifiers already cover references, and
    matching those patterns only cost time.
    """
    from tree_sitter import Query

    parts = (languages.QUERIES[language],) if language in languages.PACK_LANGUAGES else (_tags_source(language),)
    source = "\n".join(
        (
            *parts,
            grammars.EXTRA.get(language, ""),
            ""
            if language in languages.PACK_LANGUAGES
            else _IMPORT_QUERIES.get(language, _IMPORT_QUERIES["javascript"]),
            _identifier_source(language),  # disabled below: `identifier_query` reads these
        )
    )
    query = Query(grammar(language), source)
    roles = []
    data = source.encode()
    for pattern in range(query.pattern_count):
        # The pattern's own text names its captures (py-tree-sitter cannot report a zero quantifier).
        text = data[query.start_byte_for_pattern(pattern) : query.end_byte_for_pattern(pattern)].decode()
        used = _CAPTURE.findall(text)
        role = next((n for n in used if n.startswith(("definition.", "ctx."))), None)
        if role is None:
            role = next((r for r in ("import", "bind.var", "call", "attr", "ref") if r in used), "skip")
            role = "bind" if role == "bind.var" else role
        if role == "skip" or pattern == query.pattern_count - 1:
            query.disable_pattern(pattern)
        roles.append(role)
    return query, roles


def _identifier_source(language: str) -> str:
    return "[" + " ".join(f"({t})" for t in IDENTIFIERS[language]) + "] @ref"


@functools.cache
def identifier_query(language: str) -> Any:
    """Every identifier of the language, the last pattern of `combined_query` on its own."""
    from tree_sitter import Query

    return Query(grammar(language), _identifier_source(language))


def _tags_source(language: str) -> str:
    if language in ("typescript", "tsx"):  # the TypeScript query only adds to the JavaScript one
        return _read_tags("tree_sitter_javascript") + "\n" + _read_tags("tree_sitter_typescript")
    return _read_tags(f"tree_sitter_{language}")


def _read_tags(package: str) -> str:
    text = resources.files(package).joinpath("queries", "tags.scm").read_text(encoding="utf-8")
    # py-tree-sitter does not apply these directives; dropping them keeps the patterns portable.
    return re.sub(r"\(#(?:strip|set-adjacent|select-adjacent)![^)]*\)", "", text)


@functools.cache
def grammar(language: str) -> Any:
    from tree_sitter import Language

    if language in languages.PACK_LANGUAGES:  # compiled grammars bundled in the wheel, no download
        from tree_sitter_language_pack import get_language

        return get_language(language)  # type: ignore[arg-type]  # a name the pack lists
    if language in ("typescript", "tsx"):
        module = importlib.import_module("tree_sitter_typescript")
        return Language(module.language_typescript() if language == "typescript" else module.language_tsx())
    return Language(importlib.import_module(f"tree_sitter_{language}").language())


@functools.cache
def parser(language: str) -> Any:
    from tree_sitter import Parser

    combined_query(language)  # compile once, up front, so a broken query fails here and not mid-file
    return Parser(grammar(language))
