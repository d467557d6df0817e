"""``--score COL``: ``bacc evaluate`` and ``bacc report`` on a classifier's scores, and
``bacc threshold``.

One predictions file, the true class (``--true``) and the classifier's score (``--score``;
a score at or above the threshold predicts the positive class, ``--positive``). ``bacc
evaluate`` prints the AUC by every interval method, each labelled by kind, and the best
threshold with its in-sample and honest balanced accuracies; with ``--threshold T`` it evaluates
the decisions ``score >= T`` like predictions. ``bacc threshold`` prints the threshold that
keeps a promise (``--recall``, ``--fpr`` or ``--precision``) with ``--confidence``; ``bacc
report`` adds the section "Scores and thresholds". Several ``--score`` columns, one per class in
class order, give each class against the rest. The library computes every number
(:func:`bacc.scores` and the methods of :class:`bacc.ScoreCurve`); this module checks the
options, makes the calls and writes the outcome.
"""

from __future__ import annotations

import math
import re

from ..errors import BaccError
from .inputs import Item, in_option_terms, looks_like_matrix_text, parse_labels
from .output import dump_json, heading, out

__all__ = [
    "check_score_options",
    "load_scores",
    "score_entries",
    "score_items",
    "scores_summary",
    "threshold_command",
]

#: The promises of a guaranteed threshold: option, and whether 1 (rather than 0) is allowed.
GOALS = (("recall", True), ("fpr", False), ("precision", True))


# ------------------------------------------------------------------------------- checking
def _columns(args) -> list[str]:
    s = args.score
    return [] if s is None else [s] if isinstance(s, str) else list(s)


def goal_of(args) -> tuple[str, float] | None:
    """The promise given (``--recall``, ``--fpr`` or ``--precision``) and its value, checked by
    the library's rule (recall and precision in (0, 1], the false-positive rate in [0, 1))."""
    from ..guaranteed_threshold import check_goal

    for name, closed_high in GOALS:
        v = getattr(args, name, None)
        if v is None:
            continue
        return name, check_goal(v, f"--{name}", closed_high=closed_high)
    return None


def _check_confidence(args) -> None:
    from .._engine.helpers.validate import check_confidence

    try:
        check_confidence(args.confidence)
    except BaccError as exc:
        raise BaccError(f"--confidence: {exc}") from None


def _check_prevalence(value) -> None:
    if value is None:
        return
    from ..prevalence import check_prevalence

    try:
        check_prevalence(value)
    except BaccError as exc:
        raise BaccError(f"--prevalence: {exc}") from None


def check_score_options(args, command: str) -> None:
    """Refuse, before any work, what ``--score`` cannot take (one line each).

    Parameters
    ----------
    args : argparse.Namespace
    command : {"evaluate", "report", "threshold"}

    Raises
    ------
    BaccError
        ``--pred`` with ``--score`` (evaluate), confusion matrices, no predictions file or no
        ``--true``, ``--by``, ``--fold`` or ``--across``, ``--positive`` or ``--threshold``
        without ``--score``, a goal out of range, options of the evaluation of decisions
        without ``--threshold``.
    """
    cols = _columns(args)
    threshold = getattr(args, "threshold", None)
    if not cols:
        if threshold is not None:
            raise BaccError("--threshold needs --score COL (the column of the scores)")
        if getattr(args, "positive", None) is not None:
            raise BaccError("--positive goes with --score (the class a high score predicts)")
        if command == "report" and goal_of(args) is not None:
            raise BaccError("--recall, --fpr and --precision of 'bacc report' need --score COL "
                            "(a guaranteed threshold of the scores)")
        if command == "threshold":
            raise BaccError("threshold needs --score COL (the column of the scores)")
        return
    if command == "evaluate" and args.pred:
        raise BaccError("give --pred (predicted classes) or --score (scores), not both")
    if getattr(args, "matrix", None) or any(looks_like_matrix_text(s) for s in args.inputs):
        raise BaccError("--score needs a predictions file (with --true and --score columns), "
                        "not confusion matrices")
    if not args.inputs:
        raise BaccError("--score needs a predictions file (with --true and --score columns)")
    if not args.true:
        raise BaccError("--score needs --true COL (the column of the true classes)")
    for option in ("by", "fold", "across"):
        if getattr(args, option, None):
            raise BaccError(f"--{option} is not used with --score")
    if len(cols) > 1 and args.positive is not None:
        raise BaccError("--positive applies to one --score column; with one column per class "
                        "every class is positive in turn (against the rest)")
    if len(set(cols)) < len(cols):
        raise BaccError("a --score column is given twice")
    _check_confidence(args)
    goal = goal_of(args)
    if command == "threshold":
        _check_prevalence(args.prevalence)
        return
    if command == "report":
        if not args.pred and args.population:
            raise BaccError("--population needs --pred columns (or --by groups); it is not used "
                            "with --score alone")
        if len(cols) > 1 and goal is not None:
            raise BaccError("--recall, --fpr and --precision apply to one --score column")
        if args.prevalence is not None and not args.metrics and goal is None:
            raise BaccError("--prevalence needs --metrics, or with --score a goal (--recall, "
                            "--fpr or --precision)")
        _check_prevalence(args.prevalence)
        return
    if threshold is not None:
        if len(cols) > 1:
            raise BaccError("--threshold needs one --score column (two classes)")
        if math.isnan(threshold):
            raise BaccError("--threshold must be a number, got nan")
        return
    # the AUC and the best threshold: the options of an evaluation of decisions do not apply
    unused = [(args.format == "csv", "--format csv"), (args.metrics, "--metrics"),
              (args.prevalence is not None, "--prevalence"), (args.weights, "--weights"),
              (args.exact_method != "union", "--exact-method"),
              (getattr(args, "tuned_for", None) is not None, "--tuned-for"),
              (args.empty != "drop", "--empty")]
    for given, option in unused:
        if given:
            raise BaccError(f"{option} applies to decisions: with --score add --threshold T")


