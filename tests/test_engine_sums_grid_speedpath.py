"""The fast lattice path of BetaSum (bacc._grid) and the helpers it relies on.

Checks the pieces separately (stop-loss excess, fourth-order masses, blocked convolution tree,
precomputed stencils, single-lattice path for smooth sums) and end to end against finer lattices
and the mpmath reference, including 1e9 examples per class and 1000 classes.
"""

import warnings

import numpy as np
import pytest
from references.reference import ref_cdf
from scipy import integrate
from scipy import special as sc

import bacc
from bacc import BetaSum
from bacc._engine import beta as _beta
from bacc._engine.sums import lattice as _grid
from bacc.comparison import compare


def _params(correct, support, prior=(1.0, 1.0)):
    k, n = np.asarray(correct, float), np.asarray(support, float)
    return k + prior[0], n - k + prior[1]


def _bench_1000():
    """The 1000-class matrix of benchmarks/bench_posterior.py, as Beta components."""
    rng = np.random.default_rng(1)
    for n_classes in (10, 1000):
        n = rng.integers(20, 200, n_classes)
        k = rng.binomial(n, 0.8)
    return k + 1.0, n - k + 1.0, np.full(1000, 1e-3)


# ----------------------------------------------------------------------------------------------
# stop-loss transform
@pytest.mark.parametrize("a, b", [(12.0, 19.0), (0.5, 10.5), (1.0, 1.0), (40.5, 0.5)])
def test_stoploss_is_the_integral_of_the_cdf_and_its_excess_drops_the_linear_part(a, b):
    mu = a / (a + b)
    for x in (0.05, 0.3, mu, 0.8, 0.99):
        g = _beta.beta_stoploss(x, a, b)
        exact, _ = integrate.quad(lambda t: sc.betainc(a, b, t), 0.0, x, epsabs=1e-15, limit=200)
        assert g == pytest.approx(exact, rel=1e-9, abs=1e-13)
        excess = _beta.beta_stoploss(x, a, b, excess=True)
        assert excess == pytest.approx(g - max(x - mu, 0.0), rel=1e-12, abs=1e-15)
    assert _beta.beta_stoploss(-0.5, a, b) == 0.0
    assert _beta.beta_stoploss(1.5, a, b) == pytest.approx(1.5 - mu)
    assert _beta.beta_stoploss(1.5, a, b, excess=True) == 0.0


def test_stoploss_rows_use_one_parameter_set_per_distribution():
    a, b = np.array([3.0, 50.0]), np.array([7.0, 2.0])
    x = np.array([0.2, 0.3, 0.9, 0.95])
    rows = np.array([0, 0, 1, 1])
    assert np.array_equal(
        _beta.beta_stoploss(x, a, b, rows=rows), _beta.beta_stoploss(x, a[rows], b[rows])
    )


@pytest.mark.parametrize("a, b", [(9e8 + 1, 1e8 + 1), (16.0, 1e9), (1e9, 3.5), (0.5, 20.5)])
def test_density_at_the_mean_keeps_full_precision_for_huge_parameters(a, b):
    import mpmath

    ctx = mpmath.mp.clone()
    ctx.dps = 40
    A, B = ctx.mpf(a), ctx.mpf(b)
    m = A / (A + B)
    exact = (A - 1) * ctx.log(m) + (B - 1) * ctx.log(1 - m) - ctx.log(ctx.beta(A, B))
    # the textbook formula loses ~1e-6 here at 1e9 examples; 1e-13 absolute in log f
    assert abs(_beta._log_density_at_mean(a, b) - float(exact)) < 1e-13


