"""The label layer (``bacc.labels``): one type rule, one order rule, one treatment of missing
values, and per-class options aligned by label, seen through every public entry point."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bacc
from bacc.labels import class_order, encode, per_class

# ----------------------------------------------------------------------------- one type rule


def test_labels_that_print_alike_are_refused_not_split_into_classes():
    with pytest.raises(bacc.BaccError, match=r"mix numbers \(e.g. 1\) and text \(e.g. '1'\)"):
        bacc.ConfusionMatrix.from_predictions([1, "1", 2, 2], [1, 1, 2, "2"])


def test_a_classifier_at_chance_is_not_reported_above_chance_through_mixed_types():
    # taken as five classes, chance would be 0.2 and P(> chance) 0.9995
    with pytest.raises(bacc.BaccError, match="mix text"):
        bacc.evaluate(["0", "1", "2"] * 10, [0, 1, "2"] * 10)
    ev = bacc.evaluate(["0", "1", "2"] * 10, ["0", "1", "2"] * 10)
    assert ev.confusion.n_classes == 3


def test_counting_and_predictions_refuse_the_same_mixed_columns():
    df = pd.DataFrame({"t": ["0", "1", "2"] * 4, "p": [0, 1, 2] * 4}, dtype=object)
    with pytest.raises(bacc.BaccError, match="mixed types|mix"):
        bacc.counts(df, true="t", pred="p", progress=False)
    with pytest.raises(bacc.BaccError, match="mix"):
        bacc.evaluate(df["t"], df["p"])


def test_numbers_of_one_value_are_one_class_whatever_their_type():
    cm = bacc.ConfusionMatrix.from_predictions(np.array([1, 2, 2]), pd.Series([1.0, 2.0, 1.0]))
    assert cm.labels == (1, 2) and cm.counts.tolist() == [[1, 0], [1, 1]]
    assert all(type(v) is int for v in cm.labels)  # plain Python values, not numpy scalars


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA, pd.NaT])
def test_missing_values_are_never_a_class(missing):
    with pytest.raises(bacc.BaccError, match="missing label"):
        bacc.ConfusionMatrix.from_predictions(pd.Series(["a", missing, "b"], dtype=object),
                                              ["a", "b", "b"])


def test_a_missing_subject_id_is_refused_not_made_a_subject():
    with pytest.raises(bacc.BaccError, match=r"groups has 1 missing subject id"):
        bacc.population(y_true=[0, 1, 0, 1, 0, 1], y_pred=[0, 1, 1, 1, 0, 0],
                        groups=["a", "a", None, "b", "b", "a"])


# ---------------------------------------------------------------------------- one order rule


def test_the_order_rule_is_numeric_for_integer_text():
    assert class_order(["10", "9", "10", "2"]) == ("2", "9", "10")
    assert class_order([np.int64(3), 1, 2.0]) == (1, 2.0, 3)
    assert class_order(["b", "a"]) == ("a", "b")


def _nine_ten():
    y = ["9"] * 10 + ["10"] * 10
    a = ["9"] * 9 + ["10"] + ["10"] * 3 + ["9"] * 7  # recalls 0.9 ("9") and 0.3 ("10")
    b = ["9"] * 5 + ["10"] * 5 + ["10"] * 8 + ["9"] * 2  # recalls 0.5 and 0.8
    return y, a, b


def test_paired_comparison_and_ranking_order_classes_as_evaluate_does():
    # class weights land on the same class everywhere: 0.8 on "9", 0.2 on "10"
    y, a, b = _nine_ten()
    w = [0.8, 0.2]  # in the class order "9", "10"
    sa = bacc.evaluate(y, a, weights=w).sample_balanced_accuracy
    sb = bacc.evaluate(y, b, weights=w).sample_balanced_accuracy
    assert sa == pytest.approx(0.8 * 0.9 + 0.2 * 0.3) and sb == pytest.approx(0.8 * 0.5 + 0.2 * 0.8)
    c = bacc.compare_paired(y, a, b, weights=w)
    assert c.sample_difference == pytest.approx(sa - sb, abs=1e-12)  # 0.22, not -0.08
    r = bacc.rank_paired(y, {"a": a, "b": b}, weights=w)
    assert r.p_greater[0, 1] == pytest.approx(c.p_better, abs=1e-12)
    # the same with the weights keyed by label, in either order
    c2 = bacc.compare_paired(y, a, b, weights={"10": 0.2, "9": 0.8})
    assert c2.p_better == pytest.approx(c.p_better, abs=1e-12)


# ------------------------------------------------------------------------ per-class options


def test_a_labelled_mix_is_aligned_by_label():
    cm = bacc.ConfusionMatrix([[95, 5], [2, 8]], labels=["neg", "pos"])
    by_order = bacc.plan_labels(cm, lower=0.7, mix=[0.95, 0.05]).labels
    assert by_order > 300  # 95 % negatives: the rare positives need many labels
    for mix in (pd.Series({"pos": 0.05, "neg": 0.95}), {"pos": 0.05, "neg": 0.95}):
        assert bacc.plan_labels(cm, lower=0.7, mix=mix).labels == by_order


@pytest.mark.parametrize("weights", [
    {"pos": 0.3, "neg": 0.7},
    pd.Series({"pos": 0.3, "neg": 0.7}),
    pd.Series([0.7, 0.3]),  # the default index: positions, in class order
    np.array([0.7, 0.3]),
])
def test_weights_in_every_form_land_on_their_class(weights):
    cm = bacc.ConfusionMatrix([[95, 5], [2, 8]], labels=["neg", "pos"])
    expected = 0.7 * 96 / 102 + 0.3 * 9 / 12  # posterior means with a flat prior
    assert bacc.evaluate(cm, weights=weights).balanced_accuracy.mean() == pytest.approx(expected)
    ref = bacc.exact_interval(cm, weights=[0.7, 0.3])
    assert bacc.exact_interval(cm, weights=weights).lower == ref.lower


def test_a_per_class_prior_keyed_by_label():
    cm = bacc.ConfusionMatrix([[8, 2], [1, 9]], labels=["b", "a"])  # class order as given
    p = bacc.posterior_class_accuracies(cm, prior={"a": (2, 1), "b": (1, 3)})
    assert [x.args for x in p] == [(9.0, 5.0), (11.0, 2.0)]


@pytest.mark.parametrize("bad, message", [
    ({"pos": 0.5, "ne": 0.5}, r"names the label 'ne', which is not a class \(the classes are 'neg', 'pos'\)"),
    ({"pos": 1.0}, r"gives no value for the class\(es\) 'neg'"),
    ({0: 0.5, 1: 0.5}, r"names the label 0, which is not a class"),
    (pd.Series([0.5, 0.5], index=["pos", "pos"]), "names the class 'pos' more than once"),
    ([0.5, 0.25, 0.25], r"one value per class \(2\)"),
])
def test_ambiguous_or_wrong_options_are_refused_naming_option_and_classes(bad, message):
    cm = bacc.ConfusionMatrix([[95, 5], [2, 8]], labels=["neg", "pos"])
    with pytest.raises(bacc.BaccError, match=message):
        bacc.evaluate(cm, weights=bad)


def test_a_key_of_the_wrong_type_is_named():
    with pytest.raises(bacc.BaccError, match="the class is 1"):
        per_class({True: 0.5, 2: 0.5}, (1, 2), "weights")  # True == 1, but is no number label
    with pytest.raises(bacc.BaccError, match="names the label '1', which is not a class"):
        per_class({"1": 0.5, "2": 0.5}, (1, 2), "weights")
    assert per_class({1.0: 0.25, 2: 0.75}, (1, 2), "weights").tolist() == [0.25, 0.75]


def test_encode_returns_codes_in_class_order():
    classes, (t, p) = encode({"y_true": np.array(["b", "a"]), "y_pred": ["a", "a"]})
    assert classes == ("a", "b") and t.tolist() == [1, 0] and p.tolist() == [0, 0]
    with pytest.raises(bacc.BaccError, match="same length"):
        encode({"y_true": [1, 2], "y_pred": [1]})
    with pytest.raises(bacc.BaccError, match="masked"):
        encode({"y_true": np.ma.array([1, 2], mask=[0, 1]), "y_pred": [1, 2]})


# ------------------------------------------------------------------------- the command line
def _json(argv, capsys):
    import json

    from bacc.cli import main

    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_command_line_per_class_options_by_label_or_by_order(capsys):
    base = ["plan", "--matrix", "95,5;2,8", "--labels", "neg,pos", "--lower", "0.7",
            "--format", "json"]
    by_order = _json([*base, "--mix", "0.95,0.05"], capsys)["labels"]
    assert _json([*base, "--mix", "pos=0.05,neg=0.95"], capsys)["labels"] == by_order
    ev = ["evaluate", "--matrix", "95,5;2,8", "--labels", "neg,pos", "--format", "json"]
    a = _json([*ev, "--weights", "pos=0.3,neg=0.7"], capsys)
    b = _json([*ev, "--weights", "0.7,0.3"], capsys)
    assert a == b


@pytest.mark.parametrize("weights, message", [
    ("pos=1", "gives no value for the class"),
    ("pos=0.5,pos=0.5", "more than once"),
    ("po=0.5,neg=0.5", "names the class 'po', which is not a class"),
    ("pos=0.5,0.5", "use either all"),
])
def test_command_line_refuses_ambiguous_per_class_options(weights, message, capsys):
    from bacc.cli import main

    code = main(["evaluate", "--matrix", "95,5;2,8", "--labels", "neg,pos", "--weights", weights])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
