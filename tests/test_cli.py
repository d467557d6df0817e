"""The ``bacc`` command end to end (``bacc.cli.main`` in this process; ``python -m bacc`` where noted).

Each subcommand and each output format is run on real files; JSON and CSV output is parsed and
checked against the library's own numbers; bad input must give one line on stderr and status 2.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bacc
from bacc.cli import main
from bacc.confusion import ConfusionMatrix
from bacc.intervals import class_intervals, exact_interval, fold_sem_interval
from bacc.simulation import coverage

C2 = [[42, 3], [6, 4]]


def run(*args: str, cwd: Path | None = None, stdin: str | None = None, check: bool = True,
        process: bool = False):
    """``bacc *args``: in this process through :func:`bacc.cli.main` (standard output and error
    captured, warnings shown as the command shows them), or as ``python -m bacc`` in a new
    process when the run needs its own working folder or standard input, or ``process=True``.

    Both give a :class:`subprocess.CompletedProcess`. The command's process itself (the entry
    point, its exit status, what reaches the terminal) is checked by the runs marked
    ``process=True`` below and by tests/test_cli_startup.py and tests/test_cli_output_safety.py.
    """
    if process or cwd is not None or stdin is not None:
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="default")
        proc = subprocess.run(
            [sys.executable, "-m", "bacc", *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            input=stdin,
            env=env,
            timeout=120,
        )
    else:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings():
            warnings.simplefilter("default")
            code = main(list(args))
        proc = subprocess.CompletedProcess(["bacc", *args], code, out.getvalue(), err.getvalue())
    if check and proc.returncode != 0:
        raise AssertionError(f"bacc {' '.join(args)} -> {proc.returncode}\n{proc.stderr}")
    return proc


def run_json(*args: str, cwd: Path | None = None):
    return json.loads(run(*args, "--format", "json", cwd=cwd).stdout)


def assert_bad_input(proc, *needles: str) -> None:
    """Exit status 2, one line on stderr starting 'bacc: error:', no traceback."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("bacc: error: "), lines[0]
    assert "Traceback" not in proc.stderr
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.fixture
def preds(tmp_path: Path) -> Path:
    """A small predictions file: two classifiers on the same 12 examples, two detectors."""
    rows = [
        ("e1", "d1", 0, "cat", "cat", "cat"),
        ("e2", "d1", 0, "cat", "cat", "dog"),
        ("e3", "d1", 1, "cat", "dog", "cat"),
        ("e4", "d1", 1, "dog", "dog", "dog"),
        ("e5", "d1", 2, "dog", "dog", "cat"),
        ("e6", "d1", 2, "dog", "cat", "dog"),
        ("e7", "d2", 0, "cat", "cat", "cat"),
        ("e8", "d2", 0, "cat", "cat", "cat"),
        ("e9", "d2", 1, "dog", "dog", "dog"),
        ("e10", "d2", 1, "dog", "dog", "cat"),
        ("e11", "d2", 2, "bird", "bird", "dog"),
        ("e12", "d2", 2, "bird", "cat", "bird"),
    ]
    path = tmp_path / "preds.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "detector", "fold", "label", "model_a", "model_b"])
        w.writerows(rows)
    return path


def _cm(path: Path, pred: str, where=None) -> ConfusionMatrix:
    with path.open() as fh:
        rows = [r for r in csv.DictReader(fh) if where is None or where(r)]
    return ConfusionMatrix.from_predictions(
        [r["label"] for r in rows], [r[pred] for r in rows], labels=["bird", "cat", "dog"]
    )


# ----------------------------------------------------------------------------------------------
# evaluate: formats
def test_evaluate_matrix_table_shows_library_numbers():
    out = run("evaluate", "--matrix", "42,3;6,4", process=True).stdout
    ev = bacc.evaluate(C2)
    ex = exact_interval(C2)
    assert "balanced accuracy" in out and "per class" in out
    s = ev.balanced_accuracy_summary
    for v in (ev.sample_balanced_accuracy, s.mean, s.median, s.mode, s.lower, s.upper, ex.lower, ex.upper):
        assert f"{v:.4f}" in out
    assert "P(balanced accuracy > chance 0.5) = 0.9955" in out


