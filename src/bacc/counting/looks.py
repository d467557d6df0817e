"""The one rule for a table of predictions given where a confusion matrix was expected.

A table whose columns have names and whose values are not counts, or which is not a square
table of counts labelled by the same classes in rows and columns, is a table of examples (one
row per example: the true class, the predicted class, maybe a group), not a confusion matrix.
The library (``bacc.evaluate(df)``) and the command line (``bacc evaluate predictions.csv``)
say so in the same words, each naming the way to give the two columns in its own terms:
``true=COLUMN, pred=COLUMN`` or ``--true COLUMN --pred COLUMN``.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

__all__ = ["predictions_message", "table_columns"]

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
