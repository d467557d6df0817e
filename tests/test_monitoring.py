"""Monitoring over time (``bacc.monitor``): counts per window, P(worse), alarms, false alarms.

The synthetic log written here has 50 detectors and a year of timestamps (2025); detector
``det17`` loses 12 points of accuracy in each class from 1 July 2025 (a Tuesday), the others
never change. The claims:

- the counts per window equal a pure-Python count, in every engine (DuckDB for Parquet and CSV
  files, pandas, polars, a mapping of columns);
- the degraded detector is flagged within the stated delay: by the first full window after the
  change (the alarming window starts at most 7 days after it, so the alarm is raised at most 14
  days after the change);
- on the 49 unchanged detectors the share of alarming windows matches the false-alarm rate that
  ``monitor`` states (measured by its simulation under no change);
- ``p_worse`` equals the exact comparison of two independent posteriors (``BetaSum`` of the
  difference, as ``bacc.compare``) within 1e-6, and within 1e-9 where the batched lattice
  (one sum of ``2 l`` Betas) computes it;
- the window query runs on a Parquet file larger than the memory limit given to DuckDB.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import subprocess
import sys
import textwrap
from collections import Counter
from html import escape as html_escape
from pathlib import Path

import numpy as np
import pytest

import bacc
from bacc._engine.sums.worse_than_baseline import p_below, p_worse_lattice, p_worse_pairs
from bacc.counting.windows import count_windows, parse_window
from bacc.distributions import BetaSum
from bacc.monitoring import _p_worse

#: The module fixtures build costly results once: under pytest-xdist the whole file runs
#: in one worker (conftest.py: --dist loadgroup), so they are not built again in the other.
pytestmark = pytest.mark.xdist_group("test_monitoring")

pd = pytest.importorskip("pandas")
pytest.importorskip("duckdb")

CHANGE = dt.datetime(2025, 7, 1)
DEGRADED = "det17"
DROP = 0.12


def make_log(n_detectors: int = 50, per_day: int = 40, random_state: int = 7):
    """A year of predictions of ``n_detectors`` two-class detectors (30 % positives); class
    accuracies drawn in [0.86, 0.97] per detector; ``det17`` loses ``DROP`` in each class from
    ``CHANGE`` on."""
    rng = np.random.default_rng(random_state)
    start = np.datetime64("2025-01-01T00:00:00", "us")
    n = n_detectors * per_day * 365
    det = np.repeat(np.arange(n_detectors), per_day * 365)
    ts = start + rng.integers(0, 365 * 86_400_000_000, n).astype("timedelta64[us]")
    y = (rng.random(n) < 0.3).astype(np.int64)
    acc = rng.uniform(0.86, 0.97, (n_detectors, 2))
    p_right = acc[det, y]
    names = np.array([f"det{d:02d}" for d in range(n_detectors)])
    bad = (names[det] == DEGRADED) & (ts >= np.datetime64(CHANGE, "us"))
    p_right = np.where(bad, p_right - DROP, p_right)
    pred = np.where(rng.random(n) < p_right, y, 1 - y)
    return pd.DataFrame({"detector": names[det], "ts": ts, "label": y, "predicted": pred})


def python_window_counts(df, window: str) -> Counter:
    """``(detector, window start, true, pred) -> count``, one row at a time in plain Python."""
    out: Counter = Counter()
    for d, t, y, p in zip(df["detector"], df["ts"].dt.to_pydatetime(), df["label"], df["predicted"],
                          strict=True):
        if window == "7D":
            start = dt.datetime(t.year, t.month, t.day) - dt.timedelta(days=t.weekday())
        elif window == "1M":
            start = dt.datetime(t.year, t.month, 1)
        elif window == "1D":
            start = dt.datetime(t.year, t.month, t.day)
        else:  # "6h"
            start = dt.datetime(t.year, t.month, t.day, t.hour - t.hour % 6)
        out[(d, start, int(y), int(p))] += 1
    return out


def as_counter(gc) -> Counter:
    out: Counter = Counter()
    for g, (det, start) in enumerate(gc.groups):
        for i, t in enumerate(gc.labels):
            for j, p in enumerate(gc.labels):
                if gc.counts[g, i, j]:
                    out[(det, start, int(t), int(p))] = int(gc.counts[g, i, j])
    return out


@pytest.fixture(scope="module")
def log():
    return make_log()


@pytest.fixture(scope="module")
def small_log():
    return make_log(n_detectors=6, per_day=12, random_state=3)


@pytest.fixture(scope="module")
def previous(log):
    return bacc.monitor(log, true="label", pred="predicted", time="ts", by="detector",
                        window="7D", baseline="previous", alarm_at=0.99, progress=False)


@pytest.fixture(scope="module")
def reference(log):
    return bacc.monitor(log, true="label", pred="predicted", time="ts", by="detector",
                        window="7D", baseline="2025-01-06:2025-04-07", alarm_at=0.99,
                        progress=False)


# ----------------------------------------------------------------------------------------------
# counts per window
@pytest.mark.parametrize("window", ["7D", "1M", "1D", "6h"])
def test_counts_per_window_equal_a_pure_python_count(small_log, tmp_path, window):
    expected = python_window_counts(small_log, window)
    path = tmp_path / "log.parquet"
    small_log.to_parquet(path)
    csv = tmp_path / "log.csv"
    small_log.to_csv(csv, index=False)
    kw = dict(true="label", pred="predicted", time="ts", by="detector", window=window)
    got = count_windows(small_log, **kw)
    assert as_counter(got) == expected
    assert count_windows(path, progress=False, **kw) == got  # DuckDB, Parquet
    polars = pytest.importorskip("polars")
    assert count_windows(polars.from_pandas(small_log), **kw) == got
    pa = pytest.importorskip("pyarrow")
    assert count_windows(pa.Table.from_pandas(small_log), **kw) == got
    import duckdb

    assert count_windows(duckdb.from_df(small_log), **kw) == got  # the relation, in SQL
    dd = pytest.importorskip("dask.dataframe")
    assert count_windows(dd.from_pandas(small_log, npartitions=3), **kw) == got
    mapping = {c: list(small_log[c]) for c in small_log.columns}
    assert count_windows(mapping, **kw) == got
    text = count_windows(csv, progress=False, **kw)  # DuckDB, CSV: labels are text
    assert text.groups == got.groups and np.array_equal(text.counts, got.counts)


def test_time_zones_dates_and_a_reference_period_count_alike(small_log, tmp_path):
    aware = small_log.assign(ts=small_log["ts"].dt.tz_localize("UTC").dt.tz_convert("Asia/Tokyo"))
    kw = dict(true="label", pred="predicted", time="ts", by="detector", window="1D")
    # windows follow the data's own clock: the Tokyo wall-clock times, bucketed by local day
    tokyo_clock = small_log.assign(ts=aware["ts"].dt.tz_localize(None))
    assert count_windows(aware, **kw) == count_windows(tokyo_clock, **kw)
    path = tmp_path / "aware.parquet"
    aware.to_parquet(path)
    assert count_windows(path, progress=False, **kw) == count_windows(tokyo_clock, **kw)
    polars = pytest.importorskip("polars")
    dates = polars.from_pandas(small_log).with_columns(polars.col("ts").dt.date())
    assert count_windows(dates, **kw) == count_windows(small_log, **kw)
    dates.write_parquet(tmp_path / "dates.parquet")
    assert count_windows(tmp_path / "dates.parquet", progress=False, **kw) == count_windows(small_log, **kw)
    period = ("2025-03-01", "2025-04-01")
    ref = count_windows(small_log, period=period, **kw)
    inside = small_log[(small_log.ts >= "2025-03-01") & (small_log.ts < "2025-04-01")]
    assert ref.counts.sum() == len(inside)
    small_log.to_parquet(path)
    assert count_windows(path, period=period, progress=False, **kw) == ref


def test_many_aggregated_rows_are_assembled_with_numpy_as_the_generic_rules(small_log, tmp_path, monkeypatch):
    import bacc.counting.windows as windows

    df = small_log.assign(site=small_log["detector"].str[-1:].astype(int))
    df.to_parquet(tmp_path / "log.parquet")
    df.to_csv(tmp_path / "log.csv", index=False)
    for path in (tmp_path / "log.parquet", tmp_path / "log.csv"):
        for by in ("detector", ["site", "detector"], None):
            kw = dict(true="label", pred="predicted", time="ts", by=by, window="1D", progress=False)
            monkeypatch.setattr(windows, "FAST_ROWS", 10**12)
            generic = count_windows(path, **kw)
            monkeypatch.setattr(windows, "FAST_ROWS", 0)
            assert count_windows(path, **kw) == generic


def test_a_missing_time_is_a_missing_value(small_log):
    df = small_log.copy()
    df.loc[[3, 40], "ts"] = None
    kw = dict(true="label", pred="predicted", time="ts", by="detector", window="7D")
    with pytest.raises(bacc.BaccError, match=r"2 examples have a missing .*'ts' \(time=\)"):
        count_windows(df, **kw)
    with pytest.warns(bacc.BaccWarning, match="left out 2 examples"):
        got = count_windows(df, nulls="drop", **kw)
    assert got.n_dropped == 2 and got.counts.sum() == len(df) - 2


def test_window_widths():
    assert parse_window("7D").micros == 7 * 86_400_000_000
    assert parse_window("1W").micros == parse_window("1w").micros == parse_window("7D").micros
    assert parse_window("30min").micros == 30 * 60_000_000
    assert parse_window("1M").months == 1 and parse_window("3M").months == 3 and parse_window("1Y").months == 12
    w = parse_window("7D")
    t = np.array(["2026-01-01T05:00", "2026-01-05T00:00"], dtype="datetime64[us]")
    assert [str(x)[:10] for x in w.floor(t)] == ["2025-12-29", "2026-01-05"]  # Mondays
    for bad in ("7", "7m", "0D", "D7", "1 fortnight", 7, "", "7days"):
        with pytest.raises(bacc.BaccError, match="window"):
            parse_window(bad)


# ----------------------------------------------------------------------------------------------
# the claims of the monitoring
def test_degraded_detector_is_flagged_within_the_stated_delay(previous, reference):
    for m in (previous, reference):
        first = m.first_alarm(DEGRADED, after=CHANGE - dt.timedelta(days=7))
        assert first is not None
        # the alarming window starts at most 7 days after the change: the first full window
        assert first <= CHANGE + dt.timedelta(days=7)
    # against a fixed reference period the alarm holds in every later full window
    t = reference.timeline(DEGRADED)
    late = t.start >= np.datetime64(CHANGE + dt.timedelta(days=7))
    assert t.alarm[late].all()
    assert not t.alarm[t.start < np.datetime64(CHANGE - dt.timedelta(days=1))].any()
    assert DEGRADED in reference.alarms[:1]  # detectors in alarm first


@pytest.mark.parametrize("which", ["previous", "reference"])
def test_false_alarm_rate_of_unchanged_detectors_matches_the_stated_rate(request, which):
    m = request.getfixturevalue(which)
    names = np.array(m.detectors, dtype=object)[m.detector]
    ok = (names != DEGRADED) & np.isfinite(m.p_worse)
    observed = m.alarm[ok].mean()
    stated = m.false_alarm_rate
    assert m.n_simulated == 2000 and 0.003 < stated < 0.03  # about 1 - alarm_at
    # binomial error of the observed share (doubled: windows sharing a baseline are correlated)
    # and the simulation's Monte Carlo error
    tol = 3 * math.sqrt(2 * stated * (1 - stated) / ok.sum() + m.false_alarm_se**2)
    assert abs(observed - stated) < tol, (observed, stated, tol)


def test_exact_rule_alarms_less_and_still_finds_the_degraded_detector(log, reference):
    m = bacc.monitor(log, true="label", pred="predicted", time="ts", by="detector",
                     baseline="2025-01-06:2025-04-07", rule="exact", alarm_at=0.99,
                     n_simulations=300, progress=False)
    assert m.alarms == (DEGRADED,)
    assert m.false_alarm_rate < reference.false_alarm_rate
    assert m.first_alarm(DEGRADED) <= CHANGE + dt.timedelta(days=7)
    assert "exact 95% upper bound" in m.rule


def test_a_number_baseline_is_the_posterior_distribution_function(small_log):
    m = bacc.monitor(small_log, true="label", pred="predicted", time="ts", by="detector",
                     window="1M", baseline=0.9, n_simulations=0, progress=False)
    i = 5
    post = bacc.posterior_balanced_accuracy(bacc.ConfusionMatrix(
        np.array([[m.correct[i, 0], m.support[i, 0] - m.correct[i, 0]],
                  [m.support[i, 1] - m.correct[i, 1], m.correct[i, 1]]])))
    assert m.p_worse[i] == pytest.approx(float(post.cdf(0.9)), abs=1e-9)
    window = m.posterior(m.detectors[m.detector[i]], m.start[i])  # the same distribution
    assert float(window.cdf(0.9)) == pytest.approx(float(post.cdf(0.9)), abs=1e-12)
    assert window.mean() == pytest.approx(m.mean[i], abs=1e-12)
    lo, hi = window.interval(0.95)
    assert (lo, hi) == (pytest.approx(m.lower[i], abs=1e-8), pytest.approx(m.upper[i], abs=1e-8))
    assert np.all(m.baseline_mean == 0.9) and math.isnan(m.false_alarm_rate)


def test_p_worse_equals_the_exact_comparison_of_two_posteriors():
    rng = np.random.default_rng(11)
    rows = []
    for size in (3, 12, 60, 400, 5000, 200_000):
        for _ in range(6):
            n_now = rng.integers(1, size + 1, 2)
            n_base = n_now * rng.choice([1, 4, 30])
            acc = rng.uniform(0.5, 1.0, 2)
            rows.append((rng.binomial(n_now, acc), n_now, rng.binomial(n_base, acc), n_base))
    # perfect classes (a density that does not vanish at 1: the graded panels)
    rows += [(np.array([61, 58]), np.array([61, 58]), np.array([244, 232]), np.array([244, 232])),
             (np.array([263, 19]), np.array([263, 19]), np.array([1052, 76]), np.array([1052, 76])),
             (np.array([69, 90]), np.array([69, 90]), np.array([65, 90]), np.array([69, 90])),
             (np.array([3, 94]), np.array([4, 103]), np.array([14, 369]), np.array([16, 412]))]
    k, n, kb, nb = (np.array([r[i] for r in rows], float) for i in range(4))
    for margin in (0.0, 0.03):
        got = p_worse_pairs(k + 1, n - k + 1, kb + 1, nb - kb + 1, margin)
        for g in range(len(rows)):
            diff = BetaSum(np.r_[kb[g] + 1, k[g] + 1], np.r_[nb[g] - kb[g] + 1, n[g] - k[g] + 1],
                           [0.5, 0.5, -0.5, -0.5])
            assert got[g] == pytest.approx(float(diff.sf(margin)), abs=1e-6), rows[g]
    x = np.full(len(rows), 0.8)
    below = p_below(k + 1, n - k + 1, x)
    for g in (0, 10, 20, 30):
        assert below[g] == pytest.approx(float(BetaSum(k[g] + 1, n[g] - k[g] + 1, [0.5, 0.5]).cdf(0.8)), abs=1e-9)


def _random_windows(rng, l, sizes, reps):
    """Counts of windows and baselines: perfect classes, drops in accuracy, 1 to ``max(sizes)``
    examples per class, baselines 1, 4 or 30 times larger."""
    rows = []
    for size in sizes:
        for _ in range(reps):
            n = rng.integers(1, size + 1, l)
            nb = n * rng.choice([1, 4, 30])
            acc = rng.uniform(0.5, 1.0, l)
            if rng.random() < 0.25:
                acc[rng.integers(l)] = 1.0
            drop = rng.choice([0.0, 0.0, 0.05, 0.2])
            rows.append((rng.binomial(n, np.clip(acc - drop, 0, 1)), n, rng.binomial(nb, acc), nb))
    return [np.array([r[i] for r in rows], float) for i in range(4)]


@pytest.mark.parametrize("l", [2, 3])
def test_p_worse_of_the_lattice_equals_the_exact_comparison(l):
    # P(lambda_now < lambda_base - m) as the upper tail of one average of 2 l Betas (the
    # baseline's and the window's reflected): within 1e-9 of the BetaSum of the difference,
    # small probabilities within 1e-11; every row (lattice or not) within 1e-6
    rng = np.random.default_rng(7 + l)
    k, n, kb, nb = _random_windows(rng, l, (1, 2, 3, 5, 12, 60, 400, 5000, 200_000, 10**6), 6)
    inc = np.ones(k.shape, bool)
    w = np.full(l, 1.0 / l)
    for margin in (0.0, 0.03, 0.1):
        got, lattice = p_worse_lattice(k + 1, n - k + 1, inc, kb + 1, nb - kb + 1, margin=margin)
        every = _p_worse(k + 1, n - k + 1, inc, kb + 1, nb - kb + 1, None, margin)
        assert lattice.mean() > 0.6  # most rows, down to windows of a few examples
        for g in range(k.shape[0]):
            diff = BetaSum(np.r_[kb[g] + 1, k[g] + 1], np.r_[nb[g] - kb[g] + 1, n[g] - k[g] + 1],
                           np.r_[w, -w])
            exact = float(diff.sf(margin))
            assert every[g] == pytest.approx(exact, abs=1e-6), (margin, g)
            if lattice[g]:
                # monitor computes small two-class windows exactly by their polynomial
                # distribution function first: the same number within 1e-9
                assert got[g] == pytest.approx(every[g], abs=1e-9)
                assert got[g] == pytest.approx(exact, abs=1e-9)
                if exact < 1e-3:  # the upper tail itself, not one minus a cdf
                    assert abs(got[g] - exact) < 1e-11
    if l == 3:  # a number baseline: the reflected window alone
        got, lattice = p_worse_lattice(k + 1, n - k + 1, inc, number=0.8, margin=0.02)
        assert lattice.mean() >= 0.5
        for g in np.flatnonzero(lattice):
            exact = float(BetaSum(k[g] + 1, n[g] - k[g] + 1, w).cdf(0.78))
            assert got[g] == pytest.approx(exact, abs=1e-9)


def test_three_classes_are_compared_one_window_at_a_time():
    rng = np.random.default_rng(5)
    n = 6000
    t = pd.Timestamp("2026-01-05") + pd.to_timedelta(rng.uniform(0, 28, n), unit="D")
    y = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.8, y, (y + 1) % 3)
    df = pd.DataFrame({"ts": t, "y": y, "p": pred})
    m = bacc.monitor(df, true="y", pred="p", time="ts", baseline=0.8, n_simulations=0, progress=False)
    assert m.detectors == ("all",) and len(m) == 4 and np.isfinite(m.p_worse).all()
    i = 2
    a = m.correct[i] + 1.0
    b = m.support[i] - m.correct[i] + 1.0
    assert m.p_worse[i] == pytest.approx(float(BetaSum(a, b, np.full(3, 1 / 3)).cdf(0.8)), abs=1e-9)


def test_a_window_without_a_class_has_no_p_worse(small_log):
    df = small_log.copy()
    late = (df.detector == "det01") & (df.ts >= "2025-06-02") & (df.ts < "2025-06-09")
    df = df[~(late & (df.label == 1))]
    m = bacc.monitor(df, true="label", pred="predicted", time="ts", by="detector",
                     n_simulations=0, progress=False)
    t = m.timeline("det01")
    row = np.flatnonzero(t.start == np.datetime64("2025-06-02"))[0]
    assert math.isnan(t.p_worse[row]) and not t.alarm[row]
    assert np.isfinite(t.p_worse[row + 1])


# ----------------------------------------------------------------------------------------------
# the result
def test_result_is_frozen_and_serialisable(previous):
    m = previous
    with pytest.raises(ValueError):
        m.mean[0] = 0.5
    d = m.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["rule"] == m.rule and len(d["windows"]) == len(m)
    assert d["windows"][0]["window_start"] == "2024-12-30T00:00:00"
    summary = m.summary()
    assert [r["detector"] for r in summary if r["alarms"]] == list(m.alarms)
    in_alarm = [r["in_alarm"] for r in summary]
    assert in_alarm == sorted(in_alarm, reverse=True)
    text = str(m)
    assert m.rule in text and "false alarms per window under no change" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    t = m.timeline(DEGRADED)
    assert len(t) == 53 and t.detectors == (DEGRADED,)
    assert np.all(m.lower <= m.mean) and np.all(m.mean <= m.upper)
    assert np.all(m.exact_lower <= m.lower) and np.all(m.upper <= m.exact_upper)
    with pytest.raises(bacc.BaccError, match="no detector"):
        m.timeline("nope")
    assert "<table" in m._repr_html_() and DEGRADED in m._repr_html_()
    df = m.to_pandas()
    assert len(df) == len(m) and df["window_start"].dtype.kind == "M"


def test_bad_input_is_refused_with_a_clear_message(small_log, tmp_path):
    kw = dict(true="label", pred="predicted", time="ts", by="detector", progress=False)
    cases = [
        (dict(window="7m"), "ambiguous"),
        (dict(window="week"), "unknown unit"),
        (dict(time="when"), "no column 'when' \\(time=\\)"),
        (dict(time="detector", by=None), "holds .*not times"),
        (dict(time="label"), "true= and time= name the same column"),
        (dict(baseline="2030-01-01:2030-02-01"), "baseline period 2030-01-01 to 2030-02-01 holds no examples"),
        (dict(baseline="last year"), "not a baseline"),
        (dict(baseline=1.2), "strictly between 0 and 1"),
        (dict(baseline=("2025-03-01", "2025-02-01")), "empty"),
        (dict(alarm_at=1.0), "alarm_at"),
        (dict(rule="bayes"), "rule"),
        (dict(random_state=-1), "random_state"),
    ]
    for extra, msg in cases:
        with pytest.raises(bacc.BaccError, match=msg):
            bacc.monitor(small_log, **{**kw, **extra})
    path = tmp_path / "x.parquet"
    small_log.to_parquet(path)
    with pytest.raises(bacc.BaccError, match="holds VARCHAR, not times"):
        bacc.monitor(path, **{**kw, "time": "detector", "by": None})


# ----------------------------------------------------------------------------------------------
# out of core
CHILD = textwrap.dedent(
    """
    import json, sys
    import duckdb
    from bacc.counting.windows import count_windows

    def peak():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM"):
                return int(line.split()[1]) * 1024
        return 0

    duckdb.connect().execute("SELECT 1").fetchall()
    before = peak()
    gc = count_windows(sys.argv[1], true="label", pred="pred", time="ts", by="detector",
                       window="7D", memory_limit=sys.argv[2], progress=False)
    print(json.dumps({"growth": peak() - before, "groups": len(gc.groups),
                      "counts": gc.counts.tolist(),
                      "keys": [[d, s.isoformat()] for d, s in gc.groups]}))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.slow
