"""``bacc plan`` and ``bacc next-label``: how many labels to collect, and which class next.

The library computes (:func:`bacc.plan_labels`, :func:`bacc.next_label`); the display layer
writes the tables (:mod:`bacc.display.planning_text`); this module reads the options.
"""

from __future__ import annotations

import numpy as np

from ..errors import BaccError
from .inputs import load_items, parse_labels, parse_matrix_text, parse_per_class, parse_prior
from .output import dump_json, out

__all__ = ["next_label", "plan"]


def _current(args):
    """The labels so far: a matrix (an all-zero one allowed), one prediction file, or None."""
    labels = parse_labels(args.labels)
    matrices = args.matrix or []
    if len(matrices) + len(args.inputs) > 1:
        raise BaccError("give one confusion matrix (--matrix) or one predictions file")
    if matrices:
        _, rows = parse_matrix_text(matrices[0])
        arr = np.asarray(rows, dtype=np.int64)
        if args.classes is not None and args.classes != arr.shape[0]:
            raise BaccError(f"--classes {args.classes} but the matrix has {arr.shape[0]} classes")
        if arr.sum() == 0:
            return arr, labels
        from ..confusion import as_confusion_matrix

        return as_confusion_matrix(arr, rows=args.rows, labels=labels), None
    if args.inputs:
        items = load_items(args.inputs, (), true=args.true, preds=args.pred or (),
                           labels=labels, rows=args.rows, sep=args.sep)
        if len(items) != 1:
            raise BaccError(f"give one classifier's labels, got {len(items)} inputs")
        return items[0].confusion, None
    return None, labels


def _classes(cm, labels):
    """The class labels of the matrix so far (None when only their number is known)."""
    return getattr(cm, "labels", None) or labels


def _accuracies(text, classes):
    vals = parse_per_class(text, classes, "--accuracies")
    return vals[0] if isinstance(vals, list) and len(vals) == 1 else vals


def _common(args) -> dict:
    cm, labels = _current(args)
    return dict(
        prior=parse_prior(args.prior) if args.prior else (1.0, 1.0),
        accuracies=_accuracies(args.accuracies, _classes(cm, labels)),
        n_classes=args.classes if cm is None else None,
        labels=labels,
        confidence=args.confidence,
    ), cm


def plan(args) -> int:
    """``bacc plan``: labels needed for a goal of the exact interval, with an assurance."""
    from ..planning import plan_labels

    kw, cm = _common(args)
    result = plan_labels(
        cm, lower=args.lower, width=args.width, assurance=args.assurance, sides=args.sides,
        mix=parse_per_class(args.mix, _classes(cm, kw["labels"]), "--mix"),
        budget=args.budget, method=args.method, n_simulations=args.n_sim,
        random_state=args.random_state, max_labels=args.max_labels, **kw,
    )
    if args.format == "json":
        dump_json(result.to_dict())
    else:
        out(str(result))
    return 0


def next_label(args) -> int:
    """``bacc next-label``: the class whose next labelled example helps the exact interval most."""
    from ..planning import next_label as choose

    kw, cm = _common(args)
    criterion = args.criterion or ("clear" if args.lower is not None else "width")
    result = choose(cm, criterion=criterion, target=args.lower, sides=args.sides or "lower",
                    by=args.by, mix=parse_per_class(args.mix, _classes(cm, kw["labels"]), "--mix"),
                    **kw)
    if args.format == "json":
        dump_json(result.to_dict())
    else:
        out(str(result))
    return 0
