"""Inputs of ``bacc.compare_across`` and ``bacc.rank_across``: every accepted form gives the same
numbers, the invariances hold, and bad input is refused with a BaccError that names the problem.

The data: out-of-sample predictions of three classifiers on five data sets, two of 2 classes
and three of 3 classes. Compared as independent test sets (each classifier's confusion matrix
per data set) and as the same examples (a table of predictions, or label sequences with
``groups=``: the paired model).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import pickle
import types
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bacc

SPEC = {"d1": (0, 1), "d2": (0, 1, 2), "d3": (0, 1, 2), "d4": (0, 1), "d5": (0, 1, 2)}
TOL = 1e-12
HAS_POLARS = importlib.util.find_spec("polars") is not None
M = [[8, 2], [3, 7]]
M2 = [[6, 4], [2, 8]]
M3 = [[5, 1, 0], [2, 6, 1], [0, 1, 7]]


def _table(seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for ds, cls in SPEC.items():
        n = int(rng.integers(25, 60))
        y = np.resize(np.array(cls), n)  # every class has examples
        rng.shuffle(y)

        def noisy(p, y=y, cls=cls, n=n):
            return np.where(rng.random(n) < p, y, rng.choice(cls, n))

        parts.append(pd.DataFrame({"dataset": ds, "label": y, "a": noisy(0.85),
                                   "b": noisy(0.7), "c": noisy(0.6)}))
    return pd.concat(parts, ignore_index=True)


DF = _table()
PAIRED = {"true": "label", "pred": ["a", "b"], "across": "dataset"}
RANKED = {"true": "label", "pred": ["a", "b", "c"], "across": "dataset"}


def _cms(df: pd.DataFrame, pred: str, spec=None) -> dict:
    """``{data set: ConfusionMatrix}`` of one prediction column, over each data set's classes."""
    spec = SPEC if spec is None else spec
    return {ds: bacc.ConfusionMatrix.from_predictions(g["label"].tolist(), g[pred].tolist(),
                                                      labels=spec[ds])
            for ds, g in df.groupby("dataset", sort=False)}


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bacc.BaccWarning)
        return fn(*args, **kwargs)


_WORDS = frozenset({"names", "data_sets", "data_set", "notes", "verdict", "random_state"})


def _numbers(res, skip=()) -> np.ndarray:
    """Every number of a result, in order (``to_dict`` and the quantiles of the distributions)."""
    out: list = []
    skip = _WORDS | set(skip)

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k not in skip:
                    walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)
        elif isinstance(x, bool | int | float):
            out.append(float(x))
        elif x is None:
            out.append(math.nan)

    walk(res.to_dict())
    if isinstance(res, bacc.AcrossComparison) and "data_sets_detail" not in skip:
        for dist in (res.difference, res.predictive):
            out.extend(np.asarray(dist.ppf([0.025, 0.5, 0.975])).tolist())
            out.extend([dist.var(), dist.cdf(0.01), dist.pdf(0.0)])
    return np.array(out)


def _same(a, b, tol: float = TOL, skip=()) -> None:
    x, y = _numbers(a, skip), _numbers(b, skip)
    assert x.shape == y.shape and x.size > 20
    np.testing.assert_allclose(x, y, rtol=0, atol=tol)


def _details(res) -> dict:
    return {d.data_set: np.array([v for k, v in d.to_dict().items() if k != "data_set"],
                                 dtype=float) for d in res.data_set_differences}


def _same_by_name(a, b, tol: float = TOL, rename=None) -> None:
    """Equal numbers whatever the order of the data sets: the population's, then each data set's
    (data set ``k`` of ``b`` is ``rename[k]`` of ``a``)."""
    _same(a, b, tol, skip=("data_sets_detail",))
    da, db = _details(a), _details(b)
    if rename is not None:
        db = {rename[k]: v for k, v in db.items()}
    assert da.keys() == db.keys()
    for k in da:
        np.testing.assert_allclose(da[k], db[k], rtol=0, atol=tol)


def _beta_moments(m) -> tuple[float, float]:
    """The sample balanced accuracy and the variance of its flat-prior posterior (by hand)."""
    m = np.asarray(m, dtype=float)
    n, k = m.sum(axis=1), np.diag(m)
    keep = n > 0
    n, k = n[keep], k[keep]
    a, b = k + 1, n - k + 1
    L = n.size
    return float(np.mean(k / n)), float(np.sum(a * b / ((a + b) ** 2 * (a + b + 1))) / L**2)


def _bacc(m) -> float:
    m = np.asarray(m, dtype=float)
    n = m.sum(axis=1)
    return float(np.mean(np.diag(m)[n > 0] / n[n > 0]))


# --------------------------------------------------------------------- independent test sets
def _independent_forms(df: pd.DataFrame = DF) -> dict:
    out: dict = {}
    for pred in ("a", "b", "c"):
        cms = _cms(df, pred)
        grouped = bacc.counts(df, true="label", pred=pred, by="dataset", progress=False)
        stack = np.stack([np.array(grouped[d].counts) for d in grouped])
        forms = {
            "confusion matrices": cms,
            "arrays": {d: np.array(m.counts) for d, m in cms.items()},
            "nested lists": {d: np.array(m.counts).tolist() for d, m in cms.items()},
            "evaluations": {d: _quiet(bacc.evaluate, m) for d, m in cms.items()},
            "labelled frames": {d: pd.DataFrame(np.array(m.counts), index=list(m.labels),
                                                columns=list(m.labels)) for d, m in cms.items()},
            "grouped counts": grouped,
            "stack": stack,
            "transposed arrays (rows='predicted')": {d: np.array(m.counts).T.copy()
                                                     for d, m in cms.items()},
            "transposed stack (rows='predicted')": np.swapaxes(stack, 1, 2).copy(),
        }
        for form, value in forms.items():
            out.setdefault(form, {})[pred] = value
    return out


FORMS = _independent_forms()


def _rows(form: str) -> str:
    return "predicted" if "predicted" in form else "true"


