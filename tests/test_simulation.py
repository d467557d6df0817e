"""Coverage simulator (bacc.simulation): methods sold as exact keep their promise over a grid of
small class sizes and true accuracies; the Wald interval does not near p = 1 (Sandler & Dirac 2024)."""

from __future__ import annotations

import io
import json
import sys
import time

import numpy as np
import pytest
from scipy import stats

from bacc.confusion import ConfusionMatrix
from bacc.errors import BaccError
from bacc.intervals import clopper_pearson, exact_interval
from bacc.simulation import COVERAGE_METHODS, CoverageResult, coverage

SIZES = [(5, 5), (5, 200), (20, 50), (200, 200)]
ACCURACIES = [(0.5, 0.5), (0.9, 0.99), (0.99, 0.99), (0.5, 0.9), (0.99, 0.5)]


# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("sides", ["two", "lower", "upper"])
def test_union_and_sidak_keep_nominal_coverage_over_the_grid(sizes, sides):
    for i, acc in enumerate(ACCURACIES):
        r = coverage(["union", "sidak"], sizes, acc, confidence=0.95, n_simulations=20_000, random_state=i,
                     sides=sides)
        for m in r.methods:
            assert m.exact
            assert m.coverage >= 0.95 - 3 * m.mc_se, (sizes, acc, str(r))
            assert m.share_outside == 0.0


def test_union_keeps_nominal_coverage_for_three_classes():
    for acc in [(0.5, 0.9, 0.99), (0.99, 0.99, 0.99), (1 / 3, 1 / 3, 1 / 3)]:
        r = coverage(["union", "sidak"], [5, 40, 200], acc, confidence=0.9, n_simulations=20_000, random_state=7)
        assert all(m.keeps_promise(0.9) for m in r.methods), str(r)


BUEHLER_GRID = [
    ((5, 5), [(0.5, 0.5), (0.9, 0.99), (0.99, 0.99), (0.5, 0.9)]),
    ((5, 200), [(0.9, 0.99), (0.99, 0.99)]),
    ((20, 50), [(0.5, 0.9), (0.99, 0.99)]),
]


@pytest.mark.parametrize("sizes,accuracies", BUEHLER_GRID)
def test_buehler_keeps_nominal_coverage_and_is_narrower_than_union(sizes, accuracies):
    for i, acc in enumerate(accuracies):
        r = coverage(["union", "buehler"], sizes, acc, confidence=0.95, n_simulations=20_000, random_state=i)
        b = r["buehler"]
        assert b.exact and b.coverage >= 0.95 - 3 * b.mc_se, str(r)
        assert b.mean_width <= r["union"].mean_width + 1e-12


def test_clopper_pearson_keeps_nominal_coverage_for_the_accuracy():
    for sizes, acc in [((5, 5), (0.5, 0.99)), ((20, 200), (0.9, 0.99)), ((200, 200), (0.99, 0.99))]:
        r = coverage(["clopper-pearson"], sizes, acc, n_simulations=20_000, random_state=3,
                     metric="accuracy")
        assert r["clopper-pearson"].keeps_promise(0.95), str(r)


# ----------------------------------------------------------------------------------------------
# Sandler & Dirac (2024): the normal approximation fails near p = 1
@pytest.mark.parametrize("sizes", [(20, 20), (50, 50), (5, 200)])
def test_seed004_wald_falls_short_near_accuracy_one(sizes):
    r = coverage(["union", "wald"], sizes, (0.99, 0.99), n_simulations=20_000, random_state=11)
    w = r["wald"]
    assert not w.exact
    assert w.coverage < 0.95 - 5 * w.mc_se
    assert not w.keeps_promise(0.95)
    assert r["union"].keeps_promise(0.95)
    assert "FALLS SHORT" in str(r)


