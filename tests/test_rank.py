"""Claims of ``bacc.rank`` (Carrillo et al. (2014), section 4.5, ranking competing classifiers)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bacc
from bacc.comparison import compare
from bacc.ranking import Ranking, rank

C1 = [[40, 3, 2], [4, 30, 6], [3, 5, 22]]
C2 = [[30, 10, 5], [10, 25, 5], [8, 8, 14]]
C3 = [[44, 1, 0], [1, 37, 2], [1, 2, 27]]
C4 = [[41, 2, 2], [5, 30, 5], [2, 5, 23]]


def test_seed_scheme_counts_wins_by_the_sign_of_the_posterior_mean_difference():
    r = rank([C1, C2, C3])
    means = np.array([bacc.evaluate(c).balanced_accuracy.mean() for c in (C1, C2, C3)])
    assert np.allclose(r.mean_balanced_accuracy, means, atol=1e-15)
    # posterior mean of delta = difference of posterior means (linearity)
    assert np.allclose(r.mean_difference, means[:, None] - means[None, :], atol=1e-15)
    assert r.wins.tolist() == [1, 0, 2]
    assert r.rank.tolist() == [2, 3, 1]  # the paper's example order: C3, C1, C2
    assert r.order.tolist() == [2, 0, 1]


def test_pairwise_probabilities_are_exact_and_complementary():
    r = rank([C1, C2, C3, C4])
    p = r.p_greater
    assert np.all(np.isnan(np.diag(p)))
    off = ~np.eye(4, dtype=bool)
    assert np.allclose((p + p.T)[off], 1.0, atol=1e-9)
    assert p[0, 3] == pytest.approx(compare(C1, C4).p_better, abs=1e-15)
    assert p[3, 0] == pytest.approx(1 - compare(C1, C4).p_better, abs=1e-9)


def test_p_best_and_expected_rank_agree_with_exact_pairwise_probabilities():
    """For two classifiers P(best) = P(A > B); for any number, by linearity of expectation,
    E[rank_i] = 1 + sum_j P(lambda_j > lambda_i). The draws match both within 4 standard
    errors."""
    r2 = rank([C1, C4], n_draws=200_000)
    assert abs(r2.p_best[0] - r2.p_greater[0, 1]) < 4 * r2.p_best_se[0]
    r = rank([C1, C2, C3, C4], n_draws=200_000)
    exact = 1 + np.nansum(r.p_greater, axis=0)
    assert np.all(np.abs(r.expected_rank - exact) < 4 * np.maximum(r.expected_rank_se, 1e-12) + 1e-12)
    assert r.p_best.sum() == pytest.approx(1.0, abs=1e-12)
    assert r.expected_rank.sum() == pytest.approx(4 * 5 / 2, abs=1e-9)


def test_reported_monte_carlo_errors_match_the_spread_over_seeds():
    runs = [rank([C1, C4, C3], random_state=s, n_draws=4000) for s in range(30)]
    p = np.array([x.p_best for x in runs])
    se = np.array([x.p_best_se for x in runs]).mean(axis=0)
    er = np.array([x.expected_rank for x in runs])
    er_se = np.array([x.expected_rank_se for x in runs]).mean(axis=0)
    for k in range(3):
        if se[k] > 0:
            assert 0.6 < p[:, k].std(ddof=1) / se[k] < 1.5
        assert 0.6 < er[:, k].std(ddof=1) / er_se[k] < 1.5


def test_draws_are_seeded_and_everything_else_is_deterministic():
    a = rank([C1, C2, C4], random_state=3, n_draws=5000)
    b = rank([C1, C2, C4], random_state=3, n_draws=5000)
    c = rank([C1, C2, C4], random_state=4, n_draws=5000)
    assert np.array_equal(a.p_best, b.p_best) and np.array_equal(a.expected_rank, b.expected_rank)
    assert not np.array_equal(a.p_best, c.p_best)
    assert np.array_equal(a.p_greater, c.p_greater, equal_nan=True)
    assert np.array_equal(a.rank, c.rank)


def test_identical_classifiers_tie():
    r = rank([C1, C1, C1], n_draws=3000)
    assert r.wins.tolist() == [0, 0, 0] and r.rank.tolist() == [1, 1, 1]
    off = ~np.eye(3, dtype=bool)
    assert np.allclose(r.p_greater[off], 0.5, atol=1e-9)


def test_mapping_names_evaluations_and_output():
    r = rank({"tree": bacc.evaluate(C1), "<svm>": C2, "knn": bacc.ConfusionMatrix(C3)}, n_draws=2000)
    assert isinstance(r, Ranking)
    assert r.names == ("tree", "<svm>", "knn")
    text = str(r)
    assert "P(row > column)" in text and "knn" in text and "seed 0" in text
    page = r._repr_html_()
    assert "&lt;svm&gt;" in page and "<svm>" not in page
    d = json.loads(json.dumps(r.to_dict()))
    assert d["names"] == ["tree", "<svm>", "knn"] and d["p_greater"][0][0] is None
    assert d["rank"] == r.rank.tolist()
    r2 = rank([C1, C2], names=["a", "b"], n_draws=100)
    assert r2.names == ("a", "b")
    assert rank([C1, C2], n_draws=100).names == ("A", "B")  # as compare's default names


def test_bad_input_is_an_error():
    with pytest.raises(bacc.BaccError, match="at least two"):
        rank([C1])
    with pytest.raises(bacc.BaccError, match="sequence"):
        rank(np.array(C1))
    with pytest.raises(bacc.BaccError, match="3 classes and classifier B has 2"):
        rank([C1, [[3, 1], [1, 3]]])
    a = bacc.ConfusionMatrix([[5, 1], [2, 6]], labels=["cat", "dog"])
    b = bacc.ConfusionMatrix([[5, 1], [2, 6]], labels=["cat", "cow"])
    with pytest.raises(bacc.BaccError, match="same classes"):
        rank([a, b])
    with pytest.raises(bacc.BaccError, match="names"):
        rank([C1, C2], names=["x"])
    with pytest.raises(bacc.BaccError, match="n_draws"):
        rank([C1, C2], n_draws=0)
