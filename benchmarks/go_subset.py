"""Evaluate the small subset of Go that peers' secret-scanner test files build their cases with.

gitleaks' rules (`benchmarks/peer_gitleaks.py`) and TruffleHog's detector tests
(`benchmarks/peer_trufflehog.py`) write their examples as Go expressions: string literals (raw and
interpreted), `+`, `[]string{...}`, `[]byte(...)` conversions, names bound earlier, and calls to a few
helpers (`fmt.Sprintf`, `strings.Repeat`...). This module tokenises Go source and evaluates those
expressions; each reader supplies its own calls. Anything else raises `Unsupported`, so a reader can
skip the statement and count it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["CallHandler", "Evaluator", "Unsupported", "assignments", "go_string", "sprintf", "tokens"]


class Unsupported(Exception):
    """An expression outside the subset."""


# The errors an evaluation may end in; a reader treats each as "skip this statement".
FAILURES = (Unsupported, KeyError, IndexError, TypeError, ValueError, re.error)

CallHandler = Callable[[str, list, bool], object]

_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<raw>`[^`]*`)|(?P<str>"(?:[^"\\\n]|\\.)*")"""
    r"""|(?P<rune>'(?:[^'\\\n]|\\.)')|(?P<num>\d+)|(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"""
    r"""|(?P<op>\.\.\.|:=|[-+(){}\[\],:=*&!<>;.|%/])""",
    re.S,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}


def tokens(source: str) -> list[tuple[str, str]]:
    """`(kind, text)` pairs, comments and white space dropped; kinds: raw, str, rune, num, name, op."""
    out, position = [], 0
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None:
            out.append(("op", source[position]))
            position += 1
            continue
        position = match.end()
        kind = match.lastgroup or ""
        if kind not in ("space", "comment"):
            out.append((kind, match.group()))
    return out


def go_string(token: str) -> str:
    """The value of a Go string literal: a raw one as written, an interpreted one with its escapes."""
    body = token[1:-1]
    if token[0] == "`":
        return body.replace("\r", "")  # Go drops carriage returns from raw strings
    return re.sub(
        r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)",
        lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] in "xu" else _ESCAPES.get(m.group(1), m.group(1)),
        body,
    )


def sprintf(template: str, values: list) -> str:
    """`fmt.Sprintf` for the verbs test files use: `%s %d %v %q`, indexed `%[2]s`, and `%%`."""
    queue = list(values)

    def verb(match: re.Match[str]) -> str:
        if match.group() == "%%":
            return "%"
        index, kind = match.group(1), match.group(2)
        if index:
            value = values[int(index) - 1]
        elif queue:
            value = queue.pop(0)
        else:
            return match.group()
        return f'"{value}"' if kind == "q" else str(value)

    return re.sub(r"%%|%(?:\[(\d+)\])?[-+# 0-9.]*([sdvqx])", verb, template)


class Evaluator:
    """Evaluates expressions from `tokens` at position `i`, names from `env`, calls through `call`."""

    def __init__(self, toks: list[tuple[str, str]], env: dict, call: CallHandler, i: int = 0) -> None:
        self.t, self.i, self.env, self.call = toks, i, env, call

    def peek(self, k: int = 0) -> tuple[str, str]:
        j = self.i + k
        return self.t[j] if j < len(self.t) else ("eof", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if value is not None and token[1] != value:
            raise Unsupported(f"expected {value}, got {token[1]}")
        self.i += 1
        return token

    def expr(self):
        value = self.term()
        while self.peek()[1] == "+":
            self.take()
            right = self.term()
            if type(value) is type(right) and isinstance(value, str | int):
                value = value + right
            else:
                raise Unsupported("+ of mixed values")
        return value

    def term(self):
        kind, text = self.take()
        if kind in ("raw", "str"):
            return go_string(text)
        if kind == "num":
            return int(text)
        if text == "(":
            value = self.expr()
            self.take(")")
            return value
        if text == "[":
            self.take("]")
            element = self.take()[1]
            if self.peek()[1] == "(":  # []byte(x): a conversion
                self.take("(")
                value = self.expr()
                self.take(")")
                return value
            if element != "string":
                raise Unsupported("slice of " + element)
            return self.items("{", "}")
        if kind != "name":
            raise Unsupported(text)
        if text in ("true", "false"):
            return text == "true"
        if text == "nil":
            return None
        if self.peek()[1] == "(":
            args, spread = self.call_args()
            if text in ("string", "strings.TrimSpace") and len(args) == 1:
                return args[0].strip() if text == "strings.TrimSpace" else args[0]
            return self.call(text, args, spread)
        if text not in self.env:
            raise Unsupported("unknown name " + text)
        return self.env[text]

    def items(self, open_: str, close: str) -> list:
        self.take(open_)
        out = []
        while self.peek()[1] != close:
            out.append(self.expr())
            if self.peek()[1] == ",":
                self.take()
        self.take(close)
        return out

    def call_args(self) -> tuple[list, bool]:
        self.take("(")
        args, spread = [], False
        while self.peek()[1] != ")":
            args.append(self.expr())
            if self.peek()[1] == "...":
                self.take()
                spread = True
            if self.peek()[1] == ",":
                self.take()
        self.take(")")
        return args, spread


def assignments(
    toks: list[tuple[str, str]], env: dict, call: CallHandler, watched: tuple[str, ...] = ()
) -> tuple[int, int]:
    """Evaluate every `name := expr`, `name = expr` and `var name = expr` in order into `env`;
    returns (evaluated, skipped), counting as skipped only failed assignments to a `watched` name."""
    done = skipped = 0
    i = 0
    while i < len(toks) - 2:
        kind, text = toks[i]
        op = toks[i + 1][1]
        if kind == "name" and op in (":=", "=") and (i == 0 or toks[i - 1][1] not in (".", ",")):
            evaluator = Evaluator(toks, env, call, i + 2)
            try:
                env[text] = evaluator.expr()
                done += 1
                i = evaluator.i
                continue
            except FAILURES:
                if text in watched:
                    skipped += 1
        i += 1
    return done, skipped
