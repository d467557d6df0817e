"""Self-tests of the independent high-precision reference (tests/references/reference.py).

Every check is against a closed form, an independent one-dimensional mpmath quadrature of a
closed form, or a seeded Monte Carlo run; nothing here uses bacc.
"""

import math

import mpmath
import numpy as np
import pytest
from references.reference import (
    mc_cdf,
    mc_sample,
    ref_cdf,
    ref_mean_var,
    ref_mode,
    ref_pdf,
    ref_ppf,
    ref_sf,
)

mp = mpmath.MPContext()
mp.dps = 40


def betainc(a, b, x):
    return mp.betainc(mp.mpf(a), mp.mpf(b), 0, mp.mpf(x), regularized=True)


# ---------------------------------------------------------------- (i) one component


@pytest.mark.parametrize(
    ("a", "b"),
    [(2.0, 3.0), (0.5, 0.5), (0.5, 10.5), (40.5, 0.5), (43.0, 4.0), (1.0, 1.0), (300.5, 20.5)],
)
def test_one_component_is_betainc(a, b):
    for x in (1e-6, 0.01, 0.3, 0.5, 0.77, 0.95, 0.999):
        exact = betainc(a, b, x)
        assert ref_cdf(x, [a], [b], [1.0]) == pytest.approx(float(exact), rel=1e-14, abs=1e-300)
        # relative accuracy also in the upper tail
        assert ref_sf(x, [a], [b], [1.0]) == pytest.approx(float(1 - exact), rel=1e-13)


def test_one_component_weights_and_reflection():
    a, b = 7.5, 3.0
    for x in (0.1, 0.4, 0.6):
        exact = float(betainc(a, b, x))
        assert ref_cdf(0.25 * x, [a], [b], [0.25]) == pytest.approx(exact, rel=1e-14)
        # -X <= -x  <=>  X >= x
        assert ref_cdf(-x, [a], [b], [-1.0]) == pytest.approx(1 - exact, rel=1e-14)
        pdf = float(mp.exp((a - 1) * mp.log(x) + (b - 1) * mp.log(1 - x)) / mp.beta(a, b))
        assert ref_pdf(-2 * x, [a], [b], [-2.0]) == pytest.approx(pdf / 2, rel=1e-14)


def test_one_component_far_tail_is_relative():
    # P(X <= 1e-3) for Beta(20, 30): ~1e-45, must be relative-accurate
    exact = betainc(20, 30, 1e-3)
    assert ref_cdf(1e-3, [20.0], [30.0], [1.0]) == pytest.approx(float(exact), rel=1e-13)


@pytest.mark.parametrize(("a", "b"), [(9e5 + 1, 1e5 + 1), (5e8 + 1, 5e8 + 1), (1e9 + 1, 0.5)])
def test_one_component_huge_parameters_against_quadrature(a, b):
    # mpmath.betainc cannot do these; integrate the density in standardised coordinates
    am, bm = mp.mpf(a), mp.mpf(b)
    n = am + bm
    mu = am / n
    sd = mp.sqrt(am * bm / (n * n * (n + 1)))
    lb = mp.loggamma(am) + mp.loggamma(bm) - mp.loggamma(n)

    def f(z):
        t = mu + sd * z
        if not 0 < t < 1:
            return mp.zero
        return sd * mp.exp((am - 1) * mp.log(t) + (bm - 1) * mp.log(1 - t) - lb)

    ztop = (1 - mu) / sd
    zlow = max(-(mu / sd), mp.mpf(-90))
    for z in (-2.5, -0.3, 0.0, 0.7, 0.95):
        z = mp.mpf(z)
        if z >= ztop:
            continue
        x = float(mu + sd * z)
        zx = (mp.mpf(x) - mu) / sd
        pts = [zlow] + [p for p in (-40, -20, -10, -5, -2, 0) if zlow < p < zx] + [zx]
        exact = mp.quad(f, pts)
        assert ref_cdf(x, [a], [b], [1.0]) == pytest.approx(float(exact), rel=1e-12, abs=1e-14)


# ---------------------------------------------------------------- (ii), (iii) uniforms


def test_mean_of_two_uniforms():
    for x in (0.0, 0.05, 0.2, 0.5, 0.63, 0.9, 1.0):
        exact = 2 * x * x if x <= 0.5 else 1 - 2 * (1 - x) ** 2
        assert abs(ref_cdf(x, [1, 1], [1, 1], [0.5, 0.5]) - exact) < 1e-15
        dens = 4 * x if x <= 0.5 else 4 * (1 - x)
        if 0 < x < 1:
            assert ref_pdf(x, [1, 1], [1, 1], [0.5, 0.5]) == pytest.approx(dens, rel=1e-14)
    for q in (0.01, 0.3, 0.5):
        assert ref_ppf(q, [1, 1], [1, 1], [0.5, 0.5]) == pytest.approx(math.sqrt(q / 2), rel=1e-14)
    assert ref_mode([1, 1], [1, 1], [0.5, 0.5]) == pytest.approx(0.5, abs=1e-9)


