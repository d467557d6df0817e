"""Exact two-component sums ``wB Beta(aB, bB) + wR Beta(aR, bR)`` by one-dimensional
quadrature (Gauss-Legendre where the integrand is smooth, tanh-sinh elsewhere).

References
----------
Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced accuracy and
its posterior distribution. Proc. 20th ICPR, 3121-3124, eq. 7.
Takahasi, H. & Mori, M. (1974). Double exponential formulas for numerical integration.
Publ. RIMS Kyoto Univ. 9, 721-741.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

from .. import beta as _beta
from .solvers import unit as _unit

_TAIL = 1e-14  # mass of a component left out on each side of its span

def tanh_sinh_rule(step: float = 1.0 / 16.0, tmax: float = 4.2):
    """Tanh-sinh (double exponential) rule on [0, 1]: left distances, right distances, weights.

    Distances to both ends are returned separately so that integrands singular at an end point
    (a Beta density with a < 1, a CDF with a kink) are evaluated without cancellation.
    """
    tau = np.arange(-tmax, tmax + step / 2, step)
    e = np.pi * np.sinh(tau)
    left = sc.expit(e)
    right = sc.expit(-e)
    wts = step * np.pi * np.cosh(tau) * left * right
    keep = wts > 1e-300
    return left[keep], right[keep], wts[keep]


_TS_LEFT, _TS_RIGHT, _TS_W = tanh_sinh_rule()


class PairSums:
    """Exact evaluation of two-component sums ``S = wB Beta(aB, bB) + wR Beta(aR, bR)``.

    One row of parameters per sum (one for :class:`BetaSum`, one per group in
    :func:`bacc.evaluate_many`); both use this code, so their numbers agree to rounding.

    ``P(S <= x) = P(X_R <= t2) + int_c^d F_B(s(t)) f_R(t) dt`` with ``t1 = x / wR``,
    ``t2 = (x - wB) / wR``, ``s(t) = (x - wR t) / wB`` and ``[c, d] = [t2, t1]`` cut to R's span
    ``[tlo, thi]`` between its 1e-14 quantiles (Brodersen et al. (2010), eq. 7): a quadrature over the narrower
    component R, evaluated in distances to the end points so nothing cancels. ``F_B`` has its
    kinks at ``t1`` (s = 0) and ``t2`` (s = 1).

    Rules, per x:

    * *full*: both kinks outside R's span and R's density smooth on it (integer parameter at a
      boundary its mass reaches, as under a flat prior, or the singular point farther from the
      span than half its length): a 48-point Gauss-Legendre rule over the whole span, whose
      nodes and weights do not depend on x and are computed once per sum.
    * *cut*: as *full*, but an end of ``[c, d]`` is a kink where ``F_B`` is analytic anyway
      (integer Beta parameter of B on that side: ``I_s(a, b)`` is then a polynomial times a
      power with integer exponent): Gauss-Legendre on ``[c, d]``.
    * otherwise the tanh-sinh rule on ``[c, d]``, which tolerates end-point singularities.
    """

    def __init__(self, aB, bB, wB, aR, bR, wR, nodes: int = 48) -> None:
        aB, bB, wB, aR, bR, wR = (
            np.atleast_1d(np.asarray(v, dtype=float)) for v in (aB, bB, wB, aR, bR, wR)
        )
        tlo, thi = _beta.beta_tail_span(aR, bR, _TAIL)
        self.P = {
            "aB": aB, "bB": bB, "wB": wB, "aR": aR, "bR": bR, "wR": wR,
            "tlo": tlo, "thi": thi, "lbB": sc.betaln(aB, bB), "mR": aR / (aR + bR),
        }  # fmt: skip
        # R's density t^(a-1) (1-t)^(b-1) is smooth on its span when the exponent is an
        # integer, or when the singular point lies far outside the span (relative to its length)
        span = thi - tlo
        self._smooth = (_is_integer(aR) | (tlo > 0.5 * span)) & (
            _is_integer(bR) | (1.0 - thi > 0.5 * span)
        )
        self._int_aB = _is_integer(aB)
        self._int_bB = _is_integer(bB)
        # the slope of the density is the quadrature of f_B' when f_B vanishes at both ends of
        # its support (no boundary terms from the x-dependent limits t1, t2)
        self.slope_ok = (aB > 1.0) & (bB > 1.0)
        self._many = aB.size > 1
        self._full = None
        # Gauss-Legendre rule of the smooth rows (48 nodes; fewer where a caller evaluates the
        # sums inside an outer quadrature and measured that its error allows it)
        self._rule = _GL_RULE if nodes == 48 else _gauss_legendre_rule(nodes)

    def kinks(self) -> np.ndarray:
        """Per sum, the points where its density has a kink, shape (sums, 2), ``inf`` where
        there is none: where B's density jumps (or is infinite) at 0 and R's at 1 (``x = wR``),
        and where B's does at 1 and R's at 0 (``x = wB``); a parameter of at most 1 at that
        end (a perfect or all-wrong class under the flat prior, or Jeffreys' prior)."""
        P = self.P
        one = (P["aB"] <= 1.0) & (P["bR"] <= 1.0)
        other = (P["bB"] <= 1.0) & (P["aR"] <= 1.0)
        return np.stack([np.where(one, P["wR"], np.inf), np.where(other, P["wB"], np.inf)], axis=1)

    def _full_nodes(self):
        """Gauss-Legendre nodes over R's whole span, per sum: (left, right distances, weights)."""
        if self._full is None:
            P = self.P
            _, fw, dl, dr, _ = _pair_nodes(P["tlo"], P["thi"], P, self._rule)
            self._full = (dl, dr, fw)
        return self._full

    def values(self, x, kinds, which=None, upper=None):
        """cdf / sf / pdf at ``x``; ``which[i]`` is the sum that ``x[i]`` belongs to.

        ``which=None`` means every x belongs to the first (or only) sum. The slope of the
        density (``"dpdf"``) is NaN for sums where it would need boundary terms (a parameter
        of B <= 1). Kind ``"tail"`` is the sf where ``upper`` (bool per x), else the cdf.
        """
        x = np.asarray(x, dtype=float)
        up = None if upper is None else np.broadcast_to(np.asarray(upper, dtype=bool), x.shape)
        out = self._values(x, kinds, which, up)
        if "dpdf" in kinds and not self.slope_ok.all():
            ok = self.slope_ok if which is None else self.slope_ok[which]
            out["dpdf"] = np.where(ok, out["dpdf"], np.nan)
        return out

    def _values(self, x, kinds, which, up):
        P = self.P
        keys = ("wB", "wR", "tlo", "thi")
        if which is None:
            wB, wR, tlo, thi = (P[k] for k in keys)
            smooth, int_a, int_b = self._smooth, self._int_aB, self._int_bB
            sums = np.zeros(x.size, dtype=np.intp)
        else:
            wB, wR, tlo, thi = (P[k][which] for k in keys)
            smooth, int_a, int_b = self._smooth[which], self._int_aB[which], self._int_bB[which]
            sums = which
        t1 = x / wR
        t2 = (x - wB) / wR
        lo_out = t2 <= tlo
        hi_out = t1 >= thi
        full = lo_out & hi_out & smooth
        if full.all():  # the common case: cached nodes only
            return self._full_sum(x, t1, t2, sums, kinds, slice(None), up)
        cut = smooth & (lo_out | int_b) & (hi_out | int_a) & ~full
        n = x.size
        out = {k: np.empty(n) for k in kinds}
        rows_f, rows_c = np.flatnonzero(full), np.flatnonzero(cut)
        rows_t = np.flatnonzero(~(full | cut))
        if rows_c.size:
            # Gauss-Legendre rows on [c, d]
            sB, one_sB, fw, Pr, base = self._nodes_on_cut(x, t1, t2, sums, rows_c, self._rule)
            vals = _pair_sum(x[rows_c], sB, one_sB, fw, Pr, kinds, base, _rows(up, rows_c))
            for k in kinds:
                out[k][rows_c] = vals[k]
        if rows_f.size:
            vals = self._full_sum(x, t1, t2, sums, kinds, rows_f, up)
            for k in kinds:
                out[k][rows_f] = vals[k]
        if rows_t.size:
            sB, one_sB, fw, Pr, base = self._nodes_on_cut(x, t1, t2, sums, rows_t, None)
            vals = _pair_sum(x[rows_t], sB, one_sB, fw, Pr, kinds, base, _rows(up, rows_t))
            for k in kinds:
                out[k][rows_t] = vals[k]
        return out

    def _nodes_on_cut(self, x, t1, t2, sums, rows, rule):
        """Nodes of ``rule`` (tanh-sinh if None) on ``[c, d]`` for the x of ``rows``."""
        Pr = self._params(sums, rows)
        t1r, t2r = t1[rows], t2[rows]
        c = np.maximum(t2r, Pr["tlo"])
        d = np.minimum(t1r, Pr["thi"])
        _, fw, dl, dr, base = _pair_nodes(c, d, Pr, rule)
        ratio = (Pr["wR"] / Pr["wB"])[:, None]
        with np.errstate(invalid="ignore"):
            sB = ratio * ((t1r - d)[:, None] + dr)  # s(t), from the right end point
            one_sB = ratio * ((c - t2r)[:, None] + dl)  # 1 - s(t), from the left end point
        return sB, one_sB, fw, Pr, base

    def _full_nodes_at(self, t1, t2, sums, rows):
        """The cached whole-span nodes, placed for the x of ``rows``."""
        dl, dr, fw = self._full_nodes()
        w = sums[rows] if self._many else 0
        Pr = self._params(sums, rows)
        ratio = (Pr["wR"] / Pr["wB"])[:, None]
        sB = ratio * ((t1[rows] - Pr["thi"])[:, None] + dr[w])  # s(t), from the right end point
        one_sB = ratio * ((Pr["tlo"] - t2[rows])[:, None] + dl[w])  # 1 - s(t), from the left
        return sB, one_sB, np.broadcast_to(fw[w], sB.shape), Pr

    def _params(self, sums, rows):
        """Parameters of the sums of the x of ``rows`` (one sum: its own, broadcasting)."""
        if not self._many:
            return self.P
        w = sums[rows]
        return {key: val[w] for key, val in self.P.items()}

    def _full_sum(self, x, t1, t2, sums, kinds, rows, up=None):
        sB, one_sB, fw, Pr = self._full_nodes_at(t1, t2, sums, rows)
        return _pair_sum(x[rows], sB, one_sB, fw, Pr, kinds, None, _rows(up, rows))


def _pair_nodes(c, d, P, rule=None):
    """Nodes of ``rule`` (tanh-sinh if None) on [c_r, d_r] per row: t, f_R(t) * weight, the
    distances of the nodes to both end points, and R's mass outside: ``(P(R <= c), P(R > d))``.

    The density is evaluated relative to its mean (no large cancelling terms) and the weights
    are normalised so that the rule integrates it to the exact mass of [c, d] (so the length
    of the interval and the density's normalising constant cancel).
    """
    left, right, wts = (_TS_LEFT, _TS_RIGHT, _TS_W) if rule is None else rule
    width = np.maximum(d - c, 0.0)[:, None]
    dl = width * left
    dr = width * right
    t = c[:, None] + dl
    one_t = (1.0 - d)[:, None] + dr
    m, m1 = P["mR"][:, None], 1.0 - P["mR"][:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        lt = np.where(t < 0.5 * m, np.log(t / m), np.log1p((t - m) / m))
        lu = np.where(one_t < 0.5 * m1, np.log(one_t / m1), np.log1p((one_t - m1) / m1))
        logg = (P["aR"][:, None] - 1.0) * lt + (P["bR"][:, None] - 1.0) * lu
        g = np.exp(logg - np.max(logg, axis=1, keepdims=True)) * wts
        g = np.where(np.isfinite(g), g, 0.0)
        # R's exact mass on [c, d]: both end points in one incomplete-beta evaluation
        F, S = _beta.beta_tails(P["aR"], P["bR"], _unit(np.stack([d, c])))
        mass = np.where(d <= P["mR"], F[0] - F[1], S[1] - S[0])
        mass = np.where(width[:, 0] > 0, np.maximum(mass, 0.0), 0.0)
        norm = np.sum(g, axis=1)
        scale = np.where(norm > 0, mass / norm, 0.0)
    return t, g * scale[:, None], dl, dr, (F[1], S[0])


def _gauss_legendre_rule(n: int = 48):
    x, w = np.polynomial.legendre.leggauss(n)
    return (x + 1.0) / 2.0, (1.0 - x) / 2.0, w / 2.0


_GL_RULE = _gauss_legendre_rule()


def _is_integer(v):
    return np.abs(v - np.round(v)) < 1e-12


def _rows(up, rows):
    return None if up is None else up[rows]


def _pair_sum(x, sB, one_sB, fw, P, kinds, base=None, up=None):
    """Sum of the quadrature: ``F_B(s(t))`` (or its complement, or ``f_B``) times R's weights.

    ``sB`` and ``one_sB`` are ``s(t)`` and ``1 - s(t)``, each computed from its own end point;
    the smaller of the two is the accurate one. ``base = (P(R <= c), P(R > d))``, R's mass
    below and above the integration range, is added to the cdf and the sf: below ``c = t2``
    the function ``F_B(s(t))`` is 1, above ``d = t1`` it is 0; where the range is R's span
    instead, that mass is below 1e-14 (and it is left out for the whole-span rule).
    """
    small = sB <= 0.5
    # x: the smaller of s and 1 - s, each from its own end point (the accurate one); at x the
    # node's B is Beta(a, b) where s <= 1/2, else Beta(b, a) (its reflection, at 1 - s)
    x = _unit(np.where(small, sB, one_sB))
    aB, bB = P["aB"][:, None], P["bB"][:, None]
    ax = np.where(small, aB, bB)
    bx = np.where(small, bB, aB)
    out = {}
    if "cdf" in kinds or "sf" in kinds or "tail" in kinds:
        # one incomplete beta per node, in the tail where it is accurate:
        # v = F_B(s) where s <= 1/2, else 1 - F_B(s) = I_{1-s}(b, a)
        v = sc.betainc(ax, bx, x)
        if "cdf" in kinds:
            out["cdf"] = np.sum(np.where(small, v, 1.0 - v) * fw, axis=1)
        if "sf" in kinds:
            out["sf"] = np.sum(np.where(small, 1.0 - v, v) * fw, axis=1)
        if "tail" in kinds:
            # the sf where ``up``, else the cdf: one pass instead of both
            out["tail"] = np.sum(np.where(small ^ up[:, None], v, 1.0 - v) * fw, axis=1)
        if base is not None:
            if "cdf" in kinds:
                out["cdf"] += base[0]
            if "sf" in kinds:
                out["sf"] += base[1]
            if "tail" in kinds:
                out["tail"] += np.where(up, base[1], base[0])
    if "pdf" in kinds or "dpdf" in kinds:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            am1, bm1 = ax - 1.0, bx - 1.0
            one_x = 1.0 - x
            logfB = sc.xlogy(am1, x) + sc.xlogy(bm1, one_x) - P["lbB"][:, None]
            terms = np.exp(logfB) * fw
            if "dpdf" in kinds:
                # d/ds of B's density: f_B(s) ((a - 1) / s - (b - 1) / (1 - s)), which at the
                # reflected nodes (s = 1 - x) is minus the same expression in x
                slope = am1 / x - bm1 / one_x
                dterms = terms * np.where(small, slope, -slope)
        out["pdf"] = np.sum(np.where(np.isfinite(terms), terms, 0.0), axis=1) / P["wB"]
        if "dpdf" in kinds:
            wB2 = P["wB"] * P["wB"]
            out["dpdf"] = np.sum(np.where(np.isfinite(dterms), dterms, 0.0), axis=1) / wB2
    return out
