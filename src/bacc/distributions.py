"""The distributions bacc returns, all with the ``scipy.stats`` frozen surface.

:class:`BetaPosterior` (one accuracy), :class:`BetaSum` (a weighted sum of independent Beta
variables: the posterior balanced accuracy and the difference of two classifiers on independent
test sets) and :class:`PairedDifference` (the difference on one shared test set). Their numerics
live in :mod:`bacc._engine.sums`, where :mod:`bacc._engine.sums.chooser` decides the method of
each sum; the notes below describe the methods.

The posterior balanced accuracy (Brodersen et al. (2010), eq. 7; Carrillo et al. (2014) eqs. 12-13) is
``lambda = sum_i w_i theta_i`` with independent ``theta_i ~ Beta(a_i, b_i)``; the difference of two
classifiers' balanced accuracies (Carrillo et al. (2014), eq. 14) is the same kind of sum with negative weights
on the second classifier. :class:`BetaSum` gives this distribution a ``scipy.stats``-like surface.

Method (deterministic; see ``docs`` in the module notes below)
--------------------------------------------------------------
Write ``S = B + R`` where ``B`` is the component with the largest spread and ``R`` the sum of the
others. Then, exactly,

    F_S(x) = E[F_B(x - R)],

and ``F_B`` is a (scaled) regularized incomplete beta function, evaluated exactly by ``betainc``.
So no discretisation touches ``B``, which is the component whose density may jump or diverge at
its support boundary (an empty class under a flat prior is uniform; a class with no errors has a
density that jumps at 1).

``R`` is put on a lattice of step ``h`` by the *mean-preserving* (triangular) discretisation of
each component: the lattice point ``x_j`` receives ``E[max(0, 1 - |X - x_j| / h)]``, the second
difference of the stop-loss transform ``G(x) = E[(x - X)_+]``, which for a Beta variable has the
closed form ``(x - mu) F(x) + x (1 - x) f(x) / (a + b)``: every term is of the size of the spread,
so masses stay accurate for posteriors far narrower than any fixed grid (10^9 examples per
class). The lattice version of a component equals the component plus conditionally-mean-zero
noise, so the lattice sum has the exact mean; its error is removed to fourth order (the masses
are filtered, and lattices of steps ``h / 2**L`` are combined by generalised Richardson
extrapolation: :mod:`bacc._engine.sums.lattice`). The lattice is placed where each component has
its mass (between its 1e-15 and 1 - 1e-15 quantiles), with ``h`` a fraction of the narrowest
spread it resolves, and the components are convolved by FFT.

Components far narrower than the lattice needs (under 1/64 of the sum's spread) form a narrow
part that enters as one more row of masses with its exact mean, variance, third moment and
fourth cumulant (:mod:`bacc._engine.sums.narrow_part`): no component's variance is dropped.
:mod:`bacc._engine.sums.chooser` picks the method (closed forms, one Beta, this lattice, or a
grid average) for each sum.

Quantiles are found by safeguarded Newton and Halley iterations on this CDF (using the
density), starting from a Cornish-Fisher guess built from the exact mean, variance, third
moment and fourth cumulant (:mod:`bacc._engine.sums.solvers`); mean and variance are
closed-form.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import special as sc

from ._engine import beta as _beta
from ._engine.helpers.convert import readonly
from ._engine.helpers.validate import (
    MAX_PARAMETER,
    MIN_WEIGHT,
    check_choice,
    check_confidence,
    check_probabilities,
    check_random_state,
    check_size,
)
from ._engine.sums.chooser import widest_smooth
from ._engine.sums.mode import WIDE, find_mode, richardson_vertex
from ._engine.sums.paired_difference import PairedComponents
from ._engine.sums.single import RHO, BetaSumEngine, PairedDifferenceEngine
from ._engine.sums.solvers import (
    beta_k4,
    beta_moments,
    cornish_fisher_start,
    drive,
    newton_rounds,
    tails,
    unit,
)
from .errors import BaccError

__all__ = ["ContinuousDistribution", "SumDistribution", "BetaSum", "GridAverage", "NormalMixture"]



class ContinuousDistribution:
    """Shared surface of bacc's distribution objects (the ``scipy.stats`` frozen interface).

    Subclasses provide ``cdf, sf, pdf, ppf, isf, mean, var, mode, support, rvs``; this class
    derives ``std, median, logpdf, p_above, interval`` (central or highest-density) from them.

    A distribution is immutable: its public attributes (parameters, weights, labels) are set
    once, when it is built, and its arrays are read-only. Private attributes hold caches.
    """

    def __setattr__(self, name: str, value) -> None:
        if not name.startswith("_"):
            if name in self.__dict__:
                raise AttributeError(
                    f"{type(self).__name__}.{name} cannot be changed: distributions are "
                    "immutable (build a new one)"
                )
            if isinstance(value, np.ndarray):
                value = readonly(value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if not name.startswith("_"):
            raise AttributeError(f"{type(self).__name__}.{name} cannot be deleted")
        object.__delattr__(self, name)

    def std(self) -> float:
        """Standard deviation."""
        return float(np.sqrt(self.var()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(mean={float(self.mean()):.6g}, std={self.std():.3g})"

    def _repr_html_(self) -> str:
        from .display.html import distribution_html

        return distribution_html(self)

    def median(self) -> float:
        """Median."""
        return float(self.ppf(0.5))

    def logpdf(self, x):
        """Logarithm of the density."""
        with np.errstate(divide="ignore"):
            return np.log(self.pdf(x))

    def p_above(self, threshold: float) -> float:
        """Probability that the variable exceeds ``threshold`` (e.g. chance level)."""
        return float(self.sf(self._check_threshold(threshold)))

    @staticmethod
    def _check_threshold(threshold) -> float:
        try:
            t = float(threshold)
        except (TypeError, ValueError):
            raise BaccError(f"threshold must be a number, got {threshold!r}") from None
        if np.isnan(t):
            raise BaccError("threshold must be a number, got NaN")
        return t

    def summary(self, confidence: float = 0.95, threshold: float | None = None) -> dict:
        """Mean, median, mode, central ``confidence`` interval and, given a ``threshold``
        (e.g. chance), ``P(X > threshold)`` as ``p_above``: a dict of floats."""
        c = check_confidence(confidence)
        lo, med, hi = (float(v) for v in self.ppf([(1.0 - c) / 2.0, 0.5, (1.0 + c) / 2.0]))
        out = {"mean": float(self.mean()), "median": med, "mode": float(self.mode()),
               "lower": lo, "upper": hi}  # fmt: skip
        if threshold is not None:
            out["p_above"] = self.p_above(threshold)
        return out

    def interval(self, confidence: float = 0.95, kind: str = "central") -> tuple[float, float]:
        """Credible interval holding ``confidence`` of the probability.

        ``kind="central"`` leaves equal tails (Carrillo et al. (2014), eq. 9); ``kind="hdi"`` is the shortest
        such interval (highest posterior density, for a unimodal density).
        """
        c = check_confidence(confidence)
        check_choice(kind, ("central", "hdi"), "kind")
        if kind == "central":
            lo, hi = self.ppf([(1.0 - c) / 2.0, (1.0 + c) / 2.0])
            return float(lo), float(hi)
        if kind == "hdi":
            return self._hdi(c)
        raise BaccError(f"kind must be 'central' or 'hdi', got {kind!r}")

    def _hdi(self, c: float) -> tuple[float, float]:
        from scipy.optimize import minimize_scalar

        alpha = 1.0 - c

        def width(t):
            lo, hi = self.ppf([t, t + c])
            return float(hi - lo)

        res = minimize_scalar(
            width, bounds=(0.0, alpha), method="bounded", options={"xatol": alpha * 1e-10}
        )
        cands = [(width(float(res.x)), float(res.x)), (width(0.0), 0.0), (width(alpha), alpha)]
        _, t = min(cands)
        lo, hi = self.ppf([t, t + c])
        return float(lo), float(hi)


class SumDistribution(ContinuousDistribution):
    """Shared machinery of distributions computed by bacc's engines (sums of components).

    Subclasses set ``_support``, ``_mean``, ``_var``, ``_m3`` (third central moment) and
    optionally ``_k4`` (fourth cumulant), and
    provide ``_prepare()`` and ``_combine(x, kinds)`` returning cdf / sf / pdf values; this class
    derives the scipy-like surface (cdf, sf, pdf, ppf, isf, mode) from them.
    """

    def _direct_quantile(self, q, upper):
        """Quantiles in closed form where a subclass has them (``None``: solve numerically)."""
        return None

    def _table_start(self, target, upper):
        """Starting points for quantiles from a tabulated CDF, where a subclass has one."""
        return None

    # ------------------------------------------------------------------------------------------
    def support(self) -> tuple[float, float]:
        """Smallest and largest possible values."""
        return self._support

    def mean(self) -> float:
        """Exact mean (closed form: the sum of the components' means)."""
        return self._mean

    def var(self) -> float:
        """Exact variance (closed form: the sum of the components' variances)."""
        return self._var

    def _eval(self, x, kind):
        try:
            x = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise BaccError(f"x must be numbers, got {x!r}") from None
        flat = x.ravel()
        out = np.empty(flat.size)
        nan = np.isnan(flat)
        out[nan] = np.nan
        lo, hi = self._support
        ok = ~nan
        # a continuous law: P(S <= lo) = 0 and P(S <= hi) = 1 exactly
        if kind == "cdf":
            out[ok & (flat <= lo)] = 0.0
            out[ok & (flat >= hi)] = 1.0
            inside = ok & (flat > lo) & (flat < hi)
        elif kind == "sf":
            out[ok & (flat <= lo)] = 1.0
            out[ok & (flat >= hi)] = 0.0
            inside = ok & (flat > lo) & (flat < hi)
        else:
            out[ok & ((flat < lo) | (flat > hi))] = 0.0
            inside = ok & (flat >= lo) & (flat <= hi)
        if inside.any():
            self._prepare()
            vals = self._combine(flat[inside], (kind,))[kind]
            out[inside] = np.maximum(vals, 0.0) if kind == "pdf" else np.clip(vals, 0.0, 1.0)
        return out.reshape(x.shape) if x.shape else float(out[0])

    def cdf(self, x):
        """Cumulative distribution function ``P(S <= x)``."""
        return self._eval(x, "cdf")

    def sf(self, x):
        """Survival function ``P(S > x)``, accurate in the upper tail."""
        return self._eval(x, "sf")

    def pdf(self, x):
        """Probability density."""
        return self._eval(x, "pdf")

    _has_slope = False  # True where _combine also gives the slope of the density ("dpdf")
    _k4 = 0.0  # fourth cumulant, where known (improves the Cornish-Fisher start)

    def _tail_and_pdf(self, x, upper, rows=None):
        """Tail probability (cdf, or sf where ``upper``), density (and its slope) at x."""
        lo_s, hi_s = self._support
        self._prepare()
        return tails(self._combine, np.clip(x, lo_s, hi_s), upper, self._has_slope)

    def _quantile_rounds(self, target, upper):
        """Rounds (see :func:`newton_rounds`) solving tail(x) = target; target in (0, 0.5]."""
        lo_s, hi_s = self._support
        n = target.size
        start = cornish_fisher_start(
            target, upper, self._mean, self.std(), self._m3, lo_s, hi_s, self._k4
        )
        self._prepare()
        table_start = self._table_start(target, upper)
        if table_start is not None:
            start = np.clip(table_start, lo_s, hi_s)
        tol = max(4e-16 * max(abs(lo_s), abs(hi_s)), 1e-10 * self.std())
        return newton_rounds(
            target, upper, start, np.full(n, lo_s), np.full(n, hi_s), np.full(n, tol),
            self._kinks(),
        )

    def _kinks(self):
        """Points where the density may have a kink (see :func:`newton_rounds`), or None."""
        return None

    def _quantile(self, target, upper):
        """Solve tail(x) = target (tail = cdf, or sf where upper); target in (0, 0.5]."""
        return drive(
            self._quantile_rounds(target, upper), lambda req: self._tail_and_pdf(req[1], req[2])
        )

    def ppf(self, q):
        """Quantile function (inverse of :meth:`cdf`)."""
        q = check_probabilities(q)
        flat = q.ravel().astype(float)
        out = np.empty(flat.size)
        lo, hi = self._support
        out[flat == 0] = lo
        out[flat == 1] = hi
        mid = (flat > 0) & (flat < 1)
        if mid.any():
            qq = flat[mid]
            direct = self._direct_quantile(qq, False)
            if direct is not None:
                out[mid] = direct
            else:
                upper = qq > 0.5
                out[mid] = self._quantile(np.where(upper, 1.0 - qq, qq), upper)
        return out.reshape(q.shape) if q.shape else float(out[0])

    def isf(self, q):
        """Inverse survival function: the x with ``P(S > x) = q``."""
        q = check_probabilities(q)
        flat = q.ravel().astype(float)
        out = np.empty(flat.size)
        lo, hi = self._support
        out[flat == 0] = hi
        out[flat == 1] = lo
        mid = (flat > 0) & (flat < 1)
        if mid.any():
            qq = flat[mid]
            direct = self._direct_quantile(qq, True)
            if direct is not None:
                out[mid] = direct
            else:
                upper = qq <= 0.5
                out[mid] = self._quantile(np.where(upper, qq, 1.0 - qq), upper)
        return out.reshape(q.shape) if q.shape else float(out[0])

    _unimodal = False  # True where the density is known to be smooth and log-concave

    def mode(self) -> float:
        """Location of the maximum of the density (the true argmax, not a mean of class modes).

        A smooth log-concave density (every component's parameters above 1, as under a flat
        prior when no class is perfect or all wrong: convolution keeps log-concavity) has one
        maximum within ``sqrt(3)`` standard deviations of the mean (any unimodal law; Johnson
        and Rogers 1951). It is found by safeguarded Newton steps on the slope, the slope and
        curvature taken from three density values ``1e-4`` sd apart, inside a bracket that the
        slope's sign narrows at every step; once the middle value is the largest, the peak is
        within ``1e-4`` sd and the parabola's vertex within about ``1e-8`` sd of it; or, once
        two steps show Newton's quadratic convergence and the error they leave, about
        ``e1^3 / e0^2`` for steps ``e0`` then ``e1``, is below ``1e-6`` sd, the last step's end
        point is taken (typically within 1e-8 sd of the peak).

        Otherwise (a class whose density jumps or diverges at an end: a perfect or all-wrong
        class) the density may peak at a kink or a singular point where the components' ends
        meet: :func:`bacc._engine.sums.mode.find_mode` takes the highest of 49 density values
        with those points among them; where none lies near it, the peak is smooth there and
        Newton steps on the slope find it; otherwise it zooms in on the highest density,
        returns such a point exactly when the zoom closes on it, or polishes a smooth peak by a
        parabola. Either way the answer is verified against the density ``1e-6`` sd to either
        side.
        """
        lo_s, hi_s = self._support
        sd = self.std()
        self._prepare()
        if self._unimodal:
            return self._log_concave_mode(lo_s, hi_s, sd)
        return find_mode(
            lambda x: self._combine(x, ("pdf",))["pdf"], lo_s, hi_s, self._mean, sd,
            self._mode_candidates(), tabulated=self._tabulated_pdf,
        )

    def _mode_candidates(self) -> np.ndarray:
        """Points where the density may be kinked or singular (see :meth:`mode`)."""
        return np.array([])

    def _log_concave_mode(self, lo_s: float, hi_s: float, sd: float) -> float:
        """Maximum of a log-concave density (see :meth:`mode`)."""
        return drive(
            self._mode_rounds(lo_s, hi_s, sd), lambda x: self._combine(x, ("pdf",))["pdf"]
        )

    def _mode_rounds(self, lo_s: float, hi_s: float, sd: float):
        """Rounds of :meth:`_log_concave_mode`: yields points, receives their densities.

        Where the density is interpolated from a table (``_tabulated_pdf``), its values carry
        rounding noise of about 1e-9 of the peak, which the three points ``1e-4`` sd apart
        turn into up to 1e-5 sd of error in the vertex; the result is then refined by the
        vertices of parabolas ``1e-3`` and ``2e-3`` sd wide, combined by Richardson
        extrapolation (their error is ``c h^2``): noise and truncation both below 1e-7 sd.
        """
        x = yield from self._newton_mode_rounds(lo_s, hi_s, sd)
        if not self._tabulated_pdf:
            return x
        H = 1e-3 * sd
        if not (lo_s + 2 * H < x < hi_s - 2 * H):
            return x
        values = yield x + H * WIDE
        return richardson_vertex(x, H, values)

    _tabulated_pdf = False  # True where the density is interpolated from a table

    def _newton_mode_rounds(self, lo_s: float, hi_s: float, sd: float):
        """Safeguarded Newton steps on the slope (see :meth:`mode`): yields three points."""
        root3 = 1.7320508075688772
        lo = max(lo_s, self._mean - root3 * sd)
        hi = min(hi_s, self._mean + root3 * sd)
        # Pearson's rule (mode ~ mean - skewness * sd / 2) as the start
        x = float(np.clip(self._mean - 0.5 * self._m3 / sd**2, lo, hi))
        h = 1e-4 * sd
        prev = np.inf  # the last Newton step taken (inf: none yet, or a bisection)
        for _ in range(60):
            fm, f0, fp = yield np.array([x - h, x, x + h])
            curv = fp - 2.0 * f0 + fm
            # vertex of the parabola through the three values: a Newton step on the slope
            xn = x - 0.5 * h * (fp - fm) / curv if curv < 0 else np.nan
            if f0 >= fm and f0 >= fp:
                # a unimodal density peaks within h of x: the vertex is within ~h^2 of the peak
                return float(np.clip(xn, x - h, x + h)) if np.isfinite(xn) else float(x)
            # a unimodal density rises up to its mode and falls after it
            if fp > f0:
                lo = max(lo, x)
            if fm > f0:
                hi = min(hi, x)
            if hi - lo <= 2e-6 * sd:
                return 0.5 * (lo + hi)
            newton = bool(lo < xn < hi)
            step = abs(xn - x) if newton else np.inf
            # Newton converges quadratically: after a step e1 that followed a step e0, the
            # error left is about e1^3 / e0^2. Accepted when that is below 1e-6 sd (1000 times
            # below the bar) and the steps show the quadratic regime (e1 <= e0 / 10).
            if prev < np.inf and step <= min(0.1 * prev, 1e-2 * sd) and step**3 <= 1e-6 * sd * prev**2:
                return float(xn)
            prev = step
            x = float(xn) if newton else 0.5 * (lo + hi)
        return 0.5 * (lo + hi)

    def summary(self, confidence: float = 0.95, threshold: float | None = None) -> dict:
        """Mean, median, mode, central interval and ``P(S > threshold)``, computed together.

        The same numbers as :meth:`ppf`, :meth:`mode` and :meth:`p_above` give one by one
        (the same iterations, row by row), with their evaluations shared: each round of the
        quantile and mode iterations is one evaluation of the engine.
        """
        c = check_confidence(confidence)
        qq = np.array([(1.0 - c) / 2.0, 0.5, (1.0 + c) / 2.0])
        lo_s, hi_s = self._support
        if self._direct_quantile(qq, False) is not None or not self._unimodal:
            return super().summary(c, threshold)
        t = None if threshold is None else self._check_threshold(threshold)
        upper = qq > 0.5
        self._prepare()
        rounds = {
            "q": self._quantile_rounds(np.where(upper, 1.0 - qq, qq), upper),
            "m": self._mode_rounds(lo_s, hi_s, self.std()),
        }
        requests = {name: next(gen) for name, gen in rounds.items()}
        results: dict = {}
        p_above = None if t is None else (1.0 if t < lo_s else 0.0 if t >= hi_s else None)
        slope = self._has_slope
        while requests:
            parts = []
            q_req = requests.get("q")
            if q_req is not None:
                parts.append(np.clip(q_req[1], lo_s, hi_s))
            if "m" in requests:
                parts.append(requests["m"])
            ask_p = t is not None and p_above is None
            if ask_p:
                parts.append(np.array([t]))
            if q_req is not None or ask_p:
                kinds = ("cdf", "sf", "pdf", "dpdf") if slope else ("cdf", "sf", "pdf")
            else:
                kinds = ("pdf",)
            v = self._combine(np.concatenate(parts), kinds)
            i = 0
            replies = {}
            if q_req is not None:
                n, up = q_req[1].size, q_req[2]
                tail = unit(np.where(up, v["sf"][:n], v["cdf"][:n]))
                reply = (tail, np.maximum(v["pdf"][:n], 0.0))
                replies["q"] = reply + (v["dpdf"][:n],) if slope else reply
                i = n
            if "m" in requests:
                size = requests["m"].size
                replies["m"] = v["pdf"][i : i + size]
                i += size
            if ask_p:
                p_above = float(unit(v["sf"][i]))
            for name, reply in replies.items():
                try:
                    requests[name] = rounds[name].send(reply)
                except StopIteration as stop:
                    results[name] = stop.value
                    del requests[name]
        lo, med, hi = (float(v) for v in results["q"])
        out = {"mean": self.mean(), "median": med, "mode": float(results["m"]), "lower": lo,
               "upper": hi}  # fmt: skip
        if t is not None:
            out["p_above"] = p_above
        return out


class BetaSum(SumDistribution):
    """Distribution of ``sum_i w_i X_i`` with independent ``X_i ~ Beta(a_i, b_i)``.

    Parameters
    ----------
    a, b : array_like of float, shape (m,)
        Beta parameters of the components, all > 0 and finite.
    w : array_like of float, shape (m,)
        Weights (non-zero; may be negative).
    resolution : float, optional
        Lattice steps per standard deviation of the narrowest discretised component, halved
        (default 8, i.e. 16 steps). Only used for three or more components.

    Notes
    -----
    The methods follow ``scipy.stats`` frozen distributions: ``pdf, logpdf, cdf, sf, ppf, isf,
    mean, var, std, median, mode, interval, rvs`` (vectorised in ``x`` and ``q``), plus
    ``p_above(threshold)``. One component: the scaled Beta distribution itself. Two
    components: exact one-dimensional quadrature (Brodersen et al. (2010), eq. 7). Three or more: an aligned
    lattice with extrapolation (Carrillo et al. (2014), eq. 13). See the module notes.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section III, eq. 7.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.4, eqs. 12-13, and
       section 4.5, eq. 14.

    Examples
    --------
    The posterior balanced accuracy of ``[[42, 3], [6, 4]]`` under a flat prior:

    >>> import bacc
    >>> s = bacc.BetaSum([43, 5], [4, 7], [0.5, 0.5])
    >>> round(s.mean(), 4)  # (43/47 + 5/12) / 2
    0.6658
    >>> [round(x, 3) for x in s.interval(0.95)]
    [0.534, 0.808]
    """

    def __init__(self, a, b, w, *, resolution: float = RHO) -> None:
        a, b, w = (np.atleast_1d(_numbers(v, name)) for v, name in ((a, "a"), (b, "b"), (w, "w")))
        if not (a.shape == b.shape == w.shape) or a.ndim != 1 or a.size == 0:
            raise BaccError("a, b and w must be 1-D arrays of the same, non-zero length")
        ab = np.concatenate([a, b])
        if not (np.isfinite(ab).all() and np.isfinite(w).all()):
            raise BaccError("Beta parameters and weights must be finite")
        if not (ab > 0).all():
            raise BaccError("Beta parameters must be > 0")
        if (ab > MAX_PARAMETER).any():
            raise BaccError(
                f"Beta parameter {float(ab[ab > MAX_PARAMETER][0]):.6g} is above 2e13 (counts "
                "beyond 10^13 per class are beyond what bacc resolves)"
            )
        if not w.all():
            raise BaccError("weights must be non-zero (leave such components out)")
        if (np.abs(w) < MIN_WEIGHT * np.abs(w).max()).any():
            raise BaccError("a weight is below 1e-12 of the largest; leave such components out")
        self._resolution = _check_resolution(resolution)
        self._a_in, self._b_in, self._w_in = a, b, w
        # reflect negative weights: w X = w + |w| (1 - X), 1 - X ~ Beta(b, a)
        neg = w < 0
        self._shift = float(np.sum(w[neg]))
        self._a = np.where(neg, b, a)
        self._b = np.where(neg, a, b)
        self._w = np.abs(w)
        mu, var, m3 = beta_moments(self._a, self._b)
        self._cmean = self._w * mu
        self._cvar = self._w**2 * var
        self._mean = float(np.sum(w * (a / (a + b))))
        self._var = float(np.sum(self._cvar))
        self._m3 = float(np.sum(np.where(neg, -1.0, 1.0) * self._w**3 * m3))
        self._k4 = float(np.sum(self._w**4 * beta_k4(self._a, self._b)))
        # Beta densities with both parameters > 1 are log-concave and vanish at both ends, and
        # so is their sum; a parameter of 1 is a jump at an end (see mode)
        self._unimodal = bool(np.all(self._a > 1.0) and np.all(self._b > 1.0))
        self._support = (float(np.sum(np.minimum(w, 0.0))), float(np.sum(np.maximum(w, 0.0))))
        self._prepared = False

    @property
    def components(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, w)`` of the components, as given."""
        return self._a_in.copy(), self._b_in.copy(), self._w_in.copy()

    # ------------------------------------------------------------------------------------------
    def _prepare(self) -> None:
        """Build the engine of the method :mod:`bacc._engine.sums.chooser` picks, once."""
        if self._prepared:
            return
        self._engine = BetaSumEngine(self._a, self._b, self._w, self._shift, self._cvar,
                                     self.std(), 2 * self._resolution)  # fmt: skip
        self._has_slope = self._engine.has_slope
        self._tabulated_pdf = self._engine.tabulated
        self._prepared = True

    # the engine's parts, as the tests of the lattice inspect them
    @property
    def _ib(self) -> int:
        self._prepare()
        return self._engine.ib

    @property
    def _grid(self):
        self._prepare()
        return self._engine.grid

    @property
    def _offset(self) -> float:
        self._prepare()
        return self._engine.offset

    def _widest_smooth(self) -> bool:
        """Whether the widest component is smooth where it has mass (see the chooser)."""
        return widest_smooth(self._a, self._b, self._cvar)

    def _combine(self, x, kinds):
        """Values of the requested functions (cdf, sf, pdf) at x."""
        return self._engine.values(x, kinds)

    def _kinks(self):
        return self._engine.kinks()

    def _table_start(self, target, upper):
        return self._engine.table_start(target, upper)

    def mode(self) -> float:
        if self._a.size == 1:
            return self._shift + self._w[0] * beta_mode(self._a[0], self._b[0])
        return super().mode()

    mode.__doc__ = SumDistribution.mode.__doc__

    def _mode_candidates(self) -> np.ndarray:
        """The corner where every component is at the end where its density is highest (a
        parameter <= 1 on that side), when there is one: there the density is kinked (a jump
        of each component meets) or singular, and is often highest."""
        top = (self._b <= 1.0) & (self._a >= self._b)
        bottom = (self._a <= 1.0) & ~top
        if not np.all(top | bottom):
            return np.array([])
        return np.array([self._shift + float(np.sum(self._w[top]))])

    def _direct_quantile(self, q, upper):
        """Quantiles of a single component: the verified Beta quantiles, scaled."""
        if self._a.size != 1:
            return None
        f = _beta.beta_isf if upper else _beta.beta_ppf
        return self._shift + self._w[0] * f(q, self._a[0], self._b[0])

    def rvs(self, size=None, random_state=None):
        """Random draws (Monte Carlo; never used by default computations)."""
        rng = check_random_state(random_state)
        shape = check_size(size)
        draws = rng.beta(self._a_in, self._b_in, size=shape + (self._a_in.size,))
        out = draws @ self._w_in
        return float(out) if size is None else out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(components={self._a_in.size}, mean={self._mean:.6g}, std={self.std():.3g})"


def _numbers(v, name: str) -> np.ndarray:
    """``v`` as a float array, or a BaccError naming the argument."""
    if isinstance(v, str | bytes | dict):
        raise BaccError(f"{name} must be numbers, got {type(v).__name__}")
    try:
        return np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"{name} must be numbers (an array of equal-length rows)") from None


def _number(v, name: str) -> float:
    """``v`` as a float, or a BaccError naming the argument."""
    if isinstance(v, bool | str | bytes) or not isinstance(v, numbers.Real):
        raise BaccError(f"{name} must be a number, got {type(v).__name__}")
    return float(v)


def _check_resolution(resolution) -> float:
    if isinstance(resolution, bool) or not isinstance(resolution, numbers.Real):
        raise BaccError(f"resolution must be a number >= 1, got {type(resolution).__name__}")
    r = float(resolution)
    if not (1.0 <= r <= 1e3):
        raise BaccError(f"resolution must be between 1 and 1000, got {r!r}")
    return r


def beta_mode(a: float, b: float) -> float:
    """Mode of Beta(a, b): ``(a - 1) / (a + b - 2)`` when both exceed 1 (Brodersen et al. (2010), eq. 5).

    With ``a <= 1 < b`` the density is largest at 0, with ``b <= 1 < a`` at 1 (a class without
    errors under a flat prior); for ``a = b = 1`` (uniform) every point is a mode and 0.5 is
    returned; for ``a, b < 1`` the larger of the two end points.
    """
    a, b = float(a), float(b)
    if a > 1 and b > 1:
        return (a - 1.0) / (a + b - 2.0)
    if a <= 1 < b:
        return 0.0
    if b <= 1 < a:
        return 1.0
    if a == b:
        return 0.5
    return 0.0 if a < b else 1.0


class BetaPosterior(ContinuousDistribution):
    """A Beta(a, b) distribution with the surface of a frozen ``scipy.stats.beta``.

    Quantiles are verified against the CDF and refined (scipy's Beta quantile is wrong at
    large parameters; see ``bacc._engine.beta``).

    Parameters
    ----------
    a, b : float
        Shape parameters, > 0.

    Notes
    -----
    With ``k`` correct out of ``n`` and a ``Beta(a0, b0)`` prior the posterior of an accuracy is
    ``Beta(k + a0, n - k + b0)`` (Brodersen et al. (2010), eqs. 1-2; Carrillo et al. (2014),
    eq. 8): mean ``a / (a + b)`` (Carrillo et al., eq. 10), mode ``(a - 1) / (a + b - 2)``
    (eq. 11).

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section II, eqs. 1-6.
    .. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.3, eqs. 8-11.

    Examples
    --------
    >>> import bacc
    >>> post = bacc.BetaPosterior(43, 4)  # class 0 of [[42, 3], [6, 4]], flat prior
    >>> round(post.mean(), 4)  # 43 / 47
    0.9149
    """

    def __init__(self, a: float, b: float) -> None:
        a, b = _number(a, "a"), _number(b, "b")
        if not (np.isfinite(a) and np.isfinite(b) and a > 0 and b > 0):
            raise BaccError(f"Beta parameters must be finite and > 0, got a={a!r}, b={b!r}")
        if a > MAX_PARAMETER or b > MAX_PARAMETER:
            raise BaccError(
                f"Beta parameters must be at most 2e13 (10^13 examples plus prior), got "
                f"a={a:.6g}, b={b:.6g}"
            )
        self.a = a
        self.b = b

    @property
    def args(self) -> tuple[float, float]:
        """``(a, b)``, as ``scipy.stats`` frozen distributions expose them."""
        return (self.a, self.b)

    def support(self) -> tuple[float, float]:
        """``(0, 1)``."""
        return (0.0, 1.0)

    def _x(self, x):
        try:
            return np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise BaccError(f"x must be numbers, got {x!r}") from None

    def cdf(self, x):
        """``I_x(a, b)``."""
        x = self._x(x)
        out = _beta.beta_cdf(x, self.a, self.b)
        return out if out.shape else float(out)

    def sf(self, x):
        """``1 - I_x(a, b)`` without cancellation."""
        x = self._x(x)
        out = _beta.beta_sf(x, self.a, self.b)
        return out if out.shape else float(out)

    def pdf(self, x):
        """Density (Brodersen et al. (2010), eq. 2)."""
        x = self._x(x)
        out = _beta.beta_pdf(x, self.a, self.b)
        return out if out.shape else float(out)

    def logpdf(self, x):
        """Log density."""
        x = self._x(x)
        out = _beta.beta_logpdf(x, self.a, self.b)
        return out if out.shape else float(out)

    def ppf(self, q):
        """Quantile (Brodersen et al. (2010), eq. 4 for the median), verified against the CDF."""
        q = check_probabilities(q)
        out = _beta.beta_ppf(q, self.a, self.b)
        return out if np.ndim(out) else float(out)

    def isf(self, q):
        """Inverse survival function."""
        q = check_probabilities(q)
        out = _beta.beta_isf(q, self.a, self.b)
        return out if np.ndim(out) else float(out)

    def mean(self) -> float:
        """``a / (a + b)`` (Brodersen et al. (2010), eq. 3, Carrillo et al. (2014) eq. 10)."""
        return self.a / (self.a + self.b)

    def var(self) -> float:
        """``a b / ((a + b)^2 (a + b + 1))``."""
        s = self.a + self.b
        return self.a * self.b / (s * s * (s + 1.0))

    def mode(self) -> float:
        """``(a - 1) / (a + b - 2)`` (Brodersen et al. (2010), eq. 5, Carrillo et al. (2014) eq. 11) when both exceed 1.

        With ``a <= 1 < b`` the density is largest at 0, with ``b <= 1 < a`` at 1 (a class
        without errors under a flat prior); for ``a = b = 1`` (uniform) every point is a mode and
        0.5 is returned; for ``a, b < 1`` the larger of the two end points.
        """
        return beta_mode(self.a, self.b)

    def rvs(self, size=None, random_state=None):
        """Random draws."""
        rng = check_random_state(random_state)
        shape = check_size(size)
        out = rng.beta(self.a, self.b, size=shape)
        return float(out) if size is None else out

    def entropy(self) -> float:
        """Differential entropy."""
        a, b = self.a, self.b
        return float(
            sc.betaln(a, b)
            - (a - 1) * sc.digamma(a)
            - (b - 1) * sc.digamma(b)
            + (a + b - 2) * sc.digamma(a + b)
        )

    def __repr__(self) -> str:
        return f"BetaPosterior(a={self.a:g}, b={self.b:g})"


class PairedDifference(SumDistribution):
    """Posterior of ``delta = sum_i w_i (p10_i - p01_i)`` with independent Dirichlet classes.

    ``delta`` is the difference ``lambda_A - lambda_B`` of two classifiers' balanced accuracies
    when both were tested on the same examples (Carrillo et al. (2014), eq. 14, with the correlation the paper's
    independent treatment leaves out; see :func:`bacc.compare_paired`).

    Parameters
    ----------
    alpha : array_like, shape (m, 4)
        Dirichlet posterior parameters of each class, cells ordered ``(11, 10, 01, 00)``: both
        right, only A right, only B right, both wrong. All > 0.
    w : array_like, shape (m,)
        Class weights (> 0; the balanced accuracy uses ``1/m``).
    resolution : float, optional
        Lattice steps per standard deviation of the narrowest class, halved (default 8).

    Notes
    -----
    Deterministic: see the notes of ``bacc._engine.sums.paired_difference``. The scipy-like surface is that of
    :class:`bacc.BetaSum`: ``pdf, logpdf, cdf, sf, ppf, isf, mean, var, std, median, mode,
    interval, rvs, p_above, support``.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent
       Systems and Computing 252, 347-361, section 4.5, eq. 14.
    .. [2] McNemar, Q. (1947). Note on the sampling error of the difference between
       correlated proportions or percentages. Psychometrika 12, 153-157 (the same discordant cells).

    Examples
    --------
    Two classes of 30 examples; A alone right on 2 examples of each, B alone right on none;
    flat marginal priors (concentration 1/2 per cell):

    >>> import bacc
    >>> d = bacc.PairedDifference([[25.5, 2.5, 0.5, 3.5], [24.5, 2.5, 0.5, 4.5]], [0.5, 0.5])
    >>> d.mean()  # sum_i w_i (a10_i - a01_i) / sum(a_i) = 2 / 32
    0.0625
    >>> round(d.p_above(0), 3)
    0.969
    """

    def __init__(self, alpha, w, *, resolution: float = RHO) -> None:
        alpha = _numbers(alpha, "alpha")
        if alpha.ndim == 1:
            alpha = alpha[None, :]
        w = np.atleast_1d(_numbers(w, "w"))
        if alpha.ndim != 2 or alpha.shape[1] != 4 or alpha.shape[0] == 0:
            raise BaccError(f"alpha must have shape (classes, 4), got {alpha.shape}")
        if w.shape != (alpha.shape[0],):
            raise BaccError(f"w must have one weight per class ({alpha.shape[0]}), got shape {w.shape}")
        if not (np.all(np.isfinite(alpha)) and np.all(alpha > 0)):
            raise BaccError("Dirichlet parameters must be finite and > 0")
        if np.any(alpha > MAX_PARAMETER):
            raise BaccError("Dirichlet parameters must be at most 2e13 (10^13 examples per class)")
        if not (np.all(np.isfinite(w)) and np.all(w > 0)):
            raise BaccError("class weights must be finite and > 0")
        resolution = _check_resolution(resolution)
        self.alpha = alpha.copy()
        self.weights = w.copy()
        self._comp = PairedComponents(alpha)
        c = self._comp
        self._mean = float(np.sum(w * c.mean))
        self._cvar = w**2 * c.var
        self._var = float(np.sum(self._cvar))
        self._m3 = float(np.sum(w**3 * c.m3))
        self._support = (-float(np.sum(w)), float(np.sum(w)))
        self._resolution = float(resolution)
        self._prepared = False

    # ------------------------------------------------------------------------------------------
    def _prepare(self) -> None:
        """Build the engine of the method :mod:`bacc._engine.sums.chooser` picks, once."""
        if self._prepared:
            return
        self._engine = PairedDifferenceEngine(self._comp, self.alpha, self.weights, self._cvar,
                                              2 * self._resolution)  # fmt: skip
        self._prepared = True

    @property
    def error_estimate(self) -> float:
        """Estimated absolute error of the tabulated CDF (0 for one class: direct quadrature)."""
        self._prepare()
        return self._engine.error_estimate

    def _combine(self, x, kinds):
        return self._engine.values(x, kinds)

    def _mode_candidates(self) -> np.ndarray:
        """0: where every class difference may be singular (few discordant examples)."""
        return np.array([0.0])

    def rvs(self, size=None, random_state=None):
        """Random draws from the Dirichlet model (Monte Carlo; never used by default)."""
        rng = check_random_state(random_state)
        shape = check_size(size)
        g = rng.standard_gamma(self.alpha, size=shape + self.alpha.shape)
        d = (g[..., 1] - g[..., 2]) / g.sum(axis=-1)
        out = d @ self.weights
        return float(out) if size is None else out

    def __repr__(self) -> str:
        return (
            f"PairedDifference(classes={self.alpha.shape[0]}, mean={self._mean:.6g}, "
            f"std={self.std():.3g})"
        )


class GridAverage(SumDistribution):
    """Distribution of an average of independent variables, each given by its density on a grid.

    The posterior of the population balanced accuracy under a mixed-effects model (and of a
    subject's, or a new subject's, balanced accuracy under it): see
    :func:`bacc.population`. Built by bacc, not by users; the surface is that of the other
    distributions (``pdf, logpdf, cdf, sf, ppf, isf, mean, var, std, median, mode, interval,
    rvs, p_above, support``).

    Method: :mod:`bacc._engine.sums.grid_average` (trapezoidal convolution of smooth densities by FFT,
    sixth-order running integral). Mean and variance are the sums of the components' exact
    moments; quantiles are solved by safeguarded Newton steps on the CDF with its density and
    slope; the mode is located by :func:`bacc._engine.sums.mode.find_mode` and verified against the
    density on a bracket.

    References
    ----------
    .. [1] Brodersen, K. H., Mathys, C., Chumbley, J. R., Daunizeau, J., Ong, C. S., Buhmann,
       J. M. & Stephan, K. E. (2012). Bayesian mixed-effects inference on classification
       performance in hierarchical data sets. Journal of Machine Learning Research 13,
       3133-3176, section 3.3 (the population balanced accuracy as an average of the
       classes' population accuracies).
    """

    _has_slope = True

    def __init__(self, table, mean: float, var: float, m3: float, what: str) -> None:
        self._table = table
        self._mean, self._var, self._m3 = float(mean), float(var), float(m3)
        self._support = (0.0, 1.0)
        self.what = what

    def _prepare(self) -> None:
        return None

    def _combine(self, x, kinds):
        return self._table.values(np.atleast_1d(np.asarray(x, dtype=float)), kinds)

    def rvs(self, size=None, random_state=None):
        """Random draws (inverse-CDF transform of uniforms; never used by default)."""
        rng = check_random_state(random_state)
        shape = check_size(size)
        out = np.asarray(self.ppf(rng.random(shape)))
        return float(out) if size is None else out

    def __repr__(self) -> str:
        return f"GridAverage({self.what}, mean={self._mean:.6g}, std={self.std():.3g})"


class NormalMixture(ContinuousDistribution):
    """A finite mixture of normal laws: the posterior of a difference between classifiers in a
    population of data sets (:func:`bacc.compare_across`), a mixture over the nodes at which
    the between-data-set spread is integrated.

    Built by bacc, not by users; the surface is that of the other distributions (``pdf,
    logpdf, cdf, sf, ppf, isf, mean, var, std, median, mode, interval, rvs, p_above,
    support``). The CDF and density are sums of closed forms; quantiles are solved by
    bisection to 1e-13 in the variable (the CDF is increasing), the mode by a golden-section
    search on the density about the best of a fine scan.

    Attributes
    ----------
    weights, means, sds : ndarray
        The components (weights sum to 1; every sd > 0).
    what : str
        What the variable is (used in messages and the printed form).
    """

    def __init__(self, weights, means, sds, what: str = "difference") -> None:
        w = _numbers(weights, "weights").ravel()
        mu = _numbers(means, "means").ravel()
        sd = _numbers(sds, "sds").ravel()
        if not (w.shape == mu.shape == sd.shape) or w.size == 0:
            raise BaccError("a normal mixture needs weights, means and sds of one length")
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(mu)) and np.all(np.isfinite(sd))):
            raise BaccError("a normal mixture needs finite weights, means and sds")
        if np.any(w < 0) or w.sum() <= 0 or np.any(sd <= 0):
            raise BaccError("a normal mixture needs non-negative weights and positive sds")
        keep = w > 0
        self.weights = w[keep] / w[keep].sum()
        self.means = mu[keep]
        self.sds = sd[keep]
        self.what = str(what)

    def support(self) -> tuple[float, float]:
        return (-np.inf, np.inf)

    def _z(self, x):
        x = _numbers(x, "x")
        if np.any(np.isnan(x)):
            raise BaccError("x must be numbers, got NaN")
        return (x[..., None] - self.means) / self.sds

    def cdf(self, x):
        """Cumulative distribution function."""
        out = np.sum(self.weights * sc.ndtr(self._z(x)), axis=-1)
        return float(out) if np.ndim(x) == 0 else out

    def sf(self, x):
        """Survival function, ``1 - cdf`` without cancellation."""
        out = np.sum(self.weights * sc.ndtr(-self._z(x)), axis=-1)
        return float(out) if np.ndim(x) == 0 else out

    def pdf(self, x):
        """Density."""
        z = self._z(x)
        out = np.sum(self.weights * np.exp(-0.5 * z * z) / (self.sds * np.sqrt(2.0 * np.pi)), axis=-1)
        return float(out) if np.ndim(x) == 0 else out

    def mean(self) -> float:
        """Mean."""
        return float(np.sum(self.weights * self.means))

    def var(self) -> float:
        """Variance."""
        m = self.mean()
        return float(np.sum(self.weights * (self.sds**2 + (self.means - m) ** 2)))

    def _logs(self, x: np.ndarray):
        """log CDF, log survival function and log density at ``x`` (no underflow in the tails)."""
        z = (x[..., None] - self.means) / self.sds
        lw = np.log(self.weights)

        def lse(a):
            top = np.max(a, axis=-1)
            return top + np.log(np.sum(np.exp(a - top[..., None]), axis=-1))

        with np.errstate(over="ignore"):  # z * z beyond the floats: a density of exactly 0
            lcdf = lse(lw + sc.log_ndtr(z))
            lsf = lse(lw + sc.log_ndtr(-z))
            lpdf = lse(lw - 0.5 * z * z - np.log(self.sds * np.sqrt(2.0 * np.pi)))
        return lcdf, lsf, lpdf

    def _solve(self, q: np.ndarray, upper: bool) -> np.ndarray:
        """Safeguarded Newton steps on the log of the nearer tail, ``log F(x) = log q`` or
        ``-log S(x) = -log q``, from the normal quantile of the mixture's mean and sd, inside a
        bracket that every step narrows (bisection where a Newton step would leave it)."""
        q = np.asarray(q, dtype=float)
        lo = np.full(q.shape, float(np.min(self.means - 40.0 * self.sds)))
        hi = np.full(q.shape, float(np.max(self.means + 40.0 * self.sds)))
        inner = (q > 0.0) & (q < 1.0)
        qc = np.clip(q, 1e-300, 1.0)
        with np.errstate(divide="ignore"):
            # which tail: the CDF's when the lower tail holds q (ppf of q <= 1/2, isf of q > 1/2)
            left = (q <= 0.5) != upper
            tail = np.where(q <= 0.5, np.log(qc), np.log1p(-np.minimum(q, 1.0 - 1e-16)))
            target = np.where(left, tail, -tail)  # log F = target, or -log S = target
        p_low = np.where(upper, 1.0 - q, q)
        z0 = sc.ndtri(np.clip(p_low, 1e-300, 1.0 - 1e-16))
        x = np.clip(self.mean() + self.std() * z0, lo, hi)
        for _ in range(100):
            lcdf, lsf, lpdf = self._logs(x)
            level = np.where(left, lcdf, -lsf)  # increasing in x
            slope = np.exp(lpdf - np.where(left, lcdf, lsf))
            gap = level - target
            lo = np.where(gap < 0, x, lo)
            hi = np.where(gap < 0, hi, x)
            with np.errstate(divide="ignore", invalid="ignore"):
                new = x - gap / slope
            bad = ~np.isfinite(new) | (new < lo) | (new > hi)
            new = np.where(bad, 0.5 * (lo + hi), new)
            done = np.abs(new - x) <= 1e-14 * np.maximum(1.0, np.abs(x))
            x = new
            if np.all(done | ~inner) or np.all(hi - lo <= 1e-14 * np.maximum(1.0, np.abs(x))):
                break
        return x

    def ppf(self, q):
        """Quantile function."""
        qa = check_probabilities(q)
        out = self._solve(qa, upper=False)
        out = np.where(qa == 0.0, -np.inf, np.where(qa == 1.0, np.inf, out))
        return float(out) if np.ndim(q) == 0 else out

    def isf(self, q):
        """Inverse survival function (upper quantile), without cancellation."""
        qa = check_probabilities(q)
        out = self._solve(qa, upper=True)
        out = np.where(qa == 0.0, np.inf, np.where(qa == 1.0, -np.inf, out))
        return float(out) if np.ndim(q) == 0 else out

    def mode(self) -> float:
        """Mode: the highest point of the density (a mixture may have several local peaks).

        Candidates are a scan of the whole range and every component's mean (so a component
        narrower than the scan's step is not missed); the best is refined by golden-section
        search within the narrowest scale that matters there."""
        lo = float(np.min(self.means - 4.0 * self.sds))
        hi = float(np.max(self.means + 4.0 * self.sds))
        x = np.concatenate([np.linspace(lo, hi, 4001), self.means])
        dens = np.asarray(self.pdf(x))
        i = int(np.argmax(dens))
        x0 = float(x[i])
        # the components that make the density at x0: the narrowest of them sets the bracket
        share = self.weights * np.exp(-0.5 * ((x0 - self.means) / self.sds) ** 2) / self.sds
        big = share >= 0.01 * share.max()
        width = float(np.min(self.sds[big]))
        step = (hi - lo) / 4000.0
        half = min(width, step) if i < 4001 else width
        a, b = x0 - half, x0 + half
        g = (np.sqrt(5.0) - 1.0) / 2.0
        for _ in range(200):
            c, d = b - g * (b - a), a + g * (b - a)
            if self.pdf(c) >= self.pdf(d):
                b = d
            else:
                a = c
            if b - a <= 1e-13 * max(1.0, abs(a)):
                break
        best = float(0.5 * (a + b))
        return best if self.pdf(best) >= dens[i] else x0

    def rvs(self, size=None, random_state=None):
        """Random draws (a component by its weight, then a normal draw)."""
        rng = check_random_state(random_state)
        shape = check_size(size)
        k = rng.choice(self.weights.size, size=shape, p=self.weights)
        out = self.means[k] + self.sds[k] * rng.standard_normal(shape)
        return float(out) if size is None else out

    def __repr__(self) -> str:
        return f"NormalMixture({self.what}, mean={self.mean():.6g}, std={self.std():.3g})"
