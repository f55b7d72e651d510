"""`knowledge map` and `knowledge build --no-model`: modules and documents from the repo service's facts.

The facts come through the dispatcher (`pallium_index`, then `pallium_facts`), so the repository
index stays the repo service's. A build stores every document in one transaction (the replaced
ones kept as revisions), then writes the Markdown files.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel.clock import iso_utc
from kernel.context import ToolContext
from services.knowledge import cochange, documents, modules, uses
from services.knowledge.check_rules import read_rules
from services.knowledge.documents import split_terms
from services.knowledge.materialize import Written, materialize
from services.knowledge.rows import DocFields, DocRow, FileEntry, SymbolEntry
from services.knowledge.store import KnowledgeStore

__all__ = ["Built", "build_base", "read_facts"]

COMMIT_LIMIT = 400
_TIME_SLACK_NS = 2_000_000_000  # FAT and some network filesystems keep times to 2 s


@dataclass(frozen=True)
class Facts:
    root: Path
    facts: dict[str, Any]
    config: modules.Config
    modules: list[modules.Module]
    incidents: list[dict[str, Any]]
    started_ns: int = 0  # the clock before the index was brought up to date


@dataclass(frozen=True)
class Built:
    facts: Facts
    documents: int
    changed: int
    removed: int
    written: Written
    built_commit: str | None
    built_at: str


async def read_facts(ctx: ToolContext, repo: str | None) -> Facts:
    """Bring the index up to date and read everything the base is built from."""
    root = ctx.repo_root(repo)
    config = await asyncio.to_thread(modules.load_config, root)
    index_args: dict[str, Any] = {"repo": str(root)}
    if config.include_untracked:
        index_args["untracked"] = True
    started_ns = time.time_ns()  # file times after this are not trusted to mean "as indexed"
    await ctx.call("pallium_index", index_args)
    out = await ctx.call(
        "pallium_facts",
        {
            "repo": str(root),
            "sections": ["files", "symbols", "edges", "external", "references", "resolved", "tests", "commits"],
            "commit_limit": COMMIT_LIMIT,
            "commit_words": list(modules.INCIDENT_WORDS),
        },
    )
    facts = out.model_dump(mode="json")
    # Data tables (`_emoji_codes.py`) are no part of what a module offers, nor leads for a task's words.
    unskipped = {f["path"] for f in facts["files"] if not f["skip_reason"]}
    facts["data_tables"] = await asyncio.to_thread(uses.data_tables, root, facts["files"], unskipped)
    found = await asyncio.to_thread(modules.build_modules, facts, config)
    return Facts(root, facts, config, found, modules.incidents(facts), started_ns)


async def build_base(ctx: ToolContext, repo: str | None) -> Built:
    facts = await read_facts(ctx, repo)
    groups = [m.files[:300] for m in facts.modules]
    # A file's own checks differ from its module's only when tests pair with it (or it is a test):
    # ask for those alone.
    tested = {f["path"] for f in facts.facts["files"] if f["test"]}
    paired = sorted(p for m in facts.modules for p in m.files if p in tested or facts.facts["tests"].get(p))
    checks_out = await ctx.call(
        "pallium_facts",
        {"repo": str(facts.root), "sections": ["checks"], "checks": groups + [[p] for p in paired]},
    )
    checks = checks_out.model_dump(mode="json")["checks"]
    rules = read_rules(facts.root)  # `uv run pytest` where AGENTS.md says so, not `python -m pytest`
    for check in checks:
        for kind in ("fast", "safe", "full"):
            check[kind] = list(dict.fromkeys(rules.apply(c) for c in check[kind]))
        check["full"] = list(dict.fromkeys(rules.suite + check["full"]))
    per_file = {p: c["fast"][:3] for p, c in zip(paired, checks[len(groups) :], strict=True) if c["fast"]}
    store = ctx.store(KnowledgeStore, facts.root)
    now = iso_utc(ctx.clock.now())
    commit = facts.facts["indexed_commit"]
    return await asyncio.to_thread(_store_and_write, store, facts, checks[: len(groups)], per_file, commit, now)


def _store_and_write(
    store: KnowledgeStore,
    facts: Facts,
    checks: list[dict[str, list[str]]],
    per_file: dict[str, list[str]],
    commit: str | None,
    now: str,
) -> Built:
    docs: dict[str, tuple[DocRow, DocFields]] = {}
    for module, check in zip(facts.modules, checks, strict=True):
        data = module.as_dict()
        data["checks"] = (check["fast"] + check["safe"])[:6]
        data["full_checks"] = check["full"][:3]
        readme = _readme(facts.root, module)
        data["purpose"] = documents.purpose_from_facts(data, readme)
        claims = store.claims(module.slug)
        markdown = documents.module_markdown(data, claims, purpose=data["purpose"], built_commit=commit)
        doc = DocRow(
            slug=module.slug,
            kind="module",
            title=module.path or "(repository root)",
            module_path=module.path,
            data=data,
            markdown=markdown,
            built_commit=commit,
            built_at=now,
            verified=False,
            unverified_reason=None if claims else "no model prose yet: run `pallium knowledge build`",
        )
        docs[module.slug] = (doc, documents.module_fields(data, claims))
    incident_md = documents.incidents_markdown(facts.incidents, built_commit=commit)
    docs[documents.INCIDENTS_SLUG] = (
        DocRow(
            documents.INCIDENTS_SLUG,
            "incidents",
            "Incident candidates",
            None,
            {"incidents": facts.incidents},
            incident_md,
            commit,
            now,
            False,
            "candidates are unconfirmed",
        ),
        documents.keyword_fields("Incident candidates", "incident revert rollback hotfix outage"),
    )
    decision_rows = store.decisions()
    docs[documents.DECISIONS_SLUG] = (
        DocRow(
            documents.DECISIONS_SLUG,
            "decisions",
            "Decisions",
            None,
            {"decisions": [d.slug for d in decision_rows]},
            documents.decisions_markdown(decision_rows),
            commit,
            now,
            False,
            "authored decisions are not audited",
        ),
        documents.keyword_fields("Decisions", "decision decisions why intent"),
    )
    tested = {f["path"] for f in facts.facts["files"] if f["test"]}
    owned = {p for m in facts.modules for p in m.files}
    tables = [p for p in facts.facts.get("data_tables", []) if p in owned]
    changed = 0
    with store.db.transaction():
        stale = [s for s in store.slugs() if s not in docs]
        store.delete_docs(stale, now=now)
        for doc, fields in docs.values():
            changed += store.put_doc(doc, fields=fields, now=now)
        store.replace_files(*_file_rows(facts, per_file))
        store.set_state(
            {
                "built_commit": commit or "",
                "built_at": now,
                "modules": str(len(facts.modules)),
                "cochange": cochange.encode(cochange.pairs(facts.facts["commits"])),
                "imports": uses.encode_imports(uses.imports_of(facts.facts["edges"], tested)),
                "data_tables": json.dumps(tables),
            }
        )
    written = materialize(facts.root, {slug: doc.markdown for slug, (doc, _t) in docs.items()})
    return Built(facts, len(docs), changed, len(stale), written, commit, now)


def _file_rows(facts: Facts, per_file: dict[str, list[str]]) -> tuple[list[FileEntry], list[SymbolEntry]]:
    owner = {p: m.slug for m in facts.modules for p in m.files}
    by_path: dict[str, list[dict[str, Any]]] = {}
    for s in facts.facts["symbols"]:
        if s["path"] in owner:
            by_path.setdefault(s["path"], []).append(s)
    refs = facts.facts["referencing_files"]
    tests = facts.facts["tests"]
    importers: dict[str, set[str]] = {}
    reach: dict[str, set[str]] = {}  # module slug -> files outside it importing it
    for e in facts.facts["edges"]:
        if e["src"] != e["dst"]:
            importers.setdefault(e["dst"], set()).add(e["src"])
            if e["src"] in owner and e["dst"] in owner and owner[e["src"]] != owner[e["dst"]]:
                reach.setdefault(owner[e["dst"]], set()).add(e["src"])
    files, symbols = [], []
    for f in facts.facts["files"]:
        path = f["path"]
        if path not in owner:
            continue
        syms = by_path.get(path, [])
        mtime_ns, size = _stat(facts.root / path, facts.started_ns)
        names = " ".join(f"{s['name']} {split_terms(s['name'])}" for s in syms[:400])
        doc = " ".join((s["doc"] or "") for s in syms[:200])[:4000]
        files.append(
            FileEntry(
                path=path,
                slug=owner[path],
                blob=f["blob"],
                language=f["language"],
                test=f["test"],
                tests=[t for t in tests.get(path, []) if t in owner],
                path_terms=split_terms(path),
                names=names,
                doc=doc,
                checks=per_file.get(path, []),
                importers=len(importers.get(path, ())),
                reach=len(reach.get(owner[path], ())),
                mtime_ns=mtime_ns,
                size=size,
            )
        )
        symbols += [
            SymbolEntry(
                s["name"], path, s["kind"], s["qualified"], s["start_line"], s["end_line"], refs.get(s["name"], 0)
            )
            for s in syms
        ]
    return files, symbols


def _stat(path: Path, started_ns: int) -> tuple[int | None, int | None]:
    """The file's time and size, or Nones when it changed so near the index that its content as
    indexed and its time may disagree (filesystems with coarse times); those are hashed on read."""
    try:
        st = os.lstat(path)
    except OSError:
        return None, None
    if st.st_mtime_ns >= started_ns - _TIME_SLACK_NS:
        return None, None
    return st.st_mtime_ns, st.st_size


def _readme(root: Path, module: modules.Module) -> str | None:
    """The first paragraph of the module folder's README, as its own words for its purpose."""
    if module.group:
        return None  # a group of a split folder: the folder's README speaks for its core
    prefix = f"{module.folder}/" if module.folder else ""
    for name in ("README.md", "readme.md", "README.rst", "README.txt", "README"):
        if f"{prefix}{name}" in module.files:
            try:
                text = (root / prefix / name).read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None
            for block in re.split(r"\n\s*\n", text):
                block = block.strip()
                if block and not block.startswith(("#", "=", "-", "!", "[", "<", "```")):
                    return " ".join(block.split())[:400]
    return None
