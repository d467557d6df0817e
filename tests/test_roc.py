"""The ROC curve with its band, the AUC intervals, and DeLong's test of two correlated AUCs,
against independent computations written here from the definitions."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bacc
from bacc.roc import AUC_METHODS

sk_metrics = pytest.importorskip("sklearn.metrics")


def _psi(x, y):
    return (x > y) + 0.5 * (x == y)


def _delong_by_definition(y, scores):
    """DeLong et al. (1988) from the placement values, O(m n) (independent of the midrank
    algorithm)."""
    pos, neg = scores[:, y], scores[:, ~y]
    m, n = pos.shape[1], neg.shape[1]
    k = scores.shape[0]
    v10 = np.empty((k, m))
    v01 = np.empty((k, n))
    aucs = np.empty(k)
    for r in range(k):
        psi = _psi(pos[r][:, None], neg[r][None, :])
        aucs[r] = psi.mean()
        v10[r] = psi.mean(axis=1)
        v01[r] = psi.mean(axis=0)
    s10 = np.cov(v10) if k > 1 else np.var(v10, ddof=1)
    s01 = np.cov(v01) if k > 1 else np.var(v01, ddof=1)
    return aucs, np.atleast_2d(s10 / m + s01 / n)


def _data(seed, n=150, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    y[:2] = [True, False]
    a = rng.normal(1.0 * y, 1.0)
    b = 0.6 * a + rng.normal(0.5 * y, 0.8)
    if ties:
        a, b = np.round(a, 1), np.round(b, 1)
    return y, a, b


@pytest.mark.parametrize("seed", range(5))
def test_delong_interval_uses_the_variance_of_the_definition(seed):
    y, a, _ = _data(seed)
    aucs, cov = _delong_by_definition(y, a[None, :])
    iv = bacc.scores(y.astype(int), a).auc("delong", confidence=0.9)
    assert iv.auc == pytest.approx(aucs[0], abs=1e-12)
    assert iv.se == pytest.approx(math.sqrt(cov[0, 0]), rel=1e-10)
    z = stats.norm.isf(0.05)
    assert iv.lower == pytest.approx(aucs[0] - z * iv.se, abs=1e-10)
    lg = bacc.scores(y.astype(int), a).auc("delong-logit", confidence=0.9)
    L = math.log(aucs[0] / (1 - aucs[0]))
    se_l = iv.se / (aucs[0] * (1 - aucs[0]))
    assert lg.upper == pytest.approx(1 / (1 + math.exp(-(L + z * se_l))), abs=1e-10)
    assert iv.kind == lg.kind == "approximate" and not iv.guaranteed


@pytest.mark.parametrize("seed", range(5))
def test_compare_auc_equals_the_definition(seed):
    y, a, b = _data(seed)
    aucs, cov = _delong_by_definition(y, np.vstack([a, b]))
    cmp = bacc.compare_auc(y.astype(int), a, b)
    assert cmp.auc_a == pytest.approx(aucs[0], abs=1e-12)
    assert cmp.auc_b == pytest.approx(aucs[1], abs=1e-12)
    var = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    assert cmp.se == pytest.approx(math.sqrt(var), rel=1e-10)
    z = (aucs[0] - aucs[1]) / math.sqrt(var)
    assert cmp.z == pytest.approx(z, rel=1e-10)
    assert cmp.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)
    assert cmp.correlation == pytest.approx(cov[0, 1] / math.sqrt(cov[0, 0] * cov[1, 1]),
                                            rel=1e-9)
    assert cmp.auc_a == pytest.approx(sk_metrics.roc_auc_score(y, a), abs=1e-12)


def test_compare_auc_forms_and_errors():
    y, a, b = _data(9)
    ref = bacc.compare_auc(y.astype(int), a, b)
    df = pd.DataFrame({"t": y.astype(int), "a": a, "b": b})
    got = bacc.compare_auc(df, true="t", score=["a", "b"])
    assert got.names == ("a", "b") and got.z == pytest.approx(ref.z, abs=1e-12)
    same = bacc.compare_auc(y.astype(int), a, a)
    assert same.difference == 0 and same.p_value == 1.0
    with pytest.raises(bacc.BaccError, match="two columns"):
        bacc.compare_auc(df, true="t", score=["a"])
    with pytest.raises(bacc.BaccError, match="one class"):
        bacc.compare_auc([1, 1, 1], [0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
    with pytest.raises(bacc.BaccError, match="NaN"):
        bacc.compare_auc([0, 1, 1], [0.1, np.nan, 0.3], [0.3, 0.2, 0.1])
    with pytest.raises(bacc.BaccError, match="one score per example"):
        bacc.compare_auc([0, 1, 1], [0.1, 0.2], [0.3, 0.2, 0.1])
    d = json.loads(json.dumps(ref.to_dict(), allow_nan=False))
    assert d["method"] == "delong" and d["kind"] == "approximate"
    assert pickle.loads(pickle.dumps(ref)) == ref


def test_roc_curve_equals_scikit_learn_and_band_holds_it():
    y, a, _ = _data(3, n=400)
    roc = bacc.scores(y.astype(int), a).roc()
    fpr, tpr, _ = sk_metrics.roc_curve(y, a, drop_intermediate=False)
    np.testing.assert_allclose(roc.fpr, fpr, atol=1e-15)
    np.testing.assert_allclose(roc.tpr, tpr, atol=1e-15)
    assert roc.auc == pytest.approx(sk_metrics.roc_auc_score(y, a), abs=1e-12)
    # the band holds the sample curve and is monotone
    assert np.all(np.diff(roc.band_fpr) >= 0)
    assert np.all(np.diff(roc.band_lower) >= -1e-15) and np.all(np.diff(roc.band_upper) >= -1e-15)
    assert np.all(roc.band_lower <= roc.band_upper)
    assert roc.band_lower.min() >= 0 and roc.band_upper.max() <= 1
    json.dumps(roc.to_dict(), allow_nan=False)


def test_band_auc_interval_is_the_area_between_the_band_edges():
    y, a, _ = _data(4, n=300, ties=False)
    sc = bacc.scores(y.astype(int), a)
    roc = sc.roc()
    iv = sc.auc("band")
    assert iv.kind == "guaranteed" and iv.guaranteed
    assert iv.lower <= iv.auc <= iv.upper
    # the areas under the band's edges (straight segments between the grid's points)
    area = lambda x, y: float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))  # noqa: E731
    assert iv.lower == pytest.approx(area(roc.band_fpr, roc.band_lower), abs=1e-12)
    assert iv.upper == pytest.approx(area(roc.band_fpr, roc.band_upper), abs=1e-12)


def test_bayesian_bootstrap_interval_is_seeded_and_centred():
    y, a, _ = _data(5, n=200)
    sc = bacc.scores(y.astype(int), a)
    one = sc.auc("bayesian-bootstrap", draws=4000, random_state=1)
    two = sc.auc("bayesian-bootstrap", draws=4000, random_state=1)
    assert one == two and one.kind == "posterior"
    # the Bayesian bootstrap's posterior mean of the AUC is the sample AUC (Dirichlet(1) weights
    # have equal means), and its sd is close to DeLong's standard error
    mid = 0.5 * (one.lower + one.upper)
    assert mid == pytest.approx(one.auc, abs=3 * one.se / math.sqrt(4000) + 0.01)
    assert one.se == pytest.approx(sc.auc("delong").se, rel=0.15)


def test_methods_are_labelled():
    kinds = {m.name: m.kind for m in AUC_METHODS.values()}
    assert kinds == {"delong": "approximate", "delong-logit": "approximate",
                     "bayesian-bootstrap": "posterior", "band": "guaranteed"}
    sc = bacc.scores([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8])
    with pytest.raises(bacc.BaccError, match="method"):
        sc.auc("bootstrap")
    with pytest.raises(bacc.BaccError, match="confidence"):
        sc.auc(confidence=0)


def test_separated_classes():
    sc = bacc.scores([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    iv = sc.auc("delong")
    assert iv.auc == 1.0 and iv.lower == iv.upper == 1.0  # DeLong's known collapse
    band = sc.auc("band")
    assert band.upper == 1.0 and band.lower < 0.5  # two examples of each: little is known
