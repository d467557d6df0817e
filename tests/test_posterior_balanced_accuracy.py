"""Posterior balanced accuracy: accuracy against independent references.

CDF within 1e-7 of the truth; quantiles (q in [0.001, 0.999]) and the median within the smaller
of 1e-7 and 0.1 % of the posterior standard deviation; the mode within 0.1 % of the standard
deviation; mean and variance exact. References: mpmath quadrature (two and three classes,
``tests/references/reference.py``), the engine itself at four times the resolution (a different lattice,
extrapolated independently) and a large seeded Monte Carlo run (many classes).
"""

import numpy as np
import pytest
from references.reference import mc_cdf, mc_sample, ref_cdf, ref_mean_var, ref_mode, ref_ppf

import bacc
from bacc import BetaSum

FLAT, JEFFREYS = (1.0, 1.0), (0.5, 0.5)


def params(correct, support, prior=FLAT):
    k, n = np.asarray(correct, float), np.asarray(support, float)
    return k + prior[0], n - k + prior[1]


# (label, a, b, w): 2 and 3 classes; flat, Jeffreys and informative priors; unequal weights;
# empty classes, all-wrong classes, perfect classes; up to 1e9 examples per class
CASES_2 = [
    ("seed000_C2", *params([42, 4], [45, 10]), [0.5, 0.5]),
    ("jeffreys_perfect_and_allwrong", *params([0, 40], [40, 40], JEFFREYS), [0.5, 0.5]),
    ("empty_class_kept_and_1e6", *params([0, 10**6], [0, 10**6]), [0.5, 0.5]),
    ("cost_weighted_c07", *params([30, 8], [40, 20]), [0.7, 0.3]),
    (
        "informative_prior",
        np.array([20.0 + 18, 5.0 + 2]),
        np.array([20.0 + 2, 5.0 + 8]),
        [0.5, 0.5],
    ),
    ("million_per_class", *params([900_000, 950_000], [10**6, 10**6]), [0.5, 0.5]),
    ("billion_and_ten", *params([999_999_000, 7], [10**9, 10]), [0.5, 0.5]),
    ("both_perfect", *params([300, 25], [300, 25]), [0.5, 0.5]),
]
CASES_3 = [
    ("three_flat", *params([20, 15, 30], [23, 20, 31]), [1 / 3] * 3),
    ("three_jeffreys_extremes", *params([0, 10, 40], [10, 10, 40], JEFFREYS), [1 / 3] * 3),
    ("three_rough", *params([0, 10, 29], [10, 10, 30]), [1 / 3] * 3),
    ("three_unequal_weights", *params([20, 15, 30], [23, 20, 31]), [0.5, 0.3, 0.2]),
    ("three_mixed_sizes", *params([900, 900_000, 4], [1000, 10**6, 8]), [1 / 3] * 3),
]


def _grid(dist, z=(-3.5, -2, -1, -0.3, 0, 0.4, 1.2, 2.5, 3.5)):
    sd = dist.std()
    lo, hi = dist.support()
    return np.clip(dist.mean() + sd * np.array(z), lo, hi)


# three-class mpmath references are nested quadratures (seconds to a minute per point)
Z3 = {"three_jeffreys_extremes": (0.3,)}


@pytest.mark.parametrize(
    ("label", "a", "b", "w"), CASES_2 + CASES_3, ids=lambda c: c if isinstance(c, str) else ""
)
def test_cdf_within_1e7_of_mpmath(label, a, b, w):
    d = BetaSum(a, b, w)
    z = Z3.get(label, (-2, -0.3, 0.4, 2.5)) if len(a) == 3 else None
    xs = _grid(d, z) if z else _grid(d)
    got = d.cdf(xs)
    ref = np.array([ref_cdf(x, a, b, w) for x in xs])
    assert np.max(np.abs(got - ref)) < 1e-7
    # the survival function is the complement, computed separately
    assert np.max(np.abs(d.sf(xs) - (1 - ref))) < 1e-7


def _check_quantiles(a, b, w, qs):
    """Each quantile within ``tol`` of the reference quantile. The reference CDF increases, so
    ``|x - ref_ppf(q)| <= tol`` holds exactly when it brackets ``q`` at ``x - tol`` and
    ``x + tol``: two reference CDFs rather than the reference quantile's Newton steps (each a
    CDF and a density): the slowest three-class case 14 s -> 7 s."""
    d = BetaSum(a, b, w)
    tol = min(1e-7, 1e-3 * d.std())
    for q in qs:
        x = d.ppf(q)
        assert ref_cdf(x - tol, a, b, w) <= q <= ref_cdf(x + tol, a, b, w), (q, x)
    return d, tol


def _ids(c):
    return c if isinstance(c, str) else ""


@pytest.mark.parametrize(("label", "a", "b", "w"), CASES_2, ids=_ids)
def test_quantiles_within_bar_of_mpmath(label, a, b, w):
    d, tol = _check_quantiles(a, b, w, (0.001, 0.025, 0.5, 0.975, 0.999))
    assert abs(d.median() - ref_ppf(0.5, a, b, w)) <= tol