def test_evaluate_matrix_json_equals_library():
    d = json.loads(run("evaluate", "--matrix", "42,3;6,4", "--format", "json", process=True).stdout)
    ev = bacc.evaluate(C2)
    ref = ev.to_dict()
    for key in ("sample_accuracy", "sample_balanced_accuracy", "p_above_chance", "chance"):
        assert d[key] == pytest.approx(ref[key], abs=1e-12)
    for key in ("mean", "median", "mode", "lower", "upper"):
        assert d["balanced_accuracy"][key] == pytest.approx(ref["balanced_accuracy"][key], abs=1e-12)
        assert d["accuracy"][key] == pytest.approx(ref["accuracy"][key], abs=1e-12)
    assert d["confusion_matrix"]["counts"] == C2
    ex = exact_interval(C2)
    assert d["exact"]["balanced_accuracy"]["lower"] == pytest.approx(ex.lower, abs=1e-12)
    assert d["exact"]["balanced_accuracy"]["upper"] == pytest.approx(ex.upper, abs=1e-12)
    assert d["exact"]["balanced_accuracy"]["method"] == "union"
    acc = exact_interval(C2, metric="accuracy")
    assert d["exact"]["accuracy"]["upper"] == pytest.approx(acc.upper, abs=1e-12)
    cls = class_intervals(C2)
    assert [c["lower"] for c in d["exact"]["classes"]] == pytest.approx([c.lower for c in cls], abs=1e-12)
    assert [c["posterior_mean"] for c in d["classes"]] == pytest.approx(
        [c.summary.mean for c in ev.classes], abs=1e-12
    )


