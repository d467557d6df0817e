"""Speed of ``bacc.evaluate`` and ``bacc.compare`` when class sizes are very unequal.

Rows: 200 classes with sizes log-uniform on 1..1e8 (Jeffreys prior); 10 classes of 1, 2, 10,
100, ..., 1e8 examples; 1000 classes of 6e7 examples beside two of 1 and 2; the comparison of
two classifiers on two classes of 3 and 1e7 examples; and the three slowest of 60 random mixes
(3 to 1000 classes, sizes 1..1e9, a fifth of the classes perfect and a tenth all wrong, flat or
Jeffreys prior), found by timing each three times (the fastest run kept), with the count of
mixes above 100 ms (by wall time, and by the CPU time of the process, which the load of other
jobs on a shared machine does not inflate).

Baseline, in the same process: numpy Monte Carlo with 1e4 draws per class of the balanced
accuracy's posterior (or of the difference), the 95 % interval from the draws: what a user
would write by hand, and 100 times less precise than bacc (its error is ~1e-2 sd, bacc's
below 1e-7 absolute in the CDF; checked in tests/test_engine_sums_mixed_scales.py against an independent
Gil-Pelaez inversion). Times are medians over blocks of calls ("CPU": the fastest of five
calls in CPU time of the process); the ratio is baseline / bacc.

Run:  python benchmarks/bench_mixed.py [--quick]   (--quick: 6 random mixes, two rows)
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import fastest, machine, timed

import bacc


def matrix(n, k):
    """A confusion matrix with ``k[i]`` of the ``n[i]`` examples of class i right (the errors
    go to the next class)."""
    m = len(n)
    cm = np.zeros((m, m), dtype=np.int64)
    for i in range(m):
        cm[i, i] = k[i]
        cm[i, (i + 1) % m] += n[i] - k[i]
    return cm


def monte_carlo(a, b, w, rng, draws=10_000):
    x = rng.beta(a, b, size=(draws, len(a))) @ w
    return np.quantile(x, [0.025, 0.5, 0.975])


def random_mixes(count=60, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m = int(rng.choice([3, 5, 10, 30, 100, 300, 1000]))
        n = np.maximum(np.round(10 ** rng.uniform(0, 9, m)), 1).astype(np.int64)
        r = rng.random(m)
        k = np.where(r < 0.2, n, np.where(r < 0.3, 0, np.floor(n * rng.uniform(0.3, 1.0, m))))
        yield n, k.astype(np.int64), ("jeffreys" if rng.random() < 0.5 else "flat")


def cpu_time(fn, repeat: int = 5) -> float:
    """Fastest of ``repeat`` calls in CPU time of this process (after one call to warm up):
    what the call costs, without the waits of a shared machine."""
    fn()
    return fastest(fn, repeat)[1]


def params(n, k, prior):
    p = 0.5 if prior == "jeffreys" else 1.0
    return k + p, n - k + p, np.full(len(n), 1.0 / len(n))


def main(quick: bool = False) -> None:
    print(machine("numpy", "scipy"))
    rng = np.random.default_rng(0)
    rows = []
    n = np.round(10 ** rng.uniform(0, 8, 200)).astype(np.int64)
    rows.append(("200 classes, 1..1e8, Jeffreys", n, rng.binomial(n, 0.8), "jeffreys"))
    n = np.array([1, 2] + [10**j for j in range(1, 9)])
    rows.append(("10 classes, 1..1e8", n, np.floor(0.8 * n).astype(np.int64), "flat"))
    if not quick:
        n = np.array([1, 2] + [60_000_000] * 1000)
        rows.append(("1000 of 6e7 beside 1 and 2", n, np.array([1, 1] + [30_000_000] * 1000),
                     "flat"))
    # the slowest random mixes (each timed three times, the fastest run kept)
    count, slowest = (6, 0) if quick else (60, 3)
    found = []
    for n, k, prior in random_mixes(count):
        cm = matrix(n, k)
        wall, cpu = fastest(lambda cm=cm, prior=prior: bacc.evaluate(cm, prior=prior), 3)
        found.append((wall, cpu, n, k, prior))
    found.sort(key=lambda f: -f[0])
    over = sum(f[0] > 0.1 for f in found)
    over_cpu = sum(f[1] > 0.1 for f in found)
    for rank, (_, _, n, k, prior) in enumerate(found[:slowest], start=1):
        rows.append((f"slowest of {count} random, #{rank} ({len(n)} classes, {prior})", n, k,
                     prior))

    reps = 3 if quick else 5
    print(f"{'case':44s} {'bacc (ms)':>10s} {'CPU (ms)':>9s} {'MC 1e4 (ms)':>12s} {'ratio':>7s}")
    for name, n, k, prior in rows:
        cm = matrix(n, k)
        t_bacc = timed(lambda cm=cm, prior=prior: bacc.evaluate(cm, prior=prior), repeat=reps)
        c_bacc = cpu_time(lambda cm=cm, prior=prior: bacc.evaluate(cm, prior=prior), reps)
        a, b, w = params(n, k, prior)
        t_mc = timed(lambda a=a, b=b, w=w: monte_carlo(a, b, w, rng), repeat=3)
        print(f"{name:44s} {t_bacc * 1e3:10.1f} {c_bacc * 1e3:9.1f} {t_mc * 1e3:12.1f} "
              f"{t_mc / t_bacc:7.1f}")

    print(f"random mixes above 100 ms (fastest of three runs): {over} of {len(found)} "
          f"(by CPU time: {over_cpu})")
    A = np.array([[3, 0], [1, 10_000_000 - 1]])
    B = np.array([[2, 1], [2, 10_000_000 - 2]])
    t_bacc = timed(lambda: bacc.compare(A, B))
    aa = np.array([4.0, 1e7, 3.0, 1e7 - 1])
    bb = np.array([1.0, 2.0, 2.0, 3.0])
    ww = np.array([0.5, 0.5, -0.5, -0.5])
    t_mc = timed(lambda: monte_carlo(aa, bb, ww, rng), repeat=3)
    name = "compare, 2 classes of 3 and 1e7"
    print(f"{name:44s} {t_bacc * 1e3:10.1f} {t_mc * 1e3:12.1f} {t_mc / t_bacc:7.1f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
