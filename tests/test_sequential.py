"""The sequential labelling plan (bacc.sequential): its stopping times against an independent
label-by-label simulation that computes the anytime bound at every label, its guarantee, and
bad input."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest

import bacc
from bacc._engine.bounds import anytime as engine


def _label_by_label(accuracies, lower, cap, sims, seed, *, start=(0, 0), tuned=100.0):
    """Stopping times by recomputing the one-sided anytime lower bound (the dual of
    bacc.anytime_interval) after every label, stratified (each label to the class with the
    fewest), with the random numbers plan_sequential draws for fixed accuracies."""
    rng = np.random.default_rng(seed)
    acc = np.asarray(accuracies, dtype=float)
    l = acc.size
    k = np.zeros((sims, l)) + np.asarray(start[0], dtype=float)
    n = np.zeros((sims, l)) + np.asarray(start[1], dtype=float)
    tuned_all = np.full(l, tuned)
    stop = np.full(sims, -1)
    rows = np.arange(sims)
    for step in range(cap + 1):
        if step > 0:
            cls = int(np.argmin(n[0]))
            right = rng.random(sims) < acc[cls]
            n[rows, cls] += 1
            k[rows, cls] += right
        if not (stop < 0).any():
            break
        active = np.flatnonzero((stop < 0) & ~_cannot_clear(k, n, tuned_all, lower))
        if active.size == 0:
            continue
        lo, _ = engine.weighted_bounds(k[active], n[active],
                                       np.broadcast_to(tuned_all, (active.size, l)),
                                       np.full(l, 1.0 / l), 0.05, "lower")
        stop[active[lo > lower]] = step
    return stop


def _cannot_clear(k, n, tuned, goal):
    """Streams whose anytime lower bound (equal weights, 95 %) cannot be above ``goal``, found
    without computing it: where the sample balanced accuracy is at most the goal (the sample
    accuracies lie in the set, so the bound is at most the estimate), or where a point of the
    set has a balanced accuracy at most the goal (the bound is at most that point's value); the
    point tried lies below the estimate along each class's variance. A margin of 1e-9 keeps the
    shortcut exact beside the bound's own rounding."""
    est = (k / n).mean(axis=1)
    var = (k + 0.5) * (n - k + 0.5) / (n + 1.0) ** 3
    point = k / n - k.shape[1] * (est - goal + 1e-9)[:, None] * var / var.sum(axis=1,
                                                                              keepdims=True)
    point = np.clip(point, 0.0, 1.0)
    conc = engine.concentration(tuned, 0.05, "two")
    inside = (engine.log_mixture(point, k, n, conc).sum(axis=1) < math.log(1 / 0.05)) \
        & (point.mean(axis=1) <= goal - 1e-10)
    return (est <= goal - 1e-9) | inside


def _cdf(stop, grid):
    times = np.where(stop >= 0, stop, np.iinfo(np.int64).max)
    return np.array([np.mean(times <= m) for m in grid])


@pytest.mark.parametrize("sims,cap,slow", [
    (100, 150, False), pytest.param(400, 400, True, marks=pytest.mark.slow)])
def test_stopping_times_equal_a_label_by_label_simulation_on_the_same_draws(sims, cap, slow):
    """Fixed accuracies, stratified: the plan's distribution of stopping times equals that of
    recomputing the anytime lower bound after every label with the same random numbers."""
    plan = bacc.plan_sequential(n_classes=2, accuracies=[0.9, 0.8], lower=0.7, max_labels=cap,
                                n_simulations=sims, random_state=4)
    stop = _label_by_label([0.9, 0.8], 0.7, cap, sims, seed=4)
    assert (stop >= 0).mean() > 0.3  # the goal is met in many streams: the test can fail
    np.testing.assert_array_equal(plan.cdf, _cdf(stop, plan.labels))
    assert plan.p_clear == np.mean(stop >= 0)


@pytest.mark.parametrize("cm,kw,blocks", [
    # (steps per block, most counts held): one block past the cap; blocks ending anywhere;
    # blocks held to two steps by the memory cap
    pytest.param([[20, 2, 1], [3, 15, 2], [1, 1, 9]], {"lower": 0.62, "max_labels": 16},
                 [(5, None)], marks=pytest.mark.slow),
    ([[42, 3], [6, 4]], {"lower": 0.6, "mix": [0.8, 0.2], "max_labels": 300},
     [(None, None), (7, None), (1000, 120 * 2 * 2)]),
    (None, {"n_classes": 2, "accuracies": [0.9, 0.8], "lower": 0.78, "max_labels": 300},
     [(None, None), (7, None), (1000, 120 * 2 * 2)]),
])
def test_the_steps_scanned_together_change_nothing(monkeypatch, cm, kw, blocks):
    """The simulation draws and scans blocks of steps at once (its counts' paths do not
    depend on when a stream stops): blocks of any size, ending anywhere, and blocks held small
    by the memory cap give the plan of one step at a time, number for number."""
    import dataclasses

    import bacc.sequential as seq

    def plan(steps, cells):
        monkeypatch.setattr(seq, "_BLOCK_STEPS", steps)
        monkeypatch.setattr(seq, "_BLOCK_CELLS", cells)
        return dataclasses.asdict(bacc.plan_sequential(cm, n_simulations=120, random_state=5,
                                                       **kw))

    default = (seq._BLOCK_STEPS, seq._BLOCK_CELLS)
    one = plan(1, default[1])
    assert 0 < one["p_clear"] < 1 and one["mean_labels"] > 0  # streams stop at many steps
    for steps, cells in blocks:
        assert plan(steps or default[0], cells or default[1]) == one, (steps, cells)


@pytest.mark.slow
def test_stopping_time_distribution_matches_an_independent_simulation_under_the_design_prior():
    """Posterior design prior from labels so far, labels in a mix: the plan's distribution
    against a label-by-label simulation with its own random numbers, within Monte Carlo error."""
    cm = [[40, 5], [4, 11]]
    plan = bacc.plan_sequential(cm, lower=0.75, mix=[0.7, 0.3], max_labels=400,
                                n_simulations=1500, random_state=1)
    rng = np.random.default_rng(99)
    sims = 1500
    a = np.array([41.0, 12.0])
    b = np.array([6.0, 5.0])
    theta = rng.beta(a, b, size=(sims, 2))
    k = np.tile([40.0, 11.0], (sims, 1))
    n = np.tile([45.0, 15.0], (sims, 1))
    stop = np.full(sims, -1)
    rows = np.arange(sims)
    for step in range(401):
        if step > 0:
            cls = (rng.random(sims) >= 0.7).astype(int)
            right = rng.random(sims) < theta[rows, cls]
            n[rows, cls] += 1
            k[rows, cls] += right
        # streams that cannot clear are skipped; streams in the same state share one bound
        active = np.flatnonzero((stop < 0) & ~_cannot_clear(k, n, np.full(2, 100.0), 0.75))
        if active.size == 0:
            continue
        states, back = np.unique(np.hstack([k[active], n[active]]), axis=0, return_inverse=True)
        lo, _ = engine.weighted_bounds(states[:, :2], states[:, 2:],
                                       np.full((len(states), 2), 100.0), np.full(2, 0.5), 0.05,
                                       "lower")
        stop[active[lo[back.ravel()] > 0.75]] = step
    ref = _cdf(stop, plan.labels)
    se = np.sqrt(np.maximum(ref * (1 - ref), 1e-4) * 2 / sims)
    assert np.all(np.abs(np.array(plan.cdf) - ref) <= 4 * se + 1e-12)


@pytest.mark.slow
def test_the_procedure_keeps_its_guarantee_from_the_first_label():
    """Truths whose balanced accuracy equals the goal: the bound clears it in at most 5 % of
    streams (+ 3 Monte Carlo standard errors), whenever it stops."""
    sims = 2000
    plan = bacc.plan_sequential(n_classes=2, accuracies=[0.9, 0.7], lower=0.8, max_labels=1500,
                                n_simulations=sims, random_state=2)
    assert plan.p_clear <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / sims)
    assert plan.p_false_clear == pytest.approx(plan.p_clear)


