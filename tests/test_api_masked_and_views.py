"""Masked, read-only and non-contiguous arrays: counted as the plain array they show, never
with hidden cells, and never modified."""

from __future__ import annotations

import numpy as np
import pytest

import bacc
from bacc import BaccError, ConfusionMatrix
from bacc.counting import GroupedCounts

M = np.array([[50, 3, 2], [4, 40, 6], [1, 2, 30]])


def _frozen_copy(a):
    return a.copy(), a.flags.writeable, a.flags.c_contiguous


# ----------------------------------------------------------------------------------------------
# confusion matrices
def test_a_masked_matrix_with_masked_cells_is_refused_naming_the_cell():
    masked = np.ma.array(M, mask=np.zeros_like(M, dtype=bool))
    masked[1, 2] = np.ma.masked
    with pytest.raises(BaccError, match=r"masked array with 1 masked count\(s\) \(the first at \(1, 2\)\)"):
        ConfusionMatrix(masked)
    with pytest.raises(BaccError, match="masked"):
        ConfusionMatrix.from_matrix(masked, rows="predicted")
    with pytest.raises(BaccError, match="masked"):
        bacc.evaluate(masked)
    # the hidden value is never used: the same message whatever it is
    assert masked.data[1, 2] == 6


def test_a_masked_constant_in_a_nested_list_is_refused():
    with pytest.raises(BaccError, match="masked count"):
        ConfusionMatrix([[1, np.ma.masked], [3, 4]])


@pytest.mark.parametrize("mask", [np.ma.nomask, False, np.zeros(M.shape, dtype=bool)])
def test_a_masked_array_without_masked_cells_is_the_plain_array(mask):
    masked = np.ma.array(M, mask=mask)
    cm = ConfusionMatrix(masked)
    assert cm.counts.tolist() == M.tolist()
    assert type(cm.counts) is np.ndarray
    assert bacc.evaluate(masked).to_dict() == bacc.evaluate(M).to_dict()


def test_read_only_and_non_contiguous_matrices_give_the_plain_result():
    plain = ConfusionMatrix(M)
    ro = M.copy()
    ro.setflags(write=False)
    big = np.zeros((6, 6), dtype=np.int64)
    big[::2, ::2] = M
    strided = big[::2, ::2]
    assert not strided.flags.c_contiguous
    transposed = np.ascontiguousarray(M.T).T  # same values, Fortran order
    assert not transposed.flags.c_contiguous
    fortran = np.asfortranarray(M.astype(float))
    for view in (ro, strided, transposed, fortran):
        before = _frozen_copy(view)
        assert ConfusionMatrix(view) == plain
        assert bacc.evaluate(view).to_dict() == bacc.evaluate(M).to_dict()
        assert np.array_equal(view, before[0])
        assert (view.flags.writeable, view.flags.c_contiguous) == before[1:]
    # a transposed view read with rows="predicted" is the matrix itself
    assert ConfusionMatrix.from_matrix(M.T, rows="predicted") == plain


def test_the_callers_matrix_is_never_modified_and_results_do_not_share_it():
    arr = M.copy()
    cm = ConfusionMatrix(arr)
    arr[0, 0] = 999
    assert cm.counts[0, 0] == 50
    with pytest.raises(ValueError):
        cm.counts[0, 0] = 1


# ----------------------------------------------------------------------------------------------
# stacks
def test_grouped_counts_refuse_masked_counts_and_read_a_clean_mask_as_plain():
    stack = np.stack([M, M.T])
    masked = np.ma.array(stack, mask=np.zeros(stack.shape, dtype=bool))
    masked[1, 0, 0] = np.ma.masked
    with pytest.raises(BaccError, match=r"masked array with 1 masked count"):
        GroupedCounts(masked, ["a", "b"], [0, 1, 2])
    clean = GroupedCounts(np.ma.array(stack), ["a", "b"], [0, 1, 2])
    assert clean == GroupedCounts(stack, ["a", "b"], [0, 1, 2])
    view = np.stack([M, M.T, M])[::2]
    ro = stack.copy()
    ro.setflags(write=False)
    assert GroupedCounts(ro, ["a", "b"], [0, 1, 2]).counts.tolist() == stack.tolist()
    assert GroupedCounts(view, ["a", "b"], [0, 1, 2]).counts.tolist() == [M.tolist(), M.tolist()]


