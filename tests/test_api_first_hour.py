"""What a newcomer types first: tables of predictions in the Python calls, short reprs, kept
names and a clean ``dir(bacc)``.

Every call of a table of predictions is checked against the same call on the labels written
out one by one (the numerics' own path), so the numbers agree exactly; the reprs are checked
against numbers computed here in closed form.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import bacc
from bacc.counting.joint import joint_counts

#: The module fixtures build costly results once: under pytest-xdist the whole file runs
#: in one worker (conftest.py: --dist loadgroup), so they are not built again in the other.
pytestmark = pytest.mark.xdist_group("test_api_first_hour")

CM = [[42, 3], [6, 4]]


def _table(n: int = 120, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["cat", "dog", "eel"], n)
    flip = lambda p: np.where(rng.random(n) < p, y, rng.choice(["cat", "dog", "eel"], n))  # noqa: E731
    return pd.DataFrame({"label": y, "predicted": flip(0.8), "model_b": flip(0.6),
                         "model_c": flip(0.7), "site": rng.choice(["north", "south"], n)})


# ----------------------------------------------------------------------------------------------
# tables of predictions in evaluate, compare and rank
def test_evaluate_a_table_with_true_and_pred():
    df = _table()
    ev = bacc.evaluate(df, true="label", pred="predicted")
    ref = bacc.evaluate(list(df["label"]), list(df["predicted"]))
    assert ev.to_dict() == {**ref.to_dict(), "name": "predicted"}
    assert ev.name == "predicted" and ev.confusion == ref.confusion
    # the counts, by hand
    assert ev.confusion.total == len(df)
    assert int(np.trace(ev.confusion.counts)) == int((df["label"] == df["predicted"]).sum())


def test_evaluate_a_polars_frame_a_mapping_and_a_csv_file(tmp_path):
    df = _table()
    ref = bacc.evaluate(df, true="label", pred="predicted").to_dict()
    pl = pytest.importorskip("polars")
    assert bacc.evaluate(pl.from_pandas(df), true="label", pred="predicted").to_dict() == ref
    cols = {c: list(df[c]) for c in df.columns}
    assert bacc.evaluate(cols, true="label", pred="predicted").to_dict() == ref
    pytest.importorskip("duckdb")
    path = tmp_path / "predictions.csv"
    df.to_csv(path, index=False)
    assert bacc.evaluate(str(path), true="label", pred="predicted", progress=False).to_dict() == ref


def test_evaluate_by_a_group_column_is_the_batch_of_the_groups():
    df = _table()
    b = bacc.evaluate(df, true="label", pred="predicted", by="site", progress=False)
    assert isinstance(b, bacc.BatchEvaluation)
    assert b.groups == ("north", "south")
    for g, name in enumerate(b.groups):
        part = df[df["site"] == name]
        one = bacc.evaluate(list(part["label"]), list(part["predicted"]),
                            labels=["cat", "dog", "eel"])
        assert b.mean[g] == pytest.approx(one.balanced_accuracy_summary.mean, abs=1e-9)
        assert b.sample_balanced_accuracy[g] == pytest.approx(one.sample_balanced_accuracy)


def test_evaluate_several_prediction_columns_gives_one_result_each():
    df = _table()
    out = bacc.evaluate(df, true="label", pred=["predicted", "model_b"])
    assert list(out) == ["predicted", "model_b"]
    assert out["model_b"].sample_balanced_accuracy == pytest.approx(
        bacc.evaluate(list(df["label"]), list(df["model_b"])).sample_balanced_accuracy)


def test_a_table_without_its_columns_gets_the_command_lines_guidance():
    df = _table()
    with pytest.raises(bacc.BaccError) as e:
        bacc.evaluate(df)
    msg = str(e.value)
    assert "looks like a table of predictions" in msg and "true=COLUMN, pred=COLUMN" in msg
    assert "true='label', pred='predicted'" in msg
    with pytest.raises(bacc.BaccError, match="looks like a table of predictions"):
        bacc.evaluate({"y": [0, 1], "yhat": [0, 0]})
    with pytest.raises(bacc.BaccError, match="looks like a table of predictions"):
        bacc.rank(df)
    with pytest.raises(bacc.BaccError, match="is a file name.*true=COLUMN, pred=COLUMN"):
        bacc.evaluate("predictions.csv")
    # a labelled confusion matrix with another problem keeps its own message
    bad = pd.DataFrame([[1, -2], [0, 3]], index=["a", "b"], columns=["a", "b"])
    with pytest.raises(bacc.BaccError) as e:
        bacc.evaluate(bad)
    assert "predictions" not in str(e.value)


def test_the_guidance_has_one_home_in_both_terms():
    from bacc.readers import predictions_message

    lib = predictions_message("the DataFrame", ["id", "label", "predicted"])
    cli = predictions_message("preds.csv", ["id", "label", "predicted"], terms="options")
    assert lib.endswith("true=COLUMN, pred=COLUMN (here probably true='label', pred='predicted')")
    assert cli == ("preds.csv looks like a predictions file (columns id, label, predicted), not "
                   "a confusion matrix: give the true and predicted columns with --true COLUMN "
                   "--pred COLUMN (here probably --true label --pred predicted)")


@pytest.mark.parametrize("call", [
    lambda df: bacc.evaluate(df, true="label"),
    lambda df: bacc.evaluate(df, pred="predicted"),
    lambda df: bacc.evaluate(df, by="site"),
    lambda df: bacc.evaluate(df, [0, 1], true="label", pred="predicted"),
    lambda df: bacc.evaluate(df, true="label", pred="predicted", rows="predicted"),
    lambda df: bacc.evaluate(df, true="label", pred="predicted", by="site", weights=[0.5, 0.5]),
    lambda df: bacc.compare(df, true="label", pred="predicted"),
    lambda df: bacc.compare(df, true="label", pred=["predicted", "model_b", "model_c"]),
    lambda df: bacc.compare(df, df, true="label", pred=["predicted", "model_b"]),
    lambda df: bacc.rank(df, true="label", pred=["predicted"]),
    lambda df: bacc.evaluate(df, true="label", pred="nope"),
])
def test_half_given_columns_are_refused_with_a_message(call):
    with pytest.raises(bacc.BaccError):
        call(_table())


def test_compare_two_columns_is_the_paired_comparison():
    df = _table()
    c = bacc.compare(df, true="label", pred=["predicted", "model_b"], rope=0.01)
    ref = bacc.compare_paired(list(df["label"]), list(df["predicted"]), list(df["model_b"]),
                              rope=0.01, names=["predicted", "model_b"])
    assert c.paired and c.names == ("predicted", "model_b")
    assert c.to_dict() == ref.to_dict()
    ind = bacc.compare(df, true="label", pred=["predicted", "model_b"], paired=False)
    cms = bacc.counts(df, true="label", pred=["predicted", "model_b"])
    assert ind.to_dict() == bacc.compare(cms["predicted"], cms["model_b"],
                                         names=["predicted", "model_b"]).to_dict()
    assert not ind.paired


def test_rank_columns_is_the_paired_ranking_with_the_column_names():
    df = _table()
    cols = ["predicted", "model_b", "model_c"]
    r = bacc.rank(df, true="label", pred=cols, n_draws=20_000)
    ref = bacc.rank_paired(list(df["label"]), {c: list(df[c]) for c in cols}, n_draws=20_000)
    assert r.names == tuple(cols) and r.paired
    assert r.to_dict() == ref.to_dict()
    ind = bacc.rank(df, true="label", pred=cols, paired=False, n_draws=20_000)
    cms = bacc.counts(df, true="label", pred=cols)
    assert ind.to_dict() == bacc.rank(cms, n_draws=20_000).to_dict()


def test_rank_and_compare_the_groups_of_a_long_table():
    df = _table()  # "site" names the classifier of each row: a table in long form
    r = bacc.rank(df, true="label", pred="predicted", by="site", n_draws=20_000)
    parts = {g: df[df["site"] == g] for g in ("north", "south")}
    cms = {g: bacc.ConfusionMatrix.from_predictions(list(p["label"]), list(p["predicted"]),
                                                    labels=["cat", "dog", "eel"])
           for g, p in parts.items()}
    assert r.names == ("north", "south") and not r.paired
    assert r.to_dict() == bacc.rank(cms, n_draws=20_000).to_dict()
    c = bacc.compare(df, true="label", pred="predicted", by="site")
    assert c.names == ("north", "south")
    assert c.to_dict() == bacc.compare(cms["north"], cms["south"],
                                       names=["north", "south"]).to_dict()
    with pytest.raises(bacc.BaccError, match="different examples"):
        bacc.rank(df, true="label", pred="predicted", by="site", paired=True)
    with pytest.raises(bacc.BaccError, match="one prediction column"):
        bacc.rank(df, true="label", pred=["predicted", "model_b"], by="site")


def test_joint_counts_of_a_column_with_a_class_the_others_never_show():
    data = {"y": ["a", "a", "b", "b", "b"], "p": ["a", "b", "b", "b", "a"],
            "q": ["a", "c", "b", "c", "b"]}
    jc = joint_counts(data, true="y", preds=["p", "q"])
    assert jc.classes == ("a", "b", "c")
    got = sorted(zip(map(tuple, jc.codes.tolist()), jc.n.tolist(), strict=True))
    # (true, p, q) by hand: (a,a,a), (a,b,c), (b,b,b), (b,b,c), (b,a,b)
    assert got == [((0, 0, 0), 1), ((0, 1, 2), 1), ((1, 0, 1), 1), ((1, 1, 1), 1),
                   ((1, 1, 2), 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = bacc.compare(data, true="y", pred=["p", "q"])
        ref = bacc.compare_paired(data["y"], data["p"], data["q"], labels=["a", "b", "c"],
                                  names=["p", "q"])
    assert c.to_dict() == ref.to_dict()


def test_a_missing_value_in_the_second_prediction_column_is_named_as_a_prediction():
    data = {"y": [0, 1, 1, 0], "p": [0, 1, 0, 0], "q": [0, None, 1, 1]}
    with pytest.raises(bacc.BaccError, match=r"'q' \(pred=\)"):
        bacc.compare(data, true="y", pred=["p", "q"])


# ----------------------------------------------------------------------------------------------
# names the user gave are kept
def test_rank_and_compare_keep_the_names_given():
    a, b = bacc.evaluate(CM, name="resnet"), bacc.evaluate([[30, 15], [8, 7]], name="vit")
    assert bacc.rank([a, b]).names == ("resnet", "vit")
    assert bacc.rank(pd.Series({"x": a, "y": b})).names == ("x", "y")
    assert bacc.rank({"x": a, "y": b}).names == ("x", "y")
    assert bacc.compare(a, b).names == ("resnet", "vit")
    # only a result without any name is lettered, and a name given twice is told apart
    assert bacc.rank([bacc.evaluate(CM), b]).names == ("A", "vit")
    assert bacc.rank([a, a, b]).names == ("resnet", "resnet (2)", "vit")
    assert bacc.rank([a, b], names=["p", "q"]).names == ("p", "q")
    with pytest.raises(bacc.BaccError, match="name must be"):
        bacc.evaluate(CM, name="")


# ----------------------------------------------------------------------------------------------
# reprs
def _results() -> dict:
    y = [0] * 30 + [1] * 30
    pa = [0] * 27 + [1] * 3 + [1] * 26 + [0] * 4
    pb = [0] * 25 + [1] * 5 + [1] * 24 + [0] * 6
    ev = bacc.evaluate(CM)
    pop = bacc.population(correct=[[40, 44, 18], [48, 41, 65]], totals=[[45, 51, 20], [55, 49, 80]])
    out = {
        "Evaluation": ev, "Comparison": bacc.compare_paired(y, pa, pb),
        "Ranking": bacc.rank_paired(y, {"a": pa, "b": pb}),
        "Interval": ev.exact_interval(), "ClassInterval": ev.class_intervals()[0],
        "BinomialTest": bacc.binomial_test(CM), "McNemarTest": bacc.mcnemar_exact(4, 0),
        "BatchEvaluation": bacc.evaluate_many([CM, [[10, 2], [3, 9]]], progress=False),
        "Population": pop,
        "MetricPosterior": bacc.posterior_metric(CM, "recall", label=1),
        "CoverageResult": bacc.coverage(["union", "wald"], [10, 10], [0.8, 0.7],
                                        n_simulations=300, random_state=0),
        "LabelPlan": bacc.plan_labels(CM, lower=0.6), "NextLabel": bacc.next_label(CM),
        "BetaPosterior": ev.accuracy, "BalancedAccuracyPosterior": ev.balanced_accuracy,
        "BetaSum": bacc.compare(CM, [[30, 15], [8, 7]]).difference,
        "PairedDifference": bacc.compare_paired(y, pa, pb).difference,
        "GridAverage": pop.balanced_accuracy,
        "SampleDistribution": bacc.posterior_metric(CM, "g_mean", n_draws=2000).distribution,
    }
    out["ClassResult"] = ev.classes[0]
    out["PosteriorSummary"] = ev.balanced_accuracy_summary
    out["MethodCoverage"] = out["CoverageResult"].methods[0]
    return out


@pytest.fixture(scope="module")
def results():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _results()


@pytest.mark.parametrize("kind", [
    "Evaluation", "Comparison", "Ranking", "Interval", "ClassInterval", "BinomialTest",
    "McNemarTest", "BatchEvaluation", "Population", "MetricPosterior", "CoverageResult",
    "LabelPlan", "NextLabel", "BetaPosterior", "BalancedAccuracyPosterior", "BetaSum",
    "PairedDifference", "GridAverage", "SampleDistribution", "ClassResult",
    "PosteriorSummary", "MethodCoverage"])
def test_every_result_has_a_short_one_line_repr(results, kind):
    r = results[kind]
    text = repr(r)
    assert "\n" not in text and len(text) <= 220, text
    assert text.startswith((f"<{kind}", f"{kind}(")), text
    assert " object at 0x" not in text and "array(" not in text


@pytest.mark.parametrize("kind", [
    "Evaluation", "Comparison", "Ranking", "Interval", "ClassInterval", "BinomialTest",
    "McNemarTest", "BatchEvaluation", "Population", "MetricPosterior", "CoverageResult",
    "LabelPlan", "NextLabel", "BetaPosterior", "BalancedAccuracyPosterior", "BetaSum",
    "PairedDifference", "GridAverage", "SampleDistribution", "ClassResult",
    "PosteriorSummary", "MethodCoverage"])
def test_every_result_and_distribution_has_html(results, kind):
    html = results[kind]._repr_html_()
    assert html.startswith("<div>") and html.endswith("</div>")
    assert "<table" in html or "<pre" in html or html.startswith("<div><p>")
    assert "<script" not in html


def test_the_evaluation_repr_holds_the_headline_numbers(results):
    ev = results["Evaluation"]
    text = repr(ev)
    mean = (43 / 47 + 5 / 12) / 2  # flat prior: posterior means of the two class accuracies
    assert f"balanced accuracy {mean:.3f} [" in text
    assert "95% credible" in text and "2 classes, n=55>" in text
    assert "class_source" not in text and "prior_a" not in text
    # P(lambda > 1/2) = 0.9955 (Brodersen et al. 2010, Fig. 1)
    assert "P(>chance)=0.995" in text or "P(>chance)=0.996" in text
    assert str(ev) == bacc.display.text.evaluation_table(
        ev, ev.exact_interval(), ev.exact_interval(metric="accuracy"), ev.class_intervals())


def test_reprs_of_other_results_hold_their_numbers(results):
    assert repr(results["McNemarTest"]) == (
        "<McNemarTest: only A right 4, only B right 0, p=0.125 (two-sided, exact)>")  # 2 / 2**4
    iv = results["Interval"]
    assert repr(iv).startswith(f"<Interval: balanced accuracy {(42 / 45 + 4 / 10) / 2:.3f} [")
    t = results["BinomialTest"]
    assert "accuracy 0.836 (46/55) against chance 0.5" in repr(t)
    pa = sum(math.comb(55, k) for k in range(46, 56)) / 2**55  # P(K >= 46), K ~ Bin(55, 1/2)
    assert f"p={pa:.3g}" in repr(t)
    c = results["Comparison"]
    assert "P(A > B)=0.969" in repr(c) and "paired, n=60>" in repr(c)


def test_reprs_leave_equality_pickle_and_json_as_they_were(results):
    for kind in ("ClassInterval", "McNemarTest", "PosteriorSummary", "BinomialTest"):
        r = results[kind]
        twin = pickle.loads(pickle.dumps(r))
        assert twin == r and repr(twin) == repr(r)
    iv = results["Interval"]
    twin = pickle.loads(pickle.dumps(iv))
    assert twin.to_dict() == iv.to_dict() and repr(twin) == repr(iv)
    ev = results["Evaluation"]
    assert pickle.loads(pickle.dumps(ev)).to_dict() == ev.to_dict()


# ----------------------------------------------------------------------------------------------
# the namespace
def test_dir_of_the_package_lists_its_api_only():
    names = dir(bacc)
    assert "annotations" not in names
    assert set(bacc.__all__) <= set(names)
    for n in names:
        assert hasattr(bacc, n), n
        assert not n.startswith("_") or n == "__version__"
