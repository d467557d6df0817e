"""Files of predictions at their edges: every dialect of CSV gives the counts of its rows, on
both paths (read in Python by ``bacc evaluate``, counted by DuckDB in ``bacc.counts`` and for
large files), and every unreadable file is one clear line naming it."""

from __future__ import annotations

import gzip
import io
import json
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout

import pytest

import bacc
import bacc.cli.inputs as cli_inputs
from bacc import BaccError
from bacc.cli import main
from bacc.readers import read_predictions

pytest.importorskip("duckdb")

PAIRS = [("a", "a"), ("a", "b"), ("b", "b"), ("b", "b"), ("c", "a"), ("b", "c"), ("a", "a")]


def expected(pairs=PAIRS, labels=("a", "b", "c")) -> list[list[int]]:
    """The confusion matrix of ``pairs``, counted here one pair at a time."""
    n = Counter(pairs)
    return [[n[(t, p)] for p in labels] for t in labels]


def csv_text(sep=",", eol="\n", pairs=PAIRS, header=("y", "p")) -> str:
    return sep.join(header) + eol + "".join(f"{t}{sep}{p}{eol}" for t, p in pairs)


def run_cli(path, true="y", pred="p", *, engine: bool, monkeypatch) -> tuple[int, str, str]:
    """``bacc evaluate PATH --true --pred --format json`` in this process; ``engine`` sends the
    file to DuckDB as a large file would be."""
    if engine:
        monkeypatch.setattr(cli_inputs, "LARGE_FILE_BYTES", -1)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(["evaluate", str(path), "--true", true, "--pred", pred, "--format", "json"])
    monkeypatch.undo()
    return rc, out.getvalue(), err.getvalue()


def cli_counts(path, true="y", pred="p", *, engine: bool, monkeypatch):
    rc, out, err = run_cli(path, true, pred, engine=engine, monkeypatch=monkeypatch)
    assert rc == 0, err
    cm = json.loads(out)["confusion_matrix"]
    return cm["labels"], cm["counts"]


def assert_one_line_error(path, needles, monkeypatch, true="y", pred="p"):
    """``bacc.counts`` raises a BaccError and ``bacc evaluate`` exits 2 with one line, on both
    paths, each naming the file and holding ``needles``."""
    with pytest.raises(BaccError) as err:
        bacc.counts(str(path), true=true, pred=pred, progress=False)
    msgs = [str(err.value)]
    for engine in (False, True):
        rc, out, stderr = run_cli(path, true, pred, engine=engine, monkeypatch=monkeypatch)
        assert rc == 2 and out == "", stderr
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("bacc: error: "), stderr
        msgs.append(lines[0])
    for m in msgs:
        assert "\n" not in m and "Traceback" not in m
        assert path.name in m, m
        for n in needles:
            assert n in m, m


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)  # the same bytes in every process (pytest-xdist ids)


BOM = b"\xef\xbb\xbf"
DIALECTS = {
    "plain.csv": csv_text().encode(),
    "bom.csv": BOM + csv_text().encode(),
    "crlf.csv": csv_text(eol="\r\n").encode(),
    "bom_crlf.csv": BOM + csv_text(eol="\r\n").encode(),
    "cr_only.csv": csv_text(eol="\r").encode(),
    "no_final_newline.csv": csv_text().rstrip("\n").encode(),
    "blank_lines.csv": csv_text().replace("\n", "\n\n").encode(),
    "semicolon.csv": csv_text(sep=";").encode(),
    "tab_in.csv": csv_text(sep="\t").encode(),
    "tabs.tsv": csv_text(sep="\t").encode(),
    "pipes.txt": csv_text(sep="|").encode(),
    "gzipped.csv.gz": _gz(csv_text().encode()),
    "bom_crlf.csv.gz": _gz(BOM + csv_text(eol="\r\n").encode()),
    "spaces.csv": csv_text(sep=" , ", header=(" y", "p ")).encode(),
}


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_every_csv_dialect_counts_its_rows_on_every_path(name, tmp_path, monkeypatch):
    path = tmp_path / name
    path.write_bytes(DIALECTS[name])
    want = expected()
    cm = bacc.counts(str(path), true="y", pred="p", progress=False)
    assert (list(cm.labels), cm.counts.tolist()) == (["a", "b", "c"], want)
    p = read_predictions(str(path), true="y", pred="p")
    assert Counter(zip(p.y_true, p.y_pred, strict=True)) == Counter(PAIRS)
    for engine in (False, True):
        assert cli_counts(path, engine=engine, monkeypatch=monkeypatch) == (["a", "b", "c"], want)