# ----------------------------------------------------------------------------------------------
# lattice masses
@pytest.mark.parametrize("per_sd", [4.0, 16.0, 1000.0])
def test_fourth_order_masses_keep_total_mean_and_variance(per_sd):
    a, b, w = np.array([12.0]), np.array([19.0]), np.array([0.01])
    mean = float(w[0] * a[0] / (a[0] + b[0]))
    var = float(w[0] ** 2 * a[0] * b[0] / ((a[0] + b[0]) ** 2 * (a[0] + b[0] + 1)))
    lo, hi = _beta.beta_tail_span(a, b, _grid._TAIL)
    h = np.sqrt(var) / per_sd
    for level, blocks in enumerate(_grid._lattice_masses(a, b, w, lo * w, hi * w, h, 2)):
        ((start, m),) = blocks
        x = (start[0] + np.arange(m.shape[1])) * h / 2**level
        assert m.sum() == pytest.approx(1.0, abs=1e-15)
        # the excess split leaves no rounding bias in the mean even 1000 steps per sd
        assert abs(m[0] @ x - mean) < 1e-15 * max(per_sd, 1.0) * w[0]
        # the filter removes the h^2 / 6 the triangular masses add to the variance
        assert abs(m[0] @ (x - mean) ** 2 - var) < 1e-4 * (h / 2**level) ** 2 + 1e-13 * var


def test_masses_of_a_perfect_class_stop_at_the_support_boundary():
    # Beta(21, 1): density jumps at 1; on a lattice holding w, the filter spills one point
    a, b, w = np.array([21.0]), np.array([1.0]), np.array([0.25])
    lo, hi = _beta.beta_tail_span(a, b, _grid._TAIL)
    h = 0.25 / 400
    ((start, m),) = _grid._lattice_masses(a, b, w, lo * w, hi * w, h, 1)[0]
    x = (start[0] + np.arange(m.shape[1])) * h
    assert np.all(m[0][x > w[0] + 1.5 * h] == 0.0)
    assert m[0] @ x == pytest.approx(0.25 * 21 / 22, abs=1e-15)


# ----------------------------------------------------------------------------------------------
# convolution tree
@pytest.mark.parametrize("n_rows", [1, 3, 8, 9, 40, 101])
def test_blocked_convolution_tree_matches_direct_convolution(n_rows):
    rng = np.random.default_rng(n_rows)
    pieces = []
    for _ in range(n_rows):
        # widths differing by more than a factor 2 (several blocks), a few negative masses
        width = int(rng.integers(3, 60))
        p = rng.uniform(0.0, 1.0, width)
        p[0] = -0.01
        pieces.append((int(rng.integers(-50, 50)), p / p.sum()))
    start, got = _grid._convolve_all(pieces)
    full = np.array([1.0])
    for _, p in pieces:
        full = np.convolve(full, p)
    want_start = sum(j for j, _ in pieces)
    off = start - want_start
    assert off >= 0
    assert np.allclose(got, full[off : off + got.size], atol=1e-14)
    assert abs(got.sum() - 1.0) < 1e-13
    # only tails below 1e-15 were trimmed
    assert np.sum(np.abs(full)) - np.sum(np.abs(full[off : off + got.size])) < 1e-13


def test_row_blocks_keep_widths_within_a_factor_two():
    widths = np.array([100, 90, 40, 30, 20, 19, 18, 10, 9])
    bounds = _grid._row_blocks(widths)
    assert bounds == [0, 2, 5, 8, 9]
    for r0, r1 in zip(bounds[:-1], bounds[1:], strict=True):
        assert widths[r1 - 1] >= 0.5 * widths[r0]


# ----------------------------------------------------------------------------------------------
# interpolation
def _reference_stencil(table, x):
    """The per-evaluation stencil search the table now precomputes per interval."""
    n = table.x.size
    i = np.clip(np.floor((x - table.x[0]) / table.h).astype(np.int64), 0, n - 2)
    best = np.clip(i - 2, 0, n - 6)
    cum = np.concatenate([[0], np.cumsum(table._bad)])
    chosen = np.full(i.shape, -1)
    for shift in (2, 1, 3, 0, 4, 5):
        s = np.clip(i - shift, 0, n - 6)
        ok = (s <= i) & (i + 1 <= s + 5) & (cum[s + 5] == cum[s + 1]) & (chosen < 0)
        chosen = np.where(ok, s, chosen)
    return np.where(chosen >= 0, chosen, best)


