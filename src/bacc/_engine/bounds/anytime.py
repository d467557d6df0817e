"""Anytime-valid bounds: the beta-binomial mixture martingale of each class and their product.

For one class with true accuracy ``p`` and, after ``n`` examples, ``k`` correct, the mixture

    M_n(p0) = B(a + k, b + n - k) / B(a, b) / (p0^k (1 - p0)^(n - k)),
    a = g(c p0),  b = g(c (1 - p0)),  g(x) = x + exp(-2 x) / 2,

is the likelihood ratio of the alternatives ``q ~ Beta(a, b)`` against ``p0``: a nonnegative
martingale with mean 1 when ``p = p0`` (Robbins 1970). By Ville's inequality it ever reaches
``1 / alpha`` with probability at most ``alpha``, so ``{p0 : M_n(p0) < 1 / alpha}`` is a
confidence sequence: it holds at every ``n`` at once, with any stopping rule. The prior is
centred on the null with concentration ``c`` chosen so the sequence is tightest near ``tuned_for``
examples (Howard et al. 2021, section 3.5: the normal mixture's optimal precision
``rho = v / (2 log(1/alpha) + log(1 + 2 log(1/alpha)))``, matched in variance); ``g`` keeps each
parameter at least 1/2, so some prior mass stays away from the null when ``p0`` is near 0 or 1
(without it the upper end stays at 1 after a single error), and equals its argument once that
is a few units (the tuned prior of Howard et al. is unchanged away from the ends); being smooth
and convex, it keeps ``log M_n`` convex in ``p0``.

One-sided (``side="lower"``): the prior is truncated to ``q >= p0`` (alternatives above the
null), which is a supermartingale for every ``p <= p0`` and spends all of ``alpha`` on the
lower end; ``side="upper"`` mirrors it (failures for successes).

Several classes: each new example updates one class's factor, so the product of the classes'
martingales is a martingale in the stream's own order whatever the classes' arrival, and
``{p : sum_i log M_i(p_i) < log(1/alpha)}`` holds for every class size of every class at once.
A bound on ``sum_i w_i p_i`` is the minimum (maximum) of that linear function over the set,
computed by its Lagrange dual, which is a valid bound whatever the set's shape (weak duality)
and equals the minimum when the set is convex. The classes' factors are the two-sided
mixtures, for one-sided bounds too: a one-sided factor goes down for a class pushed above its
sample accuracy (to ``-log(2 m + 1)`` with ``m`` errors), which would let that class lend the
others room and make the set useless for a lower bound.

References
----------
Robbins, H. (1970). Statistical methods related to the law of the iterated logarithm. Annals of
Mathematical Statistics 41, 1397-1409.
Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021). Time-uniform, nonparametric,
nonasymptotic confidence sequences. Annals of Statistics 49, 1055-1080 (section 3.5,
beta-binomial mixture; proposition 5 for the tuning).
Ville, J. (1939). Étude critique de la notion de collectif. Gauthier-Villars.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special as sc

#: Golden-section ratio.
_INVPHI = (math.sqrt(5.0) - 1.0) / 2.0
#: Iterations: golden section over [0, 1] to 1e-13 (1e-10 inside the dual, whose value is
#: second-order in the minimiser's error), bisection of a bound to 2^-70, false position on the
#: dual multiplier.
_GOLDEN_ITER = 64
_INNER_ITER = 48
_BISECT_ITER = 70
_BISECT_DUAL = 3
_DUAL_GRID = 60
_DUAL_ITER = 30
_LOG_RANGE = 46.0
#: Prior parameters never fall below this (smoothly: :func:`_floor`).
PRIOR_FLOOR = 0.5


def concentration(tuned_for, alpha: float, sides: str = "two") -> np.ndarray:
    """Prior concentration ``c`` of the mixture tightest near ``tuned_for`` examples.

    ``c + 1 = tuned_for / (2 L + log(1 + 2 L))`` with ``L = log(1 / alpha)`` two-sided and
    ``log(1 / (2 alpha))`` one-sided (Howard et al. 2021, eq. 14 with ``v = n p (1 - p)``).
    """
    big_l = math.log(1.0 / alpha) if sides == "two" else math.log(1.0 / (2.0 * alpha))
    big_l = max(big_l, 1e-3)
    c = np.asarray(tuned_for, dtype=float) / (2.0 * big_l + math.log1p(2.0 * big_l)) - 1.0
    return np.maximum(c, 1e-3)


def _floor(x):
    """``x + exp(-2 x) / 2``: ``x`` once ``x`` is a few units, 1/2 at 0, smooth and convex (a
    hard floor ``max(x, 1/2)`` would put a concave kink in the log-mixture)."""
    return x + PRIOR_FLOOR * np.exp(-2.0 * x)


def _prior(p, c):
    return _floor(c * p), _floor(c * (1.0 - p))


#: Above this many examples the log-ratio is computed in the form without cancellation.
_STABLE_FROM = 1e5
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _stirling_rest(z):
    """``lgamma(z) - ((z - 1/2) log z - z + log(2 pi) / 2)``: series for z >= 10, direct below."""
    z = np.asarray(z, dtype=float)
    zz = np.maximum(z, 10.0)
    r = 1.0 / zz
    r2 = r * r
    series = r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 / 1680)))
    small = np.minimum(z, 10.0)
    direct = sc.gammaln(small) - ((small - 0.5) * np.log(small) - small + _HALF_LOG_2PI)
    return np.where(z >= 10.0, series, direct)


def _log_ratio_large(p, k, n, a, b):
    """``betaln(a + k, b + n - k) - betaln(a, b) - k log p - (n - k) log(1 - p)`` without the
    cancellation of terms of size ``n`` (Stirling's form of each log-gamma, the likelihood
    ratio written through ``D = (a + k) - (a + b + n) p``)."""
    m = n - k
    big_a, big_b = a + k, b + m
    big_n = big_a + big_b
    d = (a + k) - (a + b + n) * p
    main = (sc.xlog1py(k, d / (big_n * p)) + sc.xlog1py(m, -d / (big_n * (1.0 - p)))
            + a * np.log(big_a / big_n) + b * np.log(big_b / big_n)
            + 0.5 * np.log(big_n / (big_a * big_b)) + _HALF_LOG_2PI)
    rest = _stirling_rest(big_a) + _stirling_rest(big_b) - _stirling_rest(big_n)
    return main + rest - sc.betaln(a, b)


def log_mixture(p, k, n, c, side: str = "two") -> np.ndarray:
    """``log M_n(p)``: the log of the mixture martingale at the null ``p`` (vectorised).

    ``side="lower"`` is the one-sided mixture for a lower bound (prior truncated to
    ``q >= p``), ``"upper"`` its mirror. Values at ``p = 0`` and ``p = 1`` are the limits
    (``inf`` where the data rule the null out). The formula lives in :func:`mixture_of`.
    """
    return mixture_of(k, n, c, side)(p)


def mixture_of(k, n, c, side: str = "two"):
    """``p -> log M_n(p)`` (see :func:`log_mixture`) for counts fixed across a search: what
    does not depend on ``p`` (the conversions, the failures ``n - k``, the choice of formula)
    is done once, rather than at each of a search's thousands of calls."""
    if side == "upper":
        lower = mixture_of(np.asarray(n) - np.asarray(k), n, c, "lower")
        return lambda p: lower(1.0 - np.asarray(p, dtype=float))
    k, n, c = (np.asarray(v, dtype=float) for v in (k, n, c))
    m = n - k
    big = n > _STABLE_FROM
    any_big = bool(np.any(big))
    some_k, some_m = k > 0, m > 0

    def value(p):
        p = np.asarray(p, dtype=float)
        a, b = _prior(p, c)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = (sc.betaln(a + k, b + m) - sc.betaln(a, b)
                   - sc.xlogy(k, p) - sc.xlog1py(m, -p))
            if any_big:
                out = np.where(big, _log_ratio_large(p, k, n, a, b), out)
            if side == "lower":
                # P(q >= p) under the posterior Beta(a + k, b + m), over the same under the prior
                out = (out + np.log(sc.betainc(b + m, a + k, 1.0 - p))
                       - np.log(sc.betainc(b, a, 1.0 - p)))
        # the limits at the ends: a null the data contradict (p = 0 with a success, p = 1 with
        # a failure) is ruled out; otherwise the formula's value stands
        out = np.where((p <= 0.0) & some_k, np.inf, out)
        out = np.where((p >= 1.0) & some_m, np.inf, out)
        return np.where(np.isnan(out), np.inf, out)

    return value


