"""monitor(rule="anytime"): the alarms equal a direct computation of every pooled anytime
bound, a drop is found, the stream-wide guarantee holds in simulation, and bad settings are
refused."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import bacc
from bacc._engine.bounds import anytime as engine


def _frame(days, per_day, acc, seed, *, detectors=1, drop_day=None, drop=0.0, window_days=1):
    rng = np.random.default_rng(seed)
    det = np.repeat(np.arange(detectors), days * per_day)
    day = np.tile(np.repeat(np.arange(days), per_day), detectors)
    y = (rng.random(det.size) < 0.3).astype(int)
    a = np.where(y == 1, acc[1], acc[0]) - (drop * (day >= drop_day) if drop_day else 0.0)
    right = rng.random(det.size) < a
    return pd.DataFrame({"detector": det,
                         "ts": pd.Timestamp("2026-01-05") + pd.to_timedelta(day, unit="D"),
                         "label": y, "predicted": np.where(right, y, 1 - y)})


def _direct(m, number, alpha=0.05, tuned=100.0, skip=0):
    """Every window's alarm from the definition: counts pooled since each start s (1, 2, 4, ...
    windows back, and the first watched window), the upper bound of the two-class product set
    at level alpha / (s (s + 1)) (the dual, as anytime_interval computes it), below the
    number; the first ``skip`` windows are not watched."""
    c = engine.concentration(np.full(2, tuned), alpha, "two")
    out = []
    k, n = m.correct.astype(float), m.support.astype(float)
    day = (m.start - m.start[0]).astype("timedelta64[D]").astype(int) - skip
    for r in range(len(day)):
        if day[r] < 0:
            out.append(False)
            continue
        pos = int(day[r]) + 1
        starts = {max(pos - (1 << j) + 1, 1) for j in range(pos.bit_length() + 1)} | {1}
        hit = False
        for s in starts:
            sel = (day >= s - 1) & (day <= day[r])  # noqa: B023
            kk, nn = k[sel].sum(axis=0), n[sel].sum(axis=0)
            level = alpha / (s * (s + 1))
            lower_fail = engine._dual_lower((nn - kk)[None], nn[None], c[None], np.full(2, 0.5),
                                            math.log(1 / level), "two")[0]
            hit |= (1 - lower_fail) < number - 1e-9
        out.append(hit)
    return np.array(out)


def test_alarms_equal_the_direct_computation_and_find_the_drop():
    df = _frame(24, 60, (0.95, 0.85), seed=3, drop_day=12, drop=0.25)
    m = bacc.monitor(df, true="label", pred="predicted", time="ts", window="1D", baseline=0.85,
                     rule="anytime", progress=False)
    expected = _direct(m, 0.85)
    assert expected.any() and not expected[:12].any()  # the test can fail both ways
    np.testing.assert_array_equal(m.alarm, expected)
    assert m.first_alarm("all") >= pd.Timestamp("2026-01-17")
    assert "whole stream" in m.rule and "whole stream" in str(m)


def test_a_baseline_learnt_from_the_first_windows():
    """baseline='first': the number is the anytime lower bound (one-sided, half the level) of
    the first 8 windows, and the windows after them are watched at the other half."""
    df = _frame(24, 60, (0.95, 0.85), seed=6, drop_day=14, drop=0.25)
    m = bacc.monitor(df, true="label", pred="predicted", time="ts", window="1D",
                     baseline="first", rule="anytime", progress=False)
    k, n = m.correct[:8].sum(axis=0), m.support[:8].sum(axis=0)
    lower = bacc.anytime_interval(np.array([[k[0], n[0] - k[0]], [n[1] - k[1], k[1]]]),
                                  confidence=0.975, sides="lower").lower
    expected = _direct(m, lower, alpha=0.025, skip=8)
    assert expected.any() and not expected[:14].any()
    np.testing.assert_array_equal(m.alarm, expected)
    assert "baseline's anytime-valid lower bound" in m.rule


@pytest.mark.slow
@pytest.mark.parametrize("baseline", [0.9, "first"])
def test_unchanged_detectors_rarely_ever_alarm(baseline):
    """300 detectors at exactly the baseline number for 180 daily windows: the share that ever
    alarms is at most 5 % (+ 3 Monte Carlo standard errors)."""
    df = _frame(180, 20, (0.95, 0.85), seed=4, detectors=300)
    m = bacc.monitor(df, true="label", pred="predicted", time="ts", window="1D",
                     by="detector", baseline=baseline, rule="anytime", progress=False)
    ever = np.zeros(300, dtype=bool)
    np.logical_or.at(ever, m.detector, m.alarm)
    assert ever.mean() <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 300)


def test_bad_settings_are_refused():
    df = _frame(5, 10, (0.9, 0.9), seed=1)
    kw = dict(true="label", pred="predicted", time="ts", window="1D", progress=False)
    with pytest.raises(bacc.BaccError, match="fixed in advance"):
        bacc.monitor(df, rule="anytime", baseline="previous", **kw)
    with pytest.raises(bacc.BaccError, match="tuned_for"):
        bacc.monitor(df, baseline=0.9, tuned_for=50, **kw)
    with pytest.raises(bacc.BaccError, match="tuned_for"):
        bacc.monitor(df, baseline=0.9, rule="anytime", tuned_for=0, **kw)
    with pytest.raises(bacc.BaccError, match="above 0"):
        bacc.monitor(df, baseline=0.3, margin=0.5, rule="anytime", **kw)


def test_command_line_rule_anytime(tmp_path):
    from test_cli import assert_bad_input, run, run_json

    df = _frame(10, 30, (0.95, 0.85), seed=5, drop_day=5, drop=0.3)
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    out = run_json("monitor", str(path), "--true", "label", "--pred", "predicted", "--time", "ts",
                   "--window", "1D", "--baseline", "0.85", "--rule", "anytime", "--tuned-for", "50")
    m = bacc.monitor(df, true="label", pred="predicted", time="ts", window="1D", baseline=0.85,
                     rule="anytime", tuned_for=50, progress=False)
    assert [w["alarm"] for w in out["windows"]] == m.alarm.tolist()
    proc = run("monitor", str(path), "--true", "label", "--pred", "predicted", "--time", "ts",
               "--rule", "anytime", "--baseline", "past", check=False)
    assert_bad_input(proc)


def test_the_sequence_narrows_and_is_drawn():
    df = _frame(30, 40, (0.95, 0.85), seed=8)
    m = bacc.monitor(df, true="label", pred="predicted", time="ts", window="1D", baseline=0.8,
                     rule="anytime", progress=False)
    starts, upper = m.sequence("all")
    assert starts.size == 30 and np.all(np.diff(upper) < 0.02)  # narrowing, up to noise
    k, n = m.correct.sum(axis=0), m.support.sum(axis=0)
    ref = bacc.anytime_interval(np.array([[k[0], n[0] - k[0]], [n[1] - k[1], k[1]]]),
                                confidence=1 - 0.025, sides="upper")
    assert upper[-1] == pytest.approx(ref.upper, abs=1e-9)
    fig = m.plot("all")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "anytime upper bound, pooled" in labels
    with pytest.raises(bacc.BaccError, match="anytime"):
        bacc.monitor(df, true="label", pred="predicted", time="ts", window="1D", baseline=0.8,
                     progress=False, n_simulations=0).sequence("all")


def test_a_row_gets_the_same_bound_and_alarm_whatever_rows_share_its_call():
    """The dual search stops row by row, and ``below_alarms`` searches each distinct row once:
    a row's bound (and alarm) alone equals the one it gets among 300 others, bit for bit, so a
    detector's baseline and alarms do not change when other detectors join the log."""
    rng = np.random.default_rng(8)
    k = rng.integers(0, 40, (300, 3)).astype(float)
    n = k + rng.integers(0, 12, (300, 3)) + 1
    k[::7] = k[3]  # repeated rows, as pooled windows of a few examples repeat their counts
    n[::7] = n[3]
    tuned, w = np.full((300, 3), 100.0), np.full(3, 1 / 3)
    lo, hi = engine.weighted_bounds(k, n, tuned, w, 0.05, "two")
    alone = [engine.weighted_bounds(k[i:i + 1], n[i:i + 1], tuned[:1], w, 0.05, "two")
             for i in range(0, 300, 50)]
    np.testing.assert_array_equal(lo[::50], [a[0][0] for a in alone])
    np.testing.assert_array_equal(hi[::50], [a[1][0] for a in alone])
    start = rng.integers(1, 30, 300)
    value = np.where(rng.random(300) < 0.5, 0.75, 0.85)
    hit = engine.below_alarms(k, n, start, tuned[0], w, value, 0.05)
    picked = np.concatenate([np.flatnonzero(hit)[:6], np.flatnonzero(~hit)[::40]])
    each = [engine.below_alarms(k[i:i + 1], n[i:i + 1], start[i:i + 1], tuned[0], w,
                                value[i:i + 1], 0.05)[0] for i in picked]
    np.testing.assert_array_equal(hit[picked], each)
    assert 0 < hit.sum() < 300  # both outcomes occur


def test_a_detectors_first_window_baseline_does_not_depend_on_the_others():
    """``baseline="first"``: each detector's alarms are the same in the whole log as in a log
    of that detector alone (its baseline bound is computed for all detectors in one call)."""
    df = _frame(40, 20, (0.95, 0.85), seed=12, detectors=12, drop_day=20, drop=0.25)
    kw = dict(true="label", pred="predicted", time="ts", window="1D", baseline="first",
              rule="anytime", progress=False)
    whole = bacc.monitor(df, by="detector", **kw)
    assert whole.alarm.any()
    for d in sorted(df["detector"].unique())[:2]:
        one = bacc.monitor(df[df["detector"] == d], **kw)
        rows = np.asarray(whole.detector) == d
        np.testing.assert_array_equal(np.asarray(whole.alarm)[rows], np.asarray(one.alarm))
