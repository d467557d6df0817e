"""Claims of ``bacc._engine.meta_analysis`` (the random-effects model across data sets).

References, independent of the module:

* the moments of one data set: ``scipy.stats.beta`` (independent test sets), and for the same
  examples a brute-force Dirichlet: the ``2^T`` patterns of right and wrong answers of each
  class enumerated, concentration ``2^(1 - T)`` each plus the pattern counts, and the
  covariance of each classifier's class accuracy (the sum of the cells where it is right)
  summed cell by cell from the Dirichlet covariance ``(a_p [p = q] a0 - a_p a_q) / (a0^2 (a0 +
  1))``; for two classifiers also the moments of :func:`bacc.compare_paired`'s difference;
* the model given ``tau``: generalised least squares written here on the untransformed
  estimates, the data-set effect removed by differencing against classifier 0 (``D_j = K
  y_j``, ``K = [-1 | I]``), not on the orthonormal contrasts; its marginal likelihood of
  ``tau`` must match the node weights up to the trapezoidal weights and a constant;
* a data set's own difference given all data: the stacked regression of the unknowns
  ``(phi, a_j)`` with the interaction's prior as a pseudo-observation, solved directly.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

import bacc
from bacc._engine import meta_analysis as ma

# ----------------------------------------------------------------------------------- helpers


def patterns(T: int) -> np.ndarray:
    """The 2^T patterns of right (1) and wrong (0) answers of T classifiers, shape (2^T, T)."""
    return np.array(list(itertools.product([0, 1], repeat=T)), dtype=float)


def counts_to_k_both(c: np.ndarray, T: int):
    """Per-class pattern counts (l, 2^T) -> n (l,), k (l, T), both (l, T, T)."""
    pat = patterns(T)
    n = c.sum(axis=1)
    k = c @ pat
    both = np.einsum("ip,ps,pt->ist", c, pat, pat)
    return n, k, both


def dirichlet_moments(c: np.ndarray, w: np.ndarray, T: int):
    """Brute force: mean (T,) and covariance (T, T) of the balanced accuracies."""
    pat = patterns(T)
    mean = np.zeros(T)
    cov = np.zeros((T, T))
    for i in range(c.shape[0]):
        alpha = c[i] + 2.0 ** (1 - T)
        a0 = alpha.sum()
        cell_cov = (np.diag(alpha) * a0 - np.outer(alpha, alpha)) / (a0 * a0 * (a0 + 1.0))
        cls_mean = np.array([alpha[pat[:, t] == 1].sum() / a0 for t in range(T)])
        cls_cov = np.array(
            [
                [cell_cov[np.ix_(pat[:, s] == 1, pat[:, t] == 1)].sum() for t in range(T)]
                for s in range(T)
            ]
        )
        mean += w[i] * cls_mean
        cov += w[i] ** 2 * cls_cov
    return mean, cov


def random_pattern_counts(rng, T: int, l: int, n_max: int = 60) -> np.ndarray:
    c = np.zeros((l, 2**T))
    for i in range(l):
        n = int(rng.integers(1, n_max))
        c[i] = rng.multinomial(n, rng.dirichlet(np.full(2**T, 0.7)))
    return c


def difference_basis(T: int) -> np.ndarray:
    """K with D = K y = (y_1 - y_0, ..., y_{T-1} - y_0)."""
    return np.hstack([-np.ones((T - 1, 1)), np.eye(T - 1)])


def gls(y: np.ndarray, S: np.ndarray, tau: float, effect_sd=None):
    """Posterior of the differences beta = K theta given tau, and log p(data | tau) + const."""
    m, T = y.shape
    K = difference_basis(T)
    D = y @ K.T
    P = np.zeros((T - 1, T - 1))
    b = np.zeros(T - 1)
    quad = 0.0
    logdet = 0.0
    for j in range(m):
        W = K @ S[j] @ K.T + tau**2 * (K @ K.T)
        Wi = np.linalg.inv(W)
        P += Wi
        b += Wi @ D[j]
        quad += D[j] @ Wi @ D[j]
        logdet += np.linalg.slogdet(W)[1]
    if effect_sd is not None:
        # phi ~ N(0, s^2 I) in orthonormal contrasts: theta (centred) ~ N(0, s^2 (I - 11'/T)),
        # so beta = K theta ~ N(0, s^2 K K')
        P = P + np.linalg.inv(effect_sd**2 * (K @ K.T))
    cov = np.linalg.inv(P)
    mean = cov @ b
    logml = -0.5 * (logdet + np.linalg.slogdet(P)[1] + quad - b @ mean)
    return mean, cov, logml


def paired_data(rng, m: int, T: int):
    """y (m, T), S (m, T, T) of m paired data sets with 2-3 classes (brute-force moments)."""
    y = np.empty((m, T))
    S = np.empty((m, T, T))
    for j in range(m):
        l = int(rng.integers(2, 4))
        c = random_pattern_counts(rng, T, l, n_max=300)
        y[j], S[j] = dirichlet_moments(c, np.full(l, 1.0 / l), T)
    return y, S


# --------------------------------------------------------------------------------- contrasts
@pytest.mark.parametrize("T", [2, 3, 4, 7])
def test_contrasts_orthonormal_and_orthogonal_to_ones(T):
    C = ma.contrasts(T)
    assert C.shape == (T - 1, T)
    np.testing.assert_allclose(C @ C.T, np.eye(T - 1), atol=1e-14)
    np.testing.assert_allclose(C @ np.ones(T), 0.0, atol=1e-14)
    # with ones/sqrt(T) it completes an orthogonal matrix: C'C is the centring projection
    np.testing.assert_allclose(C.T @ C, np.eye(T) - 1.0 / T, atol=1e-14)


# ----------------------------------------------------------------------------------- moments
def test_independent_moments_are_the_beta_moments():
    rng = np.random.default_rng(3)
    for _ in range(5):
        l = int(rng.integers(1, 6))
        n = rng.integers(0, 500, size=l).astype(float)
        k = np.floor(rng.random(l) * (n + 1))
        w = rng.dirichlet(np.ones(l))
        mean, var = ma.independent_moments(k, n, w)
        ref = stats.beta(k + 1, n - k + 1)
        assert mean == pytest.approx(float(np.sum(w * ref.mean())), rel=1e-14)
        assert var == pytest.approx(float(np.sum(w * w * ref.var())), rel=1e-12)


@pytest.mark.parametrize("T", [2, 3])
def test_paired_moments_against_brute_force_dirichlet(T):
    rng = np.random.default_rng(10 + T)
    for _ in range(6):
        l = int(rng.integers(1, 5))
        c = random_pattern_counts(rng, T, l)
        w = rng.dirichlet(np.ones(l))
        n, k, both = counts_to_k_both(c, T)
        mean, cov = ma.paired_moments(k, both.copy(), n, w)
        ref_mean, ref_cov = dirichlet_moments(c, w, T)
        np.testing.assert_allclose(mean, ref_mean, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(cov, ref_cov, rtol=1e-11, atol=1e-16)
        # each classifier's marginal is Beta(k + 1, n - k + 1) (the flat-prior posterior)
        beta = stats.beta(k + 1, n[:, None] - k + 1)
        np.testing.assert_allclose(
            np.diag(cov), np.sum((w * w)[:, None] * beta.var(), axis=0), rtol=1e-11
        )


def test_paired_moments_of_two_match_compare_paired():
    rng = np.random.default_rng(7)
    for l in (2, 3):
        n_ex = 90
        y_true = rng.integers(0, l, n_ex)
        y_true[:l] = np.arange(l)
        a = np.where(rng.random(n_ex) < 0.75, y_true, rng.integers(0, l, n_ex))
        b = np.where(rng.random(n_ex) < 0.6, y_true, rng.integers(0, l, n_ex))
        ra, rb = a == y_true, b == y_true
        n = np.array([np.sum(y_true == i) for i in range(l)], dtype=float)
        k = np.array(
            [[np.sum(ra & (y_true == i)), np.sum(rb & (y_true == i))] for i in range(l)],
            dtype=float,
        )
        both = np.zeros((l, 2, 2))
        for i in range(l):
            sel = y_true == i
            both[i] = [
                [np.sum(ra & sel), np.sum(ra & rb & sel)],
                [np.sum(ra & rb & sel), np.sum(rb & sel)],
            ]
        mean, cov = ma.paired_moments(k, both, n, np.full(l, 1.0 / l))
        res = bacc.compare_paired(y_true, a, b)
        assert mean[0] - mean[1] == pytest.approx(res.difference.mean(), abs=1e-12)
        assert cov[0, 0] + cov[1, 1] - 2 * cov[0, 1] == pytest.approx(
            res.difference.var(), abs=1e-12
        )


# --------------------------------------------------------------------------------------- fit
def _trapezoid_weights(f) -> np.ndarray:
    """The rule's weights in tau: trapezoidal in s = tau^(1/3), times d tau / d s = 3 s^2."""
    s = f.s_nodes
    np.testing.assert_allclose(s**3, f.tau, rtol=1e-12, atol=1e-300)
    h = np.diff(s)
    np.testing.assert_allclose(h, h[0], rtol=1e-9)  # equally spaced nodes in s
    w = np.full(s.size, h[0])
    w[0] *= 0.5
    w[-1] *= 0.5
    return w * 3.0 * s**2


