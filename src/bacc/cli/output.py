"""What the command line writes: tables, JSON and CSV on standard output, one-line warnings and
errors on standard error, and the entries of an HTML report.

The tables come from :mod:`bacc.display.text`, the page from :mod:`bacc.display.report`; the
JSON of a result is its ``to_dict()``.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..display.text import batch_summary_table, evaluation_table, summary_table
from ..display.text import visible as _visible
from .parser import DETAIL_LIMIT

if TYPE_CHECKING:
    from .results import Evaluated

__all__ = [
    "CSV_COLUMNS",
    "DETAIL_LIMIT",
    "batch_csv_rows",
    "batch_dict",
    "check_output_path",
    "csv_rows",
    "dump_json",
    "error",
    "full_table",
    "heading",
    "wrapped",
    "one_line",
    "out",
    "page_on_stdout",
    "pictures_wanted",
    "print_batch_summary",
    "report_entries",
    "report_warnings",
    "result_dict",
    "safe_cell",
    "show_warning",
    "summary",
    "text_stream",
    "title",
    "visible",
    "warn",
    "write_csv",
]

#: At most this many warnings are printed one by one; the rest are counted.
_WARNINGS_SHOWN = 5


# ----------------------------------------------------------------------------------------------
# streams
_page_on_stdout = False


def page_on_stdout(on: bool = True) -> None:
    """Keep standard output for a page written there (``-o -``): from now on, the lines,
    JSON and CSV that would go to standard output go to standard error."""
    global _page_on_stdout
    _page_on_stdout = bool(on)


def text_stream():
    """Where lines, JSON and CSV are written: standard output, or standard error while a page
    goes to standard output (:func:`page_on_stdout`)."""
    return sys.stderr if _page_on_stdout else sys.stdout


def out(text: str = "") -> None:
    """Write a line to standard output, control characters shown escaped (a label holding
    an escape sequence cannot recolour or rewrite the terminal)."""
    text_stream().write("\n".join(visible(line) for line in text.split("\n")) + "\n")


def visible(text: str) -> str:
    r"""``text`` with control characters (other than tabs) written as escapes, e.g. ``\x1b``
    (:func:`bacc.display.text.visible`)."""
    return _visible(text)


def one_line(msg: object) -> str:
    """``msg`` on one line (runs of white space, new lines included, become one space;
    control characters escaped)."""
    return visible(" ".join(str(msg).split()))


def warn(msg: str) -> None:
    """Write ``bacc: warning: ...`` (one line) to standard error."""
    sys.stderr.write(f"bacc: warning: {one_line(msg)}\n")


def error(msg: object) -> None:
    """Write ``bacc: error: ...`` (one line) to standard error."""
    sys.stderr.write(f"bacc: error: {one_line(msg)}\n")


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A replacement of :func:`warnings.showwarning`: a warning left uncaught, as one line."""
    warn(str(message))


def report_warnings(results: Sequence[Evaluated]) -> None:
    """The warnings of evaluated inputs, named by input when there are several."""
    flagged = [(r.name, m) for r in results for m in r.warnings]
    for name, msg in flagged[:_WARNINGS_SHOWN]:
        warn(f"{name}: {msg}" if len(results) > 1 else msg)
    if len(flagged) > _WARNINGS_SHOWN:
        warn(f"... and {len(flagged) - _WARNINGS_SHOWN} more warnings of this kind")


