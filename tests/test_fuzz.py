"""Hostile arguments to every tool, generated from its input schema, over MCP and the CLI.

Driven by the registry, so a tool added later is fuzzed too. For each tool the cases are built
from its published JSON schema (missing and wrong-typed fields, empty, 1 MB, NUL, lone surrogates,
traversal and absolute paths outside, huge and negative numbers, unknown ids and cursors, extra
arguments) and a seeded sample of them is called: a JSON error whose code is not `internal`, or a
valid answer; no traceback; the server still answers; nothing outside the repository and
PALLIUM_HOME is read or written. `PALLIUM_FUZZ_SEED` and `PALLIUM_FUZZ_PER_TOOL` widen a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from pallium_mcp.cli import main
from pallium_mcp.registry import all_tools
from pallium_mcp.server import build_server
from tests.kernel.conftest import fake  # noqa: F401  (the fake provider fixture)

pytestmark = pytest.mark.anyio

SEED = int(os.environ.get("PALLIUM_FUZZ_SEED", "12"))
PER_TOOL = int(os.environ.get("PALLIUM_FUZZ_PER_TOOL", "4"))
CLI_PER_TOOL = int(os.environ.get("PALLIUM_FUZZ_CLI_PER_TOOL", "2"))
SECRET = "TOPSECRET-OUTSIDE-THE-REPO"
MEGABYTE = "x" * 1_000_000


def hostile_strings(outside: Path) -> list[str]:
    return [
        "",
        " ",
        "a\x00b",
        "\x00",
        "\ud800",
        "lone \udfff surrogate",
        MEGABYTE,
        "y" * 300,  # a path component over 255 bytes
        "../" * 12 + "etc/passwd",
        "../outside/secret.txt",
        str(outside / "secret.txt"),
        str(outside),
        "--help",
        "\u202eevil\u202c.js",
        "zz-no-such-id-0000",
        "bogus|cursor",
        "%_*[?",
        "z" * 60_000,
    ]


NUMBERS = [10**18, -(10**18), 2**70, -1, 0, 1.5, float("1e308")]


def field_types(schema: dict[str, Any], root: dict[str, Any]) -> set[str]:
    """The JSON types a property accepts (`anyOf`, `$ref` and enums followed)."""
    if "$ref" in schema:
        ref = schema["$ref"].rsplit("/", 1)[-1]
        return field_types(root.get("$defs", {}).get(ref, {}), root)
    if "anyOf" in schema:
        return set().union(*(field_types(s, root) for s in schema["anyOf"]))
    if "enum" in schema:
        return {type(v).__name__ for v in schema["enum"]} | {"enum"}
    kind = schema.get("type")
    if isinstance(kind, list):
        return set(kind)
    return {kind} if kind else {"any"}


def placeholder(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """A plain valid-looking value for a required field, so one other field at a time can be hostile."""
    if "enum" in schema:
        return schema["enum"][0]
    types = field_types(schema, root)
    if "string" in types:
        return "x"
    if "integer" in types:
        return max(1, schema.get("minimum", 1))
    if "number" in types:
        return max(1, schema.get("minimum", 1))
    if "boolean" in types:
        return False
    if "array" in types:
        return []
    if "object" in types:
        return {}
    return None


def cases_for(tool: Any, outside: Path) -> list[dict[str, Any]]:
    schema = tool.input.model_json_schema()
    props: dict[str, Any] = schema.get("properties", {})
    required = list(schema.get("required", []))
    base = {name: placeholder(props[name], schema) for name in required}
    cases: list[dict[str, Any]] = [{**base, "zz_extra_argument": 1}]
    if required:
        cases.append({})
        cases.append({k: v for k, v in base.items() if k != required[0]})
    for name, prop in props.items():
        types = field_types(prop, schema)
        values: list[Any] = [{"nested": "object"}, [1, 2]]
        if types & {"string", "enum", "any"}:
            values += [*hostile_strings(outside), 12345, True]
        if types & {"integer", "number"}:
            values += [*NUMBERS, "12x", True]
        if "boolean" in types:
            values += ["yes", 2]
        if "array" in types:
            values += ["not a list", [None], ["\x00"], ["\ud800"], [MEGABYTE], ["../outside/secret.txt"] * 3]
        cases += [{**base, name: value} for value in values]
    return cases


def sample(tool: Any, outside: Path, count: int, salt: str) -> list[dict[str, Any]]:
    cases = cases_for(tool, outside)
    rng = random.Random(f"{SEED}:{salt}:{tool.name}")
    return cases if len(cases) <= count else rng.sample(cases, count)


def tree_digest(folder: Path) -> dict[str, str]:
    seen = {}
    for path in sorted(folder.rglob("*")):
        seen[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "d"
    return seen


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def fuzz_env(git_repo: Path, fake, monkeypatch):  # noqa: F811  (the fixture imported above)
    monkeypatch.setenv("PALLIUM_WORKFLOW_PROVIDER", "fake")
    fake.scenario({"match": "", "reply": "ok"})
    return git_repo


def check_error_text(text: str, where: str) -> str | None:
    """None when `text` is a proper JSON error; else what is wrong with it."""
    try:
        error = json.loads(text)["error"]
    except (ValueError, KeyError, TypeError):
        return f"{where}: not the JSON error: {text[:200]!r}"
    if error.get("code") == "internal":
        return f"{where}: internal: {error.get('message', '')[:200]}"
    if set(error) != {"code", "message", "hint", "details"}:
        return f"{where}: error keys {sorted(error)}"
    if len(text) > 16_384:
        return f"{where}: a {len(text)}-byte error"
    return None


# On the CLI a foreground supervisor and a site run until they are stopped, by design (their own
# tests drive them); over MCP every call returns, those two included.
RUN_UNTIL_STOPPED_ON_THE_CLI = frozenset({"pallium_knowledge_maintain_run", "pallium_knowledge_serve"})


def fuzzed_tools(*, cli: bool = False) -> list[Any]:
    return [t for t in all_tools() if not (cli and t.name in RUN_UNTIL_STOPPED_ON_THE_CLI)]


@pytest.fixture(autouse=True)
def no_sites_left():
    yield
    from services.knowledge import serve_background

    serve_background.stop_all()


async def test_every_tool_survives_hostile_arguments_over_mcp(fuzz_env: Path, outside: Path, capsys):
    before = tree_digest(outside)
    tools = fuzzed_tools()
    failures: list[str] = []
    tried = 0
    async with Client(build_server(toolsets="all", ceiling="admin", cwd=fuzz_env)) as client:
        for tool in tools:
            for arguments in sample(tool, outside, PER_TOOL, "mcp"):
                tried += 1
                shown = {k: (v[:40] if isinstance(v, str) else v) for k, v in arguments.items()}
                where = f"{tool.name} {shown}"
                with anyio.fail_after(60):
                    result = await client.call_tool(tool.name, arguments)
                text = result.content[0].text if result.content else ""
                if SECRET in text:
                    failures.append(f"{where}: read a file outside the repository")
                if "Traceback" in text:
                    failures.append(f"{where}: a traceback")
                if result.is_error:
                    problem = check_error_text(text, where)
                    if problem:
                        failures.append(problem)
                else:  # a hostile size never pushes a successful answer past its budget
                    budget = tool.budget_for(tool.input.model_validate(arguments))
                    if budget is not None and len(text.encode()) > budget:
                        failures.append(f"{where}: a {len(text.encode())}-byte answer, budget {budget}")
            alive = await client.call_tool("pallium_version", {})
            assert not alive.is_error, f"the server stopped answering after {tool.name}"
    with capsys.disabled():
        print(f"\nfuzz over MCP: {tried} hostile calls to {len(tools)} tools, {len(failures)} failures")
    assert failures == []
    assert tree_digest(outside) == before


def cli_args(tool: Any, arguments: dict[str, Any]) -> list[str]:
    """The CLI words for `arguments` (positional fields as flags too: the parser takes both or refuses)."""
    argv = tool.cli.split()
    for name, value in arguments.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            argv += [flag] if value else []
        elif isinstance(value, list):
            for item in value:
                argv += [flag, str(item)]
        elif isinstance(value, dict):
            argv += [flag, json.dumps(value)]
        else:
            argv += [flag, str(value)]
    return argv


INVALID_UTF8 = os.fsdecode(b"caf\xe9-\xff\xfe")  # what argv holds for bytes that are not UTF-8


@pytest.mark.parametrize("as_json", [True, False])
def test_every_tool_survives_hostile_arguments_on_the_cli(fuzz_env: Path, outside: Path, capsys, monkeypatch, as_json):
    before = tree_digest(outside)
    monkeypatch.chdir(fuzz_env)
    tools = fuzzed_tools(cli=True)
    failures: list[str] = []
    tried = 0
    for tool in tools:
        picked = [
            {k: v for k, v in case.items() if not (isinstance(v, str) and ("\x00" in v or "\ud800" in v))}
            for case in sample(tool, outside, CLI_PER_TOOL, f"cli{as_json}")
        ]
        schema = tool.input.model_json_schema()
        strings = [n for n, p in schema.get("properties", {}).items() if "string" in field_types(p, schema)]
        if strings:
            picked.append({strings[0]: INVALID_UTF8})
        usage = 64 if tool.cli.startswith("loop") else 2  # under `pallium loop`, 2 is a tick state
        for arguments in picked:
            argv = cli_args(tool, arguments) + ["--authority", "admin"] + (["--json"] if as_json else [])
            tried += 1
            try:
                code = main(argv)
            except SystemExit as exit_:  # argparse's own --help (a value of `--help` is read as the flag)
                code = exit_.code if isinstance(exit_.code, int) else 2
            out, err = capsys.readouterr()
            where = f"pallium {' '.join(a[:30] for a in argv)}"
            if "Traceback" in out + err:
                failures.append(f"{where}: a traceback")
            if SECRET in out + err:
                failures.append(f"{where}: read a file outside the repository")
            if code == 70:
                failures.append(f"{where}: exit 70 (internal): {err[:200]}")
            if code != 0 and as_json and not out.strip():  # a verdict (a failed run) answers on stdout
                problem = check_error_text(err.strip().splitlines()[-1] if err.strip() else "", where)
                if problem:
                    failures.append(problem)
                elif json.loads(err.strip().splitlines()[-1])["error"]["code"] == "invalid_input" and code != usage:
                    failures.append(f"{where}: invalid_input exited {code}, not 2")
    with capsys.disabled():
        print(f"\nfuzz on the CLI ({'--json' if as_json else 'text'}): {tried} hostile calls, {len(failures)} failures")
    assert failures == []
    assert tree_digest(outside) == before
