"""The front door of :func:`bacc.scores`: label and score arrays, or a table or files whose
scores are tallied where the data live (:mod:`bacc.counting.scores`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from .._engine.helpers.validate import check_int
from ..errors import BaccError
from ..score_curve import OneVsRest, ScoreCurve, from_arrays, scores_from_tallies

__all__ = ["scores"]


def scores(
    y_true=None,
    y_score=None,
    *,
    true: str | None = None,
    score: str | Sequence[str] | None = None,
    positive=None,
    labels=None,
    max_thresholds: int | None = None,
    sep: str | None = None,
    name: str | None = None,
) -> ScoreCurve | OneVsRest:
    """The scores of a classifier, tallied at every threshold.

    Parameters
    ----------
    y_true : sequence, or table
        The true labels (array, list, pandas Series); or a table holding the columns ``true``
        and ``score``: a pandas, polars or dask DataFrame, a mapping of columns, or a file path
        (CSV or Parquet; a glob, a directory or a list of files), counted where the data live.
    y_score : sequence or array of shape (n,) or (n, classes)
        One score per example (higher means more positive: a probability, a decision value), or
        one column per class (probabilities of several classes) for one-vs-rest curves.
    true, score : str
        With a table: the column of the true labels, and the score column (or a list of score
        columns, one per class in the order of ``labels``, for one-vs-rest).
    positive : label, optional
        The class a high score predicts (default: the second of the two classes in bacc's class
        order, e.g. 1 of 0/1, True of False).
    labels : sequence, optional
        The classes, in order (for one-vs-rest, the order of the score columns).
    max_thresholds : int, optional
        Tables and files only: when the scores take more distinct values than this, the data
        engine counts them in this many bins cut at approximate quantiles, so memory stays
        bounded; the counts at the bins' edges stay exact. Default: every distinct score.
    sep : str, optional
        Field separator of text files (default: detected).
    name : str, optional
        The score's name, kept by the result (default: the score column's name).

    Returns
    -------
    ScoreCurve or OneVsRest
        One curve for two classes; a mapping class -> curve for one score column per class.

    Raises
    ------
    BaccError
        Scores with NaN or infinite values, texts or True/False given as scores, scores that are
        only the class labels (hard predictions: use :func:`bacc.evaluate`), continuous scores
        given as the true labels, a single class, more than two classes with one score column,
        or sequences of different lengths.

    See Also
    --------
    bacc.evaluate : the balanced accuracy of hard predictions.

    References
    ----------
    .. [1] Fawcett, T. (2006). An introduction to ROC analysis. Pattern Recognition Letters 27,
       861-874, algorithm 1 (the counts at every threshold from the sorted scores).

    Examples
    --------
    >>> import bacc
    >>> sc = bacc.scores([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9])
    >>> sc.thresholds.tolist()
    [inf, 0.9, 0.8, 0.4, 0.35, 0.2, 0.1]
    >>> sc.balanced_accuracy.round(3).tolist()
    [0.5, 0.667, 0.833, 0.667, 0.833, 0.667, 0.5]
    >>> round(sc.sample_auc, 4)
    0.8889
    """
    if true is not None or score is not None:
        return _from_table(y_true, y_score, true=true, score=score, positive=positive,
                           labels=labels, max_thresholds=max_thresholds, sep=sep, name=name)
    if max_thresholds is not None:
        raise BaccError("max_thresholds= applies to tables and files counted by the data engine "
                        "(true= and score= columns); arrays are tallied exactly")
    if y_true is None:
        raise BaccError("bacc.scores needs the true labels and the scores: "
                        "bacc.scores(y_true, y_score), or a table with true= and score= columns")
    if _is_table(y_true) and y_score is None:
        raise BaccError("a table needs its columns: bacc.scores(table, true=COLUMN, score=COLUMN)")
    return from_arrays(y_true, y_score, positive=positive, labels=labels, name=name)


def _is_table(obj) -> bool:
    from .files import is_file_source

    if isinstance(obj, Mapping) or isinstance(obj, str | os.PathLike) or is_file_source(obj):
        return True
    mod = type(obj).__module__.split(".")[0]
    return mod in ("pandas", "polars", "dask", "pyarrow", "narwhals") and hasattr(obj, "columns")


def _from_table(source, extra, *, true, score, positive, labels, max_thresholds, sep, name):
    from .scores import score_tallies

    if extra is not None:
        raise BaccError("give either y_true and y_score, or a table with true= and score= "
                        "columns, not both")
    if source is None:
        raise BaccError("true= and score= name columns of a table: bacc.scores(table, "
                        "true=COLUMN, score=COLUMN)")
    if true is None or score is None:
        raise BaccError("a table needs both columns: true=COLUMN (the true labels) and "
                        "score=COLUMN (the scores)")
    if max_thresholds is not None:
        max_thresholds = check_int(max_thresholds, "max_thresholds", 2, 2**62)
    got = score_tallies(source, true=true, score=score, positive=positive, labels=labels,
                        max_thresholds=max_thresholds, sep=sep)
    if isinstance(got, Mapping):
        return OneVsRest({c: scores_from_tallies(t, name=name or _col(score, i), one_vs_rest=True)
                          for i, (c, t) in enumerate(got.items())})
    return scores_from_tallies(got, name=name or str(score))


def _col(score, i: int) -> str:
    if isinstance(score, Mapping):
        return str(list(score.values())[i])
    return str(list(score)[i])
