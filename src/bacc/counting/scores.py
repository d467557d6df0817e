"""Scores counted where the data lives: positives and negatives at every distinct score.

A classifier's scores (probabilities, decision values) and the true classes are reduced,
inside the engine that holds them, to one row per distinct score: how many positive and how
many negative examples have that score. That is all a ROC curve, its area and the thresholds
need, and it is far smaller than the data:

- files (a path, a glob, a directory or a list of CSV / Parquet / JSON-lines files) are
  counted by DuckDB, out of core, through the readers of :mod:`bacc.counting.files`;
- a DataFrame or lazy frame (pandas, polars, pyarrow, DuckDB, anything narwhals wraps) is
  counted by its own engine (``GROUP BY`` class, score), a Dask DataFrame by Dask;
- a mapping of columns (``{"y": [...], "p": [...]}``) is counted with numpy.

When the scores take more than ``max_thresholds`` distinct values, they are binned: the
thresholds are the lower edges of at most ``max_thresholds`` bins of about equal numbers of
examples, and every count is exact at those thresholds (the number of positives and negatives
with ``score >= value`` is what the data hold, not an estimate). Files are binned in the engine
(approximate quantiles of a seeded sample of the scores, then an ``ASOF JOIN`` that puts each
row in the bin of the largest threshold at or below its score), so memory stays bounded
whatever the number of rows; so are Dask DataFrames (Dask's approximate quantiles, then a
binary search per partition); other frames and mappings, already in memory, are binned from
their exact tallies.

The decision rule is ``score >= threshold`` predicts the positive class, as scikit-learn's
``roc_curve``.
"""

from __future__ import annotations

import math
import numbers
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import BaccError
from ..labels import check_classes, check_one_kind, class_order, label_kind
from .files import _quote, count_query, is_file_source, open_files
from .tally import check_columns, clean_value, first_line

__all__ = ["DEFAULT_MEMORY_LIMIT", "RECOMMENDED_MAX_THRESHOLDS", "ScoreTally", "score_tallies"]

#: A number of thresholds that keeps the tallies of any file small (a few MB) and the ROC
#: curve finer than any figure shows: one bin per 1 000 examples of 10^8.
RECOMMENDED_MAX_THRESHOLDS = 100_000

#: DuckDB's memory when counting files, unless ``memory_limit=`` says otherwise: the binned
#: count sorts the rows (the ``ASOF JOIN``) and spills to a temporary directory past it.
DEFAULT_MEMORY_LIMIT = "1GB"

#: Rows of the sample the file thresholds are taken from, per threshold.
_SAMPLE_PER_THRESHOLD = 10
_SAMPLE_SEED = 20240116
#: Files whose approximate number of distinct scores is at most this factor times
#: ``max_thresholds`` are counted exactly first (the count is approximate to a few per cent).
_EXACT_MARGIN = 1.25

_POS, _SCORE, _N = "__bacc_pos", "__bacc_score", "__bacc_n"


@dataclass(frozen=True, eq=False)
class ScoreTally:
    """Positive and negative examples at each distinct score (or bin) of one score column.

    Attributes
    ----------
    classes : tuple
        The classes, in bacc's class order (:func:`bacc.labels.class_order`) or as given by
        ``labels=``: the two classes of a binary problem, or every class for one-vs-rest.
    positive : object
        The positive class; every other class is negative.
    values : numpy.ndarray of float64
        Distinct scores, descending. When ``binned``, the smallest score of each bin (the
        bin's lower edge: no example has a score between it and the edge the bin was cut at).
    positives, negatives : numpy.ndarray of int64
        Positive and negative examples with each score (in each bin).
    binned : bool
        The scores were put in at most ``max_thresholds`` bins. The number of examples with
        ``score >= values[j]`` is still exact for every ``j``; thresholds between two values
        are not available.

    Examples
    --------
    >>> from bacc.counting.scores import score_tallies
    >>> t = score_tallies({"y": [0, 0, 1, 1], "p": [0.1, 0.4, 0.35, 0.8]}, true="y", score="p")
    >>> t.values.tolist(), t.positives.tolist(), t.negatives.tolist()
    ([0.8, 0.4, 0.35, 0.1], [1, 0, 1, 0], [0, 1, 0, 1])
    """

    classes: tuple
    positive: Any
    values: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    binned: bool = False

    def __post_init__(self) -> None:
        values = np.array(self.values, dtype=np.float64)
        pos = np.array(self.positives, dtype=np.int64)
        neg = np.array(self.negatives, dtype=np.int64)
        if values.ndim != 1 or pos.shape != values.shape or neg.shape != values.shape:
            raise BaccError(
                f"values, positives and negatives must be 1-D of one length, got shapes "
                f"{values.shape}, {pos.shape}, {neg.shape}"
            )
        if values.size and (not np.all(np.isfinite(values)) or np.any(np.diff(values) >= 0)):
            raise BaccError("values must be finite, distinct and in descending order")
        if np.any(pos < 0) or np.any(neg < 0):
            raise BaccError("positives and negatives must be counts >= 0")
        for name, arr in (("values", values), ("positives", pos), ("negatives", neg)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "classes", tuple(self.classes))

    @property
    def n_positive(self) -> int:
        """Positive examples in all."""
        return int(self.positives.sum())

    @property
    def n_negative(self) -> int:
        """Negative examples in all."""
        return int(self.negatives.sum())

    def __repr__(self) -> str:
        kind = "bins" if self.binned else "distinct scores"
        return (
            f"ScoreTally(positive={self.positive!r} of {list(self.classes)!r}, "
            f"{self.values.size} {kind}, {self.n_positive} positives, "
            f"{self.n_negative} negatives)"
        )


