"""Reading files of examples and of confusion matrices into labels and counts.

Everything here turns text into labels and counts; no statistics are computed. Every problem
raises :class:`bacc.BaccError` with a one-line message that names the file, the line, the
column and the argument that named it (``true=``, ``pred=``, ``by=``, ``fold=``).

Prediction files (:func:`read_table`, :func:`read_predictions`)
    CSV (``.csv``), TSV (``.tsv``, ``.tab``), JSON lines (``.jsonl``, ``.ndjson``, or ``.json``
    holding one object per line or one array of objects), each optionally gzipped (``.gz``);
    ``-`` reads CSV from standard input. One row per example, a header row naming the columns.
    Parquet files and data larger than memory are counted by :func:`bacc.counts` instead.
A table of predictions where a confusion matrix was expected (:func:`predictions_message`)
    The one rule and the one message for it, in the library's terms (``true=COLUMN,
    pred=COLUMN``) and the command line's (``--true COLUMN --pred COLUMN``).
Confusion-matrix files (:func:`read_matrix_file`)
    CSV/TSV of counts, optionally with a header row of class labels and a first column of
    class labels; JSON holding a matrix (``[[42, 3], [6, 4]]``), ``{"labels": [...],
    "counts": [[...]]}`` (the form of :meth:`ConfusionMatrix.to_dict`), the JSON of an
    evaluation (``{"confusion_matrix": {...}, ...}``), or the matrices of cross-validation
    folds (``[[[...]], [[...]]]`` or ``{"folds": [...]}``), which are summed.
"""

from __future__ import annotations

import csv
import gzip
import io as _io
import json
import math
import os
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .confusion import ConfusionMatrix, check_label_values, label_order
from .errors import BaccError

__all__ = [
    "predictions_message",
    "table_columns",
    "MatrixData",
    "Predictions",
    "Table",
    "read_matrix_file",
    "read_predictions",
    "read_table",
]

_CSV_EXT = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}
_JSONL_EXT = {".jsonl", ".ndjson", ".json"}
_MAX_FIELD_SHOWN = 40
#: Binary formats: counted by bacc.counts (DuckDB), not read row by row.
_BINARY_EXT = {".parquet", ".pq", ".parq", ".feather", ".arrow", ".xlsx", ".xls"}

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


# ----------------------------------------------------------------------------------------------
# small helpers
def _short(value: object) -> str:
    """``repr`` of a value, cut to a readable length (messages stay one line)."""
    s = repr(value)
    return s if len(s) <= _MAX_FIELD_SHOWN else s[: _MAX_FIELD_SHOWN - 4] + "...'"


def _suffixes(path: str) -> tuple[str, bool]:
    """Lower-case data suffix of ``path`` and whether it is gzipped."""
    p = Path(path)
    suf = [s.lower() for s in p.suffixes]
    gz = bool(suf) and suf[-1] == ".gz"
    if gz:
        suf = suf[:-1]
    return (suf[-1] if suf else ""), gz


def _open_text(path: str):
    """Open ``path`` (``-`` = standard input) as text, or raise a one-line BaccError."""
    if path == "-":
        return _io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="")
    _, gz = _suffixes(path)
    try:
        if os.path.isdir(path):
            raise BaccError(f"cannot read {path}: it is a directory, not a file")
        if gz:
            return _io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
        return open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed by caller
    except OSError as exc:
        raise BaccError(f"cannot read {path}: {exc.strerror or exc}") from None


