"""Small conversions every result type shares: JSON-able scalars and read-only arrays."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["jsonable", "readonly"]


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
