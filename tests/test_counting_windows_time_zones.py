"""Windows over time on the clock of the data's own time zone, for every engine alike.

The reference is a pandas ``groupby`` on the local wall-clock time, written here apart from
the engines; every engine (pandas, polars, pyarrow, DuckDB relations, Parquet, CSV, JSON
lines, mappings) must give the same counts.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
from collections import Counter

import numpy as np
import pytest

import bacc
from bacc import BaccError, BaccWarning
from bacc.counting.windows import count_windows, to_datetime64

pd = pytest.importorskip("pandas")
pytest.importorskip("duckdb")

NY = "America/New_York"
SPRING = dt.datetime(2026, 3, 8)  # clocks go from 02:00 to 03:00: a day of 23 hours
AUTUMN = dt.datetime(2026, 11, 1)  # clocks go from 02:00 back to 01:00: a day of 25 hours
KW = dict(true="label", pred="predicted", time="ts", by="detector")


def _have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def make_log(tz: str | None = NY, seed: int = 11):
    """Hourly predictions of two detectors around both changes of daylight saving time in
    2026, with a gap of four days, rows shuffled; times in ``tz`` (naive when None)."""
    rng = np.random.default_rng(seed)
    spans = [("2026-03-05", "2026-03-12"), ("2026-03-16", "2026-03-18"),  # the gap
             ("2026-10-29", "2026-11-04")]
    parts = [pd.date_range(a, b, freq="h", tz=tz, inclusive="left", unit="ns") for a, b in spans]
    ts = parts[0].append(parts[1:])
    rows = []
    for det in ("a", "b"):
        y = rng.integers(0, 2, ts.size)
        p = np.where(rng.random(ts.size) < 0.8, y, 1 - y)
        rows.append(pd.DataFrame({"detector": det, "ts": ts, "label": y, "predicted": p}))
    df = pd.concat(rows, ignore_index=True)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def expected_counts(df, floor) -> Counter:
    """``(detector, window start, true, pred) -> n`` by pandas on the local wall clock."""
    local = df["ts"].dt.tz_localize(None) if df["ts"].dt.tz is not None else df["ts"]
    start = floor(local)
    sizes = df.assign(start=start).groupby(["detector", "start", "label", "predicted"]).size()
    return Counter({(d, s.to_pydatetime(), int(t), int(p)): int(n)
                    for (d, s, t, p), n in sizes.items()})


def as_counter(gc) -> Counter:
    out: Counter = Counter()
    for g, (det, start) in enumerate(gc.groups):
        for i, t in enumerate(gc.labels):
            for j, p in enumerate(gc.labels):
                if gc.counts[g, i, j]:
                    out[(det, start, int(t), int(p))] = int(gc.counts[g, i, j])
    return out


def same(a, b) -> bool:
    """Equal windows and counts (CSV labels are text: compared by position)."""
    return tuple(a.groups) == tuple(b.groups) and np.array_equal(a.counts, b.counts)


@pytest.fixture(scope="module")
def log():
    return make_log()


# ----------------------------------------------------------------------------------------------
# the rule: a local calendar day
def test_daily_windows_are_local_calendar_days_of_23_and_25_hours(log):
    before = log.copy()
    got = count_windows(log, window="1D", **KW)
    assert as_counter(got) == expected_counts(log, lambda t: t.dt.floor("D"))
    # every start is local midnight, and the days of the clock changes hold 23 and 25 hours
    assert all(s.hour == 0 and s.minute == 0 for _, s in got.groups)
    per_day = dict(zip(got.groups, got.counts.sum(axis=(1, 2)).tolist(), strict=True))
    assert per_day[("a", SPRING)] == 23 and per_day[("b", SPRING)] == 23
    assert per_day[("a", AUTUMN)] == 25 and per_day[("b", AUTUMN)] == 25
    assert per_day[("a", dt.datetime(2026, 3, 9))] == 24
    # the gap has no windows, and the caller's frame is untouched
    assert not any(dt.datetime(2026, 3, 12) <= s < dt.datetime(2026, 3, 16) for _, s in got.groups)
    pd.testing.assert_frame_equal(log, before)
    assert str(log["ts"].dtype) == "datetime64[ns, America/New_York]"


def test_hourly_windows_follow_the_local_clock_across_the_changes(log):
    got = count_windows(log, window="1h", **KW)
    assert as_counter(got) == expected_counts(log, lambda t: t.dt.floor("h"))
    per_hour = dict(zip(got.groups, got.counts.sum(axis=(1, 2)).tolist(), strict=True))
    # the skipped hour has no window; the repeated hour holds two hours of examples
    assert ("a", dt.datetime(2026, 3, 8, 2)) not in per_hour
    assert per_hour[("a", dt.datetime(2026, 3, 8, 3))] == 1
    assert per_hour[("a", dt.datetime(2026, 11, 1, 1))] == 2
    assert per_hour[("a", dt.datetime(2026, 11, 1, 2))] == 1


@pytest.mark.parametrize("window", ["7D", "1M", "6h"])
def test_weeks_months_and_hours_on_the_local_clock(log, window):
    floors = {
        "7D": lambda t: t.dt.floor("D") - pd.to_timedelta(t.dt.day_of_week, unit="D"),
        "1M": lambda t: t.dt.to_period("M").dt.start_time,
        "6h": lambda t: t.dt.floor("6h"),
    }
    got = count_windows(log, window=window, **KW)
    assert as_counter(got) == expected_counts(log, floors[window])


# ----------------------------------------------------------------------------------------------
# every engine alike
def _sources(df, tmp_path):
    """The same data in every form bacc reads, each with what it needs to run."""
    out = {"pandas": df, "mapping": {c: list(df[c]) for c in df.columns}}
    df.to_parquet(tmp_path / "pandas.parquet")  # timestamp[ns, tz=America/New_York]
    out["parquet (pandas)"] = tmp_path / "pandas.parquet"
    df.to_csv(tmp_path / "log.csv", index=False)  # 2026-03-08 03:00:00-04:00
    out["csv"] = tmp_path / "log.csv"
    if _have("polars"):
        import polars as pl

        out["polars"] = pl.from_pandas(df)
        out["polars lazy"] = pl.from_pandas(df).lazy()
        pl.from_pandas(df).write_parquet(tmp_path / "polars.parquet")
        out["parquet (polars)"] = tmp_path / "polars.parquet"
    if _have("pyarrow"):
        import pyarrow as pa

        out["pyarrow"] = pa.Table.from_pandas(df)
    if _have("dask"):
        import dask.dataframe as dd

        out["dask"] = dd.from_pandas(df, npartitions=3)
    return out


@pytest.mark.parametrize("window", ["1D", "1h"])
def test_every_engine_counts_the_same_local_windows(log, tmp_path, window):
    ref = count_windows(log, window=window, **KW)
    assert as_counter(ref) == expected_counts(log, lambda t: t.dt.floor(window.replace("1D", "D")))
    for name, src in _sources(log, tmp_path).items():
        got = count_windows(src, window=window, progress=False, **KW)
        assert same(got, ref), name


def test_a_duckdb_relation_is_bucketed_in_its_connections_time_zone(log):
    import duckdb

    ref = count_windows(log, window="1D", **KW)
    con = duckdb.connect()
    con.execute(f"SET TimeZone = '{NY}'")
    assert same(count_windows(con.from_df(log), window="1D", **KW), ref)
    utc = duckdb.connect()
    utc.execute("SET TimeZone = 'UTC'")
    as_utc = log.assign(ts=log["ts"].dt.tz_convert("UTC"))
    assert same(count_windows(utc.from_df(log), window="1D", **KW),
                count_windows(as_utc, window="1D", **KW))


def test_the_same_monitor_from_pandas_polars_and_parquet(log, tmp_path):
    pl = pytest.importorskip("polars")
    log.to_parquet(tmp_path / "log.parquet")
    kw = dict(**KW, window="1D", baseline="previous", lookback=3, progress=False)
    ref = bacc.monitor(log, **kw).to_dict()
    assert bacc.monitor(pl.from_pandas(log), **kw).to_dict() == ref
    assert bacc.monitor(tmp_path / "log.parquet", **kw).to_dict() == ref
    starts = {w["window_start"] for w in ref["windows"]}
    assert "2026-03-08T00:00:00" in starts and "2026-11-01T00:00:00" in starts


def test_a_reference_period_is_read_on_the_datas_clock(log, tmp_path):
    log.to_parquet(tmp_path / "log.parquet")
    local = log["ts"].dt.tz_localize(None)
    inside = log[(local >= "2026-03-08") & (local < "2026-03-09")]
    for period in (("2026-03-08", "2026-03-09"),
                   (dt.datetime(2026, 3, 8, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
                    "2026-03-09T00:00:00-04:00")):
        for src in (log, tmp_path / "log.parquet"):
            got = count_windows(src, window="1D", period=period, progress=False, **KW)
            assert got.counts.sum() == len(inside) == 2 * 23
            for det in ("a", "b"):
                sub = inside[inside.detector == det]
                assert got[det].counts.sum() == len(sub)
                assert int(np.trace(got[det].counts)) == int((sub.label == sub.predicted).sum())


def test_an_aware_time_is_read_on_its_own_clock():
    t = to_datetime64("2026-03-08T00:00:00-05:00", "start")
    assert t == np.datetime64("2026-03-08T00:00:00")
    aware = dt.datetime(2026, 3, 8, 1, 30, tzinfo=dt.timezone.utc)
    assert to_datetime64(aware, "start") == np.datetime64("2026-03-08T01:30:00")
    assert to_datetime64(pd.Timestamp("2026-11-01 00:30", tz=NY), "x") == np.datetime64("2026-11-01T00:30")
    assert to_datetime64("2026-03-07", "x") == np.datetime64("2026-03-07T00:00")  # not an offset
    with pytest.raises(BaccError, match="cannot read 'soon' as a date"):
        to_datetime64("soon", "start")


# ----------------------------------------------------------------------------------------------
# naive, UTC and fixed offsets
def test_naive_times_are_taken_as_they_are(tmp_path):
    naive = make_log(tz=None)
    got = count_windows(naive, window="1D", **KW)
    assert as_counter(got) == expected_counts(naive, lambda t: t.dt.floor("D"))
    naive.to_parquet(tmp_path / "naive.parquet")  # timestamp[ns]
    assert same(count_windows(tmp_path / "naive.parquet", window="1D", progress=False, **KW), got)
    # on the local clock, aware times and their naive wall clock count alike
    aware = make_log(tz=NY)
    assert same(count_windows(aware.assign(ts=aware["ts"].dt.tz_localize(None)), window="1D", **KW),
                count_windows(aware, window="1D", **KW))


@pytest.mark.parametrize("tz", ["UTC", "Asia/Tokyo", "Europe/Paris", "America/Argentina/Buenos_Aires",
                                dt.timezone(dt.timedelta(hours=5, minutes=30))])
def test_other_zones_and_fixed_offsets(tz, tmp_path):
    df = make_log(tz=NY).assign(ts=lambda d: d["ts"].dt.tz_convert(tz))
    ref = count_windows(df, window="1D", **KW)
    assert as_counter(ref) == expected_counts(df, lambda t: t.dt.floor("D"))
    df.to_parquet(tmp_path / "log.parquet")
    assert same(count_windows(tmp_path / "log.parquet", window="1D", progress=False, **KW), ref)
    if _have("polars") and isinstance(tz, str):  # polars takes zone names only
        import polars as pl

        assert same(count_windows(pl.from_pandas(df), window="1D", **KW), ref)


def test_parquet_files_in_different_zones_are_refused(tmp_path):
    df = make_log(tz=NY)
    df.iloc[:100].to_parquet(tmp_path / "ny.parquet")
    df.iloc[100:].assign(ts=lambda d: d["ts"].dt.tz_convert("UTC")).to_parquet(tmp_path / "utc.parquet")
    with pytest.raises(BaccError, match=r"'ts' \(time=\) is stored in different time zones"):
        count_windows(tmp_path, window="1D", progress=False, **KW)


def test_nanoseconds_are_floored_to_the_microsecond_as_pandas_does(tmp_path):
    # half a microsecond before local midnight is still the old day
    ts = pd.Series(pd.to_datetime(["2026-03-07 23:59:59.9999996", "2026-03-08 00:00:00"], format="ISO8601").tz_localize(NY))
    assert ts.dt.tz_convert(NY).dt.tz_localize(None).dt.floor("D").tolist() == [
        pd.Timestamp("2026-03-07"), pd.Timestamp("2026-03-08")]
    for tz in (NY, None):
        df = pd.DataFrame({"detector": "a", "ts": ts if tz else ts.dt.tz_localize(None),
                           "label": [0, 1], "predicted": [0, 1]})
        df.to_parquet(tmp_path / "ns.parquet")
        arrays = {c: df[c].to_numpy() for c in df.columns}  # datetime64[ns] when naive
        for src in (df, tmp_path / "ns.parquet", arrays):
            got = count_windows(src, window="1D", progress=False, **KW)
            assert got.groups == (("a", dt.datetime(2026, 3, 7)), ("a", dt.datetime(2026, 3, 8)))


# ----------------------------------------------------------------------------------------------
# missing times, text that is not a time, a single window
def test_missing_times_are_missing_values_on_every_engine(tmp_path):
    df = make_log(tz=NY)
    df.loc[[3, 17, 40], "ts"] = pd.NaT
    assert str(df["ts"].dtype) == "datetime64[ns, America/New_York]"
    keep = df.dropna(subset=["ts"])
    expected = expected_counts(keep, lambda t: t.dt.floor("D"))
    df.to_parquet(tmp_path / "log.parquet")
    df.to_csv(tmp_path / "log.csv", index=False)  # an empty field
    sources = {"pandas": df, "parquet": tmp_path / "log.parquet", "csv": tmp_path / "log.csv",
               "mapping": {c: list(df[c]) for c in df.columns}}
    if _have("polars"):
        import polars as pl

        sources["polars"] = pl.from_pandas(df)
    for name, src in sources.items():
        with pytest.raises(BaccError, match=r"3 examples have a missing .*'ts' \(time=\)"):
            count_windows(src, window="1D", progress=False, **KW)
        with pytest.warns(BaccWarning, match="left out 3 examples"):
            got = count_windows(src, window="1D", nulls="drop", progress=False, **KW)
        assert got.n_dropped == 3, name
        if name == "csv":
            assert Counter({(d, s, int(t), int(p)): n for (d, s, t, p), n in as_counter(got).items()}) == expected
        else:
            assert as_counter(got) == expected, name


def test_text_that_is_not_a_time_is_refused_naming_the_column(tmp_path):
    df = pd.DataFrame({"detector": ["a"] * 3, "ts": ["2026-03-08", "yesterday", "2026-03-09"],
                       "label": [0, 1, 1], "predicted": [0, 1, 0]})
    with pytest.raises(BaccError, match=r"column 'ts' \(time=\) holds .*not times"):
        count_windows(df, window="1D", **KW)
    with pytest.raises(BaccError, match=r"column 'ts' \(time=\) holds 'yesterday' \(row 1\), not a time"):
        count_windows({c: list(df[c]) for c in df.columns}, window="1D", **KW)
    df.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(BaccError, match=r"column 'ts' \(time=\) holds VARCHAR, not times"):
        count_windows(tmp_path / "bad.csv", window="1D", progress=False, **KW)
    with pytest.raises(BaccError, match=r"column 'ts' \(time=\) holds 3 \(row 0\), not a time"):
        count_windows({"ts": [3, 4, 5], "detector": ["a"] * 3, "label": [0, 1, 1],
                       "predicted": [0, 1, 0]}, window="1D", **KW)


def test_csv_text_with_a_bad_time_among_offsets_is_one_clear_error(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("detector,ts,label,predicted\n"
                    "a,2026-03-08 01:00:00-05:00,0,0\n"
                    "a,2026-03-08 03:00:00-04:00,1,1\n")
    got = count_windows(path, window="1h", progress=False, **KW)
    assert [s for _, s in got.groups] == [dt.datetime(2026, 3, 8, 1), dt.datetime(2026, 3, 8, 3)]
    with open(path, "a") as f:
        f.write("a,2026-03-08 25:00:00-04:00,1,1\n")
    with pytest.raises(BaccError) as err:
        count_windows(path, window="1h", progress=False, **KW)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_a_single_window(tmp_path):
    df = make_log(tz=NY)
    one = df[df["ts"].dt.tz_localize(None).dt.floor("D") == pd.Timestamp(AUTUMN)]
    assert len(one) == 50
    one.to_parquet(tmp_path / "one.parquet")
    for src in (one, tmp_path / "one.parquet"):
        got = count_windows(src, window="1D", progress=False, **KW)
        assert got.groups == (("a", AUTUMN), ("b", AUTUMN))
        assert got.counts.sum(axis=(1, 2)).tolist() == [25, 25]
        assert as_counter(got) == expected_counts(one, lambda t: t.dt.floor("D"))
    no_by = count_windows(one, window="7D", true="label", pred="predicted", time="ts")
    assert no_by.groups == (dt.datetime(2026, 10, 26),) and no_by.counts.sum() == 50


def test_json_lines_with_offsets_are_read_on_the_clock_they_are_written_in(log, tmp_path):
    path = tmp_path / "log.jsonl"
    with open(path, "w") as f:
        for d, t, y, p in zip(log["detector"], log["ts"], log["label"], log["predicted"], strict=True):
            f.write(f'{{"detector": "{d}", "ts": "{t.isoformat()}", "label": {y}, "predicted": {p}}}\n')
    assert "-04:00" in path.read_text() and "-05:00" in path.read_text()
    got = count_windows(path, window="1D", progress=False, **KW)
    assert same(got, count_windows(log, window="1D", **KW))


def test_the_monitor_command_on_a_parquet_file_of_new_york_times(log, tmp_path):
    import contextlib
    import io
    import json

    from bacc.cli import main

    log.to_parquet(tmp_path / "log.parquet")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["monitor", str(tmp_path / "log.parquet"), "--true", "label", "--pred", "predicted",
                   "--time", "ts", "--by", "detector", "--window", "1D", "--format", "json"])
    assert rc == 0, err.getvalue()
    doc = json.loads(out.getvalue())
    api = bacc.monitor(log, window="1D", progress=False, **KW).to_dict()
    assert [w["window_start"] for w in doc["windows"]] == [w["window_start"] for w in api["windows"]]
    n = {(w["detector"], w["window_start"]): sum(w["support"]) for w in doc["windows"]}
    assert n[("a", "2026-03-08T00:00:00")] == 23 and n[("b", "2026-11-01T00:00:00")] == 25


def test_a_reference_period_of_a_duckdb_relation_with_question_marks_in_column_names():
    import duckdb

    df = pd.DataFrame({"when?": pd.date_range("2026-01-01", periods=10, freq="12h", tz=NY),
                       "y? '": [0, 1] * 5, "p": [0, 1, 1, 0, 0] * 2})
    local = df["when?"].dt.tz_localize(None)
    inside = df[(local >= "2026-01-02") & (local < "2026-01-04")]
    want = [[int(((inside["y? '"] == t) & (inside.p == p)).sum()) for p in (0, 1)] for t in (0, 1)]
    con = duckdb.connect()
    con.execute(f"SET TimeZone = '{NY}'")
    for src in (df, con.from_df(df)):
        got = count_windows(src, true="y? '", pred="p", time="when?", window="1D",
                            period=("2026-01-02", "2026-01-04"))
        assert got.counts.tolist() == want and sum(map(sum, want)) == 4
