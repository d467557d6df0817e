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

No engine is imported until it is needed; a missing one raises :class:`bacc.BaccError` that
says what to ``pip install``.

Conventions (checked at this boundary, for every engine alike)
    Missing labels (null, NaN, an empty CSV field) are an error by default, naming how many
    examples have one and in which column; ``nulls="drop"`` leaves those examples out, warns
    with the number and reports it (``GroupedCounts.n_dropped``). A missing group value counts
    as a missing value. The true and predicted columns must hold labels of one type: text,
    numbers or booleans; float labels that are all whole numbers (a pandas integer column with
    missing values is float) become ints. Labels read from CSV are text (``"0"``, ``"1"``),
    ordered numerically when they all look like integers, as :mod:`bacc.io` reads them. Every
    group gets the same classes (every label seen anywhere, or ``labels=``): a class a group
    never saw has zero counts there, so that group's balanced accuracy leaves it out (see
    :func:`bacc.evaluate_many`).
"""

from __future__ import annotations

import glob
import math
import numbers
import os
import threading
import warnings
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._engine.convert import jsonable
from ..confusion import ConfusionMatrix
from ..errors import BaccError, BaccWarning

__all__ = ["GroupedCounts", "counts", "counts_from_long"]

_MAX_CELLS = 200_000_000  # groups x classes x classes kept in memory (1.6 GB of int64)
_MAX_TOTAL = 2**62
_N, _NEG, _FRAC, _NULLC = "__bacc_n", "__bacc_neg", "__bacc_frac", "__bacc_nullc"

_FILE_FORMATS = {
    ".parquet": "parquet",
    ".parq": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "csv",
    ".tab": "csv",
    ".txt": "csv",
    ".jsonl": "json",
    ".ndjson": "json",
    ".json": "json",
}
_COMPRESSED = {".gz", ".zst", ".zstd"}

# engine module -> (name shown to users, what to pip install)
_ENGINES = {
    "pandas": ("pandas", "pandas"),
    "polars": ("polars", "polars"),
    "pyarrow": ("pyarrow", "pyarrow"),
    "duckdb": ("DuckDB", "duckdb"),
    "dask": ("Dask", "dask[dataframe]"),
    "pyspark": ("PySpark", "pyspark"),
    "modin": ("modin", "modin"),
    "cudf": ("cuDF", "cudf"),
    "ibis": ("Ibis", "ibis-framework"),
    "sqlframe": ("SQLFrame", "sqlframe"),
    "narwhals": ("narwhals", "narwhals"),
}


# ----------------------------------------------------------------------------------------------
# result
@dataclass(frozen=True, eq=False)
class GroupedCounts(Mapping):
    """One confusion matrix per group, all over the same classes.

    A read-only mapping ``group -> ConfusionMatrix`` (groups in natural order) backed by one
    array; :func:`bacc.evaluate_many` takes it as it is.

    Attributes
    ----------
    counts : ndarray of int64, shape (G, l, l)
        ``counts[g, i, j]``: examples of group ``groups[g]`` whose true class is ``labels[i]``
        and predicted class is ``labels[j]``. Read-only.
    groups : tuple
        Group values (a tuple of values per group when grouped by several columns).
    labels : tuple
        Classes shared by every group; a class a group never saw has zero counts there.
    by : tuple of str
        The grouping column(s).
    n_dropped : int
        Examples left out because a label or group value was missing (``nulls="drop"``).

    Examples
    --------
    >>> import bacc
    >>> data = {"det": ["a", "a", "b", "b"], "y": [1, 0, 1, 1], "yhat": [1, 1, 0, 1]}
    >>> gc = bacc.counts(data, true="y", pred="yhat", by="det")
    >>> gc.groups, gc.labels, gc.counts.shape
    (('a', 'b'), (0, 1), (2, 2, 2))
    >>> gc["b"].counts.tolist()
    [[0, 0], [1, 1]]
    """

    counts: np.ndarray
    groups: tuple
    labels: tuple
    by: tuple = ()
    n_dropped: int = 0
    _index: dict = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        raw = np.asarray(self.counts)
        if raw.dtype.kind not in "biuf":
            raise BaccError(f"counts must be numbers, got dtype {raw.dtype}")
        if raw.dtype.kind == "f" and not np.all(np.isfinite(raw) & (raw == np.round(raw))):
            raise BaccError("counts must be whole numbers")
        arr = np.array(raw, dtype=np.int64)
        if arr.ndim != 3 or arr.shape[1] != arr.shape[2]:
            raise BaccError(f"counts must have shape (groups, classes, classes), got {arr.shape}")
        if np.any(arr < 0):
            raise BaccError("counts must be >= 0")
        groups, labels = tuple(self.groups), tuple(self.labels)
        if len(groups) != arr.shape[0] or len(labels) != arr.shape[1]:
            raise BaccError(
                f"{len(groups)} groups and {len(labels)} labels do not fit counts of shape {arr.shape}"
            )
        index = {g: i for i, g in enumerate(groups)}
        if len(index) != len(groups):
            raise BaccError("group values must be distinct")
        if len(set(labels)) != len(labels):
            raise BaccError("labels must be distinct")
        arr.setflags(write=False)
        by = (self.by,) if isinstance(self.by, str) else tuple(self.by)
        object.__setattr__(self, "counts", arr)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "by", by)
        object.__setattr__(self, "n_dropped", int(self.n_dropped))
        object.__setattr__(self, "_index", index)

    # -- mapping ------------------------------------------------------------------------------
    def __getitem__(self, group: Hashable) -> ConfusionMatrix:
        try:
            g = self._index[group]
        except (KeyError, TypeError):
            raise KeyError(group) from None
        return ConfusionMatrix(self.counts[g], self.labels)

    def __iter__(self) -> Iterator:
        return iter(self.groups)

    def __len__(self) -> int:
        return len(self.groups)

    def __contains__(self, group: object) -> bool:
        try:
            return group in self._index
        except TypeError:
            return False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GroupedCounts):
            return NotImplemented
        return (
            self.groups == other.groups
            and self.labels == other.labels
            and np.array_equal(self.counts, other.counts)
        )

    __hash__ = None  # type: ignore[assignment]

    # -- derived quantities -------------------------------------------------------------------
    @property
    def n_groups(self) -> int:
        """Number of groups ``G``."""
        return self.counts.shape[0]

    @property
    def n_classes(self) -> int:
        """Number of classes ``l``."""
        return self.counts.shape[1]

    @property
    def support(self) -> np.ndarray:
        """Examples per group and true class, shape (G, l) (``n_i`` of each group)."""
        return self.counts.sum(axis=2)

    @property
    def correct(self) -> np.ndarray:
        """Correct predictions per group and true class, shape (G, l) (``k_i``)."""
        return np.einsum("gii->gi", self.counts).copy()

    @property
    def total(self) -> np.ndarray:
        """Examples per group, shape (G,)."""
        return self.counts.sum(axis=(1, 2))

    def pooled(self) -> ConfusionMatrix:
        """One confusion matrix of all groups together (their sum)."""
        return ConfusionMatrix(self.counts.sum(axis=0), self.labels)

    def to_long(self, *, zeros: bool = False) -> dict[str, list]:
        """A long table as a dict of columns: group column(s), ``true``, ``pred``, ``count``.

        Any DataFrame constructor takes it (``pandas.DataFrame(gc.to_long())``), and
        :func:`counts_from_long` reads it back.

        Parameters
        ----------
        zeros : bool
            Keep the cells whose count is 0 (default: leave them out).
        """
        names = list(self.by) if self.by else ["group"]
        out: dict[str, list] = {name: [] for name in names}
        for extra in ("true", "pred", "count"):
            if extra in out:
                raise BaccError(f"the group column is named {extra!r}, which to_long uses for counts")
            out[extra] = []
        for g, name in enumerate(self.groups):
            values = tuple(name) if len(names) > 1 else (name,)
            for i, t in enumerate(self.labels):
                for j, p in enumerate(self.labels):
                    c = int(self.counts[g, i, j])
                    if c == 0 and not zeros:
                        continue
                    for col, v in zip(names, values, strict=True):
                        out[col].append(v)
                    out["true"].append(t)
                    out["pred"].append(p)
                    out["count"].append(c)
        return out

    def to_dict(self) -> dict:
        """Plain JSON-able dict: grouping columns, labels, dropped examples, one matrix per group."""
        return {
            "by": list(self.by),
            "labels": [jsonable(x) for x in self.labels],
            "n_dropped": self.n_dropped,
            "groups": [
                {"group": jsonable(g) if not isinstance(g, tuple) else [jsonable(v) for v in g],
                 "counts": self.counts[i].tolist()}
                for i, g in enumerate(self.groups)
            ],
        }

    def __repr__(self) -> str:
        shown = ", ".join(repr(g) for g in self.groups[:3]) + (", ..." if len(self.groups) > 3 else "")
        return (
            f"GroupedCounts({self.n_groups} groups [{shown}], labels={list(self.labels)!r}, "
            f"n_dropped={self.n_dropped})"
        )


# ----------------------------------------------------------------------------------------------
# public functions
def counts(
    source: Any,
    *,
    true: str,
    pred: str,
    by: str | Sequence[str] | None = None,
    labels: Sequence | None = None,
    nulls: str = "error",
    count: str | None = None,
    sep: str | None = None,
    progress: bool = True,
    memory_limit: str | None = None,
) -> ConfusionMatrix | GroupedCounts:
    """Count (true, predicted) pairs, per group, inside the engine that holds the data.

    Parameters
    ----------
    source : path, glob, directory, list of paths, DataFrame, lazy frame or mapping
        - ``str`` / ``os.PathLike``: a CSV (``.csv``, ``.tsv``, ``.txt``), Parquet
          (``.parquet``, ``.pq``) or JSON-lines (``.jsonl``, ``.ndjson``, ``.json``) file, maybe
          compressed (``.gz``, ``.zst``); a glob (``"preds/*.parquet"``, ``"**"`` recurses); a
          directory (every Parquet file under it, Hive partitions such as ``detector=a/``
          becoming columns; else every CSV, else every JSON-lines file); or a list of such
          paths. Counted by DuckDB out of core (``pip install duckdb``).
        - A DataFrame or lazy frame of pandas, polars, pyarrow (``Table``), DuckDB (relation),
          PySpark, Dask, or any other engine that narwhals wraps: counted by that engine
          (``pip install narwhals``; Dask uses its own API).
        - A mapping of column name to sequence: counted in Python (small data).
    true, pred : str
        Columns of the true and of the predicted class.
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
    ConfusionMatrix or GroupedCounts
        A :class:`bacc.ConfusionMatrix` (rows = true class) without ``by``; with ``by``, a
        :class:`GroupedCounts` mapping each group to its matrix over the shared ``labels``.

    Raises
    ------
    BaccError
        A missing column (named, with the columns available), missing labels with
        ``nulls="error"``, true and predicted labels of different types, a label outside
        ``labels``, no examples, an unreadable file, or a missing engine (naming what to
        install).

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
    spec = _Spec.make(true, pred, by, count)
    if nulls not in ("error", "drop"):
        raise BaccError(f"nulls must be 'error' or 'drop', got {nulls!r}")
    tally = _tally(source, spec, sep=sep, progress=progress, memory_limit=memory_limit)
    return _assemble(tally, spec, labels=labels, nulls=nulls)


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
    if _is_row_sequence(table):
        spec = _Spec.make(true, pred, by, count)
        names = [*spec.by, spec.true, spec.pred, count]
        table = _rows_to_columns(table, names)
    return counts(
        table, true=true, pred=pred, by=by, labels=labels, nulls=nulls, count=count, sep=sep,
        progress=progress,
    )


