"""
Monitoring detectors over time: catching a drift
================================================

Six cameras run the same detector, and a sample of their predictions is labelled every
day. On 1 April one camera is moved and its accuracy drops from 0.93 to 0.80 per class.
Which camera, and since when? :func:`bacc.monitor` counts every detector's predictions
in calendar windows, evaluates every window, compares it with a baseline, and alarms
when the window is worse with high posterior probability; :meth:`bacc.Monitoring.plot`
(the same figure as :func:`bacc.display.plot.plot_timeline`) draws one detector's
timeline.
"""

# %%
# A simulated prediction log
# --------------------------
# One row per labelled prediction: detector, time stamp, true label, predicted label.
# 30% of the examples are positive.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import bacc
from bacc.display.plot import plot_timeline

rng = np.random.default_rng(1)
n = 30_000
start = pd.Timestamp("2026-01-05")  # a Monday
log = pd.DataFrame({
    "detector": rng.choice([f"cam{i:02d}" for i in range(6)], n),
    "ts": start + pd.to_timedelta(rng.uniform(0, 182, n), unit="D"),
    "label": (rng.random(n) < 0.3).astype(int),
})
moved = (log.detector == "cam03") & (log.ts >= "2026-04-01")
right = rng.random(n) < np.where(moved, 0.80, 0.93)
log["predicted"] = np.where(right, log.label, 1 - log.label)
print(log.head())

# %%
# Monitor against a reference period
# ----------------------------------
# Weekly windows (Monday to Sunday), each compared with the pooled counts of a reference
# period of eight weeks (the default baseline is each detector's own first eight
# windows; a named period is the same idea with dates you choose). A window alarms when
# P(its balanced accuracy < the baseline's) is at least 0.999, the default ``alarm_at``:
# a few tenths of a percent of windows alarm when nothing changed. ``print`` states the rule, the false-alarm rate per window measured
# by simulating the windows' own sizes under no change, and the detectors in alarm
# first.
m = bacc.monitor(log, true="label", pred="predicted", time="ts", by="detector",
                 window="7D", baseline="2026-01-05:2026-03-02", progress=False)
print(m)

# %%
# The results are also attributes:
print("in alarm:", m.alarms)
print("first alarm of cam03:", m.first_alarm("cam03"))
print(f"false alarms per window: {m.false_alarm_rate:.4f} +- {m.false_alarm_se:.4f}")

# %%
# The timeline of the moved camera
# --------------------------------
# Top: per week, the exact 95% interval (pale band), the credible interval (green band),
# the posterior mean (dots), the baseline (grey dashes) and the alarming weeks (red
# triangles). Bottom: P(worse) per week against the alarm threshold. The first alarm
# falls on the week of 13 April, two weeks after the move, and every week after it
# alarms.
fig = m.plot("cam03")

# %%
# An unchanged camera for comparison: P(worse) wanders between 0 and 1, as it should
# when nothing changes, and stays below the threshold.
fig = plot_timeline(m, "cam04")

# %%
# Against the previous weeks
# --------------------------
# ``baseline="previous"`` compares each week with the pooled counts of the
# ``lookback=4`` weeks before it: no reference period to choose, and the baseline
# follows slow seasonal changes. After a sudden drop the baseline catches up within four
# weeks, so the alarms stop there: the timeline shows when the change happened, not that
# it persists.
m_prev = bacc.monitor(log, true="label", pred="predicted", time="ts", by="detector",
                      window="7D", baseline="previous", progress=False)
cam03 = m_prev.summary()[0]
print(f"{cam03['detector']}: {cam03['alarms']} alarms, {cam03['first_alarm']:%d %B} to "
      f"{cam03['last_alarm']:%d %B}; in alarm now: {cam03['in_alarm']}")
fig = m_prev.plot("cam03", title="cam03 against its previous four weeks")

# %%
# One table per window
# --------------------
# ``to_pandas`` gives every window of every detector, to store or to join with other
# data.
table = m.to_pandas()
print(table.columns.tolist())
columns = ["detector", "window_start", "posterior_mean", "p_worse"]
print(table.loc[table.alarm, columns].head())

plt.show()
