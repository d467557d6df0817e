"""The documentation site: it builds, it is complete, its links hold, and it reads on any screen.

The site is built once per run by ``scripts/docs.sh`` (the command the README gives), with
warnings as errors: an example or a code block of the user guide that raises, a formula that
cannot be drawn, or a reference that does not resolve fails the build. The built pages are then
read here (the API reference against the package itself, every local link and anchor) and
opened in headless Chromium at 390 and 1 280 px, served from a web server on the loopback
interface (no sideways scrolling, every image loaded, no console error, no request leaving the
machine); pages of every kind are also opened from their files.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

import bacc

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "guide"
EXAMPLES = DOCS / "examples"

sys.path.insert(0, str(DOCS / "_ext"))
from bacc_docs import public_modules  # noqa: E402

#: The build takes minutes: the full run (pytest --full, scripts/test.sh) builds the site. It
#: writes into docs/ (the gallery and the API pages it generates), so under pytest-xdist every
#: test of this file runs in one worker (conftest.py: --dist loadgroup), which builds it once.
#: That is the worker of the tests of ``bacc demo``'s report (tests/conftest.py, ``demo_run``):
#: the site ships that report (BACC_DOCS_DEMO_REPORT, docs/_ext/bacc_docs.py), so the demo runs
#: once in the whole run.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("test_display_report")]

for _module in ("sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "IPython"):
    pytest.importorskip(_module, reason='the docs extra: pip install -e ".[docs]"')


@pytest.fixture(scope="module")
def site(tmp_path_factory, demo_run) -> Path:
    """The site, built by ``scripts/docs.sh`` into a temporary folder, with the report of the
    run's ``bacc demo``."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "BACC_DOCS_NO_INSTALL": "1", "BACC_DOCS_OUT": str(out),
           "BACC_DOCS_DEMO_REPORT": str(demo_run[1])}
    start = time.perf_counter()
    done = subprocess.run(["bash", str(ROOT / "scripts" / "docs.sh")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=3600, check=False)
    seconds = time.perf_counter() - start
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    print(f"site built in {seconds:.0f} s")
    return out / "html"


def pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


class _Links(HTMLParser):
    """The ids of a page, and the local targets of its links and images."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.targets: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src"):
            value = a.get(key)
            if value and not re.match(r"^(https?:|mailto:|data:|javascript:)", value):
                self.targets.append(value)


def _parse(path: Path) -> _Links:
    links = _Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


# ----------------------------------------------------------------------------------------------
def test_every_public_name_is_in_the_api_reference(site):
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", os.path.join)
    documented = {name for kind, objects in inventory.items() if kind.startswith("py:")
                  for name in objects}
    missing = [f"bacc.{n}" for n in bacc.__all__ if f"bacc.{n}" not in documented]
    for module_name in public_modules():
        if module_name not in documented:
            missing.append(module_name)
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            top = name in bacc.__all__ and getattr(bacc, name) is getattr(module, name)
            if f"{module_name}.{name}" not in documented and not (top and f"bacc.{name}" in documented):
                missing.append(f"{module_name}.{name}")
    assert missing == []
    assert len(public_modules()) >= 20


def test_no_local_link_is_broken(site):
    parsed = {p: _parse(p) for p in pages(site)}
    broken = []
    for page, links in parsed.items():
        for target in links.targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc:
                broken.append(f"{page.relative_to(site)}: {target} (not local)")
                continue
            dest = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if dest.is_dir():
                dest = dest / "index.html"
            if not dest.exists():
                broken.append(f"{page.relative_to(site)}: {target}")
            elif parts.fragment and dest.suffix == ".html":
                ids = parsed[dest].ids if dest in parsed else _parse(dest).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {target} (no such anchor)")
    assert broken == []
    assert len(parsed) > 40


def test_the_front_page_leads_to_the_four_first_questions(site):
    """Evaluate a matrix, choose an interval, compare two classifiers, monitor: one click each."""
    targets = {urlsplit(t).path for t in _parse(site / "index.html").targets}
    for page in ("guide/confusion_matrix.html", "guide/intervals.html", "guide/comparing.html",
                 "guide/monitoring.html", "getting_started.html", "auto_examples/index.html",
                 "api/index.html", "cli.html", "theory/index.html"):
        assert page in targets, page


def test_the_gallery_runs_and_draws_every_figure(site):
    scripts = sorted(EXAMPLES.glob("plot_*.py"))
    assert len(scripts) >= 12
    for script in scripts:
        html = site / "auto_examples" / f"{script.stem}.html"
        assert html.exists(), script.name
    source = "\n".join(s.read_text(encoding="utf-8") for s in scripts)
    from bacc.display import plot

    drawn = [name for name in plot.__all__ if name.startswith("plot_")]
    assert len(drawn) >= 9
    assert [name for name in drawn if f"{name}(" not in source] == []
    images = list((site / "_images").glob("sphx_glr_plot_*.png"))
    assert len(images) >= len(drawn)


def test_guide_pages_run_their_code():
    """Every user-guide page runs code during the build; none shows Python that does not run."""
    for page in sorted(GUIDE.glob("*.rst")) + [DOCS / "getting_started.rst"]:
        if page.name == "index.rst":
            continue
        text = page.read_text(encoding="utf-8")
        assert ".. ipython:: python" in text, page.name
        assert not re.search(r"\.\. code-block:: (python|pycon|ipython)", text), page.name


def test_the_command_line_reference_is_the_parser(site):
    from bacc.cli.parser import build_parser

    text = (site / "cli.html").read_text(encoding="utf-8")
    parser = build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in commands.choices.items():
        assert f'id="cli-{name}"' in text, name
        for action in sub._actions:
            for option in action.option_strings:
                assert option in text, (name, option)


def test_the_report_page_ships_the_demo_report(site, demo_run):
    report = site / "report" / "bacc-demo.html"
    assert report.exists() and report.stat().st_size > 50_000
    assert report.read_bytes() == demo_run[1].read_bytes()
    assert "report/bacc-demo.html" in (site / "guide" / "report.html").read_text(encoding="utf-8")


def test_the_build_runs_the_demo_unless_given_its_report(tmp_path, monkeypatch):
    """Without BACC_DOCS_DEMO_REPORT the build runs ``bacc demo -o`` into the site's extra files
    (as ``scripts/docs.sh`` does for a reader); with it, the file given is copied; a file that
    is not there is a build warning (an error with ``-W``)."""
    import bacc_docs

    class App:
        builder = type("Builder", (), {"format": "html"})()
        srcdir = str(tmp_path)

    target = tmp_path / "_generated" / "report" / "bacc-demo.html"
    calls = []
    monkeypatch.setattr(bacc_docs.subprocess, "run", lambda cmd, **kw: calls.append((cmd, kw))
                        or subprocess.CompletedProcess(cmd, 0, "", ""))
    monkeypatch.delenv("BACC_DOCS_DEMO_REPORT", raising=False)
    bacc_docs._demo_report(App())
    assert [c[0] for c in calls] == [[sys.executable, "-m", "bacc", "demo", "-o", str(target)]]
    assert calls[0][1]["env"]["MPLBACKEND"] == "Agg"
    given = tmp_path / "given.html"
    given.write_text("<html>report</html>", encoding="utf-8")
    monkeypatch.setenv("BACC_DOCS_DEMO_REPORT", str(given))
    bacc_docs._demo_report(App())
    assert len(calls) == 1 and target.read_text(encoding="utf-8") == "<html>report</html>"
    warned = []
    monkeypatch.setattr(bacc_docs.logger, "warning", lambda *a: warned.append(a))
    monkeypatch.setenv("BACC_DOCS_DEMO_REPORT", str(tmp_path / "missing.html"))
    bacc_docs._demo_report(App())
    assert len(calls) == 1 and warned and "no such file" in warned[0][0]


# ----------------------------------------------------------------------------------------------
#: What a reader would see cut or scrolled: every element running past the right edge of the
#: window must sit in a box that scrolls on purpose (code, a table, an equation), which itself
#: fits the window; anything else (clipped by its container, or widening the page) is a failure.
PAGE_CHECK = r"""
() => {
  const W = document.documentElement.clientWidth;
  const scrollBox = el => el.tagName === 'PRE' || el.tagName === 'TABLE' ||
      el.classList.contains('highlight') || el.classList.contains('pst-scrollable-table-container') ||
      el.classList.contains('math-block') || el.classList.contains('math-label') ||
      el.classList.contains('sphx-glr-script-out') || el.classList.contains('output_subarea');
  const wide = [];
  for (const el of document.querySelectorAll('.bd-main *, .bd-header *, .bd-footer *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= W + 1 || r.left >= W) continue;  // off-canvas drawers are closed
    let p = el.parentElement, box = null;
    while (p && p !== document.body) {
      if (getComputedStyle(p).overflowX !== 'visible') { box = p; break; }
      p = p.parentElement;
    }
    const ok = box && scrollBox(box) && box.getBoundingClientRect().right <= W + 1;
    if (!ok && wide.length < 5)
      wide.push(el.tagName + '.' + el.className + ' in ' + (box ? box.tagName + '.' + box.className : 'page'));
  }
  const images = [...document.images];
  return {W, scrollWidth: document.documentElement.scrollWidth, wide, images: images.length,
          broken: images.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)};
}
"""


@pytest.mark.parametrize("width", (390, 1280))
def test_the_site_fits_every_screen_and_stays_local(site, browser, width):
    """Every page, as a web server gives it: nothing cut or widening the page, images loaded, no
    error, nothing fetched from anywhere but the site itself.

    The site is served from this process on the loopback interface, so the browser keeps the
    theme's scripts and styles from one page to the next, as it does from any server; read from
    its files, every page would parse them again (about a third more time and CPU for the same
    checks: 60 s and 97 CPU-seconds against 44 s and 73 for both widths, benchmarks/RESULTS.md).
    Opening the built files directly is checked by the next test.
    """
    from support.browser import open_tab, served

    failures: dict[str, object] = {}
    n_images = n_pages = 0
    with served(site) as origin:
        ctx, tab, problems = open_tab(browser, origin + "index.html", width, open_details=False,
                                      origin=origin)
        for page in pages(site):
            if page.parent.name == "report":
                continue  # the report has its own tests (tests/test_display_report.py)
            problems.clear()
            tab.goto(origin + page.relative_to(site).as_posix())
            tab.wait_for_load_state("load")
            m = tab.evaluate(PAGE_CHECK)
            n_images += m["images"]
            n_pages += 1
            if problems or m["scrollWidth"] > m["W"] or m["wide"] or m["broken"]:
                failures[str(page.relative_to(site))] = problems[:3] or m
        ctx.close()
    assert failures == {}
    assert n_pages > 40 and n_images >= 12


def test_the_site_opens_from_its_files(site, browser):
    """Opened from the built files (``file://``, as ``scripts/docs.sh`` says to), the pages of
    every kind (each top-level page, and the first of each folder: guide, API, module, gallery,
    theory) load with no error, every image loaded and no request leaving the machine. Every
    page shares its kind's template, so a page that loads from its file stands for its kind;
    the layout of every page is checked above."""
    from support.browser import open_tab

    chosen: dict[Path, Path] = {}
    for page in pages(site):
        if page.parent.name != "report":
            chosen.setdefault(page if page.parent == site else page.parent, page)
    assert len(chosen) >= 10
    failures: dict[str, object] = {}
    ctx, tab, problems = open_tab(browser, site / "index.html", 1280, open_details=False)
    for page in sorted(chosen.values()):
        problems.clear()
        tab.goto(page.as_uri())
        tab.wait_for_load_state("load")
        broken = tab.evaluate("() => [...document.images]"
                              ".filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        if problems or broken:
            failures[str(page.relative_to(site))] = problems[:3] or broken
    ctx.close()
    assert failures == {}
