"""bacc.posterior_metric: sample values, exact posteriors, Monte Carlo posteriors, calibration.

References are independent of bacc's code: mpmath quadrature for the one-dimensional integrals,
Gauss-Jacobi product quadrature for the moments (double integrals),
Monte Carlo of the Dirichlet model written here (its standard error stated), scikit-learn for
the sample values, and simulation-based calibration (Talts et al. 2018) for the model as a
whole.
"""

from __future__ import annotations

import numpy as np
import pytest

import bacc
from bacc import metrics
from bacc.metric_posterior import METRICS, population_metric, precision_curve
from bacc.prevalence import rate_interval, rate_value


def random_cm(rng, l, lo=1, hi=60):
    return rng.integers(lo, hi, size=(l, l)) + np.diag(rng.integers(20, 200, size=l))


# ----------------------------------------------------------------------------------------------
# sample values
@pytest.mark.parametrize("l", [2, 3, 5])
def test_population_metrics_of_the_sample_proportions_are_the_sample_metrics(l):
    rng = np.random.default_rng(l)
    for _ in range(10):
        cm = random_cm(rng, l)
        P = cm / cm.sum()
        for m in METRICS:
            got = population_metric(m, P)
            want = getattr(metrics, m)(cm)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=m)


def test_sample_values_equal_scikit_learn():
    sk = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    for l in (2, 3, 4):
        cm = random_cm(rng, l)
        y = np.repeat(np.arange(l), cm.sum(axis=1))
        p = np.concatenate([np.repeat(np.arange(l), row) for row in cm])
        kw = {"average": None, "zero_division": np.nan}
        pairs = {
            "accuracy": sk.accuracy_score(y, p),
            "balanced_accuracy": sk.balanced_accuracy_score(y, p),
            "informedness": sk.balanced_accuracy_score(y, p, adjusted=True),
            "recall": sk.recall_score(y, p, **kw),
            "precision": sk.precision_score(y, p, **kw),
            "f1": sk.f1_score(y, p, **kw),
            "macro_f1": sk.f1_score(y, p, average="macro", zero_division=np.nan),
            "cohen_kappa": sk.cohen_kappa_score(y, p),
            "matthews": sk.matthews_corrcoef(y, p),
        }
        for m, want in pairs.items():
            got = bacc.posterior_metric(cm, m, n_draws=200)
            got = [g.sample for g in got] if isinstance(got, list) else got.sample
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=m)


# ----------------------------------------------------------------------------------------------
# exact posteriors against mpmath
def mp_rate_cdf(rate, sa, sb, fa, fb, pi, t):
    """P(rate <= t) = integral_0^1 p_f(u) F_s(a + b u) du, by mpmath (50 digits)."""
    import mpmath as mp

    mp.mp.dps = 50
    from bacc.prevalence import _line

    a, b = _line(rate, t, pi)
    a, b = mp.mpf(a), mp.mpf(b)
    beta_f = mp.beta(fa, fb)

    def integrand(u):
        if u <= 0 or u >= 1:
            return mp.mpf(0)
        x = a + b * u
        x = min(mp.mpf(1), max(mp.mpf(0), x))
        return u ** (fa - 1) * (1 - u) ** (fb - 1) / beta_f * mp.betainc(sa, sb, 0, x, regularized=True)

    # break points: where the line leaves [0, 1], and the bulk of the density of f
    pts = {mp.mpf(0), mp.mpf(1)}
    for target in (0, 1):
        u = (target - a) / b
        if 0 < u < 1:
            pts.add(u)
    m = mp.mpf(fa) / (fa + fb)
    sd = mp.sqrt(m * (1 - m) / (fa + fb + 1))
    for k in (-6, -2, 0, 2, 6):
        if 0 < m + k * sd < 1:
            pts.add(m + k * sd)
    return float(mp.quad(integrand, sorted(pts)))