def golden(fun, lo, hi, iterations: int = _GOLDEN_ITER, maximize: bool = False):
    """Vectorised golden-section search of a unimodal ``fun`` on ``[lo, hi]``.

    Returns the point found, its value, and the best value seen at any evaluated point (for a
    maximum, a value never above the true maximum)."""
    lo, hi = np.array(lo, dtype=float), np.array(hi, dtype=float)
    sign = -1.0 if maximize else 1.0
    x1 = hi - _INVPHI * (hi - lo)
    x2 = lo + _INVPHI * (hi - lo)
    f1, f2 = sign * fun(x1), sign * fun(x2)
    best = np.minimum(f1, f2)
    for _ in range(iterations):
        left = f1 <= f2  # the minimum lies in [lo, x2]
        hi = np.where(left, x2, hi)
        lo = np.where(left, lo, x1)
        x_new = np.where(left, hi - _INVPHI * (hi - lo), lo + _INVPHI * (hi - lo))
        f_new = sign * fun(x_new)
        best = np.minimum(best, f_new)
        x1, x2, f1, f2 = (np.where(left, x_new, x2), np.where(left, x1, x_new),
                          np.where(left, f_new, f2), np.where(left, f1, f_new))
    take1 = f1 <= f2
    return np.where(take1, x1, x2), sign * np.where(take1, f1, f2), sign * best


