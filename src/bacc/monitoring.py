"""Monitoring over time: is each detector still as good as it was?

:func:`monitor` counts the examples of every detector in fixed calendar windows inside the data
engine (:func:`bacc.counting.windows.count_windows`: DuckDB for files, the frame's own engine
for DataFrames), evaluates every window of every detector in one batch call, each distinct
window once (:func:`bacc.evaluate_many`: posterior mean, credible interval, exact union-bound
interval), and
compares each window with a baseline:

- a number ``c``: ``p_worse = P(lambda_now < c - margin)``, the posterior distribution function;
- ``"first"`` (the default): the pooled counts of the detector's first ``lookback`` calendar
  windows (8 by default; pooling the counts is the Bayesian update of the same classifier's
  accuracies);
- ``"previous"``: the pooled counts of the ``lookback`` calendar windows before it (4 by
  default);
- ``"past"``: the pooled counts of every calendar window before it;
- a reference period ``(start, end)``: the pooled counts of the examples in it, counted by the
  engine.

Each baseline has a blind spot, stated with the result: a fixed reference (``"first"``, a
period) does not see a drop that began before or during it; a moving one (``"previous"``,
``"past"``) absorbs a drop that lasts, and stops alarming once the drop fills it. The default
was chosen by measurement (``benchmarks/bench_monitor_baselines.py``): a monitor's default must
keep alarming while a sustained drop lasts, and ``"previous"`` stops after a window or two.

For counted baselines ``p_worse = P(lambda_now < lambda_base - margin)`` for independent
posteriors (the window and its baseline hold different examples), each distinct (window,
baseline) pair once. Two-class windows of small counts under the flat prior (the usual day of a
few dozen examples) get it exactly from the window's distribution function, a polynomial on
each half of ``[0, 1]``, averaged over Gauss-Jacobi rules of the baseline
(:mod:`bacc._engine.sums.small_counts`). The other windows: since ``1 - theta ~ Beta(b, a)``
when ``theta ~ Beta(a, b)``, it is the upper tail of one average of ``2 l`` Betas (the
baseline's class accuracies and the window's reflected), computed for every window at once by
the batched lattice of :func:`bacc.evaluate_many`; windows it leaves (every class with fewer
than six errors or six correct examples) get an exact one-dimensional integral (two classes) or
a :class:`BetaSum` (the method chooser of :mod:`bacc._engine.sums.chooser`, the kernels of
:mod:`bacc._engine.sums.worse_than_baseline`). A window alarms under a stated rule,
and the rule's false-alarm rate per window is measured by simulation under no change, on the
windows' own sizes, and reported with its Monte Carlo error.
"""

from __future__ import annotations

import datetime as _dt
import math
import numbers
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._engine.beta import posterior_parameters
from ._engine.bounds.per_class import cp_bounds, per_bound_alpha
from ._engine.helpers.convert import FrozenArrays, jsonable
from ._engine.helpers.validate import (
    check_choice,
    check_confidence,
    check_int,
    check_prior,
    check_random_state,
)
from ._engine.sums.chooser import first_two
from ._engine.sums.rows import p_worse, steps
from ._engine.sums.small_counts import distinct_rows, p_worse_small, takes
from .batch import evaluate_many
from .confusion import ConfusionMatrix, label_order
from .counting.grouped import GroupedCounts
from .counting.windows import count_windows, parse_window, to_datetime64
from .distributions import BetaSum
from .errors import BaccError, BaccWarning, require
from .progress import Progress

__all__ = ["Monitoring", "monitor", "false_alarm_rate"]

RULES = ("posterior", "exact", "anytime")
BASELINES = ("first", "previous", "past")
#: windows pooled by the named baselines when ``lookback`` is not given
LOOKBACK = {"first": 8, "previous": 4}
#: the default threshold of the posterior rule
ALARM_AT = 0.999
#: what the state of a detector means (the words of the text and the report)
STATES = {
    "ALARM": "its latest window alarms",
    "alarmed": "an earlier window alarmed, its latest window does not",
    "ok": "no window alarmed",
}