def _read_all(path: str) -> str:
    fh = _open_text(path)
    try:
        return fh.read()
    except UnicodeDecodeError as exc:
        raise BaccError(f"cannot read {path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise BaccError(f"cannot read {path}: {exc}") from None
    finally:
        if path != "-":
            fh.close()


def _is_number(text: str) -> bool:
    try:
        v = float(text)
    except ValueError:
        return False
    return math.isfinite(v)


# ----------------------------------------------------------------------------------------------
# tables of examples
@dataclass(frozen=True)
class Table:
    """Columns of a file read as text (CSV) or JSON values, with the file line of each row.

    Attributes
    ----------
    source : str
        File name as given.
    columns : tuple of str
        Column names, in file order.
    data : dict
        Column name to list of values, one per row.
    lines : tuple of int
        File line of each row (for messages).
    """

    source: str
    columns: tuple[str, ...]
    data: dict
    lines: tuple[int, ...]

    def column(self, name: str, *, argument: str | None = None) -> list:
        """Values of column ``name``, in file order.

        Parameters
        ----------
        name : str
            Column name.
        argument : str, optional
            The argument that named the column (``"true="``), for the message.

        Raises
        ------
        BaccError
            The table has no such column (the message lists the columns it has).
        """
        if name not in self.data:
            cols = ", ".join(self.columns[:20]) + (", ..." if len(self.columns) > 20 else "")
            given = f" (given by {argument})" if argument else ""
            raise BaccError(f"{self.source} has no column {name!r}{given}; its columns are: {cols}")
        return self.data[name]


#: Field separators recognised in a header row when none is given (DuckDB detects the same).
_SEPARATORS = (",", "\t", ";", "|")


def _sniff_separator(path: str, text: str) -> str:
    """The field separator of a CSV text: the extension's (``,`` for ``.csv``, tab for ``.tsv``)
    when the header row holds it, else the separator the header row holds most of (a ``.csv``
    file written with ``;`` by a spreadsheet in many locales), else ``,``."""
    ext, _ = _suffixes(path)
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    default = _CSV_EXT.get(ext)
    if default is not None and default in first:
        return default
    best = max(_SEPARATORS, key=first.count)
    if first.count(best):
        return best
    return default or ","


def _csv_table(path: str, text: str, sep: str | None) -> Table:
    delim = sep if sep is not None else _sniff_separator(path, text)
    if "\r" in text and "\n" not in text:
        # lines ended by a carriage return alone (old Mac text): read with universal newlines
        lines = _io.StringIO(text, newline=None)
    else:
        lines = _io.StringIO(text)
    reader = csv.reader(lines, delimiter=delim, strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    lines: list[int] = []
    try:
        for fields in reader:
            if not fields or all(not f.strip() for f in fields):
                continue
            if header is None:
                header = [f.strip() for f in fields]
                continue
            if len(fields) != len(header):
                raise BaccError(
                    f"{path}, line {reader.line_num}: expected {len(header)} fields like the header, "
                    f"found {len(fields)}"
                )
            rows.append([f.strip() for f in fields])
            lines.append(reader.line_num)
    except csv.Error as exc:
        raise BaccError(f"{path}, line {reader.line_num}: malformed CSV ({exc})") from None
    if header is None:
        raise BaccError(f"{path} is empty: expected a header row naming the columns")
    if not rows:
        raise BaccError(f"{path} has a header row but no examples")
    dup = {h for h in header if header.count(h) > 1}
    if dup:
        raise BaccError(f"{path}: the header names the column {sorted(dup)[0]!r} more than once")
    data = {h: [r[j] for r in rows] for j, h in enumerate(header)}
    return Table(path, tuple(header), data, tuple(lines))


def _json_records(path: str, text: str) -> Iterator[tuple[int, object]]:
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            arr = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BaccError(f"{path}, line {exc.lineno}: invalid JSON ({exc.msg})") from None
        for i, rec in enumerate(arr):
            yield i + 1, rec
        return
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise BaccError(f"{path}, line {n}: invalid JSON ({exc.msg})") from None


def _jsonl_table(path: str, text: str) -> Table:
    columns: dict[str, None] = {}
    records: list[dict] = []
    lines: list[int] = []
    for n, rec in _json_records(path, text):
        if not isinstance(rec, dict):
            raise BaccError(f"{path}, line {n}: expected a JSON object per example, got {type(rec).__name__}")
        records.append(rec)
        lines.append(n)
        for k in rec:
            columns.setdefault(k, None)
    if not records:
        raise BaccError(f"{path} is empty: expected one JSON object per example")
    data = {c: [r.get(c) for r in records] for c in columns}
    return Table(path, tuple(columns), data, tuple(lines))


def read_table(path: str, *, sep: str | None = None) -> Table:
    r"""Read a CSV / TSV / JSON-lines file of examples.

    Parameters
    ----------
    path : str
        File name; ``-`` reads CSV from standard input. ``.gz`` files are decompressed. A
        byte order mark is skipped; lines may end in ``\n``, ``\r\n`` or ``\r``; quoted fields
        may hold separators, quotes (doubled) and line breaks.
    sep : str, optional
        Field separator of a CSV file. Default: the extension's (``,`` for ``.csv``, tab for
        ``.tsv``) when the header row holds it, else whichever of ``,``, tab, ``;`` and ``|``
        the header row holds most of.

    Returns
    -------
    Table
        Columns as lists of strings (CSV) or JSON values, and the file line of each row.

    Raises
    ------
    BaccError
        Unreadable or empty file, a header row without examples, malformed CSV or JSON, rows
        of the wrong length, a directory.
    """
    ext, _ = _suffixes(path)
    if ext in _BINARY_EXT:
        raise BaccError(
            f"cannot read {path} row by row: count {ext} files with bacc.counts, or export CSV "
            "or JSON lines"
        )
    text = _read_all(path)
    if ext in _JSONL_EXT:
        return _jsonl_table(path, text)
    return _csv_table(path, text, sep)


# ----------------------------------------------------------------------------------------------
# predictions
@dataclass(frozen=True)
class Predictions:
    """True and predicted labels of one classifier read from a file.

    Attributes
    ----------
    source : str
        File name as given.
    true_column, pred_column : str
    y_true, y_pred : tuple
        One label per example, in file order.
    groups : tuple or None
        Value of the ``by`` column per example.
    folds : tuple or None
        Value of the ``fold`` column per example.
    labels : tuple
        Every class (from ``labels=`` or seen in the true or predicted column of the file).
    """

    source: str
    true_column: str
    pred_column: str
    y_true: tuple
    y_pred: tuple
    groups: tuple | None
    folds: tuple | None
    labels: tuple


def _check_labels(table: Table, col: str, argument: str, given: tuple | None) -> list:
    allowed = None if given is None else set(given) | {str(g) for g in given}
    out = []
    for v, line in zip(table.column(col, argument=argument), table.lines, strict=True):
        if v is None or (isinstance(v, str) and v == "") or (isinstance(v, float) and math.isnan(v)):
            raise BaccError(
                f"{table.source}, line {line}: column {col!r} ({argument}) is empty; every example "
                "needs a true and a predicted label"
            )
        if isinstance(v, list | dict):
            raise BaccError(f"{table.source}, line {line}: column {col!r} holds {type(v).__name__}, not a label")
        if allowed is not None and v not in allowed and str(v) not in allowed:
            raise BaccError(
                f"{table.source}, line {line}: column {col!r} ({argument}) has the label "
                f"{_short(v)}, which is not in labels ({', '.join(str(a) for a in given[:10])}"
                f"{', ...' if len(given) > 10 else ''})"
            )
        out.append(v)
    return out


def _unify(values: list) -> list:
    """Labels of mixed JSON types (``1`` and ``"1"``) become text, so they can be ordered."""
    kinds = {type(v) for v in values if not isinstance(v, bool)} | (
        {bool} if any(isinstance(v, bool) for v in values) else set()
    )
    if len(kinds) > 1 and not kinds <= {int, float}:
        return [str(v) for v in values]
    return values


def read_predictions(
    source: str | Table,
    *,
    true: str,
    pred: str,
    by: str | None = None,
    fold: str | None = None,
    labels: Sequence | None = None,
    sep: str | None = None,
) -> Predictions:
    """Read the true and predicted labels of one classifier from a file.

    Parameters
    ----------
    source : str or Table
        File name (see :func:`read_table`) or a table already read.
    true, pred : str
        Column of the true class and of the predicted class.
    by : str, optional
        Column that splits the examples into groups (one evaluation per group).
    fold : str, optional
        Column of the cross-validation fold of each example.
    labels : sequence, optional
        The classes, in order; a label outside them is an error naming the line. Labels read
        from CSV are text, so give them as text (``["0", "1"]``).
    sep : str, optional
        CSV field separator.

    Returns
    -------
    Predictions

    Raises
    ------
    BaccError
        Missing column, empty label, label not among ``labels``, unreadable file.

    Examples
    --------
    >>> from importlib import resources
    >>> from bacc.readers import read_predictions
    >>> path = str(resources.files("bacc") / "data" / "wine_cv_predictions.csv")
    >>> p = read_predictions(path, true="true", pred="logistic_regression")
    >>> len(p.y_true), p.labels
    (178, ('class_0', 'class_1', 'class_2'))
    """
    table = source if isinstance(source, Table) else read_table(source, sep=sep)
    allowed = None if labels is None else tuple(labels)
    yt = _check_labels(table, true, "true=", allowed)
    yp = _check_labels(table, pred, "pred=", allowed)
    both = _unify(yt + yp)
    yt, yp = both[: len(yt)], both[len(yt) :]
    groups = None
    if by is not None:
        groups = tuple(_unify(_check_present(table, by, "by=")))
    folds = None
    if fold is not None:
        folds = tuple(_unify(_check_present(table, fold, "fold=")))
    if labels is not None:
        # labels given as text match the numbers of a JSON file ("1" is the class 1)
        seen = {str(v): v for v in yt + yp}
        labs = tuple(seen.get(str(lab), lab) if not isinstance(lab, bool) else lab for lab in labels)
    else:
        try:
            check_label_values(yt, yp)
        except BaccError as exc:
            raise BaccError(f"{table.source}: columns {true!r} and {pred!r}: {exc}") from None
        labs = label_order(yt + yp)
    return Predictions(table.source, true, pred, tuple(yt), tuple(yp), groups, folds, labs)


def _check_present(table: Table, col: str, argument: str) -> list:
    vals = table.column(col, argument=argument)
    for v, line in zip(vals, table.lines, strict=True):
        if v is None or v == "":
            raise BaccError(f"{table.source}, line {line}: column {col!r} ({argument}) is empty")
        if isinstance(v, list | dict):
            raise BaccError(f"{table.source}, line {line}: column {col!r} holds {type(v).__name__}, not a value")
    return list(vals)


# ----------------------------------------------------------------------------------------------
# confusion matrices
@dataclass(frozen=True)
class MatrixData:
    """A confusion matrix read from a file: counts, optional labels, optional folds.

    Attributes
    ----------
    counts : list of list
        Rows of counts, as in the file (the caller decides what rows are).
    labels : tuple or None
        Class labels from the file, if it has them.
    folds : tuple or None
        The matrices of cross-validation folds whose sum is ``counts``, if the file held folds.
    """

    counts: list
    labels: tuple | None
    folds: tuple | None


def _matrix_from_json(path: str, obj) -> MatrixData:
    if isinstance(obj, dict):
        if "confusion_matrix" in obj and isinstance(obj["confusion_matrix"], dict):
            obj = obj["confusion_matrix"]
        if "folds" in obj:
            folds = obj["folds"]
            if not isinstance(folds, list) or not folds:
                raise BaccError(f"{path}: 'folds' must be a non-empty list of matrices")
            labels = obj.get("labels")
            return MatrixData(_sum_folds(path, folds), tuple(labels) if labels else None, tuple(folds))
        if "counts" not in obj:
            raise BaccError(
                f"{path}: a JSON confusion matrix is a list of rows, or an object with 'counts' "
                f"(and optionally 'labels'); found keys {', '.join(map(str, list(obj)[:8]))}"
            )
        labels = obj.get("labels")
        if labels is not None and not isinstance(labels, list):
            raise BaccError(f"{path}: 'labels' must be a list")
        return MatrixData(obj["counts"], tuple(labels) if labels else None, None)
    if isinstance(obj, list) and obj and all(isinstance(r, list) for r in obj):
        if all(isinstance(r, list) and r and all(isinstance(x, list) for x in r) for r in obj):
            return MatrixData(_sum_folds(path, obj), None, tuple(obj))
        return MatrixData(obj, None, None)
    raise BaccError(f"{path}: expected a confusion matrix (a list of rows of counts) in JSON")


def _sum_folds(path: str, folds: list) -> list:
    try:
        cm = ConfusionMatrix.from_folds(folds)
    except BaccError as exc:
        raise BaccError(f"{path}: {exc}") from None
    return cm.counts.tolist()


def _matrix_from_csv(path: str, text: str, sep: str | None) -> MatrixData:
    ext, _ = _suffixes(path)
    delim = sep if sep is not None else _CSV_EXT.get(ext)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise BaccError(f"{path} is empty: expected rows of counts")
    if delim is None:
        delim = max((",", "\t", ";"), key=lines[0].count)
        if lines[0].count(delim) == 0:
            delim = None  # whitespace
    rows = [
        [f.strip() for f in (next(csv.reader([ln], delimiter=delim)) if delim else ln.split())]
        for ln in lines
    ]
    first_fields = list(rows[0]) if rows else []
    header = None
    if any(f and not _is_number(f) for f in rows[0][1:]) or (
        rows[0] and rows[0][0] == "" and len(rows) > 1
    ):
        header = rows[0]
        rows = rows[1:]
    row_labels = None
    if rows and all(r and not _is_number(r[0]) for r in rows):
        row_labels = [r[0] for r in rows]
        rows = [r[1:] for r in rows]
        if header is not None and len(header) == len(rows[0]) + 1:
            header = header[1:]
    counts = []
    for i, r in enumerate(rows, start=1):
        row = []
        for f in r:
            if not _is_number(f):
                if header is not None:
                    raise BaccError(predictions_message(path, first_fields, terms="options"))
                raise BaccError(f"{path}: row {i} of the matrix has {f!r}, which is not a count")
            v = float(f)
            row.append(int(v) if v.is_integer() else v)  # a fraction is refused as a count later
        counts.append(row)
    labels = None
    if header is not None:
        labels = tuple(header)
        if row_labels is not None and tuple(row_labels) != labels:
            raise BaccError(
                f"{path}: the row labels ({', '.join(row_labels)}) differ from the column labels "
                f"({', '.join(header)}); rows and columns must list the classes in the same order"
            )
    elif row_labels is not None:
        labels = tuple(row_labels)
    return MatrixData(counts, labels, None)


def read_matrix_file(path: str, *, sep: str | None = None) -> MatrixData:
    """Read a confusion matrix from a CSV/TSV/whitespace or JSON file.

    Parameters
    ----------
    path : str
        ``.json`` files hold JSON (see the module docstring); anything else is read as rows of
        counts, optionally with a header row and a first column of class labels.
    sep : str, optional
        Field separator for text files.

    Returns
    -------
    MatrixData
        ``counts`` (list of rows), ``labels`` (or None) and ``folds`` (or None).

    Raises
    ------
    BaccError
        Unreadable or empty file, invalid JSON, a field that is not a count, row labels that
        differ from the column labels, folds that do not share their classes.
    """
    ext, _ = _suffixes(path)
    text = _read_all(path)
    if ext == ".json" or text.lstrip().startswith(("[", "{")):
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BaccError(f"{path}, line {exc.lineno}: invalid JSON ({exc.msg})") from None
        return _matrix_from_json(path, obj)
    return _matrix_from_csv(path, text, sep)


# ----------------------------------------------------------------------------------------------
# a table of predictions where a confusion matrix was expected: the one rule and the one message
# (also for bacc.evaluate(df) through bacc.counting.tables)
#: Column names that usually hold the true class, and the predicted class (lower case).
_TRUE_NAMES = ("label", "true", "y_true", "truth", "target", "actual", "y", "class", "labels")
_PRED_NAMES = ("pred", "predicted", "prediction", "y_pred", "yhat", "y_hat", "predictions")
_SHOWN = 8


def table_columns(obj) -> list[str] | None:
    """The column names of a table of examples, or None when ``obj`` is not one.

    A DataFrame or lazy frame (anything with ``columns``; a pyarrow ``Table``'s
    ``column_names``) or a mapping of column names to sequences, as :func:`bacc.counts` reads
    them.

    Parameters
    ----------
    obj : object

    Returns
    -------
    list of str or None

    Examples
    --------
    >>> table_columns({"label": [0, 1], "predicted": [0, 0]})
    ['label', 'predicted']
    >>> table_columns([[42, 3], [6, 4]]) is None
    True
    """
    if isinstance(obj, Mapping):
        if obj and all(isinstance(k, str) for k in obj) and all(
            isinstance(v, Sequence) and not isinstance(v, str) or hasattr(v, "__array__")
            for v in obj.values()
        ):
            return list(obj)
        return None
    cols = getattr(obj, "column_names", None) if not hasattr(obj, "columns") else obj.columns
    if cols is None or isinstance(cols, str):
        return None
    try:
        return [str(c) for c in list(cols)]
    except TypeError:
        return None


def _guess(columns: Sequence[str]) -> tuple[str, str] | None:
    """The true and predicted columns, when the names say which they are."""
    low = {c.lower(): c for c in columns}
    true = next((low[n] for n in _TRUE_NAMES if n in low), None)
    pred = next((low[n] for n in _PRED_NAMES if n in low), None)
    if pred is None:
        starts = [c for c in columns if c.lower().startswith("pred")]
        pred = starts[0] if len(starts) == 1 else None
    return (true, pred) if true and pred and true != pred else None


def predictions_message(where: str, columns: Sequence, *, terms: str = "arguments") -> str:
    """What to say when a table of predictions was given where a confusion matrix was expected.

    Parameters
    ----------
    where : str
        What was given (``"the DataFrame"``, a file name).
    columns : sequence
        Its column names (the first eight are shown).
    terms : {"arguments", "options"}
        How the two columns are given: ``true=COLUMN, pred=COLUMN`` (the library) or
        ``--true COLUMN --pred COLUMN`` (the command line).

    Returns
    -------
    str
        One line; when the column names say which is which, with the call to make.

    Examples
    --------
    >>> predictions_message("the DataFrame", ["label", "predicted"])
    "the DataFrame looks like a table of predictions (columns label, predicted), not a confusion matrix: give the true and predicted columns with true=COLUMN, pred=COLUMN (here probably true='label', pred='predicted')"
    >>> predictions_message("preds.csv", ["id", "y", "score"], terms="options")
    'preds.csv looks like a predictions file (columns id, y, score), not a confusion matrix: give the true and predicted columns with --true COLUMN --pred COLUMN'
    """
    cols = [str(c) for c in columns]
    shown = ", ".join(cols[:_SHOWN]) + (", ..." if len(cols) > _SHOWN else "")
    guess = _guess(cols)
    if terms == "options":
        head = f"{where} looks like a predictions file (columns {shown})"
        how = "--true COLUMN --pred COLUMN"
        hint = ("" if guess is None else
                f" (here probably --true {shlex.quote(guess[0])} --pred {shlex.quote(guess[1])})")
    else:
        head = f"{where} looks like a table of predictions (columns {shown})"
        how = "true=COLUMN, pred=COLUMN"
        hint = "" if guess is None else f" (here probably true={guess[0]!r}, pred={guess[1]!r})"
    return f"{head}, not a confusion matrix: give the true and predicted columns with {how}{hint}"