@pytest.mark.parametrize(
    ("rate", "sa", "sb", "fa", "fb", "pi", "ts"),
    [
        ("precision", 19, 3, 2, 20, 0.005, (0.02, 0.05, 0.2)),
        ("precision", 46, 6, 12, 4990, 0.00425, (0.1, 0.25, 0.4)),
        ("f1", 19, 3, 2, 20, 0.3, (0.7, 0.85, 0.93)),
        ("accuracy", 8, 4, 3, 9, 0.6, (0.5, 0.65, 0.8)),
        ("precision", 5, 2, 3, 4, 0.5, (0.4, 0.6, 0.8)),
    ],
)
def test_rate_at_prevalence_cdf_equals_mpmath(rate, sa, sb, fa, fb, pi, ts):
    from bacc.distributions import BetaPosterior
    from bacc.prevalence import RateAtPrevalence

    d = RateAtPrevalence(rate, BetaPosterior(sa, sb), BetaPosterior(fa, fb), pi)
    for t in ts:
        assert d.cdf(t) == pytest.approx(mp_rate_cdf(rate, sa, sb, fa, fb, pi, t), abs=1e-9)
    q = d.ppf([0.025, 0.5, 0.975])
    assert d.cdf(q) == pytest.approx([0.025, 0.5, 0.975], abs=1e-9)


def test_precision_at_prevalence_mean_against_monte_carlo():
    cm = [[4950, 50], [3, 17]]
    r = bacc.posterior_metric(cm, "precision", label=1, prevalence=0.00425)
    rng = np.random.default_rng(1)
    n = 4_000_000
    x = rate_value("precision", rng.beta(18, 4, n), rng.beta(51, 4951, n), 0.00425)
    se = x.std() / np.sqrt(n)
    assert r.exact and abs(r.mean - x.mean()) < 5 * se


def test_random_design_precision_is_the_beta_of_the_dirichlet():
    """Against a Monte Carlo of the one Dirichlet over all cells (written here)."""
    cm = np.array([[40, 5, 3], [6, 30, 4], [2, 7, 25]])
    r = bacc.posterior_metric(cm, "precision", label=1, design="random")
    assert r.exact
    alpha = cm + np.where(np.eye(3, dtype=bool), 1.0, 0.5)
    rng = np.random.default_rng(2)
    n = 2_000_000
    g = rng.gamma(alpha.ravel(), size=(n, 9)).reshape(n, 3, 3)
    x = g[:, 1, 1] / g[:, :, 1].sum(axis=1)
    for q in (0.025, 0.5, 0.975):
        got = r.distribution.ppf(q)
        se = np.sqrt(q * (1 - q) / n) / r.distribution.pdf(got)
        assert abs(got - np.quantile(x, q)) < 5 * se


# ----------------------------------------------------------------------------------------------
# Monte Carlo posteriors against an independent Monte Carlo
def independent_draws(cm, design, metric, n, seed, chunk=1_000_000):
    """Draws of the model written from its definition (not bacc's sampler), ``chunk`` at a
    time (bounded memory)."""
    rng = np.random.default_rng(seed)
    return np.concatenate([_independent_chunk(cm, design, metric, min(chunk, n - s), rng)
                           for s in range(0, n, chunk)])


def _independent_chunk(cm, design, metric, n, rng):
    cm = np.asarray(cm, dtype=float)
    l = cm.shape[0]
    alpha = cm + np.where(np.eye(l, dtype=bool), 1.0, 1.0 / (l - 1))
    if design == "random":
        g = rng.gamma(alpha.ravel(), size=(n, l * l)).reshape(n, l, l)
        P = g / g.sum(axis=(1, 2), keepdims=True)
    else:
        prev = cm.sum(axis=1) / cm.sum()
        P = np.empty((n, l, l))
        for i in range(l):
            row = rng.dirichlet(alpha[i], size=n)
            P[:, i, :] = prev[i] * row
    return population_metric(metric, P)


@pytest.mark.parametrize(
    ("metric", "design", "cm"),
    [
        ("cohen_kappa", "stratified", [[42, 3], [6, 4]]),
        ("matthews", "random", [[42, 3], [6, 4]]),
        ("macro_f1", "stratified", [[30, 4, 2], [5, 25, 6], [1, 3, 40]]),
        ("g_mean", "random", [[30, 4, 2], [5, 25, 6], [1, 3, 40]]),
    ],
)
@pytest.mark.slow
def test_monte_carlo_metrics_against_an_independent_monte_carlo(metric, design, cm):
    n_ref = 10_000_000
    x = independent_draws(cm, design, metric, n_ref, 3)
    r = bacc.posterior_metric(cm, metric, design=design, n_draws=200_000, random_state=4)
    assert not r.exact and r.mc_se is not None
    se_ref = x.std() / np.sqrt(n_ref)
    assert abs(r.mean - x.mean()) < 5 * np.hypot(se_ref, r.mc_se["mean"])
    for key, q in (("lower", 0.025), ("median", 0.5), ("upper", 0.975)):
        assert abs(getattr(r, key) - np.quantile(x, q)) < 5 * r.mc_se[key] + 1e-4


