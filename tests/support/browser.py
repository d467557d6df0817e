"""Headless Chromium for the tests of pages, through Playwright: Debian's headless shell
(``/usr/bin/chromium-headless-shell``), or its full browser (``/usr/bin/chromium``) where only
that is installed.

``scripts/test.sh`` installs the headless shell where it can (``apt-get install
chromium-headless-shell``; the Python driver ``playwright`` is in the ``test`` extra, and no
browser download is needed). Without a browser the tests that need one are skipped with the
command that installs it.

The headless shell is the same Blink engine (layout, fonts, scripts) without the browser's own
window and interface, which the full browser runs even when headless: on the 2-core machine a
page of the site cost 131 ms of CPU against 165 ms, and the report and monitoring tests took
56 s against 67 s (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

#: The browsers the tests can drive, the lighter first.
BROWSERS = (Path("/usr/bin/chromium-headless-shell"), Path("/usr/bin/chromium"))
#: Flags for a closed network: no background connections that the machine would refuse.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


#: Measures a page in the browser (a report: see tests/test_display_report.py).
MEASURE = r"""
() => {
  const W = document.documentElement.clientWidth;
  const res = {W, scrollWidth: document.documentElement.scrollWidth, overflow: [], hidden: [],
               clipped: [], minFont: 1e9, smallest: null, nText: 0, nHeadline: 0};
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('.scroll') && !el.classList.contains('scroll')) continue;
    if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > W + 0.5 || r.left < -0.5)
      res.overflow.push(el.tagName + '.' + el.className + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
  }
  for (const el of document.querySelectorAll('td.hl')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    res.nHeadline++;
    const box = el.closest('.scroll');
    const br = box ? box.getBoundingClientRect() : {left: 0, right: W};
    if (r.right > Math.min(W, br.right) + 0.5 || r.left < Math.max(0, br.left) - 0.5)
      res.hidden.push(el.textContent);
  }
  for (const t of document.querySelectorAll('svg text')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0) continue;
    const m = t.getScreenCTM();
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(m.a * m.a + m.b * m.b);
    res.nText++;
    if (px < res.minFont) { res.minFont = px; res.smallest = t.textContent; }
    const s = t.closest('svg').getBoundingClientRect();
    if (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 1 || r.bottom > s.bottom + 1)
      res.clipped.push(t.textContent);
  }
  return res;
}
"""


@contextmanager
def chromium():
    """A launched browser, or a skip naming what is missing."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    found = next((path for path in BROWSERS if path.exists()), None)
    if found is None:
        pytest.skip("Debian's headless Chromium is not installed at /usr/bin/chromium-headless-shell "
                    "(apt-get install -y chromium-headless-shell)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(found), args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


class _StaticFiles(SimpleHTTPRequestHandler):
    """A folder's files as a web server gives them: with a cache lifetime (so the browser keeps a
    site's shared scripts and styles from one page to the next, as from any server), no log."""

    def end_headers(self):
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def log_message(self, *args):
        pass


@contextmanager
def served(root: Path):
    """The files under ``root`` on a web server of this process: yields its address,
    ``http://127.0.0.1:<port>/``, which answers on the loopback interface only."""
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_StaticFiles, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def open_tab(browser, path: Path | str, width: int, *, open_details: bool = True,
             origin: str | None = None, **context):
    """Open a local file (or an address under ``origin``) at a viewport width; also return the
    problems the page caused.

    A problem is a console error or warning, an uncaught script error, or a request for
    anything but a local file or an address under ``origin`` (the server of :func:`served`):
    a page must not reach the network.
    """
    local = ("file:", "data:", "blob:") + ((origin,) if origin else ())
    ctx = browser.new_context(viewport={"width": width, "height": 900}, **context)
    tab = ctx.new_page()
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    tab.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    tab.on("request", lambda r: problems.append(f"request: {r.url}") if not r.url.startswith(local) else None)
    tab.goto(path if isinstance(path, str) else path.as_uri())
    tab.wait_for_load_state("load")
    if open_details:
        tab.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    return ctx, tab, problems