def minimum(k, n, c, side: str = "two"):
    """Where ``log M_n`` is smallest, and its value there (at most 0: the sample accuracy's
    likelihood ratio against every alternative is at most 1)."""
    k, n, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, c)))
    x, v, _ = golden(mixture_of(k, n, c, side), np.zeros(k.shape), np.ones(k.shape))
    return x, v


def lower_root(k, n, c, threshold, side: str = "two") -> np.ndarray:
    """The smallest null not ruled out: ``inf {p : log M_n(p) < threshold}`` by bisection on
    ``[0, argmin]``, returned from the side where the mixture is at least ``threshold`` (never
    above the true bound)."""
    k, n, c, threshold = np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (k, n, c, threshold)))
    at, _ = minimum(k, n, c, side)
    lo = np.zeros(k.shape)
    hi = at
    mixture = mixture_of(k, n, c, side)
    inside0 = mixture(lo) < threshold
    for _ in range(_BISECT_ITER):
        mid = 0.5 * (lo + hi)
        out = mixture(mid) >= threshold
        lo = np.where(out, mid, lo)
        hi = np.where(out, hi, mid)
    return np.where(inside0, 0.0, lo)


def sequence_bounds(k, n, tuned, alpha: float, sides: str):
    """Lower and upper ends of one class's confidence sequence, tuned for ``tuned`` examples
    (vectorised; one-sided bounds use the one-sided mixture)."""
    c = concentration(tuned, alpha, sides)
    k, n, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, c)))
    threshold = math.log(1.0 / alpha)
    lower = np.zeros(k.shape)
    upper = np.ones(k.shape)
    if sides in ("two", "lower"):
        lower = lower_root(k, n, c, threshold, "two" if sides == "two" else "lower")
    if sides in ("two", "upper"):
        upper = 1.0 - lower_root(n - k, n, c, threshold, "two" if sides == "two" else "lower")
    return lower, upper


