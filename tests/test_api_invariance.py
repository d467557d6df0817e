"""Invariances of every public function and command that takes data.

The functions and their input forms are listed once, in ``invariance_table.py``; each row is
tried on data sets drawn by hypothesis: relabelled classes (renamed and reordered, with
weights keyed by label following their class), every accepted input form, shuffled rows, a
trip through pickle, deepcopy and strict JSON, and inputs checked unmodified afterwards.
"""

from __future__ import annotations

import copy
import io
import json
import pickle
import warnings
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.invariance_table import NO_DATA, ROWS, Data, flat_numbers, same_numbers

import bacc
from bacc.cli import main
from bacc.cli.parser import build_parser
from bacc.labels import class_order

BASE = ("9", "10", "11", "2")  # natural order 2 < 9 < 10 < 11; as text "10" < "11" < "2" < "9"
RENAMED = ("zeta", "alpha", "mid", "beta")


@st.composite
def datasets(draw, max_classes: int = 3) -> Data:
    l = draw(st.integers(2, max_classes))
    classes = BASE[:l]
    sizes = draw(st.lists(st.integers(2, 10), min_size=l, max_size=l))
    y_true = [classes[c] for c, m in enumerate(sizes) for _ in range(m)]
    n = len(y_true)
    acc = draw(st.floats(0.3, 0.95))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)

    def predict(p):
        return [t if rng.random() < p else classes[rng.integers(l)] for t in y_true]

    y_pred, y_pred_b = predict(acc), predict(acc * 0.8)
    w = rng.uniform(0.2, 1.0, l)
    w = w / w.sum()
    order = rng.permutation(n)
    groups = [f"s{order[i] % 3}" for i in range(n)]
    days = [int(order[i] % 4) for i in range(n)]
    return Data(y_true, y_pred, y_pred_b, groups, days, class_order(classes),
                {c: float(x) for c, x in zip(classes, w, strict=True)})


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        return fn(*args)


def _rows(keep: str, also=lambda row: True) -> list:
    """The names of the rows that keep ``keep``; a row marked ``slow`` in the table runs in the
    full run only (``pytest --full``): its property checks take seconds each."""
    return [pytest.param(k, marks=pytest.mark.slow) if r.slow else k
            for k, r in sorted(ROWS.items()) if keep in r.keeps and also(r)]