@pytest.fixture(scope="module")
def independent_ref():
    return (bacc.compare_across(FORMS["confusion matrices"]["a"], FORMS["confusion matrices"]["b"],
                                names=("a", "b")),
            bacc.rank_across(FORMS["confusion matrices"], n_draws=20_000))


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_of_independent_results_gives_the_same_numbers(form, independent_ref):
    ref_c, ref_r = independent_ref
    value = FORMS[form]
    c = _quiet(bacc.compare_across, value["a"], value["b"], rows=_rows(form), names=("a", "b"))
    r = _quiet(bacc.rank_across, value, rows=_rows(form), n_draws=20_000)
    _same(c, ref_c)
    _same(r, ref_r)
    assert c.names == ("a", "b") and r.names == ("a", "b", "c") and not c.paired
    stacked = "stack" in form
    assert c.data_sets == (tuple(range(5)) if stacked else tuple(SPEC))
    assert r.data_sets == c.data_sets
    assert c.verdict == ref_c.verdict and r.verdict == ref_r.verdict


def test_forms_mixed_between_the_classifiers_give_the_same_numbers(independent_ref):
    ref_c, _ = independent_ref
    # grouped counts and a stack hold every class of the table; each data set's own matrices
    # its own classes
    stack_b = dict(enumerate(FORMS["stack"]["b"]))  # a stack's matrices, by data set name
    stack_b = {d: stack_b[j] for j, d in enumerate(SPEC)}
    _same(_quiet(bacc.compare_across, FORMS["grouped counts"]["a"], stack_b, names=("a", "b")),
          ref_c)
    _same(bacc.compare_across(FORMS["confusion matrices"]["a"], FORMS["labelled frames"]["b"],
                              names=("a", "b")), ref_c)
    _same(bacc.compare_across(FORMS["nested lists"]["a"], FORMS["arrays"]["b"], names=("a", "b")),
          ref_c)
    # B's data sets in another order: matched by name, listed in A's order
    b_rev = dict(reversed(list(FORMS["arrays"]["b"].items())))
    c = bacc.compare_across(FORMS["arrays"]["a"], b_rev, names=("a", "b"))
    _same(c, ref_c)
    assert c.data_sets == tuple(SPEC)


def test_independent_numbers_against_a_computation_by_hand(independent_ref):
    c, r = independent_ref
    a, b = FORMS["arrays"]["a"], FORMS["arrays"]["b"]
    d, v = [], []
    for j, ds in enumerate(SPEC):
        (ma, va), (mb, vb) = _beta_moments(a[ds]), _beta_moments(b[ds])
        got = c.data_set_differences[j]
        assert got.data_set == ds and got.n_examples == int(np.sum(a[ds]))
        assert got.mean == pytest.approx(ma - mb, abs=TOL)
        assert got.sd == pytest.approx(math.sqrt(va + vb), abs=TOL)
        assert got.sample_difference == pytest.approx(_bacc(a[ds]) - _bacc(b[ds]), abs=TOL)
        d.append(ma - mb)
        v.append(va + vb)
    d, v = np.array(d), np.array(v)
    # the common-effect answer is the inverse-variance weighted mean of the differences
    assert c.fixed_effects["mean"] == pytest.approx(np.sum(d / v) / np.sum(1 / v), abs=TOL)
    assert c.fixed_effects["sd"] == pytest.approx(1 / math.sqrt(np.sum(1 / v)), abs=TOL)
    sample = np.array([[_bacc(FORMS["arrays"][p][ds]) for p in "abc"] for ds in SPEC])
    np.testing.assert_allclose(r.mean_sample_balanced_accuracy, sample.mean(axis=0), atol=TOL)
    assert abs(c.p_left + c.p_rope + c.p_right - 1) < 1e-12


#: Three classifiers on six data sets, no two with the same balanced accuracy on a data set.
UNTIED = {
    "a": {f"s{j}": [[20 + j, 5], [4, 18 + 2 * j]] for j in range(6)},
    "b": {f"s{j}": [[17 + 3 * (j % 2), 8 - j % 3], [5, 19 + j]] for j in range(6)},
    "c": {f"s{j}": [[15, 10], [7 + j, 14]] for j in range(6)},
}


def test_classical_tests_against_scipy_by_hand():
    sample = np.array([[_bacc(UNTIED[p][ds]) for p in "abc"] for ds in UNTIED["a"]])
    assert all(len(set(np.round(row, 12))) == 3 for row in sample)
    c = bacc.compare_across(UNTIED["a"], UNTIED["b"])
    w = stats.wilcoxon(sample[:, 0] - sample[:, 1])
    assert c.classical.test == "wilcoxon"
    assert (c.classical.statistic, c.classical.p_value) == pytest.approx((w.statistic, w.pvalue),
                                                                         abs=TOL)
    assert c.classical.wins == ((0, int(np.sum(sample[:, 0] > sample[:, 1]))),
                                (int(np.sum(sample[:, 1] > sample[:, 0])), 0))
    r = bacc.rank_across(UNTIED, n_draws=1000)
    f = stats.friedmanchisquare(*sample.T)
    assert r.classical.test == "friedman"
    assert (r.classical.statistic, r.classical.p_value) == pytest.approx((f.statistic, f.pvalue),
                                                                         abs=TOL)
    ranks = np.array([stats.rankdata(-row) for row in sample])
    np.testing.assert_allclose(r.classical.average_ranks, ranks.mean(axis=0), atol=TOL)
    # Nemenyi's critical difference (Demsar 2006, section 3.2.2): q_0.05 = 2.343 for 3 classifiers
    assert r.classical.critical_difference == pytest.approx(2.343 * math.sqrt(3 * 4 / (6 * 6)),
                                                            abs=1e-3)


def test_tied_balanced_accuracies_are_ties_whatever_the_class_order():
    a = {"d1": [[13, 0, 0], [2, 11, 0], [2, 0, 11]], "d2": M}
    b = {"d1": [[11, 0, 2], [0, 11, 2], [0, 0, 13]], "d2": M}  # the same accuracies, reordered
    c = bacc.compare_across(a, b)
    assert c.data_set_differences[0].sample_difference == 0.0
    assert c.classical.wins == ((0, 0), (0, 0))


