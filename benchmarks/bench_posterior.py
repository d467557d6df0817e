"""Speed of a full posterior summary against a naive Monte Carlo baseline, in one process.

Summary = mean, median, mode, 95 % central interval and P(balanced accuracy > chance).
Baseline = numpy Monte Carlo with 1e5 draws per class (median, interval and P(> chance) from
the draws, mode from a histogram). Prints, per matrix, the median wall time of each and the
ratio baseline / bacc, and how far each is from a reference (for two classes an independent
adaptive quadrature with scipy; for many classes bacc at 4x the lattice resolution).

Run:  python benchmarks/bench_posterior.py [--quick]   (--quick: 2 and 10 classes)
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import machine, timed

import bacc
from bacc import BetaSum


def summary_bacc(a, b, w):
    # what bacc.evaluate computes: the quantiles, the mode and P(> chance) share evaluations
    s = BetaSum(a, b, w).summary(0.95, threshold=1.0 / len(a))
    return s["mean"], s["median"], s["mode"], s["lower"], s["upper"], s["p_above"]


def summary_mc(a, b, w, rng, draws=100_000):
    x = rng.beta(a, b, size=(draws, len(a))) @ w
    lo, med, hi = np.quantile(x, [0.025, 0.5, 0.975])
    hist, edges = np.histogram(x, bins=200)
    k = int(np.argmax(hist))
    return x.mean(), med, 0.5 * (edges[k] + edges[k + 1]), lo, hi, float(np.mean(x > 1.0 / len(a)))


def reference_two(a, b, w):
    """The same six numbers for two classes by an independent route: adaptive quadrature
    (scipy.integrate.quad) of P(w0 X0 + w1 X1 <= x) = E[F_0((x - w1 X1) / w0)], Brent's root
    finder for the quantiles and a bounded scalar search on the density for the mode."""
    from scipy import integrate, optimize, stats

    b0, b1 = stats.beta(a[0], b[0]), stats.beta(a[1], b[1])

    def cdf(x):
        f = lambda t: b0.cdf((x - w[1] * t) / w[0]) * b1.pdf(t)  # noqa: E731
        return integrate.quad(f, 0.0, 1.0, epsabs=1e-14, epsrel=1e-13, limit=500, points=[x / w[1]] if 0 < x / w[1] < 1 else None)[0]

    def pdf(x):
        f = lambda t: b0.pdf((x - w[1] * t) / w[0]) / w[0] * b1.pdf(t)  # noqa: E731
        return integrate.quad(f, 0.0, 1.0, epsabs=1e-13, epsrel=1e-12, limit=500)[0]

    mean = float(np.sum(w * np.asarray(a) / (np.asarray(a) + np.asarray(b))))
    sd = float(np.sqrt(np.sum(w**2 * np.asarray(a) * b / ((np.asarray(a) + b) ** 2 * (np.asarray(a) + b + 1)))))
    qs = [optimize.brentq(lambda x, q=q: cdf(x) - q, 0.0, 1.0, xtol=1e-14) for q in (0.025, 0.5, 0.975)]
    mode = optimize.minimize_scalar(
        lambda x: -pdf(x), bounds=(mean - 2 * sd, mean + 2 * sd), method="bounded",
        options={"xatol": 1e-10},
    ).x
    return np.array([mean, qs[1], mode, qs[0], qs[2], 1.0 - cdf(0.5)])


def matrices(quick: bool = False):
    rng = np.random.default_rng(1)
    yield "binary [[42,3],[6,4]]", np.array([[42, 3], [6, 4]])
    for l in (10,) if quick else (10, 1000):
        n = rng.integers(20, 200, l)
        k = rng.binomial(n, 0.8)
        m = np.zeros((l, l), dtype=np.int64)
        m[np.arange(l), np.arange(l)] = k
        m[np.arange(l), (np.arange(l) + 1) % l] = n - k
        yield f"{l} classes", m


def main(quick: bool = False) -> None:
    print(machine("numpy", "scipy"))
    rng = np.random.default_rng(0)
    print(
        f"{'matrix':24s} {'bacc (ms)':>10s} {'MC 1e5 (ms)':>12s} {'ratio':>7s} {'max |err| bacc':>15s} {'max |err| MC':>13s}"
    )
    for name, m in matrices(quick):
        cm = bacc.ConfusionMatrix(m)
        post = bacc.posterior_balanced_accuracy(cm)
        a, b, w = post.components
        repeat = 5 if quick or len(a) > 10 else 30
        t_b = timed(lambda a=a, b=b, w=w: summary_bacc(a, b, w), repeat, block=0.02, most=100)
        t_m = timed(lambda a=a, b=b, w=w: summary_mc(a, b, w, rng), max(3, repeat // 3),
                    block=0.02, most=100)
        s_b, s_m = summary_bacc(a, b, w), summary_mc(a, b, w, rng)
        if len(a) == 2:
            ref = reference_two(a, b, w)
        else:
            ref_d = BetaSum(a, b, w, resolution=32)
            lo, med, hi = ref_d.ppf([0.025, 0.5, 0.975])
            ref = np.array([ref_d.mean(), med, ref_d.mode(), lo, hi, ref_d.p_above(1.0 / len(a))])
        err_b = np.max(np.abs(np.array(s_b) - ref))
        err_m = np.max(np.abs(np.array(s_m) - ref))
        print(
            f"{name:24s} {t_b * 1e3:10.2f} {t_m * 1e3:12.1f} {t_m / t_b:7.1f} {err_b:15.1e} {err_m:13.1e}"
        )


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
