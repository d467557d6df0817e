"""Several classifiers' predictions of the same examples, counted jointly where the data live.

A paired comparison or ranking needs more than each classifier's confusion matrix: it needs,
per true class, how often the classifiers were right together, so the count is of the tuples
``(true, prediction 1, ..., prediction T)``. :func:`joint_counts` gets them from the one
aggregation of :func:`bacc.counts`, grouping by the other prediction columns: the matrix of
``true`` against the first prediction column in the group ``(p2, ..., pT)`` holds the examples
of every tuple. Every engine :func:`bacc.counts` reads (files by DuckDB, DataFrames by their own
engine, mappings of columns) and every one of its conventions (missing values, label types,
``labels=``) therefore applies unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..confusion import ConfusionMatrix, label_order
from ..errors import BaccError
from .grouped import GroupedCounts

__all__ = ["JointCounts", "joint_counts", "matrices"]

#: At most this many distinct tuples (true and every prediction) are held.
_MAX_TUPLES = 50_000_000


@dataclass(frozen=True)
class JointCounts:
    """Distinct (true, prediction 1, ..., prediction T) tuples of class indices and their counts.

    Attributes
    ----------
    classes : tuple
        The classes, in order (shared by the truth and every prediction column).
    columns : tuple of str
        The prediction columns, in the order given.
    codes : numpy.ndarray of int64, shape (m, 1 + T)
        Class index of the true label and of each prediction, one row per distinct tuple.
    n : numpy.ndarray of int64, shape (m,)
        Examples of each tuple.
    n_dropped : int
        Examples left out for a missing value (``nulls="drop"``).
    groups : tuple
        With ``by=``: the values of the grouping column, in natural order (else empty).
    group : numpy.ndarray of int64, shape (m,), or None
        With ``by=``: the index in ``groups`` of each tuple's group.
    """

    classes: tuple
    columns: tuple
    codes: np.ndarray
    n: np.ndarray
    n_dropped: int = 0
    groups: tuple = ()
    group: np.ndarray | None = None


def joint_counts(
    source: Any,
    *,
    true: str,
    preds: Sequence[str],
    labels: Sequence | None = None,
    nulls: str = "error",
    sep: str | None = None,
    progress: bool = True,
    by: str | None = None,
) -> JointCounts:
    """Count the (true, prediction 1, ..., prediction T) tuples of several prediction columns.

    Parameters
    ----------
    source : path, glob, directory, DataFrame, lazy frame or mapping of columns
        Anything :func:`bacc.counts` reads.
    true : str
        Column of the true class.
    preds : sequence of str
        Two or more prediction columns of the same examples.
    labels, nulls, sep, progress
        As in :func:`bacc.counts`; an example with a missing value in any of the columns is
        refused (or, with ``nulls="drop"``, left out).
    by : str, optional
        A column that splits the examples into groups (data sets): the tuples are counted per
        group, and ``groups``/``group`` say which.

    Returns
    -------
    JointCounts

    Raises
    ------
    BaccError
        Fewer than two prediction columns, a column named twice, and everything
        :func:`bacc.counts` refuses (named by the argument that named the column).

    Examples
    --------
    >>> data = {"y": [0, 0, 1, 1], "a": [0, 1, 1, 1], "b": [0, 0, 0, 1]}
    >>> jc = joint_counts(data, true="y", preds=["a", "b"])
    >>> jc.classes, jc.codes.tolist(), jc.n.tolist()
    ((0, 1), [[0, 0, 0], [0, 1, 0], [1, 1, 0], [1, 1, 1]], [1, 1, 1, 1])
    """
    from . import counts

    preds = list(preds)
    if len(preds) < 2 or not all(isinstance(p, str) and p for p in preds):
        raise BaccError("pred: a paired comparison needs two or more prediction columns, "
                        f"got {preds!r}")
    if len(set(preds)) != len(preds):
        raise BaccError(f"pred: a column is named twice in {preds!r}")
    if true in preds:
        raise BaccError(f"true= and pred= name the same column {true!r}")
    if by is not None and (by == true or by in preds):
        raise BaccError(f"the grouping column {by!r} is also named as a label column")
    others = preds[1:]
    lead = [] if by is None else [by]
    try:
        gc = counts(source, true=true, pred=preds[0], by=lead + others, labels=labels,
                    nulls=nulls, sep=sep, progress=progress)
    except BaccError as exc:
        msg = str(exc)
        for col in others:
            msg = msg.replace(f"{col!r} (by=)", f"{col!r} (pred=)")
        raise BaccError(msg) from None
    classes = gc.labels
    index = _lookup(classes)
    skip = len(lead)
    unknown = [v for g in gc.groups for v in _key(g)[skip:] if _find(index, v) is None]
    if unknown:
        if labels is not None:
            col, v = _where(gc, others, index, skip)
            shown = ", ".join(repr(x) for x in classes[:10]) + (", ..." if len(classes) > 10 else "")
            raise BaccError(f"column {col!r} (pred=) has the label {v!r}, which is not in labels "
                            f"({shown})")
        # a prediction column saw a label that neither the truth nor the first column did:
        # count again over every label seen
        union = label_order([*classes, *unknown])
        return joint_counts(source, true=true, preds=preds, labels=union, nulls=nulls, sep=sep,
                            progress=progress, by=by)
    return _table(gc, classes, index, tuple(preds), skip)


def _key(group) -> tuple:
    return group if isinstance(group, tuple) else (group,)


def _lookup(classes: tuple) -> dict:
    """Class index of a label, by the label and by its text (CSV files hold text)."""
    index: dict = {}
    for i, lab in enumerate(classes):
        index.setdefault(("v", lab), i)
        index.setdefault(("s", str(lab)), i)
    return index


def _find(index: dict, value) -> int | None:
    try:
        hit = index.get(("v", value))
    except TypeError:
        hit = None
    return hit if hit is not None else index.get(("s", str(value)))


def _where(gc: GroupedCounts, cols: list[str], index: dict, skip: int = 0) -> tuple[str, Any]:
    for g in gc.groups:
        for col, v in zip(cols, _key(g)[skip:], strict=True):
            if _find(index, v) is None:
                return col, v
    raise AssertionError("no unknown label")


def _table(gc: GroupedCounts, classes: tuple, index: dict, columns: tuple, skip: int = 0) -> JointCounts:
    stack = np.asarray(gc.counts)
    g_idx, t_idx, p_idx = np.nonzero(stack)
    if g_idx.size > _MAX_TUPLES:
        raise BaccError(f"{g_idx.size} distinct combinations of the prediction columns are too "
                        "many to hold; do the columns hold class labels?")
    group_codes = np.array([[_find(index, v) for v in _key(g)[skip:]] for g in gc.groups],
                           dtype=np.int64).reshape(len(gc.groups), -1)
    codes = np.column_stack([t_idx, p_idx, group_codes[g_idx]]).astype(np.int64)
    groups, group = (), None
    if skip:
        keys = [_key(g)[0] for g in gc.groups]
        groups = tuple(dict.fromkeys(keys))
        where = {k: i for i, k in enumerate(groups)}
        group = np.array([where[keys[g]] for g in g_idx], dtype=np.int64)
    return JointCounts(classes=tuple(classes), columns=columns, codes=codes,
                       n=stack[g_idx, t_idx, p_idx].astype(np.int64), n_dropped=gc.n_dropped,
                       groups=groups, group=group)


def matrices(jc: JointCounts) -> dict[str, ConfusionMatrix]:
    """Each prediction column's confusion matrix, from the joint counts.

    Examples
    --------
    >>> jc = joint_counts({"y": [0, 1, 1], "a": [0, 1, 0], "b": [1, 1, 1]}, true="y",
    ...                   preds=["a", "b"])
    >>> matrices(jc)["b"].counts.tolist()
    [[0, 1], [0, 2]]
    """
    m = len(jc.classes)
    out = {}
    for t, col in enumerate(jc.columns, start=1):
        flat = np.bincount(jc.codes[:, 0] * m + jc.codes[:, t], weights=jc.n, minlength=m * m)
        out[col] = ConfusionMatrix(flat.round().astype(np.int64).reshape(m, m), jc.classes)
    return out
