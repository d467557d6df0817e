"""Speed of the coverage simulator (bacc.simulation) against naive Python loops, in one process.

For binary test sets (two classes of sizes n1, n2 with true class accuracies p1, p2), measure
simulated test sets per second:

* bacc: ``bacc.simulation.coverage([method], ...)`` (all counts drawn at once, bounds computed once
  per distinct count and mapped back), median of 3 runs.
* naive A: a Python loop that, per simulated test set, draws the counts and calls the public
  per-matrix function ``bacc.intervals.exact_interval`` (what a user would write with bacc's
  one-matrix API);
* naive B: a Python loop with textbook scipy, ``scipy.stats.beta.ppf`` per class bound (fine at
  these small sizes; not used by bacc because it is wrong at huge parameters).

Both baselines run on fewer test sets (their rate does not depend on the count). The script
also checks that bacc and naive A give the same coverage on the same draws.

Run:  python benchmarks/bench_coverage.py            (speed)
      python benchmarks/bench_coverage.py --quick    (speed, one design, a few seconds)
      python benchmarks/bench_coverage.py --table    (coverage of every method over a grid)
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import machine, once, timed
from scipy import stats

from bacc._engine.bounds.per_class import per_bound_alpha
from bacc.intervals import exact_interval
from bacc.simulation import coverage

DESIGNS = [
    ((20, 20), (0.9, 0.99)),
    ((50, 200), (0.8, 0.95)),
    ((500, 500), (0.99, 0.99)),
]
N_SIM = 1_000_000
N_NAIVE = 2_000


def rate_bacc(method, sizes, acc, n_sim, repeat=3):
    t = timed(lambda: coverage([method], sizes, acc, n_simulations=n_sim, random_state=0),
              repeat=repeat, block=0.0)
    res = coverage([method], sizes, acc, n_simulations=n_sim, random_state=0)
    return n_sim / t, res.methods[0].coverage


def rate_naive_bacc(method, sizes, acc, n_sim, seed=0):
    rng = np.random.default_rng(seed)
    n1, n2 = sizes
    truth = float(np.mean(acc))

    def loop():
        hits = 0
        for _ in range(n_sim):
            k1, k2 = rng.binomial(sizes, acc)
            iv = exact_interval([[k1, n1 - k1], [n2 - k2, k2]], confidence=0.95, method=method)
            hits += iv.lower <= truth <= iv.upper
        return hits

    hits, t = once(loop)
    return n_sim / t, hits / n_sim


def rate_naive_scipy(method, sizes, acc, n_sim, seed=0):
    rng = np.random.default_rng(seed)
    a = per_bound_alpha(0.95, 2, "two", method)
    truth = float(np.mean(acc))

    def loop():
        hits = 0
        for _ in range(n_sim):
            ks = rng.binomial(sizes, acc)
            lo = hi = 0.0
            for k, n in zip(ks, sizes, strict=True):
                lo += 0.5 * (stats.beta.ppf(a, k, n - k + 1) if k > 0 else 0.0)
                hi += 0.5 * (stats.beta.ppf(1 - a, k + 1, n - k) if k < n else 1.0)
            hits += lo <= truth <= hi
        return hits

    hits, t = once(loop)
    return n_sim / t, hits / n_sim


def same_draws_check():
    """bacc's vectorised intervals equal the per-matrix public function on identical draws."""

    def per_matrix(k, n, confidence, sides):
        ivs = [
            exact_interval([[a, n[0] - a], [n[1] - b, b]], confidence=confidence, sides=sides)
            for a, b in k
        ]
        return [i.lower for i in ivs], [i.upper for i in ivs]

    r = coverage(["union", per_matrix], (20, 20), (0.9, 0.99), n_simulations=3_000, random_state=42)
    return r["union"].coverage == r["per_matrix"].coverage


def main(quick: bool = False) -> None:
    n_sim, n_naive = (20_000, 200) if quick else (N_SIM, N_NAIVE)
    designs = DESIGNS[:1] if quick else DESIGNS
    print(machine("numpy", "scipy"))
    print(f"bacc: {n_sim} simulated binary test sets per run (median of 3); "
          f"naive loops: {n_naive} test sets")
    print(f"same draws, vectorised == per-matrix loop: {same_draws_check()}")
    header = (f"{'design (n; p)':<28}{'method':<8}{'bacc sets/s':>14}{'naive A sets/s':>16}"
              f"{'ratio A':>10}{'naive B sets/s':>16}{'ratio B':>10}{'coverage':>10}")
    print(header)
    for sizes, acc in designs:
        for method in ("union", "sidak"):
            rb, cov = rate_bacc(method, sizes, acc, n_sim)
            ra, _ = rate_naive_bacc(method, sizes, acc, n_naive)
            rs, _ = rate_naive_scipy(method, sizes, acc, n_naive)
            label = f"{sizes}; {acc}"
            print(f"{label:<28}{method:<8}{rb:>14,.0f}{ra:>16,.0f}{rb / ra:>10,.0f}"
                  f"{rs:>16,.0f}{rb / rs:>10,.0f}{cov:>10.4f}")
    # the Buehler bound costs one certified optimisation per distinct outcome
    buehler = [((20, 20), (0.9, 0.99))] if quick else [((20, 20), (0.9, 0.99)), ((50, 50), (0.9, 0.9))]
    for sizes, acc in buehler:
        rb, cov = rate_bacc("buehler", sizes, acc, n_sim // 5 if quick else 200_000, repeat=1)
        ra, _ = rate_naive_bacc("buehler", sizes, acc, 10 if quick else 100)
        label = f"{sizes}; {acc}"
        print(f"{label:<28}{'buehler':<8}{rb:>14,.0f}{ra:>16,.0f}{rb / ra:>10,.0f}"
              f"{'-':>16}{'-':>10}{cov:>10.4f}")


TABLE_METHODS = ["union", "sidak", "buehler", "bayes", "wald", "wilson", "jeffreys"]
TABLE_GRID = [
    ((5, 5), (0.5, 0.5)),
    ((5, 5), (0.99, 0.99)),
    ((20, 20), (0.9, 0.9)),
    ((20, 20), (0.9, 0.99)),
    ((20, 20), (0.99, 0.99)),
    ((5, 200), (0.5, 0.9)),
    ((50, 200), (0.99, 0.5)),
    ((200, 200), (0.5, 0.5)),
    ((200, 200), (0.99, 0.99)),
]


def table(n_sim: int = 20_000) -> None:
    """Coverage (and mean width) of each method, 95 % two-sided, balanced accuracy."""
    print(f"95% two-sided intervals for the balanced accuracy, {n_sim} simulated test sets "
          "per row (seed 0); coverage / mean width; * = below nominal by > 3 MC s.e.")
    print(f"{'design (n; p)':<28}" + "".join(f"{m:>16}" for m in TABLE_METHODS))
    for sizes, acc in TABLE_GRID:
        r = coverage(TABLE_METHODS, sizes, acc, n_simulations=n_sim, random_state=0)
        cells = []
        for m in r.methods:
            flag = " " if m.keeps_promise(0.95) else "*"
            cells.append(f"{m.coverage:.3f}{flag}/{m.mean_width:.3f}")
        print(f"{f'{sizes}; {acc}':<28}" + "".join(f"{c:>16}" for c in cells))


if __name__ == "__main__":
    if "--table" in sys.argv:
        table()
    else:
        main(quick="--quick" in sys.argv)
