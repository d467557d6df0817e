"""Scores counted where the data live (``bacc.counting.scores``): every source form gives the
tallies that numpy counts on the same data, binned tallies stay exact at their thresholds, and
every bad input is one clear line naming the column."""

from __future__ import annotations

import copy
import os

import numpy as np
import pytest

from bacc import BaccError
from bacc.counting.scores import ScoreTally, score_tallies

pytest.importorskip("duckdb")

N = 600


def make_data(seed: int = 3, n: int = N, classes=(0, 1)) -> dict:
    """Labels and scores with ties (rounded to 2 decimals) and a few distinct values."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(classes, dtype=object), n).tolist()
    shift = {c: i for i, c in enumerate(classes)}
    s = np.round(rng.normal([shift[c] for c in y], 1.0), 2)
    return {"y": y, "p": s.tolist()}


def reference(y, s, positive) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct scores (descending) with positives and negatives, one value at a time."""
    y = np.asarray(y, dtype=object)
    s = np.asarray(s, dtype=float)
    values = np.array(sorted(set(s.tolist()), reverse=True))
    is_pos = np.array([v == positive for v in y])
    pos = np.array([np.sum(is_pos & (s == v)) for v in values])
    neg = np.array([np.sum(~is_pos & (s == v)) for v in values])
    return values, pos, neg


def at_or_above(y, s, positive, values) -> tuple[np.ndarray, np.ndarray]:
    """Positives and negatives with score >= each value, counted directly."""
    y = np.asarray(y, dtype=object)
    s = np.asarray(s, dtype=float)
    is_pos = np.array([v == positive for v in y])
    return (np.array([np.sum(is_pos & (s >= v)) for v in values]),
            np.array([np.sum(~is_pos & (s >= v)) for v in values]))


def assert_tally(t: ScoreTally, y, s, positive) -> None:
    values, pos, neg = reference(y, s, positive)
    assert not t.binned
    np.testing.assert_array_equal(t.values, values)
    np.testing.assert_array_equal(t.positives, pos)
    np.testing.assert_array_equal(t.negatives, neg)


def assert_binned_exact(t: ScoreTally, y, s, positive, m: int) -> None:
    """At most ``m`` values, each a score of the data, with exact counts at or above it."""
    assert t.binned
    assert 2 <= t.values.size <= m
    assert np.all(np.diff(t.values) < 0)
    assert set(t.values.tolist()) <= set(np.asarray(s, dtype=float).tolist())
    above_pos, above_neg = at_or_above(y, s, positive, t.values)
    np.testing.assert_array_equal(np.cumsum(t.positives), above_pos)
    np.testing.assert_array_equal(np.cumsum(t.negatives), above_neg)
    assert t.values[-1] == min(s)  # every example is in a bin


# ----------------------------------------------------------------------------------------------
# source forms
def _pandas(d):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(d)


def _polars(d):
    pl = pytest.importorskip("polars")
    pytest.importorskip("narwhals")
    return pl.DataFrame(d, strict=False)


def _polars_lazy(d):
    return _polars(d).lazy()


def _pyarrow(d):
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("narwhals")
    return pa.table(d)


def _dask(d):
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(_pandas(d), npartitions=3)


def _csv(d, tmp_path):
    path = tmp_path / "scores.csv"
    _pandas(d).to_csv(path, index=False)
    return str(path)


def _parquet(d, tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "scores.parquet"
    _pandas(d).to_parquet(path, index=False)
    return str(path)


def _parquet_parts(d, tmp_path, k=3):
    """The rows cut into ``k`` Parquet files of one folder."""
    pytest.importorskip("pyarrow")
    df = _pandas(d)
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(df)), k)):
        df.iloc[part].to_parquet(folder / f"part-{i}.parquet", index=False)
    return folder


FRAMES = {"dict": lambda d: d, "pandas": _pandas, "polars": _polars, "polars-lazy": _polars_lazy,
          "pyarrow": _pyarrow, "dask": _dask}
