"""Many subjects, one conclusion: mixed-effects inference on the population balanced accuracy.

When a classifier is trained and tested separately in each of many subjects (sessions, sites,
cameras, customers), summing their confusion matrices answers "how good was it on these
subjects' pooled examples" (fixed effects). :func:`population` answers "how good is it in the
population the subjects come from" (mixed effects; Brodersen et al. 2012, 2013): each subject
has its own class accuracies, drawn from a population distribution per class, and the
population balanced accuracy is the average over classes of the population mean accuracies.

Unlike the variational approximation of the ``micp`` package (Brodersen et al. 2013), the
posterior here is exact: the two hyperparameters of each class are integrated on an adaptive
grid (:mod:`bacc._engine.hierarchy`) and the classes are combined by convolution
(:mod:`bacc._engine.sums.grid_average`), or, where a class has its mass at 0 or 1 (perfect or
all-wrong subjects), by quadrature in the classes' logits (:class:`_EdgeSum`); results are
deterministic and accurate to about 1e-9 in the CDF (the per-subject posteriors to about 1e-6).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from scipy import special as sc

from ._engine.helpers.convert import jsonable, readonly
from ._engine.helpers.validate import MAX_COUNT, check_choice, check_confidence, unmasked
from ._engine.hierarchy import BetaBinomialPrior, ClassFit, NormalBinomialPrior
from ._engine.sums.grid_average import STEPS_PER_SD, GridSum
from .confusion import ConfusionMatrix, as_confusion_matrix, check_label_values
from .distributions import GridAverage
from .errors import BaccError
from .evaluation import PosteriorSummary
from .labels import check_classes, encode

__all__ = ["population", "Population", "PopulationClass", "SubjectResult", "MODELS"]

MODELS = ("normal-binomial", "beta-binomial")
_SUBJECT_STEPS = 12  # grid steps per sd for the per-subject posteriors (error ~1e-7)
_SPAN = 64  # components narrower than 1/_SPAN of the widest are not resolved on the grid


# ------------------------------------------------------------------------------- inputs
def _stack_from_mapping(data: Mapping, rows: str, labels):
    subjects, mats, names = [], [], None
    for subject, obj in data.items():
        try:
            cm = obj if isinstance(obj, ConfusionMatrix) else as_confusion_matrix(
                obj, rows=rows, labels=labels
            )
        except BaccError as exc:
            raise BaccError(f"subject {subject!r}: {exc}") from None
        if names is None:
            names = cm.labels
        elif tuple(cm.labels) != tuple(names):
            raise BaccError(
                f"subject {subject!r} has classes {list(cm.labels)} but the first subject has "
                f"{list(names)}: every subject needs the same classes in the same order"
            )
        subjects.append(subject)
        mats.append(cm.counts)
    if not mats:
        raise BaccError("population inference needs confusion matrices, got an empty mapping")
    return np.stack(mats), tuple(subjects), tuple(names)


def _counts_input(data, y_pred, y_true, groups, correct, totals, rows, labels):
    """Per-class correct and total examples, shape (l, m), with class and subject names."""
    if correct is not None or totals is not None:
        if correct is None or totals is None or data is not None:
            raise BaccError("give correct= and totals= together (and no confusion matrices)")
        k = _whole(correct, "correct")
        n = _whole(totals, "totals")
        if k.shape != n.shape or k.ndim not in (1, 2):
            raise BaccError(
                f"correct and totals must have the same shape, (subjects,) or (classes, subjects); "
                f"got {k.shape} and {n.shape}"
            )
        k, n = np.atleast_2d(k), np.atleast_2d(n)
        if np.any(k > n):
            c, j = np.argwhere(k > n)[0]
            raise BaccError(f"subject {j} has more correct ({k[c, j]}) than total ({n[c, j]}) examples")
        _check_subjects(n, tuple(range(k.shape[1])))
        return k, n, tuple(range(k.shape[1])), _class_names(labels, k.shape[0])
    if y_pred is not None or y_true is not None or groups is not None:
        if data is not None and y_true is not None:
            raise BaccError("give the true labels once: population(y_true, y_pred, groups=...)")
        y_true = data if y_true is None else y_true
        if y_true is None or y_pred is None or groups is None:
            raise BaccError("population from labels needs y_true, y_pred and groups= (the subject of each example)")
        data = _by_group(y_true, y_pred, groups, labels)
    if all(hasattr(data, a) for a in ("counts", "groups", "labels")):  # bacc.counts(..., by=)
        stack, subjects, names = data.counts, tuple(data.groups), tuple(data.labels)
    elif isinstance(data, Mapping):
        stack, subjects, names = _stack_from_mapping(data, rows, labels)
    elif data is None:
        raise BaccError("population needs confusion matrices (one per subject), or y_true, y_pred and groups=")
    else:
        try:
            arr = np.asarray(data)
        except (TypeError, ValueError):
            arr = np.empty(0, dtype=object)
        if arr.dtype == object or arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
            raise BaccError(
                "population needs a stack of confusion matrices of shape (subjects, classes, "
                f"classes), a mapping subject -> matrix, or grouped counts; got shape {np.shape(arr)}"
            )
        if arr.shape[0] < 2:
            raise BaccError(f"population inference needs at least 2 subjects, got {arr.shape[0]}")
        stack = np.stack([as_confusion_matrix(m, rows=rows).counts for m in _whole(arr, "counts")])
        subjects = tuple(range(stack.shape[0]))
        names = _class_names(labels, stack.shape[1])
    stack = np.asarray(stack, dtype=np.int64)
    k = np.einsum("jii->ij", stack)
    n = stack.sum(axis=2).T
    _check_subjects(n, subjects)
    return k, n, subjects, names


def _check_subjects(n, subjects) -> None:
    """Every subject needs examples (of at least one class)."""
    empty = np.flatnonzero(n.sum(axis=0) == 0)
    if empty.size:
        raise BaccError(f"subject {subjects[empty[0]]!r} has no examples")


def _class_names(labels, count: int) -> tuple:
    """Class names: ``labels`` checked (distinct, one per class) or 0, 1, ..."""
    if labels is None:
        return tuple(range(count))
    return check_classes(labels, count)


def _by_group(y_true, y_pred, groups, labels) -> dict:
    """``{subject: ConfusionMatrix}`` from labels and the subject of each example (subjects in
    :func:`bacc.labels.class_order`; a missing subject id is refused like a missing label)."""
    classes, (ti, pi) = encode({"y_true": y_true, "y_pred": y_pred}, labels=labels,
                               refuse=lambda seqs: check_label_values(*seqs.values()))
    subjects, (gi,) = encode({"groups": groups}, item="subject id")
    if gi.size != ti.size:
        raise BaccError(f"y_true, y_pred and groups must have the same length, got {ti.size}, "
                        f"{ti.size} and {gi.size}")  # fmt: skip
    n = len(classes)
    cells = np.bincount((gi * n + ti) * n + pi, minlength=len(subjects) * n * n)
    stack = cells.reshape(len(subjects), n, n)
    return {g: ConfusionMatrix(stack[i], classes) for i, g in enumerate(subjects)}


def _whole(v, name: str) -> np.ndarray:
    v = unmasked(v, name)
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"{name} must be numbers") from None
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise BaccError(f"{name} must be whole numbers (counts of examples)")
    if np.any(arr < 0):
        raise BaccError(f"{name} must not be negative (counts of examples)")
    if arr.size and arr.max() > MAX_COUNT:
        # checked before the conversion to int64, which would wrap larger values
        raise BaccError(f"{name} has a count of {arr.max():.6g}; bacc handles at most 10^13 "
                        "examples per class and subject")  # fmt: skip
    return arr.astype(np.int64)


def _prior(model: str, prior):
    cls = NormalBinomialPrior if model == "normal-binomial" else BetaBinomialPrior
    if prior is None:
        return cls()
    if isinstance(prior, cls):
        return prior
    if not isinstance(prior, Mapping):
        raise BaccError(f"prior must be a dict of {list(cls.__dataclass_fields__)}, got {prior!r}")
    allowed = set(cls.__dataclass_fields__)
    unknown = set(prior) - allowed
    if unknown:
        raise BaccError(f"unknown prior setting(s) {sorted(unknown)} for the {model} model; allowed: {sorted(allowed)}")
    values = {}
    for key, val in prior.items():
        try:
            x = float(val)
        except (TypeError, ValueError):
            raise BaccError(f"prior {key} must be a number, got {val!r}") from None
        if not np.isfinite(x) or (key != "mu0" and x <= 0):
            raise BaccError(f"prior {key} must be {'finite' if key == 'mu0' else 'a positive number'}, got {val!r}")
        values[key] = x
    return cls(**values)


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True)
class PopulationClass:
    """One class under the mixed-effects model.

    ``accuracy``: posterior summary of the class's population mean accuracy. ``spread`` and
    ``spread_sd``: posterior mean and sd of the between-subject standard deviation of the
    class accuracy (how much subjects differ). ``log_evidence``: this class's share of the
    model evidence.
    """

    label: object
    accuracy: PosteriorSummary
    spread: float
    spread_sd: float
    log_evidence: float

    def to_dict(self) -> dict:
        return {"label": jsonable(self.label), "accuracy": self.accuracy.to_dict(),
                "spread": self.spread, "spread_sd": self.spread_sd,
                "log_evidence": self.log_evidence}  # fmt: skip

    def __repr__(self) -> str:
        from .display.numbers import repr_interval, repr_level, repr_number
        a = self.accuracy
        return (f"<PopulationClass {self.label!r}: population accuracy {repr_number(a.mean)} "
                f"{repr_interval(a.lower, a.upper)} {repr_level(a.confidence)} credible, "
                f"between-subject sd {repr_number(self.spread)}>")

    def _repr_html_(self) -> str:
        from .display.html import summary_html

        return summary_html(self)


@dataclass(frozen=True)
class SubjectResult:
    """One subject: its data, its own (independent) posterior and its shrunken posterior.

    ``independent``: the posterior balanced accuracy from this subject's matrix alone (flat
    prior; :func:`bacc.evaluate`). ``shrunken``: its balanced accuracy under the mixed-effects
    model, which borrows strength from the other subjects. A class the subject has no
    examples of is left out of ``sample_balanced_accuracy`` and ``independent`` and is
    informed by the other subjects alone in ``shrunken``.
    """

    subject: object
    correct: tuple
    support: tuple
    sample_balanced_accuracy: float
    independent: PosteriorSummary
    shrunken: PosteriorSummary

    def to_dict(self) -> dict:
        return {"subject": jsonable(self.subject), "correct": list(self.correct),
                "support": list(self.support),
                "sample_balanced_accuracy": self.sample_balanced_accuracy,
                "independent": self.independent.to_dict(), "shrunken": self.shrunken.to_dict()}  # fmt: skip

    def __repr__(self) -> str:
        from .display.numbers import repr_interval, repr_level, repr_number
        s = self.shrunken
        return (f"<SubjectResult {self.subject!r}: balanced accuracy {repr_number(s.mean)} "
                f"{repr_interval(s.lower, s.upper)} {repr_level(s.confidence)} credible under "
                f"the model (own {repr_number(self.independent.mean)}), n={sum(self.support)}>")

    def _repr_html_(self) -> str:
        from .display.html import summary_html

        return summary_html(self)


@dataclass(frozen=True, eq=False)
class Population:
    """Mixed-effects inference on the population balanced accuracy (see :func:`population`).

    Attributes
    ----------
    balanced_accuracy : GridAverage
        Posterior of the population balanced accuracy (a distribution object).
    summary : PosteriorSummary
        Its mean, median, mode and central interval (computed on first access, as are
        ``classes``, ``predictive``, ``verdict`` and ``subjects``: a run that needs only the
        distribution, its CDF at a few points say, does not pay for them).
    p_above_chance : float
        ``P(population balanced accuracy > chance)``; ``micp`` reports ``1 - p_above_chance``
        (the "infraliminal probability").
    predictive : PosteriorSummary
        The posterior predictive distribution of a new subject's balanced accuracy.
    classes : tuple of PopulationClass
    log_evidence : float
        ``log p(data | model)``, for comparing models (``micp`` reports a variational lower
        bound of it, the free energy).
    fixed_effects : PosteriorSummary
        The posterior balanced accuracy of the summed matrices (fixed effects), for contrast.
    verdict : str
        One sentence on how the two answers relate.
    """

    model: str
    prior: types.MappingProxyType
    labels: tuple
    subject_names: tuple
    confidence: float
    chance: float
    correct: np.ndarray = field(repr=False)
    support: np.ndarray = field(repr=False)
    balanced_accuracy: GridAverage = field(repr=False)
    p_above_chance: float
    log_evidence: float
    fixed_effects: PosteriorSummary
    fixed_effects_p_above_chance: float
    notes: tuple
    _fits: tuple = field(repr=False, default=())
    #: the population's grid (step, each class's start and density on it, the classes summed
    #: exactly at an end): the classes' own posteriors are read from it
    _grid: tuple = field(repr=False, default=())

    def __getstate__(self) -> dict:
        # the prior is a read-only mapping (a mappingproxy, which pickle refuses): it travels
        # as a dict and is made read-only again
        state = dict(self.__dict__)
        state["prior"] = dict(self.prior)
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        state["prior"] = types.MappingProxyType(dict(state["prior"]))
        self.__dict__.update(state)

    @functools.cached_property
    def summary(self) -> PosteriorSummary:
        """Mean, median, mode and central interval of the population balanced accuracy."""
        return _summary(self.balanced_accuracy, self.confidence)[0]

    @functools.cached_property
    def classes(self) -> tuple:
        """Each class's population accuracy and between-subject spread
        (:class:`PopulationClass`)."""
        h, starts, dens, edge = self._grid
        out = []
        for i, f in enumerate(self._fits):
            what = f"class {self.labels[i]!r}"
            if i in edge or _at_an_end(f, h):
                acc = _edge_average([f], None, [f], what)
            elif dens[i].size > 2:
                acc = _grid_average([starts[i]], h, [dens[i]], what)
            else:  # a point on the population's grid: its own grid instead
                acc = _average([_population_part(f)], what)
            spread, spread_sd = f.spread()
            out.append(PopulationClass(label=self.labels[i], accuracy=_summary(acc, self.confidence)[0],
                                       spread=spread, spread_sd=spread_sd, log_evidence=f.log_evidence))  # fmt: skip
        return tuple(out)

    @functools.cached_property
    def predictive(self) -> PosteriorSummary:
        """Summary of the posterior predictive distribution of a new subject's balanced
        accuracy (:meth:`predictive_posterior` gives the distribution)."""
        return _summary(self.predictive_posterior(), self.confidence)[0]

    @functools.cached_property
    def verdict(self) -> str:
        """One sentence on how the population and the pooled (fixed-effects) answers relate."""
        return _verdict(self.summary, self.fixed_effects, self.predictive, self.confidence)

    @functools.cached_property
    def subjects(self) -> tuple:
        """Per-subject results (:class:`SubjectResult`), computed on first access."""
        return self._subject_results()

    def _subject_results(self, dense: bool = False) -> tuple:
        """The per-subject results (``dense``: see :func:`_subject_averages`)."""
        # subjects with the same counts have the same posteriors: each is computed once
        cols = np.concatenate([self.correct, self.support]).T
        _, first, inv = np.unique(cols, axis=0, return_index=True, return_inverse=True)
        shared = _subject_averages(self._fits, [int(j) for j in first], self.subject_names, dense)
        own, shrunken = [], []
        for j, d in zip(first, shared, strict=True):
            own.append(_independent(self.correct[:, j], self.support[:, j], self.confidence))
            shrunken.append(_summary(d, self.confidence)[0])
        out = []
        for j, (name, u) in enumerate(zip(self.subject_names, np.ravel(inv), strict=True)):
            k, n = self.correct[:, j], self.support[:, j]
            has = n > 0
            out.append(SubjectResult(
                subject=name, correct=tuple(int(v) for v in k), support=tuple(int(v) for v in n),
                sample_balanced_accuracy=float(np.mean(k[has] / n[has])),
                independent=own[u], shrunken=shrunken[u]))  # fmt: skip
        return tuple(out)

    def subject_posterior(self, subject) -> GridAverage:
        """Posterior of one subject's balanced accuracy under the model (by name; by position
        when no subject has that name)."""
        j = self._subject_index(subject)
        return _subject_averages(self._fits, [j], self.subject_names)[0]

    def predictive_posterior(self) -> GridAverage:
        """Posterior predictive distribution of a new subject's balanced accuracy."""
        return _subject_averages(self._fits, [None], self.subject_names)[0]

    def _subject_index(self, subject) -> int:
        if isinstance(subject, int | np.integer) and 0 <= int(subject) < len(self.subject_names):
            if subject not in self.subject_names or self.subject_names[int(subject)] == subject:
                return int(subject)
        try:
            return self.subject_names.index(subject)
        except ValueError:
            raise BaccError(f"no subject {subject!r}; subjects are {list(self.subject_names)[:10]}") from None

    def to_dict(self) -> dict:
        """Plain dict (JSON-ready)."""
        return {
            "model": self.model, "prior": dict(self.prior),
            "labels": [jsonable(v) for v in self.labels], "confidence": self.confidence,
            "chance": self.chance, "balanced_accuracy": self.summary.to_dict(),
            "p_above_chance": self.p_above_chance, "log_evidence": self.log_evidence,
            "classes": [c.to_dict() for c in self.classes],
            "predictive": self.predictive.to_dict(),
            "fixed_effects": {**self.fixed_effects.to_dict(),
                              "p_above_chance": self.fixed_effects_p_above_chance},
            "verdict": self.verdict, "notes": list(self.notes),
            "subjects": [s.to_dict() for s in self.subjects],
        }  # fmt: skip

    def __repr__(self) -> str:
        """One line: the population balanced accuracy's posterior mean, credible interval and
        P(> chance), the subjects and the model (``print()`` gives the full tables)."""
        from .display.numbers import repr_interval, repr_level, repr_number, repr_probability
        s = self.summary
        what = "accuracy" if len(self.labels) == 1 else "balanced accuracy"
        return (
            f"<Population: population {what} {repr_number(s.mean)} "
            f"{repr_interval(s.lower, s.upper)} {repr_level(self.confidence)} credible, "
            f"P(>chance){repr_probability(self.p_above_chance)}, "
            f"{len(self.subject_names)} subjects, {len(self.labels)} "
            f"{'class' if len(self.labels) == 1 else 'classes'}, {self.model} model>"
        )

    def __str__(self) -> str:
        from .display.text import population_table

        return population_table(self)

    def _repr_html_(self) -> str:
        from .display.html import population_html

        return population_html(self)


