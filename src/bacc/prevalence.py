"""Rates at a deployment prevalence: precision, NPV, F1 and accuracy of a two-class classifier.

A test set tells the classifier's sensitivity ``s`` (the recall of the positive class) and its
false-positive rate ``f = 1 - specificity``; with the stratified design of Brodersen et al.
(2010) their posteriors are independent Betas. At a prevalence ``pi`` (the share of positives
the classifier will meet, which need not be the test set's), the rates a user acts on are
functions of ``s`` and ``f``:

* precision ``pi s / (pi s + (1 - pi) f)``,
* negative predictive value ``(1 - pi)(1 - f) / ((1 - pi)(1 - f) + pi (1 - s))``,
* F1 ``2 pi s / (pi s + pi + (1 - pi) f)``,
* accuracy ``pi s + (1 - pi)(1 - f)``.

Each increases with ``s`` and decreases with ``f``, and for each the event ``{rate <= t}`` is
``{s <= a_t + b_t f}`` with ``a_t``, ``b_t`` in closed form. So the posterior CDF is the
one-dimensional integral ``P(rate <= t) = integral of p_f(u) F_s(a_t + b_t u) du`` (or the
same with the roles of ``s`` and ``f`` swapped), computed by composite Gauss-Legendre with the
integrand's kinks split (:class:`RateAtPrevalence`), and the exact frequentist interval follows
from Clopper-Pearson bounds on ``s`` and ``f`` at ``delta / 2`` each (a union bound), mapped
through the monotone formula (:func:`rate_interval`; :func:`precision_interval` for any number
of classes). Burkman (2021) shows precision and F1 collapsing at a
prevalence of 0.425 %; balanced precision is precision at ``pi = 1/2``.

References
----------
.. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
   accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124 (independent Beta
   posteriors of the class accuracies).
.. [2] Burkman, B. (2021). Report of 28 June 2021, sections 2.4-2.5 (precision and F1 at low
   prevalence; balanced precision).
.. [3] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
   for balanced accuracy (Groundlight): Clopper-Pearson bounds combined by a union bound.
.. [4] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
   illustrated in the case of the binomial. Biometrika 26, 404-413.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._engine.helpers.validate import check_confidence, check_random_state, check_size
from .distributions import BetaPosterior, ContinuousDistribution
from .errors import BaccError
from .labels import class_index, is_labelled, per_class

__all__ = ["RATES", "RateAtPrevalence", "rate_interval", "rate_value"]

#: The rates known here.
RATES = ("precision", "npv", "f1", "accuracy")


def rate_value(rate: str, s, f, pi: float):
    """The rate at prevalence ``pi`` for sensitivity ``s`` and false-positive rate ``f``
    (arrays broadcast); ``nan`` where it is 0/0."""
    s = np.asarray(s, dtype=float)
    f = np.asarray(f, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if rate == "precision":
            return pi * s / (pi * s + (1 - pi) * f)
        if rate == "npv":
            neg = (1 - pi) * (1 - f)
            return neg / (neg + pi * (1 - s))
        if rate == "f1":
            return 2 * pi * s / (pi * s + pi + (1 - pi) * f)
        if rate == "accuracy":
            return pi * s + (1 - pi) * (1 - f)
    raise BaccError(f"rate must be one of {', '.join(RATES)}, got {rate!r}")


def _line(rate: str, t, pi: float):
    """``(a, b)`` with ``{rate <= t} = {s <= a + b f}`` (for ``0 < t < 1``; ``t`` may be an
    array)."""
    q = 1 - pi
    if rate == "precision":
        return 0.0 * t, t * q / (pi * (1 - t))
    if rate == "npv":
        b = q * (1 - t) / (t * pi)
        return 1.0 - b, b
    if rate == "f1":
        return t / (2 - t), t * q / (pi * (2 - t))
    # accuracy
    return (t - q) / pi, q / pi + 0.0 * t


def _line_slope(rate: str, t, pi: float):
    """``(da/dt, db/dt)`` of :func:`_line`."""
    q = 1 - pi
    if rate == "precision":
        return 0.0 * t, q / (pi * (1 - t) ** 2)
    if rate == "npv":
        db = -q / (pi * t * t)
        return -db, db
    if rate == "f1":
        return 2.0 / (2 - t) ** 2, 2.0 * q / (pi * (2 - t) ** 2)
    return 1.0 / pi + 0.0 * t, 0.0 * t


PANELS = 20  # panels of the outer rule (16 Gauss-Legendre nodes each)
KNOTS = 2049  # knots of the Hermite table of the inner distribution function
KINK_ORDER = 10.0  # kinks where the inner density vanishes to this order are not split


@functools.lru_cache(maxsize=4)
def _legendre(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(nodes)


def _gauss(edges: np.ndarray, nodes: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of ``nodes``-point Gauss-Legendre on each panel between ``edges``."""
    x, w = _legendre(nodes)
    half = 0.5 * np.diff(edges)
    mid = 0.5 * (edges[1:] + edges[:-1])
    return ((mid[:, None] + half[:, None] * x[None, :]).ravel(),
            (half[:, None] * w[None, :]).ravel())


