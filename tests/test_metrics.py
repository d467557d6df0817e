"""The sample metrics of ``bacc.metrics`` against independent implementations.

scikit-learn for accuracy, balanced accuracy (also its chance-adjusted form, which is the
informedness), recall, precision, F1, macro F1, Cohen's kappa and Matthews' correlation; the
formula of Burkman (2021), section 2.5, and precision with class-balancing sample weights for
the balanced precision; closed forms for specificity, G-mean, informedness and the weighted
balanced accuracy. Matrices come from labels (counted by scikit-learn) and from hypothesis,
with 2-6 classes, imbalanced, and the zero-division cases named in each docstring.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bacc
from bacc import metrics

skm = pytest.importorskip("sklearn.metrics")

NAN = float("nan")

# sklearn warns (UndefinedMetricWarning, "y_pred contains classes not in y_true") exactly in
# the edge cases these tests are about; bacc must not warn (checked in ``quiet``).
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::RuntimeWarning")


# -- helpers ----------------------------------------------------------------------------------
def expand(cm):
    """Label vectors (y_true, y_pred) whose confusion matrix (rows = true) is ``cm``."""
    cm = np.asarray(cm, dtype=np.int64)
    l = cm.shape[0]
    flat = cm.ravel()
    y_true = np.repeat(np.repeat(np.arange(l), l), flat)
    y_pred = np.repeat(np.tile(np.arange(l), l), flat)
    return y_true, y_pred


def quiet(fn, cm, **kw):
    """Call a bacc metric and fail if it warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(cm, **kw)


def same(a, b, tol=1e-12):
    """Equal as arrays of floats, nan where the other is nan."""
    a = np.atleast_1d(np.asarray(a, dtype=float))
    b = np.atleast_1d(np.asarray(b, dtype=float))
    assert a.shape == b.shape, (a, b)
    assert np.array_equal(np.isnan(a), np.isnan(b)), (a, b)
    ok = ~np.isnan(a)
    np.testing.assert_allclose(a[ok], b[ok], rtol=tol, atol=tol)


def random_labels(seed):
    """Imbalanced random labels with 2-6 classes and a confusion matrix counted by sklearn."""
    rng = np.random.default_rng(seed)
    l = int(rng.integers(2, 7))
    n = int(rng.integers(5, 400))
    prevalence = rng.dirichlet(np.full(l, 0.6))
    y_true = rng.choice(l, size=n, p=prevalence)
    skill = rng.uniform(0.0, 1.0)
    bias = rng.dirichlet(np.full(l, 0.5))
    y_pred = np.where(rng.random(n) < skill, y_true, rng.choice(l, size=n, p=bias))
    if seed % 5 == 0:  # a class that is never predicted
        y_pred = np.where(y_pred == l - 1, 0, y_pred)
    cm = skm.confusion_matrix(y_true, y_pred, labels=np.arange(l))
    return y_true, y_pred, cm


SEEDS = range(60)

# Matrices: rows = true class.
C2 = [[42, 3], [6, 4]]  # Brodersen et al. (2010), Fig. 1
NEVER_PREDICTED = [[5, 1, 0], [2, 6, 0], [1, 3, 0]]  # class 2 has examples, never predicted
NO_TRUE = [[0, 0, 0], [1, 9, 0], [2, 1, 7]]  # class 0 predicted, no true examples
ABSENT = [[3, 1, 0], [2, 4, 0], [0, 0, 0]]  # class 2 neither true nor predicted
PERFECT = [[12, 0, 0], [0, 9, 0], [0, 0, 4]]
ALL_WRONG = [[0, 3, 1], [2, 0, 2], [5, 1, 0]]
SINGLE = [[7]]


@st.composite
def matrices(draw):
    l = draw(st.integers(2, 6))
    cells = draw(
        st.lists(
            st.one_of(st.just(0), st.integers(0, 40), st.integers(0, 3000)),
            min_size=l * l,
            max_size=l * l,
        )
    )
    cm = np.array(cells, dtype=np.int64).reshape(l, l)
    if cm.sum() == 0:
        cm[0, 0] = 1
    return cm


