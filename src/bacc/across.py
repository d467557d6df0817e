"""Many test sets, one verdict: classifiers compared and ranked across data sets.

"Is A better than B across these 20 data sets (30 subjects, 12 sites)?" Summing the confusion
matrices answers "on these pooled examples", and is overconfident when the data sets differ;
counting wins or ranking point accuracies (Demšar 2006) forgets how many examples each data set
has. :func:`compare_across` and :func:`rank_across` answer for the population of data sets, from
the confusion matrices themselves: each data set's balanced accuracies enter with their sample
values and the (co)variance of their exact posterior, so a data set of 20 examples counts for
less than one of 20 000, and a random effect lets a classifier's advantage vary from data set to data set
(:mod:`bacc._engine.meta_analysis`).
"""

from __future__ import annotations

import math
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import special as sc
from scipy import stats

from ._engine.helpers.convert import jsonable, readonly
from ._engine.helpers.validate import check_confidence, check_random_state, check_rope
from ._engine.meta_analysis import (
    TAU_PRIORS,
    MetaFit,
    TauPrior,
    common_effect,
    fit,
    independent_moments,
    paired_moments,
)
from .comparison import check_names
from .confusion import ConfusionMatrix, as_confusion_matrix
from .distributions import NormalMixture
from .errors import BaccError
from .evaluation import Evaluation
from .labels import encode

__all__ = ["compare_across", "compare_across_counts", "rank_across", "rank_across_counts",
           "AcrossComparison", "AcrossRanking", "DataSetDifference", "ClassicalTests",
           "DEFAULT_ROPE"]

#: Half-width of the default region of practical equivalence: one point of balanced accuracy
#: (a population difference of exactly zero has probability zero, so without a rope the middle
#: outcome "practically equivalent" could never be reported; Benavoli et al. 2017 use 0.01).
DEFAULT_ROPE = 0.01
_MAX_DRAWS = 2_000_000


# ------------------------------------------------------------------------------------ inputs
@dataclass(frozen=True)
class _Set:
    """One data set: its classes with examples, their sizes, and what each classifier got right."""

    name: object
    classes: tuple
    n: np.ndarray  # (l,) examples of each class (the same for every classifier when paired)
    k: np.ndarray  # (l, T) right answers
    both: np.ndarray | None  # (l, T, T) both right (paired), else None
    sizes: np.ndarray  # (l, T) examples of each class in each classifier's test set


def _matrix(obj, rows: str, what: str) -> ConfusionMatrix:
    if isinstance(obj, Evaluation):
        return obj.confusion
    if isinstance(obj, ConfusionMatrix):
        return obj
    try:
        return as_confusion_matrix(obj, rows=rows)
    except BaccError as exc:
        raise BaccError(f"{what}: {exc}") from None


def _per_data_set(obj, rows: str, who: str) -> dict:
    """One classifier's results: ``{data set: ConfusionMatrix}`` from a mapping, a stack of
    matrices ``(data sets, l, l)`` or grouped counts (``bacc.counts(..., by=...)``)."""
    if isinstance(obj, Mapping):
        if not obj:
            raise BaccError(f"classifier {who!r}: no data sets (an empty mapping)")
        return {name: _matrix(m, rows, f"classifier {who!r}, data set {name!r}") for name, m in obj.items()}
    if isinstance(obj, ConfusionMatrix | Evaluation):
        raise BaccError(f"classifier {who!r}: one confusion matrix is one data set; give one per "
                        "data set ({data set: matrix} or a stack of shape (data sets, l, l))")
    try:
        arr = np.asarray(obj)
    except (TypeError, ValueError):
        arr = np.empty(0, dtype=object)
    if arr.dtype == object or arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
        raise BaccError(
            f"classifier {who!r}: give one confusion matrix per data set: a mapping data set -> "
            "matrix, a stack of shape (data sets, classes, classes) or grouped counts; got "
            f"shape {np.shape(arr)}"
        )
    return {j: _matrix(arr[j], rows, f"classifier {who!r}, data set {j}") for j in range(arr.shape[0])}


def _independent_sets(results: dict, rows: str) -> tuple[list[_Set], list[str]]:
    """Data sets of independent test sets (one confusion matrix per classifier and data set)."""
    names = list(results)
    tables = {c: _per_data_set(results[c], rows, c) for c in names}
    first = tables[names[0]]
    order = list(first)
    for c in names[1:]:
        missing = [d for d in order if d not in tables[c]]
        extra = [d for d in tables[c] if d not in first]
        if missing or extra:
            d, has, lacks = (missing[0], names[0], c) if missing else (extra[0], c, names[0])
            raise BaccError(f"data set {d!r} has results for classifier {has!r} but not for "
                            f"{lacks!r}: every classifier needs every data set")
    notes: list[str] = []
    sets = []
    for d in order:
        mats = [tables[c][d] for c in names]
        # each classifier's classes: label -> (right, examples); a class with no examples in a
        # matrix (grouped counts carry every class of the table) says nothing
        per = []
        for cm in mats:
            counts = np.asarray(cm.counts)
            per.append({lab: (float(counts[i, i]), float(counts[i].sum()))
                        for i, lab in enumerate(cm.labels)})
        labels = []
        for table in per:
            labels += [lab for lab, (_, size) in table.items() if size > 0 and lab not in labels]
        if not labels:
            raise BaccError(f"data set {d!r} has no examples")
        for c, table in zip(names, per, strict=True):
            for lab in labels:
                if lab not in table:
                    raise BaccError(f"data set {d!r}: classifier {c!r} has no class {lab!r}, which "
                                    "the other classifiers' test sets have: every classifier of a "
                                    "data set needs the same classes")
                if table[lab][1] == 0:
                    raise BaccError(f"data set {d!r}: class {lab!r} has examples in some "
                                    f"classifiers' test sets but none in {c!r}'s")
        sizes = np.array([[table[lab][1] for table in per] for lab in labels])
        right = np.array([[table[lab][0] for table in per] for lab in labels])
        gone = [lab for lab in mats[0].labels if lab not in labels]
        if gone:
            notes.append(f"data set {d!r}: classes {list(gone)} have no examples and are left out "
                         "of its balanced accuracy")
        sets.append(_Set(name=d, classes=tuple(labels), n=sizes[:, 0], k=right, both=None,
                         sizes=sizes))
    return sets, notes