def _log_prior(tau, kind, scale):
    d = stats.halfnorm(scale=scale) if kind == "half-normal" else stats.halfcauchy(scale=scale)
    return d.logpdf(tau)


@pytest.mark.parametrize(
    "prior",
    [
        ma.TauPrior(),
        ma.TauPrior("half-cauchy", 0.05),
        ma.TauPrior("half-normal", 0.2, effect_sd=0.03),
    ],
)
def test_fit_of_three_paired_classifiers_matches_gls(prior):
    rng = np.random.default_rng(21)
    y, S = paired_data(rng, 7, 3)
    y[:, 1] += rng.normal(0, 0.03, 7)  # some heterogeneity
    f = ma.fit(y, S, prior)
    assert f.weight.sum() == pytest.approx(1.0, abs=1e-13)
    assert f.tau.min() >= 0.0 and f.tau.max() <= 1.0
    K = difference_basis(3)
    M = K @ f.basis.T  # beta = M phi
    wq = _trapezoid_weights(f)
    logpost = []
    nodes = np.linspace(1, f.tau.size - 1, 9).astype(int)  # node 0 may be tau = 0 (weight 0)
    for i in nodes:
        mean, cov, logml = gls(y, S, float(f.tau[i]), prior.effect_sd)
        np.testing.assert_allclose(M @ f.phi[i], mean, rtol=1e-9, atol=1e-13)
        np.testing.assert_allclose(M @ f.phi_cov[i] @ M.T, cov, rtol=1e-9, atol=1e-16)
        logpost.append(logml + _log_prior(f.tau[i], prior.kind, prior.scale))
    # node weights = trapezoidal weight x posterior density of tau (up to a constant)
    ratio = np.log(f.weight[nodes] / wq[nodes]) - np.array(logpost)
    np.testing.assert_allclose(ratio - ratio[0], 0.0, atol=1e-8)


