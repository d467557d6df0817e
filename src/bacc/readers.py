"""Reading what users have: prediction files, confusion-matrix text and confusion-matrix files.

Everything here turns text into labels and counts and hands them to
:class:`bacc.ConfusionMatrix`; no statistics are computed. Every problem raises
:class:`bacc.BaccError` with a one-line message that names the file, the column and the line.

Prediction files
    CSV (``.csv``), TSV (``.tsv``, ``.tab``), JSON lines (``.jsonl``, ``.ndjson``, or ``.json``
    holding one object per line or one array of objects), each optionally gzipped (``.gz``);
    ``-`` reads CSV from standard input. One row per example, a header row naming the columns.
Confusion-matrix text
    ``"42,3;6,4"``: rows separated by ``;`` (or new lines), counts by ``,`` (or spaces),
    optionally named: ``"C2=42,3;6,4"``.
Confusion-matrix files
    CSV/TSV of counts, optionally with a header row of class labels and a first column of
    class labels; JSON holding a matrix (``[[42, 3], [6, 4]]``), ``{"labels": [...],
    "counts": [[...]]}`` (the form of :meth:`ConfusionMatrix.to_dict`), an ``evaluate --format
    json`` result, or the matrices of cross-validation folds (``[[[...]], [[...]]]`` or
    ``{"folds": [...]}``), which are summed.
"""

from __future__ import annotations

import csv
import gzip
import io as _io
import json
import math
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .confusion import ConfusionMatrix
from .errors import BaccError

__all__ = [
    "Item",
    "Predictions",
    "label_order",
    "load_items",
    "parse_matrix_text",
    "parse_weights",
    "parse_prior",
    "read_matrix_file",
    "read_predictions",
    "read_table",
]

_CSV_EXT = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}
_JSONL_EXT = {".jsonl", ".ndjson", ".json"}
_MATRIX_TEXT = re.compile(r"^\s*(?:([^=;,\s][^=;]*?)\s*=)?\s*([0-9eE.+\-\s,;]+)$")
_MAX_FIELD_SHOWN = 40
#: Counted by a data engine (bacc.counting, DuckDB) instead of being read row by row.
_ENGINE_EXT = {".parquet", ".pq", ".parq"}
#: Prediction files larger than this are counted by the engine too (out of core).
LARGE_FILE_BYTES = 256 * 2**20

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


def label_order(labels: Sequence) -> tuple:
    """Distinct labels in a natural order: numerically when all are integers, else as text.

    ``"10"`` comes after ``"9"`` when every label is an integer written as text (CSV files).

    Parameters
    ----------
    labels : sequence
        Labels as read (strings from CSV; strings, numbers or booleans from JSON).

    Returns
    -------
    tuple
        Each distinct label once.
    """
    seen = list(dict.fromkeys(labels))

    def as_int(v):
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            return v
        if isinstance(v, str) and re.fullmatch(r"[+-]?\d+", v.strip()):
            return int(v)
        return None

    ints = [as_int(v) for v in seen]
    if seen and all(i is not None for i in ints):
        return tuple(v for _, v in sorted(zip(ints, seen, strict=True), key=lambda t: (t[0], str(t[1]))))
    try:
        return tuple(sorted(seen))
    except TypeError:
        return tuple(sorted(seen, key=lambda v: (type(v).__name__, str(v))))


# ----------------------------------------------------------------------------------------------
# tables of examples
@dataclass(frozen=True)
class Table:
    """Columns of a file read as text or JSON values, with the file line of each row."""

    source: str
    columns: tuple[str, ...]
    data: dict
    lines: tuple[int, ...]

    def column(self, name: str, *, option: str) -> list:
        """Values of column ``name`` (``option`` is the command-line flag, for the message)."""
        if name not in self.data:
            cols = ", ".join(self.columns[:20]) + (", ..." if len(self.columns) > 20 else "")
            raise BaccError(f"{self.source} has no column {name!r} (given by {option}); its columns are: {cols}")
        return self.data[name]


