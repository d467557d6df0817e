"""``P(lambda_now < lambda_base - margin)`` for many pairs of independent posteriors.

First, :func:`p_worse_lattice`: since ``1 - phi ~ Beta(b, a)`` when ``phi ~ Beta(a, b)``, the
event is ``T > (1 + margin) / 2`` for ``T = (lambda_base + 1 - lambda_now) / 2``, the average of
``2 l`` independent Betas (the baseline's classes and the window's reflected), whose upper tail
the batched lattice of :func:`bacc._engine.sums.batch_lattice.many_sums` computes for all rows at once
(any number of classes; against a number, the window's ``l`` reflected classes). It takes the
rows with at least one class whose density vanishes to high order at the ends of its support;
the others (every class with fewer than six errors or six correct examples: small windows) are
left to the two-class quadrature below or, with three or more classes, to a :class:`BetaSum`.
Measured against the :class:`BetaSum` of the difference (``tests/test_monitoring.py``): within
1.7e-10 (two classes) and 2.9e-11 (three) over windows of 1 to 10^6 examples per class with
perfect classes and margins 0, 0.03 and 0.1; probabilities below 1e-3 within 3e-12 (the upper
tail is computed, not one minus a distribution function, so a small ``P(worse)`` is not lost
to cancellation; relative error below 1e-6 from about 1e-5 on). At 10^9 examples per class it
agreed with :func:`p_worse_pairs` to 6e-10, where both differed from :class:`BetaSum` by
1.7e-8.

The two-class quadrature, :func:`p_worse_pairs`. Each balanced accuracy is ``lambda = (theta_1 + theta_2) / 2`` with independent Beta class
accuracies (Brodersen et al. (2010), eq. 7). For independent ``lambda_now`` and
``lambda_base``

    P(lambda_now < lambda_base - m) = integral f_N(x) G(x) dx,

integrated over the *narrower* of the two posteriors (``N``; ``G`` is the other's distribution
function or survival function at the shifted point), as :class:`bacc.distributions.BetaSum`
and :func:`bacc.compare` do for one pair. Both the density of ``N`` and ``G`` are exact
two-component sums (:class:`bacc._engine.sums.two_betas.PairSums`, the engine of :func:`bacc.evaluate`
and :func:`bacc.evaluate_many`); the outer integral is a composite Gauss-Legendre rule of
:data:`NODES` nodes per panel over ``N``'s span between its ``1e-13`` tail quantiles (bounded by
those of its components), with panel edges at ``mean + sd * (-7, -4, -2, -0.7, 0.7, 2, 4, 7)``
inside the span; for components of small parameter also at the kinks of the integrand (1/2,
shifted by the margin) and, where a density does not vanish at an end of its support (a
perfect class under a flat prior), :data:`NODES_EDGE` nodes per panel and panels graded towards
both ends down to the thinnest component's spread. Panels of zero width are dropped (54 nodes
per pair on average in the benchmark). The weights are normalised to the span's mass. Every row is one pair; rows
are evaluated together in chunks, so the whole computation is a handful of array operations
per chunk.

Pairs whose spans do not overlap (after the margin) are decided without quadrature: the
probability is then 0 or 1 to within ``4e-13``. The tests compare every case with the exact
one-pair computation (:func:`bacc.compare`, a :class:`BetaSum` of the difference): the largest
difference over 150 pairs from 3 to 200 000 examples per class was 2.2e-7, over 60 pairs with
perfect classes 3.6e-8 (tests: 1e-6). The inner rules of the two-component sums have 32
Gauss-Legendre nodes (``PairSums(..., nodes=32)``), not 48: the same largest
differences, at two thirds of the cost.
"""

from __future__ import annotations

import numpy as np

from .. import beta as _beta
from .batch_lattice import many_sums
from .solvers import beta_moments
from .two_betas import PairSums
from .two_class_rows import wider_first

__all__ = ["p_worse_pairs", "p_below", "p_worse_lattice"]

