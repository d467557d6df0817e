"""From the aggregated rows of any engine to confusion matrices: the same rules for all.

Missing labels or group values are refused or dropped (``nulls=``), the labels must be of one
type, whole-number floats become ints, the classes are ordered naturally (or as given), and
the counts are added into one array of shape (groups, classes, classes).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np

from .._engine.helpers.validate import MAX_COUNT
from ..confusion import ConfusionMatrix, check_label_values, label_order
from ..errors import BaccError, BaccWarning
from ..labels import check_classes, label_kind
from .grouped import GroupedCounts
from .tally import Spec, Tally, clean_value

__all__ = ["assemble"]

_MAX_CELLS = 200_000_000  # groups x classes x classes kept in memory (1.6 GB of int64)
_MAX_TOTAL = 2**62


def _kind(v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, numbers.Integral):
        return "int"
    if isinstance(v, numbers.Real):
        return "float"
    return type(v).__name__


def _check_label_types(seen: dict[str, dict[str, Any]], spec: Spec, where: str) -> None:
    """``seen[column][type] = an example``; refuse labels of more than one kind (the rule of
    :func:`bacc.labels.check_one_kind`: numbers, text, booleans), naming each column's types."""
    families = {label_kind(v) for per in seen.values() for v in per.values()}
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



def assemble(tally: Tally, spec: Spec, *, labels, nulls: str) -> ConfusionMatrix | GroupedCounts:
    """Confusion matrices from the aggregated rows of an engine.

    Parameters
    ----------
    tally : Tally
        Rows ``(*by, true, pred, n[, n_neg, n_frac, n_null])``.
    spec : Spec
        The columns that were counted.
    labels : sequence or None
        The classes, in order (None: every label seen, in natural order).
    nulls : {"error", "drop"}
        Refuse examples with a missing label or group value, or leave them out with a warning.

    Returns
    -------
    ConfusionMatrix or GroupedCounts
        One matrix without grouping columns, else one per group over the shared classes.

    Raises
    ------
    BaccError
        Bad count column, missing values with ``nulls="error"``, labels of mixed types, a
        label outside ``labels``, no examples, or too many cells to hold.
    """
    where = tally.where
    nb = len(spec.by)
    nk = nb + 2
    # count-column problems first: they are errors whatever `nulls` says
    if spec.count is not None:
        neg, frac, nullc = (sum(int(clean_value(r[i]) or 0) for r in tally.rows) for i in (nk + 1, nk + 2, nk + 3))
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
        key = tuple(clean_value(v) for v in r[:nk])
        n = clean_value(r[nk])
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
                f"{where}: {n_missing} example{' has' if n_missing == 1 else 's have'} a missing "
                f"label or group ({detail}); "
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
        trues = [key[nb] for key, _ in kept]
        preds = [key[nb + 1] for key, _ in kept]
        try:
            check_label_values(trues, preds)
        except BaccError as exc:
            raise BaccError(f"{where}: columns {spec.true!r} and {spec.pred!r}: {exc}") from None
        labs = label_order([key[i] for key, _ in kept for i in (nb, nb + 1)])
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
    groups = label_order(gkeys) if nb else (None,)
    g_index = {g: i for i, g in enumerate(groups)}
    G, ell = len(groups), len(labs)
    if G * ell * ell > _MAX_CELLS:
        raise BaccError(
            f"{where}: {G} groups x {ell} classes x {ell} classes is too many cells to hold; "
            f"do the columns {spec.true!r} and {spec.pred!r} hold class labels?"
        )
    big = [n for _, n in kept if n < 0 or n > MAX_COUNT]
    if big:
        # the engine sums a cell's counts in 64-bit integers: past 2^63 the sum wraps negative
        raise BaccError(
            f"{where}: a cell's counts add up to more than bacc handles (at most 10^13 examples "
            f"per cell{'' if big[0] > 0 else '; the sum went past 2^63'})"
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
    """The classes given by ``labels=``, checked by the label layer's one rule."""
    labs = check_classes(labels)
    if not labs:
        raise BaccError("labels is empty")
    return labs
