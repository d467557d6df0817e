"""Anytime-valid bounds by betting: the hedged capital process of each class and their product.

For one class whose examples arrive as ``x_1, x_2, ...`` (1 = correct, 0 = wrong) with true
accuracy ``p``, and a null value ``m``, the two capital processes

    K+_t(m) = prod_{i <= t} (1 + l+_i(m) (x_i - m)),   l+_i(m) m = min(l_i m, c+_i(m)),
    K-_t(m) = prod_{i <= t} (1 - l-_i(m) (x_i - m)),   l-_i(m) (1 - m) = min(l_i (1 - m), c-_i(m)),

bet on the accuracy being above (below) ``m``; ``l+_i(m) m`` is the share of the capital lost by
a wrong example. Each bet is fixed before ``x_i`` is seen: ``l_i`` is the predictable plug-in of
Waudby-Smith & Ramdas 2024, eq. 26 (``sqrt(2 log(1 / a) / (s2 i log(1 + i)))`` with ``s2`` the
regularised running variance of the examples before the i-th), so each factor has mean 1 when
``p = m`` and both are nonnegative martingales; so is the hedged capital
``K_t(m) = theta K+_t(m) + (1 - theta) K-_t(m)``. By Ville's inequality it ever reaches
``1 / alpha`` with probability at most ``alpha``: ``{m : K_t(m) < 1 / alpha}`` holds at every
``t`` at once (Waudby-Smith & Ramdas 2024, theorem 3, the hedged capital; ``theta = 1/2``,
prior mean 1/2 and variance 1/4 with one pseudo-example, the defaults of their reference
implementation). One-sided bounds put all of ``alpha`` on one process (``theta = 1`` or ``0``).

The share at risk is truncated, as in their implementation, at ``c = 1/2``, unless a fractional
Kelly (growth-optimal) share of a predictive of the next example is larger:

    c+_i(m) = max(c, k+_i(m)),   k+_i(m) = max(0, (q_i(m) - m) / (1 - m)),
    c-_i(m) = max(c, k-_i(m)),   k-_i(m) = max(0, (m - q_i(m)) / m),
    q_i(m) = (s + g m) / (i - 1 + g),   g = h + (1 / f - 1) (i - 1),

with ``s`` the correct examples before the i-th, ``h`` = :data:`KELLY_PSEUDO` pseudo-examples
at the null and ``f`` = :data:`KELLY_FRACTION` (Kelly 1956; Waudby-Smith & Ramdas 2024 discuss
such growth-rate adaptive bets beside the plug-in). ``k+`` is ``f`` times the Kelly share of the running
accuracy once ``i`` is large, and less before. Both caps are predictable and keep every factor
positive (``k+ <= f (i - 1) / (i - 1 + f h) < 1``), so the guarantee is unchanged.

Why: the cap of 1/2 binds where the plug-in bets are large, that is where the examples vary
little, near an accuracy of 0 or 1. There the Kelly share at the candidate values being tested
is far above 1/2 (0.86 for a null of 0.93 when 99 % are right), and betting only half leaves
growth, so width, on the table. Away from 0 and 1 the Kelly share at the candidates near the
bounds is below 1/2 and the bets are those of Waudby-Smith & Ramdas. Over-betting costs more
than under-betting and the running accuracy is noisy, so the share is shrunk: ``h`` keeps the
first examples from lifting the cap on a lucky start, and ``f < 1`` keeps later bets below
the full Kelly share of a noisy estimate. Measured on the peer benchmark's 600 streams
(``benchmarks/bench_anytime_peers.py``; ``h`` and ``f`` were chosen on them): at a true
accuracy of 0.995 the sequence is 5-16 % narrower at 30 to 300 labels and 3 % wider at 3 000
and 10 000; at 0.9 within 0.4 %, at 0.5 unchanged. On fresh streams
(``benchmarks/bench_betting_cap.py``) the same pattern from 0.98 to 0.999, and within 0.7 % from
0.5 to 0.95.

The bets adapt to the data and are largest early, so the sequence is narrow after few labels,
where a mixture tuned for a larger size is wide; the price is width at large sizes.

Computed exactly, never on a grid alone: with ``x`` in {0, 1}, each factor is a monotone
function of terms that are each monotone in ``m`` (``c+`` is nonincreasing and ``c-``
nondecreasing), so on a cell ``[u, v]`` of values of ``m`` each factor is at least its value with
every term taken at the cell's least favourable end,

    K+, correct:  1 + min(l (1 - v), c+(v) (1 - v) / v),   K+, wrong:    1 - min(l v, c+(u)),
    K-, wrong:    1 + min(l u, c-(u) u / (1 - u)),         K-, correct:  1 - min(l (1 - u), c-(v)),

and ``K_t(m)`` on the cell is at least ``theta`` times the product of the ``K+`` factors so
bounded plus ``1 - theta`` times that of the ``K-`` factors (with ``c = 1/2`` throughout, the
capitals at ``v`` and at ``u``),
and a cell whose bound reaches ``1 / alpha`` holds no point of the set. The reported interval
is the hull of the cells not so excluded: it contains the whole set (a guarantee that a grid of
points inside the set does not give) and is wider than the set's hull by at most one cell at
each end. Following the running intersection, the cells are laid anew over the current interval
whenever it has shrunk to half of the grid's span, so the resolution follows the width
(a cell is at most 1/500 of it).

Several classes: each example updates only its own class's capital, so the product of the
classes' hedged capitals is a martingale of the stream, and a bound of ``sum_i w_i p_i`` is the
minimum (maximum) of that average over ``{p : sum_i log K_i(p_i) < log(1 / alpha)}``, bounded by
its Lagrange dual over the certified cells (weak duality: valid whatever the set's shape), as
for the mixture of :mod:`.anytime`.

References
----------
Waudby-Smith, I. & Ramdas, A. (2024). Estimating means of bounded random variables by betting.
Journal of the Royal Statistical Society, Series B 86, 1-27 (section 4, hedged capital,
eq. 26-27, theorem 3; growth-rate adaptive bets).
Kelly, J. L. (1956). A new interpretation of information rate. Bell System Technical Journal 35,
917-926.
Ville, J. (1939). Étude critique de la notion de collectif. Gauthier-Villars.
"""