# ----------------------------------------------------------------------------------------------
# what is counted
@dataclass(frozen=True)
class _Spec:
    true: str
    pred: str
    by: tuple
    count: str | None

    @classmethod
    def make(cls, true, pred, by, count) -> _Spec:
        for name, value in (("true", true), ("pred", pred)):
            if not isinstance(value, str) or not value:
                raise BaccError(f"{name}= must name a column (a non-empty string), got {value!r}")
        if by is None:
            by_t: tuple = ()
        elif isinstance(by, str):
            by_t = (by,)
        else:
            try:
                by_t = tuple(by)
            except TypeError:
                raise BaccError(f"by= must name a column or a list of columns, got {by!r}") from None
            if not by_t:
                raise BaccError("by= is an empty list; give a column name, or None for no groups")
        for b in by_t:
            if not isinstance(b, str) or not b:
                raise BaccError(f"by= must name columns (non-empty strings), got {b!r}")
        if count is not None and (not isinstance(count, str) or not count):
            raise BaccError(f"count= must name a column, got {count!r}")
        named = [("true=", true), ("pred=", pred), *(("by=", b) for b in by_t)]
        if count is not None:
            named.append(("count=", count))
        seen: dict[str, str] = {}
        for opt, col in named:
            if col in seen:
                raise BaccError(f"{seen[col]} and {opt} name the same column {col!r}")
            seen[col] = opt
        return cls(true, pred, by_t, count)

    @property
    def keys(self) -> list[str]:
        """Grouping keys of the aggregation: group columns, then true, then pred."""
        return [*self.by, self.true, self.pred]

    @property
    def columns(self) -> list[str]:
        return self.keys + ([self.count] if self.count else [])

    def option(self, col: str) -> str:
        if col == self.true:
            return "true="
        if col == self.pred:
            return "pred="
        if col == self.count:
            return "count="
        return "by="


