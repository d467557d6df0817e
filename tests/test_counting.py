"""bacc.counts: the same confusion matrices from every engine, checked against a plain count."""

from __future__ import annotations

import importlib.util
import io
import os
import shutil
import subprocess
import sys
import warnings
from collections import Counter

import numpy as np
import pytest

from bacc import BaccError, BaccWarning, ConfusionMatrix, MissingDependencyError
from bacc.counting import GroupedCounts, counts, counts_from_long
from bacc.progress import Progress

pd = pytest.importorskip("pandas")


def _have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


needs = {m: pytest.mark.skipif(not _have(m), reason=f"needs {m} (pip install {m})")
         for m in ("duckdb", "narwhals", "polars", "pyarrow", "dask")}


# ----------------------------------------------------------------------------------------------
# data and the reference count
def _data(n=3000, seed=0, labels=("bird", "cat", "dog"), groups=("d01", "d02", "d03", "d04")):
    rng = np.random.default_rng(seed)
    y = rng.choice(labels, n)
    # a classifier that is right 70% of the time, else guesses
    right = rng.random(n) < 0.7
    p = np.where(right, y, rng.choice(labels, n))
    g = rng.choice(groups, n)
    # d04 never sees the class "bird": it must get zeros there, not a different class set
    bird = (g == "d04") & ((y == "bird") | (p == "bird"))
    g[bird] = "d03"
    return {"det": g.tolist(), "y": y.tolist(), "p": p.tolist()}


def _reference(data, by="det", true="y", pred="p"):
    """Pure-Python count: {group: Counter((true, pred))}."""
    out: dict = {}
    for g, t, p in zip(data[by], data[true], data[pred], strict=True):
        out.setdefault(g, Counter())[(t, p)] += 1
    return out


def _check_against_reference(res: GroupedCounts, data, labels=None):
    ref = _reference(data)
    assert res.groups == tuple(sorted(ref))
    labs = labels or tuple(sorted({*data["y"], *data["p"]}))
    assert res.labels == labs
    for gi, g in enumerate(res.groups):
        for i, t in enumerate(labs):
            for j, p in enumerate(labs):
                assert res.counts[gi, i, j] == ref[g][(t, p)], (g, t, p)
    assert res.counts.sum() == len(data["y"])
    assert res.n_dropped == 0


DATA = _data()


def _make(engine: str, data: dict, tmp_path):
    """The same table in the named engine (or file format)."""
    if engine == "mapping":
        return data
    df = pd.DataFrame(data)
    if engine == "pandas":
        return df
    if engine in ("polars", "polars-lazy"):
        pl = pytest.importorskip("polars")
        f = pl.DataFrame(data)
        return f.lazy() if engine == "polars-lazy" else f
    if engine == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        return pa.table(data)
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.register("df_view", df)
        return con.sql("SELECT * FROM df_view")
    if engine == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(df, npartitions=3)
    pytest.importorskip("duckdb")
    if engine == "parquet":
        pytest.importorskip("pyarrow")
        path = tmp_path / "preds.parquet"
        df.to_parquet(path)
        return str(path)
    if engine == "csv":
        path = tmp_path / "preds.csv"
        df.to_csv(path, index=False)
        return str(path)
    if engine == "jsonl":
        path = tmp_path / "preds.jsonl"
        df.to_json(path, orient="records", lines=True)
        return path  # a pathlib.Path works too
    raise AssertionError(engine)


ENGINES = ["mapping", "pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "dask",
           "parquet", "csv", "jsonl"]


def _engine_marks(engine):
    mods = {"polars": ["polars"], "polars-lazy": ["polars"], "pyarrow": ["pyarrow"],
            "duckdb": ["duckdb"], "dask": ["dask"], "parquet": ["duckdb", "pyarrow"],
            "csv": ["duckdb"], "jsonl": ["duckdb"]}.get(engine, [])
    if engine not in ("mapping", "dask", "parquet", "csv", "jsonl"):
        mods = ["narwhals", *mods]
    return [needs[m] for m in mods]


ENGINE_PARAMS = [pytest.param(e, marks=_engine_marks(e), id=e) for e in ENGINES]


