"""Two-class sums of many rows at once: credible interval and probability above chance.

Each row is ``(X_1 + X_2) / 2`` with independent ``X_i ~ Beta(a_i, b_i)``, computed by the exact
quadrature of :class:`.two_betas.PairSums` (the wider component through its exact CDF, as for a
single :class:`bacc.BetaSum`), for all rows in one set of array operations: quantiles by the
vectorised safeguarded Newton iteration of :func:`.solvers.newton_quantile` from a
Cornish-Fisher start (or, where the narrower class adds little variance to a skewed wider one,
from the wider one's own quantile), and ``P(> chance)`` set to 1 where a sub-Gaussian tail bound
puts its complement below 1e-16 (Marchal & Arbel 2017), where the quadrature gives 1 to within
its own error (3e-14 measured).

References
----------
Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced accuracy and
its posterior distribution. Proc. 20th ICPR, 3121-3124, eq. 7.
Marchal, O. & Arbel, J. (2017). On the sub-Gaussianity of the Beta and Dirichlet distributions.
Electronic Communications in Probability 22, paper 54.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

from .solvers import beta_k4, beta_moments, cornish_fisher_start, newton_quantile, unit
from .two_betas import PairSums

__all__ = ["interval_and_tail", "wider_first"]

_FAR = 36.9  # -log(1e-16): a sub-Gaussian tail below exp(-_FAR) is 1 - P(> chance) to rounding
_DOMINANT = 0.25  # variance ratio below which the wide component's quantile is the start
_SKEWED = 200.0  # ... when that component has at most this many examples (a + b)


def wider_first(a2: np.ndarray, b2: np.ndarray, *, nodes: int = 48,
                tie_to_second: bool = True) -> PairSums:
    """``(X_1 + X_2) / 2`` per row (``a2``, ``b2`` of shape (G, 2)), the wider class exact.

    ``tie_to_second``: which class is kept exact when both spreads are equal (the second, as
    the credible intervals of :func:`interval_and_tail`, or the first, as the probabilities of
    :mod:`.worse_than_baseline`, each measured with its own); either is exact, and the two
    differ only by the quadrature's error.
    """
    _, var, _ = beta_moments(a2, b2)
    if tie_to_second:
        sd_c = 0.5 * np.sqrt(var)
        wide = np.where(sd_c[:, 0] > sd_c[:, 1], 0, 1)
    else:
        wide = np.where(var[:, 0] >= var[:, 1], 0, 1)
    narrow = 1 - wide
    r = np.arange(a2.shape[0])
    half = np.full(r.size, 0.5)
    return PairSums(a2[r, wide], b2[r, wide], half, a2[r, narrow], b2[r, narrow], half,
                    nodes=nodes)  # fmt: skip


def interval_and_tail(
    a2: np.ndarray, b2: np.ndarray, q: np.ndarray, chance: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Central credible interval and ``P(> chance)`` of ``(X_1 + X_2) / 2`` per row.

    Parameters
    ----------
    a2, b2 : ndarray, shape (G, 2)
        Beta parameters of the two classes of each row.
    q : ndarray, shape (2,)
        Lower and upper probability of the interval.
    chance : float
        The threshold of the probability above chance.

    Returns
    -------
    lower, upper, p_above : ndarray, shape (G,)

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi, p = interval_and_tail(np.array([[43.0, 5.0]]), np.array([[4.0, 7.0]]),
    ...                               np.array([0.025, 0.975]), 0.5)
    >>> [round(float(lo[0]), 3), round(float(hi[0]), 3)]
    [0.534, 0.808]
    """
    n = a2.shape[0]
    _, var, m3 = beta_moments(a2, b2)
    k4 = beta_k4(a2, b2)
    w = 0.5
    sums = wider_first(a2, b2)
    r = np.arange(n)
    mean = w * (a2 / (a2 + b2)).sum(axis=1)
    sd = np.sqrt((w * w * var).sum(axis=1))
    mom3 = (w**3 * m3).sum(axis=1)
    cum4 = (w**4 * k4).sum(axis=1)

    # P(lambda > chance). Far above chance it is 1 to within 1e-16 (a Beta(a, b) variable is
    # sub-Gaussian with variance proxy 1 / (4 (a + b + 1)); Marchal & Arbel 2017), where the
    # quadrature gives 1 to within its own error (3e-14 measured): those rows skip it.
    proxy = (w * w * 0.25 / (a2 + b2 + 1.0)).sum(axis=1)
    gap = mean - chance
    near = ~((gap > 0) & (gap * gap > 2.0 * _FAR * proxy))
    vals = np.ones(n)
    if near.any():
        vals[near] = sums.values(np.full(int(near.sum()), chance), ("sf",), r[near])["sf"]
    p_above = np.clip(vals, 0.0, 1.0)
    # quantiles: both tails at once (2G rows)
    sel = np.concatenate([r, r])
    upper_tail = np.concatenate([np.zeros(n, bool), np.ones(n, bool)])
    target = np.concatenate([np.full(n, q[0]), np.full(n, 1 - q[1])])
    start = cornish_fisher_start(
        target, upper_tail, mean[sel], sd[sel], mom3[sel], 0.0, 1.0, cum4[sel]
    )
    start = _dominant_start(start, target, upper_tail, sums.P, sel)
    tol = np.maximum(4e-16, 1e-10 * sd[sel])

    def tail_and_pdf(x, up, which):
        # the tail each row solves for (cdf or sf), its density and slope: see tails()
        v = sums.values(np.clip(x, 0.0, 1.0), ("tail", "pdf", "dpdf"), sel[which], up)
        return unit(v["tail"]), np.maximum(v["pdf"], 0.0), v["dpdf"]

    # the density of (X + Y) / 2 has a kink at 1/2 when one class's density jumps (or is
    # infinite) at 0 and the other's at 1: a perfect class beside an all-wrong one
    kinks = sums.kinks()
    x = newton_quantile(
        tail_and_pdf, target, upper_tail, start, np.zeros(sel.size), np.ones(sel.size), tol,
        kinks[sel] if np.isfinite(kinks).any() else None,
    )
    return x[:n], x[n:], p_above


