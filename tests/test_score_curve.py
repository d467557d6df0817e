"""bacc.scores: the counts at every threshold, against scikit-learn, and its input layer."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pandas as pd
import pytest

import bacc

sk_metrics = pytest.importorskip("sklearn.metrics")


def _data(seed: int, n: int = 300, ties: bool = True, prevalence: float = 0.3):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prevalence).astype(int)
    s = rng.normal(1.2 * y, 1.0)
    if ties:
        s = np.round(s, 1)
    return y, s


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", [True, False])
def test_counts_and_rates_equal_scikit_learn(seed, ties):
    y, s = _data(seed, ties=ties)
    sc = bacc.scores(y, s)
    fpr, tpr, thr = sk_metrics.roc_curve(y, s, drop_intermediate=False)
    assert np.array_equal(sc.thresholds[1:], thr[1:])
    assert np.isinf(sc.thresholds[0])
    np.testing.assert_allclose(sc.fp / sc.n_negative, fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(sc.sensitivity, tpr, rtol=0, atol=1e-15)
    assert sc.sample_auc == pytest.approx(sk_metrics.roc_auc_score(y, s), abs=1e-12)
    for j in range(0, len(thr), max(1, len(thr) // 25)):
        want = sk_metrics.balanced_accuracy_score(y, (s >= sc.thresholds[j]).astype(int))
        assert sc.balanced_accuracy[j] == pytest.approx(want, abs=1e-12)


def test_positive_named_and_string_labels():
    y, s = _data(7)
    names = np.where(y == 1, "sick", "well")
    sc = bacc.scores(names, s)  # classes ("sick", "well"): "well" is second, so positive
    assert sc.classes == ("sick", "well") and sc.positive == "well"
    sc2 = bacc.scores(names, s, positive="sick")
    assert sc2.positive == "sick" and sc2.negative == "well"
    assert sc2.sample_auc == pytest.approx(sk_metrics.roc_auc_score(y, s), abs=1e-12)
    assert sc.sample_auc == pytest.approx(1 - sc2.sample_auc, abs=1e-12)
    with pytest.raises(bacc.BaccError, match="positive"):
        bacc.scores(names, s, positive="absent")


def test_every_array_form_gives_the_same_tallies():
    y, s = _data(3)
    ref = bacc.scores(y, s)
    for yt, ys in [(list(y), list(s)), (tuple(y), tuple(s)), (pd.Series(y), pd.Series(s)),
                   (pd.Series(y, index=np.arange(len(y))[::-1]), pd.Series(s).to_numpy()),
                   (y.astype(np.int8), s)]:
        assert bacc.scores(yt, ys) == ref
    assert bacc.scores(y, np.column_stack([1 - s, s])) == ref  # two columns: the positive's


def test_one_vs_rest_equals_scikit_learn_macro():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 400)
    p = rng.dirichlet([1, 1, 1], 400) + np.eye(3)[y] * 0.3
    p = p / p.sum(axis=1, keepdims=True)
    ovr = bacc.scores(y, p)
    assert isinstance(ovr, bacc.OneVsRest) and ovr.classes == (0, 1, 2)
    want = sk_metrics.roc_auc_score(y, p, multi_class="ovr", average="macro")
    assert ovr.macro_auc() == pytest.approx(want, abs=1e-12)
    for i, c in enumerate(ovr.classes):
        assert ovr[c].sample_auc == pytest.approx(
            sk_metrics.roc_auc_score(y == i, p[:, i]), abs=1e-12)
    json.dumps(ovr.to_dict(), allow_nan=False)


def test_matrix_at_a_threshold_equals_counting_the_decisions():
    y, s = _data(11)
    sc = bacc.scores(y, s)
    for t in (-np.inf, -0.3, 0.0, 0.45, 1.0, 9.0, float(s[3])):
        want = bacc.ConfusionMatrix.from_predictions(y, (s >= t).astype(int), labels=(0, 1))
        assert np.array_equal(np.asarray(sc.matrix(t).counts), np.asarray(want.counts))
    ev = sc.at(0.5)
    assert ev.sample_balanced_accuracy == pytest.approx(
        sk_metrics.balanced_accuracy_score(y, (s >= 0.5).astype(int)), abs=1e-12)


def test_results_travel_and_inputs_untouched():
    y, s = _data(2)
    y0, s0 = y.copy(), s.copy()
    sc = bacc.scores(y, s)
    assert np.array_equal(y, y0) and np.array_equal(s, s0)
    assert pickle.loads(pickle.dumps(sc)) == sc
    assert copy.deepcopy(sc) == sc
    d = json.loads(json.dumps(sc.to_dict(), allow_nan=False))
    assert d["n_positive"] == int(y.sum()) and d["sample_auc"] == pytest.approx(sc.sample_auc)
    with pytest.raises(ValueError):
        sc.values[0] = 3.0


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("bad, match", [
    ([0.1, np.nan, 0.3, 0.4], "NaN or infinite"),
    ([0.1, np.inf, 0.3, 0.4], "NaN or infinite"),
    (["a", "b", "a", "b"], "texts"),
    ([True, False, True, False], "True/False"),
    ([0.1, None, 0.3, 0.4], "missing"),
    ([0, 1, 1, 0], "only the class labels"),
    ([0.1, 0.2, 0.3], "same length"),
    (np.ma.masked_array([0.1, 0.2, 0.3, 0.4], mask=[0, 1, 0, 0]), "masked"),
])
def test_bad_scores_are_refused(bad, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.scores([0, 1, 0, 1], bad)


def test_bad_labels_are_refused():
    with pytest.raises(bacc.BaccError, match="one class only"):
        bacc.scores([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(bacc.BaccError, match="true labels come first"):
        bacc.scores([0.12, 0.53, 0.91, 0.33], [0, 1, 1, 0])
    with pytest.raises(bacc.BaccError, match="two classes"):
        bacc.scores([0, 1, 2, 0], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(bacc.BaccError, match="columns"):
        bacc.scores([0, 1, 2, 0], np.ones((4, 2)) * [0.2, 0.8])
    with pytest.raises(bacc.BaccError, match="missing"):
        bacc.scores([0, None, 1, 0], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(bacc.BaccError, match="needs the scores"):
        bacc.scores([0, 1, 0, 1])
    with pytest.raises(bacc.BaccError):
        bacc.scores()


def test_evaluate_points_continuous_predictions_to_scores():
    with pytest.raises(bacc.BaccError, match="bacc.scores"):
        bacc.evaluate([0, 1, 0, 1, 1], [0.12, 0.83, 0.33, 0.61, 0.95])


def test_one_example_of_each_class():
    sc = bacc.scores([0, 1], [0.2, 0.7])
    assert sc.sample_auc == 1.0 and sc.n_positive == 1 and sc.n_negative == 1
    sc = bacc.scores([0, 1], [0.7, 0.7])
    assert sc.sample_auc == 0.5 and sc.thresholds.tolist() == [np.inf, 0.7]