def test_difference_of_two_uniforms_is_triangular():
    for x in (-1.0, -0.7, -0.2, 0.0, 0.1, 0.55, 1.0):
        exact = (1 + x) ** 2 / 2 if x <= 0 else 1 - (1 - x) ** 2 / 2
        assert abs(ref_cdf(x, [1, 1], [1, 1], [1, -1]) - exact) < 1e-15
        if -1 < x < 1:
            assert ref_pdf(x, [1, 1], [1, 1], [1, -1]) == pytest.approx(1 - abs(x), rel=1e-14)
    assert ref_mode([1, 1], [1, 1], [1, -1]) == pytest.approx(0.0, abs=1e-9)


# ---------------------------------------------------------------- singular end points


def _quarter_disc(y):
    """P(U1^2 + U2^2 <= y) for independent uniforms."""
    y = mp.mpf(y)
    if y <= 0:
        return mp.zero
    if y <= 1:
        return mp.pi * y / 4
    if y >= 2:
        return mp.one
    r = mp.sqrt(y)
    c = mp.sqrt(y - 1)
    return c + y * (mp.asin(1 / r) - mp.asin(c / r)) / 2


def test_square_root_singularities_sum_of_squares():
    # U^2 ~ Beta(1/2, 1): density t^(-1/2) / 2 (square-root type end points)
    a, b, w = [0.5, 0.5], [1.0, 1.0], [1.0, 1.0]
    for x in (0.05, 0.6, 1.0, 1.3, 1.9):
        assert abs(ref_cdf(x, a, b, w) - float(_quarter_disc(x))) < 1e-15
    assert ref_pdf(0.4, a, b, w) == pytest.approx(math.pi / 4, rel=1e-14)


def _difference_of_squares_cdf(d):
    """P(U1^2 - U2^2 <= d): a logarithmic singularity of the density at 0."""
    d = mp.mpf(d)
    if d < 0:
        return 1 - _difference_of_squares_cdf(-d)
    if d == 0:
        return mp.mpf(0.5)
    c = mp.sqrt(1 - d)
    return 1 - c / 2 + d / 2 * mp.log((1 + c) / mp.sqrt(d))


def test_logarithmic_singularity_difference_of_squares():
    a, b, w = [0.5, 0.5], [1.0, 1.0], [1.0, -1.0]
    for d in (-0.9, -0.3, -1e-3, 1e-6, 0.01, 0.5, 0.99):
        assert abs(ref_cdf(d, a, b, w) - float(_difference_of_squares_cdf(d))) < 1e-15
        dens = mp.log((1 + mp.sqrt(1 - abs(mp.mpf(d)))) / mp.sqrt(abs(mp.mpf(d)))) / 2
        assert ref_pdf(d, a, b, w) == pytest.approx(float(dens), rel=1e-13)
    assert abs(ref_mode(a, b, w)) < 1e-8


# ---------------------------------------------------------------- three components


def test_three_uniforms_irwin_hall():
    a = b = [1.0, 1.0, 1.0]
    w = [1 / 3] * 3
    for x in (0.1, 1 / 3 + 0.01, 0.5, 0.8):
        t = 3 * mp.mpf(x)
        exact = sum((-1) ** k * math.comb(3, k) * (t - k) ** 3 for k in range(int(t) + 1)) / 6
        assert abs(ref_cdf(x, a, b, w) - float(exact)) < 1e-13
    assert ref_ppf(0.5, a, b, w) == pytest.approx(0.5, abs=1e-13)


def test_three_squares_ball_octant():
    a, b, w = [0.5] * 3, [1.0] * 3, [1.0] * 3
    for x in (0.2, 0.7):
        exact = mp.pi / 6 * mp.mpf(x) ** 1.5
        assert abs(ref_cdf(x, a, b, w) - float(exact)) < 1e-13


def test_three_components_with_logarithmic_kink():
    # T = U1^2 + U2^2 - U3^2:  P(T <= d) = int_0^1 P(U1^2 + U2^2 <= d + u^2) du
    a, b, w = [0.5] * 3, [1.0] * 3, [1.0, 1.0, -1.0]
    for d in (-0.2, 0.4, 1.1):
        d_ = mp.mpf(d)
        cuts = [mp.zero, mp.one]
        for k in (0, 1, 2):
            if 0 < k - d_ < 1:
                cuts.append(mp.sqrt(k - d_))
        exact = mp.quad(lambda u, d_=d_: _quarter_disc(d_ + u * u), sorted(cuts))
        assert abs(ref_cdf(d, a, b, w) - float(exact)) < 1e-12


