"""The command line on scores: ``bacc evaluate --score``, ``bacc threshold`` and ``bacc report
--score``.

Runs ``bacc.cli.main`` in-process on small CSV files written here; the numbers printed are
checked against the library's results on the same arrays (JSON: equal to their ``to_dict()``)
and against values computed here from the examples; bad input gives one line and status 2.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

import bacc
from bacc.cli import main

WIDTH = 100


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(11)
    y = np.repeat(["neg", "pos"], [60, 40])
    s = np.round(rng.normal(1.2 * (y == "pos"), 1.0), 3)
    pred = np.where(s >= 0.5, "pos", "neg")
    return y, s, pred


@pytest.fixture(scope="module")
def csv(tmp_path_factory, table):
    y, s, pred = table
    path = tmp_path_factory.mktemp("scores") / "scores.csv"
    lines = ["label,prob,pred,broken"] + [
        f"{a},{b!r},{c},{'nan' if i == 3 else repr(b)}"
        for i, (a, b, c) in enumerate(zip(y, s.tolist(), pred, strict=True))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """Three classes with one probability column each."""
    rng = np.random.default_rng(5)
    y = np.array(["a", "b", "c"] * 20)
    p = np.round(rng.dirichlet([1, 1, 1], y.size), 4)
    path = tmp_path_factory.mktemp("ovr") / "ovr.csv"
    rows = ["label,pa,pb,pc"] + [f"{t},{r[0]!r},{r[1]!r},{r[2]!r}" for t, r in
                                 zip(y, p.tolist(), strict=True)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path), y, p


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def strict(text: str):
    """JSON with no NaN or infinity."""
    def refuse(c):
        raise AssertionError(f"non-strict JSON constant {c}")
    return json.loads(text, parse_constant=refuse)


def plain(d):
    """A ``to_dict()`` as strict JSON reads it back."""
    return json.loads(json.dumps(d, allow_nan=False))


def bad(capsys, *args) -> str:
    code, out, err = run(capsys, *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bacc: error: "), err
    assert "Traceback" not in err and out == ""
    return lines[0]


def brute_auc(y, s) -> float:
    d = s[y == "pos"][:, None] - s[y == "neg"][None, :]
    return float(((d > 0) + 0.5 * (d == 0)).mean())


# ------------------------------------------------------------------------------ evaluate
def test_evaluate_score_prints_every_auc_and_the_best_threshold(capsys, csv, table):
    y, s, _ = table
    code, out, _ = run(capsys, "evaluate", csv, "--true", "label", "--score", "prob")
    assert code == 0 and max(map(len, out.splitlines())) <= WIDTH
    sc = bacc.scores(y, s)
    assert f"sample AUC {brute_auc(y, s):.4f}" in out
    for m, kind in (("delong", "approximate"), ("delong-logit", "approximate"),
                    ("bayesian-bootstrap", "posterior"), ("band", "guaranteed")):
        iv = sc.auc(m)
        row = next(x for x in out.splitlines() if x.strip().startswith(m + " "))
        assert row.split()[1] == kind
        assert f"[{iv.lower:.4f}, {iv.upper:.4f}]" in row
    ct = sc.best_threshold()
    assert f"Best threshold {ct.threshold:.6g}" in out
    pos, neg = s[y == "pos"] >= ct.threshold, s[y == "neg"] >= ct.threshold
    in_sample = 0.5 * (pos.mean() + 1 - neg.mean())
    assert f"{in_sample:.4f}" in next(x for x in out.splitlines() if "in sample" in x)
    assert f"{ct.optimism:+.4f}" in next(x for x in out.splitlines() if "optimism   " in x)


def test_evaluate_score_json_is_strict_and_the_results_to_dict(capsys, csv, table):
    y, s, _ = table
    code, out, _ = run(capsys, "evaluate", csv, "--true", "label", "--score", "prob",
                       "--format", "json")
    assert code == 0
    d = strict(out)
    sc = bacc.scores(y, s)
    assert d["name"] == "prob" and d["scores"]["positive"] == "pos"
    assert d["scores"]["n_positive"] == 40 and d["scores"]["n_negative"] == 60
    assert d["scores"]["sample_auc"] == pytest.approx(brute_auc(y, s), abs=1e-12)
    assert set(d["auc"]) == set(bacc.roc.AUC_METHODS)
    for m in bacc.roc.AUC_METHODS:
        assert d["auc"][m] == pytest.approx(plain(sc.auc(m).to_dict()))
    assert d["best_threshold"] == plain(sc.best_threshold().to_dict())


def test_evaluate_threshold_is_an_evaluation_of_the_decisions(capsys, csv, table):
    y, s, _ = table
    code, out, _ = run(capsys, "evaluate", csv, "--true", "label", "--score", "prob",
                       "--threshold", "0.5", "--format", "json")
    assert code == 0
    d = strict(out)
    pos, neg = s[y == "pos"] >= 0.5, s[y == "neg"] >= 0.5
    ba = 0.5 * (pos.mean() + 1 - neg.mean())
    assert d["sample_balanced_accuracy"] == pytest.approx(ba, abs=1e-12)
    # the same as evaluating the predictions score >= 0.5 as a prediction column
    pred = np.where(s >= 0.5, "pos", "neg")
    ev = bacc.evaluate(y, pred)
    assert d["balanced_accuracy"]["mean"] == pytest.approx(ev.balanced_accuracy_summary.mean)
    assert d["name"] == "prob >= 0.5"
    code, table_out, _ = run(capsys, "evaluate", csv, "--true", "label", "--score", "prob",
                             "--threshold", "0.5")
    code2, pred_out, _ = run(capsys, "evaluate", csv, "--true", "label", "--pred", "pred")
    # the tables agree after the heading (name and source)
    assert table_out.split("\n", 1)[1] == pred_out.split("\n", 1)[1]


def test_evaluate_one_score_column_per_class(capsys, three):
    path, y, p = three
    code, out, _ = run(capsys, "evaluate", path, "--true", "label", "--score", "pa",
                       "--score", "pb", "--score", "pc")
    assert code == 0 and max(map(len, out.splitlines())) <= WIDTH
    aucs = []
    for k, c in enumerate("abc"):
        pos, neg = p[y == c, k], p[y != c, k]
        d = pos[:, None] - neg[None, :]
        aucs.append(float(((d > 0) + 0.5 * (d == 0)).mean()))
    assert f"macro AUC {np.mean(aucs):.4f}" in out
    for c, a in zip("abc", aucs, strict=True):
        assert f"== {c} vs rest" in out and f"sample AUC {a:.4f}" in out
    code, out, _ = run(capsys, "evaluate", path, "--true", "label", "--score", "pa",
                       "--score", "pb", "--score", "pc", "--format", "json")
    d = strict(out)
    assert d["classes"] == ["a", "b", "c"]
    assert d["macro_auc"] == pytest.approx(np.mean(aucs), abs=1e-12)
    assert [c["scores"]["sample_auc"] for c in d["curves"]] == pytest.approx(aucs, abs=1e-12)


# ----------------------------------------------------------------------------- threshold
def test_threshold_recall_table_and_json(capsys, csv, table):
    y, s, _ = table
    code, out, _ = run(capsys, "threshold", csv, "--true", "label", "--score", "prob",
                       "--recall", "0.9")
    assert code == 0 and max(map(len, out.splitlines())) <= WIDTH
    pos = np.sort(s[y == "pos"])
    k = max(k for k in range(1, pos.size + 1) if stats.binom.sf(k - 1, pos.size, 0.1) >= 0.95)
    assert f"score >= {pos[k - 1]:.6g} gives recall >= 0.9 with probability at least 0.95" in \
        " ".join(out.split())
    code, out, _ = run(capsys, "threshold", csv, "--true", "label", "--score", "prob",
                       "--recall", "0.9", "--format", "json")
    d = strict(out)
    g = bacc.scores(y, s).threshold_for(recall=0.9)
    assert d == plain(g.to_dict())
    assert d["order"] == k and d["threshold"] == pos[k - 1]


def test_threshold_fpr_precision_confidence_and_positive(capsys, csv, table):
    y, s, _ = table
    sc = bacc.scores(y, s)
    for goal, extra, kw in (("--fpr", ["0.1", "--confidence", "0.9"], {"fpr": 0.1, "confidence": 0.9}),
                            ("--precision", ["0.8", "--prevalence", "0.3"],
                             {"precision": 0.8, "prevalence": 0.3})):
        code, out, _ = run(capsys, "threshold", csv, "--true", "label", "--score", "prob", goal,
                           *extra, "--format", "json")
        assert code == 0 and strict(out) == plain(sc.threshold_for(**kw).to_dict())
    # --positive neg: a high score predicts neg
    code, out, _ = run(capsys, "threshold", csv, "--true", "label", "--score", "prob",
                       "--positive", "neg", "--recall", "0.5", "--format", "json")
    d = strict(out)
    assert d == plain(bacc.scores(y, s, positive="neg").threshold_for(recall=0.5).to_dict())
    assert d["positive"] == "neg" and d["n_positive"] == 60


# -------------------------------------------------------------------------------- report
def test_report_with_scores(capsys, csv, tmp_path):
    path = tmp_path / "r.html"
    code, out, _ = run(capsys, "report", csv, "--true", "label", "--score", "prob", "--recall",
                       "0.9", "--no-pictures", "-o", str(path))
    assert code == 0 and out.strip() == f"wrote {path}"
    page = path.read_text(encoding="utf-8")
    assert "<h2>Scores and thresholds</h2>" in page
    for m, iv in bacc.roc.AUC_METHODS.items():
        assert f">{m}<" in page and f">{iv.kind}<" in page
    assert "<h4>Guaranteed threshold</h4>" in page and "gives recall &gt;= 0.9" in page
    assert "optimism" in page and "<h2>Results</h2>" not in page
    # with --pred too: the decisions' section, then the scores'
    code, _, _ = run(capsys, "report", csv, "--true", "label", "--pred", "pred", "--score", "prob",
                     "--no-pictures", "-o", str(path))
    page = path.read_text(encoding="utf-8")
    assert code == 0 and page.index("<h2>Results</h2>") < page.index("<h2>Scores and thresholds")
    assert "<h4>Guaranteed threshold</h4>" not in page and "compares them across" not in page


# -------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(("args", "needles"), [
    (["evaluate", "{csv}", "--true", "label", "--score", "nope"], ["nope"]),
    (["evaluate", "{csv}", "--true", "label", "--score", "broken"], ["NaN"]),
    (["evaluate", "{csv}", "--true", "label", "--pred", "pred", "--score", "prob"],
     ["--pred", "--score", "not both"]),
    (["threshold", "{csv}", "--true", "label", "--score", "prob", "--recall", "1.5"],
     ["--recall", "(0, 1]"]),
    (["threshold", "{csv}", "--true", "label", "--score", "prob", "--recall", "0"],
     ["--recall", "(0, 1]"]),
    (["threshold", "{csv}", "--true", "label", "--score", "prob", "--fpr", "1"],
     ["--fpr", "[0, 1)"]),
    (["threshold", "{csv}", "--true", "label", "--score", "prob"],
     ["--recall", "--fpr", "--precision", "required"]),
    (["threshold", "{csv}", "--true", "label", "--score", "prob", "--recall", "0.9",
      "--fpr", "0.1"], ["not allowed with"]),
    (["threshold", "{csv}", "--true", "label", "--score", "prob", "--recall", "0.9",
      "--confidence", "1.5"], ["--confidence"]),
    (["threshold", "{csv}", "--true", "label", "--score", "prob", "--recall", "0.9",
      "--positive", "maybe"], ["--positive", "'maybe'", "not a class"]),
    (["threshold", "{csv}", "--score", "prob", "--recall", "0.9"], ["--true"]),
    (["evaluate", "{csv}", "--true", "label", "--pred", "pred", "--threshold", "0.5"],
     ["--threshold", "--score"]),
    (["evaluate", "--matrix", "42,3;6,4", "--score", "prob"], ["confusion matrices"]),
    (["evaluate", "{csv}", "--true", "label", "--score", "prob", "--format", "csv"],
     ["--format csv", "--threshold"]),
    (["evaluate", "{csv}", "--true", "label", "--score", "prob", "--by", "pred"], ["--by"]),
    (["report", "{csv}", "--true", "label", "--pred", "pred", "--recall", "0.9"],
     ["--recall", "--score"]),
])
def test_bad_input_is_one_line_and_status_2(capsys, csv, args, needles):
    line = bad(capsys, *[a.replace("{csv}", csv) for a in args])
    for n in needles:
        assert n in line, line


# ---------------------------------------------------------------------------------- help
def test_threshold_help_documents_every_option_with_an_example(capsys):
    from bacc.cli import build_parser

    code, out, _ = run(capsys, "threshold", "--help")
    assert code == 0 and "examples:" in out and "bacc threshold" in out
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["threshold"]
    for action in sub._actions:
        if action.dest == "help":
            continue
        assert action.help and ("e.g." in action.help or not action.option_strings), action.dest
        for opt in action.option_strings:
            assert opt in out


def test_threshold_help_loads_no_numerics():
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "bacc", "threshold", "--help"],
                          capture_output=True, text=True, timeout=120, check=True)
    modules = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    assert not {m.split(".")[0] for m in modules} & {"numpy", "scipy", "matplotlib", "pandas"}
    assert not any(m.startswith(("bacc.cli.scores", "bacc.score_curve")) for m in modules)


# ------------------------------------------------------------------------ invariance
def _numbers(obj) -> list:
    """Every number of a JSON value, sorted (labels and names left out)."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in ("classes", "positive", "name", "source", "labels"):
                out += _numbers(v)
    elif isinstance(obj, list):
        for v in obj:
            out += _numbers(v)
    elif isinstance(obj, int | float) and not isinstance(obj, bool):
        out.append(float(obj))
    return sorted(out)