def test_fit_invariant_to_data_set_effects_and_classifier_order():
    rng = np.random.default_rng(5)
    y, S = paired_data(rng, 6, 3)
    prior = ma.TauPrior()
    f = ma.fit(y, S, prior)
    # a data-set difficulty shift (flat prior of u_j) changes nothing
    g = ma.fit(y + rng.normal(0, 0.1, (6, 1)), S, prior)
    np.testing.assert_allclose(g.weight, f.weight, rtol=1e-8, atol=1e-300)
    np.testing.assert_allclose(g.phi, f.phi, atol=1e-12)
    # permuting the classifiers permutes the pairwise differences
    perm = np.array([2, 0, 1])
    h = ma.fit(y[:, perm], S[:, perm][:, :, perm], prior)
    np.testing.assert_allclose(h.tau, f.tau, rtol=1e-12)
    for a, b in [(0, 1), (1, 2), (0, 2)]:
        pa, pb = int(np.flatnonzero(perm == a)[0]), int(np.flatnonzero(perm == b)[0])
        mf, sf = f.population(f.pair(a, b))
        mh, sh = h.population(h.pair(pa, pb))
        np.testing.assert_allclose(mh, mf, atol=1e-12)
        np.testing.assert_allclose(sh, sf, rtol=1e-9)


