"""Joint posterior draws of several classifiers' balanced accuracies on one test set.

In each true class the ``T`` classifiers' outcomes on an example form a pattern of ``T`` bits
(right or wrong for each classifier): ``2**T`` cells. The paired model of
:func:`bacc.compare_paired` (four cells for two classifiers) generalises to a Dirichlet over
these cells. Its prior puts ``c / 2**(T - 2)`` on every cell, where ``c`` is the concentration
of one cell of the two-classifier model: summing the cells over all but two classifiers gives
exactly ``Dirichlet(c, c, c, c)`` for every pair, so each pair's posterior is the one
:func:`bacc.compare_paired` computes, and each classifier's class accuracy has the marginal
``Beta(k + 2c, n - k + 2c)`` (flat for ``c = 1/2``) whatever ``T``.

The ``2**T`` cells cannot be listed for many classifiers, and need not be. By the additivity of
Gamma variables, ``Dirichlet(counts + prior) = B * Dirichlet(counts) + (1 - B) * Dirichlet(prior)``
with ``B ~ Beta(n, A)`` independent of both, where ``A = 4 c`` is the total prior mass. The
first part lives on the observed patterns only (at most ``n`` of them). The second is a
symmetric Dirichlet over all ``2**T`` cells, which is the Dirichlet process with concentration
``A`` and a uniform base on the cells (Ferguson 1973): Sethuraman's (1994) stick-breaking draws
it exactly as atoms at independent uniform patterns (independent fair bits) with weights
``beta_l prod_{k<l} (1 - beta_k)``, ``beta ~ Beta(1, A)``. The sticks are cut after ``L``
atoms with ``E[rest] = (A / (1 + A))**L <= 1e-9`` and the rest is given to the last atom.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["class_patterns", "draw_joint_balanced", "pair_counts", "stick_atoms"]

REST = 1e-9  # expected stick mass left after the last atom (given to that atom)


def class_patterns(right: np.ndarray, classes: np.ndarray, n_classes: int):
    """The distinct right/wrong patterns in each true class, with their counts.

    Parameters
    ----------
    right : ndarray of bool, shape (n, T)
        ``right[e, t]``: classifier ``t`` predicted example ``e`` correctly.
    classes : ndarray of int, shape (n,)
        Index of each example's true class.
    n_classes : int

    Returns
    -------
    list of (ndarray of bool (m_i, T), ndarray of int (m_i,))
        Per class, the observed patterns and how many examples show each.
    """
    out = []
    for i in range(n_classes):
        rows = right[classes == i]
        if rows.shape[0] == 0:
            out.append((np.zeros((0, right.shape[1]), dtype=bool), np.zeros(0, dtype=np.int64)))
            continue
        pats, counts = np.unique(rows, axis=0, return_counts=True)
        out.append((pats.astype(bool), counts.astype(np.int64)))
    return out


def pair_counts(patterns, a: int, b: int) -> np.ndarray:
    """Per class, the four cells (both right, only ``a``, only ``b``, both wrong) of a pair."""
    out = np.zeros((len(patterns), 4))
    for i, (pats, cnt) in enumerate(patterns):
        ra, rb = pats[:, a], pats[:, b]
        out[i] = (cnt[ra & rb].sum(), cnt[ra & ~rb].sum(), cnt[~ra & rb].sum(), cnt[~ra & ~rb].sum())
    return out


def stick_atoms(total_prior: float) -> int:
    """Number of stick-breaking atoms ``L`` with ``(A / (1 + A))**L <= 1e-9``."""
    A = float(total_prior)
    return max(1, math.ceil(math.log(REST) / math.log(A / (1.0 + A))))


def _prior_part(rng, k: int, T: int, A: float, L: int) -> np.ndarray:
    """``k`` draws of each classifier's accuracy share under ``Dirichlet(A / 2**T, ...)`` over
    the ``2**T`` patterns. Shape (k, T).

    Up to ``2**T <= L`` cells the Dirichlet is drawn directly (Gamma variables over all cells);
    beyond, as stick-breaking weights at uniform random patterns."""
    if 2**T <= L:
        cells = ((np.arange(2**T)[:, None] >> np.arange(T)[None, :]) & 1).astype(float)
        g = rng.gamma(A / 2**T, size=(k, 2**T))
        total = g.sum(axis=1, keepdims=True)
        # with tiny shapes every Gamma draw can underflow to 0: then one cell holds all the
        # mass, chosen uniformly (the limit of the Dirichlet as the shapes shrink)
        empty = total[:, 0] == 0
        if np.any(empty):
            g[empty, rng.integers(0, 2**T, size=int(empty.sum()))] = 1.0
            total = g.sum(axis=1, keepdims=True)
        return (g @ cells) / total
    beta = -np.expm1(np.log(rng.random(size=(k, L))) / A)  # Beta(1, A) = 1 - U**(1/A)
    beta[:, -1] = 1.0  # the rest of the stick goes to the last atom
    left = np.cumprod(1.0 - beta, axis=1)
    weights = beta.copy()
    weights[:, 1:] *= left[:, :-1]
    # independent fair bits, eight from each random byte
    raw = rng.integers(0, 256, size=(k, L, -(-T // 8)), dtype=np.uint8)
    bits = np.unpackbits(raw, axis=2, count=T).astype(float)
    return np.einsum("kl,klt->kt", weights, bits)


def draw_joint_balanced(
    patterns,
    weights: np.ndarray,
    concentration: float,
    n_draws: int,
    rng: np.random.Generator,
    *,
    chunk_elems: int = 4_000_000,
) -> np.ndarray:
    """Exact joint draws (up to the stick cut, ``<= 1e-9`` expected mass) of the ``T``
    balanced accuracies under the paired Dirichlet model.

    Parameters
    ----------
    patterns : list of (ndarray of bool (m_i, T), ndarray of int (m_i,))
        Output of :func:`class_patterns` for the included classes (each with examples).
    weights : ndarray, shape (l,)
        Class weights of the balanced accuracy.
    concentration : float
        ``c``, the concentration of one cell of the two-classifier model (see the module).
    n_draws : int
    rng : numpy.random.Generator
    chunk_elems : int
        Bound on the number of array elements held at once.

    Returns
    -------
    ndarray, shape (n_draws, T)
    """
    T = patterns[0][0].shape[1]
    A = 4.0 * float(concentration)
    L = stick_atoms(A)
    out = np.zeros((n_draws, T))
    for (pats, cnt), w in zip(patterns, weights, strict=True):
        if w == 0:
            continue
        m = pats.shape[0]
        n = float(cnt.sum())
        x = pats.astype(float)
        step = max(1, chunk_elems // max(m + T, L * T))
        for s in range(0, n_draws, step):
            k = min(step, n_draws - s)
            g = rng.gamma(cnt.astype(float), size=(k, m))
            observed = (g @ x) / g.sum(axis=1, keepdims=True)
            share = rng.beta(n, A, size=(k, 1))
            out[s : s + k] += w * (share * observed + (1.0 - share) * _prior_part(rng, k, T, A, L))
    return out
