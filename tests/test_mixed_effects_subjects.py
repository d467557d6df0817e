"""Per-subject posteriors of bacc.population under the beta-binomial model.

The subjects' densities are summed by blocks with the nodes that matter
(:mod:`bacc._engine.beta_mixture`) and their moments for the subjects asked only; they are
checked against the dense sums (every node at every grid point, ``dense=True``) on mixes of 1
to 20 000 examples per subject and class with perfect, all-wrong and one-example subjects, and
the densities against the mixture of Beta posteriors written out with scipy.stats.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bacc
from bacc import mixed_effects as me
from bacc._engine.beta_mixture import beta_mixture

FIELDS = ("mean", "median", "mode", "lower", "upper")

#: The three populations are module fixtures, built once: under pytest-xdist the whole file runs
#: in one worker (conftest.py: --dist loadgroup), so they are not built again in the other.
pytestmark = pytest.mark.xdist_group("test_mixed_effects_subjects")


def _mix(seed: int, m: int = 30):
    """Counts of two classes, ``m`` subjects of 1 to 20 000 examples per class (log-uniform),
    accuracies varied, with perfect, all-wrong and one-example subjects."""
    rng = np.random.default_rng(seed)
    n = np.exp(rng.uniform(0.0, np.log(20_000), size=(2, m))).astype(np.int64)
    k = rng.binomial(n, rng.beta(rng.uniform(2, 20), rng.uniform(1, 5), size=(2, m)))
    k[0, 0] = n[0, 0]  # a perfect class
    k[1, 1] = 0  # an all-wrong class
    k[:, 2] = n[:, 2]  # a perfect subject
    n[:, 3], k[:, 3] = 1, (1, 0)  # one example of each class
    n[:, 4], k[:, 4] = (1, 0), (0, 0)  # a single example, wrong, and no example of a class
    return k, n


@pytest.fixture(scope="module", params=[0, 1, 2], ids=lambda s: f"mix{s}")
def pop(request):
    k, n = _mix(request.param)
    return bacc.population(correct=k, totals=n, model="beta-binomial")


def test_subjects_equal_the_dense_sums(pop):
    js = list(range(len(pop.subject_names)))
    fast = me._subject_averages(pop._fits, js, pop.subject_names)
    dense = me._subject_averages(pop._fits, js, pop.subject_names, dense=True)
    x = np.linspace(0.0005, 0.9995, 400)
    for a, b in zip(fast, dense, strict=True):
        sa, sb = a.summary(0.95), b.summary(0.95)
        for q in FIELDS:
            assert sa[q] == pytest.approx(sb[q], abs=1e-9), q
        np.testing.assert_allclose(a.cdf(x), b.cdf(x), rtol=0, atol=1e-9)
        assert a.mean() == pytest.approx(b.mean(), abs=1e-12)


def test_subject_results_equal_the_dense_path(pop):
    fast, dense = pop.subjects, pop._subject_results(dense=True)
    for a, b in zip(fast, dense, strict=True):
        assert (a.subject, a.correct, a.support) == (b.subject, b.correct, b.support)
        assert a.independent == b.independent
        for q in FIELDS:
            assert getattr(a.shrunken, q) == pytest.approx(getattr(b.shrunken, q), abs=1e-9), q


def test_edge_subjects_are_proper_posteriors(pop):
    """Perfect, all-wrong and one-example subjects: means inside (0, 1), intervals ordered,
    a perfect subject above its class's population means, an all-wrong one below."""
    s = pop.subjects
    for r in s[:5]:
        sh = r.shrunken
        assert 0.0 < sh.lower < sh.median < sh.upper < 1.0
        assert sh.lower <= sh.mean <= sh.upper
    assert s[2].shrunken.mean > pop.summary.mean  # perfect in both classes
    assert s[4].shrunken.mean < s[2].shrunken.mean


def test_moments_equal_the_per_subject_ones(pop):
    for f in pop._fits:
        js = [None, *range(len(pop.subject_names))]
        got = f.subjects_moments(js)
        want = np.array([f.subject_moments(j) for j in js])
        np.testing.assert_array_equal(got, want)


