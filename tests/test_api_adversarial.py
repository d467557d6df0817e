"""Adversarial inputs across the public API and the commands.

Each test states the right answer from an independent computation (a closed form, a hand
count, scipy or scikit-learn, or the same question asked another way) and never from bacc's
own output. An input bacc gets wrong is marked ``xfail(strict=True)`` with the reason until it
is fixed, so that the test flips when the behaviour changes.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import stat

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bacc
import bacc.metrics as M
from bacc.cli import main

CM = [[42, 3], [6, 4]]
LABELLED = bacc.ConfusionMatrix([[95, 5], [2, 8]], labels=["neg", "pos"])


def _mean_ba(matrix, weights=None, a=1.0, b=1.0):
    """Posterior mean of the balanced accuracy: the weighted mean of Beta means."""
    m = np.asarray(matrix, dtype=float)
    k, n = np.diag(m), m.sum(axis=1)
    w = np.full(len(k), 1 / len(k)) if weights is None else np.asarray(weights, float)
    return float(np.sum(w * (k + a) / (n + a + b)))


def _cp(k, n, alpha):
    """Clopper-Pearson bounds at one-sided level alpha (scipy)."""
    lo = stats.beta.ppf(alpha, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1 - alpha, k + 1, n - k) if k < n else 1.0
    return lo, hi


def _travels(result):
    """A result survives pickle, deepcopy and strict JSON."""
    pickle.loads(pickle.dumps(result))
    copy.deepcopy(result)
    json.dumps(result.to_dict(), allow_nan=False)


def _run(argv, capsys):
    """Run the command in process: (exit status, stdout, stderr)."""
    try:
        rc = main(list(argv))
    except SystemExit as e:  # argparse exits
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def _one_line_error(rc, err):
    assert rc == 2
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("bacc: warning")]
    assert len(lines) == 1 and lines[0].startswith("bacc: error:"), err
    assert "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------


def test_labels_9_and_10_in_natural_order():
    cm = bacc.ConfusionMatrix.from_predictions(["9", "10", "10", "9"], ["9", "10", "9", "9"])
    assert cm.labels == ("9", "10")
    assert cm.counts.tolist() == [[2, 0], [1, 1]]


def test_bool_labels_counted_by_hand():
    cm = bacc.ConfusionMatrix.from_predictions([True, False, True], [True, True, False])
    assert cm.labels == (False, True)
    assert cm.counts.tolist() == [[0, 1], [1, 1]]


def test_float_that_is_int_is_one_class_with_the_int():
    cm = bacc.ConfusionMatrix.from_predictions([1, 1.0, 2], [1, 2, 2.0])
    assert len(cm.labels) == 2
    assert cm.counts.tolist() == [[1, 1], [0, 1]]


def test_numpy_ints_and_python_ints_are_one_class():
    cm = bacc.ConfusionMatrix.from_predictions(np.array([1, 2, 1]), [1, 2, np.int64(2)])
    assert cm.counts.tolist() == [[1, 1], [0, 1]]


def test_bool_and_int_labels_together_are_refused():
    with pytest.raises(bacc.BaccError):
        bacc.ConfusionMatrix.from_predictions([1, True, 0], [1, 0, False])


def test_metric_label_true_on_integer_classes_is_refused():
    with pytest.raises(bacc.BaccError):
        bacc.posterior_metric([[1950, 50], [8, 42]], "precision", label=True)


def test_metric_label_text_on_integer_classes_is_refused():
    with pytest.raises(bacc.BaccError, match="not a class"):
        bacc.posterior_metric([[1950, 50], [8, 42]], "precision", label="1")


@pytest.mark.parametrize(
    "truth, pred, name",
    [
        ([1, np.nan, 2], [1, 2, 2], "y_true"),
        (pd.array([1, 2, 2]), pd.array([1, pd.NA, 2]), "y_pred"),
        (pd.Series([pd.Timestamp(0), pd.NaT]), [1, 2], "y_true"),
        ([None, "a"], ["a", "a"], "y_true"),
    ],
)
def test_missing_labels_are_refused_by_name(truth, pred, name):
    with pytest.raises(bacc.BaccError, match=name):
        bacc.ConfusionMatrix.from_predictions(truth, pred)


def test_categorical_with_unused_category_counts_only_used_classes():
    c = pd.Categorical(["a", "b", "a"], categories=["c", "a", "b"])
    ev = bacc.evaluate(c, c)
    assert ev.confusion.counts.tolist() == [[2, 0], [0, 1]]
    assert ev.balanced_accuracy.mean() == pytest.approx(0.5 * (3 / 4 + 2 / 3), abs=1e-12)


def test_mixed_int_and_text_labels_refused():
    with pytest.raises(bacc.BaccError, match="mix"):
        bacc.compare_paired([1, "1", 2, 2], [1, 1, 2, 2], [1, 2, 2, 2])


@pytest.mark.parametrize(
    "truth, pred, match",
    [([], [], "empty"), ([1, 2], [1], "same length"), ([[1, 2]], [[1, 2]], "one-dimensional")],
)
def test_label_shapes_refused(truth, pred, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.ConfusionMatrix.from_predictions(truth, pred)


# ---------------------------------------------------------------------------------------------
# Counts
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "matrix, match",
    [
        ([[3.5, 1], [1, 2]], "non-integer"),
        ([[-1, 1], [1, 2]], "negative"),
        ([[np.nan, 1], [1, 2]], "non-finite"),
        ([[np.inf, 1], [1, 2]], "non-finite"),
        ([[10**13 + 5, 5], [1, 2]], "10\\^13"),
        ([[2**64, 5], [1, 2]], "10\\^13"),
        ([["3", "1"], ["1", "2"]], "numbers"),
        (np.array([[3 + 0j, 1], [1, 2]]), "numbers"),
        ([[3, 1, 1], [1, 2, 1]], "square"),
        ([[0, 0], [0, 0]], "no examples"),
        (np.ma.array([[42, 3], [6, 4]], mask=[[0, 1], [0, 0]]), "masked"),
    ],
)
def test_bad_counts_refused(matrix, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.evaluate(matrix)


def test_float_and_object_counts_equal_int_counts():
    ref = _mean_ba([[3, 1], [1, 2]])
    assert bacc.evaluate([[3.0, 1], [1, 2]]).balanced_accuracy.mean() == pytest.approx(ref)
    obj = np.array([[3, 1], [1, 2]], dtype=object)
    assert bacc.evaluate(obj).balanced_accuracy.mean() == pytest.approx(ref)


def test_counts_at_the_limit():
    n = 10**13
    ev = bacc.evaluate([[n - 5, 5], [1, 2]])
    ref = 0.5 * ((n - 4) / (n + 2) + 3 / 5)
    assert ev.balanced_accuracy.mean() == pytest.approx(ref, abs=1e-13)


def test_one_class_is_its_beta():
    ev = bacc.evaluate([[5]])
    assert ev.balanced_accuracy.mean() == pytest.approx(6 / 7)
    assert ev.balanced_accuracy.cdf(0.8) == pytest.approx(stats.beta.cdf(0.8, 6, 1), abs=1e-9)


def test_read_only_non_contiguous_fortran_and_frame_forms_agree():
    ref = _mean_ba(CM)
    ro = np.array(CM)
    ro.setflags(write=False)
    big = np.zeros((4, 4), int)
    big[::2, ::2] = CM
    df = pd.DataFrame(CM, index=["a", "b"], columns=["a", "b"])
    swapped = pd.DataFrame([[3, 42], [4, 6]], index=["a", "b"], columns=["b", "a"])
    for form in (ro, big[::2, ::2], np.asfortranarray(CM), df, swapped):
        assert bacc.evaluate(form).balanced_accuracy.mean() == pytest.approx(ref, abs=1e-12)


def test_caller_objects_unmodified():
    arr = np.array(CM)
    lst = [[42, 3], [6, 4]]
    w = np.array([0.7, 0.3])
    ws = pd.Series({"pos": 0.3, "neg": 0.7})
    bacc.evaluate(arr, weights=w)
    bacc.evaluate(lst)
    bacc.evaluate(LABELLED, weights=ws)
    bacc.exact_interval(arr, weights=w)
    assert arr.tolist() == CM and lst == CM and w.tolist() == [0.7, 0.3]
    assert ws.to_dict() == {"pos": 0.3, "neg": 0.7} and list(ws.index) == ["pos", "neg"]
    y = pd.Series([0, 1, 1, 0, 1])
    p = pd.Series([0, 1, 0, 0, 1])
    bacc.evaluate(y, p)
    assert y.tolist() == [0, 1, 1, 0, 1] and p.tolist() == [0, 1, 0, 0, 1]


# ---------------------------------------------------------------------------------------------
# Per-class options
# ---------------------------------------------------------------------------------------------

W_REF = 0.7 * 96 / 102 + 0.3 * 9 / 12


@pytest.mark.parametrize(
    "weights",
    [
        [0.7, 0.3],
        np.array([0.7, 0.3]),
        {"pos": 0.3, "neg": 0.7},
        pd.Series({"pos": 0.3, "neg": 0.7}),
        pd.Series([0.7, 0.3]),
    ],
)
def test_weights_in_every_form(weights):
    assert bacc.evaluate(LABELLED, weights=weights).balanced_accuracy.mean() == pytest.approx(W_REF)


@pytest.mark.parametrize(
    "weights, match",
    [
        ([0.7, 0.2, 0.1], "one value per class"),
        ({"pos": 0.3, "nag": 0.7}, "nag"),
        ({"pos": 0.3}, "neg"),
        ([1.2, -0.2], ">= 0"),
        ([np.nan, 0.3], "finite"),
        ([np.inf, 0.3], "finite"),
        (["a", "b"], "numbers"),
        (pd.Series([0.7, 0.3, 0.1], index=["neg", "pos", "pos"]), "more than once"),
        (0.5, "one value per class"),
    ],
)
def test_bad_weights_refused(weights, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.evaluate(LABELLED, weights=weights)


def test_weights_keyed_by_int_and_float_labels():
    cm = bacc.ConfusionMatrix([[95, 5], [2, 8]], labels=[9, 10])
    assert bacc.evaluate(cm, weights={10: 0.3, 9: 0.7}).balanced_accuracy.mean() == pytest.approx(
        W_REF
    )
    assert bacc.evaluate(cm, weights={10.0: 0.3, 9.0: 0.7}).balanced_accuracy.mean() == (
        pytest.approx(W_REF)
    )
    with pytest.raises(bacc.BaccError, match="not a class"):
        bacc.evaluate(cm, weights={"10": 0.3, "9": 0.7})


def test_prior_per_class_by_label_and_by_order():
    ref = 0.5 * (96 / 102 + 10 / 13)
    by_label = bacc.evaluate(LABELLED, prior={"pos": (2, 1), "neg": (1, 1)})
    by_order = bacc.evaluate(LABELLED, prior=[(1, 1), (2, 1)])
    assert by_label.balanced_accuracy.mean() == pytest.approx(ref)
    assert by_order.balanced_accuracy.mean() == pytest.approx(ref)
    jeff = bacc.evaluate(LABELLED, prior="jeffreys").balanced_accuracy.mean()
    assert jeff == pytest.approx(0.5 * (95.5 / 101 + 8.5 / 11))


@pytest.mark.parametrize("prior", [(-1, 1), (np.nan, 1), "flat2"])
def test_bad_prior_refused(prior):
    with pytest.raises(bacc.BaccError, match="prior"):
        bacc.evaluate(LABELLED, prior=prior)


@pytest.mark.parametrize("confidence", [0, 1, 1.5, np.nan, -0.1, "0.95", True])
def test_bad_confidence_refused(confidence):
    with pytest.raises(bacc.BaccError, match="confidence"):
        bacc.evaluate(CM, confidence=confidence)


# ---------------------------------------------------------------------------------------------
# Intervals and tests
# ---------------------------------------------------------------------------------------------


def test_exact_union_bound_against_scipy():
    # the union bound: each of the two classes at 1 - 0.05 / 2, two-sided
    l0, l1 = _cp(95, 100, 0.0125), _cp(8, 10, 0.0125)
    iv = bacc.exact_interval(LABELLED)
    assert iv.lower == pytest.approx((l0[0] + l1[0]) / 2, abs=1e-10)
    assert iv.upper == pytest.approx((l0[1] + l1[1]) / 2, abs=1e-10)
    iw = bacc.exact_interval(LABELLED, weights={"pos": 0.3, "neg": 0.7})
    assert iw.lower == pytest.approx(0.7 * l0[0] + 0.3 * l1[0], abs=1e-10)
    _travels(iv)


def test_clopper_pearson_forms():
    ref = _cp(3, 10, 0.025)
    for k, n in ((3, 10), (3.0, 10.0), (np.int64(3), np.uint8(10))):
        assert bacc.clopper_pearson(k, n) == pytest.approx(ref, abs=1e-12)
    assert bacc.clopper_pearson(0, 0) == (0.0, 1.0)
    for k, n in ((11, 10), (3.5, 10), (np.nan, 10)):
        with pytest.raises(bacc.BaccError):
            bacc.clopper_pearson(k, n)


def test_mcnemar_against_scipy_binomtest():
    assert bacc.mcnemar_exact(3, 10).p_value == pytest.approx(stats.binomtest(3, 13).pvalue)
    assert bacc.mcnemar_exact(0, 0).p_value == 1.0
    for a in (-1, 2.5, np.nan, "3"):
        with pytest.raises(bacc.BaccError, match="only_a"):
            bacc.mcnemar_exact(a, 3)


def test_mcnemar_accepts_float_that_is_integer():
    assert bacc.mcnemar_exact(3.0, 10.0).p_value == pytest.approx(stats.binomtest(3, 13).pvalue)


def test_binomial_test_against_scipy():
    t = bacc.binomial_test(LABELLED)
    assert t.p_value == pytest.approx(stats.binomtest(103, 110, 0.5, "greater").pvalue, rel=1e-9)
    for chance in (np.nan, 1.0):
        with pytest.raises(bacc.BaccError, match="chance"):
            bacc.binomial_test(LABELLED, chance=chance)


# ---------------------------------------------------------------------------------------------
# Comparisons and rankings
# ---------------------------------------------------------------------------------------------


def _three_class_preds():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    a = np.where(rng.random(200) < 0.8, y, (y + 1) % 3)
    b = np.where(rng.random(200) < 0.7, y, (y + 2) % 3)
    names = np.array(["9", "10", "11"])
    return y, a, b, names[y], names[a], names[b]


def test_compare_paired_int_text_and_every_form_agree():
    import polars as pl

    y, a, b, ys, as_, bs = _three_class_preds()
    w = [0.5, 0.3, 0.2]
    ref = bacc.compare_paired(y, a, b, weights=w)
    sample = sum(wi * np.mean(a[y == c] == c) - wi * np.mean(b[y == c] == c)
                 for c, wi in enumerate(w))
    assert ref.sample_difference == pytest.approx(sample)
    forms = [
        bacc.compare_paired(ys, as_, bs, weights={"9": 0.5, "10": 0.3, "11": 0.2}),
        bacc.compare_paired(list(ys), list(as_), list(bs), weights=w),
        bacc.compare_paired(pd.Series(y), pd.Series(a), pd.Series(b), weights=w),
        bacc.compare_paired(pl.Series(y), pl.Series(a), pl.Series(b), weights=w),
    ]
    for c in forms:
        assert c.p_better == pytest.approx(ref.p_better, abs=1e-12)
    r = bacc.rank_paired(ys, {"a": as_, "b": bs}, weights={"9": 0.5, "10": 0.3, "11": 0.2})
    assert r.p_greater[0, 1] == pytest.approx(ref.p_better, abs=1e-12)
    _travels(ref)
    _travels(r)


def test_compare_paired_identical_predictions_is_one_half():
    y, a, *_ = _three_class_preds()
    assert bacc.compare_paired(y, a, a).p_better == pytest.approx(0.5, abs=1e-9)


def test_compare_against_monte_carlo():
    c = bacc.compare([[40, 5], [5, 40]], [[30, 15], [15, 30]])
    rng = np.random.default_rng(1)
    n = 400_000
    la = (rng.beta(41, 6, n) + rng.beta(41, 6, n)) / 2
    lb = (rng.beta(31, 16, n) + rng.beta(31, 16, n)) / 2
    assert c.difference.mean() == pytest.approx(10 / 47, abs=1e-12)
    assert c.p_better == pytest.approx(np.mean(la > lb), abs=4e-4)
    r = bacc.rank([[[40, 5], [5, 40]], [[30, 15], [15, 30]]])
    assert r.p_greater[0, 1] == pytest.approx(c.p_better, abs=1e-9)
    _travels(c)
    _travels(r)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: bacc.rank([bacc.evaluate(CM)]), "at least two"),
        (lambda: bacc.rank([CM, CM], names=["a"]), "names"),
        (lambda: bacc.rank([CM, CM], names=["a", "a"]), "distinct"),
        (lambda: bacc.compare(CM, [[3, 1, 1], [1, 3, 1], [1, 1, 3]]), "classes"),
        (lambda: bacc.compare(CM, CM, rope=-0.1), "rope"),
        (lambda: bacc.compare(CM, CM, rope=np.nan), "rope"),
        (lambda: bacc.rank_paired([1.0, np.nan, 2.0, 1.0], {"a": [1, 2, 2, 1], "b": [1] * 4}),
         "missing"),
        (lambda: bacc.compare_paired([1, 2, 2, 1], [1, None, 2, 2], [1, 2, 2, 2]), "missing"),
        (lambda: bacc.compare_paired([1, 2, 2, 1], [1, 2, 2], [1, 2, 2, 2]), "same length"),
    ],
)
def test_compare_and_rank_refusals(call, match):
    with pytest.raises(bacc.BaccError, match=match):
        call()


# ---------------------------------------------------------------------------------------------
# Metrics and metric posteriors
# ---------------------------------------------------------------------------------------------

PREC_CM = [[1950, 50], [8, 42]]


def test_sample_metrics_equal_scikit_learn():
    sk = pytest.importorskip("sklearn.metrics")
    y = np.r_[[0] * 2000, [1] * 50]
    p = np.r_[[0] * 1950, [1] * 50, [0] * 8, [1] * 42]
    assert M.accuracy(PREC_CM) == pytest.approx(sk.accuracy_score(y, p))
    assert M.balanced_accuracy(PREC_CM) == pytest.approx(sk.balanced_accuracy_score(y, p))
    assert M.matthews(PREC_CM) == pytest.approx(sk.matthews_corrcoef(y, p))
    assert M.cohen_kappa(PREC_CM) == pytest.approx(sk.cohen_kappa_score(y, p))
    assert M.f1(PREC_CM) == pytest.approx(sk.f1_score(y, p, average=None))
    assert M.macro_f1(PREC_CM) == pytest.approx(sk.f1_score(y, p, average="macro"))
    assert M.precision(PREC_CM) == pytest.approx(sk.precision_score(y, p, average=None))
    assert M.g_mean(PREC_CM) == pytest.approx(np.sqrt(1950 / 2000 * 42 / 50))
    assert M.informedness(PREC_CM) == pytest.approx(1950 / 2000 + 42 / 50 - 1)
    c3 = [[5, 1, 0], [2, 3, 1], [0, 1, 4]]
    y3 = np.repeat([0, 0, 1, 1, 1, 2, 2], [5, 1, 2, 3, 1, 1, 4])
    p3 = np.repeat([0, 1, 0, 1, 2, 1, 2], [5, 1, 2, 3, 1, 1, 4])
    assert M.cohen_kappa(c3) == pytest.approx(sk.cohen_kappa_score(y3, p3))
    assert M.matthews(c3) == pytest.approx(sk.matthews_corrcoef(y3, p3))


def test_metric_weights_by_label():
    cm = bacc.ConfusionMatrix(PREC_CM, labels=["a", "b"])
    ref = 0.7 * 1950 / 2000 + 0.3 * 42 / 50
    assert M.balanced_accuracy(cm, weights={"b": 0.3, "a": 0.7}) == pytest.approx(ref)
    assert M.balanced_accuracy(PREC_CM, weights=[0.7, 0.3]) == pytest.approx(ref)


@pytest.mark.parametrize(
    "matrix",
    [[[np.nan, 1], [1, 1]], [[-1, 1], [1, 1]], [[3.5, 1], [1, 1]],
     np.ma.array([[5, 1], [1, 1]], mask=[[0, 1], [0, 0]])],
)
def test_metrics_refuse_bad_counts(matrix):
    with pytest.raises(bacc.BaccError):
        M.accuracy(matrix)


def test_posterior_metric_prevalence_in_every_form():
    ref = bacc.posterior_metric(PREC_CM, "precision", label=1, prevalence=0.00425).median
    for prev in ([0.99575, 0.00425], {0: 0.99575, 1: 0.00425}, np.array([0.99575, 0.00425])):
        got = bacc.posterior_metric(PREC_CM, "precision", label=1, prevalence=prev).median
        assert got == pytest.approx(ref, abs=1e-12)
    assert bacc.posterior_metric(PREC_CM, "precision", label=1.0).median == pytest.approx(
        bacc.posterior_metric(PREC_CM, "precision", label=1).median
    )


def test_posterior_recall_is_its_beta():
    r = bacc.posterior_metric(PREC_CM, "recall", label=1)
    mean = r.mean() if callable(r.mean) else r.mean
    assert mean == pytest.approx(43 / 52, abs=1e-9)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(metric="precision", label=1, prevalence=np.nan), "prevalence"),
        (dict(metric="precision", label=1, prevalence=0), "prevalence"),
        (dict(metric="precision", label=1, prevalence=[0.5, 0.6]), "prevalence"),
        (dict(metric="precison", label=1), "metric"),
        (dict(metric="matthews", n_draws=0), "n_draws"),
        (dict(metric="matthews", mc_error=np.nan), "mc_error"),
        (dict(metric="f1", label=1, design="strat"), "design"),
        (dict(metric=lambda p: 0.5), "shape"),
        (dict(metric="precision", label=5), "not a class"),
    ],
)
def test_posterior_metric_refusals(kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.posterior_metric(PREC_CM, **kwargs)


def test_metric_posteriors_travel():
    _travels(bacc.posterior_metric(PREC_CM, "matthews", mc_error=1e-2))
    _travels(bacc.posterior_metric([[5, 0], [0, 0]], "precision", label=1))


# ---------------------------------------------------------------------------------------------
# Label plans
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mix",
    [[0.95, 0.05], np.array([0.95, 0.05]), {"pos": 0.05, "neg": 0.95},
     pd.Series({"pos": 0.05, "neg": 0.95})],
)
def test_plan_mix_in_every_form(mix):
    # the same plan asked with text labels in natural order and with the documented list
    plain = bacc.plan_labels([[95, 5], [2, 8]], lower=0.7, mix=[0.95, 0.05]).labels
    assert bacc.plan_labels(LABELLED, lower=0.7, mix=mix).labels == plain


def test_plan_mix_with_labels_9_and_10():
    cm = bacc.ConfusionMatrix([[95, 5], [2, 8]], labels=["9", "10"])
    plain = bacc.plan_labels([[95, 5], [2, 8]], lower=0.7, mix=[0.95, 0.05]).labels
    assert bacc.plan_labels(cm, lower=0.7, mix={"10": 0.05, "9": 0.95}).labels == plain


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(lower=0.7, mix=[0.9, 0.05, 0.05]), "mix"),
        (dict(lower=0.7, mix=[1.05, -0.05]), "mix"),
        (dict(lower=0.7, mix=[np.nan, 0.05]), "mix"),
        (dict(lower=0.7, mix={"pos": 0.05, "ne": 0.95}), "ne"),
        (dict(lower=0.7, accuracies=[1.5, 0.8]), "accuracies"),
        (dict(lower=0.7, accuracies=[np.nan, 0.8]), "accuracies"),
        (dict(lower=np.nan), "lower"),
        (dict(lower=1.0), "lower"),
        (dict(lower=0.7, budget=-1), "budget"),
        (dict(lower=0.7, budget=3.5), "budget"),
        (dict(), "goal"),
        (dict(lower=0.7, width=0.1), "goal"),
        (dict(lower=0.7, n_classes=3), "n_classes"),
    ],
)
def test_plan_refusals(kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.plan_labels(LABELLED, **kwargs)


def test_plan_budget_float_that_is_integer():
    a = bacc.plan_labels(LABELLED, lower=0.7, mix=[0.95, 0.05], budget=300)
    b = bacc.plan_labels(LABELLED, lower=0.7, mix=[0.95, 0.05], budget=300.0)
    assert a.budget_assurance == b.budget_assurance


def test_plan_accuracies_by_label_and_order_and_travel():
    a = bacc.plan_labels(LABELLED, lower=0.7, accuracies={"pos": 0.8, "neg": 0.95})
    b = bacc.plan_labels(LABELLED, lower=0.7, accuracies=[0.95, 0.8])
    assert a.labels == b.labels
    _travels(a)
    short = bacc.plan_labels(LABELLED, lower=0.7, mix=[0.95, 0.05], max_labels=10)
    assert short.labels is None and "10" in short.to_dict()["message"]
    _travels(short)
    _travels(bacc.plan_labels(LABELLED, lower=0.8))


def test_next_label_expected_width_by_hand():
    # expected union-bound width after one more positive, over its two outcomes
    alpha = 0.0125  # union bound over two classes, two-sided 95 %
    w0 = _cp(95, 100, alpha)
    p_right = 9 / 12  # posterior predictive of a correct positive under a flat prior
    width = 0.0
    for k, pr in ((9, p_right), (8, 1 - p_right)):
        w1 = _cp(k, 11, alpha)
        width += pr * ((w0[1] + w1[1]) / 2 - (w0[0] + w1[0]) / 2)
    nl = bacc.next_label(LABELLED)
    assert nl.best == "pos"
    assert nl.classes[1].expected_width == pytest.approx(width, abs=1e-9)
    by_dict = bacc.next_label(LABELLED, by="predicted", mix={"pos": 0.05, "neg": 0.95}).best
    assert by_dict == bacc.next_label(LABELLED, by="predicted", mix=[0.95, 0.05]).best
    _travels(nl)


# ---------------------------------------------------------------------------------------------
# Population
# ---------------------------------------------------------------------------------------------


def test_population_beta_binomial_closed_forms():
    perfect = bacc.population(correct=[[1] * 4], totals=[[1] * 4], model="beta-binomial")
    assert perfect.balanced_accuracy.mean() == pytest.approx(5 / 6, abs=1e-8)
    assert perfect.balanced_accuracy.cdf(0.7) == pytest.approx(0.7**5, abs=1e-8)
    wrong = bacc.population(correct=[[0] * 3], totals=[[1] * 3], model="beta-binomial")
    assert wrong.balanced_accuracy.mean() == pytest.approx(1 / 5, abs=1e-8)


def test_population_forms_and_invariances():
    y = np.array([0, 1] * 20)
    p = np.where(np.arange(40) % 5 == 0, 1 - y, y)
    g = np.repeat(["s1", "s2", "s3", "s4"], 10)
    ref = bacc.population(y, p, groups=g)
    m = ref.balanced_accuracy.mean()
    perm = np.random.default_rng(3).permutation(40)
    cat = pd.Categorical(g, categories=["s0", "s1", "s2", "s3", "s4"])
    for other in (
        bacc.population(y[perm], p[perm], groups=g[perm]),
        bacc.population(pd.Series(y), pd.Series(p), groups=cat),
        bacc.population(y, p, groups=np.repeat([1, 2, 3, 4], 10)),
    ):
        assert other.balanced_accuracy.mean() == pytest.approx(m, abs=1e-10)
    _travels(ref)
    a, b = [[8, 2], [1, 9]], [[7, 3], [2, 8]]
    d = bacc.population({"a": a, "b": b}).balanced_accuracy.mean()
    s = np.array([a, b, a, b])[::2]  # a non-contiguous view holding a, a
    assert bacc.population(np.array([a, b])).balanced_accuracy.mean() == pytest.approx(d)
    assert bacc.population(s).balanced_accuracy.mean() == pytest.approx(
        bacc.population(np.array([a, a])).balanced_accuracy.mean()
    )


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(correct=[[3, 1]], totals=[[2, 1]]), "more correct"),
        (dict(correct=[[3.5, 1]], totals=[[4, 1]]), "whole"),
        (dict(correct=[[np.nan, 1]], totals=[[4, 1]]), "whole"),
        (dict(correct=[[-1, 1]], totals=[[4, 1]]), "negative"),
        (dict(correct=[[1, 1]], totals=[[4, 1, 1]]), "shape"),
        (dict(correct=[[3], [4]], totals=[[5], [5]]), "2 subjects"),
        (dict(correct=[[1, 1]], totals=[[2, 2]], prior={"mu0": np.nan}), "mu0"),
        (dict(correct=[[1, 1]], totals=[[2, 2]], prior={"mux": 0}), "mux"),
        (dict(correct=[[1, 1]], totals=[[2, 2]], model="beta"), "model"),
        (dict(correct=[[1, 1], [0, 0]], totals=[[2, 2], [0, 0]]), "no examples"),
    ],
)
def test_population_refusals(kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.population(**kwargs)


@pytest.mark.parametrize(
    "groups",
    [
        np.array(["s1"] * 20 + [None] + ["s2"] * 19, dtype=object),
        np.r_[[np.nan] * 20, [1.0] * 20],
        [1] * 20 + ["1"] * 20,
    ],
)
def test_population_bad_subject_ids_refused(groups):
    y = np.array([0, 1] * 20)
    with pytest.raises(bacc.BaccError, match="groups"):
        bacc.population(y, y, groups=groups)


# ---------------------------------------------------------------------------------------------
# Many groups, counting in engines
# ---------------------------------------------------------------------------------------------


def test_evaluate_many_equals_evaluate_and_travels():
    st = np.array([[[40, 5], [5, 40]], [[30, 15], [15, 30]]])
    df = bacc.evaluate_many(st, progress=False).to_pandas()
    for i in range(2):
        assert df.posterior_mean[i] == pytest.approx(_mean_ba(st[i]), abs=1e-12)
        assert df.exact_lower[i] == pytest.approx(bacc.exact_interval(st[i]).lower, abs=1e-12)
    by_name = bacc.evaluate_many({"b": st[0], "a": st[1]}, progress=False).to_pandas()
    assert list(by_name.group) == ["b", "a"]
    assert by_name.posterior_mean.tolist() == pytest.approx(df.posterior_mean.tolist())
    _travels(bacc.evaluate_many(st, progress=False))
    big = np.array([[[10**13 - 1, 1], [1, 10**13 - 1]]])
    n = 10**13
    assert bacc.evaluate_many(big, progress=False).to_pandas().posterior_mean[0] == (
        pytest.approx(n / (n + 2), abs=1e-14)
    )


def test_evaluate_many_small_class_beside_large_ones():
    m = np.array([[[10, 20, 0], [0, 500000, 500000], [500000, 0, 500000]]])
    got = bacc.evaluate_many(m, progress=False).to_pandas().posterior_mean[0]
    assert got == pytest.approx(_mean_ba(m[0]), abs=1e-12)


@pytest.mark.parametrize(
    "counts, kwargs, match",
    [
        (np.array([[[np.nan, 1], [1, 1]]]), {}, "non-finite"),
        (np.array([[[3.5, 1], [1, 1]]]), {}, "non-integer"),
        (np.ma.array([[[3, 1], [1, 1]]], mask=[[[0, 1], [0, 0]]]), {}, "masked"),
        (np.array([[3, 1], [1, 1]]), {}, "shape"),
        (np.array([[[3, 1], [1, 1]]] * 2), dict(groups=["x"]), "groups"),
        (np.array([[[3, 1], [1, 1]]] * 2), dict(workers=0), "workers"),
    ],
)
def test_evaluate_many_refusals(counts, kwargs, match):
    with pytest.raises(bacc.BaccError, match=match):
        bacc.evaluate_many(counts, progress=False, **kwargs)


def test_evaluate_many_duplicate_group_names_refused():
    with pytest.raises(bacc.BaccError):
        bacc.evaluate_many(np.array([[[3, 1], [1, 1]]] * 2), groups=["x", "x"], progress=False)


def test_evaluate_many_says_when_a_group_drops_a_class():
    st = np.array([[[10, 0], [0, 0]], [[5, 1], [1, 5]]])
    with pytest.warns(bacc.BaccWarning):
        bacc.evaluate_many(st, progress=False)


def test_counts_every_engine_agrees():
    import duckdb
    import polars as pl

    df = pd.DataFrame({"t": ["a", "b", "a", "b", "a"], "p": ["a", "a", "a", "b", "b"]})
    ref = [[2, 1], [1, 1]]
    for src in (df, pl.from_pandas(df), duckdb.from_df(df)):
        assert bacc.counts(src, true="t", pred="p").counts.tolist() == ref
    odd = 'a"b; DROP TABLE x;--'
    assert bacc.counts(df.rename(columns={"t": odd}), true=odd, pred="p").counts.tolist() == ref
    assert df.columns.tolist() == ["t", "p"]


def test_counts_label_edges():
    nine = pd.DataFrame({"t": ["9", "10", "10"], "p": ["9", "9", "10"]})
    assert bacc.counts(nine, true="t", pred="p").labels == ("9", "10")
    mixed = pd.DataFrame({"t": [1, 2, 2], "p": [1.0, 1.0, 2.0]})
    assert bacc.counts(mixed, true="t", pred="p").counts.tolist() == [[1, 0], [1, 1]]
    cat = pd.DataFrame({
        "t": pd.Categorical(["a", "b"], categories=["a", "b", "c"]),
        "p": pd.Categorical(["a", "a"], categories=["a", "b", "c"]),
    })
    assert bacc.counts(cat, true="t", pred="p").counts.tolist() == [[1, 0], [1, 0]]
    with pytest.raises(bacc.BaccError, match="mixed types"):
        bacc.counts(pd.DataFrame({"t": [1, "1", 2], "p": [1, 1, 2]}), true="t", pred="p")
    with pytest.raises(bacc.BaccError, match="no column 'x'"):
        bacc.counts(nine, true="x", pred="p")


def test_counts_missing_labels_refused_or_dropped_with_a_word():
    df = pd.DataFrame({"t": [None, "b", "a", "b"], "p": ["a", "a", "a", "b"]})
    with pytest.raises(bacc.BaccError, match="nulls='drop'"):
        bacc.counts(df, true="t", pred="p")
    with pytest.warns(bacc.BaccWarning, match="left out 1"):
        cm = bacc.counts(df, true="t", pred="p", nulls="drop")
    assert cm.counts.tolist() == [[1, 0], [1, 1]]


def _long(counts):
    return pd.DataFrame({"true": ["a", "a", "b"], "pred": ["a", "b", "b"], "count": counts})


def test_counts_from_long_by_hand():
    got = bacc.counts_from_long(_long([3.0, 1.0, 2.0]), by=None).counts.tolist()
    assert got == [[3, 1], [0, 2]]
    dup = pd.DataFrame({"true": ["a", "a", "a", "b"], "pred": ["a", "a", "b", "b"],
                        "count": [3, 2, 1, 2]})
    assert bacc.counts_from_long(dup, by=None).counts.tolist() == [[5, 1], [0, 2]]
    for bad, match in (
        ([3, -1, 2], "negative"),
        ([3, 1.5, 2], "whole"),
        ([3, np.nan, 2], "missing"),
        ([10**13, 1, 2], "10\\^13"),
    ):
        with pytest.raises(bacc.BaccError, match=match):
            bacc.counts_from_long(_long(bad), by=None)


def test_counts_from_long_overflowing_sum_named_as_too_large():
    df = pd.DataFrame({"true": ["a", "a", "b"], "pred": ["a", "a", "b"],
                       "count": [2**62, 2**62, 2]})
    with pytest.raises(bacc.BaccError, match="10\\^13"):
        bacc.counts_from_long(df, by=None)


# ---------------------------------------------------------------------------------------------
# Monitoring across a daylight-saving change
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dst_log():
    rng = np.random.default_rng(0)
    n = 2000
    ts = pd.Timestamp("2026-03-05", tz="America/New_York") + pd.to_timedelta(
        rng.uniform(0, 8, n), unit="D"
    )
    lab = (rng.random(n) < 0.4).astype(int)
    pred = np.where(rng.random(n) < 0.85, lab, 1 - lab)
    return pd.DataFrame({"ts": ts, "t": lab, "p": pred})


def _mon(src, **kw):
    args = dict(true="t", pred="p", time="ts", window="1D", baseline=0.9, progress=False,
                n_simulations=200)
    args.update(kw)
    return bacc.monitor(src, **args)


def test_monitor_local_days_across_dst(dst_log, tmp_path):
    import polars as pl

    m = _mon(dst_log)
    df = m.to_pandas()
    local = dst_log.ts.dt.tz_localize(None).dt.floor("D")
    assert [int(sum(s)) for s in df.support] == dst_log.groupby(local).size().tolist()
    _travels(m)
    shuffled = _mon(dst_log.sample(frac=1, random_state=1)).to_pandas()
    cols = ["window_start", "posterior_mean", "credible_lower", "exact_lower"]
    assert shuffled[cols].equals(df[cols])
    path = tmp_path / "log.parquet"
    dst_log.to_parquet(path)
    for other in (_mon(str(path)), _mon(pl.from_pandas(dst_log))):
        assert other.to_pandas()[cols].equals(df[cols])


def test_monitor_refusals(dst_log):
    nat = dst_log.copy()
    nat.loc[3, "ts"] = pd.NaT
    text = dst_log.assign(ts=dst_log.ts.astype(str))
    text.loc[3, "ts"] = "notadate"
    for src, kw, match in (
        (nat, {}, "missing"),
        (text, {}, "not times"),
        (dst_log, dict(window="0D"), "window"),
        (dst_log, dict(baseline=np.nan), "baseline"),
        (dst_log, dict(alarm_at=2), "alarm_at"),
    ):
        with pytest.raises(bacc.BaccError, match=match):
            _mon(src, **kw)


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "matrix",
    ["1,,2;3,4", "1,2;3", "1e13,2;3,4", "3.5,2;3,4", "nan,2;3,4", "inf,2;3,4", "=-1,2;3,4"],
)
def test_cli_bad_matrix_one_line(matrix, capsys):
    rc, _, err = _run(["evaluate", "--matrix=" + matrix.lstrip("="), "--format", "json"], capsys)
    _one_line_error(rc, err)


def test_cli_float_counts_and_labelled_weights(capsys):
    rc, out, _ = _run(["evaluate", "--matrix", "3.0,2;3,4", "--format", "json"], capsys)
    assert rc == 0
    assert json.loads(out)["balanced_accuracy"]["mean"] == pytest.approx(_mean_ba([[3, 2], [3, 4]]))
    rc, out, _ = _run(["evaluate", "--matrix", "42,3;6,4", "--weights", "1=0.3,0=0.7",
                       "--format", "json"], capsys)
    assert rc == 0
    ref = _mean_ba(CM, weights=[0.7, 0.3])
    assert json.loads(out)["balanced_accuracy"]["mean"] == pytest.approx(ref)
    rc, _, err = _run(["evaluate", "--matrix", "42,3;6,4", "--weights", "0.7,nan"], capsys)
    _one_line_error(rc, err)


def _write(path, text):
    path.write_bytes(text.encode())
    return str(path)


def test_cli_csv_neutralises_formulas_and_controls(tmp_path, capsys):
    f = _write(tmp_path / "f.csv",
               "t,p,g\n=cmd,=cmd,=g\n=cmd,@x,=g\n@x,@x,@h\n@x,@x,@h\n"
               "\x1b[31mred,\x1b[31mred,@h\n=cmd,\x1b[31mred,@h\n")
    rc, out, _ = _run(["evaluate", f, "--true", "t", "--pred", "p", "--by", "g",
                       "--format", "csv"], capsys)
    assert rc == 0
    assert "\x1b" not in out
    for line in out.splitlines()[1:]:
        for cell in line.split(","):
            assert cell[:1] not in ("=", "@"), line


def test_cli_csv_neutralises_plus_and_minus_group_names(tmp_path, capsys):
    f = _write(tmp_path / "f.csv", "t,p,g\na,a,+1\nb,b,+1\na,b,-2\nb,b,-2\n")
    rc, out, _ = _run(["evaluate", f, "--true", "t", "--pred", "p", "--by", "g",
                       "--format", "csv"], capsys)
    assert rc == 0
    # a cell holding the number -2 or +1 is a number, not a formula; what matters is that
    # no cell starts with = or @ and the group names are kept readable
    assert {ln.split(",")[0].lstrip("'") for ln in out.splitlines()[1:]} == {"+1", "-2"}


def test_cli_report_html_escapes_and_output_paths(tmp_path, capsys):
    f = _write(tmp_path / "f.csv", "t,p\n<script>x</script>,a\na,a\n\x1b[31mr,a\n")
    out_html = tmp_path / "out.html"
    rc, _, err = _run(["report", f, "--true", "t", "--pred", "p", "-o", str(out_html)], capsys)
    assert rc == 0, err
    html = out_html.read_text()
    assert "<script>x</script>" not in html and "\x1b" not in html
    mode = stat.S_IMODE(os.stat(out_html).st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask
    rc, out, _ = _run(["report", "--matrix", "42,3;6,4", "-o", "-"], capsys)
    assert rc == 0 and out.lstrip().startswith("<!DOCTYPE html>")
    assert not (tmp_path / "-").exists()
    rc, _, err = _run(["report", "--matrix", "42,3;6,4", "-o", str(tmp_path / "no" / "x.html")],
                      capsys)
    _one_line_error(rc, err)
    rc, _, err = _run(["report", "--matrix", "42,3;6,4", "-o", str(tmp_path)], capsys)
    _one_line_error(rc, err)


def test_cli_report_never_replaces_a_fifo(tmp_path, capsys):
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []

    def drain():
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    rc, _, err = _run(["report", "--matrix", "42,3;6,4", "-o", str(fifo)], capsys)
    reader.join(2)
    for _ in range(100):  # nothing was written: release the reader waiting in open()
        if not reader.is_alive():
            break
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # the reader is not in open() yet
            pass
        reader.join(0.05)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    if rc == 2:
        _one_line_error(rc, err)
    else:
        assert rc == 0 and got and got[0].lstrip().startswith(b"<!DOCTYPE html>")


@pytest.mark.parametrize("columns", [0, 20, 300])
def test_cli_terminal_widths(columns, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setattr(os, "get_terminal_size", lambda *a: os.terminal_size((columns, 24)))
    rc, out, err = _run(["evaluate", "--matrix", "42,3;6,4"], capsys)
    assert rc == 0 and "Traceback" not in err
    assert max(len(ln) for ln in out.splitlines()) <= 100


@pytest.mark.parametrize(
    "name, text",
    [
        ("empty.csv", ""),
        ("hdr.csv", "t,p\n"),
    ],
)
def test_cli_empty_files_one_line(name, text, tmp_path, capsys):
    f = _write(tmp_path / name, text)
    rc, _, err = _run(["evaluate", f, "--true", "t", "--pred", "p"], capsys)
    _one_line_error(rc, err)


def test_cli_missing_and_glob_one_line(tmp_path, capsys):
    for path in (tmp_path / "none.csv", tmp_path / "nomatch*.csv"):
        rc, _, err = _run(["evaluate", str(path), "--true", "t", "--pred", "p"], capsys)
        _one_line_error(rc, err)


def test_cli_file_dialects_agree(tmp_path, capsys):
    import gzip

    files = [
        _write(tmp_path / "bom.csv", "\ufefft,p\r\na,a\r\nb,b\r\na,b\r\n"),
        _write(tmp_path / "semi.csv", "t;p\na;a\nb;b\na;b\n"),
    ]
    gz = tmp_path / "z.csv.gz"
    gz.write_bytes(gzip.compress(b"t,p\na,a\nb,b\na,b\n"))
    files.append(str(gz))
    for f in files:
        rc, out, err = _run(["evaluate", f, "--true", "t", "--pred", "p", "--format", "json"],
                            capsys)
        assert rc == 0, err
        cm = json.loads(out)["confusion_matrix"]
        assert cm["labels"] == ["a", "b"] and cm["counts"] == [[1, 1], [0, 1]]


def test_cli_quoted_newline_label(tmp_path, capsys):
    f = _write(tmp_path / "nl.csv", 't,p\n"a\nx",a\nb,b\n"a\nx","a\nx"\n')
    rc, out, _ = _run(["evaluate", f, "--true", "t", "--pred", "p", "--format", "json"], capsys)
    assert rc == 0
    cm = json.loads(out)["confusion_matrix"]
    assert sorted(cm["labels"]) == ["a", "a\nx", "b"]


@pytest.mark.parametrize(
    "argv",
    [
        ["coverage", "--sizes", "20,20", "--accuracies", "0.99,nan"],
        ["coverage", "--sizes", "20,-1", "--accuracies", "0.99,0.9"],
        ["coverage", "--sizes", "20,2.5", "--accuracies", "0.99,0.9"],
        ["plan", "--matrix", "95,5;2,8", "--lower", "0.7", "--mix", "0.95"],
        ["population", "--matrix", "8,2;1,9"],
        ["evaluate", "--matrix", "42,3;6,4", "--format", "html"],
    ],
)
def test_cli_refusals_one_line(argv, capsys):
    rc, _, err = _run(argv, capsys)
    _one_line_error(rc, err)


def test_cli_plan_mix_by_label_equals_by_order(capsys):
    rc, out, _ = _run(["plan", "--matrix", "95,5;2,8", "--lower", "0.7", "--mix", "1=0.05,0=0.95",
                       "--format", "json"], capsys)
    assert rc == 0
    by_label = json.loads(out)["labels"]
    assert by_label == bacc.plan_labels([[95, 5], [2, 8]], lower=0.7, mix=[0.95, 0.05]).labels


def test_cli_rank_and_compare_json(capsys):
    rc, out, _ = _run(["compare", "--matrix", "A=40,5;5,40", "--matrix", "B=30,15;15,30",
                       "--format", "json"], capsys)
    assert rc == 0
    d = json.loads(out)
    assert d["comparison"]["p_better"] == pytest.approx(
        bacc.compare([[40, 5], [5, 40]], [[30, 15], [15, 30]]).p_better
    )
    rc, out, _ = _run(["rank", "--matrix", "A=42,3;6,4", "--matrix", "A=40,5;3,7"], capsys)
    assert rc == 0 and "A (2)" in out


# ---------------------------------------------------------------------------------------------
# Constructors and the remaining interval functions
# ---------------------------------------------------------------------------------------------


def test_constructors_by_hand():
    folds = [[[20, 2], [3, 5]], [[18, 4], [2, 6]]]
    assert bacc.ConfusionMatrix.from_folds(iter(folds)).counts.tolist() == [[38, 6], [5, 11]]
    paper = bacc.ConfusionMatrix.from_matrix([[42, 6], [3, 4]], rows="predicted")
    assert paper.counts.tolist() == CM
    sup = bacc.ConfusionMatrix.from_predictions([1, 2], [1, 2], labels=[3, 2, 1])
    assert sup.counts.tolist() == [[0, 0, 0], [0, 1, 0], [0, 0, 1]]
    order = bacc.ConfusionMatrix.from_predictions(
        ["a", "b", "b"], ["a", "a", "b"], labels=["b", "a"]
    )
    assert order.counts.tolist() == [[1, 1], [0, 1]]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: bacc.ConfusionMatrix.from_folds([[[1, 2], [3, 4]], np.ones((3, 3), int)]),
         "classes"),
        (lambda: bacc.ConfusionMatrix.from_folds([]), "at least one"),
        (lambda: bacc.ConfusionMatrix.from_matrix(CM, rows="pred"), "rows"),
        (lambda: bacc.ConfusionMatrix.from_matrix(CM, labels=["a"]), "labels"),
        (lambda: bacc.ConfusionMatrix.from_matrix(CM, labels=["a", "a"]), "distinct"),
        (lambda: bacc.ConfusionMatrix.from_matrix(CM, labels=["a", None]), "missing"),
        (lambda: bacc.ConfusionMatrix.from_matrix(CM, labels=[1, "1"]), "mix"),
        (lambda: bacc.ConfusionMatrix.from_matrix(CM, labels=[1, 1.0]), "distinct"),
        (lambda: bacc.ConfusionMatrix.from_predictions([1, 2, 3], [1, 2, 3], labels=[1, 2]),
         "not in labels"),
        (lambda: bacc.fold_sem_interval([CM]), "2 folds"),
        (lambda: bacc.class_intervals(CM, adjust="bonferroni"), "adjustment"),
        (lambda: bacc.coverage("union", [20, 20], [0.99], n_simulations=200), "one value"),
    ],
)
def test_constructor_and_interval_refusals(call, match):
    with pytest.raises(bacc.BaccError, match=match):
        call()


def test_fold_sem_and_wald_by_hand():
    folds = [[[20, 2], [3, 5]], [[18, 4], [2, 6]]]
    accs = [25 / 30, 24 / 30]
    ref = np.mean(accs) - 2 * np.std(accs, ddof=1) / np.sqrt(2)
    assert bacc.fold_sem_interval(folds).lower == pytest.approx(ref)
    est = 0.5 * (42 / 45 + 4 / 10)
    sd = np.sqrt(0.25 * ((42 / 45) * (3 / 45) / 45 + 0.4 * 0.6 / 10))
    wald = bacc.approx_interval(CM, method="wald")
    assert wald.lower == pytest.approx(est - stats.norm.ppf(0.975) * sd)
    assert wald.guaranteed is False
    assert bacc.posterior_accuracy(CM).mean() == pytest.approx(47 / 57)
    post = bacc.posterior_balanced_accuracy(
        bacc.ConfusionMatrix(CM, labels=["x", "y"]), weights={"y": 0.2, "x": 0.8}
    )
    assert post.mean() == pytest.approx(_mean_ba(CM, weights=[0.8, 0.2]))


def test_coverage_of_the_union_bound_by_enumeration():
    # every outcome of two classes of 20, weighted by its binomial probability
    n, acc = 20, (0.99, 0.9)
    lam = sum(acc) / 2
    bounds = [[_cp(k, n, 0.0125) for k in range(n + 1)] for _ in acc]
    cover = 0.0
    for k0 in range(n + 1):
        for k1 in range(n + 1):
            lo = (bounds[0][k0][0] + bounds[1][k1][0]) / 2
            hi = (bounds[0][k0][1] + bounds[1][k1][1]) / 2
            if lo <= lam <= hi:
                cover += stats.binom.pmf(k0, n, acc[0]) * stats.binom.pmf(k1, n, acc[1])
    res = bacc.coverage("union", [20.0, 20.0], [0.99, 0.9], weights={0: 0.5, 1: 0.5},
                        n_simulations=20_000, random_state=0)
    m = res.methods[0]
    assert abs(m.coverage - cover) < 4 * max(m.mc_se, 1e-3)
    _travels(res)


def test_more_per_class_options_by_label():
    other = bacc.ConfusionMatrix([[90, 10], [3, 7]], labels=["neg", "pos"])
    c = bacc.compare(LABELLED, other, weights={"pos": 0.3, "neg": 0.7})
    assert c.difference.mean() == pytest.approx(0.7 * (96 - 91) / 102 + 0.3 * (9 - 8) / 12)
    named = bacc.ConfusionMatrix(PREC_CM, labels=["n", "p"])
    s = pd.Series({"p": 0.00425, "n": 0.99575})
    got = bacc.posterior_metric(named, "precision", label="p", prevalence=s).median
    ref = bacc.posterior_metric(PREC_CM, "precision", label=1, prevalence=[0.99575, 0.00425])
    assert got == pytest.approx(ref.median, abs=1e-12)
    kept = bacc.evaluate([[5, 1, 0], [1, 5, 0], [0, 0, 0]], empty="keep", weights=[0.4, 0.4, 0.2])
    assert kept.balanced_accuracy.mean() == pytest.approx(0.4 * 6 / 8 * 2 + 0.2 * 0.5)
    with pytest.raises(bacc.BaccError, match="accuracies"):
        bacc.next_label(LABELLED, accuracies=[0.9, 0.8, 0.7])
    with pytest.raises(bacc.BaccError, match="target"):
        bacc.next_label(LABELLED, criterion="clear", target=np.nan)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(by="d"), "nulls='drop'"),
        (dict(baseline="2025-01-01:2025-02-01"), "no examples"),
        (dict(baseline="2026-02-01:2026-01-01"), "start must come first"),
        (dict(baseline="yesterday"), "not a baseline"),
        (dict(baseline="previous", lookback=0), "lookback"),
        (dict(margin=np.nan), "margin"),
    ],
)
def test_monitor_option_refusals(kwargs, match):
    df = pd.DataFrame({
        "ts": pd.date_range("2026-01-01", periods=40, freq="6h"),
        "t": [0, 1] * 20, "p": [0, 1, 1, 0] * 10, "d": ["a", None] * 20,
    })
    with pytest.raises(bacc.BaccError, match=match):
        _mon(df, **kwargs)
