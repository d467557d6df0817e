"""Every result travels: pickle, deepcopy and strict JSON.

One instance of every result type bacc exports (every class in ``bacc.__all__``) and of what
every public function returns, including results at their edges (undefined sample values, NaN
bounds of approximate intervals, Monte Carlo metrics, population posteriors). Each must survive
``pickle.dumps/loads`` and ``copy.deepcopy`` with the same numbers, and its ``to_dict()`` (where
it has one) must be valid strict JSON (``allow_nan=False``): undefined numbers become None.
"""

from __future__ import annotations

import copy
import inspect
import json
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import bacc

#: The module fixtures build costly results once: under pytest-xdist the whole file runs
#: in one worker (conftest.py: --dist loadgroup), so they are not built again in the other.
pytestmark = pytest.mark.xdist_group("test_api_results_travel")

CM = [[42, 3], [6, 4]]


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "t": [0, 1, 1, 0] * 10, "p": [0, 1, 0, 0] * 10, "g": ["a", "b"] * 20,
        "time": pd.date_range("2024-01-01", periods=40, freq="D"),
    })  # fmt: skip


def _paired():
    y = [0, 0, 1, 1, 0, 1] * 5
    return y, [0, 1, 1, 1, 0, 0] * 5, [0, 0, 1, 0, 1, 1] * 5


def _across() -> dict:
    """Three classifiers' matrices on three data sets of 2, 3 and 2 classes."""
    return {
        "a": {"d1": [[40, 5], [6, 30]], "d2": [[20, 3, 1], [2, 15, 4], [0, 3, 12]], 7: CM},
        "b": {"d1": [[35, 10], [9, 27]], "d2": [[18, 5, 1], [4, 13, 4], [1, 4, 10]], 7: CM},
        "c": {"d1": [[30, 15], [10, 26]], "d2": [[15, 8, 1], [5, 12, 4], [2, 4, 9]],
              7: [[30, 15], [1, 9]]},
    }


def _across_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "t": [0, 1, 1, 0, 1, 0] * 6, "a": [0, 1, 0, 0, 1, 0] * 6, "b": [1, 1, 1, 0, 0, 0] * 6,
        "d": ["x"] * 12 + ["y"] * 12 + ["z"] * 12,
    })  # fmt: skip


