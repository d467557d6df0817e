"""The population posterior at its closed-form edges, for every model.

Beta-binomial, one example per subject: a subject's marginal likelihood is ``P(k_j = 1 |
alpha, beta) = alpha / (alpha + beta) = p``, whatever the spread, so the population accuracy's
posterior is exactly ``Beta(am + K, bm + M - K)`` for ``K`` correct of ``M`` subjects (all
perfect: ``Beta(M + 1, 1)``, whose density jumps at 1; all wrong: ``Beta(1, M + 1)``), and a
subject without examples of a class adds nothing (a class seen in one subject only is
``Beta(am + k, bm + 1 - k)``). Several classes average independent such Betas: their CDF is a
one-dimensional integral (scipy). Normal-binomial: perfect and all-wrong subjects against the
independent quadrature of ``tests/references/population_reference.py``. The documentation promises about
1e-9 in the CDF; the tolerance below is 5e-9 (measured: at most 3.5e-9; the old grid
convolution erred by up to 9e-3 at these edges: a density that does not vanish at 1 was
summed as if it did).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import integrate, special, stats

import bacc

GRID = np.linspace(0.002, 0.998, 167)
TOL = 5e-9


def _one_trial(K: int, M: int) -> list[int]:
    return [1] * K + [0] * (M - K)


@pytest.mark.parametrize(("K", "M"), [(4, 4), (0, 4), (3, 4), (1, 4), (2, 2), (10, 10), (0, 7),
                                      (2, 4)])
def test_beta_binomial_one_trial_per_subject_is_a_beta(K, M):
    pop = bacc.population(correct=_one_trial(K, M), totals=[1] * M, model="beta-binomial")
    ref = stats.beta(1 + K, 1 + M - K)
    d = pop.balanced_accuracy
    assert np.abs(d.cdf(GRID) - ref.cdf(GRID)).max() <= TOL
    assert np.abs(d.sf(GRID) - ref.sf(GRID)).max() <= TOL
    assert abs(d.mean() - ref.mean()) <= 1e-9
    assert abs(pop.summary.mean - ref.mean()) <= 1e-9
    q = [0.025, 0.5, 0.975]
    assert np.abs(np.asarray(d.ppf(q)) - ref.ppf(q)).max() <= 1e-7
    assert abs(pop.summary.lower - ref.ppf(0.025)) <= 1e-7
    assert abs(pop.summary.upper - ref.ppf(0.975)) <= 1e-7
    assert abs(pop.classes[0].accuracy.mean - ref.mean()) <= 1e-9
    # the density, where it is finite (a jump at 1 for all perfect)
    inner = GRID[(GRID > 0.01) & (GRID < 0.99)]
    assert np.abs(d.pdf(inner) - ref.pdf(inner)).max() <= 1e-6 * max(ref.pdf(inner).max(), 1.0)
    assert abs(pop.p_above_chance - ref.sf(0.5)) <= TOL


@pytest.mark.parametrize(("prior", "K", "M"), [({"am": 2.0, "bm": 0.5}, 5, 5),
                                               ({"am": 0.7, "bm": 3.0}, 0, 3)])
def test_beta_binomial_one_trial_with_a_prior_singular_at_the_end(prior, K, M):
    """``bm < 1``: the posterior density is infinite at 1 (integrable)."""
    pop = bacc.population(correct=_one_trial(K, M), totals=[1] * M, model="beta-binomial",
                          prior=prior)
    ref = stats.beta(prior["am"] + K, prior["bm"] + M - K)
    d = pop.balanced_accuracy
    assert np.abs(d.cdf(GRID) - ref.cdf(GRID)).max() <= TOL
    assert abs(d.mean() - ref.mean()) <= 1e-9


def _average_cdf(a, b, t: float) -> float:
    """P((X + Y) / 2 <= t) for independent X ~ a, Y ~ b on [0, 1] (scipy quadrature)."""
    s = 2 * t
    pts = [p for p in (s - 1, s) if 0 < p < 1]
    below = a.cdf(s - 1) if s > 1 else 0.0  # there every y counts: b.cdf(s - y) = 1
    return below + integrate.quad(lambda y: a.pdf(y) * b.cdf(s - y), max(0.0, s - 1), min(1.0, s),
                                  points=pts or None, epsabs=1e-14, epsrel=1e-13, limit=200)[0]


@pytest.mark.parametrize(("first", "second"), [((4, 4), (3, 4)), ((4, 4), (0, 4)),
                                               ((4, 4), (4, 4)), ((6, 6), (100, 200))])
@pytest.mark.slow  # a long check against an independent reference (scipy quadrature)
def test_beta_binomial_two_classes_at_the_edges(first, second):
    (K1, M1), (K2, M2) = first, second
    m = max(M1, M2)
    correct = [_one_trial(K1, M1) + [0] * (m - M1), _one_trial(K2, M2) + [0] * (m - M2)]
    totals = [[1] * M1 + [0] * (m - M1), [1] * M2 + [0] * (m - M2)]
    pop = bacc.population(correct=correct, totals=totals, model="beta-binomial")
    a, b = stats.beta(1 + K1, 1 + M1 - K1), stats.beta(1 + K2, 1 + M2 - K2)
    d = pop.balanced_accuracy
    xs = np.linspace(0.02, 0.98, 33)
    ref = np.array([_average_cdf(a, b, x) for x in xs])
    assert np.abs(d.cdf(xs) - ref).max() <= TOL
    assert abs(d.mean() - (a.mean() + b.mean()) / 2) <= 1e-9
    for i, r in enumerate((a, b)):
        assert abs(pop.classes[i].accuracy.mean - r.mean()) <= 1e-9


def test_a_class_seen_in_one_subject_only():
    """Subject 1 has no examples of class 1: that class is Beta(2, 1) from subject 0 alone."""
    pop = bacc.population(correct=[[1, 1], [1, 0]], totals=[[1, 1], [1, 0]], model="beta-binomial")
    a, b = stats.beta(3, 1), stats.beta(2, 1)
    xs = np.linspace(0.05, 0.95, 19)
    ref = np.array([_average_cdf(a, b, x) for x in xs])
    assert np.abs(pop.balanced_accuracy.cdf(xs) - ref).max() <= TOL


def test_one_subject_is_refused():
    with pytest.raises(bacc.BaccError, match="at least 2 subjects"):
        bacc.population(correct=[[3], [4]], totals=[[5], [5]], model="beta-binomial")
    with pytest.raises(bacc.BaccError, match="at least 2 subjects"):
        bacc.population(correct=[3], totals=[5])


NB_EDGES = [([20, 20, 20, 20], [20, 20, 20, 20]), ([1] * 6, [1] * 6), ([0, 0, 0], [3, 3, 3]),
            ([3, 3, 3, 3, 2], [3] * 5)]


@functools.cache
def _normal_binomial_gap(k: tuple, n: tuple) -> tuple[float, float]:
    """The largest gap in the CDF and the gap in the mean (computed once per case: the two
    tests below read the same gaps against two tolerances)."""
    from references.population_reference import ClassReference

    pop = bacc.population(correct=k, totals=n)
    ref = ClassReference(np.array(k), np.array(n))
    xs = np.linspace(0.01, 0.99, 50)
    want = np.array([float(ref.cdf(special.logit(x))) for x in xs])
    return (float(np.abs(pop.balanced_accuracy.cdf(xs) - want).max()),
            abs(pop.balanced_accuracy.mean() - ref.mean))  # fmt: skip


@pytest.mark.parametrize(("k", "n"), NB_EDGES)
@pytest.mark.xdist_group("normal_binomial_edges")  # with the next test, in one worker's cache
def test_normal_binomial_perfect_and_all_wrong_subjects(k, n):
    """Within 1e-4 of the independent quadrature (measured: up to 8e-5 in the CDF and 4e-5 in
    the mean for four perfect subjects of 20 examples; see the next test for the promised
    1e-9)."""
    cdf_gap, mean_gap = _normal_binomial_gap(tuple(k), tuple(n))
    assert cdf_gap <= 1e-4 and mean_gap <= 1e-4


@pytest.mark.xfail(reason="bacc and the independent quadrature of population_reference differ "
                          "by 2e-7 to 8e-5 in the CDF with perfect or all-wrong subjects under the "
                          "normal-binomial model: the reference's Gauss-Hermite rule for a "
                          "subject's likelihood errs where the normal density is wide (up to 5e-2 "
                          "in log L at lambda = e^-10 against scipy's quad), where bacc's agrees "
                          "with quad to 1e-8 (the next test); the reference is to be mended",
                   strict=False)
@pytest.mark.parametrize(("k", "n"), NB_EDGES)
@pytest.mark.xdist_group("normal_binomial_edges")
def test_normal_binomial_perfect_and_all_wrong_subjects_to_the_promised_accuracy(k, n):
    cdf_gap, mean_gap = _normal_binomial_gap(tuple(k), tuple(n))
    assert cdf_gap <= TOL and mean_gap <= 1e-9


@pytest.mark.parametrize(("k", "n"), [(20, 20), (1, 1), (0, 3), (3, 3), (2, 3), (1, 2)])
def test_normal_binomial_subject_likelihood_against_adaptive_quadrature(k, n):
    """A subject's marginal likelihood ``L(mu, lambda) = int Bin(k | n, sigmoid(r))
    N(r | mu, 1/lambda) dr`` as bacc computes it, against scipy's adaptive quadrature
    (``quad``, relative tolerance 1e-13, split where the likelihood bends), for lambda from
    e^-10 to e^5: perfect, all-wrong and small subjects, whose likelihood is a step or a broad
    bump under a normal density up to 150 wide. There the Gauss-Hermite rule of
    ``tests/references/population_reference.py`` errs (the xfail above); bacc's log L is
    within 1e-8 (measured: 3.2e-9 at most)."""
    from bacc._engine.hierarchy import ClassFit, NormalBinomialPrior

    fit = ClassFit(np.array([k, k]), np.array([n, n]), "normal-binomial", NormalBinomialPrior())
    ts = np.array([-10.0, -6.0, -3.0, -1.0, 0.0, 2.0, 5.0])
    mus = np.array([-6.0, -2.0, 1.0, 4.0, 8.0])
    got, _, _ = fit._normal_binomial_terms(np.array([float(k)]), np.array([float(n)]),
                                           np.tile(mus, (ts.size, 1)), ts, False)
    log_c = special.gammaln(n + 1) - special.gammaln(k + 1) - special.gammaln(n - k + 1)
    for i, t in enumerate(ts):
        lam = math.exp(t)
        sd = 1.0 / math.sqrt(lam)
        for j, mu in enumerate(mus):
            def integrand(r, mu=mu, lam=lam):
                log_lik = k * -np.logaddexp(0.0, -r) + (n - k) * -np.logaddexp(0.0, r)
                return math.exp(log_lik - 0.5 * lam * (r - mu) ** 2) * math.sqrt(lam / (2 * math.pi))

            lo, hi = mu - 40 * sd, mu + 40 * sd
            bends = sorted({min(hi, max(lo, v)) for v in (-10.0, -5.0, -2.0, 0.0, 2.0, 5.0, 10.0, mu)})
            want, _ = integrate.quad(integrand, lo, hi, points=bends, limit=2000, epsabs=0.0,
                                     epsrel=1e-13)
            assert got[0, i, j] == pytest.approx(log_c + math.log(want), abs=1e-8), (t, mu)


@pytest.mark.parametrize("model", ["normal-binomial", "beta-binomial"])
def test_mass_at_the_ends_is_bounded_by_the_quadrature_weights(model):
    """Whether a class is summed exactly at 0 and 1 is decided by the bounds of its mass near
    the ends that the fit's quadrature weights give, where they decide: on fits from smooth to
    all-perfect, the bounds hold the mass of the tabulated logit density (the independent
    way: its CDF and survival function), and the decision is the one that mass gives."""
    from bacc import mixed_effects as me
    from bacc._engine.hierarchy import BetaBinomialPrior, ClassFit, NormalBinomialPrior

    prior = BetaBinomialPrior() if model == "beta-binomial" else NormalBinomialPrior()
    rng = np.random.default_rng(3)
    decided = 0
    sides = set()
    for case in range(12):
        m = int(rng.integers(2, 9))
        n = rng.integers(1, 60, m)
        spread = rng.choice([0.05, 0.5, 3.0])
        p = special.expit(rng.normal(rng.uniform(-3.0, 5.0), spread, m))
        k = rng.binomial(n, p) if case % 4 else n  # every fourth case all perfect
        fit = ClassFit(k, n, model, prior)
        for h in (1e-3, 1e-2, 0.05):
            lo, hi = fit.tail_mass_bounds(me._end_logit(h))
            mass = me._end_mass(fit, h)
            assert lo <= mass * (1 + 1e-9) + 1e-15 and mass <= hi * (1 + 1e-9) + 1e-15, (lo, mass, hi)
            assert me._at_an_end(fit, h) == (mass > me._EDGE_MASS)
            decided += hi < 0.5 * me._EDGE_MASS or lo > 2.0 * me._EDGE_MASS
            sides.add(mass > me._EDGE_MASS)
    assert sides == {True, False} and decided >= 27  # both sides met; the bounds decide most
