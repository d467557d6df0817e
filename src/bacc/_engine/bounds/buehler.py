"""Buehler bound for the balanced accuracy of two classes: the exact test inverted, with the
nuisance parameter maximised over.

References
----------
Buehler, R. J. (1957). Confidence intervals for the product of two binomial parameters.
JASA 52, 482-493.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

# Buehler bounds sum over every count of both classes; beyond this the cost is not worth it.
BUEHLER_MAX_SUPPORT = 5_000

def _log_binom_coef(n: int) -> np.ndarray:
    j = np.arange(n + 1, dtype=float)
    return sc.gammaln(n + 1.0) - sc.gammaln(j + 1.0) - sc.gammaln(n - j + 1.0)


def _pmf_rows(theta: np.ndarray, n: int, lgc: np.ndarray) -> np.ndarray:
    """Binomial(n, theta_r) pmf for each entry of ``theta``: shape (len(theta), n + 1)."""
    j = np.arange(n + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lt = np.log(theta)[:, None]
        l1t = np.log1p(-theta)[:, None]
        out = lgc + j * lt
        out += (n - j) * l1t
        np.exp(out, out=out)
    # theta = 0 or 1 (0 * log 0 is nan above): a point mass
    edge = (theta <= 0.0) | (theta >= 1.0)
    if edge.any():
        out[edge] = 0.0
        e = np.flatnonzero(edge)
        out[e, np.where(theta[e] <= 0.0, 0, n)] = 1.0
    return out


_CHUNK = 1 << 21  # pmf terms per vectorised block


class _TailProb:
    """``G_b(x, y) = P(w1 K1/n1 + w2 K2/n2 >= t_b)``, ``K1 ~ Bin(n1, x)``, ``K2 ~ Bin(n2, y)``.

    One statistic ``t_b`` per observed outcome ``k[b]`` (a batch). The event is
    ``{K2 >= c_b[K1]}`` with ``c_b`` non-increasing, i.e. ``{K1 >= J_b[K2]}`` with
    ``J_b[k2] = #{j : c_b[j] > k2}``; it is an upper set in both counts, so ``G_b`` is
    non-decreasing in ``x`` and in ``y``, and ``G_b(x, y) = sum_k2 pmf2(k2; y) SF1(J_b[k2]; x)``.
    Points are passed flat, with ``b`` naming the outcome of each point.
    """

    def __init__(self, k: np.ndarray, n, w) -> None:
        k = np.atleast_2d(np.asarray(k, dtype=np.int64))
        self.n1, self.n2 = int(n[0]), int(n[1])
        self.w1, self.w2 = float(w[0]), float(w[1])
        self.lgc1, self.lgc2 = _log_binom_coef(self.n1), _log_binom_coef(self.n2)
        j = np.arange(self.n1 + 1, dtype=np.int64)[None, :]
        if self.w1 == self.w2:
            # integers: j/n1 + k2/n2 >= k1/n1 + k2o/n2  <=>  k2 n1 >= k1 n2 + k2o n1 - j n2
            num = k[:, :1] * self.n2 + k[:, 1:] * self.n1 - j * self.n2
            c = -((-num) // self.n1)
        else:
            # float with a tolerance that can only enlarge the event (a larger p-value)
            t = self.w1 * k[:, :1] / self.n1 + self.w2 * k[:, 1:] / self.n2
            c = np.ceil(self.n2 * (t - self.w1 * j / self.n1) / self.w2 - 1e-9).astype(np.int64)
        c = np.minimum.accumulate(np.clip(c, 0, self.n2 + 1), axis=1)
        nb = k.shape[0]
        hist = np.bincount(
            (np.arange(nb)[:, None] * (self.n2 + 2) + c).ravel(), minlength=nb * (self.n2 + 2)
        ).reshape(nb, self.n2 + 2)
        # J[b, k2] = #{j : c[b, j] > k2} = sum of hist[b, v] over v > k2
        self.J = np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:]

    def _rows(self) -> int:
        return max(1, _CHUNK // (self.n1 + self.n2 + 2))

    def x_part(self, x: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``SF1(J_b[k2]; x)`` per point: shape (len(x), n2 + 1)."""
        p1 = _pmf_rows(x, self.n1, self.lgc1)
        sf1 = np.zeros((x.size, self.n1 + 2))
        sf1[:, : self.n1 + 1] = np.cumsum(p1[:, ::-1], axis=1)[:, ::-1]
        np.minimum(sf1, 1.0, out=sf1)
        return np.take_along_axis(sf1, self.J[b], axis=1)

    def with_x_part(self, xp: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.einsum("ij,ij->i", _pmf_rows(y, self.n2, self.lgc2), xp)

    def __call__(self, x: np.ndarray, y: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.empty(x.size)
        r = self._rows()
        for s in range(0, x.size, r):
            sl = slice(s, s + r)
            out[sl] = self.with_x_part(self.x_part(x[sl], b[sl]), y[sl])
        return out

    def root_y(self, x: np.ndarray, b: np.ndarray, alpha: float, iters: int = 60) -> np.ndarray:
        """Approximately the smallest ``y`` with ``G_b(x, y) >= alpha`` (``inf`` where none).

        Six bisection steps, then Newton steps kept inside the bisection bracket.
        """
        out = np.empty(x.size)
        r = self._rows()
        k2 = np.arange(self.n2 + 1, dtype=float)[None, :]
        for s in range(0, x.size, r):
            xp = self.x_part(x[s : s + r], b[s : s + r])
            g1 = self.with_x_part(xp, np.ones(xp.shape[0]))
            g0 = self.with_x_part(xp, np.zeros(xp.shape[0]))
            res = np.where(g1 < alpha, np.inf, 0.0)
            act = np.flatnonzero((g1 >= alpha) & (g0 < alpha))
            xp = xp[act]
            lo = np.zeros(act.size)
            hi = np.ones(act.size)
            y = np.full(act.size, 0.5)
            for it in range(iters):
                p2 = _pmf_rows(y, self.n2, self.lgc2)
                g = np.einsum("ij,ij->i", p2, xp)
                up = g >= alpha
                hi = np.where(up, y, hi)
                lo = np.where(up, lo, y)
                if it < 6:
                    y = 0.5 * (lo + hi)
                    continue
                with np.errstate(all="ignore"):
                    dg = np.einsum("ij,ij->i", p2 * (k2 - self.n2 * y[:, None]), xp) / (
                        y * (1.0 - y)
                    )
                    yn = y - (g - alpha) / dg
                step_bad = ~np.isfinite(yn) | (yn <= lo) | (yn >= hi)
                yn = np.where(step_bad, 0.5 * (lo + hi), yn)
                done = (np.abs(yn - y) <= 1e-13) | (hi - lo <= 1e-13)
                y = yn
                if done.all():
                    break
            res[act] = y
            out[s : s + r] = res
        return out


def _buehler_candidate(G: _TailProb, alpha: float, idx: np.ndarray) -> np.ndarray:
    """Approximate ``min {w1 x + w2 y : G_b(x, y) >= alpha}`` for each outcome ``b`` in ``idx``,
    on grids refined around the best point (no guarantee; the certificate provides that)."""
    nb = idx.size
    x = np.tile(np.linspace(0.0, 1.0, 129), (nb, 1))
    best = np.full(nb, np.inf)
    width = 1.0
    rows = np.arange(nb)
    for _ in range(4):
        m = x.shape[1]
        y = G.root_y(x.ravel(), np.repeat(idx, m), alpha).reshape(nb, m)
        f = G.w1 * x + G.w2 * y
        i = np.argmin(f, axis=1)
        best = np.minimum(best, f[rows, i])
        width /= 32.0
        xc = x[rows, i]
        x = np.clip(xc[:, None] + np.linspace(-2 * width, 2 * width, 65)[None, :], 0.0, 1.0)
    return best


def _buehler_certify(
    G: _TailProb, alpha: float, level: np.ndarray, idx: np.ndarray, max_ops: float = 3e7
) -> np.ndarray:
    """For each outcome ``idx[i]``: True if every ``(x, y)`` with ``w1 x + w2 y < level[i]``
    has ``G(x, y) < alpha`` (so the Buehler bound is at least ``level[i]``).

    Cover ``x`` by cells ``[a, a + h]``; on a cell the points below the line have
    ``y <= y_a = (level - w1 a) / w2`` and, ``G`` being monotone, ``G <= G(a + h, min(y_a, 1))``.
    Cells where that corner bound is not below ``alpha`` are split in four; a point on the line
    with ``G >= alpha`` (or running out of the budget of ``max_ops`` pmf terms) fails the
    certificate.
    """
    w1, w2 = G.w1, G.w2
    thr = alpha * (1.0 - 1e-9) - 1e-13 * (G.n1 + G.n2)
    nl = level.size
    ok = np.zeros(nl, dtype=bool)
    failed = np.zeros(nl, dtype=bool)
    x_max = np.ones(nl) if w1 == 0 else np.minimum(1.0, np.maximum(level, 0.0) / w1)
    trivial = (x_max <= 0) | (level <= 0)
    ok[trivial] = True
    max_cells = max_ops / (G.n1 + G.n2 + 2)
    start = np.flatnonzero(~trivial)
    own = np.repeat(start, 64)  # position in 0..nl-1 of each cell's outcome
    h = x_max[own] / 64.0
    a = np.tile(np.arange(64.0), start.size) * h
    used = np.zeros(nl)
    pending = np.zeros(nl, dtype=bool)
    pending[start] = True
    while own.size:
        used += np.bincount(own, minlength=nl)
        failed |= pending & ((used > max_cells) | (np.bincount(own, h < 1e-15, nl) > 0))
        keep = ~failed[own]
        own, a, h = own[keep], a[keep], h[keep]
        b_edge = np.minimum(a + h, x_max[own])
        ya = (level[own] - w1 * a) / w2
        need = ya > 0
        bad = np.zeros(own.size, dtype=bool)
        if need.any():
            g = G(b_edge[need], np.minimum(ya[need], 1.0), idx[own[need]])
            bad[need] = g >= thr
        # a point on the line itself with G >= alpha disproves the level
        xm = a[bad] + 0.5 * h[bad]
        ym = (level[own[bad]] - w1 * xm) / w2
        on = (ym >= 0) & (ym <= 1)
        if on.any():
            hit = G(xm[on], ym[on], idx[own[bad][on]]) >= alpha
            failed[own[bad][on][hit]] = True
        still = pending & ~failed
        has_bad = np.zeros(nl, dtype=bool)
        has_bad[own[bad]] = True
        ok |= still & ~has_bad
        pending = still & has_bad
        sel = bad & pending[own]
        h4 = h[sel] / 4.0
        a = (a[sel][:, None] + h4[:, None] * np.arange(4.0)[None, :]).ravel()
        h = np.repeat(h4, 4)
        own = np.repeat(own[sel], 4)
    return ok & ~failed


def _buehler_lower(k: np.ndarray, n, w, alpha: float) -> np.ndarray:
    """Exact lower confidence bounds (level ``1 - alpha``) for ``w1 theta1 + w2 theta2``, one per
    row of ``k`` (shape (B, 2)).

    Construction (Buehler 1957). Let ``T = w1 K1/n1 + w2 K2/n2`` (the estimate) and
    ``G_theta(t) = P_theta(T >= t)``. The bound is ``L(t) = inf {lambda(theta) :
    G_theta(t) >= alpha}``, i.e. the smallest balanced accuracy not rejected by the one-sided
    test that rejects ``lambda <= lambda0`` when ``sup_{lambda(theta) <= lambda0} G_theta(t)
    < alpha`` (nuisance parameter maximised over).

    Coverage: if ``L(T) > lambda(theta)`` then ``G_theta(T) < alpha`` (else ``theta`` itself
    would be admissible), and ``P_theta(G_theta(T) < alpha) <= alpha`` because ``G_theta(T)``
    is the survival function of ``T`` at ``T`` (a valid p-value). So
    ``P(L(T) > lambda) <= alpha`` for every ``theta``.

    Computation: a candidate is found on refined grids, then *certified* by
    :func:`_buehler_certify` (``G`` is monotone in both parameters, so a cell's corner value
    bounds it). The value returned is a certified level ``<= L(t)``, so coverage is kept
    whatever the accuracy of the search. The first certificate tried is ``1e-6`` below the
    candidate (a corner bound is first-order, so each further digit multiplies the cost by
    about three); the bound is thus conservative by about ``1e-6``.
    """
    k = np.atleast_2d(np.asarray(k, dtype=np.int64))
    G = _TailProb(k, n, w)
    nb = k.shape[0]
    out = np.zeros(nb)
    allb = np.arange(nb)
    # t_obs = 0 (every example wrong): G(0, 0) = 1 and nothing can be excluded
    rem = allb[G(np.zeros(nb), np.zeros(nb), allb) < alpha]
    if rem.size == 0:
        return out
    cand = _buehler_candidate(G, alpha, rem)
    for eps in (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.3):
        level = cand - eps
        ok = _buehler_certify(G, alpha, level, rem)
        out[rem[ok]] = np.maximum(level[ok], 0.0)
        rem, cand = rem[~ok], cand[~ok]
        if rem.size == 0:
            break
    return out  # outcomes never certified keep 0, always valid


def buehler_bounds(k, n, w, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Buehler lower / upper bounds for two classes, ``alpha`` in each bounded tail.

    ``k`` has shape (2,) or (B, 2); the result has shape () or (B,). The upper bound is
    ``1 - L`` computed on the errors (``n - k``), whose balanced error is ``1 - lambda``.
    """
    k = np.asarray(k, dtype=np.int64)
    single = k.ndim == 1
    k = np.atleast_2d(k)
    n = np.asarray(n, dtype=np.int64)
    w = np.asarray(w, dtype=float)
    # the second class is the root-finding coordinate (its pmf is recomputed at every step):
    # make it the smaller class, unless it carries no weight
    if w[1] == 0 or (n[1] > n[0] and w[0] > 0):
        k, n, w = k[:, ::-1], n[::-1], w[::-1]
    nb = k.shape[0]
    lower = _buehler_lower(k, n, w, alpha) if sides in ("two", "lower") else np.zeros(nb)
    upper = 1.0 - _buehler_lower(n - k, n, w, alpha) if sides in ("two", "upper") else np.ones(nb)
    if single:
        return float(lower[0]), float(upper[0])
    return lower, upper