@dataclass
class _Tally:
    """Aggregated rows from an engine: ``(*by, true, pred, n[, n_neg, n_frac, n_nullcount])``."""

    rows: list
    where: str
    text_labels: bool = False


def _check_columns(available: Sequence[str], spec: _Spec, where: str) -> None:
    avail = [str(c) for c in available]
    missing = [c for c in spec.columns if c not in avail]
    if missing:
        what = ", ".join(f"{c!r} ({spec.option(c)})" for c in missing)
        shown = ", ".join(repr(c) for c in avail[:30]) + (", ..." if len(avail) > 30 else "")
        noun = "column" if len(missing) == 1 else "columns"
        raise BaccError(f"{where} has no {noun} {what}; available columns: {shown or '(none)'}")


def _tally(
    source: Any, spec: _Spec, *, sep: str | None, progress: bool, memory_limit: str | None = None
) -> _Tally:
    if isinstance(source, str | os.PathLike) or (
        isinstance(source, list | tuple)
        and source
        and all(isinstance(s, str | os.PathLike) for s in source)
    ):
        return _tally_files(source, spec, sep=sep, progress=progress, memory_limit=memory_limit)
    if isinstance(source, Mapping):
        return _tally_python(source, spec)
    module = type(source).__module__.split(".")[0]
    if module == "dask":
        return _tally_dask(source, spec)
    if module in _ENGINES:
        return _tally_narwhals(source, spec, module)
    if isinstance(source, list | tuple):
        raise BaccError(
            "a list is read as file paths; for a table of counts use counts_from_long(rows), "
            "for labels use ConfusionMatrix.from_predictions(y_true, y_pred)"
        )
    return _tally_narwhals(source, spec, module)


