"""The HTML report (bacc.display.report): escaping, self-containment, and a real headless browser.

The browser tests drive Debian's ``chromium`` (``/usr/bin/chromium``) through Playwright; they
are skipped, with the reason, when either is missing. At 390, 768 and 1280 px they measure, on
a small page, on the demo report and on a report of 1 000 groups: that nothing runs off the
screen sideways (outside a scroll box), that every headline number is visible without
scrolling sideways, that no text of a figure runs off its picture, and the smallest rendered
font size of figure text (at least 11 px). CI installs them with::

    apt-get install -y chromium        # Debian package: /usr/bin/chromium
    pip install playwright             # the Python driver; no browser download is needed
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib").use("Agg")

from support.browser import MEASURE, chromium, open_tab  # noqa: E402
from support.synthetic import detector_csv, groups_csv, long_names_csv  # noqa: E402

import bacc  # noqa: E402
from bacc.confusion import ConfusionMatrix  # noqa: E402
from bacc.display.report import ReportEntry, Section, render_report, write_report  # noqa: E402
from bacc.intervals import (  # noqa: E402
    class_intervals,
    exact_interval,
    fold_sem_interval,  # noqa: E402
)

EVIL = "<script>alert(1)</script>"
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
    # section 1: forest + measures + 3 per entry; section 2 (one entry): measures + 3
    assert page.count("<svg") == (2 + 2 * 3) + (1 + 3)
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
@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b



WIDTHS = (390, 768, 1280)

@pytest.fixture(scope="module")
def demo_page(tmp_path_factory) -> Path:
    from bacc.cli import main

    path = tmp_path_factory.mktemp("demo") / "demo.html"
    assert main(["demo", "-o", str(path)]) == 0
    return path


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


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["small_page", "demo_page", "groups_page", "long_page",
                                   "metrics_page"])
def test_report_fits_every_screen(browser, request, which, width, tmp_path):
    path = request.getfixturevalue(which)
    ctx, tab, problems = open_tab(browser, path, width)
    m = tab.evaluate(MEASURE)
    shot = tmp_path / f"{which}_{width}.png"
    tab.screenshot(path=str(shot))
    ctx.close()
    assert problems == []
    assert shot.stat().st_size > 10_000  # a real picture of the page
    assert m["scrollWidth"] <= width, m["overflow"][:5]
    assert m["overflow"] == []
    assert m["nHeadline"] > 0 and m["hidden"] == []
    assert m["nText"] > 20 and m["clipped"] == []
    assert m["minFont"] >= 11.0, (m["minFont"], m["smallest"])


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
    lows = [float(v) for v in re.findall(r'data-label="95% exact \(union\)" data-v="([^"]+)"', html)]
    assert len(lows) == 1000
    details = re.findall(r'<details id="s0e\d+"[^>]*>\s*<summary>([^<]+)</summary>', html)
    assert len(details) == 40
    names = re.findall(r'<tr><th scope="row">(det\d{4})</th>', html)
    worst = {names[i] for i in np.argsort(lows, kind="stable")[:40]}
    assert set(details) == worst