def test_data_sets_of_different_classes_are_allowed():
    a = {"two": [[30, 5], [8, 20]], "three": M3, "four": np.diag([5, 6, 7, 8]) + 1}
    b = {"two": [[25, 10], [8, 20]], "three": [[4, 2, 0], [3, 5, 1], [1, 1, 6]],
         "four": np.diag([4, 6, 5, 8]) + 2}
    c = bacc.compare_across(a, b)
    assert c.data_sets == ("two", "three", "four") and not c.notes
    for got, ds in zip(c.data_set_differences, a, strict=True):
        (ma, va), (mb, vb) = _beta_moments(a[ds]), _beta_moments(b[ds])
        assert got.mean == pytest.approx(ma - mb, abs=TOL)
        assert got.sd == pytest.approx(math.sqrt(va + vb), abs=TOL)
    r = bacc.rank_across({"a": a, "b": b}, n_draws=20_000)
    assert r.expected_rank[0] == pytest.approx(3 - r.expected_rank[1], abs=TOL)


def test_classifiers_of_one_data_set_must_share_its_classes():
    with pytest.raises(bacc.BaccError, match=r"data set 'd2': classifier 'A' has no class 2, "
                                             r"which the other classifiers' test sets have"):
        bacc.compare_across({"d1": M, "d2": M}, {"d1": M2, "d2": M3})
    x = bacc.ConfusionMatrix(M, labels=("cat", "dog"))
    y = bacc.ConfusionMatrix(M2, labels=("cat", "eel"))
    with pytest.raises(bacc.BaccError, match=r"data set 'd1': classifier 'a' has no class 'eel'"
                                             r".*same classes"):
        bacc.rank_across({"a": {"d1": x, "d2": M}, "b": {"d1": y, "d2": M}})


def test_a_class_without_examples_in_a_matrix_does_not_count():
    """Grouped counts carry every class of the table; a class a data set never saw has no
    examples there and is not asked of the other classifier's matrix of that data set."""
    x = bacc.ConfusionMatrix([[5, 1, 0], [2, 6, 0], [0, 0, 0]], labels=(0, 1, 2))
    ref = bacc.compare_across({"d1": [[5, 1], [2, 6]], "d2": M}, {"d1": M2, "d2": M})
    got = bacc.compare_across({"d1": x, "d2": M}, {"d1": M2, "d2": M})
    assert got.mean == ref.mean and got.p_better == ref.p_better
    assert got.data_set_differences == ref.data_set_differences


# ------------------------------------------------------------------------ the same examples
def _paired_calls(tmp_path) -> dict:
    path = tmp_path / "predictions.csv"
    DF.to_csv(path, index=False)
    y, g = DF["label"], DF["dataset"]
    calls = {
        "pandas": lambda fn, kw: fn(DF, **kw),
        "dict of columns": lambda fn, kw: fn({k: DF[k].tolist() for k in DF}, **kw),
        "csv path": lambda fn, kw: fn(str(path), **kw),
        "labels with groups= (lists)": lambda fn, kw: fn(
            y.tolist(), {p: DF[p].tolist() for p in kw["pred"]}, groups=g.tolist()),
        "labels with groups= (arrays)": lambda fn, kw: fn(
            y.to_numpy(), {p: DF[p].to_numpy() for p in kw["pred"]}, groups=g.to_numpy()),
        "labels with groups= (series)": lambda fn, kw: fn(
            y, {p: DF[p] for p in kw["pred"]}, groups=g),
    }
    if HAS_POLARS:
        import polars as pl

        calls["polars"] = lambda fn, kw: fn(pl.from_pandas(DF), **kw)
    return calls


@pytest.fixture(scope="module")
def paired_ref():
    return (bacc.compare_across(DF, **PAIRED), bacc.rank_across(DF, **RANKED, n_draws=20_000))


def test_every_form_of_paired_predictions_gives_the_same_numbers(tmp_path, paired_ref):
    ref_c, ref_r = paired_ref
    assert ref_c.paired and ref_r.paired and ref_c.names == ("a", "b")
    for form, call in _paired_calls(tmp_path).items():
        c = call(bacc.compare_across, PAIRED)
        r = call(lambda *a, **k: bacc.rank_across(*a, **k, n_draws=20_000), RANKED)
        _same(c, ref_c), _same(r, ref_r)
        assert c.names == ("a", "b") and r.names == ("a", "b", "c"), form
        assert c.data_sets == r.data_sets == tuple(SPEC), form
        assert c.paired and r.paired, form
    # the two predictions as a pair of sequences, named by names=
    c = bacc.compare_across(DF["label"].tolist(), [DF["a"].tolist(), DF["b"].tolist()],
                            groups=DF["dataset"].tolist(), names=("a", "b"))
    _same(c, ref_c)


def test_paired_numbers_against_a_computation_by_hand(paired_ref):
    c, _ = paired_ref
    for got, (ds, g) in zip(c.data_set_differences, DF.groupby("dataset"), strict=True):
        mean = var = 0.0
        classes = SPEC[ds]
        L = len(classes)
        for k in classes:
            s = g[g["label"] == k]
            ra, rb = (s["a"] == k).to_numpy(), (s["b"] == k).to_numpy()
            a0 = len(s) + 2.0
            # Dirichlet(count + 1/2) of the four patterns of right and wrong answers
            a10, a01 = np.sum(ra & ~rb) + 0.5, np.sum(~ra & rb) + 0.5
            mean += (np.sum(ra & ~rb) - np.sum(~ra & rb)) / len(s) / L
            var += (a10 * (a0 - a10) + a01 * (a0 - a01) + 2 * a10 * a01) / (a0**2 * (a0 + 1)) / L**2
        assert got.data_set == ds and got.n_examples == len(g)
        assert got.mean == pytest.approx(mean, abs=TOL)
        assert got.sd == pytest.approx(math.sqrt(var), abs=TOL)


# ----------------------------------------------------------------------------- invariances
RELABELS = {
    "text reversing the order": {0: "zeta", 1: "mid", 2: "alpha"},
    "numbers in another order": {0: 11, 1: 2, 2: 9},
}


