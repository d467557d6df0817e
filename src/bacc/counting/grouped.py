"""One confusion matrix per group, over shared classes: the result of a grouped count."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np

from .._engine.helpers.convert import jsonable
from ..confusion import ConfusionMatrix
from ..errors import BaccError

__all__ = ["GroupedCounts"]


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
        if np.ma.isMaskedArray(self.counts):
            hidden = np.ma.getmaskarray(self.counts)
            if hidden.any():
                raise BaccError(
                    f"counts is a masked array with {int(hidden.sum())} masked count(s); fill "
                    "them (e.g. counts.filled(0)) or pass a plain array"
                )
        raw = np.asarray(np.ma.getdata(self.counts))
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
