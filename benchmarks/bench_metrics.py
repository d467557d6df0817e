"""Posteriors of other metrics (``bacc.posterior_metric``) against a plain numpy Monte Carlo.

Run: ``python benchmarks/bench_metrics.py [--quick]`` (``--quick``: three closed-form rows)

Baseline: 10^5 draws of the same Dirichlet model in numpy (Gamma draws of the cells, the
metric of each draw, mean and two quantiles), timed in the same process. bacc's exact metrics
have no Monte Carlo error; its Monte Carlo metrics draw until their standard errors (mean,
median, interval ends) are at most 1e-3.
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import machine, timed

import bacc
from bacc.metric_posterior import population_metric


def numpy_mc(cm, metric, label, n=100_000, seed=0):
    cm = np.asarray(cm, dtype=float)
    l = cm.shape[0]
    alpha = cm + np.where(np.eye(l, dtype=bool), 1.0, 1.0 / (l - 1))
    rng = np.random.default_rng(seed)
    g = rng.gamma(alpha, size=(n, l, l))
    prev = cm.sum(axis=1) / cm.sum()
    P = g / g.sum(axis=2, keepdims=True) * prev[None, :, None]
    v = population_metric(metric, P)
    v = v if label is None else v[:, label]
    return v.mean(), np.quantile(v, [0.025, 0.975])


def row(name, cm, metric, label=None, **kw):
    t_b = timed(lambda: bacc.posterior_metric(cm, metric, label=label, **kw), repeat=3, most=50)
    t_n = timed(lambda: numpy_mc(cm, metric, label), repeat=3, most=20)
    r = bacc.posterior_metric(cm, metric, label=label, **kw)
    err = "exact" if r.exact else f"MC se <= {max(r.mc_se.values()):.1e} ({r.distribution.n_draws} draws)"
    print(f"{name:44s} {1e3 * t_b:9.1f} {1e3 * t_n:11.1f} {t_n / t_b:7.1f}   {err}")


def main(quick: bool = False) -> None:
    print(machine("numpy"))
    print(f"{'case':44s} {'bacc (ms)':>9s} {'numpy 1e5':>11s} {'ratio':>7s}")
    two = [[4950, 50], [3, 17]]
    row("recall, 2 classes", two, "recall", label=1)
    row("balanced accuracy, 2 classes", two, "balanced_accuracy")
    row("precision, 2 classes, random design", two, "precision", label=1, design="random")
    if quick:
        return
    row("precision at prevalence 0.00425, 2 classes", two, "precision", label=1, prevalence=0.00425)
    row("balanced precision, 2 classes", two, "balanced_precision", label=1)
    row("F1 at the test set's prevalence, 2 classes", two, "f1", label=1)
    row("kappa, 2 classes", two, "cohen_kappa")
    rng = np.random.default_rng(0)
    ten = rng.integers(0, 8, (10, 10)) + np.diag(rng.integers(80, 150, 10))
    row("macro F1, 10 classes", ten, "macro_f1")
    row("macro F1, 10 classes, sampler='sobol'", ten, "macro_f1", sampler="sobol")
    row("kappa, 10 classes", ten, "cohen_kappa")
    row("Matthews, 10 classes", ten, "matthews")
    hundred = rng.integers(0, 8, (100, 100)) + np.diag(rng.integers(80, 150, 100))
    row("macro F1, 100 classes", hundred, "macro_f1")

    # precision at equal numbers of draws: pseudo-random against scrambled Sobol (RMSE over
    # 10 seeds, against 2e6 pseudo-random draws)
    ref = bacc.posterior_metric(ten, "macro_f1", n_draws=2_000_000, random_state=99)
    print()
    print("macro F1, 10 classes: RMSE over 10 seeds at 4096 draws (reference: 2e6 draws)")
    for sampler in ("random", "sobol"):
        err = []
        for seed in range(10):
            r = bacc.posterior_metric(ten, "macro_f1", n_draws=4096, random_state=seed,
                                      sampler=sampler)
            err.append([r.mean - ref.mean, r.lower - ref.lower, r.upper - ref.upper])
        e = np.sqrt(np.mean(np.square(err), axis=0))
        print(f"  {sampler:7s} mean {e[0]:.1e}  lower {e[1]:.1e}  upper {e[2]:.1e}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
