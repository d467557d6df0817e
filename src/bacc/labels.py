"""Class labels and per-class options: the one path from a user's labels to class indices.

Every public function that takes class labels (``y_true``/``y_pred``, predictions of several
classifiers, subject or detector ids) or a per-class option (``weights``, a per-class
``prior``, a class ``mix``, per-class ``accuracies``) goes through this module, so that one
rule holds everywhere:

- **Type.** Labels are plain values: numpy scalars become the Python value they hold. Labels
  of one call are of one kind: numbers (``1`` and ``1.0`` are the same class), text, or
  booleans. Mixing kinds is refused: ``1`` and ``"1"`` print alike but are different values,
  and taking them as two classes (or guessing that they are one) gives a silent wrong number.
- **Order.** Classes are ordered naturally (:func:`class_order`): numbers by value, text that
  is all integers by value (``"9"`` before ``"10"``), other text alphabetically.
- **Missing values.** ``None``, NaN, NaT and ``pandas.NA`` are never a class (nor a subject):
  they are refused with the position of the first one.
- **Per-class options.** A mapping or a pandas Series keyed by class label is aligned by label
  (every class named once, no unknown label); a list or array follows the class order.

The numerics below this layer receive plain arrays in that class order and never guess.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np

from .errors import BaccError

__all__ = [
    "check_one_kind",
    "class_index",
    "class_order",
    "encode",
    "is_labelled",
    "is_missing",
    "label_kind",
    "per_class",
    "plain",
]


def plain(v):
    """The Python value of a numpy scalar (``np.int64(1)`` -> ``1``); other values unchanged."""
    if isinstance(v, np.generic):
        return v.item()
    return v


def is_missing(v) -> bool:
    """``None``, NaN, NaT and ``pandas.NA`` (a value that is not equal to itself, or NA)."""
    if v is None:
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        # pandas.NA: its comparisons are NA, whose truth value is ambiguous
        return type(v).__name__ == "NAType"


def label_kind(v) -> str:
    """The kind of a label: ``"number"``, ``"text"``, ``"bool"`` or the type's name."""
    if isinstance(v, bool | np.bool_):
        return "bool"
    if isinstance(v, numbers.Real):
        return "number"
    if isinstance(v, str):
        return "text"
    return type(v).__name__


def _short(v) -> str:
    s = repr(plain(v))
    return s if len(s) <= 30 else s[:26] + "...'"


def check_one_kind(values: Iterable, where: str = "the labels") -> None:
    """Refuse labels of more than one kind (numbers, text, booleans), naming an example of each.

    Parameters
    ----------
    values : iterable
        Distinct labels (or labels with repeats).
    where : str
        What the labels are, for the message.

    Raises
    ------
    BaccError
        Labels of two or more kinds, e.g. ``1`` and ``"1"``.

    Examples
    --------
    >>> check_one_kind([0, 1, 2.0])
    >>> check_one_kind([1, "1"])
    Traceback (most recent call last):
    ...
    bacc.errors.BaccError: the labels mix numbers (e.g. 1) and text (e.g. '1'); give every label one type (for example convert both columns to text, or both to numbers)
    """
    seen: dict[str, object] = {}
    for v in values:
        seen.setdefault(label_kind(v), v)
    if len(seen) > 1:
        names = {"number": "numbers", "text": "text", "bool": "booleans"}
        parts = [f"{names.get(k, k + ' values')} (e.g. {_short(v)})" for k, v in seen.items()]
        raise BaccError(
            f"{where} mix {' and '.join(parts)}; give every label one type (for example "
            "convert both columns to text, or both to numbers)"
        )