def _summary(dist, c: float, threshold: float | None = None):
    """(PosteriorSummary, P(> threshold)) of a distribution, from one call of its ``summary``."""
    s = dist.summary(c, threshold)
    out = PosteriorSummary(mean=float(s["mean"]), median=float(s["median"]), mode=float(s["mode"]),
                           lower=float(s["lower"]), upper=float(s["upper"]), confidence=c)  # fmt: skip
    return out, s.get("p_above")


def _independent(k, n, c) -> PosteriorSummary:
    """A subject's own posterior balanced accuracy (flat prior), over the classes it has."""
    from .posterior import BalancedAccuracyPosterior

    has = n > 0
    l = int(has.sum())
    post = BalancedAccuracyPosterior(k[has] + 1.0, n[has] - k[has] + 1.0, np.full(l, 1.0 / l),
                                     list(range(l)), 1.0 / max(l, 2))  # fmt: skip
    return _summary(post, c)[0]


def _population_part(fit: ClassFit):
    """(density(g, h), lo, hi, sd, mean) of a class's population accuracy."""
    lo, hi = fit.population_range()
    mean, sd = fit.population_moments()
    return (lambda g, h: fit.population_density(g)), lo, hi, sd, mean


def _step(sds, steps: int) -> float:
    """The grid step for components of these sds: a ``steps``-th of the narrowest, but at most
    ``_SPAN`` times finer than the widest needs (narrower components then enter as points)."""
    return max(float(np.min(sds)), float(np.max(sds)) / _SPAN, 1e-12) / steps


