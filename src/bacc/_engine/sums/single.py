"""The engines of one sum: the values a single distribution needs, by the method chosen for it.

:class:`BetaSumEngine` computes ``shift + sum_i w_i X_i`` with ``X_i ~ Beta(a_i, b_i)`` and
``w_i > 0`` (the public :class:`bacc.BetaSum` reflects negative weights before), and
:class:`PairedDifferenceEngine` the difference of two classifiers on one test set
(:class:`bacc.PairedDifference`). Each asks :mod:`.chooser` for its method and builds it: the
widest component kept exact, the others by pair quadrature (:mod:`.two_betas`) or on a lattice
(:mod:`.lattice`, :mod:`.paired_difference`), a narrow part by its moments
(:mod:`.narrow_part`, :class:`.components.TwoPoint`). Both give ``values(x, kinds)``: the cdf,
sf, pdf (and, where ``has_slope``, the density's slope ``dpdf``) at ``x``.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

from .. import beta as _beta
from .chooser import NARROW_RULE, PAIR, choose_paired, choose_single, widest_smooth
from .components import RHO, TwoPoint
from .lattice import checked_table
from .narrow_part import BetaNarrow, MomentNarrow
from .paired_difference import PairedComponents, PairedTable, difference_cumulants
from .two_betas import PairSums

__all__ = ["RHO", "BetaSumEngine", "PairedDifferenceEngine"]


class _Shifted:
    """Values at ``x`` of a sum shifted by ``offset`` and smoothed, where chosen, by a narrow
    part entered by the two-point rule."""

    offset = 0.0
    rule: TwoPoint | None = None

    def _values(self, x: np.ndarray, kinds) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def values(self, x, kinds) -> dict[str, np.ndarray]:
        """Values of the requested functions (cdf, sf, pdf, dpdf) at x."""
        x = np.asarray(x, dtype=float) - self.offset
        if self.rule is not None:
            return self.rule.apply(self._values, x, kinds)
        return self._values(x, kinds)


class BetaSumEngine(_Shifted):
    """``shift + sum_i w_i Beta(a_i, b_i)``, ``w_i > 0``, by the method :mod:`.chooser` picks.

    Parameters
    ----------
    a, b, w : ndarray, shape (m,)
        Beta parameters and (positive) weights.
    shift : float
        Added to the sum (the reflection of negative weights).
    cvar : ndarray, shape (m,)
        Weighted variances ``w_i^2 var(X_i)``.
    sd : float
        Standard deviation of the sum.
    resolution : float
        Lattice steps per standard deviation of the narrowest lattice component (the public
        distributions take half of it, :data:`RHO` by default).

    Examples
    --------
    >>> import numpy as np
    >>> from bacc._engine.sums.single import BetaSumEngine
    >>> a, b, w = np.array([43.0, 5.0]), np.array([4.0, 7.0]), np.array([0.5, 0.5])
    >>> cvar = w**2 * a * b / ((a + b) ** 2 * (a + b + 1))
    >>> e = BetaSumEngine(a, b, w, 0.0, cvar, float(np.sqrt(cvar.sum())), 16.0)
    >>> e.method, round(float(e.values(np.array([0.6658]), ("cdf",))["cdf"][0]), 1)  # at the mean
    ('pair quadrature', 0.5)
    """

    def __init__(self, a, b, w, shift: float, cvar, sd: float, resolution: float) -> None:
        self.a, self.b, self.w = a, b, w
        choice = choose_single(a, b, cvar)
        plan = choice.plan
        self.method = choice.method
        self.ib = ib = plan.widest
        self._logbeta = float(sc.betaln(a[ib], b[ib]))
        self.offset = shift
        self.pair: PairSums | None = None
        self.grid = None
        self.rule = None
        self.has_slope = False
        self.tabulated = False
        narrow = None
        if plan.narrow:
            nn = plan.narrow
            narrow = BetaNarrow(a[nn], b[nn], w[nn], sd)
            self.offset += narrow.mean
            if choice.narrow == NARROW_RULE:
                self.rule = TwoPoint(0.0, narrow.var, narrow.m3)
                narrow = None
        if choice.method == PAIR:
            ir = plan.lattice[0]
            self.pair = PairSums(a[ib], b[ib], w[ib], a[ir], b[ir], w[ir])
            self.has_slope = True
        elif plan.lattice:
            self.grid = checked_table(a, b, w, ib, plan.lattice, resolution, narrow)
            self.tabulated = True

    def widest_smooth(self, cvar) -> bool:
        """Whether the widest component is smooth where it has mass (see :mod:`.chooser`)."""
        return widest_smooth(self.a, self.b, cvar)

    def _widest_values(self, z, kinds):
        """Values of the cdf / sf / pdf of the single component ``w * Beta(a, b)`` at z."""
        i = self.ib
        a, b, w = self.a[i], self.b[i], self.w[i]
        t = np.clip(z / w, 0.0, 1.0)
        out = {}
        if "cdf" in kinds or "sf" in kinds:
            out["cdf"], out["sf"] = _beta.beta_tails(a, b, t)
        if "pdf" in kinds:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                logf = sc.xlogy(a - 1.0, t) + sc.xlog1py(b - 1.0, -t) - self._logbeta
                f = np.exp(logf) / w
            out["pdf"] = np.where((z < 0) | (z > w), 0.0, f)
        return out

    def _values(self, x, kinds):
        """Values of the sum without a narrow part entered by rule, at x (offset removed)."""
        if self.pair is not None:
            return self.pair.values(x, kinds)
        if self.grid is not None:
            return self.grid.values(x, kinds)
        return self._widest_values(x, kinds)

    def kinks(self) -> np.ndarray | None:
        """Points where the density may have a kink (two components only), or None."""
        if self.pair is None:
            return None
        kinks = self.pair.kinks()[0]
        kinks = kinks[np.isfinite(kinks)]
        return self.offset + kinks if kinks.size else None

    def table_start(self, target, upper) -> np.ndarray | None:
        """Starting points for quantiles from the lattice's table, where there is one."""
        if self.grid is None:
            return None
        return self.grid.table_quantile(target, upper) + self.offset


