"""The HTML report (bacc.display.report): escaping, self-containment, and a real headless browser.

The browser test drives Debian's ``chromium`` (``/usr/bin/chromium``) through Playwright; it is
skipped, with the reason, when either is missing. CI installs them with::

    apt-get install -y chromium        # Debian package: /usr/bin/chromium
    pip install playwright             # the Python driver; no browser download is needed
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib").use("Agg")

import bacc  # noqa: E402
from bacc.confusion import ConfusionMatrix  # noqa: E402
from bacc.display.report import ReportEntry, Section, render_report, write_report  # noqa: E402
from bacc.intervals import (  # noqa: E402
    class_intervals,
    exact_interval,
    fold_sem_interval,  # noqa: E402
)

CHROMIUM = Path("/usr/bin/chromium")
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
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "neg &amp; co" in page
    # labels inside pictures are SVG text escaped by matplotlib: no markup can get through
    assert "alert(1)</" not in page


def test_report_is_self_contained(page):
    urls = re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*", page)
    assert set(urls) <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, set(urls)
    for tag in ("<link", "<img", "<iframe", "<script", "@import", "src="):
        assert tag not in page.lower()
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
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM),
                              args=["--headless", "--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_report_renders_in_headless_chromium(browser, page, tmp_path, width):
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    tab = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    tab.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    tab.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    tab.on("request", lambda r: problems.append(f"request: {r.url}") if not r.url.startswith("file:") else None)
    tab.goto(path.as_uri())
    tab.wait_for_load_state("load")
    assert problems == []
    assert tab.title() == f"report {EVIL}"
    # the malicious label is text, not a script: no dialog opened and it is visible as text
    assert EVIL in tab.inner_text("h1")
    tab.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    text = tab.inner_text("body")
    ev = bacc.evaluate([[42, 3], [6, 4]])
    assert f"{ev.balanced_accuracy_summary.mean:.4f}" in text
    assert "P(> chance)" in text and "95% exact" in text
    # every picture is drawn with a real size, and nothing is wider than the screen
    sizes = tab.evaluate("[...document.querySelectorAll('svg')].map(s => s.getBoundingClientRect().width)")
    assert sizes and min(sizes) > 100
    assert tab.evaluate("document.documentElement.scrollWidth") <= width
    tab.close()


def test_demo_report_renders_in_headless_chromium(browser, tmp_path):
    from bacc.cli import main

    assert main(["demo", "-o", str(tmp_path / "demo.html")]) == 0
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto((tmp_path / "demo.html").as_uri())
    assert errors == []
    text = tab.inner_text("body")
    assert "Hand-written digits" in text and "Wine cultivars" in text
    from bacc.readers import read_predictions

    digits = read_predictions(
        str(Path(bacc.__file__).parent / "data" / "digits_cv_predictions.csv"), true="true", pred="knn"
    )
    ev = bacc.evaluate(ConfusionMatrix.from_predictions(list(digits.y_true), list(digits.y_pred),
                                                        labels=list(digits.labels)))
    assert f"{ev.balanced_accuracy_summary.mean:.4f}" in text
    tab.close()