TAIL = 1e-13
NODES = 6  # Gauss-Legendre nodes per panel
PANELS = 4  # the width of the graded end panels is the span / PANELS
_STEPS = np.array([-7.0, -4.0, -2.0, -0.7, 0.7, 2.0, 4.0, 7.0])  # inner panel edges, in sd
ROUGH = 8.0  # below this Beta parameter, panel edges also go to the kinks at 1/2
GRADED = 10  # most halvings of the end panels (rows with a Beta parameter at most 1)
CHUNK = 1024  # pairs per block: temporaries of CHUNK x nodes (40 to 300) x 32 floats

NODES_EDGE = 10  # nodes per panel where a density does not vanish at an end of its support
_RULES = {n: np.polynomial.legendre.leggauss(n) for n in (NODES, NODES_EDGE)}


# Gauss-Legendre nodes of the inner two-class sums: inside the outer quadrature they are
# evaluated at tens of points per pair, so the inner rule sets the cost; with 32 nodes the largest
# difference from the exact comparison over the test pairs is unchanged (2.2e-7), with 24 it
# grows to 4e-6
_INNER_NODES = 32


def _sums(a2: np.ndarray, b2: np.ndarray) -> PairSums:
    """``(theta_1 + theta_2) / 2`` per row, the wider component exact."""
    return wider_first(a2, b2, nodes=_INNER_NODES, tie_to_second=False)


