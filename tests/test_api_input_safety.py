"""What is not a pair of class-label columns is refused with a message that says what was meant;
what users of scikit-learn type works; outputs never destroy an input or leave half a file."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bacc
from bacc._engine.helpers.validate import MAX_CLASSES
from bacc.confusion import ConfusionMatrix


def run(*args, stdin=None, cwd=None):
    """``python -m bacc *args``: a new process where it reads standard input, else as a new
    process gives it from a process with numpy and scipy imported (tests/support/preloaded.py)."""
    if stdin is None:
        from support.preloaded import python_m

        return python_m("bacc", args, cwd=cwd)
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-m", "bacc", *args], capture_output=True, text=True,
                          input=stdin, cwd=cwd, env=env, timeout=120)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# not class labels
def test_continuous_scores_are_refused_as_predictions():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    with pytest.raises(bacc.BaccError, match="continuous scores"):
        ConfusionMatrix.from_predictions(y, rng.random(300))
    with pytest.raises(bacc.BaccError, match="continuous scores"):
        bacc.evaluate(y, [f"{v:.3f}" for v in rng.random(300)])


def test_predictions_sharing_no_label_with_the_truth_are_refused():
    with pytest.raises(bacc.BaccError, match="no predicted label is a true label"):
        ConfusionMatrix.from_predictions(["fraud", "legit", "fraud"], [0, 1, 1])
    # some overlap is legitimate (a class only ever predicted)
    cm = ConfusionMatrix.from_predictions(["a", "b", "a"], ["a", "c", "a"])
    assert cm.labels == ("a", "b", "c")


@pytest.mark.parametrize(
    "y_true",
    [
        [0, 1, None, 1],
        [0.0, 1.0, float("nan"), 1.0],
        np.array(["2020-01-01", "2020-01-02", "NaT", "2020-01-01"], dtype="datetime64[D]"),
    ],
)
def test_missing_labels_are_refused_with_their_count_and_place(y_true):
    y_pred = list(y_true)
    y_pred[2] = y_pred[0]
    with pytest.raises(bacc.BaccError, match="1 missing label.*position 2"):
        ConfusionMatrix.from_predictions(y_true, y_pred)


def test_masked_entries_are_not_silently_counted():
    y = np.ma.array([0, 1, 1, 0], mask=[0, 1, 0, 0])
    with pytest.raises(bacc.BaccError, match="1 masked"):
        ConfusionMatrix.from_predictions(y, [0, 1, 1, 0])


def test_too_many_distinct_labels_are_refused_before_allocating():
    n = MAX_CLASSES + 1
    with pytest.raises(bacc.BaccError, match="10,000 classes"):
        ConfusionMatrix.from_predictions(list(range(n)), list(range(n)))


def test_numeric_text_labels_are_in_natural_order():
    cm = ConfusionMatrix.from_predictions(["10", "9", "10"], ["9", "10", "10"])
    assert cm.labels == ("9", "10")


# ---------------------------------------------------------------------------------------------
# what scikit-learn users type
def test_evaluate_accepts_labels_in_scikit_learn_order():
    yt, yp = ["a", "b", "a", "b", "a"], ["a", "b", "b", "b", "a"]
    e1 = bacc.evaluate(yt, yp)
    e2 = bacc.evaluate(y_true=yt, y_pred=yp)
    e3 = bacc.evaluate(ConfusionMatrix.from_predictions(yt, yp))
    assert e1.confusion.counts.tolist() == e2.confusion.counts.tolist() == [[2, 1], [0, 2]]
    assert e1.balanced_accuracy_summary.mean == e3.balanced_accuracy_summary.mean


def test_a_labelled_dataframe_is_read_with_its_labels():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame([[8, 2], [3, 7]], index=["neg", "pos"], columns=["pos", "neg"])
    e = bacc.evaluate(df)
    assert e.confusion.labels == ("neg", "pos")
    # row neg: 8 predicted pos, 2 predicted neg
    assert e.confusion.counts.tolist() == [[2, 8], [7, 3]]


def test_grouped_counts_point_to_evaluate_many():
    gc = bacc.GroupedCounts(np.array([[[3, 1], [1, 3]]]), ("x",), (0, 1))
    with pytest.raises(bacc.BaccError, match="evaluate_many"):
        bacc.evaluate(gc)


# ---------------------------------------------------------------------------------------------
# the command line
def test_cli_refuses_scores_and_disjoint_vocabularies_in_one_line(tmp_path):
    rng = np.random.default_rng(1)
    f = tmp_path / "preds.csv"
    rows = ["y,score,word"] + [f"{int(a)},{b:.4f},{'fraud' if b > 0.5 else 'legit'}"
                               for a, b in zip(rng.integers(0, 2, 200), rng.random(200), strict=True)]  # fmt: skip
    f.write_text("\n".join(rows) + "\n")
    for pred, what in (("score", "continuous scores"), ("word", "no predicted label")):
        p = run("evaluate", str(f), "--true", "y", "--pred", pred)
        assert p.returncode == 2
        assert what in p.stderr and p.stderr.count("\n") == 1


def test_cli_refuses_an_empty_separator_and_stdin_twice(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text("y,p\na,a\nb,a\n")
    p = run("evaluate", str(f), "--true", "y", "--pred", "p", "--sep", "")
    assert p.returncode == 2 and "--sep" in p.stderr and "Traceback" not in p.stderr
    p = run("evaluate", "-", "-", "--true", "y", "--pred", "p", stdin="y,p\na,a\n")
    assert p.returncode == 2 and "only once" in p.stderr and "Traceback" not in p.stderr


def test_report_refuses_to_overwrite_its_input(tmp_path):
    f = tmp_path / "preds.csv"
    text = "y,p\na,a\nb,a\nb,b\n"
    f.write_text(text)
    p = run("report", str(f), "--true", "y", "--pred", "p", "-o", str(f))
    assert p.returncode == 2 and "is the input" in p.stderr
    assert f.read_text() == text


def test_a_failed_report_write_leaves_the_previous_report(tmp_path, monkeypatch):
    from bacc.display import report

    out = tmp_path / "r.html"
    out.write_text("previous report")

    def broken_fdopen(fd, *args, **kwargs):
        os.close(fd)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", broken_fdopen)
    with pytest.raises(bacc.BaccError, match="No space left"):
        report.write_report(out, "<html>new</html>")
    assert out.read_text() == "previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left


def test_csv_output_neutralises_formulas_and_keeps_numbers(tmp_path):
    f = tmp_path / "p.csv"
    f.write_text('y,p\n=HYPERLINK("x"),=HYPERLINK("x")\n+cmd|calc,+cmd|calc\n@SUM(1),@SUM(1)\n-0.5,-0.5\n')
    p = run("evaluate", str(f), "--true", "y", "--pred", "p", "--format", "csv")
    assert p.returncode == 0, p.stderr
    cells = [line.split(",")[2] for line in p.stdout.splitlines() if ",class_accuracy," in line]
    assert "'+cmd|calc" in cells and "'@SUM(1)" in cells and "-0.5" in cells
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert '"\'=HYPERLINK(""x"")"' in p.stdout


def test_terminal_output_escapes_control_characters(tmp_path):
    f = tmp_path / "p.csv"
    f.write_bytes(b"y,p\n\x1b[31mred,\x1b[31mred\nok,ok\n")
    p = run("evaluate", str(f), "--true", "y", "--pred", "p")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\\x1b[31mred" in p.stdout


def test_library_warnings_do_not_leak_as_tracebacks():
    with warnings.catch_warnings():
        warnings.simplefilter("error", bacc.BaccWarning)
        with pytest.raises(bacc.BaccWarning):
            bacc.evaluate([[0, 0], [1, 9]])
    assert Path(bacc.__file__).exists()


def test_cli_suggests_the_nearest_subcommand_and_option(tmp_path):
    p = run("evalute", "--matrix", "5,1;2,8")
    assert p.returncode == 2 and "did you mean 'evaluate'" in p.stderr
    p = run("evaluate", "--matrix", "5,1;2,8", "--treu", "y")
    assert p.returncode == 2 and "did you mean '--true'" in p.stderr


def test_cli_explains_a_predictions_file_read_as_a_matrix(tmp_path):
    f = tmp_path / "preds.csv"
    f.write_text("label,predicted\nlegit,legit\nfraud,legit\n")
    p = run("evaluate", str(f))
    assert p.returncode == 2
    assert "--true COLUMN --pred COLUMN" in p.stderr and "label, predicted" in p.stderr


def test_cli_option_errors_name_the_option_not_an_input():
    for args, option in ((["--confidence", "1.1"], "--confidence"), (["--prior", "0.01,0.01"], "--prior")):
        p = run("evaluate", "--matrix", "5,1;2,8", *args)
        assert p.returncode == 2 and p.stderr.startswith(f"bacc: error: {option}:"), p.stderr
        assert "matrix 1" not in p.stderr


# ---------------------------------------------------------------------------------------------
# files read once each, names taken literally
def _write(path: Path, rows: str) -> None:
    path.write_text("y,p\n" + rows)


def test_folders_and_globs_read_each_real_file_once_by_its_literal_name(tmp_path):
    pytest.importorskip("duckdb")
    d = tmp_path / "runs"
    (d / "sub").mkdir(parents=True)
    _write(d / "run[1].csv", "a,a\n")
    _write(d / "run1.csv", "b,b\nb,b\n")
    (d / "notes.txt").write_text("not data\n")
    outside = tmp_path / "outside.csv"
    _write(outside, "a,b\n" * 5)
    os.symlink(outside, d / "link_out.csv")  # leads out of the folder: not counted
    os.symlink(d, d / "sub" / "loop")  # a loop: not followed
    os.symlink(d / "run1.csv", d / "sub" / "again.csv")  # the same file twice: counted once
    total = lambda src: int(bacc.counts(src, true="y", pred="p").counts.sum())  # noqa: E731
    assert total(str(d)) == 3
    assert total([str(d / "run[1].csv")]) == 1
    assert total(str(d / "run*.csv")) == 3
    assert total([str(d / "run1.csv"), str(d / "run1.csv")]) == 2


def test_csv_labels_are_trimmed_the_same_way_by_every_reader(tmp_path):
    pytest.importorskip("duckdb")
    d = tmp_path / "w"
    d.mkdir()
    _write(d / "w.csv", " a,a\nb , b\na,a\n")
    big = bacc.counts(str(d), true="y", pred="p")  # DuckDB
    small = ConfusionMatrix.from_predictions(["a", "b", "a"], ["a", "b", "a"])
    assert big.labels == small.labels == ("a", "b")
    assert big.counts.reshape(-1, 2, 2)[0].tolist() == small.counts.tolist()
    p = run("evaluate", str(d / "w.csv"), "--true", "y", "--pred", "p")  # the Python reader
    rows = [line.split() for line in p.stdout.splitlines() if "/" in line and line.startswith("  ")]
    assert p.returncode == 0 and ["a", "2", "/", "2"] in [r[:4] for r in rows]


def test_list_typed_parquet_columns_are_refused_in_one_line(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    f = tmp_path / "lists.parquet"
    pd.DataFrame({"y": [[1, 2], [3]], "p": [[1], [2]]}).to_parquet(f)
    with pytest.raises(bacc.BaccError, match="list values"):
        bacc.counts(str(f), true="y", pred="p")
    p = run("evaluate", str(f), "--true", "y", "--pred", "p")
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.count("\n") == 1