from __future__ import annotations

import math

import numpy as np

from .anytime import golden

#: Weight of the capital that bets on a higher accuracy (two-sided).
THETA = 0.5
#: Truncation of the share at risk: ``l+ m <= c`` and ``l- (1 - m) <= c`` unless the Kelly share
#: of the predictive is larger.
TRUNCATION = 0.5
#: The predictive whose Kelly share may lift the truncation: ``h`` pseudo-examples at the null
#: value, and the examples seen weighed by ``f``, a fractional Kelly bet (see the module's notes).
KELLY_PSEUDO = 10.0
KELLY_FRACTION = 0.8
#: The bets' regularisation: prior mean and variance of the examples, and its weight in examples.
PRIOR_MEAN, PRIOR_VARIANCE, PSEUDO = 0.5, 0.25, 1.0
#: Cells of the grid of null values (each end is resolved to about one cell).
CELLS = 1000
#: Labels handled per block (memory: block x cells); blocks double from the first size, so the
#: cells are laid anew soon after the interval first narrows.
_BLOCK = 512
_FIRST_BLOCK = 32
#: Golden-section iterations over the log of the dual multiplier.
_DUAL_ITER = 48
_LOG2 = math.log(2.0)


def bets(x, alpha_side: float) -> np.ndarray:
    """Predictable bets ``l_t`` of one class's stream ``x`` (0/1, arrival order).

    ``l_t = sqrt(2 log(1 / alpha_side) / (s2_{t-1} t log(1 + t)))`` with the regularised running
    mean and variance of the examples before the t-th (Waudby-Smith & Ramdas 2024, eq. 26).
    """
    x = np.asarray(x, dtype=float)
    t = np.arange(1, x.size + 1, dtype=float)
    mean = np.minimum((PSEUDO * PRIOR_MEAN + np.cumsum(x)) / (t + PSEUDO), 1.0)
    var = (PSEUDO * PRIOR_VARIANCE + np.cumsum((x - mean) ** 2)) / (t + PSEUDO)
    before = np.concatenate(([PRIOR_VARIANCE], var[:-1]))
    with np.errstate(divide="ignore"):
        lam = np.sqrt(2.0 * math.log(1.0 / alpha_side) / (before * t * np.log1p(t)))
    return np.where(np.isfinite(lam), lam, 0.0)