def test_evaluate_matrix_csv_equals_library():
    out = run("evaluate", "--matrix", "42,3;6,4", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    ev = bacc.evaluate(C2)
    by = {(r["measure"], r["class"]): r for r in rows}
    assert set(by) == {("balanced_accuracy", ""), ("accuracy", ""), ("class_accuracy", "0"),
                       ("class_accuracy", "1")}
    ba = by[("balanced_accuracy", "")]
    assert float(ba["posterior_mean"]) == pytest.approx(ev.balanced_accuracy_summary.mean, abs=1e-12)
    assert float(ba["credible_lower"]) == pytest.approx(ev.balanced_accuracy_summary.lower, abs=1e-12)
    assert float(ba["p_above_chance"]) == pytest.approx(ev.p_above_chance, abs=1e-12)
    assert float(ba["exact_upper"]) == pytest.approx(exact_interval(C2).upper, abs=1e-12)
    c1 = by[("class_accuracy", "1")]
    assert (int(c1["correct"]), int(c1["support"])) == (4, 10)
    assert float(c1["posterior_mean"]) == pytest.approx(ev.classes[1].summary.mean, abs=1e-12)


def test_evaluate_rows_predicted_reads_the_papers_orientation():
    d = run_json("evaluate", "--matrix", "42,6;3,4", "--rows", "predicted")
    assert d["confusion_matrix"]["counts"] == C2


def test_evaluate_options_prior_confidence_weights_exact_method():
    d = run_json("evaluate", "--matrix", "42,3;6,4", "--prior", "jeffreys", "--confidence", "0.9",
                 "--weights", "0.7,0.3", "--exact-method", "sidak")
    ev = bacc.evaluate(C2, prior="jeffreys", confidence=0.9, weights=[0.7, 0.3])
    assert d["confidence"] == 0.9
    assert d["balanced_accuracy"]["lower"] == pytest.approx(ev.balanced_accuracy_summary.lower, abs=1e-12)
    assert d["p_above_chance"] == pytest.approx(ev.p_above_chance, abs=1e-12)
    ex = exact_interval(C2, confidence=0.9, method="sidak", weights=[0.7, 0.3])
    assert d["exact"]["balanced_accuracy"]["lower"] == pytest.approx(ex.lower, abs=1e-12)
    assert d["exact"]["balanced_accuracy"]["method"] == "sidak"


def test_evaluate_weights_by_label(tmp_path):
    f = tmp_path / "m.csv"
    f.write_text(",neg,pos\nneg,42,3\npos,6,4\n")
    d = run_json("evaluate", str(f), "--weights", "pos=0.3,neg=0.7")
    ev = bacc.evaluate(ConfusionMatrix(C2, labels=["neg", "pos"]), weights=[0.7, 0.3])
    assert d["confusion_matrix"]["labels"] == ["neg", "pos"]
    assert d["balanced_accuracy"]["mean"] == pytest.approx(ev.balanced_accuracy_summary.mean, abs=1e-12)


# ----------------------------------------------------------------------------------------------
# evaluate: inputs
def test_evaluate_predictions_csv(preds):
    d = run_json("evaluate", str(preds), "--true", "label", "--pred", "model_a")
    cm = _cm(preds, "model_a")
    assert d["confusion_matrix"] == cm.to_dict()
    ev = bacc.evaluate(cm)
    assert d["balanced_accuracy"]["mean"] == pytest.approx(ev.balanced_accuracy_summary.mean, abs=1e-12)
    assert d["name"] == "model_a"


def test_evaluate_by_group_gives_one_result_per_group(preds):
    d = run_json("evaluate", str(preds), "--true", "label", "--pred", "model_a", "--by", "detector")
    assert [r["name"] for r in d] == ["d1", "d2"]
    for r, g in zip(d, ["d1", "d2"], strict=True):
        cm = _cm(preds, "model_a", where=lambda row, g=g: row["detector"] == g)
        assert r["confusion_matrix"]["counts"] == cm.counts.tolist()


def test_evaluate_by_group_warns_once_per_missing_class(preds):
    proc = run("evaluate", str(preds), "--true", "label", "--pred", "model_a", "--by", "detector")
    # d1 has no true 'bird': one warning line, no traceback
    warn = [ln for ln in proc.stderr.splitlines() if ln]
    assert len(warn) == 1 and warn[0].startswith("bacc: warning: d1:") and "bird" in warn[0]
    assert "2 evaluations" in proc.stdout and "d1" in proc.stdout and "d2" in proc.stdout


def test_evaluate_two_pred_columns_and_folds(preds):
    d = run_json("evaluate", str(preds), "--true", "label", "--pred", "model_a", "--pred", "model_b",
                 "--fold", "fold")
    assert [r["name"] for r in d] == ["model_a", "model_b"]
    with preds.open() as fh:
        rows = list(csv.DictReader(fh))
    folds = [
        ConfusionMatrix.from_predictions([r["label"] for r in rows if r["fold"] == f],
                                         [r["model_b"] for r in rows if r["fold"] == f],
                                         labels=["bird", "cat", "dog"])
        for f in "012"
    ]
    ref = fold_sem_interval(folds)
    assert d[1]["fold_sem"]["lower"] == pytest.approx(ref.lower, abs=1e-12)
    assert d[1]["fold_sem"]["upper"] == pytest.approx(ref.upper, abs=1e-12)
    assert d[1]["fold_sem"]["approximate"] is True


def test_evaluate_tsv_jsonl_and_stdin_give_the_same_counts(preds, tmp_path):
    with preds.open() as fh:
        rows = list(csv.DictReader(fh))
    tsv = tmp_path / "p.tsv"
    tsv.write_text("label\tmodel_a\n" + "".join(f"{r['label']}\t{r['model_a']}\n" for r in rows))
    jl = tmp_path / "p.jsonl"
    jl.write_text("".join(json.dumps({"y": r["label"], "yhat": r["model_a"]}) + "\n" for r in rows))
    ref = _cm(preds, "model_a").to_dict()
    assert run_json("evaluate", str(tsv), "--true", "label", "--pred", "model_a")["confusion_matrix"] == ref
    assert run_json("evaluate", str(jl), "--true", "y", "--pred", "yhat")["confusion_matrix"] == ref
    proc = run("evaluate", "-", "--true", "label", "--pred", "model_a", "--format", "json",
               stdin=preds.read_text())
    assert json.loads(proc.stdout)["confusion_matrix"] == ref


def test_evaluate_parquet_is_counted_by_the_engine(preds, tmp_path):
    pytest.importorskip("duckdb", reason="Parquet input is counted by bacc.counting with DuckDB")
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pq = tmp_path / "preds.parquet"
    pd.read_csv(preds, dtype=str).to_parquet(pq)
    args = ("--true", "label", "--pred", "model_a", "--by", "detector", "--fold", "fold")
    from_parquet = run_json("evaluate", str(pq), *args)
    from_csv = run_json("evaluate", str(preds), *args)
    assert [d["name"] for d in from_parquet] == [d["name"] for d in from_csv] == ["d1", "d2"]
    for a, b in zip(from_parquet, from_csv, strict=True):
        assert a["confusion_matrix"] == b["confusion_matrix"]
        assert a["balanced_accuracy"] == b["balanced_accuracy"]
        assert a["fold_sem"]["fold_values"] == b["fold_sem"]["fold_values"]


def test_evaluate_matrix_files_csv_and_json(tmp_path):
    f = tmp_path / "cm.csv"
    f.write_text("42,3\n6,4\n")
    assert run_json("evaluate", str(f))["confusion_matrix"]["counts"] == C2
    j = tmp_path / "cm.json"
    j.write_text(json.dumps({"labels": ["pos", "neg"], "counts": C2}))
    d = run_json("evaluate", str(j))
    assert d["confusion_matrix"] == {"labels": ["pos", "neg"], "counts": C2}
    folds = tmp_path / "folds.json"
    folds.write_text(json.dumps([[[20, 2], [3, 2]], [[22, 1], [3, 2]]]))
    d = run_json("evaluate", str(folds))
    assert d["confusion_matrix"]["counts"] == C2
    ref = fold_sem_interval([[[20, 2], [3, 2]], [[22, 1], [3, 2]]])
    assert d["fold_sem"]["upper"] == pytest.approx(ref.upper, abs=1e-12)


def test_evaluate_named_matrices_and_summary_table():
    out = run("evaluate", "--matrix", "C1=62,8;6,64", "--matrix", "C2=42,3;6,4").stdout
    assert "2 evaluations" in out
    for name, m in (("C1", [[62, 8], [6, 64]]), ("C2", C2)):
        ev = bacc.evaluate(m)
        line = next(ln for ln in out.splitlines() if ln.startswith(name + " "))
        assert f"{ev.balanced_accuracy_summary.mean:.4f}" in line
    assert "== C2" in out  # per-item details follow the summary


# ----------------------------------------------------------------------------------------------
# compare and rank
def test_compare_independent_json_equals_library():
    d = run_json("compare", "--matrix", "A=62,8;6,64", "--matrix", "B=42,3;6,4", "--rope", "0.01")
    from bacc.comparison import compare

    ref = compare(bacc.evaluate([[62, 8], [6, 64]]), bacc.evaluate(C2), rope=0.01).to_dict()
    assert d["a"] == "A" and d["b"] == "B" and d["paired"] is False
    assert d["comparison"]["p_better"] == pytest.approx(ref["p_better"], abs=1e-12)


def test_compare_table_names_both_classifiers():
    out = run("compare", "--matrix", "A=62,8;6,64", "--matrix", "B=42,3;6,4").stdout
    assert "A = A" in out and "B = B" in out


def test_compare_paired_json_equals_library(preds):
    d = run_json("compare", str(preds), "--true", "label", "--pred", "model_a", "--pred", "model_b",
                 "--paired")
    from bacc.comparison import compare_paired

    with preds.open() as fh:
        rows = list(csv.DictReader(fh))
    ref = compare_paired([r["label"] for r in rows], [r["model_a"] for r in rows],
                         [r["model_b"] for r in rows], labels=["bird", "cat", "dog"]).to_dict()
    assert d["paired"] is True
    assert d["comparison"]["p_better"] == pytest.approx(ref["p_better"], abs=1e-12)


def test_rank_json_lists_every_classifier():
    d = run_json("rank", "--matrix", "A=62,8;6,64", "--matrix", "B=42,3;6,4", "--matrix", "C=9,1;2,8")
    assert [e["name"] for e in d["evaluations"]] == ["A", "B", "C"]
    assert "A" in json.dumps(d["ranking"]) and "C" in json.dumps(d["ranking"])


def test_compare_needs_two_inputs():
    assert_bad_input(run("compare", "--matrix", "42,3;6,4", check=False), "exactly two")


def test_compare_paired_needs_predictions():
    assert_bad_input(run("compare", "--matrix", "42,3;6,4", "--matrix", "40,5;6,4", "--paired",
                         check=False), "--paired")


# ----------------------------------------------------------------------------------------------
# coverage
def test_coverage_json_equals_library_and_no_progress_bar_off_a_terminal():
    proc = run("coverage", "--sizes", "20,20", "--accuracies", "0.99,0.9", "--methods",
               "union,wald,bayes", "--n-sim", "3000", "--seed", "7", "--format", "json")
    assert proc.stderr == ""  # stderr is a pipe here: no progress bar
    d = json.loads(proc.stdout)
    ref = coverage(["union", "wald", "bayes"], [20, 20], [0.99, 0.9], n_simulations=3000, random_state=7)
    assert [m["method"] for m in d["methods"]] == ["union", "wald", "bayes"]
    for got, want in zip(d["methods"], ref.methods, strict=True):
        assert got["coverage"] == pytest.approx(want.coverage, abs=1e-15)
        assert got["mean_width"] == pytest.approx(want.mean_width, abs=1e-12)
    assert d["seed"] == 7


def test_coverage_from_matrix_table_and_csv():
    out = run("coverage", "--matrix", "42,3;6,4", "--methods", "union,wald", "--n-sim", "2000",
              "--seed", "1").stdout
    assert "union" in out and "wald" in out and "seed 1" in out
    rows = list(csv.DictReader(io.StringIO(run(
        "coverage", "--sizes", "30", "--accuracies", "0.95", "--methods", "clopper-pearson,wald",
        "--metric", "accuracy", "--n-sim", "2000", "--seed", "1", "--format", "csv").stdout)))
    assert [r["method"] for r in rows] == ["clopper-pearson", "wald"]
    assert 0 <= float(rows[0]["coverage"]) <= 1


def test_coverage_bad_method():
    assert_bad_input(run("coverage", "--sizes", "5,5", "--accuracies", "0.9,0.9", "--methods", "magic",
                         check=False), "magic")


# ----------------------------------------------------------------------------------------------
# report and demo
def test_report_writes_a_self_contained_page(preds, tmp_path):
    out = tmp_path / "r.html"
    proc = run("report", str(preds), "--true", "label", "--pred", "model_a", "--by", "detector",
               "-o", str(out), "--title", "Detectors <May>")
    assert f"wrote {out}" in proc.stdout
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert "Detectors &lt;May&gt;" in page and "<May>" not in page
    ev = bacc.evaluate(_cm(preds, "model_a", where=lambda r: r["detector"] == "d2"))
    assert f"{ev.balanced_accuracy_summary.mean:.4f}" in page


def test_report_without_pictures(tmp_path):
    out = tmp_path / "r.html"
    run("report", "--matrix", "42,3;6,4", "-o", str(out), "--no-pictures")
    page = out.read_text()
    assert "<svg" not in page and "0.6658" in page


def test_report_without_matplotlib_says_what_to_install(tmp_path):
    out = tmp_path / "r.html"
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from bacc.cli import main\n"
        f"sys.exit(main(['report', '--matrix', '42,3;6,4', '-o', {str(out)!r}]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == (
        'bacc: warning: the report has no pictures: plotting needs matplotlib: pip install "bacc[plot]"'
    )
    page = out.read_text()
    assert "<svg" not in page and "0.6658" in page


