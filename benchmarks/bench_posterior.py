"""Speed of a full posterior summary against a naive Monte Carlo baseline, in one process.

Summary = mean, median, mode, 95 % central interval and P(balanced accuracy > chance).
Baseline = numpy Monte Carlo with 1e5 draws per class (median, interval and P(> chance) from
the draws, mode from a histogram). Prints, per matrix, the median wall time of each and the
ratio baseline / bacc, and how far each is from a high-resolution reference (bacc at 4x the
lattice resolution for many classes, exact quadrature for two).

Run:  python benchmarks/bench_posterior.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import bacc
from bacc import BetaSum


def summary_bacc(a, b, w):
    d = BetaSum(a, b, w)
    lo, med, hi = d.ppf([0.025, 0.5, 0.975])
    return d.mean(), med, d.mode(), lo, hi, d.p_above(1.0 / len(a))


def summary_mc(a, b, w, rng, draws=100_000):
    x = rng.beta(a, b, size=(draws, len(a))) @ w
    lo, med, hi = np.quantile(x, [0.025, 0.5, 0.975])
    hist, edges = np.histogram(x, bins=200)
    k = int(np.argmax(hist))
    return x.mean(), med, 0.5 * (edges[k] + edges[k + 1]), lo, hi, float(np.mean(x > 1.0 / len(a)))


def timed(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def matrices():
    rng = np.random.default_rng(1)
    yield "binary [[42,3],[6,4]]", np.array([[42, 3], [6, 4]])
    for l in (10, 1000):
        n = rng.integers(20, 200, l)
        k = rng.binomial(n, 0.8)
        m = np.zeros((l, l), dtype=np.int64)
        m[np.arange(l), np.arange(l)] = k
        m[np.arange(l), (np.arange(l) + 1) % l] = n - k
        yield f"{l} classes", m


def main() -> None:
    rng = np.random.default_rng(0)
    print(
        f"{'matrix':24s} {'bacc (ms)':>10s} {'MC 1e5 (ms)':>12s} {'ratio':>7s} {'max |err| bacc':>15s} {'max |err| MC':>13s}"
    )
    for name, m in matrices():
        cm = bacc.ConfusionMatrix(m)
        post = bacc.posterior_balanced_accuracy(cm)
        a, b, w = post.components
        repeat = 30 if len(a) <= 10 else 5
        summary_bacc(a, b, w)  # warm-up (imports, caches)
        t_b, s_b = timed(lambda a=a, b=b, w=w: summary_bacc(a, b, w), repeat)
        t_m, s_m = timed(lambda a=a, b=b, w=w: summary_mc(a, b, w, rng), max(3, repeat // 3))
        ref_d = BetaSum(a, b, w, resolution=32)
        lo, med, hi = ref_d.ppf([0.025, 0.5, 0.975])
        ref = np.array([ref_d.mean(), med, ref_d.mode(), lo, hi, ref_d.p_above(1.0 / len(a))])
        err_b = np.max(np.abs(np.array(s_b) - ref))
        err_m = np.max(np.abs(np.array(s_m) - ref))
        print(
            f"{name:24s} {t_b * 1e3:10.2f} {t_m * 1e3:12.1f} {t_m / t_b:7.1f} {err_b:15.1e} {err_m:13.1e}"
        )


if __name__ == "__main__":
    main()