@pytest.mark.slow  # a long check against an independent reference
def test_three_component_jeffreys_against_monte_carlo():
    a, b, w = [0.5, 10.5, 40.5], [10.5, 0.5, 0.5], [1 / 3] * 3
    draws = mc_sample(a, b, w, 400_000, seed=11)
    m, v = ref_mean_var(a, b, w)
    for z in (-1.0, 0.0, 1.0):
        x = m + z * math.sqrt(v)
        p, se = mc_cdf(x, draws)
        assert abs(ref_cdf(x, a, b, w) - p) < 4 * se


# ---------------------------------------------------------------- (iv) moments


@pytest.mark.slow  # a long statistical check (the full run has it)
def test_moments_of_the_density_match_closed_form():
    a, b, w = [3.0, 5.5], [7.0, 2.5], [0.5, -0.3]
    m, v = ref_mean_var(a, b, w)
    ctx = mpmath.MPContext()
    ctx.dps = 15
    knots = [-0.3, 0.0, 0.2, 0.5]  # sums of support end points

    def moment(k):
        return ctx.quad(lambda x: x**k * ref_pdf(float(x), a, b, w, dps=20), knots)

    assert float(moment(0)) == pytest.approx(1.0, abs=1e-12)
    mean = float(moment(1))
    assert mean == pytest.approx(m, abs=1e-12)
    assert float(moment(2)) - mean**2 == pytest.approx(v, rel=1e-10)


def test_mean_var_closed_form():
    m, v = ref_mean_var([3, 1e9 + 1], [2, 1], [0.25, -0.75])
    assert m == pytest.approx(0.25 * 3 / 5 - 0.75 * (1e9 + 1) / (1e9 + 2), rel=1e-15)
    v_exact = 0.25**2 * 6 / (25 * 6) + 0.75**2 * (1e9 + 1) / ((1e9 + 2) ** 2 * (1e9 + 3))
    assert v == pytest.approx(v_exact, rel=1e-14)


# ---------------------------------------------------------------- (v) huge parameters


def test_huge_parameters_normal_and_monte_carlo():
    a, b, w = [1e6 + 1, 9e5 + 1], [1.0, 1e5 + 1], [0.5, 0.5]
    m, v = ref_mean_var(a, b, w)
    sd = math.sqrt(v)
    draws = mc_sample(a, b, w, 2_000_000, seed=2024)
    for z in (-1.0, 1.0):
        x = m + z * sd
        got = ref_cdf(x, a, b, w)
        assert got == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)), abs=1e-2)
        p, se = mc_cdf(x, draws)
        assert abs(got - p) < 4 * se
    for q in (0.025, 0.5, 0.975):
        x = ref_ppf(q, a, b, w)
        assert ref_cdf(x, a, b, w) == pytest.approx(q, abs=1e-12)
    assert abs(ref_mode(a, b, w) - m) < 0.05 * sd


# ---------------------------------------------------------------- (vi) empty class + 1e6


def _empty_plus_perfect(x, a):
    """S = U/2 + X/2, X ~ Beta(a, 1):  P(S <= x) = E[clip(2x - X, 0, 1)] and density."""
    x = mp.mpf(x)
    a = mp.mpf(a)
    s1 = min(max(2 * x - 1, mp.zero), mp.one)
    s2 = min(max(2 * x, mp.zero), mp.one)
    cdf = s1**a + 2 * x * (s2**a - s1**a) - a / (a + 1) * (s2 ** (a + 1) - s1 ** (a + 1))
    return cdf, 2 * (s2**a - s1**a)


def test_empty_class_plus_a_million_correct():
    big = 1e6 + 1
    a, b, w = [1.0, big], [1.0, 1.0], [0.5, 0.5]
    for x in (0.25, 0.4999995, 0.49999995, 0.5, 0.6, 0.75, 0.9999995, 0.99999999):
        cdf, dens = _empty_plus_perfect(x, big)
        assert ref_cdf(x, a, b, w) == pytest.approx(float(cdf), rel=1e-13, abs=1e-15)
        assert ref_pdf(x, a, b, w) == pytest.approx(float(dens), rel=1e-12, abs=1e-15)
    # flat-topped density: the supremum is at the kink 0.5
    assert ref_mode(a, b, w) == pytest.approx(0.5, abs=1e-6)
    assert ref_ppf(0.5, a, b, w) == pytest.approx(0.5 * (1 + big / (big + 1)) - 0.25, abs=1e-12)


