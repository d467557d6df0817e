"""Benchmark: the exact pairs of a paired ranking, all at once against one by one.

Design: ``T`` classifiers predicting the same ``n`` examples of ``l`` classes (a shared
difficulty per example makes them correlated, skills from 0.6 to 0.9).

Baseline (the previous path, run in this process): every pair's ``P(row > column)`` by its own
:class:`bacc.PairedDifference` (the lattice of :func:`bacc.compare_paired`), one pair after
another; on the full design it is timed on a sample of pairs and scaled to all of them (the
pairs cost about the same). Before, ``rank_paired`` computed pairs this way up to 10
classifiers and took every pair from the joint draws beyond.

Ours: the pairwise step of :func:`bacc.rank_paired` (all pairs at once by
``bacc._engine.paired_greater``, pairs it leaves one by one) and the whole ``rank_paired`` call
(the pairs, then P(best) and expected ranks from the joint draws), against the previous call
on the full design (every pair from 100 000 joint draws). Agreement: the largest
difference between our pairs and the baseline's on the pairs timed.

Run:  python benchmarks/bench_rank_paired.py [--quick]

``--quick``: 8 classifiers, 3 classes, 600 examples, 3 baseline pairs.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import fastest, machine, once

import bacc
from bacc._engine.joint import class_patterns
from bacc.ranking import _pair_alphas, _paired_exact


def design(T, l, n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, l, n)
    hard = rng.random(n)
    preds = {}
    for t, skill in enumerate(rng.uniform(0.6, 0.9, T)):
        right = rng.random(n) < np.clip(skill + 0.3 * (hard - 0.5), 0.0, 1.0)
        preds[f"m{t}"] = np.where(right, y, (y + rng.integers(1, l, n)) % l)
    return y, preds


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a small design, a few baseline pairs")
    args = ap.parse_args(argv)
    T, l, n, sample = (8, 3, 600, 3) if args.quick else (20, 10, 5000, 12)
    y, preds = design(T, l, n)
    right = np.column_stack([p == y for p in preds.values()])
    patterns = class_patterns(right, y, l)
    w = np.full(l, 1.0 / l)
    alpha = _pair_alphas(patterns, 0.5)
    pairs = alpha.shape[0]
    print(machine("numpy", "scipy"))
    print(f"{T} classifiers x {l} classes x {n} examples: {pairs} pairs")

    # baseline: one PairedDifference per pair, on a sample of pairs spread over all of them
    picked = np.linspace(0, pairs - 1, sample).round().astype(int)
    before = {}
    total = 0.0
    for k in picked:
        value, sec = once(lambda k=k: float(bacc.PairedDifference(alpha[k], w).sf(0.0)))
        before[int(k)] = value
        total += sec
    per_pair = total / sample
    baseline = per_pair * pairs

    # ours: the pairwise step, then the whole call
    p, _ = once(lambda: _paired_exact(patterns, w, 0.5, None, strict=True))
    step_wall, step_cpu = fastest(lambda: _paired_exact(patterns, w, 0.5, None, strict=True))
    iu, ju = np.triu_indices(T, 1)
    worst = max(abs(p[iu[k], ju[k]] - v) for k, v in before.items())
    r, _ = once(lambda: bacc.rank_paired(y, preds))
    call_wall, call_cpu = fastest(lambda: bacc.rank_paired(y, preds), repeat=2)

    print(f"baseline, one pair at a time: {per_pair * 1e3:.0f} ms a pair (mean of {sample}), "
          f"{baseline:.1f} s for the {pairs} pairs")
    print(f"all pairs at once: {step_wall:.3f} s wall, {step_cpu:.3f} s CPU; "
          f"ratio {baseline / step_wall:.0f}x")
    print(f"largest difference from the baseline on the {sample} pairs: {worst:.1e}")
    print(f"rank_paired end to end: {call_wall:.2f} s wall, {call_cpu:.2f} s CPU "
          f"(pairwise={r.pairwise!r}, {r.n_draws} joint draws)")
    if not args.quick:
        # the previous default beyond 10 classifiers: every pair from 100 000 joint draws
        old, old_wall = once(lambda: bacc.rank_paired(y, preds, pairwise="draws", n_draws=100_000))
        print(f"previous rank_paired (pairs from {old.n_draws} draws, Monte Carlo error up to "
              f"{np.nanmax(old.p_greater_se):.1e}): {old_wall:.1f} s; "
              f"end-to-end ratio {old_wall / call_wall:.1f}x")


if __name__ == "__main__":
    main()
