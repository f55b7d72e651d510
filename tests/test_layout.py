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


def _created_tables(store: Path) -> set[str]:
    """The tables a store module's migrations create, or those of every module of a `store/` package."""
    modules = sorted(store.rglob("*.py")) if store.is_dir() else [store]
    return {t for m in modules for t in CREATE_TABLE.findall(m.read_text(encoding="utf-8"))}


def _owned_tables() -> dict[Path, set[str]]:
    """Each store (a module, or a `store/` package whose modules share its tables) and the tables it creates."""
    stores = [
        ROOT / "kernel" / "store.py",
        ROOT / "kernel" / "runstore.py",
        ROOT / "kernel" / "scaleout" / "store.py",
        ROOT / "kernel" / "scaleout" / "records.py",
        *sorted((ROOT / "services").glob("*/store.py")),
        *sorted(p.parent for p in (ROOT / "services").glob("*/store/__init__.py")),
    ]
    return {store: _created_tables(store) for store in stores}


def find_foreign_table_uses(files: list[Path], owned: dict[Path, set[str]], root: Path = ROOT) -> list[str]:
    problems = []
    for path in files:
        words = set(re.findall(r"\w+", path.read_text(encoding="utf-8")))  # a table name is one whole word
        for store, tables in owned.items():
            if path == store or store in path.parents:
                continue
            for table in sorted(tables & words):
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
    assert owned[ROOT / "kernel" / "scaleout" / "store.py"] == {
        "pallium_call_queue",
        "pallium_run_lease",
        "pallium_queue_event",
        "pallium_queue_schema",
        "pallium_worker",
    }
    assert owned[ROOT / "kernel" / "scaleout" / "records.py"] == {"pallium_run_record"}
    assert {"repo_refs", "repo_commits"} <= owned[ROOT / "services" / "repo" / "store"]
    assert find_foreign_table_uses(_python_files(*SOURCE_DIRS), owned) == []


def test_table_check_catches_sql_outside_a_store(tmp_path: Path):
    store = tmp_path / "store.py"
    store.write_text('MIGRATIONS = ("CREATE TABLE demo_item (id)",)\n', encoding="utf-8")
    logic = tmp_path / "logic.py"
    logic.write_text('QUERY = "SELECT * FROM demo_item"\n', encoding="utf-8")
    owned = {store: set(CREATE_TABLE.findall(store.read_text(encoding="utf-8")))}
    assert find_foreign_table_uses([store, logic], owned, tmp_path) == ["logic.py names demo_item, owned by store.py"]


def test_table_check_lets_a_store_packages_modules_share_its_tables(tmp_path: Path):
    package = tmp_path / "store"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "schema.py").write_text('MIGRATIONS = ("CREATE TABLE demo_item (id)",)\n', encoding="utf-8")
    (package / "reads.py").write_text('QUERY = "SELECT * FROM demo_item"\n', encoding="utf-8")
    logic = tmp_path / "logic.py"
    logic.write_text('QUERY = "SELECT * FROM demo_item"\n', encoding="utf-8")
    owned = {package: _created_tables(package)}
    files = [*sorted(package.glob("*.py")), logic]
    assert find_foreign_table_uses(files, owned, tmp_path) == ["logic.py names demo_item, owned by store"]


_RAW_OPENERS = re.compile(r"\b(?:global_db|repo_db|open_global|open_repo|open_database)\(")