# ----------------------------------------------------------------------------------------------
# result
@dataclass(frozen=True, eq=False)
class Monitoring(FrozenArrays):
    """Every window of every detector: counts, posterior, exact interval, P(worse), alarm.

    One row per (detector, window) that holds examples, ordered by detector then time; arrays
    are aligned with the rows.

    Attributes
    ----------
    detectors : tuple
        The detectors (values of ``by``; a tuple of values per detector for several columns;
        ``("all",)`` without ``by``).
    by : tuple of str
        The grouping column(s).
    window : str
        The window width (``"7D"``).
    labels : tuple
        The classes.
    baseline : str
        What each window is compared with, in words.
    blind_spot : str
        What that baseline cannot see, in words.
    rule : str
        The decision rule, in words.
    confidence : float
        Level of the credible and exact intervals.
    alarm_at, margin : float
        The rule's threshold on ``p_worse`` and how much worse counts as worse.
    detector : ndarray of int, shape (W,)
        Index into ``detectors`` of each row.
    start : ndarray of datetime64[us], shape (W,)
        Start of each window, on the clock of the data's own time zone (naive local time).
    support, correct : ndarray of int, shape (W, l)
        Examples and correct predictions per true class.
    mean, lower, upper : ndarray, shape (W,)
        Posterior mean and central credible interval of the balanced accuracy.
    exact_lower, exact_upper : ndarray, shape (W,)
        Exact union-bound interval (Sandler & Dirac 2024).
    baseline_mean, baseline_exact_lower : ndarray, shape (W,)
        Posterior mean and exact lower bound of the baseline (the number itself for a number;
        NaN where the window has no baseline).
    p_worse : ndarray, shape (W,)
        ``P(lambda_now < lambda_baseline - margin)``; NaN where undefined (no baseline, or a
        class of the detector without examples in the window or the baseline).
    alarm : ndarray of bool, shape (W,)
    false_alarm_rate, false_alarm_se : float
        The rule's false-alarm rate per window under no change, measured by simulation on the
        windows' own sizes, and its Monte Carlo standard error (NaN if not simulated).
    n_simulated : int
        Simulated windows.
    prior : tuple or str
        The Beta prior of the class accuracies (as given to :func:`monitor`).

    Notes
    -----
    A window *alarms* when the rule holds for it. The state of a detector
    (:meth:`summary`, the text and the report) is ``"ALARM"`` when its latest window alarms,
    ``"alarmed"`` when an earlier window alarmed and its latest does not, ``"ok"`` when no
    window alarmed (``bacc.monitoring.STATES``).

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th ICPR, 3121-3124.
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024.
    .. [3] Clopper, C. J. & Pearson, E. S. (1934). Biometrika 26, 404-413.

    Examples
    --------
    >>> import datetime as dt, bacc
    >>> days = [dt.datetime(2026, 1, 5) + dt.timedelta(days=d, hours=h) for d in range(21)
    ...         for h in range(0, 24, 2)]
    >>> y = [i % 3 == 0 for i in range(len(days))]
    >>> yhat = [v if i % 10 else not v for i, v in enumerate(y)]
    >>> m = bacc.monitor({"ts": days, "y": y, "yhat": yhat}, true="y", pred="yhat", time="ts",
    ...                  baseline=0.8, n_simulations=0)
    >>> [str(t)[:10] for t in m.start], m.mean.round(3).tolist()
    (['2026-01-05', '2026-01-12', '2026-01-19'], [0.873, 0.882, 0.873])
    >>> m.p_worse.round(4).tolist(), m.alarms
    ([0.0375, 0.0236, 0.0375], ())
    """

    detectors: tuple
    by: tuple
    window: str
    labels: tuple
    baseline: str
    rule: str
    confidence: float
    alarm_at: float
    margin: float
    detector: np.ndarray = field(repr=False)
    start: np.ndarray = field(repr=False)
    support: np.ndarray = field(repr=False)
    correct: np.ndarray = field(repr=False)
    mean: np.ndarray = field(repr=False)
    lower: np.ndarray = field(repr=False)
    upper: np.ndarray = field(repr=False)
    exact_lower: np.ndarray = field(repr=False)
    exact_upper: np.ndarray = field(repr=False)
    baseline_mean: np.ndarray = field(repr=False)
    baseline_exact_lower: np.ndarray = field(repr=False)
    p_worse: np.ndarray = field(repr=False)
    alarm: np.ndarray = field(repr=False)
    false_alarm_rate: float = math.nan
    false_alarm_se: float = math.nan
    n_simulated: int = 0
    prior: tuple = (1.0, 1.0)
    blind_spot: str = ""
    #: ``rule="anytime"``: the level of the sequence since the first watched window
    #: (``alpha pi_1``), the examples per class it is tuned for, which rows are watched (after
    #: a learnt baseline's windows) and each row's threshold.
    anytime_level: float = math.nan
    tuned_for: tuple = ()
    watched: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False)
    threshold: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    def __len__(self) -> int:
        return int(self.detector.size)

    # -- selections ---------------------------------------------------------------------------
    def _index(self, detector: Any) -> int:
        try:
            return self.detectors.index(detector)
        except ValueError:
            shown = ", ".join(repr(d) for d in self.detectors[:10])
            raise BaccError(f"no detector {detector!r}; detectors: {shown}"
                            + (", ..." if len(self.detectors) > 10 else "")) from None

    def timeline(self, detector: Any) -> Monitoring:
        """The windows of one detector, as a :class:`Monitoring` of one detector."""
        d = self._index(detector)
        rows = np.flatnonzero(self.detector == d)
        arrays = {
            name: getattr(self, name)[rows]
            for name in ("start", "support", "correct", "mean", "lower", "upper", "exact_lower",
                         "exact_upper", "baseline_mean", "baseline_exact_lower", "p_worse", "alarm")
        }  # fmt: skip
        if self.watched.size:
            arrays.update(watched=self.watched[rows], threshold=self.threshold[rows])
        return Monitoring(
            detectors=(detector,), by=self.by, window=self.window, labels=self.labels,
            baseline=self.baseline, rule=self.rule, confidence=self.confidence,
            alarm_at=self.alarm_at, margin=self.margin, detector=np.zeros(rows.size, np.int64),
            false_alarm_rate=self.false_alarm_rate, false_alarm_se=self.false_alarm_se,
            n_simulated=self.n_simulated, prior=self.prior, blind_spot=self.blind_spot,
            anytime_level=self.anytime_level, tuned_for=self.tuned_for, **arrays,
        )  # fmt: skip

    def sequence(self, detector: Any) -> tuple[np.ndarray, np.ndarray]:
        """``rule="anytime"``: the anytime-valid upper bound of one detector's balanced accuracy
        pooled since its first watched window, at each watched window (the level given to that
        start by the rule, ``alpha pi_1``): the sequence narrowing as the windows add up.

        Returns
        -------
        start, upper : numpy.ndarray
            The watched windows' starts and the bound after each.
        """
        if not np.isfinite(self.anytime_level):
            raise BaccError("sequence() is for a monitor with rule='anytime'")
        from ._engine.bounds.anytime import weighted_bounds

        d = self._index(detector)
        rows = np.flatnonzero((self.detector == d) & self.watched)
        if rows.size == 0:
            return self.start[rows], np.zeros(0)
        k = np.cumsum(self.correct[rows], axis=0).astype(float)
        n = np.cumsum(self.support[rows], axis=0).astype(float)
        cols = np.flatnonzero(n[-1] > 0)
        w = np.full(cols.size, 1.0 / cols.size)
        tuned = np.broadcast_to(np.asarray(self.tuned_for, dtype=float), (k.shape[1],))[cols]
        _, upper = weighted_bounds(k[:, cols], n[:, cols], np.broadcast_to(tuned, (rows.size, cols.size)),
                                   w, self.anytime_level, "upper")
        return self.start[rows], upper

    def posterior(self, detector: Any, start: Any) -> BetaSum:
        """The posterior balanced accuracy of one window (a distribution object: ``cdf``,
        ``ppf``, ``interval``, ``rvs``, ...), over the classes with examples in it."""
        d = self._index(detector)
        t = to_datetime64(start, "start")
        rows = np.flatnonzero((self.detector == d) & (self.start == t))
        if not rows.size:
            raise BaccError(f"detector {detector!r} has no window starting at {start}")
        i = rows[0]
        pa, pb = check_prior(self.prior, len(self.labels), classes=self.labels)
        inc = np.flatnonzero(self.support[i] > 0)
        k, n = self.correct[i, inc], self.support[i, inc]
        return BetaSum(*posterior_parameters(k, n, pa[inc], pb[inc]), np.full(inc.size, 1.0 / inc.size))

    def first_alarm(self, detector: Any, *, after: Any = None) -> _dt.datetime | None:
        """Start of the first alarming window of ``detector`` (at or after ``after``), or None."""
        d = self._index(detector)
        sel = (self.detector == d) & self.alarm
        if after is not None:
            sel &= self.start >= to_datetime64(after, "after")
        rows = np.flatnonzero(sel)
        return None if not rows.size else self.start[rows[0]].astype("datetime64[us]").item()

    def summary(self) -> list[dict]:
        """One record per detector, detectors in alarm first.

        Order: alarming in their latest window, then alarming in an earlier window (most
        alarms first), then the rest by the lowest latest posterior mean. Keys: ``detector``,
        ``windows``, ``alarms``, ``in_alarm`` (latest window), ``first_alarm``,
        ``last_alarm``, ``latest_start``, ``latest_mean``, ``latest_p_worse``, ``state``
        (``"ALARM"``, ``"alarmed"`` or ``"ok"``: ``bacc.monitoring.STATES``).
        """
        out = []
        for d, name in enumerate(self.detectors):
            rows = np.flatnonzero(self.detector == d)
            if not rows.size:
                continue
            al = rows[self.alarm[rows]]
            last = rows[-1]
            out.append({
                "detector": name,
                "windows": int(rows.size),
                "alarms": int(al.size),
                "in_alarm": bool(self.alarm[last]),
                "first_alarm": self.start[al[0]].item() if al.size else None,
                "last_alarm": self.start[al[-1]].item() if al.size else None,
                "latest_start": self.start[last].item(),
                "latest_mean": float(self.mean[last]),
                "latest_p_worse": float(self.p_worse[last]),
                "state": "ALARM" if self.alarm[last] else ("alarmed" if al.size else "ok"),
            })  # fmt: skip
        out.sort(key=lambda r: (not r["in_alarm"], r["alarms"] == 0, -r["alarms"], r["latest_mean"]))
        return out

    @property
    def alarms(self) -> tuple:
        """Detectors with at least one alarm: those alarming in their latest window first."""
        return tuple(r["detector"] for r in self.summary() if r["alarms"])

    # -- output -------------------------------------------------------------------------------
    def to_records(self) -> list[dict]:
        """One plain dict per (detector, window) row (JSON-able)."""
        out = []
        for i in range(len(self)):
            d = self.detectors[int(self.detector[i])]
            out.append({
                "detector": _json_detector(d),
                "window_start": str(self.start[i].astype("datetime64[s]")),
                "support": [int(v) for v in self.support[i]],
                "correct": [int(v) for v in self.correct[i]],
                "posterior_mean": float(self.mean[i]),
                "credible_lower": float(self.lower[i]),
                "credible_upper": float(self.upper[i]),
                "exact_lower": float(self.exact_lower[i]),
                "exact_upper": float(self.exact_upper[i]),
                "baseline_mean": _json_float(self.baseline_mean[i]),
                "baseline_exact_lower": _json_float(self.baseline_exact_lower[i]),
                "p_worse": _json_float(self.p_worse[i]),
                "alarm": bool(self.alarm[i]),
            })  # fmt: skip
            if self.watched.size:  # rule="anytime": watched windows and the alarm threshold
                out[-1]["watched"] = bool(self.watched[i])
                out[-1]["alarm_below"] = _json_float(self.threshold[i])
        return out

    def to_dict(self) -> dict:
        """Plain JSON-able dict: settings, the baseline and its blind spot, the rule and its
        false-alarm rate, what the words mean, the state of every detector, every row."""
        return {
            "by": list(self.by),
            "window": self.window,
            "labels": [jsonable(x) for x in self.labels],
            "baseline": self.baseline,
            "baseline_blind_spot": self.blind_spot,
            "rule": self.rule,
            "confidence": self.confidence,
            "alarm_at": self.alarm_at,
            "margin": self.margin,
            "false_alarm_rate": _json_float(self.false_alarm_rate),
            "false_alarm_se": _json_float(self.false_alarm_se),
            "n_simulated": self.n_simulated,
            "alarms": [_json_detector(d) for d in self.alarms],
            "definitions": {
                "alarm": self.rule,
                "alarms": "the detectors with at least one alarming window, those whose latest "
                          "window alarms first",
                **{f"state {k}": v for k, v in STATES.items()},
            },
            "detectors": [{"detector": _json_detector(r["detector"]), "state": r["state"],
                           "alarms": r["alarms"], "windows": r["windows"]}
                          for r in self.summary()],
            "windows": self.to_records(),
        }  # fmt: skip

    def to_pandas(self):
        """A pandas DataFrame with one row per (detector, window) (pandas imported only here)."""
        pd = require("pandas", "data", "to_pandas")
        recs = self.to_records()
        df = pd.DataFrame(recs)
        df["window_start"] = self.start.astype("datetime64[us]")
        return df

    def plot(self, detector: Any, **kwargs):
        """Timeline of one detector (:func:`bacc.display.plot.plot_timeline`)."""
        from .display.plot import plot_timeline

        return plot_timeline(self, detector, **kwargs)

    def __str__(self) -> str:
        from .display.monitoring_text import monitoring_text

        return monitoring_text(self)

    def _repr_html_(self) -> str:
        from .display.monitoring_report import monitoring_table_html

        return monitoring_table_html(self)

    def __repr__(self) -> str:
        rows = self.summary()
        states = [r["state"] for r in rows]
        now = [str(r["detector"]) for r in rows if r["state"] == "ALARM"][:3]
        shown = f" ({', '.join(now)}{', ...' if states.count('ALARM') > 3 else ''})" if now else ""
        return (f"Monitoring({_plural(len(self.detectors), 'detector')} x "
                f"{_plural(len(self), 'window')} of {self.window}: {states.count('ALARM')} in "
                f"ALARM{shown}, {states.count('alarmed')} alarmed before; "
                f"{_plural(int(self.alarm.sum()), 'alarming window')})")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _json_detector(d):
    return [jsonable(v) for v in d] if isinstance(d, tuple) else jsonable(d)


