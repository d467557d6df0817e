"""Claims of ``bacc.compare_paired`` (two classifiers on the same test set).

Model: per class the four joint outcomes (both right, only A right, only B right, both wrong)
are multinomial with a Dirichlet posterior; ``delta = sum_i w_i (p10_i - p01_i)``.

References, independent of the lattice engine in ``bacc._paired``:

* one class: ``P(p10 - p01 <= x)`` by mpmath, conditioning on ``p01 = v`` (then
  ``p10 = (1 - v) T`` with ``T ~ Beta(a10, a11 + a00)`` independent of ``v``), a different
  factorisation of the Dirichlet from the one bacc uses (``S = p10 + p01``, ``U = p10 / S``);
* two classes: ``P(w1 D1 + w2 D2 <= x) = int f_D1(y) F_D2((x - w1 y) / w2) dy`` by adaptive
  scipy quadrature of the one-class density and CDF (themselves checked by the first
  reference);
* several classes: a large seeded Monte Carlo sample of the Dirichlet model.
"""

from __future__ import annotations

import json

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate

import bacc
from bacc import PairedDifference
from bacc.comparison import compare, compare_paired, paired_counts
from bacc.significance import mcnemar_exact

# ---------------------------------------------------------------------------------------------
# helpers


def predictions(counts):
    """y_true, y_pred_a, y_pred_b with the given per-class cells (11, 10, 01, 00)."""
    counts = np.asarray(counts)
    l = len(counts)
    yt, ya, yb = [], [], []
    for i, (n11, n10, n01, n00) in enumerate(counts):
        wrong = (i + 1) % l
        for n, pa, pb in ((n11, i, i), (n10, i, wrong), (n01, wrong, i), (n00, wrong, wrong)):
            yt += [i] * int(n)
            ya += [pa] * int(n)
            yb += [pb] * int(n)
    return yt, ya, yb


def ref_one_class_cdf(alpha, x, dps=20):
    """P(p10 - p01 <= x) for (p11, p10, p01, p00) ~ Dirichlet(alpha), by mpmath."""
    with mp.workdps(dps):
        a11, a10, a01, a00 = (mp.mpf(float(v)) for v in alpha)
        x = mp.mpf(float(x))
        aR = a11 + a00
        av, bv = a01, a10 + aR  # p01 ~ Beta(a01, a10 + a11 + a00)
        lbv = mp.log(mp.beta(av, bv))

        def fv(v):
            return mp.exp((av - 1) * mp.log(v) + (bv - 1) * mp.log(1 - v) - lbv)

        def integrand(v):
            t = (x + v) / (1 - v)  # p10 <= x + v  <=>  T <= t
            if t <= 0:
                return mp.mpf(0)
            if t >= 1:
                return fv(v)
            return fv(v) * mp.betainc(a10, aR, 0, t, regularized=True)

        m = av / (av + bv)
        sd = mp.sqrt(av * bv / ((av + bv) ** 2 * (av + bv + 1)))
        pts = {mp.mpf(0), mp.mpf(1)}
        pts |= {p for p in (-x, (1 - x) / 2) if 0 < p < 1}  # kinks of the integrand
        pts |= {m + k * sd for k in (-8, -4, -2, -1, 0, 1, 2, 4, 8, 16) if 0 < m + k * sd < 1}
        return float(mp.quad(integrand, sorted(pts)))


def nested_two_class_cdf(alpha, w, x, order=30):
    """int f_D1(y) F_D2((x - w1 y) / w2) dy by composite Gauss-Legendre on panels split at the
    integrand's non-smooth points (0 for D1; y = x / w1 and y = (x -+ w2) / w1 for D2) and
    refined geometrically towards them (D1's density may be log-singular at 0)."""
    d1 = PairedDifference([alpha[0]], [1.0])
    d2 = PairedDifference([alpha[1]], [1.0])
    m, s = d1.mean(), d1.std()
    lo, hi = max(-1.0, m - 40 * s), min(1.0, m + 40 * s)
    kinks = sorted(p for p in {0.0, x / w[0], (x - w[1]) / w[0], (x + w[1]) / w[0]} if lo < p < hi)
    grid = {lo, hi, *kinks} | {p for p in m + s * np.arange(-40, 41, 1.0) if lo < p < hi}
    for k in kinks:  # geometric refinement towards each kink, from both sides
        grid |= {p for j in range(1, 25) for p in (k - s * 0.5**j, k + s * 0.5**j) if lo < p < hi}
    pts = np.array(sorted(grid))
    g, gw = np.polynomial.legendre.leggauss(order)
    a, b = pts[:-1, None], pts[1:, None]
    y = ((a + b) / 2 + (b - a) / 2 * g[None, :]).ravel()
    wts = ((b - a) / 2 * gw[None, :]).ravel()
    return float(np.sum(wts * d1.pdf(y) * d2.cdf((x - w[0] * y) / w[1])))