def _settings(row):
    return settings(max_examples=3 if row.slow else 6, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def test_every_public_name_has_a_row():
    missing = [n for n in bacc.__all__ if n not in ROWS and n not in NO_DATA]
    assert not missing, f"public names with no row in the invariance table: {missing}"
    assert not (set(ROWS) | NO_DATA) - set(bacc.__all__) - {
        k for k in ROWS if "[" in k}, "rows for names that are not public"


@pytest.mark.parametrize("name", _rows("relabel"))
def test_relabelling_changes_no_number(name):
    row = ROWS[name]

    @_settings(row)
    @given(d=datasets(), perm=st.permutations(range(4)))
    def check(d, perm):
        mapping = {c: RENAMED[perm[i]] for i, c in enumerate(BASE)}
        before = flat_numbers(_quiet(row.call, d, row.forms[0]))
        assert before, f"{name}: the result holds no numbers to compare"
        after = flat_numbers(_quiet(row.call, d.relabel(mapping), row.forms[0]))
        tol = row.tol if row.relabel_tol is None else max(row.tol, row.relabel_tol)
        problem = same_numbers(before, after, tol)
        assert problem is None, f"{name}: relabelled classes give other numbers: {problem}"

    check()


@pytest.mark.parametrize("name", _rows("forms", lambda r: len(r.forms) > 1))
def test_every_input_form_gives_the_same_numbers(name):
    row = ROWS[name]

    @_settings(row)
    @given(d=datasets())
    def check(d):
        ref = flat_numbers(_quiet(row.call, d, row.forms[0]))
        # a labelled matrix in another class order meets the random draws in another order
        tol = row.tol if row.relabel_tol is None else max(row.tol, row.relabel_tol)
        for form in row.forms[1:]:
            problem = same_numbers(ref, flat_numbers(_quiet(row.call, d, form)), tol)
            assert problem is None, f"{name}: form {form!r} against {row.forms[0]!r}: {problem}"

    check()


@pytest.mark.parametrize("name", _rows("order"))
def test_row_order_changes_nothing(name):
    row = ROWS[name]

    @_settings(row)
    @given(d=datasets(), seed=st.integers(0, 1000))
    def check(d, seed):
        ref = flat_numbers(_quiet(row.call, d, row.forms[0]))
        got = flat_numbers(_quiet(row.call, d.shuffled(np.random.default_rng(seed)), row.forms[0]))
        problem = same_numbers(ref, got, row.tol)
        assert problem is None, f"{name}: shuffled rows give other numbers: {problem}"

    check()


def _results(obj):
    if isinstance(obj, dict):
        return [v for v in obj.values() if not isinstance(v, int | float)]
    if isinstance(obj, list | tuple):
        return list(obj)
    return [obj]


@pytest.mark.parametrize("name", _rows("travel"))
def test_results_travel(name):
    row = ROWS[name]

    @settings(max_examples=2, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(d=datasets())
    def check(d):
        result = _quiet(row.call, d, row.forms[0])
        ref = flat_numbers(result)
        for back in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
            assert same_numbers(ref, flat_numbers(back), 0.0) is None
            assert str(back) == str(result)
        for r in _results(result):
            if hasattr(r, "to_dict"):
                # strict JSON (no NaN or inf), and every number comes back as it was
                back = json.loads(json.dumps(r.to_dict(), allow_nan=False))
                assert same_numbers(flat_numbers(r), flat_numbers(back), 0.0) is None

    check()


def _snapshot(x):
    if isinstance(x, pd.DataFrame | pd.Series):
        return x.copy(deep=True)
    return copy.deepcopy(x)


def _same(a, b) -> bool:
    """Whether ``a`` is unchanged against its snapshot ``b`` (frames, arrays, containers)."""
    if isinstance(a, pd.DataFrame | pd.Series):
        return a.equals(b) and list(a.index) == list(b.index)
    if type(a).__module__.startswith("polars"):
        return a.equals(b)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b) and a.flags.writeable == b.flags.writeable
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, bacc.ConfusionMatrix):
        return a.labels == b.labels and np.array_equal(a.counts, b.counts)
    return bool(a == b)