# ----------------------------------------------------------------------------------------------
# JSON
def _jsonable(obj):
    """JSON-safe copy: NaN and infinities become null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):  # numpy scalars
        return _jsonable(obj.item())
    return obj


def dump_json(obj) -> None:
    """Write ``obj`` as indented JSON (NaN and infinities as null) to standard output."""
    text_stream().write(json.dumps(_jsonable(obj), indent=2, allow_nan=False) + "\n")


def result_dict(r: Evaluated) -> dict:
    """The JSON of one evaluated input: name, source, evaluation, exact intervals, warnings."""
    d = {"name": r.name, "source": r.item.source}
    d.update(r.evaluation.to_dict())
    d["exact"] = {
        "balanced_accuracy": r.exact.to_dict(),
        "accuracy": r.accuracy_exact.to_dict(),
        "classes": [c.to_dict() for c in r.class_exact],
    }
    d["fold_sem"] = r.fold_interval.to_dict() if r.fold_interval is not None else None
    d["warnings"] = list(r.warnings)
    return d


# ----------------------------------------------------------------------------------------------
# CSV
#: Columns of ``evaluate --format csv``: one row per measure and class.
CSV_COLUMNS = [
    "name", "measure", "class", "correct", "support", "sample", "posterior_mean",
    "posterior_median", "posterior_mode", "credible_lower", "credible_upper", "exact_lower",
    "exact_upper", "exact_method", "p_above_chance", "confidence",
]


def csv_rows(r: Evaluated) -> list[list]:
    """The CSV rows of one evaluated input (see :data:`CSV_COLUMNS`)."""
    ev = r.evaluation
    cm = ev.confusion
    rows = []
    for measure, sample, s, ex, p in (
        ("balanced_accuracy", ev.sample_balanced_accuracy, ev.balanced_accuracy_summary, r.exact,
         ev.p_above_chance),
        ("accuracy", ev.sample_accuracy, ev.accuracy_summary, r.accuracy_exact, None),
    ):
        rows.append([
            r.name, measure, "", cm.total_correct, cm.total, sample, s.mean, s.median, s.mode,
            s.lower, s.upper, ex.lower, ex.upper, ex.method, p, ev.confidence,
        ])
    for c, ci in zip(ev.classes, r.class_exact, strict=True):
        s = c.summary
        rows.append([
            r.name, "class_accuracy", c.label, c.correct, c.support, c.sample_accuracy, s.mean,
            s.median, s.mode, s.lower, s.upper, ci.lower, ci.upper, "clopper-pearson", None,
            ev.confidence,
        ])
    return rows


def batch_csv_rows(batch) -> list[list]:
    """The CSV rows of many groups evaluated at once (:func:`bacc.evaluate_many`): one
    ``balanced_accuracy`` row per group in the columns of :data:`CSV_COLUMNS` (the posterior
    median and mode and the per-class rows are left out; ``--details`` gives them)."""
    rows = []
    for g, name in enumerate(batch.groups):
        rows.append([
            name, "balanced_accuracy", "", int(batch.correct[g].sum()), int(batch.support[g].sum()),
            float(batch.sample_balanced_accuracy[g]), float(batch.mean[g]), None, None,
            float(batch.lower[g]), float(batch.upper[g]), float(batch.exact_lower[g]),
            float(batch.exact_upper[g]), "union", float(batch.p_above_chance[g]), batch.confidence,
        ])
    return rows


def batch_dict(batch) -> dict:
    """The JSON of many groups evaluated at once: the batch's summary per group."""
    d = {"summary_only": True,
         "note": "one summary per group (bacc.evaluate_many); add --details for every table"}
    d.update(batch.to_dict())
    return d