def _csv_table(path: str, text: str, sep: str | None) -> Table:
    ext, _ = _suffixes(path)
    delim = sep if sep is not None else _CSV_EXT.get(ext)
    if delim is None:
        first = text.split("\n", 1)[0]
        delim = max((",", "\t", ";"), key=first.count)
        if first.count(delim) == 0:
            delim = ","
    reader = csv.reader(_io.StringIO(text), delimiter=delim, strict=True)
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
    """Read a CSV / TSV / JSON-lines file of examples.

    Parameters
    ----------
    path : str
        File name; ``-`` reads CSV from standard input. ``.gz`` files are decompressed.
    sep : str, optional
        Field separator of a CSV file (default from the extension, else sniffed from the header).

    Returns
    -------
    Table
        Columns as lists of strings (CSV) or JSON values, and the file line of each row.

    Raises
    ------
    BaccError
        Unreadable or empty file, malformed CSV or JSON, rows of the wrong length.
    """
    ext, _ = _suffixes(path)
    if ext in _ENGINE_EXT or ext in (".feather", ".arrow", ".xlsx", ".xls"):
        raise BaccError(
            f"cannot read {path} row by row: {ext} files are counted by bacc.counts "
            "(load_items does that); otherwise export CSV or JSON lines"
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
        Value of the ``--by`` column per example.
    folds : tuple or None
        Value of the ``--fold`` column per example.
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


def _check_labels(table: Table, col: str, values: list, option: str, given: tuple | None) -> list:
    allowed = None if given is None else set(given) | {str(g) for g in given}
    out = []
    for v, line in zip(values, table.lines, strict=True):
        if v is None or (isinstance(v, str) and v == "") or (isinstance(v, float) and math.isnan(v)):
            raise BaccError(
                f"{table.source}, line {line}: column {col!r} ({option}) is empty; every example "
                "needs a true and a predicted label"
            )
        if isinstance(v, list | dict):
            raise BaccError(f"{table.source}, line {line}: column {col!r} holds {type(v).__name__}, not a label")
        if allowed is not None and v not in allowed and str(v) not in allowed:
            raise BaccError(
                f"{table.source}, line {line}: column {col!r} has the label {_short(v)}, which is not "
                f"among --labels ({', '.join(str(a) for a in given[:10])}"
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
    >>> import bacc.io
    >>> path = str(resources.files("bacc") / "data" / "wine_cv_predictions.csv")
    >>> p = bacc.io.read_predictions(path, true="true", pred="logistic_regression")
    >>> len(p.y_true), p.labels
    (178, ('class_0', 'class_1', 'class_2'))
    """
    table = source if isinstance(source, Table) else read_table(source, sep=sep)
    allowed = None if labels is None else tuple(labels)
    yt = _check_labels(table, true, table.column(true, option="--true"), "--true", allowed)
    yp = _check_labels(table, pred, table.column(pred, option="--pred"), "--pred", allowed)
    both = _unify(yt + yp)
    yt, yp = both[: len(yt)], both[len(yt) :]
    groups = None
    if by is not None:
        groups = tuple(_unify(_check_present(table, by, "--by")))
    folds = None
    if fold is not None:
        folds = tuple(_unify(_check_present(table, fold, "--fold")))
    if labels is not None:
        # labels typed on the command line are text; match them to numbers read from JSON
        seen = {str(v): v for v in yt + yp}
        labs = tuple(seen.get(str(lab), lab) if not isinstance(lab, bool) else lab for lab in labels)
    else:
        labs = label_order(yt + yp)
    return Predictions(table.source, true, pred, tuple(yt), tuple(yp), groups, folds, labs)


def _check_present(table: Table, col: str, option: str) -> list:
    vals = table.column(col, option=option)
    for v, line in zip(vals, table.lines, strict=True):
        if v is None or v == "":
            raise BaccError(f"{table.source}, line {line}: column {col!r} ({option}) is empty")
        if isinstance(v, list | dict):
            raise BaccError(f"{table.source}, line {line}: column {col!r} holds {type(v).__name__}, not a value")
    return list(vals)


# ----------------------------------------------------------------------------------------------
# confusion matrices
def looks_like_matrix_text(text: str) -> bool:
    """True if ``text`` reads as matrix text (``"42,3;6,4"``, optionally ``"name=..."``)."""
    return bool(_MATRIX_TEXT.match(text)) and any(ch.isdigit() for ch in text) and (
        ";" in text or "," in text or "\n" in text
    )


def parse_matrix_text(text: str) -> tuple[str | None, list[list[int]]]:
    """Read a confusion matrix written as text.

    Parameters
    ----------
    text : str
        Rows separated by ``;`` or new lines, counts by ``,`` or spaces, optionally preceded by
        a name and ``=``: ``"42,3;6,4"``, ``"C2 = 42 3; 6 4"``.

    Returns
    -------
    name : str or None
    rows : list of list of int

    Raises
    ------
    BaccError
        A field that is not a whole number, rows of different lengths, no rows.

    Examples
    --------
    >>> parse_matrix_text("C2=42,3;6,4")
    ('C2', [[42, 3], [6, 4]])
    """
    name = None
    body = text
    if "=" in text:
        name, _, body = text.partition("=")
        name = name.strip()
        if not name:
            raise BaccError(f"bad matrix text {_short(text)}: nothing before '='; write NAME=42,3;6,4")
    hint = 'write rows separated by ";" and counts by ",", e.g. "42,3;6,4"'
    rows: list[list[int]] = []
    raw_rows = [r for r in re.split(r"[;\n]", body) if r.strip()]
    if not raw_rows:
        raise BaccError(f"bad matrix text {_short(text)}: no counts; {hint}")
    for i, r in enumerate(raw_rows, start=1):
        fields = [f for f in re.split(r"[,\s]+", r.strip()) if f]
        row = []
        for f in fields:
            try:
                v = float(f)
            except ValueError:
                raise BaccError(f"bad matrix text {_short(text)}: {f!r} in row {i} is not a count; {hint}") from None
            if not math.isfinite(v) or v != int(v) or v < 0:
                raise BaccError(
                    f"bad matrix text {_short(text)}: {f!r} in row {i} is not a whole number >= 0; {hint}"
                )
            row.append(int(v))
        if rows and len(row) != len(rows[0]):
            raise BaccError(
                f"bad matrix text {_short(text)}: row {i} has {len(row)} counts, row 1 has "
                f"{len(rows[0])}; {hint}"
            )
        rows.append(row)
    if len(rows) != len(rows[0]):
        raise BaccError(
            f"bad matrix text {_short(text)}: {len(rows)} rows of {len(rows[0])} counts; a confusion "
            f"matrix is square (classes x classes); {hint}"
        )
    return name, rows


@dataclass(frozen=True)
class MatrixData:
    """A confusion matrix read from a file: counts, optional labels, optional folds."""

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
                raise BaccError(f"{path}: row {i} of the matrix has {f!r}, which is not a count")
            row.append(float(f))
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
# options given as text
def parse_weights(text: str | None, labels: Sequence) -> list[float] | None:
    """Class weights from ``"0.7,0.3"`` (class order) or ``"pos=0.7,neg=0.3"`` (by label).

    Parameters
    ----------
    text : str or None
    labels : sequence
        Class labels of the matrix, in order.

    Returns
    -------
    list of float or None
        One weight per class, aligned with ``labels`` (validated later by the library).
    """
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise BaccError(f"--weights {text!r}: give one weight per class, e.g. 0.7,0.3 or pos=0.7,neg=0.3")
    if all("=" in p for p in parts):
        by_label: dict[str, float] = {}
        for p in parts:
            k, _, v = p.partition("=")
            by_label[k.strip()] = _number(v, f"--weights {text!r}")
        names = {str(lab): lab for lab in labels}
        unknown = [k for k in by_label if k not in names]
        if unknown:
            raise BaccError(
                f"--weights names the class {unknown[0]!r}, which is not a class "
                f"({', '.join(map(str, labels))})"
            )
        return [by_label.get(str(lab), 0.0) for lab in labels]
    if any("=" in p for p in parts):
        raise BaccError(f"--weights {text!r}: use either all 'label=weight' or plain weights in class order")
    w = [_number(p, f"--weights {text!r}") for p in parts]
    if len(w) != len(labels):
        raise BaccError(
            f"--weights has {len(w)} values but there are {len(labels)} classes "
            f"({', '.join(map(str, labels))})"
        )
    return w


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise BaccError(f"{what}: {text.strip()!r} is not a number") from None


def parse_prior(text: str) -> str | tuple[float, float] | list[tuple[float, float]]:
    """Prior from ``"flat"``, ``"jeffreys"``, ``"a,b"`` or per-class ``"a,b;a,b;..."``."""
    t = text.strip()
    if re.fullmatch(r"[A-Za-z]+", t):
        return t
    pairs = []
    for chunk in t.split(";"):
        vals = [v for v in re.split(r"[,\s]+", chunk.strip()) if v]
        if len(vals) != 2:
            raise BaccError(f"--prior {text!r}: expected 'flat', 'jeffreys', 'a,b' or 'a,b;a,b;...'")
        pairs.append(tuple(_number(v, f"--prior {text!r}") for v in vals))
    return pairs[0] if len(pairs) == 1 else pairs


def parse_list(text: str, what: str, cast=float) -> list:
    """Comma-separated numbers (``"20,20"``) for options such as ``--sizes``."""
    out = []
    for p in text.split(","):
        if not p.strip():
            continue
        try:
            out.append(cast(p.strip()))
        except ValueError:
            raise BaccError(f"{what}: {p.strip()!r} is not a valid number") from None
    if not out:
        raise BaccError(f"{what}: expected comma-separated numbers, e.g. 20,20")
    return out


# ----------------------------------------------------------------------------------------------
# what the command line evaluates
@dataclass(frozen=True)
class Item:
    """One classifier (or one group of examples) to evaluate.

    Attributes
    ----------
    name : str
        Display name (file, prediction column and group, as far as they tell items apart).
    confusion : ConfusionMatrix
    source : str
        Where it came from, for the report.
    y_true, y_pred : tuple or None
        The labels, when read from a predictions file (paired comparisons need them).
    folds : tuple of ConfusionMatrix or None
        Per-fold matrices (``--fold`` column, or folds in a matrix file).
    example_ids : tuple or None
        Row numbers of the examples in the file (to check that paired inputs match).
    """

    name: str
    confusion: ConfusionMatrix
    source: str
    y_true: tuple | None = None
    y_pred: tuple | None = None
    folds: tuple | None = None
    example_ids: tuple | None = None


def _cm_from_pairs(yt, yp, labels, where: str) -> ConfusionMatrix:
    try:
        return ConfusionMatrix.from_predictions(list(yt), list(yp), labels=list(labels))
    except BaccError as exc:
        raise BaccError(f"{where}: {exc}") from None


def _fold_matrices(yt, yp, fl, labels, where: str) -> tuple | None:
    if fl is None:
        return None
    index: dict = {}
    for i, v in enumerate(fl):
        index.setdefault(v, []).append(i)
    out = []
    for f in label_order(fl):
        idx = index[f]
        out.append(_cm_from_pairs([yt[i] for i in idx], [yp[i] for i in idx], labels, where))
    return tuple(out) if len(out) >= 2 else None


def load_items(
    inputs: Sequence[str] = (),
    matrices: Sequence[str] = (),
    *,
    true: str | None = None,
    preds: Sequence[str] = (),
    by: str | None = None,
    fold: str | None = None,
    labels: Sequence | None = None,
    rows: str = "true",
    sep: str | None = None,
) -> list[Item]:
    """Turn command-line inputs into named confusion matrices.

    Parameters
    ----------
    inputs : sequence of str
        Files (predictions when ``true`` and ``preds`` are given, else confusion matrices) or
        matrix text (``"42,3;6,4"``).
    matrices : sequence of str
        Matrix text from ``--matrix``.
    true : str, optional
        True-class column of prediction files.
    preds : sequence of str
        Predicted-class columns (one item per column and file).
    by, fold : str, optional
        Group and fold columns.
    labels : sequence, optional
        Class order (and the only allowed labels).
    rows : {"true", "predicted"}
        What the rows of a given matrix are.
    sep : str, optional
        CSV separator.

    Returns
    -------
    list of Item
        In input order; groups in natural order within a file.
    """
    if (true is None) != (not preds):
        raise BaccError(
            "prediction files need both --true COLUMN and --pred COLUMN"
            if true is None
            else "--true was given without --pred; name the predicted-class column with --pred"
        )
    if (by or fold) and true is None:
        raise BaccError(f"{'--by' if by else '--fold'} needs a predictions file with --true and --pred")
    raw: list[tuple[list[str], Item]] = []
    pred_files = [s for s in inputs if not (true is None or _is_text_matrix(s))]
    for n, spec in enumerate(list(inputs) + [f"\0{m}" for m in matrices], start=1):
        from_option = spec.startswith("\0")
        spec = spec.lstrip("\0")
        if from_option or _is_text_matrix(spec):
            name, counts = parse_matrix_text(spec)
            cm = _matrix_cm(counts, rows, labels, "matrix text")
            label = name or f"matrix {n}"
            raw.append(([label], Item(label, cm, f"matrix {spec.strip()}")))
            continue
        if true is None:
            md = read_matrix_file(spec, sep=sep)
            labs = labels if labels is not None else md.labels
            cm = _matrix_cm(md.counts, rows, labs, spec)
            folds = None
            if md.folds is not None and len(md.folds) >= 2:
                folds = tuple(_matrix_cm(f, rows, cm.labels, spec) for f in md.folds)
            raw.append(([Path(spec).name], Item(Path(spec).name, cm, spec, folds=folds)))
            continue
        if use_engine(spec):
            raw.extend(_engine_items(spec, true, preds, by, fold, labels, sep, len(pred_files)))
            continue
        table = read_table(spec, sep=sep)
        for pcol in preds:
            p = read_predictions(table, true=true, pred=pcol, by=by, fold=fold, labels=labels)
            fname = Path(spec).name if spec != "-" else "stdin"
            parts = ([fname] if len(pred_files) > 1 else []) + ([pcol] if len(preds) > 1 else [])
            if p.groups is None:
                cm = _cm_from_pairs(p.y_true, p.y_pred, p.labels, spec)
                folds = _fold_matrices(p.y_true, p.y_pred, p.folds, p.labels, spec)
                name_parts = parts or [pcol if len(pred_files) <= 1 else fname]
                raw.append((
                    name_parts,
                    Item("", cm, f"{spec}: {true} vs {pcol}", p.y_true, p.y_pred, folds,
                         tuple(table.lines)),
                ))
                continue
            index: dict = {}
            for i, v in enumerate(p.groups):
                index.setdefault(v, []).append(i)
            for g in label_order(p.groups):
                idx = index[g]
                yt = tuple(p.y_true[i] for i in idx)
                yp = tuple(p.y_pred[i] for i in idx)
                where = f"{spec}, {by} = {g}"
                cm = _cm_from_pairs(yt, yp, p.labels, where)
                fl = None if p.folds is None else [p.folds[i] for i in idx]
                folds = _fold_matrices(yt, yp, fl, p.labels, where)
                raw.append((
                    [*parts, str(g)],
                    Item("", cm, f"{spec}: {true} vs {pcol}, {by} = {g}", yt, yp, folds,
                         tuple(table.lines[i] for i in idx)),
                ))
    if not raw:
        raise BaccError("nothing to evaluate: give a predictions file, a matrix file or --matrix")
    items = []
    for parts, item in raw:
        name = item.name or " / ".join(parts)
        items.append(Item(name, item.confusion, item.source, item.y_true, item.y_pred, item.folds,
                          item.example_ids))
    return _dedupe_names(items)


def use_engine(spec: str) -> bool:
    """True for inputs that :func:`bacc.counts` counts out of core (DuckDB) instead of Python:
    Parquet files, globs, directories and prediction files over :data:`LARGE_FILE_BYTES`."""
    ext, _ = _suffixes(spec)
    if ext in _ENGINE_EXT or os.path.isdir(spec):
        return True
    if not os.path.exists(spec) and any(ch in spec for ch in "*?["):
        return True
    try:
        return os.path.getsize(spec) > LARGE_FILE_BYTES
    except OSError:
        return False


def _engine_items(spec, true, preds, by, fold, labels, sep, n_files) -> list[tuple[list[str], Item]]:
    """Items counted by :func:`bacc.counting.counts` (only the counts come back to Python)."""
    try:
        from .counting import counts
    except ImportError:
        raise BaccError(
            f"{spec}: Parquet files, globs, directories and very large files are counted by "
            "bacc.counting (issue 6), which this installation does not have; export CSV"
        ) from None
    keys = [k for k in (by, fold) if k]
    fname = Path(spec).name
    out: list[tuple[list[str], Item]] = []
    for pcol in preds:
        parts = ([fname] if n_files > 1 else []) + ([pcol] if len(preds) > 1 else [])
        res = counts(spec, true=true, pred=pcol, by=keys or None, labels=labels, sep=sep)
        src = f"{spec}: {true} vs {pcol}"
        if not keys:
            out.append((parts or [pcol], Item("", res, src)))
            continue
        # regroup: (by, fold) -> matrices; a group's matrix is the sum over its folds
        groups: dict = {}
        for g in res:
            key = g if isinstance(g, tuple) else (g,)
            b = key[0] if by else None
            f = key[-1] if fold else None
            groups.setdefault(b, []).append((f, res[g]))
        for b in label_order(list(groups)) if by else [None]:
            cms = [cm for _, cm in sorted(groups[b], key=lambda t: str(t[0]))]
            total = ConfusionMatrix.from_folds(cms) if len(cms) > 1 else cms[0]
            folds = tuple(cms) if fold and len(cms) >= 2 else None
            name_parts = [*parts, str(b)] if by else (parts or [pcol])
            where = f"{src}, {by} = {b}" if by else src
            out.append((name_parts, Item("", total, where, folds=folds)))
    return out


def _dedupe_names(items: list[Item]) -> list[Item]:
    seen: dict[str, int] = {}
    out = []
    for it in items:
        n = seen.get(it.name, 0)
        seen[it.name] = n + 1
        if n:
            it = Item(f"{it.name} ({n + 1})", it.confusion, it.source, it.y_true, it.y_pred, it.folds,
                      it.example_ids)
        out.append(it)
    return out


def _is_text_matrix(spec: str) -> bool:
    return not os.path.exists(spec) and looks_like_matrix_text(spec)


def _matrix_cm(counts, rows: str, labels, where: str) -> ConfusionMatrix:
    try:
        return ConfusionMatrix.from_matrix(counts, rows=rows, labels=None if labels is None else list(labels))
    except BaccError as exc:
        raise BaccError(f"{where}: {exc}") from None
