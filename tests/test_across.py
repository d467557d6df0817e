"""Claims of ``bacc.compare_across`` and ``bacc.rank_across`` (classifiers across data sets).

The model (``bacc._engine.meta_analysis``): data set ``j`` gives the posterior means ``y_j`` and
covariance ``S_j`` of the classifiers' balanced accuracies, and ``y_j = theta + u_j + e_j +
eps_j``, ``e_j ~ N(0, tau^2 I)``, ``eps_j ~ N(0, S_j)``. For two classifiers the difference
``d_j = y_Aj - y_Bj ~ N(delta, v_j + 2 tau^2)`` with ``v_j`` the variance of the data set's
difference, a flat prior on ``delta`` (or ``N(0, 2 effect_sd^2)``: ``delta = sqrt(2) phi``) and a
half-normal or half-Cauchy prior on ``tau`` truncated at 1.

References, written here and independent of the package:

* ``d_j, v_j`` from ``scipy.stats.beta`` moments of each class accuracy (independent test
  sets) or from the brute-force Dirichlet of the patterns of right answers (the same examples);
* two classifiers, method A: a dense two-dimensional Gauss-Legendre quadrature of the joint
  posterior density of ``(delta, tau)`` written from the normal likelihoods above (``delta``
  mapped affinely per ``tau`` so the panels follow the mass; 12 nodes in each of 28 (+ 28
  graded toward 0) panels of ``tau`` and 14 of ``delta``, checked against 20 (+ 20) x 10
  panels: the two agree to 1e-9, measured 1e-15);
* method B: given ``tau`` the conditional posterior of ``delta`` in closed form (inverse-variance
  weights), a new data set's difference and a data set's shrunken difference likewise, and
  ``tau`` integrated by composite Gauss-Legendre; method B agrees with method A to 1e-9 and
  gives the predictive and per-data-set answers;
* several classifiers: generalised least squares on the untransformed estimates (differences
  against classifier 0) given ``tau``, ``tau`` integrated as in method B, and ``P(best)`` and
  the rank probabilities from a seeded Monte Carlo sample of that posterior;
* the classical tests: ``scipy.stats.friedmanchisquare`` and ``scipy.stats.wilcoxon`` on
  sample balanced accuracies computed here, ranks by hand, Demšar (2006) Table 5(a) for
  Nemenyi's critical values, Holm's step-down procedure written here, and the exact
  signed-rank distribution by enumeration.

Tolerance against the package: 1e-9 on means, probabilities, interval ends and the mean of
the spread (measured: 1e-13, and 3e-10 when the posterior of ``tau`` reaches its bound 1);
1e-8 on the ends of the spread's interval (measured 3e-9).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import optimize, special, stats

import bacc
from bacc import BaccError

TOL = 1e-9

# ------------------------------------------------------------------------------- data helpers


def confusion(rng, n_per_class, acc):
    """A confusion matrix (rows true) with ``Binomial(n_i, acc_i)`` right answers per class,
    the errors spread over the other classes."""
    l = len(n_per_class)
    cm = np.zeros((l, l), dtype=np.int64)
    for i, (n, p) in enumerate(zip(n_per_class, acc, strict=True)):
        k = rng.binomial(n, p)
        cm[i, i] = k
        if l > 1 and n - k:
            others = [c for c in range(l) if c != i]
            cm[i, others] = rng.multinomial(n - k, np.full(l - 1, 1.0 / (l - 1)))
    return cm


def independent_moments(cm):
    """What the model reads from a confusion matrix: the sample balanced accuracy and the
    variance of its flat-prior posterior (classes without examples left out)."""
    cm = np.asarray(cm)
    n = cm.sum(axis=1).astype(float)
    k = np.diag(cm).astype(float)
    keep = n > 0
    beta = stats.beta(k[keep] + 1, n[keep] - k[keep] + 1)
    l = keep.sum()
    return float(np.mean(k[keep] / n[keep])), float(beta.var().sum() / l**2)


def sample_ba(cm):
    cm = np.asarray(cm, dtype=float)
    n = cm.sum(axis=1)
    keep = n > 0
    return float(np.mean(np.diag(cm)[keep] / n[keep]))


def pair_stats(a, b):
    """d_j, v_j of two classifiers' independent confusion matrices (dicts of equal keys)."""
    d, v = [], []
    for key in a:
        ma, va = independent_moments(a[key])
        mb, vb = independent_moments(b[key])
        d.append(ma - mb)
        v.append(va + vb)
    return np.array(d), np.array(v)


def pattern_moments(y_true, preds, T):
    """T classifiers on the same examples: the sample balanced accuracies (T,) and, by a
    brute-force Dirichlet (concentration 2^(1-T) per pattern plus the counts), the covariance
    (T, T) of their posterior."""
    pat = np.array(list(itertools.product([0, 1], repeat=T)), dtype=float)
    classes = np.unique(y_true)
    mean, cov = np.zeros(T), np.zeros((T, T))
    w = 1.0 / classes.size
    for c in classes:
        sel = y_true == c
        right = np.stack([p[sel] == c for p in preds], axis=1).astype(float)
        cnt = np.array([np.sum(np.all(right == q, axis=1)) for q in pat], dtype=float)
        alpha = cnt + 2.0 ** (1 - T)
        a0 = alpha.sum()
        cell = (np.diag(alpha) * a0 - np.outer(alpha, alpha)) / (a0 * a0 * (a0 + 1.0))
        mean += w * right.mean(axis=0)  # the estimate: the sample accuracy of the class
        cov += w * w * (pat.T @ cell @ pat)
    return mean, cov