def find_raw_store_opens(files: list[Path], root: Path = ROOT) -> list[str]:
    """Lines of services that open a database by hand instead of `ctx.store(Store)` / `open_store(Store)`."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _RAW_OPENERS.search(line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_services_open_their_stores_one_way():
    """Each store class says where it lives and what it needs; `ctx.store` opens it, so none drifts."""
    assert find_raw_store_opens(_python_files("services")) == []
    for store in sorted([*(ROOT / "services").glob("*/store.py"), *(ROOT / "services").glob("*/store/__init__.py")]):
        tree = ast.parse(store.read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.endswith("Store")):
            assigned = [t for n in cls.body if isinstance(n, ast.Assign) for t in n.targets]
            assigned += [n.target for n in cls.body if isinstance(n, ast.AnnAssign) and n.value is not None]
            declared = {t.id for t in assigned if isinstance(t, ast.Name)}
            assert {"DATABASE", "SCHEMAS"} <= declared, f"{store.relative_to(ROOT)}::{cls.name} lacks DATABASE/SCHEMAS"


def test_raw_open_check_catches_a_hand_opened_database(tmp_path: Path):
    (tmp_path / "tools.py").write_text("db = ctx.repo_db(root, [SCHEMA])\nstore = ctx.store(RepoStore, root)\n")
    found = find_raw_store_opens([tmp_path / "tools.py"], root=tmp_path)
    assert found == ["tools.py:1: db = ctx.repo_db(root, [SCHEMA])"]


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


# What starts a process, by the module that provides it. Any reference counts, not only a call:
# `spawn = subprocess.Popen` or `run_in_executor(None, subprocess.run, argv)` start one just as well.
SPAWNERS = {
    "subprocess": ("run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"),
    "asyncio": ("create_subprocess_exec", "create_subprocess_shell"),
    "asyncio.subprocess": ("create_subprocess_exec", "create_subprocess_shell"),
    "os": (
        *("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"),
        *("execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe"),
        *("spawnl", "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe"),
    ),
    "pty": ("spawn", "fork"),
    "multiprocessing": ("Process", "Pool"),
    "concurrent.futures": ("ProcessPoolExecutor",),
    "_posixsubprocess": ("fork_exec",),
}
SPAWN_NAMES = {f"{module}.{name}" for module, names in SPAWNERS.items() for name in names}
# Event-loop methods and the like, caught on whatever object they are reached through (`loop.subprocess_exec`).
SPAWN_ATTRIBUTES = {"subprocess_exec", "subprocess_shell", "create_subprocess_exec", "create_subprocess_shell"}
SPAWN_ATTRIBUTES |= {"posix_spawn", "posix_spawnp", "forkpty", "fork_exec"}

# The functions allowed to start processes, each with its reason. Provider workers start ONLY in
# kernel/providers/process.py. An entry that no longer matches anything fails the test, so the list stays
# exact. Benchmarks and tests are measuring and testing harnesses, not Pallium, and are not scanned.
SPAWN_ALLOWED = {
    ("kernel/providers/process.py", "_run_with_files"): "the dispatcher's one door for provider workers (`run_worker`)",
    ("kernel/providers/process.py", "_run_with_pipes"): "the same door, for a worker whose output is streamed",
    ("kernel/providers/process.py", "probe"): "a CLI's --help and --version for the doctor's drift probe",
    ("kernel/providers/fake.py", "_leave_grandchild"): "the fake provider's grandchild, for process-group kill tests",
    ("kernel/git.py", "_spawn"): "runs the git program only (for `run` and `attempt`)",
    ("kernel/git.py", "git_version"): "runs `git --version` only",
    ("kernel/git_guard.py", "_config_listing"): "runs `git config --list` only, to learn which drivers to neutralise",
    ("kernel/background.py", "start_detached"): "Pallium's own detached runs (python -m ...), never provider workers",
    ("kernel/offload.py", "Offload.__init__"): "a child Python running a Pallium function (python -m kernel.offload)",
    ("services/adoption/mcp_install.py", "install_claude"): "runs `claude mcp add --scope user` only, at admin",
    ("services/adoption/update.py", "upgrade"): "the install's own upgrade (pipx, uv tool, pip), at admin",
    ("services/adoption/update.py", "installed_version"): "asks the upgraded environment's Python its version",
    ("services/knowledge/maintain_tools.py", "_activate"): "systemctl --user or launchctl, only when install is asked",
}


class _SpawnFinder(ast.NodeVisitor):
    """Every reference to a process-starting function in one module, with the function it sits in.

    Names are resolved through imports (`import subprocess as sp`, `from os import posix_spawn as ps`),
    `importlib.import_module("subprocess")` / `__import__`, and plain reassignment (`run = sp.run`), so
    renaming does not hide a spawn. Imports anywhere in the module count everywhere (conservative).
    """

    def __init__(self, tree: ast.Module) -> None:
        self.aliases: dict[str, str] = {}
        self.scope: list[str] = []
        self.found: list[tuple[int, str, str]] = []  # (line, enclosing function, what)
        binders = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign)]
        for _ in range(3):  # reassignments of reassignments settle in a few rounds
            for node in binders:
                self._bind(node)
        self.visit(tree)

    def _bind(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            target = self.resolve(node.value)
            names = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in names:
                if target and isinstance(name, ast.Name):
                    self.aliases[name.id] = target

    def resolve(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for (`sp.Popen` -> `subprocess.Popen`), if it is one."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if isinstance(node, ast.Call) and node.args:
            func = "__import__" if isinstance(node.func, ast.Name) and node.func.id == "__import__" else None
            func = func or self.resolve(node.func)
            first = node.args[0]
            if func in ("importlib.import_module", "__import__") and isinstance(first, ast.Constant):
                return str(first.value)
            is_getattr = isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2
            if is_getattr and isinstance(node.args[1], ast.Constant):
                base = self.resolve(first)
                return f"{base}.{node.args[1].value}" if base else None
        return None

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        outside = [*node.decorator_list]  # evaluated where the function is defined; annotations are not run
        if isinstance(node, ast.ClassDef):
            outside += [*node.bases, *(keyword.value for keyword in node.keywords)]
        else:
            outside += [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
        for child in outside:
            self.visit(child)
        self.scope.append(node.name)
        for child in node.body:
            self.visit(child)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:  # `procs: list[subprocess.Popen]` starts nothing
        if node.value is not None:
            self.visit(node.value)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module in SPAWNERS and any(alias.name == "*" for alias in node.names):
            self._note(node, f"from {node.module} import *")

    def visit_Name(self, node: ast.Name) -> None:
        if self.resolve(node) in SPAWN_NAMES:
            self._note(node, self.resolve(node))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.resolve(node)
        if name in SPAWN_NAMES:
            self._note(node, name)
        elif node.attr in SPAWN_ATTRIBUTES:
            self._note(node, f"<object>.{node.attr}")
        else:
            self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = self.resolve(node)  # getattr(subprocess, "run") and the like
        if name in SPAWN_NAMES:
            self._note(node, name)
        self.generic_visit(node)

    def _note(self, node: ast.AST, what: str) -> None:
        self.found.append((node.lineno, ".".join(self.scope), what))


def find_process_spawns(files: list[Path], root: Path = ROOT) -> tuple[list[str], set[tuple[str, str]]]:
    """Spawns outside the allowed functions, and the allowed entries that were used."""
    problems, used = [], set()
    for path in files:
        relative = path.relative_to(root).as_posix()
        finder = _SpawnFinder(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for line, function, what in finder.found:
            if (relative, function) in SPAWN_ALLOWED:
                used.add((relative, function))
            else:
                problems.append(f"{relative}:{line} {what} starts a process outside the dispatcher")
    return problems, used


def test_provider_processes_are_spawned_only_by_the_dispatcher():
    problems, used = find_process_spawns(_python_files("kernel", "services", "pallium_mcp", "tools_manifest"))
    assert problems == []
    assert sorted(set(SPAWN_ALLOWED) - used) == [], "an allowed spawn no longer exists: remove its entry"


SPAWN_SNIPPETS = {
    "plain module call": ("import subprocess\nsubprocess.run(['claude', '-p'])\n", "subprocess.run"),
    "from-import": ("from subprocess import Popen\nPopen(['claude'])\n", "subprocess.Popen"),
    "from-import renamed": ("from subprocess import Popen as P\nP(['claude'])\n", "subprocess.Popen"),
    "module alias": ("import subprocess as sp\nsp.check_output(['codex'])\n", "subprocess.check_output"),
    "reassigned": ("import subprocess\nrun = subprocess.run\nrun(['codex'])\n", "subprocess.run"),
    "passed as a value": (
        "import subprocess\nloop.run_in_executor(None, subprocess.run, ['codex'])\n",
        "subprocess.run",
    ),
    "asyncio exec": (
        "import asyncio\nawait asyncio.create_subprocess_exec('claude')\n",
        "asyncio.create_subprocess_exec",
    ),
    "asyncio shell from-import": (
        "from asyncio import create_subprocess_shell\nawait create_subprocess_shell('claude -p')\n",
        "asyncio.create_subprocess_shell",
    ),
    "asyncio.subprocess": (
        "import asyncio.subprocess as asp\nawait asp.create_subprocess_exec('claude')\n",
        "asyncio.subprocess.create_subprocess_exec",
    ),
    "event loop method": (
        "import asyncio\nloop = asyncio.get_running_loop()\nawait loop.subprocess_exec(P, 'claude')\n",
        "<object>.subprocess_exec",
    ),
    "os.forkpty": ("import os\npid, fd = os.forkpty()\n", "os.forkpty"),
    "os.posix_spawn": ("from os import posix_spawn\nposix_spawn('/bin/claude', [], {})\n", "os.posix_spawn"),
    "os.system": ("import os\nos.system('codex exec')\n", "os.system"),
    "os.execvp": ("import os as o\no.execvp('codex', ['codex'])\n", "os.execvp"),
    "pty.spawn": ("import pty\npty.spawn(['claude'])\n", "pty.spawn"),
    "import_module": (
        "import importlib\nsp = importlib.import_module('subprocess')\nsp.Popen(['x'])\n",
        "subprocess.Popen",
    ),
    "__import__": ("sp = __import__('subprocess')\nsp.call(['x'])\n", "subprocess.call"),
    "getattr": ("import subprocess\ngetattr(subprocess, 'Popen')(['x'])\n", "subprocess.Popen"),
    "star import": ("from subprocess import *\nPopen(['x'])\n", "from subprocess import *"),
    "default argument": ("import subprocess\ndef later(run=subprocess.run): pass\n", "subprocess.run"),
    "multiprocessing": ("from multiprocessing import Process\nProcess(target=f).start()\n", "multiprocessing.Process"),
}


@pytest.mark.parametrize("form", SPAWN_SNIPPETS, ids=str)
def test_spawn_check_catches_each_way_of_starting_a_process(tmp_path: Path, form: str):
    source, what = SPAWN_SNIPPETS[form]
    rogue = tmp_path / "services" / "loops" / "logic.py"
    rogue.parent.mkdir(parents=True)
    rogue.write_text(
        "async def tick(P, f):\n" + "".join(f"    {line}\n" for line in source.splitlines()), encoding="utf-8"
    )
    problems, _ = find_process_spawns([rogue], tmp_path)
    assert (
        f"services/loops/logic.py:{_line_of(source, what)} {what} starts a process outside the dispatcher" in problems
    )


def _line_of(source: str, what: str) -> int:
    """The line (in the wrapped file, after `async def tick`) of the snippet's last line, where the spawn is used."""
    return len(source.splitlines()) + 1 if what != "from subprocess import *" else 2


