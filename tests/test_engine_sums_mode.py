"""The posterior mode is where the density peaks: exactly at kinks and singular points, within
1e-6 standard deviations at smooth peaks.

References, all independent of bacc: the exact corner where the components' ends meet (kinks
and singular points, by the argument in ``bacc._engine.sums.mode``), scipy's adaptive quadrature of a
two-class density with a bounded scalar search, and the Gil-Pelaez reference
(``tests/references/reference_cf.py``: ``ref_mode_cf``, the zero of the reference density's slope).
"""

from __future__ import annotations

import numpy as np
import pytest
from references.reference_cf import ref_mode_cf
from scipy import integrate, optimize, stats

import bacc


def _two_class_mode(a0, b0, a1, b1, w0, bracket):
    X, Y = stats.beta(a0, b0), stats.beta(a1, b1)
    w1 = 1.0 - w0

    def dens(x):
        lo, hi = max(0.0, (x - w0) / w1), min(1.0, x / w1)
        if hi <= lo:
            return 0.0
        return integrate.quad(lambda t: X.pdf((x - w1 * t) / w0) / w0 * Y.pdf(t), lo, hi,
                              epsabs=1e-14, epsrel=1e-12, limit=200)[0]  # fmt: skip

    return float(optimize.minimize_scalar(lambda x: -dens(x), bounds=bracket, method="bounded",
                                          options={"xatol": 1e-13}).x)  # fmt: skip


@pytest.mark.parametrize(
    ("matrix", "prior", "weights", "exact"),
    [
        ([[12, 0], [9, 0]], "flat", None, 0.5),  # perfect beside all wrong: a kink
        ([[1000, 0], [1, 0]], "flat", None, 0.5),  # one class of 1 beside 1000
        ([[7, 0], [3, 0]], "jeffreys", None, 0.5),  # a log-singular peak
        ([[5, 0], [0, 5]], "jeffreys", None, 1.0),  # singular at the end of the support
        ([[12, 0], [9, 0]], "flat", [0.3, 0.7], 0.3),  # weighted: the corner moves with them
    ],
)
def test_the_mode_is_exactly_the_corner_where_the_density_peaks(matrix, prior, weights, exact):
    e = bacc.evaluate(matrix, prior=prior, weights=weights)
    d = e.balanced_accuracy
    assert d.mode() == pytest.approx(exact, abs=1e-15)
    assert e.balanced_accuracy_summary.mode == pytest.approx(exact, abs=1e-15)
    # the density is higher there than anywhere near it; at an end of the support where it
    # diverges, it rises all the way to the end
    sd = d.std()
    lo, hi = d.support()
    if exact in (lo, hi):
        side = 1.0 if exact == lo else -1.0
        f = d.pdf(exact + side * sd * np.array([1e-6, 1e-4, 1e-2]))
        assert f[0] >= f[1] >= f[2] > 0
    else:
        near = exact + sd * np.array([-1e-2, -1e-3, 1e-3, 1e-2])
        assert np.all(d.pdf(near) <= d.pdf(exact))


def test_one_tiny_class_beside_thousands_peaks_where_the_density_is_positive():
    for n in (1, 2, 3):
        d = bacc.evaluate([[1000, 0], [n, 0]]).balanced_accuracy
        m = d.mode()
        assert m == 0.5
        assert d.pdf(m - 1e-4) > 0


def test_a_perfect_class_beside_a_perfect_class_peaks_inside():
    # both densities jump at 1: the sum's density vanishes there and peaks inside
    d = bacc.evaluate([[12, 0], [0, 9]]).balanced_accuracy
    ref = _two_class_mode(13, 1, 10, 1, 0.5, (0.95, 0.96))
    assert abs(d.mode() - ref) <= 1e-6 * d.std()


