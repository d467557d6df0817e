"""The defaults of ``bacc.monitor``: a sustained drop is caught, and the output says how.

The example log is the one the README has shown (12 cameras, 26 weeks of 2026, 30 %
positives, every camera right 93 % of the time; ``cam07`` right only 80 % of the time from 1
April on, to the end). The claims:

- with every default (the baseline: each detector's first 8 windows; ``alarm_at=0.999``) the
  degraded camera alarms in the week holding 1 April and in every later week, it is the one
  detector in ALARM, and the unchanged cameras alarm in at most 2 of their windows; the former
  default (the previous 4 windows, ``alarm_at=0.99``), still available by name, alarms twice
  for it, as often as for an unchanged camera;
- the ``"first"`` and ``"past"`` baselines pool the counts they say (checked against a count of
  the frame in pandas and the flat-prior posterior means);
- the text, the report, the JSON and the CSV name the baseline in words with its blind spot,
  and define the words ALARM, alarmed and ok;
- ``repr`` is one line with the headline numbers.
"""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pytest

import bacc
from bacc.monitoring import STATES

pd = pytest.importorskip("pandas")

DEGRADED = "cam07"
CHANGE = dt.datetime(2026, 4, 1)


def readme_log():
    """The README's example log, as the README wrote it."""
    rng = np.random.default_rng(1)
    n = 60_000  # 12 cameras, 26 weeks of 2026
    log = pd.DataFrame({
        "detector": rng.choice([f"cam{i:02d}" for i in range(12)], n),
        "ts": pd.Timestamp("2026-01-05") + pd.to_timedelta(rng.uniform(0, 182, n), unit="D"),
        "label": (rng.random(n) < 0.3).astype(int),
    })  # fmt: skip
    worse = (log.detector == DEGRADED) & (log.ts >= "2026-04-01")  # cam07 degrades on 1 April
    right = rng.random(n) < np.where(worse, 0.80, 0.93)
    log["predicted"] = np.where(right, log.label, 1 - log.label)
    return log


KW = dict(true="label", pred="predicted", time="ts", by="detector", progress=False)


@pytest.fixture(scope="module")
def log():
    return readme_log()


@pytest.fixture(scope="module")
def default(log):
    return bacc.monitor(log, **KW)


@pytest.fixture(scope="module")
def former(log):
    return bacc.monitor(log, **KW, baseline="previous", alarm_at=0.99, n_simulations=200)


# ----------------------------------------------------------------------------------------------
# the README's degraded camera, with every default
def test_the_defaults_find_the_degraded_camera_and_keep_alarming(default):
    m = default
    assert m.window == "7D" and m.alarm_at == 0.999
    assert m.baseline == "each detector's first 8 windows of 7D (pooled counts)"
    assert m.alarms[0] == DEGRADED
    summary = {r["detector"]: r for r in m.summary()}
    assert [d for d, r in summary.items() if r["state"] == "ALARM"] == [DEGRADED]
    # the first alarm is the week holding 1 April (a Wednesday), and every later week alarms
    assert m.first_alarm(DEGRADED) == dt.datetime(2026, 3, 30)
    t = m.timeline(DEGRADED)
    after = t.start >= np.datetime64("2026-03-30")
    assert after.sum() == 14 and t.alarm[after].all() and not t.alarm[~after].any()
    # the unchanged cameras: at most 2 alarming windows among their 11 x 26
    others = [r for d, r in summary.items() if d != DEGRADED]
    assert len(others) == 11 and sum(r["windows"] for r in others) == 11 * 26
    assert sum(r["alarms"] for r in others) <= 2
    assert sum(r["alarms"] > 0 for r in others) <= 1
    # the stated rate of the rule: about 1 - alarm_at
    assert m.n_simulated == 2000 and m.false_alarm_rate < 0.005


def test_the_former_default_is_kept_by_name_and_hides_the_drop(former, default):
    summary = {r["detector"]: r for r in former.summary()}
    assert former.baseline == "the previous 4 windows of 7D of each window (pooled counts)"
    assert former.blind_spot.startswith("a drop that lasts is absorbed")
    # it finds the change in the week holding it, then the drop fills its baseline
    assert former.first_alarm(DEGRADED) == dt.datetime(2026, 3, 30)
    assert summary[DEGRADED]["alarms"] == 2 and summary[DEGRADED]["state"] == "alarmed"
    assert max(r["alarms"] for d, r in summary.items() if d != DEGRADED) == 2
    assert {r["detector"]: r["alarms"] for r in default.summary()}[DEGRADED] == 14


def test_the_command_line_defaults_find_the_degraded_camera(log, tmp_path, capsys):
    pytest.importorskip("duckdb")
    from bacc.cli import main

    path = tmp_path / "log.csv"
    log.to_csv(path, index=False)
    args = ["monitor", str(path), "--true", "label", "--pred", "predicted", "--time", "ts",
            "--by", "detector", "--simulations", "200"]
    assert main(args) == 0
    text = capsys.readouterr().out
    rows = [line.split() for line in text.splitlines() if line.startswith("cam")]
    assert rows[0][:3] == [DEGRADED, "ALARM", "14"]
    assert all(r[1] != "ALARM" for r in rows[1:12])
    assert "blind spot of this baseline: a drop that began before or during each detector's " \
           "first 8 windows is not seen" in " ".join(text.split())