def test_spawn_check_ignores_constants_annotations_and_lookalikes(tmp_path: Path):
    benign = tmp_path / "kernel" / "ok.py"
    benign.parent.mkdir(parents=True)
    benign.write_text(
        "import subprocess\nimport os\n"
        "procs: list[subprocess.Popen] = []\n"
        "def f(p: subprocess.Popen) -> subprocess.CompletedProcess:\n"
        "    run = 'not a function'\n"
        "    return subprocess.DEVNULL, subprocess.PIPE, subprocess.TimeoutExpired, os.getpid(), os.path.join('a')\n",
        encoding="utf-8",
    )
    assert find_process_spawns([benign], tmp_path) == ([], set())


def test_spawn_check_allows_a_named_function_but_not_its_neighbour(tmp_path: Path):
    module = tmp_path / "kernel" / "git.py"
    module.parent.mkdir(parents=True)
    module.write_text(
        "import subprocess\n"
        "def _spawn(args):\n    return subprocess.run(['git', *args])\n"
        "def sneak():\n    return subprocess.run(['claude', '-p'])\n",
        encoding="utf-8",
    )
    problems, used = find_process_spawns([module], tmp_path)
    assert problems == ["kernel/git.py:5 subprocess.run starts a process outside the dispatcher"]
    assert used == {("kernel/git.py", "_spawn")}


