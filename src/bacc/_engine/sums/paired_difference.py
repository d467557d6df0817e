"""Posterior of the balanced-accuracy difference of two classifiers tested on the same examples.

Model (the paired comparison of :func:`bacc.compare_paired`). In class ``i`` every example falls in one of
four cells: both classifiers right (``11``), only A right (``10``), only B right (``01``), both
wrong (``00``). The cell counts are multinomial; under a Dirichlet prior the cell probabilities
``p_i = (p11, p10, p01, p00)`` have a Dirichlet posterior with parameters ``alpha_i`` (counts plus
prior), independently across classes. The class accuracies are ``theta^A_i = p11 + p10`` and
``theta^B_i = p11 + p01`` (correlated), so the class difference is ``D_i = p10 - p01`` and the
difference of balanced accuracies (Carrillo et al. (2014), eq. 14) is ``delta = sum_i w_i D_i``.

By the neutrality of the Dirichlet distribution ``S = p10 + p01 ~ Beta(a10 + a01, a11 + a00)``
is independent of ``U = p10 / S ~ Beta(a10, a01)``, and ``D = S (2 U - 1)``.

Method (deterministic, the structure of :mod:`bacc._engine.sums.lattice`)
--------------------------------------------------------------------
* One class: ``P(D <= x) = [x >= 0] F_S(x) + int_{|x|}^1 f_S(s) F_U((x + s) / (2 s)) ds`` (for
  ``s < |x|`` the conditional probability is 0 or 1), one tanh-sinh quadrature over ``s`` per
  point, starting at the kink ``s = |x|`` and normalised to the exact Beta mass of its interval.
  Upper tails use ``P(D > x) = P(D' < -x)`` with ``D' = -D`` (swap the two discordant cells), so
  both tails keep full precision. The density is the same quadrature of
  ``f_S(s) f_U(u) / (2 s)``.
* Several classes: ``delta = B + R`` with ``B`` the class of largest spread, entered through its
  CDF, and ``R`` the others, each put on a lattice of step ``h`` by mean-preserving
  (triangular) masses: the mass at ``x_j`` is the second difference of the stop-loss transform
  ``E[(x - D)_+]`` divided by ``h``, i.e. the difference of the averages of the CDF over the two
  cells next to ``x_j``. Each class's CDF is computed once, at a few hundred points, by the
  one-class quadrature and represented by piecewise Chebyshev interpolants (pieces ``[lo, 0]``
  and ``[0, hi]``; near 0, where the CDF is singular when ``S`` has mass near 0, in a graded
  variable), accepted only when the trailing coefficients are below ``2e-14``; a class whose
  interpolant does not converge (tiny classes, with mass at the support ends) gets the exact
  stop-loss ``E_S[2 S G_U((x + S) / (2 S))]`` (``G_U`` = Beta stop-loss, closed form) at every
  lattice point instead. The lattice components are convolved by FFT
  (:func:`bacc._engine.sums.lattice._convolve_all`), convolved with ``B``'s cell masses, tabulated at steps
  ``h``, ``h/2`` and ``h/4`` and combined by Richardson extrapolation (error terms ``h^2`` and
  the one of ``D``'s singularity at 0). The difference between this extrapolation and the
  two-level one from ``(h/2, h/4)`` is kept as an error estimate (``error_estimate``), and
  ``h`` is halved while it exceeds ``1e-9``. Between lattice points the table is interpolated
  by :class:`bacc._engine.sums.lattice.GridTable`'s non-oscillatory degree-5 stencils.

Accuracy (tests/test_comparison_paired.py): one class within 1e-10 of an mpmath double integral; two
classes within ~2e-9 of nested quadrature, quantiles likewise; five classes within Monte Carlo
error of 10^6 Dirichlet draws.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import fft as sfft
from scipy import special as sc

from .. import beta as _beta
from .lattice import GridTable, _convolve_all, _extrapolation_weights, tabulate
from .solvers import beta_k4, beta_moments
from .two_betas import tanh_sinh_rule

__all__ = ["PairedTable", "PairedComponents", "dirichlet_difference_moments"]

_S_TAIL = 1e-17  # mass of S left out at each end of the quadrature interval
_D_TAIL = 1e-16  # mass of p10 / p01 left out at each end when bounding a lattice component
_MAX_POINTS = 2**19
_CHUNK = 4096  # points per vectorised quadrature call (memory: points x nodes)
_TARGET_ERROR = 1e-9  # refine the lattice while the error estimate exceeds this
_LEVELS = 3  # lattice steps h, h/2, h/4


_TS = tanh_sinh_rule(1.0 / 16.0)


def dirichlet_difference_moments(alpha) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, variance and third central moment of ``D = p10 - p01`` for each row of ``alpha``.

    ``alpha`` has shape ``(m, 4)`` with cells ordered ``(11, 10, 01, 00)``.
    """
    alpha = np.asarray(alpha, dtype=float)
    a10, a01 = alpha[:, 1], alpha[:, 2]
    a0 = alpha.sum(axis=1)
    mean = (a10 - a01) / a0
    var = (a10 * (a0 - a10) + a01 * (a0 - a01) + 2.0 * a10 * a01) / (a0 * a0 * (a0 + 1.0))
    # third central moment from D = S V, V = 2U - 1 independent of S (raw moments; used only
    # for the Cornish-Fisher starting point of quantile searches)
    aS, bS = a10 + a01, a0 - a10 - a01
    es = [np.ones_like(aS)]
    for k in range(3):
        es.append(es[-1] * (aS + k) / (aS + bS + k))
    eu = [np.ones_like(aS)]
    for k in range(3):
        eu.append(eu[-1] * (a10 + k) / (aS + k))
    ev1 = 2 * eu[1] - 1
    ev2 = 4 * eu[2] - 4 * eu[1] + 1
    ev3 = 8 * eu[3] - 12 * eu[2] + 6 * eu[1] - 1
    m1, m2, m3 = es[1] * ev1, es[2] * ev2, es[3] * ev3
    third = m3 - 3 * m1 * m2 + 2 * m1**3
    return mean, var, np.where(np.isfinite(third), third, 0.0)