def paired_stats(y_true, preds, groups, T):
    ys, Ss = [], []
    for g in np.unique(groups):
        sel = groups == g
        m, S = pattern_moments(y_true[sel], [p[sel] for p in preds], T)
        ys.append(m)
        Ss.append(S)
    return np.array(ys), np.array(Ss)


# --------------------------------------------------------------------------- quadrature (T = 2)


def gl_panels(edges, nodes):
    x, w = np.polynomial.legendre.leggauss(nodes)
    a, b = np.asarray(edges[:-1], dtype=float), np.asarray(edges[1:], dtype=float)
    half = (b - a) / 2
    return (a[:, None] + half[:, None] * (x + 1)).ravel(), (half[:, None] * w).ravel()


def tau_edges(lo, hi, panels):
    """Panel edges on [lo, hi]: uniform ones and ones graded toward lo (the mass of tau is
    often near 0 while its range reaches far)."""
    graded = lo + (hi - lo) * np.geomspace(1e-4, 1.0, panels)
    return np.unique(np.concatenate([np.linspace(lo, hi, panels + 1), graded]))


def log_prior_tau(tau, kind, scale):
    x = tau / scale
    return -0.5 * x * x if kind == "half-normal" else -np.log1p(x * x)


class PairPosterior:
    """The posterior of ``delta`` and ``tau`` for two classifiers from ``d_j, v_j``."""

    def __init__(
        self, d, v, kind="half-normal", scale=0.1, effect_sd=None, panels=(28, 14), nodes=12
    ):
        self.d, self.v = np.asarray(d, float), np.asarray(v, float)
        self.kind, self.scale, self.esd = kind, scale, effect_sd
        self.prec0 = 0.0 if effect_sd is None else 1.0 / (2.0 * effect_sd**2)  # delta = sqrt(2) phi
        self.nodes = nodes
        self.tp, self.xp = panels
        # range of tau: where the marginal log posterior is within 45 of its peak
        scan = np.concatenate([[0.0], np.geomspace(1e-8, 1.0, 4000)])
        lp = self.conditional(scan)[0]
        inside = np.flatnonzero(lp > lp.max() - 45.0)
        self.lo_t = 0.0 if inside[0] == 0 else scan[inside[0] - 1]
        self.hi_t = scan[min(inside[-1] + 1, scan.size - 1)]
        self.T, self.WT = gl_panels(tau_edges(self.lo_t, self.hi_t, self.tp), nodes)
        lp, self.mu, self.var = self.conditional(self.T)
        self.w = np.exp(lp - lp.max()) * self.WT
        self.w /= self.w.sum()
        self._method_a()

    # method B: closed forms given tau
    def conditional(self, tau):
        tot = self.v + 2.0 * tau[:, None] ** 2
        w = 1.0 / tot
        W = w.sum(axis=1) + self.prec0
        mu = (w * self.d).sum(axis=1) / W
        lp = (
            -0.5 * np.log(tot).sum(axis=1)
            - 0.5 * np.log(W)
            - 0.5 * ((w * self.d**2).sum(axis=1) - W * mu**2)
        )
        return lp + log_prior_tau(tau, self.kind, self.scale), mu, 1.0 / W

    def mixture_cdf(self, mean, sd):
        return lambda x: float(np.sum(self.w * special.ndtr((x - mean) / sd)))

    def quantile(self, cdf, q, lo=-2.0, hi=2.0):
        return optimize.brentq(lambda x: cdf(x) - q, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)

    def population(self):
        return self.mu, np.sqrt(self.var)

    def predictive(self):
        return self.mu, np.sqrt(self.var + 2.0 * self.T**2)

    def data_set(self, j):
        B = 2.0 * self.T**2 / (self.v[j] + 2.0 * self.T**2)
        mean = (1 - B) * self.mu + B * self.d[j]
        return mean, np.sqrt((1 - B) ** 2 * self.var + 2.0 * self.T**2 * (1 - B))

    # method A: the joint density of (delta, tau), two-dimensional Gauss-Legendre
    def _log_joint(self, delta, tau):
        tot = self.v + 2.0 * tau[..., None] ** 2
        ll = -0.5 * (np.log(tot) + (self.d - delta[..., None]) ** 2 / tot).sum(axis=-1)
        ll = ll + log_prior_tau(tau, self.kind, self.scale)
        return ll - self.prec0 * delta**2 / 2.0

    def _method_a(self, half=13.0):
        # delta = c(tau) + s(tau) x: an affine change of variables per tau (any smooth c, s will
        # do; these follow the mass)
        self.c, self.s = self.mu, np.sqrt(self.var)
        X, WX = gl_panels(np.linspace(-half, half, self.xp + 1), self.nodes)
        self.half = half
        L = self._log_joint(
            self.c + self.s * X[:, None], np.broadcast_to(self.T, (X.size, self.T.size))
        )
        self.top = L.max()
        P = np.exp(L - self.top) * WX[:, None] * (self.WT * self.s)
        self.Z = P.sum()
        self.P = P / self.Z
        self.D = self.c + self.s * X[:, None]
        border = self._log_joint(
            self.c + self.s * np.array([[-half], [half]]), np.broadcast_to(self.T, (2, self.T.size))
        )
        self.border = float(np.exp(border.max() - self.top))

    def cdf_a(self, x):
        xg, wg = np.polynomial.legendre.leggauss(self.nodes)
        up = np.clip((x - self.c) / self.s, -self.half, self.half)
        edges = -self.half + (up + self.half) * np.linspace(0, 1, self.xp + 1)[:, None]
        a, b = edges[:-1], edges[1:]
        hw = (b - a) / 2
        X = (a[:, None] + hw[:, None] * (xg[None, :, None] + 1)).reshape(-1, self.T.size)
        W = (hw[:, None] * wg[None, :, None]).reshape(-1, self.T.size)
        L = self._log_joint(self.c + self.s * X, np.broadcast_to(self.T, X.shape))
        return float((np.exp(L - self.top) * W * (self.WT * self.s)).sum() / self.Z)

    def mean_a(self):
        return float((self.P * self.D).sum())

    def tau_mean_a(self):
        return float((self.P.sum(axis=0) * self.T).sum())


