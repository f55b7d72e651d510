"""`knowledge serve`: a read-only site over the knowledge base, on loopback.

Pages: the module list, each module's page (its document rendered from Markdown, its claims with
citations linked to the cited source lines, freshness and evidence badges), a source view with a
line anchor per line (only for files the base describes), and search. The bind rules are the MCP
HTTP server's: loopback by default, any other address only with a bearer token, and on loopback
a Host header that is not a loopback name is refused (DNS rebinding).
"""

from __future__ import annotations

import html
import ipaddress
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kernel.errors import PalliumError
from services.knowledge import freshness, reading, site
from services.knowledge.store import KnowledgeStore

__all__ = ["build_app", "check_bind"]

_OUTCOMES = {  # why a claim left the document, in the reader's words
    "unresolved": "unresolved citations at build",
    "rejected": "rejected at build (the tree changed)",
    "refuted": "refuted by the audit",
}
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1", "[::1]"}
_STYLE = (
    "body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}"
    "a{color:#0b5394}.badge{display:inline-block;padding:.1rem .5rem;border-radius:.6rem;font-size:12px;"
    "margin-right:.3rem;background:#eee}.fresh{background:#d9ead3}.stale{background:#fce5cd}"
    ".verified{background:#cfe2f3}.dropped{background:#f4cccc;color:#222;text-decoration:none}.uncertain{background:#fff2cc}table{border-collapse:collapse}"
    "td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}pre{background:#f6f6f6;padding:.5rem}"
    ".line{white-space:pre;font:13px monospace}.line:target{background:#fff2cc}.n{color:#999;user-select:none}"
    ".claim{margin:.4rem 0}"
)


def check_bind(host: str, token: str | None) -> None:
    if not is_loopback(host) and not token:
        raise PalliumError(
            "invalid_input",
            f"refusing to serve the knowledge site on {host!r} without a bearer token",
            hint="pass `token` (CLI `--token`) or set PALLIUM_MCP_TOKEN, or bind to 127.0.0.1",
            details={"field": "host", "host": host},
        )