@pytest.mark.parametrize(
    "a, b, w",
    [
        (*_params([20, 0, 15], [20, 10, 18]), [1 / 3] * 3),
        (*_params([20, 15, 30], [23, 20, 31]), [0.5, 0.3, 0.2]),
        (*_params([42, 4, 40, 5], [45, 10, 45, 10]), [0.5, 0.5, -0.5, -0.5]),
    ],
)
def test_precomputed_stencils_match_the_per_point_search(a, b, w):
    d = BetaSum(a, b, w)
    d._prepare()
    table = d._grid
    assert table._bad.any()
    x = table.x[0] + (np.arange(3 * table.x.size) / 3.0 + 0.1) * table.h
    assert np.array_equal(table._stencil(x), _reference_stencil(table, x))
    # stencils never hold a break in their interior
    s = table._stencil(x)
    cum = np.concatenate([[0], np.cumsum(table._bad)])
    assert np.all(cum[s + 5] == cum[s + 1])


# ----------------------------------------------------------------------------------------------
# end to end
def test_smooth_sums_use_one_lattice_with_the_analytic_correction():
    smooth = BetaSum(*_params([30, 50, 70], [40, 60, 80]), [0.5, 0.3, 0.2])
    smooth._prepare()
    assert smooth._grid.smooth and smooth._grid.exponents == []
    rough = BetaSum(*_params([20, 0, 15], [20, 10, 18]), [1 / 3] * 3)  # perfect and empty
    rough._prepare()
    assert not rough._grid.smooth and 4.0 in rough._grid.exponents
    fine = BetaSum(*_params([30, 50, 70], [40, 60, 80]), [0.5, 0.3, 0.2], resolution=32)
    xs = fine.ppf(np.linspace(0.001, 0.999, 25))
    assert np.max(np.abs(smooth.cdf(xs) - fine.cdf(xs))) < 1e-11
    assert np.max(np.abs(smooth.pdf(xs) - fine.pdf(xs))) * smooth.std() < 1e-9


@pytest.mark.slow  # a long statistical check (the full run has it)
def test_a_billion_examples_per_class_is_within_1e9_of_mpmath():
    n = 10**9
    a = np.array([0.9 * n + 1, 0.8 * n + 1, 0.95 * n + 1])
    b = np.array([0.1 * n + 1, 0.2 * n + 1, 0.05 * n + 1])
    w = np.full(3, 1 / 3)
    d = BetaSum(a, b, w)
    for q in (0.1, 0.6):
        x = float(d.ppf(q))
        assert abs(d.cdf(x) - ref_cdf(x, a, b, w, dps=20)) < 1e-9


def test_thousand_classes_agree_with_a_four_times_finer_lattice():
    a, b, w = _bench_1000()
    d = BetaSum(a, b, w)
    fine = BetaSum(a, b, w, resolution=32)
    xs = fine.ppf(np.linspace(0.0005, 0.9995, 21))
    assert np.max(np.abs(d.cdf(xs) - fine.cdf(xs))) < 1e-9
    q = np.array([0.025, 0.5, 0.975])
    assert np.max(np.abs(d.ppf(q) - fine.ppf(q))) < 1e-4 * d.std()


def test_many_small_classes_with_perfect_ones_agree_with_a_finer_lattice():
    # jumps (perfect classes) resolved by about one step: the step cap halves
    rng = np.random.default_rng(3)
    n = rng.integers(3, 30, 1000)
    a, b = _params(rng.binomial(n, 0.9), n)
    w = np.full(1000, 1e-3)
    d = BetaSum(a, b, w)
    fine = BetaSum(a, b, w, resolution=32)
    xs = fine.ppf(np.linspace(0.0005, 0.9995, 21))
    assert np.max(np.abs(d.cdf(xs) - fine.cdf(xs))) < 1e-9


