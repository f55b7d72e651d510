"""The queries over the content half of the index (files, content facts keyed by blob id, resolved
import edges, the symbol search table) that `symbols`, `callers`, `search` and the resolvers ask."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kernel.store import Database
from services.repo.rows import (
    BaseRow,
    ContentInfo,
    DefinitionRow,
    EdgeRow,
    ExporterRow,
    ExportRow,
    FileFactRow,
    FileRow,
    ImportRow,
    IncomingRow,
    NamedExportRow,
    ReferenceRow,
    SearchCandidate,
    SymbolRow,
)
from services.repo.store.schema import CHUNK, REF_KINDS


class ContentReads:
    """Reads of the content half: files, symbols, imports and edges, references, search rows."""

    db: Database

    def files(self) -> dict[str, FileRow]:
        rows = self.db.execute("SELECT path, hash, language, skip_reason, tracked, seen FROM repo_files")
        return {r[0]: FileRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows}

    def file(self, path: str) -> FileRow | None:
        r = self.db.execute(
            "SELECT path, hash, language, skip_reason, tracked, seen FROM repo_files WHERE path = ?", (path,)
        ).fetchone()
        return FileRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) if r else None

    def known_hashes(self) -> set[str]:
        return {h for (h,) in self.db.execute("SELECT hash FROM repo_content")}

    def content_info(self, hash_: str) -> ContentInfo | None:
        row = self.db.execute("SELECT language, status, lines, bytes FROM repo_content WHERE hash = ?", (hash_,))
        found = row.fetchone()
        return ContentInfo(*found) if found else None

    def all_imports(self) -> list[ImportRow]:
        """Every import of every indexed path."""
        return [
            ImportRow(*r)
            for r in self.db.execute(
                "SELECT f.path, f.language, i.raw, i.names FROM repo_files f JOIN repo_imports i ON i.hash = f.hash"
            )
        ]

    def namespace_files(self) -> dict[str, list[str]]:
        """C# namespaces and Kotlin packages, and the files that declare them (`using` and `import a.b.*`
        resolve through these); and each Kotlin top-level declaration, keyed `kotlin a.b.Name`, with
        the files declaring it (`import a.b.Name` names the file that declares Name in package a.b)."""
        out: dict[str, list[str]] = {}
        for path, name in self.db.execute(
            "SELECT f.path, s.qualified FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash "
            "WHERE s.kind = 'namespace' AND f.language IN ('csharp', 'kotlin') ORDER BY s.qualified, f.path"
        ):
            out.setdefault(name, []).append(path)
        for path, name in self.db.execute(
            "SELECT f.path, 'kotlin ' || p.qualified || '.' || s.name FROM repo_files f "
            "JOIN repo_symbols p ON p.hash = f.hash AND p.kind = 'namespace' "
            "JOIN repo_symbols s ON s.hash = f.hash AND s.parent IS NULL AND s.kind != 'namespace' "
            "WHERE f.language = 'kotlin' ORDER BY 2, f.path"
        ):
            paths = out.setdefault(name, [])
            if path not in paths:
                paths.append(path)
        return out

    def imports_of_paths(self, paths: Iterable[str]) -> list[ImportRow]:
        """Every import of the indexed `paths`."""
        wanted = sorted(paths)
        out: list[ImportRow] = []
        for i in range(0, len(wanted), CHUNK):
            chunk = wanted[i : i + CHUNK]
            out += [
                ImportRow(*r)
                for r in self.db.execute(
                    "SELECT f.path, f.language, i.raw, i.names FROM repo_files f "
                    f"JOIN repo_imports i ON i.hash = f.hash WHERE f.path IN ({', '.join('?' * len(chunk))})",
                    chunk,
                )
            ]
        return out

    def imports_of(self, path: str) -> list[tuple[str, str]]:
        return list(self.db.execute("SELECT dst, raw FROM repo_edges WHERE src = ? ORDER BY dst, raw", (path,)))

    def import_names_of(self, path: str) -> list[tuple[str, str]]:
        """`(imported file, names brought in)` for each resolved import of `path`."""
        return list(self.db.execute("SELECT dst, names FROM repo_edges WHERE src = ? ORDER BY dst, raw", (path,)))

    def edges_of(self, path: str) -> list[EdgeRow]:
        """Each resolved import of `path`."""
        rows = self.db.execute("SELECT dst, raw, names FROM repo_edges WHERE src = ? ORDER BY dst, raw", (path,))
        return [EdgeRow(*r) for r in rows]

    def edges_into(self, path: str) -> list[IncomingRow]:
        """Each resolved import of `path` by another file."""
        rows = self.db.execute("SELECT src, raw, names FROM repo_edges WHERE dst = ? ORDER BY src, raw", (path,))
        return [IncomingRow(*r) for r in rows]

    def exports_of(self, path: str) -> list[ExportRow]:
        """What `path` hands its importers under another name (`aliases.exports`), by line."""
        rows = self.db.execute(
            "SELECT x.name, x.original, x.raw FROM repo_files f JOIN repo_exports x ON x.hash = f.hash "
            "WHERE f.path = ? ORDER BY x.line, x.name, x.original, x.raw",
            (path,),
        )
        return [ExportRow(*r) for r in rows]

    def bound_type(self, path: str, name: str) -> str | None:
        """The type word `path`'s top level binds `name` to (`parsing.typed_bindings`), if one."""
        rows = self.db.execute(
            "SELECT DISTINCT t.type FROM repo_files f JOIN repo_typed t ON t.hash = f.hash "
            "WHERE f.path = ? AND t.name = ?",
            (path, name),
        ).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def exports_named(self, name: str, *, limit: int) -> list[NamedExportRow]:
        """The files that hand their importers `name` bound to another name, by path and line."""
        rows = self.db.execute(
            "SELECT f.path, x.original, x.raw FROM repo_exports x JOIN repo_files f ON f.hash = x.hash "
            "WHERE x.name = ? AND x.original != x.name ORDER BY f.path, x.line, x.original, x.raw LIMIT ?",
            (name, limit),
        )
        return [NamedExportRow(*r) for r in rows]

    def exporters_of(self, path: str) -> list[ExporterRow]:
        """The files importing `path` that hand on something of it (under its name or another)."""
        rows = self.db.execute(
            "SELECT e.src, x.name, x.original FROM repo_edges e JOIN repo_files f ON f.path = e.src "
            "JOIN repo_exports x ON x.hash = f.hash AND x.raw = e.raw WHERE e.dst = ? "
            "ORDER BY e.src, x.line, x.name, x.original",
            (path,),
        )
        return [ExporterRow(*r) for r in rows]

    def references_in(self, name: str, paths: Sequence[str], *, kind: str | None = None) -> list[ReferenceRow]:
        """References to `name` (of `kind` when given) in the files `paths`, by path and line."""
        out: list[ReferenceRow] = []
        kinds = [kind] if kind is not None else list(REF_KINDS)
        listed = sorted(set(paths))
        for i in range(0, len(listed), CHUNK):
            chunk = listed[i : i + CHUNK]
            # name, kind and content each fixed: the name index answers it with a probe per kind and file
            rows = self.db.execute(
                "SELECT f.path, f.language, r.line, r.kind, r.receiver, (SELECT s.qualified FROM repo_symbols s "
                " WHERE s.hash = c.hash AND s.start_line <= r.line AND s.end_line >= r.line AND s.kind != 'constant' "
                " ORDER BY s.start_line DESC, s.end_line, s.id LIMIT 1) "
                "FROM repo_files f JOIN repo_content c ON c.hash = f.hash JOIN repo_refs r ON r.content = c.id "
                f"WHERE f.path IN ({', '.join('?' * len(chunk))}) AND r.name = ? "
                f"AND r.kind IN ({', '.join('?' * len(kinds))}) ORDER BY f.path, r.line, r.kind, r.receiver",
                [*chunk, name, *kinds],
            )
            out += [ReferenceRow(*r) for r in rows]
        return out

    def raw_imports_of(self, path: str) -> list[tuple[str, int]]:
        return list(
            self.db.execute(
                "SELECT i.raw, i.line FROM repo_files f JOIN repo_imports i ON i.hash = f.hash "
                "WHERE f.path = ? ORDER BY i.line",
                (path,),
            )
        )

    def importers_of(self, path: str) -> list[str]:
        return [
            s for (s,) in self.db.execute("SELECT DISTINCT src FROM repo_edges WHERE dst = ? ORDER BY src", (path,))
        ]

    def search_candidates(self, match: str, *, limit: int) -> list[SearchCandidate]:
        """The best `limit` symbol rows by BM25, with their name and path terms."""
        # Rank on rowid and score alone, then read the columns of the winners: selecting the text
        # columns in the ranking query makes SQLite carry them through the sort for every match
        # (a common word matches tens of thousands of symbols), which doubled the query's time.
        ranked = self.db.execute(
            "SELECT rowid, bm25(repo_symbol_fts, 6.0, 2.0, 1.0, 1.5) AS score FROM repo_symbol_fts "
            "WHERE repo_symbol_fts MATCH ? ORDER BY score, rowid LIMIT ?",
            (match, limit),
        ).fetchall()
        if not ranked:
            return []
        columns: dict[int, tuple[int, str, str, str]] = {}
        for start in range(0, len(ranked), 500):
            chunk = [row for row, _ in ranked[start : start + 500]]
            for row, sid, path, terms, path_terms in self.db.execute(
                "SELECT rowid, symbol_id, path, terms, path_terms FROM repo_symbol_fts "
                f"WHERE rowid IN ({','.join('?' * len(chunk))})",
                chunk,
            ):
                columns[row] = (int(sid), path, terms, path_terms)
        found = []
        for row, score in ranked:
            sid, path, terms, path_terms = columns[row]
            found.append(SearchCandidate(sid, path, score, terms, path_terms))
        found.sort(key=lambda c: (c.score, c.path))  # the order the single query gave: score, then path
        return found

    def whole_module_imports(self, path: str) -> list[tuple[str, int]]:
        """`(raw, line)` of the indexed file's imports of a whole module (`import * as z from "./x"`)."""
        rows = self.db.execute(
            "SELECT i.raw, i.line FROM repo_files f JOIN repo_imports i ON i.hash = f.hash "
            "WHERE f.path = ? AND i.names = '' ORDER BY i.line, i.raw",
            (path,),
        )
        return [(raw, line) for raw, line in rows]

    def registrations_like(self, fragment: str, *, limit: int) -> list[tuple[str, str, int]]:
        """`(key, path, line)` of the strings registration calls register (`add_option("max_conns")`)
        whose key holds `fragment` (any case), by path and line."""
        escaped = fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.db.execute(
            "SELECT r.name, f.path, r.line FROM repo_refs r JOIN repo_content c ON c.id = r.content "
            "JOIN repo_files f ON f.hash = c.hash WHERE r.kind = 'registration' AND r.name LIKE ? ESCAPE '\\' "
            "ORDER BY f.path, r.line, r.name LIMIT ?",
            (f"%{escaped}%", limit),
        )
        return [(name, path, line) for name, path, line in rows]

    def symbol(self, symbol_id: int, path: str) -> SymbolRow | None:
        r = self.db.execute(
            "SELECT id, name, kind, qualified, parent, signature, start_line, end_line, doc, decorators "
            "FROM repo_symbols WHERE id = ?",
            (symbol_id,),
        ).fetchone()
        return SymbolRow(r[0], path, *r[1:]) if r else None

    def symbols_in(self, path: str) -> list[SymbolRow]:
        rows = self.db.execute(
            "SELECT s.id, f.path, s.name, s.kind, s.qualified, s.parent, s.signature, s.start_line, s.end_line, s.doc, "
            "s.decorators FROM repo_files f JOIN repo_symbols s ON s.hash = f.hash WHERE f.path = ? "
            "ORDER BY s.start_line, s.id",
            (path,),
        )
        return [SymbolRow(*r) for r in rows]

    def definitions(self, name: str) -> list[DefinitionRow]:
        rows = self.db.execute(
            "SELECT s.id, f.path, f.language, s.name, s.kind, s.qualified, s.parent, s.signature, s.start_line "
            "FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash WHERE s.name = ? "
            "ORDER BY f.path, s.start_line, s.qualified, s.id",
            (name,),
        )
        return [DefinitionRow(*r) for r in rows]

    def names_like(self, fragment: str, *, limit: int) -> list[str]:
        """Distinct symbol names holding `fragment` (any case), shortest first."""
        # instr, not LIKE: no wildcard to escape and no pattern-length limit for a hostile fragment
        return [
            n
            for (n,) in self.db.execute(
                "SELECT DISTINCT name FROM repo_symbols WHERE instr(lower(name), lower(?)) > 0 "
                "ORDER BY length(name), name LIMIT ?",
                (fragment, limit),
            )
        ]

    def references(self, name: str, *, kind: str | None = None, limit: int = -1, offset: int = 0) -> list[ReferenceRow]:
        """References to `name` (of `kind` when given), by path and line; `limit` -1 = all."""
        rows = self.db.execute(
            "SELECT f.path, f.language, r.line, r.kind, r.receiver, (SELECT s.qualified FROM repo_symbols s "
            " WHERE s.hash = c.hash AND s.start_line <= r.line AND s.end_line >= r.line AND s.kind != 'constant' "
            " ORDER BY s.start_line DESC, s.end_line, s.id LIMIT 1) "
            "FROM repo_refs r JOIN repo_content c ON c.id = r.content JOIN repo_files f ON f.hash = c.hash "
            "WHERE r.name = ? AND (? IS NULL OR r.kind = ?) "
            "ORDER BY f.path, r.line, r.kind, r.receiver LIMIT ? OFFSET ?",
            (name, kind, kind, limit, offset),
        )
        return [ReferenceRow(*r) for r in rows]

    def bases_of(self, path: str, qualified: str) -> list[ReferenceRow]:
        """The `inherits` references of class `qualified` in `path` (its bases, by line), named."""
        rows = self.db.execute(
            "SELECT r.name, f.language, r.line, r.kind, r.receiver, (SELECT s.qualified FROM repo_symbols s "
            " WHERE s.hash = c.hash AND s.start_line <= r.line AND s.end_line >= r.line AND s.kind != 'constant' "
            " ORDER BY s.start_line DESC, s.end_line, s.id LIMIT 1) AS enclosing "
            "FROM repo_files f JOIN repo_content c ON c.hash = f.hash JOIN repo_refs r ON r.content = c.id "
            "WHERE f.path = ? AND r.kind = 'inherits' "
            "ORDER BY r.line, r.name",  # the order of bases within one line is not stored
            (path,),
        )
        return [BaseRow(r[0], ReferenceRow(path, *r[1:])) for r in rows if r[5] == qualified]

    def trait_impls_of(self, type_name: str, path: str | None) -> list[tuple[str, str]]:
        """`(path, qualified)` of the Rust `impl Trait for Type` blocks of `type_name`, in `path` (None: in
        any file), by path and line."""
        suffix = " for " + type_name
        rows = self.db.execute(
            "SELECT f.path, s.qualified FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash "
            "WHERE s.kind = 'impl' AND f.language = 'rust' AND substr(s.name, -?) = ? AND (? IS NULL OR f.path = ?) "
            "ORDER BY f.path, s.start_line, s.id",
            (len(suffix), suffix, path, path),
        )
        return [(r[0], r[1]) for r in rows]

    def reference_kinds(self, name: str) -> dict[str, int]:
        """How many references to `name` there are of each kind."""
        rows = self.db.execute(
            "SELECT r.kind, count(*) FROM repo_refs r JOIN repo_content c ON c.id = r.content "
            "JOIN repo_files f ON f.hash = c.hash WHERE r.name = ? "
            "GROUP BY r.kind ORDER BY r.kind",
            (name,),
        )
        return dict(rows)

    def paths_with_names(self, stem_patterns: Sequence[str]) -> list[str]:
        out: list[str] = []
        for pattern in stem_patterns:
            out.extend(p for (p,) in self.db.execute("SELECT path FROM repo_files WHERE path GLOB ?", (pattern,)))
        return out

    def file_facts(self) -> list[FileFactRow]:
        """Every indexed path, by path."""
        rows = self.db.execute(
            "SELECT f.path, f.hash, f.language, f.skip_reason, f.tracked, coalesce(c.lines, 0) FROM repo_files f "
            "LEFT JOIN repo_content c ON c.hash = f.hash ORDER BY f.path"
        )
        return [FileFactRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]

    def all_symbols(self) -> list[SymbolRow]:
        rows = self.db.execute(
            "SELECT s.id, f.path, s.name, s.kind, s.qualified, s.parent, s.signature, s.start_line, s.end_line, s.doc "
            "FROM repo_files f JOIN repo_symbols s ON s.hash = f.hash WHERE s.kind != 'module' "
            "ORDER BY f.path, s.start_line, s.id"
        )
        return [SymbolRow(*r) for r in rows]

    def common_names(self, *, limit: int) -> list[str]:
        """The function, method and class names defined most often (for benchmarks' sample queries)."""
        return [
            n
            for (n,) in self.db.execute(
                "SELECT name FROM repo_symbols WHERE kind IN ('function', 'method', 'class') AND length(name) > 3 "
                "GROUP BY name ORDER BY count(*) DESC, name LIMIT ?",
                (limit,),
            )
        ]

    def all_edges(self) -> list[tuple[str, str]]:
        """`(importer, imported)` for every resolved import edge, once per pair."""
        return list(self.db.execute("SELECT DISTINCT src, dst FROM repo_edges ORDER BY src, dst"))

    def referencing_file_counts(self) -> dict[str, int]:
        """For each name defined somewhere in the index, how many distinct files reference it."""
        rows = self.db.execute(
            "SELECT r.name, count(DISTINCT f.path) FROM repo_refs r JOIN repo_content c ON c.id = r.content "
            "JOIN repo_files f ON f.hash = c.hash "
            "WHERE r.name IN (SELECT name FROM repo_symbols) GROUP BY r.name"
        )
        return dict(rows)

    def top_level_uses(self) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
        """`(path, name)` of every top-level definition of a parsed file, and `(path, name, receiver)`
        of every reference elsewhere to one of those names (for `surface_counts`)."""
        defs = list(
            self.db.execute(
                "SELECT DISTINCT f.path, s.name FROM repo_symbols s JOIN repo_files f ON f.hash = s.hash "
                "WHERE s.parent IS NULL AND s.kind != 'module' AND f.skip_reason IS NULL"
            )
        )
        uses = list(
            self.db.execute(
                "SELECT DISTINCT f.path, r.name, r.receiver FROM repo_refs r JOIN repo_content c ON c.id = r.content "
                "JOIN repo_files f ON f.hash = c.hash WHERE r.name IN "
                "(SELECT s.name FROM repo_symbols s WHERE s.parent IS NULL AND s.kind != 'module')"
            )
        )
        return defs, uses

    def edges_with_names(self) -> list[tuple[str, str, str, str]]:
        """`(importer, imported, import as written, names it brings)` for every resolved import edge."""
        return list(self.db.execute("SELECT src, dst, raw, names FROM repo_edges"))

    def resolved_imports(self) -> set[tuple[str, str]]:
        """`(importer, import as written)` of every import that resolved to a file."""
        return set(self.db.execute("SELECT DISTINCT src, raw FROM repo_edges"))
