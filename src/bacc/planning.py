"""Label planning: how many labels to collect, and which class to label next.

A deployed classifier is checked on labelled examples. Before collecting them, two questions:

* **How many?** :func:`plan_labels` finds the smallest number of further labels with which the
  exact interval bacc will report (:func:`bacc.exact_interval`, union bound of Sandler & Dirac
  2024 over per-class Clopper-Pearson bounds) meets a goal -- its lower bound clears ``t``, or
  the two-sided interval is at most ``w`` wide -- with a required probability (the
  *assurance*, e.g. 0.8).
* **Which next?** :func:`next_label` says which class's next labelled example reduces the
  expected width of that interval (or raises its expected lower bound, or the probability that
  it clears ``t``) the most.

The class accuracies are unknown; both use a *design prior*: the posterior of each class
accuracy given the labels so far (Beta, flat prior by default; Brodersen et al. 2010), a prior
guess given as pseudo-counts, or fixed accuracies. The assurance is the probability of meeting
the goal averaged over that prior and the future counts (per class beta-binomial), computed by
exact sums over the per-class outcome distributions, or by vectorised simulation with its
Monte Carlo error -- never by a normal approximation.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._engine.beta import posterior_parameters
from ._engine.bounds.assurance import AssuranceModel
from ._engine.bounds.per_class import cp_bounds, per_bound_alpha
from ._engine.helpers.deprecation import renamed_arguments
from ._engine.helpers.validate import (
    MAX_CLASSES,
    check_choice,
    check_confidence,
    check_int,
    check_prior,
    check_random_state,
)
from .confusion import ConfusionMatrix, as_confusion_matrix
from .errors import BaccError
from .labels import check_classes, per_class

__all__ = ["LabelPlan", "NextClass", "NextLabel", "next_label", "plan_labels"]

#: Largest number of further labels a plan searches (per plan).
MAX_LABELS = 10**7
#: Growth of the allocation path of a stratified plan: each step adds this share of the labels
#: so far to one class (at least one label); the last step is then refined label by label.
PATH_STEP = 0.05
#: Largest two-class stratified plan whose split is refined by trying the neighbouring splits.
REFINE_MAX = 2000
#: Largest number of Clopper-Pearson bounds one exact sum over a class mix may need
#: (``method="auto"``); beyond it the plan is simulated.
EXACT_MIX_WORK = 1_000_000
PLAN_METHODS = ("auto", "exact", "simulate")
NEXT_CRITERIA = ("width", "lower", "clear")


def _jsonable(x):
    if isinstance(x, np.generic):
        return x.item()
    return x if isinstance(x, str | int | float | bool) or x is None else str(x)


# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelPlan:
    """Result of :func:`plan_labels`: how many more labels, and per class.

    Attributes
    ----------
    goal : {"lower", "width"}
        ``"lower"``: the exact lower bound of the balanced accuracy clears ``target``;
        ``"width"``: the exact two-sided interval is at most ``target`` wide.
    target : float
    confidence : float
        Confidence of the exact interval.
    sides : {"lower", "two"}
        One-sided lower bound or the two-sided interval (always two for ``goal="width"``).
    required_assurance : float
        The probability of meeting the goal that was asked for.
    design : {"stratified", "mix"}
        ``"stratified"``: the class of each label is chosen; ``"mix"``: labels arrive in the
        class proportions ``mix`` (class sizes multinomial).
    mix : tuple of float or None
    labels : int or None
        Further labels needed in total (None when the goal cannot be reached, or not within
        ``max_labels``).
    per_class : tuple of float
        Further labels per class: chosen (stratified) or expected, ``labels * mix`` (mix).
    assurance : float
        Probability of meeting the goal with ``labels`` further labels (nan when not reached).
    assurance_one_fewer : float
        The same with one label fewer (nan for a plan of 0 labels): below ``required_assurance``.
    one_fewer_per_class : tuple of float
        The allocation with one label fewer.
    mc_se : float
        Monte Carlo standard error of the assurances (0 for exact sums).
    method : {"exact", "simulate"}
    n_sim : int
        Simulated labelling outcomes (0 for exact sums).
    reachable : bool
        False when even unlimited labels meet the goal with probability below the required
        assurance (``limit_assurance``).
    limit_assurance : float
        Probability of meeting the goal as the number of labels grows without bound (for
        ``"lower"``: the design prior's probability that the balanced accuracy exceeds
        ``target``).
    budget : int or None
    budget_assurance : float or None
        Probability of meeting the goal with ``budget`` further labels.
    budget_per_class : tuple of float
        Their allocation (stratified) or expected class sizes (mix).
    class_labels : tuple
    correct, support : tuple of int
        Correct answers and labels per class so far.
    current_value : float
        The exact lower bound (``"lower"``) or width (``"width"``) now (``empty="keep"``: a
        class without labels has bounds [0, 1]).
    prior : str
        The design prior, in words.
    message : str
        One sentence: the plan, or why there is none.
    """

    goal: str
    target: float
    confidence: float
    sides: str
    required_assurance: float
    design: str
    mix: tuple[float, ...] | None
    labels: int | None
    per_class: tuple[float, ...]
    assurance: float
    assurance_one_fewer: float
    one_fewer_per_class: tuple[float, ...]
    mc_se: float
    method: str
    n_sim: int
    reachable: bool
    limit_assurance: float
    budget: int | None
    budget_assurance: float | None
    budget_per_class: tuple[float, ...]
    class_labels: tuple
    correct: tuple[int, ...]
    support: tuple[int, ...]
    current_value: float
    prior: str
    message: str

    @property
    def within_budget(self) -> bool | None:
        """``labels <= budget`` (None without a budget)."""
        if self.budget is None:
            return None
        return self.labels is not None and self.labels <= self.budget

    def to_dict(self) -> dict:
        """JSON-able dictionary."""

        def fl(x):
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)

        return {
            "goal": self.goal,
            "target": float(self.target),
            "confidence": float(self.confidence),
            "sides": self.sides,
            "required_assurance": float(self.required_assurance),
            "design": self.design,
            "mix": None if self.mix is None else [float(x) for x in self.mix],
            "labels": self.labels,
            "per_class": [float(x) for x in self.per_class],
            "assurance": fl(self.assurance),
            "assurance_one_fewer": fl(self.assurance_one_fewer),
            "one_fewer_per_class": [float(x) for x in self.one_fewer_per_class],
            "mc_se": float(self.mc_se),
            "method": self.method,
            "n_sim": int(self.n_sim),
            "reachable": bool(self.reachable),
            "limit_assurance": float(self.limit_assurance),
            "budget": self.budget,
            "budget_assurance": fl(self.budget_assurance),
            "budget_per_class": [float(x) for x in self.budget_per_class],
            "within_budget": self.within_budget,
            "class_labels": [_jsonable(x) for x in self.class_labels],
            "correct": [int(x) for x in self.correct],
            "support": [int(x) for x in self.support],
            "current_value": float(self.current_value),
            "prior": self.prior,
            "message": self.message,
        }

    def __repr__(self) -> str:
        """One line: the goal, the labels needed (per class) and the assurance (``print()``
        gives the plan in full)."""
        from .display.numbers import repr_level, repr_number
        if self.goal == "lower":
            goal = (f"exact {repr_level(self.confidence)} lower bound of the balanced accuracy "
                    f"> {self.target:g}")
        else:
            goal = f"exact {repr_level(self.confidence)} interval at most {self.target:g} wide"
        if self.labels is None:
            return f"<LabelPlan: {goal}: no plan ({'not reachable' if not self.reachable else 'not within the limit'})>"
        per = ", ".join(f"{x:g}" for x in self.per_class[:6]) + (", ..." if len(self.per_class) > 6 else "")
        return (f"<LabelPlan: {goal}: {self.labels} more labels ({per} per class, {self.design}), "
                f"assurance {repr_number(self.assurance)}>")

    def __str__(self) -> str:
        from .display.planning_text import plan_text

        return plan_text(self)

    def _repr_html_(self) -> str:
        from .display.html import text_html

        return text_html(repr(self), str(self))


@dataclass(frozen=True)
class NextClass:
    """One class in :class:`NextLabel`: what one more labelled example of it is expected to do.

    Attributes
    ----------
    label
    correct, support : int
        Counts so far.
    p_correct : float
        Predictive probability that the next example of this class is classified correctly.
    expected_width : float
        Expected width of the exact two-sided interval after one more example of this class.
    expected_lower : float
        Expected exact lower bound after it.
    p_clear : float
        Probability that the lower bound then exceeds the target (nan without a target).
    """

    label: Any
    correct: int
    support: int
    p_correct: float
    expected_width: float
    expected_lower: float
    p_clear: float

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "label": _jsonable(self.label),
            "correct": int(self.correct),
            "support": int(self.support),
            "p_correct": float(self.p_correct),
            "expected_width": float(self.expected_width),
            "expected_lower": float(self.expected_lower),
            "p_clear": None if math.isnan(self.p_clear) else float(self.p_clear),
        }

    def __repr__(self) -> str:
        from .display.numbers import repr_number
        return (f"<NextClass {self.label!r}: {self.correct}/{self.support} correct, expected width "
                f"{repr_number(self.expected_width)} and lower bound "
                f"{repr_number(self.expected_lower)} after one more>")

    def _repr_html_(self) -> str:
        from .display.html import summary_html

        return summary_html(self)


@dataclass(frozen=True)
class NextLabel:
    """Result of :func:`next_label`: the class to label next, and every class's effect.

    Attributes
    ----------
    best : object
        Label of the class whose next example helps most under ``criterion``.
    best_index : int
    criterion : {"width", "lower", "clear"}
    classes : tuple of NextClass
    current_width, current_lower : float
        Exact interval width (two-sided) and lower bound (``sides``) now.
    confidence : float
    sides : {"lower", "two"}
        Which lower bound (one-sided, or the lower end of the two-sided interval).
    target : float or None
    prior : str
    by : {"true", "predicted"}
        Whether the rows are true classes (pick an example of that class) or predicted classes
        (pick an example the classifier assigned to that class; its true class is revealed).
    interval : {"exact", "anytime"}
        The interval improved: the exact union-bound interval or the anytime-valid sequence.
    """

    best: Any
    best_index: int
    criterion: str
    classes: tuple[NextClass, ...]
    current_width: float
    current_lower: float
    confidence: float
    sides: str
    target: float | None
    prior: str
    by: str = "true"
    interval: str = "exact"

    def to_dict(self) -> dict:
        """JSON-able dictionary."""
        return {
            "interval": self.interval,
            "by": self.by,
            "best": _jsonable(self.best),
            "best_index": int(self.best_index),
            "criterion": self.criterion,
            "current_width": float(self.current_width),
            "current_lower": float(self.current_lower),
            "confidence": float(self.confidence),
            "sides": self.sides,
            "target": None if self.target is None else float(self.target),
            "prior": self.prior,
            "classes": [c.to_dict() for c in self.classes],
        }

    def __repr__(self) -> str:
        """One line: the class to label next, by which criterion, and the interval now."""
        from .display.numbers import repr_number
        best = self.classes[self.best_index]
        after = (f"expected lower bound {repr_number(best.expected_lower)}"
                 if self.criterion != "width" else f"expected width {repr_number(best.expected_width)}")
        return (f"<NextLabel: label class {self.best!r} next (criterion {self.criterion}: {after}; "
                f"now width {repr_number(self.current_width)}, lower bound "
                f"{repr_number(self.current_lower)})>")

    def __str__(self) -> str:
        from .display.planning_text import next_label_text

        return next_label_text(self)

    def _repr_html_(self) -> str:
        from .display.html import text_html

        return text_html(repr(self), str(self))


# ----------------------------------------------------------------------------------------------
# validation
def current_counts(cm, n_classes, rows, labels) -> tuple[tuple, np.ndarray, np.ndarray, np.ndarray]:
    """Class labels, correct answers and labels per class so far, and the matrix (rows = true
    class); an empty matrix allowed."""
    if cm is None:
        l = 2 if n_classes is None else check_int(n_classes, "n_classes", 2, MAX_CLASSES)
        labs = tuple(range(l)) if labels is None else check_classes(labels)
        if len(labs) != l:
            raise BaccError(f"labels must name the {l} classes, got {len(labs)}")
        zero = np.zeros(l, dtype=np.int64)
        return labs, zero, zero.copy(), np.zeros((l, l), dtype=np.int64)
    if not isinstance(cm, ConfusionMatrix):
        try:
            arr = np.asarray(cm)
        except (TypeError, ValueError):
            arr = None
        if (arr is not None and arr.ndim == 2 and arr.shape[0] == arr.shape[1]
                and arr.shape[0] >= 2 and arr.dtype.kind in "iuf" and np.all(arr == 0)):
            # nothing labelled yet: a valid start for a plan
            return current_counts(None, arr.shape[0], rows, labels)
        cm = as_confusion_matrix(cm, rows=rows, labels=labels)
    if cm.n_classes < 2:
        raise BaccError("planning needs at least two classes")
    if n_classes is not None and check_int(n_classes, "n_classes", 2, MAX_CLASSES) != cm.n_classes:
        raise BaccError(f"n_classes is {n_classes} but the matrix has {cm.n_classes} classes")
    return (tuple(cm.labels), cm.correct.astype(np.int64), cm.support.astype(np.int64),
            np.asarray(cm.counts, dtype=np.int64))


def design_prior(prior, accuracies, k, n, classes) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, str]:
    """Beta parameters of the design prior (current posterior), or fixed accuracies."""
    l = k.size
    if accuracies is not None:
        p = per_class(accuracies, classes, "accuracies")
        if p.shape == ():
            p = np.full(l, float(p))
        if p.shape != (l,):
            raise BaccError(f"accuracies needs one value per class ({l}), got shape {p.shape}")
        if not np.all(np.isfinite(p)) or np.any((p < 0) | (p > 1)):
            raise BaccError(f"accuracies must lie in [0, 1], got {p.tolist()}")
        text = "fixed class accuracies " + ", ".join(f"{x:g}" for x in p)
        return np.ones(l), np.ones(l), p, text
    a0, b0 = check_prior(prior, l, classes=classes)
    a, b = posterior_parameters(k, n, a0, b0)
    if np.ptp(a0) == 0 and np.ptp(b0) == 0:
        base = "flat" if (a0[0], b0[0]) == (1.0, 1.0) else f"Beta({a0[0]:g}, {b0[0]:g})"
    else:
        base = "per-class Beta"
    return a, b, None, f"posterior of each class accuracy ({base} prior and the labels so far)"


def check_unit(value, name: str, *, closed_high: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise BaccError(f"{name} must be a number in (0, 1), got {value!r}")
    v = float(value)
    if not (0.0 < v < 1.0 or (closed_high and v == 1.0)):
        high = "1]" if closed_high else "1)"
        raise BaccError(f"{name} must lie in (0, {high}, got {v!r}")
    return v


def check_mix(mix, l: int, classes) -> np.ndarray | None:
    if mix is None:
        return None
    s = per_class(mix, classes, "mix")
    if s.shape != (l,):
        raise BaccError(f"mix needs one share per class ({l}), got shape {s.shape}")
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise BaccError(
            "mix shares must be > 0 (a class that never arrives never gets a bound better than "
            f"its current one), got {s.tolist()}"
        )
    if abs(s.sum() - 1.0) > 1e-6:
        raise BaccError(f"mix shares must sum to 1, they sum to {float(s.sum()):.6g}")
    return s / s.sum()


# ----------------------------------------------------------------------------------------------
class _Search:
    """The assurance of candidate plans (cached) and the stratified allocation path."""

    def __init__(self, model: AssuranceModel, method: str, shares, n0_total: int, *,
                 auto: bool = False, n_sim: int = 0, random_state=None) -> None:
        self.model = model
        self.method = method
        self.shares = shares
        self.n0_total = n0_total
        self.auto = auto
        self.n_sim = n_sim
        self.random_state = random_state
        self._memo: dict = {}

    def exact_work(self, total: int) -> float:
        """Clopper-Pearson bounds one exact sum over the class mix needs at ``total``."""
        q = float(self.shares[1])
        sizes = min(total + 1, 14.0 * math.sqrt(total * q * (1.0 - q)) + 1.0)
        m = self.model  # about 14 standard deviations of outcomes are left after trimming
        return sizes * sum(min(mi + 1, 14.0 * m.count_sd(i, mi) + 1.0)
                           for i, mi in enumerate((round(total * (1 - q)), round(total * q))))

    def affordable(self, total: int) -> None:
        """With ``method="auto"``, switch a mix plan to simulation where exact sums would need
        more than :data:`EXACT_MIX_WORK` bounds per evaluation."""
        if (self.auto and self.method == "exact" and self.shares is not None
                and self.exact_work(total) > EXACT_MIX_WORK):
            self.method = "simulate"
            self.model.prepare_draws(self.n_sim, check_random_state(self.random_state))
            self._memo.clear()

    def assurance(self, alloc) -> float:
        key = alloc if isinstance(alloc, int) else tuple(int(x) for x in alloc)
        hit = self._memo.get(key)
        if hit is None:
            m = self.model
            if self.shares is not None:
                if self.method == "exact":
                    hit = m.exact_mix(int(alloc), self.shares)
                else:
                    hit = m.simulate(m.mix_sizes(int(alloc), self.shares))[0]
            elif self.method == "exact":
                hit = m.exact_stratified(key)
            else:
                hit = m.simulate(np.asarray(key))[0]
            self._memo[key] = hit
        return hit

    def quick(self, alloc) -> float:
        """A quick assurance of a stratified allocation, to bracket the plan: exact sums on
        binned outcomes (up to three classes), else the simulation itself."""
        if self.method == "simulate" or self.model.l > 3:
            return self.assurance(alloc)
        key = ("quick", tuple(int(x) for x in alloc))
        if key not in self._memo:
            self._memo[key] = self.model.approx_stratified(alloc)
        return self._memo[key]

    def step(self, m: np.ndarray) -> tuple[int, int]:
        """The next step of the stratified path from allocation ``m``: class and size."""
        mod = self.model
        delta = max(1, int(PATH_STEP * (self.n0_total + int(m.sum()))))
        sign = 1.0 if mod.goal == "lower" else -1.0
        gains = [
            sign * mod.w[i] * (mod.expected(i, int(m[i]) + delta) - mod.expected(i, int(m[i])))
            for i in range(mod.l)
        ]
        return int(np.argmax(gains)), delta

    def allocation_at(self, total: int) -> np.ndarray:
        """The stratified allocation of ``total`` further labels on the path."""
        m = np.zeros(self.model.l, dtype=np.int64)
        while m.sum() < total:
            i, d = self.step(m)
            m[i] += min(d, total - int(m.sum()))
        return m


def _plan_stratified(s: _Search, need: float, cap: int):
    """Smallest allocation on the path that meets ``need``; (allocation, one fewer) or None.

    The path is walked with quick assurances (binned outcomes, :meth:`approx_stratified`;
    for more than three classes the simulation itself) at points 25 % apart; the bracket they
    give is then confirmed -- and moved if need be -- with the method's assurance, and
    bisected over the path's points and, last, label by label within its final step.
    """
    l = s.model.l
    m = np.zeros(l, dtype=np.int64)
    if s.assurance(m) >= need:
        return m, None
    quick = s.quick
    path = [m.copy()]  # allocations after each step; path[0] = nothing more
    marks = [0]  # path indices where the quick assurance was taken
    while int(m.sum()) < cap:
        i, d = s.step(m)
        m[i] += min(d, cap - int(m.sum()))
        path.append(m.copy())
        total = int(m.sum())
        if total >= 1.25 * int(path[marks[-1]].sum()) or total == cap:
            marks.append(len(path) - 1)
            if quick(m) >= need:
                break
    # confirm the bracket with the method's own assurance
    hi_mark = len(marks) - 1
    while s.assurance(path[marks[hi_mark]]) < need:
        if marks[hi_mark] == len(path) - 1:
            return None  # the path ends (at the cap) below the assurance
        # the quick guess passed too early: walk on to the next marks
        total = int(path[-1].sum())
        nxt = max(total + 1, int(1.25 * total))
        m = path[-1].copy()
        while int(m.sum()) < min(nxt, cap):
            i, d = s.step(m)
            m[i] += min(d, cap - int(m.sum()))
            path.append(m.copy())
        marks.append(len(path) - 1)
        hi_mark = len(marks) - 1
    lo_mark = hi_mark - 1
    while lo_mark > 0 and s.assurance(path[marks[lo_mark]]) >= need:
        lo_mark -= 1
    lo, hi = marks[lo_mark], marks[lo_mark + 1]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if s.assurance(path[mid]) >= need:
            hi = mid
        else:
            lo = mid
    base, top = path[hi - 1], path[hi]
    i = int(np.flatnonzero(top != base)[0])
    jlo, jhi = 0, int(top[i] - base[i])
    while jhi - jlo > 1:
        mid = (jlo + jhi) // 2
        cand = base.copy()
        cand[i] += mid
        if s.assurance(cand) >= need:
            jhi = mid
        else:
            jlo = mid
    best = base.copy()
    best[i] += jhi
    prev = best.copy()
    prev[i] -= 1
    return best, prev


def _refine_two_classes(s: _Search, need: float, best: np.ndarray):
    """Two classes, stratified: fewer labels in another split, while one meets ``need``.

    From the path's plan of ``N`` labels, every split of ``N - 1`` labels within
    ``max(10, N / 4)`` of the path's is tried; while one meets the assurance (the best is kept)
    ``N`` goes down. The split of one label fewer returned is the best one that fails.
    """
    best = np.asarray(best, dtype=np.int64)
    prev = None
    while int(best.sum()) > 0:
        n_less = int(best.sum()) - 1
        reach = max(10, n_less // 4)
        centre = round(best[0] * n_less / max(1, int(best.sum())))
        cands = [np.array([m0, n_less - m0]) for m0 in
                 range(max(0, centre - reach), min(n_less, centre + reach) + 1)]
        probs = [s.assurance(c) for c in cands]
        top = int(np.argmax(probs))
        if probs[top] < need:
            prev = cands[top]
            break
        best = cands[top]
    return best, prev


def _expected_sizes(total: int, shares: np.ndarray) -> np.ndarray:
    """``total`` split in proportion to ``shares`` (largest remainders)."""
    raw = total * shares
    m = np.floor(raw).astype(np.int64)
    rest = total - int(m.sum())
    if rest:
        m[np.argsort(m - raw, kind="stable")[:rest]] += 1
    return m


def _plan_mix(s: _Search, need: float, cap: int):
    """Smallest total meeting ``need``; (total, total - 1) or None.

    The exact sum over the class sizes costs one stratified evaluation per likely size, so the
    search is first run on a cheap surrogate (the sizes fixed at their expectations, outcomes
    binned; simulated for more than three classes); the mix itself is then bracketed around
    that total by steps doubling outward, and bisected.
    """
    if s.assurance(0) >= need:
        return 0, None
    shares = s.shares

    def surrogate(t: int) -> bool:
        key = ("fixed", s.method, t)
        if key not in s._memo:
            m = _expected_sizes(t, shares)
            s._memo[key] = (s.model.approx_stratified(m) if s.model.l <= 3
                            else s.model.simulate(m)[0])
        return s._memo[key] >= need

    lo, hi = 0, 1
    while not surrogate(hi) and hi < cap:
        lo, hi = hi, min(2 * hi, cap)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if surrogate(mid) else (mid, hi)
    guess, step = hi, max(1, hi // 50)
    s.affordable(guess)
    if s.assurance(guess) >= need:
        hi = guess
        while True:
            cand = max(0, hi - step)
            if s.assurance(cand) < need:
                lo = cand
                break
            hi, step = cand, 2 * step
    else:
        lo = guess
        while True:
            cand = min(cap, lo + step)
            if s.assurance(cand) >= need:
                hi = cand
                break
            if cand >= cap:
                return None
            lo, step = cand, 2 * step
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if s.assurance(mid) >= need:
            hi = mid
        else:
            lo = mid
    return hi, hi - 1


@renamed_arguments(n_sim="n_simulations")
def plan_labels(
    cm=None,
    *,
    lower: float | None = None,
    width: float | None = None,
    confidence: float = 0.95,
    assurance: float = 0.8,
    sides: str | None = None,
    mix: Sequence[float] | None = None,
    budget: int | None = None,
    prior=(1.0, 1.0),
    accuracies: Sequence[float] | float | None = None,
    n_classes: int | None = None,
    method: str = "auto",
    n_simulations: int = 20_000,
    random_state=0,
    max_labels: int = 1_000_000,
    rows: str = "true",
    labels=None,
) -> LabelPlan:
    """How many more labels until the exact interval meets a goal with a given assurance.

    Parameters
    ----------
    cm : ConfusionMatrix, array_like or None
        The labels so far (rows = true class unless ``rows="predicted"``); an all-zero matrix or
        None when nothing is labelled yet (then ``n_classes``, default 2).
    lower : float, optional
        Goal: the exact lower bound of the balanced accuracy (at ``confidence``) exceeds this.
    width : float, optional
        Goal: the exact two-sided interval (at ``confidence``) is at most this wide. Give
        exactly one of ``lower`` and ``width``.
    confidence : float
        Confidence of the exact interval (default 0.95).
    assurance : float
        Required probability of meeting the goal (default 0.8).
    sides : {"lower", "two"}, optional
        For ``lower``: the one-sided lower bound (default; per-class level ``delta / l``) or the
        lower end of the two-sided interval (``delta / (2 l)``). ``width`` is always two-sided.
    mix : sequence of float, optional
        Labels arrive in these class proportions (e.g. the deployment mix), so the class sizes
        are multinomial and the plan is a total. Default: stratified, the class of every label
        is chosen and the plan gives labels per class.
    budget : int, optional
        Also report the assurance with this many further labels.
    prior : pair, sequence of pairs, or "flat" / "jeffreys"
        Beta prior of each class accuracy; with the labels so far it gives the design prior
        (a prior guess: pseudo-counts, e.g. ``(18, 2)`` for "about 0.9, worth 20 labels").
    accuracies : float or sequence of float, optional
        Fixed class accuracies to plan for instead of the posterior (the assurance is then the
        frequentist probability of meeting the goal at these accuracies).
    n_classes : int, optional
        Number of classes when ``cm`` is None.
    method : {"auto", "exact", "simulate"}
        ``"exact"``: sums over the per-class beta-binomial outcomes (two classes; three when
        stratified); ``"simulate"``: ``n_simulations`` simulated labelling outcomes with common random
        numbers, the assurance with its Monte Carlo error (``mc_se``). ``"auto"`` sums exactly
        where it can, and simulates a two-class mix whose exact sums would need more than
        10^6 Clopper-Pearson bounds per candidate (``method`` of the result says which).
    n_simulations : int
        Simulated outcomes (``"simulate"``).
    random_state : None, int or numpy.random.Generator
        Seed of ``"simulate"`` (default 0, so the plan repeats; None draws fresh entropy).
    max_labels : int
        Largest number of further labels searched (default 10^6).
    rows, labels
        How to read ``cm`` when it is a plain matrix.

    Returns
    -------
    LabelPlan
        ``labels`` (total), ``per_class``, ``assurance`` and ``assurance_one_fewer`` (the plan
        is the smallest on its path: one label fewer falls short), ``limit_assurance``,
        ``budget_assurance`` and a one-sentence ``message``. An unreachable goal gives
        ``reachable=False`` and ``labels=None`` (no exception).

    Raises
    ------
    BaccError
        Invalid matrix, goal, confidence, assurance, mix, budget, prior or method.

    See Also
    --------
    next_label : which class to label next.
    bacc.exact_interval : the interval the plan is about.

    Notes
    -----
    With ``K_i`` the correct answers of class ``i`` after ``m_i`` further labels
    (``K_i - k_i ~ BetaBinom(m_i, a_i + k_i, b_i + n_i - k_i)``, independent classes), the
    union-bound lower bound is ``sum_i w_i L(K_i, n_i + m_i)`` with ``L`` the Clopper-Pearson
    lower bound at ``delta / l`` (one-sided) or ``delta / (2 l)`` (two-sided); the assurance
    ``P(sum_i w_i L_i > t)`` is a convolution of the per-class discrete distributions of
    ``L_i``, summed exactly (for a mix, also over the binomial class sizes). As labels grow,
    the bound tends to the balanced accuracy ``lambda``, so the assurance tends to
    ``P(lambda > t)`` under the design prior: a goal with ``P(lambda > t) < assurance`` is
    unreachable. A stratified plan follows a path that gives each next step of labels to the
    class raising the expected bound (or lowering the expected width) most, then takes the
    smallest point on that path meeting the assurance (bisection; the assurance is not
    exactly monotone, as Clopper-Pearson bounds are step functions); for two classes the
    neighbouring splits of each smaller total are then tried while one still meets the
    assurance. Plan the number, then collect it: labelling until the bound first clears
    ``t`` (optional stopping) would void the coverage of the exact interval, which holds for a
    sample size fixed in advance; to stop when a bound clears, use the anytime-valid bound and
    :func:`bacc.plan_sequential`.

    References
    ----------
    .. [1] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, appendix A (union bound).
    .. [3] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124 (Beta posterior of each class accuracy).

    Examples
    --------
    How many more labels until the exact 95 % interval is at most 0.2 wide, with
    probability 0.8? The small class needs almost all of them:

    >>> import bacc
    >>> plan = bacc.plan_labels([[42, 3], [6, 4]], width=0.2)
    >>> plan.labels, plan.per_class
    (102, (3.0, 99.0))
    >>> round(plan.assurance, 3), round(plan.assurance_one_fewer, 3)
    (0.811, 0.763)

    Labels that arrive in the deployment mix, 95 % negatives:

    >>> bacc.plan_labels([[95, 5], [2, 8]], lower=0.7, mix=[0.95, 0.05]).labels
    383
    """
    labs, k, n, _ = current_counts(cm, n_classes, rows, labels)
    l = k.size
    if (lower is None) == (width is None):
        raise BaccError("give exactly one goal: lower=t (the exact lower bound clears t) or "
                        "width=w (the exact interval is at most w wide)")
    goal = "lower" if lower is not None else "width"
    target = check_unit(lower, "lower") if goal == "lower" else check_unit(
        width, "width", closed_high=True)
    c = check_confidence(confidence)
    need = check_confidence(assurance, "assurance")
    if sides is None:
        sides = "lower" if goal == "lower" else "two"
    check_choice(sides, ("lower", "two"), "sides")
    if goal == "width" and sides != "two":
        raise BaccError("a width goal is about the two-sided interval; leave sides unset or 'two'")
    shares = check_mix(mix, l, labs)
    check_choice(method, PLAN_METHODS, "method")
    cap = check_int(max_labels, "max_labels", 1, MAX_LABELS)
    if budget is not None:
        budget = check_int(budget, "budget", 0, MAX_LABELS)
    check_int(n_simulations, "n_simulations", 100, 10**7)
    a, b, fixed, prior_text = design_prior(prior, accuracies, k, n, labs)
    w = np.full(l, 1.0 / l)
    alpha = per_bound_alpha(c, l, sides, "union")
    model = AssuranceModel(k, n, a, b, fixed, w, alpha, sides, goal, target)
    auto = method == "auto"
    if auto:
        method = "exact" if (l == 2 or (l == 3 and shares is None)) else "simulate"
    if method == "exact" and shares is not None and l != 2:
        raise BaccError("exact sums over a class mix are for two classes; use method='simulate'")
    if method == "simulate":
        model.prepare_draws(n_simulations, check_random_state(random_state))
    search = _Search(model, method, shares, int(n.sum()), auto=auto, n_sim=n_simulations,
                     random_state=random_state)
    current = float(w @ model.contribution(k, n))

    if goal == "lower":
        if fixed is not None:
            limit = 1.0 if float(w @ fixed) > target else 0.0
        else:
            from .distributions import BetaSum

            limit = float(BetaSum(a, b, w).sf(target))
    else:
        limit = 1.0
    def _alloc(x) -> tuple[float, ...]:
        if shares is not None:
            return tuple(float(x) * float(v) for v in shares)
        return tuple(float(v) for v in x)

    def _plan(**kw) -> LabelPlan:
        """The result, with the budget's assurance by the method the search ended with."""
        budget_p, budget_alloc = None, ()
        if budget is not None:
            if shares is not None:
                search.affordable(budget)
                b_alloc = budget
            else:
                b_alloc = search.allocation_at(budget)
            budget_p = search.assurance(b_alloc)
            budget_alloc = _alloc(b_alloc)
        sim = search.method == "simulate"
        p = kw.get("assurance", math.nan)
        return LabelPlan(
            goal=goal, target=target, confidence=c, sides=sides, required_assurance=need,
            design="stratified" if shares is None else "mix",
            mix=None if shares is None else tuple(float(v) for v in shares),
            method=search.method, n_sim=n_simulations if sim else 0, limit_assurance=limit,
            budget=budget, budget_assurance=budget_p, budget_per_class=budget_alloc,
            class_labels=labs, correct=tuple(int(x) for x in k),
            support=tuple(int(x) for x in n), current_value=current, prior=prior_text,
            mc_se=math.sqrt(p * (1.0 - p) / n_simulations) if sim and p == p else 0.0, **kw)

    what = (f"the exact {'lower bound' if sides == 'lower' else 'two-sided interval lower end'} "
            f"clears {target:g}" if goal == "lower"
            else f"the exact {100 * c:g}% interval is at most {target:g} wide")
    none = dict(labels=None, per_class=(), assurance=math.nan, assurance_one_fewer=math.nan,
                one_fewer_per_class=())
    if limit < need:
        why = (f"the design prior gives P(balanced accuracy > {target:g}) = {limit:.4f}"
               if fixed is None else
               f"the fixed accuracies give a balanced accuracy of {float(w @ fixed):.4g}")
        msg = (f"Unreachable: even with unlimited labels, P({what}) tends to {limit:.4f}, below "
               f"the required {need:g} ({why}; more labels cannot make the goal likelier)"
               + (". Nothing is labelled yet: give a prior guess of the class accuracies, as "
                  "prior pseudo-counts or fixed accuracies" if n.sum() == 0 and fixed is None
                  else ""))
        return _plan(reachable=False, message=msg, **none)
    if goal == "width":
        # even cap more labels in every class cannot make an interval narrower than the
        # Clopper-Pearson pair of an all-right (or all-wrong) class, 1 - alpha^(1 / n)
        narrowest = float(w @ -np.expm1(math.log(alpha) / (n + cap)))
        if target < narrowest:
            msg = (f"Not within {cap:,} further labels: with them the exact interval is at "
                   f"least {narrowest:.3g} wide, whatever the answers")
            return _plan(reachable=True, message=msg, **none)
    found = _plan_mix(search, need, cap) if shares is not None else _plan_stratified(
        search, need, cap)
    if found is None:
        msg = (f"Not within {cap:,} further labels: P({what}) stays below {need:g} "
               f"(it tends to {limit:.4f} with unlimited labels)")
        return _plan(reachable=True, message=msg, **none)
    best, prev = found
    if shares is None and method == "exact" and l == 2 and 0 < int(np.sum(best)) <= REFINE_MAX:
        best, prev = _refine_two_classes(search, need, best)
    total = int(best) if shares is not None else int(np.sum(best))
    p_best = search.assurance(best)
    p_prev = math.nan if prev is None else search.assurance(prev)
    if total == 0:
        msg = f"No more labels needed: {what} already (the current value is {current:.4f})"
    else:
        per = _alloc(best)
        how = ("per class: " + ", ".join(f"{x:,.0f}" for x in per) if shares is None
               else "arriving in the mix " + ", ".join(f"{x:g}" for x in shares))
        msg = (f"{total:,} more labels ({how}): P({what}) = {p_best:.4f} "
               f">= {need:g}; with one fewer {p_prev:.4f}")
    return _plan(labels=total, per_class=_alloc(best), assurance=p_best,
                 assurance_one_fewer=p_prev,
                 one_fewer_per_class=() if prev is None else _alloc(prev), reachable=True,
                 message=msg)