def edges(lo: float, hi: float, cells: int) -> np.ndarray:
    """``cells + 1`` cell edges over ``[lo, hi]``, even in the arcsine scale (finer near 0 and 1,
    where a proportion's interval is narrow)."""
    a, b = math.asin(math.sqrt(lo)), math.asin(math.sqrt(hi))
    e = np.sin(np.linspace(a, b, cells + 1)) ** 2
    e[0], e[-1] = lo, hi
    return e


def before(x) -> tuple[np.ndarray, np.ndarray]:
    """Correct examples and examples before each one (the predictable counts)."""
    x = np.asarray(x, dtype=float)
    seen = np.arange(x.size, dtype=float)
    right = np.concatenate(([0.0], np.cumsum(x)[:-1]))
    return right, seen


def _kelly(right, seen, m, up: bool) -> np.ndarray:
    """Kelly share against ``m`` (rows: examples; columns: ``m``) of the predictive
    ``q = (right + g m) / (seen + g)``, ``g = h + (1 / f - 1) seen``: ``max(0, (q - m) / (1 - m))``
    betting up, ``max(0, (m - q) / m)`` down; written so that ``m = 1`` (up) and ``m = 0``
    (down) give their limits."""
    r, t = right[:, None], seen[:, None]
    other = t - r if up else r                       # examples against the bet so far
    room = 1.0 - m if up else m
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(other == 0.0, 0.0, other / room[None, :])
    return np.maximum(t - ratio, 0.0) / (t / KELLY_FRACTION + KELLY_PSEUDO)


def _caps(right, seen, grid, up: bool):
    """``c+`` (``up``) or ``c-`` at the left and right edges of each cell: the truncation, or the
    Kelly share where it is larger. Rows where the share stays at most the truncation over the
    whole grid (the first examples, and most rows away from 0 and 1) are not computed:
    ``k+ > c`` needs ``t - r < (t - c (t / f + h)) (1 - m)``, ``k- > c`` needs
    ``r < (t - c (t / f + h)) m``."""
    other = seen - right if up else right
    widest = 1.0 - grid[0] if up else grid[-1]
    need = other < (seen - TRUNCATION * (seen / KELLY_FRACTION + KELLY_PSEUDO)) * widest
    if not need.any():
        return TRUNCATION, TRUNCATION
    cap = np.full((seen.size, grid.size), TRUNCATION)
    cap[need] = np.maximum(TRUNCATION, _kelly(right[need], seen[need], grid, up))
    return cap[:, :-1], cap[:, 1:]