# ----------------------------------------------------------------------------------------------
# files: DuckDB
def _require(module: str, purpose: str, install: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise BaccError(f"{purpose} needs {module}, which is not installed: pip install {install}") from None


def _file_format(path: str) -> str | None:
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    return _FILE_FORMATS.get(suffixes[-1]) if suffixes else None


def _expand(paths: Sequence[str]) -> list[str]:
    files: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            found: list[str] = []
            for fmt in ("parquet", "csv", "json"):
                found = sorted(
                    f for f in glob.glob(os.path.join(glob.escape(p), "**", "*"), recursive=True)
                    if os.path.isfile(f) and _file_format(f) == fmt and not Path(f).name.startswith(("_", "."))
                )
                if found:
                    break
            if not found:
                raise BaccError(
                    f"directory {p} holds no data file ({', '.join(sorted(_FILE_FORMATS))})"
                )
            files.extend(found)
        elif glob.has_magic(p):
            found = sorted(f for f in glob.glob(p, recursive=True) if os.path.isfile(f))
            if not found:
                raise BaccError(f"no file matches {p}")
            files.extend(found)
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise BaccError(f"cannot read {p}: no such file or directory")
    return files


def _tally_files(
    source, spec: _Spec, *, sep: str | None, progress: bool, memory_limit: str | None = None
) -> _Tally:
    raw = [source] if isinstance(source, str | os.PathLike) else list(source)
    paths = [os.fspath(p) for p in raw]
    where = paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    files = _expand(paths)
    formats = {_file_format(f) for f in files}
    if None in formats:
        odd = next(f for f in files if _file_format(f) is None)
        raise BaccError(
            f"cannot tell the format of {odd} from its name; name files .csv, .tsv, .parquet or .jsonl"
        )
    if len(formats) > 1:
        raise BaccError(f"{where}: files of different formats ({', '.join(sorted(formats))}); count them apart")
    fmt = formats.pop()
    duckdb = _require("duckdb", "counting files", "duckdb")
    if memory_limit is None:
        con = duckdb.connect()
    else:
        try:
            con = duckdb.connect(config={"memory_limit": str(memory_limit)})
        except duckdb.Error as exc:
            raise BaccError(f"memory_limit={memory_limit!r}: {_first_line(exc)}") from None
    try:
        params: list = [files]
        if fmt == "parquet":
            reader = "read_parquet(?, union_by_name = true)"
        elif fmt == "json":
            reader = "read_json_auto(?, format = 'newline_delimited', union_by_name = true)"
        else:
            reader = "read_csv(?, header = true, union_by_name = true"
            if sep is not None:
                reader += ", delim = ?"
                params.append(sep)
            reader += ")"
        try:
            schema = con.execute(f"DESCRIBE SELECT * FROM {reader}", params).fetchall()
        except duckdb.Error as exc:
            raise BaccError(f"cannot read {where}: {_first_line(exc)}") from None
        if fmt == "csv":
            # labels and groups are read as text, as bacc.io reads CSV: the sniffer would turn
            # "yes"/"no" into booleans and "007" into 7, and could type the two label columns apart
            _check_columns([row[0] for row in schema], spec, where)
            reader = reader[:-1] + ", types = ?)"
            params.append({c: "VARCHAR" for c in spec.keys})
        types = {row[0]: str(row[1]).upper() for row in schema}
        _check_columns(list(types), spec, where)
        keys = ", ".join(_quote(c) for c in spec.keys)
        if spec.count is None:
            aggs = "COUNT(*)"
        else:
            ctype = types[spec.count]
            c = _quote(spec.count)
            if not _is_sql_number(ctype):
                raise BaccError(
                    f"{where}: column {spec.count!r} (count=) holds {ctype}, not numbers of examples"
                )
            floating = ctype in ("FLOAT", "DOUBLE", "REAL", "FLOAT4", "FLOAT8")
            nan = f" OR isnan({c})" if floating else ""
            inf = f"isinf({c}) OR " if floating else ""
            aggs = (
                f"SUM({c}), COUNT_IF({c} < 0), COUNT_IF({inf}{c} <> floor({c})), "
                f"COUNT_IF({c} IS NULL{nan})"
            )
        sql = f"SELECT {keys}, {aggs} FROM {reader} GROUP BY {keys}"
        try:
            label = f"counting {Path(files[0]).name}" if len(files) == 1 else f"counting {len(files)} files"
            rows = _run_with_progress(con, sql, params, progress, label)
        except duckdb.Error as exc:
            raise BaccError(f"cannot count {where}: {_first_line(exc)}") from None
    finally:
        con.close()
    return _Tally(rows, where, text_labels=(fmt == "csv"))


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _is_sql_number(t: str) -> bool:
    base = t.split("(")[0].strip()
    return base in {
        "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
        "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC",
        "INT", "INT1", "INT2", "INT4", "INT8", "FLOAT4", "FLOAT8",
    }


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _run_with_progress(con, sql: str, params: list, progress: bool, label: str) -> list:
    """Run ``sql`` on ``con``; on a terminal, draw DuckDB's own progress estimate meanwhile."""
    from ..progress import Progress

    bar = Progress(100.0, label, enabled=progress)
    if not bar.on:
        # DuckDB would otherwise print its own bar on standard output for long queries,
        # into whatever the caller writes there (JSON, CSV)
        con.execute("SET enable_progress_bar = false")
        return con.execute(sql, params).fetchall()
    con.execute("SET enable_progress_bar = true")
    con.execute("SET enable_progress_bar_print = false")
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["rows"] = con.execute(sql, params).fetchall()
        except BaseException as exc:  # handed to the calling thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="bacc-count", daemon=True)
    worker.start()
    try:
        with bar:
            while worker.is_alive():
                worker.join(0.1)
                done = con.query_progress()
                if done >= 0:
                    bar.update(done)
    except KeyboardInterrupt:
        con.interrupt()
        worker.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["rows"]


# ----------------------------------------------------------------------------------------------
# DataFrames: narwhals (pandas, polars, pyarrow, DuckDB, PySpark, ...) and Dask
def _engine_label(module: str) -> str:
    return _ENGINES.get(module, (module, module))[0]


def _tally_narwhals(source, spec: _Spec, module: str) -> _Tally:
    name = _engine_label(module)
    kind = "relation" if type(source).__name__ == "DuckDBPyRelation" else type(source).__name__
    where = f"the {name} {kind}"
    try:
        import narwhals.stable.v2 as nw
    except ImportError:
        try:
            import narwhals as nw
        except ImportError:
            if module in _ENGINES:
                raise BaccError(
                    f"counting a {name} {type(source).__name__} needs narwhals, which is not "
                    "installed: pip install narwhals"
                ) from None
            raise BaccError(_unknown_source(source)) from None
    try:
        frame = nw.from_native(source)
    except TypeError:
        raise BaccError(_unknown_source(source)) from None
    if not isinstance(frame, nw.DataFrame | nw.LazyFrame):
        raise BaccError(f"{where} is not a table (a Series?); give a DataFrame with named columns")
    schema = frame.collect_schema()
    _check_columns(list(schema.names()), spec, where)
    frame = frame.select(spec.columns)
    if spec.count is None:
        aggs = [nw.len().alias(_N)]
    else:
        # helper columns first: group_by aggregates only plain columns on every backend
        dtype = schema[spec.count]
        if not dtype.is_numeric():
            raise BaccError(f"{where}: column {spec.count!r} (count=) holds {dtype}, not numbers of examples")
        c = nw.col(spec.count)
        int64 = nw.Int64()
        if dtype.is_float():
            frac = ((c != c.floor()) | (c.abs() == math.inf)).fill_null(False)
            nullc = c.is_null() | c.is_nan().fill_null(False)
        else:
            frac = c.is_null() & ~c.is_null()
            nullc = c.is_null()
        frame = frame.with_columns(
            (c < 0).fill_null(False).cast(int64).alias(_NEG),
            frac.cast(int64).alias(_FRAC),
            nullc.cast(int64).alias(_NULLC),
        )
        aggs = [nw.col(spec.count).sum().alias(_N), *(nw.col(x).sum() for x in (_NEG, _FRAC, _NULLC))]
    try:
        grouped = frame.group_by(spec.keys, drop_null_keys=False).agg(*aggs)
        rows = _fetch(grouped, nw)
    except BaccError:
        raise
    except Exception as exc:  # engines raise their own error types
        raise BaccError(f"{name} could not count {where}: {_first_line(exc)}") from None
    return _Tally(rows, where)


def _fetch(grouped, nw) -> list:
    """Rows of a (small) aggregated frame as Python tuples, fetched natively where possible."""
    if isinstance(grouped, nw.DataFrame):
        return list(grouped.rows())
    native = grouped.to_native()
    impl = grouped.implementation
    if impl is nw.Implementation.DUCKDB:
        return native.fetchall()
    if impl in (nw.Implementation.PYSPARK, nw.Implementation.PYSPARK_CONNECT, nw.Implementation.SQLFRAME):
        return [tuple(r) for r in native.collect()]
    if impl is nw.Implementation.POLARS:
        return native.collect().rows()
    return list(grouped.collect().rows())


def _tally_dask(source, spec: _Spec) -> _Tally:
    # Dask through its own groupby: narwhals is moving Dask support to a separate plugin.
    where = f"the Dask {type(source).__name__}"
    cols = getattr(source, "columns", None)
    if cols is None:
        raise BaccError(f"{where} is not a table (a Series?); give a DataFrame with named columns")
    _check_columns(list(cols), spec, where)
    keys = spec.keys
    try:
        df = source[spec.columns]
        if spec.count is None:
            ser = df.groupby(keys, dropna=False, observed=True).size().compute()
            rows = [(*_as_tuple(k), v) for k, v in ser.items()]
        else:
            dtype = df[spec.count].dtype
            if dtype.kind not in "iuf":
                raise BaccError(f"{where}: column {spec.count!r} (count=) holds {dtype}, not numbers of examples")
            c = df[spec.count]
            df = df.assign(
                **{
                    _NEG: (c < 0).astype("int64"),
                    _FRAC: ((c != c.floordiv(1)) & ~c.isna()).astype("int64")
                    if dtype.kind == "f"
                    else (c < c).astype("int64"),
                    _NULLC: c.isna().astype("int64"),
                }
            )
            agg = df.groupby(keys, dropna=False, observed=True)[[spec.count, _NEG, _FRAC, _NULLC]].sum()
            pdf = agg.compute()
            rows = [(*_as_tuple(k), *vals) for k, vals in zip(pdf.index, pdf.itertuples(index=False, name=None), strict=True)]
    except BaccError:
        raise
    except Exception as exc:
        raise BaccError(f"Dask could not count {where}: {_first_line(exc)}") from None
    return _Tally(rows, where)


def _as_tuple(key) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def _unknown_source(source) -> str:
    return (
        f"cannot count a {type(source).__module__}.{type(source).__name__}: give a file path or "
        "glob, a DataFrame or lazy frame (pandas, polars, pyarrow, DuckDB, Dask, PySpark), or a "
        "mapping of column names to sequences"
    )


# ----------------------------------------------------------------------------------------------
# plain Python: a mapping of columns, or rows of a long table
def _is_row_sequence(table) -> bool:
    if isinstance(table, str | bytes | os.PathLike | Mapping) or not isinstance(table, Sequence):
        return False
    return bool(table) and isinstance(table[0], tuple | list)


def _rows_to_columns(rows: Sequence, names: list[str]) -> dict[str, list]:
    cols: dict[str, list] = {n: [] for n in names}
    for i, row in enumerate(rows):
        if not isinstance(row, tuple | list) or len(row) != len(names):
            raise BaccError(
                f"row {i} of the long table has {len(row) if isinstance(row, tuple | list) else 'no'} "
                f"fields; expected {len(names)}: ({', '.join(names)})"
            )
        for n, v in zip(names, row, strict=True):
            cols[n].append(v)
    return cols


def _tally_python(source: Mapping, spec: _Spec) -> _Tally:
    where = "the mapping of columns"
    _check_columns([str(k) for k in source], spec, where)
    cols = []
    for c in spec.columns:
        col = source[c]
        if isinstance(col, str | bytes):
            raise BaccError(f"column {c!r} must be a sequence of values, not a single string")
        try:
            cols.append(list(col))
        except TypeError:
            raise BaccError(f"column {c!r} must be a sequence of values, got {type(col).__name__}") from None
    lengths = {len(c) for c in cols}
    if len(lengths) > 1:
        shown = ", ".join(f"{n!r}: {len(c)}" for n, c in zip(spec.columns, cols, strict=True))
        raise BaccError(f"the columns have different lengths ({shown})")
    nk = len(spec.keys)
    keyed = zip(*(map(_clean_value, c) for c in cols[:nk]), strict=True)
    try:
        if spec.count is None:
            return _Tally([(*k, n) for k, n in Counter(keyed).items()], where)
        return _Tally(_sum_counts(keyed, cols[nk], spec), where)
    except TypeError as exc:
        raise BaccError(f"labels and group values must be hashable: {exc}") from None


def _sum_counts(keyed, values, spec: _Spec) -> list:
    acc: dict[tuple, list] = {}
    for k, v in zip(keyed, values, strict=True):
        cell = acc.setdefault(k, [0, 0, 0, 0])
        v = _clean_value(v)
        if v is None:
            cell[3] += 1
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise BaccError(f"column {spec.count!r} (count=) holds {v!r}, not a number of examples")
        if not math.isfinite(v) or v != math.floor(v):
            cell[2] += 1
            continue
        if v < 0:
            cell[1] += 1
        cell[0] += int(v)
    return [(*k, *cell) for k, cell in acc.items()]


# ----------------------------------------------------------------------------------------------
# from aggregated rows to matrices (the same for every engine)
def _clean_value(v):
    """A plain Python value; ``None`` for every kind of missing value (None, NaN, NA, NaT)."""
    if v is None:
        return None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return None if math.isnan(v) else v
    if type(v).__name__ in ("NAType", "NaTType", "NAType_"):
        return None
    try:
        if v != v:  # noqa: PLR0124 - NaN-like objects (Decimal('NaN'), ...)
            return None
    except (TypeError, ValueError):  # arrays and other odd objects: not missing
        return v
    return v


def _kind(v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, numbers.Integral):
        return "int"
    if isinstance(v, numbers.Real):
        return "float"
    return type(v).__name__


def _check_label_types(seen: dict[str, dict[str, Any]], spec: _Spec, where: str) -> None:
    """``seen[column][kind] = an example``; refuse labels of more than one type."""
    def family(k: str) -> str:
        return "number" if k in ("int", "float") else k

    families = {family(k) for per in seen.values() for k in per}
    if len(families) <= 1:
        return
    parts = []
    for col in (spec.true, spec.pred):
        kinds = seen.get(col, {})
        desc = " and ".join(f"{k} (e.g. {_short(v)})" for k, v in sorted(kinds.items()))
        parts.append(f"{col!r} ({spec.option(col)}) holds {desc or 'nothing'}")
    raise BaccError(
        f"{where}: the labels have mixed types: {'; '.join(parts)}. True and predicted labels "
        "must be of one type; cast the columns to one type (for example both to text)"
    )


def _short(v) -> str:
    s = repr(v)
    return s if len(s) <= 30 else s[:26] + "...'"


def _order(values: list) -> tuple:
    from ..readers import label_order

    return label_order(values)


def _assemble(tally: _Tally, spec: _Spec, *, labels, nulls: str) -> ConfusionMatrix | GroupedCounts:
    where = tally.where
    nb = len(spec.by)
    nk = nb + 2
    # count-column problems first: they are errors whatever `nulls` says
    if spec.count is not None:
        neg, frac, nullc = (sum(int(_clean_value(r[i]) or 0) for r in tally.rows) for i in (nk + 1, nk + 2, nk + 3))
        c = spec.count
        if nullc:
            raise BaccError(f"{where}: column {c!r} (count=) has {nullc} missing values; every row needs its count")
        if frac:
            raise BaccError(f"{where}: column {c!r} (count=) has {frac} values that are not whole numbers")
        if neg:
            raise BaccError(f"{where}: column {c!r} (count=) has {neg} negative values")
    kept: list[tuple] = []
    missing_by_col = dict.fromkeys(spec.keys, 0)
    n_missing = 0
    for r in tally.rows:
        key = tuple(_clean_value(v) for v in r[:nk])
        n = _clean_value(r[nk])
        n = 0 if n is None else int(n)
        if any(v is None for v in key):
            n_missing += n
            for col, v in zip(spec.keys, key, strict=True):
                if v is None:
                    missing_by_col[col] += n
            continue
        kept.append((key, n))
    if n_missing:
        detail = ", ".join(
            f"{m} in {col!r} ({spec.option(col)})" for col, m in missing_by_col.items() if m
        )
        if nulls == "error":
            raise BaccError(
                f"{where}: {n_missing} examples have a missing label or group ({detail}); "
                "pass nulls='drop' to leave them out (their number is reported)"
            )
        warnings.warn(
            f"{where}: left out {n_missing} examples with a missing label or group ({detail})",
            BaccWarning,
            stacklevel=3,
        )
    if not kept:
        raise BaccError(
            f"{where}: every example has a missing label or group; nothing to count"
            if n_missing
            else f"{where} has no examples to count"
        )
    # labels: one type, natural order (or the given order)
    seen: dict[str, dict[str, Any]] = {spec.true: {}, spec.pred: {}}
    for key, _ in kept:
        for col, v in ((spec.true, key[nb]), (spec.pred, key[nb + 1])):
            seen[col].setdefault(_kind(v), v)
    _check_label_types(seen, spec, where)
    kinds = {k for per in seen.values() for k in per}
    if "float" in kinds and all(
        float(key[i]).is_integer() for key, _ in kept for i in (nb, nb + 1) if isinstance(key[i], float)
    ):
        kept = [
            (key[:nb] + tuple(int(v) if isinstance(v, float) else v for v in key[nb:]), n)
            for key, n in kept
        ]
    if labels is None:
        labs = _order([key[i] for key, _ in kept for i in (nb, nb + 1)])
        lab_index = {lab: i for i, lab in enumerate(labs)}
    else:
        labs = _given_labels(labels)
        lab_index = {(str(lab) if tally.text_labels else lab): i for i, lab in enumerate(labs)}
        for key, _ in kept:
            for col, v in ((spec.true, key[nb]), (spec.pred, key[nb + 1])):
                if v not in lab_index:
                    shown = ", ".join(repr(x) for x in labs[:10]) + (", ..." if len(labs) > 10 else "")
                    raise BaccError(
                        f"{where}: column {col!r} ({spec.option(col)}) has the label {_short(v)}, "
                        f"which is not in labels ({shown})"
                    )
    # groups
    gkeys = [key[:nb] if nb > 1 else key[0] for key, _ in kept] if nb else []
    groups = _order(gkeys) if nb else (None,)
    g_index = {g: i for i, g in enumerate(groups)}
    G, ell = len(groups), len(labs)
    if G * ell * ell > _MAX_CELLS:
        raise BaccError(
            f"{where}: {G} groups x {ell} classes x {ell} classes is too many cells to hold; "
            f"do the columns {spec.true!r} and {spec.pred!r} hold class labels?"
        )
    total = sum(n for _, n in kept)
    if total >= _MAX_TOTAL:
        raise BaccError(f"{where}: the total count must be below {_MAX_TOTAL:.3g}")
    gi = np.fromiter((g_index[g] for g in gkeys) if nb else (0 for _ in kept), np.int64, len(kept))
    ti = np.fromiter((lab_index[key[nb]] for key, _ in kept), np.int64, len(kept))
    pi = np.fromiter((lab_index[key[nb + 1]] for key, _ in kept), np.int64, len(kept))
    nn = np.fromiter((n for _, n in kept), np.int64, len(kept))
    stack = np.zeros((G, ell, ell), dtype=np.int64)
    np.add.at(stack, (gi, ti, pi), nn)
    if not nb:
        if total == 0:
            raise BaccError(f"{where}: the counts add up to 0; there are no examples")
        return ConfusionMatrix(stack[0], labs)
    return GroupedCounts(stack, groups, labs, by=spec.by, n_dropped=n_missing)


def _given_labels(labels) -> tuple:
    if isinstance(labels, str | bytes):
        raise BaccError("labels must be a sequence of labels, not a single string")
    try:
        labs = tuple(labels)
    except TypeError:
        raise BaccError(f"labels must be a sequence of labels, got {labels!r}") from None
    if not labs:
        raise BaccError("labels is empty")
    for lab in labs:
        if not isinstance(lab, Hashable) or _clean_value(lab) is None:
            raise BaccError(f"labels must be hashable and not missing, got {lab!r}")
    if len(set(labs)) != len(labs):
        raise BaccError("labels must be distinct")
    return labs