def score_tallies(
    source: Any,
    *,
    true: str,
    score: str | Sequence[str] | Mapping,
    positive: Any = None,
    labels: Sequence | None = None,
    max_thresholds: int | None = None,
    sep: str | None = None,
    memory_limit: str | None = None,
    progress: bool = False,
) -> ScoreTally | dict:
    """Count positives and negatives at every distinct score, inside the engine that holds them.

    Parameters
    ----------
    source : path, glob, directory, list of paths, DataFrame, lazy frame or mapping
        As :func:`bacc.counts` reads: CSV / Parquet / JSON-lines files (counted by DuckDB,
        out of core), a DataFrame or lazy frame of any engine narwhals wraps or a Dask
        DataFrame (counted by that engine), or a mapping of column name to sequence.
    true : str
        Column of the true class.
    score : str, sequence of str, or mapping of class to str
        One column of scores (a binary problem: higher scores for the positive class), or
        one column per class for one-vs-rest: a list in the order of the classes (``labels``
        or bacc's class order), or a mapping ``{class: column}``.
    positive : optional
        The positive class of a binary problem (default: the second of the two classes in
        class order, as scikit-learn's ``pos_label`` for 0/1 labels). Labels read from CSV are
        text; a non-text ``positive`` is matched by ``str``.
    labels : sequence, optional
        The classes, in order: two for one score column, else one per score column. A label
        outside them is an error. Default: the labels seen, in class order.
    max_thresholds : int, optional
        Most distinct scores kept (at least 2). Default ``None``: every distinct score, exact.
        With more distinct scores than this, the scores are binned (``binned=True``): at most
        ``max_thresholds`` thresholds with exact counts at each. For large files,
        :data:`RECOMMENDED_MAX_THRESHOLDS` (100 000) keeps the memory bounded whatever the
        number of rows.
    sep : str, optional
        Field separator of CSV files (default: detected).
    memory_limit : str, optional
        Most memory DuckDB may use when counting files (default :data:`DEFAULT_MEMORY_LIMIT`,
        ``"1GB"``); past it DuckDB spills to a temporary directory that is removed afterwards.
    progress : bool
        Draw a progress line on standard error while DuckDB counts files (when standard error
        is a terminal and the count takes more than half a second).

    Returns
    -------
    ScoreTally or dict
        One :class:`ScoreTally` for one score column; for one score column per class, a
        dict ``{class: ScoreTally}`` in class order, each class positive against the rest.

    Raises
    ------
    BaccError
        A missing column, missing (null or NaN) or infinite scores (with their number), a
        score column that is not numeric or holds only the class labels (hard predictions:
        use :func:`bacc.evaluate`), missing true labels, labels of mixed kinds, one class only,
        more than two classes with one score column, or an unreadable file.
    MissingDependencyError
        DuckDB (for files) or narwhals (for DataFrames) is not installed.

    Notes
    -----
    The engine runs two aggregations: one ``GROUP BY`` class (the number of examples of each
    class, and of missing and infinite scores), then one ``GROUP BY`` score (``COUNT`` of
    positives and of negatives per distinct score). Only the distinct scores with their
    counts come back to Python. For files with more than ``max_thresholds`` distinct scores
    (approximately counted in the first aggregation), the thresholds are approximate
    quantiles of a seeded Bernoulli sample of about ``10 * max_thresholds`` scores, plus the
    smallest score, and an ``ASOF JOIN`` assigns each row to the largest threshold at or
    below its score: the counts per bin are exact, the sample only decides where the bins
    are cut. Dask DataFrames are binned in Dask the same way (Dask's approximate quantiles;
    a binary search per partition). Other frames and mappings are binned from their exact
    tallies: bin ``k`` starts at the first score whose share of examples below it reaches
    ``k / max_thresholds``. Thresholds of binned tallies therefore depend on the engine; their
    counts never do.

    Examples
    --------
    >>> from bacc.counting.scores import score_tallies
    >>> data = {"y": ["cat", "dog", "dog", "cat"], "p": [0.2, 0.9, 0.6, 0.6]}
    >>> t = score_tallies(data, true="y", score="p")
    >>> t.positive, t.values.tolist(), t.positives.tolist(), t.negatives.tolist()
    ('dog', [0.9, 0.6, 0.2], [1, 1, 0], [0, 1, 1])
    """
    columns, keyed = _score_columns(score, true)
    m = _check_max_thresholds(max_thresholds)
    src = _open(source, columns, sep=sep, memory_limit=memory_limit, progress=progress)
    try:
        survey = src.survey()
        _refuse_missing(survey, columns, src.where)
        classes, raws = _classes(survey, columns, labels, src)
        if isinstance(score, str):
            if len(classes) != 2:
                raise BaccError(_two_classes_message(classes, labels, columns, src.where))
            pos = classes[1] if positive is None else _match_class(positive, classes, src)
            if pos is None:
                raise BaccError(
                    f"positive={positive!r} is not a class (the classes are {_class_list(classes)})"
                )
            return _tally(src, columns.scores[0], 0, classes, pos, raws, survey, m)
        if positive is not None:
            raise BaccError(
                "positive= is for one score column; with one score column per class, each "
                "class is the positive class in turn (against the rest)"
            )
        by_class = _columns_by_class(columns, keyed, classes, src)
        return {
            c: _tally(src, col, columns.scores.index(col), classes, c, raws, survey, m)
            for c, col in by_class.items()
        }
    finally:
        src.close()