def _log_cell_factors(x, lam, right, seen, grid):
    """Lower bounds of the log factors of ``K+`` and ``K-`` on each cell of ``grid`` (shape
    ``(len(x), cells)``), each term at the cell's least favourable end. Each example is right
    or wrong, so each row takes one of the two forms of each factor."""
    u, v = grid[:-1], grid[1:]
    good = x > 0.5
    bad = ~good
    lg, lb = lam[good, None], lam[bad, None]
    up = np.empty((x.size, u.size))
    down = np.empty((x.size, u.size))
    # each factor is worked out in place in one scratch array per kind of row (a block of 512
    # examples on 4 000 cells is 16 MB an array): the same numbers with four fresh arrays
    # instead of about twenty, which the memory allocator must fault in page by page
    tg = np.empty((lg.shape[0], u.size))
    tb = np.empty((lb.shape[0], u.size))

    def rows(cap, which):
        return cap if np.isscalar(cap) else cap[which]

    at_u, at_v = _caps(right, seen, grid, True)
    with np.errstate(divide="ignore"):
        np.minimum(np.multiply(lg, 1.0 - v, out=tg), rows(at_v, good) * ((1.0 - v) / v), out=tg)
    up[good] = np.log1p(tg, out=tg)
    np.minimum(np.multiply(lb, v, out=tb), rows(at_u, bad), out=tb)
    up[bad] = np.log1p(np.negative(tb, out=tb), out=tb)
    at_u, at_v = _caps(right, seen, grid, False)
    np.minimum(np.multiply(lg, 1.0 - u, out=tg), rows(at_v, good), out=tg)
    down[good] = np.log1p(np.negative(tg, out=tg), out=tg)
    with np.errstate(divide="ignore"):
        np.minimum(np.multiply(lb, u, out=tb), rows(at_u, bad) * (u / (1.0 - u)), out=tb)
    down[bad] = np.log1p(tb, out=tb)
    return up, down


def _weights(sides: str):
    """``log theta``, ``log (1 - theta)`` and the level each process's bets are set for."""
    theta = {"two": THETA, "lower": 1.0, "upper": 0.0}[sides]
    with np.errstate(divide="ignore"):
        return math.log(theta) if theta > 0 else -math.inf, \
            math.log1p(-theta) if theta < 1 else -math.inf, theta


def _cell_bound(log_up, log_down, lw_up, lw_down):
    """Lower bound of ``log K`` on each cell from the cells' bounds of the log capitals."""
    return np.logaddexp(lw_up + log_up, lw_down + log_down)


def _inside(log_up, log_down, lw_up, lw_down, thr: float) -> np.ndarray:
    """``_cell_bound(...) < thr``, computing the sum of the two capitals only where the larger
    one alone does not decide: it is at least the larger and at most twice it."""
    top = np.add(log_up, lw_up)
    np.maximum(top, np.add(log_down, lw_down), out=top)
    # the sum is in [top, top + log 2]; the margin keeps rounding from deciding a cell
    inside = top < thr - _LOG2 - 1e-9
    maybe = ~inside & (top < thr)
    if maybe.any():
        inside[maybe] = _cell_bound(log_up[maybe], log_down[maybe], lw_up, lw_down) < thr
    return inside


def _capital(x, lam, right, seen, grid):
    """Cumulative bounds of the log capitals on each cell (columns) after each example (rows)."""
    up, down = _log_cell_factors(x, lam, right, seen, grid)
    return np.cumsum(up, axis=0, out=up), np.cumsum(down, axis=0, out=down)


