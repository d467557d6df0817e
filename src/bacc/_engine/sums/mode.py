"""The maximum of a density that may have kinks, jumps or singular points.

Used by :meth:`bacc.distributions.SumDistribution.mode` where the density is not known to be
smooth at its peak: a component whose density jumps or diverges at an end of its support (a
perfect or an all-wrong class, flat or Jeffreys prior) makes the density of the sum kinked or
singular at the points where the components' ends meet, and the peak is often exactly there
(``[[12, 0], [9, 0]]``: a perfect class beside an all-wrong one peaks at 0.5).

Method: the density is evaluated on a grid in standardised coordinates together with the
candidate points (the support's ends and the points where the components' ends meet). Where no
candidate lies in or beside the bracket between the best grid point's neighbours, the density
is smooth there: Newton steps on the slope, each from three values ``1e-4`` sd apart, start at
the vertex of the parabola through the three grid values and stay in the bracket (about 15
values instead of the zoom's 110; the zoom below takes over if they do not settle or the
answer fails the check). Otherwise the bracket is zoomed into, 17 points per round (one
vectorised evaluation each), the candidates inside the bracket always among them. When the
bracket closes on a candidate, that point is the mode, exactly (a kink or a singular point:
the zoom converges to it from whichever side the density rises). Otherwise the peak is smooth:
the vertex of the parabola through three points ``1e-4`` sd apart (a Newton step on the slope,
error about ``1e-8`` sd) polishes it. The answer is verified against the density: a kink or singular point is not
lower than the density ``1e-6`` sd to either side, a smooth peak not lower than ``1e-3`` sd
to either side (up to the values' rounding noise).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_ROUNDS = 40
_POINTS = 17
_CLOSE = 1e-5  # bracket width (in sd) at which the zoom stops
_POLISH = 1e-4  # half-spacing (in sd) of the three points of the final parabola
_CHECK = 1e-6  # distance (in sd) of the verification points


def find_mode(
    pdf: Callable[[np.ndarray], np.ndarray],
    lo: float,
    hi: float,
    mean: float,
    sd: float,
    candidates: np.ndarray,
    tabulated: bool = False,
) -> float:
    """Location of the maximum of ``pdf`` on ``[lo, hi]`` (see the module notes).

    Parameters
    ----------
    pdf : callable
        Vectorised density (may return inf or nan at a singular point).
    lo, hi : float
        Support.
    mean, sd : float
        Mean and standard deviation (the scale of the search).
    candidates : ndarray
        Points where the density may be kinked or singular (returned exactly when the peak is
        there).
    tabulated : bool
        The density is interpolated from a table (rounding noise of ~1e-9 of the peak): a
        smooth peak is then refined by parabolas ``1e-3`` and ``2e-3`` sd wide, combined by
        Richardson extrapolation (their error is ``c h^2``).
    """
    cand = np.unique(np.clip(np.asarray(candidates, dtype=float), lo, hi))
    cand = np.union1d(cand, [lo, hi])

    def value(x):
        f = np.asarray(pdf(x), dtype=float)
        # a singular point is as high as it gets
        return np.where(np.isnan(f), -np.inf, f)

    xs = np.union1d(np.clip(mean + sd * np.linspace(-6.0, 6.0, 49), lo, hi), cand)
    f = value(xs)
    k = int(np.argmax(f))
    if 0 < k < xs.size - 1:
        a, b = float(xs[k - 1]), float(xs[k + 1])
        if not np.any((cand >= a - (b - a)) & (cand <= b + (b - a))):
            x, broad = _smooth_peak(value, xs[k - 1 : k + 2], f[k - 1 : k + 2], sd, tabulated)
            check = {"distance": 1e-3, "noise": 1e-9} if broad else {}
            if x is not None and _verified(value, x, lo, hi, sd, **check):
                return x
    a, b = lo, hi
    best = float(xs[k])
    for _ in range(_ROUNDS):
        k = int(np.argmax(f))
        best = float(xs[k])
        a = float(xs[max(k - 1, 0)])
        b = float(xs[min(k + 1, xs.size - 1)])
        if b - a <= _CLOSE * sd:
            break
        inside = cand[(cand > a) & (cand < b)]
        xs = np.union1d(np.linspace(a, b, _POINTS), inside)
        f = value(xs)
    # the bracket closed on a candidate: a kink, a jump or a singular point
    near = cand[(cand >= a - (b - a)) & (cand <= b + (b - a))]
    if near.size:
        x = float(near[np.argmin(np.abs(near - best))])
        if _verified(value, x, lo, hi, sd):
            return x
    # a smooth peak: vertices of parabolas through three close points (Newton steps on the
    # slope), until a step is below 1e-8 sd
    h = _POLISH * sd
    x = min(max(best, lo + h), hi - h)
    width = 0.0  # the peak's width, sqrt(f / |f''|)
    for _ in range(4):
        fm, f0, fp = value(np.array([x - h, x, x + h]))
        curv = fp - 2.0 * f0 + fm
        if not (np.isfinite(curv) and curv < 0):
            break
        width = h * float(np.sqrt(f0 / -curv))
        step = -0.5 * h * (fp - fm) / curv
        if abs(step) > 2.0 * h:
            break
        x = min(max(x + step, lo + h), hi - h)
        if abs(step) <= 1e-8 * sd:
            break
    if tabulated and width > 0.1 * sd:
        # a broad peak of an interpolated density: refined and verified at 1e-3 sd, above the
        # values' rounding noise
        x = _wide_vertex(value, x, lo, hi, sd)
        if _verified(value, x, lo, hi, sd, distance=1e-3, noise=1e-9):
            return float(x)
    if _verified(value, x, lo, hi, sd):
        return float(x)
    return best


def _smooth_peak(value, x3: np.ndarray, f3: np.ndarray, sd: float,
                 tabulated: bool) -> tuple[float | None, bool]:
    """The peak of a smooth density inside the bracket ``[x3[0], x3[2]]`` around its best grid
    value ``x3[1]``, or None where the Newton steps do not settle (the zoom then takes over);
    and whether it is the broad peak of a tabulated density (then checked at 1e-3 sd, above
    the table's rounding noise, as in :func:`find_mode`).

    Start: the vertex of the parabola through the three grid values. Steps: the vertex of the
    parabola through three values ``1e-4`` sd apart (a Newton step on the slope), kept in the
    bracket, until a step is below ``1e-8`` sd. A tabulated density's broad peak is then refined
    at 1e-3 sd (see :func:`_wide_vertex`).
    """
    a, b = float(x3[0]), float(x3[2])
    h = _POLISH * sd
    if not (np.all(np.isfinite(f3)) and b - a > 4.0 * h):
        return None, False
    d1, d2 = x3[1] - x3[0], x3[2] - x3[1]
    # vertex of the parabola through three unequally spaced points: with t = x - x3[1],
    # f = f3[1] + b t + a t^2 and the vertex at -b / (2 a)
    up, down = f3[2] - f3[1], f3[0] - f3[1]
    curv = d2 * down + d1 * up  # a d1 d2 (d1 + d2)
    x = float(x3[1] - 0.5 * (d1**2 * up - d2**2 * down) / curv) if curv < 0 else float(x3[1])
    x = min(max(x, a + h), b - h)
    width = 0.0
    for _ in range(12):
        fm, f0, fp = value(np.array([x - h, x, x + h]))
        curv = fp - 2.0 * f0 + fm
        if not (np.isfinite(curv) and curv < 0):
            return None, False
        width = h * float(np.sqrt(f0 / -curv))
        step = -0.5 * h * (fp - fm) / curv
        x = min(max(x + step, a + h), b - h)
        if abs(step) <= 1e-8 * sd:
            break
    else:
        return None, False
    if tabulated and width > 0.1 * sd:
        return _wide_vertex(value, x, a, b, sd), True
    return float(x), False


def _wide_vertex(value, x: float, lo: float, hi: float, sd: float) -> float:
    """Richardson extrapolation of the vertices of parabolas 1e-3 and 2e-3 sd wide around x
    (noise of the values enters divided by the width; the vertices' error is ``c h^2``)."""
    H = 1e-3 * sd
    if not (lo + 2 * H < x < hi - 2 * H):
        return x
    return richardson_vertex(x, H, value(x + H * WIDE))


#: Offsets (in units of the spacing) of the five points of :func:`richardson_vertex`.
WIDE = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])


