"""Paired ranking (bacc.rank_paired) against an independent Monte Carlo of the joint Dirichlet.

The reference lists all ``2**T`` joint-outcome cells of every class and draws the Dirichlet
posterior ``Dirichlet(counts + c / 2**(T - 2))`` directly from Gamma variables (10**6 draws),
which is the model's definition; bacc never lists the cells (stick-breaking for the prior
part). Tolerances are 5 combined Monte Carlo standard errors.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import bacc
from bacc.errors import BaccError


def synthetic(T, sizes, skill, seed):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    preds = []
    for t in range(T):
        right = rng.random(y.size) < skill[t]
        wrong = (y + 1 + rng.integers(0, len(sizes) - 1, y.size)) % len(sizes)
        preds.append(np.where(right, y, wrong))
    return y, preds


def reference(y, preds, c, n_draws, seed):
    """Full-cell Dirichlet Monte Carlo: P(best), E[rank], P(row > column)."""
    rng = np.random.default_rng(seed)
    T = len(preds)
    classes = np.unique(y)
    cells = np.array(list(itertools.product([1, 0], repeat=T)), dtype=float)  # (2**T, T)
    code = {tuple(int(v) for v in row): k for k, row in enumerate(cells)}
    ba = np.zeros((n_draws, T))
    for i in classes:
        sel = y == i
        right = np.column_stack([p[sel] == i for p in preds]).astype(int)
        counts = np.zeros(2**T)
        for row in right:
            counts[code[tuple(row)]] += 1
        g = rng.gamma(counts + c / 2 ** (T - 2), size=(n_draws, 2**T))
        ba += (g @ cells) / g.sum(axis=1, keepdims=True) / classes.size
    best = np.bincount(ba.argmax(axis=1), minlength=T) / n_draws
    ranks = T - np.argsort(np.argsort(ba, axis=1), axis=1)
    greater = np.array([[np.mean(ba[:, i] > ba[:, j]) for j in range(T)] for i in range(T)])
    return best, ranks.mean(axis=0), ranks.std(axis=0) / np.sqrt(n_draws), greater


@pytest.mark.parametrize(("T", "sizes", "seed"), [(3, [4, 6, 3], 1), (4, [5, 3], 2), (3, [40, 25], 3)])
@pytest.mark.slow  # a long check against an independent reference
def test_matches_full_dirichlet_monte_carlo(T, sizes, seed):
    y, preds = synthetic(T, sizes, [0.8, 0.7, 0.75, 0.65][:T], seed)
    n = 10**6
    r = bacc.rank_paired(y, preds, n_draws=n, random_state=seed)
    best, er, er_se, greater = reference(y, preds, 0.5, n, seed + 100)
    se_best = np.sqrt(best * (1 - best) / n)
    assert np.all(np.abs(r.p_best - best) <= 5 * np.hypot(se_best, r.p_best_se) + 1e-12)
    assert np.all(np.abs(r.expected_rank - er) <= 5 * np.hypot(er_se, r.expected_rank_se))
    # the exact pairwise probabilities against the reference draws
    off = ~np.eye(T, dtype=bool)
    se_g = np.sqrt(greater * (1 - greater) / n)
    assert np.all(np.abs(r.p_greater[off] - greater[off]) <= 5 * se_g[off] + 1e-9)
    assert r.paired and r.pairwise == "exact"


def test_two_classifiers_equal_compare_paired():
    y, (a, b) = synthetic(2, [30, 12, 20], [0.8, 0.75], 5)
    r = bacc.rank_paired(y, {"a": a, "b": b})
    c = bacc.compare_paired(y, a, b)
    assert r.p_greater[0, 1] == pytest.approx(c.p_better, abs=1e-9)
    assert r.p_greater[1, 0] == pytest.approx(1 - c.p_better, abs=1e-9)
    assert r.mean_balanced_accuracy.tolist() == pytest.approx(list(c.mean_balanced_accuracy), abs=1e-12)
    # P(best) of a is P(a > b) and its expected rank 1 + P(b > a): exact, with no draws
    assert r.n_draws == 0 and r.p_best.tolist() == [r.p_greater[0, 1], r.p_greater[1, 0]]
    assert r.expected_rank.tolist() == pytest.approx([2 - c.p_better, 1 + c.p_better], abs=1e-9)
    assert r.p_best_se.tolist() == r.expected_rank_se.tolist() == [0.0, 0.0]
    # the joint draws, asked for, agree within their Monte Carlo error
    d = bacc.rank_paired(y, {"a": a, "b": b}, pairwise="draws", n_draws=100_000)
    assert d.n_draws == 100_000 and abs(d.p_best[0] - c.p_better) <= 5 * d.p_best_se[0]
    assert abs(d.expected_rank[0] - (2 - c.p_better)) <= 5 * d.expected_rank_se[0]


def test_every_pair_is_compare_paired_for_four():
    y, preds = synthetic(4, [20, 15, 9], [0.8, 0.7, 0.75, 0.7], 7)
    r = bacc.rank_paired(y, preds)
    for i, j in itertools.combinations(range(4), 2):
        c = bacc.compare_paired(y, preds[i], preds[j])
        assert r.p_greater[i, j] == pytest.approx(c.p_better, abs=1e-9)


def test_marginals_are_the_flat_prior_posteriors():
    y, preds = synthetic(3, [20, 15], [0.8, 0.7, 0.6], 8)
    r = bacc.rank_paired(y, preds, prior="flat")
    for t in range(3):
        ev = bacc.evaluate(bacc.ConfusionMatrix.from_predictions(y, preds[t]))
        assert r.mean_balanced_accuracy[t] == pytest.approx(ev.balanced_accuracy.mean(), abs=1e-12)
        assert r.sample_balanced_accuracy[t] == pytest.approx(ev.sample_balanced_accuracy, abs=1e-12)


def test_draws_mode_agrees_with_exact_and_reports_errors():
    y, preds = synthetic(3, [30, 20], [0.8, 0.78, 0.7], 9)
    ex = bacc.rank_paired(y, preds)
    dr = bacc.rank_paired(y, preds, pairwise="draws", n_draws=200_000)
    off = ~np.eye(3, dtype=bool)
    assert dr.pairwise == "draws" and dr.p_greater_se is not None
    assert np.all(np.abs(dr.p_greater[off] - ex.p_greater[off]) <= 5 * dr.p_greater_se[off] + 1e-9)


def test_many_classifiers_are_ranked_from_draws_with_progress():
    y, preds = synthetic(40, [30, 25, 20], np.linspace(0.5, 0.9, 40), 10)
    seen = []
    r = bacc.rank_paired(y, preds, n_draws=20_000, progress=lambda d, t: seen.append((d, t)))
    assert r.pairwise == "draws" and seen == []  # 780 pairs: from the draws, no exact loop
    assert r.order[0] in np.argsort(r.mean_balanced_accuracy)[-5:]
    r2 = bacc.rank_paired(y, preds[:5], progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (10, 10) and r2.pairwise == "exact"


def extreme_design(T, sizes, seed):
    """Predictions with unequal classes, a class every classifier gets right and one every
    classifier gets wrong (when there are three or more classes)."""
    rng = np.random.default_rng(seed)
    m = len(sizes)
    y = np.repeat(np.arange(m), sizes)
    preds = []
    for _ in range(T):
        skill = rng.uniform(0.5, 0.95, m)
        if m >= 3:
            skill[0], skill[1] = 1.0, 0.0
        right = rng.random(y.size) < skill[y]
        preds.append(np.where(right, y, (y + 1) % m))
    return y, preds


@pytest.mark.parametrize(("sizes", "seed"), [([300, 40], 21), ([6, 9], 22),
                                             ([400, 60, 250, 90, 500, 30, 200, 120, 80, 300], 23),
                                             ([3, 8, 5, 12, 4, 9, 2, 7, 6, 10], 24)])
def test_every_pair_is_compare_paired_on_random_designs(sizes, seed):
    y, preds = extreme_design(6, sizes, seed)
    r = bacc.rank_paired(y, preds, n_draws=2000, pairwise="exact")
    assert r.pairwise == "exact"
    for i, j in itertools.combinations(range(6), 2):
        c = bacc.compare_paired(y, preds[i], preds[j])
        # within 1e-9 plus the lattice's own error estimate (itself at most about 1e-9)
        tol = 1e-9 + c.difference.error_estimate
        assert abs(r.p_greater[i, j] - c.p_better) <= tol
        assert abs(r.p_greater[j, i] - (1 - c.p_better)) <= tol


def test_thirty_classifiers_have_exact_pairs():
    rng = np.random.default_rng(25)
    y = rng.integers(0, 4, 2000)
    preds = [np.where(rng.random(y.size) < s, y, (y + 1) % 4) for s in rng.uniform(0.6, 0.9, 30)]
    seen = []
    r = bacc.rank_paired(y, preds, n_draws=2000, progress=lambda d, t: seen.append((d, t)))
    assert r.pairwise == "exact" and r.p_greater_se is None and seen[-1] == (435, 435)
    for i, j in [(0, 1), (3, 17), (28, 29)]:
        assert abs(r.p_greater[i, j] - bacc.compare_paired(y, preds[i], preds[j]).p_better) <= 1e-9
    off = ~np.eye(30, dtype=bool)
    assert np.allclose((r.p_greater + r.p_greater.T)[off], 1.0, atol=1e-12)
    # beyond 30 classifiers, from the draws
    assert bacc.rank_paired(y, preds + preds[:1], n_draws=2000).pairwise == "draws"


def test_tiny_test_sets_with_many_pairs_go_to_the_draws():
    """Pairs that only the one-by-one computation takes: more than 45 of them are not worth it
    by default (``pairwise="auto"``)."""
    y, preds = extreme_design(12, [2, 3], 26)
    r = bacc.rank_paired(y, preds, n_draws=2000)
    assert r.pairwise == "draws" and r.p_greater_se is not None


def test_identical_predictions_share_the_rank():
    y, (a, b) = synthetic(2, [20, 20], [0.8, 0.7], 11)
    r = bacc.rank_paired(y, [a, a, b], names=["a1", "a2", "b"])
    assert r.p_greater[0, 1] == pytest.approx(0.5, abs=1e-9)
    assert r.p_best[0] == pytest.approx(r.p_best[1], abs=5 * r.p_best_se[0])


def test_named_inputs():
    pd = pytest.importorskip("pandas")
    y, preds = synthetic(3, [20, 15], [0.8, 0.7, 0.6], 12)
    df = pd.DataFrame({"x": preds[0], "y": preds[1], "z": preds[2]})
    assert bacc.rank_paired(y, df).names == ("x", "y", "z")
    assert bacc.rank_paired(y, [df["z"], df["x"]]).names == ("z", "x")
    assert bacc.rank_paired(y, np.column_stack(preds)).names == ("A", "B", "C")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"predictions": [[0, 1, 1]]}, "at least two"),
        ({"predictions": [[0, 1, 1], [0, 1]]}, "have 2 entries"),
        ({"predictions": [[0, 1, 1], [0, 1, 0]], "pairwise": "fast"}, "pairwise"),
        ({"predictions": [[0, 1, 1], [0, 1, 0]], "prior": -1}, "prior"),
        ({"predictions": [[0, 1, 1], [0, 1, 0]], "n_draws": 1}, "n_draws"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(BaccError, match=match):
        bacc.rank_paired([0, 1, 1], **kwargs)
