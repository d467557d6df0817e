"""Validation of arguments at the public boundary (one place, one style of message)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from ..errors import BaccError

__all__ = [
    "check_confidence",
    "check_method",
    "check_metric",
    "check_probabilities",
    "check_prior",
    "check_sides",
    "check_weights",
]

SIDES = ("two", "lower", "upper")
METRICS = ("balanced_accuracy", "accuracy")


def check_confidence(confidence: float, name: str = "confidence") -> float:
    """Return ``confidence`` as a float in the open interval (0, 1), or raise."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise BaccError(f"{name} must be a number in (0, 1), got {confidence!r}")
    c = float(confidence)
    if not (0.0 < c < 1.0):
        raise BaccError(f"{name} must lie strictly between 0 and 1, got {confidence!r}")
    return c


def check_probabilities(q, name: str = "q") -> np.ndarray:
    """Return ``q`` as a float array with every value in [0, 1], or raise."""
    try:
        arr = np.asarray(q, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"{name} must be numbers in [0, 1], got {q!r}") from None
    if not ((arr >= 0) & (arr <= 1)).all():  # one test in the common case (NaN fails it)
        if np.any(np.isnan(arr)):
            raise BaccError(f"{name} contains NaN; probabilities must lie in [0, 1]")
        bad = arr[(arr < 0) | (arr > 1)].ravel()[0]
        raise BaccError(f"{name} must lie in [0, 1], got {bad!r}")
    return arr


def check_prior(prior, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Return per-class Beta prior parameters ``(a, b)``, each of length ``n_classes``.

    ``prior`` is one pair ``(a, b)`` used for every class, or a sequence of ``n_classes``
    pairs, or an array of shape ``(n_classes, 2)``.
    """
    if isinstance(prior, str):
        named = {"flat": (1.0, 1.0), "uniform": (1.0, 1.0), "jeffreys": (0.5, 0.5)}
        if prior.lower() not in named:
            raise BaccError(
                f"prior {prior!r} is unknown; use 'flat', 'jeffreys' or a pair (a, b) of positive numbers"
            )
        prior = named[prior.lower()]
    try:
        arr = np.asarray(prior, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"prior must be a pair (a, b) of positive numbers, got {prior!r}") from None
    if arr.shape == (2,):
        arr = np.broadcast_to(arr, (n_classes, 2))
    elif arr.shape != (n_classes, 2):
        raise BaccError(
            f"prior must be one pair (a, b) or {n_classes} pairs (one per class), "
            f"got an array of shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise BaccError(f"prior parameters must be finite and > 0, got {prior!r}")
    return arr[:, 0].copy(), arr[:, 1].copy()


def check_weights(weights, n_classes: int, *, allow_none: bool = True) -> np.ndarray:
    """Return class weights (non-negative, summing to 1), equal weights when ``None``."""
    if weights is None:
        if not allow_none:
            raise BaccError("weights are required")
        return np.full(n_classes, 1.0 / n_classes)
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"weights must be numbers, got {weights!r}") from None
    if w.shape != (n_classes,):
        raise BaccError(f"weights must have one value per class ({n_classes}), got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise BaccError("weights must be finite numbers")
    if np.any(w < 0):
        raise BaccError(f"weights must be >= 0, got {w[w < 0][0]!r}")
    if abs(w.sum() - 1.0) > 1e-9:
        raise BaccError(f"weights must sum to 1, they sum to {w.sum()!r}")
    return w


def as_label_sequence(values, name: str) -> Sequence:
    """Return a 1-D sequence of labels, or raise."""
    if isinstance(values, str | bytes):
        raise BaccError(f"{name} must be a sequence of labels, not a single string")
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise BaccError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return list(arr)


def check_sides(sides: str) -> str:
    """Return ``sides`` if it is one of ``"two"``, ``"lower"``, ``"upper"``, else raise."""
    if not isinstance(sides, str) or sides not in SIDES:
        raise BaccError(f"sides must be 'two', 'lower' or 'upper', got {sides!r}")
    return sides


def check_metric(metric: str) -> str:
    """Return ``metric`` if it is ``"balanced_accuracy"`` or ``"accuracy"``, else raise."""
    if not isinstance(metric, str) or metric not in METRICS:
        raise BaccError(f"metric must be 'balanced_accuracy' or 'accuracy', got {metric!r}")
    return metric


def check_method(method: str, allowed: Sequence[str], what: str) -> str:
    """Return ``method`` if it is in ``allowed``, else raise naming the choices."""
    if not isinstance(method, str) or method not in allowed:
        choices = ", ".join(repr(m) for m in allowed)
        raise BaccError(f"unknown {what} method {method!r}; choose one of {choices}")
    return method
