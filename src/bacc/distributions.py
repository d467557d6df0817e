"""Distribution of a weighted sum of independent Beta variables.

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
noise, so the lattice sum has the exact mean and an error of order ``h^2`` that is removed by
Richardson extrapolation from steps ``h`` and ``h/2``. The lattice is placed where each component
has its mass (between its 1e-18 and 1 - 1e-18 quantiles), with ``h`` a fraction of the narrowest
spread, and the components are convolved by FFT.

Components narrower than ``3e-4`` times the spread of the rest of ``R`` are folded in by their
mean (their variance changes the CDF by less than ``1e-8``).

Quantiles are found by safeguarded Newton iterations on this CDF (using the density), starting
from a Cornish-Fisher guess built from the exact mean, variance and skewness; mean and variance
are closed-form.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

from . import _beta
from ._validate import check_confidence, check_probabilities
from .errors import BaccError

__all__ = ["BetaSum"]

_TAIL = 1e-14  # lattice tails: mass left out on each side of a component
_TINY = 3e-4  # relative spread below which a component of R is folded in by its mean
_RHO = 8.0  # lattice steps per standard deviation of the narrowest lattice component
_MAX_POINTS = 2**20


def _beta_moments(a, b):
    """Variance, third central moment and fourth cumulant of Beta(a, b) (with the mean)."""
    s = a + b
    mean = a / s
    var = a * b / (s * s * (s + 1.0))
    # third central moment
    m3 = 2.0 * a * b * (b - a) / (s**3 * (s + 1.0) * (s + 2.0))
    return mean, var, m3


def _beta_k4(a, b):
    """Fourth cumulant of Beta(a, b): excess kurtosis times the squared variance."""
    s = a + b
    var = a * b / (s * s * (s + 1.0))
    excess = 6.0 * ((a - b) ** 2 * (s + 1.0) - a * b * (s + 2.0)) / (a * b * (s + 2.0) * (s + 3.0))
    return excess * var * var


def _tails(combine, x, upper, slope=False):
    """``(tail, pdf)`` where tail is the cdf, or the sf where ``upper`` (one evaluation).

    With ``slope=True`` also the derivative of the density (kind ``"dpdf"``).
    """
    if upper.all():
        kinds = ["sf"]
    elif not upper.any():
        kinds = ["cdf"]
    else:
        kinds = ["cdf", "sf"]
    kinds.append("pdf")
    if slope:
        kinds.append("dpdf")
    v = combine(x, tuple(kinds))
    t = np.where(upper, v["sf"], v["cdf"]) if len(kinds) - slope == 3 else v[kinds[0]]
    out = (_unit(t), np.maximum(v["pdf"], 0.0))
    return out + (v["dpdf"],) if slope else out


def cornish_fisher_start(q, upper, mean, sd, m3, lo, hi, k4=0.0):
    """Cornish-Fisher guess of the quantile from the exact mean, sd, third moment and fourth
    cumulant (second-order expansion)."""
    z = sc.ndtri(q)
    z = np.where(upper, -z, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd_ = np.asarray(sd, float)
        g1 = np.where(sd_ > 0, m3 / sd_**3, 0.0)
        g2 = np.where(sd_ > 0, k4 / sd_**4, 0.0)
    z2 = z * z
    zc = z + (z2 - 1.0) * g1 / 6.0 + z * (z2 - 3.0) * g2 / 24.0 - z * (2.0 * z2 - 5.0) * g1**2 / 36.0
    return np.clip(mean + sd * zc, lo, hi)


def newton_quantile(tail_and_pdf, target, upper, x, lo, hi, tol_x):
    """Solve ``tail(x) = target`` row by row (tail = cdf, or sf where ``upper``).

    Safeguarded Newton: each step uses the density and falls back to bisection of the bracket
    ``[lo, hi]`` kept from the signs of the residuals. All arguments are 1-D arrays of one
    length; ``tail_and_pdf(x_rows, upper_rows, rows)`` evaluates the rows still iterating and
    returns ``(tail, pdf)`` or ``(tail, pdf, slope of the pdf)``; with the slope, the steps are
    Halley's (cubic convergence) where its correction of the Newton step is moderate.
    """
    rounds = newton_rounds(target, upper, x, lo, hi, tol_x)
    return drive(rounds, lambda req: tail_and_pdf(req[1], req[2], req[0]))


def drive(rounds, evaluate):
    """Run a generator of evaluation rounds (see :func:`newton_rounds`) to its result."""
    try:
        request = next(rounds)
        while True:
            request = rounds.send(evaluate(request))
    except StopIteration as stop:
        return stop.value


def newton_rounds(target, upper, x, lo, hi, tol_x):
    """The iterations of :func:`newton_quantile` as a generator.

    Each round yields ``(rows, x_rows, upper_rows)`` for the rows still iterating and receives
    ``(tail, pdf)`` or ``(tail, pdf, slope)`` there; returns the solutions. Several such
    generators (and :meth:`SumDistribution._mode_rounds`) can share one evaluation per round.
    """
    x = np.array(x, dtype=float)
    # working copies of the rows still iterating (compacted as rows finish)
    act = np.arange(x.size)
    xa, lo, hi = x.copy(), np.array(lo, dtype=float), np.array(hi, dtype=float)
    ta, up, tol = np.asarray(target, float), np.asarray(upper, bool), np.asarray(tol_x, float)
    sign = np.where(up, -1.0, 1.0)  # residual of the tail, turned into one of the cdf
    prev = np.full(x.size, np.inf)  # last Newton step per row (inf: none yet, or bisection)
    for _ in range(100):
        t, f, *slope = yield act, xa, up
        r = t - ta
        rc = sign * r  # > 0: x is right of the root
        right = rc > 0
        hi = np.where(right, np.minimum(hi, xa), hi)
        lo = np.where(right, lo, np.maximum(lo, xa))
        with np.errstate(all="ignore"):
            dx = rc / f  # Newton step
            if slope:
                corr = 1.0 - 0.5 * dx * slope[0] / f
                dx = np.where((corr >= 0.5) & (corr <= 2.0), dx / corr, dx)
            xn = xa - dx
            # outside the bracket, not finite, or no density: bisect
            bad = ~((xn >= lo) & (xn <= hi) & (f > 0) & (f < np.inf))
        xn = np.where(bad, 0.5 * (lo + hi), xn)
        step = np.abs(xn - xa)
        # 1e-12 relative in the tail: the quantile is then within ~1e-12 sd (far below the bar)
        conv = np.abs(r) <= 1e-12 * ta
        small = (~bad & (step <= tol) & (np.abs(r) < 1e-9)) | (hi - lo <= tol)
        # A step of at most 1e-4 sd that is at most 1 % of the previous one: the iteration
        # contracts here by rho <= step / prev, so the error left after this step is at most
        # about step * rho = step^2 / prev, required below 1e-8 sd (quadratic or cubic
        # convergence makes it far smaller still).
        fast = ~bad & (step <= 1e6 * tol) & (step <= 0.01 * prev) & (step * step <= 1e2 * tol * prev)
        prev = np.where(bad, np.inf, step)
        xa = np.where(conv, xa, xn)
        fin = conv | small | fast
        if fin.any():
            x[act[fin]] = xa[fin]
            keep = ~fin
            if not keep.any():
                break
            act, xa, lo, hi, ta, up, tol, sign, prev = (
                v[keep] for v in (act, xa, lo, hi, ta, up, tol, sign, prev)
            )
    else:
        x[act] = xa
    return x


class ContinuousDistribution:
    """Shared surface of bacc's distribution objects (the ``scipy.stats`` frozen interface).

    Subclasses provide ``cdf, sf, pdf, ppf, isf, mean, var, mode, support, rvs``; this class
    derives ``std, median, logpdf, p_above, interval`` (central or highest-density) from them.
    """

    def std(self) -> float:
        """Standard deviation."""
        return float(np.sqrt(self.var()))

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
        if kind == "cdf":
            out[ok & (flat < lo)] = 0.0
            out[ok & (flat >= hi)] = 1.0
            inside = ok & (flat >= lo) & (flat < hi)
        elif kind == "sf":
            out[ok & (flat < lo)] = 1.0
            out[ok & (flat >= hi)] = 0.0
            inside = ok & (flat >= lo) & (flat < hi)
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
        return _tails(self._combine, np.clip(x, lo_s, hi_s), upper, self._has_slope)

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
        return newton_rounds(target, upper, start, np.full(n, lo_s), np.full(n, hi_s), np.full(n, tol))

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

    _unimodal = False  # True where the density is known to be log-concave

    def mode(self) -> float:
        """Location of the maximum of the density (the true argmax, not a mean of class modes).

        A log-concave density (every component has a log-concave density, e.g. Beta variables
        with both parameters >= 1, as under a flat prior: convolution keeps log-concavity) has
        one maximum within ``sqrt(3)`` standard deviations of the mean (any unimodal law; Johnson
        and Rogers 1951). It is found by safeguarded Newton steps on the slope, the slope and
        curvature taken from three density values ``1e-4`` sd apart, inside a bracket that the
        slope's sign narrows at every step; once the middle value is the largest, the peak is
        within ``1e-4`` sd and the parabola's vertex within about ``1e-8`` sd of it; or, once
        two steps show Newton's quadratic convergence and the error they leave, about
        ``e1^3 / e0^2`` for steps ``e0`` then ``e1``, is below ``1e-6`` sd, the last step's
        end point is taken (typically within 1e-8 sd of the peak). Otherwise the density is scanned in standardised coordinates, the bracket around the best point
        is zoomed into (each zoom one vectorised evaluation of 33 points), and a parabola
        through the last three points gives the maximum to far below ``1e-6`` standard
        deviations. The support boundaries are candidates too (a perfect classifier under a
        flat prior has its density maximal at 1).
        """
        lo_s, hi_s = self._support
        sd = self.std()
        self._prepare()
        if self._unimodal:
            return self._log_concave_mode(lo_s, hi_s, sd)
        z = np.linspace(-6.0, 6.0, 25)
        xs = np.unique(np.concatenate([np.clip(self._mean + sd * z, lo_s, hi_s), [lo_s, hi_s]]))
        for _ in range(2):
            f = self._combine(xs, ("pdf",))["pdf"]
            k = int(np.argmax(f))
            a = float(xs[max(k - 1, 0)])
            b = float(xs[min(k + 1, xs.size - 1)])
            if b - a <= 1e-4 * sd:
                break
            xs = np.linspace(a, b, 17)
        f = self._combine(xs, ("pdf",))["pdf"]
        k = int(np.argmax(f))
        best = float(xs[k])
        if 0 < k < xs.size - 1:
            x0, x1, x2 = xs[k - 1 : k + 2]
            f0, f1, f2 = f[k - 1 : k + 2]
            den = (x1 - x0) * (f1 - f2) - (x1 - x2) * (f1 - f0)
            if den != 0:
                num = (x1 - x0) ** 2 * (f1 - f2) - (x1 - x2) ** 2 * (f1 - f0)
                cand = x1 - 0.5 * num / den
                if x0 < cand < x2:
                    best = float(cand)
        return best

    def _log_concave_mode(self, lo_s: float, hi_s: float, sd: float) -> float:
        """Maximum of a log-concave density (see :meth:`mode`)."""
        return drive(
            self._mode_rounds(lo_s, hi_s, sd), lambda x: self._combine(x, ("pdf",))["pdf"]
        )

    def _mode_rounds(self, lo_s: float, hi_s: float, sd: float):
        """Rounds of :meth:`_log_concave_mode`: yields three points, receives their densities."""
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
                tail = _unit(np.where(up, v["sf"][:n], v["cdf"][:n]))
                reply = (tail, np.maximum(v["pdf"][:n], 0.0))
                replies["q"] = reply + (v["dpdf"][:n],) if slope else reply
                i = n
            if "m" in requests:
                replies["m"] = v["pdf"][i : i + 3]
                i += 3
            if ask_p:
                p_above = float(_unit(v["sf"][i]))
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
    """

    def __init__(self, a, b, w, *, resolution: float = _RHO) -> None:
        a = np.atleast_1d(np.asarray(a, dtype=float))
        b = np.atleast_1d(np.asarray(b, dtype=float))
        w = np.atleast_1d(np.asarray(w, dtype=float))
        if not (a.shape == b.shape == w.shape) or a.ndim != 1 or a.size == 0:
            raise BaccError("a, b and w must be 1-D arrays of the same, non-zero length")
        ab = np.concatenate([a, b])
        if not (np.isfinite(ab).all() and np.isfinite(w).all()):
            raise BaccError("Beta parameters and weights must be finite")
        if not (ab > 0).all():
            raise BaccError("Beta parameters must be > 0")
        if not w.all():
            raise BaccError("weights must be non-zero (leave such components out)")
        if not (resolution >= 1):
            raise BaccError("resolution must be >= 1")
        self._a_in, self._b_in, self._w_in = a, b, w
        # reflect negative weights: w X = w + |w| (1 - X), 1 - X ~ Beta(b, a)
        neg = w < 0
        self._shift = float(np.sum(w[neg]))
        self._a = np.where(neg, b, a)
        self._b = np.where(neg, a, b)
        self._w = np.abs(w)
        mu, var, m3 = _beta_moments(self._a, self._b)
        self._cmean = self._w * mu
        self._cvar = self._w**2 * var
        self._mean = float(np.sum(w * (a / (a + b))))
        self._var = float(np.sum(self._cvar))
        self._m3 = float(np.sum(np.where(neg, -1.0, 1.0) * self._w**3 * m3))
        self._k4 = float(np.sum(self._w**4 * _beta_k4(self._a, self._b)))
        self._resolution = float(resolution)
        # Beta densities with both parameters >= 1 are log-concave, and so is their sum
        self._unimodal = bool(np.all(self._a >= 1.0) and np.all(self._b >= 1.0))
        self._support = (float(np.sum(np.minimum(w, 0.0))), float(np.sum(np.maximum(w, 0.0))))
        self._prepared = False

    @property
    def components(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, w)`` of the components, as given."""
        return self._a_in.copy(), self._b_in.copy(), self._w_in.copy()

    # ------------------------------------------------------------------------------------------
    def _prepare(self) -> None:
        if self._prepared:
            return
        sd = np.sqrt(self._cvar)
        order = np.argsort(sd, kind="stable")
        ib = int(order[-1])
        self._ib = ib
        self._b_logbeta = float(sc.betaln(self._a[ib], self._b[ib]))
        rest = [int(i) for i in order[:-1]]
        # fold in components that are negligible next to the rest of R
        folded_mean = 0.0
        lattice_ids: list[int] = []
        if rest:
            var_rest = float(np.sum(self._cvar[rest]))
            for i in rest:  # ascending spread
                others = var_rest - self._cvar[i]
                if others > 0 and sd[i] < _TINY * np.sqrt(others):
                    folded_mean += self._cmean[i]
                else:
                    lattice_ids.append(i)
        self._offset = self._shift + folded_mean
        self._pair = None
        self._grid = None
        if len(lattice_ids) == 1:
            # two components: exact one-dimensional quadrature
            ir = lattice_ids[0]
            self._pair = PairSums(
                self._a[ib], self._b[ib], self._w[ib], self._a[ir], self._b[ir], self._w[ir]
            )
            self._has_slope = True
        elif lattice_ids:
            from ._grid import GridTable

            self._grid = GridTable(self._a, self._b, self._w, ib, lattice_ids, 2 * self._resolution)
        self._prepared = True

    def _b_values(self, z, kinds):
        """Values of the cdf / sf / pdf of the single component ``w * Beta(a, b)`` at z."""
        i = self._ib
        a, b, w = self._a[i], self._b[i], self._w[i]
        t = np.clip(z / w, 0.0, 1.0)
        out = {}
        if "cdf" in kinds or "sf" in kinds:
            out["cdf"], out["sf"] = _beta.beta_tails(a, b, t)
        if "pdf" in kinds:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                logf = sc.xlogy(a - 1.0, t) + sc.xlog1py(b - 1.0, -t) - self._b_logbeta
                f = np.exp(logf) / w
            out["pdf"] = np.where((z < 0) | (z > w), 0.0, f)
        return out

    def _combine(self, x, kinds):
        """Values of the requested functions (cdf, sf, pdf) at x."""
        x = np.asarray(x, dtype=float) - self._offset
        if self._pair is not None:
            return self._pair.values(x, kinds)
        if self._grid is not None:
            return self._grid.values(x, kinds)
        return self._b_values(x, kinds)

    def _table_start(self, target, upper):
        if self._grid is None:
            return None
        return self._grid.table_quantile(target, upper) + self._offset

    def mode(self) -> float:
        if self._a.size == 1:
            return self._shift + self._w[0] * beta_mode(self._a[0], self._b[0])
        return super().mode()

    mode.__doc__ = SumDistribution.mode.__doc__

    def _direct_quantile(self, q, upper):
        """Quantiles of a single component: the verified Beta quantiles, scaled."""
        if self._a.size != 1:
            return None
        f = _beta.beta_isf if upper else _beta.beta_ppf
        return self._shift + self._w[0] * f(q, self._a[0], self._b[0])

    def rvs(self, size=None, random_state=None):
        """Random draws (Monte Carlo; never used by default computations)."""
        rng = np.random.default_rng(random_state)
        shape = () if size is None else (size if isinstance(size, tuple) else (int(size),))
        draws = rng.beta(self._a_in, self._b_in, size=shape + (self._a_in.size,))
        out = draws @ self._w_in
        return float(out) if size is None else out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(components={self._a_in.size}, mean={self._mean:.6g}, std={self.std():.3g})"


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


def _tanh_sinh_rule(step: float = 1.0 / 16.0, tmax: float = 4.2):
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


_TS_LEFT, _TS_RIGHT, _TS_W = _tanh_sinh_rule()


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

    def __init__(self, aB, bB, wB, aR, bR, wR) -> None:
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

    def _full_nodes(self):
        """Gauss-Legendre nodes over R's whole span, per sum: (left, right distances, weights)."""
        if self._full is None:
            P = self.P
            _, fw, dl, dr, _ = _pair_nodes(P["tlo"], P["thi"], P, _GL_RULE)
            self._full = (dl, dr, fw)
        return self._full

    def values(self, x, kinds, which=None):
        """cdf / sf / pdf at ``x``; ``which[i]`` is the sum that ``x[i]`` belongs to.

        ``which=None`` means every x belongs to the first (or only) sum. The slope of the
        density (``"dpdf"``) is NaN for sums where it would need boundary terms (a parameter
        of B <= 1).
        """
        out = self._values(np.asarray(x, dtype=float), kinds, which)
        if "dpdf" in kinds and not self.slope_ok.all():
            ok = self.slope_ok if which is None else self.slope_ok[which]
            out["dpdf"] = np.where(ok, out["dpdf"], np.nan)
        return out

    def _values(self, x, kinds, which):
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
            return self._full_sum(x, t1, t2, sums, kinds, slice(None))
        cut = smooth & (lo_out | int_b) & (hi_out | int_a) & ~full
        n = x.size
        out = {k: np.empty(n) for k in kinds}
        rows_f, rows_c = np.flatnonzero(full), np.flatnonzero(cut)
        rows_t = np.flatnonzero(~(full | cut))
        if rows_c.size:
            # Gauss-Legendre rows: cut ones with their own nodes, full ones with the cached
            # nodes, summed in one pass
            sB, one_sB, fw, Pr, base = self._nodes_on_cut(x, t1, t2, sums, rows_c, _GL_RULE)
            if rows_f.size:
                sBf, one_sBf, fwf, Pf = self._full_nodes_at(t1, t2, sums, rows_f)
                zero = np.zeros(rows_f.size)
                sB, one_sB, fw, b0, b1 = (
                    np.concatenate(v)
                    for v in ((sB, sBf), (one_sB, one_sBf), (fw, fwf), (base[0], zero), (base[1], zero))
                )
                base = (b0, b1)
                if self._many:
                    Pr = {key: np.concatenate([Pr[key], Pf[key]]) for key in Pr}
                rows_c = np.concatenate([rows_c, rows_f])
            vals = _pair_sum(x[rows_c], sB, one_sB, fw, Pr, kinds, base)
            for k in kinds:
                out[k][rows_c] = vals[k]
        elif rows_f.size:
            vals = self._full_sum(x, t1, t2, sums, kinds, rows_f)
            for k in kinds:
                out[k][rows_f] = vals[k]
        if rows_t.size:
            sB, one_sB, fw, Pr, base = self._nodes_on_cut(x, t1, t2, sums, rows_t, None)
            vals = _pair_sum(x[rows_t], sB, one_sB, fw, Pr, kinds, base)
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

    def _full_sum(self, x, t1, t2, sums, kinds, rows):
        sB, one_sB, fw, Pr = self._full_nodes_at(t1, t2, sums, rows)
        return _pair_sum(x[rows], sB, one_sB, fw, Pr, kinds)


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


