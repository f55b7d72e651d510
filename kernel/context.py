"""What a handler is given besides its input: authority, where it runs, stores, progress, the clock."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel import paths
from kernel.authority import Authority
from kernel.clock import Clock, default_clock
from kernel.progress import Progress

if TYPE_CHECKING:
    from kernel.store import Database, Schema, StoreT

__all__ = ["ToolContext"]


@dataclass
class ToolContext:
    """Passed to every handler by the dispatcher.

    `ceiling` is the highest authority this call may use; calls a handler makes to other tools
    through `call` inherit it. `cwd` is the caller's folder (the CLI's working directory, the MCP
    server's). Databases open on first use and close with the context.
    """

    ceiling: Authority = "edit"
    cwd: Path = field(default_factory=Path.cwd)
    progress: Progress = field(default_factory=Progress)
    clock: Clock = field(default_factory=default_clock)
    origin: str = "cli"  # which front door the call came through: "cli" or "mcp"
    _open: dict[str, Database] = field(default_factory=dict, repr=False)

    def repo_root(self, repo: str | None = None) -> Path:
        """The repository named by `repo`, else the one holding `cwd`."""
        if repo is None:
            return paths.find_repo_root(self.cwd)
        target = Path(repo).expanduser()
        return paths.find_repo_root(target if target.is_absolute() else self.cwd / target)

    def store(self, kind: type[StoreT], repo_root: Path | None = None) -> StoreT:
        """Open the store `kind` (a service's store class), on this context's cached database.

        Every service opens its store this way: `ctx.store(LoopStore)` for one in the global
        database, `ctx.store(RepoStore, root)` for one in a repository's. The class's `SCHEMAS`
        are migrated and verified on the first open; the database closes with the context.
        """
        from kernel import store

        store.check_placement(kind, repo_root)
        scope = f"repo:{repo_root}" if repo_root is not None else "global"
        key = f"{scope}:" + ",".join(s.service for s in kind.SCHEMAS)
        return kind(self._cached(key, lambda: store.open_database_of(kind, repo_root)))

    def global_db(self, schemas: Sequence[Schema] = ()) -> Database:
        from kernel import store

        return self._cached("global:" + ",".join(s.service for s in schemas), lambda: store.open_global(schemas))

    def repo_db(self, repo_root: Path, schemas: Sequence[Schema] = ()) -> Database:
        from kernel import store

        key = f"repo:{repo_root}:" + ",".join(s.service for s in schemas)
        return self._cached(key, lambda: store.open_repo(repo_root, schemas))

    async def call(self, tool_name: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call another tool by name, under this call's ceiling: the one door between services.

        The answer is the tool's output model. It is typed `Any` on purpose: a service may not
        import another service's models (front doors only), so the caller reads the fields it
        needs (`out.valid`, `out.cost`) without a `type: ignore`, and the dispatcher has already
        checked the answer is an instance of the tool's declared output model.
        """
        from kernel import dispatch

        return await dispatch.call(tool_name, arguments or {}, self)

    def close(self) -> None:
        for db in self._open.values():
            db.close()
        self._open.clear()
        self.progress.close()

    def _cached(self, key: str, opener: Any) -> Database:
        if key not in self._open:
            self._open[key] = opener()
        return self._open[key]
