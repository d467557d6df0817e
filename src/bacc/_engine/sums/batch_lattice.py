"""Posterior balanced accuracy of many groups with three or more classes, all at once.

Used by :func:`bacc.evaluate_many`. Each group's balanced accuracy is ``S = sum_i w X_i`` with
``X_i ~ Beta(a_i, b_i)`` and ``w = 1 / m`` (``m`` classes with examples; Carrillo et al.
(2014), eq. 12). As in :class:`bacc.distributions.BetaSum`, one component ``B`` enters through
its exact CDF (``betainc``) and the others, ``R``, through lattice masses,

    F_S(x) = E[F_B(x - R)] ~ sum_j p_R(j) F_B(x - j h),

but the lattice is built so that this sum is a quadrature rule of high order for the smooth
integrand ``y -> F_B(x - y)`` at *every* ``x``, not only at lattice points: the CDF, the density
and its slope are evaluated directly where the quantile iteration needs them (no table, no
interpolation, no extrapolation).

* ``B`` is a class whose density vanishes to high order wherever its support ends within its
  mass (an exponent of at least 6 there), so ``F_B`` is smooth; the narrowest such class among
  those on the lattice is taken (fewest incomplete-beta evaluations per point).
* Every class on the lattice has at least two lattice steps per standard deviation. Its masses
  are its density at the lattice points, normalised: the trapezoidal rule, whose error for a
  smooth integrand that decays at both ends is of the order of ``exp(-2 pi^2 (sd / h)^2)``.
* Where a class has mass at an end of its support and its density there is ``r^p`` times a
  smooth function (``r`` the distance to the end, ``p = a - 1`` at 0, ``p = b - 1`` at 1), that
  end is a lattice point (``h = w / M``) and the row starts there. For ``p < 6`` (a perfect
  class under a flat prior: a jump, ``p = 0``) the first 12 points carry Gregory's end weights
  (exact for polynomials of degree 11; :func:`gregory_weights`); the step is at most
  ``c_p / beta`` with ``beta`` the rate at which the density falls from that end and ``c_p``
  from :func:`_end_step` (the rule integrates ``r^p e^(-beta r)`` to 1e-11 there), and at
  most the step at which the first Euler-Maclaurin terms of the end left by the rule, bounded
  through the functional equation of the zeta function, stay below 1e-13 (:func:`_em_step`;
  the bound that matters when the density's mode is far from the end). The
  function such a row integrates varies on the scale of the smooth classes' sum only (the
  jump is smoothed by nothing else), so the step is also at most 1/8 of that sum's standard
  deviation (measured: Beta(16, 2) beside Beta(520, 409) and Beta(2063.5, 560.5) is 1.6e-10
  off at 1/5, 2e-11 at 1/6, 3e-13 at 1/8; a perfect class of two examples beside classes of 800
  and 900, 2e-8 at 1/2). A non-integer ``p < 6`` at an end with mass (Jeffreys' prior) has no
  such rule: the group is left to the caller unless that class belongs to the narrow part.
* Classes far narrower than the smooth classes' sum (together at most ``1/60`` of its standard
  deviation ``s``) enter as one part by their exact mean and five lattice masses at
  ``-2h .. 2h`` that match their variance, third moment and fourth cumulant (Gerber's local
  moment matching, as in :mod:`bacc._engine.sums.narrow_part`); the step is then at most ``s / 25``
  (the rule's error is about ``0.012 (h / s)^4 (sd_D / s)^2 + 0.044 (sd_D / s)^6``).

The lattice rows of all groups are convolved by batched FFTs, circularly over the support of
``R``'s lattice cut to eight sub-Gaussian deviations around its mean (a Beta(a, b) variable is
sub-Gaussian with variance proxy ``1 / (4 (a + b + 1))``, Marchal & Arbel 2017, so less than
3e-14 wraps around); groups of similar window lengths share one FFT length. Each CDF value
needs ``F_B`` at the lattice points within ``B``'s span of ``x`` (one flat array for all
groups). Quantiles come from the safeguarded Newton-Halley iteration of
:func:`bacc._engine.sums.solvers.newton_quantile` from a Cornish-Fisher start, as for a single
:class:`~bacc.distributions.BetaSum`. Groups outside these conditions (no smooth class on the
lattice; a non-integer low exponent at an end with mass; more than ``_MAX_POINTS`` lattice
points) are reported as not handled.

Measured against :class:`~bacc.distributions.BetaSum` (``tests/test_batch.py``,
``benchmarks/bench_batch.py``): quantiles and ``P(S > 1/l)`` within 1.6e-11 over 4 000
ten-class groups of 10 to 5000 examples per class, and within 1e-11 over groups with empty,
perfect and one-example classes, class sizes from 1 to 10^6, 30 classes, 10^9 examples per
class, and the priors (2, 2) and Jeffreys'; within 7e-11 over random mixes of 3 to 8 classes
of 1 to 10^4 examples under six priors (504 groups taken here out of 1 200). This is not the
same method as the single evaluation's (stop-loss lattice masses, Richardson extrapolation,
interpolation of a table), so the agreement of the two is a check of both.

References
----------
Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic performance evaluation
for multiclass classification using the posterior balanced accuracy. ROBOT2013: First Iberian
Robotics Conference, Advances in Intelligent Systems and Computing 252, 347-361, eqs. 12-13.
Gerber, H. U. (1982). On the numerical evaluation of the distribution of aggregate claims and its
stop-loss premiums. Insurance: Mathematics and Economics 1, 13-18 (local moment matching).
Marchal, O. & Arbel, J. (2017). On the sub-Gaussianity of the Beta and Dirichlet distributions.
Electronic Communications in Probability 22, paper 54.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import fft as sfft
from scipy import special as sc

from .. import beta as _beta
from .narrow_part import moment_masses
from .solvers import beta_k4, beta_moments, cornish_fisher_start, newton_quantile, tails, unit

__all__ = ["many_sums"]

_TAIL = 1e-15  # mass of a class left out on each side of its lattice
_END_P = 6.0  # below this exponent at an end with mass, Gregory's end weights are used
_GREGORY_ORDER = 12  # end weights exact for polynomials of degree < 12
_SMOOTH_STEPS = 2.0  # lattice steps per standard deviation of a smooth component, at least
_ROUGH_STEPS = 8.0  # steps per standard deviation of the smooth classes, beside an end rule
_NARROW = 1.0 / 60.0  # narrow part: at most this fraction of the smooth classes' spread
_NARROW_STEP = 1.0 / 25.0  # with a narrow part, the step is at most this fraction of it
_MAX_POINTS = 1 << 17  # lattice points of one group, at most
_EM_TERM = 1e-13  # largest Euler-Maclaurin term of an end left in the lattice sums
_WINDOW = 8.0  # half-width of the convolution window, in variance-proxy deviations
_CHUNK_POINTS = 1 << 21  # lattice values convolved together (memory: ~50 MB)
# zeta(0), zeta(-1), ...: the Euler-Maclaurin coefficients of a sum started at an end point
_ZETA = (-0.5, -1 / 12, 0.0, 1 / 120, 0.0, -1 / 252, 0.0, 1 / 240, 0.0, -1 / 132, 0.0, 691 / 32760)


def gregory_weights(order: int = _GREGORY_ORDER) -> np.ndarray:
    """Weights of the first ``order`` points of a trapezoidal sum started at an end point.

    ``h sum_j omega_j f(j h)`` (``omega_j = 1`` from ``j = order`` on) equals ``int_0^inf f``
    up to ``O(h^(order + 1))`` for ``f`` smooth on ``[0, inf)``: the Euler-Maclaurin expansion
    ``h sum_(j>=0) f(jh) - int f = h f(0) + sum_p zeta(-p) f^(p)(0) h^(p+1) / p!`` is cancelled
    term by term up to ``p = order - 1`` (a Vandermonde system for the corrections).
    """
    target = -np.array(_ZETA[:order])
    target[0] = -0.5  # the end point itself (weight 1 in the plain sum) plus zeta(0)
    j = np.arange(order, dtype=float)
    vander = j[None, :] ** np.arange(order)[:, None]
    vander[0, 0] = 1.0
    return 1.0 + np.linalg.solve(vander, target)


_GREGORY = gregory_weights()


def _end_step(p: np.ndarray) -> np.ndarray:
    """Largest step, times the decay rate ``beta``, for a density ``r^p e^(-beta r)`` at an end.

    Measured: the rule (Gregory's weights of order 12 below ``p = 6``, the plain trapezoidal
    rule from there) integrates ``r^p e^(-r)`` to 1e-11 relative at steps up to 0.14 (p < 6),
    0.18 (6), 0.24 (7), 0.36 (8), 0.6 (10), 0.84 (12), 1.36 (14), 2.02 (20), 2.96 (28), 5.6
    (60); about 80 % of that is used. From ``p = 60`` the two steps per standard deviation
    (``sqrt(p + 1) / 2``) suffice.
    """
    return np.select(
        [p < 6, p < 7, p < 8, p < 10, p < 12, p < 14, p < 20, p < 28, p < 60],
        [0.11, 0.14, 0.19, 0.3, 0.5, 0.7, 1.1, 1.6, 2.4],
        np.inf,
    )


def _em_step(p: np.ndarray, q: np.ndarray, log_c: np.ndarray, gregory: np.ndarray) -> np.ndarray:
    """Largest step (units of w) at which the Euler-Maclaurin terms of an end stay below 1e-13.

    At an end where the density is ``C r^p (1 - r)^q``, the plain trapezoidal rule started there
    errs by ``sum_k zeta(-k) c_k h^(k+1)`` with the Taylor coefficients ``c_k = C binom(q, k - p)
    (-1)^(k - p)`` (``k = p, p + 1, ...``; Gregory's weights remove the terms ``k < 12``), and
    ``|zeta(-k)| <= 2 Gamma(k + 1) zeta(k + 1) / (2 pi)^(k + 1)`` (the functional equation).
    Each of the first seven remaining terms is kept below 1e-13: the bound that matters for a
    class whose density is far from its end form over the lattice's reach (a mode far from the
    end: Beta(9, 5) at 0 needs 0.026 where the measured ``_end_step`` gives 0.075).
    """
    j0 = np.where(gregory, np.maximum(_GREGORY_ORDER - p, 0.0), 0.0)
    j = np.round(j0)[..., None] + np.arange(7.0)
    k = p[..., None] + j
    with np.errstate(divide="ignore", invalid="ignore"):
        coef = (
            np.log(2.0) + sc.gammaln(k + 1.0) + np.log(sc.zeta(k + 1.0))
            + np.log(np.abs(sc.binom(q[..., None], j))) + log_c[..., None]
        )  # fmt: skip
        log_h = np.log(2.0 * np.pi) + (np.log(_EM_TERM) - coef) / (k + 1.0)
    return np.exp(np.nanmin(np.where(np.isfinite(log_h) | (log_h > 0), log_h, np.inf), axis=-1))


def _is_integer(v: np.ndarray) -> np.ndarray:
    return np.abs(v - np.round(v)) < 1e-12


class _Groups(NamedTuple):
    """The arrays of :func:`many_sums` that its chunks take rows of: per group and class
    (Beta parameters, tail spans, lattice index ranges, lattice and narrow classes), per group
    (weight, lattice points per weight, the exact class, moments, FFT length and window)."""

    a: np.ndarray
    b: np.ndarray
    w: np.ndarray
    M: np.ndarray
    j_lo: np.ndarray
    j_hi: np.ndarray
    rows: np.ndarray
    narrow: np.ndarray
    ib: np.ndarray
    mu: np.ndarray
    var: np.ndarray
    m3: np.ndarray
    k4: np.ndarray
    mean: np.ndarray
    sigma: np.ndarray
    mom3: np.ndarray
    cum4: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    fft_len: np.ndarray
    window_start: np.ndarray


def many_sums(
    A: np.ndarray,
    B: np.ndarray,
    inc: np.ndarray,
    chance: float,
    q: np.ndarray,
    advance=None,
    quantiles: bool = True,
):
    """Central credible interval and ``P(S > chance)`` of the sums of many groups.

    Parameters
    ----------
    A, B : ndarray, shape (G, l)
        Beta parameters of every class of every group.
    inc : ndarray of bool, shape (G, l)
        Classes that enter each group's sum (at least three per group).
    chance : float
        The threshold of the probability above chance.
    q : ndarray, shape (2,)
        Lower and upper probability of the central interval.
    advance : callable, optional
        Called with the number of groups done after each batch of them (a progress bar).
    quantiles : bool
        Whether to compute the interval; without it (``P(S > chance)`` only, as
        :func:`bacc.monitor` needs) ``lower`` and ``upper`` are NaN and the quantile
        iteration, most of the cost, is skipped.

    Returns
    -------
    lower, upper, p_above : ndarray, shape (G,)
        NaN where ``handled`` is False.
    handled : ndarray of bool, shape (G,)
        Groups computed here (the others need the single evaluation).
    """
    G, l = A.shape
    m = inc.sum(axis=1)
    w = 1.0 / m
    a = np.where(inc, A, 2.0)  # placeholders for left-out classes (never used)
    b = np.where(inc, B, 2.0)
    mu, var, m3 = beta_moments(a, b)
    k4 = beta_k4(a, b)
    w2 = w[:, None] ** 2
    cvar = np.where(inc, w2 * var, 0.0)
    sd_c = np.sqrt(cvar)
    sigma = np.sqrt(cvar.sum(axis=1))
    mean = (np.where(inc, mu, 0.0) * w[:, None]).sum(axis=1)
    mom3 = (np.where(inc, m3, 0.0) * w[:, None] ** 3).sum(axis=1)
    cum4 = (np.where(inc, k4, 0.0) * w2**2).sum(axis=1)

    lo, hi = _beta.beta_tail_span(a.ravel(), b.ravel(), _TAIL)
    lo, hi = lo.reshape(G, l), hi.reshape(G, l)
    span = hi - lo
    at_lo = lo <= 0.1 * span  # an end of the support with mass
    at_hi = 1.0 - hi <= 0.1 * span
    # exponent p of the density at each end (f ~ r^p) and the rate at which it decays from there
    p_lo, p_hi = a - 1.0, b - 1.0
    rough_lo = at_lo & (p_lo < _END_P)  # ends that need Gregory's weights
    rough_hi = at_hi & (p_hi < _END_P)
    smooth = ~rough_lo & ~rough_hi
    # a non-integer low exponent at an end with mass (singular or kinked density, Jeffreys'
    # prior): no end rule here
    odd = inc & ((rough_lo & ~_is_integer(a)) | (rough_hi & ~_is_integer(b)))

    # spread of the smooth classes: the scale on which the rest of the sum smooths the ends of
    # the others (a jump of a perfect class is resolved only on that scale)
    s_smooth = np.sqrt(np.where(inc & smooth, cvar, 0.0).sum(axis=1))
    # narrow part: the narrowest classes, while together within _NARROW of that spread
    order = np.argsort(np.where(inc, sd_c, np.inf), axis=1, kind="stable")
    sorted_var = np.take_along_axis(cvar, order, axis=1)
    cum_sd = np.sqrt(np.cumsum(sorted_var, axis=1))
    rank_ok = np.arange(l)[None, :] < (m - 1)[:, None]  # the widest is always resolved
    narrow_sorted = (cum_sd <= _NARROW * s_smooth[:, None]) & rank_ok
    narrow_sorted &= np.cumprod(narrow_sorted, axis=1).astype(bool)  # a prefix
    narrow = np.zeros((G, l), dtype=bool)
    np.put_along_axis(narrow, order, narrow_sorted, axis=1)
    narrow &= inc
    resolved = inc & ~narrow
    has_narrow = narrow.any(axis=1)

    # B: the narrowest resolved smooth class
    cand = resolved & smooth
    ib = np.argmin(np.where(cand, sd_c, np.inf), axis=1)
    handled = cand.any(axis=1) & ~(odd & resolved).any(axis=1)

    # lattice step (in units of w): resolves every resolved class (_SMOOTH_STEPS per standard
    # deviation) and the decay of its density from an end with mass (_end_step)
    unit_h = np.where(resolved, np.sqrt(var) / _SMOOTH_STEPS, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_c = -sc.betaln(a, b)  # the density is C r^p (1 - r)^q at each end
        for at, p_end, q_end in ((at_lo, p_lo, p_hi), (at_hi, p_hi, p_lo)):
            mass = resolved & at  # (only these: seven terms per end)
            lim = np.full((G, l), np.inf)
            lim[mass] = _em_step(p_end[mass], q_end[mass], log_c[mass], p_end[mass] < _END_P)
            rate = np.maximum(q_end, 0.0)
            # the measured steps (a density r^p e^(-rate r) of mass 1 near the end), made finer
            # where the same form holds more mass than the class (a mode far from the end)
            excess = log_c + sc.gammaln(p_end + 1.0) - (p_end + 1.0) * np.log(rate)
            table = _end_step(p_end) / rate / np.exp(np.maximum(excess, 0.0) / (p_end + 2.0))
            lim = np.minimum(lim, np.where(rate > 0, table, np.inf))
            unit_h = np.where(mass, np.minimum(unit_h, lim), unit_h)
        # an end rule needs its points: 2 * order + 1 over the class's lattice
        ends = rough_lo.astype(int) + rough_hi.astype(int)
        need = np.where(ends > 0, span / (ends * _GREGORY_ORDER + 1), np.inf)
        unit_h = np.where(resolved, np.minimum(unit_h, need), unit_h)
    unit_step = unit_h.min(axis=1)
    # the end rules and the narrow part integrate functions that vary on the smooth classes'
    # scale: steps of at most 1/8 of it (rough classes; see the module notes) and 1/25
    # (narrow part: its moment error 0.012 (h / s)^4 (sd_D / s)^2, s that scale)
    rough_rows = (resolved & ~smooth).any(axis=1)
    unit_step = np.where(rough_rows, np.minimum(unit_step, s_smooth / w / _ROUGH_STEPS), unit_step)
    unit_step = np.where(has_narrow, np.minimum(unit_step, _NARROW_STEP * s_smooth / w), unit_step)
    # (groups without a smooth class are not handled: any step will do for their arrays)
    handled &= (unit_step > 0) & np.isfinite(unit_step)
    unit_step = np.where(handled, unit_step, 0.5)
    M = np.ceil(1.0 / unit_step)  # lattice points per unit of w: h = w / M (ends on points)
    j_lo = np.where(rough_lo, 0.0, np.floor(lo * M[:, None]))
    j_hi = np.where(rough_hi, M[:, None], np.ceil(hi * M[:, None]))
    rows = resolved.copy()
    rows[np.arange(G), ib] = False  # B is not on the lattice
    n_pts = np.where(rows, j_hi - j_lo + 1, 0).astype(np.int64)
    # points of R's lattice (at least the length of its convolution: a group whose classes
    # beside B all belong to the narrow part has no lattice row, only the narrow part's five)
    total = np.maximum(n_pts.sum(axis=1), 1) + 4 * has_narrow
    # The masses of R beyond _WINDOW variance-proxy deviations of its mean are below 3e-14
    # (a Beta(a, b) variable is sub-Gaussian with variance proxy 1 / (4 (a + b + 1)); Marchal &
    # Arbel 2017), so the convolution is circular over that window: tails that wrap around add
    # less than that, and the window is much shorter than the sum of the rows' lengths.
    proxy = np.sqrt(np.where(rows, 0.25 / (a + b + 1.0), 0.0).sum(axis=1)) * M
    centre = np.where(rows, mu, 0.0).sum(axis=1) * M
    first_j = np.where(rows, j_lo, 0.0).sum(axis=1) - 2.0 * has_narrow  # support of R's lattice
    last_j = np.where(rows, j_hi, 0.0).sum(axis=1) + 2.0 * has_narrow
    with np.errstate(invalid="ignore"):
        half = np.ceil(_WINDOW * proxy) + 4.0
        window_start = np.maximum(np.floor(centre - half), first_j)
        window_end = np.minimum(np.ceil(centre + half), last_j)
    fft_len = np.where(handled, np.minimum(total, window_end - window_start + 1), 1).astype(
        np.int64
    )
    handled &= (total <= _MAX_POINTS) & np.isfinite(M)

    lower = np.full(G, np.nan)
    upper = np.full(G, np.nan)
    p_above = np.full(G, np.nan)
    todo = np.flatnonzero(handled)
    if todo.size == 0:
        return lower, upper, p_above, handled
    groups = _Groups(
        a=a, b=b, w=w, M=M, j_lo=j_lo, j_hi=j_hi, rows=rows, narrow=narrow, ib=ib, mu=mu,
        var=var, m3=m3, k4=k4, mean=mean, sigma=sigma, mom3=mom3, cum4=cum4, lo=lo, hi=hi,
        fft_len=fft_len, window_start=window_start,
    )  # fmt: skip
    # groups of similar lattice lengths share one FFT length
    todo = todo[np.argsort(fft_len[todo], kind="stable")]
    start = 0
    while start < todo.size:
        width = int(fft_len[todo[start]]) + 1
        rows_per = int(rows[todo[start]].sum()) + 1
        stop = start + 1
        # grow the chunk while the padded size stays within budget
        while stop < todo.size:
            width2 = int(fft_len[todo[stop]]) + 1
            rows2 = max(rows_per, int(rows[todo[stop]].sum()) + 1)
            if (stop - start + 1) * rows2 * width2 > _CHUNK_POINTS or width2 > 1.5 * width:
                break
            rows_per = rows2
            stop += 1
        chunk = todo[start:stop]
        res = _chunk(chunk, groups, chance, q, quantiles)
        lower[chunk], upper[chunk], p_above[chunk] = res
        if advance is not None:
            advance(chunk.size)
        start = stop
    return lower, upper, p_above, handled


def _chunk(g, groups: _Groups, chance, q, quantiles=True):
    """Lattice, convolution and quantile iterations for the groups ``g`` (one FFT length)."""
    (a, b, w, M, j_lo, j_hi, rows, narrow, ib, mu, var, m3, k4, mean, sigma, mom3, cum4, lo, hi,
     fft_len, window_start) = groups  # fmt: skip
    n = g.size
    wg = w[g]
    h = wg / M[g]
    # --- lattice masses of the resolved classes except B, one flat vector for all -----------
    gi, ci = np.nonzero(rows[g])  # (local group, class) of each lattice row
    jl, jh = j_lo[g][gi, ci], j_hi[g][gi, ci]
    cnt = (jh - jl + 1).astype(np.int64)
    flat_row = np.repeat(np.arange(gi.size), cnt)
    first = np.cumsum(cnt) - cnt
    k = np.arange(flat_row.size) - first[flat_row]  # position in its row
    Mr = M[g][gi]
    t = (jl[flat_row] + k) / Mr[flat_row]  # lattice point in units of w
    ar, br = a[g][gi, ci], b[g][gi, ci]
    mr = mu[g][gi, ci]
    af, bf, mf = ar[flat_row], br[flat_row], mr[flat_row]
    # log density relative to the mean, log1p of the relative distance (no large cancelling
    # terms at large parameters); the distance is kept above -1 + 2^-52 so that an end point
    # gives exp(-36 (p - 1)) with p - 1 >= 1 (0 to rounding) or exactly 1 for p = 1 (a jump)
    floor = -1.0 + 2.0**-52
    with np.errstate(under="ignore"):
        logf = (af - 1.0) * np.log1p(np.maximum((t - mf) / mf, floor))
        logf += (bf - 1.0) * np.log1p(np.maximum((mf - t) / (1.0 - mf), floor))
        f = np.exp(logf)
    # Gregory's end weights where the lattice starts or ends at a support end with mass
    r = _GREGORY.size
    kr = np.arange(r)
    greg_lo = np.flatnonzero((jl == 0) & (ar - 1.0 < _END_P))
    greg_hi = np.flatnonzero((jh == Mr) & (br - 1.0 < _END_P))
    f[(first[greg_lo][:, None] + kr).ravel()] *= np.tile(_GREGORY, greg_lo.size)
    f[(first[greg_hi][:, None] + cnt[greg_hi][:, None] - 1 - kr).ravel()] *= np.tile(
        _GREGORY, greg_hi.size
    )
    f /= np.add.reduceat(f, first)[flat_row] if first.size else 1.0

    # --- place rows (and the narrow part) into one padded array per group -------------------
    rank = np.zeros(gi.size, dtype=np.int64)
    if gi.size:
        # row number within its group
        new = np.r_[True, gi[1:] != gi[:-1]]
        idx = np.arange(gi.size)
        rank = idx - np.maximum.accumulate(np.where(new, idx, 0))
    has_d = narrow[g].any(axis=1)
    n_rows = np.bincount(gi, minlength=n) + has_d
    R = max(int(n_rows.max()), 1)
    length = np.zeros(n, dtype=np.int64)
    np.add.at(length, gi, cnt - 1)
    length += 1 + 4 * has_d
    nfft = sfft.next_fast_len(int(fft_len[g].max()), real=True)
    arr = np.zeros((n, R, nfft))
    arr[:, :, 0] = 1.0  # unused rows: a unit mass at 0 (spectrum 1)
    arr[gi, rank, 0] = 0.0
    if cnt.size and cnt.max() > nfft:  # a row longer than the window wraps around it
        np.add.at(arr, (gi[flat_row], rank[flat_row], k % nfft), f)
    else:
        arr[gi[flat_row], rank[flat_row], k] = f
    j0 = np.zeros(n)
    np.add.at(j0, gi, jl)
    # narrow part: exact mean (a shift) and five moment-matched masses at -2h .. 2h
    shift = np.zeros(n)
    if has_d.any():
        gd = np.flatnonzero(has_d)
        nw = narrow[g][gd]
        wd = wg[gd][:, None]
        d_var = np.where(nw, wd**2 * var[g][gd], 0.0).sum(axis=1)
        d_m3 = np.where(nw, wd**3 * m3[g][gd], 0.0).sum(axis=1)
        d_k4 = np.where(nw, wd**4 * k4[g][gd], 0.0).sum(axis=1)
        shift[gd] = np.where(nw, wd * mu[g][gd], 0.0).sum(axis=1)
        slot = n_rows[gd] - 1
        for i, gl in enumerate(gd):
            arr[gl, slot[i], :5] = moment_masses(d_var[i], d_m3[i], d_k4[i], h[gl])
        j0[gd] -= 2.0
    spec = sfft.rfft(arr, nfft, axis=2)
    p = sfft.irfft(np.prod(spec, axis=1), nfft, axis=1)
    del arr, spec
    # the convolution is circular: position s holds lattice index j0 + s (mod nfft); the window
    # starts at w0 (the rows' start when the whole convolution fits)
    w0 = np.where(length <= nfft, j0, window_start[g])
    pos = np.arange(nfft)
    p = np.take_along_axis(p, (pos[None, :] + (w0 - j0).astype(np.int64)[:, None]) % nfft, axis=1)
    rel = pos[None, :] + (w0 - j0)[:, None]  # index within the full convolution
    p[(rel < 0) | (rel >= length[:, None])] = 0.0
    cum = np.concatenate([np.zeros((n, 1)), np.cumsum(p, axis=1)], axis=1)  # cum[:, i]: < i
    rev = np.concatenate([np.cumsum(p[:, ::-1], axis=1)[:, ::-1], np.zeros((n, 1))], axis=1)

    # --- B: exact CDF ----------------------------------------------------------------------
    bi = ib[g]
    sel = np.arange(n)
    aB, bB = a[g][sel, bi], b[g][sel, bi]
    tloB, thiB = lo[g][sel, bi], hi[g][sel, bi]
    lbB = sc.betaln(aB, bB)
    KB = (np.ceil((thiB - tloB) * M[g]) + 2).astype(np.int64)  # window of B's span, in steps
    base = w0 * h + shift  # position of p[:, 0]

    def values(x, which, kinds):
        """cdf / sf / pdf / dpdf of the groups ``which`` at ``x``.

        Each x needs B's CDF at the lattice points within B's span of it (``KB`` of them, per
        group): one flat (ragged) array for all, summed per x with ``reduceat``.
        """
        y = x - base[which]  # position relative to p[:, 0]
        hw, ww = h[which], wg[which]
        top = np.floor((y - ww * thiB[which]) / hw).astype(np.int64)  # F_B = 1 up to here
        kb = KB[which]
        row = np.repeat(np.arange(which.size), kb)
        first = np.cumsum(kb) - kb
        idx = top[row] + 1 + (np.arange(row.size) - first[row])
        valid = (idx >= 0) & (idx < nfft)
        pw = np.where(valid, p[which[row], np.clip(idx, 0, nfft - 1)], 0.0)
        u = unit((y[row] - idx * hw[row]) / ww[row])
        aa, bb = aB[which][row], bB[which][row]
        out = {}
        if "cdf" in kinds or "sf" in kinds:
            F, S = _beta.beta_tails(aa, bb, u)
            if "cdf" in kinds:
                out["cdf"] = cum[which, np.clip(top + 1, 0, nfft)] + np.add.reduceat(pw * F, first)
            if "sf" in kinds:
                after = np.clip(top + 1 + kb, 0, nfft)
                out["sf"] = rev[which, after] + np.add.reduceat(pw * S, first)
        if "pdf" in kinds or "dpdf" in kinds:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
                logf = sc.xlogy(aa - 1.0, u) + sc.xlog1py(bb - 1.0, -u) - lbB[which][row]
                dens = np.where(valid, np.exp(logf), 0.0)
                dens = np.where(np.isfinite(dens), dens, 0.0)
                out["pdf"] = np.add.reduceat(pw * dens, first) / ww
                if "dpdf" in kinds:
                    slope = dens * ((aa - 1.0) / u - (bb - 1.0) / (1.0 - u))
                    slope = np.where(np.isfinite(slope), slope, 0.0)
                    out["dpdf"] = np.add.reduceat(pw * slope, first) / ww**2
        return out

    # P(S > chance): 1 to within 1e-15 where chance is below every point with mass (B's lower
    # 1e-15 point above the lattice's first point)
    p_above = np.ones(n)
    near = np.flatnonzero(chance >= base + wg * tloB - h)
    if near.size:
        p_above[near] = unit(values(np.full(near.size, chance), near, ("sf",))["sf"])
    if not quantiles:
        return np.full(n, np.nan), np.full(n, np.nan), p_above
    both = np.concatenate([sel, sel])
    upper_tail = np.repeat([False, True], n)
    target = np.concatenate([np.full(n, q[0]), np.full(n, 1.0 - q[1])])
    gg = g[both]
    start = cornish_fisher_start(
        target, upper_tail, mean[gg], sigma[gg], mom3[gg], 0.0, 1.0, cum4[gg]
    )
    tol = np.maximum(4e-16, 1e-10 * sigma[gg])

    def tail_and_pdf(x, up, which):
        return tails(lambda xx, kinds: values(xx, both[which], kinds), unit(x), up, True)

    x = newton_quantile(
        tail_and_pdf, target, upper_tail, start, np.zeros(2 * n), np.ones(2 * n), tol
    )
    return x[:n], x[n:], p_above