def _paired_sets(classes: tuple, codes: np.ndarray, n: np.ndarray, group: np.ndarray,
                 groups: tuple) -> tuple[list[_Set], list[str]]:
    """Data sets whose classifiers predicted the same examples, from counted tuples (true class,
    prediction of each classifier), ``n`` examples each, in data set ``groups[group]``."""
    T = codes.shape[1] - 1
    L = len(classes)
    right = codes[:, 1:] == codes[:, :1]  # (rows, T)
    sets, notes = [], []
    for g, name in enumerate(groups):
        sel = group == g
        ti, r, w = codes[sel, 0], right[sel].astype(float), n[sel].astype(float)
        size = np.bincount(ti, weights=w, minlength=L)
        k = np.stack([np.bincount(ti, weights=w * r[:, t], minlength=L) for t in range(T)], axis=1)
        both = np.zeros((L, T, T))
        for s in range(T):
            for t in range(s, T):
                v = np.bincount(ti, weights=w * r[:, s] * r[:, t], minlength=L)
                both[:, s, t] = both[:, t, s] = v
        keep = size > 0
        if not keep.any():  # pragma: no cover - a counted group has examples
            raise BaccError(f"data set {name!r} has no examples")
        sets.append(_Set(name=name, classes=tuple(classes[i] for i in np.flatnonzero(keep)),
                         n=size[keep], k=k[keep], both=both[keep],
                         sizes=np.repeat(size[keep][:, None], T, axis=1)))
    return sets, notes


def _label_sets(y_true, predictions: Mapping, groups) -> tuple[list[_Set], list[str]]:
    """Paired data sets from label sequences: the true labels, each classifier's predictions of
    the same examples and the data set of each example."""
    names = list(predictions)
    seqs = {"y_true": y_true, **{f"pred {c!r}": predictions[c] for c in names}}
    classes, coded = encode(seqs)
    try:
        gnames, gidx = encode({"groups": groups})
    except BaccError as exc:
        raise BaccError(f"groups: {exc}") from None
    if len(gidx[0]) != len(coded[0]):
        raise BaccError(f"groups has {len(gidx[0])} entries but y_true has {len(coded[0])}: one "
                        "data set per example")
    codes = np.column_stack(coded).astype(np.int64)
    return _paired_sets(tuple(classes), codes, np.ones(codes.shape[0], dtype=np.int64),
                        np.asarray(gidx[0], dtype=np.int64), tuple(gnames))


def _prior(prior) -> TauPrior:
    if prior is None:
        return TauPrior()
    if not isinstance(prior, Mapping):
        raise BaccError("prior must be a mapping with any of 'tau' (half-normal or "
                        f"half-cauchy), 'tau_scale' and 'effect_sd'; got {prior!r}")
    unknown = set(prior) - {"tau", "tau_scale", "effect_sd"}
    if unknown:
        raise BaccError(f"prior: unknown settings {sorted(map(str, unknown))}; known: 'tau', "
                        "'tau_scale', 'effect_sd'")
    kind = prior.get("tau", "half-normal")
    if kind not in TAU_PRIORS:
        raise BaccError(f"prior['tau'] must be one of {list(TAU_PRIORS)}, got {kind!r}")
    scale = _positive(prior.get("tau_scale", 0.1), "prior['tau_scale']", most=1.0)
    sd = prior.get("effect_sd")
    sd = None if sd is None else _positive(sd, "prior['effect_sd']", most=10.0)
    return TauPrior(kind=kind, scale=scale, effect_sd=sd)


def _settings(confidence, rope, prior) -> tuple[float, float, TauPrior]:
    """The settings every comparison and ranking across data sets checks first."""
    return check_confidence(confidence), check_rope(rope), _prior(prior)


def _positive(v, name: str, most: float) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
        raise BaccError(f"{name} must be a number, got {v!r}")
    x = float(v)
    if not (math.isfinite(x) and 0.0 < x <= most):
        raise BaccError(f"{name} must be in (0, {most:g}], got {v!r}")
    return x