def pair_reference(d, v, prior=None, rope=0.01, confidence=0.95):
    p = prior or {}
    kw = dict(
        kind=p.get("tau", "half-normal"),
        scale=p.get("tau_scale", 0.1),
        effect_sd=p.get("effect_sd"),
    )
    fine = PairPosterior(d, v, **kw)
    coarse = PairPosterior(d, v, panels=(20, 10), **kw)
    assert fine.border < 1e-30 and coarse.border < 1e-30
    lo_q, hi_q = (1 - confidence) / 2, (1 + confidence) / 2
    # method A
    ref = {
        "mean": fine.mean_a(),
        "p_better": 1.0 - fine.cdf_a(0.0),
        "p_left": fine.cdf_a(-rope),
        "p_right": 1.0 - fine.cdf_a(rope),
        "spread": math.sqrt(2.0) * fine.tau_mean_a(),
    }
    ref["p_rope"] = 1.0 - ref["p_left"] - ref["p_right"]
    # the grid: a coarser one agrees
    assert coarse.mean_a() == pytest.approx(ref["mean"], abs=1e-9)
    assert 1.0 - coarse.cdf_a(0.0) == pytest.approx(ref["p_better"], abs=1e-9)
    assert math.sqrt(2.0) * coarse.tau_mean_a() == pytest.approx(ref["spread"], abs=1e-9)
    # method B agrees with method A; its quantiles are those of method A's distribution
    pm, ps = fine.population()
    cdf_b = fine.mixture_cdf(pm, ps)
    assert float(np.sum(fine.w * pm)) == pytest.approx(ref["mean"], abs=1e-9)
    assert 1.0 - cdf_b(0.0) == pytest.approx(ref["p_better"], abs=1e-9)
    assert math.sqrt(2.0) * float(np.sum(fine.w * fine.T)) == pytest.approx(ref["spread"], abs=1e-9)
    ref["lower"] = fine.quantile(cdf_b, lo_q)
    ref["upper"] = fine.quantile(cdf_b, hi_q)
    assert fine.cdf_a(ref["lower"]) == pytest.approx(lo_q, abs=1e-10)
    assert fine.cdf_a(ref["upper"]) == pytest.approx(hi_q, abs=1e-10)
    # method B: a new data set, and each data set's shrunken difference
    qm, qs = fine.predictive()
    cdf_q = fine.mixture_cdf(qm, qs)
    ref["predictive_mean"] = float(np.sum(fine.w * qm))
    ref["predictive_left"] = cdf_q(-rope)
    ref["predictive_right"] = 1.0 - cdf_q(rope)
    ref["predictive_rope"] = 1.0 - ref["predictive_left"] - ref["predictive_right"]
    ref["predictive_upper"] = fine.quantile(cdf_q, hi_q)
    ref["data_sets"] = []
    for j in range(len(d)):
        jm, js = fine.data_set(j)
        cdf_j = fine.mixture_cdf(jm, js)
        ref["data_sets"].append(
            {
                "mean": float(np.sum(fine.w * jm)),
                "p_better": 1.0 - cdf_j(0.0),
                "lower": fine.quantile(cdf_j, lo_q),
                "upper": fine.quantile(cdf_j, hi_q),
            }
        )
    ref["posterior"] = fine
    return ref


def tau_quantile(post: PairPosterior, q):
    """Quantile of tau by composite Gauss-Legendre of its marginal posterior (method B)."""
    top = post.conditional(post.T)[0].max()

    def mass(t):
        x, w = gl_panels(np.linspace(post.lo_t, t, 65), 12)
        return float(np.sum(np.exp(post.conditional(x)[0] - top) * w))

    total = mass(post.hi_t)
    return optimize.brentq(
        lambda t: mass(t) / total - q, post.lo_t, post.hi_t, xtol=1e-15, rtol=1e-14
    )


def check_pair(res, ref):
    for key in (
        "mean",
        "p_better",
        "p_left",
        "p_rope",
        "p_right",
        "lower",
        "upper",
        "predictive_left",
        "predictive_rope",
        "predictive_right",
    ):
        assert getattr(res, key) == pytest.approx(ref[key], abs=TOL), key
    assert res.spread == pytest.approx(ref["spread"], abs=TOL)
    post = ref["posterior"]
    # tau's quantiles come from a cubic spline through its density at the rule's nodes (error
    # of order h^4): 1e-7 in the spread, measured 1e-8 at worst
    for got, q in ((res.spread_lower, 0.025), (res.spread_upper, 0.975)):
        assert got == pytest.approx(math.sqrt(2) * tau_quantile(post, q), abs=1e-7)
    assert res.predictive.mean() == pytest.approx(ref["predictive_mean"], abs=TOL)
    assert res.predictive.interval(0.95)[1] == pytest.approx(ref["predictive_upper"], abs=TOL)
    assert res.difference.mean() == pytest.approx(ref["mean"], abs=TOL)
    for got, want in zip(res.data_set_differences, ref["data_sets"], strict=True):
        assert got.shrunken_mean == pytest.approx(want["mean"], abs=TOL)
        assert got.shrunken_lower == pytest.approx(want["lower"], abs=TOL)
        assert got.shrunken_upper == pytest.approx(want["upper"], abs=TOL)
        assert got.p_better == pytest.approx(want["p_better"], abs=TOL)