# ----------------------------------------------------------------------------------------------
# every engine gives the plain count
@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_every_engine_counts_what_a_plain_python_count_gives(engine, tmp_path):
    res = counts(_make(engine, DATA, tmp_path), true="y", pred="p", by="det")
    assert isinstance(res, GroupedCounts)
    _check_against_reference(res, DATA)


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_without_by_every_engine_gives_one_confusion_matrix(engine, tmp_path):
    cm = counts(_make(engine, DATA, tmp_path), true="y", pred="p")
    assert isinstance(cm, ConfusionMatrix)
    assert cm == ConfusionMatrix.from_predictions(DATA["y"], DATA["p"])


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_integer_labels_keep_their_type_and_order(engine, tmp_path):
    data = _data(500, seed=1, labels=(0, 1, 10, 2))
    data["y"] = [int(v) for v in data["y"]]
    data["p"] = [int(v) for v in data["p"]]
    res = counts(_make(engine, data, tmp_path), true="y", pred="p", by="det")
    # CSV labels are text, as bacc.readers reads them; they are ordered numerically all the same
    expected = ("0", "1", "2", "10") if engine == "csv" else (0, 1, 2, 10)
    assert res.labels == expected
    ref = _reference(data)
    for gi, g in enumerate(res.groups):
        for i, t in enumerate((0, 1, 2, 10)):
            for j, p in enumerate((0, 1, 2, 10)):
                assert res.counts[gi, i, j] == ref[g][(t, p)]


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_missing_labels_are_refused_with_their_number(engine, tmp_path):
    data = {k: list(v[:200]) for k, v in DATA.items()}
    for i in (3, 50, 51):
        data["y"][i] = None
    data["p"][51] = None
    data["det"][120] = None
    with pytest.raises(BaccError, match=r"4 examples have a missing label or group") as err:
        counts(_make(engine, data, tmp_path), true="y", pred="p", by="det")
    msg = str(err.value)
    assert "3 in 'y' (true=)" in msg and "1 in 'p' (pred=)" in msg and "1 in 'det' (by=)" in msg
    assert "nulls='drop'" in msg


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_nulls_drop_leaves_them_out_and_reports_how_many(engine, tmp_path):
    data = {k: list(v[:200]) for k, v in DATA.items()}
    for i in (3, 50, 51):
        data["y"][i] = None
    data["p"][51] = None
    data["det"][120] = None
    with pytest.warns(BaccWarning, match="left out 4 examples"):
        res = counts(_make(engine, data, tmp_path), true="y", pred="p", by="det", nulls="drop")
    assert res.n_dropped == 4
    keep = [i for i in range(200) if None not in (data["y"][i], data["p"][i], data["det"][i])]
    clean = {k: [v[i] for i in keep] for k, v in data.items()}
    assert res.counts.sum() == 196
    _check_against_reference(GroupedCounts(res.counts, res.groups, res.labels), clean)


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_missing_columns_are_named_with_the_available_ones(engine, tmp_path):
    with pytest.raises(BaccError) as err:
        counts(_make(engine, DATA, tmp_path), true="label", pred="p", by="detector")
    msg = str(err.value)
    assert "'label' (true=)" in msg and "'detector' (by=)" in msg
    assert "available columns: 'det', 'y', 'p'" in msg


@pytest.mark.parametrize("engine", [e for e in ENGINE_PARAMS if e.id not in ("csv", "jsonl")])
def test_true_and_predicted_labels_of_different_types_are_refused(engine, tmp_path):
    data = {"det": ["a", "a", "b"], "y": [1, 0, 1], "p": ["1", "0", "0"]}
    with pytest.raises(BaccError, match=r"mixed types: 'y' \(true=\) holds int.*'p' \(pred=\) holds str"):
        counts(_make(engine, data, tmp_path), true="y", pred="p", by="det")


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_a_group_that_never_saw_a_class_has_zeros_and_evaluates(engine, tmp_path):
    import bacc

    res = counts(_make(engine, DATA, tmp_path), true="y", pred="p", by="det")
    d04 = res["d04"]
    assert d04.labels == ("bird", "cat", "dog")
    assert d04.counts[0].sum() == 0 and d04.counts[:, 0].sum() == 0
    batch = bacc.evaluate_many(res)
    assert batch.groups == res.groups
    assert batch.n_classes.tolist() == [3, 3, 3, 2]  # d04's balanced accuracy is over 2 classes


