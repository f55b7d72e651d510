"""Pallium's own tools: `version`, `doctor` and `db reset`."""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from kernel import paths, writes
from kernel.clock import iso_utc
from kernel.context import ToolContext
from kernel.errors import PalliumError
from kernel.models import ToolInput, ToolOutput
from kernel.tool import Annotations, Route, Tool

if TYPE_CHECKING:
    from kernel.store import Schema

KEY_DEPENDENCIES = (
    "mcp",
    "anyio",
    "pydantic",
    "apsw",
    "sqlite-vec",
    "tree-sitter",
    "openai",
    "keyring",
    "psutil",
)


# ---------------------------------------------------------------- version


class VersionInput(ToolInput):
    pass


class Dependency(ToolOutput):
    name: str
    version: str | None = Field(description="installed version, or null when it is not installed")


class DatabaseVersions(ToolOutput):
    scope: Literal["global", "repo"]
    path: str
    exists: bool
    schemas: dict[str, int] = Field(description="service name to schema version stored in the file")


class VersionOutput(ToolOutput):
    pallium: str
    python: str
    platform: str
    sqlite: str | None
    dependencies: list[Dependency]
    databases: list[DatabaseVersions]


async def version(inp: VersionInput, ctx: ToolContext) -> VersionOutput:
    import apsw

    from kernel.store import read_versions

    databases = [_db_versions("global", paths.global_db_path(), read_versions)]
    try:
        root = ctx.repo_root()
    except PalliumError:
        root = None
    if root is not None:
        databases.append(_db_versions("repo", paths.repo_db_path(root), read_versions))
    return VersionOutput(
        pallium=_installed("pallium") or "unknown",
        python=platform.python_version(),
        platform=f"{platform.system()} {platform.machine()}",
        sqlite=apsw.sqlite_lib_version(),
        dependencies=[Dependency(name=n, version=_installed(n)) for n in KEY_DEPENDENCIES],
        databases=databases,
    )


def _db_versions(scope: Literal["global", "repo"], path: Path, reader: Callable[[Path], dict]) -> DatabaseVersions:
    try:
        schemas = {service: row["version"] for service, row in reader(path).items()}
    except PalliumError:
        schemas = {}  # a damaged file is doctor's to report; version still answers
    return DatabaseVersions(scope=scope, path=str(path), exists=path.exists(), schemas=schemas)


def _render_version(out: VersionOutput) -> str:
    lines = [f"pallium {out.pallium} (Python {out.python}, SQLite {out.sqlite}, {out.platform})"]
    lines += [f"  {d.name} {d.version or 'not installed'}" for d in out.dependencies]
    for db in out.databases:
        schemas = ", ".join(f"{k} v{v}" for k, v in db.schemas.items()) or ("empty" if db.exists else "not created")
        lines.append(f"  {db.scope} database {db.path}: {schemas}")
    return "\n".join(lines)


def _installed(name: str) -> str | None:
    try:
        return dist_version(name)
    except PackageNotFoundError:
        return None


# ---------------------------------------------------------------- doctor


class DoctorInput(ToolInput):
    repo: str | None = Field(None, description="repository to check; default: the one holding the current folder")


class Check(ToolOutput):
    name: str
    status: Literal["ok", "warn", "fail"]
    detail: str
    hint: str | None = None


class DoctorOutput(ToolOutput):
    ok: bool = Field(description="false when any check failed")
    summary: str
    checks: list[Check]


async def doctor(inp: DoctorInput, ctx: ToolContext) -> DoctorOutput:
    checks = [
        _check_python(),
        _check_git(),
        *_check_sqlite(),
        _check_home(),
        _check_database("global database", paths.global_db_path()),
    ]
    try:
        root = ctx.repo_root(inp.repo)
    except PalliumError as exc:
        if inp.repo is not None:
            raise
        checks.append(Check(name="repository", status="ok", detail=f"not in a repository ({exc.message})"))
    else:
        checks.append(Check(name="repository", status="ok", detail=str(root)))
        checks.append(_check_database("repo database", paths.repo_db_path(root)))
        checks.append(_check_index(paths.repo_db_path(root)))
    checks.append(_check_tree_sitter())
    checks.append(_check_keyring())
    checks += [_check_agent_cli("claude"), _check_agent_cli("codex")]
    counts = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail")}
    return DoctorOutput(
        ok=counts["fail"] == 0,
        summary=f"{counts['ok']} ok, {counts['warn']} warning(s), {counts['fail']} failure(s)",
        checks=checks,
    )


