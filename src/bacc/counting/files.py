"""Counting files with DuckDB: CSV, Parquet and JSON lines, out of core.

A path, a glob, a directory or a list of paths is read by DuckDB, which streams through the
files and keeps only the aggregated rows (a few per group), so a data set larger than memory
works. DuckDB is imported only here, through :func:`bacc.errors.require` (``bacc[data]``).
"""

from __future__ import annotations

import glob
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import BaccError, require
from ..progress import Progress
from .tally import Spec, Tally, check_columns, first_line

__all__ = ["is_file_source", "tally_files"]

_FILE_FORMATS = {
    ".parquet": "parquet",
    ".parq": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".tsv": "csv",
    ".tab": "csv",
    ".txt": "csv",
    ".jsonl": "json",
    ".ndjson": "json",
    ".json": "json",
}
_COMPRESSED = {".gz", ".zst", ".zstd"}


def _file_format(path: str) -> str | None:
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    return _FILE_FORMATS.get(suffixes[-1]) if suffixes else None


#: Extensions a directory scan counts (a stray ``.txt`` note beside the data is not data; a
#: ``.txt`` file named explicitly is read as CSV).
_SCANNED = {ext for ext in _FILE_FORMATS if ext != ".txt"}


def _scan(root: str) -> list[str]:
    """The data files under a directory: symbolic links to directories are not followed (no
    loops), a linked file counts only when it lies inside the directory, hidden and
    ``_``-prefixed names are skipped (Spark's ``_SUCCESS``, editors' ``.~lock``)."""
    base = os.path.realpath(root)
    out = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        for name in sorted(names):
            if name.startswith((".", "_")):
                continue
            path = os.path.join(folder, name)
            real = os.path.realpath(path)
            if os.path.commonpath([base, real]) != base or not os.path.isfile(real):
                continue
            suffixes = [x.lower() for x in Path(name).suffixes]
            while suffixes and suffixes[-1] in _COMPRESSED:
                suffixes.pop()
            if suffixes and suffixes[-1] in _SCANNED:
                out.append(path)
    return out


def _expand(paths: Sequence[str]) -> list[str]:
    """The files named by ``paths``: each directory scanned and each glob expanded once, here
    (DuckDB is given the names found, escaped, so that a file named ``run[1].csv`` is that file),
    every real file once (however many names or links lead to it)."""
    files: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            scanned = _scan(p)
            found: list[str] = []
            for fmt in ("parquet", "csv", "json"):
                found = [f for f in scanned if _file_format(f) == fmt]
                if found:
                    break
            if not found:
                raise BaccError(
                    f"directory {p} holds no data file ({', '.join(sorted(_SCANNED))})"
                )
            files.extend(found)
        elif os.path.isfile(p):
            files.append(p)  # a literal name, even if it holds [ ] * ?
        elif glob.has_magic(p):
            found = sorted(f for f in glob.glob(p, recursive=True) if os.path.isfile(f))
            if not found:
                raise BaccError(f"no file matches {p}")
            files.extend(found)
        else:
            raise BaccError(f"cannot read {p}: no such file or directory")
    seen: set[str] = set()
    unique = []
    for f in files:
        real = os.path.realpath(f)
        if real not in seen:
            seen.add(real)
            unique.append(f)
    return unique


def is_file_source(source: Any) -> bool:
    """True for what :func:`tally_files` counts: a path, or a non-empty list of paths."""
    if isinstance(source, str | os.PathLike):
        return True
    return (
        isinstance(source, list | tuple)
        and bool(source)
        and all(isinstance(s, str | os.PathLike) for s in source)
    )


def open_files(source, sep: str | None, memory_limit: str | None):
    """A DuckDB reader of the files of ``source`` and their schema.

    Returns ``(duckdb, con, files, fmt, where, reader, params, schema)``: the module, a new
    connection (the caller closes it), the files, their one format, the phrase naming them in
    messages, the table function and its parameters, and the ``DESCRIBE`` rows.

    Raises
    ------
    BaccError
        No such file, no file matched, files of mixed or unknown formats, a bad memory limit,
        or DuckDB could not read the files.
    """
    raw = [source] if isinstance(source, str | os.PathLike) else list(source)
    paths = [os.fspath(p) for p in raw]
    where = paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    files = _expand(paths)
    formats = {_file_format(f) for f in files}
    if None in formats:
        odd = next(f for f in files if _file_format(f) is None)
        raise BaccError(
            f"cannot tell the format of {odd} from its name; name files .csv, .tsv, .parquet or .jsonl"
        )
    if len(formats) > 1:
        raise BaccError(f"{where}: files of different formats ({', '.join(sorted(formats))}); count them apart")
    fmt = formats.pop()
    duckdb = require("duckdb", "data", "counting files")
    try:
        con = duckdb.connect(config={} if memory_limit is None else {"memory_limit": str(memory_limit)})
    except duckdb.Error as exc:
        raise BaccError(f"memory_limit={memory_limit!r}: {first_line(exc)}") from None
    try:
        # names are literal: escape what DuckDB would expand as a glob again
        params: list = [[glob.escape(f) for f in files]]
        if fmt == "parquet":
            reader = "read_parquet(?, union_by_name = true)"
        elif fmt == "json":
            # one object per line, or one array of objects (as bacc.readers reads .json)
            reader = "read_json_auto(?, format = 'auto', union_by_name = true)"
        else:
            reader = "read_csv(?, header = true, union_by_name = true"
            if sep is not None:
                reader += ", delim = ?"
                params.append(sep)
            reader += ")"
        try:
            schema = con.execute(f"DESCRIBE SELECT * FROM {reader}", params).fetchall()
        except duckdb.Error as exc:
            _refuse_empty(files, fmt)
            raise BaccError(f"cannot read {where}: {first_line(exc)}") from None
        if fmt in ("csv", "json") and len(schema) == 1:
            _refuse_empty(files, fmt)
        if fmt == "csv" and sep is None and len(schema) == 1:
            reader, params, schema = _retry_separator(duckdb, con, reader, params, schema, where)
        if fmt == "csv":
            _refuse_repeated_names(duckdb, con, files, [row[0] for row in schema], sep)
    except BaseException:
        con.close()
        raise
    return duckdb, con, files, fmt, where, reader, params, schema


