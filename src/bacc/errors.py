"""The one exception family of bacc, and the error for a missing optional dependency."""

from __future__ import annotations

import re

__all__ = ["BaccError", "BaccWarning", "MissingDependencyError", "require"]

# numpy's reprs of scalars and arrays, as they appear in a message built from a user's values:
# np.float64(1.1) -> 1.1, np.str_('a') -> 'a', np.True_ -> True, array([1., 2.]) -> [1., 2.]
_NUMPY_REPRS = (
    (re.compile(r"np\.(?:float|int|uint|longdouble|complex|bool)\w*\(([^()]*)\)"), r"\1"),
    (re.compile(r"np\.(?:str|bytes)_\(([^()]*)\)"), r"\1"),
    (re.compile(r"np\.(True|False)_"), r"\1"),
    (re.compile(r"array\((\[[^()]*\])(?:,\s*dtype=[\w.<>'\[\]]+)?\)"), r"\1"),
)


def plain(message: str) -> str:
    """``message`` with numpy's reprs of values written as plain numbers and lists."""
    for pattern, repl in _NUMPY_REPRS:
        message = pattern.sub(repl, message)
    return message


class BaccError(ValueError):
    """Raised for invalid input; the message names the problem and what was expected.

    Values in the message read as a user wrote them: ``1.1``, not ``np.float64(1.1)``.
    """

    def __init__(self, *args) -> None:
        if args and isinstance(args[0], str):
            args = (plain(args[0]), *args[1:])
        super().__init__(*args)


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
