"""The knowledge site's pages, as HTML strings: a map first, then each module, then search.

Every page has the sidebar (the modules as a folder tree, collapsible, the current one open) and
breadcrumbs. The overview says what the repository is (its README's first paragraph), its
languages and size, and draws the module dependency diagram as SVG on the server, each box a
link; nothing is loaded from outside the site. Module pages link every file, surface name, test
and commit. `serve.py` owns the routes and the bind rules; this module only renders.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import quote

__all__ = [
    "STYLE",
    "diagram_svg",
    "highlight",
    "layout",
    "module_extra",
    "overview",
    "page_of",
    "readme_paragraph",
    "src_link",
]

STYLE = (
    "*{box-sizing:border-box}body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#222;display:flex;min-height:100vh}"
    "a{color:#0b5394}#sidebar{width:17rem;flex:none;background:#f7f7f9;border-right:1px solid #ddd;padding:1rem;"
    "overflow:auto;font-size:14px}#sidebar summary{cursor:pointer}#sidebar ul{list-style:none;padding-left:.9rem;"
    "margin:.1rem 0}#sidebar .current>a{font-weight:bold;color:#000}main{flex:1;min-width:0;padding:1rem 2rem;"
    "max-width:72rem}nav.crumbs{font-size:13px;color:#666;margin-bottom:.5rem}"
    ".badge{display:inline-block;padding:.1rem .5rem;border-radius:.6rem;font-size:12px;margin-right:.3rem;"
    "background:#eee}.fresh{background:#d9ead3}.stale{background:#fce5cd}.verified{background:#cfe2f3}"
    ".dropped{background:#f4cccc;color:#222;text-decoration:none}.uncertain{background:#fff2cc}"
    "table{border-collapse:collapse}td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}"
    "pre{background:#f6f6f6;padding:.5rem;overflow:auto}.line{white-space:pre;font:13px monospace}"
    ".line:target{background:#fff2cc}.n{color:#999;user-select:none}.claim{margin:.4rem 0}"
    "mark{background:#ffe58a}.kind{font-size:12px;color:#555;border:1px solid #ccc;border-radius:.3rem;"
    "padding:0 .3rem;margin-left:.4rem}.result{margin:.8rem 0}.result h3{margin:0;font-size:16px}"
    "svg a:hover rect{fill:#dbe8f7}#diagram{max-width:100%;height:auto;border:1px solid #eee}"
    "main{overflow-wrap:anywhere}table{display:block;overflow-x:auto;max-width:100%}"
    "@media (max-width:700px){body{display:block}#sidebar{width:auto;border-right:0;border-bottom:1px solid #ddd;"
    "max-height:40vh}main{padding:1rem}}"
)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def page_of(slug: str) -> str:
    """A module page's readable address: `/m/lib/sqlalchemy/orm@context`, not `/m/lib%2Fsqlalchemy...`
    (`reading.get` takes the plain path); `@root`, `@incidents` and `@decisions` stay as they are."""
    from urllib.parse import unquote

    if slug.startswith("@"):
        return f"/m/{quote(slug, safe='@')}"
    return "/m/" + quote(unquote(slug), safe="/@._-")


def src_link(path: str, line: int | None = None, label: str | None = None) -> str:
    anchor = f"#L{line}" if line else ""
    return f"<a class='src' href='/src/{quote(path)}{anchor}'>{_e(label or path)}</a>"


def _tree(docs: list[Any]) -> dict[str, Any]:
    root: dict[str, Any] = {"children": {}, "doc": None}
    for doc in docs:
        if doc.kind != "module":
            continue
        if not doc.module_path:
            continue  # the repository's own top folder is listed apart, under its title
        path = doc.module_path.replace("@", "/@")
        node = root
        for part in [p for p in path.split("/") if p]:
            node = node["children"].setdefault(part, {"children": {}, "doc": None})
        node["doc"] = doc
    return root


def _tree_html(node: dict[str, Any], current: str | None, prefix: str = "") -> str:
    items = []
    for name, child in sorted(node["children"].items()):
        doc = child["doc"]
        label = _e(name)
        link = f"<a href='{page_of(doc.slug)}'>{label}</a>" if doc else label
        cls = " class='current'" if doc is not None and doc.slug == current else ""
        if child["children"]:
            inside = _contains(child, current)
            opened = " open" if inside else ""
            items.append(
                f"<li{cls}><details{opened}><summary>{link}</summary>{_tree_html(child, current)}</details></li>"
            )
        else:
            items.append(f"<li{cls}>{link}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else ""


def _contains(node: dict[str, Any], slug: str | None) -> bool:
    if slug is None:
        return False
    if node["doc"] is not None and node["doc"].slug == slug:
        return True
    return any(_contains(c, slug) for c in node["children"].values())


def layout(title: str, body: str, docs: list[Any], *, current: str | None, crumbs: list[tuple[str, str | None]]) -> str:
    """The page: sidebar tree (the current module open), breadcrumbs, then `body`."""
    trail = " / ".join(f"<a href='{href}'>{_e(label)}</a>" if href else _e(label) for label, href in crumbs)
    root_doc = next((d for d in docs if d.kind == "module" and not d.module_path), None)
    extra = "".join(
        f"<li><a href='{page_of(d.slug)}'>{_e(d.title)}</a></li>" for d in docs if d.kind != "module" or d is root_doc
    )
    side = (
        "<aside id='sidebar'><div><a href='/'><b>Overview</b></a></div>"
        "<form action='/search' method='get'><input name='q' placeholder='search' aria-label='search'></form>"
        f"<details open id='tree'><summary>Modules</summary>{_tree_html(_tree(docs), current)}</details>"
        f"<ul>{extra}</ul></aside>"
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' "
        f"content='width=device-width,initial-scale=1'><title>{_e(title)}</title><style>{STYLE}</style></head>"
        f"<body>{side}<main><nav class='crumbs' id='crumbs'>{trail}</nav>{body}</main></body></html>"
    )


def readme_paragraph(root: Path) -> str | None:
    """The README's first paragraph of prose (headings, badges and HTML skipped)."""
    for name in ("README.md", "README.rst", "README.txt", "README", "readme.md"):
        path = root / name
        if path.is_file() and not path.is_symlink():
            text = path.read_text(encoding="utf-8", errors="replace")[:20000]
            for block in re.split(r"\n\s*\n", text):
                block = block.strip()
                if not block or block.startswith(("#", "<", "[!", "![", "=", "-", "..", "|", "```")):
                    continue
                if re.fullmatch(r"(\[!\[.*?\]\(.*?\)\]\(.*?\)\s*)+", block):
                    continue
                block = re.sub(r"`+|\*\*|__", "", block)  # Markdown and reStructuredText inline marks
                block = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", block)  # [text](link) -> text
                return re.sub(r"\s+", " ", block)[:600]
    return None