# Where a file may be written other than through kernel/writes.py, and why.
WRITE_ALLOWED = {
    "kernel/writes.py": "the one writer: refuses links below its anchors",
    "kernel/paths.py": "creates PALLIUM_HOME itself, the user's own setting",
    "kernel/providers/dialects.py": "a provider call's private temporary folder (mkdtemp, mode 0700)",
    "kernel/providers/fake.py": "the fake worker writes as an agent would, inside its own worktree",
    "kernel/worktrees/snapshot.py": "copies git's index into a private temporary folder",
    "kernel/worktrees/registry.py": "makes a worktree's entry folder in the git folder with git's own exclusive mkdir "
    "(a link there fails it); the entry's files go through the writer",
    "pallium_mcp/cli.py": "points standard output at /dev/null after a closed pipe; writes no file",
    "pallium_mcp/launcher.py": "gives a closed standard stream /dev/null; writes no file",
    "services/route/ground.py": "opens a repository file to read it (O_RDONLY, no link followed); writes no file",
}
WRITE_CALL = re.compile(
    r"(?<!writes)\.write_text\(|(?<!writes)\.write_bytes\(|\.mkdir\(|os\.makedirs\(|os\.replace\(|os\.rename\(|os\.open\(|"
    r"shutil\.(?:copy\w*|move)\(|\bopen\([^)\n]*[\"'][wax]b?\+?[\"']|\.open\(\s*[\"'][wax]"
)