def stream_bounds(x, looks, alpha: float, sides: str = "two", *, running: bool = True,
                  cells: int = CELLS):
    """Lower and upper ends of one class's (or the accuracy's) betting sequence at each look.

    Parameters
    ----------
    x : array_like
        1 (correct) or 0 (wrong) per example, in arrival order.
    looks : array_like of int
        Numbers of examples (increasing, within 1..len(x)) at which to report.
    alpha : float
        Error level of the whole sequence.
    sides : {"two", "lower", "upper"}
    running : bool
        Report the running intersection over every example (then the cells, ``4 * cells`` over
        [0, 1] at first, are laid anew, ``cells`` of them, over the interval as it narrows);
        otherwise each example's own interval on the first grid.

    Returns
    -------
    lower, upper : numpy.ndarray
        At each look. A set that is empty (the capital at every value reached ``1 / alpha``,
        an event of probability at most ``alpha``) gives ``lower = 1, upper = 0``.
    """
    x = np.asarray(x, dtype=float)
    looks = np.asarray(looks, dtype=np.int64)
    total = int(looks[-1]) if looks.size else 0
    x = x[:total]
    lw_up, lw_down, theta = _weights(sides)
    lam = bets(x, alpha * (theta if theta > 0 else 1.0))
    right, seen = before(x)
    thr = math.log(1.0 / alpha)
    lo_all = np.empty(total)
    hi_all = np.empty(total)
    lo_run, hi_run = 0.0, 1.0
    grid = edges(0.0, 1.0, 4 * cells)
    cap_up = np.zeros(grid.size - 1)
    cap_down = np.zeros(grid.size - 1)
    t = 0
    while t < total:
        stop = min(total, t + min(max(t, _FIRST_BLOCK), _BLOCK))
        up, down = _capital(x[t:stop], lam[t:stop], right[t:stop], seen[t:stop], grid)
        up += cap_up
        down += cap_down
        inside = _inside(up, down, lw_up, lw_down, thr)
        some = inside.any(axis=1)
        first = np.argmax(inside, axis=1)
        last = inside.shape[1] - 1 - np.argmax(inside[:, ::-1], axis=1)
        lo = np.where(some, grid[first], 1.0)
        hi = np.where(some, grid[last + 1], 0.0)
        if sides == "lower":
            hi = np.where(some, 1.0, 0.0)
        elif sides == "upper":
            lo = np.where(some, 0.0, 1.0)
        if running:
            lo = np.maximum(np.maximum.accumulate(lo), lo_run)
            hi = np.minimum(np.minimum.accumulate(hi), hi_run)
        lo_all[t:stop], hi_all[t:stop] = lo, hi
        cap_up, cap_down = up[-1], down[-1]
        t = stop
        if running:
            lo_run, hi_run = float(lo[-1]), float(hi[-1])
            span = grid[-1] - grid[0]
            if hi_run > lo_run and hi_run - lo_run < 0.5 * span and t < total:
                # lay the cells anew over the running interval: the capitals on the new cells
                # are recomputed from the first example
                grid = edges(lo_run, hi_run, cells)
                cap_up, cap_down = np.zeros(grid.size - 1), np.zeros(grid.size - 1)
                for s in range(0, t, _BLOCK):
                    e = min(t, s + _BLOCK)
                    u, d = _log_cell_factors(x[s:e], lam[s:e], right[s:e], seen[s:e], grid)
                    cap_up += u.sum(axis=0)
                    cap_down += d.sum(axis=0)
    return lo_all[looks - 1], hi_all[looks - 1]


class ClassCapital:
    """One class's two-sided hedged capital on fixed cells, advanced through its examples.

    :meth:`rows` gives the certified lower bounds of the log capital on every cell after given
    numbers of the class's examples (nondecreasing from call to call); only the rows asked for
    are kept, so a long stream costs ``O(cells)`` memory per row asked for and per block.
    """

    def __init__(self, x, alpha: float, grid: np.ndarray):
        self.x = np.asarray(x, dtype=float)
        self.lw_up, self.lw_down, theta = _weights("two")
        self.lam = bets(self.x, alpha * theta)
        self.right, self.seen = before(self.x)
        self.grid = grid
        self.done = 0
        self.up = np.zeros(grid.size - 1)
        self.down = np.zeros(grid.size - 1)

    def rows(self, counts) -> np.ndarray:
        counts = np.asarray(counts, dtype=np.int64)
        out = np.empty((counts.size, self.grid.size - 1))
        i = 0
        while i < counts.size:
            # rows at the count reached so far
            while i < counts.size and counts[i] == self.done:
                out[i] = _cell_bound(self.up, self.down, self.lw_up, self.lw_down)
                i += 1
            if i == counts.size:
                break
            stop = min(int(counts[-1]), self.done + _BLOCK)
            part = slice(self.done, stop)
            up, down = _capital(self.x[part], self.lam[part], self.right[part], self.seen[part],
                                self.grid)
            up += self.up
            down += self.down
            j = i
            while j < counts.size and counts[j] <= stop:
                j += 1
            take = counts[i:j] - self.done - 1
            out[i:j] = _cell_bound(up[take], down[take], self.lw_up, self.lw_down)
            self.up, self.down, self.done = up[-1], down[-1], stop
            i = j
        return out


