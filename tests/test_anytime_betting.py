"""The betting confidence sequence (``bacc.confidence_sequence(..., method="betting")``):
checked against a plain-loop implementation of the hedged capital process
(``tests/references/reference_betting.py``), a two-dimensional brute force for the balanced
accuracy, a seeded Monte Carlo of its guarantee under continuous peeking, and its closed-form
edges."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bacc
from bacc._engine.bounds import betting
from bacc.errors import BaccError
from tests.references import reference_betting as ref

ALPHA = 0.05


def _stream(n, p, seed):
    return (np.random.default_rng(seed).random(n) < p).astype(float)


def _tol(lo, hi):
    # one cell at each end: at most 1/500 of the interval's width after the cells are laid anew,
    # and at most about 4e-4 on the first grid
    return 5e-4 + 0.004 * (hi - lo)


@pytest.mark.parametrize("n,p,seed", [(1, 0.5, 0), (7, 0.7, 1), (40, 0.9, 2), (40, 1.0, 3),
                                      (120, 0.5, 4), (300, 0.97, 5), (60, 0.0, 6),
                                      (200, 0.995, 8)])
@pytest.mark.parametrize("sides", ["two", "lower", "upper"])
def test_pointwise_ends_hold_the_exact_set_and_hug_it(n, p, seed, sides):
    """Each end contains the exact set's end (found point by point, refined by bisection) and is
    within one cell of it."""
    x = _stream(n, p, seed)
    looks = sorted({1, max(1, n // 3), n})
    lo, hi = betting.stream_bounds(x, looks, ALPHA, sides, running=False)
    theta = {"two": 0.5, "lower": 1.0, "upper": 0.0}[sides]
    for j, t in enumerate(looks):
        exact = ref.hull(list(x[:t]), ALPHA, theta, points=801)
        assert exact is not None
        r_lo, r_hi = exact
        if sides == "lower":
            r_hi = 1.0
        if sides == "upper":
            r_lo = 0.0
        assert lo[j] <= r_lo + 1e-12 and hi[j] >= r_hi - 1e-12, (t, lo[j], r_lo, hi[j], r_hi)
        tol = _tol(r_lo, r_hi)
        assert lo[j] >= r_lo - tol and hi[j] <= r_hi + tol, (t, lo[j], r_lo, hi[j], r_hi)


@pytest.mark.parametrize("p,seed", [(0.5, 11), (0.85, 12), (0.99, 13)])
def test_running_intersection_over_every_label_equals_the_reference(p, seed):
    n = 60
    x = _stream(n, p, seed)
    lo, hi = betting.stream_bounds(x, np.arange(1, n + 1), ALPHA, "two", running=True)
    run_lo, run_hi = 0.0, 1.0
    for t in range(1, n + 1):
        r_lo, r_hi = ref.hull(list(x[:t]), ALPHA, 0.5, points=201)
        run_lo, run_hi = max(run_lo, r_lo), min(run_hi, r_hi)
        assert lo[t - 1] <= run_lo + 1e-12 and hi[t - 1] >= run_hi - 1e-12
        tol = _tol(run_lo, run_hi)
        assert lo[t - 1] >= run_lo - tol and hi[t - 1] <= run_hi + tol, (t, lo[t - 1], run_lo)


def test_long_stream_resolution_follows_the_width():
    """After the cells are laid anew, each end is within 1/250 of the width of the set's end."""
    x = _stream(2000, 0.93, 21)
    lo, hi = betting.stream_bounds(x, [2000], ALPHA, "two", running=True)
    # the reference's pointwise hull at the last look contains the running interval's ends'
    # neighbourhood: the running interval is inside it
    r_lo, r_hi = ref.hull(list(x), ALPHA, 0.5, points=101)
    assert r_lo - 1e-12 <= lo[0] < hi[0] <= r_hi + 1e-12
    assert hi[0] - lo[0] < 0.07