# ----------------------------------------------------------------------------------------------
# files: globs, directories, CSV options
@needs["duckdb"]
@needs["pyarrow"]
def test_a_glob_of_parquet_files_is_counted_as_one_data_set(tmp_path):
    df = pd.DataFrame(DATA)
    for i, part in enumerate(np.array_split(np.arange(len(df)), 4)):
        df.iloc[part].to_parquet(tmp_path / f"part-{i}.parquet")
    res = counts(str(tmp_path / "part-*.parquet"), true="y", pred="p", by="det")
    _check_against_reference(res, DATA)
    # a list of files and the directory itself give the same
    files = sorted(str(p) for p in tmp_path.glob("*.parquet"))
    assert counts(files, true="y", pred="p", by="det") == res
    assert counts(tmp_path, true="y", pred="p", by="det") == res


@needs["duckdb"]
@needs["pyarrow"]
def test_hive_partitions_of_a_directory_become_a_column_to_group_by(tmp_path):
    df = pd.DataFrame(DATA)
    for g, part in df.groupby("det"):
        d = tmp_path / f"det={g}"
        d.mkdir()
        part.drop(columns="det").to_parquet(d / "part-0.parquet")
    (tmp_path / "_SUCCESS").write_text("")  # Spark's marker file is ignored
    res = counts(tmp_path, true="y", pred="p", by="det")
    _check_against_reference(res, DATA)