def _quantiles(v: np.ndarray, d: BetaPosterior) -> np.ndarray:
    """Beta quantiles at ``v``: scipy's inverse, or bacc's CDF-verified one at the large
    parameters where scipy's is wrong (``bacc._engine.beta``)."""
    if d.a + d.b < 1e7:
        from scipy.special import betaincinv

        return betaincinv(d.a, d.b, v)
    from ._engine.beta import beta_ppf

    return beta_ppf(v, d.a, d.b)


def _inside_unit(x: np.ndarray, fn, outside: float | None = None):
    """``fn`` of the entries of ``x`` strictly between 0 and 1; 0 at or below 0, 1 at or above
    1, or ``outside`` at both (a float for a scalar)."""
    flat = x.ravel()
    out = np.where(flat <= 0.0, 0.0, 1.0) if outside is None else np.full(flat.shape, outside)
    inside = (flat > 0.0) & (flat < 1.0)
    if inside.any():
        out[inside] = fn(flat[inside])
    out = out.reshape(x.shape)
    return out if out.ndim else float(out)


def _cdf_table(d: BetaPosterior) -> tuple[float, float, float, np.ndarray]:
    """Cubic Hermite table of a Beta distribution function on KNOTS knots between its 1e-15
    quantiles: ``(lo, hi, h, C)`` with ``F(lo + (k + t) h) = C[k] @ (1, t, t^2, t^3)``.

    ``F`` at the knots is :func:`scipy.special.betainc` at ``lo`` plus the cumulated 3-point
    Gauss-Legendre integrals of the density over the cells, scaled so that it meets
    ``betainc`` at ``hi`` too (a constant relative error of the density, from its log-Gamma
    normalisation, cancels; after it the knots are within 2e-11 of ``betainc``'s values at
    parameters up to 1e7); ``betainc`` itself at every knot if the integrals' total is off by
    more than 1e-8 relative (never seen). Much cheaper than ``betainc`` at every knot for
    large parameters (about 0.2 us a call there)."""
    from scipy.special import betainc

    lo, hi = (float(v) for v in _quantiles(np.array([1e-15, 1 - 1e-15]), d))
    knots = np.linspace(lo, hi, KNOTS)
    h = knots[1] - knots[0]
    x, w = _legendre(3)
    nodes = (knots[:-1, None] + 0.5 * h * (1.0 + x[None, :])).ravel()
    cells = (np.asarray(d.pdf(nodes), dtype=float).reshape(-1, 3) @ w) * (0.5 * h)
    F_lo, F_hi = betainc(d.a, d.b, [lo, hi])
    total = float(cells.sum())
    f = np.asarray(d.pdf(knots), dtype=float)
    if np.isfinite(total) and total > 0 and abs(total / (F_hi - F_lo) - 1.0) <= 1e-8:
        scale = (F_hi - F_lo) / total
        F = F_lo + np.concatenate([[0.0], np.cumsum(cells)]) * scale
        f = f * scale
    else:  # pragma: no cover - a safety net
        F = betainc(d.a, d.b, knots)
    F0, F1, f0, f1 = F[:-1], F[1:], h * f[:-1], h * f[1:]
    C = np.column_stack([F0, f0, 3.0 * (F1 - F0) - 2.0 * f0 - f1, 2.0 * (F0 - F1) + f0 + f1])
    return lo, hi, h, C


@functools.lru_cache(maxsize=1)
def _probability_rule() -> tuple[np.ndarray, np.ndarray]:
    """6-point Gauss-Legendre on panels of (0, 1) halving towards both ends (to 2^-20)."""
    k = np.arange(1, 21)
    left = np.concatenate([[0.0], 0.5 ** k[::-1]])
    return _gauss(np.unique(np.concatenate([left, [0.5], 1.0 - left[::-1]])), 6)


def _end_rule(width: float, p: float, other: float, log_norm: float, halvings: int = 12):
    """Gauss-Legendre rule for the part ``r in [0, width]`` next to an end of a Beta density
    with exponent ``p < 1`` there (density ``r^(p-1) (1-r)^(other-1) / B``), in the variable
    ``z = r^p``: nodes ``r``, weights times the density, and the edges in ``r`` (ascending)."""
    Z = width**p
    ze = np.concatenate([[0.0], Z * 0.5 ** np.arange(halvings, -1, -1)])
    z, wz = _gauss(ze)
    r = z ** (1.0 / p)
    w = wz / p * np.exp((other - 1.0) * np.log1p(-r) - log_norm)
    return r, w, ze ** (1.0 / p)


def _beta_pdf(O: BetaPosterior, u: np.ndarray, log_norm: float) -> np.ndarray:
    """Density of a Beta at nodes strictly inside (0, 1) (0 where infinite), with its log
    Beta function given."""
    with np.errstate(over="ignore"):
        d = np.exp((O.a - 1.0) * np.log(u) + (O.b - 1.0) * np.log1p(-u) - log_norm)
    return np.where(np.isfinite(d), d, 0.0)