def _layers(modules: list[Any]) -> dict[str, int]:
    """Each module's depth: 0 for modules that depend on none of the others, else one past their deepest."""
    deps = {d.slug: {x["module"] for x in d.data.get("depends_on", [])} for d in modules}
    depth: dict[str, int] = {}

    def visit(slug: str, seen: frozenset[str]) -> int:
        if slug in depth:
            return depth[slug]
        inner = [visit(x, seen | {slug}) for x in deps.get(slug, ()) if x in deps and x not in seen]
        depth[slug] = 1 + max(inner) if inner else 0
        return depth[slug]

    for slug in sorted(deps):
        visit(slug, frozenset())
    return depth


def diagram_svg(docs: list[Any], *, limit: int = 30) -> str:
    """The module dependency diagram: boxes in layers (depended-on at the bottom), an arrow per edge,
    each box a link to its module's page. The most imported modules when there are more than `limit`."""
    from services.knowledge.documents import is_peripheral

    modules = [
        d
        for d in docs
        if d.kind == "module"
        and not d.data.get("is_tests")
        and d.module_path
        and not is_peripheral(d.module_path + "/x")
        and not d.module_path.startswith(".")
        and not {"test", "tests", "__tests__", "spec"} & set(d.module_path.split("/"))
        and any(lang not in ("markdown", "text", "other", "config") for lang in d.data.get("languages", {}))
    ]
    weight = {
        d.slug: sum(x.get("imports", 0) for x in d.data.get("used_by", [])) + len(d.data.get("files", []))
        for d in modules
    }
    modules = sorted(modules, key=lambda d: (-weight[d.slug], d.slug))[:limit]
    depth = _layers(modules)
    box_w, box_h, gap_x, gap_y, per_row = 170, 34, 18, 56, 6
    # Rows of at most six, the modules that import most at the top and what they build on below:
    # arrows mostly point down, and a deep chain of imports still fits on a screen.
    ordered = sorted(modules, key=lambda d: (-depth[d.slug], d.module_path or ""))
    lines: list[list[Any]] = [ordered[i : i + per_row] for i in range(0, len(ordered), per_row)]
    width = per_row * (box_w + gap_x) + gap_x
    height = len(lines) * (box_h + gap_y) + gap_y
    where: dict[str, tuple[float, float]] = {}
    names: dict[str, int] = defaultdict(int)
    for d in modules:
        names[(d.module_path or "").rsplit("/", 1)[-1]] += 1
    boxes = []
    for r, line in enumerate(lines):
        offset = (width - len(line) * (box_w + gap_x) + gap_x) / 2
        for c, d in enumerate(line):
            x, y = offset + c * (box_w + gap_x), gap_y / 2 + r * (box_h + gap_y)
            where[d.slug] = (x, y)
            label = _label(d.module_path or "(root)", names)
            label = label if len(label) <= 22 else label[:21] + "…"
            boxes.append(
                f"<a href='{page_of(d.slug)}'><title>{_e(d.module_path or '(root)')}</title>"
                f"<rect x='{x:.0f}' y='{y:.0f}' width='{box_w}' height='{box_h}' rx='6' fill='#eef3fa' "
                "stroke='#6a8bb8'/>"
                f"<text x='{x + box_w / 2:.0f}' y='{y + 22:.0f}' text-anchor='middle' font-size='13'>"
                f"{_e(label)}</text></a>"
            )
    edges = []
    for d in modules:
        if d.slug not in where:
            continue
        x1, y1 = where[d.slug]
        for dep in d.data.get("depends_on", [])[:3]:  # the strongest links; the page lists the rest
            if dep["module"] in where and dep["module"] != d.slug:
                x2, y2 = where[dep["module"]]
                edges.append(
                    f"<line x1='{x1 + box_w / 2:.0f}' y1='{y1 + box_h:.0f}' x2='{x2 + box_w / 2:.0f}' y2='{y2:.0f}' "
                    "stroke='#9aa9bd' stroke-width='1' marker-end='url(#arrow)'/>"
                )
    return (
        f"<svg id='diagram' xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' width='{width}' "
        f"height='{height}' role='img' aria-label='module dependency diagram'><defs>"
        "<marker id='arrow' viewBox='0 0 10 10' "
        "refX='10' refY='5' markerWidth='6' markerHeight='6' orient='auto'><path d='M0,0L10,5L0,10z' fill='#9aa9bd'/>"
        f"</marker></defs>{''.join(edges)}{''.join(boxes)}</svg>"
    )


