"""Monitoring many detectors over time: ``bacc.monitor`` against today's path and pandas + a loop.

Data: a Parquet file of binary predictions of D detectors over a year (2025), ``--per-day``
a day each, written once into a temporary folder (fixed random_state). ``bacc.monitor`` counts
per detector and window (daily by default) in DuckDB, evaluates every window in one batch call
and computes P(window worse than the detector's first 8 windows) for every window (each
distinct (window, baseline) pair once; small two-class windows exactly from their polynomial
distribution function), then the false-alarm rate on 2 000 simulated windows. All in one
process:

* today's path: the same run with P(worse) computed as before (every row by the chooser's
  method: the batched lattice, the pair quadrature, one ``BetaSum`` each; every exact
  baseline interval and every window's evaluation computed), P(worse) timed on a random
  sample of the windows (``--today``) and scaled to all, plus the simulated windows in full;
  the other stages as measured in the run;
* pandas + a loop: ``read_parquet``, the window of each row with pandas datetime arithmetic,
  ``groupby(...).size()``, each detector's first 8 windows summed, then a loop of
  ``bacc.evaluate`` and ``bacc.compare`` over the windows (timed on ``--loop`` windows and
  scaled to all).

Prints the times, both ratios, and the agreement: counts and means against pandas, P(worse)
against ``bacc.compare`` on the loop's sample and against today's path on its sample.

With ``--pairs N`` it times instead the P(worse) kernel alone on N simulated windows (class
sizes Poisson around ``--per-day`` times the window's days, 70/30, baselines of 4 windows,
class accuracies in [0.85, 0.97]): the two-class quadrature (``p_worse_pairs``) against
``bacc.monitor``'s P(worse), in one process, and both against the exact ``BetaSum`` of the
difference on a sample of 400 windows.

Run:  python benchmarks/bench_monitor.py [--detectors 1000] [--per-day 20] [--window 1D]
                                         [--loop 400] [--today 20000]
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


def pandas_loop(path: str, window: str, lookback: int, loop: int):
    """The usual script: pandas counts per window, each detector's first ``lookback`` windows
    summed, then one evaluate and compare per window."""
    import pandas as pd

    days = int(window.rstrip("D"))
    with Stopwatch() as sw:
        df = pd.read_parquet(path)
        ts = df["ts"]
        day = ts.dt.normalize()
        df["window"] = day - pd.to_timedelta(ts.dt.day_of_week, unit="D") if days == 7 else day
        size = df.groupby(["detector", "window", "label", "predicted"]).size()
        cells = size.unstack(["label", "predicted"], fill_value=0)
        det = cells.index.get_level_values(0)
        start = cells.index.get_level_values(1)
        first = pd.Series(start, index=cells.index).groupby(level=0).transform("min")
        inside = np.asarray(start < first + pd.Timedelta(days=days * lookback))
        base = cells[inside].groupby(level=0).sum()
    t_count = sw.wall
    keys = list(cells.index)
    order = [(0, 0), (0, 1), (1, 0), (1, 1)]
    mats = cells[order].to_numpy().reshape(-1, 2, 2)
    base_mats = base[order].to_numpy().reshape(-1, 2, 2)
    base_of = base.index.get_indexer(det)
    rng = np.random.default_rng(0)
    sample = np.sort(rng.choice(len(keys), size=min(loop, len(keys)), replace=False))
    out = {}
    with Stopwatch() as sw, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in sample:
            d, w = keys[i]
            ev = bacc.evaluate(mats[i])
            p = float("nan")
            bm = base_mats[base_of[i]]
            if (bm.sum(axis=1) > 0).all() and (mats[i].sum(axis=1) > 0).all():
                p = bacc.compare(bm, mats[i]).p_better
            out[(d, w.to_datetime64())] = (mats[i], ev.balanced_accuracy_summary.mean, p)
    t_loop = sw.wall / sample.size * len(keys)
    return t_count, t_loop, len(keys), out


def today(calls: list, sample: int, random_state: int = 0):
    """Today's P(worse) (every row by the chooser's method, nothing shared) and exact baseline
    intervals (every row computed) on the inputs ``bacc.monitor`` was given: the windows' call
    timed on ``sample`` random rows and scaled, the other calls in full. Returns the time and,
    for the sampled windows, their rows and values."""
    from bacc._engine.sums.rows import p_worse
    from bacc.distributions import BetaSum
    from bacc.monitoring import _exact_union_rows

    total = 0.0
    rows = values = None
    for kind, args in calls:
        if kind == "evaluate":  # timed apart, on every window
            continue
        if kind == "union":
            _, t = once(lambda a=args: _exact_union_rows(*a))
            total += t
            continue
        a_now, b_now, inc, base_a, base_b, number, margin = args[:7]
        G = a_now.shape[0]
        pick = np.arange(G)
        if rows is None and G > sample:  # the windows (the first call)
            rng = np.random.default_rng(random_state)
            pick = np.sort(rng.choice(G, size=sample, replace=False))
        sub = [None if v is None else v[pick] for v in (a_now, b_now, inc, base_a, base_b)]
        out, t = once(lambda s=sub, c=number, mg=margin: p_worse(*s, c, mg, single=BetaSum))
        total += t * G / pick.size
        if rows is None:
            rows, values = pick, out
    return total, rows, values


def record(monitoring) -> tuple[list, dict]:
    """Wrap ``bacc.monitoring``'s P(worse), exact-interval and evaluation calls: their inputs
    and times, in call order."""
    calls: list = []
    times = {"p_worse": 0.0, "union": 0.0, "evaluate": 0.0}
    originals = {"p_worse": monitoring._p_worse, "union": monitoring._exact_union,
                 "evaluate": monitoring.evaluate_many}

    def wrap(kind):
        def inner(*args, **kwargs):
            out, t = once(lambda: originals[kind](*args, **kwargs))
            calls.append((kind, args))
            times[kind] += t
            return out

        return inner

    monitoring._p_worse = wrap("p_worse")
    monitoring._exact_union = wrap("union")
    monitoring.evaluate_many = wrap("evaluate")
    return calls, times, originals


def bench_pairs(pairs: int, per_day: int, days: int, random_state: int = 2025,
                check: int = 400) -> None:
    """P(worse) of ``pairs`` simulated windows: the two-class quadrature against
    ``bacc.monitor``'s P(worse) (the exact small-count path, the batched lattice and the
    quadrature for the rows both leave), and both against ``BetaSum``."""
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
    print(f"bacc.monitor's P(worse)        : {t_new:7.2f} s  ({G / t_new:,.0f} windows/s)  "
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
    ap.add_argument("--detectors", type=int, default=1000)
    ap.add_argument("--per-day", type=int, default=20)
    ap.add_argument("--loop", type=int, default=400, help="windows timed in the pandas loop")
    ap.add_argument("--window", default="1D", help="window width (1D or 7D against pandas)")
    ap.add_argument("--today", type=int, default=20_000,
                    help="windows on which today's P(worse) is timed (then scaled)")
    ap.add_argument("--pairs", type=int, default=0, help="time the P(worse) kernel on this many windows")
    ap.add_argument("--quick", action="store_true",
                    help="a run of a few seconds: --detectors 5 --loop 20 --window 7D, then 500 "
                         "windows of the kernel")
    args = ap.parse_args()
    print(machine("numpy", "scipy", "duckdb", "pandas"))
    if args.quick:
        args.detectors, args.loop, args.window, args.pairs, args.today = 5, 20, "7D", 0, 100
        end_to_end(args)
        bench_pairs(500, args.per_day, 7, check=100)
        return
    if args.pairs:
        days = int(args.window.rstrip("D")) if args.window.endswith("D") else 7
        bench_pairs(args.pairs, args.per_day, days)
        return
    end_to_end(args)


def end_to_end(args) -> None:
    """``bacc.monitor`` on a written log, against today's path and pandas + a loop."""
    import bacc.monitoring as monitoring

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.parquet")
        rows, t_write = once(lambda: write_log(path, args.detectors, args.per_day))
        print(f"data: {rows:,} predictions of {args.detectors} detectors over 2025, "
              f"{os.path.getsize(path) / 2**20:.0f} MiB Parquet (written in {t_write:.1f} s)")
        from bacc.counting.windows import count_windows

        gc, t_count = once(lambda: count_windows(path, true="label", pred="predicted", time="ts",
                                                 by="detector", window=args.window,
                                                 progress=False))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # days without a class: reported by monitor itself
            _, t_eval = once(lambda: bacc.evaluate_many(gc, progress=False))
        calls, parts, originals = record(monitoring)
        try:
            m, t_total = once(lambda: bacc.monitor(path, true="label", pred="predicted",
                                                   time="ts", by="detector", window=args.window,
                                                   progress=False))
        finally:
            monitoring._p_worse, monitoring._exact_union = originals["p_worse"], originals["union"]
            monitoring.evaluate_many = originals["evaluate"]
        W = len(m)
        print(f"windows: {W:,} ({args.window} windows x detectors); baseline: {m.baseline}")
        print(f"bacc.monitor total        : {t_total:7.2f} s  ({W / t_total:,.0f} windows/s)")
        print(f"  counting (DuckDB)       : {t_count:7.2f} s")
        print(f"  evaluate_many           : {parts['evaluate']:7.2f} s  (each distinct window once; "
              f"every window: {t_eval:.2f} s)")
        print(f"  P(worse) + simulation   : {parts['p_worse']:7.2f} s "
              f"(false-alarm rate {m.false_alarm_rate:.4f} +- {m.false_alarm_se:.4f})")
        print(f"  exact baseline intervals: {parts['union']:7.2f} s")
        t_today, rows, values = today(calls, args.today)
        t_old = t_total - sum(parts.values()) + t_today + t_eval
        print(f"today's path              : {t_old:7.2f} s  (P(worse) + intervals {t_today:.1f} s, "
              f"scaled from {rows.size:,} windows; evaluate_many of every window)")
        print(f"ratio (today / bacc)      : {t_old / t_total:7.1f}x")
        d_today = np.nanmax(np.abs(values - m.p_worse[rows])) if np.isfinite(values).any() else 0.0
        print(f"  |P(worse) - today's| on those windows: max {d_today:.1e}")
        if not args.window.endswith("D") or args.window not in ("1D", "7D"):
            return
        t_pcount, t_loop, n_keys, ref = pandas_loop(path, args.window, 8, args.loop)
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
              f"max |P(worse) - bacc.compare| {d_p:.1e}")


if __name__ == "__main__":
    main()