# ----------------------------------------------------------------------------------------------
def _exact_outcomes(k, n, w, a_two, a_low, sides):
    """Width and lower bound of the union-bound interval now, and after one more example of
    each class classified right (column 0) or wrong (column 1)."""
    l = k.size

    def bounds(kk, nn, alpha, s):
        lo, hi = cp_bounds(kk, nn, alpha, s)
        empty = np.asarray(nn) == 0
        return np.where(empty, 0.0, lo), np.where(empty, 1.0, hi)

    lo2, hi2 = bounds(k, n, a_two, "two")
    lo1, _ = bounds(k, n, a_low, sides)
    width_now = float(w @ (hi2 - lo2))
    lower_now = float(w @ lo1)
    # every class's two outcomes at once: correct (k + 1, n + 1) and wrong (k, n + 1)
    kk = np.concatenate([k + 1, k])
    nn = np.concatenate([n + 1, n + 1])
    l2, h2 = bounds(kk, nn, a_two, "two")
    l1, _ = bounds(kk, nn, a_low, sides)
    wid = np.stack([width_now + w * ((h2[:l] - l2[:l]) - (hi2 - lo2)),
                    width_now + w * ((h2[l:] - l2[l:]) - (hi2 - lo2))], axis=1)
    low = np.stack([lower_now + w * (l1[:l] - lo1), lower_now + w * (l1[l:] - lo1)], axis=1)
    return wid, low, width_now, lower_now