def _point(mean: float, h: float) -> tuple[float, np.ndarray]:
    """A component far narrower than the step, as a point mass at its mean (split between the
    two nearest grid points, which keeps the mean; the variance it leaves out is below
    ``(h/3)^2``, a ``(1 / (3 _SPAN))^2`` share of the sum's)."""
    j = np.floor(mean / h)
    frac = mean / h - j
    return float(j * h), np.array([1.0 - frac, frac]) / h


def _subject_averages(fits, js, names, dense: bool = False) -> list[GridAverage]:
    """Balanced-accuracy posteriors of subjects ``js`` (``None``: a new subject).

    Subjects whose steps (a ``_SUBJECT_STEPS``-th of their narrowest class sd, see
    :func:`_step`) are within a factor 4 share, per class, one grid spanning 16 sds either side
    of each of their means; all their densities on it come from matrix products
    (:meth:`ClassFit.subject_densities`, each subject on its own stretch of the grid), and each
    subject's average over classes is tabulated from its own stretch of each class grid.
    ``dense=True``: the moments and densities of every subject at every node and grid point
    (the same numbers to rounding, for checks).
    """
    if dense:
        moms = np.array([[f.subject_moments(j) for j in js] for f in fits])  # (l, J, 2)
    else:
        moms = np.stack([f.subjects_moments(js) for f in fits])  # (l, J, 2)
    mean, sd = moms[..., 0], np.maximum(moms[..., 1], 1e-12)
    steps = np.array([_step(sd[:, c], _SUBJECT_STEPS) for c in range(len(js))])
    order = np.argsort(steps, kind="stable")
    out: list = [None] * len(js)
    start = 0
    while start < len(order):
        stop = start + 1
        while stop < len(order) and steps[order[stop]] <= 4 * steps[order[start]]:
            stop += 1
        group = order[start:stop]
        h = float(steps[group].min())
        point = sd[:, group] < 3 * h  # (l, G)
        lo = np.maximum(mean[:, group] - 16 * sd[:, group], 0.5 * h)
        hi = np.minimum(mean[:, group] + 16 * sd[:, group], 1.0 - 0.5 * h)
        # per class, the subjects whose ranges overlap share one grid (one matrix product)
        pieces: dict = {}  # (class, column in group) -> (start, density)
        for i, f in enumerate(fits):
            cols = np.flatnonzero(~point[i])
            cols = cols[np.argsort(lo[i, cols], kind="stable")]
            while cols.size:
                top, take = hi[i, cols[0]], 1
                while take < cols.size and lo[i, cols[take]] <= top:
                    top = max(top, hi[i, cols[take]])
                    take += 1
                part, cols = cols[:take], cols[take:]
                g0 = float(lo[i, part].min())
                g = g0 + h * np.arange(int(np.ceil((float(top) - g0) / h)) + 1)
                g = g[g < 1.0]
                cut = []
                for col in part:
                    a = int(np.searchsorted(g, lo[i, col]))
                    b = max(int(np.searchsorted(g, hi[i, col], side="right")), a + 8)
                    cut.append((a, min(b, g.size)))
                dens = f.subject_densities([js[group[c]] for c in part], g, h, spans=cut, dense=dense)
                for q, (col, (a, b)) in enumerate(zip(part, cut, strict=True)):
                    pieces[i, col] = (float(g[a]), dens[a:b, q])
        for col, c in enumerate(group):
            starts, parts = [], []
            for i in range(len(fits)):
                s0, d = _point(float(mean[i, c]), h) if point[i, col] else pieces[i, col]
                starts.append(s0)
                parts.append(d)
            what = "new subject" if js[c] is None else f"subject {names[js[c]]!r}"
            out[c] = _grid_average(starts, h, parts, what)
        start = stop
    return out


