"""bacc.readers: the library's file readers, with messages in the library's terms."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import bacc
from bacc.confusion import label_order
from bacc.errors import BaccError
from bacc.readers import read_matrix_file, read_predictions, read_table


@pytest.fixture
def preds(tmp_path: Path) -> Path:
    path = tmp_path / "p.csv"
    path.write_text("id,y,yhat,g\n1,cat,cat,a\n2,dog,cat,a\n3,dog,dog,b\n4,bird,dog,b\n")
    return path


def test_read_predictions_reads_labels_groups_and_class_order(preds):
    p = read_predictions(str(preds), true="y", pred="yhat", by="g")
    assert p.y_true == ("cat", "dog", "dog", "bird")
    assert p.groups == ("a", "a", "b", "b")
    assert p.labels == ("bird", "cat", "dog")


def test_a_missing_column_is_named_with_its_argument(preds):
    with pytest.raises(BaccError, match=r"p.csv has no column 'truth' \(given by true=\); its columns are: id, y"):
        read_predictions(str(preds), true="truth", pred="yhat")
    with pytest.raises(BaccError, match=r"no column 'nope' \(given by fold=\)"):
        read_predictions(str(preds), true="y", pred="yhat", fold="nope")


def test_a_label_outside_labels_names_file_line_column_and_argument(preds):
    with pytest.raises(BaccError, match=r"p.csv, line 5: column 'y' \(true=\) has the label 'bird', "
                                        r"which is not in labels \(cat, dog\)"):
        read_predictions(str(preds), true="y", pred="yhat", labels=["cat", "dog"])


def test_an_empty_label_names_its_argument(tmp_path):
    f = tmp_path / "e.csv"
    f.write_text("y,yhat\na,a\na,\n")
    with pytest.raises(BaccError, match=r"e.csv, line 3: column 'yhat' \(pred=\) is empty"):
        read_predictions(str(f), true="y", pred="yhat")


def test_no_message_speaks_of_command_line_options(preds, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("y,yhat,g\na,a,\n")
    calls = [
        lambda: read_predictions(str(preds), true="truth", pred="yhat"),
        lambda: read_predictions(str(preds), true="y", pred="nope"),
        lambda: read_predictions(str(preds), true="y", pred="yhat", labels=["cat"]),
        lambda: read_predictions(str(bad), true="y", pred="yhat", by="g"),
        lambda: read_table(str(tmp_path / "x.parquet")),
    ]
    for call in calls:
        with pytest.raises(BaccError) as err:
            call()
        assert "--" not in str(err.value), str(err.value)


def test_binary_files_are_sent_to_bacc_counts(tmp_path):
    with pytest.raises(BaccError, match="count .parquet files with bacc.counts"):
        read_table(str(tmp_path / "x.parquet"))


def test_read_matrix_file_csv_with_labels_and_json_folds(tmp_path):
    f = tmp_path / "m.csv"
    f.write_text(",neg,pos\nneg,42,3\npos,6,4\n")
    md = read_matrix_file(str(f))
    assert md.labels == ("neg", "pos") and md.counts == [[42, 3], [6, 4]] and md.folds is None
    j = tmp_path / "folds.json"
    j.write_text(json.dumps({"labels": ["a", "b"], "folds": [[[20, 2], [3, 2]], [[22, 1], [3, 2]]]}))
    md = read_matrix_file(str(j))
    assert md.counts == [[42, 3], [6, 4]] and len(md.folds) == 2 and md.labels == ("a", "b")


def test_label_order_is_numeric_for_integer_text():
    assert label_order(["10", "9", "1", "10"]) == ("1", "9", "10")
    assert label_order(["dog", "cat", "dog"]) == ("cat", "dog")
    assert label_order([2, "a"]) == (2, "a")  # by type name, then as text


def test_readers_need_neither_counting_nor_the_command_line():
    """readers is below the command line and beside counting: it imports neither, even lazily."""
    src = Path(bacc.__file__).parent / "readers.py"
    for node in ast.walk(ast.parse(src.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            assert not mod.startswith(("counting", "cli", "bacc.counting", "bacc.cli")), mod