# ----------------------------------------------------------------------------------------------
# arguments
@dataclass(frozen=True)
class _Spec:
    """The columns read: the true class and the score columns (checked like :class:`.tally.Spec`)."""

    true: str
    scores: tuple

    @property
    def columns(self) -> list[str]:
        return [self.true, *self.scores]

    def option(self, col: str) -> str:
        return "true=" if col == self.true else "score="


def _score_columns(score, true) -> tuple[_Spec, dict | None]:
    if not isinstance(true, str) or not true:
        raise BaccError(f"true= must name a column (a non-empty string), got {true!r}")
    keyed = None
    if isinstance(score, str):
        cols = [score]
    elif isinstance(score, Mapping):
        keyed = dict(score)
        cols = list(keyed.values())
    elif isinstance(score, Sequence):
        cols = list(score)
    else:
        raise BaccError(
            f"score= must name a column, a list of columns (one per class) or a mapping of "
            f"class to column, got {type(score).__name__}"
        )
    if not cols:
        raise BaccError("score= is empty: name the column of scores, or one column per class")
    for c in cols:
        if not isinstance(c, str) or not c:
            raise BaccError(f"score= must name columns (non-empty strings), got {c!r}")
    if len(set(cols)) != len(cols):
        dup = next(c for i, c in enumerate(cols) if c in cols[:i])
        raise BaccError(f"score= names the column {dup!r} more than once")
    if true in cols:
        raise BaccError(f"true= and score= name the same column {true!r}")
    return _Spec(true, tuple(cols)), keyed


def _check_max_thresholds(m) -> int | None:
    if m is None:
        return None
    if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 2:
        raise BaccError(
            f"max_thresholds must be a whole number >= 2 or None (every distinct score), got {m!r}"
        )
    return int(m)


# ----------------------------------------------------------------------------------------------
# the rules every engine shares
@dataclass
class _Survey:
    """What the first aggregation found.

    ``labels``: (label as the engine gives it, examples) per distinct non-missing label;
    ``missing_labels``: examples without a label; ``missing`` / ``infinite``: per score column,
    examples whose score is null or NaN / infinite; ``distinct``: per score column, the
    (approximate) number of distinct scores, or None; ``low``: per score column, the smallest
    finite score, or None.
    """

    labels: list
    missing_labels: int
    missing: dict
    infinite: dict
    distinct: dict
    low: dict


def _refuse_missing(survey: _Survey, spec: _Spec, where: str) -> None:
    if survey.missing_labels:
        n = survey.missing_labels
        raise BaccError(
            f"{where}: {n} example{' has' if n == 1 else 's have'} a missing label in "
            f"{spec.true!r} (true=); drop those examples before counting scores"
        )
    for col in spec.scores:
        miss, inf = survey.missing[col], survey.infinite[col]
        if miss or inf:
            parts = [f"{miss} missing (null or NaN)"] if miss else []
            parts += [f"{inf} infinite"] if inf else []
            n = miss + inf
            raise BaccError(
                f"{where}: column {col!r} (score=) has {' and '.join(parts)} score"
                f"{'' if n == 1 else 's'}; every example needs a finite score (drop or fill "
                "those rows)"
            )
    if not survey.labels:
        raise BaccError(f"{where} has no examples to count")


