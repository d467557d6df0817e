"""Posterior API: the papers' worked statements, invariances, intervals, bad input."""

import warnings

import numpy as np
import pytest

import bacc
from bacc import BaccError, BaccWarning


def test_seed002_balanced_test_set_overall_equals_balanced():
    cm = [[9, 1], [2, 8]]  # face 9/10, place 8/10
    assert bacc.metrics.accuracy(cm) == pytest.approx(0.85)
    assert bacc.metrics.balanced_accuracy(cm) == pytest.approx(0.85)
    ev = bacc.evaluate(cm)
    assert ev.sample_accuracy == pytest.approx(0.85)
    assert ev.sample_balanced_accuracy == pytest.approx(0.85)


def test_seed002_unbalanced_variant_overall_exceeds_balanced():
    cm = [[9, 1], [2, 7]]  # one place example removed
    assert bacc.metrics.accuracy(cm) == pytest.approx(16 / 19)
    assert bacc.metrics.balanced_accuracy(cm) == pytest.approx((0.9 + 7 / 9) / 2)
    assert bacc.metrics.accuracy(cm) > bacc.metrics.balanced_accuracy(cm)


def test_seed000_accuracy_mode_equals_sample_accuracy_under_flat_prior():
    cm = [[42, 3], [6, 4]]
    post = bacc.posterior_accuracy(cm)
    assert post.mode() == pytest.approx(46 / 55, abs=1e-15)  # eq. 5
    assert post.mean() == pytest.approx(47 / 57, abs=1e-15)  # eq. 3
    lo, hi = post.interval(0.95)  # eq. 6 with scipy as an independent check at small a, b
    from scipy import stats

    assert lo == pytest.approx(stats.beta.ppf(0.025, 47, 10), abs=1e-12)
    assert hi == pytest.approx(stats.beta.ppf(0.975, 47, 10), abs=1e-12)


def test_seed000_majority_class_classifier_drops_to_chance():
    # every example predicted as the large class: accuracy looks good, balanced accuracy is 1/2
    cm = [[45, 0], [10, 0]]
    ev = bacc.evaluate(cm)
    assert ev.sample_accuracy == pytest.approx(45 / 55)
    assert ev.sample_balanced_accuracy == pytest.approx(0.5)
    lo, hi = ev.balanced_accuracy.interval(0.95)
    assert lo < 0.5 < hi
    alo, ahi = ev.accuracy.interval(0.95)
    assert alo > 0.5  # the accuracy wrongly suggests above-chance performance
    assert ev.p_above_chance < 0.95


def test_balanced_accuracy_posterior_is_invariant_under_relabelling():
    cm = bacc.ConfusionMatrix([[20, 2, 1], [3, 15, 2], [0, 1, 30]])
    d1 = bacc.posterior_balanced_accuracy(cm)
    d2 = bacc.posterior_balanced_accuracy(cm.relabel([2, 0, 1]))
    xs = np.linspace(0.7, 0.95, 11)
    assert np.max(np.abs(d1.cdf(xs) - d2.cdf(xs))) < 1e-9
    assert d1.median() == pytest.approx(d2.median(), abs=1e-9)


def test_cost_weighted_balanced_accuracy_uses_c_and_one_minus_c():
    cm = [[30, 10], [4, 16]]
    d = bacc.posterior_balanced_accuracy(cm, weights=(0.7, 0.3))
    assert d.mean() == pytest.approx(0.7 * 31 / 42 + 0.3 * 17 / 22)


def test_prior_given_per_class_and_by_name():
    cm = [[5, 5], [1, 9]]
    d1 = bacc.posterior_balanced_accuracy(cm, prior=[(0.5, 0.5), (0.5, 0.5)])
    d2 = bacc.posterior_balanced_accuracy(cm, prior="jeffreys")
    assert d1.mean() == pytest.approx(d2.mean())
    assert d1.mean() == pytest.approx(0.5 * 5.5 / 11 + 0.5 * 9.5 / 11)