def weighted_stream_bounds(cls, correct, looks, w, alpha: float, sides: str = "two",
                           cells: int = 4 * CELLS, chunk: int = 64):
    """Bounds of the weighted average of class accuracies at each look of a stream.

    ``cls`` holds each example's class (0..classes-1) and ``correct`` whether it was right, in
    arrival order; the product of the classes' two-sided hedged capitals (one-sided bounds are
    that end of the two-sided set) gives the set, and :func:`dual_bounds` its bounds. The looks
    are handled ``chunk`` at a time, each class's capital advanced to them (memory
    ``O(chunk x classes x cells)``).
    """
    cls = np.asarray(cls, dtype=np.int64)
    correct = np.asarray(correct, dtype=float)
    looks = np.asarray(looks, dtype=np.int64)
    n_classes = len(w)
    grid = edges(0.0, 1.0, cells)
    capital = [ClassCapital(correct[cls == j], alpha, grid) for j in range(n_classes)]
    seen = np.stack([np.cumsum(cls == j)[looks - 1] for j in range(n_classes)], axis=1)
    lower, upper = np.zeros(looks.size), np.ones(looks.size)
    for s in range(0, looks.size, chunk):
        e = min(looks.size, s + chunk)
        bound = np.stack([capital[j].rows(seen[s:e, j]) for j in range(n_classes)], axis=1)
        lower[s:e], upper[s:e] = dual_bounds(bound, grid, w, alpha, sides)
    return lower, upper


def dual_bounds(bound, grid, w, alpha: float, sides: str = "two"):
    """Bounds of ``sum_i w_i p_i`` over ``{p : sum_i log K_i(p_i) < log(1 / alpha)}``.

    ``bound`` has shape ``(looks, classes, cells)``: each class's certified lower bound of its log
    capital on each cell (edges ``grid``). For a multiplier ``mu > 0`` the lower bound
    ``sum_i min_cells (w_i u + mu bound_i) - mu log(1/alpha)`` (``u`` a cell's lower edge) is
    below the minimum over the set (weak duality, and each cell's terms are below the values
    inside it); it is concave in ``mu`` and maximised by golden section over ``log mu``. The
    upper bound mirrors it with the cells' upper edges.
    """
    w = np.asarray(w, dtype=float)[None, :, None]
    thr = math.log(1.0 / alpha)
    left, right = grid[:-1], grid[1:]
    # a cell where a class's capital alone, with every other class at its smallest, reaches the
    # threshold holds no point of the set: the relaxation is over the product of what remains
    # (a superset of the set, so still below its minimum, and tighter)
    lowest = bound.min(axis=2, keepdims=True)
    rest = lowest.sum(axis=1, keepdims=True) - lowest
    keep = bound + rest < thr
    low_obj = np.where(keep, w * left, np.inf)
    high_obj = np.where(keep, w * right, -np.inf)
    finite = np.where(keep, bound, 0.0)

    def lower_value(u):
        mu = np.exp(u)[:, None, None]
        return np.min(low_obj + mu * finite, axis=2).sum(axis=1) - mu[:, 0, 0] * thr

    def upper_value(u):
        mu = np.exp(u)[:, None, None]
        return -(np.max(high_obj - mu * finite, axis=2).sum(axis=1) + mu[:, 0, 0] * thr)

    looks = bound.shape[0]
    lower, upper = np.zeros(looks), np.ones(looks)
    if sides in ("two", "lower"):
        lower = np.clip(_best(lower_value, looks), 0.0, 1.0)
    if sides in ("two", "upper"):
        upper = np.clip(-_best(upper_value, looks), 0.0, 1.0)
    return lower, upper


def _best(fun, size: int) -> np.ndarray:
    """The largest value of a dual function met by golden section over ``log mu`` in
    [-30, 12] (every value met is a valid bound, so the best one is kept)."""
    return golden(fun, np.full(size, -30.0), np.full(size, 12.0), _DUAL_ITER, maximize=True)[2]
