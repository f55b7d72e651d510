"""Workflow script text: finding `export const meta`, the transform that lets top-level await and
return work, and the static checks of `workflow validate`. No JavaScript runs here."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from services.workflows.api import API_GLOBALS, API_MEMBERS, PALLIUM_HELPERS, PALLIUM_NAMESPACES

__all__ = ["ParsedScript", "lint", "parse_script", "read_args_fields", "strip_code", "wrap_body"]

_META_START = re.compile(r"^[ \t]*export\s+const\s+meta\s*=\s*", re.M)

_JS_GLOBALS = frozenset(
    {
        "Array",
        "ArrayBuffer",
        "BigInt",
        "Boolean",
        "DataView",
        "Date",
        "Error",
        "EvalError",
        "Float32Array",
        "Float64Array",
        "Function",
        "Int8Array",
        "Int16Array",
        "Int32Array",
        "Intl",
        "JSON",
        "Map",
        "Math",
        "Number",
        "Object",
        "Promise",
        "Proxy",
        "RangeError",
        "ReferenceError",
        "Reflect",
        "RegExp",
        "Set",
        "String",
        "Symbol",
        "SyntaxError",
        "TypeError",
        "URIError",
        "Uint8Array",
        "Uint16Array",
        "Uint32Array",
        "WeakMap",
        "WeakSet",
        "AggregateError",
        "Iterator",
        "console",
        "decodeURI",
        "decodeURIComponent",
        "encodeURI",
        "encodeURIComponent",
        "isFinite",
        "isNaN",
        "parseFloat",
        "parseInt",
        "structuredClone",
        "globalThis",
    }
)
_KEYWORDS = frozenset(
    {
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "function",
        "return",
        "typeof",
        "await",
        "async",
        "new",
        "in",
        "of",
        "do",
        "else",
        "try",
        "finally",
        "throw",
        "delete",
        "void",
        "instanceof",
        "yield",
        "super",
        "this",
        "class",
        "const",
        "let",
        "var",
        "case",
        "default",
        "import",
        "export",
        "with",
    }
)
_FORBIDDEN = (
    (re.compile(r"\bDate\.now\s*\("), "Date.now() is disabled; pass the time through args"),
    (re.compile(r"\bMath\.random\s*\("), "Math.random() is disabled; pass random values through args"),
    (re.compile(r"\bnew\s+Date\s*\(\s*\)"), "new Date() without an argument is disabled; pass the time through args"),
    (re.compile(r"(?<![.\w])Date\s*\(\s*\)"), "Date() is disabled; pass the time through args"),
    (re.compile(r"\bperformance\.now\s*\("), "performance.now() is not available in workflow scripts"),
    (re.compile(r"\bTemporal\.Now\b"), "Temporal.Now is disabled; pass the time through args"),
    (
        re.compile(r"(?<![.\w])require\s*\("),
        "require() is not available: scripts reach the world only through the host API",
    ),
    (
        re.compile(r"(?<![.\w])import\s*\(|^\s*import\s+[\w{*'\"]", re.M),
        "import is not available: scripts reach the world only through the host API",
    ),
    (re.compile(r"(?<![.\w])process\."), "process is not available in workflow scripts"),
    (re.compile(r"(?<![.\w])(?:setTimeout|setInterval)\s*\("), "timers are not available; the host owns time"),
)


# The word each of _FORBIDDEN's patterns cannot match without.
_FORBIDDEN_WORDS = ("Date", "Math", "Date", "Date", "performance", "Temporal", "require", "import", "process", "set")


@dataclass
class ParsedScript:
    body: str  # the script without its meta statement, same line numbers
    meta_source: str | None  # the literal's text, to evaluate in a bare context
    meta_line: int | None
    errors: list[str] = field(default_factory=list)


def parse_script(source: str) -> ParsedScript:
    """Split `export const meta = {...};` from the body, keeping every other line where it was."""
    match = _META_START.search(source)
    if match is None:
        return ParsedScript(body=source, meta_source=None, meta_line=None)
    line = source.count("\n", 0, match.start()) + 1
    start = match.end()
    if start >= len(source) or source[start] != "{":
        return ParsedScript(source, None, line, ["meta must be an object literal: export const meta = {...}"])
    end = _literal_end(source, start)
    if end is None:
        return ParsedScript(source, None, line, ["meta: the object literal is not closed"])
    literal = source[start:end]
    stop = end + 1 if end < len(source) and source[end] == ";" else end
    statement = source[match.start() : stop]
    body = source[: match.start()] + "\n" * statement.count("\n") + source[stop:]
    errors = (
        []
        if _is_pure_literal(literal)
        else ["meta must be a pure literal (no calls, functions, template expressions or variables)"]
    )
    return ParsedScript(body=body, meta_source=literal, meta_line=line, errors=errors)


def wrap_body(body: str) -> str:
    """An async function expression around the body, on the body's first line so line numbers hold."""
    return "(async () => {" + body + "\n})"


