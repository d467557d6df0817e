"""``--across COL``: ``bacc compare`` and ``bacc rank`` across data sets, and the report's
section "Across data sets".

One predictions file, a column naming each example's data set (``--across``), the true class
(``--true``) and two or more prediction columns (``--pred``): the columns predicted the same
examples, so the classifiers are compared (:func:`bacc.compare_across`) or ranked
(:func:`bacc.rank_across`) paired within each data set, for the population of data sets.
The library computes every number; this module checks the options, makes the calls and
writes the outcome.
"""

from __future__ import annotations

from ..errors import BaccError
from .inputs import in_option_terms, looks_like_matrix_text, parse_labels
from .output import dump_json, out, write_csv

__all__ = ["across_compare", "across_rank", "across_result", "check_across"]


def check_across(args, command: str) -> None:
    """Refuse, before any work, what ``--across`` cannot take (one line each).

    Raises
    ------
    BaccError
        ``--by``, ``--fold``, confusion matrices (``--matrix`` or matrix text), other than
        one predictions file, missing ``--true`` or ``--pred``, ``--no-paired``, or an option
        of the per-classifier posterior that the comparison across data sets does not use.
    """
    if args.by:
        raise BaccError("--across and --by cannot be combined: --across names the data set of "
                        "each example, compared within each; for one result per group use --by "
                        "alone")
    if args.matrix or any(looks_like_matrix_text(s) for s in args.inputs):
        raise BaccError("--across needs a predictions file (with --true, --pred and the data-set "
                        "column), not confusion matrices")
    if len(args.inputs) != 1:
        raise BaccError(f"--across takes one predictions file, got {len(args.inputs)} inputs")
    if not args.true or not args.pred:
        raise BaccError("--across needs --true COL and a --pred COL for each classifier")
    if command == "compare" and len(args.pred) != 2:
        raise BaccError(f"compare --across needs exactly two --pred columns, got {len(args.pred)}; "
                        "use 'bacc rank --across' for more")
    if len(args.pred) < 2:
        raise BaccError(f"{command} --across needs at least two --pred columns, got {len(args.pred)}")
    if args.fold:
        raise BaccError("--fold is not used with --across (each data set's examples are pooled "
                        "over its folds)")
    if getattr(args, "paired", None) is False:
        raise BaccError("--no-paired cannot go with --across: the --pred columns of one file "
                        "predicted the same examples and are compared paired within each data set")
    unused = [(args.prior, "--prior"), (args.weights, "--weights"),
              (args.exact_method != "union", "--exact-method"),
              (getattr(args, "tuned_for", None) is not None, "--tuned-for"),
              (args.empty != "drop", "--empty")]
    for given, option in unused:
        if given:
            raise BaccError(f"{option} is not used with --across (each data set's balanced "
                            "accuracies enter with flat priors on the class accuracies)")
    from .._engine.helpers.validate import check_confidence

    try:
        check_confidence(args.confidence)
    except BaccError as exc:
        raise BaccError(f"--confidence: {exc}") from None


def _rope(args) -> float:
    from ..across import DEFAULT_ROPE

    return DEFAULT_ROPE if getattr(args, "rope", None) is None else args.rope


def _terms(exc: BaccError, across: str) -> BaccError:
    """A library message in option terms, the data-set column named ``--across``."""
    msg = str(exc).replace(f"{across!r} (by=)", f"{across!r} (--across)")
    msg = msg.replace("rope must be", "--rope must be").replace("confidence must", "--confidence must")
    return BaccError(in_option_terms(msg))


def across_result(args, *, seed: int = 0):
    """The library's result for parsed arguments: :func:`bacc.compare_across` for two
    ``--pred`` columns, :func:`bacc.rank_across` for more (or for ``bacc rank``)."""
    from ..counting.across_tables import compare_across, rank_across

    common = dict(true=args.true, pred=list(args.pred), across=args.across, rope=_rope(args),
                  confidence=args.confidence, labels=parse_labels(args.labels), sep=args.sep)
    try:
        if args.command == "compare" or (args.command != "rank" and len(args.pred) == 2):
            return compare_across(args.inputs[0], **common)
        return rank_across(args.inputs[0], random_state=seed, **common)
    except BaccError as exc:
        raise _terms(exc, args.across) from None


#: ``--format csv`` of ``bacc compare --across``: the population, a new data set and the common
#: effect (rows by ``what``), then each data set (its estimate and sd, the shrunken difference
#: under the model and P(A better) on it); A minus B throughout.
COMPARE_CSV = ["what", "data_set", "examples", "estimate", "sd", "mean", "lower", "upper",
               "p_better", "p_left", "p_rope", "p_right"]
#: ``--format csv`` of ``bacc rank --across``: one row per classifier, best expected rank first.
RANK_CSV = ["classifier", "expected_rank", "p_best", "effect", "effect_lower", "effect_upper",
            "mean_sample_balanced_accuracy", "average_rank"]


def compare_rows(c) -> list[list]:
    """The rows of :data:`COMPARE_CSV` (values as the result holds them)."""
    lo, hi = c.predictive.interval(c.confidence)
    fe = c.fixed_effects
    rows = [
        ["population", None, None, None, None, c.mean, c.lower, c.upper, c.p_better,
         c.p_left, c.p_rope, c.p_right],
        ["new data set", None, None, None, None, c.predictive.mean(), lo, hi,
         c.predictive.sf(0.0), c.predictive_left, c.predictive_rope, c.predictive_right],
        ["common effect", None, None, None, None, fe["mean"], None, None, fe["p_better"],
         fe["p_left"], fe["p_rope"], fe["p_right"]],
    ]
    for d in c.data_set_differences:
        rows.append(["data set", d.data_set, d.n_examples, d.mean, d.sd, d.shrunken_mean,
                     d.shrunken_lower, d.shrunken_upper, d.p_better, None, None, None])
    return rows


def rank_rows(r) -> list[list]:
    """The rows of :data:`RANK_CSV`."""
    return [[r.names[i], float(r.expected_rank[i]), float(r.p_best[i]), float(r.effect[i]),
             float(r.effect_lower[i]), float(r.effect_upper[i]),
             float(r.mean_sample_balanced_accuracy[i]), r.classical.average_ranks[i]]
            for i in r.order]


def _head(args) -> None:
    out(f"data sets: the values of column {args.across}")
    out(f"file: {args.inputs[0]}")
    out()


def across_compare(args) -> int:
    """``bacc compare FILE --true COL --pred A --pred B --across COL``."""
    check_across(args, "compare")
    comp = across_result(args)
    if args.format == "json":
        dump_json({"a": comp.names[0], "b": comp.names[1], "paired": comp.paired,
                   "across": args.across, "comparison": comp.to_dict()})
        return 0
    if args.format == "csv":
        write_csv(COMPARE_CSV, compare_rows(comp))
        return 0
    _head(args)
    out(str(comp))
    return 0


def across_rank(args) -> int:
    """``bacc rank FILE --true COL --pred A --pred B --pred C ... --across COL``."""
    check_across(args, "rank")
    ranking = across_result(args, seed=args.seed)
    if args.format == "json":
        dump_json({"across": args.across, "ranking": ranking.to_dict()})
        return 0
    if args.format == "csv":
        write_csv(RANK_CSV, rank_rows(ranking))
        return 0
    _head(args)
    out(str(ranking))
    return 0