def test_empty_class_is_dropped_with_warning_or_kept_with_prior():
    cm = bacc.ConfusionMatrix.from_predictions(["a", "a", "b"], ["a", "c", "b"])
    with pytest.warns(BaccWarning, match="no true examples"):
        d = bacc.posterior_balanced_accuracy(cm)
    assert d.labels == ("a", "b")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = bacc.posterior_balanced_accuracy(cm, empty="keep")
    assert kept.labels == ("a", "b", "c")
    assert kept.class_posteriors[2].args == (1.0, 1.0)  # the prior


@pytest.mark.parametrize(
    "call",
    [
        lambda cm: bacc.posterior_balanced_accuracy(cm),
        lambda cm: bacc.evaluate(cm),
        lambda cm: bacc.compare(cm, cm),
        lambda cm: bacc.rank([cm, cm], n_draws=100),
    ],
    ids=["posterior", "evaluate", "compare", "rank"],
)
def test_empty_class_warning_points_at_the_callers_line(call):
    cm = [[5, 1, 0], [2, 3, 0], [0, 0, 0]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(cm)
    ours = [w for w in caught if issubclass(w.category, BaccWarning)]
    assert ours, "no warning for the class without examples"
    assert {w.filename for w in ours} == {__file__}


def test_hdi_is_shortest_and_holds_the_mass():
    d = bacc.posterior_balanced_accuracy([[42, 3], [6, 4]])
    lo, hi = d.interval(0.9, kind="hdi")
    clo, chi = d.interval(0.9)
    assert hi - lo < chi - clo
    assert d.cdf(hi) - d.cdf(lo) == pytest.approx(0.9, abs=1e-8)
    assert d.pdf(lo) == pytest.approx(d.pdf(hi), rel=1e-4)


def test_intervals_contain_point_estimates():
    ev = bacc.evaluate([[3, 0], [0, 5]])
    for s in (ev.balanced_accuracy_summary, ev.accuracy_summary):
        assert s.lower <= s.median <= s.upper
        assert s.lower <= s.mean <= s.upper
        assert 0 <= s.lower and s.upper <= 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]], prior=(0, 1)), "prior"),
        (lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]], prior=(-1, 1)), "prior"),
        (lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]], prior=[(1, 1)] * 3), "prior"),
        (
            lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]], weights=(-0.5, 1.5)),
            "weights",
        ),
        (
            lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]], weights=(0.5, 0.6)),
            "sum to 1",
        ),
        (lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]]).interval(1.2), "confidence"),
        (lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]]).interval(0), "confidence"),
        (lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]]).ppf(1.5), "q must lie"),
        (lambda: bacc.posterior_accuracy([[1, 2], [3, 4]]).ppf(-0.1), "q must lie"),
        (lambda: bacc.evaluate([[1, 2], [3, 4]], confidence=95), "confidence"),
        (lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]], empty="ignore"), "empty"),
        (
            lambda: bacc.posterior_balanced_accuracy([[1, 2], [3, 4]]).interval(0.9, kind="mode"),
            "kind",
        ),
    ],
)
def test_bad_input_raises_bacc_error(call, message):
    with pytest.raises(BaccError, match=message):
        call()


def test_evaluate_result_is_frozen_and_json_ready():
    import dataclasses
    import json

    ev = bacc.evaluate([[42, 3], [6, 4]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.confidence = 0.9
    d = json.loads(json.dumps(ev.to_dict()))
    assert d["balanced_accuracy"]["mean"] == pytest.approx(ev.balanced_accuracy.mean())
    assert d["p_above_chance"] == pytest.approx(ev.p_above_chance)
    text = str(ev)
    assert "balanced accuracy" in text and "0.6667" in text
    assert "<table>" in ev._repr_html_()


def test_evaluate_reports_class_posteriors():
    ev = bacc.evaluate([[42, 3], [6, 4]])
    c0, c1 = ev.classes
    assert (c0.correct, c0.support) == (42, 45)
    assert c1.summary.mean == pytest.approx(5 / 12)
    assert c0.summary.lower < 42 / 45 < c0.summary.upper