def _as_label(v):
    """A label as classes are formed: plain, whole-number floats as ints."""
    v = clean_value(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _classes(survey: _Survey, spec: _Spec, labels, src) -> tuple[tuple, dict]:
    """The classes in order and, for each, the labels as the engine holds them."""
    what = f"{src.where}: the labels of column {spec.true!r} (true=)"
    check_one_kind([_as_label(raw) for raw, _ in survey.labels], what)
    raws: dict = {}
    counts: dict = {}
    for raw, n in survey.labels:
        v = _as_label(raw)
        raws.setdefault(v, []).append(raw)
        counts[v] = counts.get(v, 0) + int(n)
    if labels is None:
        classes = class_order(raws)
    else:
        classes = check_classes(labels)
        if len(classes) < 2:
            raise BaccError(f"labels must name at least two classes, got {list(classes)!r}")
        if not src.text_labels:
            check_one_kind([*classes, *raws], f"labels and {what}")
        key = {(str(c) if src.text_labels else c): c for c in classes}
        given: dict = {}
        given_counts: dict = {}
        for v, rs in raws.items():
            c = key.get(str(v) if src.text_labels else v)
            if c is None:
                shown = ", ".join(repr(x) for x in classes[:10]) + (", ..." if len(classes) > 10 else "")
                raise BaccError(
                    f"{src.where}: column {spec.true!r} (true=) has the label {v!r}, which is "
                    f"not in labels ({shown})"
                )
            given.setdefault(c, []).extend(rs)
            given_counts[c] = given_counts.get(c, 0) + counts[v]
        raws, counts = given, given_counts
    empty = [c for c in classes if not counts.get(c)]
    seen = [c for c in classes if counts.get(c)]
    if len(seen) < 2:
        only = f"{seen[0]!r} ({counts[seen[0]]} examples)" if seen else "none"
        raise BaccError(
            f"{src.where}: column {spec.true!r} (true=) holds one class only, {only}; scores "
            "are judged by how they separate examples of two classes"
        )
    if empty and (len(spec.scores) > 1 or len(classes) == 2):
        raise BaccError(
            f"{src.where}: column {spec.true!r} (true=) holds no example of the class "
            f"{empty[0]!r}; scores are judged by how they separate examples of every class"
        )
    return tuple(classes), raws


def _two_classes_message(classes, labels, spec: _Spec, where: str) -> str:
    shown = ", ".join(repr(c) for c in classes[:6]) + (", ..." if len(classes) > 6 else "")
    if labels is not None:
        return (
            f"labels names {len(classes)} classes ({shown}), but score= names one column: one "
            "score column scores two classes; give one score column per class (score=[...] in "
            "the order of labels) for one-vs-rest"
        )
    return (
        f"{where}: column {spec.true!r} (true=) holds {len(classes)} classes ({shown}), but "
        f"score= names one column ({spec.scores[0]!r}); give one score column per class "
        "(score=[...] in class order, or {class: column}) for one-vs-rest"
    )


def _match_class(value, classes: tuple, src):
    """The class that ``value`` (given by the user) names, or None: by value, or by ``str``
    for labels read as text from CSV."""
    v = clean_value(value)
    for c in classes:
        if (str(c) == str(v)) if src.text_labels else (c == v and label_kind(c) == label_kind(v)):
            return c
    return None


def _class_list(classes) -> str:
    return ", ".join(repr(c) for c in classes[:10]) + (", ..." if len(classes) > 10 else "")


def _columns_by_class(spec: _Spec, keyed, classes: tuple, src) -> dict:
    if keyed is None:
        if len(spec.scores) != len(classes):
            n = len(spec.scores)
            raise BaccError(
                f"score= names {n} column{'' if n == 1 else 's'}, one per class, but there are "
                f"{len(classes)} classes ({_class_list(classes)}); give one score column per "
                "class in class order (or a mapping {class: column}), or one column name (not "
                "a list) for the scores of a binary problem"
            )
        return dict(zip(classes, spec.scores, strict=True))
    out: dict = {}
    for key, col in keyed.items():
        c = _match_class(key, classes, src)
        if c is None:
            raise BaccError(
                f"score= names the class {key!r}, which is not a class (the classes are "
                f"{_class_list(classes)})"
            )
        if c in out:
            raise BaccError(f"score= names the class {c!r} more than once")
        out[c] = col
    missing = [c for c in classes if c not in out]
    if missing:
        raise BaccError(
            f"score= gives no column for the class {missing[0]!r}; one score column per class "
            f"(the classes are {_class_list(classes)})"
        )
    return {c: out[c] for c in classes}


def _tally(src, col: str, index: int, classes: tuple, positive, raws: dict, survey: _Survey,
           m: int | None) -> ScoreTally:
    values, pos, neg, binned = src.count(col, index, raws[positive], m, survey)
    order = np.argsort(values, kind="stable")
    values, pos, neg = values[order], pos[order], neg[order]
    if not binned and m is not None and values.size > m:
        values, pos, neg = _bin(values, pos, neg, m)
        binned = True
    if not binned:
        _refuse_hard_predictions(values, classes, col, src.where)
    return ScoreTally(classes, positive, values[::-1], pos[::-1], neg[::-1], binned)


def _refuse_hard_predictions(values: np.ndarray, classes: tuple, col: str, where: str) -> None:
    """A score column whose every value is a class label holds predicted labels, not scores."""
    numeric = set()
    for c in classes:
        try:
            numeric.add(float(c))
        except (TypeError, ValueError):
            continue
    if numeric and values.size <= len(numeric) and all(float(v) in numeric for v in values):
        shown = ", ".join(repr(_as_label(float(v))) for v in values)
        raise BaccError(
            f"{where}: column {col!r} (score=) holds only class labels ({shown}): predicted "
            f"labels, not scores; for hard predictions use bacc.evaluate(..., pred={col!r})"
        )


def _bin(values: np.ndarray, pos: np.ndarray, neg: np.ndarray, m: int):
    """At most ``m`` bins of consecutive distinct scores (ascending), about equally full: bin
    ``k`` starts at the first score with at least ``k / m`` of the examples below it. Each bin
    is named by its smallest score, so the counts at or above each value stay exact."""
    n = pos + neg
    below = np.cumsum(n) - n
    slot = np.floor(below * (m / max(int(n.sum()), 1))).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, slot[1:] != slot[:-1]])
    return values[starts], np.add.reduceat(pos, starts), np.add.reduceat(neg, starts)


