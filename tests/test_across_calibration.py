"""Simulation-based calibration of ``bacc.compare_across`` (Talts et al. 2018).

Talts, S., Betancourt, M., Simpson, D., Vehtari, A. & Gelman, A. (2018). Validating Bayesian
inference algorithms with simulation-based calibration. arXiv:1804.06788.

Each replication draws the population difference and the spread from the model's own prior
(``prior={"tau": "half-normal", "tau_scale": 0.05, "effect_sd": 0.05}``: ``tau ~ |N(0,
0.05^2)|`` (below its bound 1), the contrast ``phi ~ N(0, 0.05^2)`` so ``delta = theta_A -
theta_B = sqrt(2) phi``), per data set the interactions ``e_A, e_B ~ N(0, tau^2)`` and a base
accuracy per class uniform in ``[0.6, 0.85]``, sets each class accuracy of A to ``base +
delta / 2 + e_A`` and of B to ``base - delta / 2 + e_B`` (a data set's draw falling outside
``(0.02, 0.98)`` is drawn again, rarely), draws binomial right answers for each classifier on
its own test set, fits, and records the posterior CDF at the true ``delta``. If the posterior
is calibrated these are uniform on ``(0, 1)``.

The data-set likelihood of the model is normal (the exact posterior moments of each data
set's balanced accuracies), an approximation for tiny data sets; design (b) has data sets from
20 to 20 000 examples, some imbalanced.

For speed the replications call the model's engine (``bacc._engine.meta_analysis.fit`` on the
Beta moments computed here), and the first replications of each design check that this is
``compare_across(...).difference.cdf`` to 1e-14. Uniformity: Pearson's chi-square on 10
equal bins and Kolmogorov-Smirnov, each at level 1e-4 (a false failure < 2e-4 in all).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

import bacc
from bacc._engine import meta_analysis as ma

PRIOR = {"tau": "half-normal", "tau_scale": 0.05, "effect_sd": 0.05}
M = 15
LEVEL = 1e-4


def size_equal(rng):
    return np.array([100, 100])


def size_unequal(rng):
    """20 to 20 000 examples, log-uniform; half the data sets imbalanced (minority 10-50 %)."""
    n = int(round(math.exp(rng.uniform(math.log(20), math.log(20_000)))))
    minority = 0.5 if rng.random() < 0.5 else rng.uniform(0.1, 0.5)
    n1 = max(1, int(round(n * minority)))
    return np.array([n - n1, n1])


def replicate(rng, sizes):
    """One draw from the prior and the data: (confusion matrices of A and B, true delta)."""
    tau = abs(rng.normal(0.0, 0.05))
    while tau > 1.0:
        tau = abs(rng.normal(0.0, 0.05))
    delta = math.sqrt(2.0) * rng.normal(0.0, 0.05)
    a, b = {}, {}
    for j in range(M):
        n = sizes(rng)
        while True:
            e = rng.normal(0.0, tau, 2)
            base = rng.uniform(0.6, 0.85, n.size)
            acc = base + np.array([[delta / 2 + e[0]], [-delta / 2 + e[1]]])
            if np.all((acc > 0.02) & (acc < 0.98)):
                break
        ka, kb = rng.binomial(n, acc[0]), rng.binomial(n, acc[1])
        a[j] = np.array([[ka[0], n[0] - ka[0]], [n[1] - ka[1], ka[1]]])
        b[j] = np.array([[kb[0], n[0] - kb[0]], [n[1] - kb[1], kb[1]]])
    return a, b, delta


def beta_moments(cm):
    """What the model reads from a data set: the sample balanced accuracy, and the variance of
    the balanced accuracy when the class accuracies are Beta(k + 1, n - k + 1)."""
    n = cm.sum(axis=1).astype(float)
    k = np.diag(cm).astype(float)
    a, b = k + 1.0, n - k + 1.0
    var = a * b / ((a + b) ** 2 * (a + b + 1.0))
    return float(np.mean(k / n)), float(var.sum() / n.size**2)


def beta_moments_of(cms):
    """:func:`beta_moments` of a stack of confusion matrices at once (shape (..., l, l))."""
    n = cms.sum(axis=-1).astype(float)
    k = np.diagonal(cms, axis1=-2, axis2=-1).astype(float)
    a, b = k + 1.0, n - k + 1.0
    var = a * b / ((a + b) ** 2 * (a + b + 1.0))
    return np.mean(k / n, axis=-1), var.sum(axis=-1) / n.shape[-1] ** 2


def posterior_cdf_at(a, b, x):
    y = np.empty((M, 2))
    S = np.zeros((M, 2, 2))
    y[:, 0], S[:, 0, 0] = beta_moments_of(np.stack([a[j] for j in range(M)]))
    y[:, 1], S[:, 1, 1] = beta_moments_of(np.stack([b[j] for j in range(M)]))
    f = ma.fit(y, S, ma.TauPrior(PRIOR["tau"], PRIOR["tau_scale"], PRIOR["effect_sd"]))
    mu, sd = f.population(f.pair(0, 1))
    return float(np.sum(f.weight * special.ndtr((x - mu) / sd)))


def ranks(sizes, reps, seed):
    rng = np.random.default_rng(seed)
    u = np.empty(reps)
    for r in range(reps):
        a, b, delta = replicate(rng, sizes)
        u[r] = posterior_cdf_at(a, b, delta)
        if r < 3:  # the engine's answer is compare_across's, on the moments of each data set
            res = bacc.compare_across(a, b, prior=PRIOR)
            assert res.difference.cdf(delta) == pytest.approx(u[r], abs=1e-14)
            stacked = beta_moments_of(np.stack([a[j] for j in range(M)]))
            one_by_one = np.array([beta_moments(a[j]) for j in range(M)]).T
            assert np.array_equal(np.array(stacked), one_by_one)
    return u


def check_uniform(u):
    counts = np.histogram(u, bins=10, range=(0.0, 1.0))[0]
    chi2 = stats.chisquare(counts)
    ks = stats.kstest(u, "uniform")
    detail = (
        f"PIT histogram {counts.tolist()}, chi-square p {chi2.pvalue:.4g}, KS p {ks.pvalue:.4g}"
    )
    assert chi2.pvalue > LEVEL, detail
    assert ks.pvalue > LEVEL, detail


def size_tiny(rng):
    """20 to 60 examples, log-uniform; half the data sets imbalanced (minority 10-50 %)."""
    n = int(round(math.exp(rng.uniform(math.log(20), math.log(60)))))
    minority = 0.5 if rng.random() < 0.5 else rng.uniform(0.1, 0.5)
    n1 = max(1, int(round(n * minority)))
    return np.array([n - n1, n1])


@pytest.mark.slow
def test_calibration_equal_data_sets():
    """(a) 15 data sets of 200 examples, 2 balanced classes; 4000 replications."""
    check_uniform(ranks(size_equal, 4000, seed=20180601))


@pytest.mark.slow
def test_calibration_unequal_data_sets():
    """(b) 15 data sets of 20 to 20 000 examples (log-uniform), half imbalanced; 4000
    replications."""
    check_uniform(ranks(size_unequal, 4000, seed=20180602))


@pytest.mark.slow
def test_calibration_tiny_data_sets():
    """(c) 15 data sets of 20 to 60 examples (log-uniform), half imbalanced; 4000 replications."""
    check_uniform(ranks(size_tiny, 4000, seed=7))