def _check_python() -> Check:
    good = sys.version_info >= (3, 11)
    return Check(
        name="python",
        status="ok" if good else "fail",
        detail=f"{platform.python_version()} at {sys.executable}",
        hint=None if good else "Pallium needs Python 3.11 or newer",
    )


def _check_git() -> Check:
    from kernel.git import git_version

    found = git_version()
    if found is None:
        return Check(name="git", status="fail", detail="git not found on PATH", hint="install git 2.25 or newer")
    return Check(name="git", status="ok", detail=f"git {found}")


def _check_sqlite() -> list[Check]:
    import apsw

    conn = apsw.Connection(":memory:")
    try:
        try:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
            fts = Check(name="sqlite", status="ok", detail=f"SQLite {apsw.sqlite_lib_version()} with FTS5")
        except apsw.Error as exc:
            fts = Check(name="sqlite", status="fail", detail=f"FTS5 unavailable: {exc}", hint="reinstall apsw")
        try:
            import sqlite_vec

            conn.enable_load_extension(True)
            conn.load_extension(sqlite_vec.loadable_path())
            vec = Check(name="sqlite-vec", status="ok", detail=f"sqlite-vec {conn.execute('SELECT vec_version()').get}")
        except (ImportError, apsw.Error) as exc:
            vec = Check(name="sqlite-vec", status="fail", detail=f"cannot load: {exc}", hint="pip install sqlite-vec")
    finally:
        conn.close()
    return [fts, vec]


def _check_home() -> Check:
    home = paths.pallium_home()
    try:
        paths.ensure_home()
        with tempfile.NamedTemporaryFile(dir=home, prefix=".doctor-", delete=True):
            pass
    except (PalliumError, OSError) as exc:
        message = exc.message if isinstance(exc, PalliumError) else str(exc)
        return Check(
            name="pallium home", status="fail", detail=message, hint="set PALLIUM_HOME to a folder you can write"
        )
    return Check(name="pallium home", status="ok", detail=f"{home} is writable")


def _check_database(name: str, path: Path) -> Check:
    from kernel.store import check_database, quick_check, reset_hint

    folder = path.parent
    if not path.exists():
        if folder.exists() and not os.access(folder, os.W_OK | os.X_OK):
            return Check(
                name=name,
                status="fail",
                detail=f"{folder} is not writable, so {path.name} cannot be created",
                hint=f"make it writable (`chmod u+w {folder}`) or run Pallium as its owner",
            )
        return Check(name=name, status="ok", detail=f"{path} not created yet")
    try:
        versions = check_database(path, _known_schemas())
        damage = quick_check(path)
    except PalliumError as exc:
        return Check(name=name, status="fail", detail=exc.message, hint=exc.hint)
    if damage is not None:
        return Check(name=name, status="fail", detail=f"{path} is damaged: {damage}", hint=reset_hint(path))
    unwritable = [p for p in (folder, path) if not os.access(p, os.W_OK)]
    if unwritable:
        return Check(
            name=name,
            status="fail",
            detail=f"{', '.join(map(str, unwritable))} not writable: Pallium can read but not record here",
            hint=f"make it writable (`chmod u+w {' '.join(map(str, unwritable))}`) or run Pallium as its owner",
        )
    shown = ", ".join(f"{s} v{v}" for s, v in versions.items()) or "no schemas yet"
    return Check(name=name, status="ok", detail=f"{path}: {shown}")


