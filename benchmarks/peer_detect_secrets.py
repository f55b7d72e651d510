"""Read Yelp detect-secrets' own labelled cases from a fetched copy: `tests/plugins/*_test.py`.

Each plugin test is a `pytest.mark.parametrize` over (text, expectation) tuples, where the
expectation is `should_flag` (a bool), an expected secret (a string, or None for "nothing"), or
absent (every line a secret). The keyword plugin keeps its lines in module lists
(`*_TEST_CASES`) of (line, expected secret). This module evaluates those literals with `ast`, with
the module's own string constants, `.format`, `+`, `*`, f-strings and `textwrap.dedent`; a case it
cannot evaluate is skipped and counted. The family is the plugin file's name.
"""

from __future__ import annotations

import ast
import contextlib
import textwrap
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Case", "read_cases"]

_TEXT_ARGS = ("payload", "line", "content", "file_content", "token")
_SKIP_FILES = {"base_test.py"}  # verification plumbing, no detection cases


@dataclass
class Case:
    family: str
    text: str
    positive: bool
    secret: str | None  # the value the peer reports, when its test names it
    where: str


class _Unsupported(Exception):
    pass


def _evaluate(node: ast.AST, env: dict):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise _Unsupported(node.id)
    if isinstance(node, ast.Tuple | ast.List):
        return [_evaluate(e, env) for e in node.elts]
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, env), _evaluate(node.right, env)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Mod):
            return left % right
        raise _Unsupported("operator")
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                parts.append(str(_evaluate(value.value, env)))
            else:
                parts.append(_evaluate(value, env))
        return "".join(parts)
    if isinstance(node, ast.Subscript):
        base = _evaluate(node.value, env)
        if isinstance(node.slice, ast.Slice):
            lower = _evaluate(node.slice.lower, env) if node.slice.lower else None
            upper = _evaluate(node.slice.upper, env) if node.slice.upper else None
            return base[lower:upper]
        return base[_evaluate(node.slice, env)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, env)
    if isinstance(node, ast.Call):
        func = node.func
        args = [_evaluate(a, env) for a in node.args]
        kwargs = {k.arg: _evaluate(k.value, env) for k in node.keywords if k.arg}
        if isinstance(func, ast.Attribute):
            if func.attr == "dedent":
                return textwrap.dedent(*args)
            target = _evaluate(func.value, env)
            if isinstance(target, str) and func.attr in ("format", "join", "strip", "lower", "upper", "replace"):
                return getattr(target, func.attr)(*args, **kwargs)
        raise _Unsupported("call")
    raise _Unsupported(type(node).__name__)


def _constants(tree: ast.Module) -> dict:
    env: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
            if name:
                with contextlib.suppress(_Unsupported, TypeError, ValueError, IndexError, KeyError):
                    env[name] = _evaluate(node.value, env)
    return env


def read_cases(root: Path) -> tuple[list[Case], list[str]]:
    """Every case of every plugin test, and a note for each case that could not be evaluated."""
    cases: list[Case] = []
    notes: list[str] = []
    for path in sorted((root / "tests" / "plugins").glob("*_test.py")):
        if path.name in _SKIP_FILES:
            continue
        family = path.name.removesuffix("_test.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        env = _constants(tree)
        skipped = 0
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "parametrize" and len(node.args) >= 2:
                names_node, values = node.args[0], node.args[1]
                if not isinstance(names_node, ast.Constant) or not isinstance(values, ast.List | ast.Tuple):
                    continue
                names = [n.strip() for n in names_node.value.split(",")]
                text_name = next((n for n in names if n in _TEXT_ARGS), None)
                if text_name is None:
                    continue
                for element in values.elts:
                    try:
                        row = _evaluate(element, env)
                    except (_Unsupported, TypeError, ValueError, IndexError, KeyError):
                        skipped += 1
                        continue
                    row = row if isinstance(row, list) and len(names) > 1 else [row]
                    case = _case(family, dict(zip(names, row, strict=False)), text_name, element.lineno, path.name)
                    if case is not None:
                        cases.append(case)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and target.id.endswith("_TEST_CASES"):
                    for element in getattr(node.value, "elts", []):
                        try:
                            line, expected = _evaluate(element, env)
                        except (_Unsupported, TypeError, ValueError, IndexError, KeyError):
                            skipped += 1
                            continue
                        where = f"{path.name}:{element.lineno}"
                        cases.append(Case(family, line, bool(expected), expected or None, where))
        if skipped:
            notes.append(f"{path.name}: {skipped} case(s) not evaluated")
    unique: dict[tuple[str, str], Case] = {}
    for case in cases:  # the keyword lists run under several file types: one case per line
        unique.setdefault((case.family, case.text), case)
    return list(unique.values()), notes


def _case(family: str, row: dict, text_name: str, line: int, file: str) -> Case | None:
    text = row.get(text_name)
    if not isinstance(text, str):
        return None
    where = f"{file}:{line}"
    if "should_flag" in row:
        return Case(family, text, bool(row["should_flag"]), None, where)
    if "expected_secret" in row:
        return Case(family, text, bool(row["expected_secret"]), row["expected_secret"] or None, where)
    if "expected_output" in row or "num_results" in row or len(row) > 1:
        return None  # verification and counting tests, not detection labels
    return Case(family, text, True, None, where)