def _relabelled(df: pd.DataFrame, mapping: dict) -> pd.DataFrame:
    out = df.copy()
    for col in ("label", "a", "b", "c"):
        out[col] = out[col].map(mapping)
    return out


#: The classical tests see exact ties of balanced accuracy (d3) differently in another class
#: order (test_tied_balanced_accuracies_are_ties_whatever_the_class_order): left out here.
_TIES = ("classical",)


@pytest.mark.parametrize("how", sorted(RELABELS))
def test_relabelled_classes_change_no_number(how, paired_ref, independent_ref):
    mapping = RELABELS[how]
    df = _relabelled(DF, mapping)
    _same(bacc.compare_across(df, **PAIRED), paired_ref[0], skip=_TIES)
    _same(bacc.rank_across(df, **RANKED, n_draws=20_000), paired_ref[1], skip=_TIES)
    _same(bacc.compare_across(df["label"].tolist(), {"a": df["a"].tolist(), "b": df["b"].tolist()},
                              groups=df["dataset"].tolist()), paired_ref[0], skip=_TIES)
    spec = {d: tuple(mapping[c] for c in cls) for d, cls in SPEC.items()}
    cms = {p: _cms(df, p, spec) for p in "abc"}
    _same(bacc.compare_across(cms["a"], cms["b"], names=("a", "b")), independent_ref[0],
          skip=_TIES)
    _same(bacc.rank_across(cms, n_draws=20_000), independent_ref[1], skip=_TIES)


def test_labels_of_mixed_kinds_across_data_sets_change_no_number(independent_ref):
    """Text classes on some data sets, numbers on others (one kind within a data set)."""
    text = {0: "no", 1: "yes", 2: "maybe"}
    spec = {d: tuple(text[c] for c in cls) if d in ("d1", "d3") else tuple(c + 5 for c in cls)
            for d, cls in SPEC.items()}
    cms = {}
    for p in "abc":
        cms[p] = {}
        for ds, g in DF.groupby("dataset", sort=False):
            f = text.__getitem__ if ds in ("d1", "d3") else (lambda c: c + 5)
            cms[p][ds] = bacc.ConfusionMatrix.from_predictions(
                [f(v) for v in g["label"]], [f(v) for v in g[p]], labels=spec[ds])
    _same(bacc.compare_across(cms["a"], cms["b"], names=("a", "b")), independent_ref[0],
          skip=_TIES)
    _same(bacc.rank_across(cms, n_draws=20_000), independent_ref[1], skip=_TIES)


def test_row_order_changes_nothing(paired_ref):
    shuffled = DF.sample(frac=1.0, random_state=7)
    c = bacc.compare_across(shuffled, **PAIRED)
    _same(c, paired_ref[0])
    assert c.data_sets == tuple(SPEC)  # a table's data sets in natural order
    _same(bacc.rank_across(shuffled, **RANKED, n_draws=20_000), paired_ref[1])
    c = bacc.compare_across(shuffled["label"], {"a": shuffled["a"], "b": shuffled["b"]},
                            groups=shuffled["dataset"])
    _same(c, paired_ref[0])
    assert c.data_sets == tuple(SPEC)


def test_data_set_order_changes_no_number_and_the_data_sets_keep_their_order(independent_ref):
    ref_c, ref_r = independent_ref
    order = ["d4", "d2", "d5", "d1", "d3"]
    cms = {p: {d: FORMS["confusion matrices"][p][d] for d in order} for p in "abc"}
    c = bacc.compare_across(cms["a"], cms["b"])
    assert c.data_sets == tuple(order)
    assert tuple(d.data_set for d in c.data_set_differences) == tuple(order)
    _same_by_name(c, ref_c)
    r = bacc.rank_across(cms, n_draws=20_000)
    assert r.data_sets == tuple(order)
    _same(r, ref_r)
    # a stack in another order: the same numbers, data sets by position
    perm = [3, 1, 4, 0, 2]
    stacks = {p: FORMS["stack"][p][perm] for p in "abc"}
    c = bacc.compare_across(stacks["a"], stacks["b"])
    assert c.data_sets == tuple(range(5))
    _same_by_name(c, ref_c, rename=dict(zip(SPEC, np.argsort(perm).tolist(), strict=True)))


def test_renamed_data_sets_change_no_number(independent_ref, paired_ref):
    new = {"d1": "zurich", "d2": 17, "d3": "athens", "d4": "oslo", "d5": "bern"}
    cms = {p: {new[d]: m for d, m in FORMS["confusion matrices"][p].items()} for p in "abc"}
    c = bacc.compare_across(cms["a"], cms["b"])
    assert c.data_sets == tuple(new.values())
    _same(c, independent_ref[0])
    _same(bacc.rank_across(cms, n_draws=20_000), independent_ref[1])
    json.dumps(c.to_dict(), allow_nan=False)
    # in a table: other names sort otherwise, each data set keeps its numbers
    text = {d: v if isinstance(v, str) else "x17" for d, v in new.items()}
    df = DF.assign(dataset=DF["dataset"].map(text))
    c = bacc.compare_across(df, **PAIRED)
    assert c.data_sets == tuple(sorted(text.values()))
    _same_by_name(c, paired_ref[0], rename=text)
    _same(bacc.rank_across(df, **RANKED, n_draws=20_000), paired_ref[1])