def _average(parts, what: str, steps: int = STEPS_PER_SD) -> GridAverage:
    """The average of the classes' variables from their density functions.

    Each density is sampled on one grid of step ``h`` (a ``steps``-th of the narrowest
    class's sd), over the stretch where the class has its mass, and the average's
    distribution is tabulated by :class:`bacc._engine.sums.grid_average.GridSum`.
    """
    h, starts, dens = _sampled(parts, what, steps)
    return _grid_average(starts, h, dens, what)


def _grid_average(starts, h, dens, what) -> GridAverage:
    table = GridSum(starts, h, dens, 1.0 / len(dens))
    mean, var, m3 = table.moments()
    return GridAverage(table, mean, var, m3, what)


def _edge_average(ends, rest, fits, what: str) -> GridAverage:
    """The average of all ``fits``' population accuracies by :class:`_EdgeSum` (``ends``: the
    classes with mass at 0 or 1; ``rest``: the others' sum, or None), with exact moments."""
    l = len(fits)
    mom = np.array([f.population_moments() for f in fits])
    m3 = sum(f.population_m3() for f in fits)
    table = _EdgeSum(ends, rest, l)
    return GridAverage(table, mom[:, 0].mean(), float((mom[:, 1] ** 2).sum()) / l**2, m3 / l**3, what)