def _csv_value(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    if isinstance(v, int | bool):
        return str(v)
    return safe_cell(str(v))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(text: str) -> str:
    r"""A text cell that neither a spreadsheet nor a terminal will run.

    A cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
    ``'`` (the OWASP rule for CSV injection), unless it is a plain number (``-0.5`` stays a
    number); control characters (other than tabs) are written as escapes, as in the tables
    (the escape character becomes the text ``\x1b``, a new line ``\n``).

    Examples
    --------
    >>> safe_cell("=1+1"), safe_cell("-0.5"), safe_cell("-1+2")
    ("'=1+1", '-0.5', "'-1+2")
    """
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        text = "'" + text
    return visible(text)


def write_csv(header: Sequence[str], rows: Sequence[Sequence]) -> None:
    """Write a CSV table to standard output (floats round-trip exactly; None and NaN empty;
    text cells through :func:`safe_cell`)."""
    w = csv.writer(text_stream(), lineterminator="\n")
    w.writerow([safe_cell(str(h)) for h in header])
    for row in rows:
        w.writerow([_csv_value(v) for v in row])


# ----------------------------------------------------------------------------------------------
# tables
def title(r: Evaluated) -> str:
    """The heading line of one input's table: ``== name   (source)``."""
    src = r.item.source
    return heading(f"== {r.name}", src if src and src != r.name else "")


def wrapped(text: str) -> str:
    """A line of prose wrapped to 100 columns."""
    from ..display.text import wrap

    return "\n".join(wrap(text))


def heading(head: str, source: str = "") -> str:
    """``head   (source)`` on one line when it fits 100 columns, else the source on the next."""
    from ..display.text import WIDTH, wrap

    head, source = _visible(head, keep=""), _visible(source, keep="")  # names stay one line
    if not source:
        return head
    one = f"{head}   ({source})"
    if len(one) <= WIDTH:
        return one
    return "\n".join([head, *wrap(f"({source})", indent="    ", width=WIDTH - 3)]).replace(
        "\n(", "\n   (")


def full_table(r: Evaluated, *, classes: bool = True) -> str:
    """The full table of one evaluated input (measures and, with ``classes``, each class)."""
    return evaluation_table(r.evaluation, r.exact, r.accuracy_exact, r.class_exact, r.fold_interval,
                            classes=classes)


#: What the columns of the summary table are (printed under it).
SUMMARY_KEY = ("n: examples; acc., bal. acc.: accuracy and balanced accuracy of these examples; "
               "mean, credible: the posterior balanced accuracy; exact: confidence interval; "
               "P(> chance): probability that the balanced accuracy beats chance")


def summary(results: Sequence[Evaluated]) -> str:
    """One summary row per evaluated input, and what the columns are (the exact column named
    as what it is: an anytime-valid sequence under ``--exact-method anytime``)."""
    table = summary_table([(r.name, r.evaluation, r.exact) for r in results])
    key = SUMMARY_KEY
    if any(getattr(r.exact, "method", None) == "anytime" for r in results):
        key = key.replace("exact: confidence interval",
                          "exact: anytime-valid confidence interval (valid at every look)")
    return table + "\n" + wrapped(key)


def print_batch_summary(batch) -> None:
    """The summary of a :class:`bacc.BatchEvaluation` and a warning for groups lacking classes."""
    n = len(batch.groups)
    out(f"{n} evaluations, balanced accuracy (union exact interval):")
    out(batch_summary_table(batch))
    out(wrapped(SUMMARY_KEY))
    short = int((batch.n_classes < len(batch.labels)).sum())
    if short:
        warn(f"{short} of {n} groups lack true examples of some class; those classes are left "
             "out of their balanced accuracy")


# ----------------------------------------------------------------------------------------------
# HTML report
def check_output_path(path) -> None:
    """Refuse, before any work, an output path that the report cannot be written to (see
    :mod:`bacc.display.files`): a folder, a missing folder, a block device, a socket, a link
    to nothing. ``-`` (standard output), a regular file, a named pipe and a character device
    are accepted.

    Raises
    ------
    BaccError
    """
    from ..display.files import check_output_path as check

    check(path, "the report")


def pictures_wanted(no_pictures: bool) -> bool:
    """Whether to draw pictures; says on standard error when matplotlib is missing."""
    if no_pictures:
        return False
    if importlib.util.find_spec("matplotlib") is None:
        warn('the report has no pictures: plotting needs matplotlib: pip install "bacc[plot]"')
        return False
    return True


def report_entries(results: Sequence[Evaluated], notes: dict | None = None,
                   short: dict | None = None, metrics: dict | None = None,
                   prevalence: float | None = None, curves: dict | None = None) -> list:
    """One :class:`bacc.display.report.ReportEntry` per evaluated input.

    Parameters
    ----------
    results : sequence of Evaluated
    notes : dict, optional
        Name to a note shown with the entry.
    short : dict, optional
        Name to a short label for pictures.
    metrics, curves : dict, optional
        Name to the posteriors of other metrics, and to a precision-against-prevalence curve.
    prevalence : float, optional
        The deployment prevalence of those metrics.
    """
    from ..display.report import ReportEntry

    notes = notes or {}
    short = short or {}
    return [
        ReportEntry(
            name=r.name, evaluation=r.evaluation, exact=r.exact, accuracy_exact=r.accuracy_exact,
            class_exact=r.class_exact, fold_interval=r.fold_interval, source=r.item.source,
            note=notes.get(r.name, ""), warnings=tuple(r.warnings), label=short.get(r.name, ""),
            metrics=tuple((metrics or {}).get(r.name, ())), prevalence=prevalence,
            precision_curve=(curves or {}).get(r.name),
        )
        for r in results
    ]