# ----------------------------------------------------------------------------------------------
# simulation-based calibration: posterior CDF at the true value is uniform
def _sbc(metric, design, exact, reps, seed, label=None):
    from scipy.stats import kstest

    rng = np.random.default_rng(seed)
    l = 2
    sizes = np.array([30, 12])
    alpha = np.where(np.eye(l, dtype=bool), 1.0, 1.0)
    u = []
    for _ in range(reps):
        if design == "random":
            P = rng.dirichlet(alpha.ravel()).reshape(l, l)
            cm = rng.multinomial(sizes.sum(), P.ravel()).reshape(l, l)
            if (cm.sum(axis=1) == 0).any():
                continue
            truth = population_metric(metric, P)
        else:
            R = np.vstack([rng.dirichlet(alpha[i]) for i in range(l)])
            cm = np.vstack([rng.multinomial(sizes[i], R[i]) for i in range(l)])
            P = (sizes / sizes.sum())[:, None] * R
            truth = population_metric(metric, P)
        if label is not None:
            truth = truth[label]
        r = bacc.posterior_metric(cm, metric, label=label, design=design, n_draws=2000,
                                  random_state=rng)
        assert r.exact == exact
        u.append(float(r.distribution.cdf(truth)))
    return kstest(u, "uniform").pvalue


@pytest.mark.parametrize(
    ("metric", "design", "exact", "label"),
    [
        ("recall", "stratified", True, 1),
        ("precision", "stratified", True, 1),
        ("f1", "stratified", True, 1),
        ("cohen_kappa", "stratified", False, None),
        ("precision", "random", True, 1),
        ("matthews", "random", False, None),
    ],
)
@pytest.mark.slow
def test_simulation_based_calibration(metric, design, exact, label):
    assert _sbc(metric, design, exact, 400, 11, label) > 1e-3


# ----------------------------------------------------------------------------------------------
# the exact interval of precision at a prevalence keeps its coverage (bacc.coverage)
@pytest.mark.parametrize("prevalence", [0.005, 0.05, 0.5])
@pytest.mark.parametrize("sizes", [(20, 20), (5000, 50)])
@pytest.mark.parametrize("acc", [(0.95, 0.9), (0.99, 0.8), (0.999, 0.98)])
def test_union_interval_of_precision_at_a_prevalence_keeps_its_coverage(prevalence, sizes, acc):
    r = bacc.coverage("union", sizes, acc, metric="precision", prevalence=prevalence,
                      n_simulations=20_000, random_state=1)
    m = r["union"]
    assert r.true_value == pytest.approx(float(rate_value("precision", acc[1], 1 - acc[0], prevalence)))
    assert m.coverage >= 0.95 - 3 * m.mc_se, (m.coverage, m.mc_se)


def test_coverage_intervals_are_those_of_rate_interval():
    """The simulation's vectorised intervals equal the one-by-one function."""
    seen = {}

    def record(k, n, confidence, sides):
        from bacc.simulation import _precision_union

        lo, hi = _precision_union(k, n, confidence, sides, (np.array([0.995, 0.005]), 1))
        for row, a, b in zip(k[:20], lo[:20], hi[:20], strict=True):
            seen[tuple(row)] = (a, b)
        return lo, hi

    bacc.coverage(record, (5000, 50), (0.99, 0.9), metric="precision", prevalence=0.005,
                  n_simulations=50, random_state=0)
    # a callable receives the counts of the positive class's column: (false, true) positives
    for (fp, tp), (a, b) in seen.items():
        lo, hi = rate_interval("precision", tp, 50, fp, 5000, 0.005, 0.95)
        assert (a, b) == pytest.approx((lo, hi), abs=1e-15)