# ---------------------------------------------------------------------------------------------
# accuracy

ONE_CLASS = {
    "typical": (30.5, 5.5, 2.5, 4.5),
    "no_discordant_pairs": (40.5, 0.5, 0.5, 3.5),  # log-singular density at 0
    "a_far_better": (2.5, 10.5, 0.5, 0.5),
    "flat": (1.0, 1.0, 1.0, 1.0),
}


@pytest.mark.parametrize("name", list(ONE_CLASS))
def test_single_class_cdf_matches_mpmath_double_integral(name):
    alpha = ONE_CLASS[name]
    d = PairedDifference([alpha], [1.0])
    m, s = d.mean(), d.std()
    for x in (0.0, m - 2 * s, m + 0.5 * s, m + 2.5 * s):
        if -1 < x < 1:
            ref = ref_one_class_cdf(alpha, x)
            assert abs(d.cdf(x) - ref) < 1e-10, x
            assert abs(d.sf(x) - (1 - ref)) < 1e-10, x


TWO_CLASSES = {
    "typical": ([(30.5, 5.5, 2.5, 4.5), (20.5, 3.5, 6.5, 8.5)], [0.5, 0.5]),
    "one_class_without_discordant_pairs": ([(40.5, 0.5, 0.5, 3.5), (20.5, 3.5, 6.5, 8.5)], [0.5, 0.5]),
    "unequal_weights": ([(30.5, 5.5, 2.5, 4.5), (20.5, 3.5, 6.5, 8.5)], [0.7, 0.3]),
}


@pytest.mark.parametrize("name", list(TWO_CLASSES))
def test_two_class_cdf_and_quantiles_match_nested_quadrature(name):
    """CDF to 1e-7 and quantiles to min(1e-7, 0.1% of the sd) (we see ~1e-9)."""
    alpha, w = TWO_CLASSES[name]
    d = PairedDifference(alpha, w)
    m, s = d.mean(), d.std()
    for x in (0.0, m - 1.5 * s, m + 1.0 * s):
        assert abs(d.cdf(x) - nested_two_class_cdf(alpha, w, x)) < 1e-7, x
    for q in (0.025, 0.975):
        xq = d.ppf(q)
        err = abs(nested_two_class_cdf(alpha, w, xq) - q) / d.pdf(xq)
        assert err < min(1e-7, 1e-3 * s), (q, err)


def test_several_classes_match_seeded_monte_carlo_of_the_dirichlet_model():
    rng = np.random.default_rng(20240611)
    counts = np.array([rng.multinomial(n, p) for n, p in zip(
        (120, 80, 300, 45, 60), rng.dirichlet([20, 3, 2, 4], size=5), strict=True)])
    alpha = counts + 0.5
    w = np.full(5, 0.2)
    d = PairedDifference(alpha, w)
    n = 1_000_000
    g = np.random.default_rng(7).standard_gamma(alpha, size=(n, 5, 4))
    draws = ((g[..., 1] - g[..., 2]) / g.sum(axis=-1)) @ w
    assert abs(draws.mean() - d.mean()) < 5 * draws.std() / np.sqrt(n)
    assert abs(draws.var() / d.var() - 1) < 5 * np.sqrt(2 / n)
    for x in (0.0, *d.ppf([0.025, 0.25, 0.5, 0.75, 0.975])):
        p = np.mean(draws <= x)
        se = np.sqrt(max(p * (1 - p), 1e-6) / n)
        assert abs(d.cdf(x) - p) < 5 * se, x


def test_identical_predictions_give_a_symmetric_posterior():
    """No discordant example anywhere: delta is symmetric about 0, P(A > B) = 1/2 exactly."""
    yt, ya, _ = predictions([[40, 0, 0, 5], [30, 0, 0, 10], [25, 0, 0, 3]])
    c = compare_paired(yt, ya, ya)
    assert abs(c.p_better - 0.5) < 1e-7
    assert c.mean == 0.0
    assert abs(c.lower + c.upper) < 1e-3 * c.difference.std()
    assert c.mcnemar.p_value == 1.0 and c.mcnemar.discordant == 0


# ---------------------------------------------------------------------------------------------
# paired versus independent


