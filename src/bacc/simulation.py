"""Coverage simulator: how often does each interval method keep its promise?

Draw many test sets from a known truth (class sizes ``n_i`` and class accuracies ``p_i``:
``k_i ~ Binomial(n_i, p_i)``, independent), apply each interval method to every simulated
confusion matrix and count how often the interval contains the true balanced accuracy
``sum_i w_i p_i`` (or accuracy ``sum_i n_i p_i / sum_i n_i``). A method "sold as exact" must
reach the nominal confidence (Sandler & Dirac (2024): "the computed upper bounds will in fact be larger than
the respective classifiers' true accuracies in 95% of these encountered cases").

Everything is vectorised over simulations: all ``k_i`` are drawn at once, and every method is
computed once per *distinct* count (per class, at most ``n_i + 1`` of them; for the posterior and
the Buehler bound, per distinct outcome), then mapped back to the simulations.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ._engine.beta import beta_isf, beta_ppf
from ._engine.bounds.buehler import BUEHLER_MAX_SUPPORT, buehler_bounds
from ._engine.bounds.per_class import (
    balanced_wald,
    cp_bounds,
    jeffreys_bounds,
    per_bound_alpha,
    tail_level,
    wald_bounds,
    wilson_bounds,
)
from ._engine.helpers.deprecation import renamed_arguments
from ._engine.helpers.validate import (
    MAX_SIMULATIONS,
    _short,
    check_confidence,
    check_count_limit,
    check_int,
    check_metric,
    check_prior,
    check_random_state,
    check_sides,
    check_weights,
)
from .confusion import ConfusionMatrix
from .errors import BaccError
from .progress import Progress

__all__ = ["COVERAGE_METHODS", "CoverageResult", "MethodCoverage", "coverage"]

_DELAY = 0.5  # seconds before a progress bar appears

#: Methods with guaranteed coverage (frequentist exact).
EXACT_COVERAGE_METHODS = ("union", "sidak", "buehler", "clopper-pearson")
#: All named methods of :func:`coverage`.
COVERAGE_METHODS = EXACT_COVERAGE_METHODS + ("wald", "wilson", "jeffreys", "bayes")

_PER_CLASS = {
    "clopper-pearson": cp_bounds,
    "union": cp_bounds,
    "sidak": cp_bounds,
    "wald": wald_bounds,
    "wilson": wilson_bounds,
    "jeffreys": jeffreys_bounds,
}


# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MethodCoverage:
    """Simulated frequentist behaviour of one interval method.

    Attributes
    ----------
    method : str
    exact : bool
        The method claims coverage >= nominal for every truth.
    coverage : float
        Share of simulated test sets whose interval contains the truth.
    mc_se : float
        Monte Carlo standard error of ``coverage``, ``sqrt(c (1 - c) / n_sim)``.
    mean_width : float
        Mean of ``upper - lower``.
    share_outside : float
        Share of intervals that leave [0, 1].
    miss_low : float
        Share with the truth below the interval (lower bound too high).
    miss_high : float
        Share with the truth above the interval (upper bound too low).
    seconds : float
        Time spent computing this method's intervals.
    """

    method: str
    exact: bool
    coverage: float
    mc_se: float
    mean_width: float
    share_outside: float
    miss_low: float
    miss_high: float
    seconds: float

    def keeps_promise(self, confidence: float, n_se: float = 3.0) -> bool:
        """True if ``coverage >= confidence - n_se * mc_se`` (nominal within Monte Carlo error)."""
        return self.coverage >= confidence - n_se * self.mc_se

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "method": self.method,
            "exact": bool(self.exact),
            "coverage": float(self.coverage),
            "mc_se": float(self.mc_se),
            "mean_width": float(self.mean_width),
            "share_outside": float(self.share_outside),
            "miss_low": float(self.miss_low),
            "miss_high": float(self.miss_high),
            "seconds": float(self.seconds),
        }

    def __repr__(self) -> str:
        from .display.numbers import repr_number
        return (f"<MethodCoverage: {self.method} covers {repr_number(self.coverage)} "
                f"(Monte Carlo error {self.mc_se:.2g}), mean width {repr_number(self.mean_width)}"
                f"{', exact' if self.exact else ''}>")

    def _repr_html_(self) -> str:
        from .display.html import summary_html

        return summary_html(self)


@dataclass(frozen=True)
class CoverageResult:
    """Result of :func:`coverage`: one :class:`MethodCoverage` per method.

    Index by method name: ``result["union"].coverage``.
    """

    methods: tuple[MethodCoverage, ...]
    class_sizes: tuple[int, ...]
    true_class_accuracies: tuple[float, ...]
    true_value: float
    confidence: float
    n_sim: int
    sides: str
    metric: str
    weights: tuple[float, ...]
    prevalence: float | tuple[float, ...] | None = None

    def __getitem__(self, name: str) -> MethodCoverage:
        for m in self.methods:
            if m.method == name:
                return m
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        """Method names, in order."""
        return tuple(m.method for m in self.methods)

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "class_sizes": [int(n) for n in self.class_sizes],
            "true_class_accuracies": [float(p) for p in self.true_class_accuracies],
            "true_value": float(self.true_value),
            "confidence": float(self.confidence),
            "n_sim": int(self.n_sim),
            "sides": self.sides,
            "metric": self.metric,
            "weights": [float(w) for w in self.weights],
            "prevalence": (list(self.prevalence) if isinstance(self.prevalence, tuple)
                           else self.prevalence),
            "methods": [m.to_dict() for m in self.methods],
        }

    def __repr__(self) -> str:
        """One line: what was simulated and the coverage of each method (``print()`` gives the
        table)."""
        from .display.numbers import repr_level, repr_number
        what = self.metric.replace("_", " ")
        shown = ", ".join(f"{m.method} {repr_number(m.coverage)}" for m in self.methods[:6])
        more = f", ... {len(self.methods) - 6} more" if len(self.methods) > 6 else ""
        return (
            f"<CoverageResult: coverage of {repr_level(self.confidence)} intervals of the {what} "
            f"(true value {self.true_value:.4g}) over {self.n_sim} simulated test sets: "
            f"{shown}{more}>"
        )

    def __str__(self) -> str:
        from .display.text import coverage_text

        return coverage_text(self)

    def _repr_html_(self) -> str:
        from .display.html import coverage_html

        return coverage_html(self)


# ----------------------------------------------------------------------------------------------
def _tabulate(k_col: np.ndarray, n_i: int, fn: Callable) -> tuple[np.ndarray, np.ndarray]:
    """Apply ``fn(values, n_i) -> (lo, hi)`` once per distinct count of one class."""
    if n_i <= 4 * k_col.size + 1024:
        present = np.flatnonzero(np.bincount(k_col, minlength=n_i + 1))
        lo_t = np.zeros(n_i + 1)
        hi_t = np.ones(n_i + 1)
        lo_t[present], hi_t[present] = fn(present, n_i)
        return lo_t[k_col], hi_t[k_col]
    uniq, inv = np.unique(k_col, return_inverse=True)
    lo_u, hi_u = fn(uniq, n_i)
    return np.asarray(lo_u)[inv], np.asarray(hi_u)[inv]


def _averaged(k, n, w, alpha, sides, kernel) -> tuple[np.ndarray, np.ndarray]:
    """Weighted average of per-class bounds (union construction, Sandler & Dirac (2024))."""
    lower = np.zeros(k.shape[0])
    upper = np.zeros(k.shape[0])
    def per_class(v, ni):
        return kernel(v, ni, alpha, sides)

    for i in range(k.shape[1]):
        lo, hi = _tabulate(k[:, i], int(n[i]), per_class)
        lower += w[i] * lo
        upper += w[i] * hi
    return lower, upper


def _distinct_rows(k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if k.shape[1] == 2:
        key = k[:, 0].astype(np.int64) * (int(k[:, 1].max()) + 1) + k[:, 1]
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        return k[first], inv.ravel()
    rows, inv = np.unique(k, axis=0, return_inverse=True)
    return rows, inv.ravel()


def _bayes_balanced(k, n, w, confidence, sides, prior) -> tuple[np.ndarray, np.ndarray]:
    try:
        from .posterior import posterior_balanced_accuracy
    except ImportError as exc:  # pragma: no cover - depends on the build
        raise BaccError(f"method 'bayes' needs bacc.posterior ({exc})") from None
    rows, inv = _distinct_rows(k)
    m = k.shape[1]
    lo_u = np.empty(rows.shape[0])
    hi_u = np.empty(rows.shape[0])
    for r, kr in enumerate(rows):
        counts = np.zeros((m, m), dtype=np.int64)
        counts[np.arange(m), np.arange(m)] = kr
        counts[np.arange(m), (np.arange(m) + 1) % m] += n - kr
        post = posterior_balanced_accuracy(ConfusionMatrix(counts), prior=prior, weights=w)
        if sides == "two":
            lo_u[r], hi_u[r] = post.interval(confidence)
        elif sides == "lower":
            lo_u[r], hi_u[r] = float(post.ppf(1.0 - confidence)), 1.0
        else:
            lo_u[r], hi_u[r] = 0.0, float(post.isf(1.0 - confidence))
    return lo_u[inv], hi_u[inv]


def _bayes_accuracy(kt, nt, alpha, sides, prior) -> tuple[np.ndarray, np.ndarray]:
    a0, b0 = prior

    def fn(v, ni):
        v = np.asarray(v, dtype=float)
        lo = beta_ppf(alpha, v + a0, ni - v + b0) if sides != "upper" else np.zeros(v.shape)
        hi = beta_isf(alpha, v + a0, ni - v + b0) if sides != "lower" else np.ones(v.shape)
        return lo, hi

    return _tabulate(kt, nt, fn)


def _buehler_sim(k, n, w, alpha, sides) -> tuple[np.ndarray, np.ndarray]:
    if k.shape[1] != 2:
        raise BaccError("method 'buehler' is implemented for two classes")
    if n.max() > BUEHLER_MAX_SUPPORT:
        raise BaccError(f"method 'buehler' needs at most {BUEHLER_MAX_SUPPORT} examples per class")
    if w[0] == w[1]:
        # the bound depends on the statistic k1 n2 + k2 n1 only
        key = k[:, 0].astype(np.int64) * int(n[1]) + k[:, 1].astype(np.int64) * int(n[0])
        _, first, inv = np.unique(key, return_index=True, return_inverse=True)
        rows, inv = k[first], inv.ravel()
    else:
        rows, inv = _distinct_rows(k)
    lo_u, hi_u = buehler_bounds(rows, n, w, alpha, sides)
    est = (k / n) @ w
    return np.minimum(lo_u[inv], est), np.maximum(hi_u[inv], est)


def _custom_bounds(method: Callable, k, n, confidence, sides) -> tuple[np.ndarray, np.ndarray]:
    """A callable method's ``(lower, upper)``, checked: two arrays of one number per simulated
    test set (shape ``(n_sim,)``; a single number stands for every test set), else a :class:`BaccError` naming the function and the shapes
    expected and received."""
    name = getattr(method, "__name__", None) or "the custom method"
    label = name if name == "the custom method" else f"custom method {name!r}"
    out = method(k, n, confidence, sides)
    try:
        lo, hi = out
    except (TypeError, ValueError):
        raise BaccError(f"{label} must return a pair (lower, upper); it returned "
                        f"{type(out).__name__} {str(out)[:60]!r}") from None
    bounds = []
    for part, v in (("lower", lo), ("upper", hi)):
        try:
            arr = np.asarray(v, dtype=float)
        except (TypeError, ValueError):
            raise BaccError(f"{label} must return numbers; its {part} bounds are "
                            f"{type(v).__name__} {str(v)[:60]!r}") from None
        if arr.ndim == 0:  # one bound for every test set
            arr = np.full(k.shape[0], float(arr))
        if arr.shape != (k.shape[0],):
            what = f"an array of shape {arr.shape}"
            raise BaccError(f"{label} must return one {part} bound per simulated test set: given "
                            f"k of shape {k.shape} it must return shape ({k.shape[0]},), but "
                            f"returned {what}")
        bounds.append(arr)
    return bounds[0], bounds[1]


def _intervals(method, k, n, w, confidence, sides, metric, prior):
    alpha = tail_level(confidence, sides)
    m = k.shape[1]
    if callable(method):
        return _custom_bounds(method, k, n, confidence, sides)
    if metric == "precision":
        return _precision_union(k, n, confidence, sides, prior)
    if metric == "accuracy":
        kt = k.sum(axis=1)
        nt = int(n.sum())
        if method == "bayes":
            return _bayes_accuracy(kt, nt, alpha, sides, (float(prior[0]), float(prior[1])))
        kernel = _PER_CLASS["clopper-pearson" if method in EXACT_COVERAGE_METHODS else method]
        return _tabulate(kt, nt, lambda v, ni: kernel(v, ni, alpha, sides))
    if method in ("union", "sidak"):
        a = per_bound_alpha(confidence, m, sides, method)
        return _averaged(k, n, w, a, sides, cp_bounds)
    if method in ("wilson", "jeffreys"):
        a = per_bound_alpha(confidence, m, sides, "union")
        return _averaged(k, n, w, a, sides, _PER_CLASS[method])
    if method == "wald":
        return balanced_wald(k, n, w, alpha, sides)
    if method == "buehler":
        return _buehler_sim(k, n, w, alpha, sides)
    if method == "bayes":
        return _bayes_balanced(k, n, w, confidence, sides, prior)
    raise BaccError(  # pragma: no cover - names are checked before
        f"method {method!r} is not available for the balanced accuracy"
    )


def _precision_union(k, n, confidence, sides, target):
    """The union interval of one class's precision (``target = (pi, i)``) for every simulated
    test set: :func:`bacc.prevalence.precision_union_bounds` on the counts of its column."""
    from .prevalence import precision_union_bounds

    pi, i = target
    return precision_union_bounds(k, n, pi, i, confidence, sides)


def _precision_truth(class_sizes, rates, prevalence, label):
    """Validated truth of a precision coverage study: class sizes, class accuracies (the
    diagonal), the rates of the class's column, the prevalence vector and the class index."""
    from .prevalence import prevalence_shares

    try:
        R = np.asarray(rates, dtype=float)
    except (TypeError, ValueError):
        raise BaccError("true_class_accuracies must be numbers") from None
    if R.ndim == 2:
        l = R.shape[0]
        if R.shape != (l, l) or l < 2:
            raise BaccError(f"true_class_accuracies as a matrix of row rates must be square, "
                            f"got shape {R.shape}")
        if np.any(~np.isfinite(R)) or np.any((R < 0) | (R > 1)) or np.any(
                np.abs(R.sum(axis=1) - 1.0) > 1e-9):
            raise BaccError("true_class_accuracies as a matrix: rates in [0, 1], each row "
                            "summing to 1")
        n, p = _check_truth(class_sizes, np.diag(R))
    else:
        n, p = _check_truth(class_sizes, R)
        if n.size != 2:
            raise BaccError("metric='precision' with more than two classes needs "
                            "true_class_accuracies as the matrix of true row rates")
        R = np.array([[p[0], 1.0 - p[0]], [1.0 - p[1], p[1]]])
    l = n.size
    if label is None:
        label = l - 1
    if isinstance(label, bool) or not isinstance(label, int | np.integer) or not 0 <= label < l:
        raise BaccError(f"label must be a class index from 0 to {l - 1}, got {label!r}")
    if prevalence is None:
        raise BaccError("metric='precision' needs prevalence= (the share of positives, or one "
                        "share per class)")
    pi = prevalence_shares(prevalence, l)
    if pi[label] == 0:
        raise BaccError(f"class {label} has prevalence 0: its precision is undefined")
    column = R[:, label]
    if pi @ column == 0:
        raise BaccError("the true precision is 0/0: no class is ever predicted as this one")
    return n, p, column, pi, int(label)