def test_window_query_runs_on_a_parquet_file_larger_than_the_memory_limit(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(0)
    n_chunks, chunk, n_det = 12, 1_000_000, 20
    path = tmp_path / "big.parquet"
    start = np.datetime64("2025-01-01T00:00:00", "us").astype(np.int64)
    origin = np.datetime64("2000-01-03T00:00:00", "us").astype(np.int64)
    week = 7 * 86_400_000_000
    expected = np.zeros((n_det, 60, 2, 2), np.int64)
    writer = None
    for _ in range(n_chunks):
        ts = start + rng.integers(0, 365 * 86_400_000_000, chunk)
        det = rng.integers(0, n_det, chunk)
        y = rng.integers(0, 2, chunk)
        p = np.where(rng.random(chunk) < 0.9, y, 1 - y)
        wk = (ts - origin) // week - (start - origin) // week
        np.add.at(expected, (det, wk, y, p), 1)
        table = pa.table({"detector": pa.array(det).cast(pa.string()),
                          "ts": pa.array(ts.astype("datetime64[us]")),
                          "label": y.astype(np.int8), "pred": p.astype(np.int8),
                          "score": rng.random(chunk)})  # fmt: skip
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, compression="none")
        writer.write_table(table)
    writer.close()
    limit = 64 * 2**20
    assert path.stat().st_size > 2 * limit
    run = subprocess.run([sys.executable, "-c", CHILD, str(path), "64MB"], capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["growth"] < path.stat().st_size / 2  # the count streams through the file
    first = np.datetime64(dt.datetime(2024, 12, 30), "us")
    for (d, s), c in zip(got["keys"], got["counts"], strict=True):
        w = int((np.datetime64(s, "us") - first) // np.timedelta64(7, "D"))
        assert np.array_equal(np.array(c), expected[int(d), w])
    assert sum(np.array(c).sum() for c in got["counts"]) == n_chunks * chunk


# ----------------------------------------------------------------------------------------------
# display and command line
def test_timeline_figure(previous):
    pytest.importorskip("matplotlib").use("Agg")
    from bacc.display.plot import close, plot_timeline

    fig = plot_timeline(previous, DEGRADED, width=3.5)
    assert len(fig.axes) == 2 and DEGRADED in fig._suptitle.get_text()
    close(fig)
    close(previous.plot(DEGRADED))


@pytest.fixture(scope="module")
def monitor_page(reference, tmp_path_factory) -> Path:
    pytest.importorskip("matplotlib").use("Agg")
    from bacc.display.report import Section, render_report

    html = render_report([Section("Monitoring", [], monitoring=reference)], title="monitoring")
    path = tmp_path_factory.mktemp("monitor") / "monitor.html"
    path.write_text(html, encoding="utf-8")
    return path


def test_report_lists_detectors_in_alarm_first(monitor_page, reference):
    html = monitor_page.read_text(encoding="utf-8")
    assert html.index(DEGRADED) < html.index("det00")
    assert f'aria-label="timeline of {DEGRADED}"' in html
    assert html_escape(reference.rule) in html


@pytest.mark.parametrize("width", (390, 768, 1280))
@pytest.mark.slow
@pytest.mark.xdist_group("test_monitoring_screens")
def test_monitoring_report_fits_every_screen(monitor_page, browser, width):
    from support.browser import MEASURE, open_tab

    ctx, tab, problems = open_tab(browser, monitor_page, width)
    m = tab.evaluate(MEASURE)
    ctx.close()
    assert problems == []
    assert m["scrollWidth"] <= width, m["overflow"][:5]
    assert m["overflow"] == []
    assert m["nHeadline"] > 0 and m["hidden"] == []
    assert m["nText"] > 20 and m["clipped"] == []
    assert m["minFont"] >= 11.0, (m["minFont"], m["smallest"])


def run_cli(*args: str):
    """``python -m bacc *args`` as a new process gives it (tests/support/preloaded.py)."""
    from support.preloaded import python_m

    return python_m("bacc", args)


def test_command_line(small_log, tmp_path, capsys):
    from bacc.cli import main

    path = tmp_path / "log.parquet"
    small_log.to_parquet(path)
    base = ["monitor", str(path), "--true", "label", "--pred", "predicted", "--time", "ts",
            "--by", "detector", "--simulations", "200"]
    assert main(base) == 0
    text = capsys.readouterr().out
    assert "rule: a window alarms when P(balanced accuracy of the window < baseline) >= 0.999" in text
    assert "baseline: each detector's first 8 windows of 7D (pooled counts)" in text
    assert main([*base, "--format", "json", "--baseline", "2025-01-06:2025-03-03"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["baseline"].startswith("the period 2025-01-06 to 2025-03-03")
    assert d["baseline_blind_spot"].startswith("a drop that began before or during the period")
    assert main([*base, "--format", "csv", "--baseline", "0.9", "--window", "1M"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("detector,window_start,support_0,support_1") and len(lines) == 1 + 6 * 12
    report = tmp_path / "m.html"
    assert main([*base, "--no-pictures", "-o", str(report)]) == 0 and report.exists()
    capsys.readouterr()
    for bad, msg in ((["--window", "5x"], "window"), (["--baseline", "someday"], "not a baseline"),
                     (["--time", "nope"], "no column 'nope'")):
        assert main([*base, *bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and msg in err and err.startswith("bacc: error:")
    # through a real process: one line on standard error, status 2, nothing on standard output
    r = run_cli(*base, "--window", "5x")
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