def _split_rule(O: BetaPosterior, p0, uc, p1, kind, log_norm: float, grade: int = 0):
    """16-point Gauss-Legendre rules on ``[p0, uc]`` and ``[uc, p1]`` (one row per kink),
    in the variable of the panel: ``u`` (kind 0), ``z = u^a`` next to an infinite density
    at 0 (kind 1) or ``z = (1 - u)^b`` next to one at 1 (kind 2), as in :func:`_end_rule`:
    nodes, and weights times the density. ``grade > 0``: each half on sub-panels halving
    ``grade`` times towards the kink (where the inner distribution function has an
    algebraic singularity: an inner density infinite at the end the line leaves by)."""
    x, w = _legendre(16)
    if grade == 0 and not kind.any():
        lo_half, hi_half = 0.5 * (uc - p0), 0.5 * (p1 - uc)
        u = np.concatenate([(p0 + uc)[:, None] / 2 + lo_half[:, None] * x[None, :],
                            (uc + p1)[:, None] / 2 + hi_half[:, None] * x[None, :]], axis=1)
        wu = np.concatenate([lo_half[:, None] * w[None, :], hi_half[:, None] * w[None, :]],
                            axis=1)
        return u, wu * _beta_pdf(O, u, log_norm)
    pa, pb = O.a, O.b
    # fractions of a half, the kink at fraction 1
    frac = np.concatenate([[0.0], 1.0 - 0.5 ** np.arange(1, grade + 1), [1.0]])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        zs = np.column_stack([p0, uc, p1])
        zs = np.where((kind == 1)[:, None], zs ** pa, np.where((kind == 2)[:, None],
                                                               (1.0 - zs) ** pb, zs))
        z0, zc, z1 = zs[:, 0:1], zs[:, 1:2], zs[:, 2:3]
        edges = np.concatenate([z0 + (zc - z0) * frac[None, :-1],
                                zc + (z1 - zc) * (1.0 - frac[::-1])[None, :]], axis=1)
        lo, hi = edges[:, :-1], edges[:, 1:]
        half = 0.5 * (hi - lo)
        z = (0.5 * (hi + lo))[:, :, None] + half[:, :, None] * x[None, None, :]
        wz = np.abs(half)[:, :, None] * w[None, None, :]
        z, wz = z.reshape(len(kind), -1), wz.reshape(len(kind), -1)
        k = kind[:, None]
        u = np.where(k == 1, z ** (1.0 / pa), np.where(k == 2, 1.0 - z ** (1.0 / pb), z))
        r = np.where(k == 2, z ** (1.0 / pb), 1.0 - u)
        dens = np.where(
            k == 1, np.exp((pb - 1.0) * np.log1p(-u) - log_norm) / pa,
            np.where(k == 2, np.exp((pa - 1.0) * np.log1p(-r) - log_norm) / pb,
                     _beta_pdf(O, np.clip(u, 1e-300, 1.0 - 1e-16), log_norm)))
    return u, wz * np.nan_to_num(dens, posinf=0.0)


def check_prevalence(prevalence) -> float:
    """A prevalence strictly between 0 and 1, or a BaccError naming it."""
    try:
        pi = float(prevalence)
    except (TypeError, ValueError):
        raise BaccError(f"prevalence must be a number between 0 and 1, got {prevalence!r}") from None
    if not 0.0 < pi < 1.0:
        raise BaccError(f"prevalence must lie strictly between 0 and 1, got {prevalence!r}")
    return pi