class PairedDifferenceEngine(_Shifted):
    """``sum_i w_i (p10_i - p01_i)`` with independent Dirichlet classes, by the method
    :mod:`.chooser` picks.

    Parameters
    ----------
    comp : PairedComponents
        The classes' Dirichlet posteriors.
    alpha : ndarray, shape (m, 4)
        Their parameters.
    w : ndarray, shape (m,)
        Class weights.
    cvar : ndarray, shape (m,)
        Weighted variances of the class differences.
    resolution : float
        Lattice steps per standard deviation of the narrowest lattice class.
    """

    def __init__(self, comp: PairedComponents, alpha, w, cvar, resolution: float) -> None:
        self.comp, self.w = comp, w
        choice = choose_paired(cvar)
        plan = choice.plan
        self.method = choice.method
        self.ib = ib = plan.widest
        self.offset = 0.0
        self.rule = None
        narrow = None
        if plan.narrow:
            # the narrow classes together, by their exact first four cumulants
            nn = plan.narrow
            wn = w[nn]
            var, m3, k4 = difference_cumulants(alpha[nn])
            self.offset = float(np.sum(wn * comp.mean[nn]))
            moments = (float(np.sum(wn**2 * var)), float(np.sum(wn**3 * m3)))
            if choice.narrow == NARROW_RULE:
                self.rule = TwoPoint(0.0, *moments)
            else:
                narrow = MomentNarrow(0.0, *moments, float(np.sum(wn**4 * k4)), len(nn))
        self.table = None
        if plan.lattice:
            self.table = PairedTable(comp, w, ib, plan.lattice, resolution, narrow)

    def _values(self, x, kinds):
        if self.table is not None:
            return self.table.values(x, kinds)
        wB = self.w[self.ib]
        v = self.comp.values(x / wB, np.full(x.size, self.ib), kinds)
        if "pdf" in v:
            v["pdf"] = v["pdf"] / wB
        return v

    @property
    def error_estimate(self) -> float:
        """Estimated absolute error of the tabulated CDF (0 for one class: direct quadrature)."""
        return 0.0 if self.table is None else float(self.table.error_estimate)