def test_failures_mirror_successes():
    x = _stream(500, 0.8, 31)
    looks = np.arange(1, 501)
    lo, hi = betting.stream_bounds(x, looks, ALPHA, "two")
    lo_m, hi_m = betting.stream_bounds(1.0 - x, looks, ALPHA, "two")
    np.testing.assert_allclose(lo, 1.0 - hi_m, atol=1e-12)
    np.testing.assert_allclose(hi, 1.0 - lo_m, atol=1e-12)


def test_closed_form_edges_one_label_all_right_all_wrong():
    # one label: the largest bet is truncated at c / m or c / (1 - m), so the capital stays below
    # (1 + 0.5 (1 - m) / m) / 2 + 3/4 < 20 unless m < 1/77: then the bet is the plug-in l_1 and the
    # capital (1 + l_1 (1 - m)) / 2 + 1/4 is at most (1 + l_1) / 2 + 1/4 < 20 too
    lam1 = math.sqrt(2 * math.log(2 / ALPHA) / (0.25 * math.log(2)))
    assert (1 + lam1) / 2 + 0.25 < 1 / ALPHA
    seq = bacc.confidence_sequence([1], [1], metric="accuracy", method="betting")
    assert (seq.lower[0], seq.upper[0]) == (0.0, 1.0)
    right = bacc.confidence_sequence([1] * 200, [1] * 200, metric="accuracy", method="betting")
    wrong = bacc.confidence_sequence([1] * 200, [0] * 200, metric="accuracy", method="betting")
    assert np.all(right.upper == 1.0) and np.all(wrong.lower == 0.0)
    np.testing.assert_allclose(right.lower, 1.0 - wrong.upper, atol=1e-12)
    assert np.all(np.diff(right.lower) >= 0) and right.lower[-1] > 0.95
    r_lo, _ = ref.hull([1.0] * 200, ALPHA, 0.5, points=401)
    assert right.lower[-1] <= r_lo + 1e-12 and right.lower[-1] >= r_lo - _tol(r_lo, 1.0)


@pytest.mark.parametrize("sizes,accs,w,seed", [((20, 80), (0.7, 0.95), (0.5, 0.5), 1),
                                               ((60, 60), (0.8, 0.6), (0.5, 0.5), 2),
                                               ((150, 25), (0.9, 0.99), (0.3, 0.7), 3)])
def test_balanced_accuracy_bounds_hold_the_product_set(sizes, accs, w, seed):
    """Two classes: the bounds contain the smallest and largest weighted average over the set
    ``{log K_0(p_0) + log K_1(p_1) < log 20}`` found by brute force on a grid of 401 x 401 points,
    and are within 4e-3 of them (cells and the duality gap)."""
    rng = np.random.default_rng(seed)
    cls = np.repeat([0, 1], sizes)
    rng.shuffle(cls)
    correct = np.where(cls == 0, rng.random(cls.size) < accs[0],
                       rng.random(cls.size) < accs[1]).astype(float)
    lo, hi = betting.weighted_stream_bounds(cls, correct, [cls.size], np.array(w), ALPHA)
    grid = np.linspace(0.0, 1.0, 401)
    f = [np.array([ref.log_capital(list(correct[cls == j]), m, ALPHA) for m in grid])
         for j in (0, 1)]
    inside = f[0][:, None] + f[1][None, :] < math.log(1 / ALPHA)
    avg = w[0] * grid[:, None] + w[1] * grid[None, :]
    r_lo, r_hi = avg[inside].min(), avg[inside].max()
    assert lo[0] <= r_lo + 1e-12 and hi[0] >= r_hi - 1e-12, (lo[0], r_lo, hi[0], r_hi)
    assert lo[0] >= r_lo - 4e-3 and hi[0] <= r_hi + 4e-3, (lo[0], r_lo, hi[0], r_hi)