def _mirrored(c, s) -> None:
    """``s`` is ``c`` with the two classifiers swapped."""
    assert s.names == c.names[::-1]
    assert s.mean == pytest.approx(-c.mean, abs=TOL)
    assert (s.lower, s.upper) == pytest.approx((-c.upper, -c.lower), abs=1e-11)
    assert s.p_better == pytest.approx(1 - c.p_better, abs=TOL)
    assert (s.p_left, s.p_rope, s.p_right) == pytest.approx((c.p_right, c.p_rope, c.p_left), abs=TOL)
    assert (s.predictive_left, s.predictive_rope, s.predictive_right) == pytest.approx(
        (c.predictive_right, c.predictive_rope, c.predictive_left), abs=TOL)
    assert (s.spread, s.spread_lower, s.spread_upper) == pytest.approx(
        (c.spread, c.spread_lower, c.spread_upper), abs=TOL)
    for x in (-0.2, -0.03, 0.0, 0.01, 0.1):
        assert s.difference.cdf(x) == pytest.approx(c.difference.sf(-x), abs=TOL)
        assert s.predictive.pdf(x) == pytest.approx(c.predictive.pdf(-x), abs=TOL)
    fs, fc = s.fixed_effects, c.fixed_effects
    assert fs["mean"] == pytest.approx(-fc["mean"], abs=TOL)
    assert fs["sd"] == pytest.approx(fc["sd"], abs=TOL)
    assert (fs["p_left"], fs["p_right"]) == pytest.approx((fc["p_right"], fc["p_left"]), abs=TOL)
    for ds, dc in zip(s.data_set_differences, c.data_set_differences, strict=True):
        assert ds.data_set == dc.data_set and ds.n_examples == dc.n_examples
        assert (ds.sample_difference, ds.mean, ds.shrunken_mean) == pytest.approx(
            (-dc.sample_difference, -dc.mean, -dc.shrunken_mean), abs=TOL)
        assert ds.sd == pytest.approx(dc.sd, abs=TOL)
        assert (ds.shrunken_lower, ds.shrunken_upper) == pytest.approx(
            (-dc.shrunken_upper, -dc.shrunken_lower), abs=1e-11)
        assert ds.p_better == pytest.approx(1 - dc.p_better, abs=TOL)
    assert s.classical.p_value == pytest.approx(c.classical.p_value, abs=TOL)
    assert s.classical.statistic == pytest.approx(c.classical.statistic, abs=TOL)
    assert s.classical.wins == tuple(tuple(r[::-1]) for r in c.classical.wins[::-1])


def test_swapping_the_two_classifiers_mirrors_the_difference(independent_ref, paired_ref):
    a, b = FORMS["confusion matrices"]["a"], FORMS["confusion matrices"]["b"]
    _mirrored(independent_ref[0], bacc.compare_across(b, a, names=("b", "a")))
    _mirrored(paired_ref[0], bacc.compare_across(DF, true="label", pred=["b", "a"],
                                                 across="dataset"))
    _mirrored(paired_ref[0], bacc.compare_across(DF["label"], {"b": DF["b"], "a": DF["a"]},
                                                 groups=DF["dataset"]))


@pytest.mark.parametrize("paired", [False, True])
def test_permuting_the_classifiers_permutes_the_ranking(paired, independent_ref, paired_ref):
    ref = paired_ref[1] if paired else independent_ref[1]
    perm = [2, 0, 1]
    names = [ref.names[i] for i in perm]
    if paired:
        r = bacc.rank_across(DF, true="label", pred=names, across="dataset", n_draws=20_000)
    else:
        r = bacc.rank_across({p: FORMS["confusion matrices"][p] for p in names}, n_draws=20_000)
    assert r.names == tuple(names)
    ix = np.ix_(perm, perm)
    for attr in ("expected_rank", "effect", "effect_lower", "effect_upper",
                 "mean_sample_balanced_accuracy"):
        np.testing.assert_allclose(getattr(r, attr), getattr(ref, attr)[perm], atol=1e-11)
    np.testing.assert_allclose(r.p_greater, ref.p_greater[ix], atol=TOL)
    np.testing.assert_allclose(r.p_equivalent, ref.p_equivalent[ix], atol=TOL)
    np.testing.assert_allclose(r.classical.average_ranks, np.array(ref.classical.average_ranks)[perm],
                               atol=TOL)
    np.testing.assert_allclose(r.classical.holm, np.array(ref.classical.holm)[ix], atol=TOL)
    assert np.array_equal(r.classical.wins, np.array(ref.classical.wins)[ix])
    assert r.classical.p_value == pytest.approx(ref.classical.p_value, abs=TOL)
    assert r.spread == pytest.approx(ref.spread, abs=TOL)
    # P(best) and the rank probabilities come from draws: within their Monte Carlo error
    mc = 6 * max(r.mc_error, ref.mc_error) + 1e-3
    np.testing.assert_allclose(r.p_best, ref.p_best[perm], atol=mc)
    np.testing.assert_allclose(r.rank_probabilities, ref.rank_probabilities[perm], atol=mc)
    assert {frozenset(g) for g in r.groups} == {frozenset(g) for g in ref.groups}