def _dual_lower(k, n, c, w, threshold, side, *, points: bool = False):
    """Lower bound of ``sum_i w_i p_i`` over ``{p : sum_i log M_i(p_i) < threshold}``.

    ``k, n, c`` have shape ``(..., classes)``, ``w`` ``(classes,)``. For a multiplier
    ``lam = exp(u) > 0`` the dual value ``D(u) = sum_i min_p [w_i p + lam (log M_i(p) - t / l)]``
    is at most the minimum over the set (weak duality, whatever the set's shape). Its slope in
    ``lam`` is ``h(u) = sum_i log M_i(p_i(u)) - t`` at the inner minimisers (envelope theorem),
    decreasing in ``u``; the root of ``h`` (a few bisections from the normal approximation's
    multiplier, then Illinois false position; vectorised) is the best multiplier, and the
    largest dual value met on the way is returned. Each inner minimum is over
    ``[0, argmin_i]``, where the class's term is unimodal. With ``points``, the inner minimisers
    at that multiplier are returned too (shape of ``k``).
    """
    at, _ = minimum(k, n, c, side)
    n_classes = k.shape[-1]
    share = threshold / n_classes
    zero = np.zeros(k.shape)
    mixture = mixture_of(k, n, c, side)
    f0 = mixture(zero)

    def inner(u):
        lam = np.exp(u)[..., None]
        x, v, _ = golden(lambda p: w * p + lam * (mixture(p) - share), zero, at, _INNER_ITER)
        v0 = lam * (f0 - share)  # the endpoint p = 0, which golden section never evaluates
        use0 = v0 < v
        x, v = np.where(use0, 0.0, x), np.where(use0, v0, v)
        slope = np.sum(mixture(x), axis=-1) - threshold
        d = v.sum(axis=-1)
        return np.where(np.isfinite(d), d, -np.inf), slope, x

    shape = k.shape[:-1]
    # the normal approximation's multiplier: log M_i ~ (p_hat - p)^2 / (2 s_i^2) gives
    # lam = sqrt(sum_i w_i^2 s_i^2 / (2 t))
    var = (k + 0.5) * (n - k + 0.5) / (n + 1.0) ** 3
    u0 = 0.5 * np.log(np.sum(w * w * var, axis=-1) / (2.0 * threshold))
    a, b = u0 - 4.0, u0 + 4.0
    da, ha, xa = inner(a)
    db, hb, xb = inner(b)
    # where the root is not inside, widen to the far end
    bad_a, bad_b = ~(ha > 0), ~(hb < 0)
    if bad_a.any() or bad_b.any():
        a, b = np.where(bad_a, -_LOG_RANGE, a), np.where(bad_b, _LOG_RANGE, b)
        da2, ha2, xa2 = inner(a)
        db2, hb2, xb2 = inner(b)
        da, ha = np.where(bad_a, da2, da), np.where(bad_a, ha2, ha)
        db, hb = np.where(bad_b, db2, db), np.where(bad_b, hb2, hb)
        xa = np.where(bad_a[..., None], xa2, xa)
        xb = np.where(bad_b[..., None], xb2, xb)
    best = np.maximum(da, db)
    best_x = np.where((da >= db)[..., None], xa, xb)
    # h(a) > 0 > h(b) for every non-degenerate row; where not, the larger dual value stands
    ha, hb = np.where(np.isfinite(ha), ha, 1e300), np.where(np.isfinite(hb), hb, -1e300)

    def keep(d, x):
        nonlocal best, best_x
        better = d > best
        best = np.where(better, d, best)
        best_x = np.where(better[..., None], x, best_x)

    for _ in range(_BISECT_DUAL):
        u = 0.5 * (a + b)
        d, h, x = inner(u)
        keep(d, x)
        pos = h > 0
        a, ha = np.where(pos, u, a), np.where(pos, h, ha)
        b, hb = np.where(pos, b, u), np.where(pos, hb, h)
    side_a = np.zeros(shape, dtype=bool)
    side_b = np.zeros(shape, dtype=bool)
    # each row stops at its own convergence: a row's bound is the same whichever rows share the
    # call (one detector's, or a thousand's)
    active = np.ones(shape, dtype=bool)
    for _ in range(_DUAL_ITER):
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            u = b - hb * (b - a) / (hb - ha)
        mid = 0.5 * (a + b)
        u = np.where(np.isfinite(u) & (u > a) & (u < b), u, mid)
        d, h, x = inner(u)
        d = np.where(active, d, -np.inf)  # a row that has stopped keeps its best
        keep(d, x)
        pos = h > 0
        # Illinois: halve the stale end's value when the same end is kept twice
        ha = np.where(active, np.where(pos, h, np.where(side_b, ha * 0.5, ha)), ha)
        hb = np.where(active, np.where(pos, np.where(side_a, hb * 0.5, hb), h), hb)
        a, b = np.where(active & pos, u, a), np.where(active & ~pos, u, b)
        side_a, side_b = np.where(active, pos, side_a), np.where(active, ~pos, side_b)
        active &= ~((np.abs(h) < 1e-6) | (b - a < 1e-9))
        if not active.any():
            break
    bound = np.clip(best, 0.0, 1.0)
    return (bound, best_x) if points else bound