# ----------------------------------------------------------------------------------------------
# compare
@pytest.mark.parametrize(
    "cm, prior, weights",
    [
        ([[42, 3], [6, 4]], (1.0, 1.0), None),
        ([[5, 1, 0], [0, 0, 0], [1, 2, 9]], (0.5, 0.5), None),
        ([[5, 1, 0], [2, 3, 0], [1, 2, 9]], [(1, 1), (2, 3), (0.5, 0.5)], [0.5, 0.5, 0.0]),
    ],
)
def test_comparison_components_are_those_of_the_posterior(cm, prior, weights):
    """The difference's components are A's posterior components and B's with weights negated,
    and both equal a construction by hand (classes without examples and zero weights left out,
    weights renormalised)."""
    cm = bacc.ConfusionMatrix(np.array(cm))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = bacc.posterior_balanced_accuracy(cm, prior=prior, weights=weights)
        diff = compare(cm, cm, prior=prior, weights=weights).difference
    l = cm.n_classes
    pri = np.broadcast_to(np.asarray(prior, float), (l, 2))
    w = np.full(l, 1.0 / l) if weights is None else np.asarray(weights, float)
    keep = (cm.support > 0) & (w > 0)
    k, n = cm.correct[keep].astype(float), cm.support[keep].astype(float)
    wk = w[keep] / w[keep].sum()
    pa, pb, pw = post.components
    assert np.array_equal(pa, k + pri[keep, 0]) and np.array_equal(pb, n - k + pri[keep, 1])
    assert np.allclose(pw, wk, rtol=0, atol=1e-15)
    assert list(post.labels) == [cm.labels[i] for i in np.flatnonzero(keep)]
    da, db, dw = diff.components
    assert np.array_equal(da, np.r_[pa, pa]) and np.array_equal(db, np.r_[pb, pb])
    assert np.array_equal(dw, np.r_[pw, -pw])


def test_comparison_tails_sum_to_one_and_the_small_one_is_looked_up():
    c = compare([[42, 3], [6, 4]], [[40, 5], [5, 5]])
    assert c.p_left + c.p_right == pytest.approx(1.0, abs=1e-15)
    assert c.p_right == c.p_better == pytest.approx(float(c.difference.sf(0.0)), abs=0)
    # swapped: A is now likely better, the small tail is P(delta <= 0)
    s = compare([[40, 5], [5, 5]], [[42, 3], [6, 4]])
    assert s.p_left == pytest.approx(float(s.difference.cdf(0.0)), abs=0)
    assert s.p_left == pytest.approx(c.p_right, abs=1e-9)


@pytest.mark.parametrize("q", [1e-6, 0.025, 0.5, 0.975, 1 - 1e-6])
def test_table_starts_of_quantiles_are_close_to_the_solution(q):
    a, b, w = _bench_1000()
    d = BetaSum(a, b, w)
    exact = d.ppf(q)
    upper = q > 0.5
    start = d._grid.table_quantile(np.array([min(q, 1 - q)]), np.array([upper]))[0] + d._offset
    # inverse cubic interpolation: within 1e-6 standard deviations (linear: ~1e-4)
    assert abs(start - exact) < 1e-6 * d.std()


def test_stop_loss_on_threads_gives_the_same_numbers(monkeypatch):
    """The stop-loss transforms of a large lattice run in chunks on threads: element-wise, so
    the masses are the same numbers with one thread or several."""
    rng = np.random.default_rng(5)
    a = rng.uniform(0.5, 30.0, 200)
    b = rng.uniform(0.5, 30.0, 200)
    w = np.full(200, 1.0 / 200)
    lo, hi = _beta.beta_tail_span(a, b, _grid._TAIL)
    h = w[0] / 160
    threaded = _grid._lattice_masses(a, b, w, lo * w, hi * w, h, 2)
    monkeypatch.setattr(_grid, "_THREADED_POINTS", 10**12)
    single = _grid._lattice_masses(a, b, w, lo * w, hi * w, h, 2)
    for lt, ls in zip(threaded, single, strict=True):
        for (s1, m1), (s2, m2) in zip(lt, ls, strict=True):
            assert np.array_equal(s1, s2) and np.array_equal(m1, m2)