def test_precision_curve_over_prevalence():
    cm = [[4950, 50], [3, 17]]
    curve = precision_curve(cm, [0.001, 0.00425, 0.05, 0.5])
    assert np.all(np.diff(curve["median"]) > 0)  # precision grows with the prevalence
    assert np.all(curve["lower"] < curve["median"]) and np.all(curve["median"] < curve["upper"])
    assert np.all(curve["exact_lower"] <= curve["lower"]) and np.all(curve["upper"] <= curve["exact_upper"])


# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metric": "auc"}, "metric must be one of"),
        ({"metric": "recall", "design": "cluster"}, "design"),
        ({"metric": "precision", "prevalence": 1.5}, "prevalence"),
        ({"metric": "precision", "prevalence": 0.1, "design": "random"}, "stratified"),
        ({"metric": "cohen_kappa", "label": 1}, "takes no label"),
        ({"metric": "recall", "label": 7}, "not a class"),
        ({"metric": "kappa", "n_draws": 5}, "n_draws"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.posterior_metric([[42, 3], [6, 4]], **kwargs)


def test_a_custom_function_of_the_cell_probabilities():
    def youden(P):
        r = P.sum(axis=-1)
        return P[..., 1, 1] / r[..., 1] + P[..., 0, 0] / r[..., 0] - 1

    r = bacc.posterior_metric([[42, 3], [6, 4]], youden, n_draws=50_000)
    ref = bacc.posterior_metric([[42, 3], [6, 4]], "informedness", n_draws=50_000)
    assert r.sample == pytest.approx(ref.sample, abs=1e-12)
    assert abs(r.mean - ref.mean) < 5 * np.hypot(r.mc_se["mean"], ref.mc_se["mean"])


def test_zero_division_follows_scikit_learn_with_nan():
    """A class never predicted: its precision is 0/0, nan as scikit-learn's
    zero_division=np.nan; its posterior still exists (the population never has 0/0)."""
    sk = pytest.importorskip("sklearn.metrics")
    cm = np.array([[40, 5, 0], [6, 30, 0], [4, 3, 0]])
    y = np.repeat(np.arange(3), cm.sum(axis=1))
    p = np.concatenate([np.repeat(np.arange(3), row) for row in cm])
    want = sk.precision_score(y, p, average=None, zero_division=np.nan)
    got = [r.sample for r in bacc.posterior_metric(cm, "precision", n_draws=1000)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert np.isnan(got[2])
    r = bacc.posterior_metric(cm, "precision", label=2, n_draws=20_000)
    assert 0.0 < r.lower < r.upper < 1.0


@pytest.mark.slow
def test_random_design_accuracy_is_the_beta_of_the_diagonal():
    cm = np.array([[40, 5, 3], [6, 30, 4], [2, 7, 25]])
    r = bacc.posterior_metric(cm, "accuracy", design="random")
    assert r.exact
    x = independent_draws(cm, "random", "accuracy", 10_000_000, 9)
    assert abs(r.mean - x.mean()) < 5 * x.std() / np.sqrt(x.size)
    assert abs(r.upper - np.quantile(x, 0.975)) < 5e-4


def test_precision_interval_for_several_classes():
    from bacc.prevalence import precision_interval

    # two classes: the same as rate_interval
    lo, hi = precision_interval([[4950, 50], [3, 17]], 1, 0.005)
    assert (lo, hi) == pytest.approx(rate_interval("precision", 17, 20, 50, 5000, 0.005), abs=1e-15)
    # three classes at a deployment prevalence: coverage by simulation (written here)
    rng = np.random.default_rng(8)
    R = np.array([[0.97, 0.02, 0.01], [0.05, 0.90, 0.05], [0.02, 0.08, 0.90]])
    sizes = np.array([400, 60, 60])
    pi = np.array([0.98, 0.01, 0.01])
    truth = pi[1] * R[1, 1] / (pi @ R[:, 1])
    sims, hits = 2000, 0
    for _ in range(sims):
        cm = np.vstack([rng.multinomial(sizes[j], R[j]) for j in range(3)])
        lo, hi = precision_interval(cm, 1, pi)
        hits += lo <= truth <= hi
    assert hits / sims >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / sims)
    with pytest.raises(bacc.BaccError, match="shares"):
        precision_interval(np.eye(3) * 5, 1, [0.5, 0.5])
    with pytest.raises(bacc.BaccError, match="prevalence 0"):
        precision_interval(np.eye(3) * 5, 1, [0.5, 0.0, 0.5])


def rate_moments_reference(rate, sa, sb, fa, fb, pi):
    """E[rate] and Var[rate] over ``s ~ Beta(sa, sb)``, ``f ~ Beta(fa, fb)`` by Gauss-Jacobi
    product quadrature (scipy's nodes): the Beta densities are the rule's own weight, so only
    the smooth rate is approximated by polynomials. The reference checks itself: 200 and 300
    nodes per axis agree to 1e-13. (On the four designs below it agrees with nested mpmath
    tanh-sinh quadrature at 20 digits to 6e-15, in a hundredth of a second rather than 4-7 s.)
    """
    from scipy.special import roots_jacobi

    def rule(a, b, n):
        x, w = roots_jacobi(n, b - 1.0, a - 1.0)  # weight (1 - x)^(b-1) (1 + x)^(a-1) on [-1, 1]
        return (1.0 + x) / 2.0, w / w.sum()

    def moments(n):
        s, ws = rule(sa, sb, n)
        f, wf = rule(fa, fb, n)
        v = rate_value(rate, s[:, None], f[None, :], pi)
        v = np.where(np.isnan(v), 0.0, v)
        w = ws[:, None] * wf[None, :]
        m1, m2 = float((w * v).sum()), float((w * v * v).sum())
        return m1, m2 - m1 * m1

    coarse, fine = moments(200), moments(300)
    assert np.allclose(coarse, fine, rtol=0, atol=1e-13), (coarse, fine)
    return fine


@pytest.mark.parametrize(
    ("rate", "sa", "sb", "fa", "fb", "pi"),
    [
        ("precision", 19, 3, 2, 20, 0.005),
        ("f1", 19, 3, 2, 20, 0.3),
        ("npv", 8, 4, 3, 9, 0.6),
        ("accuracy", 8, 4, 3, 9, 0.6),
    ],
)
def test_rate_at_prevalence_moments_and_density_equal_mpmath(rate, sa, sb, fa, fb, pi):
    """The mean and variance (double integral) against Gauss-Jacobi product quadrature, and the
    density (the derivative of the CDF's integral) against a central difference of mpmath's
    CDF."""
    from bacc.distributions import BetaPosterior
    from bacc.prevalence import RateAtPrevalence

    d = RateAtPrevalence(rate, BetaPosterior(sa, sb), BetaPosterior(fa, fb), pi)
    m, v = rate_moments_reference(rate, sa, sb, fa, fb, pi)
    assert d.mean() == pytest.approx(m, abs=1e-9)
    assert d.var() == pytest.approx(v, abs=1e-9)
    h = 1e-5
    for t in d.ppf([0.1, 0.5, 0.9]):
        ref = (mp_rate_cdf(rate, sa, sb, fa, fb, pi, t + h)
               - mp_rate_cdf(rate, sa, sb, fa, fb, pi, t - h)) / (2 * h)
        assert d.pdf(t) == pytest.approx(ref, rel=1e-6)


def test_rate_at_prevalence_with_singular_densities_and_a_tiny_prevalence():
    """Jeffreys-style parameters below 1 (infinite densities at the ends) and prevalence 1e-6:
    CDF, quantiles and density against mpmath."""
    from bacc.distributions import BetaPosterior
    from bacc.prevalence import RateAtPrevalence

    args = ("precision", 20.5, 0.5, 0.5, 3000.5, 1e-6)
    d = RateAtPrevalence(args[0], BetaPosterior(*args[1:3]), BetaPosterior(*args[3:5]), args[5])
    q = d.ppf([0.05, 0.5, 0.95])
    assert np.all(np.diff(q) > 0)
    for level, t in zip([0.05, 0.5, 0.95], q, strict=True):
        assert mp_rate_cdf(*args, t) == pytest.approx(level, abs=1e-9)


def test_rate_at_prevalence_where_the_line_leaves_by_an_infinite_density():
    """Arcsine posteriors of s and f (Jeffreys, no examples), prevalence 0.001: where the line
    s = b f leaves the square near f = 1, the inner distribution function has a square-root
    singularity at the kink, inside the outer variable's singular end. Reference: mpmath in
    the variable f = sin^2(theta), where the arcsine density is constant."""
    import mpmath as mp

    from bacc.distributions import BetaPosterior
    from bacc.prevalence import RateAtPrevalence, _line

    mp.mp.dps = 30
    d = RateAtPrevalence("precision", BetaPosterior(0.5, 0.5), BetaPosterior(0.5, 0.5), 0.001)
    for t in (1e-10, 0.000999, 0.0010001, 0.00101, 0.0011, 0.2):
        b = mp.mpf(_line("precision", t, 0.001)[1])

        def integrand(th, b=b):
            return 2 / mp.pi * mp.betainc(0.5, 0.5, 0, min(mp.mpf(1), b * mp.sin(th) ** 2),
                                          regularized=True)

        cuts = [mp.mpf(0), mp.pi / 2]
        if b > 1:
            cuts.insert(1, mp.asin(mp.sqrt(1 / b)))
        assert d.cdf(t) == pytest.approx(float(mp.quad(integrand, cuts)), abs=1e-12)


def test_rate_at_prevalence_far_tail_quantile():
    """A quantile at level 1e-6 where the narrower variable along the line is not the one at
    the bulk (the outer variable is chosen per threshold)."""
    from bacc.distributions import BetaPosterior
    from bacc.prevalence import RateAtPrevalence

    args = ("precision", 1, 21, 1, 5001, 1e-3)
    d = RateAtPrevalence(args[0], BetaPosterior(*args[1:3]), BetaPosterior(*args[3:5]), args[5])
    levels = [1e-6, 0.025, 0.5]
    for level, t in zip(levels, d.ppf(levels), strict=True):
        assert mp_rate_cdf(*args, t) == pytest.approx(level, abs=1e-9)


def test_sobol_sampler_against_the_exact_beta_and_its_own_error():
    """Randomised quasi-Monte Carlo (scrambled Sobol) of a user's function whose posterior is
    known exactly: the recall of class 0 is Beta(C00 + 1, n0 - C00 + 1). The mean and the
    interval ends fall within 5 of their reported standard errors, and the mean's error is far
    below the pseudo-random sampler's at the same number of draws."""
    from scipy.stats import beta

    cm = np.array([[40, 3, 2], [4, 30, 6], [1, 2, 50]])

    def recall0(P):
        return P[:, 0, 0] / P[:, 0, :].sum(axis=1)

    ref = beta(41, 6)
    q = bacc.posterior_metric(cm, recall0, sampler="sobol", n_draws=8192, random_state=3)
    r = bacc.posterior_metric(cm, recall0, n_draws=8192, random_state=3)
    assert q.distribution.n_draws == 8192
    assert abs(q.mean - ref.mean()) < 5 * q.mc_se["mean"]
    assert abs(q.lower - ref.ppf(0.025)) < 5 * q.mc_se["lower"]
    assert abs(q.upper - ref.ppf(0.975)) < 5 * q.mc_se["upper"]
    assert q.mc_se["mean"] < r.mc_se["mean"] / 10
    assert abs(q.mean - ref.mean()) < r.mc_se["mean"]


def test_sobol_sampler_adaptive_and_bad_choice():
    cm = np.array([[40, 3, 2], [4, 30, 6], [1, 2, 50]])
    q = bacc.posterior_metric(cm, "macro_f1", sampler="sobol", mc_error=2e-3)
    assert max(q.mc_se.values()) <= 2e-3
    assert "Sobol" in q.method
    with pytest.raises(bacc.BaccError, match="sampler"):
        bacc.posterior_metric(cm, "macro_f1", sampler="halton")


@pytest.mark.parametrize(
    ("sizes", "R", "prevalence", "label"),
    [
        ((50, 40, 30), [[0.9, 0.06, 0.04], [0.05, 0.85, 0.10], [0.02, 0.03, 0.95]],
         (0.9, 0.095, 0.005), 2),
        ((5000, 50, 50), [[0.98, 0.015, 0.005], [0.1, 0.85, 0.05], [0.05, 0.15, 0.8]],
         (0.99, 0.005, 0.005), 1),
        ((20, 20, 20, 20), np.full((4, 4), 0.1) + np.eye(4) * 0.6, (0.7, 0.1, 0.1, 0.1), 0),
    ],
)
def test_multiclass_precision_interval_keeps_its_coverage(sizes, R, prevalence, label):
    r = bacc.coverage("union", sizes, R, metric="precision", prevalence=prevalence,
                      label=label, n_simulations=20_000, random_state=2)
    pi, R = np.asarray(prevalence), np.asarray(R)
    assert r.true_value == pytest.approx(pi[label] * R[label, label] / (pi @ R[:, label]))
    m = r["union"]
    assert m.coverage >= 0.95 - 3 * m.mc_se, (m.coverage, m.mc_se)
    assert r.prevalence == pytest.approx(prevalence)


def test_multiclass_coverage_intervals_are_those_of_precision_interval():
    """The simulator's vectorised intervals equal :func:`bacc.prevalence.precision_interval`
    of a matrix with the simulated column (the other cells do not enter)."""
    from bacc.prevalence import precision_interval
    from bacc.simulation import _precision_union

    rng = np.random.default_rng(4)
    n = np.array([300, 40, 25])
    pi = np.array([0.95, 0.04, 0.01])
    k = rng.binomial(n, [0.05, 0.8, 0.1], size=(30, 3))
    lo, hi = _precision_union(k, n, 0.9, "two", (pi, 1))
    for row, a, b in zip(k, lo, hi, strict=True):
        cm = np.zeros((3, 3), dtype=int)
        cm[:, 1] = row
        cm[:, 0] = n - row
        assert (a, b) == pytest.approx(precision_interval(cm, 1, pi, 0.9), abs=1e-15)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(true_class_accuracies=[0.9, 0.8, 0.7]), "matrix of true row rates"),
        (dict(true_class_accuracies=[[0.9, 0.2, 0.0], [0.1, 0.9, 0.0], [0, 0, 1]]), "summing to 1"),
        (dict(prevalence=0.1), "one share per class"),
        (dict(prevalence=(0.5, 0.5, 0.5)), "summing to 1"),
        (dict(label=3), "class index"),
        (dict(prevalence=(0.5, 0.5, 0.0)), "prevalence 0"),
    ],
)
def test_multiclass_precision_coverage_bad_input(kwargs, match):
    args = dict(true_class_accuracies=np.eye(3) * 0.7 + 0.1, prevalence=(0.5, 0.3, 0.2),
                label=2)
    args.update(kwargs)
    with pytest.raises(bacc.BaccError, match=match):
        bacc.coverage("union", (10, 10, 10), args.pop("true_class_accuracies"),
                      metric="precision", n_simulations=10, **args)
    with pytest.raises(bacc.BaccError, match="label= goes with"):
        bacc.coverage("union", (10, 10), (0.9, 0.9), n_simulations=10, label=1)