def test_seed004_wald_for_the_accuracy_misses_most_often_when_there_are_no_errors():
    n, p = 100, 0.99
    r = coverage(["wald", "clopper-pearson"], [n], [p], n_simulations=40_000, random_state=5,
                 metric="accuracy")
    # exact coverage of Wald by enumeration (independent of the simulator)
    k = np.arange(n + 1)
    z = stats.norm.isf(0.025)
    ph = k / n
    half = z * np.sqrt(ph * (1 - ph) / n)
    cov = stats.binom.pmf(k, n, p)[(ph - half <= p) & (p <= ph + half)].sum()
    assert r["wald"].coverage == pytest.approx(cov, abs=5 * r["wald"].mc_se)
    assert cov < 0.7  # k = 100 (prob 0.366) gives the point interval [1, 1]
    assert r["wald"].miss_low > 0.3  # the interval [1, 1] lies above the truth


def test_simulated_coverage_matches_exact_enumeration_for_clopper_pearson():
    n, p = 30, 0.9
    r = coverage(["clopper-pearson"], [n], [p], n_simulations=50_000, random_state=2, metric="accuracy")
    k = np.arange(n + 1)
    lo, hi = clopper_pearson(k, np.full(n + 1, n), confidence=0.95)
    exact_cov = stats.binom.pmf(k, n, p)[(lo <= p) & (p <= hi)].sum()
    assert r["clopper-pearson"].coverage == pytest.approx(exact_cov, abs=4 * r.methods[0].mc_se)
    assert exact_cov >= 0.95


# ----------------------------------------------------------------------------------------------
def test_simulator_intervals_equal_the_public_functions():
    def union_by_hand(k, n, confidence, sides):
        out = [
            exact_interval([[a, n[0] - a], [n[1] - b, b]], confidence=confidence, sides=sides)
            for a, b in k
        ]
        return [o.lower for o in out], [o.upper for o in out]

    for method in ("union", "buehler"):
        def by_hand(k, n, confidence, sides, method=method):
            out = [
                exact_interval([[a, n[0] - a], [n[1] - b, b]], confidence=confidence, sides=sides,
                               method=method)
                for a, b in k
            ]
            return [o.lower for o in out], [o.upper for o in out]

        n_sim = 300 if method == "union" else 40
        r = coverage([method, by_hand], [7, 12], [0.7, 0.9], n_simulations=n_sim, random_state=4)
        assert r[method].coverage == r["by_hand"].coverage
        assert r[method].mean_width == pytest.approx(r["by_hand"].mean_width, abs=1e-12)
    assert not coverage([union_by_hand], [7, 12], [0.7, 0.9], n_simulations=10).methods[0].exact


def test_bayesian_credible_interval_coverage_is_reported():
    from bacc.posterior import posterior_balanced_accuracy

    def bayes_by_hand(k, n, confidence, sides):
        ivs = [
            posterior_balanced_accuracy(ConfusionMatrix([[a, n[0] - a], [n[1] - b, b]]))
            .interval(confidence)
            for a, b in k
        ]
        return [i[0] for i in ivs], [i[1] for i in ivs]

    r = coverage(["bayes", bayes_by_hand], [6, 9], [0.8, 0.95], n_simulations=200, random_state=1)
    assert r["bayes"].coverage == r["bayes_by_hand"].coverage
    assert r["bayes"].mean_width == pytest.approx(r["bayes_by_hand"].mean_width, abs=1e-10)
    assert not r["bayes"].exact
    big = coverage(["bayes", "union"], [20, 20], [0.9, 0.9], n_simulations=20_000, random_state=1)
    assert 0.85 < big["bayes"].coverage < 1.0
    assert big["bayes"].mean_width < big["union"].mean_width


def test_bayes_for_the_accuracy_is_the_beta_posterior_interval():
    r = coverage(["bayes"], [40], [0.8], n_simulations=20_000, random_state=9, metric="accuracy")
    assert 0.9 < r["bayes"].coverage < 1.0


