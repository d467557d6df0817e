"""How often each AUC interval keeps its promise: the coverage simulator for scores.

:func:`auc_coverage` draws test sets of scores from a known population (binormal, continuous or
rounded to a rating scale with ties), computes every AUC interval of :data:`bacc.roc.AUC_METHODS`
on each, and reports the share that contains the true AUC, in the same result type as
:func:`bacc.coverage` (:class:`bacc.CoverageResult`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
from scipy import stats

from ._engine.helpers.validate import check_choice, check_confidence, check_int, check_random_state
from .errors import BaccError
from .roc import AUC_METHODS, auc_interval
from .score_curve import ScoreCurve
from .score_inputs import tally
from .simulation import CoverageResult, method_coverage

__all__ = ["auc_coverage", "DISTRIBUTIONS", "true_auc"]

#: The score populations of :func:`auc_coverage`.
DISTRIBUTIONS = {
    "binormal": "negatives N(0, 1), positives N(mu, 1) with mu = sqrt(2) Phi^-1(auc): "
                "continuous scores, no ties",
    "rating": "the binormal scores rounded to a five-point rating scale (cut at -0.5, 0.5, 1.5, "
              "2.5 on the negatives' scale): many ties, as in readers' ratings",
}
_CUTS = np.array([-0.5, 0.5, 1.5, 2.5])


def _shift(auc: float) -> float:
    return math.sqrt(2.0) * float(stats.norm.ppf(auc))


def true_auc(auc: float, distribution: str) -> float:
    """The population AUC, ``P(S+ > S-) + P(S+ = S-) / 2``, of a design of :func:`auc_coverage`.

    For ``"binormal"`` it is ``auc``; for ``"rating"`` it is computed exactly from the
    probabilities of the five ratings.
    """
    if distribution == "binormal":
        return float(auc)
    mu = _shift(auc)
    edges = np.concatenate([[-np.inf], _CUTS, [np.inf]])
    pn = np.diff(stats.norm.cdf(edges))
    pp = np.diff(stats.norm.cdf(edges - mu))
    below_n = np.concatenate([[0.0], np.cumsum(pn)[:-1]])
    return float(np.sum(pp * (below_n + 0.5 * pn)))


def _draw(rng, n: int, mu: float, distribution: str) -> np.ndarray:
    s = rng.standard_normal(n) + mu
    if distribution == "rating":
        return np.searchsorted(_CUTS, s).astype(float)
    return s


def auc_coverage(
    methods: str | Sequence[str] = tuple(AUC_METHODS),
    n_positive: int = 30,
    n_negative: int = 300,
    auc: float = 0.8,
    *,
    distribution: str = "binormal",
    confidence: float = 0.95,
    n_simulations: int = 2000,
    draws: int = 2000,
    random_state=0,
) -> CoverageResult:
    """Simulated coverage of the AUC interval methods.

    Parameters
    ----------
    methods : str or sequence of str
        Names of :data:`bacc.roc.AUC_METHODS` (default: all).
    n_positive, n_negative : int
        Examples of each class in every simulated test set.
    auc : float
        The population AUC of the binormal scores (in (0, 1)).
    distribution : {"binormal", "rating"}
        The score population (:data:`DISTRIBUTIONS`).
    confidence : float
        Nominal coverage (default 0.95).
    n_simulations : int
        Simulated test sets (the Monte Carlo error is reported).
    draws : int
        Posterior draws of the Bayesian bootstrap in each test set.
    random_state : int, Generator or None
        Seed (default 0, so runs repeat; None draws fresh entropy).

    Returns
    -------
    CoverageResult
        ``metric="auc"``, ``class_sizes=(n_negative, n_positive)``, ``true_value`` the
        population AUC; a method is marked exact when it is guaranteed.

    References
    ----------
    .. [1] Obuchowski, N. A. & Lieber, M. L. (1998). Confidence intervals for the receiver
       operating characteristic area in studies with small samples. Academic Radiology 5,
       561-571 (the undercoverage of the asymptotic intervals on small samples).
    .. [2] Qin, G. & Hotilovac, L. (2008). Comparison of non-parametric confidence intervals for
       the area under the ROC curve of a continuous-scale diagnostic test. Statistical Methods
       in Medical Research 17, 207-221.

    Examples
    --------
    >>> import bacc
    >>> res = bacc.auc_coverage(["delong", "band"], 10, 40, 0.9, n_simulations=200,
    ...                         random_state=1)
    >>> res["band"].coverage >= 0.95, res.metric
    (True, 'auc')
    """
    if isinstance(methods, str):
        names = [methods]
    elif isinstance(methods, Sequence) and all(isinstance(m, str) for m in methods):
        names = list(methods)
    else:
        raise BaccError("methods must be a method name or a list of them: "
                        + ", ".join(AUC_METHODS))
    if not names:
        raise BaccError("methods is empty: name at least one of " + ", ".join(AUC_METHODS))
    for m in names:
        check_choice(m, tuple(AUC_METHODS), "method")
    P = check_int(n_positive, "n_positive", 1, 10**7)
    N = check_int(n_negative, "n_negative", 1, 10**7)
    if isinstance(auc, bool) or not isinstance(auc, int | float) or not 0.0 < float(auc) < 1.0:
        raise BaccError(f"auc must lie strictly between 0 and 1, got {auc!r}")
    dist = check_choice(distribution, tuple(DISTRIBUTIONS), "distribution")
    c = check_confidence(confidence)
    n_sim = check_int(n_simulations, "n_simulations", 1, 10**7)
    n_draws = check_int(draws, "draws", 100, 10**7)
    rng = check_random_state(random_state)
    mu = _shift(float(auc))
    truth = true_auc(float(auc), dist)

    lo = {m: np.empty(n_sim) for m in names}
    hi = {m: np.empty(n_sim) for m in names}
    secs = dict.fromkeys(names, 0.0)
    codes = np.repeat([0, 1], [N, P])
    for i in range(n_sim):
        s = np.concatenate([_draw(rng, N, 0.0, dist), _draw(rng, P, mu, dist)])
        curve = ScoreCurve((0, 1), 1, *tally(codes, s, 1))
        for m in names:
            t0 = time.perf_counter()
            iv = auc_interval(curve, method=m, confidence=c, draws=n_draws, random_state=rng)
            lo[m][i], hi[m][i] = iv.lower, iv.upper
            secs[m] += time.perf_counter() - t0
    results = tuple(
        method_coverage(m, lo[m], hi[m], truth, n_sim, secs[m],
                        exact=AUC_METHODS[m].kind == "guaranteed")
        for m in names
    )
    return CoverageResult(methods=results, class_sizes=(N, P), true_class_accuracies=(),
                          true_value=truth, confidence=c, n_sim=n_sim, sides="two",
                          metric="auc", weights=())
