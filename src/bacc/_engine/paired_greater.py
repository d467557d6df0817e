"""``P(lambda_i > lambda_j)`` for many pairs of classifiers tested on the same examples, at once.

Each pair has the paired posterior of :func:`bacc.compare_paired`: in class ``c`` a
``Dirichlet(alpha_c)`` over the cells ``(11, 10, 01, 00)``, and ``delta = sum_c w_c D_c`` with
``D_c = S_c (2 U_c - 1)``, ``S_c ~ Beta(a10 + a01, a11 + a00)`` independent of ``U_c ~ Beta(a10,
a01)`` (:mod:`bacc._engine.sums.paired_difference`). Only ``P(delta > 0)`` is wanted, not the
whole distribution, and that one number is a Fourier sum.

Method
------
* Periodised inversion (Bohman 1972): if ``|delta| < 2 pi / h`` almost surely, the sawtooth
  series ``sum_k sin(k h y) / (pi k)`` gives exactly
  ``P(delta > 0) = 1/2 + h E[delta] / (2 pi) + sum_{k >= 1} Im phi(k h) / (pi k)``, with
  ``phi`` the characteristic function of ``delta``. ``2 pi / h`` is the farther end of the
  reach of ``delta``: Chernoff's bound, with the cumulant generating function of each class
  from a small Gauss rule, leaves less than ``1e-17`` beyond it (a pair whose reach does not
  hold 0 is 0 or 1 outright). The series runs to a frequency of ``11 / sd(delta)``.
* ``phi(t) = prod_c E[exp(i t w_c S_c (2 U_c - 1))]``: each expectation by the tensor product of
  the Gauss rules of ``S_c`` and ``U_c``'s Beta distributions (Golub-Welsch on the Jacobi
  recurrence, batched over every class of every pair), which integrate the smooth integrand
  with the singular Beta weights exactly built in; the powers ``exp(i k h d)`` by repeated
  products.
* Checks, per pair: at four frequencies the rule of each class is compared with a finer one
  (its difference times the other classes' factors is what reaches ``phi``) and must stay
  within :data:`RULE_TOL`, and ``|phi|`` must have fallen below :data:`CUT_TOL` over the last
  tenth of the series. A pair that fails goes to the next of :data:`ROUNDS` (finer rules);
  after the last it is reported as not handled (classes of a handful of
  examples, whose ``D_c`` have singular points and slowly decaying ``phi``) and computed by
  :class:`bacc.PairedDifference`.

The error of a handled pair is of order ``1e-11`` (tail mass, the cut, the rules): in the tests
it stays within 1e-9 of :func:`bacc.compare_paired`, and where the two differ most (classes of
a few examples) the lattice at four times its resolution moves towards the value here.

References
----------
.. [1] Bohman, H. (1972). From characteristic function to distribution function via Fourier
   analysis. BIT Numerical Mathematics 12, 279-283.
.. [2] Golub, G. H. & Welsch, J. H. (1969). Calculation of Gauss quadrature rules. Mathematics
   of Computation 23, 221-230.
"""

from __future__ import annotations

import numpy as np

from .sums.paired_difference import PairedComponents

__all__ = ["beta_gauss_rule", "paired_greater"]

#: Rounds: the series goes to ``scale * T_MAX_SD / sd(delta)`` with Gauss rules of ``nodes``
#: nodes per Beta variable, checked against rules of ``check`` nodes; a pair whose checks fail
#: goes to the next round, and is not handled after the last.
ROUNDS = ((1.0, 20, 28), (1.0, 48, 60))
REACH_NODES = 8  # the rule of the tail bound
RULE_TOL = 1e-13  # accepted error of phi from the rules
CUT_TOL = 1e-14  # |phi| over the last tenth of the series
T_MAX_SD = 11.0
MAX_TERMS = 1000  # terms of a series at most
TAIL_LOG = 39.2  # the mass left beyond the reach: exp(-39.2) = 1e-17
_CHUNK_ATOMS = 4_000_000  # atoms (class components x nodes**2 x check frequencies) at once