FILES = {
    "csv": _csv,
    "parquet": _parquet,
    "glob": lambda d, p: str(_parquet_parts(d, p) / "*.parquet"),
    "directory": lambda d, p: str(_parquet_parts(d, p)),
    "list": lambda d, p: sorted(str(f) for f in _parquet_parts(d, p).glob("*.parquet")),
}
FORMS = [*FRAMES, *FILES]


def source(form: str, d: dict, tmp_path):
    if form in FRAMES:
        return FRAMES[form](d)
    return FILES[form](d, tmp_path)


def text_labels(form: str) -> bool:
    """CSV labels are read as text, as bacc.counts reads them."""
    return form == "csv"


@pytest.mark.parametrize("form", FORMS)
def test_every_form_gives_the_tallies_numpy_counts(form, tmp_path):
    d = make_data()
    t = score_tallies(source(form, d, tmp_path), true="y", score="p")
    if text_labels(form):
        assert t.classes == ("0", "1") and t.positive == "1"
    else:
        assert t.classes == (0, 1) and t.positive == 1
    assert_tally(t, d["y"], d["p"], 1)
    assert t.n_positive + t.n_negative == N


@pytest.mark.parametrize("form", FORMS)
def test_binned_counts_are_exact_at_their_thresholds(form, tmp_path):
    d = make_data()
    m = 12
    t = score_tallies(source(form, d, tmp_path), true="y", score="p", max_thresholds=m)
    assert_binned_exact(t, d["y"], d["p"], 1, m)
    # the bins are about equally full: none holds more than a third of the examples
    assert (t.positives + t.negatives).max() < N / 3


@pytest.mark.parametrize("form", ["dict", "parquet"])
def test_no_binning_when_the_scores_are_few_enough(form, tmp_path):
    d = make_data()
    distinct = len(set(d["p"]))
    t = score_tallies(source(form, d, tmp_path), true="y", score="p", max_thresholds=distinct)
    assert_tally(t, d["y"], d["p"], 1)


