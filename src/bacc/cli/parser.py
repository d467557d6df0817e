"""The argument parser of ``bacc``: subcommands, options, help texts with examples.

Every option has a help text with an example (``e.g. ...``); a usage error raises
:class:`UsageError`, which :func:`bacc.cli.main` prints as one line.
"""

from __future__ import annotations

import argparse
import sys
import textwrap

from ..display.terminal import WIDTH, terminal_width

__all__ = ["DETAIL_LIMIT", "UsageError", "build_parser"]

#: Per-class tables are printed for at most this many evaluations unless --details is given.
DETAIL_LIMIT = 12


class UsageError(Exception):
    """A command line that argparse refuses, as one message."""


class _Parser(argparse.ArgumentParser):
    #: The arguments being parsed (set by :func:`bacc.cli.main`; None: ``sys.argv[1:]``).
    _argv: list[str] | None = None

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{message}{self._suggestion(message)} (see '{self.prog} --help')")

    def _suggestion(self, message: str) -> str:
        """``; did you mean ...?`` for a mistyped subcommand or option."""
        import difflib
        import re

        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2))
            close = difflib.get_close_matches(m.group(1), choices, n=1)
            return f"; did you mean '{close[0]}'?" if close else ""
        m = re.search(r"unrecognized arguments: (\S+)", message)
        if m and m.group(1).startswith("-"):
            given = m.group(1).split("=")[0]
            commands = {name: parser for sub in (self._subparsers._group_actions if self._subparsers else ())
                        for name, parser in getattr(sub, "choices", {}).items()}
            # the options of the command given (argparse reports its unknown options here)
            argv = sys.argv[1:] if self._argv is None else self._argv
            command = next((a for a in argv if a in commands), None)
            mine = self if command is None else commands[command]
            options = [o for a in mine._actions for o in a.option_strings]
            close = difflib.get_close_matches(given, options, n=1)
            if close:
                return f"; did you mean '{close[0]}'?"
            elsewhere = [name for name, p in commands.items()
                         if any(given in a.option_strings for a in p._actions)]
            if command and elsewhere:
                return f"; {given} is an option of 'bacc {elsewhere[0]}', not of 'bacc {command}'"
        return ""


#: Help text is wrapped to the terminal, but never narrower than this (a 20-column terminal
#: wraps it itself) nor wider than the rest of the output.
_HELP_MIN_WIDTH = 40


def _help_width() -> int:
    """Columns of the help text: the terminal's width within [40, 100] (100 without one)."""
    return min(WIDTH, max(_HELP_MIN_WIDTH, terminal_width()))


class _Formatter(argparse.RawDescriptionHelpFormatter):
    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=30, width=_help_width())


_INPUT_HELP = """\
inputs:
  Each INPUT is a predictions file (CSV, TSV, JSON lines; with --true and --pred), a
  confusion-matrix file (CSV of counts, optionally with class labels; or JSON), or matrix
  text such as "42,3;6,4" (rows separated by ';', counts by ','; rows = true class unless
  --rows predicted). Name a matrix with "NAME=42,3;6,4".
"""


#: The one-line help of ``--across`` (compare, rank, report).
_ACROSS_HELP = ("the column naming each example's data set: compare across data sets, paired "
                "within each, for the population of data sets, e.g. --across dataset")


def _add_inputs(p: argparse.ArgumentParser, *, across: bool = False, scores: bool = False) -> None:
    g = p.add_argument_group("input")
    g.add_argument("inputs", nargs="*", metavar="INPUT",
                   help="predictions file, confusion-matrix file, or matrix text (see above)")
    g.add_argument("--matrix", action="append", metavar="TEXT",
                   help='a confusion matrix as text, e.g. --matrix "42,3;6,4" (repeatable)')
    g.add_argument("--true", metavar="COL", help="column of the true class in prediction files, e.g. --true label")
    g.add_argument("--pred", action="append", metavar="COL",
                   help="column of the predicted class, e.g. --pred predicted (repeat for several classifiers)")
    g.add_argument("--by", metavar="COL", help="one evaluation per value of this column, e.g. --by detector")
    g.add_argument("--fold", metavar="COL",
                   help="column of the cross-validation fold, e.g. --fold fold (adds the approximate "
                        "mean of fold accuracies +- 2 SEM for comparison)")
    g.add_argument("--labels", metavar="LIST",
                   help="the classes in order, e.g. --labels neg,pos; any other label is an error")
    g.add_argument("--rows", choices=["true", "predicted"], default="true",
                   help="what the rows of a given matrix are (default: true); the papers print "
                        "predictions in rows, e.g. --rows predicted")
    g.add_argument("--sep", metavar="CHAR", help=r"field separator of CSV files (default from the extension), e.g. --sep ';'")
    if across:
        g.add_argument("--across", metavar="COL", help=_ACROSS_HELP)
    if scores:
        _add_score_inputs(g, several=True)


