"""Sums of Betas of many rows, each computed by the method :mod:`.chooser` picks for it.

Two questions are asked of many rows at once:

* :func:`interval_and_tail` (:func:`bacc.evaluate_many`): the central credible interval and
  ``P(S > chance)`` of ``S = sum_i X_i / m`` over the ``m`` classes of each row;
* :func:`p_worse` (:func:`bacc.monitor`): ``P(lambda_now < lambda_base - margin)`` against a
  counted baseline or a number (:mod:`.worse_than_baseline`).

Each row goes to the first method that takes it, in the order :func:`.chooser.choose_rows`
gives (the Beta itself, the pair quadrature, the batched lattice), and the rows the batched
lattice leaves to :func:`.chooser.choose_leftovers` (the pair-difference quadrature, or one by
one). One by one means one single-sum distribution per row: the caller passes its class
(``single``, :class:`bacc.BetaSum`), whose engine :func:`.chooser.choose_single` picks.
Rows are independent, so neither the chunks nor the threads change a number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import beta as _beta
from ..helpers.threads import run_chunks
from .batch_lattice import many_sums
from .chooser import (
    BATCHED_LATTICE,
    BETA,
    ONE_BY_ONE,
    PAIR,
    PAIR_DIFFERENCE,
    RowsMethod,
    choose_leftovers,
    choose_rows,
    first_two,
)
from .two_class_rows import interval_and_tail as pair_interval_and_tail
from .worse_than_baseline import p_below, p_worse_lattice, p_worse_pairs

__all__ = ["interval_and_tail", "one_by_one", "p_worse", "steps"]

PAIR_CHUNK = 2048  # two-class rows evaluated together (tens of MB of temporaries at most)
LATTICE_CHUNK = 500  # rows of three or more classes per call of the batched lattice

#: ``single(a, b, w)``: the distribution of one sum (``cdf``, ``sf``, ``ppf``), as
#: :class:`bacc.BetaSum`.
Single = Callable[[np.ndarray, np.ndarray, np.ndarray], Any]


def _noop(n: int = 1) -> None:
    return None


def steps(inc: np.ndarray) -> int:
    """Progress steps of :func:`interval_and_tail` and :func:`p_worse`: the rows of two or more
    classes (those computed by quadrature or a lattice)."""
    return int((inc.sum(axis=1) >= 2).sum())


def interval_and_tail(
    A: np.ndarray,
    B: np.ndarray,
    inc: np.ndarray,
    chance: float,
    q: np.ndarray,
    *,
    single: Single,
    threads: int = 1,
    advance: Callable[[int], None] | None = None,
    pair_chunk: int = PAIR_CHUNK,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Central credible interval and ``P(S > chance)`` of each row's sum ``sum_i X_i / m``.

    Parameters
    ----------
    A, B : ndarray, shape (G, l)
        Beta parameters of every class of every row.
    inc : ndarray of bool, shape (G, l)
        The classes of each row's sum (``m`` of them).
    chance : float
        The threshold of the probability above chance.
    q : ndarray, shape (2,)
        Lower and upper probability of the interval.
    single : callable
        ``single(a, b, w)``, the distribution of one sum (:class:`bacc.BetaSum`), for the rows
        computed one by one.
    threads : int
        Threads running chunks of rows.
    advance : callable, optional
        Called with a number of rows done (:func:`steps` in all).
    pair_chunk : int
        Two-class rows evaluated together (their temporaries grow with it).

    Returns
    -------
    lower, upper, p_above : ndarray, shape (G,)
        NaN for rows without classes.
    """
    advance = advance or _noop
    G = A.shape[0]
    lower = np.full(G, np.nan)
    upper = np.full(G, np.nan)
    p_above = np.full(G, np.nan)
    method = choose_rows(inc.sum(axis=1))
    one = np.flatnonzero(method == BETA)
    if one.size:
        j = np.argmax(inc[one], axis=1)
        a1, b1 = A[one, j], B[one, j]
        lower[one] = _beta.beta_ppf(q[0], a1, b1)
        upper[one] = _beta.beta_isf(1 - q[1], a1, b1)
        p_above[one] = _beta.beta_sf(chance, a1, b1) if chance < 1.0 else 0.0
    two = np.flatnonzero(method == PAIR)
    if two.size:
        # rows whose two posteriors are the same (same counts and prior, classes in the same
        # order; frequent among the small daily windows of monitoring) have the same numbers:
        # each such posterior is computed once
        a2 = np.take_along_axis(A[two], first_two(inc[two]), axis=1)
        b2 = np.take_along_axis(B[two], first_two(inc[two]), axis=1)
        _, first, inverse = np.unique(
            _pair_ids(a2[:, 0], b2[:, 0]) * (two.size + 1) + _pair_ids(a2[:, 1], b2[:, 1]),
            return_index=True,
            return_inverse=True,
        )
        inverse = inverse.ravel()

        def pairs(rows):
            out = pair_interval_and_tail(a2[rows], b2[rows], q, chance)
            for arr, vals in zip((lower, upper, p_above), out, strict=True):
                arr[two[rows]] = vals
            return rows.size

        chunks = [first[s : s + pair_chunk] for s in range(0, first.size, pair_chunk)]
        for done in run_chunks(pairs, chunks, threads):
            advance(done)
        for arr in (lower, upper, p_above):
            arr[two] = arr[two[first[inverse]]]
        advance(two.size - first.size)
    many = np.flatnonzero(method == BATCHED_LATTICE)
    if many.size:
        def lattice_chunk(rows):
            lo_m, hi_m, pa_m, done = many_sums(A[rows], B[rows], inc[rows], chance, q)
            lower[rows[done]] = lo_m[done]
            upper[rows[done]] = hi_m[done]
            p_above[rows[done]] = pa_m[done]
            return rows, done

        parts = [many[s : s + LATTICE_CHUNK] for s in range(0, many.size, LATTICE_CHUNK)]
        left = []
        for rows, done in run_chunks(lattice_chunk, parts, threads):
            left.append(rows[~done])
            advance(int(done.sum()))
        left = np.sort(np.concatenate(left))
        method[left] = choose_leftovers(inc[left].sum(axis=1), difference=False)
        rest = np.flatnonzero(method == ONE_BY_ONE)
        if rest.size:
            lower[rest], upper[rest], p_above[rest], _ = one_by_one(single)(
                A[rest], B[rest], inc[rest], chance, q, advance=advance
            )
    return lower, upper, p_above