def _check_index(path: Path) -> Check:
    """What the repository index lacks: the notes its last runs left (objects git could not read,
    a shallow clone), so `doctor` never calls all well while the index answers from part of history."""
    import importlib

    # The repo service's own reader of its state table, loaded by name as `_known_schemas` loads the
    # stores: doctor reads a file, it does not become a client of the service's internals.
    state = importlib.import_module("services.repo.store").read_state(path)
    if "indexed_at" not in state:
        return Check(name="repository index", status="ok", detail="not built yet (every read tool builds it)")
    notes = [*json.loads(state.get("history_notes") or "[]"), *json.loads(state.get("churn_notes") or "[]")]
    if state.get("git_shallow") == "1":
        notes.insert(0, "shallow clone: history stops at its boundary")
    if not notes:
        return Check(name="repository index", status="ok", detail=f"built {state['indexed_at']}, whole history read")
    return Check(
        name="repository index",
        status="warn",
        detail=f"built {state['indexed_at']} from part of history: " + "; ".join(notes),
        hint="repair or complete the clone (`git fetch --refetch`, `git fetch --unshallow`, `git fsck`), "
        "then `pallium index --full`",
    )


def _known_schemas() -> list[Schema]:
    """Every schema this Pallium opens: the kernel's run tables and each service's store."""
    import importlib
    import importlib.util
    import pkgutil

    import services
    from kernel import runstore
    from kernel.store import Schema

    modules = [runstore]
    for found in pkgutil.iter_modules(services.__path__):
        if found.ispkg and importlib.util.find_spec(f"services.{found.name}.store") is not None:
            modules.append(importlib.import_module(f"services.{found.name}.store"))
    schemas = {
        value.service: value for module in modules for value in vars(module).values() if isinstance(value, Schema)
    }
    return list(schemas.values())


def _check_tree_sitter() -> Check:
    missing = []
    for module in (
        "tree_sitter_python",
        "tree_sitter_javascript",
        "tree_sitter_typescript",
        "tree_sitter_go",
        "tree_sitter_rust",
        "tree_sitter_java",
    ):
        try:
            __import__(module)
        except ImportError:
            missing.append(module.replace("_", "-"))
    if missing:
        return Check(
            name="tree-sitter grammars",
            status="warn",
            detail=f"missing: {', '.join(missing)}",
            hint=f"pip install {' '.join(missing)}; files in those languages are indexed without symbols",
        )
    return Check(name="tree-sitter grammars", status="ok", detail="python, javascript, typescript, go, rust, java")


def _check_keyring() -> Check:
    from kernel.credentials import keyring_status

    usable, detail = keyring_status()
    if not usable:
        return Check(
            name="keyring",
            status="warn",
            detail=detail,
            hint="keys can still come from environment variables (PALLIUM_EMBED_API_KEY, OPENAI_API_KEY)",
        )
    return Check(name="keyring", status="ok", detail=f"backend {detail}")


def _check_agent_cli(program: str) -> Check:
    from kernel.providers.probe import check_cli

    found = check_cli(program)
    if found.path is None:
        return Check(
            name=program,
            status="warn",
            detail=f"{program} not on PATH",
            hint=f"install {program} to run workers with it; other providers still work",
        )
    if found.missing_flags:
        return Check(
            name=program,
            status="warn",
            detail=f"{found.version or '?'} at {found.path}: --help lacks {', '.join(found.missing_flags)}",
            hint=f"workers on {program} may fail; update {program} or Pallium",
        )
    return Check(
        name=program, status="ok", detail=f"{found.version or '?'} at {found.path}; flags Pallium uses present"
    )


def _render_doctor(out: DoctorOutput) -> str:
    marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
    lines = []
    for c in out.checks:
        lines.append(f"{marks[c.status]}  {c.name}: {c.detail}")
        if c.hint and c.status != "ok":
            lines.append(f"      -> {c.hint}")
    lines.append(out.summary)
    return "\n".join(lines)


# ---------------------------------------------------------------- db reset


class DbResetInput(ToolInput):
    scope: Literal["repo", "global"] = Field("repo", description="which database: the repository's or the global one")
    repo: str | None = Field(None, description="repository whose database to reset; default: the current one")
    confirm: bool = Field(False, description="actually move the files aside; without it, only say what would move")


