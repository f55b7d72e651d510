"""Read TruffleHog's own labelled cases from a fetched copy: its detectors' pattern tests.

Each detector under `pkg/detectors/<name>/` (some one level deeper, `aws/access_keys/`) has a
`<name>_test.go` whose pattern test is a table, `tests := []struct{ name string; input string;
want []string }{...}`: the input text and the secrets the detector must report in it (`want`; empty
or nil: nothing). The inputs are Go expressions over the file's own variables (`validPattern`,
`fmt.Sprintf("%s token = '%s'", keyword, validPattern)`); `benchmarks/go_subset.py` evaluates them.
Integration tests (`*_integration_test.go`, or files built only with the `detectors` tag) need live
credentials and are not read; a row whose input or `want` falls outside the Go subset, or whose
`want` is not a list of strings (`[]detectors.Result`), is skipped and counted.

A `want` is what TruffleHog reports, `RawV2` when the detector sets it: for a credential made of
several parts (an id and its secret, a user and a password, a URL and its key) that is the parts
joined (`id:secret`), not a substring of the input. Such a `want` becomes the parts of it that do
stand in the input (`Case.parts`); the scorer decides which of them must be gone.

The family is the detector's directory under `pkg/detectors/` (`aws` for `aws/access_keys`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.go_subset import FAILURES, Evaluator, Unsupported, assignments, sprintf, tokens

__all__ = ["Case", "read_cases"]

_TEXT_FIELDS = ("input", "data", "text", "payload", "content", "body", "line", "s")
_WANT_FIELDS = ("want", "expected", "wantSecrets", "secrets", "matches")


@dataclass
class Case:
    family: str
    text: str
    positive: bool
    secrets: list[str]  # the `want` values that stand in the text as they are
    where: str
    parts: list[list[str]] = field(default_factory=list)  # per joined `want`: its parts found in the text


def _call(name: str, args: list, spread: bool):
    if name == "fmt.Sprintf":
        return sprintf(args[0], list(args[1:]))
    if name == "strings.Repeat":
        return args[0] * args[1]
    if name == "strings.Join":
        return args[1].join(args[0])
    if name == "strings.ToUpper":
        return args[0].upper()
    if name == "strings.ToLower":
        return args[0].lower()
    if name == "append":
        base = list(args[0] or [])
        for extra in args[1:]:
            base += extra if isinstance(extra, list) else [extra]
        return base
    raise Unsupported("call " + name)


def _skip_value(ev: Evaluator) -> None:
    """Step over one field's value without evaluating it: up to the `,` or `}` that closes it."""
    depth = 0
    while True:
        kind, text = ev.peek()
        if kind == "eof":
            raise Unsupported("end of file inside a value")
        if text in "({[" and kind == "op":
            depth += 1
        elif text in ")}]" and kind == "op":
            if depth == 0:
                return
            depth -= 1
        elif text == "," and depth == 0:
            return
        ev.take()


def _struct_fields(ev: Evaluator) -> list[tuple[str, str]]:
    """The fields of `struct { name string; want []string ... }`, as (name, type) in order."""
    ev.take("{")
    out: list[tuple[str, str]] = []
    while ev.peek()[1] != "}":
        names = [ev.take()[1]]
        while ev.peek()[1] == ",":  # `name, input string`
            ev.take()
            names.append(ev.take()[1])
        kind = ""
        while ev.peek()[1] in ("[", "]", "*", "map"):
            kind += ev.take()[1]
            if kind.endswith("map"):
                ev.take("[")
                kind += "[" + ev.take()[1] + "]"
                ev.take("]")
        if ev.peek()[1] == "struct":
            raise Unsupported("nested struct field")
        kind += ev.take()[1]
        out += [(name, kind) for name in names]
        if ev.peek()[1] == ";":
            ev.take()
    ev.take("}")
    return out


def _rows(ev: Evaluator, fields: list[tuple[str, str]], wanted: set[str]):
    """Each row of the table as {field: value} for the `wanted` fields, or None when one failed."""
    ev.take("{")
    while ev.peek()[1] != "}":
        ev.take("{")
        row: dict | None = {}
        position = 0
        while ev.peek()[1] != "}":
            if ev.peek()[0] == "name" and ev.peek(1)[1] == ":":
                name = ev.take()[1]
                ev.take(":")
            else:  # a positional literal: fields in their declared order
                name = fields[position][0] if position < len(fields) else ""
            position += 1
            if name in wanted and row is not None:
                start = ev.i
                try:
                    row[name] = ev.expr()
                    if ev.peek()[1] not in (",", "}"):
                        raise Unsupported("expression goes on")
                except FAILURES:
                    ev.i = start
                    row = None
                    _skip_value(ev)
            else:
                _skip_value(ev)
            if ev.peek()[1] == ",":
                ev.take()
        ev.take("}")
        if ev.peek()[1] == ",":
            ev.take()
        yield row
    ev.take("}")


