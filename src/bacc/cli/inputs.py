"""The command line's inputs: files, matrix text and options turned into named confusion matrices.

Prediction files are read by :mod:`bacc.readers` (or counted by :func:`bacc.counts` when they
are Parquet, globs, directories or very large); matrix files by
:func:`bacc.readers.read_matrix_file`; matrix text such as ``"42,3;6,4"`` here. The library
names columns by their arguments (``true=``); :func:`in_option_terms` rewrites its messages in
the options a command-line user typed (``--true``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..confusion import ConfusionMatrix, label_order
from ..counting import counts
from ..errors import BaccError
from ..readers import read_matrix_file, read_predictions, read_table

__all__ = [
    "LARGE_FILE_BYTES",
    "Item",
    "in_option_terms",
    "load_items",
    "looks_like_matrix_text",
    "option_terms",
    "parse_labels",
    "parse_list",
    "parse_per_class",
    "parse_matrix_text",
    "parse_prior",
    "parse_weights",
    "use_engine",
]

#: Prediction files larger than this are counted by DuckDB (out of core), not read into Python.
LARGE_FILE_BYTES = 256 * 2**20
#: Counted by DuckDB whatever their size.
_ENGINE_EXT = {".parquet", ".pq", ".parq"}
_MATRIX_TEXT = re.compile(r"^\s*(?:([^=;,\s][^=;]*?)\s*=)?\s*([0-9eE.+\-\s,;]+)$")
_MAX_SHOWN = 40


# ----------------------------------------------------------------------------------------------
# library wording -> option wording
_OPTION_OF = {"true": "--true", "pred": "--pred", "by": "--by", "fold": "--fold", "sep": "--sep"}
_ARGUMENT = re.compile(r"(?<![\w-])(true|pred|by|fold|sep)=(?![\w'\"])")
# the library's way out, which the command line has no option for
_DROP_HINT = "pass nulls='drop' to leave them out (their number is reported)"


def in_option_terms(message: str, *, fold: str | None = None) -> str:
    """A library message in the terms of the command line: ``(true=)`` becomes ``(--true)``.

    Parameters
    ----------
    message : str
        Message of a :class:`bacc.BaccError` raised by :mod:`bacc.readers` or :func:`bacc.counts`.
    fold : str, optional
        The ``--fold`` column: :func:`bacc.counts` groups by it, so it calls it ``by=``.

    Returns
    -------
    str
    """
    if fold is not None:
        message = message.replace(f"{fold!r} (by=)", f"{fold!r} (--fold)")
    message = _ARGUMENT.sub(lambda m: _OPTION_OF[m.group(1)], message)
    message = message.replace(_DROP_HINT, "remove those examples or fill in their labels")
    return message.replace("which is not in labels (", "which is not among --labels (")


@contextlib.contextmanager
def option_terms(*, fold: str | None = None) -> Iterator[None]:
    """Re-raise a BaccError of the library with its message in option terms."""
    try:
        yield
    except BaccError as exc:
        raise BaccError(in_option_terms(str(exc), fold=fold)) from None


# ----------------------------------------------------------------------------------------------
# options given as text
def _short(value: object) -> str:
    """``repr`` of a value, cut to a readable length (messages stay one line)."""
    s = repr(value)
    return s if len(s) <= _MAX_SHOWN else s[: _MAX_SHOWN - 4] + "...'"


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise BaccError(f"{what}: {text.strip()!r} is not a number") from None


def parse_per_class(text: str | None, labels: Sequence | None, option: str):
    """A per-class option: ``"0.7,0.3"`` (class order) or ``"pos=0.7,neg=0.3"`` (by label).

    Parameters
    ----------
    text : str or None
        The option's value.
    labels : sequence or None
        Class labels, in order (None when no matrix is known yet: the classes are 0, 1, ...).
    option : str
        The option (``"--weights"``), for messages.

    Returns
    -------
    list of float, dict or None
        Numbers in class order, or a mapping from class label to number, which the library
        aligns by label (:func:`bacc.labels.per_class`: every class named once, no other
        label); None without ``text``.

    Raises
    ------
    BaccError
        A value that is not a number, a label that is not a class, a label named twice, or a
        mix of the two forms.
    """
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise BaccError(f"{option} {text!r}: give one value per class, e.g. 0.7,0.3 or pos=0.7,neg=0.3")
    if not any("=" in p for p in parts):
        values = [_number(p, f"{option} {text!r}") for p in parts]
        if labels is not None and len(values) not in (1, len(labels)) or (
                option == "--weights" and labels is not None and len(values) != len(labels)):
            raise BaccError(
                f"{option} has {len(values)} values but there are {len(labels)} classes "
                f"({', '.join(map(str, labels))})"
            )
        return values
    if not all("=" in p for p in parts):
        raise BaccError(f"{option} {text!r}: use either all 'label=value' or plain values in class order")
    classes = list(labels) if labels is not None else list(range(len(parts)))
    names = {str(lab): lab for lab in classes}
    by_label: dict = {}
    for p in parts:
        k, _, v = p.partition("=")
        k = k.strip()
        if k not in names:
            raise BaccError(
                f"{option} names the class {k!r}, which is not a class "
                f"({', '.join(map(str, classes))})"
            )
        if names[k] in by_label:
            raise BaccError(f"{option} names the class {k!r} more than once")
        by_label[names[k]] = _number(v, f"{option} {text!r}")
    return by_label


def parse_weights(text: str | None, labels: Sequence) -> list[float] | dict | None:
    """Class weights of ``--weights`` (:func:`parse_per_class`)."""
    return parse_per_class(text, labels, "--weights")


def parse_prior(text: str) -> str | tuple[float, float] | list[tuple[float, float]]:
    """The prior of ``--prior``: ``"flat"``, ``"jeffreys"``, ``"a,b"`` or per class ``"a,b;a,b"``.

    Parameters
    ----------
    text : str

    Returns
    -------
    str, (float, float) or list of (float, float)
        A name (checked by the library), one pair, or one pair per class.

    Raises
    ------
    BaccError
        Not a name and not pairs of numbers.
    """
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
    """Comma-separated numbers (``"20,20"``) of options such as ``--sizes``.

    Parameters
    ----------
    text : str
    what : str
        The option, for messages (``"--sizes"``).
    cast : callable
        ``int`` or ``float``.

    Returns
    -------
    list
    """
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


def parse_labels(text: str | None) -> list[str] | None:
    """The classes of ``--labels neg,pos``, in order (None without the option)."""
    if not text:
        return None
    labels = [s.strip() for s in text.split(",") if s.strip()]
    if not labels:
        raise BaccError("--labels: give the classes separated by commas, e.g. --labels neg,pos")
    return labels


# ----------------------------------------------------------------------------------------------
# confusion matrices written as text
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
        A field that is not a whole number, rows of different lengths, no rows, not square.

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
    shown = _short(text)
    body = body.strip()
    if not body:
        raise BaccError(f"bad matrix text {shown}: no counts; {hint}")
    # ';' (with any white space around it) or a new line (blank lines included) ends a row
    raw_rows = re.split(r"\s*;\s*|\s*\n\s*", body)
    for i, r in enumerate(raw_rows, start=1):
        if not r:
            where = "after the last ';'" if i == len(raw_rows) else f"(row {i})"
            raise BaccError(f"bad matrix text {shown}: an empty row {where}; {hint}")
        # counts are separated by ',' (white space around it allowed), or else by white space
        fields = [f.strip() for f in r.split(",")] if "," in r else r.split()
        row = []
        for j, f in enumerate(fields, start=1):
            if not f:
                raise BaccError(f"bad matrix text {shown}: row {i} has an empty count at position "
                                f"{j} (two commas in a row, or a comma at an end); {hint}")
            v = _count(f)
            if v is None:
                raise BaccError(f"bad matrix text {shown}: {f!r} in row {i} is not a count; {hint}")
            if not math.isfinite(v) or v != int(v) or v < 0:
                raise BaccError(
                    f"bad matrix text {shown}: {f!r} in row {i} is not a whole number >= 0; {hint}"
                )
            row.append(int(v))
        if rows and len(row) != len(rows[0]):
            raise BaccError(
                f"bad matrix text {_short(text)}: row {i} has {len(row)} count"
                f"{'s' if len(row) != 1 else ''}, row 1 has {len(rows[0])}; {hint}"
            )
        rows.append(row)
    if len(rows) != len(rows[0]):
        raise BaccError(
            f"bad matrix text {_short(text)}: {len(rows)} rows of {len(rows[0])} counts; a confusion "
            f"matrix is square (classes x classes); {hint}"
        )
    return name, rows


def _count(text: str) -> float | None:
    """A field of matrix text as a number (``3``, ``3.0``, ``1e3``, ``nan``, ``inf``), or None
    when it is not written as one (``3x``, ``1_000``, ``0x10``)."""
    if not re.fullmatch(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf(?:inity)?)",
                        text, flags=re.IGNORECASE):
        return None
    return float(text)


def _is_text_matrix(spec: str) -> bool:
    return not os.path.exists(spec) and looks_like_matrix_text(spec)


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
        Line numbers of the examples in the file (to check that paired inputs match).
    file : str or None
        The predictions file of an ungrouped prediction column (inputs of one file share their
        examples, and are paired by default).
    """

    name: str
    confusion: ConfusionMatrix
    source: str
    y_true: tuple | None = None
    y_pred: tuple | None = None
    folds: tuple | None = None
    example_ids: tuple | None = None
    file: str | None = None