def test_a_custom_metric_at_a_prevalence_is_valued_at_that_prevalence():
    """A function of P is valued (sample) and drawn (posterior) at the prevalence given, as the
    built-in metrics are: precision as a function equals the built-in precision."""
    cm = [[940, 60], [5, 45]]

    def precision_of_positives(P):
        return P[..., 1, 1] / (P[..., 1, 1] + P[..., 0, 1])

    custom = bacc.posterior_metric(cm, precision_of_positives, prevalence=0.00425,
                                   design="stratified", n_draws=20_000, random_state=1)
    builtin = bacc.posterior_metric(cm, "precision", label=1, prevalence=0.00425,
                                    design="stratified", n_draws=20_000, random_state=1)
    # the plug-in value, computed here from the row rates reweighted to the prevalence
    tp = 0.00425 * 45 / 50
    fp = (1 - 0.00425) * 60 / 1000
    assert custom.sample == pytest.approx(tp / (tp + fp), rel=1e-12)
    assert builtin.sample == pytest.approx(tp / (tp + fp), rel=1e-12)
    assert custom.prevalence == builtin.prevalence == pytest.approx((0.99575, 0.00425))
    assert builtin.exact and not custom.exact  # the built-in is exact, the function drawn
    assert abs(custom.mean - builtin.mean) < 4 * custom.mc_se["mean"]
    assert abs(custom.upper - builtin.upper) < 4 * custom.mc_se["upper"]