def test_a_large_file_is_binned_in_the_engine_with_exact_counts(tmp_path):
    """Many distinct scores, thresholds from the engine's sample: counts exact, bins balanced."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(11)
    n, m = 200_000, 500
    y = (rng.random(n) < 0.2).astype(np.int8)
    s = rng.normal(y * 1.5, 1.0)
    path = tmp_path / "big.parquet"
    pd.DataFrame({"label": y, "score": s}).to_parquet(path, index=False)
    t = score_tallies(str(path), true="label", score="score", max_thresholds=m)
    assert t.binned and t.values.size <= m and t.values.size > 0.9 * m
    order = np.argsort(-s, kind="stable")
    ss, yy = s[order], y[order]
    k = np.searchsorted(-ss, -t.values, side="right")  # examples with s >= value
    np.testing.assert_array_equal(np.cumsum(t.positives), np.cumsum(yy)[k - 1])
    np.testing.assert_array_equal(np.cumsum(t.negatives), np.cumsum(1 - yy)[k - 1])
    sizes = t.positives + t.negatives
    assert sizes.max() < 4 * n / m
    assert np.isin(t.values, s).all()


def test_binned_file_thresholds_are_the_same_every_time(tmp_path):
    d = make_data()
    path = _parquet(d, tmp_path)
    a = score_tallies(path, true="y", score="p", max_thresholds=12)
    b = score_tallies(path, true="y", score="p", max_thresholds=12)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.positives, b.positives)


def test_a_binned_count_leaves_no_spill_directory_behind(tmp_path, monkeypatch):
    d = make_data()
    path = _parquet(d, tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    score_tallies(path, true="y", score="p", max_thresholds=12, memory_limit="200MB")
    assert os.listdir(work) == []


def test_csv_with_a_given_separator(tmp_path):
    d = make_data()
    path = tmp_path / "scores.csv"
    _pandas(d).to_csv(path, index=False, sep=";")
    t = score_tallies(str(path), true="y", score="p", sep=";")
    assert_tally(t, [str(v) for v in d["y"]], d["p"], "1")


# ----------------------------------------------------------------------------------------------
# classes
@pytest.mark.parametrize("form", ["dict", "pandas", "polars", "parquet", "csv"])
def test_relabelled_classes_give_the_same_tallies(form, tmp_path):
    d = make_data()
    names = {0: "neg", 1: "pos"}
    renamed = {"y": [names[v] for v in d["y"]], "p": d["p"]}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    t = score_tallies(source(form, d, tmp_path / "a"), true="y", score="p")
    u = score_tallies(source(form, renamed, tmp_path / "b"), true="y", score="p")
    assert u.classes == ("neg", "pos") and u.positive == "pos"
    np.testing.assert_array_equal(u.values, t.values)
    np.testing.assert_array_equal(u.positives, t.positives)
    np.testing.assert_array_equal(u.negatives, t.negatives)


@pytest.mark.parametrize("form", ["dict", "pandas", "csv", "parquet"])
def test_positive_and_labels_choose_the_positive_class(form, tmp_path):
    d = make_data()
    src = source(form, d, tmp_path)
    t = score_tallies(src, true="y", score="p")
    u = score_tallies(src, true="y", score="p", positive=0)
    v = score_tallies(src, true="y", score="p", labels=[1, 0])
    for w in (u, v):
        assert str(w.positive) == "0"
        np.testing.assert_array_equal(w.positives, t.negatives)
        np.testing.assert_array_equal(w.negatives, t.positives)
    assert v.classes == (1, 0)


def test_text_labels_in_class_order():
    d = make_data(classes=("10", "9"))
    t = score_tallies(d, true="y", score="p")
    assert t.classes == ("9", "10") and t.positive == "10"  # "9" before "10", as bacc orders
    assert_tally(t, d["y"], d["p"], "10")


def test_row_order_changes_nothing():
    d = make_data()
    perm = np.random.default_rng(5).permutation(N)
    shuffled = {"y": [d["y"][i] for i in perm], "p": [d["p"][i] for i in perm]}
    a, b = score_tallies(d, true="y", score="p"), score_tallies(shuffled, true="y", score="p")
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.positives, b.positives)
    np.testing.assert_array_equal(a.negatives, b.negatives)


@pytest.mark.parametrize("form", ["dict", "pandas", "polars"])
def test_the_callers_data_are_untouched(form, tmp_path):
    d = make_data()
    src = source(form, d, tmp_path)
    before = copy.deepcopy(d) if form == "dict" else src.clone() if form == "polars" else src.copy()
    score_tallies(src, true="y", score="p", max_thresholds=10)
    if form == "dict":
        assert src == before
    elif form == "polars":
        assert src.equals(before) and src.columns == ["y", "p"]
    else:
        pd = pytest.importorskip("pandas")
        pd.testing.assert_frame_equal(src, before)


def test_integer_and_whole_float_labels_are_one_class():
    """A pandas integer column with missing values is float: 1.0 is the class 1."""
    d = make_data()
    t = score_tallies({"y": [float(v) for v in d["y"]], "p": d["p"]}, true="y", score="p")
    assert t.classes == (0, 1) and isinstance(t.positive, int)
    assert_tally(t, d["y"], d["p"], 1)


# ----------------------------------------------------------------------------------------------
# one score column per class
def make_three(seed=8, n=450) -> dict:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n).tolist()
    out = {"y": y}
    for c in "abc":
        out[f"s_{c}"] = np.round(rng.normal([1.0 if v == c else 0.0 for v in y], 1.0), 2).tolist()
    return out


@pytest.mark.parametrize("form", ["dict", "pandas", "polars", "dask", "parquet", "csv"])
def test_one_vs_rest(form, tmp_path):
    d = make_three()
    res = score_tallies(source(form, d, tmp_path), true="y", score=["s_a", "s_b", "s_c"])
    assert list(res) == ["a", "b", "c"]
    for c, t in res.items():
        assert t.classes == ("a", "b", "c") and t.positive == c
        assert_tally(t, d["y"], d[f"s_{c}"], c)


def test_one_vs_rest_by_mapping_and_by_labels():
    d = make_three()
    by_list = score_tallies(d, true="y", score=["s_a", "s_b", "s_c"])
    by_map = score_tallies(d, true="y", score={"c": "s_c", "a": "s_a", "b": "s_b"})
    by_labels = score_tallies(d, true="y", score=["s_c", "s_b", "s_a"], labels=["c", "b", "a"])
    assert list(by_map) == ["a", "b", "c"] and list(by_labels) == ["c", "b", "a"]
    for c in "abc":
        for other in (by_map, by_labels):
            np.testing.assert_array_equal(other[c].positives, by_list[c].positives)
            np.testing.assert_array_equal(other[c].negatives, by_list[c].negatives)


def test_one_vs_rest_binned_is_exact():
    d = make_three()
    res = score_tallies(d, true="y", score=["s_a", "s_b", "s_c"], max_thresholds=8)
    for c, t in res.items():
        assert_binned_exact(t, d["y"], d[f"s_{c}"], c, 8)


# ----------------------------------------------------------------------------------------------
# errors: one line, naming the problem and the column
ERROR_FORMS = ["dict", "pandas", "polars", "csv", "parquet"]


def bad(form, d, tmp_path, needles, **kw):
    kw = {"true": "y", "score": "p", **kw}
    with pytest.raises(BaccError) as err:
        score_tallies(source(form, d, tmp_path), **kw)
    msg = str(err.value)
    assert "\n" not in msg
    for needle in needles:
        assert needle in msg, msg
    return msg


@pytest.mark.parametrize("form", ERROR_FORMS)
def test_missing_column(form, tmp_path):
    d = make_data()
    bad(form, d, tmp_path, ["'q' (score=)", "available columns"], score="q")
    bad(form, d, tmp_path, ["'z' (true=)"], true="z")


@pytest.mark.parametrize("form", ERROR_FORMS)
@pytest.mark.parametrize(("values", "needles"), [
    ([0.1, float("nan"), 0.3, 0.4, float("nan"), 0.2], ["'p' (score=)", "2 missing (null or NaN) scores"]),
    ([0.1, None, 0.3, 0.4, 0.5, 0.2], ["'p' (score=)", "1 missing (null or NaN) score;"]),
    ([0.1, float("inf"), 0.3, -float("inf"), 0.5, None],
     ["'p' (score=)", "1 missing (null or NaN) and 2 infinite scores"]),
])
def test_scores_that_are_not_finite(form, values, needles, tmp_path):
    d = {"y": [0, 1, 0, 1, 0, 1], "p": values}
    bad(form, d, tmp_path, needles)


@pytest.mark.parametrize("form", ERROR_FORMS)
def test_text_scores_are_labels(form, tmp_path):
    d = {"y": [0, 1, 0, 1], "p": ["low", "high", "low", "high"]}
    bad(form, d, tmp_path, ["'p' (score=)", "holds text", "labels where scores are expected"])


@pytest.mark.parametrize("form", ["dict", "pandas", "polars", "parquet"])
def test_boolean_scores_are_labels(form, tmp_path):
    d = {"y": [0, 1, 0, 1], "p": [False, True, True, True]}
    bad(form, d, tmp_path, ["'p' (score=)", "holds booleans", "labels where scores are expected"])


@pytest.mark.parametrize("form", ERROR_FORMS)
def test_hard_predictions_as_scores(form, tmp_path):
    d = {"y": [0, 1, 0, 1, 1], "p": [0, 1, 1, 1, 0]}
    bad(form, d, tmp_path, ["'p' (score=)", "only class labels", "bacc.evaluate"])


def test_scores_equal_to_labels_of_text_classes_are_scores():
    """0/1 scores with classes 'cat' and 'dog' are not the classes' labels."""
    t = score_tallies({"y": ["cat", "dog", "dog"], "p": [0, 1, 0]}, true="y", score="p")
    assert t.values.tolist() == [1.0, 0.0] and t.positives.tolist() == [1, 1]


