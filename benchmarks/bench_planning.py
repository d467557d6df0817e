"""Label planning (``bacc.plan_labels``): time of a plan against a brute-force baseline, in one
process, and the plan's promise checked by that baseline.

For each design:

* bacc: ``bacc.plan_labels(...)`` -- the whole search over plan sizes, every assurance an exact
  sum over the beta-binomial outcomes (median of 3 calls);
* baseline: a brute-force simulation of the labelling process at *one* candidate size (the
  planned one): 20 000 replications, each drawing the class accuracies from the design prior
  and every further label (class and correctness), scored by ``bacc.exact_interval`` once per
  distinct final matrix (``tests/test_planning.py``'s ``brute_force``). Its answer carries a
  Monte Carlo error of about 0.003. A search needs it at every candidate size whose assurance
  the plan's search computed ("tried"; its quick guesses on binned outcomes and a mix's
  fixed-size surrogate are not counted): "brute all" is tried x brute 1, and the ratio is
  brute all / plan.
* the check: the brute force pooled over 5 x 20 000 replications at the planned size and at one
  label fewer, beside the exact assurances.

Run:  python benchmarks/bench_planning.py
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy

import bacc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _timing import timed  # noqa: E402
from test_planning import DESIGNS, brute_force  # noqa: E402

DESIGNS = {
    **DESIGNS,
    "two classes, chosen (stratified)": dict(cm=[[95, 5], [2, 8]], lower=0.7),
}
CHUNKS = 5
DIRECT = 1_000_000


def pooled(plan, prior) -> tuple[tuple[float, float], tuple[float, float]]:
    """Brute-force assurance at the plan and one label fewer, pooled over independent runs."""
    runs = [brute_force(plan, prior=prior, random_state=100 + r) for r in range(CHUNKS)]
    out = []
    for j in range(2):
        p = float(np.mean([r[j][0] for r in runs]))
        out.append((p, math.sqrt(p * (1 - p) / (CHUNKS * 20_000))))
    return out[0], out[1]


def direct(plan, prior, random_state=12345) -> tuple[float, float]:
    """The assurance at the plan from 10^6 draws of the final counts (class sizes multinomial
    or fixed, correct counts binomial given accuracies from the design prior), each distinct
    matrix scored once by ``bacc.exact_interval``: the same quantity as the label-by-label
    brute force, with a smaller Monte Carlo error."""
    rng = np.random.default_rng(random_state)
    k0, n0 = np.array(plan.correct), np.array(plan.support)
    l = k0.size
    a, b = np.broadcast_to(np.asarray(prior, dtype=float), (l, 2)).T
    theta = rng.beta(a + k0, b + n0 - k0, size=(DIRECT, l))
    if plan.design == "mix":
        sizes = rng.multinomial(plan.labels, plan.mix, size=DIRECT)
    else:
        sizes = np.broadcast_to(np.array(plan.per_class, dtype=np.int64), (DIRECT, l))
    k = k0 + rng.binomial(sizes, theta)
    n = n0 + sizes
    uniq, inv = np.unique(np.concatenate([k, n], axis=1), axis=0, return_inverse=True)
    met = np.empty(len(uniq), dtype=bool)
    for i, row in enumerate(uniq):
        cm = np.zeros((l, l), dtype=np.int64)
        for c in range(l):
            cm[c, c] = row[c]
            cm[c, (c + 1) % l] += row[l + c] - row[c]
        iv = bacc.exact_interval(cm, confidence=plan.confidence, sides=plan.sides, empty="keep")
        met[i] = iv.lower > plan.target if plan.goal == "lower" else iv.width <= plan.target
    p = float(met[inv.ravel()].mean())
    return p, math.sqrt(p * (1 - p) / DIRECT)


def sizes_tried(kw) -> int:
    """Candidate plans whose assurance the search computed (counted by wrapping its cache)."""
    from bacc import planning

    seen = []
    original = planning._Search.assurance

    def counting(self, alloc):
        key = alloc if isinstance(alloc, int) else tuple(int(x) for x in alloc)
        if key not in self._memo:
            seen.append(key)
        return original(self, alloc)

    planning._Search.assurance = counting
    try:
        bacc.plan_labels(**kw)
    finally:
        planning._Search.assurance = original
    return len(seen)


def main() -> None:
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"load {load:.2f}")
    print(f"{'design':34s} {'N':>4s} {'plan ms':>8s} {'tried':>6s} {'brute 1 (s)':>12s} "
          f"{'brute all (s)':>14s} {'ratio':>6s}")
    checks = []
    for name, kw in DESIGNS.items():
        plan = bacc.plan_labels(**kw)
        t_plan = timed(lambda kw=kw: bacc.plan_labels(**kw), repeat=3, block=0.0)
        prior = kw.get("prior", (1.0, 1.0))
        t = time.perf_counter()
        brute_force(plan, prior=prior, random_state=0)
        t_brute = time.perf_counter() - t
        tried = sizes_tried(kw)
        print(f"{name:34s} {plan.labels:4d} {t_plan * 1e3:8.1f} {tried:6d} {t_brute:12.2f} "
              f"{tried * t_brute:14.1f} {tried * t_brute / t_plan:6.0f}")
        checks.append((name, plan, pooled(plan, prior), direct(plan, prior)))
    print()
    print(f"brute-force check ({CHUNKS} x 20 000 replications; exact = bacc's assurance):")
    for name, plan, ((p_n, se_n), (p_l, se_l)), (p_d, se_d) in checks:
        per = ", ".join(f"{x:g}" for x in plan.per_class)
        print(f"  {name}: N = {plan.labels} ({per})")
        print(f"    at N:     exact {plan.assurance:.4f}   brute force {p_n:.4f} +- {se_n:.4f}   "
              f"10^6 direct draws {p_d:.4f} +- {se_d:.4f}")
        print(f"    at N - 1: exact {plan.assurance_one_fewer:.4f}   brute force {p_l:.4f} +- "
              f"{se_l:.4f}")


if __name__ == "__main__":
    main()