def test_common_effect_is_gls_at_tau_zero():
    rng = np.random.default_rng(8)
    y, S = paired_data(rng, 5, 4)
    f = ma.common_effect(y, S)
    mean, cov, _ = gls(y, S, 0.0)
    M = difference_basis(4) @ f.basis.T
    np.testing.assert_allclose(M @ f.phi[0], mean, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(M @ f.phi_cov[0] @ M.T, cov, rtol=1e-9)
    assert f.tau.tolist() == [0.0] and f.weight.tolist() == [1.0]


def test_data_set_difference_is_the_stacked_regression():
    rng = np.random.default_rng(12)
    m, T = 5, 3
    y, S = paired_data(rng, m, T)
    y[:, 2] += rng.normal(0, 0.05, m)
    f = ma.fit(y, S, ma.TauPrior(scale=0.2))
    C = f.basis
    z = y @ C.T
    Sc = np.einsum("ai,jib,cb->jac", C, S, C)
    d = T - 1
    g = f.pair(2, 0)
    for i in np.linspace(1, f.tau.size - 1, 5).astype(int):  # nodes with tau > 0
        t2 = float(f.tau[i]) ** 2
        for j in (0, 3):
            # unknowns x = (phi, a_j); rows: z_k = phi + noise (V_k), z_j = phi + a_j + eps_j,
            # and the prior of a_j as the pseudo-observation 0 = a_j + N(0, t2 I)
            X, obs, blocks = [], [], []
            for k in range(m):
                X.append(np.hstack([np.eye(d), np.eye(d) if k == j else np.zeros((d, d))]))
                obs.append(z[k])
                blocks.append(Sc[k] + (0.0 if k == j else t2) * np.eye(d))
            X.append(np.hstack([np.zeros((d, d)), np.eye(d)]))
            obs.append(np.zeros(d))
            blocks.append(t2 * np.eye(d))
            X, obs = np.vstack(X), np.concatenate(obs)
            Sig = np.zeros((X.shape[0], X.shape[0]))
            for r, B in enumerate(blocks):
                Sig[r * d : (r + 1) * d, r * d : (r + 1) * d] = B
            Si = np.linalg.inv(Sig)
            prec = X.T @ Si @ X
            post_cov = np.linalg.inv(prec)
            post_mean = post_cov @ X.T @ Si @ obs
            A = np.hstack([np.eye(d), np.eye(d)])  # w_j = phi + a_j
            ref_mean = g @ A @ post_mean
            ref_sd = np.sqrt(g @ A @ post_cov @ A.T @ g)
            mean, sd = f.data_set(g, j)
            assert mean[i] == pytest.approx(ref_mean, abs=1e-11)
            assert sd[i] == pytest.approx(ref_sd, rel=1e-7)


def test_population_and_predictive_sds():
    rng = np.random.default_rng(4)
    y, S = paired_data(rng, 6, 3)
    f = ma.fit(y, S, ma.TauPrior())
    g = f.pair(0, 2)
    mu, sd = f.population(g)
    pmu, psd = f.predictive(g)
    np.testing.assert_array_equal(pmu, mu)
    # a new data set adds the interaction of both classifiers: var + 2 tau^2
    np.testing.assert_allclose(psd**2, sd**2 + 2 * f.tau**2, rtol=1e-12)


def _tau_moments_two(d, v, scale):
    """E[tau] and E[tau^2] for two classifiers (half-normal prior, flat delta): the marginal
    posterior of tau in closed form given tau, by composite Gauss-Legendre on panels graded
    toward 0 (the reference converges to 1e-15 here)."""
    x, w = np.polynomial.legendre.leggauss(20)
    edges = np.unique(np.concatenate([[0.0], np.geomspace(1e-6, 1.0, 200)]))
    a, b = edges[:-1], edges[1:]
    t = (a[:, None] + (b - a)[:, None] / 2 * (x + 1)).ravel()
    wt = ((b - a)[:, None] / 2 * w).ravel()
    tot = v + 2 * t[:, None] ** 2
    W = (1 / tot).sum(axis=1)
    mu = (d / tot).sum(axis=1) / W
    lp = (
        -0.5 * np.log(tot).sum(axis=1)
        - 0.5 * np.log(W)
        - 0.5 * ((d * d / tot).sum(axis=1) - W * mu**2)
    )
    p = np.exp(lp - lp.max() - 0.5 * (t / scale) ** 2) * wt
    return float(np.sum(p * t) / p.sum()), float(np.sum(p * t * t) / p.sum())


def test_mean_of_tau_meets_the_rule_tolerance():
    # five precise data sets (about 200 examples each, d near 0.98, v near 1e-4) that agree:
    # the posterior of tau sits within ~0.01 of 0 while its range reaches ~0.7
    d = np.array([0.9802383, 0.97695558, 0.98194389, 0.98009259, 0.98433658])
    v = np.array([9.64366070e-05, 1.34153587e-04, 9.36651942e-05, 1.03227376e-04, 6.78950764e-05])
    y = np.stack([d / 2, -d / 2], axis=1)
    S = np.zeros((5, 2, 2))
    S[:, 0, 0] = S[:, 1, 1] = v / 2
    f = ma.fit(y, S, ma.TauPrior())
    m1, m2 = _tau_moments_two(d, v, 0.1)
    # E[tau^2] is even in tau: the rule gets it to the tolerance
    assert float(np.sum(f.weight * f.tau**2)) == pytest.approx(m2, rel=1e-9)
    assert float(np.sum(f.weight * f.tau)) == pytest.approx(m1, rel=1e-8)
    assert f.nodes_used < 8193


def test_factor_and_inverse_of_one_by_one_matrices_are_lapacks():
    """Two classifiers (one contrast): the shortcut's square roots and reciprocals are the very
    floats LAPACK's Cholesky factor and inverse give; larger matrices go to LAPACK."""
    from bacc._engine.meta_analysis import _factor_and_inverse

    rng = np.random.default_rng(3)
    a = rng.uniform(1e-8, 5.0, (40, 7, 1, 1))
    f, inv = _factor_and_inverse(a)
    assert f.tobytes() == np.linalg.cholesky(a).tobytes()
    assert inv.tobytes() == np.linalg.inv(a).tobytes()
    b = rng.normal(size=(5, 3, 3))
    b = b @ np.swapaxes(b, 1, 2) + 3 * np.eye(3)
    f, inv = _factor_and_inverse(b)
    np.testing.assert_allclose(f @ np.swapaxes(f, 1, 2), b, rtol=1e-12)
    np.testing.assert_allclose(inv @ b, np.broadcast_to(np.eye(3), b.shape), atol=1e-12)