@pytest.mark.parametrize("form", ERROR_FORMS)
def test_one_class_only(form, tmp_path):
    d = {"y": [1, 1, 1], "p": [0.2, 0.5, 0.7]}
    bad(form, d, tmp_path, ["'y' (true=)", "one class only"])


def test_a_given_class_without_examples():
    d = {"y": [1, 1, 1], "p": [0.2, 0.5, 0.7]}
    with pytest.raises(BaccError, match="one class only"):
        score_tallies(d, true="y", score="p", labels=[0, 1])
    with pytest.raises(BaccError, match="no example of the class 'c'"):
        score_tallies({"y": ["a", "b"], "s_a": [0.1, 0.2], "s_b": [0.3, 0.1], "s_c": [0.0, 0.1]},
                      true="y", score=["s_a", "s_b", "s_c"], labels=["a", "b", "c"])


@pytest.mark.parametrize("form", ERROR_FORMS)
def test_three_classes_with_one_score_column(form, tmp_path):
    d = {"y": [0, 1, 2, 1], "p": [0.2, 0.5, 0.7, 0.1]}
    bad(form, d, tmp_path, ["3 classes", "one score column per class"])


@pytest.mark.parametrize("form", ERROR_FORMS)
def test_missing_true_labels(form, tmp_path):
    d = {"y": ["a", None, "b", "a"], "p": [0.2, 0.5, 0.7, 0.1]}
    bad(form, d, tmp_path, ["1 example has a missing label", "'y' (true=)"])


