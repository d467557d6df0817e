"""The random-effects model of several classifiers' balanced accuracies across data sets.

Used by :mod:`bacc.across`. Data set ``j = 1..m`` gives, for classifiers ``t = 1..T``, the
estimates ``y_j`` (a T-vector: the sample balanced accuracies) and the posterior covariance
``S_j`` of their balanced accuracies (diagonal for independent test sets; with the covariances of the joint
posterior when the classifiers predicted the same examples). The model (two-stage, as in
random-effects meta-analysis, Röver 2020; Benavoli et al. 2017 for classifiers):

    y_j = theta + u_j 1 + e_j + eps_j,    e_j ~ N(0, tau^2 I),    eps_j ~ N(0, S_j),

with ``theta`` the classifiers' population effects, ``u_j`` the difficulty of data set ``j``
(a flat prior: only differences between classifiers are learnt), ``e_j`` the classifier-by-data
-set interaction (how much a classifier's advantage varies from data set to data set) and
``eps_j`` the estimation error of data set ``j``. Projecting on an orthonormal basis ``C`` of
the contrasts (``C 1 = 0``, ``C C' = I``) removes ``u_j``: ``z_j = C y_j ~ N(phi, V_j)`` with
``phi = C theta`` and ``V_j = C S_j C' + tau^2 I``.

Given ``tau`` everything is Gaussian and closed form (generalised least squares): with prior
precision ``L0`` of ``phi`` (0: flat), ``P = L0 + sum_j V_j^-1``, ``phi | tau ~ N(P^-1 b,
P^-1)``, ``b = sum_j V_j^-1 z_j``, and the marginal likelihood of ``tau`` is

    log p(z | tau) = -1/2 sum_j log|V_j| - 1/2 log|P| + 1/2 log|L0|
                     - 1/2 (sum_j z_j' V_j^-1 z_j - b' P^-1 b) + const.

``tau`` is integrated numerically: its posterior is smooth and even in ``tau`` (the likelihood
depends on ``tau^2``, the priors are even), so the trapezoidal rule from ``tau = 0`` converges
geometrically; the range is placed where the log posterior is within 40 of its peak and the
number of nodes doubled until the evidence and the posterior mean of ``tau`` agree with the
rule on every other node to 1e-10. Every answer is a finite mixture of normal laws over the
nodes, exact up to that rule.

References
----------
.. [1] Röver, C. (2020). Bayesian random-effects meta-analysis using the bayesmeta R package.
   Journal of Statistical Software 93(6), 1-51, sections 2-3 (the normal-normal hierarchical
   model, the marginal likelihood of the heterogeneity and deterministic integration over it).
.. [2] Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017). Time for a change: a
   tutorial for comparing multiple classifiers through Bayesian analysis. Journal of Machine
   Learning Research 18(77), 1-36, section 4 (a hierarchical model of classifiers' differences
   across data sets).
.. [3] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. & Rubin, D. B.
   (2013). Bayesian Data Analysis, 3rd ed., section 5.4 (the normal hierarchical model:
   conditional posteriors and the marginal posterior of the population spread).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["TAU_PRIORS", "TauPrior", "MetaFit", "contrasts", "fit", "common_effect",
           "independent_moments", "paired_moments"]

TAU_PRIORS = ("half-normal", "half-cauchy")
TAU_MAX = 1.0  # the spread of a balanced accuracy's deviations cannot exceed this
_DROP = 40.0  # the rule covers tau where the log posterior is within this of its peak
_TOL = 1e-10
_START = 129
_MAX_NODES = 8193


@dataclass(frozen=True)
class TauPrior:
    """Prior of ``tau`` (half-normal or half-Cauchy of ``scale``, truncated to ``tau <= 1``) and
    of ``phi`` (flat, or ``N(0, effect_sd^2 I)`` in the orthonormal contrasts)."""

    kind: str = "half-normal"
    scale: float = 0.1
    effect_sd: float | None = None

    def log_density(self, tau: np.ndarray) -> np.ndarray:
        x = tau / self.scale
        if self.kind == "half-normal":
            return -0.5 * x * x
        return -np.log1p(x * x)


def contrasts(T: int) -> np.ndarray:
    """An orthonormal basis of the contrasts of ``T`` classifiers, shape ``(T - 1, T)``: rows
    orthogonal to the vector of ones and to each other, of unit length (Helmert's)."""
    C = np.zeros((T - 1, T))
    for r in range(1, T):
        C[r - 1, :r] = 1.0
        C[r - 1, r] = -float(r)
        C[r - 1] /= np.sqrt(r * (r + 1.0))
    return C


def independent_moments(k: np.ndarray, n: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Posterior mean and variance of ``sum_i w_i p_i`` with independent ``p_i ~ Beta(k_i + 1,
    n_i - k_i + 1)`` (Brodersen et al. 2010, eq. 7, with the flat prior)."""
    a = k + 1.0
    b = n - k + 1.0
    s = a + b
    mean = float(np.sum(w * a / s))
    var = float(np.sum(w * w * a * b / (s * s * (s + 1.0))))
    return mean, var


def paired_moments(k: np.ndarray, both: np.ndarray, n: np.ndarray, w: np.ndarray):
    """Posterior means and covariance of ``T`` classifiers' balanced accuracies on one test set.

    Per class ``i`` the ``2^T`` patterns of right and wrong answers have a Dirichlet posterior
    with concentration ``2^(1-T)`` per pattern, which gives each classifier's class accuracy
    the flat-prior marginal ``Beta(k + 1, n - k + 1)`` (for ``T = 2``: the model of
    :func:`bacc.compare_paired`). Its covariances need only how often two classifiers were
    both right: with ``a0 = n + 2``, ``a_s = k_s + 1`` and ``a_st = both_st + 1/2``,
    ``Cov(p_s, p_t) = (a_st a0 - a_s a_t) / (a0^2 (a0 + 1))``; the diagonal is ``a_s (a0 -
    a_s) / (a0^2 (a0 + 1))``.

    Parameters
    ----------
    k : ndarray, shape (l, T)
        Examples of each class each classifier got right.
    both : ndarray, shape (l, T, T)
        Examples of each class both classifiers got right (diagonal: ``k``).
    n : ndarray, shape (l,)
        Examples of each class.
    w : ndarray, shape (l,)
        Class weights.

    Returns
    -------
    (mean, cov) : ndarray (T,), ndarray (T, T)
    """
    a0 = n + 2.0
    a = k + 1.0
    ast = both + 0.5
    T = k.shape[1]
    idx = np.arange(T)
    ast[:, idx, idx] = a
    denom = (a0 * a0 * (a0 + 1.0))[:, None, None]
    cov_c = (ast * a0[:, None, None] - a[:, :, None] * a[:, None, :]) / denom
    mean = np.sum(w[:, None] * a / a0[:, None], axis=0)
    cov = np.einsum("i,ist->st", w * w, cov_c)
    return mean, cov


@dataclass(frozen=True)
class MetaFit:
    """The posterior of the model, as a mixture over the nodes of ``tau``.

    Attributes
    ----------
    tau, weight : ndarray (K,)
        Nodes of ``tau`` and their posterior weights (sum 1).
    phi, phi_cov : ndarray (K, d), (K, d, d)
        Posterior mean and covariance of the contrasts ``phi`` given each node.
    z, s_contrast : ndarray (m, d), (m, d, d)
        The data sets' contrasts and their estimation covariances ``C S_j C'``.
    basis : ndarray (d, T)
        The orthonormal contrasts ``C``.
    log_evidence : float
        Log marginal likelihood of the data under the model (with the flat prior of ``phi``
        and of ``u_j``: up to a constant, for comparing priors of ``tau`` only).
    nodes_used : int
        Nodes of the trapezoidal rule that met the tolerance.
    """

    tau: np.ndarray
    weight: np.ndarray
    phi: np.ndarray
    phi_cov: np.ndarray
    z: np.ndarray
    s_contrast: np.ndarray
    basis: np.ndarray
    log_evidence: float
    nodes_used: int
    s_nodes: np.ndarray | None = None
    s_density: np.ndarray | None = None

    def tau_quantiles(self, q) -> np.ndarray:
        """Quantiles of ``tau``: its CDF is the integral of a cubic spline through the density
        of ``s = tau^(1/3)`` at the nodes (error of order h^4), inverted exactly."""
        q = np.atleast_1d(np.asarray(q, dtype=float))
        if self.s_nodes is None:
            return np.full(q.shape, float(self.tau[0]))
        from scipy.interpolate import CubicSpline

        spline = CubicSpline(self.s_nodes, self.s_density)
        cdf = spline.antiderivative()
        x = np.linspace(self.s_nodes[0], self.s_nodes[-1], 8 * self.s_nodes.size)
        F = cdf(x) - cdf(x[0])
        F = np.maximum.accumulate(F) / F[-1]
        out = np.empty(q.shape)
        for i, qi in enumerate(q):
            j = int(np.clip(np.searchsorted(F, qi), 1, x.size - 1))
            a, b = x[j - 1], x[j]
            target = qi * (cdf(x[-1]) - cdf(x[0])) + cdf(x[0])
            for _ in range(60):  # bisection on the spline's integral within one cell
                mid = 0.5 * (a + b)
                if cdf(mid) < target:
                    a = mid
                else:
                    b = mid
            out[i] = (0.5 * (a + b)) ** 3
        return out

    def pair(self, a: int, b: int) -> np.ndarray:
        """The vector ``g`` with ``theta_a - theta_b = g' phi``."""
        return self.basis[:, a] - self.basis[:, b]

    def population(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means and sds, per node, of ``g' phi`` (a population difference)."""
        return self.phi @ g, np.sqrt(np.einsum("i,kij,j->k", g, self.phi_cov, g))

    def predictive(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Means and sds, per node, of ``g' (phi + C e_new)`` (the difference on a new data set)."""
        mu, sd = self.population(g)
        return mu, np.sqrt(sd * sd + (g @ g) * self.tau**2)

    def data_set(self, g: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Means and sds, per node, of ``g' (phi + C e_j)`` given all data (data set ``j``'s own
        difference, shrunken towards the population's)."""
        t2 = (self.tau**2)[:, None, None]
        d = self.z.shape[1]
        vi = np.linalg.inv(self.s_contrast[j][None] + t2 * np.eye(d)[None])
        A = np.eye(d)[None] - t2 * vi
        mean = np.einsum("kij,kj->ki", A, self.phi) + t2[:, :, 0] * np.einsum("kij,j->ki", vi, self.z[j])
        cov = A @ self.phi_cov @ np.swapaxes(A, 1, 2) + t2 * np.eye(d)[None] - t2 * t2 * vi
        return mean @ g, np.sqrt(np.maximum(np.einsum("i,kij,j->k", g, cov, g), 0.0))


_CHUNK = 4_000_000  # numbers per array of one chunk of nodes (bounds the memory)


def _node_terms(tau: np.ndarray, z: np.ndarray, sc_: np.ndarray, prior: TauPrior):
    """Log posterior (unnormalised) and the conditional Gaussian at each node of ``tau``,
    computed in chunks of nodes so that memory stays bounded for many classifiers."""
    m, d = z.shape
    step = max(1, _CHUNK // (m * d * d))
    parts = [_chunk_terms(tau[i:i + step], z, sc_, prior) for i in range(0, tau.size, step)]
    return tuple(np.concatenate(x) for x in zip(*parts, strict=True))


def _factor_and_inverse(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cholesky factors and inverses of a stack of positive-definite matrices (last two axes).
    A 1 x 1 matrix (one contrast: two classifiers) takes its square root and reciprocal, what
    LAPACK computes for it, without a call per matrix."""
    if a.shape[-1] == 1:
        return np.sqrt(a), 1.0 / a
    return np.linalg.cholesky(a), np.linalg.inv(a)


def _chunk_terms(tau: np.ndarray, z: np.ndarray, sc_: np.ndarray, prior: TauPrior):
    d = z.shape[1]
    eye = np.eye(d)
    V = sc_[None] + (tau**2)[:, None, None, None] * eye
    L, v_inv = _factor_and_inverse(V)  # (K, m, d, d)
    logdet_v = 2.0 * np.sum(np.log(np.diagonal(L, axis1=2, axis2=3)), axis=(1, 2))
    v_inv = 0.5 * (v_inv + np.swapaxes(v_inv, 2, 3))
    prec0 = 0.0 if prior.effect_sd is None else 1.0 / prior.effect_sd**2
    P = v_inv.sum(axis=1) + prec0 * eye
    b = np.einsum("kjab,jb->ka", v_inv, z)
    LP, P_inv = _factor_and_inverse(P)
    logdet_p = 2.0 * np.sum(np.log(np.diagonal(LP, axis1=1, axis2=2)), axis=1)
    P_inv = 0.5 * (P_inv + np.swapaxes(P_inv, 1, 2))
    phi = np.einsum("kab,kb->ka", P_inv, b)
    quad = np.einsum("ja,kjab,jb->k", z, v_inv, z) - np.einsum("ka,ka->k", b, phi)
    logl = -0.5 * (logdet_v + logdet_p + quad)
    if prior.effect_sd is not None:
        logl = logl - d * np.log(prior.effect_sd)
    return logl + prior.log_density(tau), phi, P_inv


def _trapezoid(lo: float, hi: float, count: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.linspace(lo, hi, count)
    w = np.full(count, (hi - lo) / (count - 1))
    w[0] *= 0.5
    w[-1] *= 0.5
    return x, w


def fit(y: np.ndarray, cov: np.ndarray, prior: TauPrior) -> MetaFit:
    """The posterior of the model for estimates ``y`` (m, T) with covariances ``cov`` (m, T, T).

    Returns
    -------
    MetaFit
    """
    m, T = y.shape
    C = contrasts(T)
    z = y @ C.T
    sc_ = np.einsum("ai,jib,cb->jac", C, cov, C)
    sc_ = 0.5 * (sc_ + np.swapaxes(sc_, 1, 2))
    # place the range: a scan in tau, dense near 0 and geometric beyond
    scan = np.concatenate([[0.0], np.geomspace(1e-6, TAU_MAX, 400)])
    lp = _node_terms(scan, z, sc_, prior)[0]
    top = lp.max()
    inside = np.flatnonzero(lp > top - _DROP)
    lo = 0.0 if inside[0] == 0 else scan[inside[0] - 1]
    hi = scan[min(inside[-1] + 1, scan.size - 1)]
    # the rule runs in s = tau^(1/3): nodes crowd where tau is small, the integrands of the
    # evidence and of E[tau^2] (3 s^2 p(s^3) and 3 s^8 p(s^3)) are even in s, so the
    # trapezoidal rule converges geometrically, and that of E[tau] (3 s^5 p(s^3)) has its first
    # odd derivative at s = 0 of order 5: its error falls as h^6 (Euler-Maclaurin)
    s_lo, s_hi = np.cbrt(lo), np.cbrt(hi)
    count = _START
    prev = None
    while True:
        s_nodes, ws = _trapezoid(s_lo, s_hi, count)
        tau = s_nodes**3
        wq = ws * 3.0 * s_nodes**2
        lp, phi, phi_cov = _node_terms(tau, z, sc_, prior)
        top = lp.max()
        mass = wq * np.exp(lp - top)
        total = mass.sum()
        summary = np.array([np.log(total) + top, np.sum(mass * tau) / total,
                            np.sum(mass * tau * tau) / total])
        if prev is not None and np.all(np.abs(summary - prev) <= _TOL * np.maximum(1.0, np.abs(prev))):
            break
        if count >= _MAX_NODES:
            break
        # the rule on every other node of the next grid is this one
        prev = summary
        count = 2 * count - 1
    dens = 3.0 * s_nodes**2 * np.exp(lp - top) / total  # density of s (integral 1 under the rule)
    return MetaFit(tau=tau, weight=mass / total, phi=phi, phi_cov=phi_cov, z=z, s_contrast=sc_,
                   basis=C, log_evidence=float(summary[0]), nodes_used=int(count),
                   s_nodes=s_nodes, s_density=dens)


def common_effect(y: np.ndarray, cov: np.ndarray) -> MetaFit:
    """The common-effect model (``tau = 0``, flat prior of ``phi``): every data set has the
    same differences between classifiers (fixed effects, for contrast)."""
    m, T = y.shape
    C = contrasts(T)
    z = y @ C.T
    sc_ = np.einsum("ai,jib,cb->jac", C, cov, C)
    sc_ = 0.5 * (sc_ + np.swapaxes(sc_, 1, 2))
    tau = np.zeros(1)
    lp, phi, phi_cov = _node_terms(tau, z, sc_, TauPrior())
    return MetaFit(tau=tau, weight=np.ones(1), phi=phi, phi_cov=phi_cov, z=z, s_contrast=sc_,
                   basis=C, log_evidence=float(lp[0]), nodes_used=1)