def lint(body: str) -> tuple[list[str], list[str]]:
    """Static errors (guard violations, unavailable APIs, unknown `pallium.*` helpers) and warnings
    (unknown primitives, functions and objects the script calls but never defines)."""
    code = _strip_strings_and_comments(body)
    line_of = _Lines(code)
    errors: list[str] = []
    # Each pattern needs a word that a plain substring test finds far faster than a regex scan:
    # patterns whose word is absent are not run, so a 1 MB script is scanned a few times, not twenty.
    for (pattern, why), word in zip(_FORBIDDEN, _FORBIDDEN_WORDS, strict=True):
        if word not in code:
            continue
        for m in pattern.finditer(code):
            errors.append(f"line {line_of(m.start())}: {why}")
    if "pallium" in code:
        errors += _pallium_errors(code, line_of)
    warnings: list[str] = []
    own = _declared_names(code)  # a script's own `const verify = ...` is not the primitive
    members = ("verify" in code or "budget" in code or "team" in code) and re.finditer(
        rf"(?<![.\w$])(verify|budget|team)\s*\.\s*({_NAME})", code
    )
    for m in members or ():
        if m.group(1) not in own and m.group(2) not in API_MEMBERS[m.group(1)]:
            known = ", ".join(sorted(API_MEMBERS[m.group(1)]))
            warnings.append(f"line {line_of(m.start())}: unknown primitive {m.group(1)}.{m.group(2)} ({known})")
    dropped = _unawaited_warnings(code, line_of) + _dropped_warnings(body)
    warnings += sorted(dropped, key=lambda w: int(w.split(":", 1)[0].removeprefix("line ")))
    declared = _declared_names(code)
    known = declared | API_GLOBALS | _JS_GLOBALS | _KEYWORDS
    seen: set[str] = set()
    for m in re.finditer(rf"(?<![.\w$])({_NAME})\s*\(", code):
        name = m.group(1)
        if name in seen or name in known:
            continue
        seen.add(name)
        warnings.append(f"line {line_of(m.start())}: {name}() is neither a Pallium primitive nor defined in the script")
    for m in re.finditer(rf"(?<![.\w$])({_NAME})\s*\??\.\s*({_NAME})\s*\(", code) if "." in code else ():
        name, member = m.groups()
        if name in seen or name in known or name == "team":
            continue
        seen.add(name)
        if name == "coordinator":
            warnings.append(
                f"line {line_of(m.start())}: coordinator.{member}() is not available in this version; "
                "those calls will fail"
            )
            continue
        warnings.append(
            f"line {line_of(m.start())}: {name}.{member}() calls {name}, which is neither a Pallium primitive "
            "nor defined in the script"
        )
    return errors, warnings


def strip_code(body: str) -> str:
    """The script with its strings and comments blanked out (what the static checks read)."""
    return _strip_strings_and_comments(body)


