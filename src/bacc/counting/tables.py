"""``bacc.evaluate``, ``bacc.compare`` and ``bacc.rank``: also from a table of predictions.

The Python twin of the command line's ``--true COLUMN --pred COLUMN [--by COLUMN]``: a data
frame (pandas, polars, pyarrow, DuckDB, Spark, Dask, ...), a mapping of columns or a data file
with one row per example is counted by :func:`bacc.counts` where it lives (the one input path:
its conventions for missing values, label types and ``labels=`` apply), and the counts go to
the numerics (:func:`bacc.evaluation.evaluate`, :func:`bacc.comparison.compare`,
:func:`bacc.ranking.rank` and their paired forms). Without ``true=`` and ``pred=`` every call
is the numerics' own; a table given without them is answered with the command line's words
(:func:`bacc.readers.predictions_message`).

As on the command line, several prediction columns of one table are predictions of the same
examples: :func:`compare` and :func:`rank` use the paired model (their joint posterior,
:func:`bacc.compare_paired`, :func:`bacc.rank_paired`) unless ``paired=False``.
"""

from __future__ import annotations

import functools
import inspect
import os
import warnings
from collections.abc import Callable, Sequence

from ..batch import BatchEvaluation, evaluate_many
from ..comparison import Comparison, compare_paired_counts
from ..comparison import compare as _compare
from ..errors import BaccError
from ..evaluation import Evaluation
from ..evaluation import evaluate as _evaluate
from ..ranking import Ranking, rank_paired_counts
from ..ranking import rank as _rank
from ..readers import predictions_message, table_columns
from . import counts
from .grouped import GroupedCounts
from .joint import joint_counts, matrices

__all__ = ["compare", "evaluate", "rank"]

#: What a table of predictions takes, in every entry point (inserted in their docstrings).
_TABLE_PARAMETERS = """\
true : str, optional
    With a table of predictions as the first argument (a DataFrame or lazy frame of pandas,
    polars, pyarrow, DuckDB, Spark, Dask..., a mapping of columns, or a data file, glob or
    directory: anything :func:`bacc.counts` reads): the column of the true class, as the
    command line's ``--true``. The table is counted where it lives.
pred : str{several}
    The column of the predicted class of a table, as ``--pred``{several_doc}.
nulls : {{"error", "drop"}}
    Examples with a missing label in a table: refused (default) or left out with a warning
    (see :func:`bacc.counts`).
sep : str, optional
    Field separator of a CSV file (default: detected).
"""


def _with_table_parameters(numeric: Callable, lead: str, extra: str) -> str:
    """The docstring of ``numeric`` with ``lead`` after its summary line and ``extra`` at the
    end of its Parameters section (one text for each parameter, in its one home)."""
    doc = inspect.cleandoc(numeric.__doc__ or "")
    summary, _, body = doc.partition("\n")
    body = body.lstrip("\n")
    params, sep, rest = body.partition("\nReturns\n-------\n")
    if not sep:
        return f"{summary}\n\n{lead}\n{body}\n\nParameters\n----------\n{extra}"
    return f"{summary}\n\n{lead}\n{params.rstrip()}\n{extra}{sep}{rest}"


def _at_callers_line(fn: Callable) -> Callable:
    """``fn`` with every warning of its call shown at its caller's line (the numerics point
    their warnings at the line that called them, one frame below this front door)."""

    @functools.wraps(fn)
    def front(*args, **kwargs):
        caught: list = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                return fn(*args, **kwargs)
        finally:
            for w in caught:
                warnings.warn(w.message, w.category, stacklevel=2)

    return front


def _kind(obj) -> str:
    """How a message names a table: ``the DataFrame``, ``the dict``."""
    return f"the {type(obj).__name__}"


def _matrix_expected(obj, exc: BaccError) -> BaccError:
    """The error for ``obj`` given where a confusion matrix was expected: the command line's
    guidance when it is a table of examples, else the error as it was."""
    if isinstance(obj, str | os.PathLike):
        return BaccError(
            f"{os.fspath(obj)!r} is a file name, not a confusion matrix: a file of predictions "
            "is read with its true and predicted columns, true=COLUMN, pred=COLUMN; a file "
            "holding a confusion matrix is read first, bacc.readers.read_matrix_file(path).counts"
        )
    cols = table_columns(obj)
    if cols is None:
        return exc
    index = getattr(obj, "index", None)
    if index is not None and sorted(map(repr, index)) == sorted(map(repr, cols)):
        return exc  # a labelled confusion matrix with another problem
    return BaccError(predictions_message(_kind(obj), cols))


