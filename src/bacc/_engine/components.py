"""The one preparation step of every sum of independent components: which component is kept
exact, which enter a lattice, and which are so narrow that they enter by their mean alone."""

from __future__ import annotations

import numpy as np

#: Relative spread below which a component is folded in by its mean (its variance changes the
#: CDF by less than 1e-8).
TINY = 3e-4
#: Lattice steps per standard deviation of the narrowest lattice component, halved.
RHO = 8.0


def partition(cvar: np.ndarray, cmean: np.ndarray) -> tuple[int, list[int], float]:
    """Split components by spread.

    Parameters
    ----------
    cvar, cmean : ndarray, shape (m,)
        Variance and mean of each weighted component.

    Returns
    -------
    widest : int
        Index of the widest component (evaluated exactly).
    lattice : list of int
        The other components that enter the computation, in ascending spread.
    folded_mean : float
        Sum of the means of the components left out (narrower than ``TINY`` times the spread of
        all the others).
    """
    sd = np.sqrt(cvar)
    order = np.argsort(sd, kind="stable")
    widest = int(order[-1])
    rest = [int(i) for i in order[:-1]]
    folded = 0.0
    lattice: list[int] = []
    if rest:
        var_rest = float(np.sum(cvar[rest]))
        for i in rest:  # ascending spread
            others = var_rest - cvar[i]
            if others > 0 and sd[i] < TINY * np.sqrt(others):
                folded += float(cmean[i])
            else:
                lattice.append(i)
    return widest, lattice, folded
