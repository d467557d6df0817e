"""Counting DataFrames and lazy frames in their own engine: narwhals, and Dask's own API.

pandas, polars, pyarrow, DuckDB relations, PySpark and whatever else narwhals wraps (modin,
cuDF, Ibis, SQLFrame) run the aggregation themselves; only its rows come back to Python.
narwhals is imported only here, through :func:`bacc.errors.require` (``bacc[data]``).
"""

from __future__ import annotations

import math

from ..errors import BaccError, require
from .tally import Spec, Tally, check_columns, first_line

__all__ = ["ENGINES", "tally_frame"]

# helper columns of the aggregation (sum of counts, and the three checks of a count column)
_N, _NEG, _FRAC, _NULLC = "__bacc_n", "__bacc_neg", "__bacc_frac", "__bacc_nullc"

#: Top-level module of a frame's type -> the engine's name in messages.
ENGINES = {
    "pandas": "pandas",
    "polars": "polars",
    "pyarrow": "pyarrow",
    "duckdb": "DuckDB",
    "dask": "Dask",
    "pyspark": "PySpark",
    "modin": "modin",
    "cudf": "cuDF",
    "ibis": "Ibis",
    "sqlframe": "SQLFrame",
    "narwhals": "narwhals",
}


def tally_frame(source, spec: Spec) -> Tally:
    """Count a DataFrame or lazy frame in its own engine.

    Parameters
    ----------
    source : DataFrame or lazy frame
        Of any engine narwhals wraps, or a Dask DataFrame.
    spec : Spec
        The columns to count.

    Returns
    -------
    Tally

    Raises
    ------
    BaccError
        ``source`` is not a table, lacks a column, or its engine failed.
    MissingDependencyError
        narwhals is not installed (``pip install "bacc[data]"``).
    """
    module = type(source).__module__.split(".")[0]
    if module == "dask":
        return _tally_dask(source, spec)
    return _tally_narwhals(source, spec, module)


def open_frame(source, spec, module: str):
    """``source`` as a narwhals frame with its columns checked against ``spec``.

    Returns ``(nw, frame, schema, name, where)``: the narwhals module, the frame, its schema,
    the engine's name and the phrase naming the source in messages.
    """
    name = ENGINES.get(module, module)
    kind = "relation" if type(source).__name__ == "DuckDBPyRelation" else type(source).__name__
    where = f"the {name} {kind}"
    try:
        import narwhals.stable.v2 as nw
    except ImportError:
        if module not in ENGINES:
            raise BaccError(_unknown_source(source)) from None
        nw = require("narwhals.stable.v2", "data", f"counting a {name} {type(source).__name__}")
    try:
        frame = nw.from_native(source)
    except TypeError:
        raise BaccError(_unknown_source(source)) from None
    if not isinstance(frame, nw.DataFrame | nw.LazyFrame):
        raise BaccError(f"{where} is not a table (a Series?); give a DataFrame with named columns")
    schema = frame.collect_schema()
    check_columns(list(schema.names()), spec, where)
    return nw, frame, schema, name, where


def _tally_narwhals(source, spec: Spec, module: str) -> Tally:
    nw, frame, schema, name, where = open_frame(source, spec, module)
    frame = frame.select(spec.columns)
    if spec.count is None:
        aggs = [nw.len().alias(_N)]
    else:
        # helper columns first: group_by aggregates only plain columns on every backend
        dtype = schema[spec.count]
        if not dtype.is_numeric():
            raise BaccError(f"{where}: column {spec.count!r} (count=) holds {dtype}, not numbers of examples")
        c = nw.col(spec.count)
        int64 = nw.Int64()
        if dtype.is_float():
            frac = ((c != c.floor()) | (c.abs() == math.inf)).fill_null(False)
            nullc = c.is_null() | c.is_nan().fill_null(False)
        else:
            frac = c.is_null() & ~c.is_null()
            nullc = c.is_null()
        frame = frame.with_columns(
            (c < 0).fill_null(False).cast(int64).alias(_NEG),
            frac.cast(int64).alias(_FRAC),
            nullc.cast(int64).alias(_NULLC),
        )
        aggs = [nw.col(spec.count).sum().alias(_N), *(nw.col(x).sum() for x in (_NEG, _FRAC, _NULLC))]
    try:
        grouped = frame.group_by(spec.keys, drop_null_keys=False).agg(*aggs)
        rows = _fetch(grouped, nw)
    except BaccError:
        raise
    except Exception as exc:  # engines raise their own error types
        raise BaccError(f"{name} could not count {where}: {first_line(exc)}") from None
    return Tally(rows, where)


def _fetch(grouped, nw) -> list:
    """Rows of a (small) aggregated frame as Python tuples, fetched natively where possible."""
    if isinstance(grouped, nw.DataFrame):
        return list(grouped.rows())
    native = grouped.to_native()
    impl = grouped.implementation
    if impl is nw.Implementation.DUCKDB:
        return native.fetchall()
    if impl in (nw.Implementation.PYSPARK, nw.Implementation.PYSPARK_CONNECT, nw.Implementation.SQLFRAME):
        return [tuple(r) for r in native.collect()]
    if impl is nw.Implementation.POLARS:
        return native.collect().rows()
    return list(grouped.collect().rows())


def _tally_dask(source, spec: Spec) -> Tally:
    # Dask through its own groupby: narwhals is moving Dask support to a separate plugin.
    where = f"the Dask {type(source).__name__}"
    cols = getattr(source, "columns", None)
    if cols is None:
        raise BaccError(f"{where} is not a table (a Series?); give a DataFrame with named columns")
    check_columns(list(cols), spec, where)
    keys = spec.keys
    try:
        df = source[spec.columns]
        if spec.count is None:
            ser = df.groupby(keys, dropna=False, observed=True).size().compute()
            rows = [(*_as_tuple(k), v) for k, v in ser.items()]
        else:
            dtype = df[spec.count].dtype
            if dtype.kind not in "iuf":
                raise BaccError(f"{where}: column {spec.count!r} (count=) holds {dtype}, not numbers of examples")
            c = df[spec.count]
            df = df.assign(
                **{
                    _NEG: (c < 0).astype("int64"),
                    _FRAC: ((c != c.floordiv(1)) & ~c.isna()).astype("int64")
                    if dtype.kind == "f"
                    else (c < c).astype("int64"),
                    _NULLC: c.isna().astype("int64"),
                }
            )
            agg = df.groupby(keys, dropna=False, observed=True)[[spec.count, _NEG, _FRAC, _NULLC]].sum()
            pdf = agg.compute()
            rows = [(*_as_tuple(k), *vals) for k, vals in zip(pdf.index, pdf.itertuples(index=False, name=None), strict=True)]
    except BaccError:
        raise
    except Exception as exc:
        raise BaccError(f"Dask could not count {where}: {first_line(exc)}") from None
    return Tally(rows, where)


def _as_tuple(key) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def _unknown_source(source) -> str:
    return (
        f"cannot count a {type(source).__module__}.{type(source).__name__}: give a file path or "
        "glob, a DataFrame or lazy frame (pandas, polars, pyarrow, DuckDB, Dask, PySpark), or a "
        "mapping of column names to sequences"
    )