def test_every_install_hint_in_the_product_is_quoted_for_a_shell():
    """An extra in square brackets is a glob to zsh and some bash set-ups: every ``pip install``
    of an extra the product prints or documents is quoted, ``pip install "bacc[plot]"``."""
    import re
    from pathlib import Path

    src = Path(bacc.__file__).parent
    hints = []
    for path in sorted(src.rglob("*.py")):
        hints += [(path.name, m.group(0)) for m in
                  re.finditer(r"pip install [^\n`'\\]*?bacc\[[^\]]*\]\S*", path.read_text(encoding="utf-8"))]
    assert len(hints) >= 3, hints  # the plot warning, the missing-dependency error, docstrings
    bare = [(name, h) for name, h in hints if not re.search(r'pip install "bacc\[\w+\]"', h)]
    assert bare == []
    from bacc.errors import MissingDependencyError, require

    with pytest.raises(MissingDependencyError, match=re.escape('pip install "bacc[plot]"')):
        require("bacc_no_such_module_x", "plot", "plots")


@pytest.mark.slow
@pytest.mark.xdist_group("test_display_report")  # the run is shared with its tests (conftest.py)
def test_demo_prints_tables_and_writes_the_report_within_a_minute(demo_run):
    proc, report, elapsed = demo_run
    assert elapsed < 60
    out = proc.stdout
    assert "Brodersen et al. 2010, Fig. 1, C2" in out
    assert "Hand-written digits" in out and "Wine" in out
    assert "leaves [0, 1]" in out  # the first flaw named by Brodersen et al. (2010), shown not clipped
    assert report.name == "bacc-demo.html"  # written into the working folder by default
    page = report.read_text()
    assert "<svg" in page and "logistic_regression" in page
    ev = bacc.evaluate(C2)
    assert f"{ev.balanced_accuracy_summary.mean:.4f}" in out
    assert f"{ev.balanced_accuracy_summary.mean:.4f}" in page


