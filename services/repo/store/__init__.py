"""The repository index's tables and every SQL statement that reads or writes them.

Two halves live here. The git half: commits, the files each touched, co-change pairs and the
decision notes (FTS5) drawn from commit messages. The content half: per-path entries pointing at
content facts keyed by git blob id (symbols, imports, references), so identical content is parsed
once; the resolved import edges and the symbol search table are per path. `repo_state` holds the
watermarks. Nothing outside this package names these tables.

The package splits along what its callers do: `schema` holds the migrations, `writes` every statement
an index run writes with, `history_reads` and `content_reads` the queries the tools answer from.
`RepoStore` is all of them over one open `Database`.
"""

from __future__ import annotations

from kernel.store import Database, Schema
from services.repo.store.content_reads import ContentReads
from services.repo.store.history_reads import HistoryReads
from services.repo.store.schema import SCHEMA, read_state
from services.repo.store.writes import IndexWrites

__all__ = ["SCHEMA", "RepoStore", "read_state"]


class RepoStore(IndexWrites, HistoryReads, ContentReads):
    """Typed access to the repo index over one open `Database`."""

    DATABASE = "repo"
    SCHEMAS: tuple[Schema, ...] = (SCHEMA,)

    def __init__(self, db: Database) -> None:
        self.db = db

    def state(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM repo_state"))
