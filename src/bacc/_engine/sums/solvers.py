"""Moments of Beta components and the safeguarded quantile iterations (Cornish-Fisher start,
Newton and Halley steps) shared by every sum distribution."""

from __future__ import annotations

import numpy as np
from scipy import special as sc


def beta_moments(a, b):
    """Variance, third central moment and fourth cumulant of Beta(a, b) (with the mean)."""
    s = a + b
    mean = a / s
    var = a * b / (s * s * (s + 1.0))
    # third central moment
    m3 = 2.0 * a * b * (b - a) / (s**3 * (s + 1.0) * (s + 2.0))
    return mean, var, m3


def beta_k4(a, b):
    """Fourth cumulant of Beta(a, b): excess kurtosis times the squared variance."""
    s = a + b
    var = a * b / (s * s * (s + 1.0))
    excess = 6.0 * ((a - b) ** 2 * (s + 1.0) - a * b * (s + 2.0)) / (a * b * (s + 2.0) * (s + 3.0))
    return excess * var * var


def tails(combine, x, upper, slope=False):
    """``(tail, pdf)`` where tail is the cdf, or the sf where ``upper`` (one evaluation).

    With ``slope=True`` also the derivative of the density (kind ``"dpdf"``).
    """
    if upper.all():
        kinds = ["sf"]
    elif not upper.any():
        kinds = ["cdf"]
    else:
        kinds = ["cdf", "sf"]
    kinds.append("pdf")
    if slope:
        kinds.append("dpdf")
    v = combine(x, tuple(kinds))
    t = np.where(upper, v["sf"], v["cdf"]) if len(kinds) - slope == 3 else v[kinds[0]]
    out = (unit(t), np.maximum(v["pdf"], 0.0))
    return out + (v["dpdf"],) if slope else out