def _snapshot(x):
    if isinstance(x, np.ndarray):
        y = x.copy()
        y.setflags(write=x.flags.writeable)
        return y
    if isinstance(x, pd.DataFrame | pd.Series):
        return x.copy(deep=True)
    if type(x).__module__.startswith("polars"):
        return x.clone()
    if isinstance(x, dict):
        return {k: _snapshot(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return type(x)(_snapshot(v) for v in x)
    return copy.deepcopy(x)


def _unchanged(a, b) -> bool:
    if isinstance(a, pd.DataFrame | pd.Series):
        return a.equals(b) and list(a.index) == list(b.index) and list(a.dtypes if
                                                                       a.ndim == 2 else [a.dtype]) \
            == list(b.dtypes if b.ndim == 2 else [b.dtype])
    if type(a).__module__.startswith("polars"):
        return a.equals(b) and a.schema == b.schema
    if isinstance(a, np.ndarray):
        return (a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
                and a.flags.writeable == b.flags.writeable)
    if isinstance(a, bacc.ConfusionMatrix):
        return a.labels == b.labels and np.array_equal(a.counts, b.counts)
    if isinstance(a, dict):
        return list(a) == list(b) and all(_unchanged(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_unchanged(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_the_callers_inputs_are_untouched():
    locked = FORMS["stack"]["a"].copy()
    locked.setflags(write=False)
    inputs = [
        ("compare_across", (FORMS["arrays"]["a"], FORMS["arrays"]["b"]), {}),
        ("compare_across", (locked, FORMS["stack"]["b"].astype(np.int32)), {}),
        ("compare_across", (FORMS["confusion matrices"]["a"], FORMS["nested lists"]["b"]), {}),
        ("compare_across", (FORMS["transposed arrays (rows='predicted')"]["a"],
                            FORMS["transposed arrays (rows='predicted')"]["b"]),
         {"rows": "predicted"}),
        ("rank_across", ({p: FORMS["labelled frames"][p] for p in "abc"},), {"n_draws": 1000}),
        ("compare_across", (DF.copy(),), {**PAIRED, "prior": {"tau": "half-cauchy"}}),
        ("rank_across", (DF.astype({"dataset": "category"}),), {**RANKED, "n_draws": 1000}),
        ("compare_across", (DF["label"].to_numpy(), {"a": DF["a"].to_numpy(),
                                                     "b": DF["b"].tolist()}),
         {"groups": DF["dataset"]}),
        ("rank_across", (DF["label"].tolist(), {"a": DF["a"], "b": DF["b"].to_numpy()}),
         {"groups": DF["dataset"].to_numpy(), "n_draws": 1000}),
    ]
    if HAS_POLARS:
        import polars as pl

        inputs.append(("compare_across", (pl.from_pandas(DF),), PAIRED))
    for name, args, kwargs in inputs:
        before = ([_snapshot(a) for a in args], {k: _snapshot(v) for k, v in kwargs.items()})
        _quiet(getattr(bacc, name), *args, **kwargs)
        for a, s in zip(args, before[0], strict=True):
            assert _unchanged(a, s), f"{name} modified a positional argument"
        for k, v in kwargs.items():
            assert _unchanged(v, before[1][k]), f"{name} modified {k}="
    assert not locked.flags.writeable


def _results(independent_ref, paired_ref) -> list:
    return [*independent_ref, *paired_ref,
            bacc.compare_across({"x": M, 3: M2, "z": M3}, {"x": M2, 3: M, "z": M3},
                                prior={"tau": "half-cauchy", "tau_scale": 0.2, "effect_sd": 0.5})]


def test_results_travel_through_pickle_deepcopy_and_strict_json(independent_ref, paired_ref):
    for res in _results(independent_ref, paired_ref):
        text = json.dumps(res.to_dict(), allow_nan=False)
        assert json.loads(text) == json.loads(json.dumps(res.to_dict()))
        for twin in (pickle.loads(pickle.dumps(res)), copy.deepcopy(res)):
            assert type(twin) is type(res)
            assert json.dumps(twin.to_dict(), allow_nan=False) == text
            assert repr(twin) == repr(res) and str(twin) == str(res)
            assert isinstance(twin.prior, types.MappingProxyType)
            with pytest.raises(TypeError):
                twin.prior["tau"] = "half-normal"
            np.testing.assert_array_equal(_numbers(twin), _numbers(res))
            if isinstance(res, bacc.AcrossComparison):
                assert isinstance(twin.fixed_effects, types.MappingProxyType)
                assert twin.difference.cdf(0.02) == res.difference.cdf(0.02)
                assert twin.predictive.ppf(0.9) == res.predictive.ppf(0.9)


def test_results_are_frozen(independent_ref):
    c, r = independent_ref
    with pytest.raises(AttributeError):
        c.mean = 0.0
    with pytest.raises(ValueError):
        r.expected_rank[0] = 0.0  # read-only arrays


# ------------------------------------------------------------------------------- bad input
A2 = {"d1": M, "d2": M2}
B2 = {"d1": M2, "d2": M}
Y = [0, 1, 0, 1, 1, 0] * 4
PA = [0, 1, 1, 1, 1, 0] * 4
PB = [0, 0, 0, 1, 1, 1] * 4
G = ["u"] * 12 + ["v"] * 12


def _nan_table(col: str) -> pd.DataFrame:
    df = DF.astype({col: object})
    df.loc[4, col] = None if col == "dataset" else np.nan
    return df


BAD = {
    "one data set": (lambda: bacc.compare_across({"d1": M}, {"d1": M2}),
                     r"at least 2 data sets, got 1"),
    "one data set (ranking)": (lambda: bacc.rank_across({"a": {"d1": M}, "b": {"d1": M2}}),
                               r"at least 2 data sets, got 1"),
    "one data set (table)": (lambda: bacc.compare_across(DF[DF.dataset == "d2"], **PAIRED),
                             r"at least 2 data sets, got 1"),
    "one data set (groups)": (lambda: bacc.compare_across(Y, {"a": PA, "b": PB}, groups=["u"] * 24),
                              r"at least 2 data sets, got 1"),
    "a data set missing for B": (lambda: bacc.compare_across({**A2, "d3": M}, B2),
                                 r"data set 'd3' has results for classifier 'A' but not for 'B'"),
    "a data set missing for A": (lambda: bacc.compare_across(A2, {**B2, "d3": M}),
                                 r"data set 'd3' has results for classifier 'B' but not for 'A'"),
    "a data set missing (ranking)": (
        lambda: bacc.rank_across({"a": A2, "b": B2, "c": {"d1": M}}),
        r"data set 'd2' has results for classifier 'a' but not for 'c'"),
    "stacks of different lengths": (
        lambda: bacc.compare_across(np.array([M, M2, M]), np.array([M, M2])),
        r"data set 2 has results for classifier 'A' but not for 'B'"),
    "different class sets": (lambda: bacc.compare_across(A2, {"d1": M3, "d2": M}),
                             r"data set 'd1': classifier 'A' has no class 2"),
    "empty mapping": (lambda: bacc.compare_across({}, {}), r"classifier 'A': no data sets"),
    "empty mapping for B": (lambda: bacc.compare_across(A2, {}), r"classifier 'B': no data sets"),
    "empty classifier (ranking)": (lambda: bacc.rank_across({"a": A2, "b": {}}),
                                   r"classifier 'b': no data sets"),
    "one matrix for a classifier": (
        lambda: bacc.compare_across(bacc.ConfusionMatrix(M), bacc.ConfusionMatrix(M2)),
        r"one confusion matrix is one data set"),
    "a 2-d array for a classifier": (lambda: bacc.compare_across(np.array(M), np.array(M2)),
                                     r"one confusion matrix per data set.*shape \(2, 2\)"),
    "only one classifier": (lambda: bacc.compare_across(A2), r"needs two classifiers"),
    "only one classifier (ranking)": (lambda: bacc.rank_across({"a": A2}),
                                      r"at least 2 classifiers, got 1"),
    "a bad matrix": (lambda: bacc.compare_across({"d1": M, "d2": [[1, -2], [3, 4]]}, B2),
                     r"classifier 'A', data set 'd2'"),
    "rows misspelt": (lambda: bacc.compare_across(A2, B2, rows="columns"), r"rows"),
    "non-mapping to rank_across": (lambda: bacc.rank_across([A2, B2]),
                                   r"rank_across needs a mapping \{classifier: per-data-set"),
    "a stack to rank_across": (lambda: bacc.rank_across(np.array([M, M2])),
                               r"rank_across needs a mapping"),
    "predictions not a mapping (ranking)": (lambda: bacc.rank_across(Y, [PA, PB], groups=G),
                                            r"predictions as a mapping"),
    "groups without predictions (ranking)": (
        lambda: bacc.rank_across({"a": A2, "b": B2}, groups=G), r"needs y_true, predictions"),
    "three predictions to compare": (
        lambda: bacc.compare_across(Y, {"a": PA, "b": PB, "c": PA}, groups=G),
        r"a comparison is of two classifiers, got 3"),
    "predictions not a mapping or a pair": (lambda: bacc.compare_across(Y, PA, groups=G),
                                            r"a mapping \{name: predictions\} or a pair"),
    "pred with one column": (
        lambda: bacc.compare_across(DF, true="label", pred=["a"], across="dataset"),
        r"pred: a comparison across data sets needs 2 or more prediction columns, got \['a'\]"),
    "pred one string": (
        lambda: bacc.compare_across(DF, true="label", pred="a", across="dataset"),
        r"pred: .*2 or more prediction columns"),
    "pred with one column (ranking)": (
        lambda: bacc.rank_across(DF, true="label", pred=["a"], across="dataset"),
        r"pred: a ranking across data sets needs 2 or more prediction columns"),
    "pred with three columns to compare": (
        lambda: bacc.compare_across(DF, **RANKED), r"a comparison is of two columns, got 3"),
    "a column named twice": (
        lambda: bacc.rank_across(DF, true="label", pred=["a", "a"], across="dataset"),
        r"a column is named twice"),
    "an unknown column": (
        lambda: bacc.compare_across(DF, true="label", pred=["a", "zz"], across="dataset"),
        r"zz"),
    "across missing": (lambda: bacc.compare_across(DF, true="label", pred=["a", "b"]),
                       r"needs true=COLUMN, pred=\[COLUMNS\] and across=COLUMN"),
    "across missing (ranking)": (lambda: bacc.rank_across(DF, true="label", pred=["a", "b"]),
                                 r"needs true=COLUMN, pred=\[COLUMNS\] and across=COLUMN"),
    "true missing": (lambda: bacc.compare_across(DF, pred=["a", "b"], across="dataset"),
                     r"needs true=COLUMN"),
    "across also a label column": (
        lambda: bacc.compare_across(DF, true="label", pred=["a", "b"], across="a"),
        r"grouping column 'a' is also named as a label column"),
    "across not one name": (
        lambda: bacc.compare_across(DF, true="label", pred=["a", "b"], across=["dataset"]),
        r"across must be one column name"),
    "a table and a second argument": (lambda: bacc.compare_across(DF, DF, **PAIRED),
                                      r"a table of predictions is one argument"),
    "a table and groups=": (lambda: bacc.rank_across(DF, groups=G, **RANKED),
                            r"a table of predictions is one argument"),
    "labels= without a table": (lambda: bacc.compare_across(A2, B2, labels=[0, 1]),
                                r"labels= is for a table"),
    "groups too short": (lambda: bacc.compare_across(Y, {"a": PA, "b": PB}, groups=G[:-1]),
                         r"groups has 23 entries but y_true has 24"),
    "groups too long (ranking)": (
        lambda: bacc.rank_across(Y, {"a": PA, "b": PB}, groups=[*G, "u"]),
        r"groups has 25 entries but y_true has 24"),
    "predictions of other lengths": (
        lambda: bacc.compare_across(Y, {"a": PA[:-1], "b": PB}, groups=G), r"length|entries"),
    "a missing group": (lambda: bacc.compare_across(Y, {"a": PA, "b": PB}, groups=[None, *G[1:]]),
                        r"groups"),
    "NaN label in a table": (lambda: bacc.compare_across(_nan_table("label"), **PAIRED),
                             r"missing label.*'label' \(true=\).*nulls='drop'"),
    "NaN prediction in a table (ranking)": (
        lambda: bacc.rank_across(_nan_table("b"), **RANKED), r"missing.*nulls='drop'"),
    "missing data set in a table": (lambda: bacc.compare_across(_nan_table("dataset"), **PAIRED),
                                    r"missing.*nulls='drop'"),
    "NaN label in label sequences": (
        lambda: bacc.compare_across([np.nan, *Y[1:]], {"a": PA, "b": PB}, groups=G), r"missing"),
    "labels of mixed kinds in a table": (
        lambda: bacc.compare_across(DF.astype({"label": object}).assign(
            label=lambda f: [str(v) if i % 2 else v for i, v in enumerate(f["label"])]), **PAIRED),
        r"mixed types"),
    "labels of mixed kinds with groups=": (
        lambda: bacc.compare_across([0, "1"] * 12, {"a": PA, "b": PB}, groups=G), r"mix"),
    "duplicate classifier names (ranking)": (
        lambda: bacc.rank_across({1: A2, "1": B2}), r"classifier names must be distinct"),
    "duplicate classifier names (ranking labels)": (
        lambda: bacc.rank_across(Y, {1: PA, "1": PB}, groups=G),
        r"classifier names must be distinct"),
    "duplicate names=": (lambda: bacc.compare_across(A2, B2, names=("x", "x")),
                         r"names must be distinct"),
    "duplicate names= (table)": (lambda: bacc.compare_across(DF, **PAIRED, names=["x", "x"]),
                                 r"names must be distinct"),
    "names of one string": (lambda: bacc.compare_across(A2, B2, names="ab"),
                            r"names must be a sequence"),
    "three names=": (lambda: bacc.compare_across(A2, B2, names=("x", "y", "z")),
                     r"names must have 2 entries, got 3"),
}
for _v in (-0.01, 1.0, 1.5, float("nan"), float("inf"), "0.01", True, None, [0.01]):
    BAD[f"rope={_v!r}"] = (lambda v=_v: bacc.compare_across(A2, B2, rope=v),
                           r"rope must be a number in \[0, 1\)")
    BAD[f"rope={_v!r} (ranking)"] = (lambda v=_v: bacc.rank_across({"a": A2, "b": B2}, rope=v),
                                     r"rope must be a number in \[0, 1\)")
    BAD[f"rope={_v!r} (table)"] = (lambda v=_v: bacc.compare_across(DF, **PAIRED, rope=v),
                                   r"rope must be a number in \[0, 1\)")
for _v in (0, 0.0, 1, 1.0, 1.5, -0.2, float("nan"), "0.9"):
    BAD[f"confidence={_v!r}"] = (lambda v=_v: bacc.compare_across(A2, B2, confidence=v),
                                 r"confidence")
    BAD[f"confidence={_v!r} (ranking)"] = (
        lambda v=_v: bacc.rank_across(DF, **RANKED, confidence=v), r"confidence")
_PRIORS = {
    "{'tau_sd': 0.1}": ({"tau_sd": 0.1}, r"prior: unknown settings \['tau_sd'\]"),
    "{'tau': 'gamma'}": ({"tau": "gamma"}, r"prior\['tau'\] must be one of \['half-normal', "
                                           r"'half-cauchy'\], got 'gamma'"),
    "{'tau_scale': 0}": ({"tau_scale": 0}, r"prior\['tau_scale'\] must be in \(0, 1\]"),
    "{'tau_scale': -0.1}": ({"tau_scale": -0.1}, r"prior\['tau_scale'\] must be in \(0, 1\]"),
    "{'tau_scale': 2}": ({"tau_scale": 2}, r"prior\['tau_scale'\] must be in \(0, 1\]"),
    "{'tau_scale': nan}": ({"tau_scale": float("nan")}, r"prior\['tau_scale'\] must be in"),
    "{'tau_scale': '0.1'}": ({"tau_scale": "0.1"}, r"prior\['tau_scale'\] must be a number"),
    "{'tau_scale': True}": ({"tau_scale": True}, r"prior\['tau_scale'\] must be a number"),
    "{'effect_sd': 0}": ({"effect_sd": 0}, r"prior\['effect_sd'\] must be in \(0, 10\]"),
    "{'effect_sd': inf}": ({"effect_sd": float("inf")}, r"prior\['effect_sd'\] must be in"),
    "'half-normal'": ("half-normal", r"prior must be a mapping"),
    "[0.1]": ([0.1], r"prior must be a mapping"),
}
for _k, (_v, _msg) in _PRIORS.items():
    BAD[f"prior={_k}"] = (lambda v=_v: bacc.compare_across(A2, B2, prior=v), _msg)
    BAD[f"prior={_k} (ranking)"] = (lambda v=_v: bacc.rank_across(Y, {"a": PA, "b": PB}, groups=G,
                                                                  prior=v), _msg)
for _v in (999, 2_000_001, 10**30, 0, -5, 1500.0, True, "5000", [5000]):
    BAD[f"n_draws={_v!r}"] = (lambda v=_v: bacc.rank_across({"a": A2, "b": B2}, n_draws=v),
                              r"n_draws must be an integer in \[1000, 2000000\]")
    BAD[f"n_draws={_v!r} (table)"] = (lambda v=_v: bacc.rank_across(DF, **RANKED, n_draws=v),
                                      r"n_draws must be an integer in \[1000, 2000000\]")


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_refused_with_a_bacc_error_naming_the_problem(case):
    call, message = BAD[case]
    assert issubclass(bacc.BaccError, ValueError)
    with pytest.raises(bacc.BaccError, match=message):
        _quiet(call)


def test_missing_values_dropped_on_request_are_left_out(paired_ref):
    df = _nan_table("label")
    c = _quiet(bacc.compare_across, df, **PAIRED, nulls="drop")
    _same(c, bacc.compare_across(DF.drop(index=4), **PAIRED))
    with pytest.raises(AssertionError):
        _same(c, paired_ref[0])


def test_labels_of_a_table_name_its_classes(paired_ref):
    c = bacc.compare_across(DF, **PAIRED, labels=[0, 1, 2])
    _same(c, paired_ref[0])
    with pytest.raises(bacc.BaccError, match=r"not in labels"):
        bacc.compare_across(DF, **PAIRED, labels=[0, 1])


# ------------------------------------------------------------------------- refused cleanly
def test_duplicate_classifier_names_from_label_sequences_are_refused():
    with pytest.raises(bacc.BaccError, match=r"distinct"):
        bacc.compare_across(Y, {1: PA, "1": PB}, groups=G)


def test_an_empty_mapping_of_classifiers_is_refused():
    with pytest.raises(bacc.BaccError):
        bacc.rank_across({})


def test_names_that_are_no_text_are_written_as_text_as_compare_does():
    assert bacc.compare_across(A2, B2, names=[[1], [2]]).names == ("[1]", "[2]")
    assert bacc.compare([[5, 1], [1, 5]], [[4, 2], [2, 4]], names=[[1], [2]]).names == ("[1]", "[2]")


_MIX = [0.25, 0.75], [0.0, 0.1], [0.05, 0.02]


@pytest.mark.parametrize("bad", ["", {}, object(), ["x", 1.0]])
def test_a_normal_mixture_refuses_values_that_are_no_numbers(bad):
    with pytest.raises(bacc.BaccError):
        bacc.NormalMixture(bad, *_MIX[1:])


@pytest.mark.parametrize("method", ["cdf", "sf", "pdf", "logpdf"])
@pytest.mark.parametrize("bad", ["", {}])
def test_a_normal_mixture_refuses_points_that_are_no_numbers(method, bad):
    with pytest.raises(bacc.BaccError):
        getattr(bacc.NormalMixture(*_MIX), method)(bad)