def test_already_cleared_stops_at_once_and_an_unreachable_goal_never_clears():
    plan = bacc.plan_sequential([[900, 100], [50, 950]], lower=0.6, n_simulations=100)
    assert plan.p_clear == 1.0 and plan.median_labels == 0 and plan.cdf[0] == 1.0
    never = bacc.plan_sequential(n_classes=2, accuracies=[0.5, 0.5], lower=0.9, max_labels=200,
                                 n_simulations=100)
    assert never.p_clear == 0.0 and never.median_labels is None and "never cleared" in never.message
    assert never.expected_labels_capped == 200.0


def test_relabelled_classes_give_the_same_plan():
    """Equal accuracies and equal counts: the stratified simulation is symmetric in the classes,
    so naming them differently changes nothing."""
    a = bacc.plan_sequential(bacc.ConfusionMatrix([[8, 2], [2, 8]], ("x", "y")), lower=0.6,
                             accuracies={"x": 0.85, "y": 0.85}, max_labels=300, n_simulations=200)
    b = bacc.plan_sequential(bacc.ConfusionMatrix([[8, 2], [2, 8]], ("b", "a")), lower=0.6,
                             accuracies={"a": 0.85, "b": 0.85}, max_labels=300, n_simulations=200)
    assert a.cdf == b.cdf and a.p_clear == b.p_clear


