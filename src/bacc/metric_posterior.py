"""The posterior of every metric of :mod:`bacc.metrics`, under an explicit sampling design.

A confusion matrix is a sample; each metric of it (precision, F1, kappa, Matthews, G-mean,
...) estimates the same function of the population's cell probabilities ``P[i, j] = P(true i,
predicted j)``. Its posterior follows from the posterior of ``P``, which depends on how the
test set was drawn:

* ``design="stratified"`` (default, as in Brodersen et al. 2010 and Carrillo et al. 2014): the
  class totals were fixed; row ``i`` of the matrix is multinomial with the row probabilities
  ``R[i]``, and ``R[i] ~ Dirichlet(C[i] + alpha[i])`` independently. The prevalence ``pi`` is the
  test set's (``n_i / n``) unless ``prevalence=`` gives the one the classifier will meet;
  ``P = diag(pi) R``.
* ``design="random"`` (the test set is a random sample of the population): ``P ~
  Dirichlet(C + alpha)`` over all cells, so the prevalence is uncertain too.

The prior ``alpha`` puts 1 on each diagonal cell and ``1 / (l - 1)`` on each other cell of a
row, so that every class's recall has the flat prior ``Beta(1, 1)`` of :func:`bacc.evaluate`
(under both designs, by the aggregation property of the Dirichlet). Classes without true
examples are left out of the rows (their prevalence is 0), as for the balanced accuracy.

Exact where a closed form exists: the recall of a class is ``Beta(k_i + 1, n_i - k_i + 1)``
(both designs); the balanced accuracy is :class:`bacc.BetaSum`; under ``design="random"`` the
precision of class ``i`` is ``Beta(C_ii + 1, sum_j!=i (C_ji + alpha_ji))``; for two classes,
precision, NPV, F1 and accuracy at a fixed prevalence (the test set's or a given one) and the
balanced precision (precision at ``pi = 1/2``) are one-dimensional integrals over the
independent posteriors of sensitivity and false-positive rate (:mod:`bacc.prevalence`).
Every other metric is estimated from ``n_draws`` posterior draws of ``P`` (Monte Carlo), with
the Monte Carlo standard error of every number reported.

References
----------
.. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
   accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124.
.. [2] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance
   evaluation for multiclass classification using the posterior balanced accuracy. ROBOT2013,
   Advances in Intelligent Systems and Computing 252, 347-361, section 3 and Table 1.
.. [3] Burkman, B. (2021). Report of 28 June 2021, sections 2.4-2.5.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from . import metrics as _metrics
from ._engine.helpers.validate import (
    MAX_SIMULATIONS,
    check_choice,
    check_confidence,
    check_int,
    check_random_state,
    check_size,
)
from .confusion import ConfusionMatrix, as_confusion_matrix, included_classes
from .distributions import BetaPosterior, ContinuousDistribution
from .errors import BaccError
from .labels import class_index
from .prevalence import RateAtPrevalence, prevalence_shares, rate_value

__all__ = [
    "METRICS",
    "MetricPosterior",
    "SampleDistribution",
    "population_metric",
    "posterior_metric",
]

#: metric -> (per class, depends on the prevalence)
METRICS: dict[str, tuple[bool, bool]] = {
    "accuracy": (False, True),
    "balanced_accuracy": (False, False),
    "recall": (True, False),
    "specificity": (True, True),
    "precision": (True, True),
    "balanced_precision": (True, False),
    "f1": (True, True),
    "macro_f1": (False, True),
    "cohen_kappa": (False, True),
    "matthews": (False, True),
    "g_mean": (False, False),
    "informedness": (False, False),
}


# ----------------------------------------------------------------------------------------------
# metrics of the population's cell probabilities (vectorised over draws)
def population_metric(metric: str, P: np.ndarray) -> np.ndarray:
    """A metric of cell probabilities ``P`` (shape ``(..., l, l)``, rows = true class, each
    matrix summing to 1): the value the sample metric of :mod:`bacc.metrics` estimates.

    Rows with probability 0 (classes without true examples) are left out of the averages over
    classes, as the sample metrics leave out classes without examples.

    Returns
    -------
    ndarray, shape ``(...)`` or ``(..., l)`` for per-class metrics
    """
    P = np.asarray(P, dtype=float)
    r = P.sum(axis=-1)
    c = P.sum(axis=-2)
    d = np.diagonal(P, axis1=-2, axis2=-1)
    has = r > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(has, d / np.where(has, r, 1.0), np.nan)
        if metric == "recall":
            return recall
        if metric == "accuracy":
            return d.sum(axis=-1)
        if metric == "balanced_accuracy":
            return np.nanmean(recall, axis=-1)
        if metric == "g_mean":
            m = has.sum(axis=-1)
            return np.exp(np.nansum(np.log(recall), axis=-1) / m)
        if metric == "informedness":
            m = has.sum(axis=-1)
            return (np.nanmean(recall, axis=-1) - 1.0 / m) * m / (m - 1.0)
        if metric == "specificity":
            return (1.0 - r - c + d) / (1.0 - r)
        if metric == "precision":
            return d / c
        if metric == "balanced_precision":
            R = np.where(has[..., :, None], P / np.where(has, r, 1.0)[..., :, None], 0.0)
            return np.where(has, np.diagonal(R, axis1=-2, axis2=-1) / R.sum(axis=-2), np.nan)
        if metric == "f1":
            return 2 * d / (r + c)
        if metric == "macro_f1":
            f1 = 2 * d / (r + c)
            return np.nanmean(np.where(has | (c > 0), f1, np.nan), axis=-1)
        if metric == "cohen_kappa":
            pe = (r * c).sum(axis=-1)
            return (d.sum(axis=-1) - pe) / (1.0 - pe)
        if metric == "matthews":
            pe = (r * c).sum(axis=-1)
            return (d.sum(axis=-1) - pe) / np.sqrt((1.0 - (c * c).sum(axis=-1))
                                                   * (1.0 - (r * r).sum(axis=-1)))
    raise BaccError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")


def _prior(l: int) -> np.ndarray:
    """1 on the diagonal, ``1 / (l - 1)`` elsewhere: each recall's prior is Beta(1, 1)."""
    a = np.full((l, l), 1.0 / (l - 1))
    np.fill_diagonal(a, 1.0)
    return a