def _pair_sum(x, sB, one_sB, fw, P, kinds, base=None):
    """Sum of the quadrature: ``F_B(s(t))`` (or its complement, or ``f_B``) times R's weights.

    ``sB`` and ``one_sB`` are ``s(t)`` and ``1 - s(t)``, each computed from its own end point;
    the smaller of the two is the accurate one. ``base = (P(R <= c), P(R > d))``, R's mass
    below and above the integration range, is added to the cdf and the sf: below ``c = t2``
    the function ``F_B(s(t))`` is 1, above ``d = t1`` it is 0; where the range is R's span
    instead, that mass is below 1e-14 (and it is left out for the whole-span rule).
    """
    small = sB <= 0.5
    s_acc = _unit(np.where(small, sB, 1.0 - one_sB))
    one_s = _unit(np.where(small, 1.0 - sB, one_sB))
    aB, bB = P["aB"][:, None], P["bB"][:, None]
    out = {}
    if "cdf" in kinds or "sf" in kinds:
        # one incomplete beta per node, in the tail where it is accurate:
        # v = F_B(s) where s <= 1/2, else 1 - F_B(s) = I_{1-s}(b, a)
        v = sc.betainc(np.where(small, aB, bB), np.where(small, bB, aB), np.where(small, s_acc, one_s))
        if "cdf" in kinds:
            out["cdf"] = np.sum(np.where(small, v, 1.0 - v) * fw, axis=1)
        if "sf" in kinds:
            out["sf"] = np.sum(np.where(small, 1.0 - v, v) * fw, axis=1)
        if base is not None:
            if "cdf" in kinds:
                out["cdf"] += base[0]
            if "sf" in kinds:
                out["sf"] += base[1]
    if "pdf" in kinds or "dpdf" in kinds:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            logfB = sc.xlogy(aB - 1.0, s_acc) + sc.xlogy(bB - 1.0, one_s) - P["lbB"][:, None]
            terms = np.exp(logfB) * fw
            if "dpdf" in kinds:
                # d/ds of B's density: f_B(s) ((a - 1) / s - (b - 1) / (1 - s))
                dterms = terms * ((aB - 1.0) / s_acc - (bB - 1.0) / one_s)
        out["pdf"] = np.sum(np.where(np.isfinite(terms), terms, 0.0), axis=1) / P["wB"]
        if "dpdf" in kinds:
            wB2 = P["wB"] * P["wB"]
            out["dpdf"] = np.sum(np.where(np.isfinite(dterms), dterms, 0.0), axis=1) / wB2
    return out


def _unit(v):
    """Clip to [0, 1] (a ufunc pair: cheaper than ``np.clip`` on small arrays)."""
    return np.minimum(np.maximum(v, 0.0), 1.0)


def _fft_size(n: int) -> int:
    from scipy.fft import next_fast_len

    return int(next_fast_len(int(n), real=True))
