"""Densities of many subjects' accuracies, each a mixture of Beta laws over shared nodes.

Used by :meth:`bacc._engine.hierarchy.ClassFit.subject_densities` (beta-binomial model). At
each node of a class's hyperparameter grid a subject's accuracy has the population law
``Beta(a, b)``, and subject ``s``'s posterior density at ``g`` is

``f_s(g) = Bin(k_s | n_s, g) exp(shift_s) sum_c mix[c, s] Beta(g; a_c, b_c)``

(``mix`` the node weights divided by the subject's marginal likelihood at the node). The
kernel ``Beta(g; a_c, b_c)`` is shared by every subject: the sums are matrix products.

Method. Grid points are taken in blocks of ``_ROWS``; in each block only the subjects whose
stretch of the grid meets it are computed, and only the nodes whose terms can matter: the
log kernel ``(a - 1) log g + (b - 1) log(1 - g) - log B(a, b)`` is concave in ``g`` when
``a, b > 1``, convex when ``a, b < 1`` and monotone otherwise, so its largest and smallest
values over a block are at the block's ends or at its stationary point
``(a - 1) / (a + b - 2)``. With ``up_c`` and ``down_c`` those bounds, every sum of the block
is at least ``best_s = max_c exp(down_c) mix[c, s]``, and a node with
``exp(up_c) mix[c, s] < e^-46 best_s`` for every subject of the block is left out: all
left-out terms together are below ``1e-15`` of the sum (at most ``10^5`` nodes of ``1e-20``).
The log kernels of a block are one product of a ``(rows, 3)`` by a ``(3, nodes)`` matrix and
one exponential per kept term. A law narrower than a grid step (``sd < h``) enters as a
point at its mean, split between the two nearest grid points (its mean kept), by one sparse
product.

Where every law is wider than a block many grid points long and the block lies at least its
own width away from 0 and 1 (where a law may be singular), the sums are smooth on it: they
are computed at 24 Chebyshev points of the block and the grid's values read from the
barycentric interpolant of their logarithms (relative errors); the block is used only if the
interpolant's last two Chebyshev coefficients are below ``1e-13`` (else its points are summed
one by one). The block is then up to twice the narrowest law's sd wide, which is what makes a
subject's wide class cheap on the fine grid its narrow class imposes.

References
----------
.. [1] Brodersen, K. H., Mathys, C., Chumbley, J. R., Daunizeau, J., Ong, C. S., Buhmann,
   J. M. & Stephan, K. E. (2012). Bayesian mixed-effects inference on classification
   performance in hierarchical data sets. Journal of Machine Learning Research 13,
   3133-3176, section 3.2 (the beta-binomial model: a subject's accuracy given the
   population's parameters is ``Beta(alpha + k, beta + n - k)``).
.. [2] Berrut, J.-P. & Trefethen, L. N. (2004). Barycentric Lagrange interpolation. SIAM
   Review 46(3), 501-517 (Chebyshev points of the second kind, the barycentric formula).
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import sparse
from scipy import special as sc

__all__ = ["barycentric_matrix", "beta_mixture", "chebyshev_points"]

_ROWS = 64  # grid points per block
_CUT = 46.0  # nodes whose terms are below e^-46 of the block's smallest sum are left out
_P = 24  # Chebyshev points of an interpolated block
_TOL = 1e-13  # its last two coefficients (of the log sums) at most this


def beta_mixture(g, h: float, a, b, logmix, k, n, shift, spans) -> np.ndarray:
    """Posterior densities of subjects' accuracies on the grid ``g`` (module notes).

    Parameters
    ----------
    g : ndarray, shape (G,)
        Equally spaced points (step ``h``) in (0, 1).
    h : float
        The step.
    a, b : ndarray, shape (W,)
        The population's Beta parameters at each node.
    logmix : ndarray, shape (W, J)
        Log weight of each node for each subject, less ``shift``.
    k, n, shift : ndarray, shape (J,)
        Each subject's correct and total examples (0 and 0: a new subject) and log scale.
    spans : sequence of (int, int)
        The stretch ``[start, stop)`` of the grid each subject needs; other rows are 0.

    Returns
    -------
    ndarray, shape (G, J)
    """
    g = np.asarray(g, dtype=float)
    size, count = g.size, logmix.shape[1]
    starts = np.array([s[0] for s in spans], dtype=np.int64)
    stops = np.array([s[1] for s in spans], dtype=np.int64)
    mix = np.exp(logmix)
    nu = a + b
    sd = np.sqrt(a * b / (nu**2 * (nu + 1.0)))
    wide = sd >= h
    sums = np.zeros((size, count))
    if (~wide).any():
        pos = ((a / nu)[~wide] - g[0]) / h
        j = np.floor(pos).astype(np.int64)
        frac = pos - j
        cols = np.arange(j.size)
        rows = np.concatenate([j, j + 1])
        vals = np.concatenate([1.0 - frac, frac]) / h
        on = (rows >= 0) & (rows < size)
        points = sparse.csr_matrix((vals[on], (rows[on], np.concatenate([cols, cols])[on])),
                                   shape=(size, j.size))  # fmt: skip
        sums += points @ mix[~wide]
    lg, l1g = np.log(g), np.log1p(-g)
    am, bm = a[wide] - 1.0, b[wide] - 1.0
    bl = sc.betaln(a[wide], b[wide])
    coef = np.stack([am, bm, -bl])  # (3, W)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = am / (am + bm)  # stationary point of the log kernel
        stat_log = am * np.log(stat) + bm * np.log1p(-stat) - bl
    concave, convex = (am > 0) & (bm > 0), (am < 0) & (bm < 0)
    mix_w, logmix_w = mix[wide], logmix[wide]
    smooth = 2.0 * float(sd[wide].min()) if am.size else 0.0  # narrowest law's scale
    for r0, r1 in _blocks(g, h, smooth, int(starts.min()), int(stops.max())):
        subj = np.flatnonzero((starts < r1) & (stops > r0))
        if not subj.size:
            continue
        if am.size:
            e0 = am * lg[r0] + bm * l1g[r0] - bl
            e1 = am * lg[r1 - 1] + bm * l1g[r1 - 1] - bl
            up, down = np.maximum(e0, e1), np.minimum(e0, e1)
            inside = (stat > g[r0]) & (stat < g[r1 - 1])
            up = np.where(inside & concave, stat_log, up)
            down = np.where(inside & convex, stat_log, down)
            lm = logmix_w[:, subj]
            best = (down[:, None] + lm).max(axis=0)
            keep = np.flatnonzero((up[:, None] + lm - best[None, :]).max(axis=1) > -_CUT)
            if keep.size:
                weights = mix_w[np.ix_(keep, subj)]
                part = None
                if r1 - r0 > _ROWS:
                    part = _interpolated(g[r0], g[r1 - 1], g[r0:r1], coef[:, keep], weights)
                if part is None:
                    basis = np.column_stack([lg[r0:r1], l1g[r0:r1], np.ones(r1 - r0)])
                    part = np.exp(basis @ coef[:, keep]) @ weights
                sums[r0:r1, subj] += part
        kk, nn = k[subj], n[subj]
        logc = sc.gammaln(nn + 1) - sc.gammaln(kk + 1) - sc.gammaln(nn - kk + 1)
        extra = logc + kk * lg[r0:r1, None] + (nn - kk) * l1g[r0:r1, None] + shift[subj]
        with np.errstate(divide="ignore"):
            sums[r0:r1, subj] = np.exp(np.log(sums[r0:r1, subj]) + extra)
    rows = np.arange(size)[:, None]
    sums[(rows < starts[None, :]) | (rows >= stops[None, :])] = 0.0
    return sums


def _blocks(g, h: float, smooth: float, first: int, stop: int):
    """Blocks ``(r0, r1)`` of the rows ``first..stop``: ``_ROWS`` rows, or, where the laws
    are all wider than the block and the block is at least its width away from 0 and 1,
    up to ``smooth`` wide (then interpolated, :func:`_interpolated`)."""
    r0 = first
    while r0 < stop:
        x = g[r0]
        width = min(smooth, x, (1.0 - x) / 2.0)
        rows = int(width / h)
        rows = rows if rows > 2 * _ROWS else _ROWS
        r1 = min(r0 + rows, stop)
        yield r0, r1
        r0 = r1


def chebyshev_points(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Chebyshev points of the second kind on [-1, 1] and their barycentric weights."""
    j = np.arange(n)
    pts = np.cos(np.pi * j / (n - 1))[::-1]
    w = (-1.0) ** j
    w[0] *= 0.5
    w[-1] *= 0.5
    return pts, w