def is_loopback(host: str) -> bool:
    if host.strip("[]") in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def build_app(root: Path, *, token: str | None = None) -> Any:
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, PlainTextResponse
    from starlette.routing import Route

    def store() -> KnowledgeStore:
        from kernel.store import open_store

        return open_store(KnowledgeStore, root)

    async def index(request: Any) -> Any:
        st = store()
        try:
            here = freshness.current(st, root, st.claims())
            docs = st.docs()
        finally:
            st.db.close()
        body = site.overview(root, docs, _freshness(here.freshness))
        return HTMLResponse(site.layout(root.name, body, docs, current=None, crumbs=[(root.name, None)]))

    async def module(request: Any) -> Any:
        slug = request.path_params["slug"]
        st = store()
        try:
            docs = st.docs()
            got = reading.get(st, root, slug, section=None, full=True)
            doc = st.doc(got.slug)
        except PalliumError as exc:
            return HTMLResponse(_page("Not found", f"<p>{_e(exc.message)}</p><p><a href='/'>all modules</a></p>"), 404)
        finally:
            st.db.close()
        claims = "".join(
            f"<li class='claim'>{_e(c.text)} <span class='badge {c.audit}'>{_e(c.audit)}</span>"
            + ("<span class='badge stale'>stale</span>" if c.stale else "")
            + " ".join(_cite_link(x) for x in c.citations)
            + "</li>"
            for c in got.claims
        )
        dropped = "".join(
            f"<li class='dropped-claim'>{_e(d['text'])}: <b>{_e(_OUTCOMES.get(d['outcome'], d['outcome']))}</b>, "
            f"{_e(d['reason'])}</li>"
            for d in got.dropped_claims
        )
        linked = doc is not None and doc.kind == "module"
        shown = {n: t for n, t in got.sections.items() if not linked or n in ("Purpose",)}
        sections = "".join(f"<h2>{_e(name)}</h2>{_markdown(text)}" for name, text in shown.items())
        body = (
            f"<h1>{_e(got.title)}</h1>{_freshness(got.freshness)}"
            f"{_evidence(got.evidence)}{_dropped_badge(got.dropped_claims)}"
            + sections
            + f"<h2>Claims</h2><ul id='claims'>{claims or '<li>no checked claims yet</li>'}</ul>"
            + (f"<h3 id='dropped'>Dropped claims</h3><ul>{dropped}</ul>" if dropped else "")
            + (site.module_extra(doc, _owners(root, doc.data.get("folder") or doc.module_path)) if linked else "")
        )
        crumbs = [(root.name, "/"), *_crumbs(doc.module_path if doc else None, docs)]
        return HTMLResponse(site.layout(got.title, body, docs, current=got.slug, crumbs=crumbs))

    async def source(request: Any) -> Any:
        path = request.path_params["path"]
        st = store()
        try:
            known = st.file(path)
        finally:
            st.db.close()
        if known is None:  # only files the base describes: no path escapes, nothing ignored or untracked
            return HTMLResponse(_page("Not found", f"<p>{_e(path)} is not described by the base</p>"), 404)
        try:
            lines = (root / path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            lines = []
        rows = "".join(
            f"<div class='line' id='L{n}'><span class='n'>{n:>5}  </span>{_e(text)}</div>"
            for n, text in enumerate(lines, 1)
        )
        st = store()
        try:
            docs = st.docs()
        finally:
            st.db.close()
        owner = next((d for d in docs if d.slug == known.slug), None)
        folders = _crumbs(owner.module_path if owner else None, docs, link_last=True)
        crumbs = [(root.name, "/"), *folders, (path.rsplit("/", 1)[-1], None)]
        body = f"<h1>{_e(path)}</h1><p><a href='/history/{quote(path)}'>history of this file</a></p>{rows}"
        return HTMLResponse(site.layout(path, body, docs, current=known.slug, crumbs=crumbs))

    async def search(request: Any) -> Any:
        query = request.query_params.get("q", "").strip()
        st = store()
        try:
            docs = st.docs()
            if not query:
                return HTMLResponse(
                    site.layout("Search", _search_form(""), docs, current=None, crumbs=[("search", None)])
                )
            try:
                body = _search_results(st, query)
                status = 200
            except PalliumError as exc:
                body, status = f"<p>{_e(exc.message)}</p>", 400
        finally:
            st.db.close()
        crumbs = [(root.name, "/"), (f"search: {query}", None)]
        return HTMLResponse(
            site.layout("Search", _search_form(query) + body, docs, current=None, crumbs=crumbs), status
        )

    def _search_results(st: KnowledgeStore, query: str) -> str:
        out = reading.search(st, root, query, limit=8, full=False)
        words = [w for w in re.findall(r"[A-Za-z0-9_]{2,}", query) if w.lower() not in reading.STOPWORDS]
        items = []
        for r in out.results:
            said = r.purpose or ""
            # What the module says of itself, when it says the words; else where the document does.
            hit = any(w.lower() in said.lower() for w in words)
            snippet = said if hit or not r.snippet else r.snippet
            items.append(
                f"<li class='result'><h3><a href='{site.page_of(r.slug)}'>{_e(r.title)}</a>"
                f"<span class='kind'>{_e(r.kind)}</span></h3>{_evidence(r.evidence)}"
                f"<p class='snippet'>{site.highlight(snippet[:300], words)}</p></li>"
            )
        # `parse config` also finds `parse_config` and `parseConfig`
        names = [*words, "_".join(w.lower() for w in words), "".join(w.title() for w in words)[:1].lower()]
        names[-1] = names[-1] + "".join(w.title() for w in words)[1:] if words else ""
        for sym in st.symbols_named([n for n in dict.fromkeys(names) if n], limit=5)[:8]:
            items.append(
                f"<li class='result'><h3>{site.src_link(sym.path, sym.start_line, sym.qualified)}"
                f"<span class='kind'>symbol</span></h3><p class='snippet'>{_e(sym.kind)} in "
                f"{site.highlight(sym.path, words)}:{sym.start_line}</p></li>"
            )
        match = reading.fts_query(query)
        for hit in st.search_files(match, limit=5) if match else []:
            items.append(
                f"<li class='result'><h3>{site.src_link(hit.path)}<span class='kind'>file</span></h3>"
                f"<p class='snippet'>{site.highlight(hit.path, words)}</p></li>"
            )
        for row, _score in st.search_decisions(match, limit=3) if match else []:
            items.append(
                f"<li class='result'><h3><a href='/m/@decisions'>{site.highlight(row.title, words)}</a>"
                f"<span class='kind'>decision</span></h3></li>"
            )
        return f"<h1>Search</h1><ol id='results'>{''.join(items) or '<li>nothing found</li>'}</ol>"

    async def commit(request: Any) -> Any:
        sha = request.path_params["sha"]
        if not re.fullmatch(r"[0-9a-f]{7,40}", sha):
            return HTMLResponse(_page("Not found", "<p>not a commit id</p>"), 404)
        return HTMLResponse(_git_page(["show", "--stat", "--format=%H%n%an, %aI%n%n%s%n%n%b", sha, "--"], sha))

    async def history(request: Any) -> Any:
        path = request.path_params["path"]
        st = store()
        try:
            known = st.file(path)
        finally:
            st.db.close()
        if known is None:
            return HTMLResponse(_page("Not found", f"<p>{_e(path)} is not described by the base</p>"), 404)
        return HTMLResponse(_git_page(["log", "-n", "30", "--format=%h %as %an: %s", "--", path], path, links=True))

    def _git_page(args: list[str], title: str, *, links: bool = False) -> str:
        from kernel import git

        try:
            text = git.run(args, root, timeout=20).decode("utf-8", "replace")
        except PalliumError as exc:
            text = exc.message
        if links:
            body = "".join(
                f"<li><a href='/commit/{_e(line.split(' ', 1)[0])}'><code>{_e(line.split(' ', 1)[0])}</code></a> "
                f"{_e(line.split(' ', 1)[1] if ' ' in line else '')}</li>"
                for line in text.splitlines()
                if line.strip()
            )
            body = f"<ul id='log'>{body}</ul>"
        else:
            body = f"<pre>{_e(text)}</pre>"
        st = store()
        try:
            docs = st.docs()
        finally:
            st.db.close()
        return site.layout(
            title, f"<h1>{_e(title)}</h1>{body}", docs, current=None, crumbs=[(root.name, "/"), (title, None)]
        )

    routes = [
        Route("/", index),
        Route("/m/{slug:path}", module),
        Route("/src/{path:path}", source),
        Route("/search", search),
        Route("/commit/{sha}", commit),
        Route("/history/{path:path}", history),
    ]
    app = Starlette(routes=routes)

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if token is not None:
                cookie = f"pallium_token={token}"
                if headers.get("authorization") != f"Bearer {token}" and cookie not in headers.get("cookie", ""):
                    await PlainTextResponse("missing or wrong bearer token", 401)(scope, receive, send)
                    return
            elif not is_loopback(headers.get("host", "").rsplit(":", 1)[0] or "localhost"):
                await PlainTextResponse("refused: the Host header is not a loopback name", 421)(scope, receive, send)
                return
            if scope.get("method") not in ("GET", "HEAD"):
                await PlainTextResponse("read-only site", 405)(scope, receive, send)
                return
        await app(scope, receive, send)

    return guarded


def _owners(root: Path, folder: str | None) -> list[tuple[str, int]]:
    """Who committed most to the module's folder (`git shortlog`), names only: no e-mail addresses."""
    from kernel import git

    try:
        text = git.run(["shortlog", "-sn", "--no-merges", "HEAD", "--", folder or "."], root, timeout=20).decode(
            "utf-8", "replace"
        )
    except PalliumError:
        return []
    out = []
    for line in text.splitlines()[:5]:
        count, _, name = line.strip().partition("\t")
        if count.isdigit():
            out.append((name, int(count)))
    return out


def _crumbs(module_path: str | None, docs: list[Any], *, link_last: bool = False) -> list[tuple[str, str | None]]:
    """`mitmproxy / addons` for `mitmproxy/addons`: each folder that is a module links to its page."""
    by_path = {d.module_path: d.slug for d in docs if d.kind == "module" and d.module_path}
    parts = [p for p in (module_path or "").split("/") if p]
    out: list[tuple[str, str | None]] = []
    for i, part in enumerate(parts):
        prefix = "/".join(parts[: i + 1])
        slug = by_path.get(prefix)
        last = i == len(parts) - 1
        out.append((part, site.page_of(slug) if slug and (link_last or not last) else None))
    return out


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{site.STYLE}</style></head><body><main>{body}</main></body></html>"
    )