def test_densities_are_the_mixture_of_beta_posteriors(pop):
    """``f_j(g) = sum_nodes W Beta(g; alpha + k_j, beta + n_j - k_j)``, written out with
    scipy.stats on the nodes that carry weight, at points away from the grid's outer cells."""
    fit = pop._fits[1]
    w = fit.weights.ravel()
    live = w > 1e-14 * w.max()
    nu = 1.0 / (fit.prior.s_max / (1.0 + np.exp(-np.broadcast_to(fit.v[:, None], fit.weights.shape).ravel()))) ** 2
    p = 1.0 / (1.0 + np.exp(-np.broadcast_to(fit.x, fit.weights.shape).ravel()))
    a0, b0 = (nu * p)[live], (nu * (1.0 - p))[live]
    for j in (0, 1, 3, 5, 6):
        mean, sd = fit.subject_moments(j)
        h = sd / 12.0
        g = max(mean - 6 * sd, h) + h * np.arange(int(12 * sd / h))
        g = g[g < 1.0 - h]
        got = fit.subject_densities([j], g, h)[1:-1, 0]
        k, n = fit.k[j], fit.n[j]
        want = stats.beta.pdf(g[1:-1, None], a0 + k, b0 + n - k) @ w[live]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12 * want.max())


def test_spans_leave_other_rows_at_zero(pop):
    fit = pop._fits[0]
    g = np.linspace(0.01, 0.99, 300)
    h = g[1] - g[0]
    full = fit.subject_densities([0, 5, None], g, h)
    part = fit.subject_densities([0, 5, None], g, h, spans=[(0, 300), (40, 90), (120, 300)])
    np.testing.assert_allclose(part[:, 0], full[:, 0], rtol=1e-13, atol=0)
    np.testing.assert_allclose(part[40:90, 1], full[40:90, 1], rtol=1e-13, atol=0)
    np.testing.assert_allclose(part[120:, 2], full[120:, 2], rtol=1e-13, atol=0)
    assert not part[:40, 1].any() and not part[90:, 1].any() and not part[:120, 2].any()
    dense = fit.subject_densities([0, 5, None], g, h, dense=True)
    # (the outer cells leave out nodes whose mass there is below e^-50)
    np.testing.assert_allclose(full, dense, rtol=1e-12, atol=1e-20 * dense.max())


def test_beta_mixture_points_and_pruning():
    """Two wide laws and one narrower than a step (a point split between two grid points);
    a node far from the grid is left out without changing a sum."""
    g = 0.2 + 0.01 * np.arange(40)
    h = 0.01
    a = np.array([3.0, 5.0, 5e5, 9e4])
    b = np.array([2.0, 4.0, 5e5, 1e4])  # the third: mean 0.5, sd 5e-4 < h; the fourth at 0.9
    logmix = np.log(np.array([[0.5], [0.3], [0.2], [1e-30]]))
    out = beta_mixture(g, h, a, b, logmix, np.zeros(1), np.zeros(1), np.zeros(1), [(0, 40)])
    want = 0.5 * stats.beta.pdf(g, 3, 2) + 0.3 * stats.beta.pdf(g, 5, 4)
    pos = (0.5 - g[0]) / h
    j = int(np.floor(pos))
    want[j] += 0.2 * (1 - (pos - j)) / h
    want[j + 1] += 0.2 * (pos - j) / h
    want += 1e-30 * stats.beta.pdf(g, 9e4, 1e4)
    np.testing.assert_allclose(out[:, 0], want, rtol=1e-12)


def test_fine_grid_interpolated_blocks_equal_the_dense_sums(pop, monkeypatch):
    """A subject's class on a grid far finer than its laws (as its other, narrow class
    imposes): long blocks are interpolated from Chebyshev points, and equal the dense sums."""
    from bacc._engine import beta_mixture as bm

    used = []
    interpolated = bm._interpolated

    def counted(*args):
        out = interpolated(*args)
        used.append(out is not None)
        return out

    monkeypatch.setattr(bm, "_interpolated", counted)
    fit = pop._fits[1]
    j = 3  # one example of the class: a wide posterior
    mean, sd = fit.subject_moments(j)
    h = sd / 2000.0
    g = max(mean - 8 * sd, 0.5 * h) + h * np.arange(int(16 * sd / h))
    g = g[g < 1.0 - 0.5 * h]
    got = fit.subject_densities([j, None], g, h)
    assert any(used)
    want = fit.subject_densities([j, None], g, h, dense=True)
    np.testing.assert_allclose(got[1:-1], want[1:-1], rtol=1e-11, atol=0)