def weighted_bounds(k, n, tuned, w, alpha: float, sides: str):
    """Bounds of ``sum_i w_i p_i`` (weights summing to 1) from the product of the classes'
    two-sided mixtures tuned for ``tuned`` examples: ``k, n, tuned`` of shape
    ``(..., classes)``; returns arrays of shape ``(...)``. A one-sided bound is that end of the
    two-sided set. The upper bound is one minus the lower bound of the failures' problem; both
    are solved in one vectorised call."""
    c = concentration(tuned, alpha, "two")
    k, n, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, c)))
    w = np.asarray(w, dtype=float)
    threshold = math.log(1.0 / alpha)
    shape = k.shape[:-1]
    if sides == "two":
        both = _dual_lower(np.stack([k, n - k]), np.stack([n, n]), np.stack([c, c]), w,
                           threshold, "two")
        return both[0], 1.0 - both[1]
    lower, upper = np.zeros(shape), np.ones(shape)
    if sides == "lower":
        lower = _dual_lower(k, n, c, w, threshold, "two")
    else:
        upper = 1.0 - _dual_lower(n - k, n, c, w, threshold, "two")
    return lower, upper


def halfspace_minimum(k, n, tuned, w, target, alpha: float):
    """``G = min {sum_i log M_i(p_i) : sum_i w_i p_i <= target}`` and a point where it is met.

    The lower bound of ``sum_i w_i p_i`` exceeds ``target`` exactly when every point of the
    half-space is ruled out, i.e. ``G >= log(1/alpha)`` (the stopping test of a sequential
    plan, without computing the bound). ``k, n, c`` of shape ``(..., classes)``. Two classes:
    golden section along the line ``w_1 p_1 + w_2 p_2 = target`` (the minimum lies on it
    unless the unconstrained minimum is inside the half-space). More classes: the Lagrange
    dual ``max_mu sum_i min_p [log M_i(p) + mu w_i p] - mu target``, a value never above
    ``G`` (so a stop it signals is real). The classes' factors are the two-sided mixtures, as in
    :func:`weighted_bounds`, whose lower bound clears ``target`` exactly when ``G`` reaches
    ``log(1/alpha)``.
    """
    side = "two"
    c = concentration(tuned, alpha, "two")
    k, n, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, c)))
    w = np.asarray(w, dtype=float)
    at, m = minimum(k, n, c, side)
    inside = (at @ w) <= target
    if k.shape[-1] == 2:
        lo = np.maximum(0.0, (target - w[1]) / w[0])
        hi = np.minimum(1.0, target / w[0])
        lo, hi = np.broadcast_to(lo, k.shape[:-1]), np.broadcast_to(hi, k.shape[:-1])

        mixture = mixture_of(k, n, c, side)

        def along(p1):
            p = np.stack([p1, (target - w[0] * p1) / w[1]], axis=-1)
            p = np.clip(p, 0.0, 1.0)
            return np.sum(mixture(p), axis=-1)

        x, g, _ = golden(along, lo, hi)
        point = np.clip(np.stack([x, (target - w[0] * x) / w[1]], axis=-1), 0.0, 1.0)
    else:
        zero = np.zeros(k.shape)
        mixture = mixture_of(k, n, c, side)

        def dual(log_mu):
            mu = np.exp(log_mu)[..., None]
            x, v, _ = golden(lambda p: mixture(p) + mu * w * p, zero, at, _INNER_ITER)
            return v.sum(axis=-1) - mu[..., 0] * target, x

        shape = k.shape[:-1]
        lo_u, hi_u = np.full(shape, -_LOG_RANGE), np.full(shape, _LOG_RANGE)
        u_best, _, g = golden(lambda u: dual(u)[0], lo_u, hi_u, _DUAL_GRID, maximize=True)
        _, point = dual(u_best)
    g = np.where(inside, m.sum(axis=-1), g)
    point = np.where(inside[..., None], at, point)
    return g, point