def _from_groups(score: np.ndarray, is_pos: np.ndarray, n: np.ndarray):
    """Distinct scores (ascending) with their positives and negatives, from grouped rows."""
    values, inverse = np.unique(np.asarray(score, dtype=np.float64), return_inverse=True)
    n = np.asarray(n, dtype=np.int64)
    is_pos = np.asarray(is_pos, dtype=bool)
    pos = np.bincount(inverse, weights=np.where(is_pos, n, 0), minlength=values.size)
    neg = np.bincount(inverse, weights=np.where(is_pos, 0, n), minlength=values.size)
    return values, pos.astype(np.int64), neg.astype(np.int64)


def _open(source, spec: _Spec, *, sep, memory_limit, progress):
    if is_file_source(source):
        return _Files(source, spec, sep=sep, memory_limit=memory_limit, progress=progress)
    if isinstance(source, Mapping):
        return _Columns(source, spec)
    if isinstance(source, list | tuple):
        raise BaccError(
            "a list is read as file paths; give a path, a DataFrame or a mapping of columns "
            "({'label': [...], 'score': [...]})"
        )
    if type(source).__module__.split(".")[0] == "dask":
        return _Dask(source, spec)
    return _Frame(source, spec)


# ----------------------------------------------------------------------------------------------
# files: DuckDB
_SQL_NUMBERS = {
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
    "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC", "INT", "INT1",
    "INT2", "INT4", "INT8", "FLOAT4", "FLOAT8",
}


def _not_scores(col: str, kind: str, where: str) -> BaccError:
    return BaccError(
        f"{where}: column {col!r} (score=) holds {kind}: labels where scores are expected; give "
        f"a numeric column of scores (probabilities or decision values), or for predicted "
        f"labels use bacc.evaluate(..., pred={col!r})"
    )