def _sampled(parts, what: str, steps: int):
    """The common step and each part's start and density samples (see :func:`_average`);
    a part far narrower than the step (:func:`_step`) enters as a point at its mean."""
    h = _step([p[3] for p in parts], steps)
    starts, dens = [], []
    for fn, lo, hi, sd, mean in parts:
        if sd < 3 * h:
            s0, d = _point(mean, h)
            starts.append(s0)
            dens.append(d)
            continue
        lo = max(lo, 0.5 * h)
        hi = min(hi, 1.0 - 0.5 * h)
        g = lo + h * np.arange(max(int(np.ceil((hi - lo) / h)) + 1, 8))
        g = g[g < 1.0]
        starts.append(lo)
        dens.append(fn(g, h))
    return h, starts, dens


# --------------------------------------------------------------------------------- main
def population(
    data=None,
    y_pred=None,
    *,
    y_true=None,
    groups=None,
    correct=None,
    totals=None,
    model: str = "normal-binomial",
    prior=None,
    confidence: float = 0.95,
    rows: str = "true",
    labels=None,
) -> Population:
    """Mixed-effects inference on the population balanced accuracy from many subjects.

    Parameters
    ----------
    data : array_like (m, l, l), mapping, grouped counts, or true labels
        One confusion matrix per subject: a stack, a ``{subject: matrix}`` mapping (every
        matrix over the same classes), or the result of ``bacc.counts(..., by="subject")``.
        With ``y_pred`` and ``groups``, the true labels of all examples.
    y_pred, y_true, groups : sequence, optional
        Predicted labels, true labels and the subject of each example.
    correct, totals : array_like, optional
        ``micp``'s form instead of matrices: correct and total examples per class and subject,
        shape ``(l, m)``; shape ``(m,)`` for one class, the accuracy (then chance is 0.5).
    model : {"normal-binomial", "beta-binomial"}
        ``normal-binomial`` (default, as ``micp``): per class, subjects' logit accuracies are
        ``N(mu, 1/lambda)`` with ``mu ~ N(0, 1)`` and ``lambda ~ Gamma(shape 1, scale 1)``;
        the population accuracy is ``sigmoid(mu)``. ``beta-binomial``: subjects' accuracies
        are ``Beta(alpha, beta)``, the population accuracy is ``alpha / (alpha + beta)``, with
        a uniform prior on it and on ``(alpha + beta)^(-1/2)`` in ``(0, 10)`` (the diffuse
        prior of Brodersen et al. 2012, bounded so that the evidence exists).
    prior : dict, optional
        Settings of the model's prior: ``mu0, eta0, a0, b0`` (normal-binomial: ``mu ~ N(mu0,
        1/eta0)``, ``lambda ~ Gamma(shape a0, scale b0)``) or ``am, bm, s_max``
        (beta-binomial).
    confidence : float
        Mass of the central credible intervals (default 0.95).
    rows : {"true", "predicted"}
        Orientation of the matrices.
    labels : sequence, optional
        Class names (order of the matrices' classes).

    Returns
    -------
    Population
        The posterior of the population balanced accuracy (a distribution object) and its
        summary, ``P(> chance)``, the posterior predictive of a new subject, each class's
        population accuracy and between-subject spread, each subject's own and shrunken
        posterior, the log evidence, and the fixed-effects result beside it.

    Notes
    -----
    Classes are independent a posteriori (independent priors, likelihoods that factorise), so
    the population balanced accuracy ``(1/l) sum_i sigmoid(mu_i)`` is a convolution of the
    classes' posteriors. Each class's two hyperparameters are integrated on a grid adapted to
    the posterior, each subject's marginal likelihood computed at every node (normal-binomial:
    trapezoidal sums on a fine logit grid, or adaptive Gauss-Hermite quadrature where the
    population density is the narrower; beta-binomial: closed form); see
    :mod:`bacc._engine.hierarchy`. The result is deterministic; its own convergence checks
    put it within about 1e-9 of the exact CDF, and the tests check it against mpmath (each
    subject's marginal likelihood, to 2e-9), a long MCMC run of the same model (within its
    Monte Carlo error, ~1e-4), a dense plain grid (beta-binomial evidence and means, to 1e-8)
    and by simulation-based calibration, and at the closed-form edges (beta-binomial with one
    example per subject: exactly ``Beta(am + K, bm + M - K)``, all perfect, all wrong, a class
    seen in one subject only). A class with mass within a few grid steps of 0 or 1 (a
    beta-binomial class of perfect subjects has a density that jumps at 1) is not summed on
    the grid, whose trapezoidal convolution assumes densities that vanish smoothly, but by
    quadrature in its logit, split where the other classes' sum reaches an end of its range
    (:class:`_EdgeSum`). The per-subject posteriors are tabulated more
    coarsely (12 steps per sd): to about 1e-6, except where mass piles up at 0 or 1 (a new
    subject's predictive law, whose small population precisions put mass near both ends, and
    perfect or all-wrong subjects under the beta-binomial model): the exact mass beyond the
    grid's outer cells is placed on them, which moves the mean by at most a 24th of an sd
    (measured: 3e-4 sd).

    ``micp`` fits the same normal-binomial model by mean-field variational Bayes, which
    treats the population mean and the between-subject precision as independent and each
    subject's logit accuracy as normal. It is close for many subjects with many examples and
    overconfident for few: on ``micp``'s own accuracy example (5 subjects, 100 trials each) it
    reports ``P(accuracy < 0.5) = 2.8e-7`` where the exact posterior gives ``3.0e-3``, and a
    95% interval [0.720, 0.896] where the exact one is wider (see the README).

    A subject with no examples of a class adds nothing about that class; its shrunken
    posterior for that class is the population's predictive one (reported in ``notes``).

    References
    ----------
    .. [1] Brodersen, K. H., Mathys, C., Chumbley, J. R., Daunizeau, J., Ong, C. S., Buhmann,
       J. M. & Stephan, K. E. (2012). Bayesian mixed-effects inference on classification
       performance in hierarchical data sets. Journal of Machine Learning Research 13,
       3133-3176, sections 2-3 (beta-binomial and normal-binomial models, the balanced
       accuracy as an average over classes).
    .. [2] Brodersen, K. H., Daunizeau, J., Mathys, C., Chumbley, J. R., Buhmann, J. M. &
       Stephan, K. E. (2013). Variational Bayesian mixed-effects inference for
       classification studies. NeuroImage 76, 345-361, section 2 (the normal-binomial model
       and its default priors).

    Examples
    --------
    The balanced-accuracy example of ``micp`` (rows: positive, negative class):

    >>> import bacc
    >>> pop = bacc.population(correct=[[40, 44, 18, 42, 44], [48, 41, 65, 49, 32]],
    ...                       totals=[[45, 51, 20, 46, 48], [55, 49, 80, 54, 32]])
    >>> round(pop.summary.mean, 3)
    0.846
    >>> pop.p_above_chance > 0.999
    True
    """
    check_choice(model, MODELS, "model")
    c = check_confidence(confidence)
    pr = _prior(model, prior)
    k, n, subjects, names = _counts_input(data, y_pred, y_true, groups, correct, totals, rows, labels)
    l, m = k.shape
    if m < 2:
        raise BaccError(f"population inference needs at least 2 subjects, got {m}")
    none = np.flatnonzero(n.sum(axis=1) == 0)
    if none.size:
        raise BaccError(f"class {names[none[0]]!r} has no examples in any subject")
    notes = []
    for i, j in np.argwhere(n == 0):
        notes.append(f"subject {subjects[j]!r} has no examples of class {names[i]!r}: "
                     "the other subjects inform it")  # fmt: skip
    fits = tuple(ClassFit(k[i], n[i], model, pr) for i in range(l))
    h, starts, dens = _sampled([_population_part(f) for f in fits], "population balanced accuracy", STEPS_PER_SD)
    edge = [i for i, f in enumerate(fits) if _at_an_end(f, h)]
    levels = len(edge) - (len(edge) == l)  # an end class is the innermost when none is smooth
    if edge and levels > _MAX_LEVELS:
        notes.append(f"{len(edge)} of the {l} classes have much of their mass at 0 or 1 (perfect "
                     "or all-wrong subjects): the population balanced accuracy is summed on a "
                     "grid that assumes smooth densities, to about 1e-4 rather than 1e-9 (exact: "
                     "one such class beside smooth ones, or two classes)")  # fmt: skip
        edge = []
    what = "population balanced accuracy"
    if edge:
        smooth = [i for i in range(l) if i not in edge]
        rest = GridSum([starts[i] for i in smooth], h, [dens[i] for i in smooth], 1.0) if smooth else None
        dist = _edge_average([fits[i] for i in edge], rest, fits, what)
    else:
        dist = _grid_average(starts, h, dens, what)
    chance = 0.5 if l == 1 else 1.0 / l
    fixed, fixed_p = _fixed_effects(k.sum(axis=1), n.sum(axis=1), c, chance)
    return Population(
        model=model, prior=types.MappingProxyType(dict(vars(pr))), labels=names,
        subject_names=subjects, confidence=c, chance=chance, correct=readonly(k),
        support=readonly(n), balanced_accuracy=dist, p_above_chance=float(dist.p_above(chance)),
        log_evidence=float(sum(f.log_evidence for f in fits)), fixed_effects=fixed,
        fixed_effects_p_above_chance=fixed_p, notes=tuple(notes), _fits=fits,
        _grid=(h, tuple(starts), tuple(dens), tuple(edge)),
    )  # fmt: skip


