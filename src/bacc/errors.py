"""The one exception family of bacc, and the error for a missing optional dependency."""

from __future__ import annotations

__all__ = ["BaccError", "BaccWarning", "MissingDependencyError", "require"]


class BaccError(ValueError):
    """Raised for invalid input; the message names the problem and what was expected."""


class BaccWarning(UserWarning):
    """Warned when bacc changes what it computes because of the data (e.g. an empty class)."""


class MissingDependencyError(ImportError):
    """Raised when a feature needs an optional dependency that is not installed.

    The message names the extra that installs it, e.g. ``pip install "bacc[plot]"``.
    """


def require(module: str, extra: str, purpose: str):
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra to install.

    Parameters
    ----------
    module : str
        Module to import (``"matplotlib.pyplot"``, ``"duckdb"``, ...).
    extra : str
        bacc's extra that provides it (``"plot"``, ``"data"``, ``"sklearn"``).
    purpose : str
        What needs it, for the message (``"plots"``, ``"counting in files"``).
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingDependencyError(
            f"{top} is needed for {purpose} but is not installed: pip install \"bacc[{extra}]\""
        ) from exc