def one_by_one(single: Single) -> RowsMethod:
    """The method for many rows that computes each row's sum as one single-sum distribution
    (``single``, :class:`bacc.BetaSum`, whose engine :func:`.chooser.choose_single` picks),
    with the interface of the batched lattice (:func:`.batch_lattice.many_sums`,
    :data:`.chooser.RowsMethod`): it takes every row.

    Examples
    --------
    >>> import numpy as np, bacc
    >>> lo, hi, p, handled = one_by_one(bacc.BetaSum)(
    ...     np.array([[43.0, 5.0]]), np.array([[4.0, 7.0]]), np.array([[True, True]]), 0.5,
    ...     np.array([0.025, 0.975]))
    >>> [round(float(lo[0]), 3), round(float(hi[0]), 3)], bool(handled[0])
    ([0.534, 0.808], True)
    """

    def method(A, B, inc, chance, q, advance=None, quantiles=True):
        G = A.shape[0]
        lower = np.full(G, np.nan)
        upper = np.full(G, np.nan)
        p_above = np.full(G, np.nan)
        for g in range(G):
            idx = np.flatnonzero(inc[g])
            d = single(A[g, idx], B[g, idx], np.full(idx.size, 1.0 / idx.size))
            if quantiles:
                lower[g], upper[g] = d.ppf(q)
            p_above[g] = d.sf(chance)
            if advance is not None:
                advance(1)
        return lower, upper, p_above, np.ones(G, dtype=bool)

    return method