def _markdown(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def _search_form(query: str) -> str:
    return (
        f"<form action='/search' method='get'><input name='q' id='q' value='{_e(query)}' "
        "placeholder='search the knowledge base'><button>search</button></form>"
    )


def _freshness(f: Any) -> str:
    label = f"{f.status}" + (f": {f.changed_count} file(s) changed since" if f.changed_count else "")
    return f"<span class='badge {f.status}' id='freshness'>freshness: {_e(label)}</span>"


def _evidence(e: Any) -> str:
    text = f"{e.claims} claims, {e.citations_checked} citations checked, {e.audit_supported} supported"
    if e.audit_uncertain:
        text += f", {e.audit_uncertain} uncertain"
    badge = "<span class='badge verified'>verified (current, audit-supported; not a proof)</span>" if e.verified else ""
    return f"<span class='badge'>evidence: {_e(text)}</span>{badge}"


def _dropped_badge(dropped: list[dict[str, Any]]) -> str:
    """How many claims were dropped and why, by outcome, linking to the list of them with each reason."""
    if not dropped:
        return ""
    counts: dict[str, int] = {}
    for d in dropped:
        counts[d["outcome"]] = counts.get(d["outcome"], 0) + 1
    why = ", ".join(f"{n} {_OUTCOMES.get(outcome, outcome)}" for outcome, n in counts.items())
    return f"<a class='badge dropped' id='dropped-badge' href='#dropped'>{len(dropped)} claim(s) dropped: {_e(why)}</a>"


def _cite_link(citation: dict[str, Any]) -> str:
    lines = citation.get("lines") or [None]
    anchor = f"#L{lines[0]}" if lines[0] else ""
    label = citation["path"] + (f":{lines[0]}-{lines[-1]}" if lines[0] else "")
    if citation.get("symbol"):
        label += f" {citation['symbol']}"
    return f"<a class='cite' href='/src/{quote(citation['path'])}{anchor}'>{_e(label)}</a>"