def test_demo_no_report_writes_nothing(tmp_path):
    run("demo", "--no-report", cwd=tmp_path)
    assert not (tmp_path / "bacc-demo.html").exists()


# ----------------------------------------------------------------------------------------------
# help
SUBCOMMANDS = ["evaluate", "compare", "rank", "coverage", "report", "demo"]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_help_documents_every_option_with_an_example(command):
    from bacc.cli import build_parser

    out = run(command, "--help").stdout
    assert "examples:" in out and f"bacc {command}" in out
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    for action in sub._actions:
        if action.dest == "help":
            continue
        assert action.help, f"{command}: option {action.option_strings or action.dest} has no help"
        assert "e.g." in action.help or not action.option_strings, (
            f"{command}: option {action.option_strings} has no example"
        )
        for opt in action.option_strings:
            assert opt in out


def test_top_level_help_and_version():
    out = run("--help").stdout
    for c in SUBCOMMANDS:
        assert c in out
    assert run("--version").stdout.strip() == f"bacc {bacc.__version__}"


# ----------------------------------------------------------------------------------------------
# bad input: one line, status 2
def test_bad_matrix_text():
    # through the command's own process: one line on its stderr, status 2
    assert_bad_input(run("evaluate", "--matrix", "42,x;6,4", check=False, process=True), "'x'",
                     "row 1")
    assert_bad_input(run("evaluate", "--matrix", "42,3;6", check=False), "row 2")
    assert_bad_input(run("evaluate", "--matrix", "42,3,1;6,4,1", check=False), "square")


