"""Throughput of evaluate_many against a loop of single evaluate calls, in one process.

Binary groups (detectors) with random class sizes and accuracies. Prints groups per second for
both, the ratio, and the largest difference between their numbers (mean, credible interval,
exact interval, probability above chance).

Run:  python benchmarks/bench_batch.py [G]
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import bacc


def stack(G: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 500, (G, 2))
    k = rng.binomial(n, rng.uniform(0.5, 1.0, (G, 2)))
    s = np.zeros((G, 2, 2), dtype=np.int64)
    s[:, 0, 0], s[:, 0, 1] = k[:, 0], n[:, 0] - k[:, 0]
    s[:, 1, 1], s[:, 1, 0] = k[:, 1], n[:, 1] - k[:, 1]
    return s


def main() -> None:
    G = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    s = stack(G)
    bacc.evaluate_many(s[:10])  # warm-up
    t = time.perf_counter()
    res = bacc.evaluate_many(s)
    t_batch = time.perf_counter() - t
    n_loop = min(G, 300)
    t = time.perf_counter()
    diff = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in range(n_loop):
            ev = bacc.evaluate(s[g])
            su = ev.balanced_accuracy_summary
            ex = ev.exact_interval()
            got = (res.mean[g], res.lower[g], res.upper[g], res.exact_lower[g], res.exact_upper[g], res.p_above_chance[g])
            want = (su.mean, su.lower, su.upper, ex.lower, ex.upper, ev.p_above_chance)
            diff = max(diff, max(abs(x - y) for x, y in zip(got, want, strict=True)))
    t_loop = (time.perf_counter() - t) / n_loop * G
    print(f"groups: {G} binary")
    print(f"evaluate_many       : {G / t_batch:10.0f} groups/s  ({t_batch:.2f} s)")
    print(f"loop of evaluate    : {G / t_loop:10.0f} groups/s  (timed on {n_loop} groups)")
    print(f"ratio               : {t_loop / t_batch:10.1f}")
    print(f"max |difference|    : {diff:10.1e}  (first {n_loop} groups)")


if __name__ == "__main__":
    main()
