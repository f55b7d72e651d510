"""The knowledge site in a real headless chromium, at 1280 and 390 pixels: overview with the diagram,
a module page, a search; sidebar, breadcrumbs, links into the source and history, highlighting.

The DOM chromium built is checked for the elements; the screenshots for the layout (the sidebar
beside the page when wide, above it when narrow), read with a small PNG decoder below.
"""

import re
import struct
import zlib
from pathlib import Path

import pytest

from services.knowledge.serve import build_app
from tests.conftest import git
from tests.services.knowledge.conftest import ask
from tests.services.knowledge.test_prose import GOOD
from tests.services.knowledge.test_serve import CHROMIUM, _browse, serving

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.xdist_group("site"),  # one worker browses the site once (a dozen chromium starts), not each
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)"),
]
_SIDEBAR = (0xF7, 0xF7, 0xF9)
_WHITE = (0xFF, 0xFF, 0xFF)


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered rows of an 8-bit RGB or RGBA PNG (what chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(data), width * channels, [], bytes(width * channels)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = bytes(line)
    return width, height, rows


def _colour(shot: tuple[int, int, list[bytes]], x: int, y: int) -> tuple[int, int, int]:
    width, _h, rows = shot
    channels = len(rows[0]) // width
    return tuple(rows[y][x * channels : x * channels + 3])  # type: ignore[return-value]


async def _site(app_repo: Path, tmp: Path) -> dict[str, str]:
    pages = {"overview": "/", "module": "/m/app/core", "search": "/search?q=parse%20config"}
    dom: dict[str, str] = {}
    sha = git(app_repo, "rev-list", "--max-parents=0", "HEAD").strip()  # "Start the engine"
    async with serving(build_app(app_repo)) as base:
        for name, path in pages.items():
            dom[name] = await _browse(tmp, "--dump-dom", base + path)
            for width in (1280, 390):
                shot = tmp / f"{name}-{width}.png"
                await _browse(tmp, f"--screenshot={shot}", f"--window-size={width},900", base + path)
        dom["commit"] = await _browse(tmp, "--dump-dom", f"{base}/commit/{sha}")
        dom["history"] = await _browse(tmp, "--dump-dom", base + "/history/app/core/engine.py")
        dom["source"] = await _browse(tmp, "--dump-dom", base + "/src/app/core/engine.py#L3")
    return dom


_BROWSED: dict[str, tuple[dict[str, str], Path]] = {}


@pytest.fixture
async def site(app_repo: Path, fake, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path]:
    """The site built and browsed once for this module (a dozen chromium starts): every test below reads
    the same pages and screenshots of the same fixture repository."""
    if "site" not in _BROWSED:
        fake.scenario({"match": "Module: app/core", "reply": {"claims": [GOOD]}})
        await ask(app_repo, "pallium_knowledge_build", provider="claude", max_modules=1)
        shots = tmp_path_factory.mktemp("site")
        _BROWSED["site"] = (await _site(app_repo, shots), shots)
    return _BROWSED["site"]


async def test_the_overview_says_what_the_repository_is_and_draws_its_modules(site):
    dom, _tmp = site
    page = dom["overview"]
    assert re.search(r'id="about">A demo app\.<', page)
    assert re.search(r'id="size">\d+ modules, \d+ files, \d+ lines\. Languages: python \d+', page)
    diagram = page[page.index("<svg") : page.index("</svg>")]
    assert 'id="diagram"' in diagram and '<a href="/m/app/core">' in diagram and '<a href="/m/app/web">' in diagram
    assert "<line " in diagram  # app/web imports app/core: an arrow
    assert 'id="module-tree"' in page
    # nothing from outside loopback: no script at all, no absolute link or source
    assert "<script" not in page and not re.search(r'(?:src|href)="(?:https?:)?//', page)


async def test_every_page_has_the_sidebar_with_the_current_module_open_and_breadcrumbs(site):
    dom, _tmp = site
    for name in ("overview", "module", "search", "commit", "history", "source"):
        assert 'id="sidebar"' in dom[name] and 'id="crumbs"' in dom[name], name
    module = dom["module"]
    assert '<li class="current"><a href="/m/app/core">core</a></li>' in module
    opened = module[: module.index('class="current"')].rsplit("<details", 1)[1]
    assert opened.startswith(" open")  # the folder holding the current module is open
    assert re.search(r'id="crumbs"><a href="/">repo</a> / app / core</nav>', module)


async def test_a_module_page_links_every_symbol_file_test_and_commit(site):
    dom, _tmp = site
    page = dom["module"]
    assert 'href="/src/app/core/engine.py#L3">parse_config</a>' in page  # surface at its line
    assert 'href="/src/app/core/jobs.py">app/core/jobs.py</a>' in page  # files
    assert 'href="/src/tests/test_engine.py">tests/test_engine.py</a>' in page  # tests
    assert "python -m pytest -q tests/test_engine.py" in page  # with the command to run them
    assert re.search(r'href="/commit/[0-9a-f]{40}"><code>[0-9a-f]{10}</code></a>', page)
    assert re.search(r'id="owners">Owners by history</h2><p>Ada \(\d+\)', page)
    assert 'id="freshness"' in page and "evidence:" in page and GOOD["text"] in page
    assert "parse_config turns key=value lines" in dom["module"]
    assert 'id="L3"' in dom["source"] and 'href="/history/app/core/engine.py"' in dom["source"]
    assert 'id="log"' in dom["history"] and re.search(r'href="/commit/[0-9a-f]+"', dom["history"])
    assert "Start the engine" in dom["commit"] and "app/core/engine.py" in dom["commit"]


async def test_search_shows_headings_kinds_and_highlighted_snippets(site):
    dom, _tmp = site
    page = dom["search"]
    results = page[page.index('id="results"') :]
    assert re.search(r'<h3><a href="/m/app/core">app/core</a><span class="kind">module</span></h3>', results)
    assert '<span class="kind">symbol</span>' in results and '<span class="kind">file</span>' in results
    assert re.search(r"<mark>(?:parse|config)", results, re.I)
    assert "`" not in results and "## " not in results


async def test_screenshots_lay_the_sidebar_beside_the_page_when_wide_and_above_it_when_narrow(site):
    _dom, tmp = site
    for name in ("overview", "module", "search"):
        wide = _pixels((tmp / f"{name}-1280.png").read_bytes())
        narrow = _pixels((tmp / f"{name}-390.png").read_bytes())
        assert wide[0] == 1280 and narrow[0] == 390, name
        assert _colour(wide, 5, 850) == _SIDEBAR and _colour(wide, 1200, 850) == _WHITE, name
        assert _colour(narrow, 350, 3) == _SIDEBAR and _colour(narrow, 350, 895) != _SIDEBAR, name
