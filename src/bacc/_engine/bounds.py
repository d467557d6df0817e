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

from ..errors import BaccError
from .beta import beta_isf, beta_ppf, beta_quantiles


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
def _cp_lower(k, n, alpha) -> np.ndarray:
    """One-sided Clopper-Pearson lower bound ``Beta.ppf(alpha, k, n - k + 1)``; 0 at k = 0."""
    k, n, alpha = np.broadcast_arrays(
        np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(alpha, dtype=float)
    )
    out = np.zeros(k.shape, dtype=float)
    m = k > 0
    if m.any():
        out[m] = beta_ppf(alpha[m], k[m], n[m] - k[m] + 1.0)
    return out


def _cp_upper(k, n, alpha) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound ``Beta.isf(alpha, k + 1, n - k)``; 1 at k = n."""
    k, n, alpha = np.broadcast_arrays(
        np.asarray(k, dtype=float), np.asarray(n, dtype=float), np.asarray(alpha, dtype=float)
    )
    out = np.ones(k.shape, dtype=float)
    m = k < n
    if m.any():
        out[m] = beta_isf(alpha[m], k[m] + 1.0, n[m] - k[m])
    return out


def cp_bounds(k, n, alpha: float, sides: str) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson bounds with ``alpha`` in each bounded tail (no validation).

    Both bounds of every class are one vectorised, verified quantile computation
    (:func:`bacc._engine.beta.beta_quantiles`): the lower bound ``Beta.ppf(alpha, k,
    n - k + 1)`` (0 at k = 0), the upper ``Beta.isf(alpha, k + 1, n - k)`` (1 at k = n).
    """
    k = np.asarray(k, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), k.shape)
    lower, upper = np.zeros(k.shape), np.ones(k.shape)
    lo_rows = (k > 0) if sides in ("two", "lower") else np.zeros(k.shape, dtype=bool)
    hi_rows = (k < n) if sides in ("two", "upper") else np.zeros(k.shape, dtype=bool)
    kl, nl, ku, nu = k[lo_rows], n[lo_rows], k[hi_rows], n[hi_rows]
    q = np.full(kl.size + ku.size, float(alpha))
    x = beta_quantiles(
        q, np.concatenate([kl, ku + 1.0]), np.concatenate([nl - kl + 1.0, nu - ku]),
        np.concatenate([np.zeros(kl.size, dtype=bool), np.ones(ku.size, dtype=bool)]),
    )  # fmt: skip
    lower[lo_rows] = x[: kl.size]
    upper[hi_rows] = x[kl.size :]
    return lower, upper



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


