"""One naming scheme across the library's printed and plotted results."""

from __future__ import annotations

import numpy as np
import pytest

import bacc

pytest.importorskip("matplotlib").use("Agg")


def test_default_names_are_letters_in_compare_and_rank():
    a, b = [[40, 5], [5, 10]], [[30, 15], [8, 7]]
    assert bacc.compare(a, b).names == ("A", "B")
    assert bacc.rank([a, b, a], n_draws=100).names == ("A", "B", "C")
    y = [0] * 10 + [1] * 10
    assert bacc.compare_paired(y, y, y[::-1]).names == ("A", "B")


def test_compare_paired_takes_names_from_series():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0] * 5, "knn": [0, 1, 0, 0, 1, 1] * 5,
                       "svm": [0, 1, 1, 0, 0, 0] * 5})
    c = bacc.compare_paired(df["y"], df["knn"], df["svm"])
    assert c.names == ("knn", "svm") and "P(knn > svm)" in str(c)
    assert bacc.compare_paired(df["y"], df["knn"], df["svm"], names=("a", "b")).names == ("a", "b")
    # two Series with the same name cannot name the two classifiers
    assert bacc.compare_paired(df["y"], df["knn"], df["knn"].rename("knn")).names == ("A", "B")


def test_print_evaluation_shows_the_exact_column_as_the_cli():
    cm = [[42, 3], [6, 4]]
    ev = bacc.evaluate(cm)
    text = str(ev)
    ex = bacc.exact_interval(cm)
    acc = bacc.exact_interval(cm, metric="accuracy")
    assert "95% exact" in text
    assert f"[{ex.lower:.4f}, {ex.upper:.4f}]" in text and f"[{acc.lower:.4f}, {acc.upper:.4f}]" in text
    for ci in bacc.class_intervals(cm):
        assert f"[{ci.lower:.4f}, {ci.upper:.4f}]" in text
    assert "flat prior Beta(1, 1) per class" in text


def test_print_evaluation_uses_its_weights():
    cm = [[42, 3], [6, 4]]
    ev = bacc.evaluate(cm, weights=[0.7, 0.3])
    ex = bacc.exact_interval(cm, weights=[0.7, 0.3])
    assert ev.exact_interval().lower == pytest.approx(ex.lower, abs=1e-15)
    assert f"[{ex.lower:.4f}, {ex.upper:.4f}]" in str(ev)


def test_p_above_chance_is_labelled_alike_everywhere():
    cm = np.array([[42, 3], [6, 4]])
    many = str(bacc.evaluate_many(np.stack([cm, cm])))
    one = bacc.display.text.summary_table([("a", bacc.evaluate(cm), None)])
    assert "P(> chance)" in many and "P(> chance)" in one
    assert "P(>chance)" not in many + one


def test_difference_plot_shows_the_probability_of_practical_equivalence():
    c = bacc.compare([[40, 5], [5, 10]], [[38, 7], [5, 10]], rope=0.05)
    fig = c.plot()
    title = fig.axes[0].get_title(loc="left")
    assert "P(|A - B| <= 0.05)" in title
    assert f"{c.p_rope:.4f}" in title
    assert "<= " not in bacc.compare([[40, 5], [5, 10]], [[38, 7], [5, 10]]).plot().axes[0].get_title(loc="left")


def test_long_warning_lists_are_cut():
    with pytest.warns(bacc.BaccWarning) as rec:
        bacc.evaluate(np.pad([[5, 1], [2, 4]], ((0, 20), (0, 20))))
    msg = str(rec[0].message)
    assert "(20 classes)" in msg and len(msg) < 250


def test_print_confusion_matrix_is_a_labelled_table():
    cm = bacc.ConfusionMatrix([[42, 3], [6, 4]], labels=["pos", "neg"])
    lines = str(cm).splitlines()
    assert lines[0] == "2 classes, 55 examples (rows: true class, columns: predicted class)"
    assert lines[1].split() == ["true", "\\", "predicted", "pos", "neg", "total"]
    assert lines[2].split() == ["pos", "42", "3", "45"] and lines[3].split() == ["neg", "6", "4", "10"]
    assert repr(cm) == "ConfusionMatrix([[42, 3], [6, 4]], labels=['pos', 'neg'])"
    wide = str(bacc.ConfusionMatrix(np.arange(900).reshape(30, 30)))
    assert max(map(len, wide.splitlines())) <= 100 and "columns left out" in wide


def test_to_pandas_columns_say_what_they_are():
    pytest.importorskip("pandas")
    res = bacc.evaluate_many({"a": [[42, 3], [6, 4]], "b": [[30, 1], [2, 12]]}, labels=["neg", "pos"])
    df = res.to_pandas()
    assert list(df.columns) == [
        "group", "sample_accuracy", "sample_balanced_accuracy", "posterior_mean",
        "credible_lower", "credible_upper", "exact_lower", "exact_upper", "p_above_chance",
        "support_neg", "support_pos",
    ]
    ev = bacc.evaluate([[30, 1], [2, 12]])
    assert df["posterior_mean"][1] == pytest.approx(ev.balanced_accuracy.mean(), abs=1e-9)
    assert df["support_pos"].tolist() == [10, 14]
    rec = res.to_records()[0]
    assert {"posterior_mean", "credible_lower", "credible_upper"} <= set(rec)


@pytest.mark.parametrize("kind", ["csv", "pandas"])
def test_counts_takes_several_prediction_columns(tmp_path, kind):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"y": ["a", "b", "b", "a", "c", "c"],
                       "m1": ["a", "b", "a", "a", "c", "b"],
                       "m2": ["a", "a", "b", "b", "b", "c"],
                       "grp": ["x", "x", "y", "y", "x", "y"]})
    if kind == "csv":
        pytest.importorskip("duckdb")
        source = tmp_path / "p.csv"
        df.to_csv(source, index=False)
        source = str(source)
    else:
        source = df
    res = bacc.counts(source, true="y", pred=["m1", "m2"])
    assert list(res) == ["m1", "m2"]
    for m in ("m1", "m2"):
        ref = bacc.ConfusionMatrix.from_predictions(list(df["y"]), list(df[m]), labels=["a", "b", "c"])
        assert res[m] == ref
    grouped = bacc.counts(source, true="y", pred=["m1", "m2"], by="grp")
    assert grouped["m2"]["y"].counts.tolist() == [[0, 1, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(bacc.BaccError, match="nope"):
        bacc.counts(source, true="y", pred=["m1", "nope"])
    with pytest.raises(bacc.BaccError, match="twice"):
        bacc.counts(source, true="y", pred=["m1", "m1"])


def test_counts_of_several_columns_share_the_classes():
    data = {"y": [0, 1, 1, 0], "m1": [0, 1, 0, 0], "m2": [0, 1, 2, 0]}
    res = bacc.counts(data, true="y", pred=["m1", "m2"])
    assert res["m1"].labels == res["m2"].labels == (0, 1, 2)
    assert res["m1"].counts.tolist() == [[2, 0, 0], [1, 1, 0], [0, 0, 0]]