@needs["duckdb"]
def test_csv_with_a_separator_and_labels_given_as_numbers(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text("y;p;det\n1;1;a\n0;1;a\n1;0;b\n;1;b\n")
    with pytest.raises(BaccError, match="1 example has a missing label"):
        counts(str(path), true="y", pred="p", by="det", sep=";")
    with pytest.warns(BaccWarning):
        res = counts(str(path), true="y", pred="p", by="det", sep=";", labels=[0, 1, 2], nulls="drop")
    # labels read from CSV are text; numbers given as labels= are matched by their text
    assert res.labels == (0, 1, 2)
    assert res["a"].counts.tolist() == [[0, 1, 0], [0, 1, 0], [0, 0, 0]]
    assert res["b"].counts.tolist() == [[0, 0, 0], [1, 0, 0], [0, 0, 0]]


@needs["duckdb"]
def test_csv_yes_no_labels_stay_text(tmp_path):
    path = tmp_path / "preds.csv.gz"
    import gzip

    with gzip.open(path, "wt") as fh:
        fh.write("truth,guess\nyes,yes\nno,yes\nno,no\n")
    cm = counts(str(path), true="truth", pred="guess")
    assert cm.labels == ("no", "yes")
    assert cm.counts.tolist() == [[1, 1], [0, 1]]


@needs["duckdb"]
def test_files_that_do_not_exist_or_cannot_be_told_apart(tmp_path):
    with pytest.raises(BaccError, match="no file matches"):
        counts(str(tmp_path / "*.parquet"), true="y", pred="p")
    with pytest.raises(BaccError, match="no such file or directory"):
        counts(str(tmp_path / "missing.parquet"), true="y", pred="p")
    odd = tmp_path / "preds.dat"
    odd.write_text("y,p\n1,1\n")
    with pytest.raises(BaccError, match="cannot tell the format"):
        counts(str(odd), true="y", pred="p")
    bad = tmp_path / "bad.parquet"
    bad.write_text("this is not parquet")
    with pytest.raises(BaccError, match="cannot read .*bad.parquet"):
        counts(str(bad), true="y", pred="p")
    empty = tmp_path / "empty_dir"
    empty.mkdir()
    with pytest.raises(BaccError, match="holds no data file"):
        counts(str(empty), true="y", pred="p")


# ----------------------------------------------------------------------------------------------
# labels, groups, options
def test_labels_fix_the_order_and_add_classes_never_seen():
    cm = counts(DATA, true="y", pred="p", labels=["dog", "cat", "bird", "fish"])
    assert cm.labels == ("dog", "cat", "bird", "fish")
    ref = ConfusionMatrix.from_predictions(DATA["y"], DATA["p"], labels=["dog", "cat", "bird", "fish"])
    assert cm == ref
    assert cm.counts[3].sum() == 0


def test_a_label_outside_labels_is_named():
    with pytest.raises(BaccError, match=r"column 'y' \(true=\) has the label 'bird', which is not in labels"):
        counts(DATA, true="y", pred="p", labels=["cat", "dog"])


def test_several_group_columns_give_tuples():
    data = dict(DATA, site=["north" if i % 3 else "south" for i in range(len(DATA["y"]))])
    res = counts(data, true="y", pred="p", by=["det", "site"])
    assert res.by == ("det", "site")
    assert ("d01", "north") in res and ("d01", "south") in res
    ref = Counter((g, s, t, p) for g, s, t, p in zip(data["det"], data["site"], data["y"], data["p"], strict=True))
    cm = res[("d02", "south")]
    for i, t in enumerate(cm.labels):
        for j, p in enumerate(cm.labels):
            assert cm.counts[i, j] == ref[("d02", "south", t, p)]


@needs["narwhals"]
def test_bool_and_int_labels_are_mixed_types():
    df = pd.DataFrame({"y": [True, False, True], "p": [1, 0, 1]})
    with pytest.raises(BaccError, match="mixed types"):
        counts(df, true="y", pred="p")


@needs["narwhals"]
def test_one_column_of_mixed_types_is_refused():
    df = pd.DataFrame({"y": [1, "1", 0], "p": [1, 1, 0]})
    with pytest.raises(BaccError, match=r"'y' \(true=\) holds int \(e.g. 1\) and str"):
        counts(df, true="y", pred="p")


@needs["narwhals"]
def test_whole_float_labels_from_missing_values_become_ints():
    df = pd.DataFrame({"y": [1.0, 0.0, np.nan, 1.0], "p": [1, 1, 0, 0]})  # pandas made y float
    with pytest.warns(BaccWarning, match="left out 1 examples"):
        cm = counts(df, true="y", pred="p", nulls="drop")
    assert cm.labels == (0, 1)
    assert cm.counts.tolist() == [[0, 1], [1, 1]]


def test_bad_options_are_refused():
    with pytest.raises(BaccError, match="nulls must be 'error' or 'drop'"):
        counts(DATA, true="y", pred="p", nulls="ignore")
    with pytest.raises(BaccError, match="true= and pred= name the same column 'y'"):
        counts(DATA, true="y", pred="y")
    with pytest.raises(BaccError, match="by= must name"):
        counts(DATA, true="y", pred="p", by=3)
    with pytest.raises(BaccError, match="cannot count a builtins.int"):
        counts(42, true="y", pred="p")
    with pytest.raises(BaccError, match="different lengths"):
        counts({"y": [1, 0], "p": [1]}, true="y", pred="p")


def test_nothing_left_to_count_is_an_error():
    with pytest.raises(BaccError, match="no examples"):
        counts({"y": [], "p": []}, true="y", pred="p")
    with pytest.raises(BaccError, match="every example has a missing label"), pytest.warns(BaccWarning):
        counts({"y": [None, None], "p": [1, 0]}, true="y", pred="p", nulls="drop")


@needs["narwhals"]
def test_a_series_is_not_a_table():
    with pytest.raises(BaccError, match="cannot count a pandas.Series"):
        counts(pd.Series([1, 2]), true="y", pred="p")


# ----------------------------------------------------------------------------------------------
# long tables of counts
LONG = {
    "group": ["a", "a", "a", "b", "b", "a"],
    "true": ["neg", "neg", "pos", "pos", "neg", "neg"],
    "pred": ["neg", "pos", "pos", "neg", "neg", "neg"],
    "count": [40, 3, 9, 5, 7, 2],
}


@pytest.mark.parametrize("engine", [e for e in ENGINE_PARAMS if e.id != "jsonl"])
def test_a_long_table_of_counts_is_summed_per_cell(engine, tmp_path):
    res = counts_from_long(_make(engine, LONG, tmp_path))
    labs = ("neg", "pos")
    assert res.labels == labs and res.groups == ("a", "b")
    assert res["a"].counts.tolist() == [[42, 3], [0, 9]]
    assert res["b"].counts.tolist() == [[7, 0], [5, 0]]
    cm = counts_from_long(_make(engine, LONG, tmp_path), by=None)
    assert cm.counts.tolist() == [[49, 3], [5, 9]]


def test_count_option_of_counts_is_the_same_as_counts_from_long():
    assert counts(LONG, true="true", pred="pred", by="group", count="count") == counts_from_long(LONG)


def test_rows_of_a_long_table_as_tuples():
    rows = list(zip(*LONG.values(), strict=True))
    assert counts_from_long(rows) == counts_from_long(LONG)
    assert counts_from_long([r[1:] for r in rows], by=None) == counts_from_long(LONG, by=None)
    with pytest.raises(BaccError, match="row 1 of the long table has 3 fields; expected 4"):
        counts_from_long([rows[0], rows[1][1:]])


@pytest.mark.parametrize("engine", [e for e in ENGINE_PARAMS if e.id not in ("jsonl", "csv")])
@pytest.mark.parametrize(
    ("bad", "message"),
    [(-1, "1 negative values"), (2.5, "1 values that are not whole numbers"),
     (None, "1 missing values; every row needs its count")],
)
def test_bad_counts_are_refused(engine, bad, message, tmp_path):
    data = dict(LONG, count=[40.0, 3.0, bad, 5.0, 7.0, 2.0])
    with pytest.raises(BaccError, match=message):
        counts_from_long(_make(engine, data, tmp_path))


@needs["narwhals"]
def test_a_count_column_of_text_is_refused():
    df = pd.DataFrame(dict(LONG, count=[str(c) for c in LONG["count"]]))
    with pytest.raises(BaccError, match="'count' \\(count=\\) holds .*not numbers"):
        counts_from_long(df)


def test_to_long_reads_back():
    res = counts(DATA, true="y", pred="p", by="det")
    back = counts_from_long(res.to_long(), by="det", labels=res.labels)
    assert back == res
    full = res.to_long(zeros=True)
    assert len(full["count"]) == res.n_groups * res.n_classes**2


# ----------------------------------------------------------------------------------------------
# the result type
def test_grouped_counts_is_a_read_only_mapping_of_confusion_matrices():
    res = counts(DATA, true="y", pred="p", by="det")
    assert len(res) == 4 and list(res) == ["d01", "d02", "d03", "d04"]
    assert all(isinstance(cm, ConfusionMatrix) for cm in res.values())
    assert res.pooled() == counts(DATA, true="y", pred="p")
    assert res.support.shape == (4, 3) and res.correct.shape == (4, 3)
    assert res.total.sum() == len(DATA["y"])
    with pytest.raises(ValueError):
        res.counts[0, 0, 0] = 5
    with pytest.raises(KeyError):
        res["nope"]
    d = res.to_dict()
    assert d["labels"] == ["bird", "cat", "dog"] and len(d["groups"]) == 4
    assert "4 groups" in repr(res)


# ----------------------------------------------------------------------------------------------
# engines stay optional
def test_importing_bacc_imports_no_engine():
    code = (
        "import sys, bacc, bacc.counting, bacc.sklearn\n"
        "heavy = ['duckdb', 'narwhals', 'pandas', 'polars', 'pyarrow', 'dask', 'pyspark', 'sklearn']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_missing_engine_says_what_to_install(monkeypatch, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("y,p\n1,1\n")
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb now fails
    with pytest.raises(MissingDependencyError, match=r'duckdb is needed for counting files.*pip install "bacc\[data\]"'):
        counts(str(path), true="y", pred="p")


def test_a_missing_narwhals_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "narwhals", None)
    monkeypatch.setitem(sys.modules, "narwhals.stable", None)
    monkeypatch.setitem(sys.modules, "narwhals.stable.v2", None)
    with pytest.raises(
        MissingDependencyError,
        match=r'narwhals is needed for counting a pandas DataFrame.*pip install "bacc\[data\]"',
    ):
        counts(pd.DataFrame(DATA), true="y", pred="p")


# ----------------------------------------------------------------------------------------------
# progress bar
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_only_on_a_terminal():
    term, pipe = _Terminal(), io.StringIO()
    for stream in (term, pipe):
        with Progress(10, "counting", stream=stream, delay=0.0, min_interval=0.0) as bar:
            for _ in range(10):
                bar.advance()
    assert "counting [" in term.getvalue() and "100%" in term.getvalue()
    assert term.getvalue().endswith("\r")  # erased at the end
    assert pipe.getvalue() == ""
    quiet = _Terminal()
    with Progress(10, "x", stream=quiet, enabled=False, delay=0.0) as bar:
        bar.advance()
    assert quiet.getvalue() == ""


@needs["duckdb"]
def test_counting_files_on_a_terminal_gives_the_same_counts(monkeypatch, tmp_path):
    path = _make("csv", DATA, tmp_path)
    plain = counts(path, true="y", pred="p", by="det")
    monkeypatch.setattr(sys, "stderr", _Terminal())
    shown = counts(path, true="y", pred="p", by="det")
    assert shown == plain


# ----------------------------------------------------------------------------------------------
# PySpark in local mode (slow to start: one session for the module)
def _spark_skip_reason() -> str | None:
    if not _have("pyspark"):
        return "PySpark tests need pyspark (pip install pyspark)"
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        return "PySpark tests need Java 17+ (e.g. apt-get install openjdk-17-jre-headless)"
    return None


spark_only = pytest.mark.skipif(_spark_skip_reason() is not None, reason=str(_spark_skip_reason()))


@pytest.fixture(scope="module")
def spark():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pyspark.sql import SparkSession

        session = (
            SparkSession.builder.master("local[2]")
            .appName("bacc-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.default.parallelism", "1")
            .config("spark.driver.memory", "1g")
            # a short-lived JVM: the quick compiler only and one collector thread. The session's
            # start and this module's counting cost the JVM 7.6 s of CPU against 14.0 s, the
            # same counts (benchmarks/RESULTS.md)
            .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@spark_only
@needs["narwhals"]
@pytest.mark.slow
def test_pyspark_counts_what_a_plain_python_count_gives(spark):
    rows = list(zip(DATA["det"], DATA["y"], DATA["p"], strict=True))
    df = spark.createDataFrame(rows, "det string, y string, p string")
    res = counts(df, true="y", pred="p", by="det")
    _check_against_reference(res, DATA)
    # missing labels: refused with their number, or dropped and reported
    df2 = spark.createDataFrame([("a", "x", "x"), ("a", None, "y"), ("b", "y", "y")], "det string, y string, p string")
    with pytest.raises(BaccError, match="1 example has a missing label"):
        counts(df2, true="y", pred="p", by="det")
    with pytest.warns(BaccWarning):
        res2 = counts(df2, true="y", pred="p", by="det", nulls="drop")
    assert res2.n_dropped == 1 and res2.counts.sum() == 2
    with pytest.raises(BaccError, match="available columns: 'det', 'y', 'p'"):
        counts(df2, true="label", pred="p")
    long = spark.createDataFrame(list(zip(*LONG.values(), strict=True)), "group string, true string, pred string, count long")
    assert counts_from_long(long)["a"].counts.tolist() == [[42, 3], [0, 9]]


def test_grouped_counts_validates_what_it_is_given():
    with pytest.raises(BaccError, match="whole numbers"):
        GroupedCounts(np.full((1, 2, 2), 0.5), ["a"], [0, 1])
    with pytest.raises(BaccError, match="shape"):
        GroupedCounts(np.zeros((2, 2)), ["a"], [0, 1])
    with pytest.raises(BaccError, match="do not fit"):
        GroupedCounts(np.zeros((2, 2, 2)), ["a"], [0, 1])
    with pytest.raises(BaccError, match="distinct"):
        GroupedCounts(np.zeros((2, 2, 2)), ["a", "a"], [0, 1])
    gc = GroupedCounts(np.ones((1, 2, 2)), ["a"], [0, 1], by="det")
    assert gc.by == ("det",) and gc["a"].total == 4
