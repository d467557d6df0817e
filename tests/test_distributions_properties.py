"""Property-based checks of the distribution objects (hypothesis)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bacc import BetaSum

counts = st.integers(min_value=0, max_value=2000)


@st.composite
def posteriors(draw):
    l = draw(st.integers(min_value=1, max_value=4))
    n = np.array([draw(counts) for _ in range(l)])
    k = np.array([draw(st.integers(min_value=0, max_value=int(x))) for x in n])
    a0 = draw(st.sampled_from([0.5, 1.0, 2.0]))
    return BetaSum(k + a0, n - k + a0, np.full(l, 1.0 / l))


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(posteriors())
def test_cdf_is_monotone_and_within_unit_interval(d):
    xs = np.linspace(*d.support(), 401)
    F = d.cdf(xs)
    assert np.all((F >= 0) & (F <= 1))
    assert np.all(np.diff(F) >= -1e-12)


@SETTINGS
@given(posteriors(), st.floats(min_value=0.001, max_value=0.999))
def test_quantiles_lie_in_support_and_invert_the_cdf(d, q):
    x = d.ppf(q)
    lo, hi = d.support()
    assert lo <= x <= hi
    assert abs(d.cdf(x) - q) < 1e-9


@SETTINGS
@given(posteriors(), st.floats(min_value=0.5, max_value=0.99))
def test_interval_contains_median_and_mean(d, c):
    lo, hi = d.interval(c)
    assert lo <= d.median() <= hi
    assert lo < hi


@SETTINGS
@given(posteriors(), st.floats(min_value=-3, max_value=3))
def test_ppf_of_cdf_returns_x(d, z):
    lo, hi = d.support()
    x = float(np.clip(d.mean() + z * d.std(), lo, hi))
    F = d.cdf(x)
    if 1e-6 < F < 1 - 1e-6:
        assert abs(d.ppf(F) - x) <= max(1e-9, 1e-6 * d.std())