def _functions(source: str) -> tuple[str, list[str]]:
    """The source outside `func` declarations (package `var`s and `const`s, wherever they stand), and
    each declaration; gofmt closes a top-level declaration with `}` at the start of a line."""
    bodies = [m.group() for m in re.finditer(r"^func .*?^\}$", source, re.M | re.S)]
    outside = re.sub(r"^func .*?^\}$", "", source, flags=re.M | re.S)
    return outside, bodies


def _parts(want: str, text: str) -> list[str]:
    """The pieces of a joined `want` (`id:secret`, `user+pass`, JSON of both) that stand in `text`."""
    found: list[str] = []
    for piece in re.split(r"""[\s;,|"'{}\[\]]+|\\n""", want):
        if len(piece) < 4:
            continue
        found += [piece] if piece in text else _glued(piece, text)
    return list(dict.fromkeys(found))


def _glued(piece: str, text: str) -> list[str]:
    """Parts joined with or without a separator (`key + id`, `user:pa@ss`): the longest prefix that stands
    in `text`, then the rest the same way, stepping over a character that starts none (a `:` or `@`)."""
    out = []
    while len(piece) >= 4:
        size = len(piece)
        while size >= 4 and piece[:size] not in text:
            size -= 1
        if size < 4:
            piece = piece[1:]
            continue
        out.append(piece[:size])
        piece = piece[size:]
    return out


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    """Every row of every detector's pattern test, and notes for what could not be read."""
    detectors = root / "pkg" / "detectors"
    cases: list[Case] = []
    notes: list[str] = []
    skipped_rows: list[str] = []
    unread_tables: list[str] = []
    unreadable_files: list[str] = []
    absent: list[str] = []
    for path in sorted(detectors.rglob("*_test.go")):
        relative = path.relative_to(detectors)
        if len(relative.parts) < 2 or path.name.endswith("_integration_test.go"):
            continue
        source = path.read_text(encoding="utf-8", errors="replace")
        if re.search(r"^//go:build .*\bdetectors\b", source, re.M):
            continue
        family = relative.parts[0]
        outside, bodies = _functions(source)
        package_env: dict = {}
        assignments(tokens(outside), package_env, _call)
        found_table = False
        for body in bodies:
            toks = tokens(body)
            env = dict(package_env)
            assignments(toks, env, _call)
            for i in range(len(toks) - 3):
                if toks[i][1] != "tests" or toks[i + 1][1] != ":=" or toks[i + 2][1] != "[":
                    continue
                ev = Evaluator(toks, env, _call, i + 2)
                try:
                    ev.take("[")
                    ev.take("]")
                    ev.take("struct")
                    fields = _struct_fields(ev)
                except FAILURES:
                    unread_tables.append(str(relative))
                    continue
                types = dict(fields)
                text_field = next((f for f in _TEXT_FIELDS if types.get(f) == "string"), None)
                want_field = next((f for f in _WANT_FIELDS if types.get(f) == "[]string"), None)
                if text_field is None or want_field is None:
                    unread_tables.append(str(relative))
                    continue
                found_table = True
                try:
                    for n, row in enumerate(_rows(ev, fields, {"name", text_field, want_field})):
                        if row is None or not isinstance(row.get(text_field), str):
                            skipped_rows.append(f"{relative}#{n + 1}")
                            continue
                        case = _case(family, row, text_field, want_field, f"{relative}#{n + 1}")
                        if case is None:
                            absent.append(f"{relative}#{n + 1}")
                        else:
                            cases.append(case)
                except FAILURES:
                    unread_tables.append(str(relative))
        if not found_table:
            unreadable_files.append(str(relative))
    for what, where in (
        ("row(s) whose input or want is outside the Go subset", skipped_rows),
        ("row(s) whose want is nowhere in the input (an endpoint configured apart)", absent),
        ("table(s) not of the (input string, want []string) kind", unread_tables),
        ("test file(s) without such a table", unreadable_files),
    ):
        if where:
            shown = ", ".join(where[:6]) + (", ..." if len(where) > 6 else "")
            notes.append(f"{len(where)} {what}: {shown}")
    unique: dict[tuple[str, str], Case] = {}
    for case in cases:  # a detector's tests often repeat an input (valid pattern, then with verification)
        unique.setdefault((case.family, case.text), case)
    return list(unique.values()), notes


def _case(family: str, row: dict, text_field: str, want_field: str, where: str) -> Case | None:
    text = row[text_field]
    wants = [w for w in (row.get(want_field) or []) if isinstance(w, str) and w]
    name = row.get("name")
    where = f"{where} {name}" if isinstance(name, str) else where
    whole = [w for w in wants if w in text]
    parts = [_parts(w, text) for w in wants if w not in text]
    if wants and not whole and not any(parts):
        return None
    return Case(family, text, bool(wants), whole, where, parts)