def _cm_from_pairs(yt, yp, labels, where: str) -> ConfusionMatrix:
    try:
        return ConfusionMatrix.from_predictions(list(yt), list(yp), labels=list(labels))
    except BaccError as exc:
        raise BaccError(f"{where}: {exc}") from None


def _matrix_cm(counts_, rows: str, labels, where: str) -> ConfusionMatrix:
    try:
        return ConfusionMatrix.from_matrix(counts_, rows=rows, labels=None if labels is None else list(labels))
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


def _data_suffix(path: str) -> str:
    """Lower-case data suffix of ``path``, ignoring ``.gz``."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def use_engine(spec: str) -> bool:
    """True for inputs that :func:`bacc.counts` counts out of core (DuckDB) instead of Python.

    Parquet files, globs, directories and prediction files larger than
    :data:`LARGE_FILE_BYTES`.
    """
    if _data_suffix(spec) in _ENGINE_EXT or os.path.isdir(spec):
        return True
    if not os.path.exists(spec) and any(ch in spec for ch in "*?["):
        return True
    try:
        return os.path.getsize(spec) > LARGE_FILE_BYTES
    except OSError:
        return False


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
    """Turn the inputs and options of a command into named confusion matrices.

    Parameters
    ----------
    inputs : sequence of str
        Files (predictions when ``true`` and ``preds`` are given, else confusion matrices) or
        matrix text (``"42,3;6,4"``).
    matrices : sequence of str
        Matrix text from ``--matrix``.
    true : str, optional
        True-class column of prediction files (``--true``).
    preds : sequence of str
        Predicted-class columns (``--pred``; one item per column and file).
    by, fold : str, optional
        Group and fold columns (``--by``, ``--fold``).
    labels : sequence, optional
        Class order, and the only allowed labels (``--labels``).
    rows : {"true", "predicted"}
        What the rows of a given matrix are (``--rows``).
    sep : str, optional
        CSV separator (``--sep``).

    Returns
    -------
    list of Item
        In input order; groups in natural order within a file; names made distinct.

    Raises
    ------
    BaccError
        Missing or contradictory options, and every problem of the files, in option terms.
    MissingDependencyError
        A Parquet file, glob, directory or very large file without DuckDB installed.
    """
    if (true is None) != (not preds):
        raise BaccError(
            "prediction files need both --true COLUMN and --pred COLUMN"
            if true is None
            else "--true was given without --pred; name the predicted-class column with --pred"
        )
    if (by or fold) and true is None:
        raise BaccError(f"{'--by' if by else '--fold'} needs a predictions file with --true and --pred")
    if list(inputs).count("-") > 1:
        raise BaccError("standard input ('-') can be read only once; give it once")
    if sep is not None and (len(sep) != 1 or sep in "\r\n\"" or not sep.isprintable() and sep != "\t"):
        raise BaccError(
            f"--sep must be one character other than a quote or a line break, got {sep!r} "
            "(a tab: --sep $'\\t')"
        )
    raw: list[tuple[list[str], Item]] = []
    pred_files = [s for s in inputs if not (true is None or _is_text_matrix(s))]
    for n, spec in enumerate(list(inputs) + [f"\0{m}" for m in matrices], start=1):
        from_option = spec.startswith("\0")
        spec = spec.lstrip("\0")
        if from_option or _is_text_matrix(spec):
            name, rows_ = parse_matrix_text(spec)
            cm = _matrix_cm(rows_, rows, labels, "matrix text")
            label = name or f"matrix {n}"
            raw.append(([label], Item(label, cm, f"matrix {spec.strip()}")))
        elif true is None:
            raw.append(_matrix_file_item(spec, rows, labels, sep))
        elif use_engine(spec):
            raw.extend(_engine_items(spec, true, preds, by, fold, labels, sep, len(pred_files)))
        else:
            raw.extend(_prediction_items(spec, true, preds, by, fold, labels, sep, len(pred_files)))
    if not raw:
        raise BaccError("nothing to evaluate: give a predictions file, a matrix file or --matrix")
    items = [dataclasses.replace(item, name=item.name or " / ".join(parts)) for parts, item in raw]
    return _dedupe_names(items)


def _matrix_file_item(spec, rows, labels, sep) -> tuple[list[str], Item]:
    md = read_matrix_file(spec, sep=sep)
    labs = labels if labels is not None else md.labels
    cm = _matrix_cm(md.counts, rows, labs, spec)
    folds = None
    if md.folds is not None and len(md.folds) >= 2:
        folds = tuple(_matrix_cm(f, rows, cm.labels, spec) for f in md.folds)
    return [Path(spec).name], Item(Path(spec).name, cm, spec, folds=folds)


def _codes(p):
    """``true * l + predicted`` class index of every example, or None when a label lies outside
    ``p.labels`` (the one-by-one path then names it)."""
    index = {lab: i for i, lab in enumerate(p.labels)}
    try:
        t = np.fromiter((index[v] for v in p.y_true), dtype=np.int64, count=len(p.y_true))
        q = np.fromiter((index[v] for v in p.y_pred), dtype=np.int64, count=len(p.y_pred))
    except (KeyError, TypeError):
        return None
    return t * len(p.labels) + q


def _prediction_items(spec, true, preds, by, fold, labels, sep, n_files) -> list[tuple[list[str], Item]]:
    """Items of a predictions file read into Python (one per prediction column and group)."""
    table = read_table(spec, sep=sep)
    fname = Path(spec).name if spec != "-" else "stdin"
    out: list[tuple[list[str], Item]] = []
    for pcol in preds:
        with option_terms():
            p = read_predictions(table, true=true, pred=pcol, by=by, fold=fold, labels=labels)
        parts = ([fname] if n_files > 1 else []) + ([pcol] if len(preds) > 1 else [])
        if p.groups is None:
            cm = _cm_from_pairs(p.y_true, p.y_pred, p.labels, spec)
            folds = _fold_matrices(p.y_true, p.y_pred, p.folds, p.labels, spec)
            out.append((
                parts or [pcol if n_files <= 1 else fname],
                Item("", cm, f"{spec}: {true} vs {pcol}", p.y_true, p.y_pred, folds,
                     tuple(table.lines), file=spec),
            ))
            continue
        index: dict = {}
        for i, v in enumerate(p.groups):
            index.setdefault(v, []).append(i)
        # the labels were checked once for the whole column: each group is one bincount
        codes = _codes(p)
        for g in label_order(p.groups):
            idx = index[g]
            yt = tuple(p.y_true[i] for i in idx)
            yp = tuple(p.y_pred[i] for i in idx)
            where = f"{spec}, {by} = {g}"
            if codes is None:
                cm = _cm_from_pairs(yt, yp, p.labels, where)
            else:
                l = len(p.labels)
                flat = codes[np.asarray(idx, dtype=np.int64)]
                cm = ConfusionMatrix(np.bincount(flat, minlength=l * l).reshape(l, l),
                                     labels=list(p.labels))
            fl = None if p.folds is None else [p.folds[i] for i in idx]
            folds = _fold_matrices(yt, yp, fl, p.labels, where)
            out.append((
                [*parts, str(g)],
                Item("", cm, f"{spec}: {true} vs {pcol}, {by} = {g}", yt, yp, folds,
                     tuple(table.lines[i] for i in idx)),
            ))
    return out


def _engine_items(spec, true, preds, by, fold, labels, sep, n_files) -> list[tuple[list[str], Item]]:
    """Items counted by :func:`bacc.counts` (only the counts come back to Python)."""
    keys = [k for k in (by, fold) if k]
    fname = Path(spec).name
    out: list[tuple[list[str], Item]] = []
    for pcol in preds:
        parts = ([fname] if n_files > 1 else []) + ([pcol] if len(preds) > 1 else [])
        with option_terms(fold=fold):
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
        out.append(dataclasses.replace(it, name=f"{it.name} ({n + 1})") if n else it)
    return out