def start_weight(s):
    """``pi_s = 1 / (s (s + 1))``: the share of the error level spent on the sequence started
    at the ``s``-th window (``s = 1, 2, ...``; the shares sum to 1)."""
    s = np.asarray(s, dtype=float)
    return 1.0 / (s * (s + 1.0))


def below_alarms(k, n, start, tuned, w, value, alpha: float) -> np.ndarray:
    """Whether the anytime-valid upper bound of ``sum_i w_i p_i``, from counts pooled since a
    start, at level ``alpha * pi_start``, lies below ``value``.

    ``k, n`` of shape ``(rows, classes)``, ``start`` and ``value`` ``(rows,)`` (or one value).
    The upper bound is below
    ``value`` exactly when the failures' lower bound exceeds ``1 - value``
    (:func:`halfspace_minimum` on the failures). Rows whose sample value is at least ``value``
    cannot alarm and are not computed.
    """
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    alarm = np.zeros(k.shape[0], dtype=bool)
    value = np.broadcast_to(np.asarray(value, dtype=float), (k.shape[0],))
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.sum(w * np.where(n > 0, k / np.maximum(n, 1.0), 1.0), axis=-1)
    maybe = np.flatnonzero(estimate < value)  # NaN values (no baseline) never alarm
    if maybe.size == 0:
        return alarm
    kk, nn = k[maybe], n[maybe]
    # rows of the same failures, examples and target share one search (pooled windows of a
    # few examples repeat their counts: a third of them are distinct in a year of daily
    # windows); each row's value is the one it would get alone
    l = kk.shape[1]
    key = np.column_stack([nn - kk, nn, 1.0 - value[maybe]])
    distinct, back = np.unique(key, axis=0, return_inverse=True)
    g, _ = halfspace_minimum(distinct[:, :l], distinct[:, l:2 * l],
                             np.broadcast_to(tuned, (distinct.shape[0], l)), w, distinct[:, 2 * l],
                             alpha)
    g = g[back.ravel()]
    threshold = np.log(1.0 / (alpha * start_weight(np.asarray(start)[maybe])))
    alarm[maybe] = g >= threshold
    return alarm
