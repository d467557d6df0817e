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
one-dimensional integral ``P(rate <= t) = integral of p_f(u) F_s(a_t + b_t u) du``, computed
by adaptive quadrature with the integrand's kinks and narrow peaks given as break points
(:class:`RateAtPrevalence`), and the exact frequentist interval follows from Clopper-Pearson
bounds on ``s`` and ``f`` at ``delta / 2`` each (a union bound), mapped through the monotone
formula (:func:`rate_interval`). Burkman (2021) shows precision and F1 collapsing at a
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

from ._engine.validate import check_confidence, check_random_state, check_size
from .distributions import BetaPosterior, ContinuousDistribution
from .errors import BaccError

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


def _line(rate: str, t: float, pi: float) -> tuple[float, float]:
    """``(a, b)`` with ``{rate <= t} = {s <= a + b f}`` (for ``0 < t < 1``)."""
    q = 1 - pi
    if rate == "precision":
        return 0.0, t * q / (pi * (1 - t))
    if rate == "npv":
        b = q * (1 - t) / (t * pi)
        return 1.0 - b, b
    if rate == "f1":
        return t / (2 - t), t * q / (pi * (2 - t))
    # accuracy
    return (t - q) / pi, q / pi


PANELS = 20  # panels of the outer rule (16 Gauss-Legendre nodes each)
KNOTS = 2049  # knots of the Hermite table of the inner distribution function


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


