"""Label planning (``bacc.plan_labels``): time of a plan against a brute-force baseline, in one
process, and the plan's promise checked by that baseline.

For each design:

* bacc: ``bacc.plan_labels(...)`` -- the whole search over plan sizes, every assurance an exact
  sum over the beta-binomial outcomes (median of 3 calls);
* baseline: a brute-force simulation of the labelling process at *one* candidate size (the
  planned one): 20 000 replications, each drawing the class accuracies from the design prior
  and every further label (class and correctness), scored by ``bacc.exact_interval`` once per
  distinct final matrix (``brute_force`` below). Its answer carries a
  Monte Carlo error of about 0.003. A search needs it at every candidate size whose assurance
  the plan's search computed ("tried"; its quick guesses on binned outcomes and a mix's
  fixed-size surrogate are not counted): "brute all" is tried x brute 1, and the ratio is
  brute all / plan.
* the check: the brute force pooled over 5 x 20 000 replications at the planned size and at one
  label fewer, beside the exact assurances.

Run:  python benchmarks/bench_planning.py [--quick]

``--quick`` plans one small design and simulates 2 000 replications, without the checks.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from _timing import machine, once, timed

import bacc

DESIGNS = {
    # two balanced classes, nothing labelled yet, a prior guess "about 0.9, worth 20 labels"
    "two classes from an empty matrix": dict(cm=None, lower=0.8, prior=(18, 2)),
    # a rare positive class: labels arrive 95 / 5
    "imbalanced 0.95 / 0.05 mix": dict(cm=[[95, 5], [2, 8]], lower=0.7, mix=[0.95, 0.05]),
    # three classes, a width goal, stratified
    "three classes, width": dict(cm=[[30, 2, 1], [3, 25, 2], [1, 1, 8]], width=0.25),
    # the class of each label chosen
    "two classes, chosen (stratified)": dict(cm=[[95, 5], [2, 8]], lower=0.7),
}
R = 20_000  # brute-force replications per run: Monte Carlo error about 0.003 at 0.8
CHUNKS = 5
DIRECT = 1_000_000


def _matrix(k, n) -> np.ndarray:
    """A confusion matrix with ``k`` correct of ``n`` per class (errors in the next column)."""
    l = len(k)
    cm = np.zeros((l, l), dtype=np.int64)
    for i in range(l):
        cm[i, i] = k[i]
        cm[i, (i + 1) % l] += n[i] - k[i]
    return cm


def _met(k, n, plan) -> bool:
    """Does the interval bacc reports for these counts meet the plan's goal?"""
    iv = bacc.exact_interval(_matrix(k, n), confidence=plan.confidence, sides=plan.sides,
                             empty="keep")
    return iv.lower > plan.target if plan.goal == "lower" else iv.width <= plan.target


def _score(k, n, plan) -> tuple[float, float]:
    """Share of replications meeting the goal (each distinct outcome scored once), with its
    Monte Carlo standard error."""
    rows = np.concatenate([k, np.broadcast_to(n, k.shape)], axis=1)
    uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    l = k.shape[1]
    met = np.array([_met(u[:l], u[l:], plan) for u in uniq])[inv.ravel()]
    p = float(met.mean())
    return p, math.sqrt(p * (1 - p) / met.size)


def brute_force(plan, prior=(1.0, 1.0), random_state=0, replications=R):
    """Simulate the labelling process label by label: draw the class accuracies from the design
    prior, then every further label (its class from the mix, or as planned per class) and
    whether the classifier got it right; score the final matrix with ``bacc.exact_interval``.
    The state one label earlier is the same sequence without its last label. Returns the
    (assurance, standard error) at the plan and at one label fewer."""
    rng = np.random.default_rng(random_state)
    k0, n0 = np.array(plan.correct), np.array(plan.support)
    l = k0.size
    a, b = np.broadcast_to(np.asarray(prior, dtype=float), (l, 2)).T
    theta = rng.beta(a + k0, b + n0 - k0, size=(replications, l))
    out = []
    if plan.design == "mix":
        total = plan.labels
        cls = rng.choice(l, size=(replications, total), p=plan.mix)
        right = rng.random((replications, total)) < np.take_along_axis(theta, cls, axis=1)
        for t in (total, total - 1):
            n_add = np.stack([(cls[:, :t] == i).sum(1) for i in range(l)], axis=1)
            k_add = np.stack([((cls[:, :t] == i) & right[:, :t]).sum(1) for i in range(l)], axis=1)
            out.append(_score(k0 + k_add, n0 + n_add, plan))
    else:
        m, m1 = np.array(plan.per_class, dtype=int), np.array(plan.one_fewer_per_class, dtype=int)
        seqs = [rng.random((replications, max(m[i], m1[i]))) < theta[:, [i]] for i in range(l)]
        for alloc in (m, m1):
            k_add = np.stack([seqs[i][:, : alloc[i]].sum(1) for i in range(l)], axis=1)
            out.append(_score(k0 + k_add, n0 + alloc, plan))
    return out


