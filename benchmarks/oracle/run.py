"""The oracle run: sample definitions, ask both sides, score them (see the package docstring)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

_KINDS = frozenset({"function", "method", "class", "field", "property"})
_SUFFIXES = {"python": (".py",), "typescript": (".ts", ".tsx", ".js", ".jsx", ".mts", ".cts")}
_SCRIPT = Path(__file__).with_name("ts_references.js")

Line = tuple[str, int]


@dataclass
class Tally:
    """Summed over definitions: lines in the answer, in the oracle, in both; ambiguous answer lines."""

    answer: int = 0
    oracle: int = 0
    both: int = 0
    ambiguous: int = 0
    resolved: int = 0
    resolved_both: int = 0

    def add(self, answer: set[Line], ambiguous: set[Line], oracle: set[Line]) -> None:
        self.answer += len(answer)
        self.oracle += len(oracle)
        self.both += len(answer & oracle)
        self.ambiguous += len(ambiguous)
        resolved = answer - ambiguous
        self.resolved += len(resolved)
        self.resolved_both += len(resolved & oracle)

    def figures(self) -> dict[str, float | int | None]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 3) if b else None

        return {
            "precision": ratio(self.resolved_both, self.resolved),
            "recall": ratio(self.both, self.oracle),
            "listed_precision": ratio(self.both, self.answer),
            "ambiguous_share": ratio(self.ambiguous, self.answer),
            "answer_lines": self.answer,
            "oracle_lines": self.oracle,
        }


@dataclass
class Grade:
    every: Tally = field(default_factory=Tally)
    call: Tally = field(default_factory=Tally)
    sampled: int = 0
    misses: list[dict] = field(default_factory=list)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks oracle")
    parser.add_argument("--repo", required=True, help="a scratch clone: the index is written into it")
    parser.add_argument("--language", choices=sorted(_SUFFIXES), required=True)
    parser.add_argument("--sample", type=int, default=200, help="definitions sampled (default 200)")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--label", default="", help="a name for the row (`held-out` marks a set kept out of tuning)")
    parser.add_argument("--misses", type=int, default=0, help="print this many disagreements, for study")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    repo = Path(args.repo).resolve()
    os.environ.setdefault("PALLIUM_HOME", tempfile.mkdtemp(prefix="oracle-home-"))
    os.environ["PALLIUM_RESIDENT"] = "off"
    started = time.perf_counter()
    grade = asyncio.run(_grade(repo, args.language, args.sample, args.seed))
    took = time.perf_counter() - started
    row = {
        "repo": args.label or repo.name,
        "language": args.language,
        "sampled": grade.sampled,
        "all": grade.every.figures(),
        "call": grade.call.figures(),
        "seconds": round(took, 1),
        "load": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(row))
    else:
        a, c = row["all"], row["call"]
        print(
            f"{row['repo']}: {grade.sampled} definitions; call: precision {c['precision']} recall {c['recall']} "
            f"ambiguous share {c['ambiguous_share']} (precision counting ambiguous as claims {c['listed_precision']}, "
            f"{c['oracle_lines']} oracle lines); all kinds: precision {a['precision']} recall {a['recall']} "
            f"ambiguous share {a['ambiguous_share']} (listed precision {a['listed_precision']}); "
            f"{took:.0f}s, load {row['load']:.1f}"
        )
    for miss in grade.misses[: args.misses]:
        print(json.dumps(miss), file=sys.stderr)
    return 0


async def _grade(repo: Path, language: str, sample: int, seed: int) -> Grade:
    from kernel.context import ToolContext
    from kernel.dispatch import call
    from kernel.errors import PalliumError
    from kernel.store import open_repo
    from services.repo.exports import module_path
    from services.repo.store import SCHEMA, RepoStore

    ctx = ToolContext(cwd=repo)
    try:
        await call("pallium_index", {}, ctx)
    finally:
        ctx.close()
    store = RepoStore(open_repo(repo, [SCHEMA]))
    suffixes = _SUFFIXES[language]
    symbols = [
        s
        for s in store.all_symbols()
        if s.kind in _KINDS
        and s.path.endswith(suffixes)
        and not s.path.endswith(".d.ts")
        and not s.name.startswith("__")
        and "/node_modules/" not in s.path
    ]
    random.Random(seed).shuffle(symbols)
    chosen = symbols[:sample]
    one_symbol: dict[int, set[Line]] = {}
    if language == "python":
        oracle, declared = _jedi(repo, chosen)
        one_symbol = {id(s): d for s, d in zip(chosen, declared, strict=True)}
    else:
        oracle, declared = _typescript(repo, chosen, store, suffixes)
        one_symbol = {id(s): d for s, d in zip(chosen, declared, strict=True)}
    grade = Grade(sampled=len(chosen))
    for symbol, found in zip(chosen, oracle, strict=True):
        name = f"{module_path(symbol.path)}.{symbol.qualified}"
        ctx = ToolContext(cwd=repo)
        listed = []
        try:
            cursor = None
            while True:
                out = await call("pallium_callers", {"name": name, "limit": 1000, "cursor": cursor}, ctx)
                listed += out.references
                cursor = out.next_cursor
                if not cursor:
                    break
        except PalliumError:
            listed = []
        finally:
            ctx.close()
        # A name bound several times in one file (`const condition = ...` in each test's callback) is
        # told apart by the binding each reference reaches; declarations the server counts as one
        # symbol (TypeScript overloads) are one.
        declared = {n for p, n in one_symbol.get(id(symbol), set()) if p == symbol.path}
        same = _one_declaration(store, symbol, declared)
        mine = [
            r
            for r in listed
            if r.resolution == "ambiguous"
            or (
                r.target == symbol.path
                and r.target_qualified == symbol.qualified
                and (r.target_line is None or r.target_line in same)
            )
        ]
        # A claim find-references left out is asked back at its own position: the server's goto from
        # the use (jedi's search skips uses through a decorated method of a base class, `@app.route`
        # on a Flask, which its goto follows to `Scaffold.route`). Claims it confirms are its answer.
        theirs_lines = {(o[0], o[1]) for o in found}
        doubtful = sorted(
            {(r.path, r.line) for r in mine if r.resolution != "ambiguous" and (r.path, r.line) not in theirs_lines}
        )
        if doubtful and language == "python":
            found = found + [(p, n, False) for p, n in _jedi_confirms(repo, symbol, doubtful)]
        # Declarations are no uses: the definition itself, and overrides a server counts as references.
        definition = {(d.path, d.start_line) for d in store.definitions(symbol.name)} | {
            (symbol.path, symbol.start_line)
        }
        # A call site is a line where the name is followed by `(`, on both sides alike: Pallium's kind
        # `call` and a called decorator (`@app.route("/")`) both are.
        called = _call_lines(repo, symbol.name, {(r.path, r.line) for r in mine} | {(o[0], o[1]) for o in found})
        for tally, keep_mine, keep_theirs in (
            (grade.every, lambda r: True, lambda o: True),
            (grade.call, lambda r, c=called: (r.path, r.line) in c, lambda o, c=called: (o[0], o[1]) in c),
        ):
            answer = {(r.path, r.line) for r in mine if keep_mine(r)} - definition
            ambiguous = {(r.path, r.line) for r in mine if keep_mine(r) and r.resolution == "ambiguous"} - definition
            theirs = {(o[0], o[1]) for o in found if keep_theirs(o)} - definition
            tally.add(answer, ambiguous, theirs)
            if answer - theirs or theirs - answer:
                grade.misses.append(
                    {
                        "tally": "call" if tally is grade.call else "all",
                        "name": name,
                        "extra": sorted(answer - theirs),
                        "missed": sorted(theirs - answer),
                        "resolutions": {f"{r.path}:{r.line}": f"{r.kind}/{r.resolution}" for r in mine if keep_mine(r)},
                    }
                )
    store.db.close()
    return grade


_LINES: dict[str, list[str]] = {}


def _one_declaration(store, symbol, declared: set[int]) -> set[int]:
    """The start lines of the definitions of `symbol`'s path and qualified name that are one symbol
    with it: declarations next to each other (overloads, `def f` after its `@overload`s), and those
    the server lists as its declarations; a rebinding further on (another callback's `const f`) is not."""
    rows = sorted(
        (s for s in store.symbols_in(symbol.path) if s.qualified == symbol.qualified), key=lambda s: s.start_line
    )
    runs: list[list] = []
    for row in rows:
        if runs and row.start_line <= max(r.end_line for r in runs[-1]) + 1:
            runs[-1].append(row)
        else:
            runs.append([row])
    same = {symbol.start_line}
    for run in runs:
        if any(r.start_line == symbol.start_line for r in run):
            same |= {r.start_line for r in run}
    # a decorated definition starts at its decorator, a server names the `def` line
    same |= {r.start_line for r in rows if any(r.start_line <= n <= r.start_line + 5 for n in declared)}
    return same


def _call_lines(repo: Path, name: str, lines: set[Line]) -> set[Line]:

    pattern = re.compile(r"(?<![\w$])" + re.escape(name) + r"\s*(?:<[^<>()]*>)?\s*\(")
    out = set()
    for path, line in lines:
        if path not in _LINES:
            try:
                _LINES[path] = (repo / path).read_text("utf-8", "replace").splitlines()
            except OSError:
                _LINES[path] = []
        text = _LINES[path][line - 1] if 0 < line <= len(_LINES[path]) else ""
        if pattern.search(text):
            out.add((path, line))
    return out


def _jedi(repo: Path, chosen: list) -> tuple[list[list[tuple[str, int, bool]]], list[set[Line]]]:
    import jedi

    project = jedi.Project(str(repo), sys_path=_python_roots(repo) + _environment_path(repo), smart_sys_path=True)
    texts: dict[str, list[str]] = {}
    out, declared = [], []
    for symbol in chosen:
        lines = texts.setdefault(symbol.path, (repo / symbol.path).read_text("utf-8", "replace").splitlines())
        found: list[tuple[str, int, bool]] = []
        defs: set[Line] = set()
        column = _column(lines, symbol.start_line, symbol.name)
        if column is not None:
            try:
                script = jedi.Script(path=str(repo / symbol.path), project=project)
                refs = script.get_references(symbol.start_line, column, include_builtins=False)
            except Exception:  # jedi's own failures: no oracle answer for that definition
                refs = []
            for ref in refs:
                if ref.module_path is None:
                    continue
                try:
                    relative = Path(ref.module_path).resolve().relative_to(repo).as_posix()
                except ValueError:
                    continue
                if ref.is_definition():  # a declaration jedi counts as this symbol's (a setter, a rebinding)
                    defs.add((relative, ref.line))
                    continue
                other = texts.setdefault(relative, (repo / relative).read_text("utf-8", "replace").splitlines())
                rest = other[ref.line - 1][ref.column + len(symbol.name) :] if ref.line <= len(other) else ""
                found.append((relative, ref.line, rest.lstrip().startswith("(")))
        out.append(found)
        declared.append(defs)
    return out, declared


_JEDI: dict[str, object] = {}


def _jedi_confirms(repo: Path, symbol, lines: list[Line]) -> list[Line]:
    """The lines among `lines` where jedi's goto from the symbol's name lands on its definition."""

    import jedi

    project = _JEDI.get("project")
    if project is None:
        project = _JEDI["project"] = jedi.Project(
            str(repo), sys_path=_python_roots(repo) + _environment_path(repo), smart_sys_path=True
        )
    pattern = re.compile(r"(?<![\w$])" + re.escape(symbol.name) + r"(?![\w$])")
    where = (repo / symbol.path).resolve()
    out = []
    for path, line in lines:
        _call_lines(repo, symbol.name, {(path, line)})  # reads the file into _LINES
        text = _LINES[path][line - 1] if 0 < line <= len(_LINES[path]) else ""
        for match in pattern.finditer(text):
            try:
                script = jedi.Script(path=str(repo / path), project=project)
                names = script.goto(line, match.start(), follow_imports=True)
            except Exception:  # jedi's own failures: not confirmed
                names = []
            if any(
                n.module_path and Path(n.module_path).resolve() == where and _decorated(repo, symbol, n.line)
                for n in names
            ):
                out.append((path, line))
                break
    return out


def _decorated(repo: Path, symbol, line: int) -> bool:
    """`line` is the symbol's: its first line, or (decorated) the `def` after its decorators."""
    if line == symbol.start_line:
        return True
    _call_lines(repo, symbol.name, {(symbol.path, line)})
    between = _LINES[symbol.path][symbol.start_line - 1 : line - 1]
    return line > symbol.start_line and all(not re.match(r"\s*(async\s+def|def|class)\s", t) for t in between)


def _python_roots(repo: Path) -> list[str]:
    """Where the repository's own packages are imported from, ahead of everything installed: the root
    and a `src/` layout's folder. Without them jedi reads `import click` in click's tests as the
    click installed beside it, and finds none of the repository's uses across files."""
    return [str(repo / "src")] if (repo / "src").is_dir() else []


def _environment_path(repo: Path) -> list[str]:
    """This interpreter's import path without the working folder (the standard library and what is
    installed: jedi needs them to infer types)."""
    return [p for p in sys.path if p and Path(p).resolve() != Path.cwd().resolve() and Path(p).is_dir()]


def _column(lines: list[str], line: int, name: str) -> int | None:

    if line > len(lines):
        return None
    text = lines[line - 1]
    match = re.search(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", text)
    if match is None:  # a decorated definition's line is the decorator's: look a few lines on
        for extra in range(1, 6):
            if line - 1 + extra < len(lines):
                match = re.search(r"(?:def|class)\s+" + re.escape(name) + r"\b", lines[line - 1 + extra])
                if match:
                    return None
        return None
    return match.start()


def _read(path: Path) -> str:
    try:
        return path.read_text("utf-8")
    except OSError:
        return ""


def _workspace(repo: Path, store) -> list[dict[str, str]]:
    """The packages of a monorepo (every package.json with a name, outside node_modules), for the
    language service to find them by name as an installed checkout links them."""
    out = []
    for p in store.files():
        if p.rsplit("/", 1)[-1] != "package.json" or "node_modules/" in p or "/" not in p:
            continue
        try:
            name = json.loads((repo / p).read_text("utf-8")).get("name")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(name, str) and name:
            out.append({"name": name, "folder": p.rsplit("/", 1)[0]})
    return out


def _typescript(
    repo: Path, chosen: list, store, suffixes: tuple[str, ...]
) -> tuple[list[list[tuple[str, int, bool]]], list[set[Line]]]:
    files = [p for p in store.files() if p.endswith(suffixes) and "/node_modules/" not in p]
    queries = [{"file": s.path, "line": s.start_line, "name": s.name} for s in chosen]
    workspace = _workspace(repo, store)
    exclude = repo / ".git" / "info" / "exclude"
    if workspace and exclude.parent.is_dir() and "/node_modules/" not in _read(exclude):
        with exclude.open("a", encoding="utf-8") as f:  # the links are the oracle's, never the index's
            f.write("\n/node_modules/\n")
    payload = json.dumps({"root": str(repo), "files": files, "queries": queries, "workspace": workspace})
    done = subprocess.run(
        ["node", "--max-old-space-size=3072", str(_SCRIPT)],
        input=payload,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise SystemExit(f"the TypeScript language service failed: {done.stderr[-2000:]}")
    out, declared = [], []
    for line in done.stdout.splitlines():
        answer = json.loads(line)
        out.append([(f, n, bool(c)) for f, n, c in answer["refs"]])
        declared.append({(f, n) for f, n in answer.get("defs", [])})
    return out, declared
