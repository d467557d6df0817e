"""The one exception family of bacc."""

from __future__ import annotations

__all__ = ["BaccError", "BaccWarning"]


class BaccError(ValueError):
    """Raised for invalid input; the message names the problem and what was expected."""


class BaccWarning(UserWarning):
    """Warned when bacc changes what it computes because of the data (e.g. an empty class)."""