def beta_gauss_rule(a, b, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss rules of ``n`` nodes for ``Beta(a_k, b_k)`` on ``[0, 1]``, batched over ``k``.

    Golub-Welsch: the eigenvalues of the Jacobi matrix of the Jacobi polynomials with weight
    ``(1 - x)**(b - 1) (1 + x)**(a - 1)`` on ``[-1, 1]`` are the nodes; the weight of a node
    ``x`` is ``1 / sum_k q_k(x)**2`` with ``q_k`` the orthonormal polynomials (the squared first
    component of its eigenvector), from the same recurrence (they sum to 1: probabilities).

    Parameters
    ----------
    a, b : array_like, shape (K,)
        Beta parameters (> 0).
    n : int
        Nodes per rule.

    Returns
    -------
    nodes, weights : ndarray, shape (K, n)

    Examples
    --------
    >>> import numpy as np
    >>> x, p = beta_gauss_rule(np.array([2.0]), np.array([3.0]), 3)
    >>> round(float(p[0] @ x[0]), 12), round(float(p[0] @ x[0] ** 5), 12)  # 2/5 and 1/21: exact
    (0.4, 0.047619047619)
    """
    al = np.asarray(b, dtype=float).reshape(-1, 1) - 1.0  # exponent of (1 - x)
    be = np.asarray(a, dtype=float).reshape(-1, 1) - 1.0  # exponent of (1 + x)
    k = np.arange(n, dtype=float)[None, :]
    s = 2.0 * k + al + be
    with np.errstate(divide="ignore", invalid="ignore"):
        diag = (be - al) * (be + al) / (s * (s + 2.0))
    diag[:, 0] = ((be - al) / (al + be + 2.0))[:, 0]
    m = k[:, 1:]
    sm = s[:, 1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        off2 = 4.0 * m * (m + al) * (m + be) * (m + al + be) / (sm * sm * (sm + 1.0) * (sm - 1.0))
    # the first coefficient without the factor (1 + al + be) / (1 + al + be), 0/0 at a + b = 1
    off2[:, 0] = (4.0 * (1.0 + al) * (1.0 + be) / ((2.0 + al + be) ** 2 * (3.0 + al + be)))[:, 0]
    off = np.sqrt(np.maximum(off2, 0.0))
    J = np.zeros((al.shape[0], n, n))
    idx = np.arange(n)
    J[:, idx, idx] = diag
    J[:, idx[1:], idx[:-1]] = off  # the lower triangle is what eigvalsh reads
    x = np.linalg.eigvalsh(J)
    # weights 1 / sum_k q_k(x)**2 with q_k the orthonormal polynomials (recurrence at the nodes)
    q_prev, q = np.zeros_like(x), np.ones_like(x)
    total = np.ones_like(x)
    for j in range(n - 1):
        bj = off[:, j : j + 1]
        q_next = ((x - diag[:, j : j + 1]) * q - (off[:, j - 1 : j] if j else 0.0) * q_prev) / bj
        q_prev, q = q, q_next
        total += q * q
    w = 1.0 / total
    w /= w.sum(axis=1, keepdims=True)
    return np.clip((1.0 + x) / 2.0, 0.0, 1.0), w


def _atoms(alpha: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Values ``s (2 u - 1)`` and probabilities of the tensor rule of each class, (M, n * n)."""
    a11, a10, a01, a00 = alpha.T
    s, ps = beta_gauss_rule(a10 + a01, a11 + a00, n)
    u, pu = beta_gauss_rule(a10, a01, n)
    d = s[:, :, None] * (2.0 * u[:, None, :] - 1.0)
    p = ps[:, :, None] * pu[:, None, :]
    M = alpha.shape[0]
    return d.reshape(M, n * n), p.reshape(M, n * n)


def _cf(d, p, theta, k: int) -> np.ndarray:
    """``E[exp(i j theta D)]`` for ``j = 1..k`` of each component (atoms ``d``, ``p``), (M, k)."""
    out = np.empty((d.shape[0], k), dtype=complex)
    step = np.exp(1j * theta[:, None] * d)
    cur = step.copy()
    for j in range(k):
        if j:
            cur *= step
        out[:, j] = np.einsum("ma,ma->m", cur, p)
    return out


def paired_greater(alpha, w) -> tuple[np.ndarray, np.ndarray]:
    """``P(delta > 0)`` of many pairs of one test set, ``delta = sum_c w_c (p10_c - p01_c)``.

    Parameters
    ----------
    alpha : array_like, shape (P, m, 4)
        Each pair's Dirichlet parameters per class, cells ``(11, 10, 01, 00)`` (all > 0).
    w : array_like, shape (m,)
        Class weights (> 0), shared by the pairs.

    Returns
    -------
    p : ndarray, shape (P,)
        ``P(delta > 0)`` (NaN where not handled).
    handled : ndarray of bool, shape (P,)
        The pairs whose checks passed (see the module); the others are left to
        :class:`bacc.PairedDifference`.

    Examples
    --------
    >>> import numpy as np, bacc
    >>> al = np.array([[[250.5, 25.5, 10.5, 30.5], [240.5, 20.5, 12.5, 40.5]]])
    >>> p, ok = paired_greater(al, [0.5, 0.5])
    >>> bool(ok[0]), bool(abs(p[0] - bacc.PairedDifference(al[0], [0.5, 0.5]).sf(0.0)) < 1e-9)
    (True, True)
    """
    alpha = np.asarray(alpha, dtype=float)
    w = np.asarray(w, dtype=float).reshape(-1)
    P, m, _ = alpha.shape
    flat = alpha.reshape(P * m, 4)
    comp = PairedComponents(flat)
    wf = np.tile(w, P)
    mean = (wf * comp.mean).reshape(P, m).sum(axis=1)
    sd = np.sqrt((wf**2 * comp.var).reshape(P, m).sum(axis=1))
    lo, hi = np.empty(P), np.empty(P)
    step = max(1, _CHUNK_ATOMS // (m * REACH_NODES**2 * 24))
    for s in range(0, P, step):
        rows = slice(s * m, min(P, s + step) * m)
        ds, ps = _atoms(flat[rows], REACH_NODES)
        sl = slice(s, min(P, s + step))
        lo[sl], hi[sl] = _reach(wf[rows, None] * ds, ps, wf[rows] * comp.mean[rows], mean[sl],
                                sd[sl], m)
    p = np.full(P, np.nan)
    handled = (lo >= 0.0) | (hi <= 0.0)
    p[lo >= 0.0] = 1.0
    p[hi <= 0.0] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        h = 2.0 * np.pi / np.maximum(-lo, hi)
    for scale, nodes, check in ROUNDS:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.ceil(scale * T_MAX_SD / (sd * h))
        todo = np.flatnonzero(~handled & (terms <= MAX_TERMS))
        if todo.size == 0:
            break
        step = max(1, _CHUNK_ATOMS // (m * check * check * 4))
        for s in range(0, todo.size, step):
            pairs = todo[s : s + step]
            val, ok = _series(flat, w, pairs, h[pairs], terms[pairs].astype(np.int64),
                              mean[pairs], nodes, check)
            p[pairs[ok]] = val[ok]
            handled[pairs[ok]] = True
    return p, handled


def _reach(d, pr, mean_c, mean, sd, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Ends ``(lo, hi)`` of each pair's ``delta`` (atoms ``d`` of each weighted class, with
    probabilities ``pr`` and means ``mean_c``) beyond which it has less than ``exp(-TAIL_LOG)``
    probability, from Chernoff's bound ``P(delta - mu >= x) <= exp(K(l) - l x)`` (``K`` the
    centred cumulant generating function, by the rule) minimised over a grid of ``l``."""
    g = np.geomspace(0.5, 50.0, 12)
    ends = []
    for sign in (1.0, -1.0):
        lam = sign * g[None, :] / np.repeat(sd, m)[:, None]  # (M, G)
        e = lam[:, :, None] * (d[:, None, :] - mean_c[:, None, None])  # (M, G, atoms)
        top = e.max(axis=2, keepdims=True)
        kc = top[:, :, 0] + np.log(np.einsum("mga,ma->mg", np.exp(e - top), pr))
        K = kc.reshape(-1, m, g.size).sum(axis=1)  # (P, G)
        ends.append(np.min((K + TAIL_LOG) / (g[None, :] / sd[:, None]), axis=1))
    return mean - ends[1], mean + ends[0]


def _series(flat, w, pairs, h, kp, mean, nodes: int, check: int):
    """The inversion series of ``pairs`` (steps ``h``, ``kp`` terms) with rules of ``nodes``
    nodes, checked against rules of ``check`` nodes at four frequencies of each pair: the
    error of a class's factor, times the other factors, is what reaches ``phi``."""
    m = w.size
    rows = (pairs[:, None] * m + np.arange(m)[None, :]).ravel()
    theta = np.repeat(h, m) * np.tile(w, pairs.size)
    k = int(kp.max())
    d, pr = _atoms(flat[rows], nodes)
    cf = _cf(d, pr, theta, k)  # (pairs * m, k)
    d2, pr2 = _atoms(flat[rows], check)
    kr = np.repeat(kp, m)
    ar = np.arange(rows.size)
    rule_err = np.zeros(pairs.size)
    for frac in (0.25, 0.5, 0.75, 1.0):
        kc = np.maximum(np.ceil(frac * kr).astype(np.int64), 1)
        fine = np.einsum("ma,ma->m", np.exp(1j * (kc * theta)[:, None] * d2), pr2)
        coarse = cf[ar, kc - 1]
        size = np.abs(coarse).reshape(-1, m)
        others = np.prod(size, axis=1, keepdims=True) / np.where(size > 0, size, 1.0)
        err = (np.abs(coarse - fine).reshape(-1, m) * np.where(size > 0, others, 1.0)).sum(axis=1)
        rule_err = np.maximum(rule_err, err)
    phi = cf.reshape(pairs.size, m, k).prod(axis=1)
    j = np.arange(1, k + 1)[None, :]
    inside = j <= kp[:, None]
    phi = np.where(inside, phi, 0.0)
    last = inside & (j > (kp[:, None] - np.maximum(kp[:, None] // 10, 1)))
    tail = np.max(np.where(last, np.abs(phi), 0.0), axis=1)
    val = 0.5 + h * mean / (2.0 * np.pi) + np.sum(phi.imag / (np.pi * j), axis=1)
    return np.clip(val, 0.0, 1.0), (rule_err <= RULE_TOL) & (tail <= CUT_TOL)
