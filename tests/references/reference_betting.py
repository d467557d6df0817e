"""An independent, plain-loop implementation of the hedged capital process of Waudby-Smith &
Ramdas (2024), for the tests of ``bacc``'s betting sequences.

Written from the paper's definitions (section 4, eq. 26-27) one example at a time in Python
floats, with the truncation of the share at risk lifted to the Kelly share of the predictive
``q = (right so far + g m) / (seen so far + g)``, ``g = h + (1 / f - 1) seen so far``, where that
is larger, and with no grid and no cells: the capital at a null value ``m`` is the product of its
factors, the set at each time is found on a dense grid of null values and each end refined by
bisection between the last point outside and the first inside.
"""

from __future__ import annotations

import math


def bets(x, alpha_side, prior_mean=0.5, prior_var=0.25, pseudo=1.0):
    """The predictable plug-in bets, one example at a time."""
    out = []
    total, sq = 0.0, 0.0
    var_before = prior_var
    for i, xi in enumerate(x, start=1):
        out.append(math.sqrt(2.0 * math.log(1.0 / alpha_side) / (var_before * i * math.log(1.0 + i))))
        total += xi
        mean_i = min((pseudo * prior_mean + total) / (i + pseudo), 1.0)
        sq += (xi - mean_i) ** 2
        var_before = (pseudo * prior_var + sq) / (i + pseudo)
    return out


def kelly_share(right, seen, m, up, pseudo=10.0, fraction=0.8):
    """Kelly share of the predictive ``q = (right + g m) / (seen + g)``, ``g = pseudo + (1 /
    fraction - 1) seen``, betting that the mean is above (``up``) or below ``m``:
    ``(q - m) / (1 - m)`` or ``(m - q) / m``, at least 0; at ``m = 1`` (up) or ``m = 0`` (down)
    its limit."""
    g = pseudo + (1.0 / fraction - 1.0) * seen
    if up and m == 1.0:
        return seen / (seen + g) if right == seen else 0.0
    if not up and m == 0.0:
        return seen / (seen + g) if right == 0 else 0.0
    q = (right + g * m) / (seen + g)
    return max(0.0, (q - m) / (1.0 - m)) if up else max(0.0, (m - q) / m)


def log_capital(x, m, alpha, theta=0.5, c=0.5, pseudo=10.0, fraction=0.8):
    """``log(theta K+ + (1 - theta) K-)`` after all of ``x`` at the null value ``m``."""
    up, down = 0.0, 0.0
    lam_up = bets(x, alpha * theta) if theta > 0 else [0.0] * len(x)
    lam_down = bets(x, alpha * (1 - theta)) if theta < 1 else [0.0] * len(x)
    right = 0.0
    for seen, (xi, lu, ld) in enumerate(zip(x, lam_up, lam_down, strict=True)):
        cap_up = max(c, kelly_share(right, seen, m, True, pseudo, fraction))
        cap_down = max(c, kelly_share(right, seen, m, False, pseudo, fraction))
        bu = lu if m == 0 else min(lu, cap_up / m)
        bd = ld if m == 1 else min(ld, cap_down / (1 - m))
        up += math.log(1.0 + bu * (xi - m))
        down += math.log(1.0 - bd * (xi - m))
        right += xi
    terms = []
    if theta > 0:
        terms.append(math.log(theta) + up)
    if theta < 1:
        terms.append(math.log(1 - theta) + down)
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def hull(x, alpha, theta=0.5, points=2001):
    """Ends of ``{m : capital < 1 / alpha}``: the first and last of a dense grid of points
    inside, each refined by bisection towards its neighbour outside (None if no point is in)."""
    thr = math.log(1.0 / alpha)
    grid = [i / (points - 1) for i in range(points)]
    inside = [log_capital(x, m, alpha, theta) < thr for m in grid]
    if not any(inside):
        return None
    first = inside.index(True)
    last = points - 1 - inside[::-1].index(True)

    def refine(a_out, b_in):
        for _ in range(50):
            mid = 0.5 * (a_out + b_in)
            if log_capital(x, mid, alpha, theta) < thr:
                b_in = mid
            else:
                a_out = mid
        return b_in

    lo = grid[first] if first == 0 else refine(grid[first - 1], grid[first])
    hi = grid[last] if last == points - 1 else refine(grid[last + 1], grid[last])
    return lo, hi
