"""``bacc.compare_across`` and ``bacc.rank_across``: also from a table of predictions.

The Python twin of ``bacc compare FILE --true COLUMN --pred A --pred B --across COLUMN``: a
table with one row per example (a DataFrame or lazy frame of pandas, polars, pyarrow, DuckDB,
Spark, Dask..., a mapping of columns, or a data file) is counted where it lives by
:func:`bacc.counting.joint.joint_counts` with ``by=`` the data-set column, and the counts go to
:func:`bacc.across.compare_across_counts` or :func:`bacc.across.rank_across_counts`. The
prediction columns of one table predicted the same examples, so the classifiers are compared
under their joint (paired) posterior within each data set. Without ``true=`` and ``pred=``
every call is the numerics' own (:func:`bacc.across.compare_across`,
:func:`bacc.across.rank_across`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..across import (
    DEFAULT_ROPE,
    AcrossComparison,
    AcrossRanking,
    compare_across_counts,
    rank_across_counts,
)
from ..across import compare_across as _compare_across
from ..across import rank_across as _rank_across
from ..errors import BaccError
from .joint import joint_counts

__all__ = ["compare_across", "rank_across"]

_TABLE = """
true, pred, across : str, optional
    A table of predictions instead (anything :func:`bacc.counts` reads): the column of the true
    class, the prediction columns ({n}) and the column naming each example's data set, as the
    command line's ``--true``, ``--pred`` and ``--across``. The columns predicted the same
    examples: the comparison within each data set is paired.
labels : sequence, optional
    For a table: the classes, in order (see :func:`bacc.counts`).
nulls : {{"error", "drop"}}
    For a table: examples with a missing value refused (default) or left out.
sep : str, optional
    Field separator of a CSV file (default: detected).
"""


def _columns(true, pred, across, least: int, what: str) -> list[str] | None:
    if true is None and pred is None and across is None:
        return None
    if true is None or pred is None or across is None:
        raise BaccError(f"{what} of a table of predictions needs true=COLUMN, pred=[COLUMNS] and "
                        "across=COLUMN (the data set of each example)")
    if isinstance(pred, str) or not all(isinstance(p, str) for p in pred):
        raise BaccError(f"pred: {what} needs {least} or more prediction columns, e.g. "
                        "pred=['model_a', 'model_b']")
    cols = list(pred)
    if len(cols) < least:
        raise BaccError(f"pred: {what} needs {least} or more prediction columns, got {cols!r}")
    if not isinstance(across, str):
        raise BaccError(f"across must be one column name, got {across!r}")
    return cols


def compare_across(
    a,
    b=None,
    *,
    true: str | None = None,
    pred: Sequence[str] | None = None,
    across: str | None = None,
    groups=None,
    rope: float = DEFAULT_ROPE,
    confidence: float = 0.95,
    prior=None,
    rows: str = "true",
    names: Sequence[str] | None = None,
    labels=None,
    nulls: str = "error",
    sep: str | None = None,
) -> AcrossComparison:
    cols = _columns(true, pred, across, 2, "a comparison across data sets")
    if cols is None:
        if labels is not None:
            raise BaccError("labels= is for a table of predictions (true=, pred=, across=)")
        return _compare_across(a, b, groups=groups, rope=rope, confidence=confidence,
                               prior=prior, rows=rows, names=names)
    if b is not None or groups is not None:
        raise BaccError("a table of predictions is one argument: compare_across(df, true=..., "
                        "pred=[A, B], across=...)")
    if len(cols) != 2:
        raise BaccError(f"pred: a comparison is of two columns, got {len(cols)}; rank several "
                        "with bacc.rank_across(df, true=..., pred=[...], across=...)")
    jc = joint_counts(a, true=true, preds=cols, labels=labels, nulls=nulls, sep=sep, by=across)
    return compare_across_counts(jc.classes, jc.codes, jc.n, jc.group, jc.groups, rope=rope,
                                 confidence=confidence, prior=prior,
                                 names=tuple(cols) if names is None else names)


def rank_across(
    data,
    predictions=None,
    *,
    true: str | None = None,
    pred: Sequence[str] | None = None,
    across: str | None = None,
    groups=None,
    rope: float = DEFAULT_ROPE,
    confidence: float = 0.95,
    prior=None,
    rows: str = "true",
    n_draws: int | None = None,
    random_state=0,
    labels=None,
    nulls: str = "error",
    sep: str | None = None,
) -> AcrossRanking:
    cols = _columns(true, pred, across, 2, "a ranking across data sets")
    if cols is None:
        if labels is not None:
            raise BaccError("labels= is for a table of predictions (true=, pred=, across=)")
        return _rank_across(data, predictions, groups=groups, rope=rope, confidence=confidence,
                            prior=prior, rows=rows, n_draws=n_draws, random_state=random_state)
    if predictions is not None or groups is not None:
        raise BaccError("a table of predictions is one argument: rank_across(df, true=..., "
                        "pred=[...], across=...)")
    jc = joint_counts(data, true=true, preds=cols, labels=labels, nulls=nulls, sep=sep, by=across)
    return rank_across_counts(jc.classes, jc.codes, jc.n, jc.group, jc.groups, cols, rope=rope,
                              confidence=confidence, prior=prior, n_draws=n_draws,
                              random_state=random_state)


def _doc(numeric, lead: str, n: str) -> str:
    doc = numeric.__doc__ or ""
    head, sep, rest = doc.partition("\n    Returns\n")
    extra = "\n".join("    " + line if line else "" for line in _TABLE.format(n=n).splitlines())
    return head.replace("\n\n", f"\n\n    {lead}\n\n", 1).rstrip() + "\n" + extra + "\n" + sep + rest


compare_across.__doc__ = _doc(
    _compare_across,
    "Also from a table of predictions: ``bacc.compare_across(df, true=\"label\", pred=[\"a\", "
    "\"b\"], across=\"dataset\")``.",
    "two",
)
rank_across.__doc__ = _doc(
    _rank_across,
    "Also from a table of predictions: ``bacc.rank_across(df, true=\"label\", pred=[...], "
    "across=\"dataset\")``.",
    "two or more",
)
