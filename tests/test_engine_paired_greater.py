"""P(delta > 0) of many pairs at once (bacc._engine.paired_greater) against the paired lattice.

The reference is :class:`bacc.PairedDifference` (the lattice of
:mod:`bacc._engine.sums.paired_difference`, a different method, what :func:`bacc.compare_paired`
reports); a pair agrees within 1e-9 plus the lattice's own error estimate (at most about
1e-9: on classes of a handful of examples the lattice at four times its resolution moves
towards the value here). The Gauss rules against the Beta moments in 60-digit arithmetic.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import bacc
from bacc._engine.paired_greater import beta_gauss_rule, paired_greater


def central_moment(a, b, k):
    """E[(X - mu)**k] of Beta(a, b), from the raw moments in 60-digit arithmetic."""
    with mp.workdps(60):
        a, b = mp.mpf(a), mp.mpf(b)
        mu = a / (a + b)
        raw = [mp.mpf(1)]
        for j in range(k):
            raw.append(raw[-1] * (a + j) / (a + b + j))
        return float(sum(mp.binomial(k, j) * raw[j] * (-mu) ** (k - j) for j in range(k + 1)))


@pytest.mark.parametrize(("a", "b"), [(2.0, 3.0), (0.5, 0.5), (1.0, 5001.0), (4000.5, 300.5),
                                      (0.5, 300.0), (1e7, 3e6)])
def test_gauss_rule_integrates_polynomials_exactly(a, b):
    n = 12
    x, p = beta_gauss_rule(np.array([a]), np.array([b]), n)
    assert p.sum() == pytest.approx(1.0, abs=1e-14)
    assert np.all((x >= 0) & (x <= 1)) and np.all(p > 0)
    mu = a / (a + b)
    for k in (1, 2, 7, 2 * n - 1):
        # central moments: no cancellation for concentrated Betas
        exact = central_moment(a, b, k)
        got = float(p[0] @ (x[0] - mu) ** k)
        scale = (a * b / ((a + b) ** 2 * (a + b + 1.0))) ** (k / 2)
        assert got == pytest.approx(exact, abs=1e-10 * scale + 1e-15)


def assert_close(p, ref):
    """``p`` is the lattice's ``P(delta > 0)`` within 1e-9 plus the lattice's error estimate."""
    assert abs(p - ref.sf(0.0)) <= 1e-9 + ref.error_estimate


def classes(rng, m, big):
    """Cell counts (11, 10, 01, 00) of m classes: unequal sizes, perfect and all-wrong ones."""
    out = []
    for _ in range(m):
        n = int(rng.integers(50, 2000)) if big else int(rng.integers(1, 12))
        kind = rng.random()
        if kind < 0.15:
            cells = [n, 0, 0, 0]  # both perfect
        elif kind < 0.25:
            cells = [0, 0, 0, n]  # both always wrong
        else:
            cells = rng.multinomial(n, rng.dirichlet([4.0, 1.0, 1.0, 2.0]))
        out.append(cells)
    return np.array(out, dtype=float)


@pytest.mark.parametrize("m", [2, 3, 10])
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.slow
def test_pairs_equal_the_paired_lattice(m, seed):
    rng = np.random.default_rng(seed * 10 + m)
    alpha = np.stack([classes(rng, m, big=True) + 0.5 for _ in range(12)])
    w = rng.dirichlet(np.full(m, 5.0))
    p, handled = paired_greater(alpha, w)
    assert handled.sum() >= 4  # the others have broad classes: left to the lattice
    for k in np.flatnonzero(handled):
        assert_close(p[k], bacc.PairedDifference(alpha[k], w))
    assert np.all(np.isnan(p[~handled]))


def test_small_classes_are_accurate_or_left():
    rng = np.random.default_rng(5)
    alpha = np.stack([classes(rng, 10, big=False) + 0.5 for _ in range(10)])
    w = np.full(10, 0.1)
    p, handled = paired_greater(alpha, w)
    for k in range(alpha.shape[0]):
        if handled[k]:
            assert_close(p[k], bacc.PairedDifference(alpha[k], w))
        else:
            assert np.isnan(p[k])


def test_large_classes_are_all_handled():
    """Every pair of 20 classifiers on 10 classes of about 500 examples (the common case)."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 10, 5000)
    hard = rng.random(5000)
    right = np.column_stack([rng.random(5000) < np.clip(s + 0.3 * (hard - 0.5), 0, 1)
                             for s in rng.uniform(0.6, 0.9, 20)])
    iu, ju = np.triu_indices(20, 1)
    alpha = np.empty((iu.size, 10, 4))
    for c in range(10):
        r = right[y == c]
        a, b = r[:, iu], r[:, ju]
        alpha[:, c] = np.column_stack([(a & b).sum(0), (a & ~b).sum(0), (~a & b).sum(0),
                                       (~a & ~b).sum(0)]) + 0.5
    w = np.full(10, 0.1)
    p, handled = paired_greater(alpha, w)
    assert handled.all()
    mid = np.flatnonzero((p > 1e-6) & (p < 1 - 1e-6))
    assert mid.size >= 10
    for k in mid[:: max(1, mid.size // 8)]:
        assert p[k] == pytest.approx(bacc.PairedDifference(alpha[k], w).sf(0.0), abs=1e-9)


def test_symmetric_and_distant_pairs():
    w = np.array([0.5, 0.5])
    same = np.array([[[300.5, 20.5, 20.5, 40.5], [200.5, 10.5, 10.5, 30.5]]])
    far = np.array([[[300.5, 80.5, 0.5, 40.5], [200.5, 60.5, 0.5, 30.5]]])
    p, handled = paired_greater(np.concatenate([same, far, far[:, :, [0, 2, 1, 3]]]), w)
    assert handled.all()
    assert p[0] == pytest.approx(0.5, abs=1e-12)  # delta is symmetric about 0
    assert p[1] == 1.0 and p[2] == 0.0  # 0 lies beyond the reach of delta