class _Files:
    """CSV / Parquet / JSON-lines files counted by DuckDB (:func:`.files.open_files`)."""

    def __init__(self, source, spec: _Spec, *, sep, memory_limit, progress) -> None:
        limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit
        (self.duckdb, self.con, self.files, fmt, self.where, reader, params,
         schema) = open_files(source, sep, limit)
        self.tmp = None
        try:
            self.progress = progress
            self.text_labels = fmt == "csv"
            types = {row[0]: str(row[1]).upper() for row in schema}
            check_columns(list(types), spec, self.where)
            for col in spec.scores:
                base = types[col].split("(")[0].strip()
                if base not in _SQL_NUMBERS:
                    kind = {"VARCHAR": "text", "BOOLEAN": "booleans"}.get(base, base)
                    raise _not_scores(col, kind, self.where)
            params = list(params)
            true = _quote(spec.true)
            if self.text_labels:
                # labels are text, trimmed, as bacc.counts reads CSV
                reader = reader[:-1] + ", types = ?)"
                params.append({spec.true: "VARCHAR"})
                true = f"trim({true})"
            scores = ", ".join(
                f"CAST({_quote(c)} AS DOUBLE) AS s{i}" for i, c in enumerate(spec.scores)
            )
            self.base = f"SELECT {true} AS t, {scores} FROM {reader}"
            self.params = params
            self.spec = spec
            # the binned count sorts; DuckDB spills past memory_limit, here, not into the cwd
            self.tmp = tempfile.mkdtemp(prefix="bacc-duckdb-")
            self.con.execute(f"SET temp_directory = '{self.tmp.replace(chr(39), chr(39) * 2)}'")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.con.close()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _run(self, sql: str, params: list) -> dict:
        return count_query(self.duckdb, self.con, sql, params, self.progress, self.files,
                           self.where, numpy=True)

    def survey(self) -> _Survey:
        aggs = []
        for i in range(len(self.spec.scores)):
            s = f"s{i}"
            aggs += [
                f"COUNT_IF({s} IS NULL OR isnan({s}))",
                f"COUNT_IF(isinf({s}))",
                f"approx_count_distinct({s})",
                f"MIN({s}) FILTER (WHERE isfinite({s}))",
            ]
        sql = (f"SELECT t, GROUPING(t), COUNT(*), {', '.join(aggs)} FROM ({self.base}) "
               "GROUP BY GROUPING SETS ((t), ())")
        cols = list(self._run(sql, self.params).values())
        labels, missing_labels = [], 0
        total = np.flatnonzero(np.asarray(cols[1]) == 1)
        for r in np.flatnonzero(np.asarray(cols[1]) == 0):
            t, n = _item(cols[0], r), int(cols[2][r])
            if t is None:
                missing_labels += n
            else:
                labels.append((t, n))
        out = _Survey(labels, missing_labels, {}, {}, {}, {})
        for i, col in enumerate(self.spec.scores):
            k = 3 + 4 * i
            at = total[0]
            out.missing[col] = int(cols[k][at])
            out.infinite[col] = int(cols[k + 1][at])
            out.distinct[col] = int(cols[k + 2][at])
            low = _item(cols[k + 3], at)
            out.low[col] = None if low is None else float(low)
        return out

    def count(self, col: str, index: int, positive_labels: list, m: int | None,
              survey: _Survey):
        s = f"s{index}"
        marks = ", ".join("?" for _ in positive_labels)
        pos = f"SELECT (t IN ({marks})) AS pos, {s} AS s FROM ({self.base})"
        distinct = survey.distinct[col]
        if m is None or distinct is None or distinct <= _EXACT_MARGIN * m:
            sql = f"SELECT s, COUNT_IF(pos), COUNT_IF(NOT pos) FROM ({pos}) GROUP BY s"
            cols = list(self._run(sql, [*positive_labels, *self.params]).values())
            return (np.asarray(cols[0], dtype=np.float64), np.asarray(cols[1], dtype=np.int64),
                    np.asarray(cols[2], dtype=np.int64), False)
        edges = self._edges(s, m, sum(n for _, n in survey.labels), survey.low[col])
        sql = (
            "WITH th AS (SELECT unnest(?::DOUBLE[]) AS edge) "
            f"SELECT MIN(d.s), COUNT_IF(d.pos), COUNT_IF(NOT d.pos) FROM ({pos}) d "
            "ASOF JOIN th ON d.s >= th.edge GROUP BY th.edge"
        )
        cols = list(self._run(sql, [edges.tolist(), *positive_labels, *self.params]).values())
        return (np.asarray(cols[0], dtype=np.float64), np.asarray(cols[1], dtype=np.int64),
                np.asarray(cols[2], dtype=np.int64), True)

    def _edges(self, s: str, m: int, n: int, low: float) -> np.ndarray:
        """At most ``m`` bin edges: the smallest score, then the first score of each of ``m``
        equal slots of a seeded Bernoulli sample of about ``10 m`` scores (sorted by DuckDB;
        only the edges come back)."""
        percent = min(100.0, 100.0 * _SAMPLE_PER_THRESHOLD * m / max(n, 1))
        sql = (
            "SELECT s FROM (SELECT s, row_number() OVER (ORDER BY s) - 1 AS r, "
            f"COUNT(*) OVER () AS n FROM (SELECT {s} AS s FROM ({self.base}) "
            f"USING SAMPLE {percent!r}% (bernoulli, {_SAMPLE_SEED}))) "
            "WHERE r = 0 OR (r * ?) // n <> ((r - 1) * ?) // n"
        )
        cols = list(self._run(sql, [*self.params, m, m]).values())
        sample = np.unique(np.asarray(cols[0], dtype=np.float64))
        return np.unique(np.r_[low, sample[1:]])[:m]


def _item(arr, i):
    """Entry ``i`` of a fetched column as a plain value (None when masked)."""
    if np.ma.isMaskedArray(arr) and arr.mask is not np.ma.nomask and np.ma.getmaskarray(arr)[i]:
        return None
    return clean_value(arr[i])