def _span(a2: np.ndarray, b2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An interval holding all but ``<= 4 TAIL`` of ``(theta_1 + theta_2) / 2``."""
    lo, hi = _beta.beta_tail_span(a2.ravel(), b2.ravel(), TAIL)
    lo, hi = lo.reshape(a2.shape), hi.reshape(a2.shape)
    return 0.5 * lo.sum(axis=1), 0.5 * hi.sum(axis=1)


def _edges(
    lo: np.ndarray, hi: np.ndarray, mean: np.ndarray, sd: np.ndarray,
    kinks: tuple[float, float] | None, graded: int = 0,
) -> np.ndarray:
    """Panel edges per row: ``PANELS`` equal panels over ``[lo, hi]``; with ``kinks`` (rows
    with a Beta parameter below :data:`ROUGH`) also an edge at each kink inside the span, and
    with ``graded`` (a parameter at most 1) that many panels halving in width towards both ends.

    A two-class sum's density and the other sum's distribution function are smooth except at
    1/2 (and 1/2 shifted by the margin) where a component of small parameter reaches an end of
    its support; a component with a parameter of 1 or less (a perfect class under a flat
    prior) has a density that does not vanish at an end of its support, which puts a boundary
    layer as thin as the narrower component's spread at an end of the span: the graded panels
    resolve it.
    """
    d = (hi - lo) / PANELS
    inner = np.clip(mean[:, None] + sd[:, None] * _STEPS[None, :], lo[:, None], hi[:, None])
    edges = np.concatenate([lo[:, None], inner, hi[:, None]], axis=1)
    if kinks is None:
        return edges
    extra = [np.clip(np.full(lo.size, k), lo, hi) for k in kinks]
    if graded:
        halves = 0.5 ** np.arange(1, graded + 1)
        extra += [lo + d * h for h in halves] + [hi - d * h for h in halves]
    return np.sort(np.concatenate([edges, np.stack(extra, axis=1)], axis=1), axis=1)


def _expect(na, nb, oa, ob, edges, shift, kind, nodes: int = NODES) -> np.ndarray:
    """``E[G(X + shift)]`` per row: ``X`` the sum ``(na, nb)``, ``G`` the cdf or sf of the sum
    ``(oa, ob)``; composite Gauss-Legendre on the panels ``edges``, weights normalised.

    Panels of zero width (edges clipped to the span, kinks outside it) are dropped, so rows
    keep only the nodes they need: the nodes of all rows go to the engine as one flat array.
    """
    k = na.shape[0]
    _X, _W = _RULES[nodes]
    half = 0.5 * np.diff(edges, axis=1)
    mid = 0.5 * (edges[:, 1:] + edges[:, :-1])
    x = (mid[:, :, None] + half[:, :, None] * _X[None, None, :]).reshape(k, -1)
    w = (half[:, :, None] * _W[None, None, :]).reshape(k, -1)
    keep = w > 0
    which = np.nonzero(keep)[0]
    x, w = x[keep], w[keep]
    f = _sums(na, nb).values(x, ("pdf",), which)["pdf"]
    fw = np.where(np.isfinite(f), f, 0.0) * w
    total = np.bincount(which, weights=fw, minlength=k)
    g = _sums(oa, ob).values(np.clip(x + shift, 0.0, 1.0), (kind,), which)[kind]
    out = np.bincount(which, weights=fw * g, minlength=k)
    return out / np.where(total > 0, total, 1.0)


def p_below(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P(lambda < x)`` per row for two-class posteriors with Beta parameters ``a, b`` (G, 2)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    x = np.asarray(x, float)
    out = np.empty(a.shape[0])
    for s in range(0, a.shape[0], CHUNK):
        sl = slice(s, s + CHUNK)
        sums = _sums(a[sl], b[sl])
        n = a[sl].shape[0]
        out[sl] = sums.values(np.clip(x[sl], 0.0, 1.0), ("cdf",), np.arange(n))["cdf"]
    return np.clip(out, 0.0, 1.0)


def p_worse_pairs(
    a_now: np.ndarray,
    b_now: np.ndarray,
    a_base: np.ndarray,
    b_base: np.ndarray,
    margin: float = 0.0,
    progress=None,
) -> np.ndarray:
    """``P(lambda_now < lambda_base - margin)`` per row, for independent two-class posteriors.

    Parameters
    ----------
    a_now, b_now, a_base, b_base : ndarray, shape (G, 2)
        Beta parameters of the two class accuracies of each posterior.
    margin : float
        How much worse counts as worse.
    progress : callable, optional
        Called with the number of rows done after each block.

    Returns
    -------
    ndarray, shape (G,)
    """
    arrs = [np.asarray(v, dtype=float) for v in (a_now, b_now, a_base, b_base)]
    G = arrs[0].shape[0]
    out = np.empty(G)
    for s in range(0, G, CHUNK):
        sl = slice(s, s + CHUNK)
        out[sl] = _block(*(v[sl] for v in arrs), float(margin))
        if progress is not None:
            progress(min(G, s + CHUNK))
    return np.clip(out, 0.0, 1.0)


def _block(an, bn, ab, bb, m):
    G = an.shape[0]
    lo_n, hi_n = _span(an, bn)
    lo_b, hi_b = _span(ab, bb)
    out = np.full(G, np.nan)
    sure_worse = hi_n + m <= lo_b
    sure_not = lo_n + m >= hi_b
    out[sure_worse] = 1.0
    out[sure_not] = 0.0
    rows = np.flatnonzero(~(sure_worse | sure_not))
    if not rows.size:
        return out
    an, bn, ab, bb = an[rows], bn[rows], ab[rows], bb[rows]
    lo_n, hi_n, lo_b, hi_b = lo_n[rows], hi_n[rows], lo_b[rows], hi_b[rows]
    var_n = (beta_moments(an, bn)[1]).sum(axis=1)
    var_b = (beta_moments(ab, bb)[1]).sum(axis=1)
    over_base = var_b <= var_n  # integrate over the narrower: the baseline
    res = np.empty(rows.size)
    for flag in (True, False):
        sel = np.flatnonzero(over_base == flag)
        if not sel.size:
            continue
        if flag:  # p = E_base[F_now(y - m)]
            na, nb, oa, ob, lo, hi, sign = ab[sel], bb[sel], an[sel], bn[sel], lo_b[sel], hi_b[sel], -m
        else:  # p = E_now[S_base(x + m)]
            na, nb, oa, ob, lo, hi, sign = an[sel], bn[sel], ab[sel], bb[sel], lo_n[sel], hi_n[sel], m
        mu = 0.5 * (na / (na + nb)).sum(axis=1)
        sd = np.sqrt(0.25 * beta_moments(na, nb)[1].sum(axis=1))
        params = np.concatenate([na, nb, oa, ob], axis=1)
        smallest = params.min(axis=1)
        # halvings of the end panels where a density does not vanish at an end: down to a
        # few times below the thinnest component's spread (the width of the boundary layer)
        var4 = beta_moments(np.concatenate([na, oa], axis=1), np.concatenate([nb, ob], axis=1))[1]
        thinnest = 0.5 * np.sqrt(var4.min(axis=1))
        d = (hi - lo) / PANELS
        with np.errstate(divide="ignore", invalid="ignore"):
            need = np.ceil(np.log2(d / thinnest)) + 3
        halvings = np.where(smallest <= 1.0, np.clip(np.nan_to_num(need, nan=GRADED), 1, GRADED), 0)
        shape = np.where(smallest < ROUGH, 1 + halvings, 0).astype(np.int64)
        kind = "cdf" if flag else "sf"
        for level in np.unique(shape):
            part = np.flatnonzero(shape == level)
            kinks = (0.5, 0.5 - sign) if level else None
            edges = _edges(lo[part], hi[part], mu[part], sd[part], kinks, graded=max(int(level) - 1, 0))
            nodes = NODES_EDGE if level > 1 else NODES
            res[sel[part]] = _expect(na[part], nb[part], oa[part], ob[part], edges, sign, kind, nodes)
    out[rows] = res
    return out


def p_worse_lattice(
    a_now: np.ndarray,
    b_now: np.ndarray,
    inc: np.ndarray,
    a_base: np.ndarray | None = None,
    b_base: np.ndarray | None = None,
    number: float | None = None,
    margin: float = 0.0,
    advance=None,
) -> tuple[np.ndarray, np.ndarray]:
    """``P(lambda_now < lambda_base - margin)`` (or ``< number - margin``) per row, as the upper
    tail of one sum of Betas, by the batched lattice of :func:`many_sums`.

    If ``phi ~ Beta(a, b)`` then ``1 - phi ~ Beta(b, a)``, so with ``m`` classes

        T = (sum_i phi_i + sum_i (1 - theta_i)) / (2 m) = (lambda_base + 1 - lambda_now) / 2

    is the average of ``2 m`` independent Betas ``Beta(a_base_i, b_base_i)`` and
    ``Beta(b_now_i, a_now_i)``, and ``lambda_now < lambda_base - margin`` exactly when
    ``T > (1 + margin) / 2``: the probability above "chance" ``(1 + margin) / 2`` of a
    ``2 m``-class posterior. Against a number ``c``, ``1 - lambda_now`` (``m`` reflected
    classes) exceeds ``1 - c + margin``. The probability is the computed upper tail itself
    (not one minus a distribution function), so a small ``P(worse)`` is not lost to
    cancellation (absolute error about 1e-12 or less).

    Parameters
    ----------
    a_now, b_now : ndarray, shape (G, l)
        Beta parameters of the class accuracies of each window.
    inc : ndarray of bool, shape (G, l)
        Classes of each row (at least two; at least three against a number).
    a_base, b_base : ndarray, shape (G, l), optional
        Beta parameters of each row's baseline (counted baselines).
    number : float, optional
        The baseline balanced accuracy (a number baseline).
    margin : float
        How much worse counts as worse.
    advance : callable, optional
        Called with the number of rows done after each batch of them.

    Returns
    -------
    p : ndarray, shape (G,)
        NaN where ``handled`` is False.
    handled : ndarray of bool, shape (G,)
        Rows computed here; :func:`many_sums` leaves out rows without a class whose density
        vanishes to high order at the ends of its support (every class with fewer than six
        errors or six correct examples: small windows), a non-integer low exponent at an end
        with mass (Jeffreys' prior) or too many lattice points. The others need
        :func:`p_worse_pairs` or a :class:`bacc.distributions.BetaSum`.
    """
    a_now, b_now = np.asarray(a_now, float), np.asarray(b_now, float)
    inc = np.asarray(inc, bool)
    if number is None:
        A = np.concatenate([np.asarray(a_base, float), b_now], axis=1)
        B = np.concatenate([np.asarray(b_base, float), a_now], axis=1)
        inc2 = np.concatenate([inc, inc], axis=1)
        chance = 0.5 * (1.0 + margin)
    else:
        A, B, inc2 = b_now, a_now, inc
        chance = 1.0 - (number - margin)
    # placeholders in left-out classes keep every array finite (many_sums never reads them)
    A = np.where(inc2, A, 2.0)
    B = np.where(inc2, B, 2.0)
    _, _, p, handled = many_sums(A, B, inc2, chance, np.array([0.025, 0.975]), advance=advance,
                                 quantiles=False)
    return np.clip(p, 0.0, 1.0), handled
