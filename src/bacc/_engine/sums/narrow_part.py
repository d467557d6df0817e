"""The narrow part of a sum: components far narrower than the lattice, entered as one law.

When class sizes are very unequal, resolving the narrowest component on the lattice would cost
points in proportion to the ratio of the widest spread to the narrowest (10^4 for classes of 1
and 10^8 examples). Instead, the components narrower than the lattice needs (see
:func:`bacc._engine.sums.components.split_scales`) are summed into one variable ``D`` whose mean is
taken out exactly (it shifts the whole table) and whose centred law ``D - E[D]`` enters the
lattice as one more row of masses:

* ``sd(D) <= h`` (the step): masses on the five lattice points ``-2h .. 2h`` that reproduce the
  exact first four moments of ``D - E[D]`` (Gerber's local moment matching; mass, variance,
  third moment and fourth cumulant of Beta variables are closed-form and add up). For a smooth
  function ``g`` the rule's error is ``E[g(D)] - sum m_k g(k h) = sum_{r>=5} g^(r) dm_r / r!``
  with ``dm_5 = E[D^5] - 5 h^2 E[D^3]`` and ``dm_6 = E[D^6] - 5 h^2 E[D^4] + 4 h^4 E[D^2]``: at
  most ``4 h^4 var(D) + O(var(D)^2 h^2)``, which moves the CDF of a sum of spread ``sigma`` by
  about ``(4 / 720) (h / sigma)^4 var(D) / sigma^2`` times ``max |He_5 phi|`` (2.1): below
  ``1e-12`` at the steps used. No component's variance is dropped.
* ``sd(D) > h``: the triangular (mean-preserving) masses of ``D``, second differences of its
  stop-loss transform ``G(y) = E[(y - D)_+]`` divided by ``h``, followed by the same
  fourth-order filter as every lattice component: ``D`` enters exactly like one more
  component, with the same ``(t h)^4 / 90`` error in the characteristic function (removed with
  the others). ``G`` is closed-form for one component (:func:`bacc._engine.beta.beta_stoploss`);
  for several it is the integral of their CDF tabulated by
  :class:`bacc._engine.sums.lattice.GridTable` on a lattice of their own (exact widest component,
  extrapolation, and a narrow part of their own: the same plan, recursively), integrated
  exactly cell by cell.

References
----------
Gerber, H. U. (1982). On the numerical evaluation of the distribution of aggregate claims and
its stop-loss premiums. Insurance: Mathematics and Economics 1, 13-18 (local moment matching).
"""

from __future__ import annotations

import numpy as np

from .. import beta as _beta
from .solvers import beta_k4, beta_moments

_TAIL = 1e-15
#: A narrow part narrower than this fraction of the whole sum is tabulated without
#: extrapolation (see :class:`BetaNarrow`).
ROUGH = 0.25
#: Inside a rough table, a narrow part at most this fraction of the whole sum is moment-matched
#: at any step (no table of its own).
INNER_MATCHED = 0.01
#: Error in the CDF of the whole sum that a narrow part's table may cause (see _Tabulated), and
#: the largest error allowed in the narrow part's own CDF however strongly the sum damps it.
_TOLERANCE = 1e-10
_LOOSEST = 1e-4
#: A rough table whose error the sum damps by less than this keeps the full resolution; one
#: damped more is built with fewer steps, down to this fraction of them.
_DAMP_FULL = 1e-5
_COARSEST = 0.25


def moment_masses(var: float, m3: float, k4: float, h: float) -> np.ndarray:
    """Masses at ``-2h, -h, 0, h, 2h`` with moments 0..4 those of a centred variable.

    ``var``, ``m3`` and ``k4`` are its variance, third central moment and fourth cumulant (the
    fourth central moment is ``k4 + 3 var^2``). Masses may be negative when ``var`` is small
    against ``h^2`` (they are then ``O(var / h^2)``).
    """
    s2 = var / h**2
    s3 = m3 / h**3
    s4 = (k4 + 3.0 * var * var) / h**4
    even2 = (s4 - s2) / 12.0  # m(-2) + m(2)
    even1 = (4.0 * s2 - s4) / 3.0  # m(-1) + m(1)
    odd2 = s3 / 6.0  # m(2) - m(-2)
    odd1 = -2.0 * odd2  # m(1) - m(-1)
    return np.array([
        (even2 - odd2) / 2.0, (even1 - odd1) / 2.0, 1.0 - even1 - even2,
        (even1 + odd1) / 2.0, (even2 + odd2) / 2.0,
    ])  # fmt: skip