def _columns_given(true, pred, y_pred=None, y_true=None) -> bool:
    """True when a table's columns were named; refuse half of them, or columns and labels."""
    if true is None and pred is None:
        return False
    if true is None or pred is None:
        raise BaccError(
            "a table of predictions needs both true=COLUMN and pred=COLUMN"
            if true is None else
            "true= was given without pred=; name the predicted-class column with pred=COLUMN"
        )
    if y_pred is not None or y_true is not None:
        raise BaccError("give either a table with true= and pred= (column names), or the labels "
                        "themselves (y_true, y_pred), not both")
    return True


def _pred_list(pred, what: str, least: int) -> list[str]:
    if isinstance(pred, str):
        raise BaccError(f"pred: {what} needs {least} or more prediction columns, e.g. "
                        "pred=['model_a', 'model_b']; for one column use bacc.evaluate")
    cols = list(pred)
    if len(cols) < least:
        raise BaccError(f"pred: {what} needs {least} or more prediction columns, got {cols!r}")
    return cols


def _group_matrices(source, *, true: str, pred, by, labels, nulls, sep, what: str,
                    least: int, most: int | None = None) -> dict:
    """One confusion matrix per group of ``by`` (``--by`` of ``bacc compare`` and ``bacc
    rank``: the groups are the classifiers, on different examples), keyed by the group's
    name (several group columns joined by `` / ``, as the command line names them)."""
    if not isinstance(pred, str):
        raise BaccError(f"pred: with by=, {what} is of the groups of one prediction column; "
                        "give one column, or several columns without by=")
    gc = counts(source, true=true, pred=pred, by=by, labels=labels, nulls=nulls, sep=sep)
    mats = {(" / ".join(map(str, g)) if isinstance(g, tuple) else str(g)): gc[g] for g in gc}
    if len(mats) < least or (most is not None and len(mats) > most):
        want = f"{least}" if most == least else f"{least} or more"
        raise BaccError(f"by=: {what} needs {want} groups, the column(s) {by!r} hold {len(mats)}")
    return mats


# ----------------------------------------------------------------------------------------------
@_at_callers_line
def evaluate(
    matrix_or_cm=None,
    y_pred=None,
    *,
    true: str | None = None,
    pred: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    y_true=None,
    prior=(1.0, 1.0),
    confidence: float = 0.95,
    weights=None,
    rows: str = "true",
    labels=None,
    empty: str = "drop",
    name: str | None = None,
    nulls: str = "error",
    sep: str | None = None,
    progress: bool = True,
) -> Evaluation | BatchEvaluation | dict:
    if by is not None and true is None and pred is None:
        raise BaccError("by= groups a table of predictions: give true=COLUMN and pred=COLUMN too")
    if not _columns_given(true, pred, y_pred, y_true):
        try:
            return _evaluate(matrix_or_cm, y_pred, y_true=y_true, prior=prior,
                             confidence=confidence, weights=weights, rows=rows, labels=labels,
                             empty=empty, name=name)
        except BaccError as exc:
            if y_pred is not None or y_true is not None:
                raise
            raise _matrix_expected(matrix_or_cm, exc) from None
    if matrix_or_cm is None:
        raise BaccError("true= and pred= name columns of a table: give the table first, "
                        "bacc.evaluate(df, true='label', pred='predicted')")
    if rows != "true":
        raise BaccError("rows= is for confusion matrices; a table of predictions names its "
                        "true and predicted columns with true= and pred=")
    if by is not None and (weights is not None or empty != "drop" or name is not None):
        raise BaccError("with by=, every group is evaluated by bacc.evaluate_many, which takes "
                        "no weights=, empty= or name=")
    counted = counts(matrix_or_cm, true=true, pred=pred, by=by, labels=labels, nulls=nulls,
                     sep=sep, progress=progress)

    def one(result, column: str):
        if isinstance(result, GroupedCounts):
            return evaluate_many(result, prior=prior, confidence=confidence, progress=progress)
        return _evaluate(result, prior=prior, confidence=confidence, weights=weights,
                         empty=empty, name=name if name is not None else column)

    if isinstance(counted, dict):
        if name is not None:
            raise BaccError("name= names one classifier; several pred= columns are named by "
                            "their columns")
        return {col: one(res, col) for col, res in counted.items()}
    return one(counted, pred)


