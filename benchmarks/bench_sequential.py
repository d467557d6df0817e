"""The sequential labelling plan (``bacc.plan_sequential``): blocks of steps scanned together
against the scan label by label, in one process, with the same numbers.

``plan_sequential`` simulates streams of labels and stops each one at the first label where the
anytime-valid lower bound clears the goal. The counts' paths do not depend on when a stream
stops, so the simulation draws a block of steps at once and scans the steps of a block
together: each round computes, for every stream that needs one, the half-space minimum at the
first step of the block where the stream's kept point has left the set.

* bacc: ``bacc.plan_sequential(...)`` as shipped (blocks of up to 256 steps);
* baseline: the same function scanning one step at a time (``_BLOCK_STEPS = 1``), which is the
  label-by-label scan: the same computations for every stream, in many small calls;
* the check: the two plans are equal, field by field (the stopping-time distribution, the
  probability of clearing, the fixed-size plan beside it).

Both are timed as the fastest of a few single calls (wall-clock and CPU); the ratio is
baseline / bacc in CPU time.

Run:  python benchmarks/bench_sequential.py [--quick]

``--quick`` plans one small design once each way.
"""

from __future__ import annotations

import dataclasses
import sys

from _timing import fastest, machine

import bacc
import bacc.sequential as sequential

DESIGNS = {
    # the command line's defaults: bacc plan --matrix "42,3;6,4" --lower 0.55 --sequential
    "two classes, stratified (CLI defaults)": dict(cm=[[42, 3], [6, 4]], lower=0.55),
    "two classes, an 80 / 20 mix": dict(cm=[[42, 3], [6, 4]], lower=0.6, mix=[0.8, 0.2],
                                        n_simulations=500, random_state=3),
    "three classes, stratified": dict(cm=[[20, 2, 1], [3, 15, 2], [1, 1, 9]], lower=0.6,
                                      n_simulations=300, max_labels=3000),
}
QUICK = {"two classes (quick)": dict(cm=[[42, 3], [6, 4]], lower=0.55, n_simulations=100,
                                     max_labels=200)}


def _plan(design: dict, steps: int) -> dict:
    """The plan as a dict, scanning ``steps`` steps per block."""
    kept = sequential._BLOCK_STEPS
    sequential._BLOCK_STEPS = steps
    try:
        kw = dict(design)
        return dataclasses.asdict(bacc.plan_sequential(kw.pop("cm"), **kw))
    finally:
        sequential._BLOCK_STEPS = kept


def main(quick: bool = False) -> None:
    print(machine("numpy", "scipy"))
    designs = QUICK if quick else DESIGNS
    repeat = 1 if quick else 3
    blocks = sequential._BLOCK_STEPS
    print(f"{'design':<42} {'bacc s':>8} {'label by label s':>17} {'ratio':>7}  same plan")
    for name, design in designs.items():
        ours, base = _plan(design, blocks), _plan(design, 1)
        same = ours == base
        wall_b, cpu_b = fastest(lambda d=design: _plan(d, blocks), repeat)
        wall_1, cpu_1 = fastest(lambda d=design: _plan(d, 1), repeat)
        print(f"{name:<42} {cpu_b:>8.2f} {cpu_1:>17.2f} {cpu_1 / cpu_b:>7.1f}  {same}"
              f"   (wall {wall_b:.2f} s / {wall_1:.2f} s; p_clear {ours['p_clear']:.3f}, "
              f"median {ours['median_labels']} labels)")
        if not same:
            raise SystemExit(f"{name}: the plans differ")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