def filtered(m: np.ndarray) -> np.ndarray:
    """The fourth-order filter ``m + (2 m - left - right) / 12`` of a mass row (one point of
    zero padding is added on each side); it cancels the ``(t h)^2 / 12`` of triangular masses."""
    p = np.concatenate([[0.0], m, [0.0]])
    f = p * (7.0 / 6.0)
    f[1:] -= p[:-1] / 12.0
    f[:-1] -= p[1:] / 12.0
    return f


class NarrowPart:
    """A centred narrow part ``D - E[D]`` given by its first four cumulants; subclasses give
    its stop-loss transform (:meth:`stoploss_excess`) and where it has its mass (:meth:`_span`).

    Attributes ``mean, var, m3, k4`` (mean, variance, third central moment, fourth cumulant),
    ``sd`` and ``count`` (number of components).
    """

    def _set_moments(self, mean: float, var: float, m3: float, k4: float, count: int) -> None:
        self.mean, self.var, self.m3, self.k4 = float(mean), float(var), float(m3), float(k4)
        self.sd = float(np.sqrt(self.var))
        self.count = int(count)

    #: Moment-matched at any step (set inside a rough table for a part far narrower than the
    #: whole sum: see :class:`_Tabulated`).
    always_matched = False

    def matched(self, h: float) -> bool:
        """Whether the masses at step ``h`` are moment-matched (else triangular masses)."""
        return self.sd <= h or self.always_matched

    def masses(
        self, h: float, coarse: float | None = None, fourth_order: bool = True
    ) -> tuple[int, np.ndarray]:
        """Masses of ``D - E[D]`` on the lattice ``j h``: ``(first index, masses)``.

        ``coarse``: the coarsest step of the lattices that are extrapolated together (an
        integer multiple of ``h``; default ``h``). Where ``D`` is moment-matched
        (``sd(D) <= coarse``), its five masses sit at multiples of ``coarse`` on every lattice,
        so that it is the same discrete law on all of them and adds nothing that the
        extrapolation would have to remove. ``fourth_order=False`` leaves the triangular masses
        unfiltered (for lattices whose extrapolation removes the ``h^2`` term, as the paired
        engine's).
        """
        coarse = h if coarse is None else coarse
        if self.matched(coarse):
            k = int(round(coarse / h))
            row = np.zeros(4 * k + 1)
            row[::k] = moment_masses(self.var, self.m3, self.k4, coarse)
            return -2 * k, row
        lo, hi = self._span()
        j = np.arange(int(np.floor((lo - self.mean) / h)) - 1, int(np.ceil((hi - self.mean) / h)) + 2)
        g = self.stoploss_excess(j * h + self.mean)
        # second differences of G = excess + (y - mean)_+ (the latter's are exact: a point mass
        # at the mean, here the lattice point 0)
        m = (g[2:] - 2.0 * g[1:-1] + g[:-2]) / h
        m += np.maximum(1.0 - np.abs(j[1:-1].astype(float)), 0.0)
        if fourth_order:
            j0, m, extra = int(j[1]) - 1, filtered(m), 0.0
        else:
            j0, extra = int(j[1]), h * h / 6.0  # the triangle's own variance stays
        return j0, self._corrected(j0, m, h, extra)

    def _corrected(self, j0: int, m: np.ndarray, h: float, extra: float) -> np.ndarray:
        """The row with its mass, mean, variance and third moment set to the exact ones (a
        five-point correction around 0 that leaves the fourth moment alone). The row's own
        error then enters the sum only through its fourth and higher moments, which the sum
        smooths by ``(sd(D) / sd(S))^4``: a rough table of ``D`` is enough when ``D`` is narrow
        against the whole sum."""
        x = (j0 + np.arange(m.size)) * h
        have = np.array([np.sum(m * x**r) for r in range(4)])
        want = np.array([1.0, 0.0, self.var + extra, self.m3])
        delta = (want - have) / h ** np.arange(4)
        # masses at -2..2 with moments delta (r = 0..3) and 0 (r = 4)
        nodes = np.arange(-2.0, 3.0)
        corr = np.linalg.solve(np.vander(nodes, 5, increasing=True).T, np.append(delta, 0.0))
        out = m.copy()
        out[-2 - j0 : 3 - j0] += corr
        return out

    def stoploss_excess(self, y: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        """``E[(y - D)_+] - (y - E[D])_+`` at the points y."""
        raise NotImplementedError

    def _span(self) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError


class BetaNarrow(NarrowPart):
    """The sum ``D`` of narrow components ``w_i Beta(a_i, b_i)`` (all ``w_i > 0``), centred.

    Its stop-loss transform is exact: closed-form for one component, for several the integral
    of their CDF tabulated by :class:`bacc._engine.sums.lattice.GridTable`.

    Parameters
    ----------
    a, b, w : ndarray
        The components.
    scale : float, optional
        Standard deviation of the whole sum that ``D`` is part of. A part narrower than
        ``ROUGH`` times it is tabulated without extrapolation: its rows have exact moments up
        to the third (:meth:`NarrowPart._corrected`), so the table's error reaches the sum
        multiplied by ``(sd(D) / scale)^4 < 4e-3`` (measured on 120 random mixes of up to 1000
        classes: within 5e-9 of the extrapolated tables). The same factor sets the table's
        budget: a lattice component of ``D`` may stay unresolved when its error, so damped,
        stays below 1e-10 of the sum's CDF, and a rough table damped below 1e-5 is built with
        fewer steps (see :class:`_Tabulated`).
    """

    def __init__(self, a, b, w, scale: float | None = None) -> None:
        self.a, self.b, self.w = (np.asarray(v, dtype=float) for v in (a, b, w))
        self.scale = scale
        mu, var, m3 = beta_moments(self.a, self.b)
        self._set_moments(
            np.sum(self.w * mu), np.sum(self.w**2 * var), np.sum(self.w**3 * m3),
            np.sum(self.w**4 * beta_k4(self.a, self.b)), self.a.size,
        )  # fmt: skip
        self._fine = None

    def _span(self) -> tuple[float, float]:
        """Where ``D`` has its mass (outside, below ``1e-15``)."""
        if self.count == 1:
            lo, hi = _beta.beta_tail_span(self.a, self.b, _TAIL)
            return float(lo[0] * self.w[0]), float(hi[0] * self.w[0])
        t = self._table()
        return float(t.table.x[0] + t.offset), float(t.table.x[-1] + t.offset)

    def _table(self) -> _Tabulated:
        if self._fine is None:
            rough = self.scale is not None and self.sd <= ROUGH * self.scale
            self._fine = _Tabulated(self.a, self.b, self.w, self.scale, rough)
        return self._fine

    def stoploss_excess(self, y: np.ndarray) -> np.ndarray:
        """``E[(y - D)_+] - (y - E[D])_+``: the integral of the CDF of ``D`` up to ``y`` below
        the mean, of its survival function from ``y`` on above it (small in both tails)."""
        if self.count == 1:
            return self.w[0] * _beta.beta_stoploss(y / self.w[0], self.a, self.b, excess=True)
        return self._table().stoploss_excess(y, self.mean)


class MomentNarrow(NarrowPart):
    """A narrow part known by its first four cumulants only, represented by the Gram-Charlier
    law with those cumulants (density ``phi(z) (1 + g1 He_3(z) / 6 + g2 He_4(z) / 24)``).

    Its stop-loss transform is closed-form, ``sd (z Phi(z) + phi(z) (1 + g1 z / 6 +
    g2 (z^2 - 1) / 24))``. The surrogate differs from ``D`` from the fifth cumulant on: the CDF
    of a sum of spread ``sigma`` moves by about ``|k5(D)| / 120 * 1.2 / sigma^5``, and
    ``|k5(D)| <= max_i sd_i^3 * var(D) * max_i |g5_i|`` (``g5_i``: the standardised fifth
    cumulants): with components at most ``sigma / 64`` wide (``components.MIXED``) that is
    below ``4e-8 max_i |g5_i| var(D) / sigma^2``. Classes that are narrow because they are
    large are nearly normal (``g5_i = O(n^-1.5)``); a skewed narrow class (few discordant
    examples among thousands) has ``|g5_i|`` up to about 6.

    Used by the paired engine (:mod:`bacc._engine.sums.paired_difference`), whose components have no
    closed-form stop-loss transform.
    """

    def __init__(self, mean: float, var: float, m3: float, k4: float, count: int) -> None:
        self._set_moments(mean, var, m3, k4, count)
        self._g1 = self.m3 / self.sd**3
        self._g2 = self.k4 / self.var**2

    def _span(self) -> tuple[float, float]:
        return self.mean - 12.0 * self.sd, self.mean + 12.0 * self.sd

    def stoploss_excess(self, y: np.ndarray) -> np.ndarray:
        from scipy import special as sc

        z = (np.asarray(y, dtype=float) - self.mean) / self.sd
        phi = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
        corr = phi * (self._g1 * z / 6.0 + self._g2 * (z * z - 1.0) / 24.0)
        # z Phi(z) + phi(z) - max(z, 0) = phi(z) - |z| Phi(-|z|), without cancellation
        base = phi - np.abs(z) * sc.ndtr(-np.abs(z))
        return self.sd * (base + corr)


def _cell_integrals(f: np.ndarray, h: float) -> np.ndarray:
    """Integrals of a tabulated function over the cells between its points: the cubic through
    the four nearest values, ``h (13 (f1 + f2) - f0 - f3) / 24`` (error ``O(h^5)`` times the
    fourth derivative), the trapezoid in the two end cells (where the tails are below 1e-15)."""
    out = 0.5 * h * (f[:-1] + f[1:])
    if f.size >= 4:
        out[1:-1] = h * (13.0 * (f[1:-2] + f[2:-1]) - f[:-3] - f[3:]) / 24.0
    return out


class _Tabulated:
    """The CDF of a sum of two or more components, tabulated by
    :class:`bacc._engine.sums.lattice.GridTable` (exact widest component, extrapolated lattice, its
    own narrow part), and its integrals: the stop-loss transform of the sum.

    Whole cells are integrated by the cubic through the four nearest table values, partial
    cells by three-point Gauss-Legendre on the table's degree-5 interpolant; the integrals are
    accumulated from the lower end for the CDF and from the upper end for the survival
    function (both tails keep their precision).
    """

    def __init__(self, a, b, w, scale: float | None, rough: bool) -> None:
        from .components import RHO, partition
        from .lattice import GridTable

        mu, var, _ = beta_moments(a, b)
        plan = partition(w**2 * var)
        ids = plan.lattice
        narrow = None
        self.offset = 0.0
        if plan.narrow:
            nn = plan.narrow
            narrow = BetaNarrow(a[nn], b[nn], w[nn], scale)
            self.offset = narrow.mean
            # inside a rough table a part narrower than 1 % of the whole sum needs no table of
            # its own: its five moment-matched masses are exact to the fourth moment, and what
            # they miss reaches the whole sum damped by (sd / scale)^4 < 1e-8
            if rough and scale is not None and narrow.sd <= INNER_MATCHED * scale:
                narrow.always_matched = True
        # the table's error reaches the whole sum damped by (sd(D) / scale)^4 (see BetaNarrow):
        # a lattice component far narrower than D need not be resolved to 1e-10 of D's CDF,
        # only to 1e-10 of the whole sum's (the step it set made the table of a five-class mix
        # 319 040 points long: a 1300-example perfect class beside one of 772 822)
        tolerance, resolution = _TOLERANCE, 2 * RHO
        if scale is not None:
            damp = float(np.sum(w**2 * var)) ** 2 / scale**4
            tolerance = min(_LOOSEST, _TOLERANCE / max(damp, 1e-300))
            if rough:
                # a rough table's error falls like h^2.5 (singular ends under Jeffreys' prior)
                # and is about 1e-6 at the full resolution: below a damping of 1e-5 fewer
                # steps keep its share of the sum's error below 1e-11 (a narrow part inside
                # a narrow part: 1000 Jeffreys classes of 1 to 1e4 examples)
                resolution *= min(1.0, max(_COARSEST, (damp / _DAMP_FULL) ** 0.4))
        self.table = GridTable(
            a, b, w, plan.widest, ids, resolution, narrow, extrapolate=not rough,
            tolerance=tolerance,
        )  # fmt: skip
        t = self.table
        # integrals of F and S over each cell [x_i, x_i+1] of the table
        cell_f, cell_s = _cell_integrals(t.F, t.h), _cell_integrals(t.S, t.h)
        u, gw = np.polynomial.legendre.leggauss(3)
        u, gw = (u + 1.0) / 2.0, gw / 2.0
        self._cum_f = np.concatenate([[0.0], np.cumsum(cell_f)])  # int_{x_0}^{x_i} F
        self._cum_s = np.concatenate([np.cumsum(cell_s[::-1])[::-1], [0.0]])  # int_{x_i}^{x_n} S
        self._u, self._gw = u, gw

    def stoploss_excess(self, y: np.ndarray, mean: float) -> np.ndarray:
        t = self.table
        z = np.asarray(y, dtype=float) - self.offset
        i = np.clip(np.floor((z - t.x[0]) / t.h).astype(np.int64), 0, t.x.size - 2)
        zc = np.clip(z, t.x[0], t.x[-1])
        # partial cell [x_i, z]
        d = zc - t.x[i]
        pts = (t.x[i][:, None] + d[:, None] * self._u[None, :]).ravel()
        v = t.values(pts, ("cdf", "sf"))
        part_f = d * (v["cdf"].reshape(-1, 3) @ self._gw)
        part_s = d * (v["sf"].reshape(-1, 3) @ self._gw)
        below = self._cum_f[i] + part_f  # int_{x_0}^{z} F
        above = self._cum_s[i] - part_s  # int_{z}^{x_n} S
        # beyond the table: F = 0 below, S = 0 above (mass below 1e-15)
        below = np.where(z <= t.x[0], 0.0, below + np.maximum(z - t.x[-1], 0.0))
        above = np.where(z >= t.x[-1], 0.0, above + np.maximum(t.x[0] - z, 0.0))
        return np.where(y <= mean, below, above)