HYP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- against scikit-learn, from labels ----------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_from_labels_matches_sklearn(seed):
    y_true, y_pred, cm = random_labels(seed)
    l = cm.shape[0]
    labels = np.arange(l)
    assert bacc.ConfusionMatrix.from_predictions(y_true, y_pred, labels=labels) == (
        bacc.ConfusionMatrix(cm)
    )
    same(quiet(metrics.accuracy, cm), skm.accuracy_score(y_true, y_pred))
    same(quiet(metrics.balanced_accuracy, cm), skm.balanced_accuracy_score(y_true, y_pred))
    kw = {"labels": labels, "average": None, "zero_division": np.nan}
    same(quiet(metrics.recall, cm), skm.recall_score(y_true, y_pred, **kw))
    same(quiet(metrics.precision, cm), skm.precision_score(y_true, y_pred, **kw))
    same(quiet(metrics.f1, cm), skm.f1_score(y_true, y_pred, **kw))
    same(
        quiet(metrics.macro_f1, cm),
        skm.f1_score(y_true, y_pred, average="macro", zero_division=np.nan),
    )
    same(quiet(metrics.cohen_kappa, cm), skm.cohen_kappa_score(y_true, y_pred, labels=labels))
    if len(np.unique(y_true)) > 1 and len(np.unique(y_pred)) > 1:
        same(quiet(metrics.matthews, cm), skm.matthews_corrcoef(y_true, y_pred))
    else:
        assert math.isnan(metrics.matthews(cm))
    if len(np.unique(y_true)) > 1:
        same(
            quiet(metrics.informedness, cm),
            skm.balanced_accuracy_score(y_true, y_pred, adjusted=True),
        )


@given(matrices())
@HYP
def test_random_matrices_match_sklearn(cm):
    y_true, y_pred = expand(cm)
    l = cm.shape[0]
    labels = np.arange(l)
    kw = {"labels": labels, "average": None, "zero_division": np.nan}
    same(metrics.accuracy(cm), skm.accuracy_score(y_true, y_pred))
    same(metrics.recall(cm), skm.recall_score(y_true, y_pred, **kw))
    same(metrics.precision(cm), skm.precision_score(y_true, y_pred, **kw))
    same(metrics.f1(cm), skm.f1_score(y_true, y_pred, **kw))
    same(metrics.macro_f1(cm), skm.f1_score(y_true, y_pred, average="macro", zero_division=np.nan))
    same(metrics.cohen_kappa(cm), skm.cohen_kappa_score(y_true, y_pred, labels=labels))
    if (cm.sum(axis=1) > 0).sum() >= 2:
        same(metrics.balanced_accuracy(cm), skm.balanced_accuracy_score(y_true, y_pred))
        same(metrics.informedness(cm), skm.balanced_accuracy_score(y_true, y_pred, adjusted=True))
    if (cm.sum(axis=1) > 0).sum() >= 2 and (cm.sum(axis=0) > 0).sum() >= 2:
        same(metrics.matthews(cm), skm.matthews_corrcoef(y_true, y_pred), tol=1e-10)


# -- closed forms -----------------------------------------------------------------------------
def closed_specificity(cm):
    cm = np.asarray(cm, dtype=float)
    n = cm.sum()
    out = []
    for i in range(cm.shape[0]):
        negatives = n - cm[i].sum()
        tn = negatives - (cm[:, i].sum() - cm[i, i])
        out.append(tn / negatives if negatives > 0 else NAN)
    return np.array(out)


@given(matrices())
@HYP
def test_specificity_closed_form_and_sklearn_one_vs_rest(cm):
    same(metrics.specificity(cm), closed_specificity(cm))
    y_true, y_pred = expand(cm)
    mcm = skm.multilabel_confusion_matrix(y_true, y_pred, labels=np.arange(cm.shape[0]))
    tn, fp = mcm[:, 0, 0].astype(float), mcm[:, 0, 1].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        same(metrics.specificity(cm), np.where(tn + fp > 0, tn / (tn + fp), np.nan))


