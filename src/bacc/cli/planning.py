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


def _tuned_for(value, flag: str, option: str):
    if value is None:
        return None
    if not flag:
        raise BaccError(f"--tuned-for is for {option}")
    return value


def plan(args) -> int:
    """``bacc plan``: labels needed for a goal of the exact interval, with an assurance; with
    ``--sequential``, what labelling until the anytime-valid bound clears the goal costs."""
    tuned_for = _tuned_for(args.tuned_for, args.sequential, "--sequential")
    kw, cm = _common(args)
    mix = parse_per_class(args.mix, _classes(cm, kw["labels"]), "--mix")
    if args.sequential:
        from ..sequential import plan_sequential

        if args.lower is None:
            raise BaccError("--sequential needs --lower T (labelling stops when the bound clears T)")
        if args.budget is not None:
            raise BaccError("--budget is for the fixed-size plan; --sequential reports the "
                            "distribution of labels needed")
        result = plan_sequential(
            cm, lower=args.lower, assurance=args.assurance, sides=args.sides or "lower",
            mix=mix, tuned_for=tuned_for,
            max_labels=10_000 if args.max_labels is None else args.max_labels,
            n_simulations=2000 if args.n_sim is None else args.n_sim,
            random_state=args.random_state, **kw)
    else:
        from ..planning import plan_labels

        result = plan_labels(
            cm, lower=args.lower, width=args.width, assurance=args.assurance, sides=args.sides,
            mix=mix, budget=args.budget, method=args.method,
            n_simulations=20_000 if args.n_sim is None else args.n_sim,
            random_state=args.random_state,
            max_labels=1_000_000 if args.max_labels is None else args.max_labels, **kw,
        )
    if args.format == "json":
        dump_json(result.to_dict())
    else:
        out(str(result))
    return 0


def next_label(args) -> int:
    """``bacc next-label``: the class whose next labelled example helps the exact interval most."""
    from ..planning import next_label as choose

    tuned_for = _tuned_for(args.tuned_for, args.anytime, "--anytime")
    kw, cm = _common(args)
    criterion = args.criterion or ("clear" if args.lower is not None else "width")
    result = choose(cm, criterion=criterion, target=args.lower, sides=args.sides or "lower",
                    by=args.by, mix=parse_per_class(args.mix, _classes(cm, kw["labels"]), "--mix"),
                    interval="anytime" if args.anytime else "exact", tuned_for=tuned_for, **kw)
    if args.format == "json":
        dump_json(result.to_dict())
    else:
        out(str(result))
    return 0