def independent_pair(seed=0, m=8, shift=0.02, hetero=0.03):
    """Two classifiers' confusion matrices on m data sets of 2-3 classes and varied sizes; a
    three-class data set with one class absent."""
    rng = np.random.default_rng(seed)
    a, b = {}, {}
    for j in range(m):
        l = 2 + j % 2
        n = rng.integers(10, 800, size=l)
        if j == 3:
            n[-1] = 0
        base = rng.uniform(0.6, 0.85, l)
        e = rng.normal(0, hetero, 2)
        a[f"set{j}"] = confusion(rng, n, np.clip(base + shift + e[0], 0.02, 0.98))
        b[f"set{j}"] = confusion(rng, n, np.clip(base + e[1], 0.02, 0.98))
    return a, b


# --------------------------------------------------------------------- two classifiers: model
PRIORS = [
    None,
    {"tau": "half-cauchy", "tau_scale": 0.05},
    {"effect_sd": 0.02},
    {"tau": "half-normal", "tau_scale": 1.0},
]


@pytest.mark.parametrize("prior", PRIORS, ids=["default", "half-cauchy", "effect_sd", "huge_scale"])
def test_pair_of_independent_test_sets_against_quadrature(prior):
    a, b = independent_pair()
    d, v = pair_stats(a, b)
    res = bacc.compare_across(a, b, prior=prior)
    # the data sets' own differences are the independent moments
    for got, dj, vj in zip(res.data_set_differences, d, v, strict=True):
        assert got.mean == pytest.approx(dj, abs=1e-14)
        assert got.sd == pytest.approx(math.sqrt(vj), rel=1e-12)
        lo, hi = stats.norm(dj, math.sqrt(vj)).interval(0.95)
        assert (got.lower, got.upper) == pytest.approx((lo, hi), abs=1e-12)
    check_pair(res, pair_reference(d, v, prior))


def test_pair_heterogeneous_with_spread_near_its_bound():
    # differences of +-0.3 between data sets: the posterior of tau reaches the truncation at 1
    a, b = independent_pair(seed=3, m=6, shift=0.0, hetero=0.3)
    d, v = pair_stats(a, b)
    prior = {"tau": "half-cauchy", "tau_scale": 1.0}
    ref = pair_reference(d, v, prior)
    assert ref["posterior"].hi_t == 1.0
    check_pair(bacc.compare_across(a, b, prior=prior), ref)


def test_pair_same_examples_against_quadrature():
    rng = np.random.default_rng(11)
    m = 7
    sizes = rng.integers(15, 400, m)
    groups = np.repeat(np.arange(m), sizes)
    y = rng.integers(0, 3, groups.size)
    skill = rng.uniform(0.55, 0.85, m)[groups]
    pa = np.where(rng.random(y.size) < skill + 0.03, y, rng.integers(0, 3, y.size))
    # B agrees with A often (correlated answers)
    pb = np.where(
        rng.random(y.size) < 0.7, pa, np.where(rng.random(y.size) < skill, y, (y + 1) % 3)
    )
    ys, Ss = paired_stats(y, [pa, pb], groups, 2)
    d = ys[:, 0] - ys[:, 1]
    v = Ss[:, 0, 0] + Ss[:, 1, 1] - 2 * Ss[:, 0, 1]
    res = bacc.compare_across(y, {"A": pa, "B": pb}, groups=groups)
    assert res.paired
    for got, dj, vj in zip(res.data_set_differences, d, v, strict=True):
        assert got.mean == pytest.approx(dj, abs=1e-14)
        assert got.sd == pytest.approx(math.sqrt(vj), rel=1e-10)
        lo, hi = stats.norm(dj, math.sqrt(vj)).interval(0.95)
        assert (got.lower, got.upper) == pytest.approx((lo, hi), abs=1e-10)
    check_pair(res, pair_reference(d, v))


def test_spread_interval_is_the_quantiles_of_the_spread():
    a, b = independent_pair()
    d, v = pair_stats(a, b)
    res = bacc.compare_across(a, b)
    post = PairPosterior(d, v)
    assert res.spread_lower == pytest.approx(math.sqrt(2) * tau_quantile(post, 0.025), abs=1e-8)
    assert res.spread_upper == pytest.approx(math.sqrt(2) * tau_quantile(post, 0.975), abs=1e-8)


# ----------------------------------------------------------------------- several classifiers


