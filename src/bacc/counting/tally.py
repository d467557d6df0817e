"""What is counted (:class:`Spec`) and what every engine hands back (:class:`Tally`).

Each engine runs one aggregation, ``SELECT by..., true, pred, COUNT(*) ... GROUP BY by...,
true, pred`` (``SUM(count)`` and three checks of the count column with ``count=``), and returns
its rows as a :class:`Tally`; :func:`bacc.counting.assemble.assemble` turns any tally into
confusion matrices. Messages name columns with the argument that named them (``true=``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import BaccError

__all__ = ["Spec", "Tally", "check_columns", "clean_value", "first_line"]


@dataclass(frozen=True)
class Spec:
    """The columns of a count: true, pred, the grouping columns and an optional count column."""

    true: str
    pred: str
    by: tuple
    count: str | None

    @classmethod
    def make(cls, true, pred, by, count) -> Spec:
        """Check the column arguments of :func:`bacc.counts` and return them as a Spec.

        Raises
        ------
        BaccError
            A column argument that is not a non-empty string, an empty ``by``, or two
            arguments that name the same column.
        """
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
        """Every column the count reads: the keys, then the count column if there is one."""
        return self.keys + ([self.count] if self.count else [])

    def option(self, col: str) -> str:
        """The argument that named column ``col`` (``"true="``, ...), for messages."""
        if col == self.true:
            return "true="
        if col == self.pred:
            return "pred="
        if col == self.count:
            return "count="
        return "by="


@dataclass
class Tally:
    """Aggregated rows from an engine.

    Attributes
    ----------
    rows : list of tuple
        ``(*by, true, pred, n)``, or ``(*by, true, pred, n, n_negative, n_fractional,
        n_missing)`` with a count column (how many of its values break the rules).
    where : str
        The source, for messages.
    text_labels : bool
        The engine read the labels as text (CSV files): given labels are matched by ``str``.
    """

    rows: list
    where: str
    text_labels: bool = False


def check_columns(available: Sequence[str], spec: Spec, where: str) -> None:
    """Raise a BaccError naming every column of ``spec`` missing from ``available``.

    Parameters
    ----------
    available : sequence of str
        The columns the source has.
    spec : Spec
    where : str
        The source, for the message (``"the pandas DataFrame"``).
    """
    avail = [str(c) for c in available]
    missing = [c for c in spec.columns if c not in avail]
    if missing:
        what = ", ".join(f"{c!r} ({spec.option(c)})" for c in missing)
        shown = ", ".join(repr(c) for c in avail[:30]) + (", ..." if len(avail) > 30 else "")
        noun = "column" if len(missing) == 1 else "columns"
        raise BaccError(f"{where} has no {noun} {what}; available columns: {shown or '(none)'}")


def clean_value(v):
    """A plain Python value; ``None`` for every kind of missing value (None, NaN, NA, NaT, and
    the masked entries of a ``numpy.ma`` array)."""
    if v is None or v is np.ma.masked:
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


def first_line(exc: BaseException) -> str:
    """The first line of an engine's error message (messages stay one line), with the reason
    when the first line only says where (DuckDB's ``CSV Error on Line: 2``)."""
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    head = lines[0]
    if re.search(r"(CSV Error on Line: \d+|Error when sniffing file .*)$", head):
        reason = next((ln for ln in lines[1:] if not ln.startswith("Original Line")), None)
        if reason:
            head = f"{head.rstrip('.')}: {reason}"
    return head