def test_paired_posterior_is_much_narrower_for_strongly_correlated_classifiers():
    """A and B agree on 97% of the examples: the paired sd of delta is < 40% of the
    independent one (which wrongly treats the two posteriors as independent), and the paired
    analysis is confident that A is better (P = 0.998) where the independent one is not
    (P = 0.77)."""
    counts = [[220, 8, 2, 70], [180, 7, 1, 112]]
    yt, ya, yb = predictions(counts)
    paired = compare_paired(yt, ya, yb)
    indep = compare(
        bacc.ConfusionMatrix.from_predictions(yt, ya), bacc.ConfusionMatrix.from_predictions(yt, yb)
    )
    assert paired.mean == pytest.approx(indep.mean, abs=1e-15)  # same marginal posteriors
    ratio = paired.difference.std() / indep.difference.std()
    assert ratio < 0.4
    assert (paired.upper - paired.lower) < 0.4 * (indep.upper - indep.lower)
    assert paired.p_better > 0.99 and indep.p_better < 0.8


def test_paired_and_independent_agree_for_independent_classifiers():
    """Counts in exact product form (A's and B's correctness independent within each class):
    the Dirichlet posterior's correlation between theta_A and theta_B is then only the prior's,
    O(1/n) (here ~0.002), and the marginals are identical (prior 1/2 per cell). So the two
    posteriors of delta agree to within 1% in sd and 0.01 in P(A > B)."""
    # class 1: A right 80%, B right 75% of 400; class 2: A 70%, B 72% of 500 (x = product)
    counts = [[240, 80, 60, 20], [252, 98, 108, 42]]
    yt, ya, yb = predictions(counts)
    paired = compare_paired(yt, ya, yb)
    indep = compare(
        bacc.ConfusionMatrix.from_predictions(yt, ya), bacc.ConfusionMatrix.from_predictions(yt, yb)
    )
    assert paired.mean == pytest.approx(indep.mean, abs=1e-15)
    assert paired.difference.std() == pytest.approx(indep.difference.std(), rel=0.01)
    assert abs(paired.p_better - indep.p_better) < 0.01
    sd = indep.difference.std()
    assert abs(paired.lower - indep.lower) < 0.05 * sd
    assert abs(paired.upper - indep.upper) < 0.05 * sd


def test_marginal_class_posteriors_equal_the_flat_prior_posteriors():
    counts = [[30, 4, 7, 9], [12, 6, 3, 2]]
    yt, ya, yb = predictions(counts)
    c = compare_paired(yt, ya, yb)
    ea = bacc.evaluate(bacc.ConfusionMatrix.from_predictions(yt, ya))
    eb = bacc.evaluate(bacc.ConfusionMatrix.from_predictions(yt, yb))
    assert c.mean_balanced_accuracy[0] == pytest.approx(ea.balanced_accuracy.mean(), abs=1e-15)
    assert c.mean_balanced_accuracy[1] == pytest.approx(eb.balanced_accuracy.mean(), abs=1e-15)
    assert c.sample_balanced_accuracy == pytest.approx(
        (ea.sample_balanced_accuracy, eb.sample_balanced_accuracy), abs=1e-15
    )


# ---------------------------------------------------------------------------------------------
# McNemar and counting


def test_mcnemar_is_the_exact_binomial_test_of_the_discordant_pairs():
    from statsmodels.stats.contingency_tables import mcnemar

    counts = [[30, 9, 2, 5], [20, 4, 1, 6]]
    yt, ya, yb = predictions(counts)
    c = compare_paired(yt, ya, yb)
    assert (c.mcnemar.only_a, c.mcnemar.only_b) == (13, 3)
    table = [[50, 13], [3, 11]]
    assert c.mcnemar.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    for a, b in ((0, 0), (5, 5), (0, 7), (30, 12)):
        ref = 1.0 if a + b == 0 else mcnemar([[1, a], [b, 1]], exact=True).pvalue
        assert mcnemar_exact(a, b).p_value == pytest.approx(ref, rel=1e-12)


def test_joint_outcomes_are_counted_per_true_class():
    yt = ["x", "x", "x", "x", "y", "y", "y"]
    ya = ["x", "x", "y", "y", "y", "x", "y"]
    yb = ["x", "y", "x", "y", "x", "y", "y"]
    counts, cm_a, cm_b = paired_counts(yt, ya, yb)
    assert counts.tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    assert cm_a.labels == ("x", "y") and cm_a.correct.tolist() == [2, 2]


# ---------------------------------------------------------------------------------------------
# the distribution object