# name -> a function building one result (a list or tuple holds several results)
BUILDERS = {
    "evaluate": lambda: bacc.evaluate(CM),
    "evaluate (class without examples)": lambda: bacc.evaluate([[5, 0, 0], [2, 3, 0], [0, 0, 0]]),
    "evaluate_many": lambda: bacc.evaluate_many([CM, [[10, 2], [3, 9]]]),
    "exact_interval": lambda: bacc.exact_interval(CM),
    "exact_interval (buehler)": lambda: bacc.exact_interval(CM, method="buehler"),
    "anytime_interval": lambda: bacc.anytime_interval(CM),
    "confidence_sequence": lambda: bacc.confidence_sequence([0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10),
    "confidence_sequence (betting)": lambda: bacc.confidence_sequence(
        [0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10, method="betting"),
    "plan_sequential": lambda: bacc.plan_sequential(CM, lower=0.5, max_labels=200,
                                                    n_simulations=100),
    "class_intervals": lambda: bacc.class_intervals(CM),
    "approx_interval": lambda: bacc.approx_interval(CM),
    "approx_class_intervals (nan bounds)": lambda: bacc.approx_class_intervals(
        [[3, 0], [0, 0]], method="wald"),
    "clopper_pearson": lambda: bacc.clopper_pearson(3, 10),
    "fold_sem_interval": lambda: bacc.fold_sem_interval([CM, [[40, 5], [5, 5]], [[44, 1], [7, 3]]]),
    "binomial_test": lambda: bacc.binomial_test(CM),
    "mcnemar_exact": lambda: bacc.mcnemar_exact(3, 8),
    "compare": lambda: bacc.compare(bacc.evaluate(CM), bacc.evaluate([[30, 10], [5, 8]])),
    "compare_paired": lambda: bacc.compare_paired(*_paired()),
    "paired difference": lambda: bacc.compare_paired(*_paired()).difference,
    "rank": lambda: bacc.rank({"a": CM, "b": [[30, 10], [5, 8]]}),
    "rank_paired": lambda: bacc.rank_paired(_paired()[0], {"a": _paired()[1], "b": _paired()[2]}),
    "compare_across": lambda: bacc.compare_across(_across()["a"], _across()["b"]),
    "compare_across (paired, a table)": lambda: bacc.compare_across(
        _across_frame(), true="t", pred=["a", "b"], across="d"),
    "compare_across difference": lambda: bacc.compare_across(_across()["a"], _across()["b"]).difference,
    "rank_across": lambda: bacc.rank_across(_across(), n_draws=2000),
    "rank_across (paired, labels and groups)": lambda: bacc.rank_across(
        _across_frame()["t"], {"a": _across_frame()["a"], "b": _across_frame()["b"]},
        groups=_across_frame()["d"], n_draws=2000),
    "posterior_accuracy": lambda: bacc.posterior_accuracy(CM),
    "posterior_balanced_accuracy": lambda: bacc.posterior_balanced_accuracy(CM),
    "posterior_balanced_accuracy (3 classes)": lambda: bacc.posterior_balanced_accuracy(
        [[5, 1, 0], [2, 7, 1], [0, 3, 9]]),
    "posterior_class_accuracies": lambda: bacc.posterior_class_accuracies(CM),
    "counts": lambda: bacc.counts(_frame(), true="t", pred="p", progress=False),
    "counts by group": lambda: bacc.counts(_frame(), true="t", pred="p", by="g", progress=False),
    "counts_from_long": lambda: bacc.counts_from_long(pd.DataFrame(
        {"true": [0, 0, 1, 1], "pred": [0, 1, 0, 1], "count": [5, 2, 1, 6], "group": ["a"] * 4}),
        progress=False),
    "coverage": lambda: bacc.coverage(["union", "wald"], [10, 10], [0.8, 0.7], n_simulations=500,
                                      random_state=0),
    "population": lambda: bacc.population(correct=[[40, 44, 18], [48, 41, 65]],
                                          totals=[[45, 51, 20], [55, 49, 80]]),
    "population (beta-binomial, all perfect)": lambda: bacc.population(
        correct=[1, 1, 1, 1], totals=[1, 1, 1, 1], model="beta-binomial"),
    "population summary": lambda: _build("population").summary,
    "population posterior of a subject": lambda: bacc.population(
        correct=[[40, 44, 18], [48, 41, 65]], totals=[[45, 51, 20], [55, 49, 80]]
    ).subject_posterior(0),
    "posterior_metric (exact)": lambda: bacc.posterior_metric(CM, "recall", label=1),
    "posterior_metric (exact, at a prevalence)": lambda: bacc.posterior_metric(
        CM, "precision", label=1, prevalence=0.1),
    "posterior_metric (Monte Carlo)": lambda: bacc.posterior_metric(CM, "g_mean"),
    "posterior_metric (Monte Carlo, Sobol)": lambda: bacc.posterior_metric(CM, "matthews",
                                                                           sampler="sobol"),
    "posterior_metric (undefined sample)": lambda: bacc.posterior_metric(
        [[5, 0, 0], [3, 0, 0], [1, 0, 4]], "precision", label=1, n_draws=2000),
    "posterior_metric (custom function)": lambda: bacc.posterior_metric(
        CM, _recall_of_first, n_draws=2000),
    "posterior_metric (lambda)": lambda: bacc.posterior_metric(
        CM, lambda P: P[:, 0, 0] / P[:, 0].sum(axis=-1), n_draws=2000),
    "plan_labels": lambda: bacc.plan_labels(CM, lower=0.6),
    "next_label": lambda: bacc.next_label(CM),
    "monitor": lambda: bacc.monitor(_frame(), true="t", pred="p", time="time", window="10D",
                                    progress=False),
    "confusion matrix": lambda: bacc.ConfusionMatrix.from_predictions([0, 1, 1], [0, 1, 0]),
    "scores": lambda: _scored(),
    "scores one-vs-rest": lambda: bacc.scores([0, 1, 2, 0, 1, 2], np.eye(3)[[0, 1, 2, 1, 1, 0]]
                                              * 0.5 + 0.2),
    "scores curve": lambda: _scored().curve(),
    "scores best threshold": lambda: _scored().best_threshold(folds=2, repeats=2),
    "scores best threshold (split)": lambda: _scored().best_threshold(honest="split"),
    "scores guaranteed recall": lambda: _scored().threshold_for(recall=0.5),
    "scores guaranteed recall (none possible)": lambda: _scored().threshold_for(recall=0.99),
    "scores guaranteed fpr (none possible)": lambda: _scored().threshold_for(fpr=0.01),
    "scores guaranteed precision": lambda: _scored().threshold_for(precision=0.6),
    "scores roc": lambda: _scored().roc(),
    "scores auc": lambda: _scored().auc("bayesian-bootstrap", draws=500),
    "scores auc (separated)": lambda: bacc.scores([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]).auc(),
    "compare_auc": lambda: bacc.compare_auc([0, 0, 1, 1, 0, 1], [.1, .6, .8, .9, .2, .4],
                                            [.3, .1, .7, .5, .6, .9]),
    "compare_auc (identical)": lambda: bacc.compare_auc([0, 0, 1, 1], [.1, .2, .8, .9],
                                                        [.1, .2, .8, .9]),
    "auc_coverage": lambda: bacc.auc_coverage(["delong", "band"], 5, 10, n_simulations=30,
                                              random_state=0),
}


def _scored():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], [30, 20])
    return bacc.scores(y, np.round(rng.normal(y, 1.0), 1))


