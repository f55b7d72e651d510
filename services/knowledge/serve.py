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
from pathlib import Path
from typing import Any
from urllib.parse import quote

from kernel.errors import PalliumError
from services.knowledge import freshness, reading
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
            rows = []
            for doc in st.docs():
                files = len(doc.data.get("files", []))
                rows.append(
                    f"<tr><td><a href='/m/{doc.slug}'>{_e(doc.title)}</a></td><td>{_e(doc.kind)}</td>"
                    f"<td>{files or ''}</td><td>{_e((doc.data.get('purpose') or '')[:140])}</td></tr>"
                )
            body = (
                f"<h1>Knowledge: {_e(root.name)}</h1>{_freshness(here.freshness)}{_search_form('')}"
                "<table><tr><th>document</th><th>kind</th><th>files</th><th>purpose</th></tr>"
                + "".join(rows)
                + "</table>"
            )
            return HTMLResponse(_page("Knowledge", body))
        finally:
            st.db.close()

    async def module(request: Any) -> Any:
        slug = request.path_params["slug"]
        st = store()
        try:
            got = reading.get(st, root, slug, section=None, full=True)
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
        sections = "".join(f"<h2>{_e(name)}</h2>{_markdown(text)}" for name, text in got.sections.items())
        body = (
            f"<p><a href='/'>all modules</a></p><h1>{_e(got.title)}</h1>{_freshness(got.freshness)}"
            f"{_evidence(got.evidence)}{_dropped_badge(got.dropped_claims)}"
            f"<h2>Claims</h2><ul id='claims'>{claims or '<li>no checked claims yet</li>'}</ul>"
            + (f"<h3 id='dropped'>Dropped claims</h3><ul>{dropped}</ul>" if dropped else "")
            + sections
        )
        return HTMLResponse(_page(got.title, body))

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
        back = f"<a href='/m/{known.slug}'>module</a>"
        return HTMLResponse(_page(path, f"<p>{back}</p><h1>{_e(path)}</h1>{rows}"))

    async def search(request: Any) -> Any:
        query = request.query_params.get("q", "").strip()
        if not query:
            return HTMLResponse(_page("Search", _search_form("")))
        st = store()
        try:
            out = reading.search(st, root, query, limit=5, full=False)
        except PalliumError as exc:
            return HTMLResponse(_page("Search", _search_form(query) + f"<p>{_e(exc.message)}</p>"), 400)
        finally:
            st.db.close()
        items = "".join(
            f"<li class='result'><a href='/m/{r.slug}'>{_e(r.title)}</a> {_evidence(r.evidence)}"
            f"<br>{_e(r.purpose or r.snippet or '')}</li>"
            for r in out.results
        )
        return HTMLResponse(_page("Search", _search_form(query) + f"<ol id='results'>{items}</ol>"))

    routes = [
        Route("/", index),
        Route("/m/{slug:path}", module),
        Route("/src/{path:path}", source),
        Route("/search", search),
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


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
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
