"""Counting per time window and group inside the data engine (the query behind :func:`bacc.monitor`).

A window is a fixed calendar bucket: ``"30min"``, ``"1h"``, ``"1D"``, ``"7D"`` (weeks that
start on Monday), ``"1M"`` (calendar months), ``"3M"`` (quarters), ``"1Y"``. The bucket of a
time is computed by the engine in the same aggregation that counts, so the query is one
``SELECT by..., bucket(time), true, pred, COUNT(*) ... GROUP BY`` and only a few rows per
group and window reach Python:

- files (a path, glob, directory or list of CSV / Parquet / JSON-lines files) are counted by
  DuckDB with ``time_bucket``, out of core (a file larger than DuckDB's ``memory_limit`` works);
- a DataFrame or lazy frame (pandas, polars, pyarrow, PySpark, ...) by its own engine through
  narwhals, a Dask DataFrame through Dask's API: the bucket is integer arithmetic on the
  engine's timestamps, the same buckets as DuckDB's; a DuckDB relation by the same SQL as files;
- a mapping of columns with numpy (small data).

Buckets of fixed width are aligned on Monday 3 January 2000, 00:00 (DuckDB's ``time_bucket``
origin), so ``"7D"`` windows start on Mondays and ``"1D"`` windows at midnight; month buckets
are aligned on January 2000. Dates are midnight.

Time zones: times are bucketed on the clock of their own time zone. A time-zone-aware time is
read as its local wall-clock time, so a ``"1D"`` window is a local calendar day and window
starts come back as naive :class:`datetime.datetime` values of that clock (local midnight for
daily windows). Across a change of daylight saving time a local day lasts 23 or 25 hours, and
a window shorter than a day holds the hour that the clock skips (no examples) or repeats
(two hours of examples). Where each engine finds the zone:

- pandas, polars, pyarrow, Dask and the other frames: the column's time zone;
- Parquet files: the zone stored with the column (``timestamp[ns, tz=America/New_York]``, as
  pandas and polars write it; read with pyarrow); files that disagree are refused;
- CSV and JSON-lines text with offsets (``2026-03-08 01:30:00-05:00``): the clock as written
  (the offset dropped);
- a DuckDB relation's ``TIMESTAMPTZ`` column, which keeps no zone: the connection's
  ``TimeZone`` setting, as DuckDB itself shows and truncates such times;
- a mapping of columns: each value's own zone (aware ``datetime``, text with an offset).

Naive times are taken as they are, whatever clock they were written in. Times of nanosecond
resolution are floored to the microsecond before bucketing, as numpy and pandas do.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..confusion import ConfusionMatrix
from ..errors import BaccError, require
from .assemble import assemble
from .columns import tally_columns
from .files import _quote, count_query, is_file_source, open_files
from .frames import _fetch, open_frame
from .grouped import GroupedCounts
from .tally import Spec, Tally, clean_value, first_line

__all__ = ["Window", "count_windows", "parse_window"]

_ORIGIN = np.datetime64("2000-01-03T00:00:00", "us")  # a Monday: DuckDB's time_bucket origin
_ORIGIN_US = int(_ORIGIN.astype(np.int64))
_MONTH_ORIGIN = 2000 * 12  # months are counted from January 2000

_UNITS = {  # unit -> (microseconds, months)
    "s": (1_000_000, 0),
    "sec": (1_000_000, 0),
    "min": (60_000_000, 0),
    "h": (3_600_000_000, 0),
    "H": (3_600_000_000, 0),
    "D": (86_400_000_000, 0),
    "d": (86_400_000_000, 0),
    "W": (7 * 86_400_000_000, 0),
    "w": (7 * 86_400_000_000, 0),
    "M": (0, 1),
    "Q": (0, 3),
    "Y": (0, 12),
    "y": (0, 12),
}
_PATTERN = re.compile(r"^\s*(\d*)\s*([A-Za-z]+)\s*$")


@dataclass(frozen=True)
class Window:
    """A fixed calendar bucket width: ``micros`` microseconds, or ``months`` calendar months.

    Attributes
    ----------
    text : str
        As given (``"7D"``).
    micros : int
        Width in microseconds (0 for month buckets).
    months : int
        Width in months (0 for fixed widths).
    """

    text: str
    micros: int
    months: int

    @property
    def sql(self) -> str:
        """The width as a DuckDB ``INTERVAL`` literal."""
        if self.months:
            return f"INTERVAL '{self.months} months'"
        return f"INTERVAL '{self.micros} microseconds'"

    def index(self, times: Any) -> np.ndarray:
        """Bucket number of each time (``datetime64``-convertible), shape as ``times``."""
        t = np.asarray(times, dtype="datetime64[us]")
        if self.months:
            y = t.astype("datetime64[Y]").astype(np.int64) + 1970
            m = t.astype("datetime64[M]").astype(np.int64) % 12
            return np.floor_divide(y * 12 + m - _MONTH_ORIGIN, self.months)
        return np.floor_divide(t.astype(np.int64) - _ORIGIN_US, self.micros)

    def start(self, index: Any) -> np.ndarray:
        """Start (``datetime64[us]``) of each bucket number."""
        i = np.asarray(index, dtype=np.int64)
        if self.months:
            months = (i * self.months).astype("datetime64[M]") + np.timedelta64(30 * 12, "M")
            return months.astype("datetime64[us]")
        return (_ORIGIN_US + i * self.micros).astype("datetime64[us]")

    def floor(self, times: Any) -> np.ndarray:
        """Start of the bucket of each time (what the engines compute)."""
        return self.start(self.index(times))


def parse_window(window: str | Window) -> Window:
    """Read a window width such as ``"7D"``, ``"1h"``, ``"30min"``, ``"1M"``.

    Units: ``s`` (seconds), ``min`` (minutes), ``h`` (hours), ``D`` (days), ``W`` (weeks of 7
    days, starting Monday), ``M`` (calendar months), ``Q`` (quarters), ``Y`` (years). A
    missing number means 1.

    Raises
    ------
    BaccError
        Anything else, with the accepted forms.

    Examples
    --------
    >>> parse_window("7D").micros // 86_400_000_000, parse_window("3M").months
    (7, 3)
    """
    if isinstance(window, Window):
        return window
    hint = 'give a number and a unit: "30min", "1h", "1D", "7D", "1W", "1M", "3M" or "1Y"'
    if not isinstance(window, str):
        raise BaccError(f"window={window!r} is not a window width; {hint}")
    m = _PATTERN.match(window)
    if not m:
        raise BaccError(f"window={window!r} is not a window width; {hint}")
    num = int(m.group(1) or 1)
    unit = m.group(2)
    if unit == "m":
        raise BaccError(f"window={window!r} is ambiguous: write 'min' for minutes or 'M' for months")
    if unit not in _UNITS:
        raise BaccError(f"window={window!r} has an unknown unit {unit!r}; {hint}")
    if num <= 0:
        raise BaccError(f"window={window!r} must be a positive width; {hint}")
    micros, months = _UNITS[unit]
    return Window(window.strip(), micros * num, months * num)


#: The zone at the end of a time written as text: ``Z``, ``UTC`` or an offset (``-05:00``),
#: after a clock time (so that the day of ``2026-03-07`` is not read as an offset).
_TEXT_ZONE = re.compile(r"(\d\d:\d\d(?::\d\d(?:\.\d+)?)?)\s*(?:Z|UTC|[+-]\d\d(?::?\d\d)?)$", re.I)


def wall_clock(value: Any) -> Any:
    """``value`` on its own clock: an aware ``datetime`` (or pandas ``Timestamp``) without its
    zone, text without its trailing offset; anything else unchanged."""
    if isinstance(value, _dt.datetime) and value.tzinfo is not None:
        return value.replace(tzinfo=None)
    if isinstance(value, str):
        return _TEXT_ZONE.sub(r"\1", value.strip())
    return value


def to_datetime64(value: Any, what: str) -> np.datetime64:
    """A time given as text, ``datetime``, ``date`` or ``datetime64``.

    An aware time is read on its own clock (its zone or offset dropped), as the times of the
    data are bucketed: ``2026-03-08T00:00-05:00`` is midnight of 8 March, the start of that
    day's window for data in New York.
    """
    value = wall_clock(value)
    try:
        out = np.datetime64(value, "us")
    except (ValueError, TypeError):
        raise BaccError(f"{what}: cannot read {value!r} as a date or time (use 2026-01-31 or "
                        "2026-01-31T12:00)") from None
    if np.isnat(out):
        raise BaccError(f"{what}: {value!r} is not a time")
    return out


@dataclass(frozen=True)
class _TimeSpec(Spec):
    """A :class:`Spec` whose last grouping column is the time column (named ``time=``)."""

    time: str = ""

    def option(self, col: str) -> str:
        return "time=" if col == self.time else super().option(col)


def count_windows(
    source: Any,
    *,
    true: str,
    pred: str,
    time: str,
    window: str | Window,
    by: str | Sequence[str] | None = None,
    labels: Sequence | None = None,
    nulls: str = "error",
    period: tuple[Any, Any] | None = None,
    sep: str | None = None,
    progress: bool = True,
    memory_limit: str | None = None,
) -> GroupedCounts | ConfusionMatrix:
    """Confusion matrices per group and time window, counted by the engine that holds the data.

    Parameters
    ----------
    source : path, glob, directory, list of paths, DataFrame, lazy frame or mapping
        As :func:`bacc.counts` reads.
    true, pred : str
        Columns of the true and predicted class.
    time : str
        Column of the time of each example (a timestamp or date type, naive or with a time
        zone; CSV text in ISO form is read as timestamps by DuckDB). Windows are counted on the
        clock of the column's own time zone: a daily window is a local calendar day (23 or 25
        hours across a change of daylight saving time).
    window : str or Window
        Bucket width (:func:`parse_window`).
    by : str or sequence of str, optional
        Group column(s) (detectors).
    labels, nulls, sep, progress, memory_limit
        As in :func:`bacc.counts`. An example with a missing time counts as a missing value.
    period : (start, end), optional
        Count only the examples with ``start <= time < end``, without windows: one matrix
        per group (a reference period). The bounds are read on the data's clock, as window
        starts are (an aware bound on its own clock).

    Returns
    -------
    GroupedCounts or ConfusionMatrix
        Groups are ``(*by values, window start)`` tuples (``window start`` alone without
        ``by``), window starts as naive ``datetime`` on the clock of the data's time zone
        (see the module notes); with ``period``, one matrix per
        ``by`` group (a :class:`ConfusionMatrix` without ``by``).

    Raises
    ------
    BaccError
        A bad window, a missing column, a time column that holds no times, no examples, or
        the errors of :func:`bacc.counts`.

    Examples
    --------
    >>> import datetime as dt
    >>> data = {"t": [dt.datetime(2026, 1, 5, 9), dt.datetime(2026, 1, 6), dt.datetime(2026, 1, 12)],
    ...         "y": [0, 1, 1], "yhat": [0, 1, 0]}
    >>> gc = count_windows(data, true="y", pred="yhat", time="t", window="7D")
    >>> [str(g.date()) for g in gc.groups], gc.counts.sum(axis=(1, 2)).tolist()
    (['2026-01-05', '2026-01-12'], [2, 1])
    """
    w = parse_window(window)
    if not isinstance(time, str) or not time:
        raise BaccError(f"time= must name a column (a non-empty string), got {time!r}")
    by_t: tuple = () if by is None else ((by,) if isinstance(by, str) else tuple(by))
    if nulls not in ("error", "drop"):
        raise BaccError(f"nulls must be 'error' or 'drop', got {nulls!r}")
    for opt, col in (("true=", true), ("pred=", pred), *(("by=", b) for b in by_t)):
        if col == time:
            raise BaccError(f"{opt} and time= name the same column {time!r}")
    base = Spec.make(true, pred, [*by_t, time], None)
    if period is None:
        spec = _TimeSpec(base.true, base.pred, base.by, None, time)
        bounds = None
    else:
        spec = _TimeSpec(base.true, base.pred, by_t, None, time)
        lo, hi = (to_datetime64(v, "baseline period") for v in period)
        if not lo < hi:
            raise BaccError(f"the period {period[0]} to {period[1]} is empty: its start must come before its end")
        bounds = (lo, hi)
    if is_file_source(source):
        tally = _tally_files(source, spec, w, bounds, sep=sep, progress=progress, memory_limit=memory_limit)
    elif isinstance(source, Mapping):
        tally = _tally_mapping(source, spec, w, bounds)
    elif isinstance(source, list | tuple):
        raise BaccError("a list is read as file paths; give a path, a DataFrame or a mapping of columns")
    else:
        tally = _tally_frame(source, spec, w, bounds)
    if isinstance(tally, _Columns):
        if labels is None and period is None and len(tally.arrays[0]) >= FAST_ROWS:
            fast = _assemble_columns(tally.arrays, spec)
            if fast is not None:
                return fast
        tally = tally.as_tally()
    return assemble(tally, spec, labels=labels, nulls=nulls)


# ----------------------------------------------------------------------------------------------
# vectorised assembly of many aggregated rows
#: From this many aggregated rows on, the rows of DuckDB are assembled with numpy (365 000
#: windows of two classes are 1.5 million rows); fewer, or any missing value, float or boolean
#: labels, or given labels, go through :func:`bacc.counting.assemble.assemble` (same result).
FAST_ROWS = 50_000


@dataclass
class _Columns:
    """The aggregated rows of DuckDB as columns: ``(*by, window, true, pred, n)``."""

    arrays: list
    where: str
    text_labels: bool = False

    def as_tally(self) -> Tally:
        return Tally(list(zip(*(a.tolist() for a in self.arrays), strict=True)), self.where,
                     self.text_labels)


def _assemble_columns(arrays: list, spec: _TimeSpec) -> GroupedCounts | None:
    """:class:`GroupedCounts` from columns with numpy, as :func:`assemble` would build them; None
    where the generic rules are needed (missing values, labels that are not integers or text)."""
    from ..confusion import check_label_values, label_order

    if any(np.ma.getmaskarray(a).any() for a in arrays if np.ma.isMaskedArray(a)):
        return None
    arrays = [np.asarray(np.ma.getdata(a)) for a in arrays]
    nb = len(spec.by)
    t_arr, p_arr, n = arrays[nb], arrays[nb + 1], arrays[nb + 2].astype(np.int64)
    kinds = {t_arr.dtype.kind, p_arr.dtype.kind}
    if not (kinds <= {"i", "u"} or kinds == {"O"}):
        return None
    uniq = np.unique(np.concatenate([t_arr, p_arr]))
    values = uniq.tolist()
    if kinds == {"O"} and not all(isinstance(v, str) for v in values):
        return None
    try:
        check_label_values(np.unique(t_arr).tolist(), np.unique(p_arr).tolist())
    except BaccError:
        return None  # the generic path says why
    labs = label_order(values)
    rank = np.array([labs.index(v) for v in values], dtype=np.int64)
    ti = rank[np.searchsorted(uniq, t_arr)]
    pi = rank[np.searchsorted(uniq, p_arr)]
    # groups in the order of sorted tuples (by values, then window), as assemble orders them
    codes = np.zeros(n.size, dtype=np.int64)
    uniques = []
    for a in arrays[:nb]:
        u, inv = np.unique(a, return_inverse=True)
        uniques.append(u)
        codes = codes * u.size + inv.ravel()
    gcodes, gi = np.unique(codes, return_inverse=True)
    G, ell = gcodes.size, len(labs)
    stack = np.zeros((G, ell, ell), dtype=np.int64)
    np.add.at(stack, (gi.ravel(), ti, pi), n)
    parts = []
    rest = gcodes
    for u in reversed(uniques):
        parts.append(u[rest % u.size].tolist())
        rest = rest // u.size
    parts.reverse()
    groups = parts[0] if nb == 1 else list(zip(*parts, strict=True))
    return GroupedCounts(stack, groups, labs, by=spec.by)


# ----------------------------------------------------------------------------------------------
# DuckDB (files)
_NAIVE = {"TIMESTAMP", "TIMESTAMP_MS", "TIMESTAMP_S", "DATETIME", "DATE"}
_NAIVE_NS = {"TIMESTAMP_NS"}
_AWARE = {"TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ"}
_AWARE_NS = {"TIMESTAMPTZ_NS", "TIMESTAMP_NS WITH TIME ZONE", "TIMESTAMP WITH TIME ZONE_NS"}
_SQL_TIME_TYPES = _NAIVE | _NAIVE_NS | _AWARE | _AWARE_NS
#: ``_TEXT_ZONE`` for DuckDB (RE2): the clock time of text written with an offset
_SQL_TEXT_ZONE = r"(\d\d:\d\d(?::\d\d(?:\.\d+)?)?)\s*(?:Z|UTC|[+-]\d\d(?::?\d\d)?)$"
_OFFSET = re.compile(r"^([+-])(\d\d):?(\d\d)$")


def _floor_us(ns: str) -> str:
    """A TIMESTAMP from nanoseconds since 1970, floored to the microsecond (a cast rounds, and
    would move a time half a microsecond before midnight into the next day)."""
    return f"make_timestamp(({ns} - ((({ns}) % 1000) + 1000) % 1000) // 1000)"


def _local_sql(aware: str, zone: str | None) -> str:
    """The wall-clock TIMESTAMP of the TIMESTAMPTZ expression ``aware`` in ``zone`` (a zone
    name, a fixed offset such as ``+05:30``, or ``None``: the connection's TimeZone)."""
    if zone is None:
        return f"timezone(current_setting('TimeZone'), {aware})"
    m = _OFFSET.match(zone)
    if m:
        minutes = (1 if m.group(1) == "+" else -1) * (int(m.group(2)) * 60 + int(m.group(3)))
        return f"(CAST(timezone('UTC', {aware}) AS TIMESTAMP) + INTERVAL ({minutes}) MINUTE)"
    return "timezone('" + zone.replace("'", "''") + f"', {aware})"


def _time_sql(ttype: str, col: str, zone: str | None, *, text: bool = False) -> str:
    """The naive wall-clock TIMESTAMP of column ``col`` of DuckDB type ``ttype``: ``zone`` is
    the column's time zone (aware types; ``None`` for the connection's), ``text`` means the
    column is read as text written with offsets (the clock as written is kept)."""
    c = _quote(col)
    if text:
        pattern = _SQL_TEXT_ZONE.replace("'", "''")
        return f"CAST(regexp_replace(trim({c}), '{pattern}', '\\1', 'i') AS TIMESTAMP)"
    if ttype in _NAIVE:
        return f"CAST({c} AS TIMESTAMP)"
    if ttype in _NAIVE_NS:
        return _floor_us(f"epoch_ns({c})")
    if ttype in _AWARE:
        return _local_sql(c, zone)
    return _local_sql(f"timezone('UTC', {_floor_us(f'epoch_ns({c})')})", zone)


def _parquet_zone(files: list, col: str, where: str) -> str:
    """The time zone stored with time column ``col`` of Parquet ``files`` (one for all)."""
    pq = require("pyarrow.parquet", "data", "reading the time zone of a Parquet time column")
    zones: dict[str, str] = {}
    for f in files:
        try:
            schema = pq.read_schema(f)
        except Exception as exc:  # pyarrow raises its own error types
            raise BaccError(f"cannot read the schema of {f}: {first_line(exc)}") from None
        if col in schema.names:
            tz = getattr(schema.field(col).type, "tz", None)
            zones.setdefault(tz or "UTC", f)
    if len(zones) > 1:
        shown = "; ".join(f"{z} in {f}" for z, f in list(zones.items())[:3])
        raise BaccError(
            f"{where}: column {col!r} (time=) is stored in different time zones ({shown}); "
            "windows follow one clock: write the files in one time zone"
        )
    return next(iter(zones), "UTC")


def _tally_files(source, spec: _TimeSpec, w: Window, bounds, *, sep, progress, memory_limit) -> Tally:
    duckdb, con, files, fmt, where, reader, params, schema = open_files(source, sep, memory_limit)
    try:
        con.execute("SET TimeZone = 'UTC'")
        types = {row[0]: str(row[1]).upper() for row in schema}
        zone, text = None, False
        if types.get(spec.time) in _AWARE | _AWARE_NS:
            if fmt == "parquet":
                zone = _parquet_zone(files, spec.time, where)
            else:  # text with offsets: read as text, on the clock it is written in
                text = True
        if text and fmt == "json":
            from .tally import check_columns

            check_columns(list(types), spec, where)
            reader = reader[:-1] + ", columns = ?)"
            params = [*params, {c: "VARCHAR" if c == spec.time else types[c] for c in spec.keys}]
        sql, params = _window_sql(types, spec, w, bounds, reader, params, where,
                                  csv=(fmt == "csv"), zone=zone, text=text)
        cols = count_query(duckdb, con, sql, params, progress, files, where, numpy=True)
    finally:
        con.close()
    return _Columns(list(cols.values()), where, text_labels=(fmt == "csv"))


def _window_sql(types: dict, spec: _TimeSpec, w: Window, bounds, reader: str, params: list,
                where: str, *, csv: bool = False, zone: str | None = None,
                text: bool = False, inline_bounds: bool = False) -> tuple[str, list]:
    """The one aggregation: ``SELECT by..., time_bucket(time), true, pred, COUNT(*) FROM reader
    GROUP BY ...`` (or, with ``bounds``, the examples of a period without windows), on the
    wall clock of the time column (``zone`` of an aware column, or ``text`` with offsets)."""
    from .tally import check_columns

    check_columns(list(types), spec, where)
    ttype = types[spec.time]
    if ttype not in _SQL_TIME_TYPES:
        raise BaccError(
            f"{where}: column {spec.time!r} (time=) holds {ttype}, not times; give a "
            "timestamp or date column (in CSV, ISO text such as 2026-01-31 12:00:00)"
        )
    labels_cols = [c for c in spec.keys if c != spec.time]
    params = list(params)
    if csv:
        # labels and groups are read as text, as bacc.readers reads CSV, and trimmed
        reader = reader[:-1] + ", types = ?)"
        params.append({c: "VARCHAR" for c in [*labels_cols, *([spec.time] if text else [])]})
    ts = _time_sql(ttype, spec.time, zone, text=text)
    cols = [f"trim({_quote(c)}) AS {_quote(c)}" if csv else _quote(c) for c in labels_cols]
    where_sql = ""
    if bounds is None:
        cols.insert(len(spec.by) - 1, f"time_bucket({w.sql}, {ts}) AS {_quote(spec.time)}")
    else:
        if inline_bounds:  # the relation API takes no parameters: the bounds as literals
            lo, hi = (f"TIMESTAMP '{np.datetime_as_string(b, unit='us')}'" for b in bounds)
        else:
            lo, hi = "?", "?"
            params.extend(b.item() for b in bounds)
        where_sql = f" WHERE {ts} >= {lo} AND {ts} < {hi}"
    keys = ", ".join(_quote(c) for c in spec.keys)
    sql = (f"SELECT {keys}, COUNT(*) FROM (SELECT {', '.join(cols)} FROM {reader}{where_sql}) "
           f"GROUP BY {keys}")
    return sql, params


def _tally_relation(rel, spec: _TimeSpec, w: Window, bounds) -> Tally:
    """A DuckDB relation: the same SQL as for files, run on the relation."""
    duckdb = require("duckdb", "data", "counting a DuckDB relation")
    where = "the DuckDB relation"
    types = {c: str(t).upper() for c, t in zip(rel.columns, rel.types, strict=True)}
    sql, _ = _window_sql(types, spec, w, bounds, "__bacc_rel", [], where, inline_bounds=True)
    try:
        rows = rel.query("__bacc_rel", sql).fetchall()
    except duckdb.Error as exc:
        raise BaccError(f"DuckDB could not count {where}: {first_line(exc)}") from None
    return Tally(rows, where)


# ----------------------------------------------------------------------------------------------
# DataFrames (narwhals)
_BUCKET = "__bacc_bucket"


def _tally_frame(source, spec: _TimeSpec, w: Window, bounds) -> Tally:
    module = type(source).__module__.split(".")[0]
    if type(source).__name__ == "DuckDBPyRelation":
        return _tally_relation(source, spec, w, bounds)
    if module == "dask":
        return _tally_dask(source, spec, w, bounds)
    source = _pandas_wall_clock(source, spec.time)
    nw, frame, schema, name, where = open_frame(source, spec, module)
    dtype = schema[spec.time]
    ts = nw.col(spec.time)
    if isinstance(dtype, nw.Date) or dtype == nw.Date:
        ts = ts.cast(nw.Datetime("us"))
    elif isinstance(dtype, nw.Datetime):
        if dtype.time_zone:
            ts = ts.dt.replace_time_zone(None)  # the wall clock of the column's zone
    else:
        raise BaccError(f"{where}: column {spec.time!r} (time=) holds {dtype}, not times; give a "
                        "datetime or date column")
    us = ts.dt.timestamp("us")
    labels_cols = [c for c in spec.keys if c != spec.time]
    try:
        if bounds is not None:
            lo, hi = (int(b.astype(np.int64)) for b in bounds)
            frame = frame.filter((us >= lo) & (us < hi)).select(labels_cols)
            keys = labels_cols
        else:
            if w.months:
                # no cast: a missing time stays missing (pandas gives NaN, others null)
                bucket = (ts.dt.year() * 12 + ts.dt.month() - 1 - _MONTH_ORIGIN) // w.months
            else:
                bucket = (us - _ORIGIN_US) // w.micros
            frame = frame.select(*labels_cols, bucket.alias(_BUCKET))
            keys = [*spec.by[:-1], _BUCKET, spec.true, spec.pred]
        grouped = frame.group_by(keys, drop_null_keys=False).agg(nw.len().alias("__bacc_n"))
        rows = _fetch(grouped, nw)
    except BaccError:
        raise
    except Exception as exc:  # engines raise their own error types
        raise BaccError(f"{name} could not count {where}: {first_line(exc)}") from None
    if bounds is None:
        rows = _buckets_to_starts(rows, len(spec.by) - 1, w)
    return Tally(rows, where)


def _pandas_wall_clock(source, time: str):
    """A pandas DataFrame whose aware time column is replaced by its wall clock (a new frame;
    the caller's is not touched). Not every zone name is understood by narwhals in pandas
    dtypes (``datetime64[ns, America/New_York]`` reads as an unknown type), so the zone is
    dropped here, the same result as on every other engine. Other sources are returned as is."""
    if type(source).__module__.split(".")[0] != "pandas" or not hasattr(source, "columns"):
        return source
    try:
        col = source[time] if time in source.columns else None
    except Exception:  # duplicated or odd column labels: left to the generic checks
        return source
    if col is None or getattr(col, "ndim", 1) != 1 or getattr(col.dtype, "tz", None) is None:
        return source
    try:
        local = col.dt.tz_localize(None)
    except (AttributeError, TypeError):
        return source
    out = source.copy(deep=False)
    out[time] = local
    return out


def _tally_dask(source, spec: _TimeSpec, w: Window, bounds) -> Tally:
    """A Dask DataFrame through Dask's own API (the bucket number computed per partition)."""
    from .tally import check_columns

    where = f"the Dask {type(source).__name__}"
    cols = getattr(source, "columns", None)
    if cols is None:
        raise BaccError(f"{where} is not a table (a Series?); give a DataFrame with named columns")
    check_columns(list(cols), spec, where)
    t = source[spec.time]
    if t.dtype.kind != "M":
        raise BaccError(f"{where}: column {spec.time!r} (time=) holds {t.dtype}, not times; give a "
                        "datetime column")
    if getattr(t.dtype, "tz", None) is not None:
        t = t.dt.tz_localize(None)  # the wall clock of the column's zone
    us = t.astype("datetime64[us]").astype("int64")
    labels_cols = [c for c in spec.keys if c != spec.time]
    try:
        df = source[labels_cols]
        if bounds is not None:
            lo, hi = (int(b.astype(np.int64)) for b in bounds)
            df = df[(us >= lo) & (us < hi) & t.notnull()]
            keys = labels_cols
        else:
            if w.months:
                bucket = (t.dt.year * 12 + t.dt.month - 1 - _MONTH_ORIGIN) // w.months
            else:
                bucket = (us - _ORIGIN_US) // w.micros
            df = df.assign(**{_BUCKET: bucket.where(t.notnull())})
            keys = [*spec.by[:-1], _BUCKET, spec.true, spec.pred]
        ser = df.groupby(keys, dropna=False, observed=True).size().compute()
    except BaccError:
        raise
    except Exception as exc:
        raise BaccError(f"Dask could not count {where}: {first_line(exc)}") from None
    rows = [(*(k if isinstance(k, tuple) else (k,)), int(v)) for k, v in ser.items()]
    if bounds is None:
        rows = _buckets_to_starts(rows, len(spec.by) - 1, w)
    return Tally(rows, where)


def _buckets_to_starts(rows: list, pos: int, w: Window) -> list:
    """Replace the bucket number at ``pos`` of each row by the window's start (``datetime``)."""
    idx = {r[pos] for r in rows if r[pos] is not None and r[pos] == r[pos]}
    ordered = sorted(int(i) for i in idx)
    starts = dict(zip(ordered, w.start(ordered).tolist(), strict=True)) if ordered else {}
    out = []
    for r in rows:
        v = r[pos]
        start = starts.get(int(v)) if v is not None and v == v else None
        out.append((*r[:pos], start, *r[pos + 1:]))
    return out


# ----------------------------------------------------------------------------------------------
# mappings of columns (numpy)
def _tally_mapping(source: Mapping, spec: _TimeSpec, w: Window, bounds) -> Tally:
    where = "the data"
    if spec.time not in source:
        from .tally import check_columns

        check_columns([str(k) for k in source], spec, where)
    raw = source[spec.time]
    if isinstance(raw, str | bytes):
        raise BaccError(f"{where}: column {spec.time!r} (time=) must be a sequence of times, "
                        "not a single string")
    if isinstance(raw, np.ndarray) and raw.dtype.kind == "M" and not np.ma.isMaskedArray(raw):
        values: list = []
        t = raw.astype("datetime64[us]").ravel()  # numpy floors finer units, as the engines do
    else:
        values = [None if clean_value(v) is None else wall_clock(v) for v in raw]
        t = np.empty(len(values), dtype="datetime64[us]")
    for i, v in enumerate(values):
        if v is None:
            t[i] = np.datetime64("NaT")
            continue
        try:
            t[i] = np.datetime64(v, "us")
        except (ValueError, TypeError, OverflowError):
            t[i] = np.datetime64("NaT")
        if np.isnat(t[i]) or isinstance(v, bool | int | float | np.number | np.bool_):
            raise BaccError(
                f"{where}: column {spec.time!r} (time=) holds {v!r} (row {i}), not a time; give "
                "datetimes, dates or ISO text such as 2026-01-31 12:00"
            )
    cols = {k: v for k, v in source.items() if k != spec.time}
    if bounds is not None:
        keep = (t >= bounds[0]) & (t < bounds[1])
        cols = {k: [x for x, ok in zip(v, keep, strict=True) if ok] for k, v in cols.items()}
        sub = Spec(spec.true, spec.pred, spec.by, None)
        return tally_columns(cols, sub)
    starts = w.floor(t).astype(object)
    starts[np.isnat(t)] = None
    cols[spec.time] = list(starts)
    return tally_columns(cols, spec)
