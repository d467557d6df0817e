"""Scores of 10^6 examples: the whole threshold curve with its bands, against scikit-learn.

Run: ``python benchmarks/bench_scores.py [--quick]`` (``--quick``: 3 x 10^4 examples)

bacc: ``bacc.scores(y, s)`` (the counts at every threshold) then ``.curve()`` (sample values,
posterior mean and credible band, exact pointwise and simultaneous bands, at 2 001 thresholds
spaced evenly in the examples and the best one, which is searched over every threshold). Also
timed: the ROC band, DeLong's AUC interval, a guaranteed threshold and the cross-fitted best
threshold. Baseline, in the same process: scikit-learn's ``roc_curve`` (counts and rates at
every threshold, no uncertainty) and ``roc_auc_score``.
"""

from __future__ import annotations

import sys

import numpy as np
from _timing import fastest, machine

import bacc


def main(quick: bool = False) -> None:
    from sklearn.metrics import roc_auc_score, roc_curve

    n = 30_000 if quick else 10**6
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.2).astype(np.int64)
    s = rng.normal(1.0 * y, 1.0)
    print(machine("numpy", "scipy", "sklearn"))
    print(f"{n:,} examples, {int(y.sum()):,} positive, continuous scores (every score distinct)")
    sc = bacc.scores(y, s)
    rows = [
        ("scores + curve with every band", lambda: bacc.scores(y, s).curve()),
        ("scores (counts at every threshold)", lambda: bacc.scores(y, s)),
        ("curve with bands (from the counts)", lambda: sc.curve()),
        ("ROC with simultaneous band", lambda: sc.roc()),
        ("AUC with DeLong's interval", lambda: sc.auc("delong")),
        ("AUC with the band interval", lambda: sc.auc("band")),
        ("threshold guaranteeing recall 0.9", lambda: sc.threshold_for(recall=0.9)),
        ("best threshold, 5 folds x 10 repeats", lambda: sc.best_threshold()),
    ]
    base_wall, base_cpu = fastest(lambda: roc_curve(y, s, drop_intermediate=False))
    auc_wall, _ = fastest(lambda: roc_auc_score(y, s))
    print(f"{'case':40s} {'wall (s)':>9s} {'CPU (s)':>8s} {'ratio roc_curve / bacc':>25s}")
    print(f"{'sklearn roc_curve (baseline)':40s} {base_wall:9.3f} {base_cpu:8.3f}")
    print(f"{'sklearn roc_auc_score':40s} {auc_wall:9.3f}")
    for name, fn in rows:
        wall, cpu = fastest(fn, repeat=2 if "best" in name else 3)
        print(f"{name:40s} {wall:9.3f} {cpu:8.3f} {base_wall / wall:25.2f}")
    cur = sc.curve()
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    same = np.allclose(sc.fp / sc.n_negative, fpr, atol=0) and np.allclose(sc.sensitivity, tpr,
                                                                          atol=0)
    print(f"rates equal scikit-learn's at all {len(fpr):,} thresholds: {same}; "
          f"AUC {sc.sample_auc:.10f} vs {roc_auc_score(y, s):.10f}; "
          f"curve shows {len(cur.thresholds):,} of {cur.n_thresholds:,} thresholds")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
