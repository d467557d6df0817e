"""bacc.auc_coverage: the coverage simulator of the AUC intervals."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import bacc
from bacc.score_coverage import true_auc


def test_true_auc_of_the_rating_design_against_monte_carlo():
    rng = np.random.default_rng(0)
    mu = math.sqrt(2) * stats.norm.ppf(0.8)
    cut = [-0.5, 0.5, 1.5, 2.5]
    n = 400_000
    a = np.searchsorted(cut, rng.normal(mu, 1, n))
    b = np.searchsorted(cut, rng.normal(0, 1, n))
    mc = np.mean(a > b) + 0.5 * np.mean(a == b)
    assert true_auc(0.8, "rating") == pytest.approx(mc, abs=4 * 0.5 / math.sqrt(n))
    assert true_auc(0.8, "binormal") == 0.8


def test_coverage_result_and_the_guaranteed_method():
    res = bacc.auc_coverage(["delong", "band"], 12, 40, 0.85, n_simulations=300, random_state=2)
    assert res.metric == "auc" and res.class_sizes == (40, 12) and res.n_sim == 300
    assert res["band"].exact and not res["delong"].exact
    assert res["band"].coverage >= 0.95 - 3 * res["band"].mc_se
    assert res["band"].mean_width > res["delong"].mean_width
    json.dumps(res.to_dict(), allow_nan=False)
    text = str(res)
    assert "intervals for the AUC" in text and "12 positive and 40 negative" in text
    again = bacc.auc_coverage(["delong", "band"], 12, 40, 0.85, n_simulations=300, random_state=2)
    assert again["delong"].coverage == res["delong"].coverage


@pytest.mark.parametrize("kw, match", [({"methods": []}, "methods"), ({"methods": ["x"]}, "method"),
                                       ({"auc": 1.0}, "auc"), ({"n_positive": 0}, "n_positive"),
                                       ({"distribution": "gamma"}, "distribution")])
def test_bad_designs_are_refused(kw, match):
    args = {"methods": ["delong"], "n_positive": 5, "n_negative": 5, "auc": 0.8, **kw}
    with pytest.raises(bacc.BaccError, match=match):
        bacc.auc_coverage(args.pop("methods"), args.pop("n_positive"), args.pop("n_negative"),
                          args.pop("auc"), n_simulations=10, **args)