def test_negative_or_fractional_count():
    assert_bad_input(run("evaluate", "--matrix", "42,-3;6,4", check=False))
    assert_bad_input(run("evaluate", "--matrix", "42,3.5;6,4", check=False))


def test_unreadable_file(tmp_path):
    assert_bad_input(run("evaluate", str(tmp_path / "missing.csv"), "--true", "a", "--pred", "b",
                         check=False), "missing.csv", "No such file")
    assert_bad_input(run("evaluate", str(tmp_path), "--true", "a", "--pred", "b", check=False),
                     "directory")
    binary = tmp_path / "x.csv"
    binary.write_bytes(b"\xff\xfe\x00bad")
    assert_bad_input(run("evaluate", str(binary), "--true", "a", "--pred", "b", check=False), "x.csv")


def test_missing_column(preds):
    assert_bad_input(run("evaluate", str(preds), "--true", "truth", "--pred", "model_a", check=False),
                     "preds.csv", "'truth'", "--true", "label")
    assert_bad_input(run("evaluate", str(preds), "--true", "label", "--pred", "model_a", "--by", "nope",
                         check=False), "'nope'")


def test_unknown_label_names_file_line_and_column(preds):
    proc = run("evaluate", str(preds), "--true", "label", "--pred", "model_a", "--labels", "cat,dog",
               check=False)
    assert_bad_input(proc, "preds.csv, line 12", "'label'", "'bird'")


