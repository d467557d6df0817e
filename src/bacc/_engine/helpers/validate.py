"""Validation of arguments at the public boundary (one place, one style of message)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from ...errors import BaccError
from ...labels import is_labelled, per_class

__all__ = [
    "check_rope",
    "MAX_CLASSES",
    "MAX_CONFIDENCE",
    "MAX_COUNT",
    "MAX_PARAMETER",
    "MAX_SIMULATIONS",
    "MIN_CONFIDENCE",
    "MIN_PRIOR",
    "MIN_WEIGHT",
    "check_choice",
    "check_confidence",
    "check_count_limit",
    "check_int",
    "check_random_state",
    "check_sequence",
    "check_size",
    "check_method",
    "check_metric",
    "check_probabilities",
    "check_prior",
    "check_sides",
    "check_weights",
]

SIDES = ("two", "lower", "upper")
METRICS = ("balanced_accuracy", "accuracy")

# --- The limits bacc enforces (this is the one place; every entry point uses these checks) ---
#: Largest count: of one cell, of one class (a row of the matrix) and of a prior pseudo-count.
#: Up to 1e13 examples per class the posterior quantiles stay within 1e-4 standard deviations
#: of the truth (measured: 7e-5 sd); the incomplete beta function at larger parameters loses
#: the digits the narrowing posterior needs (7e-4 sd at 1e14, 1e-2 sd at 1e15; at 1e16 the
#: mode was 0.4 sd off and at 1e17 lower > upper).
MAX_COUNT = 10**13
#: Beta posterior parameters (counts plus prior) at most this.
MAX_PARAMETER = 2.0 * MAX_COUNT
#: Smallest prior parameter. A smaller one puts the mass of a perfect (or empty) class within
#: 1e-13 of 1 (or 0), closer than double precision resolves: with (0.01, 0.01) the median of
#: [[5, 0], [0, 5]] came out above the upper bound.
MIN_PRIOR = 0.05
#: Smallest positive class weight, relative to the largest (a weight of 0 leaves a class out).
#: Below it the class's share of the variance (weight squared) underflows against the others'.
MIN_WEIGHT = 1e-12
#: Confidence levels of intervals lie in [MIN_CONFIDENCE, MAX_CONFIDENCE]: tails of at least
#: 5e-10, where posterior quantiles are within 1e-5 sd (measured: 3e-6 sd against mpmath;
#: at 5e-13 they are 2e-3 sd off).
MIN_CONFIDENCE = 1e-6
MAX_CONFIDENCE = 1.0 - 1e-9
#: Largest number of classes (distinct labels) of a matrix: a 10 000 x 10 000 matrix of counts
#: takes 800 MB (10^5 labels asked for 74.5 GiB); more distinct labels are almost always
#: identifiers or scores, not classes.
MAX_CLASSES = 10_000
#: Largest number of simulated data sets (coverage) or posterior draws (rank) of one call: each
#: costs memory and time in proportion (10^8 draws of a few classes take about a minute).
MAX_SIMULATIONS = 10**8


def check_count_limit(arr, what: str = "the confusion matrix") -> None:
    """Raise unless every count and every class total (sum over the last axis) of ``arr``
    (non-negative numbers, any dtype) is at most :data:`MAX_COUNT`.

    Checked before any conversion to int64, so that unsigned values near 2**64 cannot wrap to
    negative counts.
    """
    arr = np.asarray(arr)
    if arr.size == 0:
        return
    top = arr.max()
    if top > MAX_COUNT:
        raise BaccError(
            f"{what} has a count of {_plain(top)}; bacc handles at most 10^13 examples per "
            "class (beyond, its posteriors lose the promised accuracy)"
        )
    totals = arr.sum(axis=-1, dtype=float)
    if totals.max() > MAX_COUNT:
        raise BaccError(
            f"{what} has a class of {_plain(totals.max())} examples; bacc handles at most "
            "10^13 examples per class (beyond, its posteriors lose the promised accuracy)"
        )


def _plain(v) -> str:
    """A number as a user reads it (no numpy repr)."""
    v = float(v)
    return f"{int(v):,}" if v.is_integer() and abs(v) < 1e18 else f"{v:.6g}"


def unmasked(value, what: str):
    """``value`` without a numpy mask, refusing masked entries (an unknown count is never
    counted as the hidden value behind its mask).

    Parameters
    ----------
    value : object
        Anything; masked arrays (and nested lists holding ``numpy.ma.masked``) are checked.
    what : str
        What the value is, for the message.

    Returns
    -------
    object
        The plain data of a masked array without masked entries, else ``value`` unchanged.
    """
    if np.ma.isMaskedArray(value):
        hidden = np.ma.getmaskarray(value)
        if hidden.any():
            where = tuple(int(i) for i in np.argwhere(hidden)[0])
            at = where[0] if len(where) == 1 else where
            raise BaccError(
                f"{what} is a masked array with {int(hidden.sum())} masked count(s) (the "
                f"first at {at}); fill them (e.g. .filled(0)) or pass a plain array"
            )
        return np.ma.getdata(value)
    if isinstance(value, list | tuple) and any(
        c is np.ma.masked for row in value for c in (row if isinstance(row, list | tuple) else [row])
    ):
        raise BaccError(f"{what} holds a masked count (numpy.ma.masked); give every count as a number")
    return value


def check_rope(rope, name: str = "rope") -> float:
    """Return the half-width of a region of practical equivalence as a float in [0, 1), or
    raise (a difference of balanced accuracies lies in [-1, 1], so a rope of 1 or more would
    call every difference equivalent)."""
    if isinstance(rope, bool) or not isinstance(rope, numbers.Real):
        raise BaccError(f"{name} must be a number in [0, 1) (the half-width of the region of "
                        f"practical equivalence), got {rope!r}")
    r = float(rope)
    if not (math.isfinite(r) and 0.0 <= r < 1.0):
        raise BaccError(f"{name} must be a number in [0, 1) (the half-width of the region of "
                        f"practical equivalence), got {rope!r}")
    return r


def check_confidence(confidence: float, name: str = "confidence") -> float:
    """Return ``confidence`` as a float in the open interval (0, 1), or raise."""
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise BaccError(f"{name} must be a number in (0, 1), got {confidence!r}")
    c = float(confidence)
    if not (0.0 < c < 1.0):
        raise BaccError(f"{name} must lie strictly between 0 and 1, got {_plain_or_nan(c)}")
    if not (MIN_CONFIDENCE <= c <= MAX_CONFIDENCE):
        raise BaccError(
            f"{name} {c!r} is outside the range bacc computes reliably, [1e-06, 1 - 1e-09] "
            "(tails below 5e-10 are not resolved to the promised accuracy)"
        )
    return c


def _plain_or_nan(v: float) -> str:
    return "NaN" if v != v else repr(float(v))


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


def check_prior(prior, n_classes: int, *, classes=None) -> tuple[np.ndarray, np.ndarray]:
    """Return per-class Beta prior parameters ``(a, b)``, each of length ``n_classes``.

    ``prior`` is one pair ``(a, b)`` used for every class, a name (``"flat"``,
    ``"jeffreys"``), a sequence of ``n_classes`` pairs or an array of shape ``(n_classes, 2)``
    in class order, or a mapping (or pandas Series) from class label to pair, aligned by label
    with ``classes`` (default ``0, 1, ...``).
    """
    if is_labelled(prior):
        prior = per_class(prior, _classes(classes, n_classes), "prior", width=2)
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
        raise BaccError(f"prior parameters must be finite and > 0, got {_prior_text(prior)}")
    if np.any(arr < MIN_PRIOR) or np.any(arr > MAX_COUNT):
        bad = float(arr[(arr < MIN_PRIOR) | (arr > MAX_COUNT)][0])
        raise BaccError(
            f"prior parameter {bad:.6g} is outside [0.05, 10^13], the range bacc computes "
            "reliably (smaller ones put a perfect class's mass closer to 1 than double "
            "precision resolves; larger ones are counts beyond 10^13)"
        )
    return arr[:, 0].copy(), arr[:, 1].copy()


def _prior_text(prior) -> str:
    try:
        return repr(np.asarray(prior, dtype=float).tolist())
    except (TypeError, ValueError):
        return repr(prior)


def _classes(classes, n_classes: int) -> tuple:
    return tuple(range(n_classes)) if classes is None else tuple(classes)


def check_weights(weights, n_classes: int, *, allow_none: bool = True, classes=None) -> np.ndarray:
    """Return class weights (non-negative, summing to 1), equal weights when ``None``.

    Weights given as a mapping or a pandas Series keyed by class label are aligned by label with
    ``classes`` (default ``0, 1, ...``); a list or array follows the class order.
    """
    if weights is None:
        if not allow_none:
            raise BaccError("weights are required")
        return np.full(n_classes, 1.0 / n_classes)
    if is_labelled(weights):
        weights = per_class(weights, _classes(classes, n_classes), "weights")
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"weights must be numbers, got {weights!r}") from None
    if w.shape != (n_classes,):
        raise BaccError(f"weights must have one value per class ({n_classes}), got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise BaccError("weights must be finite numbers")
    if np.any(w < 0):
        raise BaccError(f"weights must be >= 0, got {float(w[w < 0][0])!r}")
    if abs(w.sum() - 1.0) > 1e-9:
        raise BaccError(f"weights must sum to 1, they sum to {float(w.sum())!r}")
    tiny = (w > 0) & (w < MIN_WEIGHT * w.max())
    if tiny.any():
        raise BaccError(
            f"weight {float(w[tiny][0]):.3g} is positive but below 1e-12 of the largest; "
            "give the class weight 0 to leave it out"
        )
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


def check_random_state(random_state):
    """A numpy Generator from ``random_state`` (None, a non-negative int, a SeedSequence or a
    Generator), or a BaccError."""
    if isinstance(random_state, bool) or (
        random_state is not None
        and not isinstance(random_state, numbers.Integral | np.random.Generator | np.random.SeedSequence)
    ):
        raise BaccError(
            f"random_state must be None, a non-negative integer or a numpy Generator, got {random_state!r}"
        )
    if isinstance(random_state, numbers.Integral) and random_state < 0:
        raise BaccError(f"random_state must be a non-negative integer, got {int(random_state)}")
    return np.random.default_rng(random_state)


#: Largest number of random draws one call may ask for (8 GB of float64).
MAX_DRAWS = 10**9


def check_size(size) -> tuple:
    """``size`` of random draws as a shape tuple (None: one draw, shape ``()``), or a BaccError."""
    if size is None:
        return ()
    shape = size if isinstance(size, tuple) else (size,)
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0:
            raise BaccError(f"size must be a non-negative integer or a tuple of them, got {size!r}")
    total = int(np.prod([int(s) for s in shape], dtype=object)) if shape else 1
    if total > MAX_DRAWS:
        raise BaccError(f"size asks for {total:,} draws; at most {MAX_DRAWS:,} per call")
    return tuple(int(s) for s in shape)


def check_choice(value, allowed: Sequence[str], name: str) -> str:
    """Return ``value`` if it is one of the strings ``allowed``, else a BaccError naming them
    (any type: an array or a list is refused, never compared element-wise)."""
    if not isinstance(value, str) or value not in allowed:
        choices = " or ".join(repr(a) for a in allowed)
        raise BaccError(f"{name} must be {choices}, got {_short(value)}")
    return value


def check_int(value, name: str, low: int, high: int) -> int:
    """Return ``value`` as an int in ``[low, high]``: an integer, or a float that is a whole
    number (``300.0``); booleans and other numbers refused."""
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral | bool | np.bool_):
        if math.isfinite(value) and float(value).is_integer():
            value = int(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise BaccError(f"{name} must be an integer, got {_short(value)}")
    v = int(value)
    if not low <= v <= high:
        raise BaccError(f"{name} must be between {low:,} and {high:,}, got {v:,}")
    return v


def check_sequence(value, name: str) -> tuple:
    """Return ``value`` as a tuple if it is a non-string sequence (list, tuple, array...)."""
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__") or isinstance(value, dict):
        raise BaccError(f"{name} must be a sequence, got {_short(value)}")
    try:
        return tuple(value)
    except TypeError:
        raise BaccError(f"{name} must be a sequence, got {_short(value)}") from None


def _short(value) -> str:
    """A short, plain description of a value for a message."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_counts(k, n) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``k`` correct out of ``n`` as float arrays of one broadcast shape, or a clear
    error (not whole numbers, negative, ``k > n``)."""
    k, n = unmasked(k, "k"), unmasked(n, "n")
    try:
        k = np.asarray(k)
        n = np.asarray(n)
        k, n = np.broadcast_arrays(k, n)
    except ValueError:
        raise BaccError("k and n must have broadcastable shapes") from None
    for name, v in (("k", k), ("n", n)):
        if v.dtype.kind not in "biuf":
            raise BaccError(f"{name} must be whole numbers, got dtype {v.dtype}")
        if not np.all(np.isfinite(v)) or np.any(v != np.round(v)):
            raise BaccError(f"{name} must be whole numbers")
    if np.any(k < 0):
        raise BaccError(f"k (correct) must be >= 0, got {k[k < 0].ravel()[0].item()!r}")
    if np.any(k > n):
        raise BaccError("k (correct) must not exceed n (examples)")
    return k.astype(float), n.astype(float)
