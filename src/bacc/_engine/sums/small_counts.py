"""``P(lambda_now < lambda_base - margin)`` of many two-class windows of small counts, exactly.

A window of few examples under an integer prior (the flat one) has class accuracies
``theta_i ~ Beta(a_i, b_i)`` with integer parameters, whose densities are polynomials; the
distribution function ``F`` of its balanced accuracy ``lambda_now = (theta_1 + theta_2) / 2`` is
then a polynomial of degree ``D = a_1 + b_1 + a_2 + b_2 - 2`` on ``[0, 1/2]`` and on ``[1/2, 1]``
(a convolution of polynomials; Brodersen et al. (2010), eq. 7), 0 below 0 and 1 above 1. So

    P(lambda_now < lambda_base - m) = E[F(lambda_base - m)]

is the expectation of a polynomial under the baseline's posterior wherever that posterior's
mass lies inside one piece of ``F``. Three steps, each for distinct inputs only:

* each distinct window: the Chebyshev coefficients of both pieces of ``F``, from its values at
  ``D + 1`` Chebyshev points (interpolation is exact for a polynomial of that degree); each value
  is a one-dimensional integral of a polynomial, exact by Gauss-Legendre;
* each distinct baseline: the Chebyshev moments ``E[T_k(u)]``, ``k <= D``, of its balanced
  accuracy ``(phi_1 + phi_2) / 2`` mapped onto the piece, by the tensor rule of the two Betas'
  Gauss-Jacobi rules of ``K >= (D + 1) / 2`` nodes (their Jacobi matrices in closed form;
  Golub & Welsch 1969), exact for polynomials of degree ``2 K - 1``;
* each (window, baseline) pair: the sum of the window's coefficients times the baseline's
  moments (no cancellation: the coefficients and the moments are of size one at most).

The only error besides rounding comes from the baseline's mass outside the piece used, where
the piece's polynomial differs from ``F`` (from the other piece, or from 0 or 1 outside
``[0, 1]``); it is bounded, in steps away from the piece, by the mass beyond each step (upper
bounds from the Beta distribution functions: upper Riemann sums of the convolution) times the largest
difference on the step (the Chebyshev coefficients of the difference), and pairs whose bound
exceeds :data:`TOL` are not handled (a baseline whose mass straddles ``1/2 + margin`` or
``margin``: left to the other methods). Measured against :func:`bacc.compare`
(``tests/test_engine_sums_small_counts.py``, ``tests/test_monitoring_small_windows.py``):
within 1e-10 on windows of 2 to 60 examples, perfect, all-wrong and one-example windows
included (7e-11 on a sample of daily windows of about 20 examples), and within 1e-15 of exact
rational arithmetic (the window's polynomial in fractions, the baseline's exact moments), where
:func:`bacc.compare` differs by up to 6e-11: the differences are the general method's.

References
----------
.. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
   accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124.
.. [2] Golub, G. H. & Welsch, J. H. (1969). Calculation of Gauss quadrature rules. Mathematics
   of Computation 23, 221-230.
.. [3] Trefethen, L. N. (2013). Approximation Theory and Approximation Practice. SIAM
   (Chebyshev interpolation and coefficients, chapters 3-4).
"""

from __future__ import annotations

import numpy as np
import scipy.fft as _fft
import scipy.linalg as _linalg
import scipy.special as sc

__all__ = ["MAX_DEGREE", "TOL", "distinct_rows", "p_worse_small", "takes", "tensor_rule"]

#: the largest degree ``D`` of a window's distribution function taken here (windows of up to
#: about this many examples; the cost of a baseline grows as its cube)
MAX_DEGREE = 64
#: the largest bound of the error allowed for a pair (mass outside the piece times the piece)
TOL = 1e-13
CHUNK = 20_000  # pairs evaluated together
_CELLS = 48  # cells of the upper Riemann sums bounding the baseline's tails
_LEVEL = 0.002  # the first step of the error bound away from a piece (then doubling)