def barycentric_matrix(pts: np.ndarray, w: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The matrix taking values at ``pts`` (barycentric weights ``w``) to the interpolant's
    values at ``at``; a point of ``at`` that is a node takes that node's value exactly."""
    d = at[:, None] - pts[None, :]
    exact = d == 0
    d[exact] = 1.0
    m = w / d
    m /= m.sum(axis=1, keepdims=True)
    rows = exact.any(axis=1)
    m[rows] = exact[rows].astype(float)
    return m


def barycentric_values(pts: np.ndarray, w: np.ndarray, at: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The interpolant's values at ``at`` from its ``values`` at ``pts`` (barycentric weights
    ``w``): ``barycentric_matrix(pts, w, at) @ values`` as the quotient of the two sums of the
    second barycentric formula, without forming and normalising the matrix.

    The weights ``w / (at - pts)`` are formed in place in the array of differences, and a node
    is found by its weight rather than by testing every difference for 0 first: one large
    temporary array instead of three. A point of ``at`` that is a node (a difference of 0, so an
    infinite weight) makes a sum not finite: then the matrix, which takes the node's value
    exactly. Measured for 700 points on 136 nodes: 0.81 ms -> 0.16 ms with glibc's default
    allocator (which can map fresh pages for each large temporary), 0.17 ms -> 0.16 ms where
    the process keeps the memory it frees.
    """
    q = np.subtract(at[:, None], pts[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(w, q, out=q)
        total = q.sum(axis=1)
        out = (q @ values) / total
    if not np.isfinite(total).all():
        return barycentric_matrix(pts, w, at) @ values
    return out


@functools.lru_cache(maxsize=4)
def _chebyshev(p: int):
    """Chebyshev points of the second kind on [-1, 1], their barycentric weights and the
    matrix from values to Chebyshev coefficients."""
    pts, w = chebyshev_points(p)
    return pts, w, np.linalg.inv(np.polynomial.chebyshev.chebvander(pts, p - 1))


def _interpolated(lo: float, hi: float, at, coef, weights):
    """The block's sums at ``at`` from the log sums at ``_P`` Chebyshev points of
    ``[lo, hi]`` (barycentric formula), or None where the interpolant has not converged
    (its last two coefficients above ``1e-13``) or a sum is not positive."""
    pts, bw, to_coef = _chebyshev(_P)
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    x = mid + half * pts
    basis = np.column_stack([np.log(x), np.log1p(-x), np.ones(_P)])
    vals = np.exp(basis @ coef) @ weights  # (P, S)
    if not (vals > 1e-290).all():
        return None
    lv = np.log(vals)
    c = to_coef @ lv
    if np.abs(c[-2:]).max() > _TOL * max(1.0, float(np.abs(lv).max())):
        return None
    return np.exp(barycentric_matrix(pts, bw, (at - mid) / half) @ lv)