def test_difference_distribution_has_the_scipy_surface():
    d = PairedDifference([(30.5, 5.5, 2.5, 4.5), (20.5, 3.5, 6.5, 8.5), (10.5, 1.5, 1.5, 5.5)], [1 / 3] * 3)
    xs = np.linspace(d.ppf(1e-6), d.ppf(1 - 1e-6), 41)
    F = d.cdf(xs)
    assert np.all(np.diff(F) > 0)
    assert np.allclose(F + d.sf(xs), 1.0, atol=1e-12)
    assert np.allclose(d.cdf(d.ppf([0.01, 0.3, 0.5, 0.9])), [0.01, 0.3, 0.5, 0.9], atol=1e-12)
    assert np.allclose(d.sf(d.isf([0.01, 0.3, 0.9])), [0.01, 0.3, 0.9], atol=1e-12)
    # density: integral between two points is the CDF difference
    lo, hi = d.ppf(0.2), d.ppf(0.7)
    assert integrate.quad(d.pdf, lo, hi, epsabs=1e-12)[0] == pytest.approx(0.5, abs=1e-8)
    assert d.median() == pytest.approx(d.ppf(0.5))
    mode = d.mode()
    assert d.pdf(mode) >= d.pdf(mode + 1e-3 * d.std()) and d.pdf(mode) >= d.pdf(mode - 1e-3 * d.std())
    lo, hi = d.interval(0.9, kind="hdi")
    assert d.cdf(hi) - d.cdf(lo) == pytest.approx(0.9, abs=1e-9)
    assert d.pdf(lo) == pytest.approx(d.pdf(hi), rel=1e-4)
    r = d.rvs(200_000, random_state=1)
    assert abs(r.mean() - d.mean()) < 5 * d.std() / np.sqrt(r.size)
    assert d.cdf(-1.0) == 0.0 and d.cdf(1.0) == 1.0 and d.support() == (-1.0, 1.0)
    assert d.error_estimate < 1e-4
    assert np.isnan(d.cdf(np.nan))


def test_swapping_the_classifiers_mirrors_the_posterior():
    yt, ya, yb = predictions([[30, 9, 2, 5], [20, 4, 1, 6]])
    ab, ba = compare_paired(yt, ya, yb), compare_paired(yt, yb, ya)
    assert abs(ab.p_better + ba.p_better - 1.0) < 1e-9
    assert abs(ab.lower + ba.upper) < 1e-9


def test_result_prints_and_converts_to_json():
    yt, ya, yb = predictions([[30, 9, 2, 5], [20, 4, 1, 6]])
    c = compare_paired(yt, ya, yb, rope=0.01, names=("new", "old"))
    text = str(c)
    assert "paired" in text and "McNemar" in text and "P(new > old)" in text
    assert "McNemar" in c._repr_html_()
    d = json.loads(json.dumps(c.to_dict()))
    assert d["paired"] is True and d["mcnemar"]["only_a"] == 13


def test_a_class_without_true_examples_is_left_out_with_a_warning():
    yt = [0, 0, 0, 1, 1, 1]
    ya = [0, 0, 2, 1, 1, 0]
    yb = [0, 2, 0, 1, 0, 1]
    with pytest.warns(bacc.BaccWarning, match="no true examples"):
        c = compare_paired(yt, ya, yb)
    assert c.labels == (0, 1)


# ---------------------------------------------------------------------------------------------
# bad input


def test_mismatched_lengths_are_an_error():
    with pytest.raises(bacc.BaccError, match="same length"):
        compare_paired([0, 1, 1], [0, 1, 1], [0, 1])
    with pytest.raises(bacc.BaccError, match="same length"):
        compare_paired([0, 1], [0, 1, 1], [0, 1])


def test_labels_outside_the_given_labels_are_an_error():
    with pytest.raises(bacc.BaccError, match="y_pred_b contains the label 3"):
        compare_paired([0, 1, 1], [0, 1, 1], [0, 3, 1], labels=[0, 1])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rope": -0.1}, "rope"),
        ({"prior": 0.0}, "prior"),
        ({"prior": [1, 1, 1]}, "prior"),
        ({"confidence": 0}, "confidence"),
        ({"weights": [0.5, 0.6]}, "weights"),
    ],
)
def test_bad_arguments_are_errors(kwargs, match):
    yt, ya, yb = predictions([[3, 1, 1, 1], [2, 1, 1, 1]])
    with pytest.raises(bacc.BaccError, match=match):
        compare_paired(yt, ya, yb, **kwargs)
