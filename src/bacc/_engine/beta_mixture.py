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

References
----------
.. [1] Brodersen, K. H., Mathys, C., Chumbley, J. R., Daunizeau, J., Ong, C. S., Buhmann,
   J. M. & Stephan, K. E. (2012). Bayesian mixed-effects inference on classification
   performance in hierarchical data sets. Journal of Machine Learning Research 13,
   3133-3176, section 3.2 (the beta-binomial model: a subject's accuracy given the
   population's parameters is ``Beta(alpha + k, beta + n - k)``).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy import special as sc

__all__ = ["beta_mixture"]

_ROWS = 64  # grid points per block
_CUT = 46.0  # nodes whose terms are below e^-46 of the block's smallest sum are left out


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
    for r0 in range(0, size, _ROWS):
        r1 = min(r0 + _ROWS, size)
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
                basis = np.column_stack([lg[r0:r1], l1g[r0:r1], np.ones(r1 - r0)])
                kern = np.exp(basis @ coef[:, keep])
                sums[r0:r1, subj] += kern @ mix_w[np.ix_(keep, subj)]
        kk, nn = k[subj], n[subj]
        logc = sc.gammaln(nn + 1) - sc.gammaln(kk + 1) - sc.gammaln(nn - kk + 1)
        extra = logc + kk * lg[r0:r1, None] + (nn - kk) * l1g[r0:r1, None] + shift[subj]
        with np.errstate(divide="ignore"):
            sums[r0:r1, subj] = np.exp(np.log(sums[r0:r1, subj]) + extra)
    rows = np.arange(size)[:, None]
    sums[(rows < starts[None, :]) | (rows >= stops[None, :])] = 0.0
    return sums