# ----------------------------------------------------------------------------------------------
# labels counted from columns
def test_masked_labels_in_columns_are_missing_values():
    y = np.ma.array([0, 1, 1, 0, 1, 2, 2], mask=[0, 1, 0, 0, 0, 0, 1])
    p = np.ma.array([0, 1, 0, 0, 1, 2, 1], mask=[0, 0, 0, 1, 0, 0, 0])
    with pytest.raises(BaccError, match=r"3 examples have a missing label .*'y' \(true=\)"):
        bacc.counts({"y": y, "p": p}, true="y", pred="p")
    with pytest.warns(bacc.BaccWarning, match="left out 3 examples"):
        cm = bacc.counts({"y": y, "p": p}, true="y", pred="p", nulls="drop")
    # the kept pairs, by hand: (0,0), (1,0), (1,1), (2,2)
    keep = ~(np.ma.getmaskarray(y) | np.ma.getmaskarray(p))
    expected = np.zeros((3, 3), dtype=int)
    for t, q in zip(y.data[keep], p.data[keep], strict=True):
        expected[t, q] += 1
    assert cm.counts.tolist() == expected.tolist() == [[1, 0, 0], [1, 1, 0], [0, 0, 1]]
    assert cm.counts.sum() == 4
    # the same labels as plain lists with None where masked
    as_none = {"y": [None if m else v for v, m in zip(y.data, y.mask, strict=True)],
               "p": [None if m else v for v, m in zip(p.data, np.ma.getmaskarray(p), strict=True)]}
    with pytest.warns(bacc.BaccWarning):
        assert bacc.counts(as_none, true="y", pred="p", nulls="drop") == cm
    # a mask without masked entries counts every example
    clean = bacc.counts({"y": np.ma.array(y.data), "p": np.ma.array(p.data)}, true="y", pred="p")
    assert clean == bacc.counts({"y": y.data, "p": p.data}, true="y", pred="p")
    assert y.mask.tolist() == [0, 1, 0, 0, 0, 0, 1]  # the caller's arrays are untouched


def test_read_only_and_strided_label_columns_count_alike():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 400)
    p = np.where(rng.random(400) < 0.7, y, rng.integers(0, 3, 400))
    expected = bacc.counts({"y": y, "p": p}, true="y", pred="p")
    both = np.stack([y, p], axis=1)  # columns of a 2-D array are strided views
    ro_y, ro_p = y.copy(), p.copy()
    ro_y.setflags(write=False)
    ro_p.setflags(write=False)
    assert bacc.counts({"y": both[:, 0], "p": both[:, 1]}, true="y", pred="p") == expected
    assert bacc.counts({"y": ro_y, "p": ro_p}, true="y", pred="p") == expected
    assert ConfusionMatrix.from_predictions(both[:, 0], both[:, 1]) == expected
    # and a direct count
    direct = np.zeros((3, 3), dtype=int)
    np.add.at(direct, (y, p), 1)
    assert expected.counts.tolist() == direct.tolist()


@pytest.mark.parametrize("call", [
    lambda: bacc.evaluate_many(np.ma.array([[[5, 1], [2, 8]]], mask=[[[0, 1], [0, 0]]]),
                               progress=False),
    lambda: bacc.clopper_pearson(np.ma.array([3], mask=[1]), [5]),
    lambda: bacc.population(correct=np.ma.array([3, 4, 5], mask=[0, 1, 0]), totals=[5, 5, 5]),
])
def test_masked_counts_are_refused_by_every_entry_point(call):
    with pytest.raises(bacc.BaccError, match=r"masked array with 1 masked count"):
        call()
