"""The HTML report (bacc.display.report): escaping, self-containment, and a real headless browser.

The browser tests drive Debian's headless Chromium (``/usr/bin/chromium-headless-shell``, or the
full ``/usr/bin/chromium``) through Playwright (tests/support/browser.py); they are skipped, with
the reason, when the browser or the driver is missing. At 390, 768 and 1280 px they measure, on
a small page, on the demo report and on a report of 1 000 groups: that nothing runs off the
screen sideways (outside a scroll box), that every headline number is visible without
scrolling sideways, that no text of a figure runs off its picture, and the smallest rendered
font size of figure text (at least 11 px). On the demo, the metrics page, a population report,
a monitoring report, five classifiers with long names and the small page they measure every
table, grid and figure (``LAYOUT``): no cell clipped, no table or grid cut (a table may scroll
inside its box only with the hint above it, and at 1280 px none scrolls), no figure text struck
by a line. CI installs them with::

    apt-get install -y chromium-headless-shell   # Debian package: /usr/bin/chromium-headless-shell
    pip install playwright                       # the Python driver; no browser download is needed
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib").use("Agg")

from support.browser import MEASURE, open_tab  # noqa: E402
from support.synthetic import detector_csv, groups_csv, long_names_csv  # noqa: E402

import bacc  # noqa: E402
from bacc.confusion import ConfusionMatrix  # noqa: E402
from bacc.display.report import ReportEntry, Section, render_report, write_report  # noqa: E402
from bacc.intervals import (  # noqa: E402
    class_intervals,
    exact_interval,
    fold_sem_interval,  # noqa: E402
)

#: The pages and the browser are module fixtures, built once: under pytest-xdist the whole file
#: runs in one worker (conftest.py: --dist loadgroup), so they are not built again in the other.
pytestmark = pytest.mark.xdist_group("test_display_report")

EVIL = "<script>alert(1)</script>"

#: Measures every table and figure of a page (the check of layout the tests share):
#: - a cell whose text does not fit it (``scrollWidth > clientWidth``) is *clipped*;
#: - a table wider than its scroll box must have the report's hint above the box, visible
#:   (``p.scroll-hint``), and a table not in a scroll box must lie inside the page: else it is
#:   *cut*;
#: - a text of a figure is *struck* when a point of a drawn line (every stroked ``path``,
#:   ``line`` or ``polyline``, sampled every 0.75 screen px and limited to its clip rectangle;
#:   the box of each ``use`` marker) falls inside the middle of one of its glyphs: the glyph's
#:   box (``getExtentOfChar``, in the text's own coordinates, so rotated text is measured
#:   upright) less 22% at the top and 20% at the bottom (room of accents and descenders) and
#:   4% of the height at each side. A line that only grazes the text's box is not a strike.
LAYOUT = r"""
() => {
  // tables: every cell shows all its text; a table wider than its box sits in a scroll box
  // that shows a hint; SVG text: no drawn line crosses the middle of a text
  const W = document.documentElement.clientWidth;
  const res = {W, scrollWidth: document.documentElement.scrollWidth, nCells: 0, nTables: 0,
               nTexts: 0, clippedCells: [], cutTables: [], scrolling: [], struck: []};
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const hinted = box => {
    const h = box.previousElementSibling;
    return !!(h && h.classList.contains('scroll-hint') && visible(h));
  };
  for (const t of document.querySelectorAll('table')) {
    if (!visible(t)) continue;
    res.nTables++;
    const box = t.closest('.scroll');
    const name = (t.className || 'table') + ' "' + (t.querySelector('th') || t).textContent.slice(0, 30) + '"';
    const scrolls = box && box.scrollWidth > box.clientWidth + 1;
    if (scrolls) {
      res.scrolling.push(name);
      if (!hinted(box)) res.cutTables.push(name + ': scrolls sideways without a hint');
    }
    const br = box ? box.getBoundingClientRect() : {left: 0, right: W};
    for (const c of t.querySelectorAll('th, td')) {
      if (!visible(c)) continue;
      res.nCells++;
      if (c.scrollWidth > c.clientWidth + 1)
        res.clippedCells.push(c.textContent + ' (' + c.scrollWidth + ' > ' + c.clientWidth + ')');
      const r = c.getBoundingClientRect();
      if (!scrolls && (r.right > Math.min(W, br.right) + 1 || r.left < Math.max(0, br.left) - 1))
        res.cutTables.push(name + ': cell "' + c.textContent + '" outside its box');
    }
  }
  for (const svg of document.querySelectorAll('figure svg')) {
    if (!visible(svg)) continue;
    const pts = [];  // screen points along every stroked line of the figure
    for (const el of svg.querySelectorAll('path, line, polyline, use')) {
      if (el.closest('defs, clipPath, marker, text')) continue;
      const st = getComputedStyle(el);
      if (st.stroke === 'none' || parseFloat(st.strokeWidth) === 0 || st.visibility === 'hidden'
          || parseFloat(st.opacity) === 0 || parseFloat(st.strokeOpacity) === 0) continue;
      const m = el.getScreenCTM();
      if (el.tagName === 'use') {  // tick marks: short lines, take their box corners and centre
        const r = el.getBoundingClientRect();
        for (const [x, y] of [[r.left, r.top], [r.right, r.bottom], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]])
          pts.push([x, y]);
        continue;
      }
      let clip = null;
      const cp = el.getAttribute('clip-path');
      if (cp) {
        const id = cp.match(/#([^)"']+)/);
        const rect = id && svg.querySelector('clipPath[id="' + id[1] + '"] rect');
        if (rect) clip = ['x', 'y', 'width', 'height'].map(a => parseFloat(rect.getAttribute(a)));
      }
      if (el.tagName === 'path' && !/[0-9]/.test(el.getAttribute('d') || '')) continue;  // empty
      const len = el.getTotalLength();
      const scale = Math.hypot(m.a, m.b) || 1;
      const n = Math.min(20000, Math.ceil(len * scale / 0.75) + 1);
      for (let i = 0; i <= n; i++) {
        const p = el.getPointAtLength(len * i / n);
        if (clip && (p.x < clip[0] - 0.5 || p.x > clip[0] + clip[2] + 0.5 || p.y < clip[1] - 0.5 || p.y > clip[1] + clip[3] + 0.5)) continue;
        pts.push([m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f]);
      }
    }
    for (const t of svg.querySelectorAll('text')) {
      const tr = t.getBoundingClientRect();
      if (tr.width <= 0 || tr.height <= 0 || !t.textContent.trim()) continue;
      res.nTexts++;
      // each glyph's box less its margins (a line that grazes the room of ascenders and
      // descenders does not strike the text)
      const boxes = [];
      const chars = t.textContent.replace(/\s+/g, '');
      for (let i = 0; i < t.getNumberOfChars(); i++) {
        const e = t.getExtentOfChar(i);
        if (e.width <= 0 || e.height <= 0) continue;
        boxes.push([e.x + 0.04 * e.height, e.x + e.width - 0.04 * e.height,
                    e.y + 0.22 * e.height, e.y + 0.8 * e.height]);
      }
      const inv = t.getScreenCTM().inverse();
      let hit = null;
      for (const [sx, sy] of pts) {
        // every glyph box lies inside the text's box on the screen (2 px of margin): a point
        // outside it cannot strike the text, and is not transformed and tested
        if (sx < tr.left - 2 || sx > tr.right + 2 || sy < tr.top - 2 || sy > tr.bottom + 2) continue;
        const x = inv.a * sx + inv.c * sy + inv.e, y = inv.b * sx + inv.d * sy + inv.f;
        if (boxes.some(([x0, x1, y0, y1]) => x > x0 && x < x1 && y > y0 && y < y1)) { hit = [sx, sy]; break; }
      }
      if (hit) res.struck.push(chars + ' in "' + (svg.getAttribute('aria-label') || '') + '" at ' + hit.map(Math.round));
    }
  }
  return res;
}
"""
C1_FOLDS = [[[14, 0], [0, 14]], [[14, 0], [0, 14]], [[13, 1], [0, 14]], [[11, 3], [2, 12]],
            [[10, 4], [4, 10]]]


def entry(counts, labels=None, name="clf", folds=None, **kw) -> ReportEntry:
    cm = ConfusionMatrix(counts, labels=labels)
    return ReportEntry(
        name=name,
        evaluation=bacc.evaluate(cm),
        exact=exact_interval(cm),
        accuracy_exact=exact_interval(cm, metric="accuracy"),
        class_exact=class_intervals(cm),
        fold_interval=fold_sem_interval(folds) if folds else None,
        **kw,
    )


@pytest.fixture(scope="module")
def page() -> str:
    sec1 = Section(
        title=f"section {EVIL}",
        description=f"about {EVIL}",
        entries=[
            entry([[62, 8], [6, 64]], ["pos", "neg"], "C1", C1_FOLDS, source=f"file {EVIL}.csv"),
            entry([[42, 3], [6, 4]], [EVIL, "neg & co"], EVIL, note=f"note {EVIL}"),
        ],
    )
    sec2 = Section(title="three classes", entries=[entry([[50, 3, 2], [4, 40, 6], [1, 2, 30]],
                                                         ["a", "b", "c"], "multi")])
    return render_report([sec1, sec2], title=f"report {EVIL}", subtitle=EVIL,
                         generated="2026-01-01 00:00 UTC")


def test_report_escapes_every_user_string(page):
    assert EVIL not in page
    # the one script is the report's own table sorter, at the end of the page
    assert page.lower().count("<script") == 1 and "table.sortable" in page.split("<script>")[1]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "neg &amp; co" in page
    # labels inside pictures are SVG text escaped by matplotlib: no markup can get through
    assert "alert(1)</" not in page


def test_report_is_self_contained(page):
    urls = re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*", page)
    assert set(urls) <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, set(urls)
    for tag in ("<link", "<img", "<iframe", "@import", "src="):
        assert tag not in page.lower()
    assert page.lower().count("<script>") == 1  # inline, no source
    assert '<meta name="viewport"' in page


def test_report_shows_summary_credible_and_exact_intervals_per_class(page):
    ev = bacc.evaluate([[62, 8], [6, 64]])
    ex = exact_interval([[62, 8], [6, 64]])
    s = ev.balanced_accuracy_summary
    for v in (s.mean, s.lower, s.upper, ex.lower, ex.upper):
        assert f"{v:.4f}" in page
    assert page.count("<section") == 2
    # section 1: forest + measures + 3 per entry; section 2 (one entry, no folds): 3 only
    assert page.count("<svg") == (2 + 2 * 3) + 3
    assert "leaves [0, 1]" in page  # C1's fold interval passes 100%
    assert "62 / 70" in page


def test_ids_are_unique_across_figures(page):
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))


def test_report_without_pictures_and_write(tmp_path):
    html = render_report(Section("s", [entry([[5, 1], [2, 7]])]), pictures=False)
    assert "<svg" not in html and "0.5" in html
    path = write_report(tmp_path / "r.html", html)
    assert path.read_text(encoding="utf-8") == html
    with pytest.raises(bacc.BaccError, match="cannot write"):
        write_report(tmp_path / "missing" / "r.html", html)


def test_empty_section_is_an_error():
    with pytest.raises(bacc.BaccError):
        render_report(Section("empty", []))


# ----------------------------------------------------------------------------------------------

WIDTHS = (390, 768, 1280)

@pytest.fixture(scope="module")
def demo_page(demo_run) -> Path:
    """The report of ``bacc demo``, run once for this file and tests/test_cli.py (conftest.py)."""
    return demo_run[1]


@pytest.fixture(scope="module")
def groups_page(tmp_path_factory) -> Path:
    from bacc.cli import main

    folder = tmp_path_factory.mktemp("groups")
    csv = groups_csv(folder / "g.csv")
    path = folder / "groups.html"
    assert main(["report", str(csv), "--true", "label", "--pred", "pred", "--by", "detector",
                 "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def long_page(tmp_path_factory) -> Path:
    """Five paired classifiers with very long names and labels (ranking, grid, cards)."""
    from bacc.cli import main

    folder = tmp_path_factory.mktemp("long")
    csv, models = long_names_csv(folder / "long.csv")
    path = folder / "long.html"
    args = ["report", str(csv), "--true", "truth", *(x for m in models for x in ("--pred", m))]
    assert main([*args, "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def metrics_page(tmp_path_factory) -> Path:
    """A detector with the posteriors of other metrics at a deployment prevalence."""
    from bacc.cli import main

    folder = tmp_path_factory.mktemp("metrics")
    csv = detector_csv(folder / "det.csv")
    path = folder / "det.html"
    assert main(["report", str(csv), "--true", "label", "--pred", "pred", "--metrics",
                 "--prevalence", "0.00425", "-o", str(path)]) == 0
    return path


def test_metrics_page_shows_the_metric_posteriors(metrics_page):
    html = metrics_page.read_text(encoding="utf-8")
    assert "Other metrics at prevalence 0.00425" in html
    assert 'aria-label="precision against prevalence of' in html
    from bacc.readers import read_predictions

    d = read_predictions(str(metrics_page.parent / "det.csv"), true="label", pred="pred")
    cm = ConfusionMatrix.from_predictions(list(d.y_true), list(d.y_pred), labels=list(d.labels))
    p = bacc.posterior_metric(cm, "precision", label="pos", prevalence=0.00425)
    assert f"[{p.lower:.4f}, {p.upper:.4f}]" in html


@pytest.fixture(scope="module")
def small_page(page, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("small") / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def looks(browser, tmp_path_factory):
    """What the browser shows of a page at a width, loaded once for both layout tests below.

    ``look(request, which, width)`` opens the page (every block of details open), reads
    ``MEASURE``, takes a screenshot, waits two animation frames (the page's script has seen the
    new sizes) and reads ``LAYOUT``: the two tests' measurements come from one load of each page
    at each width instead of one load each (``test_report_fits_every_screen`` and
    ``test_no_cell_is_clipped_no_grid_cut_no_figure_text_struck`` share six of their pages).
    """
    shots = tmp_path_factory.mktemp("shots")
    seen: dict[tuple[str, int], dict] = {}

    def look(request, which: str, width: int) -> dict:
        if (which, width) not in seen:
            ctx, tab, problems = open_tab(browser, request.getfixturevalue(which), width)
            measure = tab.evaluate(MEASURE)
            shot = shots / f"{which}_{width}.png"
            tab.screenshot(path=str(shot))
            layout = settled_layout(tab)
            ctx.close()
            seen[which, width] = {"measure": measure, "layout": layout, "problems": problems,
                                  "shot": shot.stat().st_size}
        return seen[which, width]

    return look


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["small_page", "demo_page", "groups_page", "long_page",
                                   "metrics_page"])
@pytest.mark.slow
def test_report_fits_every_screen(looks, request, which, width):
    seen = looks(request, which, width)
    m = seen["measure"]
    assert seen["problems"] == []
    assert seen["shot"] > 10_000  # a real picture of the page
    assert m["scrollWidth"] <= width, m["overflow"][:5]
    assert m["overflow"] == []
    assert m["nHeadline"] > 0 and m["hidden"] == []
    assert m["nText"] > 20 and m["clipped"] == []
    assert m["minFont"] >= 11.0, (m["minFont"], m["smallest"])


@pytest.mark.slow  # a check in headless Chromium (the full run has them all)
def test_small_page_shows_its_numbers(browser, small_page):
    ctx, tab, problems = open_tab(browser, small_page, 390)
    assert tab.title() == f"report {EVIL}"
    # the malicious label is text, not a script: no dialog opened and it is visible as text
    assert EVIL in tab.inner_text("h1")
    text = tab.inner_text("body")
    ctx.close()
    assert problems == []
    ev = bacc.evaluate([[42, 3], [6, 4]])
    ex = exact_interval([[42, 3], [6, 4]])
    assert f"{ev.balanced_accuracy_summary.mean:.4f}" in text
    assert f"[{ex.lower:.4f}, {ex.upper:.4f}]" in text


@pytest.mark.slow  # a check in headless Chromium (the full run has them all)
def test_demo_report_shows_the_classifiers(browser, demo_page):
    ctx, tab, problems = open_tab(browser, demo_page, 1280)
    text = tab.inner_text("body")
    ctx.close()
    assert problems == []
    assert "Hand-written digits" in text and "Wine cultivars" in text
    assert "model: paired: joint Dirichlet posterior" in text
    from bacc.readers import read_predictions

    digits = read_predictions(
        str(Path(bacc.__file__).parent / "data" / "digits_cv_predictions.csv"), true="true", pred="knn"
    )
    ev = bacc.evaluate(ConfusionMatrix.from_predictions(list(digits.y_true), list(digits.y_pred),
                                                        labels=list(digits.labels)))
    assert f"{ev.balanced_accuracy_summary.mean:.4f}" in text


@pytest.mark.slow
def test_groups_report_sorts_and_reads_without_script(browser, groups_page):
    ctx, tab, _ = open_tab(browser, groups_page, 1280)
    rows = "section table.sortable tbody tr"
    assert len(tab.query_selector_all(rows)) == 1000
    first = tab.eval_on_selector(rows, "r => r.cells[0].textContent")
    # click "balanced accuracy": ascending posterior means, then descending
    tab.click("section table.sortable thead th:nth-child(2)")
    means = tab.eval_on_selector_all(rows, "rs => rs.map(r => parseFloat(r.cells[1].dataset.v))")
    assert means == sorted(means) and len(means) == 1000
    tab.click("section table.sortable thead th:nth-child(2)")
    means = tab.eval_on_selector_all(rows, "rs => rs.map(r => parseFloat(r.cells[1].dataset.v))")
    assert means == sorted(means, reverse=True)
    ctx.close()
    # without the script the page holds the same table, in the order given
    ctx, tab, problems = open_tab(browser, groups_page, 390, java_script_enabled=False)
    assert len(tab.query_selector_all(rows)) == 1000
    assert tab.eval_on_selector(rows, "r => r.cells[0].textContent") == first
    assert "lowest exact lower bounds" in tab.inner_text("body")
    ctx.close()
    assert problems == []


def test_groups_report_details_the_lowest_exact_bounds(groups_page):
    import numpy as np

    html = groups_page.read_text(encoding="utf-8")
    assert len(html) < 3_000_000
    # the forest plot and the details show the entries with the lowest exact lower bounds
    lows = [float(v) for v in re.findall(r'data-label="95% exact interval \(union\)" data-v="([^"]+)"', html)]
    assert len(lows) == 1000
    details = re.findall(r'<details id="s0e\d+"[^>]*>\s*<summary>([^<]+)</summary>', html)
    assert len(details) == 40
    names = re.findall(r'<tr><th scope="row">(det\d{4})</th>', html)
    worst = {names[i] for i in np.argsort(lows, kind="stable")[:40]}
    assert set(details) == worst


# ----------------------------------------------------------------------------------------------
# every table, grid and figure measured
@pytest.fixture(scope="module")
def population_page(tmp_path_factory) -> Path:
    """Five subjects under the mixed-effects model: the population block and its figure."""
    from bacc.cli import main

    path = tmp_path_factory.mktemp("population") / "population.html"
    matrices = ["s1=40,5;7,48", "s2=44,7;8,41", "s3=18,2;15,65", "s4=30,10;12,28", "s5=25,5;6,30"]
    assert main(["report", *(x for m in matrices for x in ("--matrix", m)), "--population",
                 "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def monitor_page(tmp_path_factory) -> Path:
    """Four cameras over 30 days, one of them worse from day 16: the monitoring report."""
    import csv

    import numpy as np

    from bacc.cli import main

    folder = tmp_path_factory.mktemp("monitor")
    rng = np.random.default_rng(0)
    with open(folder / "log.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["ts", "detector", "label", "predicted"])
        for day in range(30):
            for cam in range(4):
                acc = 0.8 if cam == 1 and day >= 15 else 0.93
                for i in range(60):
                    y = int(rng.random() < 0.3)
                    w.writerow([f"2026-01-{day + 1:02d}T{i % 24:02d}:00:00", f"cam{cam:02d}", y,
                                y if rng.random() < acc else 1 - y])
    path = folder / "monitor.html"
    assert main(["monitor", str(folder / "log.csv"), "--true", "label", "--pred", "predicted",
                 "--time", "ts", "--by", "detector", "-o", str(path)]) == 0
    return path


def settled_layout(tab) -> dict:
    """LAYOUT of an open page once its script has seen the new sizes (two animation frames)."""
    tab.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return tab.evaluate(LAYOUT)


def measure_layout(browser, path: Path, width: int) -> dict:
    """LAYOUT of a page at a width, after every block of details is opened (``settled_layout``)."""
    ctx, tab, problems = open_tab(browser, path, width)
    m = settled_layout(tab)
    ctx.close()
    assert problems == []
    return m


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["demo_page", "metrics_page", "population_page", "long_page",
                                   "small_page", "monitor_page"])
@pytest.mark.slow
def test_no_cell_is_clipped_no_grid_cut_no_figure_text_struck(looks, request, which, width):
    seen = looks(request, which, width)
    m = seen["layout"]
    assert seen["problems"] == []
    assert m["nTables"] >= 2 and m["nCells"] > 30 and m["nTexts"] > 10
    assert m["scrollWidth"] <= width  # no page-level sideways scroll
    assert m["clippedCells"] == []
    assert m["cutTables"] == []
    assert m["struck"] == []
    if width >= 1280 and which != "long_page":
        # a desktop shows every table whole: nothing scrolls sideways
        assert m["scrolling"] == []


@pytest.mark.slow  # a check in headless Chromium (the full run has them all)
def test_ranking_grid_of_the_demo_fits_a_phone(browser, demo_page):
    """The 4 x 4 grid of P(row > column) shows its fourth column at 390 px."""
    ctx, tab, _ = open_tab(browser, demo_page, 390)
    cut = tab.evaluate("""() => Array.from(document.querySelectorAll('table.grid')).map(t => {
        const box = t.closest('.scroll').getBoundingClientRect();
        const last = t.tHead.rows[0].cells[t.tHead.rows[0].cells.length - 1].getBoundingClientRect();
        return [t.tHead.rows[0].cells.length, last.right <= box.right + 0.5];
    })""")
    ctx.close()
    assert cut == [[5, True]]  # the title column and #1..#4


@pytest.mark.slow  # a check in headless Chromium (the full run has them all)
def test_a_wide_grid_scrolls_with_a_visible_hint(browser, long_page):
    """Five classifiers with 70-character names: at 390 px the grid scrolls inside its box,
    and the page says so above it."""
    ctx, tab, _ = open_tab(browser, long_page, 390)
    tab.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    state = tab.evaluate("""() => { const box = document.querySelector('table.grid').closest('.scroll');
        const h = box.previousElementSibling;
        return [box.scrollWidth > box.clientWidth, h.className, h.hidden, h.textContent]; }""")
    ctx.close()
    assert state[:3] == [True, "scroll-hint", False]
    assert "scroll the table sideways" in state[3]


@pytest.mark.slow  # a check in headless Chromium (the full run has them all)
def test_the_layout_check_sees_what_it_must_refuse(browser, tmp_path):
    """LAYOUT is not vacuous: a line through a text, a clipped cell and a table scrolling without
    a hint are found; a line under a text, and a text beside a line, are not."""
    page = tmp_path / "bad.html"
    page.write_text("""<!DOCTYPE html><html><body style="margin:0">