class RankReference:
    """Several classifiers: GLS given tau (differences against classifier 0), tau integrated
    by composite Gauss-Legendre over the range where its log posterior is within 45 of the peak."""

    def __init__(self, y, S, kind="half-normal", scale=0.1, effect_sd=None, panels=24, nodes=12):
        self.y, self.S = np.asarray(y, float), np.asarray(S, float)
        m, self.Tc = self.y.shape
        K = np.hstack([-np.ones((self.Tc - 1, 1)), np.eye(self.Tc - 1)])
        self.D = self.y @ K.T
        self.KS = np.einsum("ai,jib,cb->jac", K, self.S, K)
        self.KK = K @ K.T
        self.P0 = (
            np.zeros_like(self.KK) if effect_sd is None else np.linalg.inv(effect_sd**2 * self.KK)
        )
        self.kind, self.scale = kind, scale
        scan = np.concatenate([[0.0], np.geomspace(1e-8, 1.0, 1500)])
        lp = self._cond(scan)[0]
        inside = np.flatnonzero(lp > lp.max() - 45.0)
        lo = 0.0 if inside[0] == 0 else scan[inside[0] - 1]
        hi = scan[min(inside[-1] + 1, scan.size - 1)]
        self.tau, wt = gl_panels(tau_edges(lo, hi, panels), nodes)
        lp, self.mean, self.cov = self._cond(self.tau)
        self.w = np.exp(lp - lp.max()) * wt
        self.w /= self.w.sum()

    def _cond(self, tau):
        W = self.KS[None] + (tau**2)[:, None, None, None] * self.KK
        Wi = np.linalg.inv(W)
        P = Wi.sum(axis=1) + self.P0
        b = np.einsum("kjab,jb->ka", Wi, self.D)
        cov = np.linalg.inv(P)
        mean = np.einsum("kab,kb->ka", cov, b)
        quad = np.einsum("ja,kjab,jb->k", self.D, Wi, self.D) - np.einsum("ka,ka->k", b, mean)
        lp = -0.5 * (np.linalg.slogdet(W)[1].sum(axis=1) + np.linalg.slogdet(P)[1] + quad)
        return lp + log_prior_tau(tau, self.kind, self.scale), mean, cov

    def theta(self, mean):
        """(K, T) classifier effects up to a constant (classifier 0 at zero)."""
        return np.concatenate([np.zeros(mean.shape[:-1] + (1,)), mean], axis=-1)

    def diff(self, s, t):
        g = np.zeros(self.Tc - 1)
        if s:
            g[s - 1] += 1.0
        if t:
            g[t - 1] -= 1.0
        return self.mean @ g, np.sqrt(np.einsum("i,kij,j->k", g, self.cov, g))

    def prob_greater(self, s, t, rope):
        mu, sd = self.diff(s, t)
        return float(np.sum(self.w * special.ndtr((mu - rope) / sd)))

    def prob_equivalent(self, s, t, rope):
        mu, sd = self.diff(s, t)
        return float(
            np.sum(self.w * (special.ndtr((rope - mu) / sd) - special.ndtr((-rope - mu) / sd)))
        )

    def effect(self, t):
        """Mean of theta_t - mean(theta)."""
        g = -np.full(self.Tc - 1, 1.0 / self.Tc)
        if t:
            g[t - 1] += 1.0
        return float(np.sum(self.w * (self.mean @ g)))

    def draws(self, n, seed):
        rng = np.random.default_rng(seed)
        counts = rng.multinomial(n, self.w)
        out = []
        for k in np.flatnonzero(counts):
            out.append(rng.multivariate_normal(self.mean[k], self.cov[k], size=counts[k]))
        return self.theta(np.concatenate(out))


def independent_many(seed, T, m, skill=(0.0, 0.015, 0.03), hetero=0.02):
    rng = np.random.default_rng(seed)
    res = {f"c{t}": {} for t in range(T)}
    for j in range(m):
        l = 2 + (j % 3 == 0)
        n = rng.integers(20, 600, size=l)
        base = rng.uniform(0.6, 0.85, l)
        for t in range(T):
            acc = np.clip(base + skill[t] + rng.normal(0, hetero), 0.02, 0.98)
            res[f"c{t}"][f"d{j}"] = confusion(rng, n, acc)
    return res


