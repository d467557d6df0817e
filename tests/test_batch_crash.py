"""``evaluate_many`` with one small class beside much larger ones: every class but the exact one
falls in the narrow part of the batched lattice, which then has no lattice row of its own (only
the narrow part's five moment-matched masses). Each group must give the numbers of
:func:`bacc.evaluate` within the documented 1e-9 (``bacc.batch``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bacc

TOL = 1e-9  # evaluate_many against evaluate, as documented in bacc.batch


def _matrix(sizes, accuracies) -> list[list[int]]:
    """A confusion matrix with the given class sizes and accuracies (errors on the next class)."""
    l = len(sizes)
    m = np.zeros((l, l), dtype=np.int64)
    for i, (n, acc) in enumerate(zip(sizes, accuracies, strict=True)):
        k = int(round(acc * n))
        m[i, i] = k
        m[i, (i + 1) % l] = n - k
    return m.tolist()


def _assert_like_evaluate(matrix) -> None:
    res = bacc.evaluate_many([matrix])
    ev = bacc.evaluate(matrix)
    lo, hi = ev.balanced_accuracy.interval(0.95)
    assert abs(res.lower[0] - lo) < TOL
    assert abs(res.upper[0] - hi) < TOL
    assert abs(res.mean[0] - ev.balanced_accuracy.mean()) < TOL
    assert abs(res.p_above_chance[0] - ev.p_above_chance) < TOL


@pytest.mark.parametrize(
    "matrix",
    [
        [[10, 20, 0], [0, 500000, 500000], [500000, 0, 500000]],
        _matrix([30, 10**6, 10**6], [0.7, 0.5, 0.6]),
        _matrix([1000, 10**7, 10**7], [0.9, 0.8, 0.85]),
        _matrix([30, 10**6, 10**6, 10**6], [0.7, 0.5, 0.6, 0.9]),
        _matrix([5, 10**6, 10**6, 10**6, 10**7, 10**6], [0.6, 0.5, 0.6, 0.9, 0.7, 0.8]),
    ],
)
def test_small_class_beside_large_ones(matrix):
    _assert_like_evaluate(matrix)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 7), st.floats(1.0, 10.0), st.floats(0.05, 0.95)),
        min_size=3,
        max_size=6,
    )
)
def test_class_sizes_from_one_to_ten_million(classes):
    """Class sizes ``mantissa * 10^exponent`` from 1 to 10^7 (rounded), any accuracies."""
    sizes = [max(1, min(10**7, int(round(f * 10**e)))) for e, f, _ in classes]
    _assert_like_evaluate(_matrix(sizes, [acc for _, _, acc in classes]))