class DbResetOutput(ToolOutput):
    path: str
    moved: list[str] = Field(description="files moved aside (empty in a preview)")
    would_move: list[str] = Field(description="files a confirmed call moves aside")
    backup_suffix: str | None
    confirmed: bool


async def db_reset(inp: DbResetInput, ctx: ToolContext) -> DbResetOutput:
    path = paths.global_db_path() if inp.scope == "global" else paths.repo_db_path(ctx.repo_root(inp.repo))
    files = [p for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()]
    suffix = "." + iso_utc(ctx.clock.now()).replace(":", "").replace("-", "") + ".bak"
    moved: list[str] = []
    if inp.confirm:
        for file in files:
            target = Path(str(file) + suffix)
            writes.move(file, target)
            moved.append(str(target))
    return DbResetOutput(
        path=str(path),
        moved=moved,
        would_move=[str(f) for f in files],
        backup_suffix=suffix if files else None,
        confirmed=inp.confirm,
    )


def _render_db_reset(out: DbResetOutput) -> str:
    if not out.would_move:
        return f"nothing to reset: {out.path} does not exist"
    if not out.confirmed:
        return (
            "would move aside:\n"
            + "\n".join(f"  {p}" for p in out.would_move)
            + "\nrerun with --confirm --authority admin"
        )
    return "moved aside (nothing deleted):\n" + "\n".join(f"  {p}" for p in out.moved)


TOOLS = (
    Tool(
        cli="version",
        handler=version,
        input=VersionInput,
        output=VersionOutput,
        summary="Pallium's version, Python, key dependencies and database schema versions.",
        description=(
            "Use to report what is installed when filing a bug or checking an upgrade. Not a health "
            "check (use pallium_doctor). Reads package metadata and the databases' schema tables; "
            "no writes, no network; a few hundred bytes."
        ),
        authority="observe",
        toolset="core",
        route=Route(
            phrasings=(
                "what version of pallium is installed",
                "which pallium release am I running",
                "show pallium's version and its dependencies",
                "print the pallium version",
                "which database schema versions does pallium use",
            ),
        ),
        render=_render_version,
    ),
    Tool(
        cli="doctor",
        handler=doctor,
        input=DoctorInput,
        output=DoctorOutput,
        summary="Check that Pallium can run here: git, SQLite, sqlite-vec, home folder, databases, agent CLIs.",
        description=(
            "Use when a Pallium call fails for reasons outside its input, or once after installing. "
            "One row per check with ok, warn or fail and a hint; absent agent CLIs are warnings. Not for "
            "repository questions (use pallium_changed_now). Runs `git --version`, `claude --version` and "
            "`codex --version`, opens databases read-only; about 1 KB."
        ),
        authority="observe",
        toolset="core",
        route=Route(
            phrasings=(
                "check that pallium can run here",
                "is pallium set up correctly on this machine",
                "diagnose why pallium is failing",
                "are git, sqlite and the agent clis available",
                "run the pallium health check",
                "troubleshoot my pallium installation",
            ),
        ),
        render=_render_doctor,
        exit_code=lambda out: 0 if out.ok else 1,
    ),
    Tool(
        cli="db reset",
        handler=db_reset,
        input=DbResetInput,
        output=DbResetOutput,
        summary="Move a damaged or unwanted Pallium database aside so the next call starts afresh.",
        description=(
            "Use when pallium_doctor reports a corrupt database or a schema from a newer Pallium you "
            "cannot upgrade to. Previews by default; with confirm it renames the files with a .bak "
            "suffix (never deletes) and needs admin authority. Indexes and history in that database "
            "must then be rebuilt."
        ),
        authority="observe",
        escalation=("confirm", "admin"),
        toolset="core",
        route=Route(
            phrasings=(
                "reset pallium's database",
                "the pallium database is corrupt, start fresh",
                "move the damaged database aside",
                "wipe pallium's state and start over",
                "clear the repository database",
            ),
            flags={"confirm": ("reset", "wipe", "clear", "fresh", "aside", "over")},
        ),
        annotations=Annotations(read_only=False, destructive=True, idempotent=False),
        render=_render_db_reset,
    ),
)