_EDGE_STEPS = 8  # a class with mass within this many grid steps of 0 or 1 ...
_EDGE_MASS = 1e-4  # ... beyond this is summed by the end-exact method (:class:`_EdgeSum`)
_MAX_LEVELS = 1  # nested quadratures at most (their cost grows as nodes^levels)
_W = 36.0  # the logistic map's range in w (the ends left out hold below e^-36)


def _end_logit(h: float) -> float:
    """``t > 0`` such that the accuracies within ``_EDGE_STEPS`` steps ``h`` of 0 or 1 are the
    logits below ``-t`` and above ``t``."""
    edge = min(_EDGE_STEPS * h, 0.25)
    return float(np.log1p(-edge) - np.log(edge))


def _end_mass(fit: ClassFit, h: float) -> float:
    """Mass of a class's population accuracy within ``_EDGE_STEPS`` steps ``h`` of 0 or 1."""
    t = _end_logit(h)
    v = fit.logit_table.values(np.array([-t, t]), ("cdf", "sf"))
    return float(v["cdf"][0] + v["sf"][1])


def _at_an_end(fit: ClassFit, h: float) -> bool:
    """Whether :func:`_end_mass` is above ``_EDGE_MASS``: the class is summed by
    :class:`_EdgeSum`.

    Decided by the bounds of that mass from the fit's quadrature weights
    (:meth:`ClassFit.tail_mass_bounds`) where they lie, with a factor of 2 to spare, on one side
    of ``_EDGE_MASS``; otherwise by the mass itself, which needs the class's logit density
    tabulated (:attr:`ClassFit.logit_table`; a quarter of the time of a typical population
    fit, which a class without mass at the ends does not need otherwise). The bounds hold to
    the quadrature rule's own accuracy, far inside the factor of 2, so the decision is the one
    the mass gives: ``tests/test_mixed_effects_edges.py`` checks the bounds against the mass,
    and the decision, on fits from smooth to all perfect.
    """
    lo, hi = fit.tail_mass_bounds(_end_logit(h))
    if hi < 0.5 * _EDGE_MASS:
        return False
    if lo > 2.0 * _EDGE_MASS:
        return True
    return _end_mass(fit, h) > _EDGE_MASS


