"""Terminal text of a :class:`bacc.Monitoring` (presentation only: no computation).

The rows built here are shared with the HTML report (:mod:`bacc.display.monitoring_report`):
one row per detector (detectors in alarm first), and one row per window of a detector.
"""

from __future__ import annotations

import math

import numpy as np

from . import numbers as fmt
from .text import WIDTH, align, wrap

__all__ = ["detector_name", "detector_rows", "monitoring_head", "monitoring_text", "timeline_rows", "window_text", "window_words"]


def detector_name(d) -> str:
    """A detector's value(s) as text (several ``by`` columns joined by ``/``)."""
    return " / ".join(map(str, d)) if isinstance(d, tuple) else str(d)


def window_text(t) -> str:
    """A window start as text: the date, with the time when it is not midnight."""
    s = str(np.datetime64(t, "s"))
    return s[:10] if s.endswith("T00:00:00") else s.replace("T", " ")[:16]


def _rate(m) -> str:
    if "anytime-valid" in m.rule:
        return (f"false alarms: at most {1 - m.confidence:.2g} of unchanged detectors ever alarm, "
                "over the whole stream (by construction, not per window)")
    if m.n_simulated == 0 or math.isnan(m.false_alarm_rate):
        return "false-alarm rate not simulated"
    return (f"false alarms per window under no change {100 * m.false_alarm_rate:.2f}% "
            f"(Monte Carlo error {100 * m.false_alarm_se:.2f}%, {m.n_simulated} simulated windows)")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def state_words() -> str:
    """What the states of a detector mean, in one line."""
    from ..monitoring import STATES

    return "; ".join(f"{word} = {meaning}" for word, meaning in STATES.items())


def monitoring_head(m) -> list[str]:
    """The opening lines: size, baseline and its blind spot, decision rule and its measured
    false-alarm rate, and what the words of the table mean."""
    n_alarm = int(m.alarm.sum())
    alarmed = len(m.alarms)
    lines = [
        f"{_count(len(m.detectors), 'detector')}, {_count(len(m), 'window')} of {m.window}, "
        f"{_count(n_alarm, 'alarming window')} in {_count(alarmed, 'detector')}",
        f"baseline: {m.baseline}",
    ]
    if m.blind_spot:
        lines.append(f"blind spot of this baseline: {m.blind_spot}")
    return [*lines, f"rule: {m.rule}", _rate(m),
            f"state of a detector: {state_words()}; in a detector's windows, ALARM marks a "
            "window that alarms"]


def detector_rows(m, *, limit: int | None = None) -> tuple[list[str], list[list[str]]]:
    """One row per detector, detectors in alarm first (:meth:`bacc.Monitoring.summary`)."""
    head = ["detector", "state", "alarms", "windows", "first alarm", "latest window",
            "latest mean", "P(worse)"]  # fmt: skip
    rows = []
    for r in m.summary()[:limit]:
        rows.append([
            detector_name(r["detector"]), r["state"], str(r["alarms"]), str(r["windows"]),
            window_text(r["first_alarm"]) if r["first_alarm"] is not None else "-",
            window_text(r["latest_start"]), fmt.number(r["latest_mean"]),
            fmt.probability(r["latest_p_worse"]),
        ])  # fmt: skip
    return head, rows


def timeline_rows(m, detector, *, limit: int | None = None) -> tuple[list[str], list[list[str]]]:
    """One row per window of ``detector`` (the latest ``limit`` windows)."""
    t = m.timeline(detector)
    pct = fmt.percent(m.confidence)
    head = ["window", "examples", "mean", f"{pct} credible", f"{pct} exact", "baseline",
            "P(worse)", "alarm"]  # fmt: skip
    idx = range(len(t)) if limit is None else range(max(0, len(t) - limit), len(t))
    rows = [[
        window_text(t.start[i]), str(int(t.support[i].sum())), fmt.number(t.mean[i]),
        fmt.interval(t.lower[i], t.upper[i]), fmt.interval(t.exact_lower[i], t.exact_upper[i]),
        fmt.number(t.baseline_mean[i]), fmt.probability(t.p_worse[i]),
        "ALARM" if t.alarm[i] else "",
    ] for i in idx]  # fmt: skip
    return head, rows


def monitoring_text(m, *, limit: int = 40, timelines: int = 3, windows: int = 12) -> str:
    """Terminal text of a :class:`bacc.Monitoring`.

    Parameters
    ----------
    m : Monitoring
    limit : int
        Most detectors listed (those in alarm first).
    timelines : int
        Detectors in alarm whose latest windows are shown.
    windows : int
        Windows shown per timeline (the latest).

    Returns
    -------
    str
        The settings and the rule with its false-alarm rate, one row per detector (in alarm
        first), then the recent windows of the first detectors in alarm.
    """
    lines = [x for line in monitoring_head(m) for x in wrap(line, WIDTH)]
    head, rows = detector_rows(m, limit=limit)
    lines += ["", *align(head, rows, left=(0, 1, 4, 5))]
    if len(m.detectors) > limit:
        lines.append(f"... and {len(m.detectors) - limit} more detectors")
    for d in m.alarms[:timelines]:
        head, rows = timeline_rows(m, d, limit=windows)
        lines += ["", f"{detector_name(d)}: latest {len(rows)} windows",
                  *align(head, rows, left=(0, 7))]
    return "\n".join(lines)


#: The units of a window width in words (``bacc.counting.windows.parse_window``).
_UNIT_WORDS = {"s": "second", "min": "minute", "h": "hour", "D": "day", "W": "week",
               "M": "month", "Q": "quarter", "Y": "year"}


def window_words(code: str) -> str:
    """A window width in words: ``"7D"`` as ``"7-day"``, ``"1W"`` as ``"week"``.

    Examples
    --------
    >>> window_words("7D"), window_words("1W"), window_words("M"), window_words("30min")
    ('7-day', 'week', 'month', '30-minute')
    """
    import re

    m = re.fullmatch(r"\s*(\d*)\s*([A-Za-z]+)\s*", str(code))
    if not m or m.group(2) not in _UNIT_WORDS:
        return str(code)
    num, unit = int(m.group(1) or 1), _UNIT_WORDS[m.group(2)]
    return unit if num == 1 else f"{num}-{unit}"