def test_quoted_fields_with_separators_quotes_and_line_breaks(tmp_path, monkeypatch):
    labels = ['x,1', 'say "hi"', "two\nlines"]
    pairs = [(labels[0], labels[0]), (labels[1], labels[2]), (labels[2], labels[2]),
             (labels[0], labels[1]), (labels[2], labels[0])]

    def q(s: str) -> str:
        return '"' + s.replace('"', '""') + '"'

    note = q("a note, with\nbreaks")
    body = "note,y,p\r\n" + "".join(f"{note},{q(t)},{q(p)}\r\n" for t, p in pairs)
    path = tmp_path / "quoted.csv"
    path.write_bytes(BOM + body.encode())
    want = sorted(labels)
    cm = bacc.counts(str(path), true="y", pred="p", progress=False)
    assert sorted(cm.labels) == want
    got = {(cm.labels[i], cm.labels[j]): int(cm.counts[i, j])
           for i in range(3) for j in range(3) if cm.counts[i, j]}
    assert got == dict(Counter(pairs))
    for engine in (False, True):
        labs, counts = cli_counts(path, engine=engine, monkeypatch=monkeypatch)
        assert {(labs[i], labs[j]): counts[i][j] for i in range(3) for j in range(3)
                if counts[i][j]} == dict(Counter(pairs))


@pytest.mark.parametrize("true,pred", [('tr"ue', "pr,ed"), ('y" FROM x; --', "p) OR 1=1 --"),
                                       ("'; DROP TABLE t; --", "SELECT *")])
def test_column_names_with_quotes_and_sql_text(true, pred, tmp_path, monkeypatch):
    def q(s: str) -> str:
        return '"' + s.replace('"', '""') + '"'

    path = tmp_path / "names.csv"
    path.write_text(f"{q(true)},{q(pred)}\n" + "".join(f"{t},{p}\n" for t, p in PAIRS))
    cm = bacc.counts(str(path), true=true, pred=pred, progress=False)
    assert cm.counts.tolist() == expected()
    for engine in (False, True):
        assert cli_counts(path, true, pred, engine=engine, monkeypatch=monkeypatch)[1] == expected()
    # and as a group column of a count per window
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({true: [t for t, _ in PAIRS], pred: [p for _, p in PAIRS],
                       "when": pd.date_range("2026-01-01", periods=len(PAIRS), freq="8h")})
    df.to_parquet(tmp_path / "names.parquet")
    from bacc.counting.windows import count_windows

    got = count_windows(tmp_path / "names.parquet", true=true, pred=pred, time="when",
                        window="1D", progress=False)
    assert got.counts.sum(axis=(1, 2)).tolist() == [3, 3, 1]


# ----------------------------------------------------------------------------------------------
# files that hold no examples, or cannot be read
@pytest.mark.parametrize("name,data", [
    ("empty.csv", b""),
    ("blank.csv", b"  \n\n \r\n"),
    ("bom_only.csv", BOM),
    ("empty.csv.gz", _gz(b"")),
    ("empty.jsonl", b""),
    ("empty_array.json", b" [ ]\n"),
])
def test_empty_files_are_refused_as_empty(name, data, tmp_path, monkeypatch):
    path = tmp_path / name
    path.write_bytes(data)
    assert_one_line_error(path, ["is empty"], monkeypatch)


@pytest.mark.parametrize("data", [b"y,p\n", b"y,p\r\n", BOM + b"y;p\r\n\r\n"])
def test_a_header_row_without_examples_is_refused(data, tmp_path, monkeypatch):
    path = tmp_path / "header_only.csv"
    path.write_bytes(data)
    assert_one_line_error(path, ["no examples"], monkeypatch)