@pytest.mark.parametrize("form", ["dict", "pandas"])
def test_labels_of_mixed_kinds(form, tmp_path):
    d = {"y": [1, "1", 0, 0], "p": [0.2, 0.5, 0.7, 0.1]}
    bad(form, d, tmp_path, ["'y' (true=)", "mix numbers", "text"])


def test_labels_outside_the_given_ones():
    with pytest.raises(BaccError, match="has the label 2, which is not in labels"):
        score_tallies({"y": [0, 1, 2], "p": [0.1, 0.2, 0.3]}, true="y", score="p", labels=[0, 1])


@pytest.mark.parametrize(("kw", "needle"), [
    ({"positive": 2}, "positive=2 is not a class"),
    ({"max_thresholds": 1}, "max_thresholds must be a whole number >= 2"),
    ({"max_thresholds": 2.5}, "max_thresholds must be a whole number >= 2"),
    ({"score": ["p"]}, "score= names 1 column, one per class, but there are 2 classes"),
    ({"score": []}, "score= is empty"),
    ({"score": ["p", "p"]}, "more than once"),
    ({"score": "y"}, "true= and score= name the same column"),
    ({"true": ""}, "true= must name a column"),
    ({"score": {0: "p", 5: "p2"}}, "score= names the class 5"),
    ({"score": ["p", "p2"], "positive": 1}, "positive= is for one score column"),
])
def test_bad_arguments(kw, needle):
    d = {"y": [0, 1, 0, 1], "p": [0.2, 0.5, 0.7, 0.1], "p2": [0.3, 0.1, 0.2, 0.9]}
    with pytest.raises(BaccError) as err:
        score_tallies(d, **{"true": "y", "score": "p", **kw})
    assert needle in str(err.value)


def test_a_list_of_values_is_not_a_source():
    with pytest.raises(BaccError, match="a list is read as file paths"):
        score_tallies([0.1, 0.2], true="y", score="p")


def test_columns_of_different_lengths():
    with pytest.raises(BaccError, match="different lengths"):
        score_tallies({"y": [0, 1, 0], "p": [0.1, 0.2]}, true="y", score="p")


def test_masked_scores_are_missing():
    p = np.ma.masked_array([0.1, 0.2, 0.3, 0.4], mask=[0, 1, 0, 0])
    with pytest.raises(BaccError, match="1 missing"):
        score_tallies({"y": [0, 1, 0, 1], "p": p}, true="y", score="p")


# ----------------------------------------------------------------------------------------------
# the result
def test_score_tally_is_read_only_and_checked():
    t = score_tallies({"y": [0, 1, 1], "p": [0.1, 0.7, 0.4]}, true="y", score="p")
    with pytest.raises(ValueError):
        t.values[0] = 1.0
    with pytest.raises(AttributeError):
        t.binned = True
    assert "2 positives, 1 negatives" in repr(t)
    with pytest.raises(BaccError, match="descending"):
        ScoreTally((0, 1), 1, [0.1, 0.2], [1, 0], [0, 1])
    with pytest.raises(BaccError, match="one length"):
        ScoreTally((0, 1), 1, [0.2, 0.1], [1], [0, 1])
