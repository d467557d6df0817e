"""``bacc compare|rank|report ... --across COL``: the command line's comparison and ranking
across data sets, on the predictions that ship with bacc (twelve data sets, four models).

Runs ``bacc.cli.main`` in-process (one subprocess run checks the installed entry point). Every
number printed is the library's: the JSON output equals the result of
:func:`bacc.compare_across` / :func:`bacc.rank_across` on the same file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bacc
from bacc.cli import main

DATA = Path(bacc.__file__).parent / "data" / "across_cv_predictions.csv"
FILE = str(DATA)
MODELS = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
BASE = [FILE, "--true", "true", "--across", "dataset"]


def preds(*models):
    return [x for m in models for x in ("--pred", m)]


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def plain(d):
    """What the JSON output holds for a library dict."""
    return json.loads(json.dumps(d))


@pytest.fixture(scope="module")
def pair():
    return bacc.compare_across(FILE, true="true", pred=["naive_bayes", "logistic_regression"],
                               across="dataset")


@pytest.fixture(scope="module")
def four():
    return bacc.rank_across(FILE, true="true", pred=MODELS, across="dataset")


# ----------------------------------------------------------------------------------- numbers
def test_compare_across_json_equals_the_library(capsys, pair):
    code, out, err = run(capsys, "compare", *BASE, *preds("naive_bayes", "logistic_regression"),
                         "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["a"] == "naive_bayes" and got["b"] == "logistic_regression"
    assert got["paired"] is True and got["across"] == "dataset"
    assert got["comparison"] == plain(pair.to_dict())
    # the default rope of the command line is the library's (one point of balanced accuracy)
    assert got["comparison"]["rope"] == 0.01
    assert len(got["comparison"]["data_sets_detail"]) == 12


def test_compare_across_options_reach_the_library(capsys):
    code, out, err = run(capsys, "compare", *BASE, *preds("knn", "decision_tree"), "--rope", "0.02",
                         "--confidence", "0.9", "--format", "json")
    assert code == 0, err
    lib = bacc.compare_across(FILE, true="true", pred=["knn", "decision_tree"], across="dataset",
                              rope=0.02, confidence=0.9)
    got = json.loads(out)["comparison"]
    assert got == plain(lib.to_dict())
    assert got["rope"] == 0.02 and got["confidence"] == 0.9


def test_rank_across_json_equals_the_library(capsys):
    code, out, err = run(capsys, "rank", *BASE, *preds(*MODELS), "--seed", "3", "--rope", "0.02",
                         "--confidence", "0.9", "--format", "json")
    assert code == 0, err
    lib = bacc.rank_across(FILE, true="true", pred=MODELS, across="dataset", random_state=3,
                           rope=0.02, confidence=0.9)
    got = json.loads(out)
    assert got["across"] == "dataset"
    assert got["ranking"] == plain(lib.to_dict())
    assert got["ranking"]["random_state"] == 3


def test_compare_across_csv_rows_are_the_library_numbers(capsys, pair):
    import csv
    import io

    code, out, err = run(capsys, "compare", *BASE, *preds("naive_bayes", "logistic_regression"),
                         "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["what"] for r in rows[:3]] == ["population", "new data set", "common effect"]
    assert float(rows[0]["mean"]) == pair.mean and float(rows[0]["p_right"]) == pair.p_right
    assert float(rows[1]["p_left"]) == pair.predictive_left
    assert float(rows[2]["p_better"]) == pair.fixed_effects["p_better"]
    assert len(rows) == 3 + len(pair.data_sets)
    for row, d in zip(rows[3:], pair.data_set_differences, strict=True):
        assert row["data_set"] == str(d.data_set) and int(row["examples"]) == d.n_examples
        assert float(row["estimate"]) == d.mean and float(row["mean"]) == d.shrunken_mean
        assert float(row["p_better"]) == d.p_better


def test_rank_across_csv_rows_are_the_library_numbers(capsys, four):
    import csv
    import io

    code, out, err = run(capsys, "rank", *BASE, *preds(*MODELS), "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["classifier"] for r in rows] == [four.names[i] for i in four.order]
    for row in rows:
        i = four.names.index(row["classifier"])
        assert float(row["expected_rank"]) == four.expected_rank[i]
        assert float(row["p_best"]) == four.p_best[i]
        assert float(row["average_rank"]) == four.classical.average_ranks[i]


@pytest.mark.parametrize("command", ["compare", "rank"])
def test_csv_without_across_is_refused_in_one_line(capsys, command):
    code, out, err = run(capsys, command, FILE, "--true", "true", *preds("knn", "naive_bayes"),
                         "--format", "csv")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--across" in err


def test_compare_across_table_prints_the_library_numbers_in_80_columns(capsys, pair):
    code, out, err = run(capsys, "compare", *BASE, *preds("naive_bayes", "logistic_regression"))
    assert code == 0, err
    lines = out.splitlines()
    assert max(map(len, lines)) <= 80
    assert "A = naive_bayes" in lines and "B = logistic_regression" in lines
    row = next(line for line in lines if line.startswith("population "))
    assert row.split() == ["population", f"{pair.mean:+.4f}", f"[{pair.lower:+.4f},",
                           f"{pair.upper:+.4f}]", f"{pair.p_left:.3f}", f"{pair.p_rope:.3f}",
                           f"{pair.p_right:.3f}"]
    lo, hi = pair.predictive.interval(pair.confidence)
    row = next(line for line in lines if line.startswith("new data set "))
    assert f"[{lo:+.4f}, {hi:+.4f}]" in row and f"{pair.predictive_right:.3f}" in row
    for d in pair.data_set_differences:
        row = next(line for line in lines if line.startswith(str(d.data_set) + " "))
        assert row.split() == [str(d.data_set), str(d.n_examples), f"{d.mean:+.4f}",
                               f"{d.shrunken_mean:+.4f}", f"[{d.shrunken_lower:+.4f},",
                               f"{d.shrunken_upper:+.4f}]", f"{d.p_better:.3f}"]
    assert f"p = {pair.classical.p_value:.4g}" in " ".join(x.strip() for x in lines)


def test_rank_across_table_prints_the_library_numbers_in_80_columns(capsys, four):
    code, out, err = run(capsys, "rank", *BASE, *preds(*MODELS))
    assert code == 0, err
    lines = out.splitlines()
    assert max(map(len, lines)) <= 80
    rows = [line for line in lines if line.split() and line.split()[0] in MODELS
            and len(line.split()) == 7]
    assert [r.split()[0] for r in rows] == [four.names[i] for i in four.order]
    for r in rows:
        i = four.names.index(r.split()[0])
        assert r.split()[1:] == [f"{four.expected_rank[i]:.2f}", f"{four.p_best[i]:.3f}",
                                 f"{four.effect[i]:+.4f}", f"[{four.effect_lower[i]:+.4f},",
                                 f"{four.effect_upper[i]:+.4f}]",
                                 f"{four.classical.average_ranks[i]:.2f}"]
    assert f"{four.classical.critical_difference:.3f}" in out
    assert "cannot be told apart: " + "; ".join("{" + ", ".join(g) + "}" for g in four.groups) \
        in " ".join(x.strip() for x in lines)


# ------------------------------------------------------------------------------------ errors
def _bad(capsys, *args, needle: str) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bacc: error: "), err
    assert needle in lines[0], lines[0]
    assert out == ""


@pytest.mark.parametrize("command, extra, needle", [
    ("compare", ["--by", "fold"], "--across and --by cannot be combined"),
    ("rank", ["--by", "fold"], "--across and --by cannot be combined"),
    ("report", ["--by", "fold"], "--across and --by cannot be combined"),
    ("compare", ["--matrix", "42,3;6,4"], "not confusion matrices"),
    ("rank", ["--matrix", "42,3;6,4"], "not confusion matrices"),
    ("compare", ["--no-paired"], "--no-paired cannot go with --across"),
    ("compare", ["--prior", "jeffreys"], "--prior is not used with --across"),
    ("rank", ["--fold", "fold"], "--fold is not used with --across"),
    ("compare", ["--rope", "2"], "--rope must be"),
    ("compare", ["--confidence", "1.5"], "--confidence"),
])
def test_across_refuses_what_it_cannot_take(capsys, tmp_path, command, extra, needle):
    out = ["-o", str(tmp_path / "r.html")] if command == "report" else []
    _bad(capsys, command, *BASE, *preds("knn", "naive_bayes", *(["decision_tree"] if command == "rank" else [])),
         *extra, *out, needle=needle)
    assert not (tmp_path / "r.html").exists()


def test_across_with_matrix_text_and_no_file(capsys):
    _bad(capsys, "compare", "--matrix", "A=42,3;6,4", "--matrix", "B=40,5;2,8", "--across", "d",
         needle="not confusion matrices")
    _bad(capsys, "compare", "A=42,3;6,4", "B=40,5;2,8", "--across", "d",
         needle="not confusion matrices")


def test_across_counts_its_columns(capsys):
    _bad(capsys, "compare", *BASE, *preds(*MODELS[:3]), needle="exactly two --pred columns")
    _bad(capsys, "rank", *BASE, *preds("knn"), needle="at least two --pred columns")
    _bad(capsys, "compare", FILE, "--across", "dataset", *preds("knn", "decision_tree"),
         needle="--true")


def test_across_names_a_missing_column_by_its_option(capsys):
    _bad(capsys, "compare", FILE, "--true", "true", "--across", "datasets",
         *preds("knn", "decision_tree"), needle="'datasets' (--across)")
    _bad(capsys, "rank", *BASE, *preds("knn", "tree"), needle="'tree' (--pred)")


def test_rank_rope_is_for_across(capsys):
    _bad(capsys, "rank", FILE, "--true", "true", *preds("knn", "decision_tree"), "--rope", "0.01",
         needle="--rope of 'bacc rank' is for --across")


def test_help_explains_across_in_one_sentence(capsys):
    for command in ("compare", "rank", "report"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0
        text = " ".join(out.split())
        assert "--across COL the column naming each example's data set" in text
    code, out, _ = run(capsys, "compare", "--help")
    assert "--across dataset" in out  # an example


# ------------------------------------------------------------------------------------ report
def test_report_across_adds_the_section(capsys, tmp_path, four):
    path = tmp_path / "r.html"
    code, out, err = run(capsys, "report", *BASE, *preds(*MODELS), "--no-pictures", "-o", str(path))
    assert code == 0, err
    html = path.read_text(encoding="utf-8")
    assert html.count("<h2>Across data sets</h2>") == 1
    assert html.index("<h2>Results</h2>") < html.index("<h2>Across data sets</h2>")
    section = html[html.index("<h2>Across data sets</h2>"):]
    assert four.verdict in section
    for i in four.order:
        assert f"{four.expected_rank[i]:.2f}" in section and f"{four.p_best[i]:.3f}" in section
    assert "<dt>Across data sets</dt>" in html  # how to read it


def test_report_across_two_columns_compares_with_a_figure(capsys, tmp_path, pair):
    pytest.importorskip("matplotlib")
    path = tmp_path / "r.html"
    code, out, err = run(capsys, "report", *BASE, *preds("naive_bayes", "logistic_regression"),
                         "-o", str(path))
    assert code == 0, err
    section = path.read_text(encoding="utf-8").split("<h2>Across data sets</h2>")[1]
    assert pair.verdict in section
    assert section.count("<svg") == 1
    assert f"{pair.mean:+.4f}" in section
    for d in pair.data_set_differences:
        assert f">{d.data_set}<" in section


def test_entry_point_runs_compare_across():
    from support.preloaded import python_m  # python -m bacc as a new process gives it

    proc = python_m("bacc", ["compare", *BASE, "--pred", "knn", "--pred", "decision_tree",
                             "--format", "json"], timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["comparison"]
    lib = bacc.compare_across(FILE, true="true", pred=["knn", "decision_tree"], across="dataset")
    assert got == plain(lib.to_dict())