# ----------------------------------------------------------------------------------------------
def test_result_is_reproducible_frozen_serialisable_and_readable():
    a = coverage(COVERAGE_METHODS[:3] + ("wald", "wilson", "jeffreys"), [10, 10], [0.8, 0.9],
                 n_simulations=5_000, random_state=123)
    b = coverage(["union", "sidak", "buehler", "wald", "wilson", "jeffreys"], [10, 10],
                 [0.8, 0.9], n_simulations=5_000, random_state=np.random.default_rng(123))
    assert isinstance(a, CoverageResult)
    assert [m.coverage for m in a.methods] == [m.coverage for m in b.methods]
    assert a.true_value == pytest.approx(0.85)
    m = a["wald"]
    assert m.mc_se == pytest.approx(np.sqrt(m.coverage * (1 - m.coverage) / 5_000))
    assert m.coverage == pytest.approx(1 - m.miss_low - m.miss_high)
    with pytest.raises(AttributeError):
        a.n_sim = 3  # type: ignore[misc]
    d = json.loads(json.dumps(a.to_dict()))
    assert [x["method"] for x in d["methods"]] == list(a.names)
    text = str(a)
    assert "coverage" in text and "union" in text and "exact" in text and "approx" in text


def test_exact_methods_simulate_at_least_100000_binary_test_sets_per_second():
    coverage(["union"], [50, 50], [0.9, 0.9], n_simulations=1_000, random_state=0)  # warm up
    t0 = time.perf_counter()
    coverage(["union", "sidak"], [50, 50], [0.9, 0.9], n_simulations=400_000, random_state=0)
    rate = 400_000 / (time.perf_counter() - t0)
    assert rate > 100_000


# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"methods": "exactest"}, "unknown coverage method 'exactest'"),
        ({"methods": []}, "methods is empty"),
        ({"methods": ["union", "union"]}, "distinct"),
        ({"methods": "clopper-pearson"}, "for metric='accuracy'"),
        ({"class_sizes": [0, 10]}, "whole numbers >= 1"),
        ({"class_sizes": [5.5, 10]}, "whole numbers >= 1"),
        ({"true_class_accuracies": [0.5, 1.2]}, r"lie in \[0, 1\]"),
        ({"true_class_accuracies": [0.5]}, "one value per class"),
        ({"confidence": 1.0}, "confidence"),
        ({"n_simulations": 0}, "n_simulations"),
        ({"sides": "both"}, "sides"),
        ({"metric": "auc"}, "metric"),
        ({"random_state": "seed"}, "random_state"),
        ({"methods": "buehler", "class_sizes": [5, 5, 5],
          "true_class_accuracies": [0.5, 0.5, 0.5]}, "two classes"),
    ],
)
def test_bad_input_raises_bacc_error(kwargs, match):
    args = {"methods": "union", "class_sizes": [10, 10], "true_class_accuracies": [0.5, 0.9],
            "n_simulations": 100}
    args.update(kwargs)
    with pytest.raises(BaccError, match=match):
        coverage(**args)


class _FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_request_and_on_a_terminal_only(monkeypatch):
    import bacc.simulation as sim

    monkeypatch.setattr(sim, "_DELAY", 0.0)
    args = (["union", "wald"], [10, 10], [0.9, 0.8])
    term = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", term)
    on = coverage(*args, n_simulations=500, random_state=1, progress=True)
    assert "simulating [" in term.getvalue()
    term2 = _FakeTerminal()
    monkeypatch.setattr(sys, "stderr", term2)
    off = coverage(*args, n_simulations=500, random_state=1)
    assert term2.getvalue() == ""
    assert [m.coverage for m in on.methods] == [m.coverage for m in off.methods]


def test_the_old_name_n_sim_still_works_with_a_warning():
    kw = dict(random_state=0)
    new = coverage(["union"], [10, 10], [0.9, 0.8], n_simulations=300, **kw)
    with pytest.warns(FutureWarning, match="n_sim= is renamed n_simulations="):
        old = coverage(["union"], [10, 10], [0.9, 0.8], n_sim=300, **kw)
    assert old.methods[0].coverage == new.methods[0].coverage
    with pytest.raises(BaccError, match="give n_simulations= only"):
        coverage(["union"], [10, 10], [0.9, 0.8], n_sim=300, n_simulations=300)