@given(matrices())
@HYP
def test_g_mean_closed_form(cm):
    n = cm.sum(axis=1)
    r = [cm[i, i] / n[i] for i in range(len(n)) if n[i] > 0]
    expected = math.prod(r) ** (1 / len(r))
    same(metrics.g_mean(cm), expected)
    assert metrics.g_mean(cm) <= metrics.balanced_accuracy(cm) + 1e-12  # GM <= AM


@given(matrices())
@HYP
def test_informedness_closed_form(cm):
    n = cm.sum(axis=1)
    r = [cm[i, i] / n[i] for i in range(len(n)) if n[i] > 0]
    l = len(r)
    expected = (sum(r) - 1) / (l - 1) if l >= 2 else NAN  # = (l * BA - 1) / (l - 1)
    same(metrics.informedness(cm), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_binary_closed_forms(seed):
    rng = np.random.default_rng(1000 + seed)
    # rows = true (negative, positive); imbalanced like Burkman's crash data
    N = int(rng.integers(1, 500))
    P = int(rng.integers(1, 40))
    tn = int(rng.integers(0, N + 1))
    tp = int(rng.integers(0, P + 1))
    fp, fn = N - tn, P - tp
    cm = [[tn, fp], [fn, tp]]
    tpr, tnr = tp / P, tn / N
    same(metrics.balanced_accuracy(cm), (tpr + tnr) / 2)
    same(metrics.informedness(cm), tpr + tnr - 1)  # Youden's J
    same(metrics.g_mean(cm), math.sqrt(tpr * tnr))
    same(metrics.specificity(cm), [tpr, tnr])
    # Burkman (2021), section 2.5: TP*N / (TP*N + FP*P), for the positive class
    den = tp * N + fp * P
    same(metrics.balanced_precision(cm)[1], tp * N / den if den else NAN)
    # ... and for the negative class, with the roles swapped
    den0 = tn * P + fn * N
    same(metrics.balanced_precision(cm)[0], tn * P / den0 if den0 else NAN)
    # Matthews (1975), binary form
    d = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    same(metrics.matthews(cm), (tp * tn - fp * fn) / math.sqrt(d) if d else NAN)


@given(matrices(), st.data())
@HYP
def test_weighted_balanced_accuracy_closed_form(cm, data):
    l = cm.shape[0]
    raw = np.array(data.draw(st.lists(st.integers(0, 10), min_size=l, max_size=l)), dtype=float)
    n = cm.sum(axis=1)
    if raw.sum() == 0 or raw[n > 0].sum() == 0:
        raw[np.flatnonzero(n > 0)[0]] = 1.0
    w = raw / raw.sum()
    y_true, y_pred = expand(cm)
    rec = skm.recall_score(
        y_true, y_pred, labels=np.arange(l), average=None, zero_division=np.nan
    )
    inc = n > 0
    expected = float(np.sum(w[inc] * rec[inc]) / np.sum(w[inc]))
    same(metrics.balanced_accuracy(cm, weights=w), expected, tol=1e-10)


def test_weighted_balanced_accuracy_by_hand():
    # w = (0.2, 0.8): 0.2 * 42/45 + 0.8 * 4/10
    same(metrics.balanced_accuracy(C2, weights=[0.2, 0.8]), 0.2 * 42 / 45 + 0.8 * 0.4)
    # class 0 has no examples: its weight is dropped and the rest rescaled (0.3, 0.3) -> 1/2
    same(metrics.balanced_accuracy(NO_TRUE, weights=[0.4, 0.3, 0.3]), (0.9 + 0.7) / 2)
    # weight 1 on a class: its recall
    same(metrics.balanced_accuracy(C2, weights=[0.0, 1.0]), 0.4)


@given(matrices())
@HYP
def test_balanced_precision_is_precision_with_balancing_weights(cm):
    """Precision with sample weight 1 / n_y (every class weighs the same) = balanced precision."""
    y_true, y_pred = expand(cm)
    n = cm.sum(axis=1)
    l = cm.shape[0]
    expected = skm.precision_score(
        y_true,
        y_pred,
        labels=np.arange(l),
        average=None,
        zero_division=np.nan,
        sample_weight=1.0 / n[y_true],
    )
    expected = np.where(n > 0, expected, np.nan)  # no examples: nothing to rescale
    same(metrics.balanced_precision(cm), expected, tol=1e-10)


def test_balanced_precision_equal_support_is_precision():
    cm = [[8, 1, 1], [3, 6, 1], [0, 2, 8]]
    same(metrics.balanced_precision(cm), metrics.precision(cm))


def test_balanced_precision_burkman_imbalanced_example():
    # 10 000 negatives and 40 positives; TPR = 0.75, FPR = 0.02:
    # precision 30 / 230, balanced precision 0.75 / (0.75 + 0.02)
    cm = [[9800, 200], [10, 30]]
    same(metrics.precision(cm)[1], 30 / 230)
    same(metrics.balanced_precision(cm)[1], 0.75 / 0.77)


# -- exact arithmetic for large counts ------------------------------------------------------------
@pytest.mark.parametrize("cm", [C2, [[20, 3, 1], [2, 15, 4], [0, 3, 30]], ALL_WRONG])
@pytest.mark.parametrize("scale", [10**6, 10**11, 2**36])  # classes stay within 10^13 (the limit)
def test_kappa_and_matthews_are_scale_invariant_at_large_counts(cm, scale):
    big = (np.asarray(cm, dtype=np.int64) * scale).tolist()
    same(metrics.cohen_kappa(big), metrics.cohen_kappa(cm), tol=1e-14)
    same(metrics.matthews(big), metrics.matthews(cm), tol=1e-14)


def test_kappa_exact_fraction():
    cm = [[20, 3, 1], [2, 15, 4], [0, 3, 30]]
    c = [[Fraction(x) for x in row] for row in cm]
    n = sum(map(sum, c))
    p0 = sum(c[i][i] for i in range(3)) / n
    pe = sum(sum(c[i]) * sum(r[i] for r in c) for i in range(3)) / n**2
    assert metrics.cohen_kappa(cm) == pytest.approx(float((p0 - pe) / (1 - pe)), rel=1e-15)


# -- edge cases: what the docstrings promise ----------------------------------------------------
def test_class_never_predicted():
    cm = NEVER_PREDICTED
    y_true, y_pred = expand(cm)
    labels = [0, 1, 2]
    p = quiet(metrics.precision, cm)
    assert math.isnan(p[2])  # precision undefined
    # sklearn: nan with zero_division=np.nan, 0 with zero_division=0
    same(p, skm.precision_score(y_true, y_pred, labels=labels, average=None, zero_division=np.nan))
    assert skm.precision_score(y_true, y_pred, labels=labels, average=None, zero_division=0)[2] == 0
    assert quiet(metrics.recall, cm)[2] == 0.0
    assert quiet(metrics.f1, cm)[2] == 0.0  # 2 TP / (2 TP + FP + FN) = 0 / 4
    assert math.isnan(quiet(metrics.balanced_precision, cm)[2])
    # macro F1 keeps the class (F1 = 0), like sklearn
    f = metrics.f1(cm)
    same(quiet(metrics.macro_f1, cm), f.mean())
    same(metrics.macro_f1(cm), skm.f1_score(y_true, y_pred, average="macro"))
    # the balanced accuracy keeps it with recall 0
    same(quiet(metrics.balanced_accuracy, cm), (5 / 6 + 6 / 8 + 0) / 3)
    assert quiet(metrics.g_mean, cm) == 0.0
    same(quiet(metrics.specificity, cm), closed_specificity(cm))
    assert quiet(metrics.specificity, cm)[2] == 1.0  # no false positives for class 2


def test_class_without_true_examples():
    cm = NO_TRUE
    y_true, y_pred = expand(cm)
    r = quiet(metrics.recall, cm)
    assert math.isnan(r[0])
    same(r[1:], [0.9, 0.7])
    # left out of the balanced accuracy, the G-mean and the informedness (l' = 2)
    same(quiet(metrics.balanced_accuracy, cm), 0.8)
    same(metrics.balanced_accuracy(cm), skm.balanced_accuracy_score(y_true, y_pred))
    same(quiet(metrics.g_mean, cm), math.sqrt(0.9 * 0.7))
    same(quiet(metrics.informedness, cm), 0.9 + 0.7 - 1)
    same(metrics.informedness(cm), skm.balanced_accuracy_score(y_true, y_pred, adjusted=True))
    # predicted 3 times, never right: precision 0 and F1 0 (defined), in the macro F1
    assert quiet(metrics.precision, cm)[0] == 0.0
    assert quiet(metrics.f1, cm)[0] == 0.0
    same(metrics.f1(cm), skm.f1_score(y_true, y_pred, average=None, zero_division=np.nan))
    same(quiet(metrics.macro_f1, cm), (0 + 0.9 + 14 / 17) / 3)
    same(metrics.macro_f1(cm), skm.f1_score(y_true, y_pred, average="macro"))
    # balanced precision: no examples to rescale to the size of the others -> nan
    bp = quiet(metrics.balanced_precision, cm)
    assert math.isnan(bp[0])
    same(bp[1:], [0.9 / (0.9 + 0.1), 1.0])
    same(quiet(metrics.specificity, cm), [17 / 20, 9 / 10, 7 / 7])


def test_class_absent_from_both():
    cm = ABSENT
    y_true, y_pred = expand(cm)
    for fn in (metrics.recall, metrics.precision, metrics.f1, metrics.balanced_precision):
        assert math.isnan(quiet(fn, cm)[2]), fn.__name__
    # skipped by the macro averages: same as the two-class matrix, same as sklearn
    two = [[3, 1], [2, 4]]
    for fn in (
        metrics.balanced_accuracy,
        metrics.macro_f1,
        metrics.g_mean,
        metrics.informedness,
        metrics.cohen_kappa,
        metrics.matthews,
        metrics.accuracy,
    ):
        same(quiet(fn, cm), fn(two))
    same(metrics.macro_f1(cm), skm.f1_score(y_true, y_pred, average="macro"))
    # sklearn with the absent label listed: F1 is 0/0 for it
    f = skm.f1_score(y_true, y_pred, labels=[0, 1, 2], average=None, zero_division=np.nan)
    same(metrics.f1(cm), f)


def test_perfect_classifier():
    cm = PERFECT
    y_true, y_pred = expand(cm)
    for fn in (
        metrics.accuracy,
        metrics.balanced_accuracy,
        metrics.macro_f1,
        metrics.cohen_kappa,
        metrics.matthews,
        metrics.g_mean,
        metrics.informedness,
    ):
        assert quiet(fn, cm) == pytest.approx(1.0, abs=1e-15), fn.__name__
    for fn in (
        metrics.recall,
        metrics.precision,
        metrics.specificity,
        metrics.f1,
        metrics.balanced_precision,
    ):
        same(quiet(fn, cm), [1.0, 1.0, 1.0])
    assert skm.matthews_corrcoef(y_true, y_pred) == pytest.approx(1.0)
    assert skm.cohen_kappa_score(y_true, y_pred) == pytest.approx(1.0)


def test_all_wrong_classifier():
    cm = ALL_WRONG
    y_true, y_pred = expand(cm)
    assert quiet(metrics.accuracy, cm) == 0.0
    assert quiet(metrics.balanced_accuracy, cm) == 0.0
    assert quiet(metrics.g_mean, cm) == 0.0
    same(quiet(metrics.informedness, cm), -1 / 2)  # (3 * 0 - 1) / (3 - 1)
    for fn in (metrics.recall, metrics.precision, metrics.f1, metrics.balanced_precision):
        same(quiet(fn, cm), [0.0, 0.0, 0.0])  # defined and 0, not nan
    assert quiet(metrics.macro_f1, cm) == 0.0
    same(metrics.cohen_kappa(cm), skm.cohen_kappa_score(y_true, y_pred))
    same(metrics.matthews(cm), skm.matthews_corrcoef(y_true, y_pred))
    assert metrics.cohen_kappa(cm) < 0 and metrics.matthews(cm) < 0
    # two classes, all swapped, equal sizes: kappa = MCC = informedness = -1
    swap = [[0, 6], [6, 0]]
    for fn in (metrics.cohen_kappa, metrics.matthews, metrics.informedness):
        assert fn(swap) == pytest.approx(-1.0), fn.__name__


def test_single_class_matrix():
    cm = SINGLE
    y = np.zeros(7, dtype=int)
    same(quiet(metrics.accuracy, cm), 1.0)
    same(quiet(metrics.balanced_accuracy, cm), skm.balanced_accuracy_score(y, y))
    same(quiet(metrics.recall, cm), [1.0])
    same(quiet(metrics.precision, cm), [1.0])
    same(quiet(metrics.f1, cm), [1.0])
    same(quiet(metrics.balanced_precision, cm), [1.0])
    same(quiet(metrics.macro_f1, cm), 1.0)
    same(quiet(metrics.g_mean, cm), 1.0)
    assert math.isnan(quiet(metrics.specificity, cm)[0])  # no negatives
    assert math.isnan(quiet(metrics.informedness, cm))  # fewer than two classes
    assert math.isnan(quiet(metrics.cohen_kappa, cm))  # chance agreement 1
    assert math.isnan(skm.cohen_kappa_score(y, y))
    # MCC: 0 / 0. bacc says nan; sklearn returns 0.0 by convention
    assert math.isnan(quiet(metrics.matthews, cm))
    assert skm.matthews_corrcoef(y, y) == 0.0


def test_one_true_class_two_predicted():
    cm = [[3, 2], [0, 0]]  # all examples are class 0
    assert math.isnan(metrics.informedness(cm))
    assert math.isnan(metrics.matthews(cm))
    assert math.isnan(metrics.specificity(cm)[0])
    same(metrics.balanced_accuracy(cm), 0.6)
    same(metrics.cohen_kappa(cm), 0.0)  # p0 = pe = 0.6


def test_constant_prediction_matthews_nan_where_sklearn_zero():
    cm = [[30, 0], [10, 0]]  # always predicts class 0
    y_true, y_pred = expand(cm)
    assert math.isnan(metrics.matthews(cm))
    assert skm.matthews_corrcoef(y_true, y_pred) == 0.0
    same(metrics.cohen_kappa(cm), skm.cohen_kappa_score(y_true, y_pred))  # 0
    same(metrics.informedness(cm), 0.0)
    same(metrics.balanced_accuracy(cm), 0.5)
    assert math.isnan(metrics.precision(cm)[1])
    assert metrics.f1(cm)[1] == 0.0


def test_accepts_confusion_matrix_objects_and_returns_types():
    cm = bacc.ConfusionMatrix(C2, labels=["pos", "neg"])
    for fn in (
        metrics.accuracy,
        metrics.balanced_accuracy,
        metrics.macro_f1,
        metrics.cohen_kappa,
        metrics.matthews,
        metrics.g_mean,
        metrics.informedness,
    ):
        v = fn(cm)
        assert isinstance(v, float) and v == fn(C2), fn.__name__
    for fn in (
        metrics.recall,
        metrics.specificity,
        metrics.precision,
        metrics.balanced_precision,
        metrics.f1,
    ):
        v = fn(cm)
        assert isinstance(v, np.ndarray) and v.shape == (2,) and v.dtype == float
        same(v, fn(C2))


def test_paper_values():
    # Brodersen et al. (2010), Fig. 1, C2: accuracy 46/55, balanced accuracy (42/45 + 4/10)/2
    same(metrics.accuracy(C2), 46 / 55)
    same(metrics.balanced_accuracy(C2), (42 / 45 + 0.4) / 2)
    # the 2015 blog post: face/place, balanced test set, both 0.85; one place example removed
    same(metrics.accuracy([[9, 1], [2, 8]]), 0.85)
    same(metrics.balanced_accuracy([[9, 1], [2, 8]]), 0.85)
    same(metrics.balanced_accuracy([[9, 1], [2, 7]]), (0.9 + 7 / 9) / 2)


def test_every_public_metric_is_documented():
    """Numpydoc sections: the formula in Notes, the paper in References, a runnable example."""
    assert "matthews" in metrics.__all__
    for name in metrics.__all__:
        doc = getattr(metrics, name).__doc__ or ""
        for section in ("Parameters", "Returns", "Notes", "References", "Examples"):
            assert f"{section}\n    {'-' * len(section)}" in doc, (name, section)
        assert ">>> " in doc and ".. [1]" in doc, name