def class_order(labels: Iterable) -> tuple:
    """Distinct labels in their natural order: numerically when all are integers, else sorted.

    Labels read from text files are strings; when every one of them is an integer written as
    text, ``"10"`` comes after ``"9"``. This is the one ordering rule of bacc: matrices,
    comparisons, rankings, subjects and detectors all use it.

    Parameters
    ----------
    labels : iterable
        Labels as read, with repeats (numbers, text or booleans; one kind, see
        :func:`check_one_kind`).

    Returns
    -------
    tuple
        Each distinct label once, in order.

    Examples
    --------
    >>> class_order(["10", "9", "10", "1"])
    ('1', '9', '10')
    >>> class_order(["dog", "cat"])
    ('cat', 'dog')
    """
    seen = list(dict.fromkeys(plain(v) for v in labels))

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
        pairs = sorted(zip(ints, seen, strict=True), key=lambda t: (t[0], str(t[1])))
        return tuple(v for _, v in pairs)
    try:
        return tuple(sorted(seen))
    except TypeError:
        return tuple(sorted(seen, key=lambda v: (type(v).__name__, str(v))))


def _as_sequence(values, name: str) -> list:
    """A 1-D list of plain labels, refusing strings, masked entries and other shapes."""
    if isinstance(values, str | bytes):
        raise BaccError(f"{name} must be a sequence of labels, not a single string")
    if np.ma.isMaskedArray(values) and np.ma.count_masked(values):
        raise BaccError(
            f"{name} has {int(np.ma.count_masked(values))} masked entries; drop those examples "
            "(e.g. keep = ~(y_true.mask | y_pred.mask)) or fill them before counting"
        )
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        # pandas/polars Series: their own missing values (pd.NA, None) come through as objects
        values = values.to_numpy(dtype=object) if _is_pandas(values) else values.to_list()
    arr = np.asarray(values, dtype=object)
    if arr.ndim == 2 and isinstance(values, list | tuple) and all(
            isinstance(v, tuple) for v in values):
        # keys of several columns (a group named by two columns is a tuple): one label each
        arr = np.empty(len(values), dtype=object)
        for i, v in enumerate(values):
            arr[i] = v
    if arr.ndim != 1:
        raise BaccError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if isinstance(values, np.ndarray) and values.dtype != object and values.ndim == 1:
        return values.tolist()  # numpy's own conversion of each entry: what plain() gives
    if not any(issubclass(t, np.generic) for t in set(map(type, arr))):
        return arr.tolist()  # no numpy scalars: the entries as they are
    return [plain(v) for v in arr]


