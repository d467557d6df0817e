"""Small conversions every result type shares: JSON-able scalars and read-only arrays."""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np

__all__ = ["FrozenArrays", "freeze_arrays", "jsonable", "readonly"]


def jsonable(x):
    """A label or scalar as a plain JSON value (numpy scalars unwrapped, others as text)."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, str | numbers.Number | bool) or x is None:
        return x
    return str(x)


def readonly(a, dtype=None) -> np.ndarray:
    """A read-only copy of ``a`` (results are immutable: their arrays cannot be written to)."""
    out = np.array(a, dtype=dtype, copy=True)
    out.flags.writeable = False
    return out


def freeze_arrays(obj) -> None:
    """Replace every array field of the frozen dataclass ``obj`` by a read-only copy."""
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        if isinstance(v, np.ndarray):
            object.__setattr__(obj, f.name, readonly(v))


class FrozenArrays:
    """Mixin for frozen result dataclasses: their array fields are read-only copies.

    ``@dataclass(frozen=True)`` stops reassignment of fields; this stops writing into them
    (``result.weights[0] = 5``), so a result cannot change after it is built.
    """

    def __post_init__(self) -> None:
        freeze_arrays(self)