def _draw_P(C: np.ndarray, design: str, prevalence, n: int, rng) -> np.ndarray:
    """``n`` posterior draws of the cell probabilities, shape (n, l, l)."""
    l = C.shape[0]
    has = C.sum(axis=1) > 0
    alpha = np.where(has[:, None], C + _prior(l), 0.0)
    g = np.zeros((n, l, l))
    rows = np.flatnonzero(has)
    g[:, rows, :] = rng.gamma(alpha[rows], size=(n, rows.size, l))
    if design == "random":
        return g / g.sum(axis=(1, 2), keepdims=True)
    R = g / np.where(has, g.sum(axis=2), 1.0)[:, :, None]
    return R * prevalence[None, :, None]


# ----------------------------------------------------------------------------------------------
# a distribution known through draws
class SampleDistribution(ContinuousDistribution):
    """A posterior known through ``n`` independent draws (Monte Carlo).

    Every number it gives is an estimate; ``mean_se`` and :meth:`quantile_se` give their Monte
    Carlo standard errors. Quantiles are the approximately median-unbiased ones (Hyndman and
    Fan's definition 8), whose error is centred on zero in the tails too (the common linear
    interpolation, definition 7, is biased towards the median by about 0.6 of a spacing between
    draws: 0.06 standard errors at the 2.5% level of 5 000 draws, 0.19 of 1 000).

    References
    ----------
    .. [1] Hyndman, R. J. & Fan, Y. (1996). Sample quantiles in statistical packages. The
       American Statistician 50(4), 361-365 (definition 8).
    .. [2] Bofinger, E. (1975). Estimation of a density function using order statistics.
       Australian Journal of Statistics 17(1), 1-7 (the bandwidth of :meth:`quantile_se`).
    .. [3] Koenker, R. (2005). Quantile Regression. Cambridge University Press, section 3.4.2
       (the sparsity ``1 / f(Q(q))`` estimated by a difference quotient of sample quantiles).
    """

    def __init__(self, draws: np.ndarray, resample: Callable[[int, np.random.Generator], np.ndarray]) -> None:
        x = np.sort(np.asarray(draws, dtype=float))
        self._x = x[np.isfinite(x)]
        if self._x.size < 2:
            raise BaccError("the metric is undefined (0/0) in nearly every posterior draw")
        self.n_draws = int(self._x.size)
        self.n_undefined = int(x.size - self._x.size)
        self._resample = resample

    def __getstate__(self) -> dict:
        # the function that makes new draws travels when it can be pickled (bacc's metrics
        # can; a user's lambda cannot): otherwise the copy keeps its draws and every number
        # from them, and only :meth:`rvs` is refused
        state = dict(self.__dict__)
        try:
            pickle.dumps(self._resample)
        except (pickle.PicklingError, TypeError, AttributeError):
            state["_resample"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __deepcopy__(self, memo: dict):
        new = object.__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            # the draws are copied; the function that makes new ones is shared
            new.__dict__[key] = value if key == "_resample" else copy.deepcopy(value, memo)
        return new

    def support(self) -> tuple[float, float]:
        """Smallest and largest draw."""
        return float(self._x[0]), float(self._x[-1])

    def mean(self) -> float:
        """Mean of the draws."""
        return float(self._x.mean())

    def var(self) -> float:
        """Variance of the draws."""
        return float(self._x.var(ddof=1))

    @property
    def mean_se(self) -> float:
        """Monte Carlo standard error of the mean."""
        return float(self._x.std(ddof=1) / np.sqrt(self.n_draws))

    def cdf(self, x):
        """Share of draws at or below ``x``."""
        out = np.searchsorted(self._x, np.asarray(x, dtype=float), side="right") / self.n_draws
        return out if np.ndim(out) else float(out)

    def sf(self, x):
        """Share of draws above ``x``."""
        out = 1.0 - np.asarray(self.cdf(x))
        return out if np.ndim(out) else float(out)

    def ppf(self, q):
        """Quantiles of the draws (approximately median-unbiased: Hyndman and Fan's
        definition 8)."""
        q = np.asarray(q, dtype=float)
        if np.any((q < 0) | (q > 1) | np.isnan(q)):
            raise BaccError("quantile levels must lie in [0, 1]")
        out = np.quantile(self._x, q, method="median_unbiased")
        return out if np.ndim(out) else float(out)

    def isf(self, q):
        """Inverse survival function."""
        return self.ppf(1.0 - np.asarray(q, dtype=float))

    def quantile_se(self, q) -> np.ndarray:
        """Monte Carlo standard errors of the quantiles at levels ``q``.

        The sample ``q``-quantile of ``n`` independent draws has the standard error
        ``sqrt(q (1 - q) / n) / f(Q(q))``; the sparsity ``1 / f(Q(q))`` is the difference
        quotient ``(Q(q + b) - Q(q - b)) / (2 b)`` of the draws' quantiles, with Bofinger's
        bandwidth ``b = n^(-1/5) (4.5 phi(z)^4 / (2 z^2 + 1)^2)^(1/5)``, ``z = Phi^-1(q)``
        (at most half the distance to 0 or 1), which minimises the estimate's mean squared
        error. A window of ``b = sqrt(q (1 - q) / n)`` spans only ``2 sqrt(n q (1 - q))``
        draws (22 at the 2.5% level of 5 000): its standard errors scatter by about 20% and,
        being in the denominator, make the ratio of error to standard error heavy-tailed
        (root mean square 1.07 to 1.17 instead of 1).
        """
        from scipy.special import ndtri

        q = np.asarray(q, dtype=float)
        n = self.n_draws
        z = ndtri(np.clip(q, 1e-300, 1 - 1e-16))
        phi = np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
        b = n ** -0.2 * (4.5 * phi**4 / (2 * z * z + 1) ** 2) ** 0.2
        b = np.maximum(np.minimum(b, 0.5 * np.minimum(q, 1 - q)), 0.5 / n)
        lo = np.quantile(self._x, np.clip(q - b, 0, 1))
        hi = np.quantile(self._x, np.clip(q + b, 0, 1))
        return (hi - lo) / (2 * b) * np.sqrt(q * (1 - q) / n)

    def pdf(self, x):
        """Density estimate (Gaussian kernel, Silverman's bandwidth)."""
        from scipy.stats import gaussian_kde

        sub = self._x[:: max(1, self.n_draws // 20000)]
        out = gaussian_kde(sub)(np.atleast_1d(np.asarray(x, dtype=float)))
        return out if np.ndim(x) else float(out[0])

    def mode(self) -> float:
        """Highest point of the density estimate."""
        grid = np.linspace(*self.ppf([0.001, 0.999]), 512)
        return float(grid[int(np.argmax(self.pdf(grid)))])

    def rvs(self, size=None, random_state=None):
        """New posterior draws (not the stored ones)."""
        if self._resample is None:
            raise BaccError("new draws need the metric's function, which could not be pickled "
                            "with this result (a lambda or a local function); the stored draws "
                            "and every number from them are kept")
        rng = check_random_state(random_state)
        shape = check_size(size)
        k = int(np.prod(shape)) if shape else 1
        out = self._resample(k, rng)
        return out.reshape(shape) if shape else float(out[0])


# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class MetricPosterior:
    """The posterior of one metric (one class's, or the metric of the whole matrix).

    Attributes
    ----------
    metric : str
    label : object or None
        The class of a per-class metric.
    design : {"stratified", "random"}
    prevalence : tuple of float or None
        The prevalence used (stratified design), per class.
    sample : float
        The sample value (:mod:`bacc.metrics`); with ``prevalence=``, the plug-in value at that
        prevalence (the test set's row rates, reweighted).
    distribution : distribution object
        The posterior: ``cdf, sf, pdf, ppf, isf, mean, var, std, median, mode, interval, rvs``.
    exact : bool
        Computed exactly (closed form or one-dimensional quadrature); False: Monte Carlo.
    method : str
        How, in words.
    confidence : float
    mean, median, lower, upper : float
        Posterior mean, median and central credible interval.
    mc_se : dict or None
        Monte Carlo standard errors of ``mean``, ``median``, ``lower`` and ``upper`` (None
        when exact).
    """

    metric: str
    label: object
    design: str
    prevalence: tuple | None
    sample: float
    distribution: object = field(repr=False)
    exact: bool
    method: str
    confidence: float
    mean: float
    median: float
    lower: float
    upper: float
    mc_se: dict | None = None

    def interval(self, confidence: float | None = None, kind: str = "central"):
        """Credible interval (``kind="hdi"``: highest density)."""
        return self.distribution.interval(self.confidence if confidence is None else confidence,
                                          kind=kind)

    def hdi(self, confidence: float | None = None):
        """Highest-density interval."""
        return self.interval(confidence, kind="hdi")

    def to_dict(self) -> dict:
        """Plain dict, valid strict JSON: an undefined number (a 0/0 sample value) is None,
        and ``undefined`` says why."""
        from ._engine.helpers.convert import jsonable
        from .intervals import strict_json

        out = strict_json({
            "metric": self.metric, "label": jsonable(self.label), "design": self.design,
            "prevalence": None if self.prevalence is None else list(self.prevalence),
            "sample": self.sample, "exact": self.exact, "method": self.method,
            "confidence": self.confidence, "mean": self.mean, "median": self.median,
            "lower": self.lower, "upper": self.upper, "mc_se": self.mc_se,
        })  # fmt: skip
        if out["sample"] is None:
            out["undefined"] = {"sample": "the metric is 0/0 on the test set's counts (a class "
                                          "never predicted, or without examples)"}  # fmt: skip
        return out

    def __repr__(self) -> str:
        """One line: the metric, its posterior mean and credible interval, the sample value and
        how it was computed (``print()`` adds the design and the method)."""
        from .display.numbers import repr_interval, repr_level, repr_number
        name = self.metric + ("" if self.label is None else f" of class {self.label!r}")
        how = "exact" if self.exact else "Monte Carlo"
        return (
            f"<MetricPosterior: {name} {repr_number(self.mean)} "
            f"{repr_interval(self.lower, self.upper)} {repr_level(self.confidence)} credible, "
            f"sample {repr_number(self.sample)}, {self.design} design, {how}>"
        )

    def _repr_html_(self) -> str:
        from .display.html import metric_posterior_html

        return metric_posterior_html(self)

    def __str__(self) -> str:
        from .display import numbers as fmt

        name = self.metric + ("" if self.label is None else f" of class {self.label}")
        se = ""
        if self.mc_se is not None:
            se = f"  (Monte Carlo error <= {fmt.significant(max(self.mc_se.values()), 2)})"
        return (f"{name}: sample {fmt.number(self.sample)}, posterior mean "
                f"{fmt.number(self.mean)}, {fmt.percent(self.confidence)} "
                f"{fmt.interval(self.lower, self.upper)}{se}\n"
                f"  ({self.design} design; {self.method})")


def _summarise(metric, label, design, prev, sample, dist, exact, method, c) -> MetricPosterior:
    lo, med, hi = (float(v) for v in dist.ppf([(1 - c) / 2, 0.5, (1 + c) / 2]))
    se = None
    if not exact:
        qse = dist.quantile_se([(1 - c) / 2, 0.5, (1 + c) / 2])
        se = {"mean": dist.mean_se, "median": float(qse[1]), "lower": float(qse[0]),
              "upper": float(qse[2])}
    return MetricPosterior(
        metric=metric, label=label, design=design, prevalence=prev, sample=float(sample),
        distribution=dist, exact=exact, method=method, confidence=c, mean=float(dist.mean()),
        median=med, lower=lo, upper=hi, mc_se=se,
    )


def _sample_value(metric: str, cm: ConfusionMatrix, i: int | None) -> float:
    fn = getattr(_metrics, metric)
    v = fn(cm)
    return float(v if i is None else np.asarray(v)[i])


def posterior_metric(
    cm,
    metric: str | Callable,
    *,
    label=None,
    design: str = "stratified",
    prevalence=None,
    confidence: float = 0.95,
    n_draws: int | None = None,
    mc_error: float = 1e-3,
    random_state=0,
    rows: str = "true",
    sampler: str = "random",
) -> MetricPosterior | list[MetricPosterior]:
    """The posterior of a metric of a confusion matrix, beside its sample value.

    Parameters
    ----------
    cm : ConfusionMatrix or array_like
        Counts, rows = true class (unless ``rows="predicted"``).
    metric : str or callable
        A metric of :mod:`bacc.metrics` (``"accuracy"``, ``"balanced_accuracy"``, ``"recall"``,
        ``"specificity"``, ``"precision"``, ``"balanced_precision"``, ``"f1"``, ``"macro_f1"``,
        ``"cohen_kappa"``, ``"matthews"``, ``"g_mean"``, ``"informedness"``), or a function
        of the cell probabilities ``P`` (an array of shape ``(n, l, l)``, rows = true class)
        returning ``n`` values (Monte Carlo; its sample value is the function of ``C / n``).
    label : class label, optional
        For a per-class metric, the class (default: every class, a list of results).
    design : {"stratified", "random"}
        How the test set was drawn (see the module): class totals fixed (default), or a random
        sample of the population.
    prevalence : float or sequence of float, optional
        Stratified design: the share of each class the classifier will meet (for two classes
        one number, the positive class's, is enough: the second class is the positive one).
        Default: the test set's.
    confidence : float
        Mass of the central credible interval.
    n_draws : int, optional
        Posterior draws of a Monte Carlo metric. Default: as many as it takes (from 5 000,
        doubling, at most 1 280 000) for the Monte Carlo standard errors of the mean, median and
        interval ends to fall to ``mc_error``.
    mc_error : float
        Target Monte Carlo standard error when ``n_draws`` is not given (default 1e-3).
    random_state : int, Generator or None
        Seed of the draws (default 0: results repeat).
    rows : {"true", "predicted"}
    sampler : {"random", "sobol"}
        Monte Carlo draws: independent pseudo-random Gamma draws (default), or randomised
        quasi-Monte Carlo: 16 independently scrambled Sobol sequences
        (:class:`scipy.stats.qmc.Sobol`) mapped through the Gamma quantile function, whose standard errors are the
        spread of the 16 replicate estimates (``n_draws`` is rounded up to 16 times a power of
        2). Sobol draws make the posterior mean far more precise (about 50 times at 4 096
        draws for 10 classes), but the interval ends only 1.2-1.5 times, at 15 times the cost
        of a draw (the Gamma quantile function is slow): at equal time pseudo-random draws give
        the better interval, hence the default (``benchmarks/bench_metrics.py``).

    Returns
    -------
    MetricPosterior or list of MetricPosterior
        One per class for a per-class metric without ``label``.

    Raises
    ------
    BaccError
        An unknown metric or design, a bad prevalence, or ``design="random"`` with
        ``prevalence=`` (the random design estimates the prevalence).

    Notes
    -----
    Exact paths: recall (Beta); balanced accuracy (:class:`bacc.BetaSum`); specificity of two
    classes (the other class's recall); precision under ``design="random"`` (Beta); for two
    classes under the stratified design, precision, F1 and accuracy at the prevalence and the
    balanced precision (:class:`bacc.prevalence.RateAtPrevalence`). Everything else: Monte
    Carlo over ``n_draws`` draws of ``P``, whose standard errors are in ``mc_se``.

    Sample values are those of :mod:`bacc.metrics`, which equal scikit-learn's with
    ``zero_division=np.nan`` (a 0/0 ratio is ``nan``, not 0); for Matthews' correlation
    scikit-learn returns 0.0 where bacc returns ``nan``.

    References
    ----------
    .. [1] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013, 347-361, Table 1.
    .. [2] Burkman, B. (2021). Report of 28 June 2021, sections 2.4-2.5.

    Examples
    --------
    >>> import bacc
    >>> cm = [[4950, 50], [3, 17]]          # 5000 negatives, 20 positives
    >>> p = bacc.posterior_metric(cm, "precision", label=1)
    >>> p.exact, round(p.sample, 4), round(p.mean, 3)
    (True, 0.2537, 0.245)
    >>> deployed = bacc.posterior_metric(cm, "precision", label=1, prevalence=0.00425)
    >>> round(deployed.median, 3)           # at the Burkman report's prevalence
    0.257
    """
    c = check_confidence(confidence)
    check_choice(design, ("stratified", "random"), "design")
    check_choice(sampler, ("random", "sobol"), "sampler")
    if n_draws is not None:
        check_int(n_draws, "n_draws", 100, MAX_SIMULATIONS)
    if isinstance(mc_error, bool) or not isinstance(mc_error, int | float) or not (
            1e-6 <= mc_error <= 0.1):
        raise BaccError(f"mc_error must be a number between 1e-6 and 0.1, got {mc_error!r}")
    cm = as_confusion_matrix(cm, rows=rows)
    C = cm.counts.astype(float)
    l = cm.n_classes
    n_i = C.sum(axis=1)
    has = included_classes(n_i)
    if has.sum() < 1:
        raise BaccError("no class has true examples")
    prev = None
    if design == "random":
        if prevalence is not None:
            raise BaccError("design='random' estimates the prevalence from the test set; give "
                            "prevalence= with design='stratified'")
    else:
        prev = _prevalence_vector(prevalence, n_i, l, cm.labels)
    rng = check_random_state(random_state)
    prev_t = None if prev is None else tuple(float(v) for v in prev)
    if prev is None:
        P_hat = C / C.sum()  # the test set's joint shares
    else:  # the plug-in value at the given prevalence: the test set's row rates, reweighted
        with np.errstate(divide="ignore", invalid="ignore"):
            R = np.where(has[:, None], C / np.where(has, n_i, 1.0)[:, None], 0.0)
        P_hat = prev[:, None] * R

    if callable(metric):
        name = getattr(metric, "__name__", None) or "custom metric"
        fn = _checked_metric(metric, name)
        sample = float(fn(P_hat[None])[0])
        return _monte_carlo(name, None, fn, C, design, prev, sample, (n_draws, mc_error), rng, c,
                            prev_t, sampler=sampler)
    if not isinstance(metric, str) or metric not in METRICS:
        raise BaccError(f"metric must be one of {', '.join(METRICS)} or a function of P, "
                        f"got {metric!r}")
    per_class, _ = METRICS[metric]
    if per_class:
        if label is None:
            return [posterior_metric(cm, metric, label=lab, design=design, prevalence=prevalence,
                                     confidence=c, n_draws=n_draws, mc_error=mc_error,
                                     random_state=rng, sampler=sampler)
                    for lab in cm.labels]
        i = class_index(label, cm.labels)
    elif label is not None:
        raise BaccError(f"{metric} is a metric of the whole matrix; it takes no label")
    else:
        i = None
    if prevalence is None:
        sample = _sample_value(metric, cm, i)
    else:
        v = population_metric(metric, P_hat)
        sample = float(v if i is None else v[i])
    exact = _exact(metric, i, C, design, prev, l)
    if exact is not None:
        dist, method = exact
        return _summarise(metric, label, design, prev_t, sample, dist, True, method, c)

    fn = _BuiltinMetric(metric, i)
    return _monte_carlo(metric, label, fn, C, design, prev, sample, (n_draws, mc_error), rng, c,
                        prev_t, sampler=sampler)


class _BuiltinMetric:
    """A metric of :func:`population_metric` (of class ``i``, or of the whole matrix) as a
    function of ``P`` (a class, not a closure: results holding it can be pickled)."""

    def __init__(self, metric: str, i: int | None) -> None:
        self.metric, self.i = metric, i

    def __call__(self, P: np.ndarray) -> np.ndarray:
        v = population_metric(self.metric, P)
        return v if self.i is None else v[..., self.i]


class _Resampler:
    """``k`` new posterior draws of a metric (in chunks of about two million cells)."""

    def __init__(self, fn: Callable, C: np.ndarray, design: str, prev) -> None:
        self.fn, self.C, self.design, self.prev = fn, C, design, prev

    def __call__(self, k: int, g: np.random.Generator) -> np.ndarray:
        out = np.empty(k)
        step = max(1, 2_000_000 // self.C.size)
        for s in range(0, k, step):
            m = min(step, k - s)
            out[s : s + m] = np.asarray(self.fn(_draw_P(self.C, self.design, self.prev, m, g)),
                                        dtype=float)  # fmt: skip
        return out


def _checked_metric(fn: Callable, name: str) -> Callable[[np.ndarray], np.ndarray]:
    """``fn`` with its answers checked: one real number per matrix of ``P``.

    A function of ``P`` (shape ``(n, l, l)``) must return ``n`` numbers, shape ``(n,)``; a
    scalar, a per-class array, a wrong length or values that are not numbers are refused with
    a :class:`BaccError` naming the function and the shapes expected and received.
    """
    return _CheckedMetric(fn, name)


class _CheckedMetric:
    """A user's function of ``P`` whose answers are checked (see :func:`_checked_metric`)."""

    def __init__(self, fn: Callable, name: str) -> None:
        self.fn = fn
        self.label = name if name == "custom metric" else f"custom metric {name!r}"

    def __call__(self, P: np.ndarray) -> np.ndarray:
        fn, label = self.fn, self.label
        out = fn(P)
        try:
            arr = np.asarray(out, dtype=float)
        except (TypeError, ValueError):
            raise BaccError(f"{label} must return numbers, one per matrix of P; it returned "
                            f"{type(out).__name__} {str(out)[:60]!r}") from None
        n = P.shape[0]
        if arr.shape != (n,):
            what = "a scalar" if arr.ndim == 0 else f"an array of shape {arr.shape}"
            raise BaccError(f"{label} must return one number per matrix of P: given P of shape "
                            f"{P.shape} (matrices, true class, predicted class) it must return "
                            f"shape ({n},), but returned {what}")
        return arr


def _prevalence_vector(prevalence, n_i: np.ndarray, l: int, classes) -> np.ndarray:
    if prevalence is None:
        return n_i / n_i.sum()
    v = prevalence_shares(prevalence, l, classes)
    if np.any((v > 0) & (n_i == 0)):
        raise BaccError("prevalence: a class without true examples cannot have a share > 0 "
                        "(nothing is known of its recall)")
    return v


def _exact(metric, i, C, design, prev, l):
    """(distribution, method) where the posterior has a closed form or a 1-D integral."""
    from .posterior import posterior_balanced_accuracy

    n_i = C.sum(axis=1)
    alpha = C + _prior(l)
    if metric == "recall":
        if n_i[i] == 0:
            return None
        return BetaPosterior(C[i, i] + 1, n_i[i] - C[i, i] + 1), "Beta posterior of the recall"
    if metric == "balanced_accuracy":
        return posterior_balanced_accuracy(C.astype(np.int64)), "sum of Beta posteriors (BetaSum)"
    if metric == "specificity" and l == 2:
        j = 1 - i
        if n_i[j] == 0:
            return None
        return (BetaPosterior(C[j, j] + 1, n_i[j] - C[j, j] + 1),
                "Beta posterior (the other class's recall)")
    if metric == "accuracy" and design == "random" and n_i.all():
        d = float(np.trace(alpha))
        return (BetaPosterior(d, float(alpha.sum()) - d),
                "Beta posterior (one Dirichlet over all cells: the diagonal against the rest)")
    if metric == "precision" and design == "random" and n_i.all():
        b = alpha[:, i].sum() - alpha[i, i]
        return BetaPosterior(alpha[i, i], b), "Beta posterior (one Dirichlet over all cells)"
    if l == 2 and n_i.all() and metric in ("precision", "f1", "accuracy", "balanced_precision") \
            and (design == "stratified" or metric == "balanced_precision"):
        pos = 1 if i is None else i
        neg = 1 - pos
        s = BetaPosterior(C[pos, pos] + 1, n_i[pos] - C[pos, pos] + 1)
        f = BetaPosterior(C[neg, pos] + 1, n_i[neg] - C[neg, pos] + 1)
        pi = 0.5 if metric == "balanced_precision" else float(prev[pos])
        rate = "precision" if metric == "balanced_precision" else metric
        return (RateAtPrevalence(rate, s, f, pi),
                f"one-dimensional integral over the sensitivity and false-positive rate at "
                f"prevalence {pi:.6g}")
    return None


#: Adaptive Monte Carlo: first round, and most draws.
FIRST_DRAWS, MOST_DRAWS = 5_000, 1_280_000


def _monte_carlo(name, label, fn, C, design, prev, sample, budget, rng, c, prev_t=None,
                 sampler="random"):
    n_draws, target = budget
    resample = _Resampler(fn, C, design, prev)

    q = [(1 - c) / 2, 0.5, (1 + c) / 2]
    if sampler == "sobol":
        dist = _sobol(fn, C, design, prev, n_draws, target, rng, q, resample)
    elif n_draws is not None:
        dist = SampleDistribution(resample(n_draws, rng), resample)
    else:
        draws = resample(FIRST_DRAWS, rng)
        while True:
            dist = SampleDistribution(draws, resample)
            worst = max(dist.mean_se, float(np.max(dist.quantile_se(q))))
            if worst <= target or draws.size >= MOST_DRAWS:
                break
            draws = np.concatenate([draws, resample(draws.size, rng)])
    how = (f"randomised quasi-Monte Carlo, {SOBOL_REPLICATES} scrambled Sobol sequences of "
           f"{dist.n_draws // SOBOL_REPLICATES} draws" if sampler == "sobol"
           else f"Monte Carlo, {dist.n_draws} posterior draws")
    return _summarise(name, label, design, prev_t, sample, dist, False, how, c)


#: Randomised quasi-Monte Carlo: independent scrambles, and the first length of each.
SOBOL_REPLICATES, SOBOL_FIRST = 16, 256


def _sobol(fn, C, design, prev, n_draws, target, rng, q, resample) -> SampleDistribution:
    """Randomised quasi-Monte Carlo draws of the metric (see ``sampler`` in
    :func:`posterior_metric`): each replicate's Sobol points, of length a power of 2, go
    through the Gamma quantile function (:func:`scipy.special.gammaincinv`) of every cell;
    lengths double until the replicates' spread meets ``target`` (or once, to cover
    ``n_draws``)."""
    from scipy.special import gammaincinv
    from scipy.stats import qmc

    l = C.shape[0]
    has = C.sum(axis=1) > 0
    alpha = np.where(has[:, None], C + _prior(l), 0.0)
    cells = np.flatnonzero(np.repeat(has, l))
    if cells.size > 21201:
        raise BaccError("sampler='sobol' draws at most 21201 cells (145 classes); use "
                        "sampler='random'")
    engines = [qmc.Sobol(cells.size, scramble=True, seed=s)
               for s in rng.integers(0, 2**63 - 1, SOBOL_REPLICATES)]
    a = alpha.ravel()[cells]

    def more(m: int) -> list[np.ndarray]:
        out = []
        for e in engines:
            u = e.random(m)
            g = np.zeros((m, l * l))
            g[:, cells] = gammaincinv(a[None, :], u)
            g = g.reshape(m, l, l)
            if design == "random":
                P = g / g.sum(axis=(1, 2), keepdims=True)
            else:
                P = g / np.where(has, g.sum(axis=2), 1.0)[:, :, None] * prev[None, :, None]
            out.append(np.asarray(fn(P), dtype=float))
        return out

    if n_draws is not None:
        return ReplicatedSample(
            more(1 << max(0, int(np.ceil(np.log2(n_draws / SOBOL_REPLICATES))))), resample)
    m = SOBOL_FIRST
    reps = more(m)
    while True:
        dist = ReplicatedSample(reps, resample)
        worst = max(dist.mean_se, float(np.max(dist.quantile_se(q))))
        if worst <= target or m * SOBOL_REPLICATES >= MOST_DRAWS:
            return dist
        # the next m points of each sequence: together, the first 2m
        reps = [np.concatenate([r, n]) for r, n in zip(reps, more(m), strict=True)]
        m *= 2


class ReplicatedSample(SampleDistribution):
    """Draws from independent randomised quasi-Monte Carlo replicates: estimates from all
    draws, standard errors from the spread of the replicates' own estimates (``std /
    sqrt(R)``)."""

    def __init__(self, reps: list[np.ndarray], resample) -> None:
        super().__init__(np.concatenate(reps), resample)
        self._reps = [np.sort(r[np.isfinite(r)]) for r in reps]

    @property
    def mean_se(self) -> float:
        """Standard error of the mean: spread of the replicate means."""
        m = np.array([r.mean() for r in self._reps])
        return float(m.std(ddof=1) / np.sqrt(m.size))

    def quantile_se(self, q) -> np.ndarray:
        """Standard errors of the quantiles: spread of the replicate quantiles."""
        q = np.asarray(q, dtype=float)
        Q = np.array([np.quantile(r, q) for r in self._reps])
        return Q.std(axis=0, ddof=1) / np.sqrt(len(self._reps))


def precision_curve(cm, prevalences, *, label=1, confidence: float = 0.95):
    """Posterior median and central credible band of a two-class precision over prevalences,
    with the exact (union of Clopper-Pearson) interval: the curve to choose a threshold of
    alarm on.

    Returns
    -------
    dict of ndarray
        ``prevalence``, ``median``, ``lower``, ``upper``, ``exact_lower``, ``exact_upper``.
    """
    from .prevalence import rate_interval

    cm = as_confusion_matrix(cm)
    if cm.n_classes != 2:
        raise BaccError("precision_curve is for two classes")
    pos = class_index(label, cm.labels)
    neg = 1 - pos
    C = cm.counts
    n = C.sum(axis=1)
    c = check_confidence(confidence)
    s = BetaPosterior(C[pos, pos] + 1, n[pos] - C[pos, pos] + 1)
    f = BetaPosterior(C[neg, pos] + 1, n[neg] - C[neg, pos] + 1)
    out = {k: [] for k in ("prevalence", "median", "lower", "upper", "exact_lower", "exact_upper")}
    for p in np.asarray(prevalences, dtype=float):
        d = RateAtPrevalence("precision", s, f, float(p))
        lo, med, hi = d.ppf([(1 - c) / 2, 0.5, (1 + c) / 2])
        elo, ehi = rate_interval("precision", int(C[pos, pos]), int(n[pos]), int(C[neg, pos]),
                                 int(n[neg]), float(p), c)
        for k, v in zip(out, (p, med, lo, hi, elo, ehi), strict=True):
            out[k].append(float(v))
    return {k: np.array(v) for k, v in out.items()}


__all__ += ["precision_curve", "rate_value"]
