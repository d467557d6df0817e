"""Coverage under continuous peeking: the anytime-valid sequence against the fixed-n exact
interval, each looked at after every label of a stream, and the widths it costs.

Designs (95 %, two-sided, looks after every label up to LABELS labels):

* one accuracy of 0.5, 0.9 and 0.995 (the sequence of ``bacc.anytime.anytime_bounds``, tuned
  for 1 000 examples, against Clopper-Pearson recomputed at each label);
* the balanced accuracy of two classes of very different frequency (5 % / 95 %) and of five
  classes (the product-martingale sequence of ``bacc.confidence_sequence``, tuned for 1 000
  examples per class, against the union bound of Sandler & Dirac (2024) recomputed at each
  label).

For one accuracy the sequence excludes ``p`` at a look exactly when the running count leaves
the band ``{k : log M_n(p) < log(1/alpha)}``, computed once per ``n``; the fixed-n interval
excludes ``p`` exactly when a binomial tail at ``p`` is at most ``alpha / 2`` (Clopper &
Pearson 1934). For the balanced accuracy the share given is that of streams where the product
of the classes' martingales at the true accuracies ever reaches ``1 / alpha``: the event that
contains every exclusion by the sequence (an upper bound on its failure rate); the union bound
is recomputed at every label on fewer streams (its bounds per look are the costly part).

Also printed: widths at the tuned size against the fixed-n interval, and the cost of one
interval (``anytime_interval`` against ``exact_interval`` in the same process).

Run:  python benchmarks/bench_anytime_coverage.py            (10 000 streams of 10 000 labels)
      python benchmarks/bench_anytime_coverage.py --quick    (150 streams of 1 000 labels: a smoke
                                                             test; the figures come from the full run)
"""

from __future__ import annotations

import math
import sys

import numpy as np
from _timing import Stopwatch, machine, timed
from scipy import stats

import bacc
import bacc.anytime
from bacc._engine.bounds import anytime as engine
from bacc._engine.bounds.per_class import cp_bounds, per_bound_alpha

ALPHA = 0.05
L = math.log(1 / ALPHA)
TUNED = 1000


def one_accuracy(p: float, labels: int, streams: int, seed: int) -> tuple[float, float]:
    """Shares of streams where the sequence / the fixed-n Clopper-Pearson interval ever
    excludes ``p``."""
    rng = np.random.default_rng(seed)
    c = float(engine.concentration(TUNED, ALPHA))
    n = np.arange(1, labels + 1)
    lo_seq = np.empty(labels)
    hi_seq = np.empty(labels)
    lo_cp = np.empty(labels)
    hi_cp = np.empty(labels)
    for i, m in enumerate(n):
        ks = np.arange(m + 1)
        out = engine.log_mixture(p, ks, m, c) >= L
        centre = int(round(p * m))
        below, above = np.nonzero(out[: centre + 1])[0], np.nonzero(out[centre:])[0]
        lo_seq[i] = below.max() if below.size else -1
        hi_seq[i] = centre + above.min() if above.size else m + 1
        lower_tail = stats.binom.cdf(ks, m, p) <= ALPHA / 2
        upper_tail = stats.binom.sf(ks - 1, m, p) <= ALPHA / 2
        lo_cp[i] = lower_tail.nonzero()[0].max() if lower_tail.any() else -1
        hi_cp[i] = upper_tail.nonzero()[0].min() if upper_tail.any() else m + 1
    seq = cp = 0
    for start in range(0, streams, 250):
        size = min(250, streams - start)
        k = np.cumsum(rng.random((size, labels)) < p, axis=1)
        seq += int(np.any((k <= lo_seq) | (k >= hi_seq), axis=1).sum())
        cp += int(np.any((k <= lo_cp) | (k >= hi_cp), axis=1).sum())
    return seq / streams, cp / streams


