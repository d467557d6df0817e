"""The Bayesian bootstrap of the AUC: one Gamma weight per run of scores, against a Dirichlet
weight per example.

Run: ``python benchmarks/bench_auc_bootstrap.py [--quick]`` (``--quick``: two designs, 200
draws)

bacc: ``bacc._engine.roc.bayesian_bootstrap_auc``, the draws behind
``bacc.scores(y, s).auc("bayesian-bootstrap")``: the examples of one class whose scores follow
each other with no score of the other class between them share one Gamma(size) weight (the sum
of their Exp(1) weights), so an imbalanced test set needs far fewer variables per draw than it
has examples. Baseline, in the same process: the Bayesian bootstrap as Gu, Ghosal & Roy (2008)
define it, in numpy, a Dirichlet weight per example of each class and the weighted
Mann-Whitney area from the sorted negatives (``rng.dirichlet`` and one ``cumsum`` per draw
block). Binormal scores (positives N(1, 1), negatives N(0, 1)), every score distinct. Both give
draws of one law: the means and standard deviations of 20 000 draws of each (4 000 with
``--quick``) are printed, with their differences in units of their Monte Carlo standard errors
(``z``).
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import fastest, machine

from bacc._engine import roc


def per_example(pos: np.ndarray, neg: np.ndarray, draws: int, rng) -> np.ndarray:
    """Draws of the Bayesian bootstrap AUC with a Dirichlet weight per example (the baseline)."""
    neg_sorted = np.sort(neg)
    below = np.searchsorted(neg_sorted, pos, side="left")  # negatives under each positive
    out = np.empty(draws)
    block = max(1, 2_000_000 // (pos.size + neg.size))
    for start in range(0, draws, block):
        c = min(block, draws - start)
        p = rng.dirichlet(np.ones(pos.size), size=c)
        q = rng.dirichlet(np.ones(neg.size), size=c)
        cum = np.concatenate([np.zeros((c, 1)), np.cumsum(q, axis=1)], axis=1)
        out[start:start + c] = np.einsum("ij,ij->i", p, cum[:, below])
    return out


def main(quick: bool = False) -> None:
    designs = [(30, 300), (200, 20_000)] if quick else [(10, 100), (30, 300), (60, 60),
                                                         (200, 20_000), (1000, 1000)]
    draws = 200 if quick else 2000
    print(machine("numpy"))
    print(f"{draws} draws of the AUC per call (fastest of 3 calls)")
    check = 4000 if quick else 20_000
    print(f"{'positives':>9s} {'negatives':>9s} {'runs':>6s} {'per example (s)':>16s} "
          f"{'runs (s)':>9s} {'ratio':>7s} {'mean, sd (per example)':>24s} {'mean, sd (runs)':>18s}"
          f" {'z mean, z sd':>13s}")
    rng = np.random.default_rng(0)
    for n_pos, n_neg in designs:
        pos, neg = rng.normal(1.0, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)
        y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
        _, tp, fp = roc.threshold_counts(y, np.r_[pos, neg])
        runs = roc._runs(np.diff(tp), np.diff(fp))[0].size
        base, _ = fastest(lambda pos=pos, neg=neg: per_example(pos, neg, draws,
                                                               np.random.default_rng(1)))
        ours, _ = fastest(lambda tp=tp, fp=fp: roc.bayesian_bootstrap_auc(
            tp, fp, draws, np.random.default_rng(1)))
        a = per_example(pos, neg, check, np.random.default_rng(2))
        b = roc.bayesian_bootstrap_auc(tp, fp, check, np.random.default_rng(3))
        z_mean = (b.mean() - a.mean()) / np.sqrt((a.var() + b.var()) / check)
        z_sd = (b.std() - a.std()) / np.sqrt((a.var() + b.var()) / (2 * check))
        print(f"{n_pos:9d} {n_neg:9d} {runs:6d} {base:16.4f} {ours:9.4f} {base / ours:6.1f}x "
              f"{a.mean():11.4f}, {a.std():.4f} {b.mean():10.4f}, {b.std():.4f} "
              f"{z_mean:6.1f}, {z_sd:4.1f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
