"""The one place that decides how a weighted sum of independent components is computed.

Every caller asks here: a single :class:`bacc.BetaSum` or :class:`bacc.PairedDifference`
(through :mod:`.single`), and the many rows of :func:`bacc.evaluate_many` and
:func:`bacc.monitor` (through :mod:`.rows`). The methods:

* :data:`BETA`: one component, the (scaled) Beta distribution itself.
* :data:`PAIR`: two components, exact one-dimensional quadrature (:mod:`.two_betas`;
  Brodersen et al. (2010), eq. 7).
* :data:`LATTICE`: three or more components of one sum, the stop-loss lattice with Richardson
  extrapolation (:mod:`.lattice`; Carrillo et al. (2014), eq. 13).
* :data:`NARROW_RULE` and :data:`NARROW_PART`: components far narrower than the rest enter
  together by their exact moments, by a two-point rule beside one or two components or as one
  lattice row (:mod:`.components`, :mod:`.narrow_part`).
* :data:`BATCHED_LATTICE`: three or more components in each of many rows, all rows at once
  (:mod:`.batch_lattice`). It is a second method for the sums :data:`LATTICE` computes, kept
  because it evaluates thousands of rows in a handful of array operations with no table and
  no extrapolation, where the single lattice builds, extrapolates and cross-checks a table per
  sum; it takes only rows whose components it integrates to high order (a class with a smooth
  density, no non-integer low exponent at an end with mass), and the others are computed one
  by one (:data:`ONE_BY_ONE`), each by its own single choice. The two agree within 7e-11 in
  the tests, which makes each a check of the other. Both answer many rows through the same
  interface (:data:`RowsMethod`).
* :data:`PAIR_DIFFERENCE`: the difference of two two-class sums (a window against its counted
  baseline) that the batched lattice leaves, by an outer quadrature over the narrower sum
  (:mod:`.worse_than_baseline`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import beta as _beta
from .components import SMOOTH_EXPONENT, Plan, partition

__all__ = [
    "BATCHED_LATTICE",
    "BETA",
    "LATTICE",
    "NARROW_PART",
    "NARROW_RULE",
    "NONE",
    "ONE_BY_ONE",
    "PAIR",
    "PAIR_DIFFERENCE",
    "RowsMethod",
    "SingleChoice",
    "choose_leftovers",
    "choose_paired",
    "choose_rows",
    "choose_single",
    "first_two",
]

NONE = "none"  # no component: nothing to compute
BETA = "beta"
PAIR = "pair quadrature"
LATTICE = "lattice"
NARROW_RULE = "narrow-part moments, two-point rule"
NARROW_PART = "narrow-part moments, one lattice row"
BATCHED_LATTICE = "batched lattice"
ONE_BY_ONE = "one by one"
PAIR_DIFFERENCE = "pair-difference quadrature"

#: The interface of a method for many rows of three or more classes, shared by the batched
#: lattice (:func:`.batch_lattice.many_sums`) and the single sums one by one
#: (:func:`.rows.one_by_one`): ``(A, B, inc, chance, q, advance=None, quantiles=True)`` to
#: ``(lower, upper, p_above, handled)``, each of shape (G,); rows not ``handled`` are left to
#: the next method (:func:`choose_leftovers`).
RowsMethod = Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class SingleChoice:
    """How one sum is computed.

    Attributes
    ----------
    method : str
        :data:`BETA` (the widest component alone, exact), :data:`PAIR` or :data:`LATTICE`.
    plan : Plan
        The components' roles (:func:`bacc._engine.sums.components.partition`).
    narrow : str
        :data:`NONE`, :data:`NARROW_RULE` or :data:`NARROW_PART`: how the narrow part enters.
    """

    method: str
    plan: Plan
    narrow: str


def _narrow(plan: Plan) -> str:
    if not plan.narrow:
        return NONE
    return NARROW_RULE if plan.rule else NARROW_PART


def widest_smooth(a: np.ndarray, b: np.ndarray, cvar: np.ndarray) -> bool:
    """Whether the widest component's density is smooth where it has mass: at each end of its
    support that holds mass (within a tenth of its 1e-15 span), a parameter of at least 3 (the
    CDF is then three times continuously differentiable there)."""
    i = int(np.argmax(cvar))
    lo, hi = _beta.beta_tail_span(np.array([a[i]]), np.array([b[i]]), 1e-15)
    span = float(hi[0] - lo[0])
    at_lo, at_hi = lo[0] <= 0.1 * span, 1.0 - hi[0] <= 0.1 * span
    return bool((not at_lo or a[i] >= 3.0) and (not at_hi or b[i] >= 3.0))


def choose_single(a: np.ndarray, b: np.ndarray, cvar: np.ndarray) -> SingleChoice:
    """The method of one sum of ``w_i Beta(a_i, b_i)`` (weights positive, ``cvar`` the weighted
    variances): the components' roles, then two components (after the narrow part) by
    quadrature, three or more by the lattice, one by itself.

    Examples
    --------
    >>> import numpy as np
    >>> from bacc._engine.sums.chooser import choose_single
    >>> a, b = np.array([43.0, 5.0]), np.array([4.0, 7.0])
    >>> choose_single(a, b, 0.25 * a * b / ((a + b) ** 2 * (a + b + 1))).method
    'pair quadrature'
    """
    plan = partition(cvar, widest_smooth=widest_smooth(a, b, cvar),
                     smooth=np.minimum(a, b) >= SMOOTH_EXPONENT)  # fmt: skip
    narrow = _narrow(plan)
    if len(plan.lattice) == 1 and narrow != NARROW_PART:
        method = PAIR
    elif plan.lattice:
        method = LATTICE
    else:
        method = BETA
    return SingleChoice(method, plan, narrow)


def choose_paired(cvar: np.ndarray) -> SingleChoice:
    """The method of a paired difference (one Dirichlet class difference per component): one
    class by direct quadrature (:data:`BETA`, the class itself), two or more by the paired
    lattice (:data:`LATTICE`), narrow classes by their exact cumulants."""
    plan = partition(cvar)
    return SingleChoice(LATTICE if plan.lattice else BETA, plan, _narrow(plan))


def choose_rows(n_components: np.ndarray) -> np.ndarray:
    """The first method of each of many rows, by its number of components: :data:`BETA` (one),
    :data:`PAIR` (two), :data:`BATCHED_LATTICE` (three or more), :data:`NONE` (none).

    Examples
    --------
    >>> import numpy as np
    >>> from bacc._engine.sums.chooser import choose_rows
    >>> choose_rows(np.array([0, 1, 2, 3, 10])).tolist()
    ['none', 'beta', 'pair quadrature', 'batched lattice', 'batched lattice']
    """
    n = np.asarray(n_components)
    return np.select([n >= 3, n == 2, n == 1], [BATCHED_LATTICE, PAIR, BETA], NONE).astype(object)


def choose_leftovers(n_components: np.ndarray, difference: bool) -> np.ndarray:
    """The method of rows the batched lattice leaves: the difference of two two-class sums
    (``difference`` and four components) by :data:`PAIR_DIFFERENCE`, any other sum
    :data:`ONE_BY_ONE` (each by :func:`choose_single`)."""
    n = np.asarray(n_components)
    pairs = difference & (n == 4)
    return np.where(pairs, PAIR_DIFFERENCE, ONE_BY_ONE).astype(object)


def first_two(inc: np.ndarray) -> np.ndarray:
    """Column indices of the first two included classes of each row, shape (G, 2)."""
    return np.argsort(~inc, axis=1, kind="stable")[:, :2]