@pytest.mark.parametrize("command", [
    ["threshold", "--recall", "0.8"], ["threshold", "--fpr", "0.1"],
    ["evaluate"],
])
def test_commands_on_scores_keep_relabelling_and_row_order(capsys, tmp_path, table, command):
    """Renamed classes (with --positive renamed alike) and shuffled rows print the same
    numbers: the row of ``bacc threshold`` and ``bacc evaluate --score`` in the invariance
    checks of the command line."""
    y, s, _ = table

    def write(name, labels, order):
        path = tmp_path / name
        rows = ["label,prob"] + [f"{labels[i]},{float(s[i])!r}" for i in order]
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        return str(path)

    order = np.arange(y.size)
    shuffled = np.random.default_rng(3).permutation(y.size)
    renamed = np.where(y == "pos", "alpha", "zeta")  # the positive class now sorts first
    runs = [(write("a.csv", y, order), "pos"), (write("b.csv", y, shuffled), "pos"),
            (write("c.csv", renamed, order), "alpha")]
    got = []
    for path, positive in runs:
        code, out, err = run(capsys, command[0], path, "--true", "label", "--score", "prob",
                             "--positive", positive, *command[1:], "--format", "json")
        assert code == 0, err
        got.append(_numbers(strict(out)))
    for other in got[1:]:
        np.testing.assert_allclose(other, got[0], rtol=0, atol=1e-12)