def check_ranking(r, ref, rope=0.01, n_mc=400_000):
    Tc = ref.Tc
    strict = np.zeros((Tc, Tc))
    for s in range(Tc):
        for t in range(Tc):
            if s != t:
                assert r.p_greater[s, t] == pytest.approx(ref.prob_greater(s, t, rope), abs=TOL)
                assert r.p_equivalent[s, t] == pytest.approx(
                    ref.prob_equivalent(s, t, rope), abs=TOL
                )
                strict[s, t] = ref.prob_greater(s, t, 0.0)
    np.testing.assert_allclose(r.expected_rank, 1.0 + strict.sum(axis=0), atol=TOL)
    np.testing.assert_allclose(r.effect, [ref.effect(t) for t in range(Tc)], atol=TOL)
    # P(best) and the rank probabilities: Monte Carlo against Monte Carlo, within 4 sd
    th = ref.draws(n_mc, seed=2024)
    rank = np.argsort(np.argsort(-th, axis=1), axis=1)
    mine = np.stack([np.bincount(rank[:, t], minlength=Tc) for t in range(Tc)]) / n_mc
    sd = np.sqrt(mine * (1 - mine) * (1.0 / n_mc + 1.0 / r.n_draws)) + 1e-12
    assert np.all(np.abs(r.rank_probabilities - mine) < 4 * sd + 1e-6)
    assert np.all(np.abs(r.p_best - mine[:, 0]) < 4 * sd[:, 0] + 1e-6)
    np.testing.assert_allclose(r.rank_probabilities.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(r.rank_probabilities.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize(
    "prior",
    [None, {"tau": "half-cauchy", "tau_scale": 0.05, "effect_sd": 0.03}],
    ids=["default", "cauchy_effect_sd"],
)
def test_rank_three_independent_against_gls_quadrature(prior):
    res = independent_many(5, 3, 9)
    ys = np.array([[independent_moments(res[c][d])[0] for c in res] for d in res["c0"]])
    S = np.array([np.diag([independent_moments(res[c][d])[1] for c in res]) for d in res["c0"]])
    p = prior or {}
    ref = RankReference(
        ys, S, p.get("tau", "half-normal"), p.get("tau_scale", 0.1), p.get("effect_sd")
    )
    coarse = RankReference(
        ys, S, p.get("tau", "half-normal"), p.get("tau_scale", 0.1), p.get("effect_sd"), panels=16
    )
    assert coarse.prob_greater(2, 0, 0.01) == pytest.approx(ref.prob_greater(2, 0, 0.01), abs=1e-10)
    r = bacc.rank_across(res, prior=prior, n_draws=100_000, random_state=1)
    check_ranking(r, ref)
    # the mean sample balanced accuracies are descriptive
    want = [np.mean([sample_ba(res[c][d]) for d in res[c]]) for c in res]
    np.testing.assert_allclose(r.mean_sample_balanced_accuracy, want, rtol=1e-14)


def test_rank_four_same_examples_against_gls_quadrature():
    rng = np.random.default_rng(17)
    m, Tc = 6, 4
    sizes = rng.integers(40, 300, m)
    groups = np.repeat(np.arange(m), sizes)
    y = rng.integers(0, 2, groups.size)
    skill = rng.uniform(0.6, 0.8, m)[groups]
    common = rng.random(y.size)  # shared difficulty of an example: correlated answers
    preds = {}
    for t, bonus in enumerate([0.0, 0.02, 0.04, 0.01]):
        own = 0.6 * common + 0.4 * rng.random(y.size)
        preds[f"m{t}"] = np.where(own < skill + bonus, y, 1 - y)
    ys, Ss = paired_stats(y, list(preds.values()), groups, Tc)
    ref = RankReference(ys, Ss)
    r = bacc.rank_across(y, preds, groups=groups, n_draws=100_000, random_state=3)
    assert r.paired
    check_ranking(r, ref)


def test_rank_of_two_is_the_comparison():
    a, b = independent_pair(seed=4)
    c = bacc.compare_across(a, b)
    r = bacc.rank_across({"A": a, "B": b}, n_draws=1000)
    assert r.p_greater[0, 1] == pytest.approx(c.p_right, abs=1e-12)
    assert r.p_greater[1, 0] == pytest.approx(c.p_left, abs=1e-12)
    assert r.p_equivalent[0, 1] == pytest.approx(c.p_rope, abs=1e-12)
    assert r.expected_rank[0] == pytest.approx(2.0 - c.p_better, abs=1e-12)
    assert r.spread * math.sqrt(2) == pytest.approx(c.spread, rel=1e-12)


# ------------------------------------------------------------------------ closed-form edges


@pytest.mark.parametrize("prior", [None, {"tau": "half-cauchy"}])
def test_fixed_effects_is_the_inverse_variance_mean(prior):
    a, b = independent_pair(seed=1)
    d, v = pair_stats(a, b)
    res = bacc.compare_across(a, b, prior=prior, rope=0.015)
    w = 1.0 / v
    mean = float(np.sum(w * d) / np.sum(w))
    sd = float(1.0 / np.sqrt(np.sum(w)))
    fx = res.fixed_effects
    assert fx["mean"] == pytest.approx(mean, abs=1e-14)
    assert fx["sd"] == pytest.approx(sd, rel=1e-12)
    assert fx["p_better"] == pytest.approx(stats.norm.sf(0.0, mean, sd), abs=1e-13)
    assert fx["p_left"] == pytest.approx(stats.norm.cdf(-0.015, mean, sd), abs=1e-13)
    assert fx["p_right"] == pytest.approx(stats.norm.sf(0.015, mean, sd), abs=1e-13)
    assert fx["p_rope"] == pytest.approx(
        stats.norm.cdf(0.015, mean, sd) - stats.norm.cdf(-0.015, mean, sd), abs=1e-13
    )


def test_tiny_spread_prior_gives_the_common_effect_and_huge_one_a_wider_answer():
    a, b = independent_pair(seed=1, hetero=0.05)
    d, v = pair_stats(a, b)
    w = 1.0 / v
    mean, sd = np.sum(w * d) / np.sum(w), 1.0 / np.sqrt(np.sum(w))
    tiny = bacc.compare_across(a, b, prior={"tau_scale": 1e-7})
    # tau < ~1e-6 changes every weight by a relative 2 tau^2 / v_j < 1e-7
    assert tiny.mean == pytest.approx(mean, abs=1e-9)
    assert tiny.difference.std() == pytest.approx(sd, rel=1e-6)
    assert tiny.p_better == pytest.approx(stats.norm.sf(0.0, mean, sd), abs=1e-7)
    assert tiny.spread < 1e-6
    huge = bacc.compare_across(a, b, prior={"tau": "half-cauchy", "tau_scale": 1.0})
    check_pair(huge, pair_reference(d, v, {"tau": "half-cauchy", "tau_scale": 1.0}))
    assert huge.upper - huge.lower > 1.5 * (tiny.upper - tiny.lower)


def test_identical_data_sets():
    rng = np.random.default_rng(2)
    cma, cmb = confusion(rng, [150, 90], [0.8, 0.75]), confusion(rng, [150, 90], [0.7, 0.72])
    m = 5
    a = {j: cma for j in range(m)}
    b = {j: cmb for j in range(m)}
    d0 = independent_moments(cma)[0] - independent_moments(cmb)[0]
    v0 = independent_moments(cma)[1] + independent_moments(cmb)[1]
    res = bacc.compare_across(a, b)
    # every node's conditional mean is the common d: the posterior is symmetric about it
    assert res.mean == pytest.approx(d0, abs=1e-14)
    for x in (0.001, 0.01, 0.05):
        assert res.difference.cdf(d0 - x) + res.difference.cdf(d0 + x) == pytest.approx(
            1.0, abs=1e-13
        )
    assert res.lower + res.upper == pytest.approx(2 * d0, abs=1e-11)
    for ds in res.data_set_differences:
        assert ds.shrunken_mean == pytest.approx(d0, abs=1e-14)
    assert res.fixed_effects["sd"] == pytest.approx(math.sqrt(v0 / m), rel=1e-12)
    check_pair(res, pair_reference(np.full(m, d0), np.full(m, v0)))


def test_small_data_set_counts_for_less_than_a_large_one():
    rng = np.random.default_rng(9)
    a, b = {}, {}
    for j in range(4):  # four moderate data sets with a small difference
        a[j] = confusion(rng, [300, 300], [0.8, 0.8])
        b[j] = confusion(rng, [300, 300], [0.79, 0.79])
    base = bacc.compare_across(a, b).mean
    out = {}
    # one more data set, of 20 or 20 000 examples (two classes of `size`), with a large difference
    for size in (10, 10_000):
        k_a, k_b = round(0.95 * size), round(0.65 * size)
        a2 = {**a, "x": [[k_a, size - k_a], [size - k_a, k_a]]}
        b2 = {**b, "x": [[k_b, size - k_b], [size - k_b, k_b]]}
        out[size] = bacc.compare_across(a2, b2)
        d, v = pair_stats(a2, b2)
        check_pair(out[size], pair_reference(d, v))
    d_x = out[10].data_set_differences[-1].mean
    assert d_x > 0.2
    shift_small, shift_big = out[10].mean - base, out[10_000].mean - base
    assert 0 < shift_small < shift_big
    # the population mean moves toward the large data set
    assert abs(out[10_000].mean - out[10_000].data_set_differences[-1].mean) < abs(
        out[10].mean - out[10].data_set_differences[-1].mean
    )


def test_perfect_and_all_wrong_classifiers():
    rng = np.random.default_rng(6)
    a, b = {}, {}
    for j in range(5):
        n = rng.integers(5, 200, 2)
        a[j] = np.diag(n)  # all right
        b[j] = np.array([[0, n[0]], [n[1], 0]])  # all wrong
    d, v = pair_stats(a, b)
    res = bacc.compare_across(a, b)
    assert res.p_better == pytest.approx(1.0, abs=1e-12)
    check_pair(res, pair_reference(d, v))
    same = bacc.compare_across(a, {k: m.copy() for k, m in a.items()})  # both perfect
    assert same.mean == pytest.approx(0.0, abs=1e-15)
    assert same.p_better == pytest.approx(0.5, abs=1e-13)


def test_one_example_per_class():
    rng = np.random.default_rng(8)
    a, b = {}, {}
    for j in range(6):
        ka, kb = rng.integers(0, 2, 2), rng.integers(0, 2, 2)
        a[j] = [[ka[0], 1 - ka[0]], [1 - ka[1], ka[1]]]
        b[j] = [[kb[0], 1 - kb[0]], [1 - kb[1], kb[1]]]
    d, v = pair_stats(a, b)
    check_pair(bacc.compare_across(a, b), pair_reference(d, v))


def test_identical_classifiers_give_a_symmetric_answer():
    rng = np.random.default_rng(0)
    m, n = 5, 40
    y = rng.integers(0, 2, m * n)
    g = np.repeat(np.arange(m), n)
    p = np.where(rng.random(m * n) < 0.8, y, 1 - y)
    res = bacc.compare_across(y, {"A": p, "B": p.copy()}, groups=g)
    assert res.mean == pytest.approx(0.0, abs=1e-15)
    assert res.p_better == pytest.approx(0.5, abs=1e-14)
    assert res.p_left == pytest.approx(res.p_right, abs=1e-14)
    assert res.lower == pytest.approx(-res.upper, abs=1e-12)
    for x in (0.003, 0.03):
        assert res.difference.cdf(-x) + res.difference.cdf(x) == pytest.approx(1.0, abs=1e-14)
    assert res.predictive_left == pytest.approx(res.predictive_right, abs=1e-14)
    for ds in res.data_set_differences:
        assert ds.sample_difference == 0.0 and ds.mean == 0.0
        assert ds.p_better == pytest.approx(0.5, abs=1e-14)
    ys, Ss = paired_stats(y, [p, p], g, 2)
    v = Ss[:, 0, 0] + Ss[:, 1, 1] - 2 * Ss[:, 0, 1]  # > 0: the prior's discordant cells
    check_pair(res, pair_reference(np.zeros(m), v))


# ---------------------------------------------------------------------------- classical tests


def hand_ranks(sample):
    """Rank 1 = highest; ties share the average of their ranks."""
    m, T = sample.shape
    out = np.empty((m, T))
    for j in range(m):
        for t in range(T):
            above = np.sum(sample[j] > sample[j, t])
            ties = np.sum(sample[j] == sample[j, t])
            out[j, t] = above + (ties + 1) / 2.0
    return out


def holm(p):
    """Holm's step-down adjusted p-values."""
    p = np.asarray(p, float)
    M = p.size
    order = np.argsort(p)
    adj = np.empty(M)
    best = 0.0
    for i, idx in enumerate(order):
        best = max(best, min(1.0, (M - i) * p[idx]))
        adj[idx] = best
    return adj


DEMSAR_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850}


@pytest.mark.parametrize("T", [3, 4, 6])
def test_friedman_nemenyi_holm(T):
    res = independent_many(30 + T, T, 8, skill=tuple(0.012 * t for t in range(T)), hetero=0.01)
    # a tie on one data set: two classifiers with the same matrix
    res["c1"]["d2"] = res["c0"]["d2"].copy()
    r = bacc.rank_across(res, n_draws=1000)
    sample = np.array([[sample_ba(res[c][d]) for c in res] for d in res["c0"]])
    m = sample.shape[0]
    fr = stats.friedmanchisquare(*sample.T)
    ct = r.classical
    assert ct.test == "friedman"
    assert ct.statistic == pytest.approx(fr.statistic, rel=1e-12)
    assert ct.p_value == pytest.approx(fr.pvalue, rel=1e-10)
    ranks = hand_ranks(sample)
    np.testing.assert_allclose(ct.average_ranks, ranks.mean(axis=0), rtol=1e-14)
    se = math.sqrt(T * (T + 1) / (6.0 * m))
    assert ct.critical_difference == pytest.approx(DEMSAR_Q05[T] * se, abs=1e-3 * se)
    iu = np.triu_indices(T, 1)
    avg = ranks.mean(axis=0)
    praw = [2 * stats.norm.sf(abs(avg[s] - avg[t]) / se) for s, t in zip(*iu, strict=True)]
    adj = holm(praw)
    got = np.array(ct.holm)
    np.testing.assert_allclose(got[iu], adj, rtol=1e-12)
    np.testing.assert_allclose(got.T[iu], adj, rtol=1e-12)
    np.testing.assert_array_equal(np.diag(got), 1.0)
    wins = [[int(np.sum(sample[:, s] > sample[:, t])) for t in range(T)] for s in range(T)]
    assert [list(w) for w in ct.wins] == wins


def test_nemenyi_critical_values_of_demsar_table():
    # q_0.05 of Demšar (2006), Table 5(a), for k = 3..6 (k = 2 is Wilcoxon's test here)
    for T in (3, 4, 5, 6):
        res = independent_many(40 + T, T, 4, skill=tuple(0.01 * t for t in range(T)))
        ct = bacc.rank_across(res, n_draws=1000).classical
        q = ct.critical_difference / math.sqrt(T * (T + 1) / (6.0 * 4))
        assert q == pytest.approx(DEMSAR_Q05[T], abs=1e-3)


def exact_signed_rank_p(d):
    """Two-sided exact p of Wilcoxon's signed-rank test (no zeros, no ties) by enumeration."""
    n = d.size
    r = stats.rankdata(np.abs(d))
    w_plus = r[d > 0].sum()
    signs = np.array(list(itertools.product([0, 1], repeat=n)), dtype=float)
    dist = signs @ r
    p_lo = np.mean(dist <= w_plus)
    p_hi = np.mean(dist >= w_plus)
    return min(1.0, 2 * min(p_lo, p_hi))


def test_wilcoxon_for_two():
    a, b = independent_pair(seed=12, m=9)
    res = bacc.compare_across(a, b)
    sample = np.array([[sample_ba(a[k]), sample_ba(b[k])] for k in a])
    dd = sample[:, 0] - sample[:, 1]
    assert np.all(dd != 0) and np.unique(np.abs(dd)).size == dd.size
    ct = res.classical
    assert ct.test == "wilcoxon"
    assert ct.p_value == pytest.approx(exact_signed_rank_p(dd), rel=1e-12)
    assert ct.p_value == pytest.approx(stats.wilcoxon(dd).pvalue, rel=1e-12)
    np.testing.assert_allclose(ct.average_ranks, hand_ranks(sample).mean(axis=0), rtol=1e-14)
    assert ct.wins == ((0, int(np.sum(dd > 0))), (int(np.sum(dd < 0)), 0))
    assert ct.critical_difference is None and ct.holm is None


# ---------------------------------------------------------------------------------- refusals


def test_refusals():
    a, b = independent_pair(m=3)
    with pytest.raises(BaccError):
        bacc.compare_across({"x": a["set0"]}, {"x": b["set0"]})  # one data set
    with pytest.raises(BaccError):
        bacc.compare_across(a, {k: b[k] for k in list(b)[:2]})  # a data set missing
    with pytest.raises(BaccError):
        bacc.compare_across(a, b, prior={"tau": "uniform"})
    with pytest.raises(BaccError):
        bacc.compare_across(a, b, prior={"tau_scale": 0.0})
    with pytest.raises(BaccError):
        bacc.compare_across(a, b, rope=-0.1)
    with pytest.raises(BaccError):
        bacc.rank_across({"A": a}, n_draws=1000)  # one classifier


def test_wilcoxon_with_tied_differences_is_the_normal_approximation_and_deterministic():
    """Tied or zero differences: scipy would fall back on a random permutation test; the result
    is the asymptotic test with its tie correction, the same at every call."""
    cm = {"x": [[40, 10], [5, 45]], "y": [[35, 15], [8, 42]], "z": [[30, 20], [10, 40]]}
    a = {f"d{j}": cm["x"] for j in range(4)} | {"d4": cm["y"], "d5": cm["z"]}
    b = {f"d{j}": cm["y"] for j in range(4)} | {"d4": cm["y"], "d5": cm["x"]}
    res = bacc.compare_across(a, b)
    d = np.array([sample_ba(a[k]) - sample_ba(b[k]) for k in a])
    ref = stats.wilcoxon(d, zero_method="zsplit", method="asymptotic")
    assert res.classical.p_value == pytest.approx(float(ref.pvalue), rel=1e-12)
    assert bacc.compare_across(a, b).classical == res.classical
    assert res.classical.alpha == 0.05


def test_a_billion_examples_per_class_gives_no_warning_and_finite_answers():
    """Data sets of 10^9 examples per class: posterior sds near 1e-9, no overflow warning."""
    import warnings

    big = 10**9
    a = {"a": [[big - 5, 5], [3, big - 3]], "b": [[big // 2, big // 2], [1, big - 1]]}
    b = {"a": [[big - 50, 50], [30, big - 30]], "b": [[big // 2 + 7, big // 2 - 7], [1, big - 1]]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = bacc.compare_across(a, b)
    d = res.data_set_differences[0]
    own = (big - 5) / big / 2 + (big - 3) / big / 2 - (big - 50) / big / 2 - (big - 30) / big / 2
    assert d.mean == pytest.approx(own, rel=1e-9)
    assert 0 < d.shrunken_lower < d.shrunken_mean < d.shrunken_upper
    assert np.isfinite([res.lower, res.upper, res.p_better]).all()
