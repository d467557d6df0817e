"""Old spellings of public arguments, kept for one release with a warning."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

from ...errors import BaccError

__all__ = ["renamed_arguments"]


def renamed_arguments(**renames: str) -> Callable:
    """Accept each old keyword ``old=`` of ``renames`` as the new one, with a FutureWarning.

    Parameters
    ----------
    **renames : str
        ``old_name="new_name"``.

    Returns
    -------
    callable
        A decorator for the public function.

    Examples
    --------
    >>> @renamed_arguments(n_sim="n_simulations")
    ... def f(*, n_simulations=10):
    ...     return n_simulations
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     f(n_sim=3), str(w[0].message)
    (3, 'n_sim= is renamed n_simulations=; the old name will be removed in the next release')
    """

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def call(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise BaccError(f"give {new}= only ({old}= is its old name)")
                    warnings.warn(
                        f"{old}= is renamed {new}=; the old name will be removed in the next "
                        "release", FutureWarning, stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)

        return call

    return wrap