def _text_start(path: str, size: int = 65536) -> bytes | None:
    """The first ``size`` bytes of a text file (decompressed for ``.gz``); None when they
    cannot be read here (other compressions: DuckDB reads them)."""
    import gzip

    try:
        if path.lower().endswith(".gz"):
            with gzip.open(path, "rb") as fh:
                return fh.read(size)
        if Path(path).suffix.lower() in _COMPRESSED:
            return None
        with open(path, "rb") as fh:
            return fh.read(size)
    except (OSError, EOFError):
        return None


def _refuse_empty(files: list[str], fmt: str) -> None:
    """Raise a BaccError when every file is empty (nothing but white space and a byte order
    mark): DuckDB would read them as one column named ``column0`` or ``json``."""
    if fmt not in ("csv", "json"):
        return
    for f in files:
        start = _text_start(f)
        body = None if start is None else start.lstrip(b"\xef\xbb\xbf").strip()
        if body is None or (body and not (fmt == "json" and body.replace(b" ", b"") == b"[]")):
            return
    what = "a header row naming the columns" if fmt == "csv" else "one JSON object per example"
    name = files[0] if len(files) == 1 else f"every file of {files[0]} (and {len(files) - 1} more)"
    raise BaccError(f"{name} is empty: expected {what}")


def _retry_separator(duckdb, con, reader: str, params: list, schema: list, where: str):
    """CSV files that DuckDB read as one column whose name holds a separator (its sniffer gives
    up on rows of uneven length): read again with that separator, so that the error names the
    rows rather than the columns."""
    name = str(schema[0][0])
    found = [c for c in (",", "\t", ";", "|") if c in name]
    if not found:
        return reader, params, schema
    delim = max(found, key=name.count)
    reader = reader[:-1] + ", delim = ?)"
    params = [*params, delim]
    shown = "tab" if delim == "\t" else repr(delim)
    try:
        schema = con.execute(f"DESCRIBE SELECT * FROM {reader}", params).fetchall()
    except duckdb.Error as exc:
        raise BaccError(
            f"cannot read {where}: its header is separated by {shown}, but its rows could not "
            f"be read so ({first_line(exc)}); do all rows have as many fields as the header?"
        ) from None
    return reader, params, schema


def _refuse_repeated_names(duckdb, con, files: list[str], names: list[str], sep: str | None) -> None:
    """Raise a BaccError when a CSV header names a column twice (DuckDB would rename the second
    ``y_1`` and count the first without a word)."""
    import re

    present = {str(n) for n in names}
    renamed = (re.fullmatch(r"(.+)_\d+", str(n)) for n in names)
    if not any(m and m.group(1) in present for m in renamed):
        return  # no y_1 beside a y: nothing was renamed
    reader = "read_csv(?, header = false, all_varchar = true" + (", delim = ?" if sep else "") + ")"
    for f in files:
        params: list = [[glob.escape(f)], *([sep] if sep else [])]
        try:
            row = con.execute(f"SELECT * FROM {reader} LIMIT 1", params).fetchone()
        except duckdb.Error:
            return  # the count itself reports what is wrong with the file
        header = [str(v).strip() for v in (row or ()) if v is not None]
        dup = sorted({h for h in header if header.count(h) > 1})
        if dup:
            raise BaccError(f"{f}: the header names the column {dup[0]!r} more than once")