def test_a_repeated_column_name_is_refused_on_both_paths(tmp_path, monkeypatch):
    # DuckDB would rename the second y to y_1 and count the first one without a word
    path = tmp_path / "twice.csv"
    path.write_text("y,p,y\n" + "".join(f"{t},{p},{p}\n" for t, p in PAIRS))
    assert_one_line_error(path, ["names the column 'y' more than once"], monkeypatch)
    # a real column named y_1 is no repetition
    ok = tmp_path / "y_1.csv"
    ok.write_text("y,p,y_1\n" + "".join(f"{t},{p},{p}\n" for t, p in PAIRS))
    assert bacc.counts(str(ok), true="y", pred="p", progress=False).counts.tolist() == expected()


@pytest.mark.parametrize("sep", [",", ";"])
def test_rows_of_uneven_length_are_refused(sep, tmp_path, monkeypatch):
    path = tmp_path / "ragged.csv"
    path.write_text(f"y{sep}p\na{sep}a{sep}x\nb{sep}b\n")
    assert_one_line_error(path, [], monkeypatch)
    with pytest.raises(BaccError, match="fields"):
        bacc.counts(str(path), true="y", pred="p", progress=False)


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16"])
def test_text_that_is_not_utf8_is_refused(encoding, tmp_path, monkeypatch):
    path = tmp_path / "encoded.csv"
    path.write_bytes("y,p\né,é\na,a\n".encode(encoding))
    with pytest.raises(BaccError, match=r"(?i)utf-8"):
        bacc.counts(str(path), true="y", pred="p", progress=False)
    for engine in (False, True):
        rc, _, err = run_cli(path, engine=engine, monkeypatch=monkeypatch)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and "utf-8" in err.lower()


def test_directories_and_globs_that_hold_no_data(tmp_path, monkeypatch):
    empty = tmp_path / "empty_dir"
    empty.mkdir()
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "README.md").write_text("no data here")
    (notes / "notes.txt").write_text("y,p\na,a\n")  # a stray .txt beside data is not data
    for d in (empty, notes):
        with pytest.raises(BaccError, match=rf"directory {d} holds no data file"):
            bacc.counts(str(d), true="y", pred="p", progress=False)
        rc, _, err = run_cli(d, engine=False, monkeypatch=monkeypatch)
        assert rc == 2 and "holds no data file" in err and len(err.strip().splitlines()) == 1
    pattern = tmp_path / "nothing*.csv"
    with pytest.raises(BaccError, match="no file matches"):
        bacc.counts(str(pattern), true="y", pred="p", progress=False)
    rc, _, err = run_cli(pattern, engine=False, monkeypatch=monkeypatch)
    assert rc == 2 and "no file matches" in err
    # a directory of files, some empty or header-only: the examples of the others
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text(csv_text())
    (data / "b.csv").write_text("")
    (data / "c.csv").write_text("y,p\n")
    (data / "d.csv").write_text(csv_text(eol="\r\n"))
    assert bacc.counts(str(data), true="y", pred="p", progress=False).counts.tolist() == \
        expected(PAIRS * 2)
    assert cli_counts(data, engine=False, monkeypatch=monkeypatch)[1] == expected(PAIRS * 2)
    assert bacc.counts(str(data / "*.csv"), true="y", pred="p",
                       progress=False).counts.tolist() == expected(PAIRS * 2)


def test_a_directory_given_as_a_file_to_the_python_reader(tmp_path):
    d = tmp_path / "folder.csv"
    d.mkdir()
    with pytest.raises(BaccError, match="is a directory"):
        read_predictions(str(d), true="y", pred="p")


@pytest.mark.parametrize("layout", ["one line", "indented"])
def test_a_json_file_holding_one_array_of_objects(layout, tmp_path, monkeypatch):
    records = [{"y": t, "p": p} for t, p in PAIRS]
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records, indent=None if layout == "one line" else 2))
    assert bacc.counts(str(path), true="y", pred="p", progress=False).counts.tolist() == expected()
    for engine in (False, True):
        assert cli_counts(path, engine=engine, monkeypatch=monkeypatch)[1] == expected()