# ----------------------------------------------------------------------------------------------
# what the named baselines pool
def _week_counts(log):
    """(detector, Monday) -> [[k0, n0], [k1, n1]] counted with pandas."""
    ts = log["ts"]
    week = (ts.dt.normalize() - pd.to_timedelta(ts.dt.day_of_week, unit="D")).rename("week")
    right = (log["label"] == log["predicted"]).rename("right")
    g = log.assign(week=week, right=right).groupby(["detector", "week", "label"])["right"]
    k = g.sum().unstack("label", fill_value=0)
    n = g.size().unstack("label", fill_value=0)
    return k, n


def _mean(k, n):
    return float(np.mean((k + 1.0) / (n + 2.0)))


@pytest.mark.parametrize("lookback", [None, 3])
def test_first_pools_each_detectors_first_windows(log, lookback):
    m = bacc.monitor(log, **KW, baseline="first", lookback=lookback, n_simulations=0)
    K = 8 if lookback is None else lookback
    k, n = _week_counts(log)
    for d in ("cam00", DEGRADED):
        weeks = k.loc[d].index
        first = weeks[weeks < weeks[0] + pd.Timedelta(days=7 * K)]
        kb, nb = k.loc[(d, first), :].sum().to_numpy(), n.loc[(d, first), :].sum().to_numpy()
        t = m.timeline(d)
        np.testing.assert_allclose(t.baseline_mean, _mean(kb, nb), rtol=0, atol=1e-12)
    assert m.baseline == f"each detector's first {K} windows of 7D (pooled counts)"


def test_past_pools_every_earlier_window(log):
    m = bacc.monitor(log, **KW, baseline="past", n_simulations=0)
    k, n = _week_counts(log)
    t = m.timeline("cam03")
    kc, nc = k.loc["cam03"].to_numpy(), n.loc["cam03"].to_numpy()
    assert np.isnan(t.baseline_mean[0]) and np.isnan(t.p_worse[0])  # nothing before
    for i in (1, 5, 25):
        assert t.baseline_mean[i] == pytest.approx(_mean(kc[:i].sum(0), nc[:i].sum(0)), abs=1e-12)
    assert m.blind_spot.startswith("a drop that lasts is absorbed slowly")


def test_every_baseline_states_its_blind_spot(log):
    small = log[log.detector.isin(["cam00", DEGRADED])]
    spots = {
        "first": "before or during each detector's first 8 windows",
        "previous": "once it fills the 4 windows of the baseline",
        "past": "absorbed slowly",
        "2026-01-05:2026-02-02": "before or during the period",
        0.9: "a drop that stays above 0.9 is not seen",
    }
    for baseline, words in spots.items():
        m = bacc.monitor(small, **KW, baseline=baseline, n_simulations=0)
        assert words in m.blind_spot
        assert f"blind spot of this baseline: {m.blind_spot}" in " ".join(str(m).split())
        assert m.to_dict()["baseline_blind_spot"] == m.blind_spot
    with pytest.raises(bacc.BaccError, match="give 'first', 'previous', 'past'"):
        bacc.monitor(small, **KW, baseline="last")


# ----------------------------------------------------------------------------------------------
# the words, in every output
def test_outputs_define_the_alarm_words(default):
    m = default
    text = " ".join(str(m).split())
    assert ("state of a detector: ALARM = its latest window alarms; alarmed = an earlier window "
            "alarmed, its latest window does not; ok = no window alarmed") in text
    assert "rule: a window alarms when P(balanced accuracy of the window < baseline) >= 0.999" in text
    d = m.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["definitions"]["alarm"] == m.rule
    assert m.rule == "a window alarms when P(balanced accuracy of the window < baseline) >= 0.999"
    assert {k.removeprefix("state ") for k in d["definitions"] if k.startswith("state ")} == set(STATES)
    assert d["detectors"][0] == {"detector": DEGRADED, "state": "ALARM", "alarms": 14, "windows": 26}
    html = m._repr_html_()
    for word, meaning in STATES.items():
        assert f"{word} = {meaning}" in html
    assert "blind spot of this baseline" in html and "<table" in html


def test_repr_is_one_line_with_the_headline_numbers(default, former):
    assert repr(default) == ("Monitoring(12 detectors x 312 windows of 7D: 1 in ALARM (cam07), "
                             f"{sum(r['state'] == 'alarmed' for r in default.summary())} alarmed "
                             f"before; {int(default.alarm.sum())} alarming windows)")
    assert "\n" not in repr(former) and "0 in ALARM" in repr(former)
    assert repr(default.timeline(DEGRADED)).startswith("Monitoring(1 detector x 26 windows of 7D: 1 in ALARM (cam07)")