def cornish_fisher_start(q, upper, mean, sd, m3, lo, hi, k4=0.0):
    """Cornish-Fisher guess of the quantile from the exact mean, sd, third moment and fourth
    cumulant (second-order expansion)."""
    z = sc.ndtri(q)
    z = np.where(upper, -z, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd_ = np.asarray(sd, float)
        g1 = np.where(sd_ > 0, m3 / sd_**3, 0.0)
        g2 = np.where(sd_ > 0, k4 / sd_**4, 0.0)
    z2 = z * z
    zc = z + (z2 - 1.0) * g1 / 6.0 + z * (z2 - 3.0) * g2 / 24.0 - z * (2.0 * z2 - 5.0) * g1**2 / 36.0
    return np.clip(mean + sd * zc, lo, hi)


def newton_quantile(tail_and_pdf, target, upper, x, lo, hi, tol_x, kinks=None):
    """Solve ``tail(x) = target`` row by row (tail = cdf, or sf where ``upper``).

    Safeguarded Newton: each step uses the density and falls back to bisection of the bracket
    ``[lo, hi]`` kept from the signs of the residuals. All arguments are 1-D arrays of one
    length; ``tail_and_pdf(x_rows, upper_rows, rows)`` evaluates the rows still iterating and
    returns ``(tail, pdf)`` or ``(tail, pdf, slope of the pdf)``; with the slope, the steps are
    Halley's (cubic convergence) where its correction of the Newton step is moderate.
    """
    rounds = newton_rounds(target, upper, x, lo, hi, tol_x, kinks)
    return drive(rounds, lambda req: tail_and_pdf(req[1], req[2], req[0]))


def drive(rounds, evaluate):
    """Run a generator of evaluation rounds (see :func:`newton_rounds`) to its result."""
    try:
        request = next(rounds)
        while True:
            request = rounds.send(evaluate(request))
    except StopIteration as stop:
        return stop.value


def newton_rounds(target, upper, x, lo, hi, tol_x, kinks=None):
    """The iterations of :func:`newton_quantile` as a generator.

    ``kinks``: points where the density may not be smooth (a jump of a component's density
    smeared by the others: its slope jumps there), shared by all rows (1-D) or per row (2-D,
    ``inf`` where a row has fewer). Near one, Newton and Halley converge only
    linearly, so the early stop after a fast contraction is not taken within 100 previous
    steps of a kink (measured: a two-class quantile 3e-4 from the kink at 1/2, accepted
    5.5e-9 from the root after a contraction by 100, when the iteration started elsewhere).

    Each round yields ``(rows, x_rows, upper_rows)`` for the rows still iterating and receives
    ``(tail, pdf)`` or ``(tail, pdf, slope)`` there; returns the solutions. Several such
    generators (and :meth:`SumDistribution._mode_rounds`) can share one evaluation per round.
    """
    x = np.array(x, dtype=float)
    # working copies of the rows still iterating (compacted as rows finish)
    act = np.arange(x.size)
    if kinks is not None:
        kinks = np.asarray(kinks, dtype=float)
    xa, lo, hi = x.copy(), np.array(lo, dtype=float), np.array(hi, dtype=float)
    ta, up, tol = np.asarray(target, float), np.asarray(upper, bool), np.asarray(tol_x, float)
    sign = np.where(up, -1.0, 1.0)  # residual of the tail, turned into one of the cdf
    prev = np.full(x.size, np.inf)  # last Newton step per row (inf: none yet, or bisection)
    for _ in range(100):
        t, f, *slope = yield act, xa, up
        r = t - ta
        rc = sign * r  # > 0: x is right of the root
        right = rc > 0
        hi = np.where(right, np.minimum(hi, xa), hi)
        lo = np.where(right, lo, np.maximum(lo, xa))
        with np.errstate(all="ignore"):
            dx = rc / f  # Newton step
            if slope:
                corr = 1.0 - 0.5 * dx * slope[0] / f
                dx = np.where((corr >= 0.5) & (corr <= 2.0), dx / corr, dx)
            xn = xa - dx
            # outside the bracket, not finite, or no density: bisect
            bad = ~((xn >= lo) & (xn <= hi) & (f > 0) & (f < np.inf))
        xn = np.where(bad, 0.5 * (lo + hi), xn)
        step = np.abs(xn - xa)
        # 1e-12 relative in the tail: the quantile is then within ~1e-12 sd (far below the bar)
        conv = np.abs(r) <= 1e-12 * ta
        small = (~bad & (step <= tol) & (np.abs(r) < 1e-9)) | (hi - lo <= tol)
        # A step of at most 1e-4 sd that is at most 1 % of the previous one: the iteration
        # contracts here by rho <= step / prev, so the error left after this step is at most
        # about step * rho = step^2 / prev, required below 1e-8 sd (quadratic or cubic
        # convergence makes it smaller still, but not near a jump or kink of the density).
        # Where the distribution gives no slope of its density (NaN: a component's density
        # jumps at an end, so the sum's can be steep on the narrow components' scale, and the
        # steps are Newton's) the error left is estimated from two steps, never one, and the
        # bar is 1e-10 sd: a first Newton step of 9e-5 sd, taken as final, left 1.6e-8 sd.
        newton = np.zeros(step.size, bool) if not slope else ~np.isfinite(slope[0])
        bar = np.where(newton, 1.0, 1e2)
        fast = ~bad & (step <= 1e6 * tol) & (step <= 0.01 * prev) & (step * step <= bar * tol * prev)
        fast &= ~newton | np.isfinite(prev)
        if kinks is not None and fast.any():
            kn = kinks[None, :] if kinks.ndim == 1 else kinks[act]
            near = np.min(np.abs(xn[:, None] - kn), axis=1)
            fast &= near >= 1e2 * prev
        prev = np.where(bad, np.inf, step)
        xa = np.where(conv, xa, xn)
        fin = conv | small | fast
        if fin.any():
            x[act[fin]] = xa[fin]
            keep = ~fin
            if not keep.any():
                break
            act, xa, lo, hi, ta, up, tol, sign, prev = (
                v[keep] for v in (act, xa, lo, hi, ta, up, tol, sign, prev)
            )
    else:
        x[act] = xa
    return x


def unit(v):
    """Clip to [0, 1] (a ufunc pair: cheaper than ``np.clip`` on small arrays)."""
    return np.minimum(np.maximum(v, 0.0), 1.0)
