"""Counting in plain Python: a mapping of columns, or the rows of a long table of counts."""

from __future__ import annotations

import math
import numbers
import os
from collections import Counter
from collections.abc import Mapping, Sequence

from ..errors import BaccError
from .tally import Spec, Tally, check_columns, clean_value

__all__ = ["is_row_sequence", "rows_to_columns", "tally_columns"]


def is_row_sequence(table) -> bool:
    """True for a non-empty sequence of rows (tuples or lists), as :func:`counts_from_long` takes."""
    if isinstance(table, str | bytes | os.PathLike | Mapping) or not isinstance(table, Sequence):
        return False
    return bool(table) and isinstance(table[0], tuple | list)


def rows_to_columns(rows: Sequence, names: list[str]) -> dict[str, list]:
    """The rows of a long table as a mapping of columns ``names``; every row has one field per name."""
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


def tally_columns(source: Mapping, spec: Spec) -> Tally:
    """Count a mapping of column name to sequence of values in Python (small data)."""
    where = "the mapping of columns"
    check_columns([str(k) for k in source], spec, where)
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
    keyed = zip(*(map(clean_value, c) for c in cols[:nk]), strict=True)
    try:
        if spec.count is None:
            return Tally([(*k, n) for k, n in Counter(keyed).items()], where)
        return Tally(_sum_counts(keyed, cols[nk], spec), where)
    except TypeError as exc:
        raise BaccError(f"labels and group values must be hashable: {exc}") from None


def _sum_counts(keyed, values, spec: Spec) -> list:
    acc: dict[tuple, list] = {}
    for k, v in zip(keyed, values, strict=True):
        cell = acc.setdefault(k, [0, 0, 0, 0])
        v = clean_value(v)
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
