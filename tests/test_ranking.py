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
    """For two classifiers P(best) = P(A > B), given exactly from the exact pair (no draws); for
    any number, by linearity of expectation, E[rank_i] = 1 + sum_j P(lambda_j > lambda_i). The
    draws match both within 4 standard errors."""
    r2 = rank([C1, C4])
    p = compare(C1, C4).p_better
    assert r2.n_draws == 0 and r2.p_best.tolist() == [r2.p_greater[0, 1], r2.p_greater[1, 0]]
    assert r2.p_best[0] == pytest.approx(p, abs=1e-15)
    assert r2.expected_rank.tolist() == pytest.approx([2 - p, 1 + p], abs=1e-15)
    assert r2.p_best_se.tolist() == r2.expected_rank_se.tolist() == [0.0, 0.0]
    assert "no draws" in str(r2) and "±" not in str(r2).split("P(row > column)")[1]
    d2 = rank([C1, C4], pairwise="draws", n_draws=200_000)
    assert d2.n_draws == 200_000 and abs(d2.p_best[0] - p) < 4 * d2.p_best_se[0]
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


# ----------------------------------------------------------------------------------------------
# the vectorised pairwise step (many classifiers)
def _random_matrices(rng, T, l, lo, hi, perfect=0.2):
    mats = []
    for _ in range(T):
        n = rng.integers(lo, hi, size=l)
        k = np.where(rng.random(l) < perfect, n, rng.binomial(n, rng.uniform(0.5, 1.0)))
        m = np.diag(k)
        m[np.arange(l), (np.arange(l) + 1) % l] = n - k
        mats.append(m)
    return mats


@pytest.mark.parametrize(
    ("l", "lo", "hi", "prior"),
    [(2, 1, 40, None), (3, 30, 30000, None), (10, 5, 500, None), (2, 1, 30, "jeffreys"),
     (4, 1, 10**6, "jeffreys"), (2, 1, 3, None), (3, 1, 5, "jeffreys")],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_quadrature_pairs_equal_exact_pairs(l, lo, hi, prior, seed):
    """Every pair of the checked one-pass quadrature against one exact convolution per pair
    (where the check finds kinks it cannot resolve, the ranking says it fell back to exact)."""
    rng = np.random.default_rng(l * 7 + lo + 100 * seed)
    mats = _random_matrices(rng, 9, l, lo, hi)
    q = rank(mats, prior=prior, pairwise="quadrature", n_draws=100)
    e = rank(mats, prior=prior, pairwise="exact", n_draws=100)
    assert q.pairwise in ("quadrature", "exact") and e.pairwise == "exact"
    off = ~np.eye(9, dtype=bool)
    assert np.max(np.abs(q.p_greater[off] - e.p_greater[off])) < 1e-8
    assert np.allclose(q.p_greater[off] + q.p_greater.T[off], 1.0, atol=1e-15)


def test_many_classifiers_use_the_quadrature_with_progress():
    rng = np.random.default_rng(5)
    mats = _random_matrices(rng, 30, 3, 20, 200)
    seen = []
    r = rank(mats, progress=lambda d, t: seen.append((d, t)))
    assert r.pairwise == "quadrature" and r.p_greater_se is None
    assert seen[-1] == (60, 60)
    assert r.n_draws == 100_000  # 90 Beta variables per draw: the full default
    i, j = 3, 17
    assert r.p_greater[i, j] == pytest.approx(compare(mats[i], mats[j]).p_better, abs=1e-8)
    assert "one vectorised quadrature" in str(r)


def test_default_draws_shrink_for_large_rankings():
    rng = np.random.default_rng(6)
    mats = _random_matrices(rng, 40, 100, 5, 50)
    r = rank(mats, pairwise="quadrature")
    assert r.n_draws == 10_000
    assert np.all(r.p_best_se <= np.sqrt(0.25 / 10_000) + 1e-12)