def _label(path: str, names: dict[str, int]) -> str:
    """A box's label: the folder's name, with its parent's when another box has the same name."""
    parts = path.split("/")
    label = "/".join(parts[-2:]) if names.get(parts[-1], 0) > 1 and len(parts) > 1 else parts[-1]
    return label if len(label) <= 22 else "…" + label[-21:]


def overview(root: Path, docs: list[Any], freshness_html: str) -> str:
    modules = [d for d in docs if d.kind == "module"]
    languages: dict[str, int] = defaultdict(int)
    lines = 0
    for d in modules:
        for lang, n in d.data.get("languages", {}).items():
            languages[lang] += n
        lines += d.data.get("lines", 0) or 0
    files = sum(len(d.data.get("files", [])) for d in modules)
    langs = ", ".join(f"{_e(k)} {v}" for k, v in sorted(languages.items(), key=lambda kv: -kv[1]) if k != "other")
    about = readme_paragraph(root)
    return (
        f"<h1>{_e(root.name)}</h1>{freshness_html}"
        + (f"<p id='about'>{_e(about)}</p>" if about else "")
        + f"<p id='size'>{len(modules)} modules, {files} files, {lines} lines. Languages: {langs or 'none'}</p>"
        + "<h2>Module dependencies</h2>"
        + "<p>Each box is a module (click to open it); an arrow points to what it imports.</p>"
        + diagram_svg(docs)
        + f"<h2>Module tree</h2><div id='module-tree'>{_tree_html(_tree(docs), None)}</div>"
    )