def _json_float(v) -> float | None:
    v = float(v)
    return None if math.isnan(v) else v


# ----------------------------------------------------------------------------------------------
# baseline
_PERIOD = re.compile(r"^\s*(\S.*?)\s*(?:\.\.|/|:)\s*(\d{4}-\d{2}-\d{2}\S*)\s*$")


def _parse_baseline(baseline: Any) -> tuple[str, Any]:
    """("number", c), (name, None) for a named baseline, or ("period", (lo, hi) as datetime64)."""
    if isinstance(baseline, numbers.Real) and not isinstance(baseline, bool):
        c = float(baseline)
        if not 0.0 < c < 1.0:
            raise BaccError(f"baseline={baseline!r}: a number must lie strictly between 0 and 1")
        return "number", c
    if isinstance(baseline, str):
        text = baseline.strip()
        if text in BASELINES:
            return text, None
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is not None:
            return _parse_baseline(number)
        m = _PERIOD.match(text)
        if m:
            return _parse_baseline((m.group(1), m.group(2)))
        raise BaccError(
            f"baseline={baseline!r} is not a baseline; give 'first', 'previous', 'past', a number "
            "such as 0.9, or a period such as '2026-01-01:2026-02-01' (start included, end "
            "excluded)"
        )
    if isinstance(baseline, tuple | list) and len(baseline) == 2:
        lo, hi = (to_datetime64(v, "baseline period") for v in baseline)
        if not lo < hi:
            raise BaccError(f"baseline period {baseline[0]} to {baseline[1]} is empty: its start must come first")
        return "period", (lo, hi)
    raise BaccError(
        f"baseline={baseline!r} is not a baseline; give 'first', 'previous', 'past', a number "
        "such as 0.9, or a (start, end) period"
    )


def _blind_spot(kind: str, lookback: int, number: float | None) -> str:
    """What a baseline cannot see, in words."""
    if kind == "first":
        return (f"a drop that began before or during each detector's first {lookback} windows is "
                "not seen (they are the baseline)")
    if kind == "period":
        return "a drop that began before or during the period is not seen (it is the baseline)"
    if kind == "previous":
        return (f"a drop that lasts is absorbed: once it fills the {lookback} windows of the "
                "baseline the alarm stops, and a slow drift is not seen")
    if kind == "past":
        return ("a drop that lasts is absorbed slowly, as its windows fill the baseline, and a "
                "slow drift is not seen")
    return f"a drop that stays above {number:g} is not seen"


