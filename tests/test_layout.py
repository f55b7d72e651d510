"""The house rules of DESIGN.md, checked over the source tree."""

import ast
import re
from pathlib import Path

import pytest

from pallium_mcp.registry import all_tools

ROOT = Path(__file__).resolve().parent.parent
SOURCE_DIRS = ("kernel", "services", "pallium_mcp", "tools_manifest", "benchmarks")
CREATE_TABLE = re.compile(r"CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[\"'`]?(\w+)", re.I)


def _python_files(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (ROOT / d).rglob("*.py"))


def _owned_tables() -> dict[Path, set[str]]:
    """Each store module and the tables its migrations create."""
    stores = [
        ROOT / "kernel" / "store.py",
        ROOT / "kernel" / "runstore.py",
        *sorted((ROOT / "services").glob("*/store.py")),
    ]
    return {store: set(CREATE_TABLE.findall(store.read_text(encoding="utf-8"))) for store in stores}


def find_foreign_table_uses(files: list[Path], owned: dict[Path, set[str]], root: Path = ROOT) -> list[str]:
    problems = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for store, tables in owned.items():
            if path == store:
                continue
            for table in tables:
                if re.search(rf"\b{re.escape(table)}\b", text):
                    problems.append(f"{path.relative_to(root)} names {table}, owned by {store.relative_to(root)}")
    return problems


def test_each_table_is_named_only_by_its_owners_store():
    owned = _owned_tables()
    assert owned[ROOT / "kernel" / "store.py"] == {"kernel_schema"}
    assert owned[ROOT / "kernel" / "runstore.py"] == {
        "kernel_run",
        "kernel_call",
        "kernel_worktree",
        "kernel_patch",
        "kernel_event",
    }
    assert find_foreign_table_uses(_python_files(*SOURCE_DIRS), owned) == []


def test_table_check_catches_sql_outside_a_store(tmp_path: Path):
    store = tmp_path / "store.py"
    store.write_text('MIGRATIONS = ("CREATE TABLE demo_item (id)",)\n', encoding="utf-8")
    logic = tmp_path / "logic.py"
    logic.write_text('QUERY = "SELECT * FROM demo_item"\n', encoding="utf-8")
    owned = {store: set(CREATE_TABLE.findall(store.read_text(encoding="utf-8")))}
    assert find_foreign_table_uses([store, logic], owned, tmp_path) == ["logic.py names demo_item, owned by store.py"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_services_never_import_each_other():
    problems = []
    for path in _python_files("services"):
        own = path.relative_to(ROOT / "services").parts[0]
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "services" and len(parts) > 1 and parts[1] != own:
                problems.append(f"{path.relative_to(ROOT)} imports {name}")
            if parts[0] == "pallium_mcp":
                problems.append(f"{path.relative_to(ROOT)} imports the front door {name}")
    assert problems == []


def test_kernel_imports_no_service_and_no_front_door():
    problems = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in _python_files("kernel")
        for name in _imports(path)
        if name.split(".")[0] in ("services", "pallium_mcp")
    ]
    assert problems == []


@pytest.mark.parametrize("tool", all_tools(), ids=lambda t: t.name)
def test_tool_is_documented_for_the_agent_that_calls_it(tool):
    assert tool.summary.endswith(".")
    assert "Use " in tool.description, "say when to use it"
    assert "Not " in tool.description or "not " in tool.description, "say when not to, naming the other tool"
    assert len(tool.description) < 2000, "descriptions ship on every turn; keep them short"
    for name, field in tool.input.model_fields.items():
        assert field.description, f"{tool.name}: input field {name!r} has no description"


@pytest.mark.parametrize("tool", all_tools(), ids=lambda t: t.name)
def test_tool_name_fits_every_client(tool):
    assert re.fullmatch(r"[a-z0-9_]{1,64}", tool.name)


SPAWN = re.compile(
    r"\bsubprocess\.(?:run|Popen|call|check_call|check_output|getoutput|getstatusoutput)\b"
    r"|\bcreate_subprocess_(?:exec|shell)\b|\bos\.(?:system|popen|exec[lv]p?e?|spawn\w*|posix_spawnp?|fork)\b"
    r"|\bpty\.spawn\b"
)
# Each module allowed to start processes, and why. Provider workers start ONLY in kernel/providers/process.py.
SPAWN_ALLOWED = {
    "kernel/git.py": "runs the git program only",
    "kernel/providers/process.py": "the dispatcher's one door for provider workers and --help probes",
    "kernel/providers/fake.py": "the fake provider itself: leaves a grandchild for the process-group tests",
    "kernel/background.py": "Pallium's own detached runs (python -m ...), never provider workers",
}


def find_process_spawns(files: list[Path], root: Path = ROOT) -> list[str]:
    problems = []
    for path in files:
        relative = path.relative_to(root).as_posix()
        if relative in SPAWN_ALLOWED or relative.startswith("benchmarks/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SPAWN.search(line):
                problems.append(f"{relative}:{number} starts a process outside the dispatcher")
    return problems


def test_provider_processes_are_spawned_only_by_the_dispatcher():
    assert find_process_spawns(_python_files("kernel", "services", "pallium_mcp", "tools_manifest")) == []


def test_spawn_check_catches_a_worker_started_elsewhere(tmp_path: Path):
    rogue = tmp_path / "services" / "loops" / "logic.py"
    rogue.parent.mkdir(parents=True)
    rogue.write_text('import asyncio\nproc = await asyncio.create_subprocess_exec("claude", "-p")\n', encoding="utf-8")
    assert find_process_spawns([rogue], tmp_path) == [
        "services/loops/logic.py:2 starts a process outside the dispatcher"
    ]