class _EdgeSum:
    """Distribution of the average of classes' population accuracies, exact at 0 and 1.

    The table behind :class:`bacc.distributions.GridAverage` where some classes have their
    mass at an end of [0, 1] (``edge``): a beta-binomial class all of whose subjects are
    perfect has a density that jumps at 1 (``Beta(m + 1, 1)`` for ``m`` subjects of one
    example each), one with a single imperfect subject a kink there, and so on; the
    trapezoidal convolution of :class:`~bacc._engine.sums.grid_average.GridSum` assumes densities that
    vanish smoothly and errs by ``O(h)`` to ``O(h^3)`` on them. Here each such class is
    integrated in its logit ``x``, where its density is smooth and decays exponentially:

    ``P(Y + R <= L) = int q(x) F_R(L - sigmoid(x)) dx``

    with ``q`` the class's logit density (:attr:`ClassFit.logit_table`) and ``R`` the sum of
    the other classes (recursively; the classes without mass at the ends are one
    :class:`~bacc._engine.sums.grid_average.GridSum`, smooth). ``F_R`` is smooth except where its
    argument reaches an end of ``R``'s support or, when ``R`` has no smooth part, an integer
    (a sum of ends); the ``x`` axis is split at those points and each piece ``[a, b]`` mapped
    by ``x = a + (b - a) sigmoid(w)``, which turns an algebraic behaviour at a piece's ends
    into an exponential decay in ``w``, so the trapezoidal rule in ``w`` converges
    geometrically (Stenger's sinc quadrature); its step is halved until the sums agree to
    1e-13. The density is the same integral of ``R``'s density; its slope a central
    difference.

    References
    ----------
    .. [1] Stenger, F. (1993). Numerical Methods Based on Sinc and Analytic Functions.
       Springer, section 4.2 (sinc quadrature after a map that decays exponentially at the
       ends of an interval).
    .. [2] Brodersen, K. H. et al. (2012). Journal of Machine Learning Research 13,
       3133-3176, section 3.3 (the population balanced accuracy, an average over classes).
    """

    def __init__(self, ends, smooth, count: int) -> None:
        self._ends = tuple(f.logit_table for f in ends)
        self._smooth = smooth  # GridSum of the other classes' sum (scale 1), or None
        self._count = count
        sd = [f.population_moments()[1] for f in ends]
        self._sd = float(np.sqrt(np.sum(np.square(sd))))
        self._logit_sd = [f.logit_moments()[1] for f in ends]
        smooth_var = 0.0 if smooth is None else smooth.moments()[1]
        # the sd of the sum of the classes after each end class (and of the smooth part)
        self._rest_sd = [float(np.sqrt(np.sum(np.square(sd[i + 1 :])) + smooth_var)) or 1.0
                         for i in range(len(ends))]  # fmt: skip

    # --------------------------------------------------------------------------- the sum
    def _tails(self, L: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(cdf, sf, pdf) of the sum of end classes ``depth..`` and the smooth part at ``L``."""
        ends = self._ends[depth:]
        if not ends:
            v = self._smooth.values(L, ("cdf", "sf", "pdf"))
            return v["cdf"], v["sf"], v["pdf"]
        table = ends[0]
        if len(ends) == 1 and self._smooth is None:
            cdf, sf, pdf = np.zeros(L.size), np.ones(L.size), np.zeros(L.size)
            cdf[L >= 1.0], sf[L >= 1.0] = 1.0, 0.0
            inside = np.flatnonzero((L > 0.0) & (L < 1.0))
            u = L[inside]
            v = table.values(np.log(u) - np.log1p(-u), ("cdf", "sf", "pdf"))
            cdf[inside], sf[inside] = v["cdf"], v["sf"]
            pdf[inside] = v["pdf"] / (u * (1.0 - u))
            return cdf, sf, pdf
        # the rest's support [r_lo, r_hi] and the points where its distribution function has
        # a kink (its support's ends, and the integers between when it has no smooth part)
        rest = len(ends) - 1
        if self._smooth is None:
            kinks = np.arange(rest + 1, dtype=float)
            r_lo, r_hi = 0.0, float(rest)
        else:
            r_lo, r_hi = self._smooth.lo, self._smooth.hi + rest
            kinks = np.array([r_lo, r_hi])
        lo, hi = table.lo, table.hi
        u = L[:, None] - kinks[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            cut = np.where(u <= 0.0, hi, np.where(u >= 1.0, lo, np.log(u) - np.log1p(-u)))
        ends_ = np.full((L.size, 1), lo), np.full((L.size, 1), hi)
        bounds = np.sort(np.clip(np.concatenate([ends_[0], cut, ends_[1]], axis=1), lo, hi), axis=1)
        cdf, sf, pdf = np.zeros(L.size), np.zeros(L.size), np.zeros(L.size)
        # the resolution of the map's linear part: a quarter of the class's logit sd, and of
        # the rest's sd in accuracy (its scale in x is at least 4 times that)
        r = min(self._logit_sd[depth], self._rest_sd[depth]) / 4.0
        for p in range(bounds.shape[1] - 1):
            a, b = bounds[:, p], bounds[:, p + 1]
            mid = 0.5 * (a + b)
            um = L - np.exp(-np.logaddexp(0.0, -mid))
            mass = b > a
            above = mass & (um >= r_hi)  # the rest is below L - sigmoid(x) throughout: F_R = 1
            below = mass & (um <= r_lo)  # ... above it throughout: F_R = 0
            for sel, target in ((above, cdf), (below, sf)):
                if sel.any():
                    v = table.values(np.concatenate([a[sel], b[sel]]), ("cdf", "sf"))
                    k = int(sel.sum())
                    # the mass of the piece, from the nearer tail for accuracy
                    target[sel] += np.where(mid[sel] < 0, v["cdf"][k:] - v["cdf"][:k], v["sf"][:k] - v["sf"][k:])
            inside = np.flatnonzero(mass & ~above & ~below)
            if inside.size:
                c, s, d = self._piece(L[inside], a[inside], b[inside], r, depth)
                cdf[inside] += c
                sf[inside] += s
                pdf[inside] += d
        return cdf, sf, pdf

    def _piece(self, L, a, b, r: float, depth: int):
        """The three integrals over the pieces ``[a, b]`` where the rest's distribution is not
        0 or 1: the map ``x = a + r (softplus(t) - softplus(t - T))``, ``T = (b - a) / r``,
        is linear (step ``r``) inside and approaches each end exponentially, which turns an
        algebraic behaviour there into an exponential decay in ``t``; the trapezoidal rule in
        ``t`` (step 1/2, halved until the sums agree to 1e-12) then converges geometrically."""
        span = (b - a) / r
        top = float(span.max())
        step = 0.5
        t = np.arange(-_W, top + _W + step / 2, step)
        sums = self._map_sums(L, a, span, r, t, depth) * step
        for _ in range(8):
            step /= 2
            mid = np.arange(-_W + step, top + _W, 2 * step)
            new = 0.5 * sums + self._map_sums(L, a, span, r, mid, depth) * step
            change = np.abs(new - sums)
            done = change[:2].max() <= 1e-12 and change[2].max() <= 1e-10 * max(np.abs(new[2]).max(), 1.0)
            sums = new
            if done:
                break
        return sums[0], sums[1], sums[2]

    def _map_sums(self, L, a, span, r: float, t, depth: int) -> np.ndarray:
        """Sums over the nodes ``t`` of the integrands (cdf, sf, pdf) times the map's slope."""
        table = self._ends[depth]
        tt = t[None, :]
        s = span[:, None]
        x = a[:, None] + r * (np.logaddexp(0.0, tt) - np.logaddexp(0.0, tt - s))
        jac = r * (sc.expit(tt) - sc.expit(tt - s))
        q = table.values(x.ravel(), ("pdf",))["pdf"].reshape(x.shape) * jac
        arg = (L[:, None] - np.exp(-np.logaddexp(0.0, -x))).ravel()
        out = np.empty((3, L.size))
        for i, f in enumerate(self._tails(arg, depth + 1)):
            out[i] = (q * f.reshape(x.shape)).sum(axis=1)
        return out
    # ------------------------------------------------------------------- GridSum surface
    def values(self, x, kinds) -> dict[str, np.ndarray]:
        """cdf, sf, pdf and the slope of the density (``dpdf``) of the average at ``x``."""
        x = np.asarray(x, dtype=float)
        n = float(self._count)
        cdf, sf, pdf = self._tails(n * x, 0)
        out = {"cdf": np.clip(cdf, 0.0, 1.0), "sf": np.clip(sf, 0.0, 1.0), "pdf": n * pdf}
        if "dpdf" in kinds:
            d = 1e-5 * max(self._sd, 1e-6) / n
            up = self._tails(n * (x + d), 0)[2]
            down = self._tails(n * (x - d), 0)[2]
            out["dpdf"] = n * (up - down) / (2 * d)
        return out


def _fixed_effects(k, n, c, chance):
    from .posterior import BalancedAccuracyPosterior

    l = k.size
    post = BalancedAccuracyPosterior(k + 1.0, n - k + 1.0, np.full(l, 1.0 / l), list(range(l)), chance)
    s, p = _summary(post, c, chance)
    return s, float(p)


def _verdict(pop: PosteriorSummary, fixed: PosteriorSummary, pred: PosteriorSummary, c: float) -> str:
    """One plain sentence on how the population (mixed-effects) and pooled answers relate."""
    pct = f"{100 * c:g}%"
    w_pop, w_fix = pop.upper - pop.lower, fixed.upper - fixed.lower
    ratio = w_pop / w_fix if w_fix > 0 else float("inf")
    if not (pop.lower <= fixed.mean <= pop.upper):
        return (f"The pooled (fixed-effects) estimate {fixed.mean:.3f} lies outside the population's "
                f"{pct} interval [{pop.lower:.3f}, {pop.upper:.3f}]: subjects differ, and pooling "
                "weights them by their numbers of examples; report the population result.")  # fmt: skip
    if not (fixed.lower <= pop.mean <= fixed.upper):
        return (f"The population estimate {pop.mean:.3f} lies outside the pooled (fixed-effects) "
                f"{pct} interval [{fixed.lower:.3f}, {fixed.upper:.3f}], which describes only these "
                "subjects' pooled examples; report the population result.")  # fmt: skip
    if ratio > 1.5:
        return (f"Subjects differ more than their examples explain: the population's {pct} interval "
                f"is {ratio:.1f} times as wide as the pooled (fixed-effects) one, which describes only "
                "these subjects' pooled examples; report the population result.")  # fmt: skip
    return (f"Subjects differ little: the population and pooled (fixed-effects) answers agree "
            f"(intervals {ratio:.1f} times as wide); a new subject's balanced accuracy is expected in "
            f"[{pred.lower:.3f}, {pred.upper:.3f}].")  # fmt: skip