def _add_score_inputs(g, *, several: bool) -> None:
    """``--score`` (the score column, instead of ``--pred``) and ``--positive``."""
    if several:
        g.add_argument("--score", action="append", metavar="COL",
                       help="column of the classifier's score (higher: more positive), instead "
                            "of --pred, e.g. --score probability (repeat: one column per class, "
                            "in class order, each class against the rest)")
    else:
        g.add_argument("--score", metavar="COL",
                       help="column of the classifier's score (higher: more positive), e.g. "
                            "--score probability")
    g.add_argument("--positive", metavar="LABEL",
                   help="with --score: the class a high score predicts (default: the second "
                        "class in order), e.g. --positive spam")


def _add_goals(g, *, required: bool) -> None:
    """The promise of a guaranteed threshold: ``--recall``, ``--fpr`` or ``--precision``."""
    goal = g.add_mutually_exclusive_group(required=required)
    goal.add_argument("--recall", type=float, metavar="R",
                      help="the recall (sensitivity) is at least R, e.g. --recall 0.95")
    goal.add_argument("--fpr", type=float, metavar="F",
                      help="the false-positive rate is at most F, e.g. --fpr 0.01")
    goal.add_argument("--precision", type=float, metavar="P",
                      help="the precision at --prevalence is at least P, e.g. --precision 0.9")


def _add_stats(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("statistics")
    g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="mass of credible and coverage of exact intervals (default 0.95), e.g. --confidence 0.99")
    g.add_argument("--prior", metavar="PRIOR",
                   help="Beta prior of each class accuracy: flat (default), jeffreys, 'a,b', or one "
                        "pair per class 'a,b;a,b', e.g. --prior jeffreys")
    g.add_argument("--weights", metavar="W",
                   help="class weights of the balanced accuracy (sum to 1), in class order or by "
                        "label, e.g. --weights 0.7,0.3 or --weights pos=0.7,neg=0.3")
    g.add_argument("--exact-method", choices=["union", "sidak", "buehler", "anytime"], default="union",
                   help="exact interval of the balanced accuracy: union (Sandler & Dirac (2024), default), sidak, "
                        "buehler (two classes), or anytime (valid at every look of a stream of labels and "
                        "under any stopping rule; Howard et al. (2021)), e.g. --exact-method sidak")
    g.add_argument("--tuned-for", type=float, metavar="N",
                   help="with --exact-method anytime: examples per class at which the sequence is "
                        "tightest (default 100; fix it before seeing the data), e.g. --tuned-for 1000")
    g.add_argument("--empty", choices=["drop", "keep"], default="drop",
                   help="a class with no true examples is left out of the balanced accuracy (drop, "
                        "default) or kept with its prior (keep), e.g. --empty keep")


def _desc(text: str, extra: str = "") -> str:
    """A description paragraph wrapped for the terminal, then preformatted ``extra``."""
    return textwrap.fill(text, min(90, _help_width() - 2)) + ("\n\n" + extra if extra else "")


