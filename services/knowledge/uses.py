"""What a file leans on, read once at build from `pallium facts` and kept in the base: the files it
imports, and which of its source files are data tables rather than code.

`knowledge context` follows the imports of the file defining what a task names to the module that
holds what that definition uses (`TransferSpeedColumn` in `progress.py` formats with `filesize.py`),
without a call per file. A data table (`_emoji_codes.py`, one literal dict of 3,600 entries,
`kernel.generated.looks_like_data`) is read when a task names it, never for its words.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernel.generated import looks_like_data
from kernel.keywords import keywords_of

__all__ = ["data_tables", "decode_imports", "encode_imports", "imports_of", "used_imports"]

_MAX_BYTES = 4 * 1024 * 1024  # read no more of a file than this to judge it
_TRIPLE = re.compile(r'"""|\'\'\'')
_COMMENT = re.compile(r"(?:^|\s)(?:#|//).*$|/\*.*?(?:\*/|$)|^\s*\*.*$")
_ABOVE = 2


def imports_of(edges: list[dict[str, Any]], tests: set[str]) -> dict[str, list[str]]:
    """`{source file: [files it imports]}`, tests and self-imports left out."""
    out: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        src, dst = e["src"], e["dst"]
        if src != dst and src not in tests and dst not in tests and dst not in out[src]:
            out[src].append(dst)
    return dict(out)


def encode_imports(found: dict[str, list[str]]) -> str:
    return json.dumps(found, separators=(",", ":"), sort_keys=True)


def decode_imports(text: str | None) -> dict[str, list[str]]:
    if not text:
        return {}
    try:
        raw = json.loads(text)
    except ValueError:
        return {}
    return {str(p): [str(q) for q in found] for p, found in raw.items() if isinstance(found, list)}


def _code_only(body: list[str]) -> list[str]:
    """The lines without docstrings and comments: a name in prose (`attrs.field`'s eq) is no use of the
    definition it names; string literals stay, an f-string holds code."""
    out: list[str] = []
    open_quote: str | None = None
    for line in body:
        text = line
        if open_quote is not None:
            if open_quote not in text:
                out.append("")
                continue
            text, open_quote = text.split(open_quote, 1)[1], None
        while (m := _TRIPLE.search(text)) is not None:
            rest = text[m.end() :]
            if m.group(0) in rest:
                text = text[: m.start()] + " " + rest.split(m.group(0), 1)[1]
            else:
                text, open_quote = text[: m.start()], m.group(0)
        out.append(_COMMENT.sub(" ", text))
    return out


def data_tables(root: Path, files: list[dict[str, Any]], included: set[str]) -> list[str]:
    """The included source files of 200 lines or more that are one literal table; tests are left to the
    tests (a snapshot table is still the test to run)."""
    out = []
    for f in files:
        if f["path"] not in included or f["test"] or f["lines"] < 200:
            continue
        try:
            with open(root / f["path"], "rb") as handle:
                data = handle.read(_MAX_BYTES)
        except OSError:
            continue
        if looks_like_data(f["path"], data):
            out.append(f["path"])
    return sorted(out)


_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_QUALIFIER = re.compile(r"(?<![\w$.])([A-Za-z_$][A-Za-z0-9_$]*)\.[A-Za-z_$]")
# `this.toJSON()`, `self.render()`: the definition's own member, no use of an imported file's namesake
_OWN_MEMBER = re.compile(r"(?<![\w$.])(?:this|self)\.[A-Za-z_$][A-Za-z0-9_$]*")


def used_imports(
    root: Path,
    path: str,
    spans: list[tuple[str, int, int]],
    forms: set[str],
    imported: list[str],
    definers: Callable[[list[str]], dict[str, set[str]]],
) -> dict[str, tuple[str, str]]:
    """The files `path` imports that hold what its named definitions use where the task's words are:
    in the lines of each span (`TransferSpeedColumn`, lines 700-740) holding a form of a task word
    (`speed`), the identifiers naming an imported file's definition (`decimal` in `filesize.py`) or
    the imported module itself (`filesize.decimal`). `{imported file: (definition, identifier)}`."""
    if not spans or not imported or not forms:
        return {}
    try:
        with open(root / path, "rb") as handle:
            lines = handle.read(_MAX_BYTES).decode("utf-8", "replace").splitlines()
    except OSError:
        return {}
    by_stem: dict[str, list[str]] = defaultdict(list)
    for dst in imported:
        name = dst.rsplit("/", 1)[-1].split(".", 1)[0]
        if name in ("__init__", "index", "mod") and "/" in dst:
            name = dst.rsplit("/", 2)[-2]
        by_stem[name.lstrip("_").lower()].append(dst)
    reserved = keywords_of(path)  # `throw new TypeError` is the statement, not a `throw` method
    wanted: dict[str, str] = {}  # identifier -> the definition it is used in
    modules: dict[str, str] = {}  # `filesize` of `filesize.decimal` -> the definition
    for qualified, start, end in spans:
        body = lines[max(0, start - 1) : end]
        own = qualified.rsplit(".", 1)[-1]  # its own name on its first line is no use of a namesake
        code = _code_only(body)
        for i, line in enumerate(body):
            lowered = line.lower()
            if not any(form in lowered for form in forms):
                continue
            # the statement a word sits in may open a line or two above (`LogRender(` over `show_level=`)
            for near in code[max(0, i - _ABOVE) : i + 1]:
                for ident in _IDENT.findall(_OWN_MEMBER.sub(" ", near)):
                    if len(ident) >= 3 and ident not in wanted and ident not in reserved and ident != own:
                        wanted[ident] = qualified
                for ident in _QUALIFIER.findall(near):  # a local `traceback` is no use of traceback.py
                    modules.setdefault(ident, qualified)
    if not wanted:
        return {}
    out: dict[str, tuple[str, str]] = {}
    for ident, qualified in modules.items():
        for dst in by_stem.get(ident.lstrip("_").lower(), []):
            out.setdefault(dst, (qualified, ident))
    imported_set = set(imported)
    for ident, paths in definers(list(wanted)).items():
        for dst in sorted(paths & imported_set):
            out.setdefault(dst, (wanted[ident], ident))
    return out