def _capital_at_truth(x, p, alpha, pseudo=10.0, fraction=0.8):
    """The hedged capital at the true value along each row of ``x`` (vectorised from the paper's
    formulas in this test; the bets as in eq. 26, the share at risk truncated at 1/2 unless the
    Kelly share of the predictive ``(right + g p) / (seen + g)``, ``g = pseudo + (1 / fraction -
    1) seen``, is larger)."""
    n = x.shape[1]
    t = np.arange(1, n + 1)
    mean = np.minimum((0.5 + np.cumsum(x, axis=1)) / (t + 1), 1.0)
    var = (0.25 + np.cumsum((x - mean) ** 2, axis=1)) / (t + 1)
    before = np.concatenate([np.full((x.shape[0], 1), 0.25), var[:, :-1]], axis=1)
    lam = np.sqrt(2 * np.log(2 / alpha) / (before * t * np.log1p(t)))
    right = np.cumsum(x, axis=1) - x
    g = pseudo + (1 / fraction - 1) * (t - 1)
    q = (right + g * p) / (t - 1 + g)
    cap_up = np.maximum(0.5, (q - p) / (1 - p))
    cap_down = np.maximum(0.5, (p - q) / p)
    up = np.cumsum(np.log1p(np.minimum(lam, cap_up / p) * (x - p)), axis=1)
    down = np.cumsum(np.log1p(-np.minimum(lam, cap_down / (1 - p)) * (x - p)), axis=1)
    return np.logaddexp(up, down) + math.log(0.5)


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.5, 0.9, 0.995])
def test_the_capital_at_the_truth_rarely_ever_reaches_one_over_alpha(p):
    """Ville: P(the capital at the truth ever reaches 1/alpha) <= alpha. 20 000 streams of 1 000
    labels; the share must be below alpha + 3 Monte Carlo errors."""
    rng = np.random.default_rng(int(p * 1000))
    streams = 20_000
    x = (rng.random((streams, 1000)) < p).astype(float)
    # by blocks of 1 000 streams (each row is its own stream): arrays of 8 MB, not 160 MB
    ever = np.concatenate([(_capital_at_truth(x[i:i + 1000], p, ALPHA) >= math.log(1 / ALPHA))
                           .any(axis=1) for i in range(0, streams, 1000)]).mean()
    assert ever <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / streams), ever


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.6, 0.97])
def test_peeking_after_every_label_keeps_the_promise(p):
    """bacc's sequences themselves: 300 streams of 1 000 labels, read after every label; the
    share that ever excludes the truth must be below alpha + 3 Monte Carlo errors."""
    rng = np.random.default_rng(int(p * 100))
    streams = 300
    missed = 0
    for _ in range(streams):
        x = (rng.random(1000) < p).astype(float)
        lo, hi = betting.stream_bounds(x, np.arange(1, 1001), ALPHA, "two", running=True)
        missed += bool(np.any((lo > p) | (hi < p)))
    assert missed / streams <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / streams)


def test_the_kelly_lift_narrows_near_one_and_leaves_the_middle_alone(monkeypatch):
    """The truncation lifted to the fractional Kelly share: near an accuracy of 1 the sequence is
    narrower on average than with the plain truncation of 1/2 (an infinite ``h`` never lifts
    it), at 0.5 it is the same sequence, and the rows where the share is not computed are those
    where it could not exceed the truncation."""
    rng = np.random.default_rng(17)
    looks = [30, 100, 300]

    def widths(p, streams=40):
        out = []
        for _ in range(streams):
            x = (rng.random(300) < p).astype(float)
            lo, hi = betting.stream_bounds(x, looks, ALPHA, "two")
            out.append(hi - lo)
        return np.mean(out, axis=0)

    state = rng.bit_generator.state
    lifted = {p: widths(p) for p in (0.995, 0.5)}
    rng.bit_generator.state = state
    monkeypatch.setattr(betting, "KELLY_PSEUDO", math.inf)
    plain = {p: widths(p) for p in (0.995, 0.5)}
    assert np.all(lifted[0.995][1:] < 0.95 * plain[0.995][1:]), (lifted, plain)
    np.testing.assert_allclose(lifted[0.5], plain[0.5], rtol=1e-12)
    monkeypatch.undo()
    # the rows left out of the share's computation lose nothing: the caps equal the larger of
    # 1/2 and the share computed everywhere, on a stream where the share is in play upward
    x = _stream(400, 0.98, 19)
    right, seen = betting.before(x)
    grid = betting.edges(0.0, 1.0, 200)
    for up in (True, False):
        cap = np.maximum(0.5, betting._kelly(right, seen, grid, up))
        low, high = betting._caps(right, seen, grid, up)
        np.testing.assert_array_equal(np.broadcast_to(low, (x.size, 200)), cap[:, :-1])
        np.testing.assert_array_equal(np.broadcast_to(high, (x.size, 200)), cap[:, 1:])
        assert np.any(cap > 0.5) == up