def _epilog(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``bacc`` (every option has help and an example)."""
    parser = _Parser(
        prog="bacc",
        description=_desc("How good is a classifier, really? The balanced accuracy with its posterior "
                    "distribution, exact confidence intervals, comparisons and an HTML report."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc demo                                   # example classifiers, writes bacc-demo.html
              bacc evaluate --matrix "42,3;6,4"
              bacc evaluate predictions.csv --true label --pred predicted --by detector
              bacc compare preds.csv --true label --pred model_a --pred model_b --paired
              bacc report preds.csv --true label --pred predicted -o report.html
            Run 'bacc COMMAND --help' for the options of each command.
        """),
    )
    from .. import __version__

    parser.add_argument("--version", action="version", version=f"bacc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser(
        "evaluate", help="posterior and exact intervals of the balanced accuracy",
        description=_desc("Evaluate one or more classifiers: sample accuracy and balanced accuracy, "
                    "their posterior (mean, median, mode, credible interval), exact confidence "
                    "intervals, P(balanced accuracy > chance) and per-class detail.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc evaluate --matrix "42,3;6,4"
              bacc evaluate --matrix "42,6;3,4" --rows predicted      # the papers' orientation
              bacc evaluate confusion.csv --format json
              bacc evaluate preds.csv --true label --pred predicted
              bacc evaluate preds.csv --true label --pred predicted --by detector --format csv
              bacc evaluate preds.jsonl --true y --pred yhat --weights pos=0.7,neg=0.3
              bacc evaluate preds.csv --true label --score probability    # AUC, best threshold
              bacc evaluate preds.csv --true label --score probability --threshold 0.5
            JSON output is one object for one evaluation and a list of objects for several.
        """),
    )
    _add_inputs(p, scores=True)
    _add_stats(p)
    g = p.add_argument_group("scores")
    g.add_argument("--threshold", type=float, metavar="T",
                   help="with --score: evaluate the decisions score >= T as predictions, e.g. "
                        "--threshold 0.5 (without it: the AUC and the best threshold)")
    o = p.add_argument_group("output")
    o.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json, or csv (one row per measure and class), e.g. --format json")
    o.add_argument("--metrics", action="store_true",
                   help="also the posterior of accuracy, macro F1, kappa, Matthews, G-mean, "
                        "informedness and, for two classes, precision, recall, specificity, F1 "
                        "and balanced precision of the second class, e.g. --metrics")
    o.add_argument("--prevalence", type=float, metavar="P",
                   help="with --metrics, two classes: the share of the second class the "
                        "classifier will meet (precision, F1 and accuracy at it), e.g. "
                        "--prevalence 0.005")
    o.add_argument("--details", action=argparse.BooleanOptionalAction, default=None,
                   help=f"print per-class tables for every evaluation (default: only when there are "
                        f"at most {DETAIL_LIMIT}), e.g. --no-details")

    p = sub.add_parser(
        "compare", help="P(A > B) and the posterior of the difference of two classifiers",
        description=_desc("Compare two classifiers: the posterior of the difference of their balanced "
                    "accuracies, P(A > B) and, with --rope, the probability that they are "
                    "practically equal. With --paired the two were tested on the same examples "
                    "and the correlation is used.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc compare --matrix "A=42,3;6,4" --matrix "B=40,5;2,8"
              bacc compare a.csv b.csv --true label --pred predicted
              bacc compare preds.csv --true label --pred model_a --pred model_b --paired --rope 0.01
              bacc compare preds.csv --true label --pred model_a --pred model_b --across dataset
        """),
    )
    _add_inputs(p, across=True)
    _add_stats(p)
    p.add_argument("--paired", action=argparse.BooleanOptionalAction, default=None,
                   help="both classifiers predicted the same test examples (same rows, same "
                        "order); default: paired for two --pred columns of one file, else "
                        "independent, e.g. --paired or --no-paired")
    p.add_argument("--rope", type=float, default=None, metavar="EPS",
                   help="region of practical equivalence |difference| <= EPS (default 0; 0.01 "
                        "with --across), e.g. --rope 0.01")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json, or csv (with --across: one row per data set and "
                        "one per population answer), e.g. --format json")

    p = sub.add_parser(
        "rank", help="rank several classifiers with the probability of each being best",
        description=_desc("Rank several classifiers by their balanced accuracy (Carrillo et al. 2014): pairwise "
                    "posterior comparisons, probability of being best, expected rank. Prediction "
                    "columns of one file are ranked under their joint (paired) posterior. The "
                    "exact pairwise step grows with the square of the number of classifiers: "
                    "beyond 25 the pairwise probabilities come from one vectorised quadrature "
                    "(within 1e-9), beyond 10 paired classifiers from the posterior draws, "
                    "with their Monte Carlo error. A progress bar is drawn on standard error "
                    "when it is a terminal.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc rank --matrix "A=42,3;6,4" --matrix "B=40,5;2,8" --matrix "C=44,1;5,5"
              bacc rank preds.csv --true label --pred m1 --pred m2 --pred m3
              bacc rank preds.csv --true label --pred predicted --by model --format json
              bacc rank preds.csv --true label --pred m1 --pred m2 --pred m3 --across dataset
        """),
    )
    _add_inputs(p, across=True)
    _add_stats(p)
    p.add_argument("--paired", action=argparse.BooleanOptionalAction, default=None,
                   help="the classifiers predicted the same examples: rank under their joint "
                        "posterior; default: paired for --pred columns of one file, e.g. --no-paired")
    p.add_argument("--rope", type=float, default=None, metavar="EPS",
                   help="with --across: region of practical equivalence of P(row better than "
                        "column) (default 0.01), e.g. --rope 0.02")
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="seed of the posterior draws used for P(best) and expected ranks (default 0), e.g. --seed 1")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json, or csv (with --across: one row per classifier), "
                        "e.g. --format json")

    p = sub.add_parser(
        "coverage", help="how often each interval method keeps its promise (simulation)",
        description=_desc("Simulate many test sets from a known truth (class sizes and class "
                    "accuracies) and count how often each interval method contains the true "
                    "balanced accuracy. Give the truth with --sizes and --accuracies, or a "
                    "confusion matrix whose class sizes and observed accuracies are used. A "
                    "progress bar is drawn on standard error when it is a terminal."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc coverage --sizes 20,20 --accuracies 0.99,0.99
              bacc coverage --matrix "42,3;6,4" --methods union,sidak,bayes,wald --n-sim 200000
              bacc coverage --sizes 100 --accuracies 0.8 --metric accuracy --sides upper
              bacc coverage --sizes 5000,50 --accuracies 0.99,0.9 --metric precision --prevalence 0.005
        """),
    )
    g = p.add_argument_group("truth")
    g.add_argument("--sizes", metavar="LIST", help="test examples per class, e.g. --sizes 45,10")
    g.add_argument("--accuracies", metavar="LIST", help="true accuracy of each class, e.g. --accuracies 0.9,0.4")
    g.add_argument("inputs", nargs="*", metavar="INPUT", help='or a confusion matrix (file or text "42,3;6,4")')
    g.add_argument("--matrix", action="append", metavar="TEXT", help='a confusion matrix, e.g. --matrix "42,3;6,4"')
    g.add_argument("--rows", choices=["true", "predicted"], default="true",
                   help="what the rows of the matrix are (default true), e.g. --rows predicted")
    g.add_argument("--sep", metavar="CHAR", help="field separator of a matrix CSV file, e.g. --sep ';'")
    g = p.add_argument_group("simulation")
    g.add_argument("--methods", default="union,sidak,bayes,wald,wilson,jeffreys", metavar="LIST",
                   help="interval methods (default union,sidak,bayes,wald,wilson,jeffreys; also "
                        "buehler, clopper-pearson), e.g. --methods union,wald")
    g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="nominal coverage (default 0.95), e.g. --confidence 0.9")
    g.add_argument("--simulations", "--n-sim", dest="n_sim", type=int, default=20_000, metavar="N",
                   help="simulated test sets (default 20000), e.g. --simulations 100000")
    g.add_argument("--seed", type=int, default=0, metavar="N",
                   help="random seed (default 0, so runs repeat; printed with the result), e.g. --seed 7")
    g.add_argument("--metric", choices=["balanced_accuracy", "accuracy", "precision"],
                   default="balanced_accuracy",
                   help="what the intervals are for (default balanced_accuracy; precision: two "
                        "classes, negatives first, at --prevalence), e.g. --metric accuracy")
    g.add_argument("--prevalence", type=float, metavar="P",
                   help="with --metric precision: the share of positives, e.g. --prevalence 0.005")
    g.add_argument("--sides", choices=["two", "lower", "upper"], default="two",
                   help="two-sided intervals (default) or one-sided bounds, e.g. --sides lower")
    p.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json or csv, e.g. --format csv")

    p = sub.add_parser(
        "population", help="mixed-effects inference on the population balanced accuracy",
        description=_desc("Many subjects (sessions, sites, customers), one confusion matrix each: "
                    "the posterior of the population balanced accuracy under a mixed-effects "
                    "model (exact, not variational), P(> chance), a new subject's predictive "
                    "interval, each subject's own and shrunken posterior, and the pooled "
                    "(fixed-effects) result beside it.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc population preds.csv --true label --pred predicted --by subject
              bacc population preds.csv --true label --pred predicted --by subject --format json
              bacc population --matrix "s1=40,5;7,48" --matrix "s2=44,7;8,41" --matrix "s3=18,2;15,65"
        """),
    )
    _add_inputs(p)
    g = p.add_argument_group("statistics")
    g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="mass of the credible intervals (default 0.95), e.g. --confidence 0.9")
    g.add_argument("--model", choices=["normal-binomial", "beta-binomial"], default="normal-binomial",
                   help="the population model (default normal-binomial, as micp), e.g. --model beta-binomial")
    o = p.add_argument_group("output")
    o.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (default), json, or csv (one row per subject and one for the "
                        "population), e.g. --format csv")
    o.add_argument("--subjects", type=int, default=40, metavar="N",
                   help="subjects listed in the table (default 40), e.g. --subjects 10")

    p = sub.add_parser(
        "report", help="write a self-contained HTML report with tables and pictures",
        description=_desc("Write one self-contained HTML file (no network; readable on a phone): a "
                    "summary row per classifier or group, credible and exact intervals, "
                    "per-class detail, pictures; a comparison for two inputs and a ranking for "
                    "more.", _INPUT_HELP),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc report --matrix "42,3;6,4" -o report.html
              bacc report preds.csv --true label --pred predicted --by detector -o detectors.html
              bacc report preds.csv --true label --pred a --pred b --paired -o ab.html
              bacc report preds.csv --true label --pred a --pred b --pred c --across dataset
              bacc report preds.csv --true label --score probability --recall 0.95
        """),
    )
    _add_inputs(p, across=True, scores=True)
    _add_stats(p)
    g = p.add_argument_group("scores (with --score: a guaranteed threshold in the report)")
    _add_goals(g, required=False)
    p.add_argument("-o", "--output", default="bacc-report.html", metavar="FILE",
                   help="where to write the report (default bacc-report.html; - for standard output, "
                        "other lines then go to standard error), e.g. -o report.html")
    p.add_argument("--title", metavar="TEXT", help='title of the page, e.g. --title "Detectors, May"')
    p.add_argument("--paired", action=argparse.BooleanOptionalAction, default=None,
                   help="the inputs predicted the same examples: paired comparison and ranking; "
                        "default: paired for --pred columns of one file, e.g. --no-paired")
    p.add_argument("--rope", type=float, default=None, metavar="EPS",
                   help="region of practical equivalence for the comparison (default 0; 0.01 "
                        "with --across), e.g. --rope 0.01")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the ranking's draws (default 0), e.g. --seed 1")
    p.add_argument("--no-pictures", action="store_true", help="tables only (faster; no matplotlib needed), e.g. --no-pictures")
    p.add_argument("--metrics", action="store_true",
                   help="add the posteriors of other metrics (and, for two classes, precision "
                        "against prevalence) to each entry's detail, e.g. --metrics")
    p.add_argument("--prevalence", type=float, metavar="P",
                   help="with --metrics, two classes: the deployment prevalence of the second "
                        "class (with --score: of the positive class), e.g. --prevalence 0.005")
    p.add_argument("--population", action="store_true",
                   help="with --by (or several matrices): add mixed-effects inference on the "
                        "population balanced accuracy, each group a subject, e.g. --population")

    p = sub.add_parser(
        "threshold", help="a threshold with a guarantee on recall, false-positive rate or precision",
        description=_desc(
            "The threshold of a classifier's scores that keeps a promise for every distribution "
            "of scores: recall at least R (from the positives' scores), false-positive rate at "
            "most F (from the negatives'), or precision at least P at a deployment prevalence, "
            "each with probability at least --confidence over test sets. A score at or above "
            "the threshold predicts the positive class. The other rate at the threshold, the "
            "expected alarm rate and the precision are estimated beside it."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc threshold preds.csv --true label --score probability --recall 0.95
              bacc threshold preds.csv --true label --score probability --fpr 0.01 --confidence 0.99
              bacc threshold preds.csv --true label --score probability --precision 0.9 \\
                  --prevalence 0.02 --format json
        """),
    )
    g = p.add_argument_group("input")
    g.add_argument("inputs", nargs="*", metavar="FILE",
                   help="predictions: CSV, Parquet or JSON lines (a path, glob or folder), one row "
                        "per example")
    g.add_argument("--true", metavar="COL", help="column of the true class, e.g. --true label")
    _add_score_inputs(g, several=False)
    g.add_argument("--labels", metavar="LIST", help="the classes in order, e.g. --labels neg,pos")
    g.add_argument("--sep", metavar="CHAR", help=r"field separator of CSV files, e.g. --sep ';'")
    g = p.add_argument_group("goal")
    _add_goals(g, required=True)
    g.add_argument("--prevalence", type=float, metavar="P",
                   help="share of positives where the classifier is deployed, for the precision "
                        "and the alarm rate (default: the test set's), e.g. --prevalence 0.02")
    g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="probability that the promise holds (default 0.95), e.g. --confidence 0.99")
    p.add_argument("--format", choices=["table", "json"], default="table",
                   help="table (default) or json, e.g. --format json")

    # --- label planning: bacc plan, bacc next-label (commands in .planning) ---
    def _plan_inputs(p: argparse.ArgumentParser) -> None:
        g = p.add_argument_group("labels so far")
        g.add_argument("inputs", nargs="*", metavar="INPUT",
                       help="a predictions file (with --true and --pred) or a confusion-matrix file")
        g.add_argument("--matrix", action="append", metavar="TEXT",
                       help='the confusion matrix so far (rows = true class), e.g. --matrix "42,3;6,4"; '
                            'all zeros (or no matrix) when nothing is labelled yet')
        g.add_argument("--classes", type=int, metavar="N",
                       help="number of classes when nothing is labelled yet (default 2), e.g. --classes 3")
        g.add_argument("--true", metavar="COL", help="column of the true class, e.g. --true label")
        g.add_argument("--pred", action="append", metavar="COL",
                       help="column of the predicted class, e.g. --pred predicted")
        g.add_argument("--labels", metavar="LIST", help="the classes in order, e.g. --labels neg,pos")
        g.add_argument("--rows", choices=["true", "predicted"], default="true",
                       help="what the rows of the matrix are (default true), e.g. --rows predicted")
        g.add_argument("--sep", metavar="CHAR", help="field separator of CSV files, e.g. --sep ';'")


    def _plan_prior_options(g) -> None:
        g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                       help="confidence of the exact interval (default 0.95), e.g. --confidence 0.9")
        g.add_argument("--prior", metavar="PRIOR",
                       help="Beta prior of each class accuracy, combined with the labels so far: flat "
                            "(default), jeffreys, 'a,b' or 'a,b;a,b' (a prior guess as pseudo-counts), "
                            "e.g. --prior 18,2")
        g.add_argument("--accuracies", metavar="LIST",
                       help="plan for these fixed class accuracies instead of the posterior, e.g. "
                            "--accuracies 0.95,0.85")

    p = sub.add_parser(
        "plan", help="how many labels until the exact interval meets a goal",
        description=_desc(
            "How many more labelled examples until the exact interval of the balanced accuracy "
            "(union bound, Sandler & Dirac 2024) meets a goal -- its lower bound clears T, or it "
            "is at most W wide -- with a required probability (the assurance), averaged over the "
            "posterior of the class accuracies given the labels so far. Computed by exact sums "
            "over the beta-binomial outcomes (two classes; three stratified) or by simulation "
            "with its Monte Carlo error."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc plan --matrix "42,3;6,4" --width 0.2
              bacc plan --matrix "95,5;2,8" --lower 0.7 --mix 0.95,0.05 --budget 300
              bacc plan --lower 0.8 --prior 18,2                # nothing labelled yet: a prior guess
              bacc plan preds.csv --true label --pred predicted --lower 0.75 --format json
              bacc plan --matrix "42,3;6,4" --lower 0.6 --sequential   # label until it clears
        """),
    )
    _plan_inputs(p)
    g = p.add_argument_group("goal")
    goal = g.add_mutually_exclusive_group(required=True)
    goal.add_argument("--lower", type=float, metavar="T",
                      help="the exact lower bound of the balanced accuracy must exceed T, e.g. --lower 0.8")
    goal.add_argument("--width", type=float, metavar="W",
                      help="the exact two-sided interval must be at most W wide, e.g. --width 0.1")
    g.add_argument("--assurance", type=float, default=0.8, metavar="P",
                   help="required probability of meeting the goal (default 0.8), e.g. --assurance 0.9")
    g.add_argument("--sides", choices=["lower", "two"],
                   help="with --lower: one-sided lower bound (default) or the two-sided interval's "
                        "lower end, e.g. --sides two")
    _plan_prior_options(g)
    g = p.add_argument_group("design")
    g.add_argument("--mix", metavar="LIST",
                   help="labels arrive in these class proportions (default: you choose the class "
                        "of each label), e.g. --mix 0.95,0.05")
    g.add_argument("--budget", type=int, metavar="N",
                   help="also the probability of meeting the goal with N more labels, e.g. --budget 500")
    g.add_argument("--max-labels", type=int, metavar="N",
                   help="search at most this many more labels (default 1000000; 10000 with "
                        "--sequential), e.g. --max-labels 50000")
    g.add_argument("--method", choices=["auto", "exact", "simulate"], default="auto",
                   help="exact sums or simulation (default auto: exact for two classes, and three "
                        "without --mix), e.g. --method simulate")
    g.add_argument("--simulations", "--n-sim", dest="n_sim", type=int, metavar="N",
                   help="simulated labelling outcomes for --method simulate (default 20000; 2000 "
                        "streams with --sequential), e.g. --simulations 100000")
    g.add_argument("--seed", "--random-state", dest="random_state", type=int, default=0, metavar="N",
                   help="seed of the simulation (default 0, so runs repeat), e.g. --seed 7")
    g = p.add_argument_group("sequential")
    g.add_argument("--sequential", action="store_true",
                   help="with --lower: label until the anytime-valid lower bound clears T (valid "
                        "whenever it stops) and show how many labels that takes (simulated: "
                        "--simulations default 2000, --max-labels default 10000), beside the "
                        "fixed-size plan, e.g. --sequential")
    g.add_argument("--tuned-for", type=float, metavar="N",
                   help="with --sequential: examples per class at which the sequence is tightest "
                        "(default 100), e.g. --tuned-for 1000")
    p.add_argument("--format", choices=["table", "json"], default="table",
                   help="table (default) or json, e.g. --format json")

    p = sub.add_parser(
        "next-label", help="which class to label next",
        description=_desc(
            "Which class's next labelled example improves the exact interval of the balanced "
            "accuracy most, in expectation over the predictive probability of a correct answer: "
            "the smallest expected width (default), the largest expected lower bound, or with "
            "--lower T the largest probability that the lower bound clears T."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc next-label --matrix "42,3;6,4"
              bacc next-label --matrix "42,3;6,4" --criterion lower
              bacc next-label --matrix "95,5;2,8" --by predicted --mix 0.99,0.01
              bacc next-label preds.csv --true label --pred predicted --lower 0.6 --format json
        """),
    )
    _plan_inputs(p)
    g = p.add_argument_group("criterion")
    g.add_argument("--criterion", choices=["width", "lower", "clear"],
                   help="width (default), lower, or clear (needs --lower; the default with it), "
                        "e.g. --criterion lower")
    g.add_argument("--lower", type=float, metavar="T",
                   help="the value the lower bound should clear, e.g. --lower 0.6")
    g.add_argument("--sides", choices=["lower", "two"],
                   help="the lower bound: one-sided (default) or the two-sided interval's, e.g. --sides two")
    g.add_argument("--anytime", action="store_true",
                   help="improve the anytime-valid interval (for labelling until it clears a goal) "
                        "instead of the exact one, e.g. --anytime")
    g.add_argument("--tuned-for", type=float, metavar="N",
                   help="with --anytime: examples per class at which the sequence is tightest "
                        "(default 100), e.g. --tuned-for 1000")
    g.add_argument("--by", choices=["true", "predicted"], default="true",
                   help="choose the next example by its true class (default) or by what the "
                        "classifier predicted (its true class is revealed by the label), e.g. --by predicted")
    g.add_argument("--mix", metavar="LIST",
                   help="with --by predicted: class shares of the unlabelled pool (default: those of "
                        "the labels so far), e.g. --mix 0.99,0.01")
    _plan_prior_options(g)
    p.add_argument("--format", choices=["table", "json"], default="table",
                   help="table (default) or json, e.g. --format json")

    p = sub.add_parser(
        "monitor", help="balanced accuracy per time window and detector, with alarms",
        description=_desc("Count the examples of every detector in fixed calendar windows (in "
                    "DuckDB, out of core), evaluate every window (posterior mean, credible and "
                    "exact intervals) and compare it with a baseline: each detector's first "
                    "windows (default), the previous windows, every earlier window, a reference "
                    "period or a number; the output names the baseline and what it cannot see. "
                    "A window alarms when P(balanced accuracy of the window < baseline - margin) "
                    ">= --alarm-at (or, with --rule exact, when its exact upper bound lies below "
                    "the baseline's exact lower bound); the rule's false-alarm rate per window "
                    "under no change is measured by simulation and printed. A detector is in "
                    "ALARM when its latest window alarms, alarmed when an earlier one did; those "
                    "are listed first."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc monitor log.parquet --true label --pred predicted --time ts --by detector
              bacc monitor log.parquet --true label --pred predicted --time ts --by detector \\
                  --window 1D --baseline 2026-01-01:2026-02-01 -o monitor.html
              bacc monitor log.parquet --true label --pred predicted --time ts --by detector \\
                  --baseline previous --alarm-at 0.99      # the former default
              bacc monitor log.csv --true label --pred predicted --time ts --baseline 0.9 --format csv
        """),
    )
    g = p.add_argument_group("input")
    g.add_argument("inputs", nargs="*", metavar="FILE",
                   help="predictions: CSV, Parquet or JSON lines (a path, glob or folder), one row per example")
    g.add_argument("--true", metavar="COL", help="column of the true class, e.g. --true label")
    g.add_argument("--pred", metavar="COL", help="column of the predicted class, e.g. --pred predicted")
    g.add_argument("--time", metavar="COL", help="column of the time of each example, e.g. --time ts")
    g.add_argument("--by", metavar="COL", help="column(s) naming the detector, e.g. --by detector or --by site,camera")
    g.add_argument("--labels", metavar="LIST", help="the classes in order, e.g. --labels neg,pos")
    g.add_argument("--sep", metavar="CHAR", help=r"field separator of CSV files, e.g. --sep ';'")
    g.add_argument("--drop-missing", action="store_true",
                   help="leave out examples with a missing label, time or detector (default: error), e.g. --drop-missing")
    g.add_argument("--memory-limit", metavar="SIZE", help="most memory DuckDB may use, e.g. --memory-limit 2GB")
    g = p.add_argument_group("monitoring")
    g.add_argument("--window", default="7D", metavar="W",
                   help="window width: 30min, 1h, 1D, 7D (Monday to Sunday, default), 1M, 3M, 1Y, e.g. --window 1D")
    g.add_argument("--baseline", default="first", metavar="B",
                   help="first (each detector's first --lookback windows, pooled; default: does not see a "
                        "drop that began in them), previous (the --lookback windows before each: absorbs a "
                        "drop that lasts), past (every earlier window), a number, or a period START:END "
                        "(end excluded), e.g. --baseline previous or --baseline 2026-01-01:2026-02-01")
    g.add_argument("--lookback", type=int, default=None, metavar="K",
                   help="windows pooled by --baseline first (default 8) or previous (default 4), e.g. --lookback 12")
    g.add_argument("--rule", choices=["posterior", "exact", "anytime"], default="posterior",
                   help="alarm on P(worse) >= --alarm-at (posterior, default), on non-overlapping "
                        "exact intervals (exact), or, with --baseline a number or first, when the "
                        "anytime-valid upper bound falls below it, with P(any false alarm over the "
                        "whole stream) <= 1 - --confidence (anytime), e.g. --rule anytime --baseline 0.9")
    g.add_argument("--tuned-for", type=float, metavar="N",
                   help="with --rule anytime: examples per class at which each sequence is "
                        "tightest (default 100), e.g. --tuned-for 1000")
    g.add_argument("--alarm-at", type=float, default=0.999, metavar="P",
                   help="threshold on P(worse) of the posterior rule (default 0.999), e.g. --alarm-at 0.99")
    g.add_argument("--margin", type=float, default=0.0, metavar="M",
                   help="how much lower counts as worse (default 0), e.g. --margin 0.02")
    g.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="level of the credible and exact intervals (default 0.95), e.g. --confidence 0.9")
    g.add_argument("--simulations", "--n-sim", dest="simulations", type=int, default=2000, metavar="N",
                   help="windows simulated under no change to measure the false-alarm rate "
                        "(default 2000; 0 skips), e.g. --simulations 10000")
    g.add_argument("--seed", "--random-state", dest="random_state", type=int, default=0, metavar="N",
                   help="seed of that simulation, so that runs repeat (default 0), e.g. --seed 1")
    o = p.add_argument_group("output")
    o.add_argument("--format", choices=["text", "json", "csv"], default="text",
                   help="text (default), json, or csv (one row per detector and window), e.g. --format csv")
    o.add_argument("-o", "--output", metavar="FILE",
                   help="also write an HTML report (detectors in alarm first, with timelines; - for "
                        "standard output, the table then goes to standard error), e.g. -o monitor.html")
    o.add_argument("--title", metavar="TEXT", help='title of the report, e.g. --title "Detectors, 2026"')
    o.add_argument("--no-pictures", action="store_true", help="report without timelines (no matplotlib needed), e.g. --no-pictures")

    p = sub.add_parser(
        "demo", help="evaluate the example classifiers that ship with bacc",
        description=_desc("Evaluate the example classifiers that ship with bacc (the papers' confusion "
                    "matrices and out-of-fold predictions on two scikit-learn data sets), print "
                    "the tables and write an HTML report."),
        formatter_class=_Formatter,
        epilog=_epilog("""
            examples:
              bacc demo
              bacc demo -o /tmp/demo.html
              bacc demo --no-report
        """),
    )
    p.add_argument("-o", "--output", default="bacc-demo.html", metavar="FILE",
                   help="where to write the report (default bacc-demo.html; - for standard output, "
                        "the tables then go to standard error), e.g. -o demo.html")
    p.add_argument("--no-report", dest="output", action="store_const", const=None,
                   help="print the tables only, e.g. --no-report")
    p.add_argument("--no-pictures", action="store_true", help="report without pictures, e.g. --no-pictures")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="mass / coverage of the intervals (default 0.95), e.g. --confidence 0.9")
    return parser
