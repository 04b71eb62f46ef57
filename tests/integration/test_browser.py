"""A real headless Chromium opens built pages: cards, their links, how long lines wrap, and
the guide's messages and tables at a desktop's and a phone's width.

Drives Chromium over the DevTools protocol with a tiny WebSocket client written
here (stdlib only), so the test needs nothing but the ``chromium`` binary.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from buildkit import build, copy_root, jaxcheck, write_project

from sphinx_jaxcheck.cite.citation import check_citation, installed_index
from sphinx_jaxcheck.cite.pin import Pin

COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1100,900",
)

pytestmark = pytest.mark.browser


def _chromium() -> str:
    # The suite never installs anything: without a browser these tests cannot run.
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        pytest.skip(
            "no chromium on PATH: install it (e.g. `apt-get install chromium`) to run browser tests"
        )
    return found


class DevTools:
    """The smallest WebSocket client that speaks Chrome's DevTools protocol."""

    def __init__(self, url: str) -> None:
        match = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        assert match, url
        host, port, path = match.group(1), int(match.group(2)), match.group(3)
        self.sock = socket.create_connection((host, port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\n"
                f"Host: {host}:{port}\r\n"
                "Upgrade: websocket\r\n"
                "Connection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n"
                "\r\n"
            ).encode()
        )
        response = b""
        while b"\r\n\r\n" not in response:
            response += self.sock.recv(1)
        assert b" 101 " in response.split(b"\r\n", 1)[0], response
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def _send(self, text: str) -> None:
        payload = text.encode()
        header = bytes([0x81])  # final frame, text
        mask = os.urandom(4)
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _exactly(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            data += chunk
        return data

    def _receive(self) -> dict[str, Any]:
        message = b""
        while True:
            first, second = self._exactly(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack(">H", self._exactly(2))[0]
            elif size == 127:
                size = struct.unpack(">Q", self._exactly(8))[0]
            message += self._exactly(size)
            if first & 0x80:  # final fragment
                result: dict[str, Any] = json.loads(message)
                return result

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send a command and wait for its result (events that arrive meanwhile are kept)."""
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = self._receive()
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return dict(message.get("result", {}))
            self.events.append(message)

    def wait_for(self, event: str, timeout: float = 30) -> None:
        """Wait until the page reports ``event``."""
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == event for e in self.events):
            assert time.monotonic() < deadline, f"no {event} within {timeout}s"
            self.events.append(self._receive())

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A real mouse click at page coordinates."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    profile = tmp_path / "chromium-profile"
    profile.mkdir()
    process = subprocess.Popen(
        [
            _chromium(),
            *FLAGS,
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text().strip():
            assert process.poll() is None, "chromium exited at start"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as answer:
            targets = json.load(answer)
        page = next(t for t in targets if t["type"] == "page")
        tools = DevTools(page["webSocketDebuggerUrl"])
        yield tools
        tools.sock.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# WCAG contrast of the question's text against the background it is painted on.
CONTRAST = """(() => {
  const el = document.querySelector('#qa-carry summary .jaxcheck-qa-title');
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  let node = el, bg = null;
  while (node && node.nodeType === 1) {
    const c = rgb(getComputedStyle(node).backgroundColor);
    if (c.length < 4 || c[3] > 0.5) { bg = c; break; }
    node = node.parentElement;
  }
  bg = bg || [255, 255, 255];
  const fg = rgb(getComputedStyle(el).color);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
})()"""


@pytest.mark.parametrize(
    ("theme", "scheme"), [("alabaster", "light"), ("furo", "light"), ("furo", "dark")]
)
def test_clicking_a_question_shows_its_answer_and_pinned_sources(
    browser: DevTools, tmp_path: Path, theme: str, scheme: str
) -> None:
    if theme != "alabaster":
        pytest.importorskip(theme)
    page = (
        build(copy_root("cards", tmp_path), html_theme=theme).app.outdir / "cards_rst.html"
    ).as_uri()

    browser.call(
        "Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}]
    )
    browser.call("Page.enable")
    browser.call("Page.navigate", url=page)
    browser.wait_for("Page.loadEventFired")

    card = "document.getElementById('qa-carry')"
    answer = f"{card}.querySelector('.jaxcheck-qa-answer')"
    assert browser.evaluate(f"{card}.open") is False
    assert browser.evaluate(f"{answer}.checkVisibility()") is False

    box = browser.evaluate(
        f"(() => {{ const r = {card}.querySelector('summary .jaxcheck-qa-title')"
        ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    browser.click(*box)

    assert browser.evaluate(f"{card}.open") is True
    assert browser.evaluate(f"{answer}.checkVisibility()") is True
    assert "same pytree structure" in browser.evaluate(f"{answer}.innerText")

    links = browser.evaluate(
        f"Array.from({card}.querySelectorAll('.jaxcheck-qa-sources a')).map(a => a.href)"
    )
    expected = check_citation(
        "loops.py::_check_carry_type", Pin("0.10.2", COMMIT), index=installed_index()
    ).url
    assert expected in links
    assert expected == (
        f"https://github.com/jax-ml/jax/blob/{COMMIT}/jax/_src/lax/control_flow/loops.py#L537-L621"
    )
    # The link is on screen and is what a click there would hit.
    hit = browser.evaluate(
        f"(() => {{ const a = {card}.querySelector('.jaxcheck-qa-sources a');"
        " const r = a.getBoundingClientRect();"
        " const e = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        " return a.contains(e) && a.checkVisibility(); })()"
    )
    assert hit is True

    contrast = browser.evaluate(CONTRAST)
    assert contrast >= 4.5, (
        f"question text is hard to read in {theme} ({scheme}): contrast {contrast:.1f}"
    )

    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    screenshot = tmp_path / f"qa-card-open-{theme}-{scheme}.png"
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    assert screenshot.stat().st_size > 1000
    print(f"screenshot: {screenshot}")


# -- links open cards; long lines wrap inside the column --------------------------

LONG_LINE_PAGE = """\
---
orphan: true
---
# A long error line

```{jaxcheck}
:name: long-carry-error
:raises: TypeError

import jax.numpy as jnp
from jax import lax

lax.scan(lambda count, x: (count + x, x), jnp.int32(0), jnp.arange(3.0))

# TypeError: scan body function carry input and carry output must have equal types, but they differ:
#
# The input carry count has type int32[] but the corresponding output carry component \
has type float32[], so the dtypes do not match.
#
# Revise the function so that all output types match the corresponding input types.
```
"""


@pytest.fixture(scope="module")
def cards_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cards test project, plus a page with a long expected error line, built to HTML."""
    srcdir = copy_root("cards", tmp_path_factory.mktemp("site"))
    (srcdir / "long_line.md").write_text(LONG_LINE_PAGE)
    result = build(srcdir)
    assert result.status == 0, result.warnings
    return Path(result.app.outdir)


def _open(browser: DevTools, url: str, width: int = 1100) -> None:
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=900,
        deviceScaleFactor=1,
        mobile=width < 600,
    )
    browser.call("Page.enable")
    for target in ("about:blank", url):  # a fresh document, also when only the #anchor differs
        browser.events.clear()
        browser.call("Page.navigate", url=target)
        browser.wait_for("Page.loadEventFired")


CARD_STATE = """((id) => { const card = document.getElementById(id);
  const r = card.getBoundingClientRect();
  return {open: card.open, shown: card.querySelector('.jaxcheck-qa-answer').checkVisibility(),
          inView: r.top >= 0 && r.top < window.innerHeight}; })"""


def test_a_cards_permalink_opens_it_and_brings_it_into_view(
    browser: DevTools, cards_site: Path
) -> None:
    page = (cards_site / "cards_rst.html").as_uri()
    _open(browser, page)
    assert browser.evaluate(f"{CARD_STATE}('qa-carry')") == {
        "open": False,
        "shown": False,
        "inView": True,
    }

    # Loaded with the card's anchor, as a permalink or a :ref: from another page.
    _open(browser, page + "#qa-carry", width=390)
    assert browser.evaluate(f"{CARD_STATE}('qa-carry')") == {
        "open": True,
        "shown": True,
        "inView": True,
    }

    # Navigated within the page (hashchange): close it, go elsewhere, come back.
    browser.evaluate("document.getElementById('qa-carry').open = false; location.hash = '#top'")
    browser.evaluate("location.hash = '#qa-carry'")
    after_hashchange = browser.call(
        "Runtime.evaluate",
        awaitPromise=True,
        returnByValue=True,
        expression=(
            "new Promise(done => setTimeout("
            "() => done(document.getElementById('qa-carry').open), 200))"
        ),
    )
    assert after_hashchange["result"]["value"] is True

    # Its own permalink clicked while the address already ends in #qa-carry (no hashchange).
    _open(browser, page + "#qa-carry")  # with a mouse, which can hover
    browser.evaluate("document.getElementById('qa-carry').open = false")
    x, y = browser.evaluate(
        "(() => { const r = document.querySelector('#qa-carry .jaxcheck-qa-permalink')"
        ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    browser.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)  # hovering shows the ¶
    assert browser.evaluate(
        f"document.elementFromPoint({x}, {y}).classList.contains('jaxcheck-qa-permalink')"
    )
    browser.click(x, y)
    assert browser.evaluate("location.hash") == "#qa-carry"
    assert browser.evaluate(f"{CARD_STATE}('qa-carry')")["open"] is True


def test_clicking_a_question_in_the_index_opens_its_card(
    browser: DevTools, cards_site: Path
) -> None:
    _open(browser, (cards_site / "index.html").as_uri())
    link = (
        "Array.from(document.querySelectorAll('ul.jaxcheck-qa-index a'))"
        ".find(a => a.hash === '#qa-carry')"
    )
    box = browser.evaluate(
        f"(() => {{ const r = {link}.getBoundingClientRect(); "
        "return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    browser.events.clear()
    browser.click(*box)
    browser.wait_for("Page.loadEventFired")
    assert browser.evaluate("location.hash") == "#qa-carry"
    assert browser.evaluate(f"{CARD_STATE}('qa-carry')") == {
        "open": True,
        "shown": True,
        "inView": True,
    }


OVERFLOW = """(() => {
  const lines = Array.from(document.querySelectorAll('.jaxcheck-block .highlight .c1'));
  const pre = lines[0].closest('pre').getBoundingClientRect();
  const longest = lines.reduce((a, b) => a.textContent.length > b.textContent.length ? a : b);
  const sources = Array.from(document.querySelectorAll('.jaxcheck-qa-sources code'));
  return {
    comments: lines.length,
    spill: Math.max(...lines.map(l => l.getBoundingClientRect().right - pre.right)),
    longestRows: Math.round(longest.getBoundingClientRect().height \
/ parseFloat(getComputedStyle(longest).lineHeight)),
  };
})()"""


@pytest.mark.parametrize("width", [1280, 390])
def test_long_expected_output_lines_wrap_inside_the_column(
    browser: DevTools, cards_site: Path, width: int
) -> None:
    _open(browser, (cards_site / "long_line.html").as_uri(), width=width)
    found = browser.evaluate(OVERFLOW)
    assert found["comments"] == 5
    assert found["spill"] <= 1, (
        f"an expected-output line runs {found['spill']}px past its block at {width}px"
    )
    assert found["longestRows"] >= 2  # the 134-character line wraps, visibly, in either width


SOURCES = """(() => Array.from(document.querySelectorAll('#qa-carry .jaxcheck-qa-sources code'))\
.map(code => ({
  text: code.textContent,
  rows: new Set(Array.from(code.querySelectorAll('span.pre'))\
.map(s => Math.round(s.getBoundingClientRect().top))).size,
  split: Array.from(code.querySelectorAll('span.pre')).filter(s => s.getClientRects().length > 1)\
.map(s => s.textContent),
})))()"""


def test_sources_wrap_only_at_dots_underscores_slashes_and_colons(
    browser: DevTools, cards_site: Path
) -> None:
    _open(browser, (cards_site / "cards_rst.html").as_uri() + "#qa-carry", width=390)
    sources = browser.evaluate(SOURCES)
    path = next(
        s for s in sources if s["text"] == "jax/_src/lax/control_flow/loops.py::_check_carry_type"
    )
    assert path["rows"] >= 2, "the long path should wrap at 390px"
    assert all(not s["split"] for s in sources), sources  # no piece broken inside a word


MARKED_PACKAGE = '''\
"""Functions whose docstrings hold examples."""
import functools


def alpha(x):
    """Alpha.

    >>> import mypkg
    >>> mypkg.alpha(2)
    4
    """
    return 2 * x


def _scale(x, factor):
    return x * factor


TEMPLATE = """{name}, a partial whose docstring is in no Python file.

More prose
comes before
its example
than before alpha's.

>>> import mypkg
>>> mypkg.{name}(2)
6
"""
beta = functools.partial(_scale, factor=3)
beta.__doc__ = TEMPLATE.format(name="beta")


def gamma(x):
    """Gamma.

    >>> import mypkg
    >>> mypkg.gamma(1)
    2
    """
    return x
'''
MARKED_PAGE = """\
API
===

>>> 1 + 1
2
>>> print("skipped")  # doctest: +SKIP
skipped

Text between two examples.

>>> print("never run")  # doctest: +SKIP
never run

.. doctest::
   :skipif: True

   >>> 2 + 2
   4

.. autofunction:: mypkg.alpha

.. autofunction:: mypkg.beta

.. autofunction:: mypkg.gamma
"""
# Every marker on the page: the block it names, its classes, its text, the code it is under.
MARKERS = """Array.from(document.querySelectorAll('.jaxcheck-status')).map(m => ({
  block: m.dataset.jaxcheckBlock || '', classes: m.className, text: m.innerText,
  code: m.closest('.jaxcheck-block').querySelector('pre').innerText}))"""
SHOWN = """Array.from(document.querySelectorAll('pre')).filter(p => p.innerText.includes('>>>'))
  .map(p => !!p.closest('.jaxcheck-block'))"""


@pytest.mark.parametrize("like", ["pytest", "sphinx.ext.doctest"])
def test_each_example_block_shows_the_verdict_its_report_gives_it(
    browser: DevTools, tmp_path: Path, like: str
) -> None:
    """Checked, unplaceable and unrun docstring and page examples, each marked as reported."""
    root = write_project(
        tmp_path / "docs",
        {"api.rst": MARKED_PAGE, "mypkg/__init__.py": MARKED_PACKAGE},
        conf=(
            "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n"
            'extensions.append("sphinx.ext.autodoc")\n'
            f"jaxcheck_doctests = 'check'\njaxcheck_doctests_like = {like!r}\n"
        ),
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = jaxcheck("check", ".", "--format", "json", cwd=root, env=env)
    report = json.loads(done.stdout)
    # The page's, and the docstrings' it shows (each run once, with its module's, in the root
    # document's sessions, as pytest runs them).
    blocks = [
        b
        for b in report["example_groups"]
        if b["document"] == "api" or b["session"].startswith("docstrings of ")
    ]
    built = build(root, fresh=True)
    _open(browser, (Path(built.app.outdir) / "api.html").as_uri())
    markers = browser.evaluate(MARKERS)

    for record in blocks:
        (marker,) = [m for m in markers if m["block"] == record["name"]]
        slug = record["status"].replace(" ", "-")
        assert f"jaxcheck-status-{slug}" in marker["classes"].split(), (record, marker)
        for example in (e for e in report["examples"] if e["block"] == record["name"]):
            written = (root / example["path"]).read_text("utf-8").splitlines()[example["line"] - 1]
            if written.strip().startswith(">>>"):  # not a directive line: under its own code
                statement = written.split("#")[0].strip()  # doctest flags are not shown
                assert statement in marker["code"], (record, marker)
    unnamed = [m for m in markers if not m["block"]]
    assert all(m["text"].startswith("not run · ") for m in unnamed), unnamed
    assert any(":skipif:" in m["text"] and "2 + 2" in m["code"] for m in unnamed)
    assert {m["block"] for m in markers} - {""} == {b["name"] for b in blocks}
    assert all(browser.evaluate(SHOWN))  # every block showing `>>>` carries a marker
    (partly,) = [m for m in markers if 'print("skipped")' in m["code"]]
    assert "jaxcheck-status-verified" in partly["classes"].split()
    assert "1 example(s) skipped (+SKIP)" in partly["text"]  # not "verified" alone
    statuses = {b["name"]: b["status"] for b in blocks}
    assert statuses["__init__.py:8"] == "verified" and statuses["__init__.py:37"] == "stale"
    # In no file, under either rules: run, reported at its directive's line, and marked.
    assert statuses["mypkg.beta"] == "verified"
    (beta,) = [m for m in markers if "mypkg.beta(2)" in m["code"]]
    assert beta["block"] == "mypkg.beta"


# -- the guide at a desktop's and a phone's width -----------------------------------

DEMO_DOCS = Path(__file__).parents[2] / "demo_docs"
GUIDE_PAGES = ("guide/troubleshooting", "guide/citations", "guide/drift")
# Every example message or output (the guide's ``text`` blocks) and every table: how far
# each runs past its own box or past the article's column.
SPILLS = """(() => {
  const column = document.querySelector('article').getBoundingClientRect();
  const found = [];
  for (const pre of document.querySelectorAll('article div.highlight-text pre')) {
    found.push({what: 'pre', text: pre.textContent.slice(0, 50),
                hidden: pre.scrollWidth - pre.clientWidth,
                past: pre.getBoundingClientRect().right - column.right});
  }
  for (const table of document.querySelectorAll('article table')) {
    const box = table.parentElement;
    found.push({what: 'table', text: table.textContent.trim().slice(0, 50),
                hidden: box.scrollWidth - box.clientWidth,
                past: Math.max(table.getBoundingClientRect().right,
                               box.getBoundingClientRect().right) - column.right});
  }
  return found;
})()"""
# The matrix: each name a link to its block, on one line.
MATRIX_NAMES = """Array.from(document.querySelectorAll(
  'table.jaxcheck-matrix-table .jaxcheck-matrix-name')).map(name => ({
    text: name.textContent, lines: name.querySelector('a').getClientRects().length,
    href: name.querySelector('a').getAttribute('href')}))"""


def guide_pages_site(
    srcdir: Path, pages: tuple[str, ...], prepare: Callable[[Path], None] = lambda _: None
) -> Path:
    """Some of demo_docs' guide pages, with the site's configuration and theme, built to HTML
    (``prepare`` runs on the copy first); the output folder."""
    pytest.importorskip("furo")
    (srcdir / "guide").mkdir(parents=True)
    shutil.copy(DEMO_DOCS / "conf.py", srcdir / "conf.py")
    shutil.copytree(DEMO_DOCS / "_static", srcdir / "_static")
    for page in pages:
        shutil.copy(DEMO_DOCS / f"{page}.md", srcdir / f"{page}.md")
    listed = "".join(f"{page}\n" for page in pages)
    (srcdir / "index.md").write_text(f"# The guide\n\n```{{toctree}}\n{listed}```\n", "utf-8")
    prepare(srcdir)
    # The pages link to the rest of the guide, left out here: Sphinx warns of that only.
    result = build(srcdir)
    assert result.status == 0 and "[jaxcheck" not in result.warnings, result.warnings
    return Path(result.app.outdir)


def screenshot(browser: DevTools, folder: Path, page: str, width: int) -> None:
    """The whole page as shown, kept for a person to look at."""
    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    taken = folder / f"{page.replace('/', '-')}-{width}.png"
    taken.write_bytes(base64.b64decode(shot["data"]))
    print(f"screenshot: {taken}")


@pytest.fixture(scope="module")
def guide_site(tmp_path_factory: pytest.TempPathFactory, older_python: Path) -> Path:
    """demo_docs' troubleshooting, citations and drift pages, as ``tox -e docs`` builds them
    (the drift page's matrix made first)."""

    def matrix(srcdir: Path) -> None:
        made = jaxcheck("matrix", srcdir / "guide" / "drift.md", "--python", older_python)
        assert made.returncode == 0, made.stderr

    return guide_pages_site(tmp_path_factory.mktemp("guide") / "demo_docs", GUIDE_PAGES, matrix)


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page", GUIDE_PAGES)
def test_guide_messages_and_tables_fit_their_column(
    browser: DevTools, guide_site: Path, tmp_path: Path, page: str, width: int
) -> None:
    _open(browser, (guide_site / f"{page}.html").as_uri(), width=width)
    found = browser.evaluate(SPILLS)
    assert any(item["what"] == "table" for item in found) or page.endswith("troubleshooting")
    spilling = [item for item in found if item["hidden"] > 1 or item["past"] > 1]
    assert spilling == [], f"at {width}px on {page}: {spilling}"
    screenshot(browser, tmp_path, page, width)


@pytest.mark.parametrize("width", [1280, 390])
def test_matrix_names_link_to_their_blocks_and_stay_on_one_line(
    browser: DevTools, guide_site: Path, width: int
) -> None:
    _open(browser, (guide_site / "guide" / "drift.html").as_uri(), width=width)
    names = browser.evaluate(MATRIX_NAMES)
    assert len(names) == 12
    for name in names:
        assert name["lines"] == 1, f"{name['text']} wraps at {width}px"
        assert name["href"] == f"#{name['text']}", name
        assert browser.evaluate(f"document.getElementById({name['text']!r}) !== null"), name


REFERENCE_PAGES = ("guide/configuration", "guide/performance")
# Names in the tables' first column (settings, options) that a line break splits, and every
# table box that scrolls, with what shows that it does.
SPLIT_AND_SCROLLING = """(() => {
  const split = [];
  for (const code of document.querySelectorAll('article td:first-child code.literal')) {
    if (code.getClientRects().length > 1) {
      split.push(code.textContent);
    }
  }
  const scrolling = [];
  for (const table of document.querySelectorAll('article table')) {
    const box = table.parentElement;
    if (box.scrollWidth - box.clientWidth > 1) {
      const style = getComputedStyle(box);
      scrolling.push({text: table.textContent.trim().slice(0, 40),
                      shadow: style.backgroundImage.includes('radial-gradient'),
                      bar: getComputedStyle(box, '::-webkit-scrollbar').height});
    }
  }
  return {split, scrolling};
})()"""


@pytest.fixture(scope="module")
def reference_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """demo_docs' configuration and performance pages."""
    return guide_pages_site(tmp_path_factory.mktemp("reference") / "demo_docs", REFERENCE_PAGES)


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page", REFERENCE_PAGES)
def test_settings_stay_whole_on_a_desktop_and_a_table_that_scrolls_shows_it(
    browser: DevTools, reference_site: Path, tmp_path: Path, page: str, width: int
) -> None:
    _open(browser, (reference_site / f"{page}.html").as_uri(), width=width)
    found = browser.evaluate(SPLIT_AND_SCROLLING)
    if width >= 1280:  # room enough: no setting's name breaks
        assert found["split"] == [], f"at {width}px on {page}"
        assert found["scrolling"] == [], f"at {width}px on {page}"
    # A table wider than a phone's column shows a shadow and a bar (overlay scrollbars hide).
    assert all(box["shadow"] and box["bar"] != "0px" for box in found["scrolling"]), found
    if page.endswith("performance") and width < 600:
        assert found["scrolling"], "the benchmark table is wider than a phone"
    # The project's own speed targets are for its developers (benchmarks/results.md).
    assert "MISSED" not in browser.evaluate("document.body.innerText")
    screenshot(browser, tmp_path, page, width)


# In the tables of settings and commands: each name (first column) and each word of a command
# (code of several words; docutils puts each word in a span.pre) that a line break splits.
SPLIT_NAMES_AND_ARGUMENTS = """(() => {
  const tables = document.querySelectorAll('article table.code-table');
  const split = [];
  for (const code of document.querySelectorAll('article table.code-table td code.literal')) {
    const words = code.querySelectorAll('span.pre');
    if (code.closest('td').cellIndex === 0 || words.length > 1) {
      for (const word of words) {
        if (word.getClientRects().length > 1) {
          split.push(word.textContent);
        }
      }
    }
  }
  return {tables: tables.length, split};
})()"""


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("page", REFERENCE_PAGES)
def test_setting_names_never_break_and_commands_wrap_only_between_arguments(
    browser: DevTools, reference_site: Path, tmp_path: Path, page: str, width: int
) -> None:
    # jaxcheck_doctest_modules_ignore stays whole on a phone (the table scrolls instead), and
    # `sphinx-build -E -D jaxcheck_workers=1 ...` wraps between its arguments on a desktop.
    _open(browser, (reference_site / f"{page}.html").as_uri(), width=width)
    found = browser.evaluate(SPLIT_NAMES_AND_ARGUMENTS)
    assert found["tables"] == (6 if page.endswith("configuration") else 1)
    assert found["split"] == [], f"at {width}px on {page}"
    screenshot(browser, tmp_path, page, width)