def _dominant_start(start, target, upper, P, sel):
    """Where the narrow component R adds little variance to the wide one B, a start from B's
    own quantile: ``wB Q_B + wR E[R]``, moved by the small-noise correction
    ``-(v / 2) (log f)'`` (``v`` = R's variance in the sum). The Cornish-Fisher start is poor
    there when B is skewed and bounded (a class of a few examples, nearly all correct); from
    it the iteration took five or more rounds for one quantile in ten of the benchmark's."""
    aB, bB, wB = P["aB"][sel], P["bB"][sel], P["wB"][sel]
    aR, bR, wR = P["aR"][sel], P["bR"][sel], P["wR"][sel]
    sB = aB + bB
    sR = aR + bR
    vB = wB * wB * aB * bB / (sB * sB * (sB + 1.0))
    vR = wR * wR * aR * bR / (sR * sR * (sR + 1.0))
    # (a wide class of many examples is nearly normal: Cornish-Fisher is good there)
    i = np.flatnonzero((vR <= _DOMINANT * vB) & (sB <= _SKEWED))
    if not i.size:
        return start
    aB, bB, wB, aR, sR, vR, p = aB[i], bB[i], wB[i], aR[i], sR[i], vR[i], target[i]
    with np.errstate(all="ignore"):
        qB = np.where(upper[i], sc.betainccinv(aB, bB, p), sc.betaincinv(aB, bB, p))
        dlog = ((aB - 1.0) / qB - (bB - 1.0) / (1.0 - qB)) / wB
        x = wB * qB + wR[i] * aR / sR - 0.5 * vR * dlog
    ok = np.isfinite(x) & (x > 0.0) & (x < 1.0)
    start = start.copy()
    start[i[ok]] = x[ok]
    return start
