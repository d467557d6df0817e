"""Throughput of evaluate_many against a loop of single evaluate calls, in one process.

Two workloads (deployed detectors):

* binary: 1 000 detectors x 365 daily windows (365 000 groups). Each detector has its own
  daily volume of positives and negatives (Poisson, means log-uniform between 1 and 500) and its
  own recall and specificity (uniform 0.5 .. 1); a day without positives or negatives is a
  one-class group.
* ten-class: detectors with 10 to 5000 examples per class (log-uniform) and class accuracies
  uniform in 0.5 .. 1 (perfect classes are frequent among the small ones).

For each it prints groups per second of evaluate_many with its default threads (one per CPU)
and with one thread (wall clock, and CPU time of this
process: the machine is shared, and wall-clock rates vary with its load), of a loop of single
``evaluate`` + ``exact_interval`` calls timed on the first groups in the same run, their ratio,
and the largest difference between the numbers of the two (posterior mean, credible interval,
exact interval, probability above chance) over those groups.

Run:  python benchmarks/bench_batch.py [--binary G] [--ten G] [--loop N]
      python benchmarks/bench_batch.py --quick     (a few seconds: 3 650 and 200 groups)
"""

from __future__ import annotations

import argparse
import os
import warnings

import numpy as np
from _timing import Stopwatch

import bacc
from bacc._engine.helpers.threads import available_cpus


def binary_detectors(detectors: int = 1000, days: int = 365, state: int = 0) -> np.ndarray:
    """(detectors * days, 2, 2) daily confusion matrices (rows = true class)."""
    rng = np.random.default_rng(state)
    volume = np.exp(rng.uniform(0.0, np.log(500.0), (detectors, 1, 2)))
    recall = rng.uniform(0.5, 1.0, (detectors, 1, 2))
    n = rng.poisson(volume, (detectors, days, 2)).reshape(-1, 2)
    k = rng.binomial(n, np.broadcast_to(recall, (detectors, days, 2)).reshape(-1, 2))
    empty = n.sum(axis=1) == 0
    n[empty, 0] = k[empty, 0] = 1  # a day without any example is not a group
    s = np.zeros((n.shape[0], 2, 2), dtype=np.int64)
    s[:, 0, 0], s[:, 0, 1] = k[:, 0], n[:, 0] - k[:, 0]
    s[:, 1, 1], s[:, 1, 0] = k[:, 1], n[:, 1] - k[:, 1]
    return s


def ten_class(G: int, state: int = 1, l: int = 10) -> np.ndarray:
    """(G, l, l) confusion matrices: 10..5000 examples per class, accuracies 0.5..1."""
    rng = np.random.default_rng(state)
    n = np.exp(rng.uniform(np.log(10.0), np.log(5000.0), (G, l))).astype(np.int64)
    k = rng.binomial(n, rng.uniform(0.5, 1.0, (G, l)))
    s = np.zeros((G, l, l), dtype=np.int64)
    i = np.arange(l)
    s[:, i, i] = k
    # errors spread over the other classes
    wrong = (i[None, :] + rng.integers(1, l, (G, l))) % l
    np.add.at(s, (np.arange(G)[:, None], i[None, :], wrong), n - k)
    return s


def run(name: str, stack: np.ndarray, n_loop: int) -> None:
    G = stack.shape[0]
    threads = min(available_cpus(), 8)
    bacc.evaluate_many(stack[:50], progress=False)  # warm-up
    with Stopwatch() as sw_one:
        one = bacc.evaluate_many(stack, progress=False, workers=1)
    with Stopwatch() as sw_batch:
        res = bacc.evaluate_many(stack, progress=False)  # default: a thread per CPU
    t_one, c_one = sw_one.wall, sw_one.cpu
    t_batch, c_batch = sw_batch.wall, sw_batch.cpu
    same = all(
        np.array_equal(getattr(one, f), getattr(res, f))
        for f in ("lower", "upper", "p_above_chance", "exact_lower", "exact_upper")
    )
    n_loop = min(G, n_loop)
    diff = 0.0
    with Stopwatch() as sw_loop, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in range(n_loop):
            ev = bacc.evaluate(stack[g])
            su = ev.balanced_accuracy_summary
            ex = ev.exact_interval()
            got = (res.mean[g], res.lower[g], res.upper[g], res.exact_lower[g],
                   res.exact_upper[g], res.p_above_chance[g])  # fmt: skip
            want = (su.mean, su.lower, su.upper, ex.lower, ex.upper, ev.p_above_chance)
            diff = max(diff, max(abs(x - y) for x, y in zip(got, want, strict=True)))
    t_loop, c_loop = sw_loop.wall, sw_loop.cpu
    print(f"{name}: {G} groups")
    print(f"  evaluate_many     : {G / t_batch:9.0f} groups/s wall ({t_batch:.2f} s), "
          f"{G / c_batch:9.0f} groups/s CPU ({c_batch:.2f} s), {threads} threads")  # fmt: skip
    print(f"  ... one thread    : {G / t_one:9.0f} groups/s wall ({t_one:.2f} s), "
          f"{G / c_one:9.0f} groups/s CPU ({c_one:.2f} s); same numbers: {same}")  # fmt: skip
    print(f"  loop of evaluate  : {n_loop / t_loop:9.0f} groups/s wall, "
          f"{n_loop / c_loop:9.0f} groups/s CPU (first {n_loop} groups)")  # fmt: skip
    print(f"  ratio             : {t_loop / n_loop * G / t_batch:9.1f} wall, "
          f"{c_loop / n_loop * G / c_batch:9.1f} CPU")  # fmt: skip
    print(f"  max |difference|  : {diff:9.1e}  (first {n_loop} groups)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", type=int, default=365_000, help="binary groups (0: skip)")
    ap.add_argument("--ten", type=int, default=4_000, help="ten-class groups (0: skip)")
    ap.add_argument("--loop", type=int, default=300, help="single evaluations timed per workload")
    ap.add_argument("--quick", action="store_true",
                    help="a small run of a few seconds: --binary 3650 --ten 200 --loop 30")
    args = ap.parse_args()
    if args.quick:
        args.binary, args.ten, args.loop = 3650, 200, 30
    print(f"load average at start: {os.getloadavg()[0]:.1f} ({available_cpus()} CPUs)")
    if args.binary:
        detectors = max(1, args.binary // 365)
        run(f"binary, {detectors:,} detectors x 365 days", binary_detectors(detectors)[: args.binary],
            args.loop)  # fmt: skip
    if args.ten:
        stack = ten_class(args.ten)
        from bacc._engine.sums.batch_lattice import many_sums

        k = np.einsum("gii->gi", stack).astype(float)
        n = stack.sum(axis=2).astype(float)
        done = many_sums(k + 1.0, n - k + 1.0, n > 0, 0.1, np.array([0.025, 0.975]))[3]
        run(f"ten-class ({done.mean():.1%} by the batched lattice)", stack, args.loop)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
