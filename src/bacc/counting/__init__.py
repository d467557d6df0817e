"""Counting where the data lives: confusion matrices from files, DataFrames and Spark tables.

Only counts matter to the statistics, so the heavy part, one ``GROUP BY group, true, pred``
over every prediction, runs inside a data engine and only the counts (a few rows per group)
come back to Python:

- a path, a glob, a directory or a list of CSV / Parquet / JSON-lines files is counted by
  DuckDB, out of core (a data set larger than memory works);
- a DataFrame or lazy frame of pandas, polars, pyarrow, DuckDB, PySpark (and anything else
  narwhals wraps: modin, cuDF, Ibis, SQLFrame) is counted by its own engine through narwhals;
  a Dask DataFrame through Dask's own ``groupby``;
- a mapping of columns (``{"true": [...], "pred": [...]}``) is counted in Python.

No engine is imported until it is needed; a missing one raises
:class:`bacc.MissingDependencyError` naming the extra that installs it
(``pip install "bacc[data]"``).

The modules:

* :mod:`.tally`: what is counted (:class:`.tally.Spec`) and what every engine hands back
  (:class:`.tally.Tally`, aggregated rows of counts).
* :mod:`.files`: files counted by DuckDB (CSV, Parquet, JSON lines), out of core.
* :mod:`.frames`: DataFrames and lazy frames counted by their own engine (narwhals, Dask).
* :mod:`.columns`: a mapping of columns, or the rows of a long table of counts, counted in
  Python.
* :mod:`.scores`: positives and negatives at each distinct score (or bin) of one or more
  score columns, counted by the same engines: what ROC curves and thresholds are made of.
* :mod:`.score_tables`: :func:`bacc.scores`, from label and score arrays or from a table or
  files tallied by :mod:`.scores`.
* :mod:`.windows`: counts per time window and group inside the data engine (the query behind
  :func:`bacc.monitor`).
* :mod:`.assemble`: the aggregated rows of any engine turned into a
  :class:`bacc.ConfusionMatrix` or grouped counts, by the same rules for all.
* :mod:`.grouped`: :class:`GroupedCounts`, one confusion matrix per group over shared classes.
* :mod:`.joint`: several classifiers' predictions of the same examples counted jointly (the
  tuples of true and predicted classes a paired comparison or ranking needs).
* :mod:`.across_tables`: :func:`bacc.compare_across` and :func:`bacc.rank_across` of a table
  of predictions with a data-set column (paired within each data set).
* :mod:`.tables`: :func:`bacc.evaluate`, :func:`bacc.compare` and :func:`bacc.rank` of a table
  of predictions (``true=``, ``pred=``, ``by=``), counted here and handed to the numerics.

Conventions (checked at this boundary, for every engine alike)
    Missing labels (null, NaN, an empty CSV field) are an error by default, naming how many
    examples have one and in which column; ``nulls="drop"`` leaves those examples out, warns
    with the number and reports it (``GroupedCounts.n_dropped``). A missing group value counts
    as a missing value. The true and predicted columns must hold labels of one type: text,
    numbers or booleans; float labels that are all whole numbers (a pandas integer column with
    missing values is float) become ints. Labels read from CSV are text (``"0"``, ``"1"``),
    ordered numerically when they all look like integers, as :mod:`bacc.readers` reads
    them. Every group gets the same classes (every label seen anywhere, or ``labels=``): a
    class a group never saw has zero counts there, so that group's balanced accuracy leaves
    it out (see :func:`bacc.evaluate_many`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..confusion import ConfusionMatrix
from ..errors import BaccError
from .assemble import assemble
from .columns import is_row_sequence, rows_to_columns, tally_columns
from .files import is_file_source, tally_files
from .frames import tally_frame
from .grouped import GroupedCounts
from .tally import Spec, Tally

__all__ = ["GroupedCounts", "counts", "counts_from_long"]


def counts(
    source: Any,
    *,
    true: str,
    pred: str | Sequence[str],
    by: str | Sequence[str] | None = None,
    labels: Sequence | None = None,
    nulls: str = "error",
    count: str | None = None,
    sep: str | None = None,
    progress: bool = True,
    memory_limit: str | None = None,
) -> ConfusionMatrix | GroupedCounts | dict:
    """Count (true, predicted) pairs, per group, inside the engine that holds the data.

    Parameters
    ----------
    source : path, glob, directory, list of paths, DataFrame, lazy frame or mapping
        - ``str`` / ``os.PathLike``: a CSV (``.csv``, ``.tsv``, ``.txt``), Parquet
          (``.parquet``, ``.pq``) or JSON-lines (``.jsonl``, ``.ndjson``, ``.json``; also one
          array of objects) file, maybe compressed (``.gz``, ``.zst``); a glob (``"preds/*.parquet"``, ``"**"`` recurses); a
          directory (every Parquet file under it, Hive partitions such as ``detector=a/``
          becoming columns; else every CSV, else every JSON-lines file); or a list of such
          paths. Counted by DuckDB out of core (``pip install duckdb``).
        - A DataFrame or lazy frame of pandas, polars, pyarrow (``Table``), DuckDB (relation),
          PySpark, Dask, or any other engine that narwhals wraps: counted by that engine
          (``pip install narwhals``; Dask uses its own API).
        - A mapping of column name to sequence: counted in Python (small data).
    true : str
        Column of the true class.
    pred : str or sequence of str
        Column of the predicted class, or several (one per classifier scored on the same
        examples, as ``--pred`` repeated on the command line): the result is then a dict
        ``{column: result}`` in the order given, every result over the same classes.
    by : str or sequence of str, optional
        Column(s) that split the examples into groups (detectors, models, folds). Without it,
        one confusion matrix is returned.
    labels : sequence, optional
        The classes, in order. Classes never seen get zero counts; a label outside ``labels``
        is an error. Default: every label seen in ``true`` or ``pred``, in natural order.
        Labels from CSV files are text; non-text ``labels`` are matched to them by ``str``.
    nulls : {"error", "drop"}
        What to do with examples whose label (or group value) is missing: refuse with their
        number (default), or leave them out, warn with their number (:class:`BaccWarning`) and
        report it as ``n_dropped``.
    count : str, optional
        Column holding how many examples each row stands for (a long table of counts, as
        :func:`counts_from_long` reads); its values must be whole numbers >= 0.
    sep : str, optional
        Field separator of CSV files (default: detected).
    progress : bool
        Draw a progress bar on standard error while DuckDB counts files, when standard error
        is a terminal and the job takes more than half a second (default ``True``).
    memory_limit : str, optional
        Most memory DuckDB may use when counting files, e.g. ``"500MB"`` or ``"4GB"``
        (default: DuckDB's, 80 % of the machine's memory). The count streams through the files,
        so they may be far larger than this (tests count a file larger than the limit).

    Returns
    -------
    ConfusionMatrix or GroupedCounts or dict
        A :class:`bacc.ConfusionMatrix` (rows = true class) without ``by``; with ``by``, a
        :class:`GroupedCounts` mapping each group to its matrix over the shared ``labels``;
        for several ``pred`` columns, a dict of these keyed by column.

    Raises
    ------
    BaccError
        A missing column (named, with the columns available), missing labels with
        ``nulls="error"``, true and predicted labels of different types, a label outside
        ``labels``, no examples, or an unreadable file.
    MissingDependencyError
        DuckDB (for files) or narwhals (for DataFrames) is not installed; the message names
        the extra, ``pip install "bacc[data]"``.

    See Also
    --------
    counts_from_long : the same from a table of counts.
    bacc.evaluate_many : evaluate every group at once.
    bacc.ConfusionMatrix.from_predictions : count two Python sequences.

    Notes
    -----
    Whatever the engine, the query is one aggregation, ``SELECT by, true, pred, COUNT(*)
    ... GROUP BY by, true, pred`` (``SUM(count)`` with ``count=``), that keeps missing values
    as groups of their own, so missing labels are counted in the same single pass. Memory use
    is that of the engine's aggregation: a few rows per group.

    Examples
    --------
    >>> import bacc
    >>> data = {"y": ["cat", "dog", "dog", "cat"], "yhat": ["cat", "dog", "cat", "cat"]}
    >>> bacc.counts(data, true="y", pred="yhat")
    ConfusionMatrix([[2, 0], [1, 1]], labels=['cat', 'dog'])

    With pandas (any engine alike), per group:

    >>> import pandas as pd                                      # doctest: +SKIP
    >>> df = pd.read_parquet("predictions.parquet")              # doctest: +SKIP
    >>> gc = bacc.counts(df, true="label", pred="predicted", by="detector")  # doctest: +SKIP
    >>> bacc.counts("predictions/*.parquet", true="label", pred="predicted",
    ...             by="detector")                               # doctest: +SKIP
    """
    if nulls not in ("error", "drop"):
        raise BaccError(f"nulls must be 'error' or 'drop', got {nulls!r}")
    if not isinstance(pred, str) and isinstance(pred, Sequence):
        return _several(source, true=true, preds=list(pred), by=by, labels=labels, nulls=nulls,
                        count=count, sep=sep, progress=progress, memory_limit=memory_limit)
    spec = Spec.make(true, pred, by, count)
    tally = _tally(source, spec, sep=sep, progress=progress, memory_limit=memory_limit)
    return assemble(tally, spec, labels=labels, nulls=nulls)


def _several(source, *, true, preds, labels, **kw) -> dict:
    """``counts`` of several prediction columns, over one set of classes."""
    if not preds:
        raise BaccError("pred: give a column name, or a list of one or more column names")
    bad = [p for p in preds if not isinstance(p, str)]
    if bad:
        raise BaccError(f"pred: column names must be text, got {bad[0]!r}")
    if len(set(preds)) != len(preds):
        raise BaccError(f"pred: a column is named twice in {preds!r}")
    out = {p: counts(source, true=true, pred=p, labels=labels, **kw) for p in preds}
    if labels is None:
        seen = {tuple(r.labels) for r in out.values()}
        if len(seen) > 1:
            # the columns saw different labels: count again over every class seen by any, so
            # that the classifiers are comparable (a class one never predicted has zeros)
            from ..confusion import label_order

            union = label_order([x for labs in seen for x in labs])
            out = {p: counts(source, true=true, pred=p, labels=union, **kw) for p in preds}
    return out


def counts_from_long(
    table: Any,
    *,
    true: str = "true",
    pred: str = "pred",
    count: str = "count",
    by: str | Sequence[str] | None = "group",
    labels: Sequence | None = None,
    nulls: str = "error",
    sep: str | None = None,
    progress: bool = True,
) -> ConfusionMatrix | GroupedCounts:
    """Confusion matrices from a long table of counts: one row per (group, true, pred, count).

    Rows with the same group, true and predicted label are added up; cells without a row are
    0. This is the form in which a service stores its tallies, and the form of
    :meth:`GroupedCounts.to_long`.

    Parameters
    ----------
    table : path, DataFrame, lazy frame, mapping of columns, or sequence of rows
        Anything :func:`counts` reads, or a sequence of tuples ``(group, true, pred, count)``
        (``(true, pred, count)`` when ``by=None``).
    true, pred, count : str
        Columns of the true class, the predicted class and the number of examples.
    by : str or sequence of str or None
        Group column(s) (default ``"group"``); ``None`` for one confusion matrix.
    labels, nulls, sep, progress
        As in :func:`counts`. With ``nulls="drop"``, ``n_dropped`` counts examples (the sum of
        the dropped rows' counts). A missing count is always an error. A group whose counts
        are all 0 is kept (it is what the table says), and :func:`bacc.evaluate_many` refuses
        it as a group without examples.

    Returns
    -------
    ConfusionMatrix or GroupedCounts

    Examples
    --------
    >>> import bacc
    >>> rows = [("a", 0, 0, 40), ("a", 0, 1, 2), ("a", 1, 1, 9), ("b", 1, 1, 5)]
    >>> gc = bacc.counts_from_long(rows)
    >>> gc["a"].counts.tolist(), gc["b"].counts.tolist()
    ([[40, 2], [0, 9]], [[0, 0], [0, 5]])
    """
    if is_row_sequence(table):
        spec = Spec.make(true, pred, by, count)
        names = [*spec.by, spec.true, spec.pred, count]
        table = rows_to_columns(table, names)
    return counts(
        table, true=true, pred=pred, by=by, labels=labels, nulls=nulls, count=count, sep=sep,
        progress=progress,
    )


def _tally(
    source: Any, spec: Spec, *, sep: str | None, progress: bool, memory_limit: str | None = None
) -> Tally:
    """The aggregated rows of ``source``, from the engine that holds it."""
    if is_file_source(source):
        return tally_files(source, spec, sep=sep, progress=progress, memory_limit=memory_limit)
    if isinstance(source, Mapping):
        return tally_columns(source, spec)
    if isinstance(source, list | tuple):
        raise BaccError(
            "a list is read as file paths; for a table of counts use counts_from_long(rows), "
            "for labels use ConfusionMatrix.from_predictions(y_true, y_pred)"
        )
    return tally_frame(source, spec)
