"""Monitoring many detectors over time: ``bacc.monitor`` against pandas + a loop, in one process.

Data: a Parquet file of binary predictions of D detectors over a year (2025), written once into
a temporary folder (fixed random_state). bacc counts per detector and 7-day window in DuckDB, evaluates
every window in one batch call and computes P(window worse than the pooled previous 4 windows)
for all windows at once. The baseline is the usual script: pandas ``read_parquet``, the
windows' Monday with pandas datetime arithmetic, ``groupby(...).size()``, then a loop over the
windows of ``bacc.evaluate`` and ``bacc.compare`` (timed on a sample of windows and scaled to
all). Prints the times, the ratio, and the largest differences between the two (counts, means,
P(worse)).

With ``--pairs N`` it times instead the P(worse) kernel alone on N simulated windows (class
sizes Poisson around ``--per-day`` times the window's days, 70/30, baselines of 4 windows,
class accuracies in [0.85, 0.97]): the two-class quadrature (``p_worse_pairs``, the baseline, which
``bacc.monitor`` keeps for the rows the lattice leaves) against ``bacc.monitor``'s P(worse) (the batched lattice, the quadrature
for the rows it leaves), in one process, and both against the exact ``BetaSum`` of the
difference on a sample of 400 windows.

Run:  python benchmarks/bench_monitor.py [--detectors 500] [--per-day 20] [--window 7D] [--loop 400]
      python benchmarks/bench_monitor.py --pairs 100000 [--per-day 20] [--window 1D]
      python benchmarks/bench_monitor.py --quick   (5 detectors end to end, then 500 windows)
"""

from __future__ import annotations

import argparse
import os
import tempfile
import warnings

import numpy as np
from _timing import Stopwatch, machine, once

import bacc