_ENTRY_NAMES = {"__main__", "main", "cli", "app", "index", "server", "cmd"}


def entry_points(data: dict[str, Any]) -> list[tuple[str, int | None]]:
    """Where to start reading: `__main__.py`, `main.go`, `cli.py`, `index.ts`, and any `main()` defined."""
    out: list[tuple[str, int | None]] = [
        (p, None) for p in data.get("files", []) if p.rsplit("/", 1)[-1].split(".", 1)[0] in _ENTRY_NAMES
    ]
    out += [(s["path"], s.get("line")) for s in data.get("surface", []) if s.get("name") == "main" and s.get("path")]
    return out[:8]


def module_extra(doc: Any, owners: list[tuple[str, int]] | None = None) -> str:
    """The linked parts of a module page: entry points, surface with counts and lines, dependencies,
    tests with their command, files, owners by history, recent commits."""
    data = doc.data
    entries = "".join(f"<li>{src_link(p, line)}</li>" for p, line in entry_points(data))
    who = ", ".join(f"{_e(name)} ({n})" for name, n in (owners or [])[:5])
    surface = "".join(
        f"<tr><td>{src_link(s['path'], s.get('line'), s['name'])}</td><td>{_e(s.get('kind', ''))}</td>"
        f"<td>{s.get('referencing_files', 0)}</td></tr>"
        for s in [s for s in data.get("surface", []) if s.get("path") and not s["name"].startswith("_")][:20]
    )
    files = "".join(f"<li>{src_link(p)}</li>" for p in data.get("files", [])[:200])
    tests = "".join(f"<li>{src_link(p)}</li>" for p in data.get("tests", [])[:40])
    checks = "".join(f"<li><code>{_e(c)}</code></li>" for c in data.get("checks", [])[:4])
    deps = ", ".join(
        f"<a href='{page_of(x['module'])}'>{_e(x['path'])}</a> ({x['imports']})"
        for x in data.get("depends_on", [])[:12]
    )
    used = ", ".join(
        f"<a href='{page_of(x['module'])}'>{_e(x['path'])}</a> ({x['imports']})" for x in data.get("used_by", [])[:12]
    )
    commits = "".join(
        f"<li><a href='/commit/{_e(c['sha'])}'><code>{_e(c['sha'][:10])}</code></a> {_e(c['committed_at'][:10])} "
        f"{_e(c['subject'])}</li>"
        for c in data.get("history", [])[:8]
    )
    return (
        (f"<h2 id='entry-points'>Entry points</h2><ul>{entries}</ul>" if entries else "")
        + "<h2 id='surface'>Surface</h2><table><tr><th>name</th><th>kind</th><th>referencing files</th></tr>"
        + f"{surface}</table>"
        + (f"<h2 id='depends'>Dependencies</h2><p>uses: {deps or 'none'}</p><p>used by: {used or 'none'}</p>")
        + f"<h2 id='tests'>Tests</h2><ul>{tests or '<li>none found</li>'}</ul>"
        + (f"<p>Run them with:</p><ul id='checks'>{checks}</ul>" if checks else "")
        + f"<h2 id='files'>Files</h2><ul>{files}</ul>"
        + (f"<h2 id='owners'>Owners by history</h2><p>{who}</p>" if who else "")
        + f"<h2 id='history'>Recent commits</h2><ul>{commits or '<li>none</li>'}</ul>"
    )


def highlight(text: str, words: list[str]) -> str:
    """`text` escaped, each of `words` wrapped in <mark>, backticks dropped."""
    plain = re.sub(r"#{1,6} |\|[-| ]*\||`|\*\*", " ", text)  # Markdown marks are not the snippet's words
    escaped = _e(re.sub(r"\s*\|\s*", ", ", re.sub(r"\s+", " ", plain)).strip(" ,"))
    if not words:
        return escaped
    pattern = re.compile("|".join(re.escape(_e(w)) for w in sorted(words, key=len, reverse=True)), re.I)
    return pattern.sub(lambda m: f"<mark>{m.group(0)}</mark>", escaped)
