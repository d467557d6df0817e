"""The stream-wide false-alarm guarantee of ``bacc.monitor(rule="anytime")``, checked by
simulation, and its delay to detect a drop beside the posterior rule's.

Streams of a year of daily windows (365), 20 examples a day, 30 % of them positive; class
accuracies 0.95 (negatives) and 0.85 (positives): balanced accuracy 0.90, the baseline number
(the hardest unchanged case: the truth exactly at the threshold).

* Unchanged: N_UNCHANGED detectors; the share with any alarm in the year, for the anytime rule
  (promised at most 1 - confidence = 5 %) and for the posterior rule against the same number
  (``P(worse) >= 0.999`` per window: a per-window rate, no stream-wide promise).
* A drop of 10 points (both class accuracies, to balanced accuracy 0.80) on day 183 in
  N_DROP detectors: days from the drop to the first alarm on or after it (median and 90th
  percentile), for both rules.

Everything goes through the public ``bacc.monitor`` on a pandas DataFrame. Timing: the
anytime rule's call against the posterior rule's call on the same data, in the same process.

Run:  python benchmarks/bench_monitor_anytime.py            (2 000 unchanged, 200 with a drop)
      python benchmarks/bench_monitor_anytime.py --quick    (10 unchanged, 4 with a drop)
      python benchmarks/bench_monitor_anytime.py --unchanged 200   (200 unchanged, 20 with a drop)
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pandas as pd
from _timing import Stopwatch, machine

import bacc

DAYS = 365
PER_DAY = 20
DROP_DAY = 183
ACC = (0.95, 0.85)
DROP = 0.10
NUMBER = 0.90


def streams(detectors: int, drop: bool, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    det = np.repeat(np.arange(detectors), DAYS * PER_DAY)
    day = np.tile(np.repeat(np.arange(DAYS), PER_DAY), detectors)
    y = (rng.random(det.size) < 0.3).astype(np.int8)
    acc = np.where(y == 1, ACC[1], ACC[0]) - (DROP * (day >= DROP_DAY) if drop else 0.0)
    right = rng.random(det.size) < acc
    return pd.DataFrame({
        "detector": det, "ts": pd.Timestamp("2026-01-01") + pd.to_timedelta(day, unit="D"),
        "label": y, "predicted": np.where(right, y, 1 - y).astype(np.int8)})


def run(df: pd.DataFrame, rule: str):
    with Stopwatch() as sw:
        m = bacc.monitor(df, true="label", pred="predicted", time="ts", window="1D",
                         by="detector", baseline=NUMBER, rule=rule, n_simulations=0,
                         progress=False)
    return m, sw.wall


def any_alarm(m) -> np.ndarray:
    out = np.zeros(len(m.detectors), dtype=bool)
    np.logical_or.at(out, m.detector, m.alarm)
    return out


def delays(m) -> np.ndarray:
    day = (m.start - np.datetime64("2026-01-01")).astype("timedelta64[D]").astype(int)
    out = np.full(len(m.detectors), np.inf)
    hit = m.alarm & (day >= DROP_DAY)
    np.minimum.at(out, m.detector[hit], day[hit] - DROP_DAY)
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    n_unchanged, n_drop = (10, 4) if quick else (2000, 200)
    if "--unchanged" in sys.argv:
        n_unchanged = int(sys.argv[sys.argv.index("--unchanged") + 1])
        n_drop = max(4, n_unchanged // 10)
    print(machine())
    print(f"{DAYS} daily windows of {PER_DAY} examples, class accuracies {ACC}, balanced "
          f"accuracy {NUMBER} = the baseline number; 95 %")
    df = streams(n_unchanged, drop=False, seed=1)
    m_any, t_any = run(df, "anytime")
    m_post, t_post = run(df, "posterior")
    share_any = any_alarm(m_any).mean()
    share_post = any_alarm(m_post).mean()
    se = math.sqrt(0.05 * 0.95 / n_unchanged)
    print(f"unchanged ({n_unchanged} detectors): share with any alarm in the year: anytime "
          f"{share_any:.4f} (promised <= 0.05; Monte Carlo error at 0.05: {se:.4f}), posterior "
          f"rule {share_post:.4f}")
    print(f"time: anytime rule {t_any:.1f} s, posterior rule {t_post:.1f} s "
          f"(ratio {t_any / t_post:.2f})")
    df = streams(n_drop, drop=True, seed=2)
    for rule in ("anytime", "posterior"):
        m, _ = run(df, rule)
        d = delays(m)
        found = np.isfinite(d)
        before = np.zeros(len(m.detectors), dtype=bool)
        day = (m.start - np.datetime64("2026-01-01")).astype("timedelta64[D]").astype(int)
        np.logical_or.at(before, m.detector, m.alarm & (day < DROP_DAY))
        med = np.median(d) if found.mean() >= 0.5 else math.inf
        p90 = np.quantile(d, 0.9) if found.mean() >= 0.9 else math.inf
        print(f"drop of {DROP:.2f} on day {DROP_DAY} ({n_drop} detectors), {rule} rule: found in "
              f"{found.mean():.3f}; days to the first alarm: median {med:g}, 90th percentile "
              f"{p90:g}; alarmed before the drop: {before.mean():.3f}")


if __name__ == "__main__":
    main()