def write_log(path: str, detectors: int, per_day: int, random_state: int = 2025) -> int:
    """Predictions of ``detectors`` binary detectors, ``per_day`` a day each, over 2025."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(random_state)
    acc = rng.uniform(0.85, 0.97, (detectors, 2))
    start = np.datetime64("2025-01-01T00:00:00", "us").astype(np.int64)
    names = np.array([f"det{i:04d}" for i in range(detectors)])
    per = per_day * 365
    writer = None
    step = max(1, 2_000_000 // per)
    for d0 in range(0, detectors, step):
        det = np.repeat(np.arange(d0, min(detectors, d0 + step)), per)
        n = det.size
        ts = start + rng.integers(0, 365 * 86_400_000_000, n)
        y = (rng.random(n) < 0.3).astype(np.int8)
        right = rng.random(n) < acc[det, y]
        table = pa.table({"detector": names[det], "ts": ts.astype("datetime64[us]"), "label": y,
                          "predicted": np.where(right, y, 1 - y).astype(np.int8)})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()
    return detectors * per


def pandas_loop(path: str, lookback: int, loop: int):
    """The usual script: pandas counts, then one evaluate and compare per window."""
    import pandas as pd

    with Stopwatch() as sw:
        df = pd.read_parquet(path)
        ts = df["ts"]
        df["week"] = ts.dt.normalize() - pd.to_timedelta(ts.dt.day_of_week, unit="D")
        size = df.groupby(["detector", "week", "label", "predicted"]).size()
    t_count = sw.wall
    cells = size.unstack(["label", "predicted"], fill_value=0)
    keys = list(cells.index)
    mats = cells[[(0, 0), (0, 1), (1, 0), (1, 1)]].to_numpy().reshape(-1, 2, 2)
    # previous `lookback` windows of the same detector (calendar weeks), summed
    idx = {k: i for i, k in enumerate(keys)}
    rng = np.random.default_rng(0)
    sample = np.sort(rng.choice(len(keys), size=min(loop, len(keys)), replace=False))
    out = {}
    with Stopwatch() as sw, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in sample:
            d, w = keys[i]
            prev = [idx.get((d, w - pd.Timedelta(days=7 * j))) for j in range(1, lookback + 1)]
            prev = [p for p in prev if p is not None]
            ev = bacc.evaluate(mats[i])
            p = float("nan")
            if prev:
                base = mats[prev].sum(axis=0)
                if (base.sum(axis=1) > 0).all() and (mats[i].sum(axis=1) > 0).all():
                    p = bacc.compare(base, mats[i]).p_better
            out[(d, w.to_datetime64())] = (mats[i], ev.balanced_accuracy_summary.mean, p)
    t_loop = sw.wall / sample.size * len(keys)
    return t_count, t_loop, len(keys), out


def bench_pairs(pairs: int, per_day: int, days: int, random_state: int = 2025,
                check: int = 400) -> None:
    """P(worse) of ``pairs`` simulated windows: the two-class quadrature against the batched
    lattice (with the quadrature for the rows it leaves), and both against ``BetaSum``."""
    from bacc._engine.sums.worse_than_baseline import p_worse_lattice, p_worse_pairs
    from bacc.distributions import BetaSum
    from bacc.monitoring import _p_worse

    rng = np.random.default_rng(random_state)
    lam = per_day * days * np.array([0.7, 0.3])
    n = rng.poisson(lam, (pairs, 2))
    nb = rng.poisson(4 * lam, (pairs, 2))
    ok = (n > 0).all(axis=1) & (nb > 0).all(axis=1)
    n, nb = n[ok], nb[ok]
    G = n.shape[0]
    acc = rng.uniform(0.85, 0.97, (G, 2))
    k, kb = rng.binomial(n, acc), rng.binomial(nb, acc)
    a, b, ab, bb = k + 1.0, n - k + 1.0, kb + 1.0, nb - kb + 1.0
    inc = np.ones((G, 2), bool)
    old, t_old = once(lambda: p_worse_pairs(a, b, ab, bb, 0.0))
    new, t_new = once(lambda: _p_worse(a, b, inc, ab, bb, None, 0.0))
    (_, lattice), t_lat = once(lambda: p_worse_lattice(a, b, inc, ab, bb))
    print(f"{G:,} windows of ~{lam.sum():.0f} examples (baselines ~{4 * lam.sum():.0f}); "
          f"taken by the lattice: {lattice.mean():.1%}")
    print(f"two-class quadrature (baseline): {t_old:7.2f} s  ({G / t_old:,.0f} windows/s)")
    print(f"bacc.monitor's lattice + quad. : {t_new:7.2f} s  ({G / t_new:,.0f} windows/s)  "
          f"{t_old / t_new:.1f}x")
    print(f"  lattice rows alone           : {lattice.sum() / t_lat:,.0f} windows/s")
    sample = rng.choice(G, size=min(check, G), replace=False)
    err = {"quadrature": 0.0, "monitor": 0.0, "monitor, lattice rows": 0.0}
    for g in sample:
        exact = float(BetaSum(np.r_[ab[g], a[g]], np.r_[bb[g], b[g]], [0.5, 0.5, -0.5, -0.5]).sf(0.0))
        err["quadrature"] = max(err["quadrature"], abs(old[g] - exact))
        err["monitor"] = max(err["monitor"], abs(new[g] - exact))
        if lattice[g]:
            err["monitor, lattice rows"] = max(err["monitor, lattice rows"], abs(new[g] - exact))
    print(f"largest |P(worse) - BetaSum| over {sample.size} windows: "
          + ", ".join(f"{key} {v:.1e}" for key, v in err.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detectors", type=int, default=500)
    ap.add_argument("--per-day", type=int, default=20)
    ap.add_argument("--loop", type=int, default=400, help="windows timed in the pandas loop")
    ap.add_argument("--window", default="7D", help="window width (7D, 1D, ...)")
    ap.add_argument("--pairs", type=int, default=0, help="time the P(worse) kernel on this many windows")
    ap.add_argument("--quick", action="store_true",
                    help="a run of a few seconds: --detectors 5 --loop 20, then 500 windows of the kernel")
    args = ap.parse_args()
    print(machine("numpy", "scipy", "duckdb", "pandas"))
    if args.quick:
        args.detectors, args.loop, args.window, args.pairs = 5, 20, "7D", 0
        end_to_end(args)
        bench_pairs(500, args.per_day, 7, check=100)
        return
    if args.pairs:
        days = int(args.window.rstrip("D")) if args.window.endswith("D") else 7
        bench_pairs(args.pairs, args.per_day, days)
        return
    end_to_end(args)


def end_to_end(args) -> None:
    """``bacc.monitor`` on a written log, against pandas and a loop (weekly windows only)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.parquet")
        rows, t_write = once(lambda: write_log(path, args.detectors, args.per_day))
        print(f"data: {rows:,} predictions of {args.detectors} detectors over 2025, "
              f"{os.path.getsize(path) / 2**20:.0f} MiB Parquet (written in {t_write:.1f} s)")
        from bacc.counting.windows import count_windows

        gc, t_count = once(lambda: count_windows(path, true="label", pred="predicted", time="ts",
                                                 by="detector", window=args.window,
                                                 progress=False))
        _, t_eval = once(lambda: bacc.evaluate_many(gc, progress=False))
        m, t_total = once(lambda: bacc.monitor(path, true="label", pred="predicted", time="ts",
                                               by="detector", window=args.window,
                                               progress=False))
        W = len(m)
        print(f"windows: {W:,} ({args.window} windows x detectors); baseline: {m.baseline}")
        print(f"bacc.monitor total        : {t_total:7.2f} s  ({W / t_total:,.0f} windows/s)")
        print(f"  counting (DuckDB)       : {t_count:7.2f} s")
        print(f"  evaluate_many           : {t_eval:7.2f} s")
        print(f"  P(worse) + simulation   : {t_total - t_count - t_eval:7.2f} s "
              f"(false-alarm rate {m.false_alarm_rate:.4f} +- {m.false_alarm_se:.4f})")
        if args.window != "7D":  # the pandas script counts calendar weeks
            return
        t_pcount, t_loop, n_keys, ref = pandas_loop(path, 4, args.loop)
        print(f"pandas + loop             : {t_pcount + t_loop:7.2f} s  (counting {t_pcount:.2f} s, "
              f"loop {t_loop:.1f} s scaled from {len(ref)} windows)")
        print(f"ratio (pandas+loop / bacc): {(t_pcount + t_loop) / t_total:7.1f}x")
        # agreement on the sampled windows
        names = np.array(m.detectors, dtype=object)
        where = {(names[m.detector[i]], m.start[i]): i for i in range(W)}
        d_mean = d_p = 0.0
        same = True
        for key, (mat, mean, p) in ref.items():
            i = where[(key[0], np.datetime64(key[1], "us"))]
            same &= bool(np.array_equal(np.diag(mat), m.correct[i]) and np.array_equal(mat.sum(axis=1), m.support[i]))
            d_mean = max(d_mean, abs(mean - m.mean[i]))
            if np.isfinite(p) and np.isfinite(m.p_worse[i]):
                d_p = max(d_p, abs(p - m.p_worse[i]))
        assert n_keys == W and same
        print(f"agreement on {len(ref)} windows: counts identical, max |mean diff| {d_mean:.1e}, "
              f"max |P(worse) diff| {d_p:.1e}")


if __name__ == "__main__":
    main()
