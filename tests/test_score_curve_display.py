"""How scores and thresholds are shown: terminal text, HTML, figures and the report's section.

Every number looked for in the text is computed here from the examples themselves (brute force
over the thresholds and the pairs) or read from the result, then formatted as the display
formats it; the figures are built with the Agg backend.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import bacc
from bacc.display import numbers as fmt
from bacc.display import scores_text as tx

WIDTH = 100


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], [70, 50])
    s = np.round(rng.normal(1.1 * y, 1.0), 2)  # rounded: ties, as real scores have
    return y, s


@pytest.fixture(scope="module")
def curve(data):
    y, s = data
    return bacc.scores(y, s, name="model")


def brute_auc(y, s) -> float:
    pos, neg = s[y == 1], s[y == 0]
    d = pos[:, None] - neg[None, :]
    return float(((d > 0) + 0.5 * (d == 0)).mean())


def brute_ba(y, s, t) -> float:
    pred = s >= t
    return 0.5 * (pred[y == 1].mean() + (~pred[y == 0]).mean())


def flat(text: str) -> str:
    """Prose as one line (the text wraps it)."""
    return " ".join(text.split())


def fits(text: str) -> bool:
    return max(map(len, text.splitlines())) <= WIDTH


# ------------------------------------------------------------------------------------ text
def test_pick_rows_keeps_the_best_and_a_dozen_at_most():
    assert tx.pick_rows(7, 3) == list(range(7))
    for n, best in [(13, 0), (100, 50), (100, 99), (10**6, 12345)]:
        rows = tx.pick_rows(n, best)
        assert best in rows and rows == sorted(set(rows))
        assert 0 <= rows[0] and rows[-1] < n and len(rows) <= 12
    # dense near the best, reaching far from it
    rows = tx.pick_rows(10**6, 500_000)
    gaps = np.diff(rows)
    assert gaps.min() < 50_000 and max(rows) - min(rows) > 600_000


def test_score_curve_text_shows_the_sample_auc_and_best_threshold(curve, data):
    y, s = data
    text = str(curve)
    assert text == tx.score_curve_text(curve) and fits(text)
    assert f"sample AUC {brute_auc(y, s):.4f}" in text
    ts = np.unique(s)
    bas = np.array([brute_ba(y, s, t) for t in ts])
    best_t = ts[np.flatnonzero(bas == bas.max()).max()]  # the highest threshold among equals
    row = next(line for line in text.splitlines() if line.startswith(tx.threshold(best_t) + " *"))
    assert row.split()[-1] == f"{bas.max():.4f}"
    assert "50 positive (1) and 70 negative (0)" in text


def test_threshold_curve_text_has_the_best_row_with_its_bands(curve, data):
    y, s = data
    tc = curve.curve()
    text = str(tc)
    assert text == tx.threshold_curve_text(tc) and fits(text)
    b = tc.best
    row = next(line for line in text.splitlines() if line.startswith(tx.threshold(tc.thresholds[b])
                                                                         + " *"))
    # the posterior mean at the best threshold: the mean of the two Beta(k + 1, n - k + 1) means
    t = tc.thresholds[b]
    tp, fp = int((s[y == 1] >= t).sum()), int((s[y == 0] >= t).sum())
    mean = 0.5 * ((tp + 1) / 52 + (70 - fp + 1) / 72)
    assert f"{mean:.4f}" in row and f"{brute_ba(y, s, t):.4f}" in row
    assert fmt.interval(tc.lower[b], tc.upper[b]) in row
    assert fmt.interval(tc.band_lower[b], tc.band_upper[b], 3) in row
    rows = [line for line in text.splitlines() if line[:1].isdigit() or line[:1] == "-"]
    assert 5 <= len(rows) <= 12
    assert "95% simultaneous" in text and "Campbell 1994" in flat(text)


def test_chosen_threshold_text_shows_in_sample_honest_and_optimism(curve, data):
    y, s = data
    ct = curve.best_threshold(repeats=3)
    text = str(ct)
    assert text == tx.chosen_threshold_text(ct) and fits(text)
    assert f"Best threshold {tx.threshold(ct.threshold)}" in text
    in_sample = brute_ba(y, s, ct.threshold)
    assert ct.in_sample_balanced_accuracy == pytest.approx(in_sample, abs=1e-12)
    lines = text.splitlines()
    assert f"{in_sample:.4f}" in next(x for x in lines if x.startswith("in sample"))
    honest = next(x for x in lines if x.startswith("honest (cross-fitted)"))
    assert f"{ct.honest_balanced_accuracy:.4f} +- {ct.honest_sd:.4f}" in honest
    opt = in_sample - ct.honest_balanced_accuracy
    assert f"optimism                {opt:+.4f}".split() == next(
        x for x in lines if x.startswith("optimism ")).split()
    assert "5 folds, 3 repetitions" in flat(text)


def test_chosen_threshold_text_with_a_split(curve):
    ct = curve.best_threshold(honest="split")
    text = str(ct)
    assert "honest (held out)" in text
    assert f"threshold {tx.threshold(ct.split_threshold)} chosen on the other part" in flat(text)


def test_guaranteed_threshold_text_states_the_promise(curve, data):
    y, s = data
    g = curve.threshold_for(recall=0.9, confidence=0.95)
    text = str(g)
    assert text == tx.guaranteed_threshold_text(g) and fits(text)
    # the largest k with P(Binom(n, 1 - r) >= k) >= confidence, and the k-th smallest positive
    pos = np.sort(s[y == 1])
    n = pos.size
    k = max(k for k in range(1, n + 1) if stats.binom.sf(k - 1, n, 0.1) >= 0.95)
    assert g.order == k and g.threshold == pos[k - 1]
    assert (f"score >= {tx.threshold(pos[k - 1])} gives recall >= 0.9 with probability at least "
            "0.95") in flat(text)
    assert f"{tx._ordinal(k)} smallest of the {n} positive scores" in flat(text)
    pi = 50 / 120
    assert g.alarm_rate == pytest.approx(pi * g.recall + (1 - pi) * g.fpr)
    alarm = next(x for x in text.splitlines() if x.startswith("alarm rate"))
    assert f"at prevalence {pi:.4g}" in alarm and f"{g.alarm_rate:.4f}" in alarm
    fpr_row = next(x for x in text.splitlines() if x.startswith("false-positive rate"))
    sample_fpr = float((s[y == 0] >= g.threshold).mean())
    assert fpr_row.split()[-1] == f"{sample_fpr:.4f}" and fpr_row.split()[2] == "exact"
    assert fmt.interval(g.fpr_lower, g.fpr_upper) in fpr_row
    assert "estimated from the negatives, which did not choose the threshold" in flat(text)


def test_guaranteed_threshold_text_when_the_promise_cannot_be_kept(data):
    y, s = data
    few = bacc.scores(y[45:80], s[45:80])  # 25 negatives, 10 positives
    g = few.threshold_for(fpr=0.01, confidence=0.99)
    assert not g.achieved
    text = str(g)
    assert "no threshold guarantees false-positive rate <= 0.01" in flat(text)
    assert "no example is predicted positive (threshold inf)" in flat(text)
    assert "more examples are needed" in flat(text)


def test_roc_text_reads_the_curve_and_band(curve, data):
    y, s = data
    roc = curve.roc()
    text = str(roc)
    assert text == tx.roc_text(roc) and fits(text)
    assert f"sample AUC {brute_auc(y, s):.4f}" in text
    row = next(x for x in text.splitlines() if x.startswith("0.10 "))
    # the highest true-positive rate with a false-positive rate at most 0.1
    best = max(((s[y == 1] >= t).mean() for t in np.unique(s) if (s[y == 0] >= t).mean() <= 0.1),
               default=0.0)
    assert row.split()[1] == f"{best:.4f}"
    lo, hi = tx._band_at(np.asarray(roc.band_fpr), np.asarray(roc.band_lower),
                         np.asarray(roc.band_upper), 0.1)
    assert lo <= best <= hi and fmt.interval(lo, hi) in row


@pytest.mark.parametrize(("method", "words"), [
    ("delong", "APPROXIMATE 95% confidence interval"),
    ("delong-logit", "APPROXIMATE 95% confidence interval"),
    ("bayesian-bootstrap", "95% credible interval (a posterior)"),
    ("band", "guaranteed 95% confidence interval"),
])
def test_auc_interval_text_spells_out_its_kind(curve, data, method, words):
    y, s = data
    iv = curve.auc(method)
    text = str(iv)
    assert text == tx.auc_interval_text(iv) and fits(text)
    first = text.splitlines()[0]
    assert first.startswith(f"AUC {brute_auc(y, s):.4f} {fmt.interval(iv.lower, iv.upper)}")
    assert words in first and f"method {method}" in first
    assert tx.KIND_WORDS[iv.kind] in flat(text)
    assert bacc.roc.AUC_METHODS[method].reference in flat(text)


def test_auc_comparison_text(data):
    y, s = data
    rng = np.random.default_rng(3)
    other = s + rng.normal(0, 1.0, s.size)
    cmp = bacc.compare_auc(y, s, other)
    text = str(cmp)
    assert text == tx.auc_comparison_text(cmp) and fits(text)
    d = brute_auc(y, s) - brute_auc(y, other)
    diff = next(x for x in text.splitlines() if x.startswith("a - b"))
    assert f"{d:+.4f}" in diff and f"[{cmp.lower:+.4f}, {cmp.upper:+.4f}]" in diff
    assert f"two-sided p = {cmp.p_value:.4g}" in flat(text) and "approximate" in text


def test_the_summary_labels_every_auc_method(curve):
    aucs = [curve.auc(m) for m in bacc.roc.AUC_METHODS]
    ct = curve.best_threshold(repeats=2)
    text = tx.scores_summary_text(curve, aucs, ct)
    assert fits(text)
    for iv in aucs:
        line = next(x for x in text.splitlines() if x.strip().startswith(iv.method + " "))
        assert iv.kind in line and fmt.interval(iv.lower, iv.upper) in line
    assert f"{ct.optimism:+.4f}" in text and "honest (cross-fitted)" in text


def test_one_vs_rest_names_the_rest():
    y = np.array(["a", "b", "c"] * 10)
    rng = np.random.default_rng(0)
    p = rng.dirichlet([1, 1, 1], 30)
    ovr = bacc.scores(y, p)
    text = str(ovr["a"])
    assert "negative (the rest: b, c)" in flat(text)


# ------------------------------------------------------------------------------------ HTML
def test_html_escapes_and_shows_the_rows(data):
    from bacc.display import scores_html as h

    y, s = data
    labels = np.where(y == 1, "<b>pos</b>", "neg")
    cur = bacc.scores(labels, s)
    tc, ct = cur.curve(), cur.best_threshold(repeats=2)
    g, roc, iv = cur.threshold_for(fpr=0.1), cur.roc(), cur.auc("band")
    for html in (h.score_curve_html(cur), h.threshold_curve_html(tc), h.chosen_threshold_html(ct),
                 h.guaranteed_threshold_html(g), h.roc_html(roc), h.auc_interval_html(iv)):
        assert html.startswith("<div>") and "<b>pos</b>" not in html
    assert "&lt;b&gt;pos&lt;/b&gt;" in h.score_curve_html(cur)
    assert fmt.interval(tc.lower[tc.best], tc.upper[tc.best]) in h.threshold_curve_html(tc)
    assert "guaranteed" in h.auc_interval_html(iv)
    assert f"{ct.optimism:+.4f}" in h.chosen_threshold_html(ct)


# ---------------------------------------------------------------------------------- figures
@pytest.fixture
def agg():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    return mpl


def test_plot_scores_draws_both_panels(agg, curve):
    from bacc.display import scores_plot as sp

    fig = curve.plot()
    assert len(fig.axes) == 2
    gids = {a.get_gid() for ax in fig.axes for a in ax.get_children()}
    for gid in (sp.GID_BEST, sp.GID_CREDIBLE, sp.GID_EXACT, sp.GID_SIMULTANEOUS, sp.GID_ROC,
                sp.GID_ROC_BAND):
        assert gid in gids, gid
    roc_ax = fig.axes[1]
    band = curve.auc("band")
    assert roc_ax.get_title(loc="left").replace("\n", " ").startswith(
        f"ROC: AUC {curve.sample_auc:.3f}, guaranteed")
    assert f"{band.lower:.3f}" in roc_ax.get_title(loc="left")
    narrow = sp.plot_scores(curve, width=3.5)
    assert len(narrow.axes) == 2
    # stacked: the ROC below the threshold curve
    assert narrow.axes[1].get_position().y0 < narrow.axes[0].get_position().y0


def test_plot_threshold_curve_marks_the_best(agg, curve):
    from bacc.display.scores_plot import GID_BEST

    tc = curve.curve()
    fig = tc.plot(width=3.5)
    ax = fig.axes[0]
    best = [c for c in ax.get_children() if c.get_gid() == GID_BEST]
    assert best
    xs = [line.get_xdata() for c in best for line in getattr(c, "lines", [c])[:1]
          if hasattr(line, "get_xdata")]
    assert any(np.isclose(x, tc.best_threshold).any() for x in xs)
    assert ax.get_ylim() == (0.0, 1.0)


def test_plots_accept_an_axes(agg, curve):
    from matplotlib.figure import Figure

    from bacc.display.scores_plot import plot_roc, plot_threshold_curve

    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plot_threshold_curve(curve.curve(), ax=left) is fig
    assert plot_roc(curve.roc(), ax=right) is fig
    assert len(fig.axes) == 2 and right.get_legend() is not None


def test_plot_roc_svg(agg, curve):
    from bacc.display.plot import figure_svg

    svg = figure_svg(curve.roc().plot(auc=curve.auc("delong")), id_prefix="r")
    assert svg.startswith("<svg") and "approximate" in svg


# ----------------------------------------------------------------------------------- report
def _entry(curve, guaranteed=True):
    from bacc.display.scores_report import ScoresEntry

    return ScoresEntry(
        name="model", curve=curve, threshold_curve=curve.curve(), roc=curve.roc(),
        aucs=tuple(curve.auc(m) for m in bacc.roc.AUC_METHODS),
        chosen=curve.best_threshold(repeats=2),
        guaranteed=curve.threshold_for(recall=0.9) if guaranteed else None, source="test.csv")


@pytest.mark.parametrize("pictures", [False, True])
def test_report_has_the_scores_section(curve, pictures):
    if pictures:
        pytest.importorskip("matplotlib")
    from bacc.display.report import Section, render_report

    e = _entry(curve)
    page = render_report([Section(title="Scores and thresholds", entries=(), scores=(e,))],
                         pictures=pictures, generated="now")
    assert "<h2>Scores and thresholds</h2>" in page
    assert "<dt>Scores and thresholds</dt>" in page  # how to read it
    for iv in e.aucs:
        assert f">{iv.method}<" in page and f">{iv.kind}<" in page
        assert fmt.interval(iv.lower, iv.upper) in page
    assert f"{e.chosen.optimism:+.4f}" in page
    assert e.guaranteed.statement.replace(">=", "&gt;=") in page
    assert ("<svg" in page) is pictures
    if pictures:
        assert page.count("<figure>") == 2


def test_report_one_vs_rest_has_a_heading_per_class(curve):
    from bacc.display.report import Section, render_report
    from bacc.display.scores_report import ScoresEntry

    a, b = _entry(curve, guaranteed=False), _entry(curve, guaranteed=False)
    b = ScoresEntry(**{**vars(b), "name": "other"})
    page = render_report([Section(title="Scores and thresholds", entries=(), scores=(a, b))],
                         pictures=False, generated="now")
    assert "<h3>model</h3>" in page and "<h3>other</h3>" in page
    assert "Guaranteed threshold</h4>" not in page


def test_infinite_thresholds_are_written_as_words():
    assert tx.threshold(math.inf) == "inf" and tx.threshold(-math.inf) == "-inf"
    assert tx.threshold(0.5) == "0.5" and tx.threshold(1234567.0) == "1.23457e+06"