def _inside_unit(x: np.ndarray, fn):
    """``fn`` of the entries of ``x`` strictly between 0 and 1; 0 at or below 0, 1 at or above
    1 (a float for a scalar)."""
    flat = x.ravel()
    out = np.where(flat <= 0.0, 0.0, 1.0)
    inside = (flat > 0.0) & (flat < 1.0)
    if inside.any():
        out[inside] = fn(flat[inside])
    out = out.reshape(x.shape)
    return out if out.ndim else float(out)


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
    ``cdf(t) = P(s <= a_t + b_t f)`` is one integral over the variable that is narrower along
    the line ``s = a_t + b_t f`` (so that the inner distribution function is smooth on the
    scale of the outer one), taken in that variable's probability scale:
    ``integral_0^1 F_s(a_t + b_t Q_f(v)) dv`` or ``integral_0^1 SF_f((Q_s(v) - a_t) / b_t) dv``,
    by composite 16-point Gauss-Legendre over the outer variable's range (40 panels between
    its 1e-15 quantiles, halving towards an end where its density is infinite); the one panel
    where the line leaves the unit square (a kink) is integrated again in two parts. ``F``
    from :func:`scipy.special.betainc`, quantiles from :func:`scipy.special.betaincinv`
    (bacc's CDF-verified ones beyond ``a + b = 1e7``, where scipy's are wrong). The tests
    compare with mpmath quadrature (1e-9). Quantiles are solved on the CDF for all levels at
    once (Illinois regula falsi, to 1e-13); the mean and variance are the double integrals of the rate and its square over
    both probability scales, with the same rule.
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
        self._nodes = None
        self._table = None

    # ------------------------------------------------------------------------------------------
    def support(self) -> tuple[float, float]:
        """``(0, 1)``."""
        return 0.0, 1.0

    def _rule(self):
        """The outer variable (the narrower along the line, see the class notes), and a
        composite Gauss-Legendre rule over its range (its 1e-15 quantiles), with panels that
        halve towards an end where its density is infinite: nodes, weights times the outer
        density, and panel edges."""
        if self._nodes is None:
            S, F = self.sensitivity, self.fpr
            _, b_mid = _line(self.rate, 0.5, self.prevalence)
            outer_is_s = S.std() < b_mid * F.std()
            O = S if outer_is_s else F
            lo, hi = (float(v) for v in _quantiles(np.array([1e-15, 1 - 1e-15]), O))
            lo = 0.0 if O.a < 1 else lo
            hi = 1.0 if O.b < 1 else hi
            edges = np.linspace(lo, hi, PANELS + 1)
            first = edges[1] - edges[0]
            graded = first * 0.5 ** np.arange(1, 40)
            if O.a < 1:
                edges = np.concatenate([[lo], lo + graded[::-1], edges[1:]])
            if O.b < 1:
                edges = np.concatenate([edges[:-1], hi - graded, [hi]])
            u, w = _gauss(edges)
            dens = np.nan_to_num(np.asarray(O.pdf(u), dtype=float), posinf=0.0)
            self._nodes = (outer_is_s, u, w * dens, edges)
        return self._nodes

    def _inner(self, outer_is_s, u, a, b):
        """The inner probability at outer values ``u`` for lines ``(a, b)`` (broadcast)."""
        if outer_is_s:
            # P(s <= a + b f) given s = u: P(f >= (u - a) / b)
            return 1.0 - self._inner_cdf(self.fpr, (u - a) / b)
        return self._inner_cdf(self.sensitivity, a + b * u)

    def _inner_cdf(self, d: BetaPosterior, x) -> np.ndarray:
        """``F(x)`` of the inner Beta: a cubic Hermite interpolant of ``F`` and its density on
        KNOTS knots between its 1e-15 quantiles (0 below, 1 above; error far below 1e-10 for a
        density without an infinite end), or :func:`scipy.special.betainc` itself when the
        density has one (``a`` or ``b`` below 1)."""
        from scipy.special import betainc

        x = np.asarray(x, dtype=float)
        if d.a < 1 or d.b < 1:
            return betainc(d.a, d.b, np.clip(x, 0.0, 1.0))
        if self._table is None:
            lo, hi = (float(v) for v in _quantiles(np.array([1e-15, 1 - 1e-15]), d))
            knots = np.linspace(lo, hi, KNOTS)
            self._table = (lo, hi, knots[1] - knots[0], betainc(d.a, d.b, knots),
                           np.asarray(d.pdf(knots), dtype=float))
        lo, hi, h, F, f = self._table
        k = np.clip(((x - lo) / h).astype(np.int64), 0, KNOTS - 2)
        t = np.clip((x - lo) / h - k, 0.0, 1.0)
        t2 = t * t
        t3 = t2 * t
        out = ((2 * t3 - 3 * t2 + 1) * F[k] + (t3 - 2 * t2 + t) * h * f[k]
               + (-2 * t3 + 3 * t2) * F[k + 1] + (t3 - t2) * h * f[k + 1])
        return np.where(x <= lo, 0.0, np.where(x >= hi, 1.0, np.clip(out, 0.0, 1.0)))

    def _cdf_many(self, t: np.ndarray) -> np.ndarray:
        """``P(rate <= t)`` for ``0 < t < 1`` (array), all at once.

        Where the line ``s = a + b f`` leaves the unit square the integrand has a kink: the one
        panel holding it is integrated again in two parts split there."""
        outer_is_s, u, wd, edges = self._rule()
        O = self.sensitivity if outer_is_s else self.fpr
        ab = np.array([_line(self.rate, float(ti), self.prevalence) for ti in t])
        a, b = ab[:, 0:1], ab[:, 1:2]
        out = self._inner(outer_is_s, u[None, :], a, b) @ wd
        kinks = np.column_stack([a, a + b]) if outer_is_s else np.column_stack([-a / b, (1 - a) / b])
        # every kink inside a panel, for all thresholds at once: that panel's rule is replaced
        # by two rules split at the kink
        j = np.clip(np.searchsorted(edges, kinks) - 1, 0, edges.size - 2)
        e0, e1 = edges[j], edges[j + 1]
        inside = (kinks > e0) & (kinks < e1)
        if inside.any():
            rows, cols = np.nonzero(inside)
            uc, p0, p1 = kinks[rows, cols], e0[rows, cols], e1[rows, cols]
            ak, bk = a[rows, 0][:, None], b[rows, 0][:, None]
            x, w = _legendre(16)
            # the panel's own nodes (to take out) and the split nodes (to put in)
            panel = (j[rows, cols][:, None] * 16 + np.arange(16)[None, :])
            old = (self._inner(outer_is_s, u[panel], ak, bk) * wd[panel]).sum(axis=1)
            lo_half, hi_half = 0.5 * (uc - p0), 0.5 * (p1 - uc)
            uu = np.concatenate([(p0 + uc)[:, None] / 2 + lo_half[:, None] * x[None, :],
                                 (uc + p1)[:, None] / 2 + hi_half[:, None] * x[None, :]], axis=1)
            ww = np.concatenate([lo_half[:, None] * w[None, :], hi_half[:, None] * w[None, :]],
                                axis=1)
            dd = np.nan_to_num(np.asarray(O.pdf(uu.ravel()), dtype=float),
                               posinf=0.0).reshape(uu.shape)
            new = (self._inner(outer_is_s, uu, ak, bk) * ww * dd).sum(axis=1)
            np.add.at(out, rows, new - old)
        return np.clip(out, 0.0, 1.0)

    def _cdf1(self, t: float) -> float:
        if t <= 0.0:
            return 0.0
        if t >= 1.0:
            return 1.0
        return float(self._cdf_many(np.array([t]))[0])

    def cdf(self, x):
        """``P(rate <= x)``."""
        return _inside_unit(np.asarray(x, dtype=float), self._cdf_many)

    def sf(self, x):
        """``P(rate > x)``."""
        return 1.0 - self.cdf(x) if np.ndim(x) else 1.0 - float(self.cdf(x))

    def pdf(self, x, h: float = 1e-6):
        """Density, by a central difference of the CDF (step ``h``, clipped to the support)."""
        x = np.asarray(x, dtype=float)
        lo = np.clip(x - h, 0.0, 1.0)
        hi = np.clip(x + h, 0.0, 1.0)
        out = (np.asarray(self.cdf(hi)) - np.asarray(self.cdf(lo))) / np.maximum(hi - lo, 1e-300)
        return out if out.ndim else float(out)

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
        lo, hi = self._bounds()
        # a bracketing grid dense where the mass is: the delta-method mean and sd of the rate
        S, F, pi = self.sensitivity, self.fpr, self.prevalence
        ms, mf, eps = S.mean(), F.mean(), 1e-7
        r0 = float(rate_value(self.rate, ms, mf, pi))
        ds = float(rate_value(self.rate, ms + eps, mf, pi) - r0) / eps
        df = float(rate_value(self.rate, ms, mf + eps, pi) - r0) / eps
        sd = float(np.hypot(ds * S.std(), df * F.std()))
        bulk = r0 + sd * np.linspace(-6.0, 6.0, 13) if np.isfinite(r0) and sd > 0 else []
        grid = np.unique(np.clip(np.concatenate([[lo, hi], bulk]), lo, hi))
        G = self._cdf_many(grid)
        j = np.clip(np.searchsorted(G, q), 1, grid.size - 1)
        a, b = grid[j - 1], grid[j]
        fa, fb = G[j - 1] - q, G[j] - q
        x = b.copy()
        side = np.zeros(q.size)
        for _ in range(60):
            x = np.where(fb != fa, b - fb * (b - a) / np.where(fb != fa, fb - fa, 1.0), 0.5 * (a + b))
            x = np.clip(x, np.minimum(a, b), np.maximum(a, b))
            fx = self._cdf_many(x) - q
            left = np.sign(fx) == np.sign(fb)
            # Illinois: halve the retained end's value when the same end is kept twice
            a = np.where(left, a, b)
            fa = np.where(left, np.where(side == -1, fa / 2, fa), fb)
            side = np.where(left, -1, 1)
            b, fb = x, fx
            # done when every level is met to 1e-13 in probability (or the bracket is that tight)
            if np.all((np.abs(b - a) < 1e-13) | (np.abs(fx) < 1e-13)):
                break
        return x

    def isf(self, q):
        """Inverse survival function."""
        return self.ppf(1.0 - np.asarray(q, dtype=float)) if np.ndim(q) else self.ppf(1.0 - float(q))

    def _mom(self) -> tuple[float, float]:
        if self._moments is None:
            # E[g(s, f)] = integral over (0, 1)^2 of g(Q_s(v), Q_f(w)), by composite
            # Gauss-Legendre on panels halving towards 0 and 1 in both probability scales (g is
            # bounded and smooth inside the square)
            k = np.arange(1, 19)
            left = np.concatenate([[0.0], 0.5 ** k[::-1]])
            v, wv = _gauss(np.unique(np.concatenate([left, [0.5], 1.0 - left[::-1]])), 8)
            qs = _quantiles(v, self.sensitivity)
            qf = _quantiles(v, self.fpr)
            g = rate_value(self.rate, qs[:, None], qf[None, :], self.prevalence)
            g[np.isnan(g)] = 0.0
            m1 = float(wv @ g @ wv)
            m2 = float(wv @ (g * g) @ wv)
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
    from .intervals import clopper_pearson

    c = check_confidence(confidence)
    cm = as_confusion_matrix(cm)
    if label not in cm.labels:
        raise BaccError(f"label {label!r} is not a class of the matrix {list(cm.labels)!r}")
    i = cm.labels.index(label)
    l = cm.n_classes
    if np.ndim(prevalence) == 0:
        if l != 2:
            raise BaccError(f"prevalence: give one share per class ({l} numbers summing to 1)")
        p = check_prevalence(prevalence)
        pi = np.array([1.0 - p, p])
    else:
        try:
            pi = np.asarray(prevalence, dtype=float)
        except (TypeError, ValueError):
            raise BaccError(f"prevalence must be numbers, got {prevalence!r}") from None
        if pi.shape != (l,) or np.any(~np.isfinite(pi)) or np.any(pi < 0) or abs(pi.sum() - 1) > 1e-9:
            raise BaccError(f"prevalence must be {l} shares >= 0 summing to 1, got {prevalence!r}")
    n = cm.support
    if np.any((pi > 0) & (n == 0)):
        raise BaccError("prevalence: a class without true examples cannot have a share > 0")
    if pi[i] == 0:
        raise BaccError(f"class {label!r} has prevalence 0: its precision is undefined")
    use = pi > 0
    each = 1.0 - (1.0 - c) / int(use.sum())
    k = cm.counts[:, i]
    lo = np.zeros(l)
    hi = np.zeros(l)
    lo[use], hi[use] = clopper_pearson(k[use], n[use], confidence=each)
    rest = use.copy()
    rest[i] = False
    worst = pi[i] * lo[i] / (pi[i] * lo[i] + float(pi[rest] @ hi[rest]))
    best_den = pi[i] * hi[i] + float(pi[rest] @ lo[rest])
    best = 1.0 if best_den == 0 else pi[i] * hi[i] / best_den
    return (0.0 if math.isnan(worst) else float(worst)), float(best)


__all__ += ["precision_interval"]