def tally_files(
    source, spec: Spec, *, sep: str | None, progress: bool, memory_limit: str | None = None
) -> Tally:
    """Count the files of ``source`` with one DuckDB aggregation.

    Parameters
    ----------
    source : str, os.PathLike or list of them
        A file, a glob, a directory (its Parquet files, else its CSV files, else its
        JSON-lines files), or a list of such paths; all of one format.
    spec : Spec
        The columns to count.
    sep : str or None
        Field separator of CSV files (None: detected).
    progress : bool
        Draw DuckDB's progress estimate on standard error when it is a terminal.
    memory_limit : str, optional
        Most memory DuckDB may use (``"500MB"``).

    Returns
    -------
    Tally
        The aggregated rows; CSV labels are text (``text_labels``).

    Raises
    ------
    BaccError
        No such file, no file matched, files of mixed or unknown formats, a missing column,
        a count column that is not numeric, or DuckDB could not read the files.
    MissingDependencyError
        DuckDB is not installed (``pip install "bacc[data]"``).
    """
    duckdb, con, files, fmt, where, reader, params, schema = open_files(source, sep, memory_limit)
    try:
        if fmt == "csv":
            # labels and groups are read as text, as bacc.readers reads CSV: the sniffer would turn
            # "yes"/"no" into booleans and "007" into 7, and could type the two label columns apart
            check_columns([row[0] for row in schema], spec, where)
            reader = reader[:-1] + ", types = ?)"
            params.append({c: "VARCHAR" for c in spec.keys})
        types = {row[0]: str(row[1]).upper() for row in schema}
        check_columns(list(types), spec, where)
        keys = ", ".join(_quote(c) for c in spec.keys)
        if spec.count is None:
            aggs = "COUNT(*)"
        else:
            ctype = types[spec.count]
            c = _quote(spec.count)
            if not _is_sql_number(ctype):
                raise BaccError(
                    f"{where}: column {spec.count!r} (count=) holds {ctype}, not numbers of examples"
                )
            floating = ctype in ("FLOAT", "DOUBLE", "REAL", "FLOAT4", "FLOAT8")
            nan = f" OR isnan({c})" if floating else ""
            inf = f"isinf({c}) OR " if floating else ""
            aggs = (
                f"SUM({c}), COUNT_IF({c} < 0), COUNT_IF({inf}{c} <> floor({c})), "
                f"COUNT_IF({c} IS NULL{nan})"
            )
        if fmt == "csv":
            # one parsing rule for CSV text, as bacc.readers: surrounding white space is not
            # part of a label (" a" and "a " are the label "a")
            cols = ", ".join(f"trim({_quote(c)}) AS {_quote(c)}" for c in spec.keys)
            sql = f"SELECT {keys}, {aggs} FROM (SELECT {cols}{_extra(spec)} FROM {reader}) GROUP BY {keys}"
        else:
            sql = f"SELECT {keys}, {aggs} FROM {reader} GROUP BY {keys}"
        rows = count_query(duckdb, con, sql, params, progress, files, where)
    finally:
        con.close()
    return Tally(rows, where, text_labels=(fmt == "csv"))


def _extra(spec) -> str:
    """The count column, when there is one, beside the trimmed keys."""
    return "" if spec.count is None else f", {_quote(spec.count)}"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _is_sql_number(t: str) -> bool:
    base = t.split("(")[0].strip()
    return base in {
        "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
        "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "REAL", "DECIMAL", "NUMERIC",
        "INT", "INT1", "INT2", "INT4", "INT8", "FLOAT4", "FLOAT8",
    }



def count_query(duckdb, con, sql: str, params: list, progress: bool, files, where: str, *,
                numpy: bool = False):
    """The counting query over the data files: run with a progress line named after them (see
    :func:`_run_with_progress`); DuckDB's errors become one line naming the source."""
    label = f"counting {Path(files[0]).name}" if len(files) == 1 else f"counting {len(files)} files"
    try:
        return _run_with_progress(con, sql, params, progress, label, numpy=numpy)
    except duckdb.Error as exc:
        raise BaccError(f"cannot count {where}: {first_line(exc)}") from None


def _run_with_progress(con, sql: str, params: list, progress: bool, label: str, *,
                       numpy: bool = False):
    """Run ``sql`` on ``con``; on a terminal, draw DuckDB's own progress estimate meanwhile.

    Returns the rows (``fetchall``), or with ``numpy=True`` the columns as numpy arrays
    (``fetchnumpy``).
    """

    def fetch(cursor):
        return cursor.fetchnumpy() if numpy else cursor.fetchall()

    bar = Progress(100.0, label, enabled=progress)
    if not bar.on:
        # DuckDB would otherwise print its own bar on standard output for long queries,
        # into whatever the caller writes there (JSON, CSV)
        con.execute("SET enable_progress_bar = false")
        return fetch(con.execute(sql, params))
    con.execute("SET enable_progress_bar = true")
    con.execute("SET enable_progress_bar_print = false")
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["rows"] = fetch(con.execute(sql, params))
        except BaseException as exc:  # handed to the calling thread
            box["error"] = exc

    worker = threading.Thread(target=run, name="bacc-count", daemon=True)
    worker.start()
    try:
        with bar:
            while worker.is_alive():
                worker.join(0.1)
                done = con.query_progress()
                if done >= 0:
                    bar.update(done)
    except KeyboardInterrupt:
        con.interrupt()
        worker.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["rows"]
