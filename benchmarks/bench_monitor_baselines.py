"""Monitoring baselines: which baseline catches a sustained drop without many false alarms?

Data: simulated two-class detectors (30 % positives), ``--per-window`` examples per weekly
window on average (Poisson), ``--weeks`` weeks, class accuracies drawn in [0.93, 0.97] per
detector (balanced accuracy about 0.95). Three kinds of detector, ``--detectors`` of each:

* sustained: every class accuracy drops by ``--drop`` (0.95 -> 0.85) from window ``--change``
  on, to the end;
* transient: the same drop during ``--dip`` windows from window ``--change`` on, then back;
* unchanged: no change.

For every baseline ``bacc.monitor`` offers (and thresholds ``alarm_at``), one call of
``bacc.monitor`` on all detectors (seeded: the same data for every baseline), then:

* sustained: the share of detectors that alarm at or after the change (detected), the median
  delay in windows from the change to the first alarm (0: the first changed window), the
  share of changed windows in alarm (held), and the share in alarm in their latest window
  (shown as "ALARM" by the text output);
* transient: the share that alarm during the dip, and the share of windows in alarm after it
  ended;
* unchanged: false alarms per window, and the share of detectors with at least one alarm
  (shown as "alarmed" or "ALARM" although nothing changed).

The ratio printed last is the share of changed windows in alarm under the default (the first
8 windows of each detector, ``alarm_at=0.999``) against the former default (the previous 4
windows, ``alarm_at=0.99``).

Run:  python benchmarks/bench_monitor_baselines.py [--detectors 100] [--weeks 52] [--per-window 200]
      python benchmarks/bench_monitor_baselines.py --per-window 60
      python benchmarks/bench_monitor_baselines.py --drop 0.05
      python benchmarks/bench_monitor_baselines.py --quick   (10 detectors of each kind, 26 weeks)
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _timing import Stopwatch, machine

import bacc

START = np.datetime64("2024-12-30T00:00:00", "us")  # a Monday: windows of 7D start here
WEEK_US = 7 * 86_400_000_000
KINDS = ("sustained", "transient", "unchanged")


def make_log(detectors: int, weeks: int, per_window: float, change: int, dip: int, drop: float,
             random_state: int = 2026):
    """A pandas frame of predictions: ``detectors`` detectors of each kind, ``weeks`` weeks."""
    import pandas as pd

    rng = np.random.default_rng(random_state)
    n_det = 3 * detectors
    kind = np.repeat(np.arange(3), detectors)
    acc = rng.uniform(0.93, 0.97, (n_det, 2))
    n = rng.poisson(per_window, (n_det, weeks))
    det = np.repeat(np.repeat(np.arange(n_det), weeks), n.ravel())
    week = np.repeat(np.tile(np.arange(weeks), n_det), n.ravel())
    ts = START + (week * WEEK_US + rng.integers(0, WEEK_US, det.size)).astype("timedelta64[us]")
    y = (rng.random(det.size) < 0.3).astype(np.int8)
    lower = ((kind[det] == 0) & (week >= change)) | ((kind[det] == 1) & (week >= change)
                                                     & (week < change + dip))
    p_right = acc[det, y] - np.where(lower, drop, 0.0)
    pred = np.where(rng.random(det.size) < p_right, y, 1 - y).astype(np.int8)
    names = np.array([f"{KINDS[k][:1]}{i:03d}" for k in range(3) for i in range(detectors)])
    return pd.DataFrame({"detector": names[det], "ts": ts, "label": y, "predicted": pred})


def measure(m, change: int, dip: int) -> dict:
    """Detection, delay and false alarms of one ``Monitoring`` of the simulated log."""
    names = np.array([str(d) for d in m.detectors])
    kind = np.array([KINDS.index(next(k for k in KINDS if k[0] == s[0])) for s in names])
    week = ((m.start.astype("datetime64[us]") - START).astype(np.int64) // WEEK_US)
    out: dict = {}
    first, held, latest = [], [], []
    dip_hit, after = [], []
    fa_windows, fa_detectors = [], []
    for d in range(len(names)):
        rows = m.detector == d
        w, a = week[rows], m.alarm[rows]
        if kind[d] == 0:
            post = w >= change
            hits = w[post & a]
            first.append(hits[0] - change if hits.size else None)
            held.append(a[post].mean())
            latest.append(bool(a[-1]))
            fa_windows.append(a[~post])
        elif kind[d] == 1:
            in_dip = (w >= change) & (w < change + dip)
            dip_hit.append(bool(a[in_dip].any()))
            after.append(a[w >= change + dip])
            fa_windows.append(a[w < change])
        else:
            fa_windows.append(a)
            fa_detectors.append(bool(a.any()))
    delays = [x for x in first if x is not None]
    out["detected"] = len(delays) / len(first)
    out["delay"] = float(np.median(delays)) if delays else float("nan")
    out["held"] = float(np.mean(held))
    out["latest"] = float(np.mean(latest))
    out["dip"] = float(np.mean(dip_hit))
    out["after"] = float(np.concatenate(after).mean())
    out["fa"] = float(np.concatenate(fa_windows).mean())
    out["fa_det"] = float(np.mean(fa_detectors))
    out["stated"] = m.false_alarm_rate
    return out


def configurations(change: int) -> list[tuple[str, dict]]:
    """(name, keyword arguments of ``bacc.monitor``) of every baseline and threshold tried."""
    ref = (f"{str(START.astype('datetime64[D]'))}:"
           f"{str((START + change * WEEK_US).astype('datetime64[D]'))}")
    return [
        ("first 8, 0.999 (default)", dict()),
        ("first 8, 0.99", dict(baseline="first", alarm_at=0.99)),
        ("first 4, 0.999", dict(baseline="first", lookback=4, alarm_at=0.999)),
        ("first 13, 0.999", dict(baseline="first", lookback=13, alarm_at=0.999)),
        ("previous 4, 0.99 (former)", dict(baseline="previous", lookback=4, alarm_at=0.99)),
        ("previous 4, 0.999", dict(baseline="previous", lookback=4, alarm_at=0.999)),
        ("previous 12, 0.99", dict(baseline="previous", lookback=12, alarm_at=0.99)),
        ("past, 0.99", dict(baseline="past", alarm_at=0.99)),
        ("past, 0.999", dict(baseline="past", alarm_at=0.999)),
        ("period to change, 0.999", dict(baseline=ref, alarm_at=0.999)),
        ("first 8, exact rule", dict(baseline="first", rule="exact")),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--detectors", type=int, default=100, help="detectors of each kind")
    ap.add_argument("--weeks", type=int, default=52)
    ap.add_argument("--per-window", type=float, default=200, help="mean examples per window")
    ap.add_argument("--change", type=int, default=20, help="window of the change (from 0)")
    ap.add_argument("--dip", type=int, default=3, help="windows of the transient drop")
    ap.add_argument("--drop", type=float, default=0.10, help="drop of every class accuracy")
    ap.add_argument("--simulations", type=int, default=2000, help="of the stated false-alarm rate")
    ap.add_argument("--quick", action="store_true", help="10 detectors of each kind, 26 weeks")
    args = ap.parse_args()
    if args.quick:
        args.detectors, args.weeks, args.change, args.simulations = 10, 26, 10, 100
    print(machine("numpy", "scipy", "pandas"))
    with Stopwatch() as sw:
        log = make_log(args.detectors, args.weeks, args.per_window, args.change, args.dip,
                       args.drop)
    print(f"data: {len(log):,} predictions, {args.detectors} detectors of each kind, "
          f"{args.weeks} weekly windows of ~{args.per_window:g} examples, drop "
          f"{args.drop:g} from window {args.change} (transient: {args.dip} windows) "
          f"({sw.wall:.1f} s)")
    head = (f"{'baseline, alarm_at':<27}{'detected':>9}{'delay':>6}{'held':>7}{'ALARM':>7}"
            f"{'dip':>6}{'after':>7}{'false/win':>10}{'stated':>8}{'alarmed':>8}{'s':>6}")
    print("sustained: detected, median delay (windows), held (changed windows in alarm), "
          "ALARM (latest window in alarm);\ntransient: dip (alarm during it), after (windows "
          "in alarm after it); unchanged: false/win, stated, alarmed (detectors with an alarm)")
    print(head)
    results = {}
    for name, kw in configurations(args.change):
        with Stopwatch() as sw, warnings.catch_warnings():
            warnings.simplefilter("ignore", bacc.BaccWarning)
            m = bacc.monitor(log, true="label", pred="predicted", time="ts", by="detector",
                             window="7D", n_simulations=args.simulations, progress=False, **kw)
        r = measure(m, args.change, args.dip)
        results[name] = r
        print(f"{name:<27}{r['detected']:>9.0%}{r['delay']:>6.0f}{r['held']:>7.0%}"
              f"{r['latest']:>7.0%}{r['dip']:>6.0%}{r['after']:>7.1%}{r['fa']:>10.2%}"
              f"{r['stated']:>8.2%}{r['fa_det']:>8.0%}{sw.wall:>6.1f}")
    new, old = results["first 8, 0.999 (default)"], results["previous 4, 0.99 (former)"]
    print(f"default against the former default: changed windows in alarm {new['held']:.0%} / "
          f"{old['held']:.0%} (ratio {new['held'] / max(old['held'], 1e-9):.1f}x), unchanged "
          f"detectors with an alarm {new['fa_det']:.0%} / {old['fa_det']:.0%}")


if __name__ == "__main__":
    main()
