"""Definitions recall against universal-ctags, per language, on checked-out public repositories.

    python -m benchmarks.oracle.ctags_defs LANGUAGE CHECKOUT [CHECKOUT...] [--misses N] [--json]

For every file ctags parses as LANGUAGE (`ctags --output-format=json --fields=+n --kinds-<L>=*`),
Pallium's own parser (`services.repo.parsing.extract`, the code the index runs) gives its symbols.
A ctags tag is found when Pallium has a symbol of that name whose declaration spans the tag's line
(a C return type, a Kotlin annotation or a typedef's body can sit above the name); it is
found with the right kind when Pallium's kind is one this table pairs with ctags' kind. The kinds
ctags has that are not definitions an agent asks for (locals, parameters, labels, macro
parameters, include headers, `require`d libraries, heredocs) are left out of the count, and said
so in docs/repo-intelligence.md with every other systematic difference.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

CTAGS_NAME = {
    "c": "C",
    "cpp": "C++",
    "ruby": "Ruby",
    "php": "PHP",
    "kotlin": "Kotlin",
    "lua": "Lua",
    "bash": "Sh",
}
# ctags kinds that are not definitions: never counted.
NOT_DEFINITIONS = frozenset(
    {"local", "parameter", "label", "macroparam", "header", "tparam", "library", "heredoc", "script", "using", "name"}
)
# `TEST_CASE("parses", "[cli]") {`: a macro call with a string argument opening a block at file level.
_MACRO_BLOCK = re.compile(r'^[ \t]*[A-Z][A-Z0-9_]*[ \t]*\((?:[^()\n]|\([^()\n]*\))*"[^\n]*\)[ \t]*(?:\{|$)', re.M)
_NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_FUNCTION = {"function", "method"}
# ctags kind -> the Pallium kinds that mean it, per language.
KINDS: dict[str, dict[str, set[str]]] = {
    "c": {
        "function": _FUNCTION,
        "prototype": _FUNCTION,
        "macro": {"macro"},
        "enumerator": {"enum_member"},
        "enum": {"enum"},
        "struct": {"struct"},
        "union": {"struct"},
        "typedef": {"type"},
        "member": {"field"},
        "variable": {"variable", "constant"},
        "externvar": {"variable", "constant"},
    },
    "ruby": {
        "method": _FUNCTION,
        "singletonMethod": _FUNCTION,
        "class": {"class"},
        "module": {"module"},
        "constant": {"constant"},
        "accessor": {"property"},
        "alias": {"method", "function"},
    },
    "php": {
        "function": _FUNCTION,
        "class": {"class"},
        "interface": {"interface"},
        "trait": {"trait"},
        "namespace": {"namespace"},
        "define": {"constant"},
        "variable": {"field", "variable"},
        "alias": {"alias", "import"},
        "enum": {"enum"},
    },
    "kotlin": {
        "method": _FUNCTION,
        "class": {"class", "enum", "struct"},
        "interface": {"interface"},
        "object": {"object"},
        "typealias": {"type"},
        "constant": {"constant", "field", "variable"},
        "variable": {"field", "variable", "constant"},
        "package": {"namespace"},
    },
    "lua": {"function": _FUNCTION},
    "bash": {"function": _FUNCTION, "alias": {"alias"}},
}
KINDS["cpp"] = {**KINDS["c"], "class": {"class"}, "namespace": {"namespace"}, "alias": {"type"}}


def ctags_tags(language: str, checkout: Path) -> list[dict]:
    name = CTAGS_NAME[language]
    done = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+n", f"--kinds-{name}=*", f"--languages={name}", "-R", "-f", "-"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    tags = []
    bodies: dict[str, list[tuple[int, int]]] = {}
    for line in done.stdout.splitlines():
        try:
            tag = json.loads(line)
        except ValueError:
            continue
        counted = tag.get("_type") == "tag" and tag.get("kind") not in NOT_DEFINITIONS and tag.get("line")
        if not counted or left_out(language, tag):
            continue
        if language in ("c", "cpp"):
            if tag["path"] not in bodies:
                bodies[tag["path"]] = macro_blocks((checkout / tag["path"]).read_text(errors="replace"))
            if any(start < tag["line"] <= end for start, end in bodies[tag["path"]]):
                continue  # ctags misreading: a test macro's body read as declarations at file level
        tags.append(tag)
    return tags


def macro_blocks(text: str) -> list[tuple[int, int]]:
    """(first, last line) of each block a macro call with a string argument opens at file level
    (`TEST_CASE("parses", "[cli]") {`, `SECTION("x") {` inside it): ctags 5.9 cannot take such a
    call for a function's head, so it reads the statements of the body (`const char *argv[] =`,
    `sink.add_sink(s);`) as variables and prototypes of the file."""
    code = _NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()) if m.group()[0] in "/" else m.group(), text)
    stripped = _NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), code)
    blocks = []
    for found in _MACRO_BLOCK.finditer(code):
        opened = code.find("{", found.start())
        if opened < 0 or code.count("\n", found.end(), opened) > 1:
            continue
        depth, at = 0, opened
        while at < len(stripped):
            depth += {"{": 1, "}": -1}.get(stripped[at], 0)
            if depth == 0:
                break
            at += 1
        blocks.append((code.count("\n", 0, found.start()) + 1, code.count("\n", 0, at) + 1))
    return blocks


def left_out(language: str, tag: dict) -> str | None:
    """Why a ctags tag is not counted, or None: each reason is a systematic difference documented in
    docs/repo-intelligence.md (anonymous names ctags invents, locals it files as variables, imports
    it files as aliases, and misreadings of its own)."""
    name, kind, scope_kind = tag["name"], tag["kind"], tag.get("scopeKind")
    pattern = tag.get("pattern", "")
    if name.startswith(("__anon", "AnonymousClass")) or name == "<lambda>":
        return "anonymous"
    if language == "kotlin" and scope_kind == "method" and kind in ("constant", "variable"):
        return "local"
    if (
        language == "kotlin"
        and kind == "method"
        and scope_kind == "method"
        and not re.search(rf"\bfun\b[^(]*\b{re.escape(name)}\b", pattern)
    ):
        return "local: a loop variable or lambda parameter (`for (x in xs)`, `{ argv -> }`) ctags files as a method"
    if language == "kotlin" and "<lambda>" in tag.get("scope", ""):
        return "local: a lambda's parameter or value"
    if language == "kotlin" and not re.fullmatch(r"\w+", name) and "`" not in name:
        return "ctags misreading: a backquoted name (`fun \\`does a thing\\`()`) comes out as `B+V`"
    if language == "php" and (kind == "alias" or scope_kind == "function"):
        return "import or local"
    if (
        language == "php"
        and kind == "variable"
        and scope_kind in ("class", "trait", "interface", "enum")
        and not re.search(rf"\b(?:public|protected|private|var|static|readonly)\b[^=;(]*\${re.escape(name)}\b", pattern)
    ):
        return "local: a closure's variable inside a method, which ctags files under the class"
    if (
        language in ("c", "cpp")
        and kind in ("function", "prototype")
        and re.match(rf"/\^\s*{re.escape(name)}\s*\(", pattern)
        and name.isupper()
    ):
        return "ctags misreading: a macro call at the top level (`TEST(group, case) {`) is no function named TEST"
    if language == "lua":
        last = re.escape(re.split(r"[.:]", name)[-1])
        declared = rf"\bfunction\s+[\w.:]*\b{last}\s*\(|\b{last}\s*=\s*function\b"
        if not re.fullmatch(r"[\w.:]+", name) or not re.search(declared, pattern):
            # `<metatable> = <function 1>` in a string; `colors = setmetatable({}, {__index = function`
            return "ctags misreading: its line regex takes any `name = ... function` for a definition"
    if (
        language == "cpp"
        and kind == "member"
        and re.match(r"/\^\s*(?:extern\s+)?template\s+(?:class|struct)\b", pattern)
    ):
        return "ctags misreading: an explicit instantiation (`template class sink<std::mutex>;`) declares no name"
    if language in ("c", "cpp") and kind in ("struct", "union", "variable") and scope_kind in ("function", "prototype"):
        return "local: `struct addrinfo hints {};` inside a function is a local variable"
    if language == "bash" and kind == "alias" and (name.startswith("-") or not re.match(r"/\^\s*alias\b", pattern)):
        return "ctags misreading: `nvm alias x` (`alias` as an argument) or `alias -g` (an option) names no alias"
    if language == "bash" and kind == "function" and re.search(rf"\bfunction\s+{re.escape(name)}\s*\(\s*\w", pattern):
        return "ctags misreading: `function f(a, b) {` is awk's, inside a string handed to awk"
    if language == "bash" and kind == "function" and not re.fullmatch(r"[\w:.+-]+", name):
        return "ctags misreading: `[[ $(type -t f) == function ]]` takes the word after `function` (`]]`) for a name"
    if language == "bash" and name.endswith("="):
        return "ctags misreading: an array assignment `NAME=(...)` is no function"
    if language == "ruby" and kind == "constant" and re.search(rf"\b{re.escape(name)}\s*(==|=>|===|\.|\[)", pattern):
        return "ctags misreading: a comparison, hash key or call is no assignment"
    if language == "ruby" and kind == "singletonMethod" and re.search(rf"def\s+{re.escape(name)}\.", pattern):
        return "ctags misreading: the receiver's name, not the method's"
    return None


def same_name(language: str, ours: str, theirs: str) -> bool:
    """Whether Pallium's name is ctags' name, as each spells it."""
    if ours == theirs:
        return True
    if language == "ruby":  # ctags drops a Ruby alias's `?`/`!`
        return ours.rstrip("?!") == theirs
    if language in ("c", "cpp") and theirs.startswith("operator"):  # ctags writes `operator ()`, `operator =`
        return ours.replace(" ", "") == theirs.replace(" ", "")
    if language == "lua":  # ctags names a Lua function as written, `M.run` or `Inspector:getId`
        return ours == re.split(r"[.:]", theirs)[-1]
    return False


def measure(language: str, checkout: Path) -> dict:
    from services.repo import parsing

    tags = ctags_tags(language, checkout)
    by_file: dict[str, list] = {}
    for path in sorted({t["path"] for t in tags}):
        try:
            data = (checkout / path).read_bytes()
        except OSError:
            continue
        by_file[path] = parsing.extract(path, data).symbols
    found = kind_right = 0
    misses: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for tag in tags:
        symbols = by_file.get(tag["path"], [])
        line = tag["line"]
        name = tag["name"]
        hits = [s for s in symbols if same_name(language, s[0], name) and s[5] <= line <= s[6]]
        if not hits:
            misses[tag["kind"]] += 1
            examples.setdefault(tag["kind"], []).append(f"{tag['path']}:{line} {tag['name']}")
            continue
        found += 1
        allowed = KINDS[language].get(tag["kind"], set())
        if any(s[1] in allowed for s in hits):
            kind_right += 1
        else:
            wrong[f"{tag['kind']}->{hits[0][1]}"] += 1
            examples.setdefault(f"kind {tag['kind']}->{hits[0][1]}", []).append(f"{tag['path']}:{line} {tag['name']}")
    total = len(tags)
    return {
        "checkout": checkout.name,
        "files": len(by_file),
        "ctags": total,
        "found": found,
        "recall": round(found / total, 4) if total else None,
        "kind_right": round(kind_right / found, 4) if found else None,
        "misses": dict(misses.most_common()),
        "wrong_kinds": dict(wrong.most_common()),
        "examples": examples,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.oracle.ctags_defs")
    parser.add_argument("language", choices=sorted(CTAGS_NAME))
    parser.add_argument("checkouts", nargs="+", type=Path)
    parser.add_argument("--misses", type=int, default=3, help="example misses to print per kind")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = [measure(args.language, c) for c in args.checkouts]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for r in results:
        print(
            f"{args.language:7} {r['checkout']:28} files {r['files']:4}  ctags {r['ctags']:5}  "
            f"recall {r['recall']}  kinds right {r['kind_right']}"
        )
        for kind, n in r["misses"].items():
            print(f"    missed {kind:16} {n:5}  e.g. {'; '.join(r['examples'][kind][: args.misses])}")
        for pair, n in r["wrong_kinds"].items():
            print(f"    kind   {pair:16} {n:5}  e.g. {'; '.join(r['examples']['kind ' + pair][: args.misses])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