@pytest.mark.parametrize("name", _rows("untouched"))
def test_inputs_are_not_modified(name, monkeypatch):
    """Every argument the function receives is compared with a copy taken before the call."""
    row = ROWS[name]
    seen: list = []
    originals = {}
    for fn_name in ("evaluate", "evaluate_many", "compare", "compare_paired", "rank",
                    "rank_paired", "counts", "counts_from_long", "exact_interval",
                    "approx_interval", "class_intervals", "approx_class_intervals",
                    "binomial_test", "fold_sem_interval", "posterior_accuracy",
                    "posterior_balanced_accuracy", "posterior_class_accuracies", "population",
                    "posterior_metric", "plan_labels", "next_label", "monitor", "coverage",
                    "compare_across", "rank_across", "scores", "compare_auc",
                    "auc_coverage"):
        originals[fn_name] = getattr(bacc, fn_name)

        def spy(*args, _fn=originals[fn_name], **kwargs):
            snap = ([_snapshot(a) for a in args], {k: _snapshot(v) for k, v in kwargs.items()})
            seen.append((args, kwargs, snap))
            return _fn(*args, **kwargs)

        monkeypatch.setattr(bacc, fn_name, spy)
    for fn_name in ("accuracy", "balanced_accuracy", "macro_f1", "cohen_kappa", "matthews",
                    "g_mean", "informedness"):
        original = getattr(bacc.metrics, fn_name)

        def metric_spy(*args, _fn=original, **kwargs):
            snap = ([_snapshot(a) for a in args], {k: _snapshot(v) for k, v in kwargs.items()})
            seen.append((args, kwargs, snap))
            return _fn(*args, **kwargs)

        monkeypatch.setattr(bacc.metrics, fn_name, metric_spy)
    from_predictions = bacc.ConfusionMatrix.from_predictions

    def cm_spy(*args, **kwargs):
        snap = ([_snapshot(a) for a in args], {k: _snapshot(v) for k, v in kwargs.items()})
        seen.append((args, kwargs, snap))
        return from_predictions(*args, **kwargs)

    monkeypatch.setattr(bacc.ConfusionMatrix, "from_predictions", staticmethod(cm_spy))

    @settings(max_examples=2, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(d=datasets())
    def check(d):
        for form in row.forms:
            seen.clear()
            _quiet(row.call, d, form)
            assert seen, f"{name}: no call of a public function was seen ({form})"
            for args, kwargs, (sa, sk) in seen:
                for a, s in zip(args, sa, strict=True):
                    assert _same(a, s), f"{name} modified a positional argument ({form})"
                for k in kwargs:
                    assert _same(kwargs[k], sk[k]), f"{name} modified {k}= ({form})"

    check()


# ------------------------------------------------------------------------- the command line
def _subcommands() -> set:
    parser = build_parser()
    for action in parser._subparsers._group_actions:  # argparse keeps subcommands here
        return set(action.choices)
    return set()


def _csv(d: Data, path) -> str:
    d.frame().to_csv(path, index=False)
    return str(path)


CLI_ROWS = {
    "evaluate": lambda f: ["evaluate", f, "--true", "label", "--pred", "a", "--format", "json"],
    "compare": lambda f: ["compare", f, "--true", "label", "--pred", "a", "--pred", "b",
                          "--paired", "--format", "json"],
    "rank": lambda f: ["rank", f, "--true", "label", "--pred", "a", "--pred", "b",
                       "--format", "json"],
    "population": lambda f: ["population", f, "--true", "label", "--pred", "a", "--by",
                             "subject", "--format", "json"],
    "plan": lambda f: ["plan", f, "--true", "label", "--pred", "a", "--lower", "0.3",
                       "--format", "json"],
    "next-label": lambda f: ["next-label", f, "--true", "label", "--pred", "a",
                             "--format", "json"],
    "monitor": lambda f: ["monitor", f, "--true", "label", "--pred", "a", "--time", "time",
                          "--window", "1D", "--by", "subject", "--format", "json"],
}
#: Commands that take no data file, or write HTML whose numbers come from the rows above.
CLI_OTHER = {
    "coverage": "takes a simulation design (class sizes and accuracies), no labels",
    "demo": "runs on the data that ships with bacc",
    "report": "renders the results of the commands above (checked in test_display_report.py)",
    "threshold": "needs a score column: relabelling and row order are checked in "
                 "test_score_curve_cli.py",
}


def test_every_subcommand_has_a_row():
    missing = _subcommands() - set(CLI_ROWS) - set(CLI_OTHER)
    assert not missing, f"subcommands with no row in the invariance table: {sorted(missing)}"


def _run(argv) -> list:
    out = io.StringIO()
    with redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(argv)
    assert code == 0, f"{argv}: exit {code}"
    return flat_numbers(json.loads(out.getvalue()))


@pytest.mark.parametrize("command", sorted(CLI_ROWS))
def test_command_relabelling_and_row_order(command, tmp_path):
    @settings(max_examples=2, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(d=datasets(), perm=st.permutations(range(4)), seed=st.integers(0, 100))
    def check(d, perm, seed):
        mapping = {c: RENAMED[perm[i]] for i, c in enumerate(BASE)}
        ref = _run(CLI_ROWS[command](_csv(d, tmp_path / "a.csv")))
        renamed = _run(CLI_ROWS[command](_csv(d.relabel(mapping), tmp_path / "b.csv")))
        tol = 0.03 if command in ("rank", "monitor") else 1e-9
        assert same_numbers(ref, renamed, tol) is None, f"bacc {command}: relabelled"
        shuffled = _run(CLI_ROWS[command](_csv(d.shuffled(np.random.default_rng(seed)),
                                               tmp_path / "c.csv")))
        assert same_numbers(ref, shuffled, 1e-9) is None, f"bacc {command}: shuffled rows"

    check()