def read_args_fields(body: str) -> list[tuple[int, str, bool]]:
    """Each `args.x` / `args?.x` / `args["x"]` the script reads: (line, field, guarded by `?.`)."""
    code = body  # not blanked: template literals read args too (`${args.task}`)
    found: list[tuple[int, str, bool]] = []
    if "args" not in code:
        return found
    line_of = _Lines(code)
    for m in re.finditer(rf"(?<![.\w$])args\s*(\?\.|\.)\s*({_NAME})", code):
        found.append((line_of(m.start()), m.group(2), m.group(1) == "?."))
    for m in re.finditer(r"""(?<![.\w$])args\s*(\?\.)?\[\s*["']([\w$]+)["']\s*\]""", body):
        found.append((line_of(m.start()), m.group(2), m.group(1) is not None))
    return sorted(found)


_LOOKBEHIND = 256  # characters before a host call that can hold `const name =`
_HOST_CALL = r"(?<![.\w$])(agent|gate|check|workflow|verify\s*\.\s*untilGreen)\s*\("


def _unawaited_warnings(code: str, line_of: _Lines) -> list[str]:
    """Host calls whose promise the script drops: a call standing as a statement of its own, or one
    kept in a variable the script never mentions again. A failure of such a call would go unseen."""
    warnings = []
    for m in re.finditer(_HOST_CALL, code):
        # Only what just precedes the call decides (`const x =`, a statement boundary): a bounded
        # window keeps this linear in the script's size.
        start = max(0, m.start() - _LOOKBEHIND)
        before = code[start : m.start()].rstrip()
        if start > 0 and not before:
            before = ";"  # a long run of blanks: the call starts a statement
        name = re.sub(r"\s+", "", m.group(1))
        held = re.search(rf"\b(?:const|let|var)\s+({_NAME})\s*=\s*$", before)
        if held is not None:
            if re.compile(rf"(?<![.\w$]){re.escape(held.group(1))}(?![\w$])").search(code, m.end()):
                continue
            what = f"{name}() kept in {held.group(1)}, which is never used again"
        else:
            continue  # a call standing alone: `_dropped_warnings` reads the whole statement
        warnings.append(
            f"line {line_of(m.start())}: {what}: its promise is never awaited, so if it fails the run "
            "ends NOT FINISHED; `await` it or collect it with parallel() or Promise.all"
        )
    return warnings


def _dropped_warnings(body: str) -> list[str]:
    """Statements that drop a promise with no rejection handler (`dropped.dropped_promises`)."""
    from services.workflows.dropped import dropped_promises

    return [
        f"line {line}: {what} stands alone: its promise is never awaited and has no rejection handler, so if it "
        "fails the run ends NOT FINISHED; `await` it (collect several with parallel() or Promise.all) "
        "or end it with .catch(...)"
        for line, what in dropped_promises(wrap_body(body))
    ]


# Helpers of the original Pallium that this version does not have: a script calling them would fail.
_ORIGINAL_ONLY_HELPERS = frozenset({"verify"})


def _pallium_errors(code: str, line_of: _Lines) -> list[str]:
    errors = []
    for m in re.finditer(rf"(?<![.\w$])pallium\s*\.\s*({_NAME}(?:\s*\.\s*{_NAME})*)", code):
        path = re.sub(r"\s+", "", m.group(1))
        parts = path.split(".")
        # a known helper, maybe followed by a property (`pallium.changedNow.name`), or a namespace alone
        prefixes = {".".join(parts[:n]) for n in range(1, len(parts) + 1)}
        if prefixes & PALLIUM_HELPERS or path in PALLIUM_NAMESPACES:
            continue
        line = line_of(m.start())
        if parts[0] in PALLIUM_NAMESPACES:
            members = ", ".join(sorted(h for h in PALLIUM_HELPERS if h.startswith(parts[0] + ".")))
            errors.append(f"line {line}: unknown helper pallium.{path} (pallium.{parts[0]} has {members})")
        elif parts[0] in _ORIGINAL_ONLY_HELPERS:
            errors.append(f"line {line}: pallium.{path} is a helper of the original Pallium that this version lacks")
        else:
            errors.append(f"line {line}: unknown helper pallium.{path} (known: {', '.join(sorted(PALLIUM_HELPERS))})")
    return errors