# ---------------------------------------------------------------------------------- numerics
def _moments(sets: list[_Set]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The data sets' estimates of the balanced accuracies (m, T), their covariances (m, T, T)
    and the sample balanced accuracies (m, T).

    The estimates are the sample balanced accuracies, unbiased for the true ones; the
    covariances are those of the flat-prior posterior (never zero, even for a perfect
    classifier). The posterior means would do instead, but they pull every class accuracy
    towards 1/2, which shrinks each data set's difference by about ``n / (n + 2)`` per class:
    on data sets of 20 examples that bias made the population posterior overconfident in the
    simulation-based calibration (tests/test_across_calibration.py)."""
    T = sets[0].k.shape[1]
    y = np.empty((len(sets), T))
    cov = np.zeros((len(sets), T, T))
    sample = np.empty((len(sets), T))
    for j, s in enumerate(sets):
        w = np.full(s.n.size, 1.0 / s.n.size)
        # summed in sorted order: the same class accuracies in another order give the same
        # number, so exact ties stay ties (the classical tests count them)
        sample[j] = np.sort(s.k / s.sizes, axis=0).sum(axis=0) / s.n.size
        if s.both is None:
            for t in range(T):
                cov[j, t, t] = independent_moments(s.k[:, t], s.sizes[:, t], w)[1]
        else:
            cov[j] = paired_moments(s.k, s.both, s.n, w)[1]
        y[j] = sample[j]
    return y, cov, sample


def _three(weight, mean, sd, r: float) -> tuple[float, float, float]:
    """P(X < -r), P(|X| <= r), P(X > r) of a normal mixture."""
    left = float(np.sum(weight * sc.ndtr((-r - mean) / sd)))
    right = float(np.sum(weight * sc.ndtr((mean - r) / sd)))
    return left, max(0.0, 1.0 - left - right), right


def _mixture(f: MetaFit, pair, what: str) -> NormalMixture:
    mean, sd = pair
    return NormalMixture(f.weight, mean, sd, what=what)


def _spread(f: MetaFit, factor: float, c: float) -> tuple[float, float, float]:
    """Posterior mean and central interval of ``factor * tau``."""
    lo, hi = f.tau_quantiles([(1 - c) / 2, (1 + c) / 2]) * factor
    return float(np.sum(f.weight * factor * f.tau)), float(lo), float(hi)


@dataclass(frozen=True)
class DataSetDifference:
    """One data set in :func:`compare_across`: its own difference and the shrunken one.

    Attributes
    ----------
    data_set : object
        Its name.
    n_examples : int
        Examples (of the first classifier's test set).
    sample_difference : float
        Difference of the sample balanced accuracies.
    mean, sd : float
        The data set's estimate of the difference (the sample difference) and its sd (of the
        flat-prior posterior): what the model reads from this data set.
    lower, upper : float
        Its central interval at ``confidence`` as the model reads it (the normal likelihood
        ``N(mean, sd^2)``).
    shrunken_mean, shrunken_lower, shrunken_upper : float
        The difference on this data set under the model (all data sets inform it).
    p_better : float
        ``P(A better than B on this data set)`` under the model.
    """

    data_set: object
    n_examples: int
    sample_difference: float
    mean: float
    sd: float
    lower: float
    upper: float
    shrunken_mean: float
    shrunken_lower: float
    shrunken_upper: float
    p_better: float

    def to_dict(self) -> dict:
        return {k: jsonable(v) for k, v in vars(self).items()}


@dataclass(frozen=True)
class ClassicalTests:
    """The classical tests on the point balanced accuracies (Demšar 2006), for reporting.

    Attributes
    ----------
    test : str
        ``"wilcoxon"`` (two classifiers: Wilcoxon's signed-rank test of the data sets'
        differences) or ``"friedman"`` (several: Friedman's test of the ranks).
    statistic, p_value : float
        The test's statistic and two-sided p-value (scipy.stats).
    average_ranks : tuple of float
        Each classifier's average rank over the data sets (1 = best; ties share ranks).
    critical_difference : float or None
        Nemenyi's critical difference of average ranks at ``1 - alpha`` (several classifiers).
    holm : tuple of tuple of float, or None
        Holm-adjusted p-values of the pairwise rank tests (several classifiers; diagonal 1).
    wins : tuple of tuple of int
        ``wins[s][t]``: data sets on which ``s`` has the higher sample balanced accuracy.
    alpha : float
    """

    test: str
    statistic: float
    p_value: float
    average_ranks: tuple
    critical_difference: float | None
    holm: tuple | None
    wins: tuple
    alpha: float

    def to_dict(self) -> dict:
        return {k: jsonable(v) if not isinstance(v, tuple) else _plain(v) for k, v in vars(self).items()}


def _plain(v):
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    return jsonable(v)


def _ranks(sample: np.ndarray) -> np.ndarray:
    """Rank of each classifier on each data set (1 = highest balanced accuracy; ties averaged)."""
    return np.apply_along_axis(lambda r: stats.rankdata(-r), 1, sample)


def _classical(sample: np.ndarray, alpha: float) -> ClassicalTests:
    m, T = sample.shape
    ranks = _ranks(sample)
    avg = ranks.mean(axis=0)
    wins = tuple(tuple(int(np.sum(sample[:, s] > sample[:, t])) for t in range(T)) for s in range(T))
    if T == 2:
        d = sample[:, 0] - sample[:, 1]
        if np.all(d == 0):
            stat, p = 0.0, 1.0
        else:
            # exact without ties or zeros; with them scipy would switch to a random permutation
            # test (not deterministic, and slow): the normal approximation with its tie
            # correction instead
            ad = np.abs(d)
            tied = np.any(d == 0) or np.unique(ad).size < ad.size
            res = stats.wilcoxon(d, zero_method="zsplit",
                                 method="asymptotic" if tied else "auto")
            stat, p = float(res.statistic), float(res.pvalue)
        return ClassicalTests(test="wilcoxon", statistic=stat, p_value=p,
                              average_ranks=tuple(float(v) for v in avg), critical_difference=None,
                              holm=None, wins=wins, alpha=alpha)
    if np.all(np.ptp(sample, axis=1) == 0):
        stat, p = 0.0, 1.0
    else:
        res = stats.friedmanchisquare(*sample.T)
        stat, p = float(res.statistic), float(res.pvalue)
    se = math.sqrt(T * (T + 1) / (6.0 * m))
    q = float(stats.studentized_range.ppf(1 - alpha, T, np.inf)) / math.sqrt(2.0)
    z = (avg[:, None] - avg[None, :]) / se
    praw = 2.0 * sc.ndtr(-np.abs(z))
    iu = np.triu_indices(T, 1)
    order = np.argsort(praw[iu])
    adj = np.empty(order.size)
    running = 0.0
    for rank_, idx in enumerate(order):
        running = max(running, min(1.0, (order.size - rank_) * praw[iu][idx]))
        adj[idx] = running
    holm = np.ones((T, T))
    holm[iu] = adj
    holm[(iu[1], iu[0])] = adj
    return ClassicalTests(test="friedman", statistic=stat, p_value=p,
                          average_ranks=tuple(float(v) for v in avg), critical_difference=q * se,
                          holm=tuple(tuple(float(v) for v in row) for row in holm), wins=wins,
                          alpha=alpha)


class _Travels:
    """Results whose read-only mappings travel as dicts (pickle refuses a mappingproxy) and are
    made read-only again; and the keys every result across data sets starts its dict with."""

    _MAPPINGS: tuple = ("prior",)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        for key in self._MAPPINGS:
            state[key] = dict(state[key])
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        for key in self._MAPPINGS:
            state[key] = types.MappingProxyType(dict(state[key]))
        self.__dict__.update(state)

    def _head(self) -> dict:
        return {"names": list(self.names), "data_sets": [jsonable(d) for d in self.data_sets],
                "paired": self.paired, "rope": self.rope, "confidence": self.confidence,
                "prior": {k: jsonable(v) for k, v in self.prior.items()}}


# -------------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class AcrossComparison(_Travels):
    """Two classifiers compared across data sets (see :func:`compare_across`).

    Attributes
    ----------
    names : (str, str)
    data_sets : tuple
        The data sets, in order.
    paired : bool
        Whether the classifiers predicted the same examples of each data set.
    difference : NormalMixture
        Posterior of the population difference ``delta = theta_A - theta_B`` in balanced
        accuracy (a distribution object).
    mean, lower, upper : float
        Its mean and central credible interval.
    p_better : float
        ``P(delta > 0)``.
    p_left, p_rope, p_right : float
        ``P(delta < -rope)``, ``P(|delta| <= rope)``, ``P(delta > rope)``: B better, practically
        equivalent, A better (baycomp's three probabilities, in the order of its
        ``two_on_multiple(b_scores, a_scores, rope)``).
    predictive : NormalMixture
        The difference on a new data set from the same population.
    predictive_left, predictive_rope, predictive_right : float
        The three probabilities for a new data set.
    spread, spread_lower, spread_upper : float
        Posterior mean and interval of the between-data-set sd of the difference (``sqrt(2)
        tau``).
    data_set_differences : tuple of DataSetDifference
    fixed_effects : dict
        The common-effect answer (every data set has the same difference, ``tau = 0``): mean,
        sd, p_better, p_left, p_rope, p_right.
    classical : ClassicalTests
        Wilcoxon's signed-rank test on the sample differences, with the wins and losses.
    verdict : str
        One sentence.
    """

    names: tuple
    data_sets: tuple
    paired: bool
    rope: float
    confidence: float
    prior: types.MappingProxyType
    difference: NormalMixture = field(repr=False)
    mean: float
    lower: float
    upper: float
    p_better: float
    p_left: float
    p_rope: float
    p_right: float
    predictive: NormalMixture = field(repr=False)
    predictive_left: float
    predictive_rope: float
    predictive_right: float
    spread: float
    spread_lower: float
    spread_upper: float
    data_set_differences: tuple
    fixed_effects: types.MappingProxyType
    classical: ClassicalTests
    verdict: str
    notes: tuple

    _MAPPINGS = ("prior", "fixed_effects")

    @property
    def probs(self) -> tuple[float, float, float]:
        """``(p_left, p_rope, p_right)``: B better, practically equivalent, A better (the order of
        baycomp's ``two_on_multiple(b_scores, a_scores, rope)``)."""
        return self.p_left, self.p_rope, self.p_right

    def plot(self, **kwargs):
        """The population difference with the rope, a new data set's, and each data set's own
        and shrunken difference (see :func:`bacc.display.across_plot.plot_across_comparison`)."""
        from .display.across_plot import plot_across_comparison

        return plot_across_comparison(self, **kwargs)

    def to_dict(self) -> dict:
        """Plain dict (strict JSON)."""
        return {
            **self._head(),
            "population": {"mean": self.mean, "lower": self.lower, "upper": self.upper,
                           "p_better": self.p_better, "p_left": self.p_left,
                           "p_rope": self.p_rope, "p_right": self.p_right},
            "predictive": {"mean": self.predictive.mean(), "p_left": self.predictive_left,
                           "p_rope": self.predictive_rope, "p_right": self.predictive_right},
            "spread": {"mean": self.spread, "lower": self.spread_lower, "upper": self.spread_upper},
            "data_sets_detail": [d.to_dict() for d in self.data_set_differences],
            "fixed_effects": {k: jsonable(v) for k, v in self.fixed_effects.items()},
            "classical": self.classical.to_dict(), "verdict": self.verdict,
            "notes": list(self.notes),
        }  # fmt: skip

    def __repr__(self) -> str:
        a, b = self.names
        return (f"<AcrossComparison: {a} - {b} in the population of data sets {self.mean:+.4f} "
                f"[{self.lower:+.4f}, {self.upper:+.4f}], P({a} better) {self.p_better:.4f}, "
                f"{len(self.data_sets)} data sets{', paired' if self.paired else ''}>")

    def __str__(self) -> str:
        from .display.across_text import across_comparison_table

        return across_comparison_table(self)


def _distinct(names) -> tuple:
    """The classifiers' names as text, refused when two are the same."""
    out = tuple(str(x) for x in names)
    if len(set(out)) != len(out):
        raise BaccError(f"classifier names must be distinct, got {list(out)}")
    return out


def _check_sets(sets: list[_Set], T: int) -> None:
    if len(sets) < 2:
        raise BaccError(f"a comparison across data sets needs at least 2 data sets, got {len(sets)}"
                        " (for one data set use bacc.compare or bacc.rank)")
    if T < 2:
        raise BaccError(f"a comparison needs at least 2 classifiers, got {T}")


def _verdict_pair(names, pop: tuple, pred: tuple, fixed: dict, rope: float, m: int) -> str:
    a, b = names
    left, mid, right = pop
    if right >= 0.95:
        head = f"{a} is better than {b} in the population of data sets (P = {right:.3f})"
    elif left >= 0.95:
        head = f"{b} is better than {a} in the population of data sets (P = {left:.3f})"
    elif rope > 0 and mid >= 0.95:
        head = f"{a} and {b} are practically equivalent (within {rope:g}; P = {mid:.3f})"
    else:
        head = (f"the {m} data sets do not settle whether {a} or {b} is better in the population "
                f"(P({a} better by more than {rope:g}) = {right:.3f}, P({b} better) = {left:.3f})")
    tail = f"; on a new data set {a} wins with probability {pred[2]:.3f}"
    f_right = fixed["p_right"]
    if abs(f_right - right) > 0.1:
        tail += (f"; treating the data sets as one common effect would say {f_right:.3f}, "
                 "which ignores how much the difference varies between data sets")
    return head[0].upper() + head[1:] + tail + "."


def _comparison(sets, names, paired, r, c, pri, notes) -> AcrossComparison:
    y, cov, sample = _moments(sets)
    f = fit(y, cov, pri)
    g = f.pair(0, 1)
    pop = f.population(g)
    pred = f.predictive(g)
    diff = _mixture(f, pop, f"population difference {names[0]} - {names[1]}")
    predictive = _mixture(f, pred, f"difference {names[0]} - {names[1]} on a new data set")
    lo, hi = diff.interval(c)
    p3 = _three(f.weight, pop[0], pop[1], r)
    q3 = _three(f.weight, pred[0], pred[1], r)
    fixed_fit = common_effect(y, cov)
    fm, fs = float(fixed_fit.population(g)[0][0]), float(fixed_fit.population(g)[1][0])
    f3 = _three(np.ones(1), np.array([fm]), np.array([fs]), r)
    fixed = {"mean": fm, "sd": fs, "p_better": float(sc.ndtr(fm / fs)), "p_left": f3[0],
             "p_rope": f3[1], "p_right": f3[2]}
    per = []
    zc = float(stats.norm.isf((1 - c) / 2))
    for j, s in enumerate(sets):
        dm, ds = f.data_set(g, j)
        # an sd rounded to 0 (data sets of 10^9 examples) is floored far below any resolution
        mix = NormalMixture(f.weight, dm, np.maximum(ds, 1e-15), what="data set difference")
        slo, shi = mix.interval(c)
        own = float(y[j, 0] - y[j, 1])
        own_sd = float(np.sqrt(max(cov[j, 0, 0] + cov[j, 1, 1] - 2 * cov[j, 0, 1], 0.0)))
        per.append(DataSetDifference(
            data_set=s.name, n_examples=int(s.sizes[:, 0].sum()),
            sample_difference=float(sample[j, 0] - sample[j, 1]),
            mean=own, sd=own_sd, lower=own - zc * own_sd, upper=own + zc * own_sd,
            shrunken_mean=float(np.sum(f.weight * dm)), shrunken_lower=float(slo),
            shrunken_upper=float(shi), p_better=float(mix.sf(0.0))))  # fmt: skip
    spread = _spread(f, math.sqrt(2.0), c)
    return AcrossComparison(
        names=tuple(names), data_sets=tuple(s.name for s in sets), paired=paired, rope=r,
        confidence=c, prior=types.MappingProxyType(_prior_dict(pri)), difference=diff,
        mean=diff.mean(), lower=lo, upper=hi, p_better=float(diff.sf(0.0)), p_left=p3[0],
        p_rope=p3[1], p_right=p3[2], predictive=predictive, predictive_left=q3[0],
        predictive_rope=q3[1], predictive_right=q3[2], spread=spread[0],
        spread_lower=spread[1], spread_upper=spread[2], data_set_differences=tuple(per),
        fixed_effects=types.MappingProxyType(fixed), classical=_classical(sample, float(f"{1 - c:.12g}")),
        verdict=_verdict_pair(names, p3, q3, fixed, r, len(sets)), notes=tuple(notes),
    )  # fmt: skip


def _prior_dict(p: TauPrior) -> dict:
    return {"tau": p.kind, "tau_scale": p.scale, "effect_sd": p.effect_sd}


def _check_pair_predictions(b) -> dict:
    if isinstance(b, Mapping):
        preds = dict(b)
    elif isinstance(b, Sequence | np.ndarray) and not isinstance(b, str) and len(b) == 2:
        preds = {"A": b[0], "B": b[1]}
    else:
        raise BaccError("with groups=, compare_across(y_true, predictions, groups=...) takes the "
                        "two classifiers' predictions as a mapping {name: predictions} or a "
                        "pair of sequences")
    if len(preds) != 2:
        raise BaccError(f"a comparison is of two classifiers, got {len(preds)} predictions")
    return preds


def compare_across(
    a,
    b=None,
    *,
    groups=None,
    rope: float = DEFAULT_ROPE,
    confidence: float = 0.95,
    prior=None,
    rows: str = "true",
    names: Sequence[str] | None = None,
) -> AcrossComparison:
    """Compare two classifiers across data sets: the population answer, from confusion matrices.

    Parameters
    ----------
    a, b : per-data-set results of each classifier
        Each a mapping ``{data set: confusion matrix}`` (data sets may have different classes),
        a stack of matrices of shape ``(data sets, l, l)`` or grouped counts
        (``bacc.counts(..., by="dataset")``); the two must have the same data sets, and each
        data set the same classes. These are independent test sets. With ``groups=``: ``a`` is
        the true labels of every example and ``b`` the two classifiers' predictions of the same
        examples (a mapping ``{name: predictions}`` or a pair of sequences), compared under
        their joint (paired) posterior.
    groups : sequence, optional
        The data set of each example (with label sequences).
    rope : float
        Half-width of the region of practical equivalence (default 0.01, one point of balanced
        accuracy).
    confidence : float
        Mass of the central credible intervals (default 0.95; ``1 - confidence`` is also the
        level of the classical tests).
    prior : dict, optional
        ``tau`` (``"half-normal"``, default, or ``"half-cauchy"``) and ``tau_scale`` (default
        0.1): the prior of ``tau``, the sd of a classifier's deviation from its population
        effect on a data set (the difference's spread is ``sqrt(2) tau``), truncated to ``tau
        <= 1``; ``effect_sd``: a normal prior of the classifiers' effects about their average
        (default: flat).
    rows : {"true", "predicted"}
        Orientation of the matrices.
    names : (str, str), optional
        The classifiers' names (default: the mapping's keys, else ``("A", "B")``).

    Returns
    -------
    AcrossComparison
        The posterior of the population difference (``difference``, a distribution object),
        ``P(A better)``, baycomp's three probabilities with the rope, the same three on a new
        data set (``predictive``), each data set's own and shrunken difference, the spread of
        the difference between data sets, the common-effect answer and Wilcoxon's test beside,
        and a one-sentence verdict.

    Raises
    ------
    BaccError
        Fewer than 2 data sets, a data set missing for one classifier, classifiers with
        different classes on a data set, a class with examples in one classifier's test set
        but not the other's, bad rope, confidence or prior.

    Notes
    -----
    The model (:mod:`bacc._engine.meta_analysis`): data set ``j`` gives the sample balanced
    accuracies ``y_j`` of the two classifiers and the covariance ``S_j`` of their posterior
    (flat priors on the class accuracies; independent test sets: Beta posteriors, Brodersen et al. 2010 eq. 7; the same
    examples: the Dirichlet of :func:`bacc.compare_paired`), and ``y_j = theta + u_j + e_j +
    eps_j`` with ``eps_j ~ N(0, S_j)``, a data-set difficulty ``u_j`` shared by both
    classifiers (flat prior), and an interaction ``e_j ~ N(0, tau^2 I)``. The population
    difference is ``delta = theta_A - theta_B``; a new data set's is ``delta + e_A - e_B``.
    This is the normal-normal random-effects model of meta-analysis (Röver 2020), each data
    set with its estimate and its exact posterior (co)variance: a data set of 20 examples, whose ``S_j`` is large,
    counts for less than one of 20 000, which a test on per-data-set scores (the signed-rank
    test, baycomp's) cannot do. Given ``tau`` the posterior of ``delta`` is normal in closed
    form; ``tau`` is integrated by a trapezoidal rule checked to 1e-10, so the posterior is a
    deterministic mixture of normals. The normal data-set likelihood is the one approximation:
    it is accurate when each data set has more than a few examples per class (the
    simulation-based calibration in the tests includes data sets of 20 examples).

    Why this model. A fully hierarchical binomial model (every class accuracy of every
    classifier on every data set a parameter, as :func:`bacc.population` has for one
    classifier) has hundreds of dimensions here and would need a sampler; data sets differ in
    their classes, so no per-class population law is shared between them anyway. What is
    shared is the balanced accuracy, and each data set's exact posterior already summarises
    what it says about it: its mean and (co)variance carry its size, its class imbalance and,
    for predictions of the same examples, how correlated the two classifiers are. The
    two-stage model keeps all of that, needs only one dimension of quadrature, and is the
    model of Bayesian random-effects meta-analysis, whose behaviour and priors are well
    studied (Röver 2020). Its prior: ``tau`` half-normal with scale 0.1 (a classifier's
    advantage varying by a few points of balanced accuracy between data sets is expected,
    by more than 0.3 implausible), the effects and the data-set difficulties flat.

    The laws are normal, so their support is unbounded: with very few data sets at the ends of
    the scale (one classifier perfect, the other always wrong) an interval of ``delta`` can
    reach past -1 or 1, a sign that two or three data sets cannot pin the spread down.

    The common-effect answer (``tau = 0``) is what pooling the data sets assumes: that the
    difference is the same on every data set. When the data sets disagree it is
    overconfident; the verdict says when the two differ.

    References
    ----------
    .. [1] Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017). Time for a change: a
       tutorial for comparing multiple classifiers through Bayesian analysis. Journal of
       Machine Learning Research 18(77), 1-36, sections 3-4 (P(left/rope/right); a
       hierarchical model of differences across data sets).
    .. [2] Röver, C. (2020). Bayesian random-effects meta-analysis using the bayesmeta R
       package. Journal of Statistical Software 93(6), 1-51, sections 2-3.
    .. [3] Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
       Journal of Machine Learning Research 7, 1-30, section 3.1.3 (Wilcoxon's signed-rank
       test).
    .. [4] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. ICPR, 3121-3124, eq. 7.

    Examples
    --------
    >>> import bacc
    >>> a = {"d1": [[40, 10], [5, 45]], "d2": [[18, 2], [3, 17]], "d3": [[90, 10], [20, 80]]}
    >>> b = {"d1": [[35, 15], [8, 42]], "d2": [[17, 3], [4, 16]], "d3": [[85, 15], [22, 78]]}
    >>> c = bacc.compare_across(a, b, names=("A", "B"))
    >>> 0.5 < c.p_better < 1.0
    True
    >>> round(c.p_left + c.p_rope + c.p_right, 12)
    1.0
    """
    c, r, pri = _settings(confidence, rope, prior)
    if groups is not None:
        preds = _check_pair_predictions(b)
        nm = check_names(names, 2, tuple(str(k) for k in preds))
        sets, notes = _label_sets(a, preds, groups)
        paired = True
    else:
        if b is None:
            raise BaccError("compare_across needs two classifiers' results per data set, "
                            "compare_across(a, b), or labels with groups=")
        nm = _distinct(check_names(names, 2, ("A", "B")))
        sets, notes = _independent_sets({nm[0]: a, nm[1]: b}, rows)
        paired = False
    nm = _distinct(nm)
    _check_sets(sets, 2)
    return _comparison(sets, nm, paired, r, c, pri, notes)


def compare_across_counts(classes, codes, n, group, groups, *, rope: float = DEFAULT_ROPE,
                          confidence: float = 0.95, prior=None,
                          names: Sequence[str] = ("A", "B")) -> AcrossComparison:
    """:func:`compare_across` of two classifiers that predicted the same examples, from counted
    (true, A, B) triples: ``codes`` (rows of class indices), ``n`` examples each, in data set
    ``groups[group]`` (what :func:`bacc.counting.joint.joint_counts` counts with ``by=``)."""
    c, r, pri = _settings(confidence, rope, prior)
    nm = _distinct(check_names(names, 2, ("A", "B")))
    sets, notes = _paired_sets(tuple(classes), np.asarray(codes, dtype=np.int64),
                               np.asarray(n, dtype=np.int64), np.asarray(group, dtype=np.int64),
                               tuple(groups))
    _check_sets(sets, 2)
    return _comparison(sets, nm, True, r, c, pri, notes)


# ----------------------------------------------------------------------------------- ranking
@dataclass(frozen=True)
class AcrossRanking(_Travels):
    """Several classifiers ranked across data sets (see :func:`rank_across`).

    Attributes
    ----------
    names : tuple of str
    data_sets : tuple
    paired : bool
    expected_rank : ndarray (T,)
        Posterior expected rank in the population (1 = best), exact:
        ``1 + sum_s P(theta_s > theta_t)``.
    p_best : ndarray (T,)
        ``P(classifier t is the best in the population)`` (from ``n_draws`` draws of the
        exact posterior; Monte Carlo error ``mc_error``).
    rank_probabilities : ndarray (T, T)
        ``[t, r]``: P(classifier ``t`` has rank ``r + 1``) (from the draws).
    p_greater : ndarray (T, T)
        ``[s, t]``: ``P(theta_s - theta_t > rope)`` (exact).
    p_equivalent : ndarray (T, T)
        ``[s, t]``: ``P(|theta_s - theta_t| <= rope)`` (exact).
    effect, effect_lower, effect_upper : ndarray (T,)
        Each classifier's population effect relative to the average of the classifiers:
        posterior mean and central interval, in balanced accuracy.
    mean_sample_balanced_accuracy : ndarray (T,)
        The average over data sets of the sample balanced accuracies (descriptive).
    groups : tuple of tuple of str
        Maximal runs of classifiers, in order of expected rank, no two of which are told apart
        (neither ``P(s better than t)`` nor its converse reaches ``confidence``): the bars of
        a critical-difference diagram, from the posterior.
    spread, spread_lower, spread_upper : float
        Posterior mean and interval of ``tau``.
    classical : ClassicalTests
        Friedman's test, average ranks, Nemenyi's critical difference and Holm's pairwise
        p-values (Demšar 2006).
    """

    names: tuple
    data_sets: tuple
    paired: bool
    rope: float
    confidence: float
    prior: types.MappingProxyType
    expected_rank: np.ndarray
    p_best: np.ndarray
    rank_probabilities: np.ndarray
    p_greater: np.ndarray
    p_equivalent: np.ndarray
    effect: np.ndarray
    effect_lower: np.ndarray
    effect_upper: np.ndarray
    mean_sample_balanced_accuracy: np.ndarray
    groups: tuple
    spread: float
    spread_lower: float
    spread_upper: float
    classical: ClassicalTests
    n_draws: int
    random_state: object
    mc_error: float
    verdict: str
    notes: tuple


    @property
    def order(self) -> np.ndarray:
        """Indices of the classifiers from best to worst expected rank."""
        return np.argsort(self.expected_rank, kind="stable")

    def plot(self, **kwargs):
        """Expected ranks, rank distributions, P(best), the groups that cannot be told apart,
        and the classical average ranks with Nemenyi's critical difference (see
        :func:`bacc.display.across_plot.plot_across_ranking`)."""
        from .display.across_plot import plot_across_ranking

        return plot_across_ranking(self, **kwargs)

    def to_dict(self) -> dict:
        """Plain dict (strict JSON)."""
        return {
            **self._head(),
            "expected_rank": self.expected_rank.tolist(), "p_best": self.p_best.tolist(),
            "rank_probabilities": self.rank_probabilities.tolist(),
            "p_greater": self.p_greater.tolist(), "p_equivalent": self.p_equivalent.tolist(),
            "effect": self.effect.tolist(), "effect_lower": self.effect_lower.tolist(),
            "effect_upper": self.effect_upper.tolist(),
            "mean_sample_balanced_accuracy": self.mean_sample_balanced_accuracy.tolist(),
            "groups": [list(g) for g in self.groups],
            "spread": {"mean": self.spread, "lower": self.spread_lower, "upper": self.spread_upper},
            "classical": self.classical.to_dict(), "n_draws": self.n_draws,
            "random_state": jsonable(self.random_state) if isinstance(self.random_state, int | None) else str(self.random_state),
            "mc_error": self.mc_error, "verdict": self.verdict, "notes": list(self.notes),
        }  # fmt: skip

    def __repr__(self) -> str:
        best = self.names[int(self.order[0])]
        return (f"<AcrossRanking: {len(self.names)} classifiers over {len(self.data_sets)} data "
                f"sets, best {best} (P(best) {float(np.max(self.p_best)):.3f}, expected rank "
                f"{float(np.min(self.expected_rank)):.2f})>")

    def __str__(self) -> str:
        from .display.across_text import across_ranking_table

        return across_ranking_table(self)


def _groups(order: np.ndarray, apart: np.ndarray, names: tuple) -> tuple:
    """Maximal runs (in ``order``) of classifiers no two of which are told apart."""
    runs = []
    T = order.size
    for i in range(T):
        j = i
        while j + 1 < T and not apart[np.ix_(order[i:j + 2], order[i:j + 2])].any():
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return tuple(tuple(names[int(order[x])] for x in range(a, b + 1)) for a, b in runs)


def _draws(f: MetaFit, n_draws: int, rng) -> np.ndarray:
    """``n_draws`` draws of the classifiers' effects ``theta`` (centred), shape (n_draws, T)."""
    counts = rng.multinomial(n_draws, f.weight)
    d = f.phi.shape[1]
    out = np.empty((n_draws, d))
    used = np.flatnonzero(counts)
    chol = np.linalg.cholesky(f.phi_cov[used])  # one batched factorisation
    at = 0
    for k, L in zip(used, chol, strict=True):
        out[at:at + counts[k]] = f.phi[k] + rng.standard_normal((counts[k], d)) @ L.T
        at += counts[k]
    return out @ f.basis


def _ranking(sets, names, paired, r, c, pri, notes, n_draws, random_state) -> AcrossRanking:
    T = len(names)
    y, cov, sample = _moments(sets)
    f = fit(y, cov, pri)
    gt = np.zeros((T, T))
    eq = np.zeros((T, T))
    strict = np.zeros((T, T))
    for s in range(T):
        for t in range(T):
            if s == t:
                continue
            mu, sd = f.population(f.pair(s, t))
            strict[s, t] = float(np.sum(f.weight * sc.ndtr(mu / sd)))
            left, mid, right = _three(f.weight, mu, sd, r)
            gt[s, t], eq[s, t] = right, mid
    expected = 1.0 + strict.sum(axis=0)
    rng = check_random_state(random_state)
    draws = _draws(f, n_draws, rng)
    ranks = np.argsort(np.argsort(-draws, axis=1), axis=1)  # 0 = best
    rank_p = np.stack([np.bincount(ranks[:, t], minlength=T) for t in range(T)]) / n_draws
    p_best = rank_p[:, 0].copy()
    mc = float(np.max(np.sqrt(p_best * (1 - p_best) / n_draws)))
    eff, lo, hi = np.empty(T), np.empty(T), np.empty(T)
    for t in range(T):
        g = f.basis[:, t]  # theta_t - mean(theta) = C[:, t]' phi
        mix = NormalMixture(f.weight, f.phi @ g, np.sqrt(np.einsum("i,kij,j->k", g, f.phi_cov, g)))
        eff[t] = mix.mean()
        lo[t], hi[t] = mix.interval(c)
    apart = (strict >= c) | (strict.T >= c)
    order = np.argsort(expected, kind="stable")
    grp = _groups(order, apart, names)
    spread = _spread(f, 1.0, c)
    best = int(order[0])
    verdict = (f"{names[best]} has the best expected rank ({expected[best]:.2f} of {T}) and is the "
               f"best classifier in the population with probability {p_best[best]:.3f}")
    if grp and names[best] in grp[0]:
        verdict += f"; {', '.join(x for x in grp[0] if x != names[best])} cannot be told apart from it"
    verdict += "."
    return AcrossRanking(
        names=tuple(names), data_sets=tuple(s.name for s in sets), paired=paired, rope=r,
        confidence=c, prior=types.MappingProxyType(_prior_dict(pri)),
        expected_rank=readonly(expected), p_best=readonly(p_best),
        rank_probabilities=readonly(rank_p), p_greater=readonly(gt), p_equivalent=readonly(eq),
        effect=readonly(eff), effect_lower=readonly(lo), effect_upper=readonly(hi),
        mean_sample_balanced_accuracy=readonly(sample.mean(axis=0)), groups=grp,
        spread=spread[0], spread_lower=spread[1], spread_upper=spread[2],
        classical=_classical(sample, float(f"{1 - c:.12g}")), n_draws=int(n_draws),
        random_state=random_state if isinstance(random_state, int | None) else repr(random_state),
        mc_error=mc, verdict=verdict, notes=tuple(notes),
    )  # fmt: skip


def _n_draws(n_draws) -> int:
    if n_draws is None:
        return 200_000
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or not 1000 <= n_draws <= _MAX_DRAWS:
        raise BaccError(f"n_draws must be an integer in [1000, {_MAX_DRAWS}], got {n_draws!r}")
    return int(n_draws)


def rank_across(
    data,
    predictions=None,
    *,
    groups=None,
    rope: float = DEFAULT_ROPE,
    confidence: float = 0.95,
    prior=None,
    rows: str = "true",
    n_draws: int | None = None,
    random_state=0,
) -> AcrossRanking:
    """Rank several classifiers across data sets, at the population level.

    Parameters
    ----------
    data : mapping
        ``{classifier: per-data-set results}``, each as :func:`compare_across` takes them
        (independent test sets). With ``predictions`` and ``groups=``: the true labels of
        every example.
    predictions : mapping, optional
        ``{classifier: predictions}`` of the same examples as ``data`` (paired).
    groups : sequence, optional
        The data set of each example (with label sequences).
    rope, confidence, prior, rows
        As in :func:`compare_across`.
    n_draws : int, optional
        Draws of the exact posterior for ``p_best`` and the rank probabilities (default
        200 000; the pairwise probabilities and expected ranks are exact).
    random_state : int, Generator or None
        Seed of the draws (default 0: deterministic).

    Returns
    -------
    AcrossRanking
        Expected ranks (exact), P(best) and the rank probabilities, pairwise ``P(row better
        than column by more than rope)`` and ``P(practically equivalent)``, each classifier's
        effect relative to the average, groups that cannot be told apart, and Friedman's
        test with Nemenyi's critical difference and Holm's pairwise p-values beside.

    Notes
    -----
    The model of :func:`compare_across` for ``T`` classifiers: ``y_j = theta + u_j 1 + e_j +
    eps_j`` with ``e_j ~ N(0, tau^2 I)`` and ``eps_j ~ N(0, S_j)`` (``S_j`` the covariance of
    the data set's posterior balanced accuracies: diagonal for independent test sets; for the
    same examples, from the Dirichlet posterior of each class's patterns of right and wrong
    answers, :func:`bacc._engine.meta_analysis.paired_moments`). The posterior of the
    contrasts of ``theta`` is a mixture of normals over the nodes of ``tau``, so every pairwise
    probability is a finite sum of normal CDFs and the expected ranks follow exactly.

    References
    ----------
    .. [1] Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017). Time for a change.
       Journal of Machine Learning Research 18(77), 1-36.
    .. [2] Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets.
       Journal of Machine Learning Research 7, 1-30, sections 3.2.2 (Friedman's test, the
       Nemenyi and Holm procedures) and 3.2.4 (critical-difference diagrams).
    .. [3] Röver, C. (2020). Bayesian random-effects meta-analysis using the bayesmeta R
       package. Journal of Statistical Software 93(6), 1-51.

    Examples
    --------
    >>> import bacc
    >>> res = {"A": {"d1": [[40, 10], [5, 45]], "d2": [[18, 2], [3, 17]]},
    ...        "B": {"d1": [[35, 15], [8, 42]], "d2": [[17, 3], [4, 16]]},
    ...        "C": {"d1": [[25, 25], [20, 30]], "d2": [[10, 10], [9, 11]]}}
    >>> r = bacc.rank_across(res)
    >>> r.names[int(r.order[-1])]
    'C'
    """
    c, r, pri = _settings(confidence, rope, prior)
    nd = _n_draws(n_draws)
    check_random_state(random_state)
    if groups is not None or predictions is not None:
        if groups is None or predictions is None or not isinstance(predictions, Mapping):
            raise BaccError("rank_across from labels needs y_true, predictions as a mapping "
                            "{classifier: predictions} and groups= (the data set of each example)")
        if len(predictions) < 2:
            raise BaccError(f"a ranking needs at least 2 classifiers, got {len(predictions)}")
        names = list(_distinct(predictions))
        sets, notes = _label_sets(data, predictions, groups)
        paired = True
    else:
        if not isinstance(data, Mapping):
            raise BaccError("rank_across needs a mapping {classifier: per-data-set results}, or "
                            "y_true, predictions and groups=")
        if len(data) < 2:
            raise BaccError(f"a ranking needs at least 2 classifiers, got {len(data)}")
        names = list(_distinct(data))
        sets, notes = _independent_sets({n: data[k] for n, k in zip(names, data, strict=True)}, rows)
        paired = False
    names = list(_distinct(names))
    _check_sets(sets, len(names))
    return _ranking(sets, tuple(names), paired, r, c, pri, notes, nd, random_state)


def rank_across_counts(classes, codes, n, group, groups, names, *, rope: float = DEFAULT_ROPE,
                       confidence: float = 0.95, prior=None, n_draws: int | None = None,
                       random_state=0) -> AcrossRanking:
    """:func:`rank_across` of classifiers that predicted the same examples, from counted
    tuples (true class, each classifier's prediction) per data set (see
    :func:`compare_across_counts`)."""
    c, r, pri = _settings(confidence, rope, prior)
    nd = _n_draws(n_draws)
    check_random_state(random_state)
    sets, notes = _paired_sets(tuple(classes), np.asarray(codes, dtype=np.int64),
                               np.asarray(n, dtype=np.int64), np.asarray(group, dtype=np.int64),
                               tuple(groups))
    names = _distinct(names)
    _check_sets(sets, len(names))
    return _ranking(sets, names, True, r, c, pri, notes, nd, random_state)