# -------------------------------------------------------------------------------- loading
_LIBRARY_ARGUMENT = re.compile(r"(?<![\w-])(score|positive|labels|recall|fpr|precision|"
                               r"prevalence|threshold)=(?![\w'\"])")


def _terms(message: str) -> str:
    """A library message in option terms (``score=`` as ``--score``)."""
    return _LIBRARY_ARGUMENT.sub(lambda m: f"--{m.group(1)}", in_option_terms(message))


def _with_positive(curve, positive: str):
    """``curve`` with ``positive`` (a class, or its text) as the positive class."""
    from ..score_curve import ScoreCurve

    match = [c for c in curve.classes if c == positive or str(c) == positive]
    if not match:
        raise BaccError(f"--positive {positive!r} is not a class (the classes are "
                        f"{', '.join(repr(c) for c in curve.classes)})")
    c = match[0]
    if c == curve.positive:
        return curve
    # the other class positive: the examples at each score swap sides
    return ScoreCurve(curve.classes, c, curve.values, curve.negatives, curve.positives,
                      binned=curve.binned, name=curve.name)


def load_scores(args):
    """The scores of the predictions file: a :class:`bacc.ScoreCurve` (one ``--score``) or a
    :class:`bacc.OneVsRest` (one per class), and the source's name.

    Raises
    ------
    BaccError
        The library's refusals (a missing column, NaN or infinite scores, one class only, ...)
        in option terms.
    """
    from ..counting.score_tables import scores

    cols = _columns(args)
    source = args.inputs[0] if len(args.inputs) == 1 else list(args.inputs)
    try:
        got = scores(source, true=args.true, score=cols[0] if len(cols) == 1 else cols,
                     labels=parse_labels(args.labels), sep=args.sep)
        if args.positive is not None:
            got = _with_positive(got, args.positive)
    except BaccError as exc:
        raise BaccError(_terms(str(exc))) from None
    return got, ", ".join(args.inputs)


def _curves(got) -> list[tuple[str, object]]:
    """(name, curve) of each score: one, or one per class against the rest."""
    from ..score_curve import ScoreCurve

    if isinstance(got, ScoreCurve):
        return [(str(got.name), got)]
    return [(f"{c} vs rest ({cur.name})", cur) for c, cur in got.items()]


def score_items(args) -> list[Item]:
    """The decisions ``score >= --threshold`` as the one input of ``bacc evaluate``."""
    got, source = load_scores(args)
    name, curve = _curves(got)[0]
    try:
        cm = curve.matrix(args.threshold)
    except BaccError as exc:
        raise BaccError(_terms(str(exc))) from None
    return [Item(name=f"{name} >= {args.threshold:g}", confusion=cm, source=source)]


# ----------------------------------------------------------------------------- computing
def _prior(args):
    from .results import Settings

    return Settings.from_args(args).prior