@pytest.mark.parametrize(("label", "a", "b", "w"), CASES_3[:3], ids=_ids)
@pytest.mark.slow
def test_quantiles_within_bar_of_mpmath_three_classes(label, a, b, w):
    # three-class references are nested quadratures (a minute per quantile): three of them
    _check_quantiles(a, b, w, (0.001, 0.5, 0.975))


MODE_CASES = [c for c in CASES_2[:5] + CASES_3[:1] if c[0] != "empty_class_kept_and_1e6"]


@pytest.mark.parametrize(("label", "a", "b", "w"), MODE_CASES, ids=_ids)
def test_mode_is_the_argmax_of_the_density(label, a, b, w):
    d = BetaSum(a, b, w)
    assert abs(d.mode() - ref_mode(a, b, w)) <= 1e-3 * d.std()


def test_mode_of_a_flat_topped_density_is_a_point_of_maximal_density():
    # an empty class (uniform posterior) plus a huge perfect class: the density is flat (= 2)
    # over most of [0.5, 1], so any point there is an argmax; check the density value instead
    _, a, b, w = CASES_2[2]
    d = BetaSum(a, b, w)
    ref = ref_mode(a, b, w)
    assert d.pdf(d.mode()) >= d.pdf(ref) * (1 - 1e-9)
    assert d.pdf(d.mode()) == pytest.approx(2.0, rel=1e-9)


def test_mode_is_not_the_mean_of_class_modes():
    a, b = params([42, 4], [45, 10])
    d = BetaSum(a, b, [0.5, 0.5])
    mean_of_modes = 0.5 * (42 / 45 + 4 / 10)
    assert abs(d.mode() - mean_of_modes) > 0.005
    assert abs(d.mode() - ref_mode(a, b, [0.5, 0.5])) <= 1e-3 * d.std()


@pytest.mark.parametrize(
    ("label", "a", "b", "w"), CASES_2 + CASES_3, ids=lambda c: c if isinstance(c, str) else ""
)
def test_mean_and_variance_are_exact(label, a, b, w):
    d = BetaSum(a, b, w)
    m, v = ref_mean_var(a, b, w)
    assert d.mean() == pytest.approx(m, rel=1e-14, abs=1e-15)
    assert d.var() == pytest.approx(v, rel=1e-12)


@pytest.mark.parametrize("n_classes", [10, 100, 1000])
@pytest.mark.slow
def test_many_classes_agree_with_finer_lattice_and_monte_carlo(n_classes):
    rng = np.random.default_rng(n_classes)
    n = rng.integers(1, 300, n_classes)
    n[0] = 0  # an empty class, kept with its prior as posterior
    k = rng.binomial(n, rng.uniform(0.3, 1.0, n_classes))
    k[1] = 0  # every prediction wrong
    k[2] = n[2]  # every prediction right
    a, b = params(k, n)
    w = np.full(n_classes, 1.0 / n_classes)
    d = BetaSum(a, b, w)
    fine = BetaSum(a, b, w, resolution=32)
    xs = _grid(d)
    assert np.max(np.abs(d.cdf(xs) - fine.cdf(xs))) < 1e-8
    q = np.array([0.001, 0.025, 0.5, 0.975, 0.999])
    assert np.max(np.abs(d.ppf(q) - fine.ppf(q))) < min(1e-7, 1e-3 * d.std())
    draws = mc_sample(a, b, w, 200_000, seed=7)
    for x in xs[2:7]:
        p, se = mc_cdf(x, draws)
        assert abs(d.cdf(x) - p) < 5 * se + 1e-12


def test_posterior_far_narrower_than_a_fixed_grid():
    # a million examples per class: sd ~ 2e-4, far below the papers' 0.001 grid
    a, b = params([990_000, 999_000], [10**6, 10**6])
    d = BetaSum(a, b, [0.5, 0.5])
    assert d.std() < 2e-4
    for q in (0.025, 0.5, 0.975):
        assert abs(d.ppf(q) - ref_ppf(q, a, b, [0.5, 0.5])) <= 1e-3 * d.std()


def test_single_class_is_the_scaled_beta():
    d = (
        bacc.posterior_balanced_accuracy([[5, 0], [0, 0]], empty="drop")
        if False
        else BetaSum([6.0], [1.0], [1.0])
    )
    post = bacc.BetaPosterior(6, 1)
    xs = np.linspace(0.05, 0.95, 7)
    assert np.allclose(d.cdf(xs), post.cdf(xs), atol=1e-15)
    assert d.median() == pytest.approx(post.median(), abs=1e-12)


def test_negative_weights_describe_a_difference():
    a = np.array([43.0, 5.0, 30.0, 12.0])
    b = np.array([4.0, 7.0, 10.0, 9.0])
    w = np.array([0.5, 0.5, -0.5, -0.5])
    d = BetaSum(a, b, w)
    assert d.support() == (-1.0, 1.0)
    for x in (-0.1, 0.0, 0.1):
        assert abs(d.cdf(x) - ref_cdf(x, a, b, w)) < 1e-7
