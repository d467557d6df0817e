"""P(worse) of two-class windows of small counts (``bacc._engine.sums.small_counts``).

- ``p_worse_small`` equals :func:`bacc.compare` (the exact comparison of two independent
  posteriors) within 1e-9 on small, perfect, all-wrong and one-example windows, against
  baselines of several sizes, with and without a margin;
- rows whose baseline holds mass on both sides of ``1/2 + margin`` are left to the other
  methods (``handled`` False), and every row it takes is exact;
- the tensor Gauss-Jacobi rule reproduces the moments of ``(phi_1 + phi_2) / 2`` to degree
  ``2K - 1`` (exact Beta moments);
- ``distinct_rows`` finds the same rows as ``np.unique(..., axis=0)``;
- against exact rational arithmetic (the window's distribution function as a polynomial with
  fractions, the baseline's exact moments): within 1e-15, where ``bacc.compare`` differs by up
  to about 1e-10.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import bacc
from bacc._engine.sums.small_counts import distinct_rows, p_worse_small, takes, tensor_rule
from bacc.distributions import BetaSum


def _matrix(k, n):
    return np.array([[k[0], n[0] - k[0]], [n[1] - k[1], k[1]]])


def _compare(kb, nb, k, n, margin):
    """P(lambda_window < lambda_baseline - margin), flat priors: bacc.compare's P(baseline
    better) without a margin, the exact BetaSum of the difference (as compare computes it)
    with one."""
    if margin:
        diff = BetaSum(np.r_[kb + 1, k + 1], np.r_[nb - kb + 1, n - k + 1], [0.5, 0.5, -0.5, -0.5])
        return float(diff.sf(margin))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bacc.compare(_matrix(kb, nb), _matrix(k, n)).p_better


def _windows(rng, size):
    n = np.maximum(rng.poisson([14, 6], (size, 2)), 1)
    k = rng.binomial(n, rng.uniform(0.6, 1.0, (size, 2)))
    k[:4] = n[:4]  # perfect
    k[4:8] = 0  # all wrong
    n[8:12], k[8:12] = 1, [[1, 0], [0, 1], [1, 1], [0, 0]]  # one example per class
    n[12:14], k[12:14] = [[30, 30], [3, 50]], [[28, 30], [3, 49]]  # larger, near perfect
    return k, n


@pytest.mark.parametrize("margin", [0.0, 0.03])
def test_p_worse_small_equals_the_exact_comparison(margin):
    rng = np.random.default_rng(7)
    k, n = _windows(rng, 40)
    nb = rng.poisson([112, 48], (40, 2))
    kb = rng.binomial(nb, rng.uniform(0.85, 0.97, (40, 2)))
    nb[:6], kb[:6] = [[8, 3]] * 6, [[8, 3]] * 6  # small perfect baselines
    nb[6:9] = [[2000, 900]] * 3
    kb[6:9] = [[1900, 850]] * 3
    assert takes(k + 1.0, n - k + 1.0).all()
    p, handled = p_worse_small(k + 1.0, n - k + 1.0, kb + 1.0, nb - kb + 1.0, margin)
    # the small perfect baselines (rows 0-5) hold mass below 1/2: left to the other methods
    assert not handled[:6].any() and handled[6:].mean() > 0.9
    for g in np.flatnonzero(handled):
        assert p[g] == pytest.approx(_compare(kb[g], nb[g], k[g], n[g], margin), abs=1e-9)
    assert np.isnan(p[~handled]).all()


def test_a_baseline_across_the_kink_is_left_to_the_other_methods():
    # a baseline near 1/2 holds mass on both pieces of the window's distribution function
    k, n = np.array([[5, 2], [9, 5]]), np.array([[10, 4], [10, 6]])
    kb, nb = np.array([[6, 4], [90, 40]]), np.array([[12, 8], [100, 45]])
    p, handled = p_worse_small(k + 1.0, n - k + 1.0, kb + 1.0, nb - kb + 1.0)
    assert handled.tolist() == [False, True] and math.isnan(p[0])
    assert p[1] == pytest.approx(_compare(kb[1], nb[1], k[1], n[1], 0.0), abs=1e-9)


def test_takes_integer_parameters_of_small_degree_only():
    a = np.array([[3.0, 2.0], [3.5, 2.0], [40.0, 30.0]])
    b = np.array([[1.0, 4.0], [1.0, 4.0], [2.0, 1.0]])
    assert takes(a, b).tolist() == [True, False, False]


def _beta_moment(a, b, j):
    return math.prod((a + r) / (a + b + r) for r in range(j))


@pytest.mark.parametrize("K", [2, 6, 15])
def test_the_tensor_rule_reproduces_the_moments(K):
    a = np.array([[3.0, 5.0], [120.0, 40.0], [1.0, 1.0]])
    b = np.array([[2.0, 4.0], [8.0, 3.0], [1.0, 9.0]])
    x, w = tensor_rule(a, b, K)
    for r in range(3):
        mu = 0.5 * (a[r] / (a[r] + b[r])).sum()
        for d in range(2 * K):
            exact = sum(math.comb(d, j) * _beta_moment(a[r, 0], b[r, 0], j)
                        * _beta_moment(a[r, 1], b[r, 1], d - j) for j in range(d + 1)) / 2**d
            assert (w[r] * x[r] ** d).sum() == pytest.approx(exact, rel=1e-12, abs=1e-15)
        assert (w[r] * x[r]).sum() == pytest.approx(mu, rel=1e-13)


def test_distinct_rows_match_numpy_unique():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, (500, 5)).astype(float)
    x[:, 2] += 0.5  # not whole numbers: coded by a sort
    x[:, 4] *= 1e7  # whole numbers of a wide range
    first, inverse = distinct_rows(x)
    u = np.unique(x, axis=0)
    assert first.size == u.shape[0]
    assert np.array_equal(x[first][inverse], x)
    assert distinct_rows(np.zeros((0, 3)))[0].size == 0


# ----------------------------------------------------------------------------------------------
# an exact reference in rational arithmetic
def _poly_mul(p, q):
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] += a * b
    return out


def _binomial_poly(c, sign, k):
    """Coefficients of (c + sign * x)^k."""
    return [Fraction(math.comb(k, i)) * c ** (k - i) * sign**i for i in range(k + 1)]


def _beta_pdf(a, b):
    const = Fraction(math.factorial(a + b - 1), math.factorial(a - 1) * math.factorial(b - 1))
    return [const * v for v in _poly_mul([0] * (a - 1) + [1], _binomial_poly(1, -1, b - 1))]


def _beta_sf(a, b):
    """P(theta > v) as a polynomial in v: P(Binomial(a + b - 1, v) < a)."""
    n = a + b - 1
    out = [Fraction(0)] * (n + 1)
    for j in range(a):
        term = _poly_mul([0] * j + [math.comb(n, j)], _binomial_poly(1, -1, n - j))
        for i, v in enumerate(term):
            out[i] += v
    return out


def _exact_p_worse(k, n, kb, nb):
    """P(lambda_now < lambda_base) = E[F_hi(lambda_base)], F_hi the window's distribution
    function on [1/2, 1] (a polynomial), exactly in fractions (the baseline's mass below 1/2,
    where F is the other piece, is negligible for the baselines used: checked by the caller)."""
    a1, b1, a2, b2 = k[0] + 1, n[0] - k[0] + 1, k[1] + 1, n[1] - k[1] + 1
    g1, s2 = _beta_pdf(a1, b1), _beta_sf(a2, b2)
    # g1(t) S2(s - t) as {(i, j): coefficient of s^i t^j}
    terms = {}
    for kk, c in enumerate(s2):
        for i in range(kk + 1):
            base = c * math.comb(kk, i) * (-1) ** (kk - i)
            for j0, g in enumerate(g1):
                key = (i, kk - i + j0)
                terms[key] = terms.get(key, 0) + base * g
    # 1 - int_{s-1}^{1} ... dt, a polynomial in s
    f = [Fraction(0)] * (len(g1) + len(s2) + 2)
    f[0] += 1
    for (i, j), c in terms.items():
        c = c / (j + 1)
        f[i] -= c  # t = 1
        for r, v in enumerate(_binomial_poly(-1, 1, j + 1)):  # t = s - 1
            f[i + r] += c * v
    A1, B1, A2, B2 = kb[0] + 1, nb[0] - kb[0] + 1, kb[1] + 1, nb[1] - kb[1] + 1

    def moment(a, b, j):
        return math.prod((Fraction(a + r, a + b + r) for r in range(j)), start=Fraction(1))

    total = Fraction(0)
    for d, c in enumerate(f):  # s = 2 lambda: E[(phi_1 + phi_2)^d]
        if c:
            total += c * sum(math.comb(d, j) * moment(A1, B1, j) * moment(A2, B2, d - j)
                             for j in range(d + 1))
    return total


def test_p_worse_small_equals_exact_rational_arithmetic():
    rng = np.random.default_rng(5)
    n = np.maximum(rng.poisson([14, 6], (6, 2)), 1)
    k = rng.binomial(n, 0.9)
    k[0], k[1] = n[0], [0, n[1, 1]]  # a perfect window, one with a class all wrong
    nb = rng.poisson([112, 48], (6, 2))
    kb = rng.binomial(nb, 0.93)
    # every baseline far above 1/2 (its mass below it is below 1e-25)
    assert (0.5 * ((kb + 1) / (nb + 2)).sum(axis=1) > 0.85).all()
    p, handled = p_worse_small(k + 1.0, n - k + 1.0, kb + 1.0, nb - kb + 1.0)
    assert handled.all()
    for g in range(6):
        exact = float(_exact_p_worse(k[g].tolist(), n[g].tolist(), kb[g].tolist(), nb[g].tolist()))
        assert p[g] == pytest.approx(exact, abs=1e-15)
        assert _compare(kb[g], nb[g], k[g], n[g], 0.0) == pytest.approx(exact, abs=1e-9)