class RateAtPrevalence(ContinuousDistribution):
    """Posterior of a two-class rate at a prevalence, from independent Beta posteriors of the
    sensitivity ``s`` and the false-positive rate ``f`` (see the module).

    Parameters
    ----------
    rate : {"precision", "npv", "f1", "accuracy"}
    sensitivity, fpr : BetaPosterior
        Posteriors of ``s`` and ``f``.
    prevalence : float
        ``pi``, strictly between 0 and 1.

    Notes
    -----
    ``cdf(t) = P(s <= a_t + b_t f)`` is one integral over an outer variable, the one narrower
    along the line ``s = a_t + b_t f`` (chosen per threshold, see :meth:`_outer_is_s`, so that
    the inner distribution function varies no faster than the outer rule resolves):
    ``integral p_f(u) F_s(a_t + b_t u) du`` or ``integral p_s(u) SF_f((u - a_t) / b_t) du``,
    by composite 16-point Gauss-Legendre on 20 panels between the outer variable's 1e-15
    quantiles. An end where the outer density is infinite (exponent ``p < 1``) is integrated
    in ``z = r^p`` (``r`` the distance to the end), where the density is smooth. The panel
    where the line leaves the unit square (a kink) is integrated again in two parts, on graded
    sub-panels when the inner density is infinite there. The inner ``F`` is a cubic Hermite
    table (:func:`_cdf_table`; ``betainc`` itself when the inner density has an infinite
    end). The density is the derivative of the same integral in ``t``. Quantiles: from the
    Beta distribution with the rate's exact mean and variance, safeguarded second-order
    Newton steps on the CDF with the density (regula falsi with the Illinois rule as the
    fallback), to 1e-13 in probability. The mean and variance are double integrals over both
    probability scales (6-point Gauss-Legendre on panels halving towards both ends); the
    accuracy's are closed-form. The tests compare with mpmath quadrature (1e-9, down to 1e-12
    at singular kinks).
    """

    def __init__(self, rate: str, sensitivity: BetaPosterior, fpr: BetaPosterior,
                 prevalence: float) -> None:
        if rate not in RATES:
            raise BaccError(f"rate must be one of {', '.join(RATES)}, got {rate!r}")
        self.rate = rate
        self.sensitivity = sensitivity
        self.fpr = fpr
        self.prevalence = check_prevalence(prevalence)
        self._moments: tuple[float, float] | None = None
        self._nodes: dict = {}
        self._tables: dict = {}
        self._base: bool | None = None

    # ------------------------------------------------------------------------------------------
    def support(self) -> tuple[float, float]:
        """``(0, 1)``."""
        return 0.0, 1.0

    def _outer_is_s(self, t: np.ndarray) -> np.ndarray:
        """Per threshold, whether ``s`` is the outer variable: the narrower along the line
        ``s = a_t + b_t f`` (the ratio ``sd(s) / (b_t sd(f))`` below 1), so that the inner
        distribution function varies on a scale no finer than the outer rule's panels. One
        choice, made at the rate of the posterior means, holds for every threshold where the
        other variable is not narrower by a factor of 8 or more (one rule, one table, in most
        cases)."""
        S, F = self.sensitivity, self.fpr
        if self._base is None:
            r0 = float(np.nan_to_num(rate_value(self.rate, S.mean(), F.mean(), self.prevalence),
                                     nan=0.5))
            _, b0 = _line(self.rate, min(max(r0, 1e-12), 1.0 - 1e-12), self.prevalence)
            self._base = bool(S.std() < float(b0) * F.std())
        _, b = _line(self.rate, t, self.prevalence)
        ratio = S.std() / (np.asarray(b, dtype=float) * F.std())
        return ratio < 8.0 if self._base else ratio < 0.125

    def _rule(self, outer_is_s: bool):
        """A composite Gauss-Legendre rule over the outer variable's range (its 1e-15
        quantiles; 20 panels of 16 nodes): nodes, weights times the outer density, panel
        edges, and the log of the outer Beta function."""
        if outer_is_s not in self._nodes:
            from scipy.special import betaln

            O = self.sensitivity if outer_is_s else self.fpr
            lo, hi = (float(v) for v in _quantiles(np.array([1e-15, 1 - 1e-15]), O))
            lo = 0.0 if O.a < 1 else lo
            hi = 1.0 if O.b < 1 else hi
            log_norm = float(betaln(O.a, O.b))
            edges = np.linspace(lo, hi, PANELS + 1)
            # an end where the density is infinite (exponent p < 1): its panel in the
            # variable z = (distance to the end)^p, where the density times dr/dz is smooth
            # ((1/p) times the other factor of the density), on sub-panels halving towards
            # the end (nodes and weights computed from z, without cancellation)
            us, ws, es, kinds = [], [], [], []
            first, last = 0, PANELS
            if O.a < 1:
                u, w, e = _end_rule(edges[1] - lo, O.a, O.b, log_norm)
                us.append(u)
                ws.append(w)
                es.append(e[:-1])
                kinds.append(np.full(e.size - 1, 1))
                first = 1
            u, w = _gauss(edges[first: last + 1 - (O.b < 1)])
            us.append(u)
            ws.append(w * _beta_pdf(O, u, log_norm))
            es.append(edges[first: last + 1 - (O.b < 1)])
            kinds.append(np.zeros(es[-1].size - 1 + (O.b < 1), dtype=int))
            if O.b < 1:
                u, w, e = _end_rule(hi - edges[-2], O.b, O.a, log_norm)
                us.append(1.0 - u[::-1])
                ws.append(w[::-1])
                es.append(1.0 - e[::-1][1:])
                kinds.append(np.full(e.size - 1, 2))
            edges = np.concatenate(es)
            kind = np.concatenate(kinds)
            self._nodes[outer_is_s] = (np.concatenate(us), np.concatenate(ws), edges, log_norm,
                                       kind)
        return self._nodes[outer_is_s]

    def _inner(self, outer_is_s, u, a, b, da=None, db=None):
        """The inner probability at outer values ``u`` for lines ``(a, b)`` (broadcast), and
        with the slopes ``(da, db)`` of the lines in ``t`` its derivative in ``t``."""
        if outer_is_s:
            # P(s <= a + b f) given s = u: P(f >= (u - a) / b)
            v = (u - a) / b
            F, f = self._inner_cdf(self.fpr, v, density=da is not None)
            # d/dt of 1 - F_f(v): f_f(v) (a' + v b') / b
            return 1.0 - F, (None if f is None else f * (da + v * db) / b)
        x = a + b * u
        F, f = self._inner_cdf(self.sensitivity, x, density=da is not None)
        return F, (None if f is None else f * (da + db * u))

    def _inner_cdf(self, d: BetaPosterior, x, density: bool = False):
        """``F(x)`` of the inner Beta, and its derivative when ``density``: a cubic Hermite
        interpolant of ``F`` and its density on KNOTS knots between its 1e-15 quantiles (0
        below, 1 above; error far below 1e-10 for a density without an infinite end), or
        :func:`scipy.special.betainc` and the density itself when the density has one (``a``
        or ``b`` below 1)."""
        from scipy.special import betainc

        x = np.asarray(x, dtype=float)
        if d.a < 1 or d.b < 1:
            xc = np.clip(x, 0.0, 1.0)
            F = betainc(d.a, d.b, xc)
            if not density:
                return F, None
            inside = (x > 0.0) & (x < 1.0)
            f = np.where(inside, np.nan_to_num(np.asarray(d.pdf(np.where(inside, x, 0.5)),
                                                          dtype=float), posinf=0.0), 0.0)
            return F, f
        key = d is self.sensitivity
        if key not in self._tables:
            self._tables[key] = _cdf_table(d)
        lo, hi, h, C = self._tables[key]
        # outside the table the cubic of the end cell is taken at its end: F within 1e-15 of
        # 0 or 1 (the density there is 0, which can be far from its value at the table's end:
        # 1 for a uniform distribution)
        z = np.minimum(np.maximum((x - lo) / h, 0.0), KNOTS - 1.0)
        k = np.minimum(z.astype(np.int64), KNOTS - 2)
        t = z - k
        c = C[k]
        c1, c2, c3 = c[..., 1], c[..., 2], c[..., 3]
        out = c[..., 0] + t * (c1 + t * (c2 + t * c3))
        if not density:
            return out, None
        dens = np.maximum((c1 + t * (2.0 * c2 + 3.0 * t * c3)) / h, 0.0)
        return out, np.where((x > lo) & (x < hi), dens, 0.0)

    def _cdf_many(self, t: np.ndarray, density: bool = False):
        """``P(rate <= t)`` for ``0 < t < 1`` (array), all at once; with ``density``, the pair
        (CDF, density). Each threshold is integrated over the variable that is narrower along
        its line (:meth:`_outer_is_s`), by :meth:`_cdf_part`."""
        t = np.asarray(t, dtype=float)
        side = self._outer_is_s(t)
        if side.all() or not side.any():
            return self._cdf_part(t, density, bool(side.flat[0]) if side.size else True)
        out = np.empty(t.size)
        dens = np.empty(t.size)
        for flag in (True, False):
            part = self._cdf_part(t[side == flag], density, flag)
            if density:
                out[side == flag], dens[side == flag] = part
            else:
                out[side == flag] = part
        return (out, dens) if density else out

    def _cdf_part(self, t: np.ndarray, density: bool, outer_is_s: bool):
        """``P(rate <= t)`` for ``0 < t < 1`` (array), all at once; with ``density``, the pair
        (CDF, density), the density being the derivative in ``t`` of the same integral.

        Where the line ``s = a + b f`` leaves the unit square the integrand has a kink (and its
        derivative a jump): the one panel holding it is integrated again in two parts split
        there. All nodes of all thresholds go through the inner distribution function in one
        call, and are summed per threshold with :func:`numpy.bincount`."""
        u, wd, edges, log_norm, kind = self._rule(outer_is_s)
        O = self.sensitivity if outer_is_s else self.fpr
        t = np.asarray(t, dtype=float)
        T = t.size
        a, b = (np.asarray(v, dtype=float) for v in _line(self.rate, t, self.prevalence))
        kinks = np.column_stack([a, a + b]) if outer_is_s else np.column_stack([-a / b, (1 - a) / b])
        # every kink inside a panel, for all thresholds at once: that panel's rule is replaced
        # by two rules split at the kink (its own nodes enter again with negative weights)
        j = np.clip(np.searchsorted(edges, kinks) - 1, 0, edges.size - 2)
        e0, e1 = edges[j], edges[j + 1]
        # a kink where the inner density vanishes to high order (exponent >= 10 at that end of
        # its support: the inner function is flat there to ~1e-15 and smooth to order 9) is
        # invisible to the rule and is not split
        inner = self.fpr if outer_is_s else self.sensitivity
        seen = np.array([inner.a < KINK_ORDER, inner.b < KINK_ORDER])
        rows, cols = np.nonzero((kinks > e0) & (kinks < e1) & seen[None, :])
        n = u.size
        row = np.repeat(np.arange(T), n)
        uu, ww = np.tile(u, T), np.tile(wd, T)
        if rows.size:
            uc, p0, p1 = kinks[rows, cols], e0[rows, cols], e1[rows, cols]
            x, w = _legendre(16)
            panel = (j[rows, cols][:, None] * 16 + np.arange(16)[None, :])
            grade = 24 if min(inner.a, inner.b) < 1 else 0
            us, wds = _split_rule(O, p0, uc, p1, kind[j[rows, cols]], log_norm, grade)
            row = np.concatenate([row, np.repeat(rows, 16), np.repeat(rows, us.shape[1])])
            uu = np.concatenate([uu, u[panel].ravel(), us.ravel()])
            ww = np.concatenate([ww, -wd[panel].ravel(), wds.ravel()])
        da = db = None
        if density:
            da, db = (np.asarray(v, dtype=float)[row]
                      for v in _line_slope(self.rate, t, self.prevalence))
        F, f = self._inner(outer_is_s, uu, a[row], b[row], da, db)
        out = np.clip(np.bincount(row, weights=F * ww, minlength=T), 0.0, 1.0)
        if not density:
            return out
        return out, np.maximum(np.bincount(row, weights=f * ww, minlength=T), 0.0)

    def cdf(self, x):
        """``P(rate <= x)``."""
        return _inside_unit(np.asarray(x, dtype=float), self._cdf_many)

    def sf(self, x):
        """``P(rate > x)``."""
        return 1.0 - self.cdf(x) if np.ndim(x) else 1.0 - float(self.cdf(x))

    def pdf(self, x):
        """Density: the derivative of the CDF's integral in the threshold, by the same rule
        (0 outside the unit interval)."""
        return _inside_unit(np.asarray(x, dtype=float), lambda t: self._cdf_many(t, True)[1],
                            outside=0.0)

    def _bounds(self) -> tuple[float, float]:
        """Rates that bracket all but 4e-12 of the mass (the rate is monotone in s and f)."""
        S, F = self.sensitivity, self.fpr
        e = np.array([1e-12, 1 - 1e-12])
        qs, qf = _quantiles(e, S), _quantiles(e, F)
        lo = float(np.nan_to_num(rate_value(self.rate, qs[0], qf[1], self.prevalence), nan=0.0))
        hi = float(np.nan_to_num(rate_value(self.rate, qs[1], qf[0], self.prevalence), nan=1.0))
        return max(lo, 1e-300), min(hi, 1.0 - 1e-16)

    def ppf(self, q):
        """Quantiles: the ``t`` with ``cdf(t) = q``, for all levels at once (a bracketing grid
        around the delta-method mean +- 6 sd, then Illinois regula falsi until each ``cdf`` is
        within 1e-13 of its level)."""
        q = np.asarray(q, dtype=float)
        if np.any((q < 0) | (q > 1) | np.isnan(q)):
            raise BaccError("quantile levels must lie in [0, 1]")
        return _inside_unit(q, self._solve)

    def _solve(self, q: np.ndarray) -> np.ndarray:
        from scipy.special import betaincinv

        lo, hi = self._bounds()
        # first guess: the quantiles of the Beta distribution with the rate's mean and
        # variance (exact, :meth:`_mom`), inside the bracket [lo, hi] of the rate's range
        m, v = self._mom()
        k = m * (1.0 - m) / v - 1.0 if v > 0 else np.nan
        x = np.full(q.size, m)
        if np.isfinite(k) and k > 0:
            x = betaincinv(m * k, (1.0 - m) * k, q)
        x = np.clip(np.nan_to_num(x, nan=0.5 * (lo + hi)), lo, hi)
        a, b = np.full(q.size, lo), np.full(q.size, hi)
        ra, rb = -q, 1.0 - q  # residuals at the bracket's ends (F(lo), F(hi) within 4e-12)
        ga, gb = np.full(q.size, np.nan), np.full(q.size, np.nan)  # densities there
        # then safeguarded second-order Newton steps on the CDF itself (the density's slope
        # from the nearer end of the bracket), all levels at once, keeping the bracket [a, b]
        # (regula falsi where a step leaves it); done when every level is met to 1e-13 in
        # probability, or after a step from within 1e-9, or when the step no longer moves x
        done = np.zeros(q.size, dtype=bool)
        last = np.full(q.size, -1, dtype=np.int8)  # side kept last: 1 below, 0 above, -1 none
        for _ in range(100):
            at = np.flatnonzero(~done)
            xt = x[at]
            Fx, fx = self._cdf_many(xt, density=True)
            r = Fx - q[at]
            near_a = np.abs(xt - a[at]) <= np.abs(b[at] - xt)
            xn = np.where(near_a, a[at], b[at])
            gn = np.where(near_a, ga[at], gb[at])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                slope = np.where((xt != xn) & np.isfinite(gn), (fx - gn) / (xt - xn), 0.0)
                delta = -r / fx
                step = xt + delta - np.nan_to_num(slope / (2.0 * fx) * delta * delta)
            below = r < 0
            # Illinois: the end kept twice in a row has its residual halved (no stagnation of
            # the regula falsi fallback)
            again = below.astype(np.int8) == last[at]
            a[at] = np.where(below, xt, a[at])
            b[at] = np.where(below, b[at], xt)
            ra[at] = np.where(below, r, np.where(again, 0.5 * ra[at], ra[at]))
            rb[at] = np.where(below, np.where(again, 0.5 * rb[at], rb[at]), r)
            last[at] = below
            ga[at] = np.where(below, fx, ga[at])
            gb[at] = np.where(below, gb[at], fx)
            A, Bb = a[at], b[at]
            inside = np.isfinite(step) & (step >= A) & (step <= Bb)
            with np.errstate(divide="ignore", invalid="ignore"):
                falsi = A - ra[at] * (Bb - A) / (rb[at] - ra[at])
            falsi = np.where(np.isfinite(falsi) & (falsi > A) & (falsi < Bb), falsi, 0.5 * (A + Bb))
            nxt = np.where(inside, step, falsi)
            ok = np.abs(r) < 1e-13
            # within 1e-9 of the level, the step lands within ~1e-18: taken, not evaluated
            close = inside & (np.abs(r) < 1e-9)
            still = (nxt == xt) | (Bb - A <= 4.0 * np.spacing(Bb))
            done[at[ok | close | still]] = True
            x[at] = np.where(ok, xt, nxt)
            if done.all():
                break
        return x

    def isf(self, q):
        """Inverse survival function."""
        return self.ppf(1.0 - np.asarray(q, dtype=float)) if np.ndim(q) else self.ppf(1.0 - float(q))

    def _mom(self) -> tuple[float, float]:
        if self._moments is None:
            S, F, pi = self.sensitivity, self.fpr, self.prevalence
            q = 1.0 - pi
            if self.rate == "accuracy":
                # linear in s and f
                self._moments = (pi * S.mean() + q * (1.0 - F.mean()),
                                 pi * pi * S.var() + q * q * F.var())
                return self._moments
            # E[g(s, f)] = integral over (0, 1)^2 of g(Q_s(v), Q_f(w)), by composite
            # Gauss-Legendre on panels halving towards 0 and 1 in both probability scales (g is
            # bounded and smooth inside the square; 6 nodes on 42 panels: within 2e-10 of a
            # rule of 20 nodes on 82 panels). Each ratio rate is 1 / (c + X(s) Y(f)), so the
            # table of g is one outer product.
            v, wv = _probability_rule()
            qs, qf = _quantiles(v, S), _quantiles(v, F)
            with np.errstate(divide="ignore", invalid="ignore"):
                if self.rate == "precision":
                    X, Y, c = (q / pi) / qs, qf, 1.0
                elif self.rate == "npv":
                    X, Y, c = (pi / q) * (1.0 - qs), 1.0 / (1.0 - qf), 1.0
                else:  # f1
                    X, Y, c = 1.0 / (2.0 * pi * qs), pi + q * qf, 0.5
                g = np.multiply.outer(X, Y)
                g += c
                np.reciprocal(g, out=g)
            g[np.isnan(g)] = 0.0  # 0/0 (s = f = 0 for precision): no mass in the rule
            m1 = float(wv @ g @ wv)
            g *= g
            m2 = float(wv @ g @ wv)
            self._moments = (m1, max(0.0, m2 - m1 * m1))
        return self._moments

    def mean(self) -> float:
        """Posterior mean (``integral of sf``)."""
        return self._mom()[0]

    def var(self) -> float:
        """Posterior variance."""
        return self._mom()[1]

    def mode(self) -> float:
        """The highest point of the density (bounded search between the 0.1 % quantiles)."""
        from scipy.optimize import minimize_scalar

        lo, hi = (float(v) for v in self.ppf([1e-3, 1 - 1e-3]))
        res = minimize_scalar(lambda t: -float(self.pdf(t)), bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-9 * max(hi - lo, 1e-12)})
        return float(res.x)

    def rvs(self, size=None, random_state=None):
        """Independent draws: ``s`` and ``f`` from their Betas, mapped to the rate."""
        rng = check_random_state(random_state)
        shape = check_size(size)
        s = rng.beta(self.sensitivity.a, self.sensitivity.b, size=shape)
        f = rng.beta(self.fpr.a, self.fpr.b, size=shape)
        out = rate_value(self.rate, s, f, self.prevalence)
        return out if np.ndim(out) else float(out)