def _anytime_outcomes(k, n, w, c, sides, tuned_for, classes):
    """The same for the anytime-valid sequence (:mod:`bacc.anytime`): the joint bound moves
    with every class, so each of the ``2 l + 1`` count vectors is solved (in one call)."""
    from ._engine.bounds import anytime as engine
    from .anytime import check_tuned_for

    l = k.size
    tuned = np.broadcast_to(check_tuned_for(tuned_for, classes), (l,)).astype(float)
    eye = np.eye(l)
    kk = np.vstack([k, k + eye, k + 0 * eye]).astype(float)
    nn = np.vstack([n, n + eye, n + eye]).astype(float)
    alpha = 1.0 - c
    lo2, hi2 = engine.weighted_bounds(kk, nn, tuned, w, alpha, "two")
    if sides == "two":
        lo1 = lo2
    else:
        lo1, _ = engine.weighted_bounds(kk, nn, tuned, w, alpha, "lower")
    width = hi2 - lo2
    wid = np.stack([width[1:l + 1], width[l + 1:]], axis=1)
    low = np.stack([lo1[1:l + 1], lo1[l + 1:]], axis=1)
    return wid, low, float(width[0]), float(lo1[0])


def next_label(
    cm=None,
    *,
    criterion: str = "width",
    target: float | None = None,
    confidence: float = 0.95,
    sides: str = "lower",
    prior=(1.0, 1.0),
    accuracies: Sequence[float] | float | None = None,
    by: str = "true",
    mix: Sequence[float] | None = None,
    n_classes: int | None = None,
    interval: str = "exact",
    tuned_for=None,
    rows: str = "true",
    labels=None,
) -> NextLabel:
    """Which class's next labelled example improves the exact interval most (in expectation).

    Parameters
    ----------
    cm : ConfusionMatrix, array_like or None
        The labels so far; an all-zero matrix or None (``n_classes``) when there are none.
    criterion : {"width", "lower", "clear"}
        ``"width"``: smallest expected width of the exact two-sided interval; ``"lower"``:
        largest expected exact lower bound; ``"clear"``: largest probability that the lower
        bound exceeds ``target`` (ties broken by the expected lower bound).
    target : float, optional
        ``t`` for ``"clear"`` (and reported as ``p_clear`` with the other criteria).
    confidence : float
        Confidence of the exact interval.
    sides : {"lower", "two"}
        The lower bound: one-sided (default) or the lower end of the two-sided interval.
    prior, accuracies, n_classes, rows, labels
        As in :func:`plan_labels`: the predictive probability that the next example of class
        ``i`` is classified correctly is the posterior mean ``(a_i + k_i) / (a_i + b_i + n_i)``
        (or the fixed accuracy).
    by : {"true", "predicted"}
        ``"true"``: you can pick an example of a given true class (e.g. from a pool sorted by
        another source). ``"predicted"``: you pick an unlabelled example by what the
        classifier *predicted*; its true class is revealed by the label, with predictive
        probability ``P(true i | predicted j) ∝ pi_i E[R_ij]`` (``R_ij``: the rate at which true
        class ``i`` is predicted as ``j``, posterior mean ``(C_ij + 1) / (n_i + l)``; ``pi``:
        ``mix``). Each row of the result is then a predicted class, and ``p_correct`` is the
        probability that its example is of that class.
    mix : sequence of float, optional
        ``by="predicted"``: the class shares ``pi`` of the unlabelled pool (default: the shares
        of the labels so far, i.e. they were a random sample of the pool; equal shares when
        there are none).
    interval : {"exact", "anytime"}
        The interval to improve: the exact union-bound interval (default), or the
        anytime-valid sequence of :func:`bacc.anytime_interval` (for labelling until its bound
        clears a goal, :func:`bacc.plan_sequential`).
    tuned_for : float or per-class option, optional
        ``interval="anytime"``: as in :func:`bacc.anytime_interval`.

    Returns
    -------
    NextLabel
        ``best`` (the class to label next) and, per class, the expected width and lower bound
        after one more example of it, and ``p_clear``.

    See Also
    --------
    plan_labels : how many labels in total.

    Notes
    -----
    Exact: one more example of class ``i`` is correct with predictive probability ``p_i``, so
    ``E[width] = p_i W(k_i + 1, n_i + 1) + (1 - p_i) W(k_i, n_i + 1)`` with the other classes
    unchanged, ``W`` the union-bound interval (Sandler & Dirac 2024). A class without labels
    has bounds [0, 1] (``exact_interval(empty="keep")``), so its first label matters most.

    References
    ----------
    .. [1] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024, appendix A (union bound).
    .. [3] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124.

    Examples
    --------
    >>> import bacc
    >>> nl = bacc.next_label([[42, 3], [6, 4]])
    >>> nl.best  # the class with 10 examples, not the one with 45
    1
    >>> nl.classes[1].expected_width < nl.classes[0].expected_width < nl.current_width
    True
    """
    labs, k, n, counts = current_counts(cm, n_classes, rows, labels)
    l = k.size
    check_choice(criterion, NEXT_CRITERIA, "criterion")
    check_choice(by, ("true", "predicted"), "by")
    if mix is not None and by != "predicted":
        raise BaccError("mix= goes with by='predicted' (the class shares of the unlabelled pool)")
    c = check_confidence(confidence)
    check_choice(sides, ("lower", "two"), "sides")
    t = None if target is None else check_unit(target, "target")
    if criterion == "clear" and t is None:
        raise BaccError("criterion 'clear' needs target= (the value the lower bound should clear)")
    a, b, fixed, prior_text = design_prior(prior, accuracies, k, n, labs)
    p = fixed if fixed is not None else a / (a + b)
    w = np.full(l, 1.0 / l)
    a_two = per_bound_alpha(c, l, "two", "union")
    a_low = per_bound_alpha(c, l, sides, "union")

    check_choice(interval, ("exact", "anytime"), "interval")
    if interval == "anytime":
        wid, low, width_now, lower_now = _anytime_outcomes(k, n, w, c, sides, tuned_for, labs)
    else:
        wid, low, width_now, lower_now = _exact_outcomes(k, n, w, a_two, a_low, sides)
    if by == "true":
        # outcome probabilities: row i -> (right p_i, wrong 1 - p_i)
        prob = [[(i, 0, float(p[i])), (i, 1, 1.0 - float(p[i]))] for i in range(l)]
    else:
        shares = check_mix(mix, l, labs) if mix is not None else (
            n / n.sum() if n.sum() > 0 else np.full(l, 1.0 / l))
        rates = (counts + 1.0) / (n[:, None] + l)  # posterior mean of each row's rates
        joint = shares[:, None] * rates  # P(true i, predicted j), up to a constant
        q = joint / joint.sum(axis=0, keepdims=True)  # P(true i | predicted j)
        prob = [[(i, 0 if i == j else 1, float(q[i, j])) for i in range(l)] for j in range(l)]
    rows_out = []
    for j in range(l):
        e_w = sum(pr * wid[i, o] for i, o, pr in prob[j])
        e_l = sum(pr * low[i, o] for i, o, pr in prob[j])
        pclear = math.nan if t is None else sum(pr * (low[i, o] > t) for i, o, pr in prob[j])
        pc = sum(pr for i, o, pr in prob[j] if o == 0)
        rows_out.append(NextClass(
            label=labs[j], correct=int(k[j]), support=int(n[j]), p_correct=float(pc),
            expected_width=float(e_w), expected_lower=float(e_l), p_clear=float(pclear)))
    if criterion == "width":
        best = min(range(l), key=lambda i: rows_out[i].expected_width)
    elif criterion == "lower":
        best = max(range(l), key=lambda i: rows_out[i].expected_lower)
    else:
        best = max(range(l), key=lambda i: (rows_out[i].p_clear, rows_out[i].expected_lower))
    return NextLabel(best=labs[best], best_index=int(best), criterion=criterion,
                     classes=tuple(rows_out), current_width=width_now, current_lower=lower_now,
                     confidence=c, sides=sides, target=t, prior=prior_text, by=by,
                     interval=interval)