@pytest.mark.parametrize("sides", ["two", "lower", "upper"])
def test_the_shortcut_membership_equals_the_sum_of_the_capitals(sides):
    """A cell is in the set when the hedged capital's bound is below the threshold; deciding
    that from the larger half-capital where it alone decides gives the same cells, on values
    spread around the threshold and within rounding of its two decision points."""
    rng = np.random.default_rng(23)
    lw_up, lw_down, _ = betting._weights(sides)
    thr = math.log(1 / ALPHA)
    near = np.array([thr, thr - math.log(2), thr - math.log(2) - 1e-9, thr + 1e-12])
    up = np.concatenate([rng.normal(thr, 2.0, 5000), near + math.log(2), near,
                         rng.normal(thr, 1e-6, 500)])
    down = np.concatenate([rng.normal(thr, 2.0, 5000), near + math.log(2), near - 40,
                           up[-500:] + rng.normal(0, 1e-6, 500)])
    shortcut = betting._inside(up, down, lw_up, lw_down, thr)
    summed = betting._cell_bound(up, down, lw_up, lw_down) < thr
    np.testing.assert_array_equal(shortcut, summed)
    assert 0 < summed.sum() < summed.size


def test_betting_is_narrower_than_the_mixture_early_and_the_guide_says_so():
    """Over the first tens of labels the betting sequence is narrower than the mixture at its
    default tuning (the reason it exists), on average over seeded streams."""
    rng = np.random.default_rng(5)
    narrower = []
    for _ in range(30):
        y = rng.integers(0, 2, 60)
        pred = np.where(rng.random(60) < 0.9, y, 1 - y)
        a = bacc.confidence_sequence(y, pred, metric="accuracy", looks=[20])
        b = bacc.confidence_sequence(y, pred, metric="accuracy", looks=[20], method="betting")
        narrower.append((b.upper[0] - b.lower[0]) < (a.upper[0] - a.lower[0]))
    assert np.mean(narrower) > 0.9


def test_api_betting_sequence_shapes_and_result():
    y = [0, 1, 1, 0, 1, 0, 0, 1] * 15
    p = [0, 1, 0, 0, 1, 0, 1, 1] * 15
    seq = bacc.confidence_sequence(y, p, method="betting")
    assert seq.method == "betting" and seq.tuned_for == ()
    assert seq.final.method == "betting" and seq.final.guaranteed
    ok = np.isfinite(seq.estimate)
    assert math.isnan(seq.estimate[0]) and ok[1:].all()
    assert np.all(seq.lower[ok] <= seq.estimate[ok]) and np.all(seq.estimate[ok] <= seq.upper[ok])
    assert np.all(np.diff(seq.lower) >= 0) and np.all(np.diff(seq.upper) <= 0)
    looks = bacc.confidence_sequence(y, p, method="betting", looks=[30, 60, 120])
    # the balanced accuracy's running intersection is over the looks asked for, so a look's
    # bounds are never tighter than with every label
    assert np.all(looks.lower <= seq.lower[[29, 59, 119]] + 1e-12)
    one = bacc.confidence_sequence(y, p, method="betting", sides="lower")
    assert np.all(one.upper == 1.0) and one.lower[-1] >= seq.lower[-1] - 1e-12
    text = str(seq.final)
    assert "betting" in text and "Waudby-Smith" in text
    d = seq.to_dict()
    assert d["method"] == "betting" and d["tuned_for"] == []