def rate_interval(rate: str, k_pos: int, n_pos: int, k_neg_wrong: int, n_neg: int,
                  prevalence: float, confidence: float = 0.95) -> tuple[float, float]:
    """Exact confidence interval of a two-class rate at a prevalence.

    Clopper-Pearson intervals of the sensitivity (``k_pos`` of ``n_pos`` positives right) and of
    the false-positive rate (``k_neg_wrong`` of ``n_neg`` negatives called positive), each at
    confidence ``1 - delta / 2``, hold together with probability at least ``1 - delta`` (union
    bound); the rate increases with ``s`` and decreases with ``f``, so its interval runs from
    ``rate(s_lo, f_hi)`` to ``rate(s_hi, f_lo)``.

    Returns
    -------
    (float, float)
    """
    from .intervals import clopper_pearson

    c = check_confidence(confidence)
    pi = check_prevalence(prevalence)
    half = 1.0 - (1.0 - c) / 2.0
    s_lo, s_hi = clopper_pearson(k_pos, n_pos, confidence=half)
    f_lo, f_hi = clopper_pearson(k_neg_wrong, n_neg, confidence=half)
    lo = float(rate_value(rate, s_lo, f_hi, pi))
    hi = float(rate_value(rate, s_hi, f_lo, pi))
    lo = 0.0 if math.isnan(lo) else lo
    hi = 1.0 if math.isnan(hi) else hi
    return lo, hi