# ---------------------------------------------------------------- consistency


@pytest.mark.parametrize(
    ("a", "b", "w"),
    [
        ([43.0, 5.0], [4.0, 7.0], [0.5, 0.5]),
        ([0.5, 40.5], [40.5, 0.5], [0.5, 0.5]),
        ([38.0, 7.0], [22.0, 13.0], [0.7, -0.3]),
        ([999_999_001.0, 8.0], [1001.0, 4.0], [0.5, 0.5]),
        ([21.0, 16.0, 31.0], [4.0, 6.0, 2.0], [0.5, 0.3, 0.2]),
    ],
)
def test_ppf_inverts_cdf_and_pdf_is_its_derivative(a, b, w):
    m, v = ref_mean_var(a, b, w)
    sd = math.sqrt(v)
    for q in (0.001, 0.3, 0.975):
        x = ref_ppf(q, a, b, w)
        # the float x is within 1 ulp of the root
        slack = 4 * ref_pdf(x, a, b, w) * math.ulp(abs(x)) + 1e-14
        assert abs(ref_cdf(x, a, b, w) - q) < slack
    x0 = m + 0.37 * sd
    h = 1e-4 * sd
    deriv = (ref_cdf(x0 + h, a, b, w) - ref_cdf(x0 - h, a, b, w)) / (2 * h)
    assert deriv == pytest.approx(ref_pdf(x0, a, b, w), rel=1e-6)
    md = ref_mode(a, b, w)
    pm = ref_pdf(md, a, b, w)
    assert pm >= ref_pdf(md - 1e-3 * sd, a, b, w)
    assert pm >= ref_pdf(md + 1e-3 * sd, a, b, w)
    assert ref_sf(x0, a, b, w) == pytest.approx(1 - ref_cdf(x0, a, b, w), abs=1e-14)


def test_precision_argument_is_consistent():
    a, b, w = [13.5, 2.5], [3.5, 9.5], [0.5, 0.5]
    lo = ref_cdf(0.45, a, b, w, dps=20)
    hi = ref_cdf(0.45, a, b, w, dps=40)
    assert lo == hi or abs(lo - hi) < 1e-16


def test_four_components_against_monte_carlo():
    a, b, w = [43.0, 5.0, 30.0, 12.0], [4.0, 7.0, 10.0, 9.0], [0.5, 0.5, -0.5, -0.5]
    draws = mc_sample(a, b, w, 400_000, seed=5)
    p, se = mc_cdf(0.05, draws)
    assert abs(ref_cdf(0.05, a, b, w) - p) < 4 * se


def test_one_component_mode_and_ppf():
    assert ref_mode([5.0], [3.0], [1.0]) == pytest.approx(4 / 6, rel=1e-15)
    assert ref_mode([5.0], [3.0], [-2.0]) == pytest.approx(-2 * 4 / 6, rel=1e-15)
    assert ref_mode([0.5], [3.0], [1.0]) == 0.0
    q = 0.123
    x = ref_ppf(q, [2.5], [7.5], [1.0])
    assert float(betainc(2.5, 7.5, x)) == pytest.approx(q, rel=1e-14)


# ---------------------------------------------------------------- Monte Carlo helpers


def test_monte_carlo_helpers():
    d1 = mc_sample([2, 3], [5, 1], [0.5, -1.0], 1000, seed=3)
    d2 = mc_sample([2, 3], [5, 1], [0.5, -1.0], 1000, seed=3)
    assert d1.shape == (1000,)
    assert np.array_equal(d1, d2)
    p, se = mc_cdf(0.0, np.array([-1.0, 0.0, 1.0, 2.0]))
    assert p == 0.5
    assert se == pytest.approx(math.sqrt(2.5 / 5 * (1 - 2.5 / 5) / 4))
    ps, ses = mc_cdf(np.array([-5.0, 5.0]), d1)
    assert ps.tolist() == [0.0, 1.0]
    assert np.all(ses > 0)


def test_input_validation():
    with pytest.raises(ValueError):
        ref_cdf(0.5, [1, 2], [1], [1, 1])
    with pytest.raises(ValueError):
        ref_cdf(0.5, [0.0], [1.0], [1.0])
    with pytest.raises(ValueError):
        ref_cdf(0.5, [1.0], [1.0], [0.0])
    with pytest.raises(ValueError):
        ref_cdf(0.5, [1.0] * 5, [1.0] * 5, [0.2] * 5)
    with pytest.raises(ValueError):
        ref_ppf(1.0, [2.0], [2.0], [1.0])
