"""The betting sequence's cap on the share at risk: lifted to the fractional Kelly share (as
shipped) against the plain cap of 1/2 of Waudby-Smith & Ramdas, on the same seeded streams.

Data: ``--streams`` seeded streams (seed ``--seed``) of ``--labels`` Bernoulli outcomes
(1 = correct) for each true accuracy p in {0.5, 0.7, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999}.
Each stream's two-sided 95 % betting sequence, with the running intersection, is read at
n = 10, 30, 100, 300, 1 000 and 3 000 labels:

* bacc: ``bacc._engine.bounds.betting.stream_bounds`` as shipped (the cap lifted to the
  fractional Kelly share of the running accuracy where that is larger);
* baseline: the same function with the plain cap (``KELLY_PSEUDO = inf``: the Kelly share is
  never above 1/2), which is the hedged capital of Waudby-Smith & Ramdas 2024 as their
  reference implementation bets.

Printed: the mean width as shipped over the mean width with the plain cap, for each p and n
(below 1: narrower), and the CPU time of all the streams each way, with the ratio
plain / shipped.

Run:  python benchmarks/bench_betting_cap.py [--streams 100] [--labels 3000] [--seed 7]
      python benchmarks/bench_betting_cap.py --quick   (3 streams of 300 labels)
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from _timing import Stopwatch, machine

from bacc._engine.bounds import betting

PS = (0.5, 0.7, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
LOOKS = (10, 30, 100, 300, 1000, 3000)


def widths(streams: np.ndarray, looks: list[int]) -> np.ndarray:
    """Mean width at each look over the streams (rows)."""
    out = [np.subtract(*betting.stream_bounds(x, looks, 0.05, "two")[::-1]) for x in streams]
    return np.mean(out, axis=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=100)
    ap.add_argument("--labels", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.streams, args.labels = 3, 300
    looks = [n for n in LOOKS if n <= args.labels]
    rng = np.random.default_rng(args.seed)
    print(machine())
    print(f"{args.streams} streams of {args.labels} labels for each p, seed {args.seed}; "
          "mean width with the Kelly-lifted cap / with the plain cap of 1/2")
    shipped_cpu = plain_cpu = 0.0
    shipped_pseudo = betting.KELLY_PSEUDO
    for p in PS:
        x = (rng.random((args.streams, args.labels)) < p).astype(float)
        with Stopwatch() as clock:
            lifted = widths(x, looks)
        shipped_cpu += clock.cpu
        betting.KELLY_PSEUDO = math.inf
        try:
            with Stopwatch() as clock:
                plain = widths(x, looks)
        finally:
            betting.KELLY_PSEUDO = shipped_pseudo
        plain_cpu += clock.cpu
        print(f"p={p}: " + "  ".join(f"n={n}: {r:.3f}" for n, r in zip(looks, lifted / plain,
                                                                         strict=True)))
    print(f"CPU time, all streams: lifted cap {shipped_cpu:.1f} s, plain cap {plain_cpu:.1f} s; "
          f"ratio plain / lifted {plain_cpu / shipped_cpu:.2f}")


if __name__ == "__main__":
    main()