@pytest.mark.parametrize(
    ("a", "b", "w"),
    [
        ([43, 5], [4, 7], [0.5, 0.5]),
        ([13, 4], [1, 8], [0.5, 0.5]),  # a jump at one end
        ([13.5, 4.5], [0.5, 8.5], [0.25, 0.75]),  # a singular end, weighted
        ([3, 7e6, 8e7], [2, 3e6, 2e7], [1 / 3] * 3),  # mixed sizes
        ([4, 9e6, 9e7], [1, 1e6 + 1, 1e7], [1 / 3] * 3),  # mixed sizes, a perfect class
        ([2.5, 30.5, 200.5, 5.5], [1.5, 2.5, 60.5, 0.5], [0.25] * 4),
    ],
)
def test_the_mode_is_within_1e6_sd_of_the_reference(a, b, w):
    a, b, w = (np.asarray(v, dtype=float) for v in (a, b, w))
    d = bacc.BetaSum(a, b, w)
    assert abs(d.mode() - ref_mode_cf(a, b, w)) <= 1e-6 * d.std()


def test_random_small_posteriors_have_their_mode_at_the_highest_density():
    rng = np.random.default_rng(11)
    for _ in range(25):
        m = int(rng.integers(2, 5))
        n = rng.integers(1, 60, m)
        r = rng.random(m)
        k = np.where(r < 0.3, n, np.where(r < 0.45, 0, rng.integers(0, n + 1)))
        cm = np.diag(k)
        cm[np.arange(m), (np.arange(m) + 1) % m] += n - k
        for prior in ("flat", "jeffreys"):
            d = bacc.evaluate(cm, prior=prior).balanced_accuracy
            x = d.mode()
            lo, hi = d.support()
            grid = np.linspace(lo, hi, 4001)[1:-1]
            f = d.pdf(grid)
            if x in (lo, hi):  # a singular end: the density rises towards it
                side = 1.0 if x == lo else -1.0
                g = d.pdf(x + side * d.std() * np.array([1e-6, 1e-3]))
                assert g[0] >= g[1] >= f.max() * (1 - 1e-7), (cm.tolist(), prior, x)
            else:
                # no grid point is noticeably higher
                assert d.pdf(x) >= f.max() * (1 - 1e-7), (cm.tolist(), prior, x)


@pytest.mark.parametrize(("a", "b"), [(2.5, 7.0), (40.0, 3.0), (300.0, 299.0), (1.2, 1.9)])
def test_a_smooth_peak_is_found_by_newton_steps_to_the_closed_form(a, b):
    """A smooth density with no candidate near its peak: the Newton path of ``find_mode``
    gives the closed-form mode of a Beta law, ``(a - 1) / (a + b - 2)``, within 1e-8 sd, from
    fewer density values than the zoom (which is what a kink beside the peak gets)."""
    from bacc._engine.sums.mode import find_mode

    law = stats.beta(a, b)
    exact = (a - 1.0) / (a + b - 2.0)
    sd = law.std()
    counted = []

    def pdf(x):
        x = np.atleast_1d(x)
        counted.append(x.size)
        return law.pdf(x)

    smooth = find_mode(pdf, 0.0, 1.0, law.mean(), sd, np.array([]))
    n_smooth = sum(counted)
    counted.clear()
    # a candidate beside the peak (not at it) sends the search down the zoom
    zoom = find_mode(pdf, 0.0, 1.0, law.mean(), sd, np.array([exact + 0.3 * sd]))
    n_zoom = sum(counted)
    assert abs(smooth - exact) <= 1e-8 * sd
    assert abs(zoom - exact) <= 1e-6 * sd
    assert n_smooth < 0.6 * n_zoom


@pytest.mark.parametrize(("peak", "spacing"), [(0.2, (1.0, 1.0)), (-0.35, (0.5, 1.5)), (0.9, (2.0, 1.0))])
def test_the_newton_path_starts_at_the_vertex_of_the_grid_parabola(peak, spacing):
    """On a parabola the vertex through three grid values (equally spaced or not) is the peak
    itself: the first Newton step from it is below 1e-8 sd, so one evaluation of three values
    settles it."""
    from bacc._engine.sums.mode import _smooth_peak

    d1, d2 = spacing
    x3 = np.array([-d1, 0.0, d2])
    calls = []

    def value(x):
        x = np.asarray(x, dtype=float)
        calls.append(x.size)
        return 10.0 - (x - peak) ** 2

    x, broad = _smooth_peak(value, x3, value(x3), 1.0, False)
    calls.pop(0)  # the grid values themselves
    assert x == pytest.approx(peak, abs=1e-12) and not broad
    assert calls == [3]