def test_class_without_examples_leaves_its_share_open():
    y = [0, 1] * 30
    p = [0, 1] * 30
    seq = bacc.confidence_sequence(y, p, labels=[0, 1, 2], method="betting")
    # class 2 never seen: its accuracy can be anything, so the lower bound is at most 2/3
    assert seq.lower[-1] <= 2 / 3 + 1e-12 and seq.upper[-1] == 1.0
    assert math.isnan(seq.estimate[-1])


@pytest.mark.parametrize("kwargs,match", [
    ({"method": "bet"}, "method must be one of"),
    ({"method": None}, "method must be one of"),
    ({"method": "betting", "tuned_for": 50}, "needs no tuning"),
])
def test_bad_method_arguments_are_refused(kwargs, match):
    with pytest.raises(BaccError, match=match):
        bacc.confidence_sequence([0, 1, 1, 0], [0, 1, 0, 0], **kwargs)


def test_a_sequence_emptied_by_a_change_stays_defined():
    """A stream that is right 300 times then wrong 300 times has no constant accuracy: the set
    empties (an event the guarantee allows only with probability alpha under a fixed truth); the
    bounds stay finite and bracket the sample accuracy."""
    y = [1] * 600
    p = [1] * 300 + [0] * 300
    seq = bacc.confidence_sequence(y, p, metric="accuracy", method="betting")
    assert np.all(np.isfinite(seq.lower)) and np.all(np.isfinite(seq.upper))
    assert np.all(seq.lower <= seq.estimate + 1e-12) and np.all(seq.estimate <= seq.upper + 1e-12)


def test_class_capital_rows_equal_the_whole_table_across_blocks_and_calls():
    """The capital advanced block by block (512 examples) and call by call gives the same rows
    as the whole cumulative table computed at once (written here from the cell bounds of the
    module's docstring), for repeated, sparse and block-edge counts, on a stream near 1 where
    the Kelly share lifts the truncation."""
    x = _stream(1500, 0.99, 41)
    grid = betting.edges(0.0, 1.0, 300)
    u, v = grid[None, :-1], grid[None, 1:]
    lam = betting.bets(x, ALPHA / 2)[:, None]
    seen = np.arange(x.size)[:, None]
    right = (np.cumsum(x) - x)[:, None]

    g = 10.0 + 0.25 * seen  # h = 10 pseudo-examples at the null, fraction 0.8

    def share(m, up):
        q = (right + g * m) / (seen + g)
        with np.errstate(divide="ignore", invalid="ignore"):
            k = (q - m) / (1 - m) if up else (m - q) / m
        # the limits at m = 1 (up) and m = 0 (down): seen / (seen + g) with no example against
        against = (seen - right) if up else right
        edge = (m == 1.0) if up else (m == 0.0)
        k = np.where(edge, np.where(against == 0, seen / (seen + g), 0.0), k)
        return np.maximum(0.5, k)

    good = x[:, None] == 1
    with np.errstate(divide="ignore"):
        up_gain = np.minimum(lam * (1 - v), share(v, True) * (1 - v) / v)
        down_gain = np.minimum(lam * u, share(u, False) * u / (1 - u))
    up = np.where(good, np.log1p(up_gain), np.log1p(-np.minimum(lam * v, share(u, True))))
    down = np.where(good, np.log1p(-np.minimum(lam * (1 - u), share(v, False))),
                    np.log1p(down_gain))
    assert np.any(share(u, True)[100:] > 0.5)  # the lift is in play on this stream
    whole = np.logaddexp(math.log(0.5) + np.cumsum(up, axis=0),
                         math.log(0.5) + np.cumsum(down, axis=0))
    whole = np.vstack([np.zeros(300), whole])  # row c: after c examples
    cap = betting.ClassCapital(x, ALPHA, grid)
    asked = [np.array([0, 0, 1, 7]), np.array([7, 511, 512, 513]), np.array([1024, 1500, 1500])]
    for counts in asked:
        np.testing.assert_allclose(cap.rows(counts), whole[counts], rtol=0, atol=1e-9)