def find_unconfined_writes(files: list[Path], root: Path = ROOT) -> list[str]:
    problems = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel in WRITE_ALLOWED or rel.startswith("benchmarks/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if WRITE_CALL.search(line) and not line.lstrip().startswith("#"):
                problems.append(f"{rel}:{number}: {line.strip()}")
    return problems


def test_every_file_pallium_writes_goes_through_the_kernel_writer():
    """A repository can commit links under .pallium; only kernel/writes.py refuses to follow them."""
    assert find_unconfined_writes(_python_files("kernel", "services", "pallium_mcp")) == []


@pytest.mark.parametrize(
    "line",
    ['Path(p).write_text("x")', "os.replace(a, b)", 'open(p, "w")', 'p.open("ab")', "p.mkdir(parents=True)"],
)
def test_write_check_catches_each_way_of_writing_a_file(tmp_path: Path, line: str):
    (tmp_path / "mod.py").write_text(line + "\n", encoding="utf-8")
    assert len(find_unconfined_writes([tmp_path / "mod.py"], tmp_path)) == 1


@pytest.mark.parametrize("service", ["loops", "workflows"])
def test_a_service_with_a_render_module_renders_every_tool_there(service: str):
    """Text for the terminal lives beside the others in `render.py`, not in lambdas among declarations."""
    tools = [t for t in all_tools() if t.handler.__module__.startswith(f"services.{service}.")]
    home = f"services.{service}.render"
    elsewhere = sorted(t.cli for t in tools if t.render is not None and t.render.__module__ != home)
    assert tools and not elsewhere, f"rendered outside services/{service}/render.py: {elsewhere}"
