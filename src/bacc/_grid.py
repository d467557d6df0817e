"""Tabulated distribution of a sum of three or more scaled Beta variables.

Used by :class:`bacc.distributions.BetaSum` (see its module notes). ``S = B + R``: ``B`` (the
widest component) enters through its exact incomplete-beta CDF, ``R`` (the others) through
mean-preserving lattice masses. Both live on one lattice of step ``h`` that contains every
support boundary when the weights are equal (``h = w / M``), so the kinks of the Beta densities
(jumps for a perfect class under a flat prior, singularities under Jeffreys' prior) fall on
lattice points. ``F_S`` is tabulated on that lattice at steps ``h`` and ``h/2`` (an FFT
convolution of ``R``'s masses with ``B``'s exact cell masses), combined by Richardson
extrapolation, and interpolated between lattice points by degree-5 polynomials whose stencils
never straddle a point where the density may have a kink (essentially non-oscillatory
interpolation).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import fft as sfft
from scipy import special as sc

from . import _beta

__all__ = ["GridTable"]

_TAIL = 1e-15
_MAX_POINTS = 2**21
_ORDER = 6  # interpolation stencil size (degree 5)
# column k: coefficients (in powers of u) of the Lagrange polynomial that is 1 at node k
_LAGRANGE = np.linalg.inv(np.vander(np.arange(_ORDER, dtype=float), _ORDER, increasing=True))


def _inc_beta(a, b, x):
    x = np.asarray(x, dtype=float)
    low = x <= a / (a + b)
    v = np.where(
        low, sc.betainc(a, b, np.where(low, x, 0.0)), sc.betainc(b, a, np.where(low, 0.0, 1.0 - x))
    )
    return np.where(low, v, 1.0 - v), np.where(low, 1.0 - v, v)


def _span(a, b):
    with np.errstate(all="ignore"):
        lo = sc.betaincinv(a, b, _TAIL)
        hi = sc.betainccinv(a, b, _TAIL)
        ok_lo = np.isfinite(lo) & (sc.betainc(a, b, lo) <= 2 * _TAIL)
        ok_hi = np.isfinite(hi) & (sc.betainc(b, a, 1.0 - hi) <= 2 * _TAIL)
    if not np.all(ok_lo):
        lo = np.where(ok_lo, lo, _beta.beta_ppf(_TAIL, a, b))
    if not np.all(ok_hi):
        hi = np.where(ok_hi, hi, _beta.beta_isf(_TAIL, a, b))
    return np.atleast_1d(lo).astype(float), np.atleast_1d(hi).astype(float)


def _component_masses(a, b, w, lo, hi, h):
    """Triangular (mean-preserving) lattice masses of each ``w_i * Beta(a_i, b_i)``.

    Lattice points are ``j * h``; the mass at ``x_j`` is ``E[max(0, 1 - |X - x_j| / h)]``, the
    second difference of the stop-loss transform. All components are evaluated in one
    vectorised call. Returns a list of ``(first index, masses)``.
    """
    j0 = np.floor(lo / h).astype(np.int64) - 1
    j1 = np.ceil(hi / h).astype(np.int64) + 1
    counts = (j1 - j0 + 3).astype(np.int64)  # points j0-1 .. j1+1
    total = int(counts.sum())
    owner = np.repeat(np.arange(a.size), counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    local = np.arange(total) - np.repeat(starts, counts)
    x = (np.repeat(j0 - 1, counts) + local) * h
    g = w[owner] * _beta.beta_stoploss(x / w[owner], a[owner], b[owner])
    out = []
    for k in range(a.size):
        gk = g[starts[k] : starts[k] + counts[k]]
        m = np.maximum((gk[2:] - 2.0 * gk[1:-1] + gk[:-2]) / h, 0.0)
        out.append((int(j0[k]), m / m.sum()))
    return out


def _trim(start, m):
    c = np.cumsum(m)
    lo = int(np.searchsorted(c, _TAIL * c[-1]))
    hi = int(np.searchsorted(c, c[-1] * (1.0 - _TAIL))) + 1
    return start + lo, m[lo:hi]


def _convolve_all(pieces):
    """Convolve lattice mass vectors ``(index start, masses)`` pairwise, level by level.

    Each level convolves neighbours with one batched FFT (all pairs padded to one length) and
    trims tails below 1e-18, so arrays grow like the square root of the number of components
    (central limit) and the work stays near-linear in the number of classes.
    """
    items = [(int(j), np.asarray(m, float)) for j, m in pieces]
    while len(items) > 1:
        pairs = [(items[k], items[k + 1]) for k in range(0, len(items) - 1, 2)]
        odd = [items[-1]] if len(items) % 2 else []
        n = max(x[1].size + y[1].size - 1 for x, y in pairs)
        nfft = sfft.next_fast_len(n, real=True)
        A = np.zeros((len(pairs), nfft))
        B = np.zeros((len(pairs), nfft))
        for r, ((_, ma), (_, mb)) in enumerate(pairs):
            A[r, : ma.size] = ma
            B[r, : mb.size] = mb
        C = sfft.irfft(sfft.rfft(A, axis=1) * sfft.rfft(B, axis=1), nfft, axis=1)
        new = []
        for r, ((ja, ma), (jb, mb)) in enumerate(pairs):
            m = np.maximum(C[r, : ma.size + mb.size - 1], 0.0)
            new.append(_trim(ja + jb, m / m.sum()))
        items = new + odd
    j, m = items[0]
    return j, m / m.sum()


def tabulate(p, F, S, below):
    """CDF and SF of ``R + B`` on the lattice, from R's masses and B's CDF/SF at lattice points.

    The mass of B in ``((m-1)h, m h]`` is taken from F below B's mean and from S above it (no
    cancellation); the first cell holds everything up to the first point, and B's mass beyond
    the last point is added to the upper tail.
    """
    q = np.empty(F.size)
    q[0] = F[0]
    q[1:] = np.where(below[1:], F[1:] - F[:-1], S[:-1] - S[1:])
    q = np.maximum(q, 0.0)
    n = p.size + q.size - 1
    nfft = sfft.next_fast_len(n, real=True)
    conv = sfft.irfft(sfft.rfft(p, nfft) * sfft.rfft(q, nfft), nfft)[:n]
    conv = np.maximum(conv, 0.0)
    Ft = np.cumsum(conv)
    St = np.concatenate([np.cumsum(conv[::-1])[::-1][1:], [0.0]]) + S[-1]
    return Ft, St


def _extrapolation_weights(exps):
    """Weights c_L with sum c_L = 1 and sum c_L 2^(-L e) = 0 for every error exponent e."""
    n = len(exps) + 1
    A = np.ones((n, n))
    for r, e in enumerate(exps, start=1):
        A[r] = 2.0 ** (-np.arange(n) * e)
    rhs = np.zeros(n)
    rhs[0] = 1.0
    return np.linalg.solve(A, rhs)


class GridTable:
    """CDF / SF / density of ``S = sum_i w_i X_i`` (all ``w_i > 0``) on an aligned lattice."""

    def __init__(self, a, b, w, ib: int, ids: list[int], resolution: float) -> None:
        a, b, w = (np.asarray(v, dtype=float) for v in (a, b, w))
        sd = w * np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
        h = float(np.min(sd[ids])) / resolution
        used = [ib, *ids]
        wu = w[used]
        self.aligned = bool(np.all(np.abs(wu - wu[0]) <= 1e-12 * wu[0]))
        lo, hi = _span(a[used], b[used])
        lo, hi = lo * wu, hi * wu
        span = float(np.sum(hi - lo))
        # with many classes the sum is smooth on the scale of its own spread: no need to
        # resolve the narrowest class finer than a fraction of the total spread
        sd_sum = float(np.sqrt(np.sum(sd[used] ** 2)))
        h_cap = sd_sum / (25.0 * resolution)
        if h_cap > h:
            # a component narrower than 4h is not resolved; its error is below
            # (h^2 / 8) max|f'| <= 0.05 h^2 / sd_sum^2 (for unimodal sums): keep the total < 1e-10
            narrow = np.sum(sd[ids] < 4.0 * h_cap)
            if narrow:
                h_cap = min(h_cap, sd_sum * np.sqrt(2e-9 / narrow))
            h = max(h, h_cap)
        h = max(h, span / _MAX_POINTS)
        if self.aligned:
            h = float(wu[0]) / np.ceil(float(wu[0]) / h)
        self.h = h
        exps = self._exponents(a, b, ib, ids, lo, hi, w)
        weights = _extrapolation_weights(exps)
        tables = []
        for level in range(len(weights)):
            step = h / 2**level
            ii = np.asarray(ids)
            pieces = _component_masses(a[ii], b[ii], w[ii], lo[1:], hi[1:], step)
            j0, p = _convolve_all(pieces)
            tables.append(self._table(a[ib], b[ib], w[ib], lo[0], hi[0], j0, p, step))
        # extrapolate on the coarse points: level L holds coarse point k at index 2**L k
        k_lo = max(-(-k0 // 2**L) for L, (k0, _, _) in enumerate(tables))
        k_hi = min((k0 + F.size - 1) // 2**L for L, (k0, F, _) in enumerate(tables))
        kc = np.arange(k_lo, k_hi + 1)
        Fx = sum(c * F[2**L * kc - k0] for L, (c, (k0, F, _)) in enumerate(zip(weights, tables, strict=True)))
        Sx = sum(c * S[2**L * kc - k0] for L, (c, (k0, _, S)) in enumerate(zip(weights, tables, strict=True)))
        self.k0 = int(k_lo)
        self.F = np.clip(Fx, 0.0, 1.0)
        self.S = np.clip(Sx, 0.0, 1.0)
        self.exponents = exps
        self.x = kc * h
        # points where the density may be non-smooth: sums of support boundaries
        self.breaks = self._breakpoints(w[used])
        self._bad = np.zeros(self.x.size, dtype=bool)  # stencil interior may not hold a break
        if self.breaks.size:
            idx = np.round(self.breaks / h).astype(np.int64) - self.k0
            idx = idx[(idx >= 0) & (idx < self.x.size)]
            self._bad[idx] = True

    @staticmethod
    def _exponents(a, b, ib, ids, lo, hi, w):
        """Powers of h in the discretisation error (generalised Richardson extrapolation).

        Smooth parts give h^2 (and h^4). A singular or kinked CDF of B at a support boundary,
        ``F_B ~ z^a``, adds h^(1+a); a singular density of a lattice component, ``~ r^(a-1)``,
        adds h^(2+a). Only boundaries that carry mass (inside the 1e-15 span) count.
        """
        exps = {2.0}
        comps = [ib, *ids]
        for k, i in enumerate(comps):
            # a boundary counts when the mass reaches (close to) it: singular densities have
            # their 1e-15 quantile at 1e-30, not at 0
            near = 0.1 * (hi[k] - lo[k])
            for par, active in ((a[i], lo[k] <= near), (b[i], w[i] - hi[k] <= near)):
                if not active:
                    continue
                e = (1.0 + par) if k == 0 else (2.0 + par)
                # integer powers (jumps of a density at a lattice point) add no new term
                if e < 3.5 and abs(e - round(e)) > 1e-9:
                    exps.add(round(float(e), 12))
        return sorted(exps)[:3]

    @staticmethod
    def _table(aB, bB, wB, loB, hiB, j0, p, h):
        """F_S and S_S at lattice points k*h from R's masses and B's exact cell masses."""
        m_lo = int(np.floor(loB / h)) - 1
        m_hi = int(np.ceil(hiB / h)) + 1
        z = np.arange(m_lo, m_hi + 1) * h
        F, S = _inc_beta(aB, bB, np.clip(z / wB, 0.0, 1.0))
        Ft, St = tabulate(p, F, S, z / wB <= aB / (aB + bB))
        return j0 + m_lo, Ft, St

    @staticmethod
    def _breakpoints(wu):
        wu = np.asarray(wu)
        if wu.size > 14:
            # the density of a sum of this many Beta variables is smooth to high order
            return np.array([])
        if np.all(np.abs(wu - wu[0]) <= 1e-12 * wu[0]):
            return wu[0] * np.arange(wu.size + 1)
        sums = {0.0}
        for r in range(1, wu.size + 1):
            for comb in itertools.combinations(wu, r):
                sums.add(float(sum(comb)))
        return np.array(sorted(sums))

    # -----------------------------------------------------------------------------------------
    def _stencil(self, x):
        """Start index of a 6-point stencil around each x that holds no break in its interior."""
        n = self.x.size
        u = (x - self.x[0]) / self.h
        i = np.clip(np.floor(u).astype(np.int64), 0, n - 2)
        best = np.clip(i - 2, 0, n - _ORDER)
        if self._bad.any():
            cum = np.concatenate([[0], np.cumsum(self._bad)])
            chosen = np.full(i.shape, -1)
            for shift in (2, 1, 3, 0, 4, 5):
                s = np.clip(i - shift, 0, n - _ORDER)
                contains = (s <= i) & (i + 1 <= s + _ORDER - 1)
                interior_bad = cum[s + _ORDER - 1] - cum[s + 1]
                ok = contains & (interior_bad == 0) & (chosen < 0)
                chosen = np.where(ok, s, chosen)
            best = np.where(chosen >= 0, chosen, best)
        return best

    def table_quantile(self, target, upper):
        """Starting points for quantiles: linear interpolation in the tabulated tails."""
        F = np.maximum.accumulate(self.F)
        S = np.minimum.accumulate(self.S)
        x_lo = np.interp(target, F, self.x)
        # S decreases along the table: interpolate on the reversed arrays
        x_hi = np.interp(target, S[::-1], self.x[::-1])
        return np.where(upper, x_hi, x_lo)

    def values(self, x, kinds):
        x = np.asarray(x, dtype=float)
        out = {}
        s = self._stencil(x)
        u = (x - self.x[s]) / self.h  # position in stencil units, 0..5
        # Lagrange basis on the nodes 0..5 as polynomials in u (a constant 6 x 6 matrix)
        powers = u[:, None] ** np.arange(_ORDER)[None, :]
        L = powers @ _LAGRANGE
        dpowers = np.zeros_like(powers)
        dpowers[:, 1:] = powers[:, :-1] * np.arange(1, _ORDER)[None, :]
        dL = dpowers @ _LAGRANGE
        idx = s[:, None] + np.arange(_ORDER)[None, :]
        below = x < self.x[0]
        above = x > self.x[-1]
        if "cdf" in kinds:
            v = np.sum(L * self.F[idx], axis=1)
            out["cdf"] = np.where(below, 0.0, np.where(above, 1.0, np.clip(v, 0.0, 1.0)))
        if "sf" in kinds:
            v = np.sum(L * self.S[idx], axis=1)
            out["sf"] = np.where(below, 1.0, np.where(above, 0.0, np.clip(v, 0.0, 1.0)))
        if "pdf" in kinds:
            v = np.sum(dL * self.F[idx], axis=1) / self.h
            out["pdf"] = np.where(below | above, 0.0, np.maximum(v, 0.0))
        return out