def pooled(plan, prior) -> tuple[tuple[float, float], tuple[float, float]]:
    """Brute-force assurance at the plan and one label fewer, pooled over independent runs."""
    runs = [brute_force(plan, prior=prior, random_state=100 + r) for r in range(CHUNKS)]
    out = []
    for j in range(2):
        p = float(np.mean([r[j][0] for r in runs]))
        out.append((p, math.sqrt(p * (1 - p) / (CHUNKS * R))))
    return out[0], out[1]


def direct(plan, prior, random_state=12345) -> tuple[float, float]:
    """The assurance at the plan from 10^6 draws of the final counts (class sizes multinomial
    or fixed, correct counts binomial given accuracies from the design prior), each distinct
    matrix scored once by ``bacc.exact_interval``: the same quantity as the label-by-label
    brute force, with a smaller Monte Carlo error."""
    rng = np.random.default_rng(random_state)
    k0, n0 = np.array(plan.correct), np.array(plan.support)
    l = k0.size
    a, b = np.broadcast_to(np.asarray(prior, dtype=float), (l, 2)).T
    theta = rng.beta(a + k0, b + n0 - k0, size=(DIRECT, l))
    if plan.design == "mix":
        sizes = rng.multinomial(plan.labels, plan.mix, size=DIRECT)
    else:
        sizes = np.broadcast_to(np.array(plan.per_class, dtype=np.int64), (DIRECT, l))
    k = k0 + rng.binomial(sizes, theta)
    n = n0 + sizes
    uniq, inv = np.unique(np.concatenate([k, n], axis=1), axis=0, return_inverse=True)
    met = np.array([_met(row[:l], row[l:], plan) for row in uniq], dtype=bool)
    p = float(met[inv.ravel()].mean())
    return p, math.sqrt(p * (1 - p) / DIRECT)


def sizes_tried(kw) -> int:
    """Candidate plans whose assurance the search computed (counted by wrapping its cache)."""
    from bacc import planning

    seen = []
    original = planning._Search.assurance

    def counting(self, alloc):
        key = alloc if isinstance(alloc, int) else tuple(int(x) for x in alloc)
        if key not in self._memo:
            seen.append(key)
        return original(self, alloc)

    planning._Search.assurance = counting
    try:
        bacc.plan_labels(**kw)
    finally:
        planning._Search.assurance = original
    return len(seen)


def main(quick: bool = False) -> None:
    print(machine("numpy", "scipy"))
    designs = DESIGNS
    if quick:
        designs = {"two classes, chosen (stratified)": DESIGNS["two classes, chosen (stratified)"]}
    replications = 2_000 if quick else R
    if quick:
        print(f"(quick: {replications:,} replications per brute-force run)")
    print(f"{'design':34s} {'N':>4s} {'plan ms':>8s} {'tried':>6s} {'brute 1 (s)':>12s} "
          f"{'brute all (s)':>14s} {'ratio':>6s}")
    checks = []
    for name, kw in designs.items():
        plan = bacc.plan_labels(**kw)
        t_plan = timed(lambda kw=kw: bacc.plan_labels(**kw), repeat=3, block=0.0)
        prior = kw.get("prior", (1.0, 1.0))
        _, t_brute = once(lambda plan=plan, prior=prior: brute_force(
            plan, prior=prior, random_state=0, replications=replications))
        tried = sizes_tried(kw)
        print(f"{name:34s} {plan.labels:4d} {t_plan * 1e3:8.1f} {tried:6d} {t_brute:12.2f} "
              f"{tried * t_brute:14.1f} {tried * t_brute / t_plan:6.0f}")
        if not quick:
            checks.append((name, plan, pooled(plan, prior), direct(plan, prior)))
    if quick:
        return
    print()
    print(f"brute-force check ({CHUNKS} x 20 000 replications; exact = bacc's assurance):")
    for name, plan, ((p_n, se_n), (p_l, se_l)), (p_d, se_d) in checks:
        per = ", ".join(f"{x:g}" for x in plan.per_class)
        print(f"  {name}: N = {plan.labels} ({per})")
        print(f"    at N:     exact {plan.assurance:.4f}   brute force {p_n:.4f} +- {se_n:.4f}   "
              f"10^6 direct draws {p_d:.4f} +- {se_d:.4f}")
        print(f"    at N - 1: exact {plan.assurance_one_fewer:.4f}   brute force {p_l:.4f} +- "
              f"{se_l:.4f}")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
