"""A real headless Chromium opens a built page, clicks a question, and follows the sources.

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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sphinx.testing.util import SphinxTestApp

from sphinx_jaxcheck.citation import check_citation, installed_index
from sphinx_jaxcheck.pin import Pin

ROOTS = Path(__file__).parent / "roots"
COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1100,900",
)

pytestmark = pytest.mark.browser


def _chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    # Like .ci/run: try to install it; skip only when that is impossible here.
    try:
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium"],
            check=True, capture_output=True, timeout=600,
        )
    except (OSError, subprocess.SubprocessError) as error:
        pytest.skip(f"chromium is not installed and `apt-get install chromium` failed: {error}")
    found = shutil.which("chromium")
    if not found:
        pytest.skip("chromium is not installed and apt-get did not provide it")
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
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
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
        [_chromium(), *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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


@pytest.mark.parametrize(("theme", "scheme"), [("alabaster", "light"), ("furo", "light"), ("furo", "dark")])
def test_clicking_a_question_shows_its_answer_and_pinned_sources(
    browser: DevTools, tmp_path: Path, theme: str, scheme: str
) -> None:
    if theme != "alabaster":
        pytest.importorskip(theme)
    srcdir = tmp_path / "cards"
    shutil.copytree(ROOTS / "test-cards", srcdir)
    app = SphinxTestApp(
        "html", srcdir=srcdir, builddir=tmp_path / "out", confoverrides={"html_theme": theme}
    )
    try:
        app.build()
        page = (app.outdir / "cards_rst.html").as_uri()
    finally:
        app.cleanup()

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
        f"(() => {{ const r = {card}.querySelector('summary .jaxcheck-qa-title').getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
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
    assert contrast >= 4.5, f"question text is hard to read in {theme} ({scheme}): contrast {contrast:.1f}"

    shot = browser.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
    screenshot = tmp_path / f"qa-card-open-{theme}-{scheme}.png"
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    assert screenshot.stat().st_size > 1000
    print(f"screenshot: {screenshot}")
