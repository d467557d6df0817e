"""Results and distributions cannot change after they are built."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import bacc

CM = [[42, 3], [6, 4]]


def _results():
    ev = bacc.evaluate(CM)
    return [
        ev,
        bacc.compare(CM, [[40, 5], [3, 7]]),
        bacc.rank({"A": CM, "B": [[40, 5], [3, 7]]}, n_draws=500),
        bacc.exact_interval(CM),
        bacc.approx_interval(CM),
        bacc.binomial_test(CM),
        bacc.mcnemar_exact(5, 2),
        bacc.coverage("union", [5, 5], [0.9, 0.8], n_simulations=200, random_state=0),
        bacc.evaluate_many(np.array([CM, CM])),
        ev.confusion,
        ev.balanced_accuracy_summary,
    ]


@pytest.mark.parametrize("result", _results(), ids=lambda r: type(r).__name__)
def test_fields_of_results_cannot_be_reassigned(result):
    field = dataclasses.fields(result)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, field, 0)


@pytest.mark.parametrize("result", _results(), ids=lambda r: type(r).__name__)
def test_arrays_of_results_are_read_only(result):
    arrays = [
        getattr(result, f.name)
        for f in dataclasses.fields(result)
        if isinstance(getattr(result, f.name), np.ndarray)
    ]
    for a in arrays:
        assert not a.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            a.flat[0] = 5


def test_evaluation_prior_arrays_are_read_only():
    ev = bacc.evaluate(CM)
    with pytest.raises(ValueError):
        ev.prior_a[0] = 100.0
    assert ev.balanced_accuracy.mean() == pytest.approx((43 / 47 + 5 / 12) / 2)


def test_a_users_array_is_copied_not_frozen():
    w = np.array([0.7, 0.3])
    ev = bacc.evaluate(CM, weights=w)
    assert w.flags.writeable  # the user's own array is untouched
    w[0] = 0.5
    assert ev.weights[0] == 0.7


@pytest.mark.parametrize(
    "dist, name",
    [
        (bacc.BetaPosterior(3, 4), "a"),
        (bacc.BetaPosterior(3, 4), "b"),
        (bacc.evaluate(CM).balanced_accuracy, "labels"),
        (bacc.evaluate(CM).balanced_accuracy, "weights"),
        (bacc.compare_paired([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0]).difference, "alpha"),
    ],
)
def test_parameters_of_distributions_cannot_be_reassigned(dist, name):
    before = dist.mean()
    with pytest.raises(AttributeError, match="immutable"):
        setattr(dist, name, -5)
    with pytest.raises(AttributeError):
        delattr(dist, name)
    assert dist.mean() == before


@pytest.mark.parametrize(
    "dist, name",
    [
        (bacc.evaluate(CM).balanced_accuracy, "weights"),
        (bacc.compare_paired([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0]).difference, "alpha"),
        (bacc.compare_paired([0, 1, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0]).difference, "weights"),
    ],
)
def test_arrays_of_distributions_are_read_only(dist, name):
    with pytest.raises(ValueError, match="read-only"):
        getattr(dist, name).flat[0] = 5.0


def test_beta_posterior_keeps_its_mean_after_an_attempted_change():
    post = bacc.BetaPosterior(3, 4)
    with pytest.raises(AttributeError):
        post.a = -5
    assert post.mean() == pytest.approx(3 / 7)
