"""ConfusionMatrix: orientation, construction from labels and folds, validation."""

import numpy as np
import pytest

import bacc
from bacc import BaccError, ConfusionMatrix


def test_rows_are_true_classes_by_default():
    cm = ConfusionMatrix([[42, 3], [6, 4]])
    assert cm.correct.tolist() == [42, 4]
    assert cm.support.tolist() == [45, 10]
    assert cm.predicted.tolist() == [48, 7]
    assert cm.total == 55 and cm.total_correct == 46


def test_papers_orientation_predictions_in_rows():
    # Brodersen et al. (2010) prints predicted classes in rows: [[TP, FP], [FN, TN]]
    papers = [[42, 6], [3, 4]]
    cm = ConfusionMatrix.from_matrix(papers, rows="predicted")
    assert cm.counts.tolist() == [[42, 3], [6, 4]]
    with pytest.raises(BaccError, match="rows must be"):
        ConfusionMatrix.from_matrix(papers, rows="columns")


def test_from_predictions_keeps_label_seen_only_in_predictions():
    cm = ConfusionMatrix.from_predictions(["a", "b", "a", "b"], ["a", "b", "c", "b"])
    assert cm.labels == ("a", "b", "c")
    assert cm.support.tolist() == [2, 2, 0]
    assert cm.counts[0].tolist() == [1, 0, 1]


def test_from_predictions_with_labels_fixes_order_and_rejects_unknown():
    cm = ConfusionMatrix.from_predictions([1, 0, 1], [1, 1, 1], labels=[1, 0, 2])
    assert cm.labels == (1, 0, 2)
    assert cm.counts.tolist() == [[2, 0, 0], [1, 0, 0], [0, 0, 0]]
    with pytest.raises(BaccError, match="label 5"):
        ConfusionMatrix.from_predictions([1, 5], [1, 1], labels=[1, 0])


def test_from_folds_sums_matrices():
    folds = [[[5, 1], [2, 3]], [[4, 0], [1, 6]], np.array([[1, 1], [1, 1]])]
    cm = ConfusionMatrix.from_folds(folds)
    assert cm.counts.tolist() == [[10, 2], [4, 10]]
    with pytest.raises(BaccError, match="at least one fold"):
        ConfusionMatrix.from_folds([])


def test_counts_up_to_1e12_do_not_overflow():
    cm = ConfusionMatrix([[10**12, 3], [7, 10**12 - 1]])
    assert cm.total == 2 * 10**12 + 9
    ev = bacc.evaluate(cm)
    assert 0.999999 < ev.balanced_accuracy_summary.mean < 1


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ([[1, -3], [2, 2]], r"row 0 .* negative count \(-3\)"),
        ([[1, 2], [np.nan, 2]], "row 1 .* non-finite"),
        ([[1, 2], [np.inf, 2]], "row 1 .* non-finite"),
        ([[1, 2.5], [2, 2]], "non-integer"),
        ([[1, 2, 3], [4, 5, 6]], "square"),
        ([], "2-D|empty"),
        ([1, 2, 3], "2-D"),
        ([[0, 0], [0, 0]], "no examples"),
        ("1,2;3,4", "string"),
        ([["a", "b"], ["c", "d"]], "numbers"),
    ],
)
def test_bad_matrices_raise_clear_errors(matrix, message):
    with pytest.raises(BaccError, match=message):
        ConfusionMatrix(matrix)


def test_mismatched_lengths_raise():
    with pytest.raises(BaccError, match="same length"):
        ConfusionMatrix.from_predictions([0, 1, 1], [0, 1])


def test_missing_labels_raise():
    with pytest.raises(BaccError, match="missing label"):
        ConfusionMatrix.from_predictions([0, None], [0, 1])


def test_bacc_error_is_a_value_error():
    assert issubclass(BaccError, ValueError)


def test_relabel_permutes_rows_and_columns():
    cm = ConfusionMatrix([[1, 2, 3], [4, 5, 6], [7, 8, 9]], labels=list("abc"))
    r = cm.relabel([2, 0, 1])
    assert r.labels == ("c", "a", "b")
    assert r.counts.tolist() == [[9, 7, 8], [3, 1, 2], [6, 4, 5]]


def test_counts_are_read_only():
    cm = ConfusionMatrix([[1, 2], [3, 4]])
    with pytest.raises(ValueError):
        cm.counts[0, 0] = 7
