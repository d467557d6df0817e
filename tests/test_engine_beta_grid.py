"""The Beta CDF on fine equally spaced lattices (bacc._engine.beta_grid) against scipy's
incomplete beta at every point and mpmath at a few.

The lattices are dyadic (step 2^-k, points j 2^-k), so every point is exactly representable
and the two methods answer for the same points. Tolerances: 5e-14 absolute, and 5e-12
relative in each tail (the lower one below the mean, the upper one above) where the tail is
above 1e-280; scipy's own errors are of that order.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from bacc._engine.beta import beta_tails
from bacc._engine.beta_grid import beta_tails_grid


def dyadic_grid(a, b, n, width=14.0):
    m = a / (a + b)
    sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1.0)))
    lo, hi = max(-0.01, m - width * sd), min(1.01, m + width * sd)
    d = 2.0 ** -int(np.ceil(np.log2(n / (hi - lo))))
    return (np.floor(lo / d) + np.arange(n)) * d


def params(kind, rng):
    if kind == "small":
        return rng.uniform(0.5, 5.0, 2)
    if kind == "half-integer":
        return 0.5 + rng.integers(0, 20, 2)
    if kind == "integer":
        return 1.0 + rng.integers(0, 30, 2)
    return np.exp(rng.uniform(0.0, np.log(1e5), 2)) + 0.5


@pytest.mark.parametrize("kind", ["small", "half-integer", "integer", "large"])
def test_grid_tails_match_the_incomplete_beta_at_every_point(kind):
    rng = np.random.default_rng(["small", "half-integer", "integer", "large"].index(kind))
    for _ in range(25):
        a, b = params(kind, rng)
        t = dyadic_grid(a, b, int(rng.integers(4096, 200_000)))
        F0, S0 = beta_tails(a, b, np.clip(t, 0.0, 1.0))
        F1, S1 = beta_tails_grid(a, b, t)
        assert max(np.max(np.abs(F1 - F0)), np.max(np.abs(S1 - S0))) <= 5e-14, (a, b)
        below = t <= a / (a + b)
        ref = np.where(below, F0, S0)
        got = np.where(below, F1, S1)
        seen = ref > 1e-280
        rel = np.abs(got[seen] - ref[seen]) / ref[seen]
        assert rel.max() <= 5e-12, (a, b, rel.max())


def test_grid_tails_match_mpmath():
    a, b = 2.5, 3.5  # Jeffreys' posterior of a class of five with two correct: rough at both ends
    t = dyadic_grid(a, b, 300_000, width=3.0)
    F, S = beta_tails_grid(a, b, t)
    mp.mp.dps = 30
    for i in np.linspace(0, t.size - 1, 13).astype(int):
        x = float(np.clip(t[i], 0.0, 1.0))
        ref = mp.betainc(a, b, 0, x, regularized=True)
        assert abs(F[i] - float(ref)) <= 1e-14
        assert abs(S[i] - float(1 - ref)) <= 1e-14


def test_coarse_or_short_lattices_use_the_incomplete_beta_everywhere():
    t = np.linspace(0.0, 1.0, 1000)
    F, S = beta_tails_grid(3.0, 4.0, t)
    F0, S0 = beta_tails(3.0, 4.0, t)
    assert np.array_equal(F, F0) and np.array_equal(S, S0)