<figure><svg viewBox="0 0 200 100" width="400" height="200">
 <text x="10" y="30" style="font: 12px sans-serif">struck</text>
 <path d="M 0 26 L 120 26" style="fill: none; stroke: #000; stroke-width: 1"/>
 <text x="10" y="70" style="font: 12px sans-serif">under</text>
 <path d="M 0 74 L 120 74" style="fill: none; stroke: #000; stroke-width: 1"/>
 <text x="150" y="70" style="font: 12px sans-serif" transform="rotate(-90 150 70)">beside</text>
 <path d="M 160 0 L 160 100" style="fill: none; stroke: #000; stroke-width: 1"/>
 <text x="10" y="95" style="font: 12px sans-serif">filled</text>
 <rect x="0" y="80" width="60" height="20" style="fill: #ccc"/>
</svg></figure>
<table><tbody><tr><td style="max-width: 40px; overflow: hidden">a long clipped cell</td></tr></tbody></table>
<div class="scroll" style="overflow-x: auto; width: 100px"><table><tbody><tr>
 <td style="white-space: nowrap">a table far wider than its box</td></tr></tbody></table></div>
</body></html>""", encoding="utf-8")
    m = measure_layout(browser, page, 800)
    assert [s.split(" in ")[0] for s in m["struck"]] == ["struck"]
    assert [c.split(" (")[0] for c in m["clippedCells"]] == ["a long clipped cell"]
    assert len(m["cutTables"]) == 1 and "without a hint" in m["cutTables"][0]


def test_the_chance_level_off_the_axis_is_named_in_the_legend(population_page):
    """Chance 0.5 lies left of the population figure's range: the figure names it in its
    legend instead of writing it where the curve and the axis run."""
    html = population_page.read_text(encoding="utf-8")
    fig = html[html.index('aria-label="population balanced accuracy'):]
    fig = fig[: fig.index("</svg>")]
    assert "chance 0.5 (left of this range)" in fig
    assert "&lt;- chance" not in html and "<- chance" not in html


def test_figures_are_drawn_only_with_content(tmp_path):
    """No folds: one entry gets no "three ways" figure (its two posteriors are in its details);
    two entries get accuracy beside balanced accuracy, without an empty legend entry."""
    one = render_report(Section("one", [entry([[42, 3], [6, 4]])]), generated="x")
    assert "comparison of accuracy measures" not in one and "Three ways" not in one
    assert one.count("<svg") == 3  # posterior, per class, confusion matrix
    two = render_report(Section("two", [entry([[42, 3], [6, 4]], name="a"),
                                        entry([[40, 5], [3, 7]], name="b")]), generated="x")
    assert "comparison of accuracy measures" in two
    assert "no folds given" in two and "mean of folds +- 2 SEM" not in two
    assert "A third way, the mean of fold accuracies" in two
    folds = render_report(Section("f", [entry([[62, 8], [6, 64]], folds=C1_FOLDS)]), generated="x")
    assert "Three ways to report the same classifier" in folds
    assert "mean of folds +- 2 SEM" in folds


def test_how_to_read_explains_every_verdict_the_page_uses(demo_page, population_page,
                                                          metrics_page, long_page):
    for path in (demo_page, population_page, metrics_page, long_page):
        html = path.read_text(encoding="utf-8")
        explain = html[html.index('<dl class="explain">'):html.index("</dl>")]
        explained = re.sub(r"<[^>]+>", "", explain)
        # the verdict column of the tables, and the coloured verdicts of the details
        verdicts = set(re.findall(r'<td class="[^"]*\b(?:good|warn|bad) wrap"[^>]*>([^<]+)</td>',
                                  html))
        flags = {re.split(r"[,:]", t)[0] if "leaves" not in t else t.split(":")[0]
                 for t in re.findall(r'<span class="(?:good|warn|bad)">([^<]+)', html)}
        assert verdicts, path
        for word in verdicts:
            assert f"<b>{word}</b>" in explain, (path.name, word)
        for word in flags:
            assert word in explained, (path.name, word)
    demo = demo_page.read_text(encoding="utf-8")
    # the demo's C2: probably above chance while its exact interval includes chance, and why
    assert "probably above chance, but the exact 95% interval still includes chance" in demo
    assert "a classifier can be probably above chance while its exact" in demo
    for term in ("Ranking", "Comparisons", "Sample value"):
        assert f"<dt>{term}</dt>" in demo
    assert "<dt>Population (mixed effects)</dt>" in population_page.read_text(encoding="utf-8")
    assert "<dt>Other metrics</dt>" in metrics_page.read_text(encoding="utf-8")