def richardson_vertex(x: float, H: float, f) -> float:
    """The peak near ``x`` from the density at ``x + H * WIDE``: the vertices of the parabolas
    through the points ``H`` and ``2 H`` apart (error ``c h^2`` each) combined by Richardson
    extrapolation; ``x`` itself where the values do not bend down or the result leaves
    ``[x - H, x + H]``."""
    f2m, fm, f0, fp, f2p = f
    c1, c2 = fp - 2.0 * f0 + fm, f2p - 2.0 * f0 + f2m
    if not (c1 < 0 and c2 < 0):
        return x
    v1 = x - 0.5 * H * (fp - fm) / c1
    v2 = x - H * (f2p - f2m) / c2
    refined = (4.0 * v1 - v2) / 3.0
    return float(refined) if abs(refined - x) <= H else x


def _verified(
    value, x: float, lo: float, hi: float, sd: float, distance: float = _CHECK,
    noise: float = 1e-12,
) -> bool:
    """The density at ``x`` is not below its values ``distance`` sd to either side (inside
    the support), up to ``noise`` relative."""
    d = distance * sd
    pts = np.array([x, max(lo, x - d), min(hi, x + d)])
    f = value(pts)
    if np.isinf(f[0]) and f[0] > 0:
        return True
    if x in (lo, hi) and not f[0] > 0:
        # a singular end of the support, where the density cannot be evaluated: it must rise
        # all the way to it
        side = -1.0 if x == hi else 1.0
        g = value(x + side * d * np.array([1.0, 10.0, 100.0]))
        return bool(g[0] >= g[1] >= g[2] and g[0] > 0)
    tol = noise * max(abs(float(f[0])), 1e-300)
    return bool(f[0] >= f[1] - tol and f[0] >= f[2] - tol)
