"""The barycentric interpolation helpers of ``bacc._engine.beta_mixture``."""

from __future__ import annotations

import numpy as np
import pytest

from bacc._engine.beta_mixture import barycentric_matrix, barycentric_values, chebyshev_points


@pytest.mark.parametrize("n", [5, 33])
def test_barycentric_values_equal_the_matrix_and_interpolate_polynomials(n):
    pts, w = chebyshev_points(n)
    rng = np.random.default_rng(n)
    at = rng.uniform(-1.0, 1.0, 400)
    # a polynomial of degree n - 1 is reproduced exactly (to rounding) by its interpolant
    coef = rng.normal(size=n)
    exact = np.polynomial.chebyshev.chebval(at, coef)
    values = np.polynomial.chebyshev.chebval(pts, coef)
    got = barycentric_values(pts, w, at, values)
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12 * np.abs(coef).sum())
    np.testing.assert_allclose(got, barycentric_matrix(pts, w, at) @ values, rtol=0, atol=1e-13)
    # and a smooth function to the accuracy of its degree-(n - 1) interpolant
    if n == 33:
        f = np.exp(np.sin(2.0 * at))
        assert np.max(np.abs(barycentric_values(pts, w, at, np.exp(np.sin(2.0 * pts))) - f)) < 1e-12


def test_barycentric_values_at_the_nodes_are_the_values():
    pts, w = chebyshev_points(9)
    values = np.arange(9.0) ** 2
    at = np.concatenate([pts[[0, 4, 8]], [0.123]])
    got = barycentric_values(pts, w, at, values)
    assert got[:3].tolist() == values[[0, 4, 8]].tolist()
    assert np.isfinite(got[3])