def _is_pandas(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "pandas"


def encode(
    named: Mapping[str, object], *, labels=None, refuse=None, item: str = "label"
) -> tuple[tuple, list[np.ndarray]]:
    """Normalise label sequences once and turn them into class indices.

    Parameters
    ----------
    named : mapping of str to sequence
        The label sequences by the name the user knows them by (``{"y_true": ..., "y_pred":
        ...}``), all of one length.
    labels : sequence, optional
        The classes in order. Without it, every label seen is a class, in :func:`class_order`.
    refuse : callable, optional
        Called with the plain sequences (name -> list) before classes are formed, to refuse what
        is probably not a class label (continuous scores, disjoint vocabularies).
    item : str
        What one entry is (``"label"``, ``"subject id"``), for messages.

    Returns
    -------
    classes : tuple
        The classes, in order.
    codes : list of numpy.ndarray
        For each sequence, the class index of each entry (int64).

    Raises
    ------
    BaccError
        Sequences of different lengths or empty, a missing value, masked entries, labels of
        mixed kinds, a label not among ``labels``, or unhashable labels.

    Examples
    --------
    >>> classes, (t, p) = encode({"y_true": ["9", "10", "9"], "y_pred": ["10", "10", "9"]})
    >>> classes, t.tolist(), p.tolist()
    (('9', '10'), [0, 1, 0], [1, 1, 0])
    """
    seqs = {name: _as_sequence(values, name) for name, values in named.items()}
    lengths = {name: len(s) for name, s in seqs.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{n} {k}" for n, k in lengths.items())
        raise BaccError(f"the label sequences must have the same length (one entry per example), got {listed}")
    if not seqs or next(iter(lengths.values())) == 0:
        raise BaccError(f"{' and '.join(seqs)} are empty")
    # every check below looks at each distinct value (or type) once; the positions and examples
    # in the messages are found by a second pass only when a check fails
    uniques = []
    for name, seq in seqs.items():
        try:
            unique = dict.fromkeys(seq)
        except TypeError:
            unique = None
        if unique is None or any(is_missing(v) for v in unique):
            _refuse_entries(name, seq, item)
        uniques.append(unique)
    distinct = list(dict.fromkeys(v for unique in uniques for v in unique))
    # kinds of every value: True and 1 are one key of a dict, but not one kind of label; a
    # kind depends on the type alone, so the first value of each type stands for it
    kinds: dict = {}
    for seq in seqs.values():
        for t in dict.fromkeys(map(type, seq)):
            v = next(x for x in seq if type(x) is t)
            kinds.setdefault(label_kind(v), v)
    if labels is None:
        if refuse is not None:
            refuse(seqs)
        check_one_kind(kinds.values(), f"{' and '.join(seqs)}")
        classes = class_order(distinct)
    else:
        classes = check_classes(labels)
        check_one_kind(list(classes) + list(kinds.values()), f"labels and {' and '.join(seqs)}")
    index = {c: i for i, c in enumerate(classes)}
    codes = []
    for name, seq in seqs.items():
        try:
            codes.append(np.fromiter(map(index.__getitem__, seq), dtype=np.int64, count=len(seq)))
        except KeyError as exc:
            raise BaccError(
                f"{name} contains the label {_short(exc.args[0])}, which is not in labels"
            ) from None
    return classes, codes


def _refuse_entries(name: str, seq: list, item: str) -> None:
    """The error for a sequence holding a missing value or an unhashable one (the first problem
    in the order the entries are checked: missing values first)."""
    missing = [i for i, v in enumerate(seq) if is_missing(v)]
    if missing:
        raise BaccError(
            f"{name} has {len(missing)} missing {item}(s) (None, NaN, NaT or NA; the first at "
            f"position {missing[0]}); drop those examples before counting"
        )
    for v in seq:
        try:
            hash(v)
        except TypeError:
            raise BaccError(
                f"{name} holds {type(v).__name__} values (e.g. {_short(v)}), not single "
                "class labels"
            ) from None
    raise AssertionError("no missing or unhashable entry")  # pragma: no cover


def check_classes(labels, n: int | None = None, name: str = "labels") -> tuple:
    """Class labels given by the user: plain, distinct, hashable, not missing, of one kind.

    Parameters
    ----------
    labels : sequence
        One label per class, in class order.
    n : int, optional
        The number of classes they must name.
    name : str
        The option's name, for messages.

    Returns
    -------
    tuple
        The labels as plain values.
    """
    labs = tuple(_as_sequence(labels, name))
    if n is not None and len(labs) != n:
        raise BaccError(f"{name} has {len(labs)} entries but there are {n} classes")
    for lab in labs:
        if not isinstance(lab, Hashable):
            raise BaccError(f"{name} must be hashable values, got {_short(lab)}")
        if is_missing(lab):
            raise BaccError(f"{name} holds a missing value ({lab!r}); every class needs a label")
    if len(set(labs)) != len(labs):
        dup = next(v for i, v in enumerate(labs) if v in labs[:i])
        raise BaccError(f"{name} must be distinct, {_short(dup)} appears more than once")
    check_one_kind(labs, name)
    return labs


def class_index(label, classes: Sequence, name: str = "label") -> int:
    """The position of one class label among ``classes`` (``True`` is no name for class ``1``).

    Parameters
    ----------
    label : object
        A class label given by the user.
    classes : sequence
        The classes, in order.
    name : str
        The option's name, for messages.

    Returns
    -------
    int

    Raises
    ------
    BaccError
        A label that is not a class, or one of another kind than the classes.

    Examples
    --------
    >>> class_index("pos", ("neg", "pos"))
    1
    """
    label = plain(label)
    try:
        i = list(classes).index(label)
    except ValueError:
        i = -1
    if i < 0 or label_kind(label) != label_kind(classes[i]):
        raise BaccError(
            f"{name} {_short(label)} is not a class of the matrix (the classes are "
            f"{_class_list(classes)})"
        )
    return i


def is_labelled(value) -> bool:
    """True when ``value`` names its classes: a mapping, or a pandas Series whose index is not
    the default ``0, 1, ...`` positions."""
    if isinstance(value, Mapping):
        return True
    if _is_pandas(value) and hasattr(value, "index") and getattr(value, "ndim", 2) == 1:
        idx = value.index
        default = type(idx).__name__ == "RangeIndex" and idx.start == 0 and idx.step == 1
        return not default
    return False


def _class_list(classes: Sequence) -> str:
    shown = ", ".join(_short(c) for c in list(classes)[:10])
    return shown + (f", ... ({len(classes)} classes)" if len(classes) > 10 else "")


def per_class(value, classes: Sequence, name: str, *, width: int | None = None):
    """A per-class option as an array in class order.

    Labelled options (a mapping, or a pandas Series with a label index) are aligned by label:
    every class must be named once and no other label may appear. Unlabelled ones (lists,
    tuples, arrays, Series with the default index) follow the class order and must have one
    entry per class. A pandas Series with the default index ``0, 1, ...`` is read by label
    when the classes are exactly those integers (then both readings agree).

    Parameters
    ----------
    value : mapping, pandas.Series, sequence or array, or None
        The option.
    classes : sequence
        The classes, in order.
    name : str
        The option's name, for messages.
    width : int, optional
        Entries per class (e.g. 2 for a Beta prior ``(a, b)`` per class); ``None`` for one
        number per class.

    Returns
    -------
    numpy.ndarray or None
        Shape ``(len(classes),)`` or ``(len(classes), width)``, float; ``None`` for ``None``.
        Unlabelled values are returned as given (as an array) for the caller's own shape
        checks, so a single pair or a scalar broadcast by the caller stays possible.

    Raises
    ------
    BaccError
        A label that is not a class, a class left out, a label named twice, or values that are
        not numbers.

    Examples
    --------
    >>> per_class({"pos": 0.05, "neg": 0.95}, ("neg", "pos"), "mix").tolist()
    [0.95, 0.05]
    >>> per_class([0.95, 0.05], ("neg", "pos"), "mix").tolist()
    [0.95, 0.05]
    """
    if value is None:
        return None
    classes = tuple(classes)
    if not is_labelled(value):
        if _is_pandas(value):
            value = value.to_numpy()
        try:
            return np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise BaccError(f"{name} must be numbers, one per class, got {_short(value)}") from None
    if isinstance(value, Mapping):
        items = list(value.items())
    else:
        items = list(zip(value.index.tolist(), value.tolist(), strict=True))
    index = {c: i for i, c in enumerate(classes)}
    out: list = [None] * len(classes)
    for key, v in items:
        key = plain(key)
        try:
            i = index[key]
        except (KeyError, TypeError):
            raise BaccError(
                f"{name} names the label {_short(key)}, which is not a class (the classes are "
                f"{_class_list(classes)})"
            ) from None
        if label_kind(key) != label_kind(classes[i]):
            raise BaccError(
                f"{name} names the label {_short(key)}, but the class is {_short(classes[i])}; "
                "give the labels with the classes' type"
            )
        if out[i] is not None:
            raise BaccError(f"{name} names the class {_short(classes[i])} more than once")
        out[i] = v
    missing = [c for c, v in zip(classes, out, strict=True) if v is None]
    if missing:
        raise BaccError(
            f"{name} gives no value for the class(es) {_class_list(missing)}; {name} given by "
            f"label must name every class ({_class_list(classes)})"
        )
    try:
        arr = np.array(out, dtype=float)
    except (TypeError, ValueError):
        raise BaccError(f"{name} must be numbers, got {_short(value)}") from None
    if width is not None and arr.shape != (len(classes), width):
        raise BaccError(
            f"{name} keyed by label needs {width} numbers per class, got shape {arr.shape[1:]}"
        )
    return arr