evaluate.__doc__ = _with_table_parameters(
    _evaluate,
    """Also from a table of predictions, as the command line's ``bacc evaluate FILE --true
COLUMN --pred COLUMN [--by COLUMN]``: ``bacc.evaluate(df, true="label", pred="predicted")``
counts the table with :func:`bacc.counts` and evaluates the matrix (named after the prediction
column); with ``by=``, every group at once (:func:`bacc.evaluate_many`, a
:class:`~bacc.BatchEvaluation`); with several ``pred`` columns, a dict of results by column.
A table given without ``true=`` and ``pred=`` is refused with the column names to give.
""",
    _TABLE_PARAMETERS.format(
        several=" or sequence of str, optional",
        several_doc="; several columns give a dict of\n    results keyed by column",
    ) + """\
by : str or sequence of str, optional
    Group column(s) of a table, as ``--by``: one evaluation per group, by
    :func:`bacc.evaluate_many` (which takes ``prior`` and ``confidence``).
progress : bool
    Progress bars on standard error while a table is counted and groups are evaluated, on a
    terminal only (default ``True``).
""",
)


# ----------------------------------------------------------------------------------------------
@_at_callers_line
def compare(
    a,
    b=None,
    *,
    true: str | None = None,
    pred: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    paired: bool | None = None,
    rope: float = 0.0,
    confidence: float = 0.95,
    prior=None,
    weights=None,
    rows: str = "true",
    names: Sequence[str] | None = None,
    labels=None,
    nulls: str = "error",
    sep: str | None = None,
) -> Comparison:
    if by is not None and true is None and pred is None:
        raise BaccError("by= groups a table of predictions: give true=COLUMN and pred=COLUMN too")
    if not _columns_given(true, pred):
        if paired is not None or labels is not None:
            raise BaccError("paired= and labels= are for a table of predictions (true=, pred=); "
                            "for label sequences use bacc.compare_paired(y_true, y_pred_a, y_pred_b)")
        if b is None:
            raise BaccError("compare needs two classifiers' results, compare(a, b), or a table "
                            "with true=COLUMN and pred=[COLUMN_A, COLUMN_B]")
        try:
            return _compare(a, b, rope=rope, confidence=confidence, prior=prior, weights=weights,
                            rows=rows, names=names)
        except BaccError as exc:
            raise _matrix_expected(a if table_columns(a) is not None else b, exc) from None
    if b is not None:
        raise BaccError("a table of predictions is one argument: compare(df, true=..., "
                        "pred=[COLUMN_A, COLUMN_B])")
    if by is not None:
        if paired:
            raise BaccError("the groups of by= hold different examples: they are compared as "
                            "independent test sets (paired= is for two pred columns)")
        mats = _group_matrices(a, true=true, pred=pred, by=by, labels=labels, nulls=nulls,
                               sep=sep, what="a comparison", least=2, most=2)
        (na, ma), (nb, mb) = mats.items()
        return _compare(ma, mb, rope=rope, confidence=confidence, prior=prior, weights=weights,
                        names=(na, nb) if names is None else names)
    cols = _pred_list(pred, "a comparison", 2)
    if len(cols) != 2:
        raise BaccError(f"pred: a comparison is of two columns, got {len(cols)}; rank several "
                        "with bacc.rank(df, true=..., pred=[...])")
    nm = tuple(cols) if names is None else names
    if paired is None or paired:
        jc = joint_counts(a, true=true, preds=cols, labels=labels, nulls=nulls, sep=sep)
        return compare_paired_counts(jc.classes, jc.codes, jc.n, rope=rope,
                                     confidence=confidence, prior=0.5 if prior is None else prior,
                                     weights=weights, names=nm)
    cms = counts(a, true=true, pred=cols, labels=labels, nulls=nulls, sep=sep)
    return _compare(cms[cols[0]], cms[cols[1]], rope=rope, confidence=confidence, prior=prior,
                    weights=weights, names=nm)


