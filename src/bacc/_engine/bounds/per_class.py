"""Per-class bound kernels: Clopper-Pearson, Wald, Wilson, Jeffreys, and the levels of the
union and Šidák constructions. Vectorised, no validation (callers check their inputs); ``alpha``
is the probability in each bounded tail.

References
----------
Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.
Wilson, E. B. (1927). JASA 22, 209-212.
Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Statistical Science 16, 101-133.
Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals for balanced
accuracy. Groundlight blog.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special as sc

from ...errors import BaccError
from ..beta import _CERTIFY, _iterate, beta_isf, beta_ppf, beta_quantiles


def tail_level(confidence: float, sides: str) -> float:
    """Probability left in each bounded tail: ``delta / 2`` (two-sided) or ``delta``."""
    delta = 1.0 - confidence
    return delta / 2.0 if sides == "two" else delta


def per_bound_alpha(confidence: float, n_classes: int, sides: str, method: str) -> float:
    """Level of each one-sided per-class bound in the union or Šidák construction.

    Union (Sandler & Dirac (2024), union bound): ``delta / (2 l)`` two-sided, ``delta / l`` one-sided.
    Šidák (independent classes): ``(1 - (1 - delta)^(1/l)) / 2`` two-sided,
    ``1 - (1 - delta)^(1/l)`` one-sided.
    """
    delta = 1.0 - confidence
    if method == "union":
        a = delta / n_classes
    elif method == "sidak":
        a = -math.expm1(math.log1p(-delta) / n_classes)
    else:  # pragma: no cover - guarded by callers
        raise BaccError(f"no per-class level for method {method!r}")
    return a / 2.0 if sides == "two" else a


# ----------------------------------------------------------------------------------------------
# Clopper-Pearson
def cp_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson bounds with ``alpha`` in each bounded tail (no validation).

    Both bounds of every class are one vectorised, verified quantile computation: the lower
    bound ``Beta.ppf(alpha, k, n - k + 1)`` (0 at k = 0), the upper ``Beta.isf(alpha, k + 1,
    n - k)`` (1 at k = n). For ``alpha <= 1/2`` (every union or Šidák level of a confidence of
    at least 1/2) :func:`_cp_certified` does it with one call of each special function; other
    levels go through :func:`bacc._engine.beta.beta_quantiles`. Both give the same numbers.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if n.shape != k.shape:
        n = np.broadcast_to(n, k.shape)
    if 0.0 < alpha <= 0.5 and sides == "two" and k.ndim == 1 and (k > 0).all() and (k < n).all():
        # the common case, every class with both bounds inside (0, 1): no rows to pick out
        return _cp_certified(k, n - k + 1.0, k + 1.0, n - k, alpha)
    lower, upper = np.zeros(k.shape), np.ones(k.shape)
    lo_rows = (k > 0) if sides in ("two", "lower") else np.zeros(k.shape, dtype=bool)
    hi_rows = (k < n) if sides in ("two", "upper") else np.zeros(k.shape, dtype=bool)
    kl, nl, ku, nu = k[lo_rows], n[lo_rows], k[hi_rows], n[hi_rows]
    if 0.0 < alpha <= 0.5:
        lower[lo_rows], upper[hi_rows] = _cp_certified(kl, nl - kl + 1.0, ku + 1.0, nu - ku, alpha)
        return lower, upper
    q = np.full(kl.size + ku.size, float(alpha))
    x = beta_quantiles(
        q, np.concatenate([kl, ku + 1.0]), np.concatenate([nl - kl + 1.0, nu - ku]),
        np.concatenate([np.zeros(kl.size, dtype=bool), np.ones(ku.size, dtype=bool)]),
    )  # fmt: skip
    lower[lo_rows] = x[: kl.size]
    upper[hi_rows] = x[kl.size :]
    return lower, upper


def _cp_certified(al, bl, au, bu, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """``Beta.ppf(alpha, al, bl)`` and ``Beta.isf(alpha, au, bu)`` (1-D arrays), ``alpha <= 1/2``.

    The same numbers as :func:`bacc._engine.beta.beta_quantiles` gives for these rows: scipy's
    inverse ``betaincinv`` (of ``1 - alpha`` for the upper bounds), kept where the root of the
    tail solved for (the CDF ``F = I_x(al, bl)`` below, the survival function ``S = I_{1-x}(bu,
    au)`` above) lies in the bracket ``x (1 -+ 1e-12)``, solved again by the verified iteration
    elsewhere. What is new is a cheaper certificate, one incomplete beta per row at ``x``
    itself instead of two at the ends of the bracket:

    * Lower bounds, where the density ``f`` rises up to ``x (1 + e)`` (``x`` below the mode):
      ``F(x) <= x f(x)``, so ``F`` grows by at least the factor ``1 + e`` from ``x (1 - e)`` to
      ``x`` and from ``x`` to ``x (1 + e)``. A relative residual ``|F(x) / alpha - 1|`` below
      ``e / 2`` therefore puts ``alpha`` between the two ends: the root is in the bracket.
    * Upper bounds, where ``f`` falls from ``x (1 - e)`` on (``x`` above the mode):
      ``S(x) <= (1 - x) f(x)``, and the same holds with the factor ``1 + e x / (1 - x)``.

    Rows outside these conditions, or with a larger residual, get the two-ended test as
    before; the residual test accepts no row the two-ended test would refuse (a margin of a
    factor 2 over the incomplete beta's rounding), so the bounds are unchanged.
    """
    m = al.size
    a, b = np.concatenate([al, au]), np.concatenate([bl, bu])
    q = np.full(a.size, alpha)
    q[m:] = 1.0 - alpha
    with np.errstate(all="ignore"):
        x = sc.betaincinv(a, b, q)
        # the point where each tail is evaluated: x (CDF), 1 - x (SF, as I_{1-x}(bu, au))
        z = x.copy()
        np.subtract(1.0, x[m:], out=z[m:])
        # the parameter at the end of the tail solved for (al below, bu above) comes first
        first = np.concatenate([al, bu])
        t = sc.betainc(first, np.concatenate([bl, au]), z)
        ex = _CERTIFY * x
        # the density is monotone over the bracket, rising up to x (1 + 2e) below the mode
        # (a - 1) / (a + b - 2), falling from x (1 - 2e) above it (2e: a margin for rounding):
        # sign * ((a - 1) - x s) >= 2 e x s, sign +1 below and -1 above, s = a + b - 2
        xs = x * (a + b - 2.0)
        sign = np.ones(a.size)
        sign[m:] = -1.0
        ok = sign * ((a - 1.0) - xs) >= (2.0 * _CERTIFY) * xs
        ok &= first > 1.0
        # |t - alpha| <= alpha d / (2 (1 + d)), d = e x / z, without dividing
        ok &= np.abs(t - alpha) * (z + ex) <= (0.5 * alpha) * ex
        ok &= (x > 0.0) & (x < 1.0)
    if ok.all():
        return x[:m], x[m:]
    upper = np.arange(a.size) >= m
    rest = np.flatnonzero(~ok)
    xr, ar, br, ur = x[rest], a[rest], b[rest], upper[rest]
    with np.errstate(all="ignore"):
        # the two-ended test of beta_quantiles, on the rows left
        xs = np.stack([xr * (1.0 - _CERTIFY), np.minimum(xr * (1.0 + _CERTIFY), 1.0)])
        t = sc.betainc(np.where(ur, br, ar), np.where(ur, ar, br), np.where(ur, 1.0 - xs, xs))
        rising = np.where(ur, t[1] <= alpha, t[0] <= alpha)
        falling = np.where(ur, t[0] >= alpha, t[1] >= alpha)
        good = np.isfinite(xr) & (xr > 0.0) & (xr < 1.0) & rising & falling
    if not good.all():
        bad = rest[~good]
        x[bad] = _iterate(np.full(bad.size, float(alpha)), a[bad], b[bad], upper[bad])
    return x[:m], x[m:]


def normal_quantile(alpha: float) -> float:
    return float(-sc.ndtri(alpha))


def wald_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Wald bounds ``p_hat -+ z sqrt(p_hat (1 - p_hat) / n)``; not clipped (nan for n = 0)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        half = normal_quantile(alpha) * np.sqrt(p * (1.0 - p) / n)
    lower = p - half if sides in ("two", "lower") else np.zeros(p.shape)
    upper = p + half if sides in ("two", "upper") else np.ones(p.shape)
    return lower, upper


def wilson_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score bounds ``(k + z^2/2 -+ z sqrt(k (n - k) / n + z^2 / 4)) / (n + z^2)``."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = normal_quantile(alpha)
    z2 = z * z
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = (k + z2 / 2.0) / (n + z2)
        half = z * np.sqrt(k * (n - k) / n + z2 / 4.0) / (n + z2)
    lower = np.clip(centre - half, 0.0, 1.0) if sides in ("two", "lower") else np.zeros(k.shape)
    upper = np.clip(centre + half, 0.0, 1.0) if sides in ("two", "upper") else np.ones(k.shape)
    empty = n == 0
    return np.where(empty, 0.0, lower), np.where(empty, 1.0, upper)


def jeffreys_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Jeffreys bounds: Beta(k + 1/2, n - k + 1/2) quantiles, 0 at k = 0 and 1 at k = n."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    lower = np.zeros(k.shape)
    upper = np.ones(k.shape)
    if sides in ("two", "lower"):
        m = k > 0
        if m.any():
            lower[m] = beta_ppf(alpha, k[m] + 0.5, n[m] - k[m] + 0.5)
    if sides in ("two", "upper"):
        m = k < n
        if m.any():
            upper[m] = beta_isf(alpha, k[m] + 0.5, n[m] - k[m] + 0.5)
    return lower, upper


KERNELS = {"wald": wald_bounds, "wilson": wilson_bounds, "jeffreys": jeffreys_bounds}


def balanced_wald(k, n, w, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Wald interval of the balanced accuracy; ``k`` has shape (..., l), ``n`` and ``w`` (l,).

    ``sum w_i p_i -+ z sqrt(sum w_i^2 p_i (1 - p_i) / n_i)``, not clipped.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    w = np.asarray(w, dtype=float)
    p = k / n
    est = p @ w
    half = normal_quantile(alpha) * np.sqrt((p * (1.0 - p) / n) @ (w * w))
    lower = est - half if sides in ("two", "lower") else np.zeros(est.shape)
    upper = est + half if sides in ("two", "upper") else np.ones(est.shape)
    return lower, upper