def _pair_ids(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Integer ids of the pairs ``(x[i], y[i])``: equal pairs, equal ids (one sort)."""
    return np.unique(x + 1j * y, return_inverse=True)[1].ravel().astype(np.int64)


def p_worse(
    a_now: np.ndarray,
    b_now: np.ndarray,
    inc: np.ndarray,
    base_a: np.ndarray | None,
    base_b: np.ndarray | None,
    number: float | None,
    margin: float,
    *,
    single: Single,
    advance: Callable[[int], None] | None = None,
) -> np.ndarray:
    """``P(lambda_now < lambda_base - margin)`` per row over the classes ``inc`` (or ``<
    number - margin`` against a number); NaN where a row has fewer than two classes.

    Against a counted baseline the question is the upper tail of one sum of ``2 m`` Betas
    (:func:`.worse_than_baseline.p_worse_lattice`), against a number that of ``m`` reflected
    ones; the methods follow from that number of components (:func:`.chooser.choose_rows`):
    two by the pair quadrature's distribution function (:func:`p_below`), three or more by
    the batched lattice, and the rows it leaves by the pair-difference quadrature
    (:func:`p_worse_pairs`) or one :class:`bacc.BetaSum` each (``single``).

    Parameters
    ----------
    a_now, b_now : ndarray, shape (G, l)
        Beta parameters of the windows' classes.
    inc : ndarray of bool, shape (G, l)
        The classes of each row.
    base_a, base_b : ndarray, shape (G, l), or None
        Beta parameters of each row's counted baseline (None against a number).
    number : float or None
        The baseline balanced accuracy (None against counted baselines).
    margin : float
        How much worse counts as worse.
    single : callable
        ``single(a, b, w)``, the distribution of one sum (:class:`bacc.BetaSum`).
    advance : callable, optional
        Called with a number of rows done (:func:`steps` in all).

    Returns
    -------
    ndarray, shape (G,)
    """
    advance = advance or _noop
    W = a_now.shape[0]
    out = np.full(W, np.nan)
    m = inc.sum(axis=1)
    counted = number is None
    n_components = np.where(m >= 2, 2 * m if counted else m, 0)
    method = choose_rows(n_components)
    lattice = np.flatnonzero(method == BATCHED_LATTICE)
    if lattice.size:
        base = (base_a[lattice], base_b[lattice]) if counted else (None, None)
        p, ok = p_worse_lattice(a_now[lattice], b_now[lattice], inc[lattice], *base,
                                number=number, margin=margin, advance=advance)  # fmt: skip
        out[lattice[ok]] = p[ok]
        method[lattice[~ok]] = choose_leftovers(n_components[lattice[~ok]], counted)
    two = np.flatnonzero((method == PAIR) | (method == PAIR_DIFFERENCE))
    if two.size:
        cols = first_two(inc[two])

        def pick(x):
            return np.take_along_axis(x[two], cols, axis=1)

        if counted:
            reported = [0]

            def progress(d: int) -> None:
                advance(d - reported[0])
                reported[0] = d

            out[two] = p_worse_pairs(pick(a_now), pick(b_now), pick(base_a), pick(base_b),
                                     margin, progress=progress)  # fmt: skip
        else:
            out[two] = p_below(pick(a_now), pick(b_now), np.full(two.size, number - margin))
    for g in np.flatnonzero(method == ONE_BY_ONE):
        k = np.flatnonzero(inc[g])
        w = np.full(k.size, 1.0 / k.size)
        if counted:
            diff = single(np.r_[base_a[g, k], a_now[g, k]], np.r_[base_b[g, k], b_now[g, k]],
                          np.r_[w, -w])  # fmt: skip
            out[g] = float(diff.sf(margin))
        else:
            out[g] = float(single(a_now[g, k], b_now[g, k], w).cdf(number - margin))
        advance(1)
    return out