def _check_methods(methods, metric: str) -> list:
    if isinstance(methods, str) or callable(methods):
        methods = [methods]
    try:
        methods = list(methods)
    except TypeError:
        raise BaccError(
            f"methods must be a method name or a list of them, got {methods!r}"
        ) from None
    if not methods:
        raise BaccError("methods is empty; name at least one method")
    for m in methods:
        if callable(m):
            continue
        if not isinstance(m, str) or m not in COVERAGE_METHODS:
            choices = ", ".join(repr(x) for x in COVERAGE_METHODS)
            raise BaccError(f"unknown coverage method {m!r}; choose from {choices} or a callable")
        if metric == "precision" and m != "union":
            raise BaccError("for metric='precision' the method is 'union' (or a callable)")
        if metric == "balanced_accuracy" and m == "clopper-pearson":
            raise BaccError(
                "method 'clopper-pearson' is for metric='accuracy'; for the balanced accuracy "
                "use 'union', 'sidak' or 'buehler'"
            )
    names = [_name(m) for m in methods]
    if len(set(names)) != len(names):
        raise BaccError(f"methods must be distinct, got {names!r}")
    return methods


def _name(m) -> str:
    return m if isinstance(m, str) else getattr(m, "__name__", repr(m))


def _check_truth(class_sizes, true_class_accuracies) -> tuple[np.ndarray, np.ndarray]:
    try:
        n = np.asarray(class_sizes)
        p = np.asarray(true_class_accuracies, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(
            "class_sizes and true_class_accuracies must be sequences of numbers"
        ) from None
    if n.ndim != 1 or n.size == 0:
        raise BaccError(f"class_sizes must be a non-empty 1-D sequence, got shape {n.shape}")
    if n.dtype.kind not in "iuf" or not np.all(np.isfinite(n)) or np.any(n != np.round(n)) or np.any(n < 1):
        raise BaccError(f"class_sizes must be whole numbers >= 1, got {_short(class_sizes)}")
    check_count_limit(n[:, None], "class_sizes")
    if p.shape != n.shape:
        raise BaccError(
            f"true_class_accuracies needs one value per class ({n.size}), got shape {p.shape}"
        )
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise BaccError(f"true_class_accuracies must lie in [0, 1], got {true_class_accuracies!r}")
    return n.astype(np.int64), p


@renamed_arguments(n_sim="n_simulations")
def coverage(
    methods: str | Callable | Sequence,
    class_sizes: Sequence[int],
    true_class_accuracies: Sequence[float],
    *,
    confidence: float = 0.95,
    n_simulations: int = 100_000,
    random_state=0,
    metric: str = "balanced_accuracy",
    sides: str = "two",
    weights=None,
    prior=(1.0, 1.0),
    progress: bool = False,
    prevalence=None,
    label: int | None = None,
) -> CoverageResult:
    """Simulate test sets from a known truth and measure each interval method's coverage.

    Parameters
    ----------
    methods : str, callable or sequence of them
        Named methods: ``"union"``, ``"sidak"``, ``"buehler"`` (exact, balanced accuracy),
        ``"clopper-pearson"`` (exact, accuracy), ``"wald"``, ``"wilson"``, ``"jeffreys"``
        (approximate; see :func:`bacc.approx_interval`) and ``"bayes"`` (central credible interval of the
        posterior, ``bacc.posterior_balanced_accuracy(...).interval(confidence)``). A callable
        ``f(k, n, confidence, sides) -> (lower, upper)`` receives the simulated correct counts
        ``k`` (int array, shape (n_simulations, l)) and the class sizes ``n`` (shape (l,)); with
        ``metric="precision"``, ``k`` holds the counts of the class's column, ``C[j, label]``.
    class_sizes : sequence of int
        Test examples per class ``n_i`` (>= 1).
    true_class_accuracies : sequence of float
        True class accuracies ``p_i`` in [0, 1].
    confidence : float
        Nominal coverage of the intervals.
    n_simulations : int
        Number of simulated test sets.
    random_state : None, int or numpy.random.Generator
        Seed or generator for :func:`numpy.random.default_rng` (default 0, so runs repeat; None
        draws fresh entropy).
    metric : {"balanced_accuracy", "accuracy", "precision"}
        Target: ``sum w_i p_i``, the accuracy ``sum n_i p_i / sum n_i`` (class sizes fixed), or
        the precision of one class at ``prevalence``. For two classes (negatives first,
        positives second) ``pi p_2 / (pi p_2 + (1 - pi)(1 - p_1))``; for any number of classes,
        give ``true_class_accuracies`` as the matrix ``R`` of true row rates (``R[j, i]``: the
        rate at which true class ``j`` is predicted as ``i``, rows summing to 1) and ``label``
        (the class's index, default the last): ``pi_i R[i, i] / sum_j pi_j R[j, i]``. Its
        method is ``"union"``, the exact interval of
        :func:`bacc.prevalence.precision_interval` (Clopper-Pearson bounds on the ``m`` rates
        of the class's column with a share ``pi_j > 0``, at ``delta / m`` each, mapped through
        the monotone formula). The simulated counts of that column are
        ``C[j, i] ~ Binomial(n_j, R[j, i])``, independent across rows.
    sides : {"two", "lower", "upper"}
    weights : array_like, optional
        Class weights of the balanced accuracy (default equal).
    prior : pair or sequence of pairs
        Beta prior of ``"bayes"`` (default flat).
    progress : bool
        Draw a progress bar (one step per method) on standard error when it is a terminal and
        the run takes more than half a second.
    prevalence : float or sequence of float, optional
        With ``metric="precision"``: the share of positives in the population the precision is
        for (two classes; strictly between 0 and 1), or one share per class summing to 1.
    label : int, optional
        With ``metric="precision"``: the index of the class whose precision is bounded
        (default: the last).

    Returns
    -------
    CoverageResult
        Per method: coverage with its Monte Carlo standard error, mean width, share of intervals
        leaving [0, 1], and the two kinds of miss.

    Notes
    -----
    ``k_i ~ Binomial(n_i, p_i)`` independently (the sampling model of Brodersen et al. 2010 and Sandler & Dirac 2024). Exact
    and table-based methods cost one evaluation per distinct count per class, so the simulation
    runs at millions of test sets per second; ``"bayes"`` and ``"buehler"`` cost one evaluation
    per distinct outcome. Coverage studies of this kind for one proportion are those of Brown,
    Cai & DasGupta (2001).

    References
    ----------
    .. [1] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, sections "Constructing a 95%
       upper confidence bound" and "Comparison with intervals based on the normal
       approximation".
    .. [2] Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
       proportion. Statistical Science 16, 101-133.
    .. [3] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124, section II.

    Examples
    --------
    A class with no errors (likely at ``p = 0.99``, ``n = 20``: ``0.99**20 = 0.82``) makes the
    Wald interval collapse to a point, so it misses often; the union bound does not:

    >>> import bacc
    >>> r = bacc.coverage(["union", "wald"], [20, 20], [0.99, 0.99], n_simulations=20000,
    ...                   random_state=0)
    >>> r["union"].coverage >= 0.95, r["wald"].coverage < 0.95
    (True, True)
    """
    c = check_confidence(confidence)
    if metric != "precision":
        check_metric(metric)
    check_sides(sides)
    meths = _check_methods(methods, metric)
    if metric == "precision":
        n, p, column, pi, label = _precision_truth(class_sizes, true_class_accuracies,
                                                   prevalence, label)
    else:
        n, p = _check_truth(class_sizes, true_class_accuracies)
        if prevalence is not None:
            raise BaccError("prevalence= goes with metric='precision'")
        if label is not None:
            raise BaccError("label= goes with metric='precision'")
    check_int(n_simulations, "n_simulations", 1, MAX_SIMULATIONS)
    w = check_weights(weights, n.size)
    if any(m == "bayes" for m in meths if isinstance(m, str)):
        a0, b0 = check_prior(prior, n.size)
        if metric == "accuracy" and (np.ptp(a0) > 0 or np.ptp(b0) > 0):
            raise BaccError("method 'bayes' for the accuracy needs one prior pair (a, b)")
        pr = prior if metric == "balanced_accuracy" else (a0[0], b0[0])
    else:
        pr = prior
    rng = check_random_state(random_state)

    if metric == "precision":
        truth = float(pi[label] * column[label] / (pi @ column))
        pr = (pi, label)
        # the counts of the class's column: C[j, label] of n_j
        k = rng.binomial(n, column, size=(int(n_simulations), n.size))
    else:
        truth = float(w @ p) if metric == "balanced_accuracy" else float(n @ p / n.sum())
        k = rng.binomial(n, p, size=(int(n_simulations), n.size))

    results = []
    with Progress(len(meths), "simulating", enabled=progress, delay=_DELAY) as bar:
        for meth in meths:
            t0 = time.perf_counter()
            lo, hi = _intervals(meth, k, n, w, c, sides, metric, pr)
            secs = time.perf_counter() - t0
            bar.advance()
            results.append(method_coverage(meth, lo, hi, truth, int(n_simulations), secs))
    return CoverageResult(
        methods=tuple(results),
        class_sizes=tuple(int(x) for x in n),
        true_class_accuracies=tuple(float(x) for x in p),
        true_value=truth,
        confidence=c,
        n_sim=int(n_simulations),
        sides=sides,
        metric=metric,
        weights=tuple(float(x) for x in w),
        prevalence=(None if metric != "precision" else
                    float(pi[1]) if pi.size == 2 else tuple(float(v) for v in pi)),
    )


def method_coverage(meth, lo, hi, truth: float, n_sim: int, secs: float,
                    exact: bool | None = None) -> MethodCoverage:
    """Coverage, widths and misses of one method's simulated intervals."""
    lo = np.broadcast_to(np.asarray(lo, dtype=float), (n_sim,))
    hi = np.broadcast_to(np.asarray(hi, dtype=float), (n_sim,))
    low = lo > truth
    high = hi < truth
    cov = 1.0 - float(np.mean(low | high))
    return MethodCoverage(
        method=_name(meth),
        exact=(isinstance(meth, str) and meth in EXACT_COVERAGE_METHODS) if exact is None else exact,
        coverage=cov,
        mc_se=math.sqrt(cov * (1.0 - cov) / n_sim),
        mean_width=float(np.mean(hi - lo)),
        share_outside=float(np.mean((lo < 0) | (hi > 1))),
        miss_low=float(np.mean(low)),
        miss_high=float(np.mean(high)),
        seconds=secs,
    )
