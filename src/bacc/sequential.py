"""Labelling until the bound clears, done right: a sequential plan on the anytime-valid bound.

"Label until the lower bound clears 0.9" voids the coverage of an exact interval, which holds for
a number of labels fixed in advance: every look is another chance that noise lifts the bound over
the goal. The anytime-valid lower bound (:func:`bacc.anytime_interval`) holds at every look, so
stopping the first time it clears the goal is a valid procedure: if the balanced accuracy is at
most the goal, the bound clears it, at any time, with probability at most ``1 - confidence``.

:func:`plan_sequential` says what that procedure will cost before it starts: under a design
prior (the posterior of each class accuracy given the labels so far, a prior guess, or fixed
accuracies), the distribution of the number of further labels it needs, the probability that it
clears within a cap, and, beside it, the fixed-size plan of :func:`bacc.plan_labels` for the
same goal, so that "decide the number now" and "stop when it clears" can be compared.

References
----------
Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform, nonparametric,
nonasymptotic confidence sequences. Annals of Statistics 49, 1055-1080.
Robbins, H. (1970). Statistical methods related to the law of the iterated logarithm. Annals of
Mathematical Statistics 41, 1397-1409.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._engine.bounds import anytime as engine
from ._engine.helpers.convert import jsonable
from ._engine.helpers.validate import (
    check_choice,
    check_confidence,
    check_int,
    check_random_state,
)
from .anytime import check_tuned_for
from .planning import check_mix, check_unit, current_counts, design_prior, plan_labels

__all__ = ["SequentialPlan", "plan_sequential"]

#: Points of the stopping-time distribution kept in a result.
_GRID = 60
#: Steps of the simulation drawn and scanned together, and the most counts (streams x steps x
#: classes) held at once.
_BLOCK_STEPS = 256
_BLOCK_CELLS = 1_000_000


@dataclass(frozen=True)
class SequentialPlan:
    """Result of :func:`plan_sequential`: what labelling until the anytime bound clears costs.

    Attributes
    ----------
    target : float
        The goal: the anytime-valid lower bound of the balanced accuracy exceeds it.
    confidence : float
    sides : {"lower", "two"}
        The one-sided lower bound, or the lower end of the two-sided sequence.
    tuned_for : tuple of float
        Examples per class at which the sequence is tightest.
    design : {"stratified", "mix"}
        ``"stratified"``: each label goes to the class with the fewest labels so far;
        ``"mix"``: labels arrive in the class proportions ``mix``.
    mix : tuple of float or None
    max_labels : int
        The cap on further labels.
    p_clear : float
        Probability that the bound clears the goal within ``max_labels`` further labels, under
        the design prior (``mc_se``: its Monte Carlo standard error).
    mean_labels : float or None
        Mean further labels when it clears (None if it never clears in the simulation).
    median_labels, p90_labels : int or None
        Median and 90th percentile of the further labels needed (None when beyond the cap).
    expected_labels_capped : float
        Mean labels spent with the cap (a stream that never clears spends ``max_labels``).
    labels, cdf : tuple
        The stopping-time distribution: ``P(clears within labels[i])`` for a grid of label
        counts up to the cap.
    p_false_clear : float or None
        Among simulated truths whose balanced accuracy is at most the goal, the share where the
        bound cleared it (at most ``1 - confidence`` for every such truth; None if the design
        prior puts no such truth in the simulation).
    fixed_labels : int or None
        The fixed-size plan (:func:`bacc.plan_labels`, same goal, ``assurance``) for comparison;
        None when it cannot reach the goal.
    fixed_assurance : float
        Its assurance.
    p_within_fixed : float or None
        Probability that the sequential plan clears within ``fixed_labels``.
    n_simulations : int
    mc_se : float
    prior : str
    classes : tuple
    message : str
    """

    target: float
    confidence: float
    sides: str
    tuned_for: tuple
    design: str
    mix: tuple | None
    max_labels: int
    p_clear: float
    mean_labels: float | None
    median_labels: int | None
    p90_labels: int | None
    expected_labels_capped: float
    labels: tuple
    cdf: tuple
    p_false_clear: float | None
    fixed_labels: int | None
    fixed_assurance: float
    p_within_fixed: float | None
    n_simulations: int
    mc_se: float
    prior: str
    classes: tuple
    message: str = field(default="")

    def to_dict(self) -> dict:
        """JSON-able dictionary (strict JSON)."""
        out = {}
        for name in self.__dataclass_fields__:
            v = getattr(self, name)
            if name == "classes":
                v = [jsonable(c) for c in v]
            elif isinstance(v, tuple):
                v = [float(x) if isinstance(x, float) else x for x in v]
            elif isinstance(v, float) and not math.isfinite(v):
                v = None
            out[name] = v
        return out

    def __repr__(self) -> str:
        median = "beyond the cap" if self.median_labels is None else f"{self.median_labels}"
        return (f"<SequentialPlan: clears {self.target:g} with probability {self.p_clear:.3f} "
                f"within {self.max_labels} labels; median {median}>")

    def __str__(self) -> str:
        from .display.planning_text import sequential_plan_text

        return sequential_plan_text(self)


def plan_sequential(
    cm=None,
    *,
    lower: float,
    confidence: float = 0.95,
    sides: str = "lower",
    tuned_for=None,
    mix=None,
    prior=(1.0, 1.0),
    accuracies=None,
    n_classes: int | None = None,
    max_labels: int = 10_000,
    assurance: float = 0.8,
    n_simulations: int = 2000,
    random_state=0,
    rows: str = "true",
    labels=None,
) -> SequentialPlan:
    """What labelling until the anytime-valid lower bound clears a goal will cost.

    The procedure: after every new label, compute :func:`bacc.anytime_interval` (``sides``,
    ``confidence``, ``tuned_for``) and stop the first time its lower bound exceeds ``lower``.
    It is valid at whatever label it stops. This function simulates it label by label under
    the design prior and reports how many labels it needs.

    Parameters
    ----------
    cm : ConfusionMatrix, array_like or None
        The labels so far (None or an all-zero matrix when there are none; then
        ``n_classes``, default 2).
    lower : float
        The goal in (0, 1).
    confidence : float
        Confidence of the sequence (default 0.95).
    sides : {"lower", "two"}
        The one-sided lower bound (default; tighter) or the two-sided sequence's lower end.
    tuned_for : float or per-class option, optional
        As in :func:`bacc.anytime_interval`.
    mix : sequence of float, optional
        Labels arrive in these class proportions; default stratified (each label to the
        class with the fewest labels so far).
    prior, accuracies, n_classes, rows, labels
        The design prior and the reading of ``cm``, as in :func:`bacc.plan_labels`.
    max_labels : int
        The cap on further labels (default 10 000).
    assurance : float
        Assurance of the fixed-size plan put beside (default 0.8).
    n_simulations : int
        Simulated labelling streams (default 2 000).
    random_state : None, int or numpy.random.Generator
        Seed of the simulation (default 0: the same answer every call).

    Returns
    -------
    SequentialPlan

    Raises
    ------
    BaccError
        Invalid matrix, goal, confidence, sides, tuned_for, mix, prior, cap or seed.

    See Also
    --------
    bacc.plan_labels : the fixed-size plan.
    bacc.next_label : which class to label next (``interval="anytime"``).

    Notes
    -----
    A stream stops at the first label where every balanced accuracy at most ``lower`` is ruled
    out: ``min {sum_i log M_i(p_i) : sum_i w_i p_i <= lower} >= log(1 / alpha)``, with ``M_i``
    the classes' mixture martingales (:mod:`bacc.anytime`). That minimum is computed only when
    a point of the half-space kept from the stream's last check leaves the set (a cheap test
    that is certain when it says "not yet"). Each stream's class accuracies are drawn from the
    design prior, then its labels one by one.

    References
    ----------
    .. [1] Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform,
       nonparametric, nonasymptotic confidence sequences. Annals of Statistics 49, 1055-1080
       (section 2: stopping times and confidence sequences).
    .. [2] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124 (the Beta design
       prior).

    Examples
    --------
    >>> import bacc
    >>> plan = bacc.plan_sequential([[42, 3], [6, 4]], lower=0.55, max_labels=2000,
    ...                             n_simulations=300)
    >>> 0 < plan.p_clear <= 1 and plan.fixed_labels is not None
    True
    """
    labs, k0, n0, _ = current_counts(cm, n_classes, rows, labels)
    l = k0.size
    t = check_unit(lower, "lower")
    c = check_confidence(confidence)
    check_choice(sides, ("lower", "two"), "sides")
    tuned = np.broadcast_to(check_tuned_for(tuned_for, labs), (l,)).astype(float)
    shares = check_mix(mix, l, labs)
    cap = check_int(max_labels, "max_labels", 1, 10**6)
    sims = check_int(n_simulations, "n_simulations", 100, 10**6)
    check_unit(assurance, "assurance")
    rng = check_random_state(random_state)
    a, b, fixed, prior_text = design_prior(prior, accuracies, k0, n0, labs)

    alpha = 1.0 - c
    threshold = math.log(1.0 / alpha)
    # the balanced accuracy's one-sided bound is that end of the two-sided set (bacc.anytime)
    conc = engine.concentration(tuned, alpha, "two")
    w = np.full(l, 1.0 / l)
    theta = np.broadcast_to(fixed, (sims, l)).copy() if fixed is not None else rng.beta(
        a, b, size=(sims, l))

    def still_inside(k, n, point):
        # the kept point is still in the set: some balanced accuracy <= lower is not ruled out,
        # so the bound has not cleared (certain)
        return np.sum(engine.log_mixture(point, k, n, conc, "two"), axis=-1) < threshold

    def halfspace(k, n):
        return engine.halfspace_minimum(k, n, np.broadcast_to(tuned, k.shape), w, t, alpha)

    stop = _stopping_times(k0, n0, theta, shares, cap, rng, still_inside, halfspace, threshold)
    cleared = stop >= 0
    p_clear = float(cleared.mean())
    mc_se = math.sqrt(max(p_clear * (1 - p_clear), 1e-300) / sims)
    times = np.where(cleared, stop, np.iinfo(np.int64).max)
    median = _quantile(times, 0.5, cap)
    p90 = _quantile(times, 0.9, cap)
    grid = np.unique(np.concatenate([[0], np.geomspace(1, cap, _GRID).round().astype(np.int64)]))
    cdf = tuple(float(np.mean(times <= m)) for m in grid)
    ba = theta @ w
    false_truth = ba <= t
    p_false = float(cleared[false_truth].mean()) if false_truth.any() else None
    fixed_plan = plan_labels(cm, lower=t, confidence=c, assurance=assurance, sides=sides,
                             mix=None if shares is None else shares.tolist(), prior=prior,
                             accuracies=accuracies, n_classes=n_classes, max_labels=cap,
                             rows=rows, labels=labels)
    fixed_n = fixed_plan.labels if fixed_plan.reachable else None
    within = None if fixed_n is None else float(np.mean(times <= fixed_n))
    message = _message(t, p_clear, cap, median, fixed_n, fixed_plan.assurance, within)
    return SequentialPlan(
        target=t, confidence=c, sides=sides, tuned_for=tuple(float(x) for x in tuned),
        design="stratified" if shares is None else "mix",
        mix=None if shares is None else tuple(float(x) for x in shares), max_labels=cap,
        p_clear=p_clear, mean_labels=float(stop[cleared].mean()) if cleared.any() else None,
        median_labels=median, p90_labels=p90,
        expected_labels_capped=float(np.minimum(times, cap).mean()),
        labels=tuple(int(m) for m in grid), cdf=cdf, p_false_clear=p_false,
        fixed_labels=fixed_n, fixed_assurance=float(fixed_plan.assurance),
        p_within_fixed=within, n_simulations=sims, mc_se=mc_se, prior=prior_text,
        classes=tuple(labs), message=message)


def _stopping_times(k0, n0, theta, shares, cap, rng, still_inside, halfspace, threshold):
    """The step (0 to ``cap``) at which each simulated stream's bound clears, -1 if never.

    Stream ``s`` draws, at each step, a class (the least labelled one when ``shares`` is None,
    else from ``shares``) and whether its label is right (with probability
    ``theta[s, class]``), from ``rng`` in that order for every stream. It stops at the first
    step where ``halfspace(k, n)``'s minimum reaches ``threshold``. That minimum is computed
    only when the point of the half-space kept from the stream's last computation is no longer
    ``still_inside(k, n, point)`` the set (certain when it says "not yet").

    The counts' paths do not depend on when a stream stops, so they are drawn for a block of
    steps at once, and the steps of a block are scanned together: each round computes, for
    every stream that needs one, the half-space minimum at the first step of the block where
    its kept point has left the set. Every stream meets exactly the computations of a scan
    label by label, in fewer, larger calls.
    """
    sims, l = theta.shape
    k = np.tile(k0.astype(float), (sims, 1))
    n = np.tile(n0.astype(float), (sims, 1))
    stop = np.full(sims, -1, dtype=np.int64)
    point = np.full((sims, l), np.nan)  # a point of the half-space still in the set
    sizes = n0.astype(float)  # the stratified design's class sizes, the same in every stream
    block = int(max(1, min(_BLOCK_STEPS, _BLOCK_CELLS // (sims * l))))
    first = 0
    while first <= cap:
        live = np.flatnonzero(stop < 0)
        if live.size == 0:
            break
        steps = min(block, cap + 1 - first)
        # the block's draws, in the order of a label-by-label scan: at each step a class for
        # every stream (mixed design; the stratified design labels the least labelled class,
        # the same for every stream), then whether each stream's label is right
        j0 = 1 if first == 0 else 0  # step 0 is the counts so far: nothing drawn
        cls = np.zeros((steps, sims), dtype=np.int64)
        right = np.zeros((steps, sims), dtype=bool)
        if shares is None:
            for j in range(j0, steps):
                cls[j] = c = int(np.argmin(sizes))
                sizes[c] += 1.0
            right[j0:] = rng.random((steps - j0, sims)) < theta[:, cls[j0:, 0]].T
        else:
            for j in range(j0, steps):
                cls[j] = rng.choice(l, size=sims, p=shares)
                right[j] = rng.random(sims) < theta[np.arange(sims), cls[j]]
        cls, right = cls[:, live], right[:, live]
        one = np.zeros((steps, live.size, l))
        hit = np.zeros((steps, live.size, l))
        jj = np.arange(j0, steps)[:, None]
        ss = np.arange(live.size)[None, :]
        one[jj, ss, cls[j0:]] = 1.0
        hit[jj, ss, cls[j0:]] = right[j0:]
        ns = n[live][None] + np.cumsum(one, axis=0)
        ks = k[live][None] + np.cumsum(hit, axis=0)
        n[live], k[live] = ns[-1], ks[-1]
        ks = np.ascontiguousarray(ks.transpose(1, 0, 2))
        ns = np.ascontiguousarray(ns.transpose(1, 0, 2))
        _scan_block(ks, ns, live, first, stop, point, still_inside, halfspace, threshold)
        first += steps
    return stop


def _scan_block(ks, ns, live, first, stop, point, still_inside, halfspace, threshold):
    """One block of :func:`_stopping_times`: ``ks, ns`` of shape (streams, steps, classes) for
    the streams ``live``; fills ``stop`` and ``point`` in place."""
    m, steps, l = ks.shape
    pos = np.zeros(m, dtype=np.int64)  # the next step of the block to look at
    todo = np.arange(m)
    while todo.size:
        # the first step at or after pos where the kept point has left the set (or no point)
        at = pos[todo].copy()
        kept = ~np.isnan(point[live[todo], 0])
        if kept.any():
            r = todo[kept]
            span = np.arange(steps)
            later = span[None, :] >= pos[r, None]
            rr, jj = np.nonzero(later)
            inside = np.zeros((r.size, steps), dtype=bool)
            inside[rr, jj] = still_inside(ks[r[rr], jj], ns[r[rr], jj], point[live[r[rr]]])
            out = later & ~inside
            has = out.any(axis=1)
            at[kept] = np.where(has, np.argmax(out, axis=1), steps)
        need = at < steps
        todo, at = todo[need], at[need]
        if todo.size == 0:
            break
        g, pt = halfspace(ks[todo, at], ns[todo, at])
        cleared = g >= threshold
        stop[live[todo[cleared]]] = first + at[cleared]
        point[live[todo[~cleared]]] = pt[~cleared]
        pos[todo] = at + 1
        todo = todo[~cleared & (at + 1 < steps)]


def _quantile(times: np.ndarray, q: float, cap: int) -> int | None:
    """The ``q`` quantile of the stopping times, None when it lies beyond the cap."""
    v = np.quantile(times, q, method="inverted_cdf")
    return None if v > cap else int(v)


def _message(t, p_clear, cap, median, fixed_n, fixed_assurance, within) -> str:
    if p_clear == 0:
        return (f"the anytime lower bound never cleared {t:g} within {cap} labels in the "
                "simulation; lower the goal or raise max_labels")
    head = (f"labelling until the anytime lower bound clears {t:g}: it clears within {cap} "
            f"labels with probability {p_clear:.3f}")
    if median is not None:
        head += f", after {median} labels or fewer half of the time"
    if fixed_n is not None and within is not None:
        head += (f"; a number fixed now needs {fixed_n} labels (assurance "
                 f"{fixed_assurance:.2f}), and the sequential plan is done by then with "
                 f"probability {within:.3f}")
    return head