compare.__doc__ = _with_table_parameters(
    _compare,
    """Also from a table of predictions, as ``bacc compare FILE --true COLUMN --pred A --pred
B``: ``bacc.compare(df, true="label", pred=["model_a", "model_b"])`` counts the table where it
lives and, since both columns predicted the same examples, compares them under their joint
posterior (:func:`bacc.compare_paired`, the same numbers as on the examples one by one);
``paired=False`` treats them as independent (:func:`bacc.comparison.compare` of the two counted
matrices). The names default to the column names.
""",
    _TABLE_PARAMETERS.format(several=" or sequence of two str, optional",
                             several_doc=": the two classifiers' columns (one column with\n"
                                         "    ``by=``)") + """\
by : str or sequence of str, optional
    For a table in long form, as ``--by``: the column naming the classifier (or group) of
    each row; its two groups, on different examples, are compared as independent test sets.
paired : bool, optional
    For a table: the paired model (default, the command line's choice for columns of one
    file; ``prior`` is then the Dirichlet concentration of :func:`bacc.compare_paired`,
    default 0.5) or independent posteriors (``paired=False``).
labels : sequence, optional
    For a table: the classes, in order (see :func:`bacc.counts`).
""",
)


# ----------------------------------------------------------------------------------------------
@_at_callers_line
def rank(
    evaluations,
    *,
    true: str | None = None,
    pred: str | Sequence[str] | None = None,
    by: str | Sequence[str] | None = None,
    paired: bool | None = None,
    names=None,
    random_state=0,
    n_draws: int | None = None,
    prior=None,
    rows: str = "true",
    pairwise: str = "auto",
    progress: Callable[[int, int], None] | None = None,
    weights=None,
    labels=None,
    nulls: str = "error",
    sep: str | None = None,
) -> Ranking:
    if by is not None and true is None and pred is None:
        raise BaccError("by= groups a table of predictions: give true=COLUMN and pred=COLUMN too")
    if not _columns_given(true, pred):
        if paired is not None or labels is not None or weights is not None:
            raise BaccError("paired=, labels= and weights= are for a table of predictions "
                            "(true=, pred=); for label sequences use bacc.rank_paired")
        try:
            return _rank(evaluations, names=names, random_state=random_state, n_draws=n_draws,
                         prior=prior, rows=rows, pairwise=pairwise, progress=progress)
        except BaccError as exc:
            raise _matrix_expected(evaluations, exc) from None
    if by is not None:
        if paired or weights is not None:
            raise BaccError("the groups of by= hold different examples: they are ranked under "
                            "independent posteriors, which take no paired= or weights=")
        mats = _group_matrices(evaluations, true=true, pred=pred, by=by, labels=labels,
                               nulls=nulls, sep=sep, what="a ranking", least=2)
        return _rank(mats, names=names, random_state=random_state, n_draws=n_draws,
                     prior=prior, pairwise=pairwise, progress=progress)
    cols = _pred_list(pred, "a ranking", 2)
    nm = cols if names is None else names
    if paired is None or paired:
        jc = joint_counts(evaluations, true=true, preds=cols, labels=labels, nulls=nulls, sep=sep)
        return rank_paired_counts(jc.classes, jc.codes, jc.n, names=nm,
                                  prior=0.5 if prior is None else prior, weights=weights,
                                  random_state=random_state, n_draws=n_draws, pairwise=pairwise,
                                  progress=progress)
    if weights is not None:
        raise BaccError("weights= is taken by the paired ranking only; independent posteriors "
                        "weigh the classes equally")
    jc = joint_counts(evaluations, true=true, preds=cols, labels=labels, nulls=nulls, sep=sep)
    cms = matrices(jc)
    return _rank([cms[c] for c in cols], names=nm, random_state=random_state, n_draws=n_draws,
                 prior=prior, pairwise=pairwise, progress=progress)


rank.__doc__ = _with_table_parameters(
    _rank,
    """Also from a table of predictions, as ``bacc rank FILE --true COLUMN --pred A --pred B
...``: ``bacc.rank(df, true="label", pred=["a", "b", "c"])`` counts the table where it lives
and, since the columns predicted the same examples, ranks them under their joint posterior
(:func:`bacc.rank_paired`; ``paired=False``: independent posteriors). The names default to the
column names.
""",
    _TABLE_PARAMETERS.format(several=" or sequence of str, optional",
                             several_doc=": two or more classifiers' columns (one column\n"
                                         "    with ``by=``)") + """\
by : str or sequence of str, optional
    For a table in long form, as ``--by``: the column naming the classifier (or group) of
    each row; the groups, on different examples, are ranked under independent posteriors and
    named by their values.
paired : bool, optional
    For a table: the paired model (default; ``prior`` is then the concentration of
    :func:`bacc.rank_paired`, default 0.5) or independent posteriors (``paired=False``).
weights : array_like, optional
    For a table and the paired model: class weights of the balanced accuracy.
labels : sequence, optional
    For a table: the classes, in order (see :func:`bacc.counts`).
""",
)