def test_empty_label_and_ragged_row(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("y,yhat\na,a\n,b\n")
    assert_bad_input(run("evaluate", str(f), "--true", "y", "--pred", "yhat", check=False),
                     "p.csv, line 3", "'y'", "empty")
    f.write_text("y,yhat\na,a\nb\n")
    assert_bad_input(run("evaluate", str(f), "--true", "y", "--pred", "yhat", check=False),
                     "line 3", "expected 2 fields")


def test_empty_file_and_bad_json(tmp_path):
    f = tmp_path / "e.csv"
    f.write_text("")
    assert_bad_input(run("evaluate", str(f), "--true", "y", "--pred", "yhat", check=False), "empty")
    j = tmp_path / "p.jsonl"
    j.write_text('{"y": "a", "yhat": "a"}\n{"y": "b", \n')
    assert_bad_input(run("evaluate", str(j), "--true", "y", "--pred", "yhat", check=False),
                     "line 2", "invalid JSON")


def test_bad_options():
    assert_bad_input(run("evaluate", "--matrix", "42,3;6,4", "--confidence", "1.5", check=False),
                     "confidence")
    assert_bad_input(run("evaluate", "--matrix", "42,3;6,4", "--weights", "0.5", check=False),
                     "--weights")
    assert_bad_input(run("evaluate", "--matrix", "42,3;6,4", "--prior", "cauchy", check=False), "prior")
    assert_bad_input(run("evaluate", "--matrix", "42,3;6,4", "--format", "xml", check=False), "xml")
    assert_bad_input(run("evaluate", "x.csv", "--true", "y", check=False), "--pred")
    assert_bad_input(run("evaluate", check=False), "nothing to evaluate")
    assert_bad_input(run("frobnicate", check=False, process=True), "frobnicate")


def test_broken_pipe_is_quiet(tmp_path):
    # 600 classes: the CSV output (> 100 kB) outgrows the pipe buffer after the reader has gone
    big = np.full((600, 600), 0)
    np.fill_diagonal(big, 20)
    big[:, 0] += 1
    path = tmp_path / "big.csv"
    np.savetxt(path, big, fmt="%d", delimiter=",")
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.Popen(
        [sys.executable, "-m", "bacc", "evaluate", str(path), "--format", "csv"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert proc.returncode == 0


def test_main_returns_status_in_process(capsys):
    from bacc.cli import main

    assert main(["evaluate", "--matrix", "42,3;6,4", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["confusion_matrix"]["counts"] == C2
    assert main(["evaluate", "--matrix", "nonsense;;"]) == 2
    assert capsys.readouterr().err.startswith("bacc: error:")
    assert main(["evaluate", "--help"]) == 0


def test_numbers_in_csv_round_trip_exactly():
    out = run("evaluate", "--matrix", "42,3;6,4", "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    ev = bacc.evaluate(C2)
    assert float(rows[0]["posterior_median"]) == ev.balanced_accuracy_summary.median
    assert np.isfinite([float(r["posterior_mean"]) for r in rows]).all()


def test_missing_optional_dependency_is_one_line_naming_the_extra(tmp_path):
    pq = tmp_path / "p.parquet"
    pq.write_bytes(b"PAR1")  # a Parquet file goes to DuckDB, which is missing here
    code = (
        "import sys; sys.modules['duckdb'] = None\n"
        "from bacc.cli import main\n"
        f"sys.exit(main(['evaluate', {str(pq)!r}, '--true', 'y', '--pred', 'p']))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert_bad_input(proc, "duckdb", 'pip install "bacc[data]"')


def test_library_messages_are_given_in_option_terms():
    from bacc.cli.inputs import in_option_terms

    assert in_option_terms("f.csv has no column 'y' (given by true=)") == "f.csv has no column 'y' (given by --true)"
    assert in_option_terms("'fold' (by=) and 'g' (by=)", fold="fold") == "'fold' (--fold) and 'g' (--by)"
    assert "among --labels (a, b)" in in_option_terms("has the label 'c', which is not in labels (a, b)")
    # names of matrices and files are left alone
    assert in_option_terms("bad matrix text 'by=4,x;1,2'") == "bad matrix text 'by=4,x;1,2'"


def test_paired_comparison_refuses_a_prior_per_class(preds):
    proc = run("compare", str(preds), "--true", "label", "--pred", "model_a", "--pred", "model_b",
               "--paired", "--prior", "1,1;1,1;1,1", check=False)
    assert_bad_input(proc, "--paired", "symmetric")


def test_paired_comparison_takes_the_jeffreys_prior(preds):
    d = run_json("compare", str(preds), "--true", "label", "--pred", "model_a", "--pred", "model_b",
                 "--paired", "--prior", "jeffreys")
    from bacc.comparison import compare_paired

    with preds.open() as fh:
        rows = list(csv.DictReader(fh))
    ref = compare_paired([r["label"] for r in rows], [r["model_a"] for r in rows],
                         [r["model_b"] for r in rows], labels=["bird", "cat", "dog"],
                         prior="jeffreys").to_dict()
    assert d["comparison"]["p_better"] == pytest.approx(ref["p_better"], abs=1e-12)


def test_coverage_of_precision_on_the_command_line_is_two_class():
    proc = run("coverage", "--methods", "union", "--sizes", "20,20,20", "--accuracies",
               "0.9,0.95,0.9", "--metric", "precision", "--prevalence", "0.005", "--n-sim",
               "100", check=False)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "bacc.coverage" in proc.stderr
    ok = run("coverage", "--methods", "union", "--sizes", "5000,50", "--accuracies",
             "0.99,0.9", "--metric", "precision", "--prevalence", "0.005", "--n-sim", "2000")
    assert "precision at prevalence 0.005" in ok.stdout
