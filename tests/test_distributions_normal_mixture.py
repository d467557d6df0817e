"""Claims of ``bacc.distributions.NormalMixture`` (the posterior of a difference across data sets).

References, independent of the class:

* one component: ``scipy.stats.norm`` (cdf, sf, pdf, ppf, isf, moments, mode, intervals);
* three components: the density written here as a sum of ``scipy.stats.norm.pdf``, integrated
  by adaptive ``scipy.integrate.quad`` (cdf, sf, mean, variance), inverted by ``brentq``
  (quantiles) and maximised on a fine grid refined by a bounded scalar search (mode);
* draws: the moments of the mixture within Monte Carlo error, and Kolmogorov-Smirnov.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from bacc import BaccError
from bacc.distributions import NormalMixture

W3 = np.array([0.2, 0.5, 0.3])
MU3 = np.array([-1.0, 0.5, 3.0])
SD3 = np.array([0.3, 1.0, 0.5])


def ref_pdf(x, w=W3, mu=MU3, sd=SD3):
    out = np.sum(w * stats.norm.pdf(np.asarray(x, dtype=float)[..., None], mu, sd), axis=-1)
    return float(out) if np.ndim(x) == 0 else out


def ref_cdf(x, w=W3, mu=MU3, sd=SD3):
    # integrate the density from far left; split at the component means for quad
    pts = sorted(m for m in mu if m < x)
    edges = [-np.inf, *pts, x]
    return sum(
        integrate.quad(ref_pdf, a, b, args=(w, mu, sd), epsabs=1e-15, epsrel=1e-13, limit=200)[0]
        for a, b in zip(edges[:-1], edges[1:], strict=True)
    )


def ref_sf(x, w=W3, mu=MU3, sd=SD3):
    pts = sorted(m for m in mu if m > x)
    edges = [x, *pts, np.inf]
    return sum(
        integrate.quad(ref_pdf, a, b, args=(w, mu, sd), epsabs=1e-300, epsrel=1e-12, limit=200)[0]
        for a, b in zip(edges[:-1], edges[1:], strict=True)
    )


# ------------------------------------------------------------------------------ one component
@pytest.mark.parametrize(("mu", "sd"), [(0.0, 1.0), (0.0123, 0.004), (-3.5, 2.5)])
def test_one_component_is_the_normal(mu, sd):
    mix = NormalMixture([1.0], [mu], [sd])
    ref = stats.norm(mu, sd)
    x = mu + sd * np.array([-37.0, -8.0, -2.0, -0.3, 0.0, 0.7, 3.0, 8.0, 37.0])
    np.testing.assert_allclose(mix.cdf(x), ref.cdf(x), rtol=1e-13, atol=0)
    np.testing.assert_allclose(mix.sf(x), ref.sf(x), rtol=1e-13, atol=0)
    np.testing.assert_allclose(mix.pdf(x), ref.pdf(x), rtol=1e-13, atol=0)
    np.testing.assert_allclose(mix.logpdf(x[2:-2]), ref.logpdf(x[2:-2]), rtol=1e-13, atol=1e-13)
    q = np.array([1e-300, 1e-20, 0.025, 0.3, 0.5, 0.9, 0.975])
    np.testing.assert_allclose(mix.ppf(q), ref.ppf(q), rtol=1e-12, atol=1e-12 * max(1.0, abs(mu)))
    np.testing.assert_allclose(mix.isf(q), ref.isf(q), rtol=1e-12, atol=1e-12 * max(1.0, abs(mu)))
    assert mix.mean() == pytest.approx(mu, abs=1e-15)
    assert mix.var() == pytest.approx(sd * sd, rel=1e-14)
    assert mix.std() == pytest.approx(sd, rel=1e-14)
    assert mix.median() == pytest.approx(mu, abs=1e-12 * max(1.0, abs(mu)))
    # the density is flat at the top: doubles resolve the peak to about 1e-8 sd
    assert mix.mode() == pytest.approx(mu, abs=1e-7 * sd)
    lo, hi = mix.interval(0.95)
    assert (lo, hi) == pytest.approx(ref.interval(0.95), abs=1e-12 * max(1.0, abs(mu)))
    lo, hi = mix.interval(0.9, kind="hdi")
    assert (lo, hi) == pytest.approx(ref.interval(0.9), abs=1e-6 * sd)
    assert mix.p_above(mu + sd) == pytest.approx(ref.sf(mu + sd), rel=1e-13)
    assert mix.support() == (-np.inf, np.inf)


def test_scalar_in_scalar_out_and_edges_of_the_quantiles():
    mix = NormalMixture(W3, MU3, SD3)
    assert isinstance(mix.cdf(0.1), float) and isinstance(mix.ppf(0.2), float)
    assert mix.ppf(0.0) == -np.inf and mix.ppf(1.0) == np.inf
    assert mix.isf(0.0) == np.inf and mix.isf(1.0) == -np.inf
    with pytest.raises(BaccError):
        mix.ppf(1.5)
    with pytest.raises(BaccError):
        mix.isf(-0.1)


# ----------------------------------------------------------------------------- three components
def test_three_components_against_quadrature():
    mix = NormalMixture(W3, MU3, SD3)
    assert integrate.quad(ref_pdf, -np.inf, np.inf, epsabs=1e-14)[0] == pytest.approx(
        1.0, abs=1e-12
    )
    for x in (-2.5, -1.0, -0.4, 0.5, 1.7, 3.0, 4.2):
        assert mix.pdf(x) == pytest.approx(ref_pdf(x), rel=1e-13)
        assert mix.cdf(x) == pytest.approx(ref_cdf(x), rel=1e-11, abs=1e-14)
        assert mix.sf(x) == pytest.approx(ref_sf(x), rel=1e-11, abs=1e-14)
    # far tails: no cancellation in sf, none in cdf
    assert mix.sf(9.0) == pytest.approx(ref_sf(9.0), rel=1e-9)
    assert mix.cdf(-5.0) == pytest.approx(ref_cdf(-5.0), rel=1e-9)
    mean = integrate.quad(lambda x: x * ref_pdf(x), -np.inf, np.inf, epsabs=1e-14)[0]
    var = integrate.quad(lambda x: (x - mean) ** 2 * ref_pdf(x), -np.inf, np.inf, epsabs=1e-14)[0]
    assert mix.mean() == pytest.approx(mean, abs=1e-11)
    assert mix.var() == pytest.approx(var, rel=1e-11)


def test_three_components_quantiles_and_mode():
    mix = NormalMixture(W3, MU3, SD3)
    for q in (1e-12, 0.01, 0.2, 0.5, 0.7, 0.99):
        x = optimize.brentq(lambda t, q=q: ref_cdf(t) - q, -12.0, 12.0, xtol=1e-14, rtol=1e-14)
        assert mix.ppf(q) == pytest.approx(x, abs=1e-10)
    for q in (1e-40, 1e-8, 0.3):
        x = optimize.brentq(
            lambda t, q=q: np.log(ref_sf(t)) - np.log(q), -12.0, 20.0, xtol=1e-14, rtol=1e-14
        )
        assert mix.isf(q) == pytest.approx(x, abs=1e-9)
    # mode: the highest of the local maxima of the density (here near -1: 0.2/0.3 > 0.3/0.5)
    grid = np.linspace(-4, 6, 100_001)
    i = int(np.argmax(ref_pdf(grid)))
    res = optimize.minimize_scalar(
        lambda t: -ref_pdf(t),
        bounds=(grid[i - 10], grid[i + 10]),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert mix.mode() == pytest.approx(res.x, abs=1e-6)
    assert ref_pdf(mix.mode()) >= ref_pdf(res.x) * (1 - 1e-12)


def test_round_trips():
    mix = NormalMixture(W3, MU3, SD3)
    # each where its probability is not near 1 (there a double cannot tell nearby x apart)
    x = np.linspace(-6.0, 2.0, 33)
    np.testing.assert_allclose(mix.ppf(mix.cdf(x)), x, atol=1e-9)
    x = np.linspace(-1.0, 8.0, 37)
    np.testing.assert_allclose(mix.isf(mix.sf(x)), x, atol=1e-9)
    far = np.array([-20.0, -12.0])  # cdf ~ 1e-90 and below: ppf still inverts
    np.testing.assert_allclose(mix.ppf(mix.cdf(far)), far, rtol=1e-11)
    far = np.array([12.0, 25.0])
    np.testing.assert_allclose(mix.isf(mix.sf(far)), far, rtol=1e-11)
    q = np.array([0.001, 0.25, 0.5, 0.75, 0.999])
    np.testing.assert_allclose(mix.cdf(mix.ppf(q)), q, rtol=1e-12)


def test_zero_weight_components_are_dropped_and_weights_normalised():
    a = NormalMixture([2.0, 0.0, 6.0], [0.0, 100.0, 1.0], [1.0, 5.0, 2.0])
    b = NormalMixture([0.25, 0.75], [0.0, 1.0], [1.0, 2.0])
    x = np.linspace(-5, 7, 13)
    np.testing.assert_allclose(a.cdf(x), b.cdf(x), rtol=1e-15)
    np.testing.assert_allclose(a.weights, [0.25, 0.75], rtol=1e-15)
    assert a.mean() == pytest.approx(0.75, abs=1e-15)


def test_immutable():
    mix = NormalMixture(W3, MU3, SD3)
    with pytest.raises(AttributeError):
        mix.weights = np.ones(3) / 3
    with pytest.raises(ValueError):
        mix.means[0] = 5.0


# -------------------------------------------------------------------------------------- draws
def test_draws_reproducible_and_match_the_moments():
    mix = NormalMixture(W3, MU3, SD3)
    a = mix.rvs(size=200_000, random_state=11)
    b = mix.rvs(size=200_000, random_state=11)
    assert np.array_equal(a, b)
    assert not np.array_equal(a[:100], mix.rvs(size=100, random_state=12))
    assert isinstance(mix.rvs(random_state=3), float)
    assert mix.rvs(size=(3, 4), random_state=3).shape == (3, 4)
    n = a.size
    m, v = mix.mean(), mix.var()
    # fourth central moment of the mixture (for the sd of the sample variance)
    c = MU3 - m
    m4 = float(np.sum(W3 * (c**4 + 6 * c**2 * SD3**2 + 3 * SD3**4)))
    assert abs(a.mean() - m) < 5 * np.sqrt(v / n)
    assert abs(a.var() - v) < 5 * np.sqrt((m4 - v * v) / n)
    assert stats.kstest(a[:20_000], mix.cdf).pvalue > 1e-4
    # the component frequencies
    frac_left = np.mean(a < -0.25)
    assert abs(frac_left - mix.cdf(-0.25)) < 5 * np.sqrt(mix.cdf(-0.25) * mix.sf(-0.25) / n)


# ------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("w", "mu", "sd"),
    [
        ([0.5, -0.5, 1.0], [0, 1, 2], [1, 1, 1]),  # negative weight
        ([0.0, 0.0], [0, 1], [1, 1]),  # no weight
        ([1.0], [0.0], [0.0]),  # zero sd
        ([0.5, 0.5], [0, 1], [1, -1]),  # negative sd
        ([0.5, 0.5], [0, 1], [1]),  # lengths differ
        ([], [], []),  # empty
        ([np.nan, 1.0], [0, 1], [1, 1]),  # NaN weight
        ([1.0], [np.inf], [1.0]),  # infinite mean
        ([1.0], [0.0], [np.inf]),  # infinite sd
    ],
)
def test_bad_components_raise(w, mu, sd):
    with pytest.raises(BaccError):
        NormalMixture(w, mu, sd)


def test_mode_finds_a_narrow_dominant_component():
    w, mu, sd = np.array([0.4, 0.3, 0.3]), np.array([5.3001, 0.0, 10.0]), np.array([1e-4, 1.0, 1.0])
    mix = NormalMixture(w, mu, sd)
    # the narrow component's peak density (0.4 / (1e-4 sqrt(2 pi)) ~ 1596) exceeds anything else
    # (the wide ones reach 0.3 / sqrt(2 pi) ~ 0.12): the mode is within a small fraction of its sd
    assert ref_pdf(5.3001, w, mu, sd) > 1000 * ref_pdf(0.0, w, mu, sd)
    assert mix.mode() == pytest.approx(5.3001, abs=1e-6)