def prevalence_shares(prevalence, l: int, classes=None) -> np.ndarray:
    """One share per class, summing to 1, from a vector of ``l`` shares in class order, a
    mapping or Series keyed by class label (aligned with ``classes``), or (two classes) the
    second class's share; a BaccError naming the problem otherwise."""
    if is_labelled(prevalence):
        prevalence = per_class(prevalence, tuple(range(l)) if classes is None else classes,
                               "prevalence")
    if np.ndim(prevalence) == 0:
        if l != 2:
            raise BaccError(f"prevalence: give one share per class ({l} numbers summing to 1)")
        p = check_prevalence(prevalence)
        return np.array([1.0 - p, p])
    try:
        pi = np.asarray(prevalence, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"prevalence must be numbers, got {prevalence!r}") from None
    if pi.shape != (l,) or np.any(~np.isfinite(pi)) or np.any(pi < 0) or abs(pi.sum() - 1) > 1e-9:
        raise BaccError(f"prevalence must be {l} shares >= 0 summing to 1, got {prevalence!r}")
    return pi


def precision_interval(cm, label, prevalence, confidence: float = 0.95) -> tuple[float, float]:
    """Exact confidence interval of one class's precision at a deployment prevalence, for any
    number of classes.

    With ``R[j, i]`` the rate at which true class ``j`` is predicted as ``i`` (the row rates the
    stratified test set measures) and ``pi`` the prevalences, the precision of class ``i`` is
    ``pi_i R[i, i] / sum_j pi_j R[j, i]``: increasing in ``R[i, i]``, decreasing in every other
    ``R[j, i]``. Clopper-Pearson intervals of the ``l`` rates of column ``i`` (``C[j, i]`` of
    ``n_j``), each at ``1 - delta / l``, hold together with probability at least ``1 - delta``
    (union bound), and the interval runs from the precision at their least favourable ends to
    the precision at their most favourable ones. For two classes this is
    :func:`rate_interval`.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Counts, rows = true class; every class with a share ``pi_j > 0`` needs examples.
    label : class label
        The class whose precision is bounded.
    prevalence : sequence of float
        One share per class, summing to 1 (for two classes a single number, the second
        class's share, is accepted).
    confidence : float

    Returns
    -------
    (float, float)

    Raises
    ------
    BaccError
        A label not in the matrix, a bad prevalence, or a share for a class without examples.
    """
    from .confusion import as_confusion_matrix

    c = check_confidence(confidence)
    cm = as_confusion_matrix(cm)
    i = class_index(label, cm.labels)
    l = cm.n_classes
    pi = prevalence_shares(prevalence, l, cm.labels)
    n = cm.support
    if np.any((pi > 0) & (n == 0)):
        raise BaccError("prevalence: a class without true examples cannot have a share > 0")
    if pi[i] == 0:
        raise BaccError(f"class {label!r} has prevalence 0: its precision is undefined")
    lo, hi = precision_union_bounds(cm.counts[:, i][None, :], n, pi, i, c)
    return float(lo[0]), float(hi[0])


