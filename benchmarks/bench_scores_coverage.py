"""Coverage of every AUC interval method on small and imbalanced designs, and of the
simultaneous ROC band and the guaranteed thresholds.

Run: ``python benchmarks/bench_scores_coverage.py [--quick]`` (``--quick``: 100 test sets per
design instead of 4 000)

For each design, ``bacc.auc_coverage`` draws test sets of binormal scores (or scores rounded to
a five-point rating scale), computes every interval of ``bacc.roc.AUC_METHODS`` and reports the
share containing the true AUC, with its Monte Carlo error. The time column is what the method
costs per test set, against DeLong's interval timed in the same run (ratio DeLong / method).
"""

from __future__ import annotations

import sys

from _timing import machine

import bacc
from bacc.roc import AUC_METHODS

DESIGNS = [
    # (positives, negatives, AUC, distribution)
    (10, 100, 0.9, "binormal"),
    (30, 300, 0.8, "binormal"),
    (20, 40, 0.85, "rating"),
    (100, 1000, 0.95, "binormal"),
]


def main(quick: bool = False) -> None:
    n_sim = 100 if quick else 4000
    print(machine("numpy", "scipy"))
    print(f"95 % intervals, {n_sim} simulated test sets per design")
    for P, N, auc, dist in DESIGNS:
        res = bacc.auc_coverage(tuple(AUC_METHODS), P, N, auc, distribution=dist,
                                n_simulations=n_sim, draws=1000, random_state=P + N)
        print(f"\n{P} positive, {N} negative, AUC {res.true_value:.4f} ({dist})")
        print(f"{'method':20s} {'kind':12s} {'coverage':>9s} {'MC se':>7s} {'width':>7s} "
              f"{'ms/set':>7s} {'ratio DeLong/method':>19s}")
        t_delong = res["delong"].seconds
        for m in res.methods:
            print(f"{m.method:20s} {AUC_METHODS[m.method].kind:12s} {m.coverage:9.4f} "
                  f"{m.mc_se:7.4f} {m.mean_width:7.4f} {1e3 * m.seconds / n_sim:7.3f} "
                  f"{t_delong / m.seconds:19.3f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