class _Lines:
    """Line numbers of offsets in one text, from one scan of it (counting from 0 each time is quadratic)."""

    def __init__(self, code: str) -> None:
        self._starts = [m.end() for m in re.finditer("\n", code)]

    def __call__(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset) + 1


_NAME = r"[A-Za-z_$][\w$]*"
_BINDING_LISTS = (
    r"\(([^()]*)\)\s*=>",  # (a, b) => ...
    r"\bfunction\*?\s*[\w$]*\s*\(([^()]*)\)",  # function f(a, b)
    r"\b(?:const|let|var)\s*[{\[]([^=;]*?)[}\]]\s*(?:=|of\b|in\b)",  # const {a, b} = ..., for (const [k, f] of ...)
    r"\bcatch\s*\(([^()]*)\)",  # catch (e)
)


_BINDING_WORDS = (("=>",), ("function",), ("const", "let", "var"), ("catch",))


def _declared_names(code: str) -> set[str]:
    """Names the script binds itself: declarations, parameters, destructuring (a generous guess)."""
    names = set(re.findall(rf"\b(?:function\*?|const|let|var|class)\s+({_NAME})", code))
    # the lookbehind anchors each try at a name's start: without it a 40,000-character name is
    # matched from each of its characters in turn, which is quadratic
    if "=>" in code:
        names |= set(re.findall(rf"(?<![\w$])({_NAME})\s*=>", code))
    for pattern, word in zip(_BINDING_LISTS, _BINDING_WORDS, strict=True):
        if not any(w in code for w in word):
            continue
        for group in re.findall(pattern, code):
            names |= set(re.findall(_NAME, group))
    return names


def _is_pure_literal(literal: str) -> bool:
    code = _strip_strings_and_comments(literal, keep_template_markers=True)
    return "(" not in code and "=>" not in code and "${" not in code


def _literal_end(source: str, start: int) -> int | None:
    """Index just past the `}` closing the `{` at `start`, skipping strings and comments."""
    depth, i, n = 0, start, len(source)
    while i < n:
        ch = source[i]
        if ch in "\"'`":
            i = _skip_string(source, i)
            continue
        if source.startswith("//", i):
            i = source.find("\n", i) if source.find("\n", i) != -1 else n
            continue
        if source.startswith("/*", i):
            close = source.find("*/", i + 2)
            i = n if close == -1 else close + 2
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _skip_string(source: str, i: int) -> int:
    quote, i = source[i], i + 1
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i] == quote:
            return i + 1
        i += 1
    return i


# A string ("...", '...', `...`, unterminated ones to the end of the text) or a comment, found in
# one pass of the regex engine: the scan of a 1 MB script must not be a loop over its characters.
_STRING_OR_COMMENT = re.compile(
    r'"[^"\\]*(?:\\(?:.|\Z)[^"\\]*)*"?'
    r"|'[^'\\]*(?:\\(?:.|\Z)[^'\\]*)*'?"
    r"|`[^`\\]*(?:\\(?:.|\Z)[^`\\]*)*`?"
    r"|//[^\n]*"
    r"|/\*.*?(?:\*/|\Z)",
    re.S,
)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _strip_strings_and_comments(source: str, keep_template_markers: bool = False) -> str:
    """Blank out string contents and comments (newlines kept) so regexes see only code."""

    def blank(match: re.Match[str]) -> str:
        text = match.group(0)
        ch = text[0]
        if ch == "/":
            return _NOT_NEWLINE.sub(" ", text)
        marker = "${" if keep_template_markers and ch == "`" and "${" in text else ""
        return marker + ch + _NOT_NEWLINE.sub(" ", text[1:-1]) + ch

    return _STRING_OR_COMMENT.sub(blank, source)
