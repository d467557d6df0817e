"""The Beta CDF at many equally spaced points, from its density.

A lattice table (:mod:`bacc._engine.sums.lattice`) needs the exact CDF of its widest component at
every point of a lattice whose step a much narrower component sets: hundreds of thousands of
points when one class has a handful of examples and another millions, one incomplete beta
(about 0.3 us) each. Where the step is small against the component's spread, the CDF is the
running integral of a smooth density instead: the mass of each cell by a six-point rule on
the density at the lattice points (exact for polynomials of degree 5; error of order
``h^7 f^(6)`` per cell), and every block of cells scaled to the exact mass between its two
ends, which are incomplete-beta evaluations. Near 0 and 1, where a density with a non-integer
exponent is not smooth at any scale, every point is an incomplete-beta evaluation.
"""

from __future__ import annotations

import numpy as np

from .beta import beta_tails

__all__ = ["beta_tails_grid"]

_MIN_POINTS = 4096  # below this, one incomplete beta per point costs little
_SLOPE = 0.01  # largest step times |(log f)'| where the density is integrated
_CURVE = 1e-4  # largest step^2 times |(log f)''|
_EDGE = 200.0  # steps from an end where the density has a non-integer exponent
_STRIDE = 16
_BLOCK = 256  # cells between two exact anchors
# mass of the cell [x_i, x_{i+1}] from the density at x_{i-2}, ..., x_{i+3} (step 1)
_CELL = np.array([11.0, -93.0, 802.0, 802.0, -93.0, 11.0]) / 1440.0


def beta_tails_grid(a: float, b: float, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(I_t(a, b), 1 - I_t(a, b))`` at equally spaced, increasing points ``t``.

    The same numbers as :func:`bacc._engine.beta.beta_tails` at the points clipped to
    [0, 1] (within about 1e-15, each tail with its relative precision: the lower one below
    the mean, the upper one above), for a fraction of the cost on fine lattices (module
    notes). Points outside [0, 1] are allowed.
    """
    t = np.asarray(t, dtype=float)
    n = t.size
    if n < _MIN_POINTS:
        return beta_tails(a, b, np.clip(t, 0.0, 1.0))
    mean = a / (a + b)
    d = float(t[1] - t[0])
    # where the density is smooth at the step: its logarithm changes by at most 1 % per step
    # and its curvature is resolved (the rule's relative error is then below ~1e-14 per
    # cell); the stencils stay inside (0, 1)
    # (checked on every 16th point: both measures vary slowly and are smallest in the
    # middle, so the points between two that pass pass too)
    ts = t[::_STRIDE]
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (a - 1.0) / ts - (b - 1.0) / (1.0 - ts)
        curve = (a - 1.0) / (ts * ts) + (b - 1.0) / ((1.0 - ts) * (1.0 - ts))
        # a power of t (1 - t) with a non-integer exponent is rough at 0 (1) at every scale
        lo = (3.0 if float(a).is_integer() else _EDGE) * d
        hi = (4.0 if float(b).is_integer() else _EDGE) * d
        ok = (ts > lo) & (1.0 - ts > hi) & (d * np.abs(slope) <= _SLOPE)
        ok &= d * d * np.abs(curve) <= _CURVE
    good = np.flatnonzero(ok) * _STRIDE
    if good.size < 2 or good[-1] - good[0] != (good.size - 1) * _STRIDE:
        return beta_tails(a, b, np.clip(t, 0.0, 1.0))
    good = (max(int(good[0]), 2), min(int(good[-1]), n - 4))
    if good[1] - good[0] < 2 * _BLOCK:
        return beta_tails(a, b, np.clip(t, 0.0, 1.0))
    i0, i1 = int(good[0]), int(good[-1])
    cells = i1 - i0
    F = np.empty(n)
    S = np.empty(n)
    blocks = -(-cells // _BLOCK)
    anchors = np.minimum(i0 + _BLOCK * np.arange(blocks + 1), i1)
    # exact values: below and above the density's range, and at the anchors
    exact = np.concatenate([np.arange(i0), anchors, np.arange(i1 + 1, n)])
    Fe, Se = beta_tails(a, b, np.clip(t[exact], 0.0, 1.0))
    F[exact], S[exact] = Fe, Se
    # the density's shape (its constant cancels in the scaling to exact block masses),
    # relative to the mean so that large parameters lose no digits
    u = t[i0 - 2 : i1 + 3]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        # log(u / mean) and log((1 - u) / (1 - mean)), each from the small difference
        lu = np.log1p((u - mean) / mean)
        lv = np.log1p((mean - u) / (1.0 - mean))
        logf = (a - 1.0) * lu + (b - 1.0) * lv
        f = np.exp(logf - np.max(logf))
    c = np.zeros(blocks * _BLOCK)
    c[:cells] = np.convolve(f, _CELL[::-1], mode="valid")
    c = np.maximum(c, 0.0).reshape(blocks, _BLOCK)
    # exact mass of each block, from the tail in which it is accurate
    Fa, Sa = F[anchors], S[anchors]
    mass = np.where(t[anchors[1:]] <= mean, Fa[1:] - Fa[:-1], Sa[:-1] - Sa[1:])
    total = c.sum(axis=1)
    scale = np.where(total > 0.0, np.maximum(mass, 0.0) / np.where(total > 0.0, total, 1.0), 0.0)
    c *= scale[:, None]
    # running sums within each block: the CDF from the block's left anchor, the upper tail
    # from its right one (anchors keep their exact values)
    up = np.cumsum(c, axis=1)
    up[:, 1:] = up[:, :-1]
    up[:, 0] = 0.0
    down = np.cumsum(c[:, ::-1], axis=1)[:, ::-1]
    F[i0:i1] = (up + Fa[:-1, None]).ravel()[:cells]
    S[i0:i1] = (down + Sa[1:, None]).ravel()[:cells]
    F[anchors], S[anchors] = Fa, Sa
    return F, S