# ----------------------------------------------------------------------------------------------
# DataFrames and lazy frames: narwhals
class _Frame:
    """A DataFrame or lazy frame counted by its own engine through narwhals."""

    text_labels = False

    def __init__(self, source, spec: _Spec) -> None:
        from .frames import open_frame

        module = type(source).__module__.split(".")[0]
        nw, frame, schema, self.name, self.where = open_frame(source, spec, module)
        for col in spec.scores:
            dtype = schema[col]
            if dtype == nw.Boolean or not dtype.is_numeric():
                kind = {nw.Boolean: "booleans", nw.String: "text", nw.Categorical: "categories",
                        nw.Enum: "categories"}.get(type(dtype))
                raise _not_scores(col, kind or str(dtype), self.where)
        self.nw, self.spec = nw, spec
        self.frame = frame.select(
            nw.col(spec.true), *(nw.col(c).cast(nw.Float64()) for c in spec.scores)
        )

    def close(self) -> None:
        pass

    def _collect(self, frame):
        try:
            if not isinstance(frame, self.nw.DataFrame):
                frame = frame.collect()
            return frame
        except BaccError:
            raise
        except Exception as exc:  # engines raise their own error types
            raise BaccError(f"{self.name} could not count {self.where}: {first_line(exc)}") from None

    def survey(self) -> _Survey:
        nw = self.nw
        helpers, aggs = [], [nw.len().alias(_N)]
        for i, col in enumerate(self.spec.scores):
            c = nw.col(col)
            miss, inf = f"__bacc_miss{i}", f"__bacc_inf{i}"
            helpers += [
                (c.is_null() | c.is_nan().fill_null(False)).cast(nw.Int64()).alias(miss),
                (c.abs() == math.inf).fill_null(False).cast(nw.Int64()).alias(inf),
            ]
            aggs += [nw.col(miss).sum(), nw.col(inf).sum()]
        try:
            grouped = (self.frame.with_columns(*helpers)
                       .group_by(self.spec.true, drop_null_keys=False).agg(*aggs))
            rows = list(self._collect(grouped).rows())
        except BaccError:
            raise
        except Exception as exc:
            raise BaccError(f"{self.name} could not count {self.where}: {first_line(exc)}") from None
        return _survey_from_rows(rows, self.spec)

    def count(self, col: str, index: int, positive_labels: list, m, survey):
        nw = self.nw
        try:
            grouped = (
                self.frame.select(
                    nw.col(self.spec.true).is_in(positive_labels).alias(_POS),
                    nw.col(col).alias(_SCORE),
                )
                .group_by(_POS, _SCORE).agg(nw.len().alias(_N))
            )
            df = self._collect(grouped)
            arrays = [df.get_column(c).to_numpy() for c in (_SCORE, _POS, _N)]
        except BaccError:
            raise
        except Exception as exc:
            raise BaccError(f"{self.name} could not count {self.where}: {first_line(exc)}") from None
        return (*_from_groups(*arrays), False)


def _survey_from_rows(rows: list, spec: _Spec) -> _Survey:
    """A survey from rows ``(label, n, missing_0, infinite_0, missing_1, ...)``."""
    labels, missing_labels = [], 0
    miss = dict.fromkeys(spec.scores, 0)
    inf = dict.fromkeys(spec.scores, 0)
    for row in rows:
        t, n = clean_value(row[0]), int(row[1])
        if t is None:
            missing_labels += n
        else:
            labels.append((t, n))
        for i, col in enumerate(spec.scores):
            miss[col] += int(clean_value(row[2 + 2 * i]) or 0)
            inf[col] += int(clean_value(row[3 + 2 * i]) or 0)
    none = dict.fromkeys(spec.scores)
    return _Survey(labels, missing_labels, miss, inf, dict(none), dict(none))


# ----------------------------------------------------------------------------------------------
# Dask: its own groupby
class _Dask:
    """A Dask DataFrame counted by Dask's own ``groupby``."""

    text_labels = False

    def __init__(self, source, spec: _Spec) -> None:
        self.where = f"the Dask {type(source).__name__}"
        cols = getattr(source, "columns", None)
        if cols is None:
            raise BaccError(f"{self.where} is not a table (a Series?); give a DataFrame with named columns")
        check_columns(list(cols), spec, self.where)
        for col in spec.scores:
            dtype = source[col].dtype
            if dtype.kind not in "iuf":
                raise _not_scores(col, "booleans" if dtype.kind == "b" else str(dtype), self.where)
        self.spec = spec
        self.frame = source[spec.columns].astype({c: "float64" for c in spec.scores})

    def close(self) -> None:
        pass

    def _fail(self, exc) -> BaccError:
        return BaccError(f"Dask could not count {self.where}: {first_line(exc)}")

    def survey(self) -> _Survey:
        spec = self.spec
        try:
            helpers: dict = {_N: 1}
            for i, col in enumerate(spec.scores):
                s = self.frame[col]
                helpers[f"__bacc_miss{i}"] = s.isna().astype("int64")
                helpers[f"__bacc_inf{i}"] = (s.abs() == math.inf).astype("int64")
            df = self.frame[[spec.true]].assign(**helpers)
            pdf = df.groupby(spec.true, dropna=False).sum().compute()
        except Exception as exc:  # Dask raises its engines' error types
            raise self._fail(exc) from None
        rows = [(k, *vals) for k, vals in zip(pdf.index, pdf.itertuples(index=False, name=None),
                                               strict=True)]
        return _survey_from_rows(rows, spec)

    def count(self, col: str, index: int, positive_labels: list, m, survey):
        try:
            df = self.frame[[col]].assign(**{_POS: self.frame[self.spec.true].isin(positive_labels)})
            if m is not None and self.frame[col].nunique_approx().compute() > _EXACT_MARGIN * m:
                return self._binned(df, col, m)
            ser = df.groupby([_POS, col]).size().compute()
        except BaccError:
            raise
        except Exception as exc:
            raise self._fail(exc) from None
        is_pos = ser.index.get_level_values(0).to_numpy(dtype=bool)
        score = ser.index.get_level_values(1).to_numpy(dtype=np.float64)
        return (*_from_groups(score, is_pos, ser.to_numpy()), False)

    @staticmethod
    def _binned(df, col: str, m: int):
        """Bins in Dask, as for files: edges from Dask's approximate quantiles (and the smallest
        score), each row in the bin of the largest edge at or below its score (a binary search
        per partition), the bins counted by a groupby: memory bounded by the bins."""
        low = float(df[col].min().compute())
        qs = (np.arange(1, m) / m).tolist()
        found = np.asarray(df[col].quantile(qs).compute(), dtype=np.float64)
        edges = np.unique(np.r_[low, found[np.isfinite(found) & (found > low)]])[:m]

        def assign(part):
            b = np.searchsorted(edges, part[col].to_numpy(dtype=np.float64), side="right") - 1
            return part.assign(__bacc_bin=b, **{_N: part[_POS].astype("int64")})

        grouped = df.map_partitions(assign).groupby("__bacc_bin").agg(
            {col: "min", _N: "sum", _POS: "count"}).compute()
        pos = grouped[_N].to_numpy(dtype=np.int64)
        return (grouped[col].to_numpy(dtype=np.float64), pos,
                grouped[_POS].to_numpy(dtype=np.int64) - pos, True)


