"""The reserved words of the languages Pallium indexes, by file extension: `throw new TypeError` in a
method's body is the language's statement, no use of a `throw` method some module defines."""

from __future__ import annotations

__all__ = ["is_keyword", "keywords_of"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_C_FAMILY = _words(
    "break case catch class const continue default delete do else enum extends finally for goto if import "
    "new return static super switch this throw throws try void while"
)
_JS = _C_FAMILY | _words("async await debugger export function in instanceof let of typeof var with yield")
_PY = _words(
    "and as assert async await break class continue def del elif else except finally for from global if "
    "import in is lambda nonlocal not or pass raise return try while with yield"
)
_GO = _words(
    "break case chan const continue default defer else fallthrough for func go goto if import interface "
    "map package range return select struct switch type var"
)
_RUST = _words(
    "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod "
    "move mut pub ref return static struct super trait type unsafe use where while yield"
)
_RUBY = _words(
    "alias and begin break case class def defined do else elsif end ensure for if in module next not or "
    "redo rescue retry return super then undef unless until when while yield"
)
_BY_EXTENSION = {
    **dict.fromkeys(("js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"), _JS),
    **dict.fromkeys(("py", "pyi"), _PY),
    "go": _GO,
    "rs": _RUST,
    "rb": _RUBY,
    **dict.fromkeys(("java", "kt", "cs", "c", "h", "cc", "cpp", "hpp", "swift", "scala", "php", "dart"), _C_FAMILY),
}


def keywords_of(path: str | None) -> frozenset[str]:
    """The reserved words of the language a path's extension names (none for an unknown one)."""
    name = path.rsplit("/", 1)[-1] if path else ""
    if "." not in name:
        return frozenset()
    return _BY_EXTENSION.get(name.rsplit(".", 1)[-1].lower(), frozenset())


def is_keyword(word: str, path: str | None) -> bool:
    """`word` is a reserved word of the language of `path`."""
    return word in keywords_of(path)