def takes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether each window (two classes, Beta parameters ``a, b`` of shape (G, 2)) has integer
    parameters of at least 1 and a degree of at most :data:`MAX_DEGREE`."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    integer = (a == np.round(a)) & (b == np.round(b)) & (a >= 1) & (b >= 1)
    return integer.all(axis=1) & ((a + b).sum(axis=1) - 2 <= MAX_DEGREE)


# ----------------------------------------------------------------------------------------------
# Gauss rules
def _jacobi_matrix(a: np.ndarray, b: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Diagonal (n, K) and off-diagonal (n, K - 1) of the Jacobi matrix of ``Beta(a, b)`` on
    ``[0, 1]``: the recurrence of the Jacobi polynomials of weight ``(1 - y)^(b - 1) (1 +
    y)^(a - 1)`` on ``[-1, 1]``, mapped by ``x = (1 + y) / 2``."""
    al, be = (b - 1.0)[:, None], (a - 1.0)[:, None]
    s = al + be
    k = np.arange(K, dtype=float)[None, :]
    t = 2.0 * k + s
    with np.errstate(divide="ignore", invalid="ignore"):
        diag = np.where(k == 0, (be - al) / (s + 2.0), (be * be - al * al) / (t * (t + 2.0)))
        k1 = k[:, 1:]
        t1 = t[:, 1:]
        off2 = 4.0 * k1 * (k1 + al) * (k1 + be) * (k1 + s) / (t1 * t1 * (t1 + 1.0) * (t1 - 1.0))
    return 0.5 * (1.0 + diag), 0.5 * np.sqrt(off2)


def _eig_rule(diag: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights (mass 1) of the Gauss rules of many Jacobi matrices (Golub-Welsch:
    the eigenvalues and the squared first components of the eigenvectors; LAPACK's
    tridiagonal solver, much faster than a batched dense one on small matrices)."""
    n, K = diag.shape
    x, w = np.empty((n, K)), np.empty((n, K))
    for i in range(n):
        if K == 1:
            x[i], w[i] = diag[i], 1.0
            continue
        x[i], v = _linalg.eigh_tridiagonal(diag[i], off[i])
        w[i] = v[0] ** 2
    return x, w / w.sum(axis=1, keepdims=True)


def tensor_rule(a: np.ndarray, b: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights, shape (n, K * K), of ``(phi_1 + phi_2) / 2``, ``phi_i ~ Beta(a_i,
    b_i)``, for each row of ``a, b`` (shape (n, 2)): the tensor rule of the two ``K``-node
    Gauss-Jacobi rules, exact for polynomials of degree ``2 K - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> x, w = tensor_rule(np.array([[3.0, 5.0]]), np.array([[2.0, 4.0]]), 2)
    >>> round(float((w * x).sum()), 12), round(0.5 * (3 / 5 + 5 / 9), 12)
    (0.577777777778, 0.577777777778)
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    n = a.shape[0]
    # the rule of each distinct Beta once (classes repeat across baselines)
    pairs = np.concatenate([np.stack([a[:, 0], b[:, 0]], axis=1), np.stack([a[:, 1], b[:, 1]], axis=1)])
    first, inverse = distinct_rows(pairs)
    x, w = _eig_rule(*_jacobi_matrix(pairs[first, 0], pairs[first, 1], K))
    x1, w1 = x[inverse[:n]], w[inverse[:n]]
    x2, w2 = x[inverse[n:]], w[inverse[n:]]
    X = (0.5 * (x1[:, :, None] + x2[:, None, :])).reshape(n, -1)
    W = (w1[:, :, None] * w2[:, None, :]).reshape(n, -1)
    return X, W


def _chebyshev_moments(X: np.ndarray, W: np.ndarray, lo: float, m: float, degree: int) -> np.ndarray:
    """``E[T_k(u)]``, ``k = 0..degree``, of ``u = 4 (lambda - m - lo) - 1`` under the rules
    ``(X, W)``; shape (n, degree + 1)."""
    u = 4.0 * (X - m - lo) - 1.0
    out = np.empty((X.shape[0], degree + 1))
    t_prev, t = np.ones_like(u), u
    out[:, 0] = W.sum(axis=1)
    if degree >= 1:
        out[:, 1] = (W * u).sum(axis=1)
    for k in range(2, degree + 1):
        t_prev, t = t, 2.0 * u * t - t_prev
        out[:, k] = (W * t).sum(axis=1)
    return out


# ----------------------------------------------------------------------------------------------
# the window's distribution function
def _log_pdf(t, a, b):
    with np.errstate(divide="ignore"):
        return sc.xlogy(a - 1.0, t) + sc.xlog1py(b - 1.0, -t) - sc.betaln(a, b)


def _cdf_values(a: np.ndarray, b: np.ndarray, lam: np.ndarray, upper: bool) -> np.ndarray:
    """``F(lam)`` of ``(theta_1 + theta_2) / 2`` per row (``a, b`` of shape (n, 2), ``lam`` of
    shape (P,) inside ``[1/2, 1]`` if ``upper`` else ``[0, 1/2]``), exactly for integer
    parameters: Gauss-Legendre on the integral of a polynomial."""
    deg = (a + b).sum(axis=1) - 2.0  # degree of F
    N = int(np.ceil((deg.max() + 1) / 2)) + 1
    gx, gw = np.polynomial.legendre.leggauss(N)
    s = 2.0 * lam[None, :, None]
    a1, b1 = a[:, 0, None, None], b[:, 0, None, None]
    a2, b2 = a[:, 1, None, None], b[:, 1, None, None]
    if upper:  # 1 - int_{s-1}^{1} g1(t) S2(s - t) dt
        lo, hi = s - 1.0, np.ones_like(s)
    else:  # int_0^s g1(t) G2(s - t) dt
        lo, hi = np.zeros_like(s), s
    half = 0.5 * (hi - lo)
    t = np.clip(lo + half * (gx[None, None, :] + 1.0), 0.0, 1.0)
    u = np.clip(s - t, 0.0, 1.0)
    g1 = np.exp(_log_pdf(t, a1, b1))
    if upper:
        inner = sc.betainc(b2, a2, 1.0 - u)  # S2(u) = I_{1-u}(b2, a2)
    else:
        inner = sc.betainc(a2, b2, u)
    val = (g1 * inner * gw[None, None, :]).sum(axis=2) * half[..., 0]
    return 1.0 - val if upper else val


def _chebyshev(a: np.ndarray, b: np.ndarray, degree: int, lo: float) -> np.ndarray:
    """Chebyshev coefficients (n, degree + 1) of each window's ``F`` on ``[lo, lo + 1/2]``
    (``lo`` 0 or 1/2), in ``u = 4 (lam - lo) - 1``, from its values at ``degree + 1`` Chebyshev
    points (exact for a polynomial of that degree)."""
    N = degree + 1
    u = np.cos(np.pi * (np.arange(N) + 0.5) / N)
    f = _cdf_values(a, b, (u + 1.0) / 4.0 + lo, upper=lo > 0)
    c = _fft.dct(f, type=2, axis=1) / N
    c[:, 0] *= 0.5
    return c


def _growth(c: np.ndarray, far: float) -> np.ndarray:
    """A bound of ``|sum_k c_k T_k(u)|`` for ``|u| <= far`` (``far >= 1``)."""
    k = np.arange(c.shape[1])
    tk = np.cosh(k * np.arccosh(far))
    return np.abs(c) @ tk


# ----------------------------------------------------------------------------------------------
# the baseline's tails
def _below(a: np.ndarray, b: np.ndarray, c: float, cells: int = _CELLS) -> np.ndarray:
    """An upper bound of ``P((phi_1 + phi_2) / 2 < c)`` per row: the upper Riemann sum of
    ``int g_2(y) G_1(2 c - y) dy`` over ``cells`` cells of ``y`` (``G_1`` decreases in
    ``y``, so each cell's mass times ``G_1`` at its left end bounds its part)."""
    s = 2.0 * c
    if s <= 0.0:
        return np.zeros(a.shape[0])
    if s >= 2.0:
        return np.ones(a.shape[0])
    y = np.linspace(max(0.0, s - 1.0), min(1.0, s), cells + 1)
    g2 = sc.betainc(a[:, 1, None], b[:, 1, None], y[None, :])  # P(phi_2 < y)
    g1 = sc.betainc(a[:, 0, None], b[:, 0, None], np.clip(s - y[:-1], 0.0, 1.0)[None, :])
    out = g2[:, 0] + (np.diff(g2, axis=1) * g1).sum(axis=1)
    return np.minimum(out, 1.0)


def _above(a: np.ndarray, b: np.ndarray, c: float, cells: int = _CELLS) -> np.ndarray:
    """An upper bound of ``P((phi_1 + phi_2) / 2 > c)`` (the reflection of :func:`_below`)."""
    return _below(b, a, 1.0 - c, cells)


def _clenshaw(c: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``sum_k c[:, k] T_k(u)`` for ``c`` (n, N) and ``u`` (n, P)."""
    b1 = np.zeros_like(u)
    b2 = np.zeros_like(u)
    for k in range(c.shape[1] - 1, 0, -1):
        b1, b2 = c[:, k, None] + 2.0 * u * b1 - b2, b1
    return c[:, 0, None] + u * b1 - b2


def _piece_value(c_lo, c_hi, lam, which):
    """``F``'s piece ``which`` (``"lo"``, ``"hi"``, ``0.0`` or ``1.0``) at ``lam`` (n, P)."""
    if which == "lo":
        return _clenshaw(c_lo, 4.0 * lam - 1.0)
    if which == "hi":
        return _clenshaw(c_hi, 4.0 * lam - 3.0)
    return np.full(lam.shape, float(which))


def _region(x: float, side: int):
    """The piece of ``F`` just beyond ``x`` on ``side`` and where that piece ends."""
    cuts = (0.0, 0.5, 1.0)
    pieces = (0.0, "lo", "hi", 1.0)
    i = int(np.searchsorted(cuts, x, side="right" if side > 0 else "left"))
    end = cuts[i] if side > 0 and i < 3 else (cuts[i - 1] if side < 0 and i > 0 else None)
    return pieces[i], end


def _difference_bound(c_lo, c_hi, own, other, x0, x1) -> np.ndarray:
    """A bound of ``|P_own - P_other|`` on ``[x0, x1]`` per window: the sum of the absolute
    Chebyshev coefficients of the difference (a polynomial of the windows' degree), from its
    values at as many Chebyshev points."""
    N = c_lo.shape[1]
    t = np.cos(np.pi * (np.arange(N) + 0.5) / N)
    lam = np.broadcast_to(0.5 * (x0 + x1) + 0.5 * (x1 - x0) * t, (c_lo.shape[0], N))
    diff = _piece_value(c_lo, c_hi, lam, own) - _piece_value(c_lo, c_hi, lam, other)
    coef = _fft.dct(diff, type=2, axis=1) / N
    coef[:, 0] *= 0.5
    return np.abs(coef).sum(axis=1) + 1e-15 * N


def _outside(pa, pb, c_lo, c_hi, j: int, m: float, b_of, w_of) -> np.ndarray:
    """A bound, per pair, of ``E|P(lambda_base - m) - F(lambda_base - m)|`` over the baseline's
    mass outside piece ``j`` of ``F`` (1: ``[0, 1/2]``, polynomial ``P`` of Chebyshev
    coefficients ``c_lo`` in ``u = 4 lam - 1``; 2: ``[1/2, 1]``, ``c_hi`` in ``u = 4 lam - 3``).

    In steps away from the piece (:data:`_LEVEL`, then doubling, cut at the ends of ``F``'s
    pieces): the mass beyond each step's near end times a bound of ``|P - F|`` on the step (the
    Chebyshev coefficients of ``P`` minus the piece of ``F`` there); a pair stops once the mass
    beyond a step times a bound of ``|P| + 1`` up to the furthest argument is below a quarter
    of :data:`TOL`. ``pa, pb``: the baselines (rows ``b_of`` of the pairs); ``c_lo, c_hi``: the
    windows (rows ``w_of``).
    """
    own = "lo" if j == 1 else "hi"
    coef = c_lo if j == 1 else c_hi
    lo = 0.0 if j == 1 else 0.5
    err = np.zeros(b_of.size)
    for side in (-1, 1):
        edge = lo if side < 0 else lo + 0.5
        end = -m if side < 0 else 1.0 - m  # the furthest argument the baseline reaches
        if (end - edge) * side <= 0:
            continue
        g_end = 1.0 + _growth(coef, max(abs(4.0 * (end - lo) - 1.0), 1.0))
        active = np.ones(b_of.size, bool)
        near = edge
        while active.any():
            step = max(_LEVEL, 2.0 * abs(near - edge))  # steps doubling away from the edge
            other, cut = _region(near, side)
            far = near + side * step
            if cut is not None and (far - cut) * side > 0:
                far = cut
            if (far - end) * side >= -1e-12:
                far = end
            bases = np.unique(b_of[active])
            tail = np.ones(pa.shape[0])
            bound = _below if side < 0 else _above
            tail[bases] = bound(pa[bases], pb[bases], near + m)
            t = tail[b_of]
            stop = active & (t * g_end[w_of] <= 0.25 * TOL)
            err[stop] += t[stop] * g_end[w_of[stop]]
            active &= ~stop
            if active.any():
                wins = np.unique(w_of[active])
                sup = np.zeros(coef.shape[0])
                sup[wins] = _difference_bound(c_lo[wins], c_hi[wins], own, other,
                                              min(near, far), max(near, far))  # fmt: skip
                err[active] += t[active] * sup[w_of[active]]
            if far == end:
                break
            near = far
    return err


# ----------------------------------------------------------------------------------------------
def p_worse_small(
    a_now: np.ndarray,
    b_now: np.ndarray,
    a_base: np.ndarray,
    b_base: np.ndarray,
    margin: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """``P(lambda_now < lambda_base - margin)`` per row for two-class windows of integer Beta
    parameters (:func:`takes`) against counted baselines.

    Parameters
    ----------
    a_now, b_now : ndarray, shape (G, 2)
        Beta parameters of the window's class accuracies (integers of at least 1).
    a_base, b_base : ndarray, shape (G, 2)
        Beta parameters of the baseline's class accuracies (any positive numbers).
    margin : float
        How much worse counts as worse (at least 0).

    Returns
    -------
    p : ndarray, shape (G,)
        NaN where ``handled`` is False.
    handled : ndarray of bool, shape (G,)
        Rows computed here: the baseline's mass outside the piece of the window's distribution
        function used is small enough (error bound at most :data:`TOL`).

    Examples
    --------
    >>> import numpy as np
    >>> p, ok = p_worse_small(np.array([[8.0, 3.0]]), np.array([[3.0, 2.0]]),
    ...                       np.array([[60.0, 25.0]]), np.array([[8.0, 4.0]]))
    >>> round(float(p[0]), 6), bool(ok[0])
    (0.96292, True)
    """
    an, bn, ab, bb = (np.asarray(v, float) for v in (a_now, b_now, a_base, b_base))
    G = an.shape[0]
    p = np.full(G, np.nan)
    handled = np.zeros(G, bool)
    if G == 0:
        return p, handled
    m = float(margin)
    win, w_of = distinct_rows(np.concatenate([an, bn], axis=1))
    base, b_of = distinct_rows(np.concatenate([ab, bb], axis=1))
    win, base = np.concatenate([an, bn], axis=1)[win], np.concatenate([ab, bb], axis=1)[base]
    pa, pb = base[:, :2], base[:, 2:]
    deg = np.rint(win.sum(axis=1) - 2.0).astype(np.int64)  # degree of each window's F
    D = int(deg.max())
    # the piece of F(lambda_base - m) that holds each baseline's mean: 0 below m, the
    # polynomial on [0, 1/2] (piece 1) on [m, 1/2 + m], that on [1/2, 1] (piece 2) above
    mean = 0.5 * (pa / (pa + pb)).sum(axis=1) - m
    piece_b = np.select([mean < 0.0, mean < 0.5], [0, 1], 2)
    piece = piece_b[b_of]
    err = np.full(G, np.inf)
    zero = np.flatnonzero(piece == 0)
    err[zero] = _above(pa, pb, m)[b_of[zero]]  # F = 0: the mass above m
    p[zero] = 0.0
    # both polynomials of each window (Chebyshev coefficients, by degree)
    c_lo, c_hi = np.zeros((win.shape[0], D + 1)), np.zeros((win.shape[0], D + 1))
    used = np.zeros(win.shape[0], bool)
    used[w_of[piece > 0]] = True
    for d in np.unique(deg[used]):
        rows = np.flatnonzero(used & (deg == d))
        c_lo[rows, : d + 1] = _chebyshev(win[rows, :2], win[rows, 2:], int(d), 0.0)
        c_hi[rows, : d + 1] = _chebyshev(win[rows, :2], win[rows, 2:], int(d), 0.5)
    for j, lo in ((1, 0.0), (2, 0.5)):
        sel = np.flatnonzero(piece == j)
        if not sel.size:
            continue
        coef = c_lo if j == 1 else c_hi
        err[sel] = _outside(pa, pb, c_lo, c_hi, j, m, b_of[sel], w_of[sel])
        # each baseline's Chebyshev moments, to the largest degree of its windows
        bases = np.unique(b_of[sel])
        most = np.zeros(base.shape[0], np.int64)
        np.maximum.at(most, b_of[sel], deg[w_of[sel]])
        moments = np.zeros((base.shape[0], D + 1))
        K_b = (most[bases] + 2) // 2  # 2 K - 1 >= degree
        for K in np.unique(K_b):
            rows = bases[K_b == K]
            X, W = tensor_rule(pa[rows], pb[rows], int(K))
            moments[rows, : 2 * K] = _chebyshev_moments(X, W, lo, m, int(min(2 * K - 1, D)))
        for s in range(0, sel.size, CHUNK):
            r = sel[s : s + CHUNK]
            p[r] = np.einsum("gk,gk->g", coef[w_of[r]], moments[b_of[r]])
    handled = err <= TOL
    p[~handled] = np.nan
    return np.clip(p, 0.0, 1.0), handled


def distinct_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first row of each distinct row of ``x`` (2-D) and each row's index among them: the
    columns coded as integers (directly for whole numbers of a small range, else by one sort)
    and combined into one key (much faster than ``np.unique(..., axis=0)`` on many rows).

    Examples
    --------
    >>> import numpy as np
    >>> first, inverse = distinct_rows(np.array([[1.0, 2.0], [3.0, 4.5], [1.0, 2.0]]))
    >>> first.tolist(), inverse.tolist()
    ([0, 1], [0, 1, 0])
    """
    x = np.asarray(x)
    if x.shape[0] == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ids = np.zeros(x.shape[0], np.int64)
    size = 1  # ids lie in [0, size)
    for j in range(x.shape[1]):
        v = x[:, j]
        lo, hi = v.min(), v.max()
        if np.isfinite(lo) and np.isfinite(hi) and hi - lo < 2**20 and np.all(v == np.floor(v)):
            col, n_col = (v - lo).astype(np.int64), int(hi - lo) + 1
        else:
            col = np.unique(v, return_inverse=True)[1].ravel()
            n_col = int(col.max()) + 1
        if size * n_col >= 2**62:
            ids = np.unique(ids, return_inverse=True)[1].ravel()
            size = int(ids.max()) + 1
        ids = ids * n_col + col
        size *= n_col
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    return first, inverse.ravel()