def difference_cumulants(alpha) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Variance, third central moment and fourth cumulant of ``D = p10 - p01`` per row.

    From ``D = S V`` with independent ``S ~ Beta(a10 + a01, a11 + a00)`` and ``V = 2 U - 1``,
    ``U ~ Beta(a10, a01)``: with ``s, v`` the centred variables, ``D - E[D] = mu_S v + s (mu_V
    + v)``, whose moments are sums of products of the central moments of ``S`` and ``V``
    (closed-form, no cancellation between large raw moments: accurate for any class size).
    """
    alpha = np.asarray(alpha, dtype=float)
    a11, a10, a01, a00 = alpha.T
    aS, bS = a10 + a01, a11 + a00
    muS, s2, s3 = beta_moments(aS, bS)
    s4 = beta_k4(aS, bS) + 3.0 * s2 * s2
    muU, u2, u3 = beta_moments(a10, a01)
    u4 = beta_k4(a10, a01) + 3.0 * u2 * u2
    muV, v2, v3, v4 = 2.0 * muU - 1.0, 4.0 * u2, 8.0 * u3, 16.0 * u4
    a = muS
    var = a * a * v2 + s2 * (muV * muV + v2)
    m3 = a**3 * v3 + 3.0 * a * s2 * (2.0 * muV * v2 + v3) + s3 * (muV**3 + 3.0 * muV * v2 + v3)
    m4 = (
        a**4 * v4
        + 6.0 * a * a * s2 * (muV * muV * v2 + 2.0 * muV * v3 + v4)
        + 4.0 * a * s3 * (3.0 * muV * muV * v2 + 3.0 * muV * v3 + v4)
        + s4 * (muV**4 + 6.0 * muV * muV * v2 + 4.0 * muV * v3 + v4)
    )
    return var, m3, m4 - 3.0 * var * var


def _inc(a, b, x, one_x):
    """``(I_x(a, b), 1 - I_x(a, b))`` with ``x`` and ``1 - x`` both given accurately.

    One incomplete beta per point, in the tail where it is accurate (below the mean ``I_x(a,
    b)``, above it ``I_{1-x}(b, a)``), evaluated only where needed.
    """
    a, b, x, one_x = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, x, one_x)))
    low = x <= a / (a + b)
    v = np.empty(x.shape)
    with np.errstate(all="ignore"):
        v[low] = sc.betainc(a[low], b[low], x[low])
        hi = ~low
        v[hi] = sc.betainc(b[hi], a[hi], one_x[hi])
    return np.where(low, v, 1.0 - v), np.where(low, 1.0 - v, v)


def _beta_logpdf(x, one_x, a, b, lbeta):
    with np.errstate(all="ignore"):
        return sc.xlogy(a - 1.0, x) + sc.xlogy(b - 1.0, one_x) - lbeta


class PairedComponents:
    """Per-class quantities of ``D_i = S_i (2 U_i - 1)`` and one-sided quadratures."""

    def __init__(self, alpha: np.ndarray) -> None:
        alpha = np.asarray(alpha, dtype=float)
        self.a11, self.a10, self.a01, self.a00 = alpha.T
        self.a0 = alpha.sum(axis=1)
        self.aS = self.a10 + self.a01
        self.bS = self.a11 + self.a00
        self.mean, self.var, self.m3 = dirichlet_difference_moments(alpha)
        self.muS = self.aS / (self.aS + self.bS)
        self.lbS = sc.betaln(self.aS, self.bS)
        self.lbU = sc.betaln(self.a10, self.a01)
        self.s_lo = np.asarray(_beta.beta_ppf(_S_TAIL, self.aS, self.bS), dtype=float).reshape(-1)
        self.s_hi = np.asarray(_beta.beta_isf(_S_TAIL, self.aS, self.bS), dtype=float).reshape(-1)

    def span(self) -> tuple[np.ndarray, np.ndarray]:
        """Interval of each ``D_i`` outside which it has less than ~2e-16 probability."""
        b10 = self.a0 - self.a10
        b01 = self.a0 - self.a01
        p10_lo = _beta.beta_ppf(_D_TAIL, self.a10, b10)
        p10_hi = _beta.beta_isf(_D_TAIL, self.a10, b10)
        p01_lo = _beta.beta_ppf(_D_TAIL, self.a01, b01)
        p01_hi = _beta.beta_isf(_D_TAIL, self.a01, b01)
        lo = np.maximum(-self.s_hi, p10_lo - p01_hi)
        hi = np.minimum(self.s_hi, p10_hi - p01_lo)
        return np.atleast_1d(lo).astype(float), np.atleast_1d(hi).astype(float)

    def lower(self, x, idx, swap, kinds):
        """One-sided quantities of ``D_i`` (``i = idx``, one per point) at ``x``.

        With ``swap`` the cells ``10`` and ``01`` are exchanged (the variable is ``-D``).
        Kinds: ``"cdf"`` = ``P(D <= x)``, ``"stoploss"`` = ``E[(x - D)_+]``, ``"pdf"``.
        """
        out = {k: np.empty(x.size) for k in kinds}
        for start in range(0, x.size, _CHUNK):
            sl = slice(start, start + _CHUNK)
            vals = self._lower_chunk(x[sl], idx[sl], swap[sl], kinds)
            for k in kinds:
                out[k][sl] = vals[k]
        return out

    def _lower_chunk(self, x, idx, swap, kinds):
        aS, bS, lbS, muS = self.aS[idx], self.bS[idx], self.lbS[idx], self.muS[idx]
        aU = np.where(swap, self.a01[idx], self.a10[idx])
        bU = np.where(swap, self.a10[idx], self.a01[idx])
        lbU = self.lbU[idx]
        muU = aU / (aU + bU)
        s_lo, s_hi = self.s_lo[idx], self.s_hi[idx]
        r0 = np.abs(x)
        pos = x >= 0
        c = np.maximum(r0, s_lo)
        d = s_hi
        width = np.maximum(d - c, 0.0)
        L, R, W = _TS
        dl = width[:, None] * L[None, :]
        dr = width[:, None] * R[None, :]
        wt = width[:, None] * W[None, :]
        s = c[:, None] + dl
        one_s = (1.0 - d)[:, None] + dr
        with np.errstate(all="ignore"):
            # density of S normalised so the rule gives the exact mass of [c, d]
            logf = _beta_logpdf(s, one_s, aS[:, None], bS[:, None], lbS[:, None])
            top = np.max(np.where(wt > 0, logf, -np.inf), axis=1, keepdims=True)
            g = np.where(wt > 0, np.exp(logf - np.where(np.isfinite(top), top, 0.0)), 0.0)
            g = np.nan_to_num(g, nan=0.0, posinf=0.0)
            Fc = _inc(aS, bS, c, 1.0 - c)
            Fd = _inc(aS, bS, d, 1.0 - d)
            mass = np.where(d <= muS, Fd[0] - Fc[0], Fc[1] - Fd[1])
            mass = np.where(width > 0, np.maximum(mass, 0.0), 0.0)
            norm = np.sum(g * wt, axis=1)
            scale = np.where(norm > 0, mass / np.where(norm > 0, norm, 1.0), 0.0)
            fw = g * wt * scale[:, None]  # quadrature weight times density of S
        # nodes whose weighted density is negligible are skipped (the integrands are bounded
        # by 1 for the CDF and by 2 for the stop-loss); the density keeps every node
        keep = fw > (0.0 if "pdf" in kinds else 1e-19)
        row = np.broadcast_to(np.arange(x.size)[:, None], fw.shape)[keep]
        fwk, sk = fw[keep], s[keep]
        with np.errstate(all="ignore"):
            # u = (x + s) / (2 s), from its accurate end: rr = s - |x| >= 0
            rr = (c - r0)[row] + dl[keep]
            t = rr / (2.0 * sk)
            pk = pos[row]
            u = np.clip(np.where(pk, 1.0 - t, t), 0.0, 1.0)
            one_u = np.clip(np.where(pk, t, 1.0 - t), 0.0, 1.0)
        a_u, b_u = aU[row], bU[row]
        res = {}
        if "cdf" in kinds or "stoploss" in kinds:
            FU, SU = _inc(a_u, b_u, u, one_u)
        if "pdf" in kinds or "stoploss" in kinds:
            with np.errstate(all="ignore"):
                fU = np.exp(_beta_logpdf(u, one_u, a_u, b_u, lbU[row]))
                fU = np.where(np.isfinite(fU), fU, 0.0)
        if "cdf" in kinds:
            xc = np.clip(x, 0.0, 1.0)
            base = np.where(pos, _inc(aS, bS, xc, 1.0 - xc)[0], 0.0)
            res["cdf"] = base + np.bincount(row, fwk * FU, minlength=x.size)
        if "stoploss" in kinds:
            with np.errstate(all="ignore"):
                tail = u * one_u * fU / (a_u + b_u)
                m = muU[row]
                GU = np.where(u <= m, (u - m) * FU + tail, (u - m) * (1.0 - SU) + tail)
                GU = np.maximum(GU, 0.0)
            integral = np.bincount(row, fwk * 2.0 * sk * GU, minlength=x.size)
            # s <= x (x >= 0): u >= 1, so 2 s G_U(u) = x + s (1 - 2 mu_U), integrated exactly
            xc = np.clip(x, 0.0, 1.0)
            FSx = _inc(aS, bS, xc, 1.0 - xc)[0]
            ESx = muS * _inc(aS + 1.0, bS, xc, 1.0 - xc)[0]
            base = np.where(pos, x * FSx + (1.0 - 2.0 * muU) * ESx, 0.0)
            res["stoploss"] = base + integral
        if "pdf" in kinds:
            with np.errstate(all="ignore"):
                val = np.nan_to_num(fwk * fU / (2.0 * sk), nan=0.0, posinf=0.0)
            res["pdf"] = np.bincount(row, val, minlength=x.size)
        return res

    def values(self, x, idx, kinds):
        """cdf / sf / pdf of ``D_i`` at x (one component index per point), both tails accurate."""
        x = np.asarray(x, dtype=float)
        idx = np.asarray(idx)
        upper = x > self.mean[idx]
        # lower side: D at x; upper side: -D at -x
        xs = np.where(upper, -x, x)
        need = tuple({"cdf": "cdf", "sf": "cdf", "pdf": "pdf"}[k] for k in kinds)
        v = self.lower(xs, idx, upper, tuple(dict.fromkeys(need)))
        out = {}
        if "cdf" in kinds or "sf" in kinds:
            t = np.clip(v["cdf"], 0.0, 1.0)
            if "cdf" in kinds:
                out["cdf"] = np.where(upper, 1.0 - t, t)
            if "sf" in kinds:
                out["sf"] = np.where(upper, t, 1.0 - t)
        if "pdf" in kinds:
            out["pdf"] = np.maximum(v["pdf"], 0.0)
        return out

    def centred_stoploss(self, x, idx):
        """``H(x) = E[(x - D)_+] - (x - mean)_+``: the lower stop-loss below the mean, the upper
        one above it; small everywhere, so second differences keep their precision."""
        idx = np.asarray(idx)
        upper = x > self.mean[idx]
        xs = np.where(upper, -x, x)
        return self.lower(xs, idx, upper, ("stoploss",))["stoploss"]


def _lattice_masses(comp: PairedComponents, ids, w, lo, hi, h, cheb: _ChebCDF | None = None):
    """Triangular (mean-preserving) masses of each ``w_i D_i`` on the lattice ``j h``.

    The mass at ``x_j`` is the second difference of the stop-loss transform, divided by
    ``h``; equivalently the difference of the averages of the CDF over the cells on either
    side of ``x_j``. Classes with a converged Chebyshev interpolant of their CDF use the
    latter (cheap); the others the exact stop-loss quadrature at every lattice point.
    """
    ids = np.asarray(ids)
    j0 = np.floor(lo / h).astype(np.int64) - 1
    j1 = np.ceil(hi / h).astype(np.int64) + 1
    out: list = [None] * ids.size
    direct = []
    for k, i in enumerate(ids):
        if cheb is not None and cheb.ok.get(int(i), False):
            wi = w[i]
            js = np.arange(j0[k] - 1, j1[k] + 1)  # cells [x_j, x_j+1] in units of w_i D_i
            A = cheb.cell_averages(int(i), js * h / wi, h / wi)
            m = np.maximum(A[1:] - A[:-1], 0.0)
            out[k] = (int(j0[k]), m / m.sum())
        else:
            direct.append(k)
    if direct:
        dk = np.asarray(direct)
        did = ids[dk]
        counts = j1[dk] - j0[dk] + 3
        owner = np.repeat(np.arange(dk.size), counts)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        local = np.arange(int(counts.sum())) - np.repeat(starts, counts)
        xs = (np.repeat(j0[dk] - 1, counts) + local) * h
        wo = w[did[owner]]
        # stop-loss of w D at x is w times that of D at x / w
        H = wo * comp.centred_stoploss(xs / wo, did[owner])
        mu = wo * comp.mean[did[owner]]
        kink = np.maximum(xs - mu, 0.0)
        for r, k in enumerate(direct):
            sl = slice(starts[r], starts[r] + counts[r])
            Hk, Kk = H[sl], kink[sl]
            d2 = (Hk[2:] - 2.0 * Hk[1:-1] + Hk[:-2]) + (Kk[2:] - 2.0 * Kk[1:-1] + Kk[:-2])
            m = np.maximum(d2 / h, 0.0)
            out[k] = (int(j0[k]), m / m.sum())
    return out


_CHEB_SIZES = (32, 64, 128, 256)  # Chebyshev-Lobatto sizes tried (nested: values reused)
_CHEB_TOL = 2e-14  # converged when the top quarter of the coefficients is below this
_GL6 = np.polynomial.legendre.leggauss(6)
_GRADED = 5  # power of the graded variable near 0


class _ChebCDF:
    """Piecewise Chebyshev interpolants of the CDF of each class difference ``D_i``.

    ``F_D`` is analytic on ``[lo, 0]`` and ``[0, hi]`` (it may be singular only at 0 and at the
    support ends), so a Chebyshev interpolant per piece converges fast; a piece ending at 0
    whose CDF may be singular there (``S`` with mass near 0) uses the graded variable
    ``x = x_end ((1 + t) / 2)^5``, which smooths a singularity ``|x|^a`` into ``|t|^(5 a)``
    (and a piece that does not converge is retried in the other variable). The exact one-class
    quadrature is then needed at a few hundred points per class instead of at every lattice
    point of every step. Classes whose pieces do not converge (``ok[i]`` False) are left to
    the direct lattice evaluation.
    """

    def __init__(self, comp: PairedComponents, ids, lo, hi) -> None:
        self.ok: dict[int, bool] = {}
        self.pieces: dict[int, list] = {}
        todo = []
        for i in ids:
            i = int(i)
            if lo[i] < 0.0 < hi[i]:
                ends = [(0.0, float(lo[i])), (0.0, float(hi[i]))]  # (origin, far end)
            else:
                ends = [(float(lo[i]), float(hi[i]))]
            self.pieces[i] = []
            for o, e in ends:
                # strong singularity at 0 (S has mass near 0): start in the graded variable
                q = _GRADED if (o == 0.0 and comp.aS[i] < 4.0) else 1
                todo.append([i, o, e, q])
        for attempt in range(2):
            if not todo:
                break
            failed = []
            vals: list[np.ndarray | None] = [None] * len(todo)
            done = [False] * len(todo)
            for n in _CHEB_SIZES:
                idx_pts, x_pts, where = [], [], []
                for k, (i, o, e, q) in enumerate(todo):
                    if done[k]:
                        continue
                    t = np.cos(np.pi * np.arange(n + 1) / n)
                    new = np.arange(n + 1) if vals[k] is None else np.arange(1, n + 1, 2)
                    x = o + (e - o) * ((1.0 + t[new]) / 2.0) ** q
                    idx_pts.append(np.full(new.size, i))
                    x_pts.append(x)
                    where.append((k, new))
                if not where:
                    break
                v = comp.values(np.concatenate(x_pts), np.concatenate(idx_pts), ("cdf",))["cdf"]
                pos = 0
                for k, new in where:
                    f = np.empty(n + 1)
                    if vals[k] is None:
                        f[new] = v[pos : pos + new.size]
                    else:
                        f[0::2] = vals[k]
                        f[new] = v[pos : pos + new.size]
                    pos += new.size
                    vals[k] = f
                    c = sfft.dct(f, type=1) / n
                    c[0] /= 2.0
                    c[-1] /= 2.0
                    if np.max(np.abs(c[(3 * n) // 4 :])) < _CHEB_TOL:
                        done[k] = True
                        i, o, e, q = todo[k]
                        keep = np.flatnonzero(np.abs(c) >= _CHEB_TOL * 1e-3)
                        c = c[: (keep[-1] + 1 if keep.size else 1)]
                        self.pieces[i].append((o, e, q, c))
            for k, piece in enumerate(todo):
                if not done[k]:
                    i, o, e, q = piece
                    if attempt == 0 and o == 0.0:
                        failed.append([i, o, e, 1 if q == _GRADED else _GRADED])
                    else:
                        self.ok[i] = False
            todo = failed
        for i in self.pieces:
            self.ok.setdefault(i, True)

    def cdf(self, i: int, x) -> np.ndarray:
        """Interpolated CDF of ``D_i`` at x (0 left of its span, 1 right of it)."""
        from numpy.polynomial import chebyshev as C

        x = np.asarray(x, dtype=float)
        pieces = self.pieces[i]
        lo = min(min(o, e) for o, e, _, _ in pieces)
        out = np.where(x < lo, 0.0, 1.0)
        for o, e, q, c in pieces:
            a, b = min(o, e), max(o, e)
            m = (x >= a) & (x <= b)
            if not m.any():
                continue
            r = np.clip((x[m] - o) / (e - o), 0.0, 1.0)
            t = 2.0 * r ** (1.0 / q) - 1.0
            out[m] = C.chebval(t, c)
        return np.clip(out, 0.0, 1.0)

    def cell_averages(self, i: int, x0: np.ndarray, width: float) -> np.ndarray:
        """Average of the CDF over each cell ``[x0, x0 + width]`` (6-point Gauss-Legendre; a
        cell never straddles 0, where two pieces meet, because 0 is a lattice point)."""
        g, gw = _GL6
        nodes = x0[:, None] + width * (1.0 + g[None, :]) / 2.0
        vals = self.cdf(i, nodes.ravel()).reshape(nodes.shape)
        return vals @ (gw / 2.0)


class PairedTable(GridTable):
    """CDF / SF / density of ``delta = sum_i w_i D_i`` on an aligned lattice (>= 2 classes).

    Reuses the interpolation of :class:`bacc._engine.sums.lattice.GridTable` (``values``); only the
    construction differs (Dirichlet-difference components instead of Beta components).
    """

    def __init__(
        self, comp: PairedComponents, w, ib: int, ids: list[int], resolution: float, narrow=None
    ) -> None:
        """``narrow``: a centred narrow part (:class:`bacc._engine.sums.narrow_part.MomentNarrow`)
        entered as one more lattice row."""
        self._narrow = narrow
        w = np.asarray(w, dtype=float)
        sd = w * np.sqrt(comp.var)
        lo, hi = comp.span()
        used = [ib, *ids]
        lo_u, hi_u = lo[used] * w[used], hi[used] * w[used]
        h = float(np.min(sd[ids])) / resolution
        span = float(np.sum(hi_u - lo_u))
        sd_sum = float(np.sqrt(np.sum(sd[used] ** 2)))
        h_cap = sd_sum / (25.0 * resolution)
        if h_cap > h:
            # components narrower than 4 h are not resolved; keep their error below ~1e-10
            narrow = np.sum(sd[ids] < 4.0 * h_cap)
            if narrow:
                h_cap = min(h_cap, sd_sum * np.sqrt(2e-9 / narrow))
            h = max(h, h_cap)
        h = max(h, span / _MAX_POINTS)
        wu = w[used]
        self.aligned = bool(np.all(np.abs(wu - wu[0]) <= 1e-12 * wu[0]))
        exps = self._exponents_paired(comp, ib, ids, lo, hi)
        self.exponents = exps
        cheb = _ChebCDF(comp, used, lo, hi)
        self.interpolated = tuple(i for i in used if cheb.ok[i])
        for _attempt in range(3):
            if self.aligned:
                h = float(wu[0]) / np.ceil(float(wu[0]) / h)
            self.h = h
            kc, Fx, Sx, err = self._build(comp, w, ib, ids, lo, hi, h, exps, cheb)
            self.error_estimate = err
            if err <= _TARGET_ERROR or span / (h / 8.0) > _MAX_POINTS:
                break
            h = h / 2.0
        self.k0 = int(kc[0])
        self.F = np.clip(Fx, 0.0, 1.0)
        self.S = np.clip(Sx, 0.0, 1.0)
        self.x = kc * self.h
        self.breaks = self._breakpoints_paired(wu)
        self._bad = np.zeros(self.x.size, dtype=bool)
        if self.breaks.size:
            idx = np.round(self.breaks / self.h).astype(np.int64) - self.k0
            idx = idx[(idx >= 0) & (idx < self.x.size)]
            self._bad[idx] = True

    @staticmethod
    def _exponents_paired(comp, ib, ids, lo, hi):
        """Powers of h in the discretisation error (see :meth:`GridTable._exponents`).

        ``D`` has a density singular like ``|x|^(a10 + a01 - 1)`` at 0 (a lattice point) and
        like ``(1 - |x|)^(a11 + a00 + a01 - 1)`` at the ends of its support: the exact component
        adds ``h^(1 + a)``, a lattice component ``h^(2 + a)``.
        """
        exps = {2.0}
        for k, i in enumerate([ib, *ids]):
            base = 1.0 if k == 0 else 2.0
            cands = [comp.aS[i]]
            if hi[i] >= 1.0 - 1e-12:
                cands.append(comp.bS[i] + comp.a01[i])
            if lo[i] <= -1.0 + 1e-12:
                cands.append(comp.bS[i] + comp.a10[i])
            for a in cands:
                e = base + a
                if e < 3.5 and abs(e - round(e)) > 1e-9:
                    exps.add(round(float(e), 12))
        exps = sorted(exps)[: _LEVELS - 1]
        return exps if len(exps) == _LEVELS - 1 else [*exps, 4.0]

    def _build(self, comp, w, ib, ids, lo, hi, h, exps, cheb):
        """Tables at steps h, h/2, h/4, their Richardson extrapolation and its error estimate.

        The estimate is the difference between the three-level extrapolation and the
        two-level one from the finer pair (``h/2, h/4``, error ``h^2`` removed only).
        """
        ii = np.asarray(ids)
        tables = []
        for level in range(_LEVELS):
            step = h / 2**level
            pieces = _lattice_masses(comp, ii, w, lo[ii] * w[ii], hi[ii] * w[ii], step, cheb)
            if self._narrow is not None:
                pieces.append(self._narrow.masses(step, h, fourth_order=False))
            j0, p = _convolve_all(pieces)
            tables.append(
                self._table_paired(comp, w[ib], ib, lo[ib] * w[ib], hi[ib] * w[ib], j0, p, step, cheb)
            )
        k_lo = max(-(-k0 // 2**L) for L, (k0, _, _) in enumerate(tables))
        k_hi = min((k0 + F.size - 1) // 2**L for L, (k0, F, _) in enumerate(tables))
        kc = np.arange(k_lo, k_hi + 1)
        c_all = _extrapolation_weights(exps)
        c_fine = _extrapolation_weights(exps[:1])
        out = []
        for which in (1, 2):
            vals = [tab[which][2**L * kc - tab[0]] for L, tab in enumerate(tables)]
            best = sum(c * v for c, v in zip(c_all, vals, strict=True))
            fine = c_fine[0] * vals[-2] + c_fine[1] * vals[-1]
            out.append((best, fine))
        (F_best, F_fine), (S_best, S_fine) = out
        err = float(max(np.max(np.abs(F_best - F_fine)), np.max(np.abs(S_best - S_fine))))
        return kc, F_best, S_best, err

    @staticmethod
    def _table_paired(comp, wB, ib, loB, hiB, j0, p, h, cheb):
        m_lo = int(np.floor(loB / h)) - 1
        m_hi = int(np.ceil(hiB / h)) + 1
        z = np.arange(m_lo, m_hi + 1) * h
        if cheb.ok[ib]:
            F = cheb.cdf(ib, z / wB)
            S = 1.0 - F
        else:
            v = comp.values(z / wB, np.full(z.size, ib), ("cdf", "sf"))
            F, S = v["cdf"], v["sf"]
        Ft, St = tabulate(p, F, S, z / wB <= comp.mean[ib])
        return j0 + m_lo, Ft, St

    @staticmethod
    def _breakpoints_paired(wu):
        """Where the density may be non-smooth: sums of ``-w_i, 0, w_i`` (few classes only)."""
        wu = np.asarray(wu)
        if wu.size > 14:
            return np.array([])
        if np.all(np.abs(wu - wu[0]) <= 1e-12 * wu[0]):
            return wu[0] * np.arange(-wu.size, wu.size + 1)
        if wu.size > 7:
            return np.array([])
        sums = {float(np.dot(c, wu)) for c in itertools.product((-1, 0, 1), repeat=wu.size)}
        return np.array(sorted(sums))
