"""Beta quantiles are verified against the CDF, where scipy's inverse is not."""

import mpmath as mp
import numpy as np
import pytest
from scipy import special as sc

from bacc import BetaPosterior
from bacc._engine import beta as _beta
from bacc._engine.beta import beta_isf, beta_ppf


def mp_beta_cdf(x, a, b):
    """Beta CDF by mpmath: betainc for moderate parameters, else quadrature of the density.

    mpmath's hypergeometric series does not converge for parameters near 1e9; there the CDF is
    the integral of the (log-space) density from far in the left tail.
    """
    a, b, x = mp.mpf(a), mp.mpf(b), mp.mpf(x)
    if a + b < 1e5:
        return mp.betainc(a, b, 0, x, regularized=True)
    mean = a / (a + b)
    sd = mp.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    logc = mp.loggamma(a + b) - mp.loggamma(a) - mp.loggamma(b)

    def dens(t):
        return mp.exp((a - 1) * mp.log(t) + (b - 1) * mp.log(1 - t) + logc)

    lo = max(mp.mpf(0), mean - 60 * sd)
    if x <= lo:
        return mp.mpf(0)
    pts = [lo] + [mean + k * sd for k in range(-50, 60, 10) if lo < mean + k * sd < x] + [x]
    return mp.quad(dens, pts)


def mp_beta_ppf(q, a, b, dps=40):
    with mp.workdps(dps):
        a_, b_, q_ = mp.mpf(a), mp.mpf(b), mp.mpf(q)
        mean = a_ / (a_ + b_)
        sd = mp.sqrt(a_ * b_ / ((a_ + b_) ** 2 * (a_ + b_ + 1)))

        def f(x):
            return mp_beta_cdf(x, a, b) - q_

        lo, hi = mp.mpf(0), mp.mpf(1)
        for k in (8, 40, 200):
            lo_c, hi_c = max(mp.mpf(0), mean - k * sd), min(mp.mpf(1), mean + k * sd)
            if f(lo_c) <= 0 <= f(hi_c):
                lo, hi = lo_c, hi_c
                break
        # bisection to 1e-6 standard deviations (the bar tested is 1e-3 sd)
        while hi - lo > min(sd * mp.mpf(10) ** (-6), mp.mpf(10) ** (-10)):
            mid = (lo + hi) / 2
            if f(mid) > 0:
                hi = mid
            else:
                lo = mid
        return (lo + hi) / 2, sd


def test_scipy_median_is_wrong_at_large_parameters_and_ours_is_not():
    # DESIGN.md section 3: scipy puts the median where the CDF is 2e-115
    bad = sc.betaincinv(999999001, 1000, 0.5)
    assert sc.betainc(999999001, 1000, bad) < 1e-100
    x = beta_ppf(0.5, 999999001, 1000)
    ref, sd = mp_beta_ppf(0.5, 999999001, 1000)
    assert abs(x - float(ref)) <= 1e-3 * float(sd)
    assert abs(x - 0.999999000333) < 1e-11


CASES = [
    (1, 1),
    (0.5, 0.5),
    (43, 4),
    (5, 7),
    (1, 1e6 + 1),
    (1e9 + 1, 1),
    (0.5, 1e9 + 0.5),
    (999999001, 1000),
    (1e6, 1e3),
    (3e11, 2e11),
]


@pytest.mark.parametrize(("a", "b"), CASES)
@pytest.mark.parametrize("q", [0.001, 0.025, 0.5, 0.975, 0.999])
def test_beta_ppf_matches_mpmath(a, b, q):
    ref, sd = mp_beta_ppf(q, a, b)
    x = beta_ppf(q, a, b)
    # the smaller of 1e-7 and 0.1 % of the standard deviation, but never finer than 2 ulp
    tol = max(min(1e-7, 1e-3 * float(sd)), 4 * np.spacing(float(ref)))
    assert abs(x - float(ref)) <= tol


@pytest.mark.parametrize(("a", "b"), CASES)
def test_isf_is_the_upper_quantile(a, b):
    for p in (0.001, 0.3, 0.975):
        x1 = beta_isf(p, a, b)
        x2 = beta_ppf(1 - p, a, b)
        sd = np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        assert abs(x1 - x2) <= max(1e-3 * sd, 4 * np.spacing(x2))


def test_edge_probabilities():
    assert beta_ppf(0.0, 3, 4) == 0.0 and beta_ppf(1.0, 3, 4) == 1.0
    assert beta_isf(0.0, 3, 4) == 1.0 and beta_isf(1.0, 3, 4) == 0.0


def test_posterior_accuracy_mode_is_sample_accuracy_under_flat_prior():
    # Brodersen et al. (2010) eq. 5: mode = C / (C + I)
    post = BetaPosterior(46 + 1, 9 + 1)
    assert post.mode() == pytest.approx(46 / 55, abs=1e-15)
    assert post.mean() == pytest.approx(47 / 57, abs=1e-15)  # eq. 3


def test_beta_tails_equal_scipy_in_both_tails():
    a, b = np.array([3.0, 0.5, 250.0, 1e6]), np.array([7.0, 0.5, 40.0, 2e6])
    x = np.linspace(0.0, 1.0, 2001)[:, None]
    F, S = _beta.beta_tails(a, b, x)
    assert np.allclose(F, sc.betainc(a, b, x), rtol=1e-12, atol=1e-15)
    # the upper tail keeps its relative precision where 1 - F would round to 0
    assert np.allclose(S, sc.betaincc(a, b, x), rtol=1e-10, atol=1e-300)


def test_beta_tail_span_holds_the_tail_mass_even_where_scipy_inverse_fails():
    a = np.array([5.0, 999999001.0, 0.5])
    b = np.array([7.0, 1000.0, 0.5])
    lo, hi = _beta.beta_tail_span(a, b, 1e-14)
    assert np.allclose(sc.betainc(a, b, lo), 1e-14, rtol=1e-6)
    assert np.allclose(sc.betaincc(a, b, hi), 1e-14, rtol=1e-6)