def balanced(prevalence, acc, labels: int, streams: int, union_streams: int, seed: int):
    """Shares of streams where the product martingale at the truth ever reaches 1/alpha, and
    where the fixed-n union interval recomputed at every label ever excludes the truth."""
    rng = np.random.default_rng(seed)
    acc = np.asarray(acc, dtype=float)
    prevalence = np.asarray(prevalence, dtype=float)
    truth = acc.mean()
    n_classes = acc.size
    c = float(engine.concentration(TUNED, ALPHA))
    a_union = per_bound_alpha(1 - ALPHA, n_classes, "two", "union")
    seq = union = 0
    done_union = 0
    chunk = 100
    for start in range(0, streams, chunk):
        size = min(chunk, streams - start)
        cls = rng.choice(n_classes, size=(size, labels), p=prevalence)
        ok = rng.random((size, labels)) < acc[cls]
        total = np.zeros((size, labels))
        ns, ks = [], []
        for j in range(n_classes):
            nj = np.cumsum(cls == j, axis=1)
            kj = np.cumsum((cls == j) & ok, axis=1)
            total += engine.log_mixture(acc[j], kj, nj, c)
            ns.append(nj)
            ks.append(kj)
        seq += int(np.any(total >= L, axis=1).sum())
        if done_union < union_streams:
            take = min(size, union_streams - done_union)
            lo = np.zeros((take, labels))
            hi = np.zeros((take, labels))
            for j in range(n_classes):
                lj, hj = cp_bounds(ks[j][:take].astype(float), ns[j][:take].astype(float),
                                   a_union, "two")
                lo += lj / n_classes
                hi += hj / n_classes
            union += int(np.any((lo > truth) | (hi < truth), axis=1).sum())
            done_union += take
    return seq / streams, union / done_union, done_union


def widths() -> list[str]:
    """Width of the sequence at its tuned size against the fixed-n exact interval."""
    rows = []
    for p in (0.5, 0.9, 0.99):
        k = round(p * TUNED)
        lo, hi = bacc.anytime.anytime_bounds(k, TUNED, tuned_for=TUNED)
        cl, ch = bacc.clopper_pearson(k, TUNED)
        rows.append(f"  one accuracy {p}: sequence / Clopper-Pearson = {(hi - lo) / (ch - cl):.3f}")
    for acc in ((0.9, 0.8), (0.6, 0.95), (0.99, 0.9)):
        k = [round(a * TUNED) for a in acc]
        cm = [[k[0], TUNED - k[0]], [TUNED - k[1], k[1]]]
        seq = bacc.anytime_interval(cm, tuned_for=TUNED)
        fixed = bacc.exact_interval(cm, method="union")
        rows.append(f"  balanced accuracy of {acc}: sequence / union = {seq.width / fixed.width:.3f}")
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    labels, streams, union_streams = (1000, 150, 30) if quick else (10_000, 10_000, 1000)
    print(machine())
    print(f"{streams} streams of {labels} labels, looked at after every label; 95 %, two-sided; "
          f"tuned for {TUNED} examples (per class)")
    se = math.sqrt(ALPHA * (1 - ALPHA) / streams)
    print(f"Monte Carlo standard error at 5 %: {se:.4f}")
    for i, p in enumerate((0.5, 0.9, 0.995)):
        with Stopwatch() as sw:
            seq, cp = one_accuracy(p, labels, streams, seed=100 + i)
        print(f"one accuracy {p}: ever excludes the truth: sequence {seq:.4f}, "
              f"fixed-n Clopper-Pearson {cp:.4f}   ({sw.wall:.0f} s)")
    for i, (name, prev, acc) in enumerate((
            ("two classes, 5 % / 95 %", (0.05, 0.95), (0.7, 0.97)),
            ("five classes", (0.1, 0.15, 0.2, 0.25, 0.3), (0.6, 0.75, 0.85, 0.9, 0.95)))):
        with Stopwatch() as sw:
            seq, union, m = balanced(prev, acc, labels, streams, union_streams, seed=200 + i)
        print(f"balanced accuracy, {name}: ever excludes the truth: sequence <= {seq:.4f} "
              f"(martingale event), fixed-n union bound {union:.4f} ({m} streams)   "
              f"({sw.wall:.0f} s)")
    print("widths at the tuned size:")
    for row in widths():
        print(row)
    cm = [[420, 30], [60, 40]]
    t_any = timed(lambda: bacc.anytime_interval(cm))
    t_exact = timed(lambda: bacc.exact_interval(cm))
    print(f"one interval of two classes: anytime_interval {1e3 * t_any:.1f} ms, exact_interval "
          f"{1e3 * t_exact:.2f} ms (ratio {t_any / t_exact:.0f})")


if __name__ == "__main__":
    main()
