"""What the command line prints by default: every line fits 100 columns, the prior is named,
paired inputs are paired by default, options are checked before any work, and many groups are
evaluated at once in every format.

Runs ``bacc.cli.main`` in-process on the data that ship with bacc (the demo's files).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

import bacc
from bacc.cli import main

DATA = Path(bacc.__file__).parent / "data"
DIGITS = str(DATA / "digits_cv_predictions.csv")
WINE = str(DATA / "wine_cv_predictions.csv")
MODELS = ["naive_bayes", "decision_tree", "logistic_regression", "knn"]
WIDTH = 100


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def preds(*models):
    return [x for m in models for x in ("--pred", m)]


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    """The digits predictions with prediction columns renamed to 60-character names."""
    import pandas as pd

    df = pd.read_csv(DIGITS)
    df = df.rename(columns={m: f"{m}_" + "x" * (59 - len(m)) for m in MODELS})
    path = tmp_path_factory.mktemp("long") / "long.csv"
    df.to_csv(path, index=False)
    return str(path), [f"{m}_" + "x" * (59 - len(m)) for m in MODELS]


COMMANDS = {
    "evaluate matrix": ["evaluate", "--matrix", "42,3;6,4"],
    "evaluate one file": ["evaluate", DIGITS, "--true", "true", "--pred", "knn", "--fold", "fold"],
    "evaluate four": ["evaluate", DIGITS, "--true", "true", *preds(*MODELS)],
    "evaluate by fold": ["evaluate", DIGITS, "--true", "true", "--pred", "knn", "--by", "fold"],
    "compare": ["compare", DIGITS, "--true", "true", *preds("knn", "logistic_regression")],
    "compare rope": ["compare", WINE, "--true", "true", *preds("knn_unscaled", "logistic_regression"),
                     "--rope", "0.01"],
    "rank": ["rank", DIGITS, "--true", "true", *preds(*MODELS)],
    "rank matrices": ["rank", "--matrix", "A=42,3;6,4", "--matrix", "B=40,5;2,8", "--matrix",
                      "C=44,1;5,5"],
    "coverage": ["coverage", "--sizes", "20,20", "--accuracies", "0.9,0.8", "--n-sim", "2000"],
    "coverage many classes": ["coverage", "--sizes", ",".join(["20"] * 40), "--accuracies",
                              ",".join(["0.9"] * 40), "--n-sim", "500", "--methods", "union,wald"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_default_output_fits_100_columns(capsys, name):
    code, out, _ = run(capsys, *COMMANDS[name])
    assert code == 0
    wide = [line for line in out.splitlines() if len(line) > WIDTH]
    assert wide == [], f"{len(wide)} lines wider than {WIDTH}: {wide[:3]}"


def test_demo_and_report_fit_100_columns(capsys, tmp_path):
    code, out, _ = run(capsys, "demo", "--no-report")
    assert code == 0 and len(out.splitlines()) > 100
    assert max(map(len, out.splitlines())) <= WIDTH
    code, out, _ = run(capsys, "report", DIGITS, "--true", "true", *preds(*MODELS), "--no-pictures",
                       "-o", str(tmp_path / "r.html"))
    assert code == 0 and max(map(len, out.splitlines())) <= WIDTH


@pytest.mark.parametrize("command", ["evaluate", "compare", "rank"])
def test_long_names_go_on_their_own_line(capsys, long_names, command):
    path, names = long_names
    models = names[:2] if command == "compare" else names
    code, out, _ = run(capsys, command, path, "--true", "true", *preds(*models))
    assert code == 0
    lines = out.splitlines()
    assert max(map(len, lines)) <= WIDTH
    for n in models:
        assert n in lines or any(line.startswith(n) or line.endswith(n) for line in lines) or any(
            n in line for line in lines)


def test_the_prior_is_named(capsys):
    _, out, _ = run(capsys, "evaluate", "--matrix", "42,3;6,4")
    assert "flat prior Beta(1, 1) per class" in out and "a Beta prior" not in out
    _, out, _ = run(capsys, "evaluate", "--matrix", "42,3;6,4", "--prior", "jeffreys")
    assert "Jeffreys' prior Beta(1/2, 1/2) per class" in out
    _, out, _ = run(capsys, "evaluate", "--matrix", "42,3;6,4", "--prior", "2,3")
    assert "prior Beta(2, 3) per class" in out


def test_no_details_works_for_one_evaluation(capsys):
    _, full, _ = run(capsys, "evaluate", "--matrix", "42,3;6,4")
    _, short, _ = run(capsys, "evaluate", "--matrix", "42,3;6,4", "--no-details")
    assert "per class (accuracy" in full and "per class (accuracy" not in short
    assert "balanced accuracy" in short and "P(balanced accuracy > chance" in short
    assert len(short.splitlines()) < len(full.splitlines())


def test_coverage_prints_its_title_first(capsys):
    _, out, _ = run(capsys, *COMMANDS["coverage"])
    assert out.splitlines()[0].startswith("Coverage of 95% two-sided intervals")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["demo", "--confidence", "2", "--no-report"], "--confidence"),
        (["demo", "-o", "/nonexistent-folder/x.html"], "does not exist"),
        (["report", "--matrix", "42,3;6,4", "-o", "/nonexistent-folder/x.html"], "does not exist"),
    ],
)
def test_options_are_checked_before_any_work(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert needle in err and len(err.strip().splitlines()) == 1


def test_compare_pairs_columns_of_one_file_by_default(capsys):
    args = ["compare", DIGITS, "--true", "true", *preds("knn", "logistic_regression")]
    _, out, _ = run(capsys, *args)
    assert "paired: the classifiers predicted the same examples" in out
    import pandas as pd

    df = pd.read_csv(DIGITS)
    c = bacc.compare_paired(df["true"], df["knn"], df["logistic_regression"])
    code, js, _ = run(capsys, *args, "--format", "json")
    d = json.loads(js)
    assert d["paired"] is True
    assert d["comparison"]["p_better"] == pytest.approx(c.p_better, abs=1e-12)
    _, out, _ = run(capsys, *args, "--no-paired")
    assert "independent test sets" in out and "paired: the classifiers" not in out
    # matrices are never paired by default
    _, out, _ = run(capsys, "compare", "--matrix", "42,3;6,4", "--matrix", "40,5;2,8")
    assert "independent test sets" in out


def test_rank_is_paired_for_columns_of_one_file(capsys):
    import pandas as pd

    df = pd.read_csv(DIGITS)
    code, js, _ = run(capsys, "rank", DIGITS, "--true", "true", *preds(*MODELS), "--format", "json")
    r = json.loads(js)["ranking"]
    assert r["paired"] is True and "joint Dirichlet" in r["model"]
    ref = bacc.rank_paired(df["true"], df[MODELS])
    assert np.allclose(np.array(r["p_greater"], dtype=float), ref.p_greater, atol=1e-12,
                       equal_nan=True)
    # the pair that the demo compares: the ranking agrees with the paired comparison
    i, j = MODELS.index("knn"), MODELS.index("logistic_regression")
    c = bacc.compare_paired(df["true"], df["knn"], df["logistic_regression"])
    assert r["p_greater"][i][j] == pytest.approx(c.p_better, abs=1e-12)
    _, out, _ = run(capsys, "rank", DIGITS, "--true", "true", *preds(*MODELS))
    assert "model: paired" in out
    _, out, _ = run(capsys, "rank", DIGITS, "--true", "true", *preds(*MODELS), "--no-paired")
    assert "model: independent posteriors" in out


def test_many_groups_use_the_batch_in_json_and_csv(capsys, tmp_path):
    import pandas as pd

    df = pd.read_csv(DIGITS)
    df["group"] = np.arange(len(df)) % 30
    path = tmp_path / "groups.csv"
    df.to_csv(path, index=False)
    base = ["evaluate", str(path), "--true", "true", "--pred", "knn", "--by", "group"]
    _, js, _ = run(capsys, *base, "--format", "json")
    _, cs, _ = run(capsys, *base, "--format", "csv")
    d = json.loads(js)
    assert d["summary_only"] is True and len(d["groups"]) == 30
    rows = list(csv.DictReader(io.StringIO(cs)))
    assert len(rows) == 30 and {r["measure"] for r in rows} == {"balanced_accuracy"}
    # each group's numbers equal a single evaluation of that group
    g = df[df["group"] == 7]
    ev = bacc.evaluate(bacc.ConfusionMatrix.from_predictions(g["true"], g["knn"], labels=range(10)))
    row = next(r for r in rows if r["name"].endswith("7"))
    assert float(row["posterior_mean"]) == pytest.approx(ev.balanced_accuracy.mean(), abs=1e-9)
    assert float(row["p_above_chance"]) == pytest.approx(ev.p_above_chance, abs=1e-9)


def test_metrics_table_is_opt_in_and_fits(capsys):
    code, out, _ = run(capsys, "evaluate", "--matrix", "4950,50;3,17")
    assert "other metrics" not in out
    code, out, _ = run(capsys, "evaluate", "--matrix", "4950,50;3,17", "--metrics",
                       "--prevalence", "0.00425")
    assert code == 0 and "other metrics at prevalence 0.00425" in out
    assert max(map(len, out.splitlines())) <= WIDTH
    p = bacc.posterior_metric([[4950, 50], [3, 17]], "precision", label=1, prevalence=0.00425)
    line = next(x for x in out.splitlines() if x.startswith("precision (1)"))
    assert f"[{p.lower:.4f}, {p.upper:.4f}]" in line and "exact" in line
    _, js, _ = run(capsys, "evaluate", "--matrix", "30,4,2;5,25,6;1,3,40", "--metrics",
                   "--format", "json")
    d = json.loads(js)
    kappa = next(m for m in d["metrics"] if m["metric"] == "cohen_kappa")
    assert kappa["exact"] is False and kappa["mc_se"]["mean"] < 1e-3


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["evaluate", "--matrix", "42,3;6,4", "--prevalence", "0.1"], "needs --metrics"),
        (["evaluate", "--matrix", "4,1,1;1,4,1;1,1,4", "--metrics", "--prevalence", "0.1"],
         "two classes"),
        (["evaluate", "--matrix", "42,3;6,4", "--metrics", "--prevalence", "1.5"], "prevalence"),
    ],
)
def test_prevalence_errors(capsys, args, needle):
    code, out, err = run(capsys, *args)
    assert code == 2 and needle in err
    if "1.5" in args or "needs" in needle:
        assert out == ""  # checked before any work
