"""Source repairs before a reparse: what only a preprocessor (C, C++) or a newer grammar (Kotlin)
would read, blanked with spaces so that every line and offset stays where it was.

`services.repo.parsing` parses a file as written; when the tree holds errors it parses
`repaired_source` too and keeps the tree with fewer errors. Nothing here knows about queries.
"""

from __future__ import annotations

import re

__all__ = ["repaired_source", "without_export_macros"]

# Preprocessor lines inside a body (`enum { #include "x.def" }`, an X-macro) are not C the grammar
# can parse; blanking them keeps the body's declarations and every line number.
_DIRECTIVE = re.compile(rb"\n[ \t]*#[ \t]*(?:include|define|undef)\b[^\n]*")
# What opens a list rather than a body: `enum colors {`, `= {`, `[] = {`, a `{` inside another list.
_LIST_HEAD = re.compile(rb"(?:\benum\b[^;{}()]*|=[ \t\n]*|[{,][ \t\n]*)$")
_WHOLE_DIRECTIVE = re.compile(rb"\n[ \t]*#(?:[^\n]*\\\n)*[^\n]*")
_BRACE = re.compile(rb"[{}]")
# `class LEVELDB_EXPORT Cache {`: an export macro between the keyword and the name.
_EXPORT_MACRO = re.compile(rb"\b(?:class|struct)[ \t]+([A-Z][A-Z0-9_]{2,})[ \t]+(?=[A-Za-z_]\w*\s*(?:final\b|[:{]))")
_MACRO = rb"[A-Z][A-Z0-9_]{2,}"
# A name as C++ writes it where a function is defined: `f`, `Store::save`, `sink<Mutex>::flush`, `~Cache`.
_QUALIFIED = rb"~?[A-Za-z_]\w*(?:[ \t]*<[^<>;{}()\n]*>)?(?:::~?[A-Za-z_]\w*(?:[ \t]*<[^<>;{}()\n]*>)?)*"
# `int CJSON_CDECL main(void)`, `void SPDLOG_INLINE sink<M>::flush()`: a calling-convention or export
# macro between a function's return type and its name.
_CALLING_MACRO = re.compile(
    rb"\n[ \t]*+(?:[A-Za-z_]\w*+[ \t*&]++)+?(" + _MACRO + rb")[ \t]+[*&]*[ \t]*" + _QUALIFIED + rb"[ \t]*\("
)
# `void *(CJSON_CDECL *allocate)(size_t)`: the same inside a function pointer's parentheses.
_POINTER_MACRO = re.compile(rb"\([ \t]*(" + _MACRO + rb")[ \t]+\*[ \t]*[A-Za-z_]\w*[ \t]*\)[ \t]*\(")
# `SPDLOG_INLINE size_t f()`, `template <class T> FMT_CONSTEXPR auto g(T)`, `API logger::logger()`: a
# specifier macro that opens a declaration, followed by the declaration's type (never another
# macro: `DWORD WINAPI f()` keeps its return type) and a declared name.
_LEADING_MACRO = re.compile(
    rb"\n[ \t]*+(?:template[ \t]*<[^;{}\n]*>[ \t]*)?"
    rb"(?:(?:static|inline|extern|virtual|explicit|friend|constexpr)[ \t]+)*"
    rb"((?:" + _MACRO + rb"\b[ \t]+)+)(?!" + _MACRO + rb"\b)"
    rb"(?=(?:(?:const|unsigned|signed|struct|class|enum|typename|static|inline)[ \t]+)*"
    rb"(?:" + _QUALIFIED + rb"[ \t*&]+[*&]*[ \t]*" + _QUALIFIED + rb"[ \t]*[(\[=;{]"
    rb"|[A-Za-z_]\w*(?:[ \t]*<[^<>;{}()\n]*>)?(?:::~?[A-Za-z_]\w*(?:[ \t]*<[^<>;{}()\n]*>)?)+[ \t]*\("
    rb"|(?:" + _QUALIFIED + rb"[ \t*&]+)?operator\b))",
)
# `FMT_CONSTEXPR rgb() : r(0) {}`: before a constructor there is no type to tell a macro from a
# return type (`BOOL IsOk(void)`), so only a macro named as a specifier is blanked there.
_SPECIFIER_MACRO = re.compile(
    rb"\n[ \t]*+(?:template[ \t]*<[^;{}\n]*>[ \t]*)?(?:(?:static|inline|explicit|friend|constexpr)[ \t]+)*"
    rb"((?:[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:API|EXPORT|PUBLIC|INLINE|FORCE_INLINE|CONSTEXPR\w*|NODISCARD|DEPRECATED\w*"
    rb"|NOINLINE|EXTERN|DECL|ATTR\w*|VISIBILITY\w*|NORETURN)[ \t]+)+)(?=explicit\b|~?[A-Za-z_]\w*[ \t]*\()",
)
# `size_t id() SPDLOG_NOEXCEPT {`, `bool empty() const FMT_NOEXCEPT;`: specifier macros after a
# parameter list, before the body, the `;`, `= default`, an initializer list or a trailing return.
_TRAILING_MACROS = re.compile(
    rb"\)[ \t]*(?:\n[ \t]*(?="
    + _MACRO
    + rb"\b[ \t]*[{;]))?(?:(?:const|volatile|noexcept|override|final|&&?)[ \t]*)*((?:"
    + _MACRO
    + rb"\b[ \t]*)+)"
    rb"(?=[{;:=]|->|const\b|override\b|final\b|$)",
    re.M,
)
# `FMT_BEGIN_NAMESPACE`, `Q_OBJECT`, `LOG_CATCH(msg)`: a macro alone on its line, a statement
# without a semicolon.
_LONE_MACRO = re.compile(
    rb"\n[ \t]*+(" + _MACRO + rb"(?:[ \t]*\([^;{}()\n]*(?:\([^;{}()\n]*\)[^;{}()\n]*)*\))?)[ \t]*$", re.M
)
# What follows a return-type macro at the top level: the declared function's name and parameters.
_DECLARATOR_NEXT = re.compile(rb"[*&\s]*[A-Za-z_]\w*[ \t]*\(")
# `SPDLOG_TRY {`: a macro standing for a statement's keyword before a block (after a `;` or a brace,
# matched rather than looked behind for, so that `re` scans for it; the spans are group 2's).
_BLOCK_MACRO = re.compile(rb"[;{}]([ \t\n]*+)(" + _MACRO + rb")(?=[ \t]*\{)")
# The patterns above that begin at a line's start take the newline before it (searched in the code
# after one newline), not `^` under re.M: `re` finds a literal first byte by a fast scan, but tries
# `^` at every offset. None of them ends after a newline (or where a match could begin), so they
# find what `^` found. A run of blanks or of a word's letters is taken whole (`*+`, `++`) where
# what follows it can never begin with what it took: giving some back cannot make a match, and
# trying it at every line's indentation cost as long as parsing the file.
_LINE_MACROS = (_CALLING_MACRO, _LEADING_MACRO, _SPECIFIER_MACRO)
# `(a) ?   /* CR LF */   \\`: a comment before a directive's line continuation, where the grammar ends
# the directive (and reads the rest of the macro's body as code, an error to the next recovery).
_COMMENT_BEFORE_CONTINUATION = re.compile(rb"/\*[^\n]*?\*/(?=[ \t]*\\\n)")
# A double-quoted Bash string holding an escaped `\$`: the text of a command to `eval` later.
_BASH_EVAL_STRING = re.compile(rb'"((?:[^"\\]|\\.)*?\\\$(?:[^"\\]|\\.)*)"', re.S)
# `[ "$(osx_version)" "$@" ]`: a test whose operator comes from its arguments (or none, as `[ "$a" "$b" ]`
# reads), which the grammar cannot parse; the error swallows the functions after it. Its `[` at a
# command's position and its `]` before the command's end, on one line.
_BASH_TEST = re.compile(
    rb"(?:^|(?<=[;&|!({])|(?<=\bthen)|(?<=\bif)|(?<=\belif)|(?<=\bwhile)|(?<=\buntil)|(?<=\bdo)|(?<=\belse))"
    rb"([ \t]*)\[([ \t][^\n]*?[ \t])\](?=[ \t]*(?:$|[;&|)#]|[0-9]?>))",
    re.M,
)
# a test operator standing alone between the brackets: `-f`, `=`, `!=`, `-eq`, `<`, `!`
_TEST_OPERATOR = re.compile(rb"(?:^|[ \t])(?:-[A-Za-z]{1,2}|!?=|==|<|>|!)(?=[ \t]|$)")
_QUOTED = re.compile(rb'"(?:\\.|[^"\\])*"|\'[^\']*\'')
_KOTLIN_OBJECT_BY = re.compile(rb"(\bobject\s*:[^{}\n]*?)(\s+by\s+[\w.]+)(?=\s*\{)")
# `public class FunSpec\nprivate constructor(`: a primary constructor on the line after the class's
# name, which the grammar reads only on the same line.
_KOTLIN_NEXT_LINE_CONSTRUCTOR = re.compile(
    rb"\b(?:class|object)[ \t]+[A-Za-z_]\w*(?:[ \t]*<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>)?[ \t]*(\n)"
    rb"[ \t]*(?:(?:@[\w.]+(?:\([^()\n]*\))?|public|private|internal|protected)[ \t]+)*constructor[ \t]*\("
)
_BLANK = re.compile(rb"[ \t]")
# `Limiter(int n)\n    :\n#if !defined(NDEBUG)\n      max_(n),\n#endif\n      left_(n) {`: a conditional
# inside a constructor's initializer list (or any list the code before it leaves open with `,`).
_CONDITIONAL = re.compile(rb"\n([ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b[^\n]*)")
_OPENS_A_LIST = re.compile(rb"(?:,|\)[ \t\n]*(?:noexcept[ \t\n]*)?:)$")
_NOT_CODE = re.compile(rb'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def without_export_macros(language: str, data: bytes) -> bytes:
    """C and C++ with the export macro of each class or struct head blanked (`struct LEVELDB_EXPORT
    Options {` parses as a declaration of `LEVELDB_EXPORT`, with no error to notice); lines and
    offsets stay where they were."""
    if language not in ("c", "cpp") or (b"class" not in data and b"struct" not in data):
        return data
    blanked = _EXPORT_MACRO.sub(lambda m: m.group().replace(m.group(1), b" " * len(m.group(1)), 1), data)
    return blanked


def repaired_source(language: str, data: bytes) -> bytes | None:
    """`data` with what its grammar cannot parse blanked, or None when there is none: in C and C++
    the `#include`/`#define` lines inside braces, the conditionals inside a list, the comments before a `#define`'s line
    continuations, and the macros that stand for specifiers (before a declaration, between its type
    and name, after its parameters, or alone on a line);
    in Kotlin the delegation of an object expression and the newline before a primary constructor;
    in Bash the text of a string built for `eval` and a test whose operator is not written in it."""
    if language == "kotlin":  # `object : Channel<T> by channel {`: delegation the grammar takes only in classes
        repaired = _KOTLIN_OBJECT_BY.sub(lambda m: m.group(1) + b" " * len(m.group(2)), data)
        repaired = _constructor_on_the_head_line(repaired)
        return repaired if repaired != data else None
    if language == "bash":  # `eval "(( \${#${name}[@]} > 0 ))"`: code built for eval, which the grammar misreads
        repaired = _BASH_EVAL_STRING.sub(lambda m: b'"' + re.sub(rb"[^\n]", b" ", m.group(1)) + b'"', data)
        repaired = _BASH_TEST.sub(_test_as_command, repaired)
        return repaired if repaired != data else None
    if language not in ("c", "cpp"):
        return None
    code = _NOT_CODE.sub(lambda m: b" " * len(m.group()), data)  # braces in comments and strings do not count
    out = bytearray(data)
    lined = b"\n" + code  # for the patterns of a line's start: offsets in it are one past the code's
    spans = [m.span(1) for m in _POINTER_MACRO.finditer(code)]
    spans += [(m.start(1) - 1, m.end(1) - 1) for p in _LINE_MACROS for m in p.finditer(lined)]
    spans += [m.span(1) for m in _TRAILING_MACROS.finditer(code)]
    spans += [m.span(2) for m in _BLOCK_MACRO.finditer(code)]
    spans += [
        (m.start(1) - 1, m.end(1) - 1)
        for m in _LONE_MACRO.finditer(lined)
        if _is_statement_macro(code, m.start(), m.end() - 1)  # the line's start: the newline's offset in `lined`
    ]
    spans += _directives_in_lists(code, lined)
    spans += _conditionals_in_lists(code, lined)
    lined_data = b"\n" + data  # comments kept: they are what is looked for
    for directive in _WHOLE_DIRECTIVE.finditer(lined_data):
        found = _COMMENT_BEFORE_CONTINUATION.finditer(lined_data, *directive.span())
        spans += [(m.start() - 1, m.end() - 1) for m in found]
    for start, end in spans:
        out[start:end] = b" " * (end - start)
    return bytes(out) if spans else None


def _constructor_on_the_head_line(data: bytes) -> bytes:
    """The newline before a primary constructor moved to the first blank inside its parameter list,
    so the head is one line as the grammar reads it and every line from there on stays where it was."""
    out = bytearray(data)
    for found in _KOTLIN_NEXT_LINE_CONSTRUCTOR.finditer(data):
        blank = _BLANK.search(data, found.end())
        if blank is None:
            continue
        out[found.start(1)] = ord(" ")
        out[blank.start()] = ord("\n")
    return bytes(out)


def _test_as_command(m: re.Match) -> bytes:
    """`[ "$(f)" "$@" ]` as `: "$(f)" "$@"  `: the no-op builtin with the same arguments, so the
    commands substituted inside stay calls and every offset stays where it was; a test with an
    operator of its own, which the grammar reads, is left as written."""
    inner = m.group(2)
    if _TEST_OPERATOR.search(_QUOTED.sub(lambda q: b"x" * len(q.group()), inner)):
        return m.group()
    return m.group(1) + b":" + inner + b" "


def _is_statement_macro(code: bytes, start: int, end: int) -> bool:
    """Whether a macro alone on its line stands where a declaration could: after a `;`, a brace,
    a directive or nothing, and not the last of an enum's members (before a `}`)."""
    before = code[:start].rstrip()
    after = code[end:].lstrip()
    if after.startswith((b",", b"=", b"(")) or (after.startswith(b"}") and not code[start:end].rstrip().endswith(b")")):
        return False  # `HIGH` before the `}` is an enum's last member; `LOG_CATCH(e)` there is no member
    if _DECLARATOR_NEXT.match(after) and code.count(b"{", 0, start) == code.count(b"}", 0, start):
        return False  # `YAML_DECLARE(int)` above `yaml_parser_scan(...) {` at the top level: its return type
    last_line = before[before.rfind(b"\n") + 1 :].lstrip()
    return (
        not before
        or before.endswith((b";", b"{", b"}", b":"))
        or last_line.startswith(b"#")
        or re.fullmatch(_MACRO, last_line) is not None  # `FMT_BEGIN_NAMESPACE` then `FMT_MODULE_EXPORT_BEGIN`
    )


def _conditionals_in_lists(code: bytes, lined: bytes) -> list[tuple[int, int]]:
    """The `#if`/`#else`/`#endif` lines where the code before them leaves a list open (after a `,`,
    or a constructor's `) :`): the grammar reads a directive only between declarations or
    statements, and there the error took the rest of the file. Both branches are kept."""
    spans = []
    for found in _CONDITIONAL.finditer(lined):
        at = found.start()  # the newline before the directive, in `code`'s offsets
        before = code[max(0, at - 200) : at].rstrip()
        if _OPENS_A_LIST.search(before):
            spans.append((found.start(1) - 1, found.end(1) - 1))
    return spans


def _directives_in_lists(code: bytes, lined: bytes) -> list[tuple[int, int]]:
    """The `#include`/`#define`/`#undef` lines inside an enum's body or a braced initializer (an
    X-macro), never those in a namespace, class or function body, which the grammar reads.
    `lined` is `code` after one newline."""
    directives = list(_DIRECTIVE.finditer(lined))
    if not directives:
        return []
    # `#define TRY try {` opens nothing: each directive blanked, its newline kept
    bodies = _WHOLE_DIRECTIVE.sub(lambda m: b"\n" + b" " * (len(m.group()) - 1), lined)[1:]
    # Only the braces before the last directive decide anything; whether a brace opens a list is
    # read when a directive lies right inside it, once.
    braces = [(m.start(), m.group()) for m in _BRACE.finditer(bodies, 0, directives[-1].start())]
    spans, stack, at = [], [], 0
    heads: dict[int, bool] = {}
    for found in directives:
        start, end = found.start(), found.end() - 1  # the line's start in `code`, and its end
        while at < len(braces) and braces[at][0] < start:
            where, brace = braces[at]
            at += 1
            if brace == b"{":
                stack.append(where)
            elif stack:
                stack.pop()
        if stack:
            where = stack[-1]
            listed = heads.get(where)
            if listed is None:
                listed = heads[where] = _LIST_HEAD.search(bodies[max(0, where - 200) : where]) is not None
            if listed:
                spans.append((start, end))
    return spans