def test_results_travel_and_print():
    plan = bacc.plan_sequential([[42, 3], [6, 4]], lower=0.55, max_labels=500, n_simulations=200)
    again = pickle.loads(pickle.dumps(plan))
    assert again == plan
    json.dumps(plan.to_dict(), allow_nan=False)
    text = str(plan)
    assert "valid whenever it stops" in text and "fixed-size plan" in text
    assert "SequentialPlan" in repr(plan)
    # the same seed, the same answer
    assert bacc.plan_sequential([[42, 3], [6, 4]], lower=0.55, max_labels=500,
                                n_simulations=200) == plan


@pytest.mark.parametrize("kwargs,match", [
    ({"lower": 1.0}, "lower"), ({"lower": 0.0}, "lower"), ({"lower": float("nan")}, "lower"),
    ({"lower": 0.6, "sides": "upper"}, "sides"), ({"lower": 0.6, "max_labels": 0}, "max_labels"),
    ({"lower": 0.6, "n_simulations": 10}, "n_simulations"),
    ({"lower": 0.6, "tuned_for": 0}, "tuned_for"), ({"lower": 0.6, "confidence": 1.5}, "confidence"),
    ({"lower": 0.6, "mix": [0.5, 0.6]}, "mix"), ({"lower": 0.6, "random_state": -1}, "random_state"),
])
def test_bad_input_is_refused(kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.plan_sequential([[42, 3], [6, 4]], **kwargs)


def test_next_label_for_the_anytime_interval_equals_its_definition():
    """E[width] and E[lower] after one more example of each class, from anytime_interval of
    the two possible matrices, weighted by the predictive probability of a correct answer."""
    cm = np.array([[42, 3], [6, 4]])
    nl = bacc.next_label(cm, interval="anytime", tuned_for=200)
    p = np.array([43 / 47, 5 / 12])  # posterior means under the flat prior
    for i, row in enumerate(nl.classes):
        right, wrong = cm.copy(), cm.copy()
        right[i, i] += 1
        wrong[i, 1 - i] += 1
        two = [bacc.anytime_interval(m, tuned_for=200) for m in (right, wrong)]
        low = [bacc.anytime_interval(m, tuned_for=200, sides="lower") for m in (right, wrong)]
        assert row.expected_width == pytest.approx(p[i] * two[0].width + (1 - p[i]) * two[1].width,
                                                   abs=1e-9)
        assert row.expected_lower == pytest.approx(p[i] * low[0].lower + (1 - p[i]) * low[1].lower,
                                                   abs=1e-9)
    assert nl.current_lower == pytest.approx(
        bacc.anytime_interval(cm, tuned_for=200, sides="lower").lower, abs=1e-12)
    assert "anytime-valid" in str(nl) and nl.to_dict()["interval"] == "anytime"
    with pytest.raises(bacc.BaccError, match="interval"):
        bacc.next_label(cm, interval="bayes")