# ----------------------------------------------------------------------------------------------
# a mapping of columns: numpy
class _Columns:
    """A mapping of column name to sequence, counted with numpy."""

    text_labels = False
    where = "the mapping of columns"

    def __init__(self, source: Mapping, spec: _Spec) -> None:
        check_columns([str(k) for k in source], spec, self.where)
        lengths = {}
        for c in spec.columns:
            col = source[c]
            if isinstance(col, str | bytes) or not hasattr(col, "__len__"):
                raise BaccError(f"column {c!r} must be a sequence of values, got {type(col).__name__}")
            lengths[c] = len(col)
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{c!r}: {n}" for c, n in lengths.items())
            raise BaccError(f"the columns have different lengths ({shown})")
        true = source[spec.true]
        self.labels = [clean_value(v) for v in (true.tolist() if hasattr(true, "tolist") else true)]
        self.scores = {c: self._scores(source[c], c) for c in spec.scores}
        self.spec = spec

    def close(self) -> None:
        pass

    def _scores(self, col, name: str) -> np.ndarray:
        """The column as float64, missing values as NaN; text and booleans refused."""
        if np.ma.isMaskedArray(col):
            arr = np.asarray(col.tolist(), dtype=object)  # masked entries become None
        elif isinstance(col, np.ndarray):
            arr = col
        else:
            try:
                arr = np.asarray(col)
            except (TypeError, ValueError):
                arr = np.asarray(list(col), dtype=object)
            if arr.ndim != 1:
                arr = np.asarray(list(col) + [None], dtype=object)[:-1]
        if arr.ndim != 1:
            raise BaccError(f"column {name!r} must be one-dimensional, got shape {arr.shape}")
        if arr.dtype.kind in "US":
            raise _not_scores(name, "text", self.where)
        if arr.dtype.kind in "iuf":
            return arr.astype(np.float64)
        if arr.dtype.kind == "b":
            raise _not_scores(name, "booleans", self.where)
        out = np.empty(arr.shape[0], dtype=np.float64)
        for i, v in enumerate(arr.tolist() if arr.dtype != object else arr):
            v = clean_value(v)
            if v is None:
                out[i] = np.nan
            elif isinstance(v, bool) or not isinstance(v, numbers.Real):
                kind = {"bool": "booleans", "text": "text"}.get(label_kind(v), type(v).__name__)
                raise _not_scores(name, f"{kind} (e.g. {v!r})", self.where)
            else:
                out[i] = float(v)
        return out

    def survey(self) -> _Survey:
        counts: dict = {}
        missing_labels = 0
        try:
            for v in self.labels:
                if v is None:
                    missing_labels += 1
                else:
                    counts[v] = counts.get(v, 0) + 1
        except TypeError as exc:
            raise BaccError(f"labels must be hashable: {exc}") from None
        # one key per label and kind: True and 1 are one dict key, but not one kind of label
        kinds: dict = {}
        for v in self.labels:
            if v is not None:
                kinds.setdefault(label_kind(v), v)
        check_one_kind(kinds.values(), f"{self.where}: the labels of column {self.spec.true!r} (true=)")
        miss = {c: int(np.isnan(s).sum()) for c, s in self.scores.items()}
        inf = {c: int(np.isinf(s).sum()) for c, s in self.scores.items()}
        none = dict.fromkeys(self.spec.scores)
        return _Survey(list(counts.items()), missing_labels, miss, inf, dict(none), dict(none))

    def count(self, col: str, index: int, positive_labels: list, m, survey):
        chosen = set(positive_labels)
        is_pos = np.fromiter((v in chosen for v in self.labels), dtype=bool, count=len(self.labels))
        return (*_from_groups(self.scores[col], is_pos, np.ones(is_pos.size, np.int64)), False)