def _aucs(curve, confidence: float) -> list:
    from ..roc import AUC_METHODS

    return [curve.auc(m, confidence=confidence) for m in AUC_METHODS]


def _best(curve, args, prior):
    try:
        return curve.best_threshold(confidence=args.confidence, prior=prior)
    except BaccError as exc:
        raise BaccError(_terms(str(exc))) from None


def _summary_dict(curve, aucs, chosen, name: str, source: str) -> dict:
    head = {k: v for k, v in curve.to_dict().items()
            if k not in ("values", "positives", "negatives")}
    return {"name": name, "source": source, "scores": head,
            "auc": {iv.method: iv.to_dict() for iv in aucs}, "best_threshold": chosen.to_dict()}


def scores_summary(args) -> int:
    """``bacc evaluate --score``: the AUC by every method, labelled by kind, and the best
    threshold with its in-sample and honest balanced accuracies, the optimism (table or
    JSON)."""
    from ..display.scores_text import scores_summary_text

    prior = _prior(args)
    got, source = load_scores(args)
    parts = [(name, curve, _aucs(curve, args.confidence), _best(curve, args, prior))
             for name, curve in _curves(got)]
    if args.format == "json":
        dicts = [_summary_dict(c, a, b, n, source) for n, c, a, b in parts]
        if len(dicts) == 1:
            dump_json(dicts[0])
        else:
            dump_json({"classes": [d["scores"]["positive"] for d in dicts],
                       "macro_auc": got.macro_auc(), "curves": dicts})
        return 0
    if len(parts) > 1:
        out(f"{len(parts)} classes, each against the rest: macro AUC {got.macro_auc():.4f} "
            "(the mean of their sample AUCs)")
        out()
    for i, (name, curve, aucs, chosen) in enumerate(parts):
        if i:
            out()
        out(heading(f"== {name}", source))
        out(scores_summary_text(curve, aucs, chosen, name=curve.name))
    return 0


# ----------------------------------------------------------------------------- threshold
def threshold_command(args) -> int:
    """``bacc threshold``: the threshold that keeps a promise with ``--confidence`` (table or
    JSON, the result's ``to_dict()``)."""
    check_score_options(args, "threshold")
    goal = goal_of(args)
    got, source = load_scores(args)
    from ..score_curve import ScoreCurve

    if not isinstance(got, ScoreCurve):  # pragma: no cover - one --score column is one curve
        raise BaccError("threshold takes one --score column (two classes)")
    try:
        g = got.threshold_for(**{goal[0]: goal[1]}, prevalence=args.prevalence,
                              confidence=args.confidence)
    except BaccError as exc:
        raise BaccError(_terms(str(exc))) from None
    if args.format == "json":
        dump_json(g.to_dict())
        return 0
    out(heading(f"== {got.name}", source))
    out(str(g))
    return 0


# -------------------------------------------------------------------------------- report
def score_entries(args) -> list:
    """The report's entries of ``--score``: per score the threshold curve, the ROC, the AUC by
    every method, the best threshold and, with a goal, the guaranteed threshold."""
    from ..display.scores_report import ScoresEntry

    prior = _prior(args)
    got, source = load_scores(args)
    goal = goal_of(args)
    entries = []
    for name, curve in _curves(got):
        guaranteed = None
        if goal is not None:
            try:
                guaranteed = curve.threshold_for(**{goal[0]: goal[1]},
                                                 prevalence=args.prevalence,
                                                 confidence=args.confidence)
            except BaccError as exc:
                raise BaccError(_terms(str(exc))) from None
        entries.append(ScoresEntry(
            name=name, curve=curve,
            threshold_curve=curve.curve(confidence=args.confidence, prior=prior),
            roc=curve.roc(confidence=args.confidence), aucs=tuple(_aucs(curve, args.confidence)),
            chosen=_best(curve, args, prior), guaranteed=guaranteed, source=source))
    return entries


def score_sections(args) -> list:
    """With ``--score``: the report's section "Scores and thresholds"; else none."""
    if not _columns(args):
        return []
    from ..display.report import Section

    entries = score_entries(args)
    what = ("each class against the rest" if len(entries) > 1
            else f"a score at or above the threshold predicts {entries[0].curve.positive}")
    return [Section(title="Scores and thresholds", entries=(), scores=tuple(entries),
                    description=f"The scores of column {', '.join(_columns(args))} ({what}).")]