def _first_counts(counts: np.ndarray, det: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """Sum of the counts of each row's detector over its first ``k`` calendar windows (from the
    detector's first window with examples, empty windows included in the ``k``)."""
    n_det = int(det.max()) + 1 if det.size else 0
    first = np.full(n_det, np.iinfo(np.int64).max)
    np.minimum.at(first, det, idx)
    inside = idx < first[det] + k
    per = np.zeros((n_det, *counts.shape[1:]), np.int64)
    np.add.at(per, det[inside], counts[inside])
    return per[det]


def _previous_counts(counts: np.ndarray, det: np.ndarray, idx: np.ndarray, lookback: int) -> np.ndarray:
    """Sum of each row's counts over the ``lookback`` calendar windows before it (same detector).

    Rows are sorted by (detector, window index); one cumulative sum and two binary searches.
    """
    key = det.astype(np.int64) * (1 << 40) + (idx - idx.min())
    cs = np.concatenate([np.zeros((1, *counts.shape[1:]), np.int64), np.cumsum(counts, axis=0)])
    j = np.searchsorted(key, key - lookback, side="left")
    i = np.arange(key.size)
    return cs[i] - cs[j]


# ----------------------------------------------------------------------------------------------
# probabilities and rules
def _p_worse(a_now, b_now, inc, base_a, base_b, number, margin, progress=False) -> np.ndarray:
    """``P(lambda_now < lambda_base - margin)`` per row over the classes ``inc``; NaN where a
    row has fewer than two classes.

    Each distinct row (window, baseline and classes) is computed once: small windows share
    their counts (a day of 20 examples has few distinct count vectors). Two-class windows of
    integer Beta parameters against a counted baseline are computed exactly from the window's
    polynomial distribution function (:func:`bacc._engine.sums.small_counts.p_worse_small`);
    the other rows by the method the chooser picks for them
    (:func:`bacc._engine.sums.rows.p_worse`: the batched lattice, the pair quadratures, or one
    :class:`BetaSum` each)."""
    parts = [a_now, b_now, inc] if number is not None else [a_now, b_now, inc, base_a, base_b]
    first, inverse = distinct_rows(np.concatenate(parts, axis=1))
    a_u, b_u, inc_u = a_now[first], b_now[first], inc[first]
    base_u = (None, None) if number is not None else (base_a[first], base_b[first])
    p = np.full(first.size, np.nan)
    rest = np.ones(first.size, bool)
    with Progress(steps(inc_u), "comparing windows", enabled=progress, delay=0.5) as bar:
        two = np.flatnonzero(inc_u.sum(axis=1) == 2) if number is None else np.zeros(0, np.int64)
        if two.size:
            cols = first_two(inc_u[two])

            def pick(x):
                return np.take_along_axis(x[two], cols, axis=1)

            small = takes(pick(a_u), pick(b_u))
            rows = two[small]
            if rows.size:
                two, cols = rows, cols[small]
                ps, done = p_worse_small(pick(a_u), pick(b_u), pick(base_u[0]), pick(base_u[1]),
                                         margin)  # fmt: skip
                p[rows[done]] = ps[done]
                rest[rows[done]] = False
                bar.advance(int(done.sum()))
        left = np.flatnonzero(rest)
        if left.size:
            base_left = (None, None) if number is not None else (base_u[0][left], base_u[1][left])
            p[left] = p_worse(a_u[left], b_u[left], inc_u[left], *base_left, number, margin,
                              single=BetaSum, advance=bar.advance)  # fmt: skip
    return p[inverse]


def _exact_union(k: np.ndarray, n: np.ndarray, inc: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact union-bound interval of the balanced accuracy over the classes ``inc`` (rows with
    at least one class); Clopper & Pearson (1934) per class, Sandler & Dirac (2024). Each
    distinct row once (a detector's baseline repeats on all its rows)."""
    first, inverse = distinct_rows(np.concatenate([k, n, inc], axis=1))
    lo, hi = _exact_union_rows(k[first], n[first], inc[first], confidence)
    return lo[inverse], hi[inverse]


def _exact_union_rows(k, n, inc, confidence) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_exact_union`, every row computed."""
    m = inc.sum(axis=1)
    lo = np.full(k.shape[0], np.nan)
    hi = np.full(k.shape[0], np.nan)
    for mg in np.unique(m[m > 0]):
        rows = m == mg
        alpha = per_bound_alpha(confidence, int(mg), "two", "union")
        l_b, h_b = cp_bounds(k[rows], np.maximum(n[rows], 1), alpha, "two")
        lo[rows] = np.where(inc[rows], l_b, 0.0).sum(axis=1) / mg
        hi[rows] = np.where(inc[rows], h_b, 0.0).sum(axis=1) / mg
    return lo, hi


def _anytime_alarms(k, n, det, widx, det_n, value, alpha, skip, tuned_for, labs):
    """The stream-wide rule: for every window and every look back of 1, 2, 4, ... windows (and
    since the first watched window), the counts pooled since that start, their anytime upper
    bound at level ``alpha pi_s`` for the start's position ``s`` among the detector's watched
    calendar windows, compared with ``value`` (one per row). Every start's sequence holds at
    every later window at once, and the levels sum to ``alpha``, so an unchanged detector at or
    above ``value`` ever alarms with probability at most ``alpha``. The first ``skip`` calendar
    windows of each detector (its baseline) are not watched."""
    from ._engine.bounds.anytime import below_alarms
    from .anytime import check_tuned_for

    tuned = np.broadcast_to(check_tuned_for(tuned_for, labs), (k.shape[1],)).astype(float)
    W = det.size
    alarm = np.zeros(W, dtype=bool)
    ck = np.vstack([np.zeros((1, k.shape[1])), np.cumsum(k, axis=0)])
    cn = np.vstack([np.zeros((1, n.shape[1])), np.cumsum(n, axis=0)])
    first_w = widx[np.searchsorted(det, det, side="left")] + skip
    watched = np.flatnonzero(widx >= first_w)
    if watched.size == 0:
        return alarm
    pos = widx - first_w + 1  # the window's position among its detector's watched windows
    bounds = {d: np.flatnonzero(det == d) for d in np.unique(det[watched])}
    span = int(pos[watched].max())
    rows, starts, lo_rows = [], [], []
    for back in [1 << j for j in range(span.bit_length())] + [span]:
        s = np.maximum(pos[watched] - back + 1, 1)  # back = span: since the first
        # the first row of the detector at or after the start's calendar window
        target = first_w[watched] + s - 1
        lo = np.empty(watched.size, dtype=np.int64)
        for d, sel_d in bounds.items():
            sel = np.flatnonzero(det[watched] == d)
            lo[sel] = sel_d[0] + np.searchsorted(widx[sel_d], target[sel], side="left")
        rows.append(watched)
        starts.append(s)
        lo_rows.append(lo)
    rows_a, starts_a, lo_a = (np.concatenate(v) for v in (rows, starts, lo_rows))
    # each (row, start) once
    key = np.unique(np.stack([rows_a, starts_a, lo_a], axis=1), axis=0)
    rows_a, starts_a, lo_a = key[:, 0], key[:, 1], key[:, 2]
    pk = ck[rows_a + 1] - ck[lo_a]
    pn = cn[rows_a + 1] - cn[lo_a]
    mask = det_n[det[rows_a]] > 0
    for pattern in np.unique(mask, axis=0):
        sel = np.flatnonzero(np.all(mask == pattern, axis=1))
        cols = np.flatnonzero(pattern)
        if cols.size < 2:
            continue
        w = np.full(cols.size, 1.0 / cols.size)
        hit = below_alarms(pk[sel][:, cols], pn[sel][:, cols], starts_a[sel], tuned[cols], w,
                           value[rows_a[sel]], alpha)
        np.logical_or.at(alarm, rows_a[sel][hit], True)
    return alarm


def _baseline_lower(base_k, base_n, det, det_n, alpha, tuned_for, labs) -> np.ndarray:
    """Each row's detector's baseline as an anytime-valid lower bound of its balanced accuracy
    at level ``alpha`` (one-sided), computed once per detector; NaN where a class is missing."""
    from ._engine.bounds.anytime import weighted_bounds
    from .anytime import check_tuned_for

    tuned = np.broadcast_to(check_tuned_for(tuned_for, labs), (base_k.shape[1],)).astype(float)
    first = np.unique(det, return_index=True)[1]  # each detector's first row
    per = np.full(det_n.shape[0], np.nan)
    present = det_n[det[first]] > 0  # the classes each detector has
    # detectors with the same classes in one call (each row's bound is its own: the searches
    # stop row by row, so a detector's bound does not depend on the others)
    for pattern in np.unique(present, axis=0):
        cols = np.flatnonzero(pattern)
        if cols.size < 2:
            continue
        rows = first[np.all(present == pattern, axis=1)]
        rows = rows[np.all(base_n[np.ix_(rows, cols)] > 0, axis=1)]
        if rows.size == 0:
            continue
        lo, _ = weighted_bounds(base_k[np.ix_(rows, cols)].astype(float),
                                base_n[np.ix_(rows, cols)].astype(float),
                                np.broadcast_to(tuned[cols], (rows.size, cols.size)),
                                np.full(cols.size, 1.0 / cols.size), alpha, "lower")
        per[det[rows]] = lo
    return per[det]


def _alarms(rule, p, ex_hi_now, base_ex_lo, alarm_at, margin) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        if rule == "posterior":
            return np.nan_to_num(p, nan=0.0) >= alarm_at
        return np.isfinite(p) & (ex_hi_now < base_ex_lo - margin)


def _rule_text(rule: str, alarm_at: float, margin: float, confidence: float,
               number: float | None = None) -> str:
    base = "baseline" if margin == 0 else f"baseline - {margin:g}"
    if rule == "anytime" and number is None:
        below = "the baseline's anytime-valid lower bound" + (f" - {margin:g}" if margin else "")
        return (f"a window after the baseline alarms when the anytime-valid upper bound of the "
                f"balanced accuracy pooled since an earlier window (1, 2, 4, ... windows back, or "
                f"since the first after the baseline), at level {(1 - confidence) / 2:.2g} / "
                f"(s (s + 1)) for a start at the s-th watched window, lies below {below} (a "
                f"one-sided bound at level {(1 - confidence) / 2:.2g}): an unchanged detector "
                f"ever alarms, over its whole stream, with probability at most "
                f"{1 - confidence:.2g}")
    if rule == "anytime":
        below = f"{number - margin:g}"
        return (f"a window alarms when the anytime-valid upper bound of the balanced accuracy "
                f"pooled since an earlier window (1, 2, 4, ... windows back, or since the first), "
                f"at level {1 - confidence:.2g} / (s (s + 1)) for the detector's s-th window as "
                f"start, lies below {below}: a detector whose balanced accuracy stays at "
                f"{below} or above ever alarms, over its whole stream, with probability at most "
                f"{1 - confidence:.2g}")
    if rule == "posterior":
        return f"a window alarms when P(balanced accuracy of the window < {base}) >= {alarm_at:g}"
    return (f"a window alarms when the exact {confidence:.0%} upper bound of the window lies below the "
            f"exact {confidence:.0%} lower bound of the {base}")


def false_alarm_rate(
    support: np.ndarray,
    theta: np.ndarray,
    *,
    base_support: np.ndarray | None = None,
    number: float | None = None,
    rule: str = "posterior",
    alarm_at: float = ALARM_AT,
    margin: float = 0.0,
    confidence: float = 0.95,
    prior: Any = (1.0, 1.0),
    n_simulations: int = 2000,
    random_state: Any = 0,
) -> tuple[float, float]:
    """False-alarm rate per window of a decision rule, by simulation under no change.

    Each simulated window takes the class sizes of a row of ``support`` (drawn at random) and
    draws its correct counts from the class accuracies ``theta`` of that row; the baseline is
    ``number``, or counts of sizes ``base_support`` drawn from the same accuracies (nothing
    changed). The rule is then applied exactly as :func:`monitor` applies it.

    Parameters
    ----------
    support : ndarray of int, shape (W, l)
        Examples per class of the windows (the sizes to simulate).
    theta : ndarray, shape (W, l)
        True class accuracies of each row under no change; NaN marks classes left out.
    base_support : ndarray of int, shape (W, l), optional
        Examples per class of each row's baseline (counted baselines).
    number : float, optional
        The baseline balanced accuracy (a number baseline).
    rule, alarm_at, margin, confidence, prior
        As in :func:`monitor`.
    n_simulations : int
        Simulated windows.
    random_state : None, int or numpy Generator
        Of the simulation (default 0, so runs repeat; None draws fresh entropy).

    Returns
    -------
    (float, float)
        The rate and its Monte Carlo standard error ``sqrt(r (1 - r) / n)``.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124 (the posterior of each simulated window).
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024 (the exact rule's bounds).
    .. [3] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.

    Examples
    --------
    >>> import numpy as np
    >>> sup = np.full((10, 2), 400)
    >>> rate, se = false_alarm_rate(sup, np.full((10, 2), 0.9), base_support=4 * sup,
    ...                             alarm_at=0.99, n_simulations=4000, random_state=1)
    >>> abs(rate - 0.01) < 4 * se + 0.002
    True
    """
    rng = check_random_state(random_state)
    n_sim = check_int(n_simulations, "n_simulations", 1, 10**7)
    support = np.asarray(support, np.int64)
    theta = np.asarray(theta, float)
    W, l = support.shape
    pa, pb = check_prior(prior, l)
    rows = rng.integers(0, W, n_sim)
    n = support[rows]
    th = theta[rows]
    inc = np.isfinite(th) & (n > 0)
    t = np.clip(np.nan_to_num(th, nan=0.5), 0.0, 1.0)
    k = rng.binomial(n, t)
    a, b = posterior_parameters(k, n, pa, pb)
    _, ex_hi = _exact_union(k, n, inc, confidence)
    if number is not None:
        p = _p_worse(a, b, inc, None, None, number, margin)
        base_lo = np.full(n_sim, number)
    else:
        nb = np.asarray(base_support, np.int64)[rows]
        inc &= nb > 0
        kb = rng.binomial(nb, t)
        p = _p_worse(a, b, inc, *posterior_parameters(kb, nb, pa, pb), None, margin)
        base_lo, _ = _exact_union(kb, nb, inc, confidence)
    alarm = _alarms(rule, p, ex_hi, base_lo, alarm_at, margin)
    rate = float(alarm.mean())
    return rate, math.sqrt(max(rate * (1 - rate), 1.0 / n_sim) / n_sim)


# ----------------------------------------------------------------------------------------------
# public function
def monitor(
    source: Any,
    *,
    true: str,
    pred: str,
    time: str,
    window: str = "7D",
    by: str | Sequence[str] | None = None,
    baseline: Any = "first",
    lookback: int | None = None,
    rule: str = "posterior",
    alarm_at: float = ALARM_AT,
    margin: float = 0.0,
    confidence: float = 0.95,
    prior: Any = (1.0, 1.0),
    labels: Sequence | None = None,
    nulls: str = "error",
    n_simulations: int = 2000,
    random_state: Any = 0,
    tuned_for: Any = None,
    sep: str | None = None,
    progress: bool = True,
    memory_limit: str | None = None,
) -> Monitoring:
    """The balanced accuracy of every detector in every time window, against a baseline.

    Parameters
    ----------
    source : path, glob, directory, list of paths, DataFrame, lazy frame or mapping
        The predictions, one row per example, as :func:`bacc.counts` reads them: files are
        counted by DuckDB out of core, DataFrames by their own engine.
    true, pred : str
        Columns of the true and predicted class.
    time : str
        Column of the time of each example (timestamp or date).
    window : str
        Fixed calendar windows: ``"30min"``, ``"1h"``, ``"1D"``, ``"7D"`` (Monday to Sunday),
        ``"1M"`` (calendar months), ``"3M"``, ``"1Y"``.
    by : str or sequence of str, optional
        Column(s) naming the detector; without it, all rows are one detector (``"all"``).
    baseline : "first", "previous", "past", float, or (start, end)
        What each window is compared with: the pooled counts of the detector's first
        ``lookback`` calendar windows (``"first"``, the default), of the ``lookback`` calendar
        windows before it (``"previous"``), of every window before it (``"past"``), a balanced
        accuracy (``0.9``), or the pooled counts of a reference period, ``start <= time <
        end`` (``("2026-01-01", "2026-02-01")`` or the text ``"2026-01-01:2026-02-01"``).
        Blind spots: a fixed reference (``"first"``, a period) does not see a drop that began
        before or during it; ``"previous"`` and ``"past"`` absorb a drop that lasts (the alarm
        stops once the drop fills the baseline) and do not see a slow drift.
    lookback : int, optional
        Windows pooled by the ``"first"`` baseline (default 8: the first 8 windows of each
        detector, empty ones included) and by ``"previous"`` (default 4).
    rule : {"posterior", "exact", "anytime"}
        ``"posterior"`` (default): alarm when ``p_worse = P(lambda_now < lambda_base -
        margin) >= alarm_at``. ``"exact"``: alarm when the window's exact upper bound lies
        below the baseline's exact lower bound minus ``margin`` (both at ``confidence``; far
        fewer false alarms, later detection). ``"anytime"`` (a number as baseline): a
        guarantee over the whole stream, not per window: alarm when the anytime-valid upper
        bound of the balanced accuracy pooled since an earlier window (looking back 1, 2,
        4, ... windows, and since the first) lies below the number minus ``margin``; the
        error level ``1 - confidence`` is shared among the starts (``1 / (s (s + 1))`` for the
        detector's ``s``-th window), so a detector whose balanced accuracy stays at or above
        that value ever alarms, in an unbounded stream, with probability at most
        ``1 - confidence`` (:mod:`bacc.anytime`). With ``baseline="first"`` the number is
        each detector's anytime-valid lower bound of its first ``lookback`` windows at half the
        level, and the windows after them are watched at the other half: an unchanged detector
        ever alarms with probability at most ``1 - confidence``.
    alarm_at : float
        Threshold of the posterior rule (default 0.999: about 0.1 to 0.3 % false alarms per
        window under no change, since ``p_worse`` is then close to uniform, so that about one
        unchanged detector in ten shows an alarm in a year of weekly windows; 0.99 finds a drop
        a little sooner at ten times the false alarms).
    margin : float
        How much lower counts as worse (default 0).
    confidence : float
        Level of the credible and exact intervals.
    prior : (float, float) or {"flat", "jeffreys"}
        Beta prior of each class accuracy (default flat).
    labels, nulls, sep, progress, memory_limit
        As in :func:`bacc.counts`.
    n_simulations : int
        Windows simulated under no change to measure the rule's false-alarm rate (0: skip;
        not used by ``rule="anytime"``, whose guarantee is over the whole stream).
    tuned_for : float or per-class option, optional
        ``rule="anytime"``: examples per class at which each sequence is tightest (as in
        :func:`bacc.anytime_interval`).
    random_state : None, int or numpy Generator
        Of that simulation (default 0: repeatable).

    Returns
    -------
    Monitoring
        One row per (detector, window) with examples: counts, posterior mean, credible and
        exact intervals, ``p_worse``, ``alarm``; the rule, and its false-alarm rate measured
        by simulation with its Monte Carlo error.

    Raises
    ------
    BaccError
        A bad window, a missing column, a time column without times, a bad baseline, a
        reference period without examples, or any error of :func:`bacc.counts`.

    See Also
    --------
    bacc.counts : counting without windows.
    bacc.evaluate_many : the batch evaluation of the windows.
    bacc.compare : one comparison of two independent posteriors.

    Notes
    -----
    The classes of a detector are those with examples anywhere in its data; a window (or
    baseline) without examples of one of them says nothing about its balanced accuracy, so
    its ``p_worse`` is NaN and it never alarms. ``lambda_now < lambda_base - margin`` exactly
    when ``(lambda_base + 1 - lambda_now) / 2 > (1 + margin) / 2``, and the left side is the
    average of ``2 l`` independent Betas: the baseline's class accuracies and the window's
    reflected (``1 - theta ~ Beta(b, a)``; Brodersen et al. (2010), eq. 7; Carrillo et al.
    (2014), eq. 12). Each distinct (window, baseline) pair is computed once. Two-class
    windows of integer posterior parameters (the flat prior) and at most about 60 examples
    get it exactly: the window's distribution function is a polynomial on each half of
    ``[0, 1]``, and its average over the baseline's posterior is a Gauss-Jacobi sum
    (:mod:`bacc._engine.sums.small_counts`; within 1e-10 of :func:`bacc.compare`, measured
    7e-11), unless the baseline holds mass on both sides of ``1/2 + margin``. The others: the
    upper tail above is computed for all windows at once by the batched lattice of
    :func:`bacc.evaluate_many` (within 1e-9 of :func:`bacc.compare`, measured 1.7e-10).
    Windows without a class whose density vanishes to high order at the ends of its support
    (every class with fewer than six errors or six correct examples: small windows) get, for
    two classes, the exact integral ``int f_now(x) S_base(x + margin) dx`` over the narrower
    posterior, for all of them at once (within 1e-6), and for three or more classes an exact
    :class:`bacc.BetaSum` each (slower). Windows inside a reference period (or among a
    detector's first windows) are part of their own baseline, so they alarm less than the
    stated rate; the rate is that of windows compared with a baseline they are not part of.

    The default baseline and threshold were chosen by measurement
    (``benchmarks/bench_monitor_baselines.py``: weekly windows, balanced accuracy 0.95
    dropping to 0.85 for good, for three windows, or not at all). Against each detector's
    first 8 windows at ``alarm_at=0.999`` every sustained drop alarmed, in its first or second
    window, and the alarm held in 95 % of the changed windows of 200 examples (42 % of 60),
    while 8 % of the unchanged detectors (11 %) showed an alarm in a year. Against the previous
    4 windows at 0.99 (the former default) the alarm held in 8 % (5 %) of the changed windows,
    the drop being absorbed, and 56 % (66 %) of the unchanged detectors showed an alarm.

    References
    ----------
    .. [1] Brodersen, K. H., Ong, C. S., Stephan, K. E. & Buhmann, J. M. (2010). The balanced
       accuracy and its posterior distribution. Proc. 20th International Conference on
       Pattern Recognition (ICPR), 3121-3124.
    .. [2] Sandler, T. & Dirac, L. (2024). Tales from the binomial tail: confidence intervals
       for balanced accuracy. Groundlight blog, 16 January 2024.
    .. [3] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. Biometrika 26, 404-413.
    .. [4] Carrillo, H., Brodersen, K. H. & Castellanos, J. A. (2014). Probabilistic
       performance evaluation for multiclass classification using the posterior balanced
       accuracy. ROBOT2013: First Iberian Robotics Conference, Advances in Intelligent Systems
       and Computing 252, 347-361.

    Examples
    --------
    >>> import numpy as np, pandas as pd, bacc
    >>> rng = np.random.default_rng(0)
    >>> t = pd.Timestamp("2026-01-05") + pd.to_timedelta(rng.uniform(0, 56, 8000), unit="D")
    >>> y = rng.integers(0, 2, t.size)
    >>> late = np.asarray(t >= pd.Timestamp("2026-02-16"))
    >>> right = rng.random(t.size) < np.where(late, 0.75, 0.92)
    >>> df = pd.DataFrame({"ts": t, "label": y, "predicted": np.where(right, y, 1 - y)})
    >>> m = bacc.monitor(df, true="label", pred="predicted", time="ts", window="7D")
    >>> m.first_alarm("all").date()
    datetime.date(2026, 2, 16)
    """
    for name, v in (("true", true), ("pred", pred), ("time", time)):
        if not isinstance(v, str) or not v:
            raise BaccError(f"{name}= must name a column (a non-empty string), got {v!r}")
    w = parse_window(window)
    c = check_confidence(confidence)
    check_choice(rule, RULES, "rule")
    kind, bval = _parse_baseline(baseline)
    if rule == "anytime" and kind not in ("number", "first"):
        raise BaccError("rule='anytime' compares with a balanced accuracy fixed in advance "
                        "(baseline= a number, e.g. 0.9) or learnt from each detector's first "
                        "windows (baseline='first'); a moving baseline has no stream-wide "
                        "guarantee")
    if tuned_for is not None and rule != "anytime":
        raise BaccError("tuned_for= is for rule='anytime'")
    lookback = LOOKBACK.get(kind, 1) if lookback is None else check_int(lookback, "lookback", 1, 10**6)
    for name, v in (("alarm_at", alarm_at), ("margin", margin)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise BaccError(f"{name} must be a number, got {v!r}")
    if not 0.5 <= alarm_at < 1.0:
        raise BaccError(f"alarm_at must lie in [0.5, 1), got {alarm_at!r}")
    if not 0.0 <= margin < 1.0:
        raise BaccError(f"margin must lie in [0, 1), got {margin!r}")
    n_sim = check_int(n_simulations, "n_simulations", 0, 10**7)
    try:
        by_t: tuple = () if by is None else ((by,) if isinstance(by, str) else tuple(by))
    except TypeError:
        raise BaccError(f"by= must name a column or a list of columns, got {by!r}") from None
    if not all(isinstance(b, str) and b for b in by_t):
        raise BaccError(f"by= must name a column or a list of columns, got {by!r}")
    opts = dict(true=true, pred=pred, time=time, window=w, by=by_t or None, labels=labels,
                nulls=nulls, sep=sep, progress=progress, memory_limit=memory_limit)
    counted = count_windows(source, **opts)
    if isinstance(counted, ConfusionMatrix):  # pragma: no cover - windows always group
        raise BaccError("no windows were counted")
    labs = counted.labels
    l = len(labs)
    # rows: (detector, window), sorted by detector then time
    if by_t:
        dets_raw = [g[:-1] if len(by_t) > 1 else g[0] for g in counted.groups]
    else:
        dets_raw = ["all"] * len(counted.groups)
    starts = np.array([g[-1] if by_t else g for g in counted.groups], dtype="datetime64[us]")
    detectors = label_order(dets_raw)
    d_index = {d: i for i, d in enumerate(detectors)}
    det = np.fromiter((d_index[d] for d in dets_raw), np.int64, len(dets_raw))
    widx = w.index(starts)
    order = np.lexsort((widx, det))
    det, starts, widx = det[order], starts[order], widx[order]
    stack = np.asarray(counted.counts)[order]
    # each distinct window once (small windows repeat their counts)
    first, inverse = distinct_rows(stack.reshape(stack.shape[0], -1))
    with warnings.catch_warnings():
        # windows without examples of a class are the rule here; the timeline says which
        warnings.simplefilter("ignore", BaccWarning)
        ev = evaluate_many(stack[first], labels=labs, prior=prior, confidence=c, progress=progress)
    ev_mean, ev_lower, ev_upper = ev.mean[inverse], ev.lower[inverse], ev.upper[inverse]
    ev_exact_lower, ev_exact_upper = ev.exact_lower[inverse], ev.exact_upper[inverse]
    pa, pb = check_prior(prior, l, classes=labs)
    k = np.einsum("gii->gi", stack)
    n = stack.sum(axis=2)
    # the classes of each detector: those with examples anywhere in its data
    det_n = np.zeros((len(detectors), l), np.int64)
    np.add.at(det_n, det, n)
    inc = (det_n > 0)[det] & (n > 0)
    W = det.size
    base_k = base_n = None
    number = None
    if kind == "number":
        number = bval
        base_mean = np.full(W, number)
        base_lo = np.full(W, number)
        desc = f"the balanced accuracy {number:g}"
        blind = _blind_spot(kind, lookback, number)
    else:
        if kind == "previous":
            base_stack = _previous_counts(stack, det, widx, lookback)
            desc = f"the previous {lookback} windows of {w.text} of each window (pooled counts)"
        elif kind == "past":
            base_stack = _previous_counts(stack, det, widx, int(widx.max() - widx.min()) + 1)
            desc = f"every earlier window of {w.text} of each window (pooled counts)"
        elif kind == "first":
            base_stack = _first_counts(stack, det, widx, lookback)
            desc = f"each detector's first {lookback} windows of {w.text} (pooled counts)"
        else:
            lo, hi = bval
            try:
                ref = count_windows(source, period=(lo, hi), **{**opts, "labels": labs})
            except BaccError as exc:
                if "no examples" not in str(exc):
                    raise
                raise BaccError(f"the baseline period {_date_text(lo)} to {_date_text(hi)} holds "
                                "no examples; choose a period inside the data") from None
            base_stack = _period_counts(ref, by_t, detectors, det, l, lo, hi)
            desc = (f"the period {_date_text(lo)} to {_date_text(hi)}, end excluded (pooled "
                    "counts)")
        blind = _blind_spot(kind, lookback, None)
        base_k = np.einsum("gii->gi", base_stack)
        base_n = base_stack.sum(axis=2)
        inc &= (det_n > 0)[det] & (base_n > 0)
        inc &= np.all((base_n > 0) | (det_n == 0)[det], axis=1)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            A, B = posterior_parameters(base_k, base_n, pa, pb)
            base_mean = np.where(inc, A / (A + B), 0.0).sum(axis=1) / inc.sum(axis=1)
        base_lo, _ = _exact_union(base_k, base_n, inc, c)
    # a window lacking a class of its detector has no comparable balanced accuracy
    complete = np.all(inc | (det_n == 0)[det], axis=1) & (inc.sum(axis=1) >= 2)
    inc &= complete[:, None]
    base = (None, None) if base_k is None else posterior_parameters(base_k, base_n, pa, pb)
    p = _p_worse(*posterior_parameters(k, n, pa, pb), inc, *base, number, margin, progress)
    base_mean = np.where(complete, base_mean, np.nan)
    base_lo = np.where(complete, base_lo, np.nan)
    if rule == "anytime":
        alpha = 1.0 - c
        if number is not None:
            if number - margin <= 0:
                raise BaccError(f"baseline - margin must be above 0 for rule='anytime', got "
                                f"{number - margin:g}")
            value = np.full(W, number - margin)
            level, skip = alpha, 0
        else:
            # half the level for the baseline's anytime lower bound, half for the watch after it
            value = _baseline_lower(base_k, base_n, det, det_n, alpha / 2, tuned_for, labs) - margin
            level, skip = alpha / 2, lookback
        alarm = _anytime_alarms(k, n, det, widx, det_n, value, level, skip, tuned_for, labs)
        from .anytime import check_tuned_for

        tuned_t = tuple(float(x) for x in np.broadcast_to(check_tuned_for(tuned_for, labs), (l,)))
        watched = widx >= widx[np.searchsorted(det, det, side="left")] + skip
        anytime = dict(anytime_level=level / 2, tuned_for=tuned_t, watched=watched,
                       threshold=np.where(watched, value, np.nan))
    else:
        alarm = _alarms(rule, p, ev_exact_upper, base_lo, alarm_at, margin)
        anytime = {}
    # false-alarm rate under no change, on these windows' sizes
    rate = se = math.nan
    ok = np.flatnonzero(np.isfinite(p))
    if rule == "anytime":
        ok = ok[:0]  # the guarantee is over the whole stream, stated in the rule
    if n_sim and ok.size:
        det_k = np.zeros((len(detectors), l), np.int64)
        np.add.at(det_k, det, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            pooled = np.where(det_n > 0, det_k / np.maximum(det_n, 1), np.nan)
        theta = pooled[det[ok]]
        if number is not None:
            # no change: the class accuracies moved together onto the baseline number
            shift = number - np.nanmean(np.where(inc[ok], theta, np.nan), axis=1)
            theta = np.clip(theta + shift[:, None], 1e-6, 1 - 1e-6)
        theta = np.where(inc[ok], theta, np.nan)
        rate, se = false_alarm_rate(
            n[ok], theta, base_support=None if base_n is None else base_n[ok], number=number,
            rule=rule, alarm_at=alarm_at, margin=margin, confidence=c, prior=prior,
            n_simulations=n_sim, random_state=random_state,
        )
    return Monitoring(
        detectors=tuple(detectors), by=by_t, window=w.text, labels=tuple(labs), baseline=desc,
        rule=_rule_text(rule, alarm_at, margin, c, number), confidence=c, alarm_at=float(alarm_at),
        margin=float(margin), detector=det, start=starts, support=n, correct=k, mean=ev_mean,
        lower=ev_lower, upper=ev_upper, exact_lower=ev_exact_lower, exact_upper=ev_exact_upper,
        baseline_mean=base_mean, baseline_exact_lower=base_lo, p_worse=p, alarm=alarm,
        false_alarm_rate=rate, false_alarm_se=se, n_simulated=n_sim if ok.size else 0,
        prior=prior if isinstance(prior, str) else tuple(np.asarray(prior, float).tolist()),
        blind_spot=blind, **anytime,
    )  # fmt: skip


def _date_text(t: np.datetime64) -> str:
    s = str(t.astype("datetime64[s]"))
    return s[:10] if s.endswith("T00:00:00") else s.replace("T", " ")


def _period_counts(ref, by_t, detectors, det, l, lo, hi) -> np.ndarray:
    """The reference period's counts of each row's detector (zeros where it has none)."""
    per = np.zeros((len(detectors), l, l), np.int64)
    if isinstance(ref, GroupedCounts):
        index = {d: i for i, d in enumerate(detectors)}
        for g, name in enumerate(ref.groups):
            if name in index:
                per[index[name]] = ref.counts[g]
    else:
        per[0] = ref.counts
    missing = [detectors[i] for i in range(len(detectors)) if per[i].sum() == 0]
    if len(missing) == len(detectors):
        raise BaccError(f"the baseline period {_date_text(lo)} to {_date_text(hi)} holds no examples")
    if missing:
        shown = ", ".join(repr(d) for d in missing[:5]) + (", ..." if len(missing) > 5 else "")
        warnings.warn(f"{len(missing)} detectors have no examples in the baseline period "
                      f"({shown}); their windows are not compared", BaccWarning, stacklevel=3)
    return per[det]