def _recall_of_first(P):
    return P[:, 0, 0] / P[:, 0].sum(axis=-1)


def _build(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BUILDERS[name]()


def _items(result) -> list:
    return list(result) if isinstance(result, list | tuple) else [result]


def _fingerprint(obj):
    """Numbers that identify a result: its strict JSON, or a distribution's quantiles."""
    if hasattr(obj, "to_dict"):
        return json.dumps(obj.to_dict(), allow_nan=False, sort_keys=True, default=str)
    if hasattr(obj, "ppf"):
        return tuple(np.round(np.atleast_1d(obj.ppf([0.1, 0.5, 0.9])), 12))
    return repr(obj)


@pytest.fixture(scope="module")
def built():
    return {name: _build(name) for name in BUILDERS}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_result_survives_pickle_deepcopy_and_strict_json(built, name):
    result = built[name]
    for obj in _items(result):
        before = _fingerprint(obj)  # also: to_dict() is strict JSON
        for twin in (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj)):
            assert type(twin) is type(obj)
            assert _fingerprint(twin) == before, name


def test_every_exported_result_type_has_an_instance_here(built):
    """A class in ``bacc.__all__`` with no instance among the results above fails this test,
    so a new result type cannot forget to travel."""
    seen = set()

    def walk(obj, depth=0):
        seen.add(type(obj))
        if depth < 3 and isinstance(obj, list | tuple):
            for o in obj:
                walk(o, depth + 1)
        if depth >= 3:
            return
        for attr in ("per_class", "classes", "difference", "entries", "methods", "subjects",
                     "summary"):
            try:
                v = getattr(obj, attr)
            except Exception:  # noqa: BLE001 - an attribute this result does not have
                continue
            walk(v, depth + 1)

    for r in built.values():
        walk(r)
    exported = {getattr(bacc, n) for n in bacc.__all__}
    classes = {c for c in exported if inspect.isclass(c) and not issubclass(c, BaseException)}
    missing = sorted(c.__name__ for c in classes if c not in seen)
    assert not missing, f"no instance of {missing} is checked here"


def test_undefined_numbers_are_none_with_a_reason():
    p = _build("posterior_metric (undefined sample)")
    d = p.to_dict()
    assert math.isnan(p.sample) and d["sample"] is None and "0/0" in d["undefined"]["sample"]
    exact = bacc.exact_interval(CM).to_dict()
    assert exact["multiplier"] is None  # an exact interval has no multiplier
    wald = bacc.approx_class_intervals([[3, 0], [0, 0]], method="wald")[1].to_dict()
    assert wald["lower"] is None and wald["upper"] is None and wald["estimate"] is None


def test_a_pickled_monte_carlo_result_draws_again_when_its_function_can_travel():
    p = bacc.posterior_metric(CM, "g_mean", n_draws=2000)
    q = pickle.loads(pickle.dumps(p))
    assert np.array_equal(q.distribution.rvs(5, random_state=3), p.distribution.rvs(5, random_state=3))
    lam = bacc.posterior_metric(CM, lambda P: P[:, 0, 0], n_draws=2000)
    q = pickle.loads(pickle.dumps(lam))
    assert q.mean == lam.mean and q.interval() == lam.interval()
    with pytest.raises(bacc.BaccError, match="could not be pickled"):
        q.distribution.rvs(3)
    assert copy.deepcopy(lam).distribution.rvs(3, random_state=0).shape == (3,)


def test_a_pickled_population_keeps_its_read_only_prior_and_its_subjects():
    p = _build("population")
    q = pickle.loads(pickle.dumps(p))
    with pytest.raises(TypeError):
        q.prior["mu0"] = 3.0
    assert dict(q.prior) == dict(p.prior)
    assert [s.to_dict() for s in q.subjects] == [s.to_dict() for s in p.subjects]
    assert q.subject_posterior(1).cdf(0.8) == p.subject_posterior(1).cdf(0.8)