def precision_union_bounds(k, n, pi, i: int, confidence: float, sides: str = "two"):
    """The union-bound interval of class ``i``'s precision at the prevalences ``pi`` for many
    test sets at once (see :func:`precision_interval`): ``k`` holds the counts of column ``i``
    (shape ``(sets, l)``; ``k[:, j]`` of ``n[j]`` true examples of class ``j`` predicted as
    ``i``). Clopper-Pearson bounds of the ``m`` rates with ``pi_j > 0``, at ``delta / m`` each
    (per side for one-sided bounds), mapped through ``pi_i R_ii / sum_j pi_j R_ji``; ``0/0``
    gives ``[0, 1]``. Returns the lower and upper bounds (arrays)."""
    from .intervals import clopper_pearson

    k = np.asarray(k)
    use = np.flatnonzero(pi > 0)
    c_each = 1.0 - (1.0 - confidence) / use.size
    flip = {"lower": "upper", "upper": "lower"}.get(sides, sides)
    lo = np.zeros(k.shape)
    hi = np.zeros(k.shape)
    for j in use:
        lo[:, j], hi[:, j] = clopper_pearson(k[:, j], int(n[j]), confidence=c_each,
                                             sides=sides if j == i else flip)
    rest = use[use != i]
    with np.errstate(divide="ignore", invalid="ignore"):
        worst = pi[i] * lo[:, i] / (pi[i] * lo[:, i] + hi[:, rest] @ pi[rest])
        best = pi[i] * hi[:, i] / (pi[i] * hi[:, i] + lo[:, rest] @ pi[rest])
    return np.nan_to_num(worst, nan=0.0), np.nan_to_num(best, nan=1.0)


__all__ += ["precision_interval", "precision_union_bounds"]
